// chatstream/streaming: the package's API over the streaming-only WebAssembly module: every
// dialect, the cleaning and the chat state, without provider mode (request builders, agent loop).
// A page that talks to an agent backend, or reads provider streams itself, loads this smaller module.
// The AI SDK backend mode loads a module of its own on first use, as in `chatstream` (ai-sdk-on-demand.js).
import * as wasm from "./chatstream.js";
import { makeApi } from "../api.js";
import { AiSdkChatOnDemand } from "../ai-sdk-on-demand.js";

const api = makeApi(wasm, { AiSdkChat: AiSdkChatOnDemand });

export default api.init;
export const { initSync, isReady, ChatStream, ChatSession, AiSdkChat, streamEvents, resolveToolMarkers, parseLlmResponse } = api;
export { ChatstreamError } from "../io.js";
export { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls } from "../ai-sdk-messages.js";
