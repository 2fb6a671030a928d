// The one place that knows which chat library runs the page: `?chat=ai-sdk` (the default) is the
// AI SDK's `useChat`, `?chat=chatstream` is chatstream's `useGeneralChat` in its AI SDK mode. The
// page (App.tsx) sees only `AppChat`, so both libraries drive the same UI against the same backend.
import { useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type ChatStatus,
  type FinishReason,
} from "ai";
import * as chatstream from "chatstream";
import { useGeneralChat } from "chatstream/react";
import type { AppData, AppMessage, AppTools } from "./messages";

export type ChatLibrary = "ai-sdk" | "chatstream";

export const chatLibrary: ChatLibrary =
  new URLSearchParams(location.search).get("chat") === "chatstream" ? "chatstream" : "ai-sdk";

/** What `onFinish` reported for one answer. */
export type Finish = {
  messageId: string;
  isAbort: boolean;
  isDisconnect: boolean;
  isError: boolean;
  finishReason: FinishReason | undefined;
};

/** A client-side tool's call, as the page's tool runner gets it. */
export type ClientToolCall = { toolName: string; toolCallId: string; input: unknown };

export type AppChatOptions = {
  /** The conversation's id, sent with each request. */
  id: string;
  /** The saved conversation to start from. */
  messages: AppMessage[];
  /** Runs a client-side tool the page answers by itself; `undefined` leaves the call to the user. */
  runClientTool: (call: ClientToolCall) => AppTools[keyof AppTools]["output"] | undefined;
  onFinish: (finish: Finish) => void;
  /** Transient data parts (not kept in the messages). */
  onData: (part: { type: `data-${keyof AppData & string}`; data: unknown }) => void;
};

/** The chat as the page drives it: the AI SDK's `useChat` helpers the page uses. */
export type AppChat = {
  messages: AppMessage[];
  status: ChatStatus;
  error: Error | undefined;
  sendMessage: (text: string) => Promise<void>;
  addToolOutput: <TOOL extends keyof AppTools>(answer: {
    tool: TOOL;
    toolCallId: string;
    output: AppTools[TOOL]["output"];
  }) => Promise<void>;
  addToolApprovalResponse: (response: { id: string; approved: boolean; reason?: string }) => Promise<void>;
  stop: () => Promise<void>;
  regenerate: (messageId?: string) => Promise<void>;
  setMessages: (update: (messages: AppMessage[]) => AppMessage[]) => void;
};

// The chat route, and the app's own body field and header, sent with every chat request.
const request = {
  api: "/api/chat",
  body: { locale: "en-GB" },
  headers: { "x-chat-app": "ai-sdk-chat" },
};

const transport = new DefaultChatTransport<AppMessage>(request);

/** Sends again when every client tool call has its output, or every approval its answer. */
const sendAutomaticallyWhen = ({ messages }: { messages: AppMessage[] }) =>
  lastAssistantMessageIsCompleteWithToolCalls({ messages }) ||
  lastAssistantMessageIsCompleteWithApprovalResponses({ messages });

/** A tool call as both libraries hand it to `onToolCall`. */
type ToolCall =
  | { toolName: keyof AppTools; toolCallId: string; input: unknown; dynamic?: false }
  | { toolName: string; toolCallId: string; input: unknown; dynamic: true };

/** The callbacks the page gives either library: the same names and arguments in both. */
function callbacks(options: AppChatOptions, chat: () => Pick<LibraryChat, "addToolOutput">) {
  return {
    onToolCall({ toolCall }: { toolCall: ToolCall }) {
      if (toolCall.dynamic) return;
      const output = options.runClientTool(toolCall);
      // No await: the AI SDK's docs warn that awaiting here can deadlock.
      if (output !== undefined) void chat().addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId, output });
    },
    onFinish({ message, isAbort, isDisconnect, isError, finishReason }: Omit<Finish, "messageId" | "finishReason"> & { message: AppMessage; finishReason?: FinishReason }) {
      options.onFinish({ messageId: message.id, isAbort, isDisconnect, isError, finishReason });
    },
    onData: options.onData,
  };
}

/** What either library returns, under the same names: the helpers the page uses. */
type LibraryChat = {
  messages: AppMessage[];
  status: ChatStatus;
  error: Error | undefined;
  sendMessage(message: { text: string }): Promise<void>;
  addToolOutput(answer: Parameters<AppChat["addToolOutput"]>[0]): void | PromiseLike<void>;
  addToolApprovalResponse(response: { id: string; approved: boolean; reason?: string }): void | PromiseLike<void>;
  stop(): Promise<void>;
  regenerate(options: { messageId?: string }): Promise<void>;
  setMessages(update: (messages: AppMessage[]) => AppMessage[]): void;
};

/** The page's chat over either library's. */
function appChat(chat: LibraryChat): AppChat {
  return {
    messages: chat.messages,
    status: chat.status,
    error: chat.error,
    sendMessage: (text) => chat.sendMessage({ text }),
    addToolOutput: async (answer) => chat.addToolOutput(answer),
    addToolApprovalResponse: async (response) => chat.addToolApprovalResponse(response),
    stop: chat.stop,
    regenerate: (messageId) => chat.regenerate({ messageId }),
    setMessages: chat.setMessages,
  };
}

function useAiSdkChat(options: AppChatOptions): AppChat {
  const chat: LibraryChat = useChat<AppMessage>({
    id: options.id,
    messages: options.messages,
    transport,
    sendAutomaticallyWhen,
    ...callbacks(options, () => chat),
  });
  return appChat(chat);
}

// chatstream's equivalents of the AI SDK's two helpers, the same rule.
const sendAutomaticallyWhenChatstream = ({ messages }: { messages: AppMessage[] }) =>
  chatstream.lastAssistantMessageIsCompleteWithToolCalls({ messages }) ||
  chatstream.lastAssistantMessageIsCompleteWithApprovalResponses({ messages });

// The same chat on chatstream: `useGeneralChat` in its AI SDK backend mode takes useChat's options
// (the transport's as options of their own) and returns what useChat returns.
function useChatstreamChat(options: AppChatOptions): AppChat {
  const chat: LibraryChat = useGeneralChat<AppMessage>({
    backend: "ai-sdk",
    id: options.id,
    messages: options.messages,
    ...request,
    sendAutomaticallyWhen: sendAutomaticallyWhenChatstream,
    ...callbacks(options, () => chat),
  });
  return appChat(chat);
}

export const useAppChat: (options: AppChatOptions) => AppChat =
  chatLibrary === "chatstream" ? useChatstreamChat : useAiSdkChat;
