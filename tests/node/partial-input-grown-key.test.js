// The module function that says whether a tool call's long input starts with the string the
// partial_input getters built (src/wasm/partial_input.rs, `grown`) can be called by any script on
// the page. It compares with a string the module set aside itself, named by its key: an address
// in the module's memory passed in the key's place reads nothing there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { frame, toolStart, inputDelta } from "./anthropic-frames.js";

const { initSync, ChatStream } = await import("../../pkg/index.js");
const bindings = await import("../../pkg/chatstream.js");
initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

test("the input is compared only as the string the module set aside, named by its key", () => {
  const [, partial, memory] = bindings.__handOverParts();
  const grown = partial[2];
  const marked = "zq".repeat(1024); // longer than a string the module hands over inline
  const stream = new ChatStream({ dialect: "anthropic" });
  stream.push(toolStart);
  stream.push(inputDelta('{"content": "'));
  const delta = stream.push(inputDelta(marked)).at(-1);
  assert.equal(delta.partial_input.content, marked); // read as it streamed: its holder is the last one read
  const end = [inputDelta('"}'), frame("content_block_stop", { index: 0 }), frame("message_stop", {})];
  const events = end.flatMap((f) => stream.push(f));
  assert.deepEqual(events.find((e) => e.type === "tool_call").input, { content: marked });

  // Where the input's bytes are in the module's memory, with the quote before them or not: each
  // copy the module holds (the arguments' text, the input's value, the chunk pushed).
  const bytes = Buffer.from(memory.buffer);
  const run = Buffer.from("zq".repeat(32));
  const addresses = [];
  for (let at = bytes.indexOf(run); at !== -1 && addresses.length < 32; at = bytes.indexOf(run, at + marked.length)) {
    addresses.push(at, at - 1);
  }
  assert.ok(addresses.length > 0);
  // Every arguments key, place and key of a string set aside that a stream this short can have.
  let byKey = false;
  let byAddress = false;
  for (let key = 1; key <= 8; key++) {
    for (let from = 0; from <= 16; from++) {
      for (let string = 1; string <= 8; string++) byKey ||= grown(key, from, run.length, string);
      for (const at of addresses) byAddress ||= grown(key, from, run.length, at);
    }
  }
  assert.ok(byKey, "the input, named by its key, starts with the string read");
  assert.ok(!byAddress, "an address passed in the key's place read the module's memory");
  stream.free();
});
