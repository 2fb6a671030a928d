// ChatSession resuming an answer the proxy keeps (X-Stream-Id): the body breaks off, the session
// asks for the rest from the byte it has, and the same message goes on. Over a fetch that plays the
// proxy: it records every request and answers a GET from the byte it names, as the proxy does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();
const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

// An agent answer with a tool, non-ASCII text (a cut may fall inside a character) and a payload.
const ANSWER = sse([
  { type: "status", message: "Thinking..." },
  { type: "text_delta", text: "Les résultats " },
  { type: "text_delta", text: "arrivent — 🧬 " },
  { type: "tool_start", tool: "search", input: { q: "crispr" }, tool_use_id: "t1" },
  { type: "tool_complete", tool: "search", index: 0, tool_use_id: "t1", output: "3 hits" },
  { type: "text_delta", text: "[[tool:0]]J'ai trouvé 3 articles." },
  { type: "complete", payload: { message: "Les résultats arrivent — 🧬 [[tool:0]]J'ai trouvé 3 articles.", conversation_id: 7 } },
]);
const BYTES = encoder.encode(ANSWER);
const WHOLE_TEXT = "Les résultats arrivent — 🧬 [[tool:0]]J'ai trouvé 3 articles.";
// A cut in the middle of the second text frame: the first one ("Les résultats ") has arrived.
const CUT = encoder.encode(ANSWER.slice(0, ANSWER.indexOf("arrivent"))).length;
const BEFORE_CUT = "Les résultats";

/**
 * A body of `bytes` in `chunk`-byte pieces that fails with a network error after `cutAt` bytes
 * (if given), goes silent after `stallAt` bytes, or stays open at the end with `hang`.
 */
function body(bytes, { cutAt = Infinity, stallAt = Infinity, chunk = 7, hang = false } = {}) {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= cutAt) return controller.error(new TypeError("network error"));
      if (at >= stallAt) return new Promise(() => {}); // a connection that died without a word
      if (at >= bytes.length) return hang ? new Promise(() => {}) : controller.close();
      const end = Math.min(at + chunk, bytes.length, cutAt, stallAt);
      controller.enqueue(bytes.slice(at, end));
      at = end;
    },
  });
}

const STREAM_HEADERS = { "content-type": "text/event-stream", "x-stream-id": "00ff" };

/**
 * A fetch playing the proxy for `bytes`: the POST's body is cut after `cuts[0]` bytes, each GET's
 * after the next cut (absolute offsets); `gets` (optional) answers a GET instead, by its number.
 */
function proxy(bytes, { cuts = [], gets = {}, hang = false } = {}) {
  const requests = [];
  let nextCut = 0;
  const fetch = async (url, init) => {
    requests.push({ url, method: init.method, headers: init.headers });
    if (init.method === "DELETE") return new Response(null, { status: 204 });
    if (init.method === "POST") {
      return new Response(body(bytes, { cutAt: cuts[nextCut++], hang }), { headers: STREAM_HEADERS });
    }
    const special = gets[requests.filter((r) => r.method === "GET").length];
    if (special) return special();
    const from = Number(new URL(url, "http://x").searchParams.get("from"));
    const rest = bytes.slice(from);
    const cutAt = cuts[nextCut++];
    return new Response(body(rest, { cutAt: cutAt === undefined ? Infinity : cutAt - from, hang }), { headers: STREAM_HEADERS });
  };
  return { fetch, requests };
}

