// A long tool argument whose partial_input a view read as it streamed: the call's input is handed
// over as the string those reads built and the bytes that came since (src/wasm/partial_input.rs,
// `grown`), not decoded whole a second time: JS holds the argument once, not twice (a 20 MB
// argument read every megabyte held 40 MB of strings once its call came). Only a string that is
// the one read is: the input is what the arguments say whatever was read of them.
import { test } from "node:test";
import assert from "node:assert/strict";

import { frame, toolStart, inputDelta } from "./anthropic-frames.js";
import { decoded, ChatStream, piece } from "./decoded-bytes.js";

// 1 KB deltas (no delta ends inside a character).
const PIECES = 1024;
// Pushed one by one: the call, then `complete` holding its input too, handed over apart.
const end = [frame("content_block_stop", { index: 0 }), frame("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 1 } }), frame("message_stop", {})];

/**
 * The tool_call of the argument `{"note": "short", "content": "` + PIECES pieces + `tail`, each
 * piece's delta's partial_input read every 128 pieces (`escapeAt`: the piece that is `\n` written
 * instead), and the bytes decoded from the call's first push on. `reads` cuts each of the last
 * frames (the tail's delta, the block's stop, the message's end) into the reads pushed.
 */
function call(tail, escapeAt = -1, reads = (frame) => [frame]) {
  const stream = new ChatStream({ dialect: "anthropic" });
  stream.push(toolStart);
  stream.push(inputDelta('{"note": "short", "content": "'));
  for (let i = 1; i <= PIECES; i++) {
    const delta = stream.push(inputDelta(i === escapeAt ? "\\n" : piece)).at(-1);
    if (i % 128 === 0) assert.equal(typeof delta.partial_input.content, "string");
  }
  decoded.bytes = 0;
  const events = [...[inputDelta(tail), ...end].flatMap((f) => reads(f).flatMap((read) => stream.push(read))), ...stream.finish()];
  stream.free();
  return { call: events.find((e) => e.type === "tool_call"), decoded: decoded.bytes, events };
}

const content = (escapeAt = -1) => Array.from({ length: PIECES }, (_, i) => (i + 1 === escapeAt ? "\n" : piece)).join("");

test("a long input read as it streamed is handed over as the string read and the bytes since", () => {
  const { call: made, decoded, events } = call(' the end"}');
  assert.deepEqual(made.input, { note: "short", content: `${content()} the end` });
  // `complete` holds the same string: handed over again, it is the one JS has.
  assert.deepEqual(events.find((e) => e.type === "complete").payload.segments[0].input, made.input);
  // Decoded whole again, the call would decode the argument once more.
  assert.ok(decoded < 0.05 * Buffer.byteLength(made.input.content), `decoded ${decoded} bytes for the call`);
});

test("the same with the last frames cut into reads of 5 characters", () => {
  const { call: made, decoded, events } = call(' the end"}', -1, (frame) => frame.match(/[^]{1,5}/g));
  assert.deepEqual(made.input, { note: "short", content: `${content()} the end` });
  assert.deepEqual(events.find((e) => e.type === "complete").payload.segments[0].input, made.input);
  assert.ok(decoded < 0.05 * Buffer.byteLength(made.input.content), `decoded ${decoded} bytes for the call`);
});

test("an escape after the last read is in the bytes since: the string read is the call's too", () => {
  const { call: made, decoded } = call(' \\u00e9\\n"}');
  assert.deepEqual(made.input, { note: "short", content: `${content()} é\n` });
  assert.ok(decoded < 0.05 * Buffer.byteLength(made.input.content), `decoded ${decoded} bytes for the call`);
});

test("an escape inside what was read: the call's string is decoded whole, and is what the arguments say", () => {
  const { call: made } = call('"}', 3);
  assert.deepEqual(made.input, { note: "short", content: content(3) });
});

test("arguments that end not JSON: the call's input is their text, not the string read", () => {
  const { call: made, events } = call('"} x');
  assert.equal(made.input, `{"note": "short", "content": "${content()}"} x`);
  assert.ok(events.some((e) => e.type === "error"));
});

test("only the arguments read last are tried: another call's input is decoded whole, and right", () => {
  // Two streams, each a call read as it streamed; the second is read last, so the first call's
  // input is not matched against any string read (trying every holder cost a hostile stream of
  // many calls their count times their length).
  const first = new ChatStream({ dialect: "anthropic" });
  const second = new ChatStream({ dialect: "anthropic" });
  for (const stream of [first, second]) {
    stream.push(toolStart);
    stream.push(inputDelta('{"content": "'));
  }
  // Their texts differ: a string read of the same text would be the first call's as well.
  const pieces = [piece, piece.toUpperCase()];
  for (let i = 1; i <= 128; i++) {
    for (const [n, stream] of [first, second].entries()) {
      const delta = stream.push(inputDelta(pieces[n])).at(-1);
      if (i % 64 === 0) assert.equal(typeof delta.partial_input.content, "string");
    }
  }
  const [text, other] = pieces.map((p) => p.repeat(128));
  const finish = (stream, tail) => {
    decoded.bytes = 0;
    const events = [...stream.push(inputDelta(tail)), ...end.flatMap((f) => stream.push(f)), ...stream.finish()];
    stream.free();
    return { made: events.find((e) => e.type === "tool_call"), decoded: decoded.bytes };
  };
  const a = finish(first, ' a"}');
  assert.deepEqual(a.made.input, { content: `${text} a` });
  assert.ok(a.decoded >= Buffer.byteLength(text), `decoded ${a.decoded} bytes for the first call`);
  const b = finish(second, ' b"}');
  assert.deepEqual(b.made.input, { content: `${other} b` });
  assert.ok(b.decoded < 0.05 * Buffer.byteLength(other), `decoded ${b.decoded} bytes for the second call`);
});
