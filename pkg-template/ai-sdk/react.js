// useGeneralChat over chatstream/ai-sdk: the AI SDK backend mode's hook, which returns what useChat returns.
import { AiSdkChat } from "./index.js";
import { ONLY_AI_SDK } from "./only.js";
import { makeUseAiSdkChat } from "../ai-sdk-hook.js";

const useAiSdkChat = makeUseAiSdkChat(AiSdkChat);

export function useGeneralChat(options = {}) {
  if (options.backend !== "ai-sdk") throw new TypeError(`useGeneralChat: ${ONLY_AI_SDK}`);
  return useAiSdkChat(options);
}
