// Loading the module as browsers do (the package's default entry, not Node's): nothing works before
// it is loaded and the error says what to do; init() loads once however often it is called, and
// tries again after a failure; the React hook starts the load itself and says when it can send.
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

test("before init, every export throws an error that says to call init()", () => {
  assert.equal(isReady(), false);
  const uses = {
    ChatStream: () => new ChatStream(),
    ChatSession: () => new ChatSession(),
    streamEvents: () => streamEvents(new Response("")),
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

test("the hook paints before the module arrives; concurrent loads share one fetch; a message sent meanwhile waits and goes", async () => {
  failing = false;
  let open;
  gate = new Promise((resolve) => (open = resolve));
  const before = wasmFetches.length;

  const { chat, renders } = await renderHook();
  assert.deepEqual(renders[0], { ready: false, phase: "loading", session: false });
  let sent;
  await act(async () => {
    sent = chat().sendMessage("hi");
  });
  const loads = [init(), init(), init()];
  assert.equal(wasmFetches.length - before, 1, "one download for the hook, the send and three init() calls");
  assert.equal(chat().ready, false);

  await act(async () => {
    open();
    await Promise.all(loads);
    await sent;
  });
  assert.equal(isReady(), true);
  assert.equal(chat().ready, true);
  assert.equal(chat().error, null);
  assert.deepEqual(chat().messages.map((m) => m.content), ["hi", "Hello"]);
  await init(); // loaded: resolves at once, without fetching again
  assert.equal(wasmFetches.length - before, 1);
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
