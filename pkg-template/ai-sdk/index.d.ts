// chatstream/ai-sdk: the AI SDK backend mode alone, over a module that holds only that mode (no
// ChatStream, streamEvents, dialects or provider mode: those are in "chatstream/streaming" and "chatstream").
import type { AiSdkChat, AiSdkChatOptions, AnyUIMessage, UIMessage } from "../index.js";

export type {
  AiSdkChatOptions,
  AiSdkChatState,
  AnyUIMessage,
  ChatRequestOptions,
  ChatStatus,
  CreateUIMessage,
  DataUIPart,
  DynamicToolUIPart,
  ErrorCode,
  FileUIPart,
  Json,
  ProviderMetadata,
  ReasoningUIPart,
  Resolvable,
  SourceDocumentUIPart,
  SourceUrlUIPart,
  StepStartUIPart,
  TextUIPart,
  ToolNameOf,
  ToolOutput,
  ToolUIPart,
  UIDataPartOf,
  UIDataTypes,
  UIFinishReason,
  UIMessage,
  UIMessagePart,
  UITool,
  UIToolCall,
  UIToolInvocation,
  UITools,
  UIToolsOf,
} from "../index.js";
export {
  AiSdkChat,
  ChatstreamError,
  default,
  initSync,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
} from "../index.js";

/**
 * Whether this entry's module, the AI SDK backend mode's, is loaded (always true in Node). Once it
 * is, chatstream's and chatstream/streaming's `AiSdkChat` use it too.
 */
export function isReady(): boolean;

/**
 * `new ChatSession({ backend: "ai-sdk", ... })` makes an `AiSdkChat`, as in the other entries; any
 * other backend is refused with a TypeError naming the entries that have it.
 */
export declare const ChatSession: new <UI_MESSAGE extends AnyUIMessage = UIMessage>(
  options: AiSdkChatOptions<UI_MESSAGE> & { backend: "ai-sdk" },
) => AiSdkChat<UI_MESSAGE>;
