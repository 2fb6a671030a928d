// The package's I/O in a real page: streamEvents and ChatSession reading Chromium's own Response
// and ReadableStream objects, chunked, aborted, failing mid-body, refused with an HTTP status.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium, origin, serveRepository } from "./chromium.js";

let context, closeChromium, page;

before(async () => {
  ({ context, close: closeChromium } = await launchChromium());
  await serveRepository(context);
  page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.evaluate(async () => {
    const chatstream = await import("/pkg/index.js");
    await chatstream.default();
    const encoder = new TextEncoder();
    // A Response whose body sends `chunks`, then ends, stays open (`mode` "hang") or fails ("fail").
    const chunked = (chunks, mode = "end") => {
      let i = 0;
      const body = new ReadableStream({
        pull(controller) {
          if (i < chunks.length) return controller.enqueue(encoder.encode(chunks[i++]));
          if (mode === "fail") return controller.error(new TypeError("network down"));
          if (mode === "hang") return new Promise(() => {});
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
    const drain = async (events, onEvent = () => {}) => {
      const seen = [];
      for await (const event of events) {
        onEvent(event);
        seen.push(event);
      }
      return seen;
    };
    window.t = { chatstream, chunked, drain };
  });
});

after(async () => {
  await closeChromium?.();
});

const HI = 'data: {"type":"text_delta","text":"Hi"}\n\n';
const DONE = 'data: {"type":"complete","payload":{"message":"Hi"}}\n\n';

test("in Chromium: a chunked Response gives its events, a character split across chunks included", async () => {
  const events = await page.evaluate(async ([hi, done]) => {
    const { chatstream, chunked, drain } = window.t;
    const cut = hi.indexOf("Hi") + 1;
    return drain(chatstream.streamEvents(chunked([hi.slice(0, cut), hi.slice(cut), 'data: {"type":"text_delta","text":"é"}\n\n', done])));
  }, [HI, DONE]);
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "text_delta", "complete"]);
  assert.equal(events[0].text, "Hi");
  assert.equal(events[1].text, "é");
});

test("in Chromium: an abort keeps the partial text, then says cancelled", async () => {
  const events = await page.evaluate(async (hi) => {
    const { chatstream, chunked, drain } = window.t;
    const controller = new AbortController();
    const stream = chatstream.streamEvents(chunked([hi], "hang"), { signal: controller.signal });
    return drain(stream, (event) => event.type === "text_delta" && controller.abort());
  }, HI);
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete", "cancelled"]);
  assert.equal(events[1].payload.text, "Hi");
});

test("in Chromium: a body failing mid-stream keeps the partial text and ends with NETWORK_ERROR", async () => {
  const events = await page.evaluate((hi) => window.t.drain(window.t.chatstream.streamEvents(window.t.chunked([hi], "fail"))), HI);
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete", "error"]);
  assert.equal(events[2].code, "NETWORK_ERROR");
  assert.match(events[2].message, /network down/);
});

test("in Chromium: HTTP 401 is UNAUTHORIZED", async () => {
  const events = await page.evaluate(() => window.t.drain(window.t.chatstream.streamEvents(new Response("{}", { status: 401 }))));
  assert.deepEqual(events.map((e) => [e.type, e.code]), [["error", "UNAUTHORIZED"]]);
});

test("in Chromium: a session turn moves the state and ends idle; cancel with nothing in flight is CONFLICT", async () => {
  const result = await page.evaluate(async ([hi, done]) => {
    const { chatstream, chunked, drain } = window.t;
    const sent = [];
    const fetch = async (url, init) => {
      sent.push(JSON.parse(init.body));
      return chunked([hi, done]);
    };
    const chat = new chatstream.ChatSession({ fetch });
    const turn = chat.send("hello");
    const during = chat.getSnapshot();
    await drain(turn);
    const after = chat.getSnapshot();
    const conflict = chat.cancel();
    chat.dispose();
    return {
      during: [during.isLoading, during.phase],
      after: [after.isLoading, after.messages.map((m) => [m.role, m.content])],
      sent: sent.map((b) => b.message),
      conflict: conflict.code,
    };
  }, [HI, DONE]);
  assert.deepEqual(result.during, [true, "waiting"]);
  assert.deepEqual(result.after, [false, [["user", "hello"], ["assistant", "Hi"]]]);
  assert.deepEqual(result.sent, ["hello"]);
  assert.equal(result.conflict, "CONFLICT");
});

test("in Chromium: chatstream/streaming loads its own module and reads a stream; provider mode is refused", async () => {
  const result = await page.evaluate(async ([hi, done]) => {
    const streaming = await import("/pkg/streaming/index.js");
    await streaming.default();
    const events = await window.t.drain(streaming.streamEvents(window.t.chunked([hi, done])));
    let refused = null;
    try {
      new streaming.ChatSession({ provider: "openai" });
    } catch (error) {
      refused = error.name;
    }
    const loaded = performance.getEntriesByType("resource").map((r) => new URL(r.name).pathname).filter((p) => p.endsWith(".wasm"));
    return { types: events.map((e) => e.type), refused, loaded };
  }, [HI, DONE]);
  assert.deepEqual(result.types, ["text_delta", "complete"]);
  assert.equal(result.refused, "TypeError");
  assert.deepEqual(result.loaded.sort(), ["/pkg/chatstream_bg.wasm", "/pkg/streaming/chatstream_bg.wasm"]);
});
