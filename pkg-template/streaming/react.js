// useGeneralChat over the streaming-only module (chatstream/streaming).
import init, { ChatSession, isReady } from "./index.js";
import { makeUseGeneralChat } from "../react-hook.js";
import { makeUseAiSdkChat } from "../ai-sdk-hook.js";

export const useGeneralChat = makeUseGeneralChat({ init, ChatSession, isReady, useAiSdkChat: makeUseAiSdkChat(ChatSession) });
