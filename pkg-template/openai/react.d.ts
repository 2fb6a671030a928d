// useGeneralChat over chatstream/openai: the hook of "chatstream/streaming/react" without the AI SDK backend mode, which this entry's module has not.
import type { GeneralChat, UseGeneralChatOptions } from "../streaming/react.js";

export type { GeneralChat, UseGeneralChatOptions } from "../streaming/react.js";
export declare function useGeneralChat(options?: UseGeneralChatOptions): GeneralChat;
