// `chatstream/streaming` in Node: the .wasm beside this file is compiled on import, as for
// `chatstream`, and so is the AI SDK backend mode's.
import { readFileSync } from "node:fs";
import { initSync } from "./index.js";
import * as aiSdkModule from "../ai-sdk/module.js";
import { aiSdkModuleLoaded } from "../ai-sdk-on-demand.js";

initSync(readFileSync(new URL("./chatstream_bg.wasm", import.meta.url)));
aiSdkModule.initSync(readFileSync(new URL("../ai-sdk/chatstream_bg.wasm", import.meta.url)));
aiSdkModuleLoaded(aiSdkModule);

export * from "./index.js";
export { default } from "./index.js";
