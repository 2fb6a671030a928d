// ChatSession and streamEvents in Node 20 over real fetch Response objects (built package).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { getEventListeners } from "node:events";

import { initSync, ChatSession, streamEvents } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();

/** A body that sends `chunks` (strings), then ends; or stays open with `hang`; or fails with `fail`. */
function body(chunks, { hang = false, fail = null } = {}) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) {
        controller.enqueue(encoder.encode(chunks[i++]));
      } else if (fail) {
        controller.error(new TypeError(fail));
      } else if (!hang) {
        controller.close();
      } else {
        return new Promise(() => {}); // never resolves: a stalled connection
      }
    },
  });
}

const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`);

const agentTurn = sse([
  { type: "status", message: "Thinking..." },
  { type: "text_delta", text: "Let me " },
  { type: "text_delta", text: "look." },
  { type: "tool_start", tool: "search", input: { q: "x" }, tool_use_id: "t1" },
  { type: "tool_complete", tool: "search", index: 0, tool_use_id: "t1", output: "3 hits" },
  { type: "text_delta", text: "[[tool:0]]" },
  { type: "text_delta", text: "Found 3." },
  { type: "complete", payload: { message: "Let me look.[[tool:0]]Found 3.", conversation_id: 42 } },
]);

function fetchReturning(makeResponse, requests = []) {
  return async (url, init) => {
    requests.push({ url, init, body: JSON.parse(init.body) });
    return makeResponse(init);
  };
}

async function collect(iterable) {
  const events = [];
  for await (const event of iterable) events.push(event);
  return events;
}

test("streamEvents reads a Response body in chunks", async () => {
  const chunks = ['data: {"type":"text_de', 'lta","text":"Hi"}\n\ndata: {"type":"complete","payload":{"message":"Hi"}}\n\n'];
  const events = await collect(streamEvents(new Response(body(chunks))));
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete"]);
  assert.equal(events[0].text, "Hi");
});

test("streamEvents: each tool_input_delta's partial_input is the arguments so far", async () => {
  const chunks = [
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_time","arguments":""}}]}}]}\n\n',
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"zone\\": \\"Europe/"}}]}}]}\n\n',
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"Paris\\"}"}}]}}]}\n\n',
    'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n',
  ];
  const events = await collect(streamEvents(new Response(body(chunks))));
  const partials = events.filter((e) => e.type === "tool_input_delta").map((e) => e.partial_input);
  assert.deepEqual(partials, [{ zone: "Europe/" }, { zone: "Europe/Paris" }]);
  const call = events.find((e) => e.type === "tool_call");
  assert.deepEqual(call.input, { zone: "Europe/Paris" });
});

test("streamEvents: break cancels the body", async () => {
  let cancelled = false;
  const stream = new ReadableStream({
    start(c) { c.enqueue(encoder.encode(sse([{ type: "text_delta", text: "a" }])[0])); },
    cancel() { cancelled = true; },
  });
  for await (const event of streamEvents(stream)) {
    assert.equal(event.type, "text_delta");
    break;
  }
  await new Promise((r) => setTimeout(r, 10));
  assert.ok(cancelled, "the reader was cancelled");
});

test("streamEvents: an AbortSignal gives complete with the partial text, then cancelled", async () => {
  const controller = new AbortController();
  const events = [];
  for await (const event of streamEvents(new Response(body(sse([{ type: "text_delta", text: "partial" }]), { hang: true })), { signal: controller.signal })) {
    events.push(event);
    if (event.type === "text_delta") controller.abort();
  }
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete", "cancelled"]);
  assert.equal(events[1].payload.text, "partial");
});

test("streamEvents: a network failure mid-stream gives complete with the partial text and NETWORK_ERROR", async () => {
  const events = await collect(streamEvents(new Response(body(sse([{ type: "text_delta", text: "half" }]), { fail: "socket hang up" }))));
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete", "error"]);
  assert.equal(events[1].payload.text, "half");
  assert.equal(events[2].code, "NETWORK_ERROR");
});

test("streamEvents: HTTP statuses map to the contract's codes", async () => {
  for (const [status, code, message] of [
    [401, "UNAUTHORIZED", "Invalid API key"],
    [429, "RATE_LIMITED", "Rate limited, try again"],
    [404, "NOT_FOUND", "Conversation not found"],
    [503, "SERVICE_UNAVAILABLE", "overloaded"],
  ]) {
    const response = new Response(JSON.stringify({ error: { message: status === 404 ? "Conversation not found" : "overloaded" } }), { status });
    const events = await collect(streamEvents(response));
    assert.deepEqual(events, [{ type: "error", code, message }], `HTTP ${status}`);
  }
});

test("streamEvents: a silent stream ends with NETWORK_ERROR after idleTimeoutMs", async () => {
  const events = await collect(streamEvents(new Response(body([], { hang: true })), { idleTimeoutMs: 30, dialect: "agent" }));
  assert.deepEqual(events.map((e) => e.type), ["complete", "error"]);
  assert.equal(events[1].code, "NETWORK_ERROR");
});

test("ChatSession: a turn drives the state through a chat's transitions", async () => {
  const requests = [];
  const session = new ChatSession({ endpoint: "/api/chat/stream", fetch: fetchReturning(() => new Response(body(agentTurn)), requests) });
  const seen = [];
  session.subscribe(() => seen.push(session.getSnapshot()));
  const first = session.getSnapshot();
  assert.equal(first, session.getSnapshot(), "stable identity between changes");
  const events = await collect(session.send("Search x", { current_page: "reports" }));
  assert.equal(events.at(-1).type, "complete");
  const state = session.getSnapshot();
  assert.equal(state.isLoading, false);
  assert.equal(state.streamingText, "");
  assert.equal(state.messages.length, 2);
  assert.equal(state.messages[1].content, "Let me look.[[tool:0]]Found 3.");
  assert.equal(state.conversationId, 42);
  assert.ok(seen.some((s) => s.statusText === "Running search..."), "tool_start set the status");
  assert.ok(seen.some((s) => s.streamingText === "Let me look."), "text streamed into the state");
  assert.ok(Object.isFrozen(state));
  assert.deepEqual(requests[0].body, {
    message: "Search x",
    context: { current_page: "reports" },
    interaction_type: "text_input",
    conversation_id: null,
    conversation_history: [],
  });
  assert.equal(requests[0].init.method, "POST");
  // The next request carries the conversation.
  await collect(session.send("again"));
  assert.equal(requests[1].body.conversation_id, 42);
  assert.equal(requests[1].body.conversation_history.length, 2);
});

test("ChatSession: the state moves even when nobody iterates the events", async () => {
  const session = new ChatSession({ fetch: fetchReturning(() => new Response(body(agentTurn))) });
  const done = new Promise((resolve) => session.subscribe(() => { if (!session.getSnapshot().isLoading) resolve(); }));
  session.send("hi");
  await done;
  assert.equal(session.getSnapshot().messages.length, 2);
});

test("an empty message gives VALIDATION_ERROR and sends nothing", async () => {
  const requests = [];
  const session = new ChatSession({ fetch: fetchReturning(() => new Response(body(agentTurn)), requests) });
  const events = await collect(session.send("   "));
  assert.deepEqual(events.map((e) => [e.type, e.code]), [["error", "VALIDATION_ERROR"]]);
  assert.equal(requests.length, 0);
  assert.equal(session.getSnapshot().error.code, "VALIDATION_ERROR");
  assert.equal(session.getSnapshot().messages.length, 0);
});

for (const [id, status, code, message] of [
  ["not found", 404, "NOT_FOUND", "Conversation not found"],
  ["unauthorized", 401, "UNAUTHORIZED", "Invalid API key"],
]) {
  test(`${id}: HTTP ${status} gives ${code}, keeps the user's message and changes nothing else`, async () => {
    const session = new ChatSession({ fetch: fetchReturning(() => new Response(JSON.stringify({ detail: message }), { status })) });
    await collect(session.send("hello"));
    const state = session.getSnapshot();
    assert.deepEqual(state.error, { code, message });
    assert.deepEqual(state.messages.map((m) => m.content), ["hello"]);
    assert.equal(state.isLoading, false);
  });
}

