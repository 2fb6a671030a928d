// useGeneralChat over chatstream/streaming: the same hook as "chatstream/react", without provider mode.
import type { GeneralChat, UseAiSdkChatOptions, UseChatHelpers } from "../react.js";
import type { AnyUIMessage, UIMessage } from "../index.js";
import type { ChatSession, ChatSessionOptions } from "./index.js";

export type { GeneralChat, UseAiSdkChatOptions, UseChatHelpers } from "../react.js";

export interface UseGeneralChatOptions extends ChatSessionOptions {
  /** Drive this session instead of making one (its owner disposes it). */
  session?: ChatSession;
}

/** The AI SDK backend mode, as in "chatstream/react": returns what useChat returns. */
export declare function useGeneralChat<UI_MESSAGE extends AnyUIMessage = UIMessage>(options: UseAiSdkChatOptions<UI_MESSAGE>): UseChatHelpers<UI_MESSAGE>;
export declare function useGeneralChat(options?: UseGeneralChatOptions): GeneralChat;
