// Loading the module as browsers do (the package's default entry, not Node's): the synchronous
// exports need it loaded and their error says what to do; init() loads once however often it is
// called, and tries again after a failure; ChatSession, streamEvents and the React hook load it
// themselves and send their first request without waiting for it, its answer read once it is.
// The tests run in order: the module can be loaded only once per process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import React from "react";
import TestRenderer, { act } from "react-test-renderer";

import init, { ChatSession, ChatStream, isReady, parseLlmResponse, resolveToolMarkers, streamEvents } from "../../pkg/index.js";
import { useGeneralChat } from "../../pkg/react.js";

globalThis.IS_REACT_ACT_ENVIRONMENT = true;

// The default init() fetches chatstream_bg.wasm beside the module, as a browser would; here the
// fetch reads the file once `gate` opens, or fails as a browser's does when `failing` is set.
const wasmFetches = [];
let gate = Promise.resolve();
let failing = false;
globalThis.fetch = async (url) => {
  wasmFetches.push(String(url));
  await gate;
  if (failing) throw new TypeError("Failed to fetch");
  return new Response(readFileSync(url), { headers: { "content-type": "application/wasm" } });
};

const answer = 'data: {"type":"text_delta","text":"Hello"}\n\ndata: {"type":"complete","payload":{"message":"Hello"}}\n\n';
const chatOptions = { fetch: async () => new Response(answer) };

