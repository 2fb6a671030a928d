// dispose() called from inside the session's own callbacks (a subscriber, onFinish, onError,
// onToolCall, onData), at each point of a turn: the turn ends quietly. Nothing is sent after it,
// nothing throws or is reported to the host, no promise is left rejected, the turn's events end,
// and no error the app did not cause (a CONFLICT from cancelling a finished answer) appears.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();
const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`);

function body(chunks) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else controller.close();
    },
  });
}

const agentAnswer = sse([
  { type: "text_delta", text: "Hello " },
  { type: "text_delta", text: "there." },
  { type: "complete", payload: { message: "Hello there." } },
]);

const openaiToolCall = sse([
  { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":1}' } }] } }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
]).concat(["data: [DONE]\n\n"]);

const uiDataAnswer = sse([
  { type: "start" },
  { type: "data-weather", data: { city: "Paris" } },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Sunny." },
  { type: "text-end", id: "t" },
  { type: "finish" },
]);

/** Everything the host would hear of: reported errors, uncaught exceptions, unhandled rejections. */
function listenToHost() {
  const heard = [];
  const original = globalThis.reportError;
  const onError = (error) => heard.push(`${error?.name}: ${error?.message}`);
  globalThis.reportError = onError;
  process.on("uncaughtException", onError);
  process.on("unhandledRejection", onError);
  return {
    heard,
    stop() {
      globalThis.reportError = original;
      process.off("uncaughtException", onError);
      process.off("unhandledRejection", onError);
    },
  };
}

/** Lets timers, microtasks and a body's remaining reads run. */
const settleDown = () => new Promise((resolve) => setTimeout(resolve, 50));

/**
 * Runs one turn whose response is `chunks` (or `status` with no body), with `dispose()` called
 * from the callback `where` when `when(value)` says so; returns what happened.
 */
async function disposeFrom(where, { chunks = agentAnswer, status = 200, headers = {}, when = () => true } = {}) {
  const host = listenToHost();
  const requests = [];
  const fetch = async (url, init) => {
    requests.push(url);
    return status === 200 ? new Response(body(chunks), { headers }) : new Response("upstream broke", { status });
  };
  let session;
  let disposals = 0;
  const dispose = (value) => {
    if (disposals === 0 && when(value)) {
      disposals++;
      session.dispose();
    }
  };
  const callbacks = where === "subscriber" ? {} : { [where]: dispose };
  session = new ChatSession({ fetch, ...callbacks });
  if (where === "subscriber") session.subscribe(() => dispose(session.getSnapshot()));
  const events = [];
  let threw = null;
  try {
    for await (const event of session.send("hi")) events.push(event);
  } catch (error) {
    threw = error;
  }
  await settleDown();
  host.stop();
  return { requests, events, threw, heard: host.heard, disposals, snapshot: session.getSnapshot() };
}

/** Why the outcome is not a quiet end, or `null`. */
function noise(outcome) {
  if (outcome.disposals !== 1) return "dispose() was never called";
  if (outcome.threw !== null) return `iterating the events threw ${outcome.threw}`;
  if (outcome.heard.length > 0) return `the host heard ${outcome.heard.join("; ")}`;
  const conflict = outcome.events.find((e) => e.type === "error" && e.code === "CONFLICT");
  if (conflict) return `a CONFLICT the app did not cause: ${conflict.message}`;
  return null;
}

test("dispose() in a subscriber on send()'s first notification: no request goes out, nothing throws", async () => {
  const outcome = await disposeFrom("subscriber");
  assert.equal(noise(outcome), null);
  assert.deepEqual(outcome.requests, [], "the request was not sent");
});

test("dispose() from any callback, at any point of a turn, ends the turn quietly", async () => {
  const uiHeaders = { "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1" };
  const cases = [
    ["a subscriber, once the answer streams", "subscriber", { when: (state) => state.streamingText !== "" }],
    ["a subscriber, when the answer is stored", "subscriber", { when: (state) => state.messages.length === 2 }],
    ["a subscriber, when the turn is over", "subscriber", { when: (state) => !state.isLoading }],
    ["onFinish", "onFinish", {}],
    ["onError, on an HTTP error", "onError", { status: 500 }],
    ["onToolCall", "onToolCall", { chunks: openaiToolCall }],
    ["onData", "onData", { chunks: uiDataAnswer, headers: uiHeaders }],
  ];
  const failures = [];
  for (const [name, where, options] of cases) {
    const why = noise(await disposeFrom(where, options));
    if (why !== null) failures.push(`${name}: ${why}`);
  }
  assert.deepEqual(failures, []);
});
