// chatstream/streaming: the package's API over the streaming-only WebAssembly module: every
// dialect, the cleaning and the chat state, without provider mode (request builders, agent loop).
// A page that talks to an agent backend, or reads provider streams itself, loads this smaller module.
import * as wasm from "./chatstream.js";
import { makeApi } from "../api.js";
import { makeAiSdkChat } from "../ai-sdk-chat.js";

const api = makeApi(wasm, { makeAiSdkChat });

export default api.init;
export const { initSync, isReady, ChatStream, ChatSession, AiSdkChat, streamEvents, resolveToolMarkers, parseLlmResponse } = api;
export { ChatstreamError } from "../io.js";
export { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls } from "../ai-sdk-messages.js";
