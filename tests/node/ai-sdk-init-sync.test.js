// chatstream's browser entry with chatstream/ai-sdk's module loaded by `initSync` (a Worker or an
// edge runtime, with no fetch of a .wasm): the full entry's AiSdkChat uses that module at once, with
// no fetch and no wait. Against the AI SDK test backend (tests/ai-sdk/server.js); the answer is what
// its script says, checked by hand. A process of its own: a module can be loaded only once per process.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { startBackend } from "../ai-sdk/server.js";
import { fetchWithWasm } from "./wasm-fetch.js";

const wasmFetches = [];
globalThis.fetch = fetchWithWasm((path) => {
  wasmFetches.push(path);
  throw new TypeError("Failed to fetch"); // there is no fetch of a .wasm here
});

const full = await import("../../pkg/index.js");
const aiSdk = await import("../../pkg/ai-sdk/index.js");
const backend = await startBackend();
after(() => backend.close());
const api = `${backend.url}api/chat`;
const textOf = (message) => message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");

test("chatstream/ai-sdk's initSync makes the full entry's AiSdkChat ready at once, with no fetch", async () => {
  aiSdk.initSync(readFileSync(new URL("../../pkg/ai-sdk/chatstream_bg.wasm", import.meta.url)));
  const bad = [{ id: "x", role: "user", parts: [{ type: "nope" }] }];
  // Refused as the chat is made: the module is in, so the chat is made synchronously.
  assert.throws(() => new full.AiSdkChat({ api, messages: bad }), (e) => e instanceof TypeError && /unknown part type "nope"/.test(e.message));
  const chat = new full.ChatSession({ backend: "ai-sdk", api });
  await chat.sendMessage({ text: "hello" });
  assert.equal(chat.status, "ready");
  assert.deepEqual(chat.messages.map((m) => m.role), ["user", "assistant"]);
  assert.equal(textOf(chat.messages[1]), "Hello! How can I help you today?");
  assert.deepEqual(wasmFetches, []);
  assert.equal(full.isReady(), false, "the entry's own module is not needed for the mode");
  chat.dispose();
});
