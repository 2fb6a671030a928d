// A tool_input_delta's partial_input, read at every delta, in order, skipping, backwards and again,
// is the best JSON value of the arguments up to that delta, also after the app changed a value it
// read (a value read is the app's own). Expected values come from the arguments themselves: each delta ends
// inside a value string, so the arguments up to it, the string and its brackets closed, are JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { toolStart as start, inputDelta } from "./anthropic-frames.js";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });


// Mostly plain text, as a long input is: most deltas only lengthen the string the last one ended inside.
const long = ("é🙂 plain tool input ✓ ".repeat(20) + '"quoted"\n\t\\ ').repeat(12);
const input = { a: [1, "x\ny"], b: { c: long }, __proto__: null, d: [long, long] };
input.__proto__ = "p" + long; // an own field named __proto__, as JSON.parse makes one
const args = [...JSON.stringify(input)]; // by code point: no cut inside a pair

/** For each code point of `args`: the closing brackets and quote that make the arguments up to and with it JSON, when it ends inside a value string outside an escape; else null. */
function closings() {
  const stack = []; // "}" or "]" per open bracket
  let inString = false, isKey = false, escape = 0, expectKey = false;
  return args.map((c) => {
    if (inString) {
      if (escape !== 0) escape = escape === -1 ? (c === "u" ? 4 : 0) : escape - 1;
      else if (c === "\\") escape = -1;
      else if (c === '"') inString = false;
      const open = inString && escape === 0 && !isKey;
      return open ? '"' + [...stack].reverse().join("") : null;
    }
    if (c === '"') [inString, isKey] = [true, expectKey];
    else if (c === "{") [expectKey] = [true, stack.push("}")];
    else if (c === "[") [expectKey] = [false, stack.push("]")];
    else if (c === "}" || c === "]") stack.pop();
    else if (c === ":") expectKey = false;
    else if (c === ",") expectKey = stack.at(-1) === "}";
    return null;
  });
}

/** The arguments cut every `step` code points where a cut ends inside a value string: the pieces and, per piece, the value up to its end. */
function cut(step) {
  const closing = closings();
  const pieces = [];
  const expected = [];
  let from = 0;
  for (let at = step; at < args.length; at += 1) {
    if (at - from < step || closing[at - 1] === null) continue;
    pieces.push(args.slice(from, at).join(""));
    expected.push(JSON.parse(args.slice(0, at).join("") + closing[at - 1]));
    from = at;
  }
  pieces.push(args.slice(from).join(""));
  expected.push(JSON.parse(JSON.stringify(input)));
  return { pieces, expected };
}

function deltasOf(pieces) {
  const stream = new ChatStream({ dialect: "anthropic" });
  const events = [stream.push(start), ...pieces.map((p) => stream.push(inputDelta(p)))].flat();
  stream.free();
  return events.filter((e) => e.type === "tool_input_delta");
}

test("partial_input read at every delta, in order, is the arguments up to it", () => {
  const { pieces, expected } = cut(97);
  assert.ok(pieces.length > 50);
  const deltas = deltasOf(pieces);
  assert.equal(deltas.length, pieces.length);
  const read = deltas.map((e) => e.partial_input);
  read.forEach((value, i) => assert.deepEqual(value, expected[i], `delta ${i}`));
  // A later read left every earlier value as it was.
  read.forEach((value, i) => assert.deepEqual(value, expected[i], `delta ${i}, after the later reads`));
  assert.equal(Object.getOwnPropertyDescriptor(read.at(-1), "__proto__").value, input.__proto__);
});

test("partial_input read skipping deltas, backwards, and after a value read was changed, is the arguments up to each", () => {
  const { pieces, expected } = cut(61);
  const deltas = deltasOf(pieces);
  for (let i = 0; i < deltas.length; i += 7) assert.deepEqual(deltas[i].partial_input, expected[i], `delta ${i}`);
  const fresh = deltasOf(pieces);
  for (let i = fresh.length - 1; i >= 0; i -= 5) assert.deepEqual(fresh[i].partial_input, expected[i], `delta ${i}, backwards`);
  const again = deltasOf(pieces);
  const first = again[3].partial_input;
  first.b = "changed by the app";
  assert.deepEqual(again[4].partial_input, expected[4]);
});
