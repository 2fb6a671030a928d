// A long conversation (its messages shared by the snapshots) answered at length (its parts
// shared too): each snapshot's properties are those of any other snapshot, field by field, in the
// declared order, and each shows at the end what it showed when it was new.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();
const event = (delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;

/** Thinking and text by turns, one delta a read: a part for each. */
function answer(turns) {
  const chunks = Array.from({ length: turns }, (_, i) => [event({ reasoning_content: `think ${i}.` }), event({ content: `say ${i}.` })]).flat();
  chunks.push("data: [DONE]\n\n");
  return new Response(new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(encoder.encode(chunks.shift())) : c.close()) }), {
    headers: { "content-type": "text/event-stream" },
  });
}

// The fields a new session's snapshot has (no list of it shared): every later one must have them
// all, in this order, whichever of its lists are shared.
const FIELDS = Object.keys(new ChatSession({ dialect: "openai" }).getSnapshot());

/** A property's attributes, its value left out: what every snapshot's field has alike. */
const attributes = (descriptor) => ({ enumerable: descriptor.enumerable, configurable: descriptor.configurable, writable: descriptor.writable ?? false });

test("a long conversation answered at length: every snapshot has the declared fields, frozen, and shows what it showed when new", async () => {
  assert.ok(FIELDS.includes("messages") && FIELDS.includes("streamingParts") && FIELDS.length >= 12, FIELDS.join());
  const session = new ChatSession({ dialect: "openai", fetch: async () => answer(50) });
  session.setMessages(Array.from({ length: 70 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `message ${i}` })));
  const states = [];
  const texts = [];
  session.subscribe(() => {
    states.push(session.getSnapshot());
    texts.push(JSON.stringify(session.getSnapshot()));
  });
  for await (const _ of session.send("Go"));
  session.dispose();
  const longAnswer = states.filter((s) => s.streamingParts.length > 70);
  assert.ok(longAnswer.length > 20);
  for (const [i, state] of states.entries()) {
    assert.ok(Object.isFrozen(state));
    assert.deepEqual(Object.keys(state), FIELDS, `snapshot ${i}: the declared fields, in order`);
    for (const key of FIELDS) {
      assert.deepEqual(attributes(Object.getOwnPropertyDescriptor(state, key)), { enumerable: true, configurable: false, writable: false }, `${i} ${key}`);
    }
    assert.deepEqual(Object.getOwnPropertySymbols(state).filter((s) => Object.getOwnPropertyDescriptor(state, s).enumerable), []);
    assert.deepEqual(JSON.parse(JSON.stringify({ ...state })), JSON.parse(texts[i]));
    assert.equal(new Proxy(state, {}).messages, state.messages);
    assert.equal(Object.create(state).streamingSegments, state.streamingSegments);
  }
  // Read late, each still shows what it showed when it was new.
  states.forEach((state, i) => assert.equal(JSON.stringify(state), texts[i], `snapshot ${i} as it was shown`));
  const last = states.at(-1);
  assert.equal(last.messages.length, 72);
  assert.equal(last.messages.at(-1).parts.length, 100);
  assert.equal(last.messages.at(-1).content, Array.from({ length: 50 }, (_, i) => `say ${i}.`).join(""));
});