test("a network failure gives NETWORK_ERROR and the session can send again", async () => {
  let calls = 0;
  const session = new ChatSession({
    fetch: async () => {
      calls++;
      if (calls === 1) throw new TypeError("fetch failed");
      return new Response(body(agentTurn));
    },
  });
  const events = await collect(session.send("hello"));
  assert.equal(events.at(-1).code, "NETWORK_ERROR");
  assert.equal(session.getSnapshot().isLoading, false);
  await collect(session.send("hello again"));
  assert.equal(session.getSnapshot().error, null, "a new send clears the error");
  assert.equal(session.getSnapshot().messages.length, 3);
});

test("cancel with nothing in flight gives CONFLICT and changes nothing", () => {
  const session = new ChatSession({ fetch: fetchReturning(() => new Response(body(agentTurn))) });
  const before = session.getSnapshot();
  const result = session.cancel();
  assert.equal(result.code, "CONFLICT");
  assert.equal(session.getSnapshot(), before);
});

test("cancel keeps the partial answer: complete, then cancelled", async () => {
  const session = new ChatSession({ fetch: fetchReturning(() => new Response(body(sse([{ type: "text_delta", text: "Once upon" }]), { hang: true }))) });
  const events = [];
  for await (const event of session.send("story")) {
    events.push(event);
    if (event.type === "text_delta") session.cancel();
  }
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete", "cancelled"]);
  const state = session.getSnapshot();
  assert.equal(state.messages[1].content, "Once upon");
  assert.equal(state.messages[1].cancelled, true);
  assert.equal(state.isLoading, false);
});

