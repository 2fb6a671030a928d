// The AI SDK backend mode in the entries that offer it without holding it (chatstream,
// chatstream/streaming): their modules are built without the mode, and its own module,
// chatstream/ai-sdk's, is imported and loaded on the mode's first use (the first AiSdkChat, or
// ChatSession with `backend: "ai-sdk"`), unless the page has it already (ai-sdk/registry.js). An app
// that never uses the mode never downloads it, and a bundler puts it in a chunk of its own. Until it
// is in, a chat waits for it as a ChatSession waits for the entry's module (ai-sdk-chat.js). In Node
// the entries load it on import (node.js).
import { makeAiSdkChat } from "./ai-sdk-chat.js";
import { aiSdk } from "./ai-sdk/registry.js";

let loading = null;

/**
 * Imports chatstream/ai-sdk's module (when the page has not) and loads its .wasm, asked for at once,
 * beside the import rather than after it: one round trip less. The .wasm is named here, beside this
 * file's folder, and not left to the module's own default: a bundler that puts every module in one
 * file (esbuild without splitting) would resolve that default to the entry's chatstream_bg.wasm.
 */
async function load() {
  const path = new URL("./ai-sdk/chatstream_bg.wasm", import.meta.url);
  // The page imported chatstream/ai-sdk already: its loader shares a load the page has under way
  // (`init()` called and not awaited) rather than fetch the .wasm a second time.
  if (aiSdk.module) return aiSdk.module.init({ module_or_path: path });
  const file = fetch(path);
  file.catch(() => {}); // said by init below; not unhandled when the import fails first
  const module = await import("./ai-sdk/module.js"); // which puts itself in aiSdk
  await module.init({ module_or_path: file });
}

/** The AI SDK backend mode's chat, its module loaded on first use. */
export const AiSdkChatOnDemand = makeAiSdkChat({
  isReady: () => aiSdk.module?.isReady() ?? false,
  // One load at a time; after a failed one the next use fetches the .wasm again (a script that did
  // not download stays failed in a browser until the page is reloaded).
  load: () => (aiSdk.module?.isReady() ? Promise.resolve() : (loading ??= load().finally(() => (loading = null)))),
  bindings: () => aiSdk.module.wasm,
});
