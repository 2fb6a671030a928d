// The module names a tool call's arguments to JS by one key, from its first tool_input_delta until
// JS lets the key go (src/wasm/partial_input.rs): every delta of the call holds the same key (JS
// keeps one holder of it, registered once for its release), and two calls, of one stream or of
// two, never share one, whatever order their deltas come in. Each delta's partial_input is then
// its own call's arguments up to it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

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

// The module hands a call's id over with its key's first delta only; JS keeps it by the key until
// the key is let go. Let go halfway through a call (every delta of it collected, the finalizer
// run), the call's next delta is its key's first again and brings the id back; a delta in the gap
// between the holder's collection and its finalizer still finds it.
test("tool_input_delta: the call's id on every delta, also after its key was let go halfway", async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  // A WeakRef read in this job keeps its object until the job ends: collect after a task, twice.
  const finalizersRun = async () => {
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      gc();
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  };
  const stream = new ChatStream({ dialect: "anthropic" });
  stream.push(message + block(0, "toolu_gc"));
  const ids = (events) => events.filter((e) => e.type === "tool_input_delta").map((e) => e.tool_use_id);
  const before = keys.length;
  assert.deepEqual(ids(stream.push(delta(0, '{"x": "'))), ["toolu_gc"]);
  for (let i = 0; i < 3; i++) assert.deepEqual(ids(stream.push(delta(0, "a"))), ["toolu_gc"]);
  await finalizersRun();
  let last = [];
  for (let i = 0; i < 3; i++) {
    last = stream.push(delta(0, "b"));
    assert.deepEqual(ids(last), ["toolu_gc"], "after the key was let go");
  }
  assert.equal(keys.length - before, 2, "the key was let go and a new one taken");
  assert.deepEqual(last[0].partial_input, { x: "aaabbb" });
  last = null;
  await new Promise((resolve) => setTimeout(resolve, 10));
  gc();
  const between = stream.push(delta(0, "c"));
  assert.deepEqual(ids(between), ["toolu_gc"], "between the collection and the finalizer");
  const held = keys[before + 1];
  assert.deepEqual(keys.slice(before + 1), [held, held], "a second holder of the same key: the first was collected");
  await finalizersRun();
  const after = stream.push(delta(0, "d"));
  assert.deepEqual(ids(after), ["toolu_gc"]);
  assert.deepEqual(between[0].partial_input, { x: "aaabbbc" });
  assert.deepEqual(after[0].partial_input, { x: "aaabbbcd" });
  stream.free();
});
