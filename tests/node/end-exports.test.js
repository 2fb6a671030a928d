// The module's ChatSession ends a turn, refuses it, cancels it and clears the error through one
// export, `__end`, by an operation number (src/wasm/session.rs, END_FINISH and on; session.js,
// `#end`); its ChatStream finishes, cancels and fails one likewise (src/wasm/stream.rs; api.js).
// Any script on the page can call them: a number that names no operation is refused with an
// error, never a trap, and the object goes on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as glue from "../../pkg/chatstream.js";
import { ChatStream } from "../../pkg/node.js";

glue.initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const NOT_OPERATIONS = [6, 99, 2 ** 32 - 1, -1];

test("ChatSession.__end refuses an operation it does not have, and the session goes on", () => {
  const session = new glue.ChatSession({});
  for (const op of NOT_OPERATIONS) {
    assert.throws(() => session.__end(op, "", ""), /ChatSession.__end: no such operation/, String(op));
  }
  // Cancel with nothing in flight leaves a step in the module's memory (its CONFLICT error event is
  // read through the public cancel() in first-request.test.js); 5 ends nothing, it hands that step
  // over again.
  const words = session.__end(3, "", "");
  assert.ok(words > 0);
  assert.equal(session.__end(5, "", ""), words);
  assert.deepEqual(session.state().messages, []);
  session.free();
});

test("ChatStream.__end refuses an operation it does not have, fail takes only strings, and the stream goes on", () => {
  const stream = new ChatStream({ dialect: "agent" });
  for (const op of [5, ...NOT_OPERATIONS]) {
    assert.throws(() => stream.__end(op, "", ""), /ChatStream.__end: no such operation/, String(op));
  }
  assert.deepEqual(stream.push('data: {"type": "text_delta", "text": "Hi"}\n\n'), [{ type: "text_delta", text: "Hi" }]);
  for (const [code, message] of [["NETWORK_ERROR", new Error("cut")], ["NETWORK_ERROR"], [undefined, "cut"], [7, "cut"]]) {
    assert.throws(() => stream.fail(code, message), TypeError, `fail(${code}, ${message})`);
  }
  assert.deepEqual(stream.fail("NETWORK_ERROR", "cut").map((e) => e.type), ["complete", "error"]);
  stream.free();
});
