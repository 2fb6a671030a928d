// A session's `complete` and its finished message take their text from the text deltas the
// session handed out, joined, when the cleaner made the text of them (src/wasm/session.rs,
// `Joined`; session.js, `#fromMemory`): a long answer is then not decoded again at its end. What
// that must keep right, however the body is cut; where the text is not the deltas joined (a
// backend's own message), it crosses itself.
import { test } from "node:test";
import assert from "node:assert/strict";

import { decoded } from "./decoded-bytes.js";
import { scriptedFetch } from "./scripted-fetch.js";
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
const deltasOf = (events, type = "text_delta") =>
  events
    .filter((e) => e.type === type)
    .map((e) => e.text)
    .join("");

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
  const bodyBytes = encoder.encode(body).length;
  for (const n of [7, 1000, 65_536, bodyBytes]) {
    const read = await readBySession("openai", cut(body, n));
    assertAnswer(read);
    // The deltas decoded as they came, and the answer not again at its end. (A body read in one
    // chunk starts its text segment and part with the whole text: that copy is decoded then.)
    if (n < bodyBytes) assert.ok(read.decoded < 1.5 * answerBytes, `${read.decoded} bytes decoded for an answer of ${answerBytes}`);
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
    // Only `complete`'s text crosses as the deltas joined here (the message's content holds the
    // marker): it must be they.
    assert.equal(complete(events).text, deltasOf(events));
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

/** A session whose `fetch` answers with `answers` (see scripted-fetch.js); `finished` holds the messages `onFinish` got. */
function scriptedSession(dialect, answers) {
  const finished = [];
  const chat = new ChatSession({ dialect, onFinish: (message) => finished.push(message), fetch: scriptedFetch(answers) });
  return { chat, finished };
}

/** The events of a turn, read to its end. */
async function eventsOf(turn) {
  const events = [];
  for await (const event of turn) events.push(event);
  return events;
}

/** The reads of an openai answer of `text` in 3000 deltas, its end counted by `decoded` from 0. */
const openaiReads = (text) => [
  ...text.split(/(?<= )/).map(openaiFrame),
  (controller) => {
    decoded.bytes = 0;
    controller.enqueue(encoder.encode(openaiEnd));
  },
];

/** The turn's last answer, as `assertAnswer` checks it, and its end decoded not again. */
function assertTurn(chat, events, finished, text) {
  const message = chat.getSnapshot().messages.at(-1);
  assertAnswer({ events, message, finished: finished.at(-1) }, text);
  assert.ok(decoded.bytes < 1024, `the end decoded ${decoded.bytes} bytes`);
  assert.equal(chat.getSnapshot().isLoading, false);
  assert.equal(chat.getSnapshot().streamingText, "");
}

test("a long answer with reasoning: complete's text is the text deltas, its thinking the thinking deltas", async () => {
  const thinking = `Thinking \u00e9\u{1F600} ${"hm ".repeat(800)}end`;
  const bodies = {
    // The agent protocol's thinking deltas, between text deltas too.
    agent: [
      ...words.slice(0, 50).map((text) => agentFrame({ type: "thinking_delta", text })),
      ...words.slice(0, 1500).map((text) => agentFrame({ type: "text_delta", text })),
      agentFrame({ type: "thinking_delta", text: thinking }),
      ...words.slice(1500).map((text) => agentFrame({ type: "text_delta", text })),
      agentFrame({ type: "complete", payload: {} }),
    ].join(""),
    // Reasoning in the text itself, between <think> tags that some deltas cut.
    openai: [openaiFrame("<th"), openaiFrame(`ink>${thinking}</thi`), openaiFrame("nk>"), ...words.map(openaiFrame)].join("") + openaiEnd,
  };
  for (const [dialect, body] of Object.entries(bodies)) {
    for (const n of [7, 4096, encoder.encode(body).length]) {
      const { events, message, finished, chat } = await readBySession(dialect, cut(body, n));
      assert.equal(finished, message);
      assert.equal(message.content, answer);
      assert.deepEqual(message.segments, [{ type: "text", text: answer }]);
      const payload = complete(events);
      assert.equal(payload.text, answer);
      assert.equal(deltasOf(events), answer);
      // The agent's text parts are the text before the second thinking and the text after it.
      const textParts = message.parts.filter((p) => p.type === "text").map((p) => p.text);
      if (dialect === "openai") assert.deepEqual(textParts, [answer]);
      else assert.equal(textParts.length, 2);
      assert.equal(payload.thinking, deltasOf(events, "thinking_delta"));
      assert.ok(payload.thinking.includes(thinking), `${dialect}: the thinking is ${payload.thinking.length} long`);
      // The message as it is saved and read back.
      const again = new ChatSession({ dialect });
      again.loadMessages(chat.saveMessages());
      assert.deepEqual(again.getSnapshot().messages.at(-1), message);
      chat.dispose();
      again.dispose();
    }
  }
});

test("a long second turn right after a long first, then regenerated: each its own text", async () => {
  const second = `Second ${answer}`;
  const third = `Third ${words.slice(0, 500).join("").trim()}`;
  const { chat, finished } = scriptedSession("openai", [openaiReads(answer), openaiReads(second), openaiReads(third)]);
  let events = await eventsOf(chat.send("one"));
  assertTurn(chat, events, finished, answer);
  // The count of the text handed out starts again with the second response.
  events = await eventsOf(chat.send("two"));
  assertTurn(chat, events, finished, second);
  events = await eventsOf(chat.regenerate());
  assertTurn(chat, events, finished, third);
  const messages = chat.getSnapshot().messages;
  assert.deepEqual(
    messages.map((m) => m.content),
    ["one", answer, "two", third],
  );
  chat.dispose();
});

test("messages loaded, then a long answer", async () => {
  const first = scriptedSession("openai", [openaiReads(answer)]);
  await eventsOf(first.chat.send("one"));
  const saved = first.chat.saveMessages();
  first.chat.dispose();
  const second = `Again ${answer}`;
  const { chat, finished } = scriptedSession("openai", [openaiReads(second)]);
  chat.loadMessages(saved);
  const events = await eventsOf(chat.send("two"));
  assertTurn(chat, events, finished, second);
  assert.deepEqual(
    chat.getSnapshot().messages.map((m) => m.content),
    ["one", answer, "two", second],
  );
  chat.dispose();
});

test("a long answer broken off and resumed from the proxy, cut between frames and inside a character", async () => {
  const body = encoder.encode(words.map(openaiFrame).join("") + openaiEnd);
  const emoji = body.indexOf(0xf0, body.length >> 1);
  for (const at of [1000, body.length >> 1, emoji + 2]) {
    let finished = null;
    const chat = new ChatSession({
      dialect: "openai",
      resume: { attempts: 1, delayMs: 0 },
      onFinish: (message) => (finished = message),
      // The answer up to `at`, then the connection breaks; the proxy has the rest.
      fetch: async (url, init) => {
        const resumed = init.method === "GET";
        const from = resumed ? Number(new URL(url, "http://localhost").searchParams.get("from")) : 0;
        let sent = false;
        const pull = (controller) => {
          if (!sent) {
            sent = true;
            return controller.enqueue(body.slice(from, resumed ? body.length : at));
          }
          return resumed ? controller.close() : controller.error(new Error("connection reset"));
        };
        const headers = { "content-type": "text/event-stream", "x-stream-id": "00ff" };
        return new Response(new ReadableStream({ pull }), { headers });
      },
    });
    const events = await eventsOf(chat.send("go"));
    assert.deepEqual(
      events.filter((e) => e.type === "status").map((e) => e.reason),
      ["reconnecting", "resumed"],
    );
    assertAnswer({ events, message: chat.getSnapshot().messages.at(-1), finished });
    chat.dispose();
  }
});
