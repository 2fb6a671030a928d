// The entry Node resolves (the "node" export condition): the .wasm beside this file is read and
// compiled synchronously on import, so nothing needs `init()` there, and `await init()` resolves at once.
import { readFileSync } from "node:fs";
import { initSync } from "./index.js";

initSync(readFileSync(new URL("./chatstream_bg.wasm", import.meta.url)));

export * from "./index.js";
export { default } from "./index.js";
