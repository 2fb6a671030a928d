// The module names a tool call's arguments to JS by one key, from its first tool_input_delta until
// JS lets the key go (src/wasm/partial_input.rs): every delta of the call holds the same key (JS
// keeps one holder of it, registered once for its release), and two calls, of one stream or of
// two, never share one, whatever order their deltas come in. Each delta's partial_input is then
// its own call's arguments up to it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

// The holders the package registers for release: `{ key, release }` (api.js / src/wasm/mod.rs).
const keys = [];
const register = FinalizationRegistry.prototype.register;
FinalizationRegistry.prototype.register = function (target, held, token) {
  if (typeof held?.key === "number" && typeof held?.release === "function") keys.push(held.key);
  return register.call(this, target, held, token);
};

const { initSync, ChatStream } = await import("../../pkg/index.js");
initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const frame = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const message = frame("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], usage: {} } });
const block = (index, id) => frame("content_block_start", { index, content_block: { type: "tool_use", id, name: "f", input: {} } });
const delta = (index, partial_json) => frame("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });

test("tool_input_delta: one key per tool call's arguments, held by all its deltas, none shared", () => {
  const first = new ChatStream({ dialect: "anthropic" });
  const second = new ChatStream({ dialect: "anthropic" });
  first.push(message + block(0, "toolu_a") + block(1, "toolu_b"));
  second.push(message + block(0, "toolu_c"));
  // Per call: its stream, its block and what its arguments' deltas are.
  const calls = [
    [first, 0, "a"],
    [first, 1, "b"],
    [second, 0, "c"],
  ];
  const got = calls.map(() => []);
  const before = keys.length;
  for (let i = 0; i < 10; i++) {
    calls.forEach(([stream, index, name], c) => {
      const piece = i === 0 ? `{"${name}": "` : `${name}${i}`;
      got[c].push(...stream.push(delta(index, piece)).filter((e) => e.type === "tool_input_delta"));
    });
  }
  assert.equal(keys.length - before, calls.length, "one key registered per call, not per delta");
  assert.equal(new Set(keys.slice(before)).size, calls.length, "no two calls share a key");
  calls.forEach(([, , name], c) => {
    assert.equal(got[c].length, 10);
    const text = (n) => Array.from({ length: n - 1 }, (_, i) => `${name}${i + 1}`).join("");
    // Read backwards: each at its own end, of its own call.
    for (const n of [10, 5, 1]) assert.deepEqual(got[c][n - 1].partial_input, { [name]: text(n) }, `${name} after ${n} deltas`);
  });
  first.free();
  second.free();
});
