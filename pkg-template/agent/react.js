// useGeneralChat over the agent protocol module (chatstream/agent).
import init, { ChatSession, isReady } from "./index.js";
import { makeUseGeneralChat } from "../react-hook.js";

export const useGeneralChat = makeUseGeneralChat({ init, ChatSession, isReady });
