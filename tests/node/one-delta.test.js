// ChatStream.push builds a push of one text or thinking delta itself, without the module's
// handOver (pkg-template/api.js, `fromMemory`): only when the layout's head (src/wasm/mod.rs,
// `HandOver::compose`) is empty. The module makes no such push with a head today (a head is
// written only with values or strings set aside, and those add words), so the layouts here are
// written by hand into a stand-in module's memory, as the module writes them.
import { test } from "node:test";
import assert from "node:assert/strict";

import { makeApi } from "../../pkg/api.js";

/** An API over a stand-in module whose every push leaves `layout` (words) and `text` in its memory. */
function standIn(layout, text) {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const words = new Uint32Array(memory.buffer);
  const bytes = new Uint8Array(memory.buffer);
  const RECORD = 0, TEXT = 64, LAYOUT = 1024, INPUT = 4096;
  const encoded = new TextEncoder().encode(text);
  bytes.set(encoded, TEXT);
  words.set(layout, LAYOUT / 4);
  words.set([TEXT, encoded.length, LAYOUT], RECORD / 4);
  const handed = [];
  const handOver = (text, memory, from, to, many) => {
    handed.push({ text, layout: [...memory.subarray(from, to)], many });
    return ["built by handOver"];
  };
  const wasm = {
    initSync() {},
    __handOverParts: () => [handOver, [], memory, RECORD, [], []],
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
  return { stream: new api.ChatStream({}), handed };
}

test("a push of one text delta with an empty head is built without handOver", () => {
  const { stream, handed } = standIn([0, 0, 0, 0, 0, 5], "hello");
  assert.deepEqual(stream.push("x"), [{ type: "text_delta", text: "hello" }]);
  assert.deepEqual(handed, []);
});

test("a push of six words whose head is not empty goes to handOver, whichever head word is set", () => {
  for (let word = 0; word < 4; word++) {
    const layout = [0, 0, 0, 0, 0, 5];
    layout[word] = 1;
    const { stream, handed } = standIn(layout, "hello");
    assert.deepEqual(stream.push("x"), ["built by handOver"], `head word ${word}`);
    assert.deepEqual(handed, [{ text: "hello", layout, many: false }]);
  }
});
