// The built package in Node 20: import it, initialise it synchronously, read streams with it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

test("a ChatStream reads an agent stream pushed as text and as bytes", () => {
  const body = 'data: {"type":"text_delta","text":"Hel"}\n\ndata: {"type":"text_delta","text":"lo"}\n\n';
  const stream = new ChatStream({ dialect: "agent" });
  const bytes = new TextEncoder().encode(body);
  const first = stream.push(bytes.subarray(0, 20));
  assert.deepEqual(first, []);
  const rest = stream.push(new TextDecoder().decode(bytes.subarray(20)));
  assert.deepEqual(rest, [{ type: "text_delta", text: "Hello" }]);
  assert.equal(stream.dialect, "agent");
});

test("an unknown dialect is refused with a clear message", () => {
  assert.throws(() => new ChatStream({ dialect: "klingon" }), /unknown dialect "klingon"/);
});

test("push refuses what is neither bytes nor text", () => {
  const stream = new ChatStream();
  assert.throws(() => stream.push(42), /Uint8Array or a string/);
});