test("cancel of an answer the proxy keeps for resuming asks the proxy to stop it (DELETE), with the app's headers", async () => {
  const requests = [];
  const fetch = async (url, init) => {
    requests.push({ url, method: init.method, headers: init.headers });
    if (init.method === "DELETE") return new Response(null, { status: 204 });
    const headers = { "content-type": "text/event-stream", "x-stream-id": "9f0a" };
    return new Response(body(sse([{ type: "text_delta", text: "Once" }]), { hang: true }), { headers });
  };
  const session = new ChatSession({ endpoint: "/api/agent/?v=2", headers: { "x-app": "1" }, fetch });
  for await (const event of session.send("story")) {
    if (event.type === "text_delta") session.cancel();
  }
  for (let wait = 0; requests.length < 2 && wait < 200; wait++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(
    requests.map(({ url, method }) => [method, url]),
    [["POST", "/api/agent/?v=2"], ["DELETE", "/api/agent/streams/9f0a"]],
  );
  assert.equal(requests[1].headers["x-app"], "1");
});

test("cancel of an answer nobody keeps sends nothing more", async () => {
  const requests = [];
  const fetch = fetchReturning(() => new Response(body(sse([{ type: "text_delta", text: "Once" }]), { hang: true })), requests);
  const session = new ChatSession({ fetch });
  for await (const event of session.send("story")) {
    if (event.type === "text_delta") session.cancel();
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(requests.length, 1);
});

test("stepTimeoutMs: a silent backend ends the turn with NETWORK_ERROR", async () => {
  const session = new ChatSession({ stepTimeoutMs: 30, fetch: fetchReturning(() => new Response(body([], { hang: true }))) });
  const events = await collect(session.send("hello"));
  assert.equal(events.at(-1).code, "NETWORK_ERROR");
  assert.equal(session.getSnapshot().isLoading, false);
});

test("stepTimeoutMs: a backend that stalls mid-answer keeps the text so far, then NETWORK_ERROR", async () => {
  const chunks = sse([{ type: "text_delta", text: "Half an" }, { type: "text_delta", text: " answer" }]);
  const session = new ChatSession({ stepTimeoutMs: 30, fetch: fetchReturning(() => new Response(body(chunks, { hang: true }))) });
  const events = await collect(session.send("hello"));
  assert.deepEqual(events.map((e) => e.type).slice(-2), ["complete", "error"]);
  assert.equal(events.at(-2).payload.text, "Half an answer");
  assert.equal(events.at(-1).code, "NETWORK_ERROR");
  assert.match(events.at(-1).message, /no data for 30 ms/);
});

test("stepTimeoutMs counts silence, not the whole answer: chunks that keep coming never time out", async () => {
  // Thirteen chunks 25 ms apart: over 300 ms in all, three times the 100 ms limit, never 100 ms quiet.
  const words = [...Array(12)].map((_, i) => `w${i} `);
  const chunks = sse([...words.map((text) => ({ type: "text_delta", text })), { type: "complete", payload: { message: words.join("") } }]);
  let i = 0;
  const slow = new ReadableStream({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else controller.close();
    },
  });
  const session = new ChatSession({ stepTimeoutMs: 100, fetch: fetchReturning(() => new Response(slow)) });
  const events = await collect(session.send("hello"));
  assert.ok(!events.some((e) => e.type === "error"), JSON.stringify(events.filter((e) => e.type === "error")));
  assert.equal(events.at(-1).type, "complete");
  assert.equal(events.at(-1).payload.text, words.join("").trim());
});

test("streamEvents takes its listener off the caller's AbortSignal when the stream ends", async () => {
  const controller = new AbortController();
  const events = await collect(streamEvents(new Response(body(agentTurn)), { signal: controller.signal }));
  assert.equal(events.at(-1).type, "complete");
  assert.equal(getEventListeners(controller.signal, "abort").length, 0);
});

test("messages save and load as JSON", async () => {
  const session = new ChatSession({ fetch: fetchReturning(() => new Response(body(agentTurn))) });
  await collect(session.send("hi"));
  const saved = session.saveMessages();
  const restored = new ChatSession({ fetch: fetchReturning(() => new Response(body(agentTurn))) });
  restored.loadMessages(saved);
  assert.deepEqual(restored.getSnapshot().messages, session.getSnapshot().messages);
  assert.throws(() => restored.loadMessages("{oops"), /Invalid saved messages/);
});

test("saved messages given to setMessages read back as loadMessages reads them", async () => {
  const plainTurn = sse([
    { type: "text_delta", text: "Hello " },
    { type: "text_delta", text: "there." },
    { type: "complete", payload: { message: "Hello there." } },
  ]);
  const session = new ChatSession({ fetch: fetchReturning(() => new Response(body(plainTurn))) });
  await collect(session.send("hi"));
  const saved = session.saveMessages();
  assert.equal(JSON.parse(saved)[1].segments, undefined, "the plain answer's segments are left out");
  const given = new ChatSession({});
  given.setMessages(JSON.parse(saved));
  assert.deepEqual(given.getSnapshot().messages[1].segments, [{ type: "text", text: "Hello there." }]);
  assert.deepEqual(given.getSnapshot().messages, session.getSnapshot().messages);

  // Saved by the version before: an answer with tools, its parts empty and no segments.
  const older = JSON.stringify([
    { id: "u1", role: "user", content: "Find CRISPR", parts: [] },
    { id: "a1", role: "assistant", content: "Searching.[[tool:0]]Found 5.", parts: [],
      tool_history: [{ tool_name: "search", tool_use_id: "t1", input: { q: "CRISPR" }, output: "5 hits" }] },
  ]);
  const loaded = new ChatSession({});
  loaded.loadMessages(older);
  given.setMessages(JSON.parse(older));
  assert.deepEqual(given.getSnapshot().messages, loaded.getSnapshot().messages);
  assert.deepEqual(loaded.getSnapshot().messages[1].segments.map((s) => s.type), ["text", "tool", "text"]);
  assert.equal(loaded.getSnapshot().messages[1].segments[1].output, "5 hits");
  session.dispose();
});

test("a stored message without content is read from its text parts, and the backend gets its text", async () => {
  const requests = [];
  const session = new ChatSession({ fetch: fetchReturning(() => new Response(body(agentTurn)), requests) });
  // The AI SDK's UI messages: the text in parts, one per step.
  session.setMessages([
    { id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Paris?" }] },
    { id: "a1", role: "assistant", parts: [{ type: "text", text: "Let me check.", state: "done" }, { type: "text", text: "Sunny, 24°C." }] },
  ]);
  await collect(session.send("And tomorrow?"));
  assert.deepEqual(requests[0].body.conversation_history, [
    { role: "user", content: "Weather in Paris?" },
    { role: "assistant", content: "Let me check.\n\nSunny, 24°C." },
  ]);
  session.dispose();
});

test("a stored message with neither content nor parts, or another role, is a TypeError naming it; nothing is replaced", () => {
  const session = new ChatSession({});
  session.setMessages([{ role: "user", content: "kept" }]);
  const before = session.getSnapshot();
  const refusals = [
    [[{ role: "user", content: "hi" }, { id: "a7", role: "assistant" }], /messages\[1\]: the message \(id "a7"\) has no `content` and no `parts`/],
    [[{ role: "assistant", content: null }], /messages\[0\]: the message has no `content` and no `parts`/],
    [[{ id: "s", role: "system", content: "Be brief." }], /messages\[0\]: role "system" \(id "s"\) is not supported, expected "user" or "assistant"/],
    [[{ role: "tool", content: "42" }], /messages\[0\]: role "tool" is not supported/],
  ];
  for (const [messages, says] of refusals) {
    assert.throws(() => session.setMessages(messages), (error) => error instanceof TypeError && says.test(error.message));
    assert.throws(() => session.loadMessages(JSON.stringify(messages)), (error) => error instanceof TypeError && error.code === "VALIDATION_ERROR" && says.test(error.message));
  }
  assert.equal(session.getSnapshot(), before, "the conversation is as it was");
  session.dispose();
});

test("in Node, a relative endpoint is an error saying to give an absolute URL, not a CORS refusal", async () => {
  const session = new ChatSession({});
  const events = await collect(session.send("hi"));
  const error = events.at(-1);
  assert.equal(error.code, "NETWORK_ERROR");
  assert.match(error.message, /the endpoint "\/api\/chat\/stream" is a relative URL/);
  assert.match(error.message, /give the endpoint option an absolute URL/);
  assert.doesNotMatch(error.message, /CORS/);
  assert.deepEqual(session.getSnapshot().messages.map((m) => m.content), ["hi"], "the message is kept");
  session.dispose();
});

test("in Node, resume(url) with a relative URL is an error saying to give an absolute URL, not a CORS refusal", async () => {
  const session = new ChatSession({ endpoint: "http://127.0.0.1:9/api/chat/stream" });
  session.setMessages([{ role: "user", content: "hi" }]);
  const events = await collect(session.resume("/api/chat/stream/streams/abc123"));
  const error = events.at(-1);
  assert.equal(error.code, "NETWORK_ERROR");
  assert.match(error.message, /the answer's URL "\/api\/chat\/stream\/streams\/abc123" is a relative URL/);
  assert.match(error.message, /give resume\(url\) an absolute URL/);
  assert.doesNotMatch(error.message, /CORS/);
  assert.deepEqual(session.getSnapshot().messages.map((m) => m.content), ["hi"], "the message is kept");
  session.dispose();
});

test("a subscriber that throws does not stop the stream", async () => {
  const session = new ChatSession({ fetch: fetchReturning(() => new Response(body(agentTurn))) });
  const reported = [];
  const original = globalThis.reportError;
  globalThis.reportError = (e) => reported.push(e);
  try {
    session.subscribe(() => { throw new Error("boom"); });
    const events = await collect(session.send("hi"));
    assert.equal(events.at(-1).type, "complete");
    assert.ok(reported.length > 0 && reported[0].message === "boom", "the exception reached the host untouched");
  } finally {
    globalThis.reportError = original;
  }
});
