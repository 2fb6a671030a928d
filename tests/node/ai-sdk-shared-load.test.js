// chatstream's browser entry on a page that imported chatstream/ai-sdk and started its `init()`
// without awaiting it: the full entry's AiSdkChat shares that load, so the .wasm is fetched once.
// Against the AI SDK test backend (tests/ai-sdk/server.js); the answer is what its script says,
// checked by hand. A process of its own: a module can be loaded only once per process.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { startBackend } from "../ai-sdk/server.js";
import { fetchWithWasm } from "./wasm-fetch.js";

// A browser's fetch of a .wasm (a file: URL here), recorded; it waits for `gate`.
const wasmFetches = [];
let open;
const gate = new Promise((resolve) => (open = resolve));
globalThis.fetch = fetchWithWasm(async (path) => {
  wasmFetches.push(path);
  await gate;
});

const full = await import("../../pkg/index.js");
const aiSdk = await import("../../pkg/ai-sdk/index.js");
const backend = await startBackend();
after(() => backend.close());
const api = `${backend.url}api/chat`;
const textOf = (message) => message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");

test("a load of chatstream/ai-sdk's module under way is shared by the full entry's AiSdkChat: one fetch", async () => {
  const pageLoad = aiSdk.default(); // the page's own init(), not awaited
  const chat = new full.AiSdkChat({ api });
  const sent = chat.sendMessage({ text: "hello" });
  await new Promise((resolve) => setTimeout(resolve, 50)); // time for a second fetch, were one made
  open();
  await Promise.all([pageLoad, sent]);
  assert.equal(chat.status, "ready");
  assert.deepEqual(chat.messages.map((m) => m.role), ["user", "assistant"]);
  assert.equal(textOf(chat.messages[1]), "Hello! How can I help you today?");
  assert.deepEqual(wasmFetches, ["ai-sdk/chatstream_bg.wasm"]);
  chat.dispose();
});
