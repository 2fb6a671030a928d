// chatstream/streaming: the package's API over the streaming-only WebAssembly module: every
// dialect, the cleaning and the chat state, without provider mode (request builders, agent loop).
// A page that talks to an agent backend, or reads provider streams itself, loads this smaller module.
import * as wasm from "./chatstream.js";
import { makeApi } from "../api.js";

const api = makeApi(wasm);

export default api.init;
export const { initSync, isReady, ChatStream, ChatSession, streamEvents, resolveToolMarkers, parseLlmResponse } = api;
export { ChatstreamError } from "../io.js";
