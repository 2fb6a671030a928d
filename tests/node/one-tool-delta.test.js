// ChatStream.push builds a push of one tool_input_delta itself, without the module's handOver
// (pkg-template/api.js, `fromMemory`), with the module's toolInputDelta for its getter: only when
// the layout is exactly that (an empty head, op 4, the id's and the delta's lengths, the key of
// its arguments, not 0, and where the delta ends in them). The layouts here are written by hand into a
// stand-in module's memory, as the module writes them (src/wasm/mod.rs, `HandOver::event`); the
// module's own pushes go the short way in partial-input-reads.test.js and package.test.js.
import { test } from "node:test";
import assert from "node:assert/strict";

import { makeApi } from "../../pkg/api.js";

const RECORD = 0, TEXT = 64, LAYOUT = 1024, INPUT = 4096;
const TOOL_INPUT_DELTA = 4;
const partial = ["the read function", "the release function"];

/**
 * A ChatStream over a stand-in module whose every push leaves `layout` (words) and `text` in its
 * memory, with stand-ins for handOver and toolInputDelta that record what they are given.
 */
function standIn(layout, text) {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const encoded = new TextEncoder().encode(text);
  new Uint8Array(memory.buffer).set(encoded, TEXT);
  const words = new Uint32Array(memory.buffer);
  words.set(layout, LAYOUT / 4);
  words.set([TEXT, encoded.length, LAYOUT], RECORD / 4);
  const handed = [];
  const built = [];
  const handOver = (text, memory, from, to, many) => {
    handed.push({ text, layout: [...memory.subarray(from, to)], many });
    return ["built by handOver"];
  };
  const toolInputDelta = (...args) => {
    built.push(args);
    return { built: "by toolInputDelta" };
  };
  const wasm = {
    initSync() {},
    __handOverParts: () => [handOver, partial, memory, RECORD, [], [], toolInputDelta],
    ChatStream: class {
      __wbg_ptr = 1;
      __input() {
        return INPUT;
      }
      __push() {
        return layout.length;
      }
    },
  };
  const api = makeApi(wasm);
  api.initSync(new Uint8Array(0));
  return { stream: new api.ChatStream({}), handed, built };
}

test("a push of one tool_input_delta is built without handOver, its getter by toolInputDelta", () => {
  // "call_é" is 6 UTF-16 units (7 bytes); the delta "{\"q\": \"😀" 8 units: the text is cut by units.
  const { stream, handed, built } = standIn([0, 0, 0, 0, TOOL_INPUT_DELTA, 6, 8, 3, 41], 'call_é{"q": "😀');
  assert.deepEqual(stream.push("x"), [{ built: "by toolInputDelta" }]);
  assert.deepEqual(built, [["call_é", '{"q": "😀', 3, 41, partial]]);
  assert.deepEqual(handed, []);
});

test("a layout that is not exactly one tool_input_delta goes to handOver", () => {
  const layouts = {
    "a head word set": [0, 1, 0, 0, TOOL_INPUT_DELTA, 2, 3, 3, 5],
    "another op": [0, 0, 0, 0, 3, 2, 3, 3, 5],
    "a second event after it": [0, 0, 0, 0, TOOL_INPUT_DELTA, 2, 3, 3, 5, 0, 1],
    // An event that has its partial_input already carries no arguments (key 0): handOver's.
    "no arguments": [0, 0, 0, 0, TOOL_INPUT_DELTA, 2, 3, 0, 0],
  };
  for (const [name, layout] of Object.entries(layouts)) {
    const { stream, handed, built } = standIn(layout, "t1abcd");
    assert.deepEqual(stream.push("x"), ["built by handOver"], name);
    assert.deepEqual(handed, [{ text: "t1abcd", layout, many: false }], name);
    assert.deepEqual(built, [], name);
  }
});
