// A session's `complete` and its finished message take their text from the text deltas the
// session handed out, joined, when the cleaner made the text of them (src/wasm/session.rs,
// `Joined`; session.js, `#fromMemory`): a long answer is then not decoded again at its end. What
// that must keep right, however the body is cut; where the text is not the deltas joined (a
// backend's own message), it crosses itself.
import { test } from "node:test";
import assert from "node:assert/strict";

import { decoded } from "./decoded-bytes.js";
import { ChatSession } from "../../pkg/index.js";

const encoder = new TextEncoder();
const openaiFrame = (content) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const openaiEnd = 'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
const agentFrame = (event) => `data: ${JSON.stringify(event)}\n\n`;

// Longer than the strings a hand-over sets aside (1 KB), with characters of every UTF-8 width.
const words = Array.from({ length: 3000 }, (_, i) => `word${i} it\u2019s \u00e9t\u00e9 \u{1F600} `);
const answer = words.join("").trim();
const answerBytes = encoder.encode(answer).length;

/** `body` cut in pieces of `n` bytes (a character cut in two arrives whole with a later piece). */
const cut = (body, n) => {
  const bytes = encoder.encode(body);
  return Array.from({ length: Math.ceil(bytes.length / n) }, (_, i) => bytes.subarray(i * n, (i + 1) * n));
};

/**
 * A session that read `chunks` (then `last`, when given: the decoded bytes are counted from
 * before it) as its answer: its events, its last message, the message `onFinish` got and the bytes
 * decoded from the module's memory from `last` on.
 */
async function readBySession(dialect, chunks, last = null) {
  const pieces = last === null ? chunks : [...chunks, last];
  let at = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (at === pieces.length) return controller.close();
      if (last !== null && at === pieces.length - 1) decoded.bytes = 0;
      controller.enqueue(pieces[at++]);
    },
  });
  let finished = null;
  const chat = new ChatSession({
    dialect,
    fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
    onFinish: (message) => (finished = message),
  });
  decoded.bytes = 0;
  const events = [];
  for await (const event of chat.send("write it")) events.push(event);
  const message = chat.getSnapshot().messages.at(-1);
  const result = { events, message, finished, decoded: decoded.bytes, chat };
  return result;
}

const complete = (events) => events.find((e) => e.type === "complete").payload;

/** The finished message and `complete` hold `text` as the whole answer (no tool ran). */
function assertAnswer({ events, message, finished }, text = answer) {
  assert.equal(message.role, "assistant");
  assert.equal(message.content, text);
  assert.deepEqual(message.parts, [{ type: "text", text }]);
  assert.deepEqual(message.segments, [{ type: "text", text }]);
  assert.deepEqual(Object.keys(message).slice(0, 5), ["id", "role", "content", "parts", "segments"]);
  assert.equal(finished, message);
  const payload = complete(events);
  assert.equal(payload.text, text);
  assert.equal(payload.message, text);
  assert.equal(events.filter((e) => e.type === "text_delta").map((e) => e.text).join(""), text);
}

test("a long answer read by a session: its end decodes neither complete's text nor the finished message's", async () => {
  const read = await readBySession("openai", words.map(openaiFrame), openaiEnd);
  assertAnswer(read);
  assert.ok(read.decoded < 1024, `the end decoded ${read.decoded} bytes`);
  // Saved and read back, the same message.
  const saved = read.chat.saveMessages();
  const again = new ChatSession({ dialect: "openai" });
  again.loadMessages(saved);
  assert.deepEqual(again.getSnapshot().messages.at(-1), read.message);
  read.chat.dispose();
  again.dispose();
});

test("a long answer cut anywhere, through characters and frames, and whole in one chunk", async () => {
  const body = words.map(openaiFrame).join("") + openaiEnd;
  for (const n of [7, 1000, 65_536, encoder.encode(body).length]) {
    const read = await readBySession("openai", cut(body, n));
    assertAnswer(read);
    // The deltas decoded as they came, and the answer not again at its end. (A body read in one
    // chunk starts its text segment and part with the whole text: that copy is decoded then.)
    if (n < body.length) assert.ok(read.decoded < 1.5 * answerBytes, `${read.decoded} bytes decoded for an answer of ${answerBytes}`);
    read.chat.dispose();
  }
  // The agent protocol's `complete` with no message of its own, in the same chunk as the last text.
  const frames = words.map((text) => agentFrame({ type: "text_delta", text }));
  const end = agentFrame({ type: "complete", payload: { conversation_id: "c1" } });
  const read = await readBySession("agent", [encoder.encode(frames.slice(0, 10).join("")), encoder.encode(frames.slice(10).join("") + end)]);
  assertAnswer(read);
  // The second chunk's text crosses twice, as its delta and as its patch (the complete's strings
  // come between them), but not a third time as the answer.
  assert.ok(read.decoded < 2.5 * answerBytes, `${read.decoded} bytes decoded for an answer of ${answerBytes}`);
  read.chat.dispose();
});

