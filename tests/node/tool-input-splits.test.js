// A tool_input_delta's tool call id crosses from the module with the first delta of its
// arguments only; the package keeps it and names the later deltas (src/wasm/partial_input.rs).
// However a recorded stream is cut into reads (one read, a frame a read, a byte a read, random
// cuts), every delta names the call it belongs to: the id the call's own tool_call event carries,
// and each call's deltas joined are the same text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChatStream } from "../../pkg/node.js";
import { fixtures } from "./fixtures.js";
import { readCut } from "../bad_input/catalogue.js";

function read(input, options, cuts) {
  const stream = new ChatStream(options);
  const events = readCut(stream, input, cuts);
  stream.free();
  return events;
}

/** Each call's deltas in order, consecutive ones of one call joined: `[id, text]`. */
function deltas(events) {
  const out = [];
  for (const e of events) {
    if (e.type !== "tool_input_delta") continue;
    const last = out.at(-1);
    if (last?.[0] === e.tool_use_id) last[1] += e.delta;
    else out.push([e.tool_use_id, e.delta]);
  }
  return out;
}

/** Cut points: after every frame (a blank line, or a line for NDJSON), every byte, and at random. */
function splits(input, seed) {
  const text = input.toString("latin1");
  const frames = [];
  for (const end of text.matchAll(/\r?\n\r?\n|(?<=[^\r\n])\n(?=\{)/g)) frames.push(end.index + end[0].length);
  let state = seed;
  const random = (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const randomCuts = () => [...new Set(Array.from({ length: 1 + random(64) }, () => random(input.length)))].sort((a, b) => a - b);
  return {
    "one read": [],
    "a frame a read": frames.filter((at) => at < input.length),
    "a byte a read": Array.from({ length: input.length - 1 }, (_, i) => i + 1),
    "random cuts 1": randomCuts(),
    "random cuts 2": randomCuts(),
  };
}

test("every tool_input_delta names its own call, however the stream is cut into reads", () => {
  const seed = Date.now() % 2147483648;
  let checked = 0;
  for (const fixture of fixtures()) {
    const options = fixture.dialect ? { dialect: fixture.dialect } : {};
    const whole = read(fixture.input, options, []);
    const expected = deltas(whole);
    if (expected.length === 0) continue;
    checked += 1;
    const calls = new Set(whole.filter((e) => e.type === "tool_call").map((e) => e.tool_use_id));
    for (const [id] of expected) {
      assert.ok(calls.has(id) || !whole.some((e) => e.type === "tool_call"), `${fixture.name}: a delta names ${JSON.stringify(id)}, which no tool_call has`);
    }
    for (const [how, cuts] of Object.entries(splits(fixture.input, seed))) {
      assert.deepEqual(deltas(read(fixture.input, options, cuts)), expected, `${fixture.name}, ${how} (seed ${seed})`);
    }
  }
  assert.ok(checked > 15, `${checked} fixtures with tool input deltas`);
});
