// chatstream/openai: the package's API over a module that reads one dialect, OpenAI Chat Completions (OpenAI and every OpenAI-compatible server),
// without provider mode. A stream of another dialect ends with an error event (SERVICE_UNAVAILABLE)
// that names it: "chatstream" and "chatstream/streaming" read every dialect.
import * as wasm from "./chatstream.js";
import { makeApi } from "../api.js";

const api = makeApi(wasm);

export default api.init;
export const { initSync, isReady, ChatStream, ChatSession, AiSdkChat, streamEvents, resolveToolMarkers, parseLlmResponse } = api;
export { ChatstreamError } from "../io.js";
export { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls } from "../ai-sdk-messages.js";
