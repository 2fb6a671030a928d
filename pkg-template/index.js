// chatstream: the package entry, over the full WebAssembly module (every dialect, the chat state,
// and provider mode: request builders and the agent loop). `chatstream/streaming` is the same API
// over a smaller module without provider mode. The AI SDK backend mode (`AiSdkChat`, `ChatSession`
// with `backend: "ai-sdk"`) is not in this module: its own, chatstream/ai-sdk's, is loaded on its
// first use (ai-sdk-on-demand.js).
//
// The module (./chatstream.js, made by wasm-bindgen) parses and keeps the state; the JS files beside
// this one do the I/O and keep the snapshots: see api.js.
import * as wasm from "./chatstream.js";
import { makeApi } from "./api.js";
import { AiSdkChatOnDemand } from "./ai-sdk-on-demand.js";

const api = makeApi(wasm, { AiSdkChat: AiSdkChatOnDemand });

export default api.init;
export const { initSync, isReady, ChatStream, ChatSession, AiSdkChat, streamEvents, resolveToolMarkers, parseLlmResponse } = api;
export { ChatstreamError } from "./io.js";
export { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls } from "./ai-sdk-messages.js";
