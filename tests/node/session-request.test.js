// A session's request as the app's options make it: a `fetch` option that gives something other
// than a Response (for a ChatSession and the AI SDK backend mode's AiSdkChat), and `headers` /
// `body` functions whose promises never settle, end the turn with an event or an error status
// (never a throw to the host, never a turn left loading); the request takes the options as they
// are when `send` is called.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession } from "../../pkg/index.js";
// The node entry loads the AI SDK backend mode's module from its file.
import { AiSdkChat } from "../../pkg/node.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const ANSWER = `data: ${JSON.stringify({ choices: [{ delta: { content: "Hi" } }] })}\n\ndata: [DONE]\n\n`;

/** The events of one turn (type, code, message) and what the host was handed as a bug. */
async function turn(options, during = () => {}) {
  const reported = [];
  const reportError = globalThis.reportError;
  globalThis.reportError = (error) => reported.push(error);
  try {
    const session = new ChatSession({ dialect: "openai", ...options });
    const events = [];
    const sent = session.send("hi");
    during(session);
    for await (const event of sent) events.push({ type: event.type, code: event.code, message: event.message });
    const { isLoading } = session.getSnapshot();
    session.dispose();
    return { events, isLoading, reported };
  } finally {
    globalThis.reportError = reportError;
  }
}

test("a fetch option that gives no Response ends the turn with a NETWORK_ERROR event that says so", async () => {
  for (const [given, what] of [
    [undefined, "undefined"],
    [null, "null"],
    [{ status: 200 }, "an object that is not one"],
    ["data: x", "a string"],
  ]) {
    const { events, isLoading, reported } = await turn({ fetch: async () => given });
    assert.deepEqual(events.map((e) => [e.type, e.code]), [["error", "NETWORK_ERROR"]], what);
    assert.equal(events[0].message, `Connection failed: the fetch option gave ${what}, not a Response`);
    assert.equal(isLoading, false, what);
    assert.deepEqual(reported, [], what);
  }
});

test("headers or body functions whose promise never settles: a cancel ends the turn, and so does the step's time limit", async () => {
  const never = () => new Promise(() => {});
  let fetched = 0;
  const fetch = async () => (fetched++, new Response(ANSWER));
  for (const option of ["headers", "body"]) {
    const cancelled = await turn({ fetch, [option]: never }, (session) => setTimeout(() => session.cancel(), 20));
    assert.deepEqual(cancelled.events.map((e) => e.type), ["complete", "cancelled"], option);
    assert.equal(cancelled.isLoading, false, option);
    const timed = await turn({ fetch, [option]: never, stepTimeoutMs: 50 });
    assert.deepEqual(timed.events.map((e) => [e.type, e.code]), [["error", "NETWORK_ERROR"]], option);
    assert.equal(timed.events[0].message, "Connection failed: no data for 50 ms", option);
  }
  assert.equal(fetched, 0, "no request is sent once the turn has ended");
});

test("the request takes the options as they are when send is called, not a setOptions made after it", async () => {
  const seen = [];
  const fetch = (name) => async (url, init) => (seen.push([name, init.headers["x-which"], JSON.parse(init.body).which]), new Response(ANSWER));
  const { events } = await turn({ fetch: fetch("first"), headers: { "x-which": "first" }, body: { which: "first" } }, (session) =>
    session.setOptions({ fetch: fetch("second"), headers: { "x-which": "second" }, body: { which: "second" } }),
  );
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete"]);
  assert.deepEqual(seen, [["first", "first", "first"]]);
});

test("AiSdkChat: a fetch option that gives no Response ends the send with the error status that says so", async () => {
  for (const [given, what] of [
    [undefined, "undefined"],
    [{ ok: true }, "an object that is not one"],
  ]) {
    const errors = [];
    const chat = new AiSdkChat({ api: "http://127.0.0.1:9/chat", fetch: async () => given, onError: (error) => errors.push(error) });
    await chat.sendMessage({ text: "hi" });
    assert.equal(chat.status, "error", what);
    assert.equal(chat.error.message, `the fetch option gave ${what}, not a Response`, what);
    assert.deepEqual(errors, [chat.error], what);
    chat.dispose();
  }
});
