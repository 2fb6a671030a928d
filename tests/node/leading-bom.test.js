// A stream's text may begin with U+FEFF (ZERO WIDTH NO-BREAK SPACE): in a text delta, a tool's id or
// name, a key of its input. It is the stream's own character, not a byte order mark of the
// hand-over's text: each must reach JS as the provider sent it, and nothing after it may shift.
// Each case is pushed alone into a fresh stream, so that its string is the first of the push.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const BOM = "\uFEFF";
const sse = (...data) => data.map((d) => `data: ${JSON.stringify(d)}\n\n`).join("");
const pick = (events, type) => events.filter((e) => e.type === type);

test("a text delta that begins with U+FEFF keeps it", () => {
  const stream = new ChatStream({ dialect: "openai" });
  const events = stream.push(sse({ choices: [{ index: 0, delta: { content: `${BOM}hi` } }] }));
  assert.deepEqual(pick(events, "text_delta").map((e) => e.text), [`${BOM}hi`]);
  stream.free();
});

test("a text delta that begins with U+FEFF keeps it, its frame cut in two at every byte", () => {
  const bytes = new TextEncoder().encode(sse({ choices: [{ index: 0, delta: { content: `${BOM}hi` } }] }));
  for (let cut = 1; cut < bytes.length; cut++) {
    const stream = new ChatStream({ dialect: "openai" });
    const events = [...stream.push(bytes.subarray(0, cut)), ...stream.push(bytes.subarray(cut))];
    assert.deepEqual(pick(events, "text_delta").map((e) => e.text), [`${BOM}hi`], `cut at ${cut}`);
    stream.free();
  }
});

test("an OpenAI tool call whose id, name and input key begin with U+FEFF", () => {
  const stream = new ChatStream({ dialect: "openai" });
  const events = [
    ...stream.push(sse({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: `${BOM}id`, function: { name: `${BOM}n`, arguments: "" } }] } }] })),
    ...stream.push(sse({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: `{"${BOM}a":1}` } }] } }] })),
    ...stream.push(sse({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] })),
  ];
  const [start] = pick(events, "tool_start");
  assert.equal(start.tool_use_id, `${BOM}id`);
  assert.equal(start.tool, `${BOM}n`);
  const [call] = pick(events, "tool_call");
  assert.deepEqual([call.tool_use_id, call.tool, call.input], [`${BOM}id`, `${BOM}n`, { [`${BOM}a`]: 1 }]);
  stream.free();
});

test("an Anthropic tool call whose id and name begin with U+FEFF, its input streamed one delta a push", () => {
  const stream = new ChatStream({ dialect: "anthropic" });
  const push = (type, data) => stream.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const events = [
    ...push("message_start", { message: { id: "m", role: "assistant", content: [] } }),
    ...push("content_block_start", { index: 0, content_block: { type: "tool_use", id: `${BOM}tu`, name: `${BOM}x`, input: {} } }),
  ];
  const delta = push("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: `{"${BOM}k": "v` } });
  events.push(...delta);
  events.push(...push("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: `"}` } }));
  events.push(...push("content_block_stop", { index: 0 }));
  const [start] = pick(events, "tool_start");
  assert.deepEqual([start.tool_use_id, start.tool], [`${BOM}tu`, `${BOM}x`]);
  const [first] = pick(delta, "tool_input_delta");
  assert.deepEqual([first.tool_use_id, first.delta], [`${BOM}tu`, `{"${BOM}k": "v`]);
  assert.deepEqual(first.partial_input, { [`${BOM}k`]: "v" });
  const [call] = pick(events, "tool_call");
  assert.deepEqual([call.tool_use_id, call.tool, call.input], [`${BOM}tu`, `${BOM}x`, { [`${BOM}k`]: "v" }]);
  stream.free();
});
