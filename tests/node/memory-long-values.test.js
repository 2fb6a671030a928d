// A long value is held once: the module hands its long strings over from where the values keep
// them (not from a copy), and a stream lets a tool call's arguments go once the call is complete
// (src/json.rs, src/wasm/mod.rs). What that must not change: every event still carries the whole
// value, and a delta read after its call completed still knows its partial_input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const frame = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const start = frame("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], usage: {} } });
const toolStart = (index, id) =>
  frame("content_block_start", { index, content_block: { type: "tool_use", id, name: "write", input: {} } });
const inputDelta = (index, partial_json) => frame("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
const end = (index) =>
  frame("content_block_stop", { index }) +
  frame("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 1 } }) +
  frame("message_stop", {});

// Longer than the strings the hand-over sets aside (1 KB), with characters of every UTF-8 width.
const long = "é🙂 tool input ✓ ".repeat(400);

test("a long tool input arrives whole in tool_call and complete, and each delta's partial_input is read after the call", () => {
  const args = [...JSON.stringify({ content: long, n: 1 })]; // by code point: no cut inside a pair
  const opening = '{"content":"'.length;
  const cuts = [13, 700, 2000];
  const pieces = [0, ...cuts].map((from, i) => args.slice(from, cuts[i] ?? args.length).join(""));
  const stream = new ChatStream({ dialect: "anthropic" });
  const events = [stream.push(start + toolStart(0, "toolu_1")), ...pieces.map((p) => stream.push(inputDelta(0, p))), stream.push(end(0))].flat();
  const call = events.find((e) => e.type === "tool_call");
  assert.deepEqual(call.input, { content: long, n: 1 });
  const completed = events.find((e) => e.type === "complete");
  assert.deepEqual(completed.payload.tool_history[0].input, { content: long, n: 1 });
  // Read only now, after the call completed and the stream let its arguments go.
  const deltas = events.filter((e) => e.type === "tool_input_delta");
  assert.deepEqual(
    deltas.map((e) => e.delta),
    pieces,
  );
  for (const [i, at] of cuts.entries()) {
    assert.deepEqual(deltas[i].partial_input, { content: [...long].slice(0, at - opening).join("") }, `delta ${i}`);
  }
  assert.deepEqual(deltas.at(-1).partial_input, { content: long, n: 1 });
  stream.free();
});
