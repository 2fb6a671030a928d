// useGeneralChat over chatstream/streaming: the same hook as "chatstream/react", without provider mode.
import type { GeneralChat } from "../react.js";
import type { ChatSession, ChatSessionOptions } from "./index.js";

export type { GeneralChat } from "../react.js";

export interface UseGeneralChatOptions extends ChatSessionOptions {
  /** Drive this session instead of making one (its owner disposes it). */
  session?: ChatSession;
}

export declare function useGeneralChat(options?: UseGeneralChatOptions): GeneralChat;
