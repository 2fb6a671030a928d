// A view that reads a long tool argument's partial_input now and then: each read decodes only the
// bytes of the string being read that came since the last read of the same string, not all of it
// again (a 20 MB argument read every megabyte decoded 210 MB: the engine held much of it until it
// collected it). The values are the arguments up to each read, whatever the order of the reads.
import { test } from "node:test";
import assert from "node:assert/strict";

import { toolStart as start, inputDelta } from "./anthropic-frames.js";
import { decoded, ChatStream, piece } from "./decoded-bytes.js";

// 2 MB of text, in 1 KB deltas (no delta ends inside a character).
const PIECES = 2048;
const head = '{"note": "short", "content": "';

/** The tool_input_delta events of the argument {"note": "short", "content": <PIECES pieces>}. */
function deltas() {
  const stream = new ChatStream({ dialect: "anthropic" });
  const events = [stream.push(start), stream.push(inputDelta(head)), ...Array.from({ length: PIECES }, () => stream.push(inputDelta(piece))), stream.push(inputDelta('"}'))].flat();
  stream.free();
  return events.filter((e) => e.type === "tool_input_delta");
}

/** What delta `i` (0: the head) holds: the argument up to its end. */
const expected = (i) => (i <= PIECES ? { note: "short", content: piece.repeat(i) } : { note: "short", content: piece.repeat(PIECES) });

test("partial_input read every 128 KB of a 2 MB string decodes about the string once, not at every read", () => {
  const events = deltas();
  decoded.bytes = 0;
  let read = 0;
  for (let i = 128; i <= PIECES; i += 128) {
    assert.deepEqual(events[i].partial_input, expected(i), `delta ${i}`);
    read += Buffer.byteLength(expected(i).content);
  }
  const whole = Buffer.byteLength(expected(PIECES).content);
  // All of each read decoded again would be 8.5 times the string.
  assert.ok(read > 8 * whole);
  assert.ok(decoded.bytes < 1.1 * whole, `decoded ${decoded.bytes} bytes for a string of ${whole}`);
});

test("partial_input of a long string read backwards, skipping, again and out of order is the argument up to each delta", () => {
  const events = deltas();
  const order = [PIECES + 1, 2000, 1999, 1999, 3, 1, 0, 1500, 1501, 700, 1800, PIECES, 2, 5];
  for (const i of order) assert.deepEqual(events[i].partial_input, expected(i), `delta ${i}`);
  // A string read before and changed by the app since (a value read is the app's own) changes no later read.
  const fresh = deltas();
  const first = fresh[1000].partial_input;
  first.content = "changed by the app";
  assert.deepEqual(fresh[1001].partial_input, expected(1001));
});

test("once the long string has ended, later reads no longer hand the string built for it back to the module", () => {
  const events = deltas();
  // The holder of the call's arguments, shared by its events (kept on each under a symbol).
  const holderOf = (event) => event[Object.getOwnPropertySymbols(event)[0]].holder;
  assert.deepEqual(events[1000].partial_input, expected(1000));
  assert.equal(holderOf(events[1000]).last?.string.length, expected(1000).content.length);
  // The closing delta's read: the string has ended. Had the holder kept the string, every later
  // read would send it, the module would find it ended and read the arguments a second time.
  assert.deepEqual(events[PIECES + 1].partial_input, expected(PIECES + 1));
  assert.equal(holderOf(events[PIECES + 1]).last, undefined);
  // A read at an earlier end, inside the string, starts over and is right.
  assert.deepEqual(events[1500].partial_input, expected(1500));
});
