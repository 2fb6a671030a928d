// A long value is held once: the module hands its long strings over from where the values keep
// them (not from a copy), a long string of a tool's input or output handed over again is the
// string JS already has (not decoded again), and a tool call's arguments are held in the module
// only, for its deltas' partial_input, until no delta is left (src/json.rs, src/wasm/mod.rs,
// src/wasm/partial_input.rs). What that must not change: every event still carries the whole
// value, and a delta read after its call completed, its stream freed, still knows its partial_input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

import { initSync, ChatSession, ChatStream } from "../../pkg/index.js";

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

test("long tool inputs of one length, one stream after another, each arrive as their own (a long input handed over again is not read again)", () => {
  // Each stream's input is freed with it, and the next one's, as long, may be allocated where it
  // was: what JS kept of the first must not stand for the second.
  for (const [k, letter] of [..."ABCDEF"].entries()) {
    const input = { content: letter + long, n: k };
    const stream = new ChatStream({ dialect: "anthropic" });
    const events = [stream.push(start + toolStart(0, `toolu_${k}`)), stream.push(inputDelta(0, JSON.stringify(input))), stream.push(end(0))].flat();
    assert.deepEqual(events.find((e) => e.type === "tool_call").input, input, `tool_call ${k}`);
    assert.deepEqual(events.find((e) => e.type === "complete").payload.tool_history[0].input, input, `complete ${k}`);
    stream.free();
  }
});