test("where a backend's own message is the answer, the finished message is it, not the deltas", async () => {
  const long = "x\u2019".repeat(2000);
  // Of another length, and of the same length as the deltas joined.
  for (const stored of [`stored text ${long}`, `STREAMED ${long}`]) {
    const frames = [agentFrame({ type: "text_delta", text: `streamed ${long}` }), agentFrame({ type: "complete", payload: { message: stored } })];
    for (const chunks of [[frames.join("")], frames]) {
      const { events, message, chat } = await readBySession("agent", chunks.map((c) => encoder.encode(c)));
      assert.equal(message.content, stored);
      assert.deepEqual(message.segments, [{ type: "text", text: stored }]);
      assert.deepEqual(message.parts, [{ type: "text", text: stored }]);
      assert.equal(complete(events).text, stored);
      chat.dispose();
    }
  }
});

test("a tool between two texts: the message keeps its marker, its segments and parts their pieces", async () => {
  const long = "x\u2019".repeat(2000);
  const frames = [
    agentFrame({ type: "text_delta", text: `Let me look ${long}` }),
    agentFrame({ type: "tool_start", tool: "search", input: { q: "x" }, tool_use_id: "t1" }),
    agentFrame({ type: "tool_complete", tool: "search", index: 0, output: { found: 1 } }),
    agentFrame({ type: "text_delta", text: "\n\n[[tool:0]]\n\nFound it\u2019s there." }),
  ];
  for (const chunks of [[frames.join("")], frames]) {
    const { events, message, chat } = await readBySession("agent", chunks.map((c) => encoder.encode(c)));
    assert.equal(message.content, `Let me look ${long}\n\n[[tool:0]]\n\nFound it\u2019s there.`);
    assert.equal(message.segments[0].text, `Let me look ${long}`);
    assert.equal(message.segments[2].text, "Found it\u2019s there.");
    assert.deepEqual(
      message.parts.filter((p) => p.type === "text").map((p) => p.text),
      [`Let me look ${long}`, "Found it\u2019s there."],
    );
    assert.equal(complete(events).message, message.content);
    chat.dispose();
  }
});

test("stopped, broken off, refused and a second turn: each finished message is its own answer", async () => {
  let calls = 0;
  const long = "y\u00e9".repeat(1500);
  // Each answer's reads, one a pull: a chunk, or what ends the body.
  const answers = [
    // Broken off mid-answer: complete with what arrived, then the error.
    [openaiFrame(`First ${long}`), (controller) => controller.error(new Error("gone"))],
    // Refused (an HTTP error): no answer.
    null,
    // Whole.
    [openaiFrame(`Second ${long}`) + openaiEnd, (controller) => controller.close()],
    // Stopped by the user mid-answer (the body stays open).
    [openaiFrame(`Third ${long}`), () => new Promise(() => {})],
  ];
  const chat = new ChatSession({
    dialect: "openai",
    fetch: async () => {
      const reads = answers[calls++];
      if (reads === null) return new Response("no", { status: 500 });
      let at = 0;
      const pull = (controller) => {
        const read = reads[at++];
        return typeof read === "string" ? controller.enqueue(encoder.encode(read)) : read(controller);
      };
      return new Response(new ReadableStream({ pull }), { headers: { "content-type": "text/event-stream" } });
    },
  });
  for await (const _ of chat.send("one"));
  assert.equal(chat.getSnapshot().messages.at(-1).content, `First ${long}`);
  for await (const _ of chat.send("two"));
  assert.equal(chat.getSnapshot().messages.at(-1).role, "user");
  for await (const _ of chat.send("three"));
  assert.equal(chat.getSnapshot().messages.at(-1).content, `Second ${long}`);
  const events = [];
  for await (const event of chat.send("four")) {
    events.push(event);
    if (event.type === "text_delta") chat.cancel();
  }
  const last = chat.getSnapshot().messages.at(-1);
  assert.equal(last.content, `Third ${long}`);
  assert.deepEqual(last.parts, [{ type: "text", text: `Third ${long}` }]);
  assert.equal(last.cancelled, true);
  assert.equal(complete(events).text, `Third ${long}`);
  chat.dispose();
});
