// useGeneralChat over chatstream/ai-sdk: the AI SDK backend mode's hook only (`backend: "ai-sdk"`
// is required; any other is refused with a TypeError naming the entries that have it).
import type { UseAiSdkChatOptions, UseChatHelpers } from "../react.js";
import type { AnyUIMessage, UIMessage } from "../index.js";

export type { UseAiSdkChatOptions, UseChatHelpers } from "../react.js";

/** `useGeneralChat({ backend: "ai-sdk", api: "/api/chat", ... })`: returns what the AI SDK's useChat returns. */
export declare function useGeneralChat<UI_MESSAGE extends AnyUIMessage = UIMessage>(options: UseAiSdkChatOptions<UI_MESSAGE>): UseChatHelpers<UI_MESSAGE>;