// A session over an Anthropic answer made of `frames`, sent one frame a read (so each is a push).
async function sessionOver(frames) {
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    pull(controller) {
      const next = frames.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(encoder.encode(next));
    },
  });
  const chat = new ChatSession({ fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
  const events = [];
  for await (const event of chat.send("write it")) events.push(event);
  return { chat, events };
}

test("a session holds a long multi-byte tool input whole in tool_call, complete, the snapshot and the saved messages", async () => {
  const input = { content: long, n: 1 };
  const args = [...JSON.stringify(input)];
  const pieces = [];
  for (let at = 0; at < args.length; at += 500) pieces.push(args.slice(at, at + 500).join(""));
  const { chat, events } = await sessionOver([start, toolStart(0, "toolu_1"), ...pieces.map((p) => inputDelta(0, p)), end(0)]);
  assert.deepEqual(events.find((e) => e.type === "tool_call").input, input);
  assert.deepEqual(events.find((e) => e.type === "complete").payload.tool_history[0].input, input);
  const answer = chat.getSnapshot().messages.at(-1);
  assert.deepEqual(answer.parts.find((p) => p.type === "tool").input, input);
  assert.deepEqual(answer.segments.find((s) => s.type === "tool").input, input);
  assert.deepEqual(answer.tool_history[0].input, input);
  const saved = chat.saveMessages();
  assert.deepEqual(JSON.parse(saved).at(-1).tool_history[0].input, input);
  // Read back, the message is the one saved.
  chat.loadMessages(saved);
  assert.deepEqual(chat.getSnapshot().messages.at(-1), answer);
  chat.dispose();
});

test("a session holds a long multi-byte answer whole, one that begins with U+FEFF too, in complete, the snapshot and the saved messages", async () => {
  const text = "\uFEFF" + long + "end";
  const chars = [...text]; // by code point: no cut inside a pair
  const pieces = [];
  for (let at = 0; at < chars.length; at += 300) pieces.push(chars.slice(at, at + 300).join(""));
  const textStart = frame("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
  const textDelta = (t) => frame("content_block_delta", { index: 0, delta: { type: "text_delta", text: t } });
  const textEnd =
    frame("content_block_stop", { index: 0 }) +
    frame("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }) +
    frame("message_stop", {});
  const { chat, events } = await sessionOver([start, textStart, ...pieces.map(textDelta), textEnd]);
  const streamed = events.filter((e) => e.type === "text_delta").map((e) => e.text).join("");
  assert.ok(streamed === text, "the text deltas make the text");
  const payload = events.find((e) => e.type === "complete").payload;
  assert.ok(payload.text === text, "complete's text");
  const answer = chat.getSnapshot().messages.at(-1);
  assert.ok(answer.content === text, "the message's content");
  assert.ok(answer.parts.find((p) => p.type === "text").text === text, "its text part");
  const saved = chat.saveMessages();
  assert.ok(JSON.parse(saved).at(-1).content === text, "the saved content");
  chat.loadMessages(saved);
  assert.deepEqual(chat.getSnapshot().messages.at(-1), answer);
  chat.dispose();
});

// The arguments behind each delta's partial_input, however they are kept, must outlive the stream
// and the turn: an app may read an event it kept after the stream was freed (streamEvents frees it
// at the end of the body) or after the session's turn ended. An input longer than the module's
// blocks of argument text (64 KB), in deltas of 1,000 code points.
const longInput = { content: long.repeat(20) }; // 176,000 bytes of UTF-8
const longPieces = () => {
  const chars = [...JSON.stringify(longInput)];
  const pieces = [];
  for (let at = 0; at < chars.length; at += 1000) pieces.push(chars.slice(at, at + 1000).join(""));
  return pieces;
};
// What partial_input is after the first `n` pieces: the content so far (the opening `{"content":"`
// is 12 code points; the last piece closes the object).
const partialAfter = (pieces, n) =>
  n === pieces.length ? longInput : { content: [...longInput.content].slice(0, 1000 * n - 12).join("") };

test("a long tool input's deltas know their partial_input after the stream is freed, read last first", () => {
  const pieces = longPieces();
  assert.ok(pieces.length > 100, `${pieces.length} deltas`);
  const stream = new ChatStream({ dialect: "anthropic" });
  const events = [stream.push(start + toolStart(0, "toolu_1")), ...pieces.map((p) => stream.push(inputDelta(0, p))), stream.push(end(0))].flat();
  stream.free();
  const deltas = events.filter((e) => e.type === "tool_input_delta");
  assert.equal(deltas.length, pieces.length);
  for (const n of [pieces.length, pieces.length - 1, 70, 1]) assert.deepEqual(deltas[n - 1].partial_input, partialAfter(pieces, n), `after ${n} deltas`);
  assert.deepEqual(events.find((e) => e.type === "tool_call").input, longInput);
});

test("a session's long tool input: each delta's partial_input is read after the turn ended", async () => {
  const pieces = longPieces();
  const { chat, events } = await sessionOver([start, toolStart(0, "toolu_1"), ...pieces.map((p) => inputDelta(0, p)), end(0)]);
  assert.equal(chat.getSnapshot().isLoading, false, "the turn is over");
  const deltas = events.filter((e) => e.type === "tool_input_delta");
  assert.equal(deltas.length, pieces.length);
  for (const n of [pieces.length, pieces.length - 2, 65, 2]) assert.deepEqual(deltas[n - 1].partial_input, partialAfter(pieces, n), `after ${n} deltas`);
  chat.dispose();
});

// The module holds a tool input's arguments for its deltas' partial_input until no delta of
// them is left (the engine collected them): an app that drops the deltas it rendered lets them
// go, and the deltas that follow must still know theirs.
test("a long tool input's later deltas know their partial_input after the earlier ones were collected", async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  const pieces = longPieces();
  const half = 90;
  const stream = new ChatStream({ dialect: "anthropic" });
  stream.push(start + toolStart(0, "toolu_1"));
  // Nothing of the first deltas is kept.
  for (const piece of pieces.slice(0, half)) stream.push(inputDelta(0, piece));
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10)); // the finalizers run between tasks
  }
  const events = [...pieces.slice(half).map((p) => stream.push(inputDelta(0, p))), stream.push(end(0))].flat();
  stream.free();
  const deltas = events.filter((e) => e.type === "tool_input_delta");
  assert.equal(deltas.length, pieces.length - half);
  for (const n of [pieces.length, half + 1, half + 20]) assert.deepEqual(deltas[n - half - 1].partial_input, partialAfter(pieces, n), `after ${n} deltas`);
  assert.deepEqual(events.find((e) => e.type === "tool_call").input, longInput);
});
