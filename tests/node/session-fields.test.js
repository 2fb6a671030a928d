// How ChatSession copies its snapshot's fields for each step (by name, the chat state's declared
// fields): a field the module's patches add keeps its value in every later snapshot, and a list the
// snapshots start sharing in a step is shown as an array from that step on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession } from "../../pkg/index.js";
import { makeChatSession } from "../../pkg/session.js";
import { STATE_BEFORE_LOAD } from "../../pkg/loading.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();

/** A Response whose body is `chunks`, one a read. */
const body = (chunks) =>
  new Response(
    new ReadableStream({
      pull: (c) => (chunks.length ? c.enqueue(encoder.encode(chunks.shift())) : c.close()),
    }),
  );

/**
 * A ChatSession over a stand-in for the module whose turn's steps are `steps`: `send`'s first,
 * then one a chunk of the response.
 */
function sessionOver(steps) {
  const wasm = {
    ChatSession: class {
      send = () => ({ request: "{}", ...steps.shift() });
      useResponse() {}
      push = () => steps.shift();
      __end = () => 0; // the module's finish: nothing more
      free() {}
    },
  };
  const memory = { copyIn: () => -1 }; // never through the module's memory: `push` instead
  const Session = makeChatSession(wasm, { isReady: () => true, load: async () => {}, memory });
  const chunks = steps.slice(1).map((_, i) => `chunk ${i}`);
  return new Session({ fetch: async () => body(chunks) });
}

async function snapshots(session, message) {
  const shown = [];
  session.subscribe(() => shown.push(session.getSnapshot()));
  for await (const _ of session.send(message));
  return shown;
}

const step = (...patches) => ({ events: [], patches });

const sse = (delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;

// The step copies the fields it names: the chat state's, which the state before the module loads
// names too. A field of the module's state that the copy did not name would be gone after one step.
test("every snapshot of a turn has the chat state's fields, in their order, as the state before loading does", async () => {
  const session = new ChatSession({
    dialect: "openai",
    fetch: async () => body([sse({ reasoning_content: "Hm" }), sse({ content: "Hel" }), sse({ content: "lo" }), "data: [DONE]\n\n"]),
  });
  const fields = Object.keys(STATE_BEFORE_LOAD);
  assert.deepEqual(Object.keys(session.getSnapshot()), fields);
  const shown = await snapshots(session, "Hi");
  session.dispose();
  assert.ok(shown.length > 3);
  for (const state of shown) assert.deepEqual(Object.keys(state), fields);
  assert.equal(shown.at(-1).messages.at(-1).content, "Hello");
});

test("a field the chat state does not declare, set by a patch, stays in every later snapshot", async () => {
  const session = sessionOver([
    step({ op: "set", key: "isLoading", value: true }),
    step({ op: "set", key: "extra", value: 1 }),
    step({ op: "append", key: "streamingText", text: "Hel" }),
    step({ op: "append", key: "streamingText", text: "lo" }),
  ]);
  const shown = await snapshots(session, "Hi");
  assert.deepEqual(
    shown.map((s) => [s.extra, s.streamingText]),
    [
      [undefined, ""],
      [1, ""],
      [1, "Hel"],
      [1, "Hello"],
    ],
  );
  const last = shown.at(-1);
  assert.deepEqual(Object.keys(last).at(-1), "extra", "after the declared fields, as a spread keeps it");
  assert.ok(Object.isFrozen(last));
});

test("a reset to a state with a field not declared keeps it in the later snapshots", async () => {
  const reset = { ...new ChatSession({ dialect: "openai" }).getSnapshot(), isLoading: true, other: "kept" };
  const session = sessionOver([step({ op: "reset", value: reset }), step({ op: "append", key: "streamingText", text: "a" })]);
  const shown = await snapshots(session, "Hi");
  assert.deepEqual(
    shown.map((s) => [s.other, s.streamingText]),
    [
      ["kept", ""],
      ["kept", "a"],
    ],
  );
});

test("the step whose push makes the messages long enough to be shared shows them as an array, frozen, as every step after", async () => {
  const earlier = [];
  for (let i = 0; i < 32; i++) earlier.push({ role: "user", content: `Question ${i}` }, { role: "assistant", content: `Answer ${i}` });
  const session = new ChatSession({
    dialect: "openai",
    fetch: async () => body([sse({ content: "Hel" }), sse({ content: "lo" }), "data: [DONE]\n\n"]),
  });
  session.setMessages(earlier);
  const shown = await snapshots(session, "Hi");
  session.dispose();
  assert.ok(shown.length > 2);
  for (const state of shown) {
    assert.ok(Array.isArray(state.messages), "an array, never the list the snapshots share");
    assert.ok(Object.isFrozen(state));
  }
  assert.equal(shown[0].messages.length, 65, "the user's message, pushed onto 64");
  assert.deepEqual(shown.at(-1).messages.slice(-2).map((m) => [m.role, m.content]), [
    ["user", "Hi"],
    ["assistant", "Hello"],
  ]);
});
