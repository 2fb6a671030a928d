// The AI SDK backend mode in chatstream and chatstream/streaming as a browser loads it (the default
// entries, not Node's): their modules are built without it, and the first AiSdkChat (or ChatSession
// with backend "ai-sdk") loads chatstream/ai-sdk's module, once; a chat made before that waits for
// it, as a ChatSession waits for the entry's module. Against the AI SDK test backend
// (tests/ai-sdk/server.js); the answer is what its script says, checked by hand.
// The tests run in order: a module can be loaded only once per process.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { startBackend } from "../ai-sdk/server.js";
import { fetchWithWasm } from "./wasm-fetch.js";

// A browser's fetch of a .wasm (a file: URL here), recorded and told to `fetched`; it waits for
// `gate`, and fails as a browser's does while `failing` is set. The chat's requests go to the backend as they are.
const wasmFetches = [];
let gate = Promise.resolve();
let failing = false;
let fetched = () => {};
// Whether chatstream/ai-sdk's script (module.js, which puts itself in registry.js) was in at each .wasm fetch.
const registry = await import("../../pkg/ai-sdk/registry.js");
const scriptInAtFetch = [];
globalThis.fetch = fetchWithWasm(async (path) => {
  wasmFetches.push(path);
  scriptInAtFetch.push(registry.aiSdk.module !== null);
  fetched();
  await gate;
  if (failing) throw new TypeError("Failed to fetch");
});

const full = await import("../../pkg/index.js");
const streaming = await import("../../pkg/streaming/index.js");
const backend = await startBackend();
after(() => backend.close());
const api = `${backend.url}api/chat`;
/** Resolves at the chat's next change. */
const changed = (chat) => new Promise((resolve) => { const off = chat.subscribe(() => (off(), resolve())); });
const textOf = (message) => message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
/** `promise`, or a failure naming `what` when it is still pending after 5 s: a test that fails rather than hangs. */
const within = (promise, what) => Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`still waiting for ${what}`)), 5000).unref())]);

test("importing the entries loads no module: the AI SDK backend mode's is loaded on its first use only", () => {
  assert.deepEqual(wasmFetches, []);
  assert.equal(full.isReady(), false);
});

test("a module that did not load is the chat's error, with a code; a message sent then is kept, and the next use fetches the .wasm again", async () => {
  failing = true;
  const chat = new full.AiSdkChat({ api });
  await new Promise((resolve) => chat.subscribe(resolve)); // the failed load, shown
  assert.equal(chat.status, "error");
  assert.equal(chat.error.code, "NETWORK_ERROR");
  assert.match(chat.error.message, /Failed to fetch/);
  assert.deepEqual(wasmFetches, ["ai-sdk/chatstream_bg.wasm"]);
  assert.deepEqual(scriptInAtFetch, [false], "the .wasm is asked for beside the script's import, not after it");
  chat.clearError();
  const errors = [];
  chat.setOptions({ onError: (error) => errors.push(error) });
  const shown = changed(chat);
  const sent = chat.sendMessage({ text: "hello" });
  await shown; // before the module is in, as useChat shows a message and "submitted"
  assert.equal(chat.status, "submitted");
  assert.deepEqual(chat.messages.map((m) => [m.role, textOf(m)]), [["user", "hello"]]);
  await sent; // resolves: the failure is the chat's state, not a rejection
  assert.equal(chat.status, "error");
  assert.equal(chat.error.code, "NETWORK_ERROR");
  assert.deepEqual(errors, [chat.error]);
  assert.deepEqual(chat.messages.map((m) => [m.role, textOf(m)]), [["user", "hello"]], "the message is kept");
  assert.deepEqual(wasmFetches, ["ai-sdk/chatstream_bg.wasm", "ai-sdk/chatstream_bg.wasm"], "tried again");
  wasmFetches.length = 0;
  failing = false;
  chat.dispose();
});

test("stop() while the mode's module downloads: the chat is ready at once, nothing read, the message kept", async (t) => {
  let open;
  gate = new Promise((resolve) => (open = resolve));
  t.after(open); // a failed test does not leave the next ones waiting
  failing = true; // this download fails: the next test is the first to load the module
  const asked = new Promise((resolve) => (fetched = resolve));
  const chat = new full.AiSdkChat({ api });
  const shown = changed(chat);
  const sent = chat.sendMessage({ text: "stop me" });
  await shown;
  assert.equal(chat.status, "submitted");
  assert.deepEqual(chat.messages.map((m) => [m.role, textOf(m)]), [["user", "stop me"]]);
  await asked;
  await within(chat.stop(), "stop()"); // does not wait for the download, which is still held back
  await within(sent, "the send to end");
  assert.equal(chat.status, "ready");
  assert.deepEqual(chat.messages.map((m) => [m.role, textOf(m)]), [["user", "stop me"]]);
  const failed = changed(chat); // the constructor's load, shown
  open();
  await failed;
  assert.deepEqual(chat.messages.map((m) => [m.role, textOf(m)]), [["user", "stop me"]]);
  wasmFetches.length = 0;
  gate = Promise.resolve();
  failing = false;
  chat.dispose();
});

test("a chat made before the mode's module is in shows its messages, and its first message goes out before the module is in", async () => {
  let open;
  gate = new Promise((resolve) => (open = resolve));
  const saved = [{ id: "u1", role: "user", parts: [{ type: "text", text: "earlier" }] }];
  const asked = new Promise((resolve) => (fetched = resolve));
  const chat = new full.ChatSession({ backend: "ai-sdk", api, messages: saved });
  assert.ok(chat instanceof full.AiSdkChat);
  assert.deepEqual(chat.getSnapshot(), { id: chat.id, messages: saved, status: "ready", error: undefined });
  const sent = chat.sendMessage({ text: "hello" });
  await asked;
  assert.deepEqual(wasmFetches, ["ai-sdk/chatstream_bg.wasm"], "chatstream/ai-sdk's module, not the entry's");
  for (let waited = 0; backend.requests.length === 0; waited += 5) {
    assert.ok(waited < 5000, "the request is sent while the module downloads");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  open();
  await sent;
  assert.equal(chat.status, "ready");
  assert.deepEqual(chat.messages.map((m) => m.role), ["user", "user", "assistant"]);
  assert.equal(textOf(chat.messages[2]), "Hello! How can I help you today?");
  assert.equal(full.isReady(), false, "the entry's own module is still not loaded: the mode needs none of it");
  chat.dispose();
});

test("once loaded, the module serves every entry's chats at once: a message that is not a UI message is refused as the chat is made", () => {
  const bad = [{ id: "x", role: "user", parts: [{ type: "nope" }] }];
  assert.throws(() => new streaming.AiSdkChat({ api, messages: bad }), (e) => e instanceof TypeError && /messages\[0\] \(id "x"\): parts\[0\]: unknown part type "nope"/.test(e.message));
  assert.throws(() => new full.ChatSession({ backend: "ai-sdk", api, messages: bad }), TypeError);
  assert.deepEqual(wasmFetches, ["ai-sdk/chatstream_bg.wasm"], "loaded once");
});
