// An app's own code that runs while the module is in a call (`generateId`, a tool input's
// `toJSON`) and calls the same session again: the call is refused with an Error, or runs after the
// first has let go of the session. It never traps the module (a trap ends every chat on the page),
// and the turn goes on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession, ChatStream } from "../../pkg/index.js";
import { frame, toolStart, inputDelta } from "./anthropic-frames.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();
const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
const respond = (text) => new Response(encoder.encode(text), { headers: { "content-type": "text/event-stream" } });

/** A normal stream read by a new object: `null` when the module still works. */
function stillWorks() {
  const stream = new ChatStream();
  const events = [...stream.push('data: {"type":"text_delta","text":"still working"}\n\n'), ...stream.finish()];
  const text = events.find((e) => e.type === "complete")?.payload.text;
  return text === "still working" ? null : `a new stream gave ${JSON.stringify(events)}`;
}

/** What calling `call` did: "ran", or the error's kind and message. */
function attempt(call) {
  try {
    call();
    return "ran";
  } catch (error) {
    return error instanceof WebAssembly.RuntimeError ? `trapped: ${error.message}` : `refused: ${error.message}`;
  }
}

test("a session called again from its own generateId refuses the call, traps nothing, and answers", async () => {
  let session;
  const inner = {};
  let first = true;
  const generateId = () => {
    if (first) {
      first = false;
      inner.setMessages = attempt(() => session.setMessages([]));
      inner.loadMessages = attempt(() => session.loadMessages("[]"));
      inner.saveMessages = attempt(() => session.saveMessages());
      inner.clearError = attempt(() => session.clearError());
      inner.cancel = attempt(() => session.cancel());
      inner.send = attempt(() => session.send("again"));
    }
    return crypto.randomUUID();
  };
  const answer = sse([
    { type: "text_delta", text: "Hello." },
    { type: "complete", payload: { message: "Hello." } },
  ]);
  session = new ChatSession({ generateId, fetch: async () => respond(answer) });
  for await (const _ of session.send("Hi"));

  for (const [name, outcome] of Object.entries(inner)) {
    assert.match(outcome, /^refused: .*called from inside one of its own calls/, name);
  }
  const { messages, error } = session.getSnapshot();
  assert.equal(error, null);
  assert.deepEqual(messages.map((m) => [m.role, m.content]), [["user", "Hi"], ["assistant", "Hello."]]);
  assert.doesNotThrow(() => session.setMessages([]), "the session is usable once the call returned");
  assert.equal(stillWorks(), null);
});

test("provider mode: a tool input whose toJSON calls the session, during progress and the result, traps nothing", async () => {
  const openai = (deltas, finish) =>
    sse([...deltas.map((delta) => ({ choices: [{ index: 0, delta }] })), { choices: [{ index: 0, delta: {}, finish_reason: finish }] }]) +
    "data: [DONE]\n\n";
  const responses = [
    openai([{ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":1}' } }] }], "tool_calls"),
    openai([{ content: "Found it." }], "stop"),
  ];
  let session;
  const inner = [];
  const lookup = {
    name: "lookup",
    description: "Looks something up",
    input_schema: { type: "object", properties: { q: { type: "number" } } },
    execute: async (input, { progress }) => {
      // The module reads the call (and this input) back on every tool step.
      input.toJSON = () => {
        inner.push(attempt(() => session.saveMessages()));
        return { q: 1 };
      };
      progress("half way");
      return "the answer";
    },
  };
  session = new ChatSession({ provider: "openai", model: "m", tools: [lookup], fetch: async () => respond(responses.shift()) });
  for await (const _ of session.send("Look it up"));

  assert.ok(inner.length >= 2, `the input was read ${inner.length} times`);
  for (const outcome of inner) assert.doesNotMatch(outcome, /^trapped/);
  const { messages, error } = session.getSnapshot();
  assert.equal(error, null);
  assert.equal(messages.at(-1).content.includes("Found it."), true, JSON.stringify(messages.at(-1)));
  assert.equal(stillWorks(), null);
});

test("ChatStream.fail with a code chatstream does not know is a NETWORK_ERROR", () => {
  const stream = new ChatStream();
  stream.push('data: {"type":"text_delta","text":"kept"}\n\n');
  const events = stream.fail("NO_SUCH_CODE", "the body broke off");
  assert.equal(events.find((e) => e.type === "complete")?.payload.text, "kept");
  const error = events.find((e) => e.type === "error");
  assert.deepEqual([error.code, error.message], ["NETWORK_ERROR", "the body broke off"]);
});

// A tool_input_delta's partial_input is read from the arguments the event itself carries: a push
// into another chat from inside a call (here generateId, which a session calls when its answer
// completes, in the push that hands over its last deltas) has arguments of its own, even for the
// same tool call id, and neither chat reads or moves the other's.
test("a push into another stream from generateId, with the same tool call id: each chat's deltas keep their own partial_input", async () => {
  const end =
    frame("content_block_stop", { index: 0 }) +
    frame("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 1 } }) +
    frame("message_stop", {});

  const other = new ChatStream({ dialect: "anthropic" });
  const otherEvents = [];
  // Each call adds an "x" to the other stream's call (the first opens it): the session calls
  // generateId for its question, then for its answer when it completes.
  let calls = 0;
  const generateId = () => {
    otherEvents.push(...other.push(calls++ === 0 ? toolStart + inputDelta('{"other": "') : inputDelta("x")));
    return crypto.randomUUID();
  };
  // One chunk: the session's deltas, its complete (generateId) and their hand-over in one push.
  const toolDelta = (args) => ({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "toolu_1", type: "function", function: { name: "write", arguments: args } }] } }] });
  const body =
    sse([toolDelta('{"mine": '), toolDelta('"yes"}'), { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }]) + "data: [DONE]\n\n";
  const session = new ChatSession({ generateId, fetch: async () => respond(body) });
  const events = [];
  for await (const event of session.send("Hi")) events.push(event);
  assert.ok(calls >= 2, `generateId ran ${calls} times`);
  otherEvents.push(...other.push(inputDelta('"}') + end));

  const mine = events.filter((e) => e.type === "tool_input_delta");
  assert.deepEqual(mine.map((e) => e.delta).join(""), '{"mine": "yes"}');
  assert.deepEqual(mine.at(-1).partial_input, { mine: "yes" });
  const theirs = otherEvents.filter((e) => e.type === "tool_input_delta");
  const xs = (n) => ({ other: "x".repeat(n) });
  assert.deepEqual(theirs.map((e) => e.partial_input), [...Array(calls).keys()].map(xs).concat([xs(calls - 1)]));
  assert.equal(stillWorks(), null);
  other.free();
  session.dispose();
});
