// `chatstream/ai-sdk` in Node: the .wasm beside this file is compiled on import, as for `chatstream`.
import { readFileSync } from "node:fs";
import { initSync } from "./index.js";

initSync(readFileSync(new URL("./chatstream_bg.wasm", import.meta.url)));

export * from "./index.js";
export { default } from "./index.js";
