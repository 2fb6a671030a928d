// Before the module has loaded, a chat's first request is built in JS (pkg/loading.js) and sent at
// once; the module builds every other one. These checks put the JS side beside the module's
// ChatSession (both builds) on the same input, so that the two cannot drift apart: the same body
// on the wire, the same state before the first message, the same answer to a cancel().
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as full from "../../pkg/chatstream.js";
import * as streaming from "../../pkg/streaming/chatstream.js";
import * as fullEntry from "../../pkg/node.js";
import * as streamingEntry from "../../pkg/streaming/node.js";
import { NOTHING_TO_CANCEL, STATE_BEFORE_LOAD, firstRequest } from "../../pkg/loading.js";

const modules = { full, streaming };
const entries = { full: fullEntry, streaming: streamingEntry };
for (const [name, glue] of Object.entries(modules)) {
  const dir = name === "full" ? "../../pkg/" : "../../pkg/streaming/";
  glue.initSync({ module: readFileSync(new URL(`${dir}chatstream_bg.wasm`, import.meta.url)) });
}

const cycle = {};
cycle.self = cycle;
const MESSAGES = ["hi", "  hi  ", "héllo 👋", "a\nb\r\n", '"quoted" \\ </script> \u2028\u2029', "x".repeat(10_000), "\t0"];
const CONTEXTS = [
  undefined,
  null,
  {},
  { page: "/docs", selection: { from: 1, to: 2.5 }, tags: ["a", null, true], empty: {} },
  { b: 1, a: { d: [], c: "é" } },
  { dropped: undefined, fn: () => 1 },
  "just text",
  0,
  false,
  [1, "two", { three: 3 }],
  { big: 1e21, small: -0.000001, int: 9007199254740991 },
];
const ENDPOINTS = ["/api/chat/stream", "https://agent.example/run?x=1#h", "/api/chat/stream/", "/chat"];
// Input the module may refuse or that JS cannot tell about: the JS side must leave these to it.
const LEFT_TO_THE_MODULE = [
  ["", null, "/api/chat/stream"],
  ["   ", null, "/api/chat/stream"],
  ["\u0085", null, "/api/chat/stream"],
  ["\ufeff\u00a0", null, "/api/chat/stream"],
  ["hi", cycle, "/api/chat/stream"],
  ["hi", 10n, "/api/chat/stream"],
  ["hi", () => 1, "/api/chat/stream"],
  ["hi", null, "/api/chat/openai"],
  ["hi", null, "/proxy/api/chat/anthropic/?v=1"],
];

/** The module's first request for `message` (JSON text), as the server receives it; or what it did instead. */
function coreRequest(glue, message, context, endpoint) {
  const core = new glue.ChatSession({});
  try {
    const started = core.send(message, context ?? null, endpoint);
    return started.request === undefined ? { refused: started.events } : { body: JSON.parse(started.request) };
  } catch (error) {
    return { threw: error };
  } finally {
    core.free();
  }
}

for (const [name, glue] of Object.entries(modules)) {
  test(`${name}: the first request built in JS is the module's, on the wire`, () => {
    let compared = 0;
    for (const message of MESSAGES) {
      for (const context of CONTEXTS) {
        for (const endpoint of ENDPOINTS) {
          const js = firstRequest(message, context, endpoint);
          const what = JSON.stringify({ message: message.slice(0, 20), context: String(context), endpoint });
          assert.notEqual(js, null, `JS should build ${what}`);
          assert.deepEqual(JSON.parse(JSON.stringify(js)), coreRequest(glue, message, context, endpoint).body, what);
          compared++;
        }
      }
    }
    assert.equal(compared, MESSAGES.length * CONTEXTS.length * ENDPOINTS.length);
  });

  test(`${name}: what the module may refuse waits for it (no request built in JS)`, () => {
    for (const [message, context, endpoint] of LEFT_TO_THE_MODULE) {
      assert.equal(firstRequest(message, context, endpoint), null, JSON.stringify([message, endpoint]));
    }
    // The module does refuse these, so a body built for them would have gone out wrongly.
    for (const [message, context, endpoint] of [LEFT_TO_THE_MODULE[0], LEFT_TO_THE_MODULE[2], LEFT_TO_THE_MODULE[4], LEFT_TO_THE_MODULE[7]]) {
      assert.equal(coreRequest(glue, message, context, endpoint).body, undefined, JSON.stringify([message, endpoint]));
    }
  });

  test(`${name}: a session before the module has loaded shows the state the module starts with, and cancels as it does`, () => {
    const core = new glue.ChatSession({});
    assert.deepEqual(STATE_BEFORE_LOAD, core.state());
    core.free();
    // With nothing in flight, a loaded session's cancel() is answered by the module's ChatSession.
    const chat = new entries[name].ChatSession({});
    const cancelled = chat.cancel();
    assert.notEqual(cancelled, NOTHING_TO_CANCEL); // the module's event, not the constant itself
    assert.deepEqual(NOTHING_TO_CANCEL, cancelled);
    chat.dispose();
  });
}
