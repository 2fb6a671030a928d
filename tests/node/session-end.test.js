// The module's ChatSession ends a turn, refuses it, cancels it and clears the error through one
// export, `__end`, by an operation number (src/wasm/session.rs, END_FINISH and on; session.js,
// `#end`). Any script on the page can call it: a number that names no operation is refused with
// an error, never a trap, and the session goes on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as glue from "../../pkg/chatstream.js";

glue.initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

test("__end refuses an operation it does not have, and the session goes on", () => {
  const session = new glue.ChatSession({});
  for (const op of [5, 99, 2 ** 32 - 1, -1]) {
    assert.throws(() => session.__end(op, "", ""), /ChatSession.__end: no such operation/, String(op));
  }
  // Cancel with nothing in flight: the CONFLICT error event, left in the module's memory.
  assert.ok(session.__end(3, "", "") > 0);
  assert.deepEqual(session.state().messages, []);
  session.free();
});
