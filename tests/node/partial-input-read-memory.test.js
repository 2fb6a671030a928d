// A view reading a long tool argument's partial_input now and then, while it streams, grows the
// module's memory by about the argument, which the module holds for its deltas: each read builds in
// the module only the bytes of the open string that came since the last read of that string
// (src/clean/partial_json.rs, `PartialJson::knowing`). A string built whole at each read took a new
// place in memory whenever it outgrew the last one's: about twice the argument, which the module's
// memory never gives back.
import { test } from "node:test";
import assert from "node:assert/strict";

import { toolStart, inputDelta } from "./anthropic-frames.js";

import { memory, ChatStream } from "./module-memory.js";

test("an 8 MB argument whose partial_input is read every 256 KB as it streams grows the module's memory by about its length", () => {
  // 1 KB deltas; "é🙂" keep UTF-8 and UTF-16 lengths apart, and no delta ends inside a character.
  const piece = "abcdefgh é🙂 ".repeat(1024 / 16);
  const pieces = 8 * 1024;
  const stream = new ChatStream({ dialect: "anthropic" });
  stream.push(toolStart);
  stream.push(inputDelta('{"note": "short", "content": "'));
  // Warm: the module's buffers for a push and a read are made before the memory is counted.
  stream.push(inputDelta(piece)).at(-1).partial_input;
  const before = memory.buffer.byteLength;
  let reads = 0;
  for (let i = 2; i <= pieces; i++) {
    const delta = stream.push(inputDelta(piece)).at(-1);
    if (i % 256 !== 0) continue;
    const value = delta.partial_input;
    assert.equal(value.content.length, i * piece.length, `read ${reads}`);
    reads++;
  }
  const grown = memory.buffer.byteLength - before;
  const argument = Buffer.byteLength(piece) * pieces;
  assert.equal(reads, 32);
  assert.ok(grown < 1.3 * argument, `memory grew by ${grown} bytes for an argument of ${argument}`);
  // The value read last is the argument so far, from its first byte to its last.
  const last = stream.push(inputDelta(piece)).at(-1).partial_input;
  assert.deepEqual(last, { note: "short", content: piece.repeat(pieces + 1) });
  stream.free();
});
