// useGeneralChat: chat state for React, with the stream handling done by chatstream.
// React is an optional peer dependency: import this file only in React apps.
import init, { ChatSession, isReady } from "./index.js";
import { makeUseGeneralChat } from "./react-hook.js";
import { makeUseAiSdkChat } from "./ai-sdk-hook.js";

export const useGeneralChat = makeUseGeneralChat({ init, ChatSession, isReady, useAiSdkChat: makeUseAiSdkChat(ChatSession) });
