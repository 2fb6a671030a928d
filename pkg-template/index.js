// chatstream: the package entry, over the full WebAssembly module (every dialect, the chat state,
// and provider mode: request builders and the agent loop). `chatstream/streaming` is the same API
// over a smaller module without provider mode.
//
// The module (./chatstream.js, made by wasm-bindgen) parses and keeps the state; the JS files beside
// this one do the I/O and keep the snapshots: see api.js.
import * as wasm from "./chatstream.js";
import { makeApi } from "./api.js";
import { makeAiSdkChat } from "./ai-sdk-chat.js";

const api = makeApi(wasm, { makeAiSdkChat });

export default api.init;
export const { initSync, isReady, ChatStream, ChatSession, AiSdkChat, streamEvents, resolveToolMarkers, parseLlmResponse } = api;
export { ChatstreamError } from "./io.js";
export { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls } from "./ai-sdk-messages.js";
