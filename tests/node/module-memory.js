// The package loaded with its module's memory at hand, for tests of how much the module grows (the
// package does not hand its memory out): `memory` is that instance's WebAssembly.Memory.
import { readFileSync } from "node:fs";

let instanceMemory;
const Instance = WebAssembly.Instance;
WebAssembly.Instance = function (module, imports) {
  const instance = new Instance(module, imports);
  instanceMemory ??= instance.exports.memory;
  return instance;
};
const { initSync, ChatStream } = await import("../../pkg/index.js");
initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });
WebAssembly.Instance = Instance;

export const memory = instanceMemory;
export { ChatStream };
