// A session reading a long answer of plain text keeps every copy of it whole and equal to what was
// sent: the snapshot's `streamingText` (and its last segment's and part's text) while it streams,
// the `complete` payload's `text` and `message`, the finished message's `content`, its text part
// and segment, and the saved state read back; whether the turn ends properly, by a broken
// connection, or by the user stopping it. (A long answer crosses into JS in other ways than a
// short one does: its text held by the module, its `complete` handed over as a long string.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();
const frame = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** `DELTAS` deltas of 1,000 code points (no cut inside a pair): characters of every UTF-8 width and
 * ones JSON escapes, each delta starting with its number (`#0#` found once in the text), none with
 * whitespace at its edges (an answer's text is trimmed: the text sent is then exactly the text kept). */
const DELTAS = 300;
const deltas = Array.from({ length: DELTAS }, (_, n) => {
  const piece = `plain é🙂 "answer" text ✓ \\ tab\there\nline `;
  const chars = [...`#${n}# ${piece.repeat(Math.ceil(1000 / piece.length) + 1)}`].slice(0, 1000);
  chars[999] = "."; // not whitespace
  return chars.join("");
});

const textFrame = (text) => frame("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
const START = [
  frame("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], usage: { input_tokens: 1, output_tokens: 1 } } }),
  frame("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
];
const END = [
  frame("content_block_stop", { index: 0 }),
  frame("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }),
  frame("message_stop", {}),
];

/** A session whose answer is `frames`, one frame a chunk; the body then ends, fails with `fail`, or stays open (`hang`). */
function sessionOver(frames, { fail = null, hang = false } = {}) {
  let i = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (i < frames.length) controller.enqueue(encoder.encode(frames[i++]));
      else if (fail) controller.error(new TypeError(fail));
      else if (hang) return new Promise(() => {});
      else controller.close();
    },
  });
  const headers = { "content-type": "text/event-stream" };
  return new ChatSession({ dialect: "anthropic", fetch: async () => new Response(body, { headers }) });
}

/**
 * Sends, reading the events; every 50th text delta, the snapshot's streaming text, and its last
 * segment's and part's, are checked against the deltas so far. `onText(count)` is called after each
 * text delta. Returns the events.
 */
async function read(chat, onText = () => {}) {
  const events = [];
  let sent = "";
  let count = 0;
  for await (const event of chat.send("write it")) {
    events.push(event);
    if (event.type !== "text_delta") continue;
    sent += event.text;
    if (++count % 50 === 0) {
      const snapshot = chat.getSnapshot();
      assert.ok(snapshot.streamingText === sent, `streamingText after ${count} deltas`);
      assert.ok(snapshot.streamingSegments.at(-1).text === sent, `the last segment's text after ${count} deltas`);
      assert.ok(snapshot.streamingParts.at(-1).text === sent, `the last part's text after ${count} deltas`);
    }
    onText(count);
  }
  return events;
}

/** The answer `text` is held whole everywhere: the `complete`, the message, its part and segment, the saved state read back. */
function assertHeldWhole(chat, events, text) {
  const joined = events.filter((e) => e.type === "text_delta").map((e) => e.text).join("");
  assert.ok(joined === text, `the text deltas joined (${joined.length} of ${text.length} characters)`);
  const complete = events.find((e) => e.type === "complete");
  assert.ok(complete.payload.text === text, "complete's text");
  assert.ok(complete.payload.message === text, "complete's message");
  assert.deepEqual(complete.payload.segments, [{ type: "text", text }]);
  const snapshot = chat.getSnapshot();
  assert.equal(snapshot.streamingText, "");
  assert.deepEqual(snapshot.streamingSegments, []);
  assert.deepEqual(snapshot.streamingParts, []);
  const last = snapshot.messages.at(-1);
  assert.ok(last.content === text, "the message's content");
  assert.deepEqual(last.parts, [{ type: "text", text }]);
  assert.deepEqual(last.segments, [{ type: "text", text }]);
  const saved = chat.saveMessages();
  assert.equal(saved.split("#0#").length - 1, 1, "the text saved once");
  const restored = new ChatSession({ dialect: "anthropic" });
  restored.loadMessages(saved);
  assert.deepEqual(restored.getSnapshot().messages, snapshot.messages);
  assert.equal(restored.saveMessages(), saved, "saved again, the same text");
  restored.dispose();
  return last;
}

test("a long answer that ends properly is held whole: snapshots, complete, message, saved state", async () => {
  const chat = sessionOver([...START, ...deltas.map(textFrame), ...END]);
  const events = await read(chat);
  assert.deepEqual(events.map((e) => e.type).filter((t) => t !== "text_delta"), ["complete"]);
  const last = assertHeldWhole(chat, events, deltas.join(""));
  assert.equal(last.finish_reason, "stop");
  chat.dispose();
});

test("a long answer whose connection breaks keeps the text that arrived, whole, then the error", async () => {
  const arrived = deltas.slice(0, 200);
  const chat = sessionOver([...START, ...arrived.map(textFrame)], { fail: "connection reset" });
  const events = await read(chat);
  assert.deepEqual(events.map((e) => e.type).filter((t) => t !== "text_delta"), ["complete", "error"]);
  assert.equal(events.at(-1).code, "NETWORK_ERROR");
  assertHeldWhole(chat, events, arrived.join(""));
  assert.equal(chat.getSnapshot().error.code, "NETWORK_ERROR");
  chat.dispose();
});

test("a long answer the user stops keeps the text that arrived, whole, marked cancelled", async () => {
  const arrived = deltas.slice(0, 250);
  // The body stays open after them, as a model still writing would.
  const chat = sessionOver([...START, ...arrived.map(textFrame)], { hang: true });
  const events = await read(chat, (count) => count === arrived.length && chat.cancel());
  assert.deepEqual(events.map((e) => e.type).filter((t) => t !== "text_delta"), ["complete", "cancelled"]);
  const last = assertHeldWhole(chat, events, arrived.join(""));
  assert.equal(last.cancelled, true);
  chat.dispose();
});
