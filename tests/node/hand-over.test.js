// ChatStream's push copies a chunk into the stream's input buffer in the module's memory and reads
// the events from there (pkg-template/api.js, src/wasm/stream.rs): what that must survive. The
// module's memory growing under a stream (another stream's large chunk), a stream used after
// free(), tool calls whose deltas interleave, and text of every width, however the chunks are cut.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const openaiFrame = (content) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const complete = (events) => events.find((e) => e.type === "complete");
const texts = (events) => events.filter((e) => e.type === "text_delta").map((e) => e.text).join("");

test("a stream reads on after another stream's large chunk grew the module's memory", () => {
  const small = new ChatStream({ dialect: "openai" });
  let read = texts(small.push(openaiFrame("before ")));
  // 16 MB of text in one chunk (48 MB reserved for it as UTF-8): more than the memory holds at
  // first, so it grows.
  const big = new ChatStream({ dialect: "openai" });
  const piece = "x".repeat(256 * 1024);
  assert.equal(texts(big.push(Array(64).fill(openaiFrame(piece)).join(""))).length, 64 * piece.length);
  big.free();
  read += texts(small.push(new TextEncoder().encode(openaiFrame("after"))));
  assert.equal(read, "before after");
  assert.equal(complete(small.finish()).payload.message, "before after");
  small.free();
});

test("a freed stream refuses a push and leaves the other streams' bytes alone", () => {
  const kept = new ChatStream({ dialect: "openai" });
  const freed = new ChatStream({ dialect: "openai" });
  let read = texts(kept.push(openaiFrame("one ")));
  freed.push(openaiFrame("gone"));
  freed.free();
  assert.throws(() => freed.push(openaiFrame("x".repeat(4096))));
  assert.throws(() => freed.push(new TextEncoder().encode(openaiFrame("y".repeat(4096)))));
  read += texts(kept.push(openaiFrame("two")));
  assert.equal(read, "one two");
  assert.equal(complete(kept.finish()).payload.message, "one two");
});

test("text of every width reads the same pushed whole, as text one character a push, and as bytes one byte a push", () => {
  const words = ["plain ", "é ", "€ ", "😀 ", "中文 ", "\u{10FFFF} ", 'quote " and \\ backslash ', "𝄞end"];
  const body = words.map(openaiFrame).join("") + "data: [DONE]\n\n";
  const read = (chunks) => {
    const stream = new ChatStream({ dialect: "openai" });
    const events = chunks.flatMap((chunk) => stream.push(chunk)).concat(stream.finish());
    stream.free();
    return events;
  };
  const whole = read([body]);
  assert.equal(texts(whole), words.join("").trim());
  const bytes = new TextEncoder().encode(body);
  for (const cut of [[...body], [...bytes].map((b) => Uint8Array.of(b))]) {
    const events = read(cut);
    assert.equal(texts(events), texts(whole));
    assert.deepEqual(complete(events), complete(whole));
  }
});

test("interleaved tool calls: each delta names its own call, and partial_input follows each call's own arguments", () => {
  const delta = (index, id, args) =>
    `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { tool_calls: [{ index, ...(id ? { id, type: "function", function: { name: `f${index}`, arguments: "" } } : { function: { arguments: args } }) }] }, finish_reason: null }] })}\n\n`;
  const chunks = [delta(0, "call_a"), delta(1, "call_b"), delta(0, null, '{"a":'), delta(1, null, '{"b":'), delta(0, null, "1}"), delta(1, null, "2}")];
  const stream = new ChatStream({ dialect: "openai" });
  const events = chunks.flatMap((chunk) => stream.push(chunk));
  const deltas = events.filter((e) => e.type === "tool_input_delta");
  assert.deepEqual(
    deltas.map((e) => [e.tool_use_id, e.delta]),
    [["call_a", '{"a":'], ["call_b", '{"b":'], ["call_a", "1}"], ["call_b", "2}"]],
  );
  assert.deepEqual(deltas[3].partial_input, { b: 2 });
  assert.deepEqual(deltas[2].partial_input, { a: 1 });
  assert.ok(!("b" in (deltas[0].partial_input ?? {})) && !("a" in (deltas[1].partial_input ?? {})));
  stream.free();
});

test("long strings set aside come back in their places, also under a key __proto__ and in arrays", () => {
  // A tool call's arguments whose strings are long enough to cross on their own (a kilobyte and more).
  const long = "é".repeat(2000);
  const text = `{"__proto__":"${long}","list":${JSON.stringify([long, "short", { deep: long + "!" }])},"n":1}`;
  const call = { index: 0, id: "call_1", type: "function", function: { name: "f", arguments: text } };
  const chunk = (choice) => `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, ...choice }] })}\n\n`;
  const frame = chunk({ delta: { tool_calls: [call] } }) + chunk({ delta: {}, finish_reason: "tool_calls" }) + "data: [DONE]\n\n";
  const stream = new ChatStream({ dialect: "openai" });
  const events = [...stream.push(frame), ...stream.finish()];
  stream.free();
  const input = events.find((e) => e.type === "tool_call").input;
  const expected = JSON.parse(text); // what JSON.parse makes of the arguments: __proto__ an own field
  assert.ok(Object.hasOwn(input, "__proto__"));
  assert.equal(Object.getOwnPropertyDescriptor(input, "__proto__").value, long);
  assert.equal(Object.getPrototypeOf(input), Object.prototype);
  assert.deepEqual(input, expected);
  assert.equal(complete(events).payload.tool_history[0].input.list[2].deep, long + "!");
});
