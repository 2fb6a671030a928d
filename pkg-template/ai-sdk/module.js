// chatstream/ai-sdk's WebAssembly module and its loader, one per page: this entry loads it, and
// chatstream and chatstream/streaming import this file on the AI SDK backend mode's first use
// (ai-sdk-on-demand.js), or find it in registry.js when the page imported it already, so the module
// is loaded once whichever entries the page uses.
import * as wasm from "./chatstream.js";
import { makeLoader } from "../init.js";
import { aiSdk } from "./registry.js";

export { wasm };
export const { init, initSync, isReady } = makeLoader(wasm);
aiSdk.module = { wasm, init, isReady };