async function collect(iterable) {
  const events = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const fast = { attempts: 3, delayMs: 1 };
const lastMessage = (session) => session.getSnapshot().messages.at(-1);
const getUrls = (requests) => requests.filter((r) => r.method === "GET").map((r) => r.url);

test("a body cut mid-character is resumed from the byte it stopped at: the same message, nothing twice", async () => {
  // One byte into the three bytes of "—".
  const inside = encoder.encode(ANSWER.slice(0, ANSWER.indexOf("—"))).length + 1;
  const { fetch, requests } = proxy(BYTES, { cuts: [inside] });
  const session = new ChatSession({ endpoint: "/api/chat/stream", fetch, resume: fast });
  const events = await collect(session.send("crispr"));
  assert.deepEqual(getUrls(requests), [`/api/chat/stream/streams/00ff?from=${inside}`]);
  assert.equal(lastMessage(session).content, WHOLE_TEXT);
  const texts = events.filter((e) => e.type === "text_delta").map((e) => e.text).join("");
  assert.equal(texts, "Les résultats arrivent — 🧬 J'ai trouvé 3 articles.");
  const statuses = events.filter((e) => e.type === "status").map((e) => e.reason ?? e.message);
  assert.deepEqual(statuses, ["Thinking...", "reconnecting", "resumed"]);
  assert.equal(events.filter((e) => e.type === "complete").length, 1);
  assert.equal(events.filter((e) => e.type === "error").length, 0);
  assert.equal(session.getSnapshot().error, null);
});

test("every cut of the same answer is resumed, at every byte offset", async () => {
  for (let cut = 1; cut < BYTES.length; cut += 5) {
    const cuts = [cut, cut + 13, cut + 40].filter((at) => at < BYTES.length);
    const { fetch, requests } = proxy(BYTES, { cuts, chunk: 3 });
    const session = new ChatSession({ fetch, resume: fast });
    await collect(session.send("crispr"));
    assert.equal(lastMessage(session).content, WHOLE_TEXT, `cut at ${cut}`);
    assert.deepEqual(getUrls(requests).map((url) => Number(url.split("from=")[1])), cuts, `cut at ${cut}`);
  }
});

test("a proxy that cannot be reached is asked again at once, then after waits that double; then the cut stands", async () => {
  const failing = () => Promise.reject(new TypeError("Failed to fetch"));
  const { fetch, requests } = proxy(BYTES, { cuts: [CUT], gets: { 1: failing, 2: failing, 3: failing, 4: failing } });
  const times = [];
  const timed = async (url, init) => {
    times.push(Date.now());
    return fetch(url, init);
  };
  const session = new ChatSession({ fetch: timed, resume: { attempts: 4, delayMs: 40 } });
  const events = await collect(session.send("crispr"));
  assert.equal(getUrls(requests).length, 4);
  // No wait, then waits of 40, 80 and 160 ms (at least; timers may fire late).
  const waits = times.slice(2).map((at, i) => at - times[i + 1]);
  assert.ok(waits[0] >= 38 && waits[1] >= 78 && waits[2] >= 158, JSON.stringify(waits));
  const error = events.find((e) => e.type === "error");
  assert.equal(error.code, "NETWORK_ERROR");
  assert.equal(events.filter((e) => e.reason === "reconnecting").length, 4);
  assert.equal(events.filter((e) => e.reason === "resumed").length, 0);
  // What arrived before the cut is kept.
  assert.equal(lastMessage(session).content, BEFORE_CUT);
  assert.equal(session.getSnapshot().statusText, null, "no Reconnecting… left on screen");
});

test("a 5xx or 416 from the proxy is tried again; a 404 (no longer kept) ends the resuming at once", async () => {
  const unavailable = () => new Response('{"error":{"message":"store unreachable"}}', { status: 502 });
  const behind = () => new Response('{"error":{"message":"from is past the bytes sent so far"}}', { status: 416 });
  const gone = () => new Response('{"type":"error","code":"NOT_FOUND","message":"not kept"}', { status: 404 });
  {
    const { fetch, requests } = proxy(BYTES, { cuts: [CUT], gets: { 1: unavailable, 2: behind } });
    const session = new ChatSession({ fetch, resume: fast });
    await collect(session.send("crispr"));
    assert.equal(getUrls(requests).length, 3);
    assert.equal(lastMessage(session).content, WHOLE_TEXT);
  }
  {
    const { fetch, requests } = proxy(BYTES, { cuts: [CUT], gets: { 1: gone } });
    const session = new ChatSession({ fetch, resume: fast });
    const events = await collect(session.send("crispr"));
    assert.equal(getUrls(requests).length, 1);
    assert.equal(events.find((e) => e.type === "error").code, "NETWORK_ERROR");
  }
});

test("resume: false, or an answer without X-Stream-Id, is never asked for again", async () => {
  {
    const { fetch, requests } = proxy(BYTES, { cuts: [CUT] });
    const session = new ChatSession({ fetch, resume: false });
    const events = await collect(session.send("crispr"));
    assert.deepEqual(requests.map((r) => r.method), ["POST"]);
    assert.equal(events.find((e) => e.type === "error").code, "NETWORK_ERROR");
  }
  {
    const requests = [];
    const fetch = async (url, init) => {
      requests.push(init.method);
      return new Response(body(BYTES, { cutAt: CUT }), { headers: { "content-type": "text/event-stream" } });
    };
    const session = new ChatSession({ fetch });
    await collect(session.send("crispr"));
    assert.deepEqual(requests, ["POST"]);
  }
});

test("the status line says Reconnecting… while the session waits, then shows what it showed before", async () => {
  const { fetch } = proxy(BYTES, { cuts: [CUT] });
  const session = new ChatSession({ fetch, resume: { attempts: 2, delayMs: 30 } });
  const seen = [];
  session.subscribe(() => seen.push(session.getSnapshot().statusText));
  await collect(session.send("crispr"));
  const at = seen.indexOf("Reconnecting…");
  assert.ok(at > 0, JSON.stringify(seen));
  // Text clears the backend's "Thinking..." before the cut, so the line is empty again after.
  assert.deepEqual(seen.slice(at - 1, at + 2), [null, "Reconnecting…", null]);
  assert.ok(seen.includes("Thinking..."));
  assert.equal(session.getSnapshot().statusText, null);
});

test("stop() while the session waits to resume stops the answer at the proxy (DELETE) and asks for nothing more", async () => {
  // The first attempt (at once) finds no connection; stop comes during the wait before the second.
  const failing = () => Promise.reject(new TypeError("Failed to fetch"));
  const { fetch, requests } = proxy(BYTES, { cuts: [CUT], gets: { 1: failing } });
  const session = new ChatSession({ fetch, resume: { attempts: 3, delayMs: 200 }, headers: { "x-app": "1" } });
  const events = [];
  let reconnects = 0;
  for await (const event of session.send("crispr")) {
    events.push(event);
    if (event.reason === "reconnecting" && ++reconnects === 2) session.stop();
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(
    requests.map((r) => [r.method, r.url]),
    [["POST", "/api/chat/stream"], ["GET", `/api/chat/stream/streams/00ff?from=${CUT}`], ["DELETE", "/api/chat/stream/streams/00ff"]],
  );
  assert.equal(requests[2].headers["x-app"], "1");
  assert.deepEqual(events.slice(-2).map((e) => e.type), ["complete", "cancelled"]);
  assert.equal(lastMessage(session).content, BEFORE_CUT);
  assert.equal(lastMessage(session).cancelled, true);
});

test("stop() during a resumed body stops it at the proxy too", async () => {
  const { fetch, requests } = proxy(BYTES, { cuts: [CUT], hang: true });
  const session = new ChatSession({ fetch, resume: fast });
  for await (const event of session.send("crispr")) {
    if (event.type === "text_delta" && event.text.includes("J'ai")) session.stop();
  }
  for (let wait = 0; requests.length < 3 && wait < 100; wait++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(requests.map((r) => r.method), ["POST", "GET", "DELETE"]);
});

test("after a reload: streamInFlight() saved with the messages, then loadMessages and resume(url) give the whole answer", async () => {
  // The first page's answer never ends: the page goes away mid answer, with no stop and no dispose.
  const { fetch, requests } = proxy(BYTES.slice(0, 120), { hang: true });
  const first = new ChatSession({ fetch, resume: false, stepTimeoutMs: 300 });
  let saved = null;
  const unsubscribe = first.subscribe(() => {
    // What a page saves on every change (localStorage, sessionStorage, …).
    saved = { messages: first.saveMessages(), stream: first.streamInFlight() };
  });
  first.send("crispr");
  while (first.getSnapshot().streamingText === "") await new Promise((resolve) => setTimeout(resolve, 5));
  unsubscribe(); // the page's last save before it went away
  assert.equal(saved.stream, "/api/chat/stream/streams/00ff");

  const reloaded = proxy(BYTES);
  const second = new ChatSession({ fetch: reloaded.fetch });
  second.loadMessages(saved.messages);
  assert.equal(second.streamInFlight(), null);
  const events = await collect(second.resume(saved.stream));
  assert.deepEqual(reloaded.requests.map((r) => [r.method, r.url]), [["GET", "/api/chat/stream/streams/00ff?from=0"]]);
  const messages = second.getSnapshot().messages;
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant"]);
  assert.equal(messages[0].content, "crispr");
  assert.equal(messages[1].content, WHOLE_TEXT);
  assert.equal(events.filter((e) => e.type === "complete").length, 1);
  assert.equal(second.streamInFlight(), null, "nothing in flight once the answer is done");
  assert.deepEqual(requests.map((r) => r.method), ["POST"]);
});

test("resume(url) of an answer no longer kept ends in the proxy's error, the conversation kept", async () => {
  const fetch = async () => new Response('{"type":"error","code":"NOT_FOUND","message":"This answer is not kept"}', { status: 404, headers: { "content-type": "application/json" } });
  const session = new ChatSession({ fetch });
  session.setMessages([{ role: "user", content: "crispr" }]);
  const events = await collect(session.resume("/api/chat/stream/streams/00ff"));
  assert.equal(events.find((e) => e.type === "error").code, "NOT_FOUND");
  assert.deepEqual(session.getSnapshot().messages.map((m) => m.content), ["crispr"]);
});

test("the resume option is checked", () => {
  for (const resume of [0, "yes", [], { attempts: -1 }, { delayMs: 1.5 }, { attempts: "3" }]) {
    assert.throws(() => new ChatSession({ resume }), TypeError, JSON.stringify(resume));
  }
  for (const resume of [undefined, null, true, false, {}, { attempts: 0 }, { attempts: 2, delayMs: 0 }]) {
    new ChatSession({ resume }).dispose();
  }
});

test("useGeneralChat: resume(url) after setMessages shows the answer the proxy kept, and Reconnecting… meanwhile on a cut", async () => {
  const React = (await import("react")).default;
  const { default: TestRenderer, act } = await import("react-test-renderer");
  const { useGeneralChat } = await import("../../pkg/react.js");
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;
  // The resumed answer is itself cut once and the first attempt finds no connection, so the hook's
  // status line shows the reconnect during the wait before the second.
  const failing = () => Promise.reject(new TypeError("Failed to fetch"));
  const { fetch, requests } = proxy(BYTES, { cuts: [CUT], gets: { 2: failing } });
  let chat;
  const statusLines = [];
  function Chat() {
    chat = useGeneralChat({ fetch, resume: { attempts: 2, delayMs: 20 } });
    statusLines.push(chat.statusText);
    return null;
  }
  await act(async () => {
    TestRenderer.create(React.createElement(Chat));
  });
  await act(async () => {
    await chat.setMessages([{ role: "user", content: "crispr" }]);
    await chat.resume("/api/chat/stream/streams/00ff");
  });
  assert.deepEqual(requests.map((r) => [r.method, r.url]), [
    ["GET", "/api/chat/stream/streams/00ff?from=0"],
    ["GET", `/api/chat/stream/streams/00ff?from=${CUT}`],
    ["GET", `/api/chat/stream/streams/00ff?from=${CUT}`],
  ]);
  assert.deepEqual(chat.messages.map((m) => m.content), ["crispr", WHOLE_TEXT]);
  assert.ok(statusLines.includes("Reconnecting…"), JSON.stringify(statusLines));
  assert.equal(chat.statusText, null);
  assert.equal(chat.error, null);
});

test("resume() with no URL is a TypeError and starts nothing", async () => {
  const { fetch, requests } = proxy(BYTES);
  const session = new ChatSession({ fetch });
  session.setMessages([{ role: "user", content: "crispr" }]);
  assert.throws(() => session.resume(undefined), TypeError);
  assert.equal(session.getSnapshot().isLoading, false);
  await collect(session.resume("/api/chat/stream/streams/00ff"));
  assert.equal(lastMessage(session).content, WHOLE_TEXT);
  assert.equal(requests.length, 1);
});

test("a body gone silent for stepTimeoutMs (a connection that died without a word) is resumed too", async () => {
  const requests = [];
  const fetch = async (url, init) => {
    requests.push(url);
    if (init.method === "POST") return new Response(body(BYTES, { stallAt: CUT }), { headers: STREAM_HEADERS });
    const from = Number(new URL(url, "http://x").searchParams.get("from"));
    return new Response(body(BYTES.slice(from)), { headers: STREAM_HEADERS });
  };
  const session = new ChatSession({ fetch, stepTimeoutMs: 100, resume: fast });
  const events = await collect(session.send("crispr"));
  assert.deepEqual(requests, ["/api/chat/stream", `/api/chat/stream/streams/00ff?from=${CUT}`]);
  assert.equal(lastMessage(session).content, WHOLE_TEXT);
  assert.equal(events.filter((e) => e.type === "error").length, 0);
});

test("a stream id that is not a plain name is not followed: no resume, no DELETE elsewhere", async () => {
  for (const id of ["..", "a/b", "x?from=0", "%2e%2e", "a b", "x".repeat(129)]) {
    const requests = [];
    const fetch = async (url, init) => {
      requests.push([init.method, url]);
      return new Response(body(BYTES, { cutAt: CUT }), { headers: { "content-type": "text/event-stream", "x-stream-id": id } });
    };
    const session = new ChatSession({ fetch, resume: fast });
    const events = await collect(session.send("crispr"));
    assert.deepEqual(requests, [["POST", "/api/chat/stream"]], id);
    assert.equal(events.find((e) => e.type === "error").code, "NETWORK_ERROR");
  }
});
