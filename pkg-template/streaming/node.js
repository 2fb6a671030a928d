// `chatstream/streaming` in Node: the .wasm beside this file is compiled on import, as for
// `chatstream`, and so is the AI SDK backend mode's.
import { readFileSync } from "node:fs";
import { initSync } from "./index.js";
import { initSync as initAiSdk } from "../ai-sdk/module.js";

initSync(readFileSync(new URL("./chatstream_bg.wasm", import.meta.url)));
initAiSdk(readFileSync(new URL("../ai-sdk/chatstream_bg.wasm", import.meta.url)));

export * from "./index.js";
export { default } from "./index.js";
