// ChatStream.push builds a push of one text or thinking delta itself, without the module's
// handOver (pkg-template/api.js, `fromMemory`): only when the layout's head (src/wasm/mod.rs,
// `HandOver::compose`) is empty. So it does a push of one tool_input_delta, with the module's
// toolInputDelta for its getter: only when the layout is exactly that (an empty head, op 4, the
// id's and the delta's lengths, the key of its arguments, not 0, and where the delta ends in them;
// the module's own such pushes go the short way in partial-input-reads.test.js). So does a ChatSession's push of one such delta and the patch with
// the same text, only when the layout is exactly that (the delta, the end of the events list, the
// patch whose text is the same text). The module makes no such push with a head today (a head is
// written only with values or strings set aside, and those add words), so the layouts here are
// written by hand into a stand-in module's memory, as the module writes them; the module's own
// pushes go the short way in session-snapshots.test.js.
import { test } from "node:test";
import assert from "node:assert/strict";

import { makeApi } from "../../pkg/api.js";

const RECORD = 0, TEXT = 64, LAYOUT = 1024, INPUT = 4096;
const TOOL_INPUT_DELTA = 4;

/**
 * A stand-in module's memory holding `layout` (words) and `text` where a push leaves them, and a
 * stand-in handOver that records what it is given and returns `built`.
 */
function memoryWith(layout, text, built) {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const words = new Uint32Array(memory.buffer);
  const encoded = new TextEncoder().encode(text);
  new Uint8Array(memory.buffer).set(encoded, TEXT);
  words.set(layout, LAYOUT / 4);
  words.set([TEXT, encoded.length, LAYOUT], RECORD / 4);
  const handed = [];
  const handOver = (text, memory, from, to, many) => {
    handed.push({ text, layout: [...memory.subarray(from, to)], many });
    return built;
  };
  return { memory, handed, handOver };
}

/**
 * An API over a stand-in module whose every push leaves `layout` (words) and `text` in its memory,
 * with a stand-in toolInputDelta that records what it is given.
 */
function standIn(layout, text) {
  const { memory, handed, handOver } = memoryWith(layout, text, ["built by handOver"]);
  const built = [];
  const toolInputDelta = (...args) => {
    built.push(args);
    return { built: "by toolInputDelta" };
  };
  // The module's partial_input functions (src/wasm/partial_input.rs): toolInputDelta is the fourth.
  const partial = ["the read function", "the release function", "the grown function", toolInputDelta, "grownInput"];
  const wasm = {
    initSync() {},
    __handOverParts: () => [handOver, partial, memory, RECORD, [], []],
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
  return { stream: new api.ChatStream({}), handed, built, partial };
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

const SAME_TEXT = 2 ** 32 - 1;
const END_LIST = 5;
// The ops of the patches that cross as a text item (Op in src/wasm/mod.rs).
const OPS = { appendText: 2, appendThinking: 6, startThinking: 7, startTextPart: 8 };

/**
 * A session over a stand-in module whose one push of a turn leaves `layout` (words) and `text` in
 * its memory, from a state with these `parts` streaming (and one text segment): the turn's events,
 * the snapshot after the push, and what went to handOver.
 */
async function turnOver(layout, text, parts = []) {
  const { memory, handed, handOver } = memoryWith(layout, text, [[{ type: "built by handOver" }], []]);
  const appendText = ["streamingText", "streamingSegments", "streamingParts"];
  const appendThinking = ["thinkingText", "streamingParts"];
  const wasm = {
    initSync() {},
    __handOverParts: () => [handOver, [], memory, RECORD, appendText, appendThinking],
    ChatStream: class {},
    ChatSession: class {
      __wbg_ptr = 1;
      // A new chat's state is the package's constant: the turn's start sets the streaming parts.
      send = () => ({
        events: [],
        patches: [
          { op: "set", key: "isLoading", value: true },
          { op: "set", key: "streamingSegments", value: [{ type: "text", text: "" }] },
          { op: "set", key: "streamingParts", value: parts },
        ],
        request: { message: "hi" },
      });
      useResponse() {}
      __input = () => INPUT;
      __push = () => layout.length;
      __end = () => 0; // the module's finish (and cancel) leave their step in memory, as __push does: nothing here
      free() {}
    },
  };
  const api = makeApi(wasm);
  api.initSync(new Uint8Array(0));
  const read = new TextEncoder().encode("anything");
  const body = new ReadableStream({ start: (c) => (c.enqueue(read), c.close()) });
  const session = new api.ChatSession({ fetch: async () => new Response(body) });
  const snapshots = [];
  session.subscribe(() => snapshots.push(session.getSnapshot()));
  const events = [];
  for await (const event of session.send("hi")) events.push(event);
  return { events, snapshot: snapshots.at(-1), handed };
}

// Longer than the text the package decodes itself (64 bytes), and not ASCII: decoded by TextDecoder.
const LONG = "Grüße aus Köln, 東京 und 🌍: ".repeat(4);

// Each patch with the streaming parts it finds: a part to append to, or one to follow.
for (const [delta, op, part, type] of [
  ["text_delta", "appendText", "text", "text"],
  ["thinking_delta", "appendThinking", "reasoning", "reasoning"],
  ["thinking_delta", "startThinking", "text", "reasoning"],
  ["text_delta", "startTextPart", "reasoning", "text"],
]) {
  test(`a session's push of a ${delta} and its ${op} patch is built without handOver`, async () => {
    for (const text of ["Hi", LONG]) {
      const utf16 = text.length;
      const layout = [0, 0, 0, 0, delta === "text_delta" ? 0 : 1, utf16, END_LIST, OPS[op], SAME_TEXT];
      const { events, snapshot, handed } = await turnOver(layout, text, [{ type: part, text: "" }]);
      assert.deepEqual(handed, []);
      assert.deepEqual(events, [{ type: delta, text }]);
      assert.equal(delta === "thinking_delta" ? snapshot.thinkingText : snapshot.streamingText, text);
      const started = op.startsWith("start");
      assert.deepEqual(snapshot.streamingParts, [...(started ? [{ type: part, text: "" }] : []), { type, text }]);
    }
  });
}

test("a session's push laid out otherwise goes to handOver", async () => {
  const one = [0, 0, 0, 0, 0, 2, END_LIST, OPS.appendText, SAME_TEXT];
  const otherwise = [
    ["a head word set", [1, ...one.slice(1)]],
    ["the patch with a text of its own", [...one.slice(0, 8), 2]],
    ["a patch that is not text", [...one.slice(0, 7), 3, SAME_TEXT]],
    ["no end of the events list", [...one.slice(0, 6), OPS.appendText, OPS.appendText, SAME_TEXT]],
    ["an event that is not a delta", [0, 0, 0, 0, 3, 0, END_LIST, OPS.appendText, SAME_TEXT]],
  ];
  for (const [what, layout] of otherwise) {
    const { events, handed } = await turnOver(layout, "Hi");
    assert.deepEqual(events, [{ type: "built by handOver" }], what);
    assert.deepEqual(handed, [{ text: "Hi", layout, many: true }], what);
  }
});

test("a push of one tool_input_delta is built without handOver, its getter by toolInputDelta", () => {
  // "call_é" is 6 UTF-16 units (7 bytes); the delta "{\"q\": \"😀" 8 units: the text is cut by units.
  const { stream, handed, built, partial } = standIn([0, 0, 0, 0, TOOL_INPUT_DELTA, 6, 8, 3, 41], 'call_é{"q": "😀');
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
