// A ChatStream's `complete` takes its text from the text deltas it handed out, joined, when the
// cleaner made the text of them (HandOver::text_is_deltas_joined in src/wasm/mod.rs): the long
// answer is then not decoded a second time. What that must keep right, however the frames arrive
// (a push each, all in one push with `complete`, cut anywhere). Where the text is not the deltas
// joined (a backend's own message), it crosses itself.
import { test } from "node:test";
import assert from "node:assert/strict";

import { decoded, ChatStream } from "./decoded-bytes.js";

const encoder = new TextEncoder();
const openaiFrame = (content) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const openaiEnd = 'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
const agentFrame = (event) => `data: ${JSON.stringify(event)}\n\n`;
const complete = (events) => events.find((e) => e.type === "complete").payload;
const texts = (events) => events.filter((e) => e.type === "text_delta").map((e) => e.text).join("");

/** The events of `chunks` pushed one by one (as bytes and as strings, in turn), then `end`. */
function read(options, chunks, end = (stream) => stream.finish()) {
  const stream = new ChatStream(options);
  const events = [];
  chunks.forEach((chunk, i) => events.push(...stream.push(i % 2 === 0 ? encoder.encode(chunk) : chunk)));
  events.push(...end(stream));
  stream.free();
  return events;
}

/** `text` cut in pieces of `n` bytes (a character cut in two arrives whole with the next piece). */
const cut = (text, n) => {
  const bytes = encoder.encode(text);
  return Array.from({ length: Math.ceil(bytes.length / n) }, (_, i) => bytes.subarray(i * n, (i + 1) * n));
};

// Longer than the strings a hand-over sets aside (1 KB), with characters of every UTF-8 width.
const words = Array.from({ length: 3000 }, (_, i) => `word${i} it\u2019s \u00e9t\u00e9 \u{1F600} `);
const answer = words.join("").trim();

/** `complete`'s message, text and only segment are the answer. */
function assertAnswer(events) {
  const payload = complete(events);
  assert.equal(texts(events), answer);
  assert.equal(payload.text, answer);
  assert.equal(payload.message, answer);
  assert.deepEqual(payload.segments, [{ type: "text", text: answer }]);
}

test("a long answer read live: complete's text is the deltas joined, and is not decoded again", () => {
  const stream = new ChatStream({ dialect: "openai" });
  const events = words.flatMap((word) => stream.push(openaiFrame(word)));
  decoded.bytes = 0;
  events.push(...stream.finish());
  stream.free();
  assertAnswer(events);
  assert.ok(decoded.bytes < 1024, `finish decoded ${decoded.bytes} bytes`);
});

test("a long answer in one push with its end: the deltas and complete in one hand-over", () => {
  const body = words.map(openaiFrame).join("") + openaiEnd;
  assertAnswer(read({ dialect: "openai" }, [body], () => []));
  // Two pushes, the second holding the last deltas and the end.
  const half = words.length / 2;
  assertAnswer(read({ dialect: "openai" }, [words.slice(0, half).map(openaiFrame).join(""), words.slice(half).map(openaiFrame).join("") + openaiEnd], () => []));
});

test("a long answer cut anywhere, through characters and frames", () => {
  const body = words.map(openaiFrame).join("") + openaiEnd;
  for (const n of [7, 1000, 65_536]) {
    const stream = new ChatStream({ dialect: "openai" });
    const events = cut(body, n).flatMap((piece) => stream.push(piece));
    events.push(...stream.finish());
    stream.free();
    assertAnswer(events);
  }
});

test("an agent's complete with no message, in the same push as the last text", () => {
  const frames = words.map((text) => agentFrame({ type: "text_delta", text }));
  const end = agentFrame({ type: "complete", payload: { conversation_id: "c1" } });
  const events = read({ dialect: "agent" }, [frames.slice(0, 10).join(""), frames.slice(10).join("") + end]);
  assertAnswer(events);
  assert.equal(complete(events).conversation_id, "c1");
});

test("a short answer, an empty one, whitespace alone, and a second stream after the first completed", () => {
  for (const pieces of [["Hi ", "th\u00e9re "], [], ["  "], [" \u{1F600}"]]) {
    for (let round = 0; round < 2; round++) {
      const events = read({ dialect: "openai" }, pieces.map(openaiFrame));
      assert.equal(texts(events), pieces.join("").trim());
      assert.equal(complete(events).text, pieces.join("").trim());
      assert.equal(complete(events).message, pieces.join("").trim());
    }
  }
});

test("cancelled and failed mid-stream: complete's text is what arrived", () => {
  const frames = ["Half ", "of it\u2019s ", "answer"].map(openaiFrame);
  const cancelled = read({ dialect: "openai" }, frames, (s) => s.cancel());
  assert.equal(complete(cancelled).text, "Half of it\u2019s answer");
  assert.equal(complete(cancelled).message, "Half of it\u2019s answer");
  const failed = read({ dialect: "openai" }, frames, (s) => s.fail("NETWORK_ERROR", "gone"));
  assert.equal(complete(failed).text, "Half of it\u2019s answer");
  assert.equal(failed.at(-1).code, "NETWORK_ERROR");
});

test("where the text is not the deltas joined, it crosses itself", () => {
  // A backend's own message: complete's text is its, not the deltas', even of the same length.
  const long = "x\u2019".repeat(2000);
  for (const stored of [`stored ${long}`, `STREAMED ${long}`]) {
    const events = read({ dialect: "agent" }, [
      agentFrame({ type: "text_delta", text: `streamed ${long}` }) + agentFrame({ type: "complete", payload: { message: stored } }),
    ]);
    assert.equal(texts(events), `streamed ${long}`);
    assert.equal(complete(events).text, stored);
    assert.equal(complete(events).message, stored);
  }

  // A tool's marker: the message keeps it, the text (the deltas joined) does not.
  const tool = read({ dialect: "agent" }, [
    agentFrame({ type: "text_delta", text: `Let me look ${long}` }),
    agentFrame({ type: "tool_start", tool: "search", input: { q: "x" }, tool_use_id: "t1" }),
    agentFrame({ type: "tool_complete", tool: "search", index: 0 }),
    agentFrame({ type: "text_delta", text: "\n\n[[tool:0]]\n\nFound it\u2019s there." }),
  ]);
  const payload = complete(tool);
  assert.equal(payload.text, texts(tool));
  assert.equal(payload.message, `Let me look ${long}\n\n[[tool:0]]\n\nFound it\u2019s there.`);
  assert.equal(payload.segments[0].text, `Let me look ${long}`);
  assert.equal(payload.segments[2].text, "Found it\u2019s there.");
});

test("a suggestion marker pulled out of the text, and trailing whitespace trimmed", () => {
  const events = read({ dialect: "openai" }, ["Pick one\u2019s  ", '\n\nSUGGESTED_VALUES: ["a", "b"]', "  \n"].map(openaiFrame));
  const payload = complete(events);
  assert.equal(payload.text, texts(events));
  assert.equal(payload.text, "Pick one\u2019s");
  assert.deepEqual(payload.suggested_values, ["a", "b"]);
});
