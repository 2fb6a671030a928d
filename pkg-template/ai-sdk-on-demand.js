// The AI SDK backend mode in the entries that offer it without holding it (chatstream,
// chatstream/streaming): their modules are built without the mode, and its own module,
// chatstream/ai-sdk's, is imported and loaded on the mode's first use (the first AiSdkChat, or
// ChatSession with `backend: "ai-sdk"`). An app that never uses the mode never downloads it, and a
// bundler puts it in a chunk of its own. Until it is in, a chat waits for it as a ChatSession waits
// for the entry's module (ai-sdk-chat.js). In Node the entries load it on import (node.js).
import { makeAiSdkChat } from "./ai-sdk-chat.js";

let loaded = null; // ai-sdk/module.js, once imported
let importing = null;

/**
 * chatstream/ai-sdk's module as `makeAiSdkChat` takes it. Its .wasm is named here, beside this
 * file's folder, and not left to the module's own default: a bundler that puts every module in one
 * file (esbuild without splitting) would resolve that default to the entry's chatstream_bg.wasm.
 */
const aiSdkModule = {
  isReady: () => loaded?.isReady() ?? false,
  async load() {
    importing ??= import("./ai-sdk/module.js").then(
      (imported) => (loaded = imported),
      (error) => {
        importing = null; // the next use tries again
        throw error;
      },
    );
    await importing;
    await loaded.init({ module_or_path: new URL("./ai-sdk/chatstream_bg.wasm", import.meta.url) });
  },
  bindings: () => loaded.wasm,
};

/** The AI SDK backend mode's chat, its module loaded on first use. */
export const AiSdkChatOnDemand = makeAiSdkChat(aiSdkModule);

/** Node: the module, already loaded (node.js compiles it on import, as it does the entry's). */
export function aiSdkModuleLoaded(imported) {
  loaded = imported;
}
