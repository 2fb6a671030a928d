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
  assert.throws(() => stream.push(42), TypeError);
});

// An Anthropic tool call whose input streams in three pieces, each in its own push.
const toolStream = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"search","input":{}}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"query\\": \\"CRI"}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"SPR\\", \\"lim"}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"it\\": 5}"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
];

test("tool_input_delta: partial_input is each event's own value, read in any order, and in JSON.stringify", () => {
  const stream = new ChatStream();
  const deltas = toolStream.flatMap((chunk) => stream.push(chunk)).filter((e) => e.type === "tool_input_delta");
  assert.equal(deltas.length, 3);
  // Read last first: each getter parses the arguments as they were at its own event.
  assert.deepEqual(deltas[2].partial_input, { query: "CRISPR", limit: 5 });
  assert.deepEqual(deltas[0].partial_input, { query: "CRI" });
  assert.deepEqual(deltas[1].partial_input, { query: "CRISPR" });
  assert.equal(deltas[1].partial_input, deltas[1].partial_input, "parsed once, then the same object");
  assert.deepEqual(JSON.parse(JSON.stringify(deltas[1])), {
    type: "tool_input_delta",
    tool_use_id: "toolu_1",
    delta: 'SPR", "lim',
    partial_input: { query: "CRISPR" },
  });
  assert.deepEqual(Object.keys(deltas[0]), ["type", "tool_use_id", "delta", "partial_input"]);
});
