// The entry Node resolves (the "node" export condition): the .wasm beside this file is read and
// compiled synchronously on import, so nothing needs `init()` there, and `await init()` resolves at
// once. So is the AI SDK backend mode's (chatstream/ai-sdk's), which a browser loads on first use.
import { readFileSync } from "node:fs";
import { initSync } from "./index.js";
import { initSync as initAiSdk } from "./ai-sdk/module.js";

initSync(readFileSync(new URL("./chatstream_bg.wasm", import.meta.url)));
initAiSdk(readFileSync(new URL("./ai-sdk/chatstream_bg.wasm", import.meta.url)));

export * from "./index.js";
export { default } from "./index.js";