async function collect(events) {
  const out = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Renders useGeneralChat; `chat()` is its latest result, `renders` what each render saw. */
async function renderHook() {
  const renders = [];
  let latest;
  function Chat() {
    latest = useGeneralChat(chatOptions);
    renders.push({ ready: latest.ready, phase: latest.phase, session: latest.session !== null });
    return null;
  }
  await act(async () => {
    TestRenderer.create(React.createElement(Chat));
  });
  return { chat: () => latest, renders };
}

test("before init, the synchronous exports throw an error that says to call init()", () => {
  assert.equal(isReady(), false);
  const uses = {
    ChatStream: () => new ChatStream(),
    resolveToolMarkers: () => resolveToolMarkers("[[tool:0]]", []),
    parseLlmResponse: () => parseLlmResponse("hi"),
  };
  for (const [name, use] of Object.entries(uses)) {
    assert.throws(use, /^Error: chatstream: call `await init\(\)` first/, name);
  }
});

test("a failed load: init() rejects, the hook reports the error and stays loading", async () => {
  failing = true;
  await assert.rejects(init(), /Failed to fetch/);
  assert.equal(isReady(), false);
  const { chat } = await renderHook();
  assert.equal(chat().ready, false);
  assert.equal(chat().phase, "loading");
  assert.equal(chat().error, "Failed to fetch");
  assert.equal(chat().errorCode, null);
});

test("a failed load: a session's message and streamEvents end with NETWORK_ERROR, and their requests are let go", async () => {
  failing = true;
  const requests = [];
  const aborted = [];
  const session = new ChatSession({
    fetch: async (url, init) => {
      requests.push(url);
      init.signal.addEventListener("abort", () => aborted.push(url));
      return new Response(answer);
    },
  });
  assert.equal(session.getSnapshot().phase, "idle");
  assert.throws(() => session.saveMessages(), /^Error: chatstream: call `await init\(\)` first/);
  const events = await collect(session.send("hi"));
  assert.deepEqual(requests, ["/api/chat/stream"], "the request went out before the module failed");
  assert.deepEqual(aborted, ["/api/chat/stream"]);
  assert.equal(events.length, 1);
  assert.equal(events[0].type, "error");
  assert.equal(events[0].code, "NETWORK_ERROR");
  assert.match(events[0].message, /the WebAssembly module did not load: Failed to fetch/);
  assert.equal(session.getSnapshot().error.code, "NETWORK_ERROR");
  session.clearError();
  assert.equal(session.getSnapshot().error, null);
  let cancelled = false;
  const body = new ReadableStream({ cancel: () => void (cancelled = true) });
  const streamed = await collect(streamEvents(new Response(body)));
  assert.deepEqual(streamed.map((e) => e.code), ["NETWORK_ERROR"]);
  assert.equal(cancelled, true, "the unread body is cancelled");
  session.dispose();
  assert.equal(isReady(), false);
});

test("while the module downloads, the hook, a ChatSession and streamEvents send at once; one download; the answers are read once it is in", async () => {
  failing = false;
  let open;
  gate = new Promise((resolve) => (open = resolve));
  const before = wasmFetches.length;
  const requests = [];
  const recording = (name) => async (url, init) => {
    requests.push({ name, body: JSON.parse(init.body) });
    return new Response(answer);
  };

  const { chat, renders } = await renderHook();
  assert.deepEqual(renders[0], { ready: false, phase: "loading", session: false });
  let sent;
  await act(async () => {
    sent = chat().sendMessage("hi");
  });
  const session = new ChatSession({ fetch: recording("session"), body: { interaction_type: "voice_input" } });
  const turn = collect(session.send("hello there", { page: "/" }));
  const second = collect(session.send("again")); // one turn at a time, as once loaded
  assert.throws(() => session.setMessages([]), /^Error: chatstream: call `await init\(\)` first/);
  let streamed = false;
  const stream = collect(streamEvents((async () => ((streamed = true), new Response(answer)))()));
  await new Promise((resolve) => setTimeout(resolve, 10));
  const loads = [init(), init(), init()];
  assert.equal(wasmFetches.length - before, 1, "one download for the hook, the sends, streamEvents and three init() calls");
  assert.equal(chat().ready, false);
  assert.equal(isReady(), false);
  assert.deepEqual(requests, [
    {
      name: "session",
      body: { message: "hello there", context: { page: "/" }, interaction_type: "voice_input", conversation_id: null, conversation_history: [] },
    },
  ], "the session's first message went out before the module arrived; the second waits for it");
  assert.equal(streamed, true);

  await act(async () => {
    open();
    await Promise.all(loads);
    await sent;
  });
  assert.equal(isReady(), true);
  assert.equal(chat().ready, true);
  assert.equal(chat().error, null);
  assert.deepEqual(chat().messages.map((m) => m.content), ["hi", "Hello"]);
  assert.deepEqual((await turn).map((e) => e.type), ["text_delta", "complete"]);
  assert.deepEqual((await second).map((e) => e.code), ["CONFLICT"]);
  assert.deepEqual(session.getSnapshot().messages.map((m) => m.content), ["hello there", "Hello"]);
  assert.deepEqual((await stream).map((e) => e.type), ["text_delta", "complete"]);
  assert.equal(requests.length, 1);
  session.dispose();
  await init(); // loaded: resolves at once, without fetching again
  assert.equal(wasmFetches.length - before, 1);
});

test("a message cancelled while the module downloads ends as a cancel does once it is loaded", async () => {
  // The module is loaded in this process by now: this session is made as one made before would be
  // once the load resolves, through a load that has not resolved yet.
  // The package's API over the module, loaded when `load` resolves (its end of a turn is read from
  // the module's memory: the API's `memory`).
  const { makeApi } = await import("../../pkg/api.js");
  const wasm = await import("../../pkg/chatstream.js");
  let loaded;
  const load = new Promise((resolve) => (loaded = resolve));
  const Session = makeApi({ ...wasm, default: () => load }).ChatSession;
  let signal;
  const session = new Session({ fetch: (_url, init) => ((signal = init.signal), new Promise(() => {})) });
  const events = collect(session.send("hi"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(signal.aborted, false, "the request went out before the module arrived");
  session.cancel();
  assert.equal(signal.aborted, true, "the request sent early is aborted at once");
  loaded();
  assert.deepEqual((await events).map((e) => e.type), ["complete", "cancelled"]);
  assert.equal(session.getSnapshot().phase, "idle");
  assert.deepEqual(session.getSnapshot().messages.map((m) => m.role), ["user"]);
  session.dispose();
});

test("once loaded, a new hook's loading render is replaced at once (in a layout effect, before any paint)", async () => {
  const { renders } = await renderHook();
  assert.deepEqual(renders, [
    { ready: false, phase: "loading", session: false },
    { ready: true, phase: "idle", session: true },
  ]);
});

for (const [name, load] of [
  ["initSync(bytes)", "initSync(bytes)"],
  ["initSync({ module })", "initSync({ module: bytes })"],
  ["await init(bytes)", "await init(bytes)"],
  ["await init({ module_or_path })", "await init({ module_or_path: bytes })"],
]) {
  test(`${name} loads the module without a warning`, () => {
    const pkg = new URL("../../pkg/", import.meta.url);
    const source = `
      import { readFileSync } from "node:fs";
      import init, { initSync, parseLlmResponse } from "${new URL("index.js", pkg)}";
      const bytes = readFileSync(new URL("chatstream_bg.wasm", "${pkg}"));
      const warnings = [];
      console.warn = (...args) => warnings.push(args.join(" "));
      ${load};
      console.log(JSON.stringify({ warnings, text: parseLlmResponse("<think>hm</think>Hi").text }));`;
    // A fresh process: a fresh module, loaded for the first time by this call.
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", source], { encoding: "utf8" });
    assert.deepEqual(JSON.parse(out), { warnings: [], text: "Hi" });
  });
}

test("options the module refuses, given before it has loaded: each message ends with VALIDATION_ERROR, and no request goes out once they are known to be refused", async () => {
  const { makeChatSession } = await import("../../pkg/session.js");
  const wasm = await import("../../pkg/chatstream.js");
  const refused = { thinkingTags: 5 };
  assert.throws(() => new wasm.ChatSession(refused), TypeError, "the module refuses these options");
  let loaded;
  const load = new Promise((resolve) => (loaded = resolve));
  const Session = makeChatSession(wasm, { isReady: () => false, load: () => load });
  const requests = [];
  const session = new Session({ ...refused, fetch: async (url) => (requests.push(url), new Response(answer)) });
  const first = collect(session.send("hi"));
  loaded();
  const events = await first;
  assert.deepEqual(events.map((e) => e.code), ["VALIDATION_ERROR"]);
  assert.match(events[0].message, /thinkingTags must be an array/);
  assert.equal(session.getSnapshot().error.code, "VALIDATION_ERROR");
  const sent = requests.length;
  assert.deepEqual((await collect(session.send("again"))).map((e) => e.code), ["VALIDATION_ERROR"]);
  assert.equal(requests.length, sent, "no request for a session whose options were refused");
  session.dispose();
});
