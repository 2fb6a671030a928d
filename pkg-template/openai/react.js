// useGeneralChat over the OpenAI Chat Completions module (chatstream/openai).
import init, { ChatSession, isReady } from "./index.js";
import { makeUseGeneralChat } from "../react-hook.js";

export const useGeneralChat = makeUseGeneralChat({ init, ChatSession, isReady });
