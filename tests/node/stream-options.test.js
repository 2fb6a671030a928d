// ChatStream's options through the built package: read the same whether they are left out, given
// as their defaults, or given by an object of another kind; a misspelt one refused by name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const recording = (name) => readFileSync(new URL(`../fixtures/recorded/${name}`, import.meta.url), "utf8");

/** Every event of `body` read by a stream made with `options` (each argument list in `made`), one line a push. */
const read = (body, ...made) => {
  const stream = new ChatStream(...made);
  const events = body.split(/(?<=\n\n)/).flatMap((chunk) => stream.push(chunk));
  events.push(...stream.finish());
  stream.free();
  return events;
};

// An answer with inline thinking, a tool marker and a payload marker of each kind the defaults know.
const body = [
  "<think>let me see</think>The answer",
  " [[tool:0]] is 4.",
  '\nSUGGESTED_VALUES: ["a","b"]',
  ' SCHEMA_PROPOSAL: {"x":1}',
]
  .map((text) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`)
  .join("");

test("options left out, null, empty, or given as their defaults read a stream alike", () => {
  const left = read(body);
  // Written out from the declarations' documented defaults, not from what the module prints.
  const defaults = {
    dialect: "auto",
    inlineThinking: true,
    thinkingTags: ["think", "thinking"],
    startsInThinking: false,
    payloadMarkers: [],
  };
  for (const made of [[undefined], [null], [{}], [defaults], [{ dialect: undefined, headers: null }]]) {
    assert.deepEqual(read(body, ...made), left, JSON.stringify(made));
  }
  assert.deepEqual(left.filter((e) => e.type === "thinking_delta").map((e) => e.text).join(""), "let me see");
  const { payload } = left.find((e) => e.type === "complete");
  assert.deepEqual(payload.suggested_values, ["a", "b"]);
  assert.deepEqual(payload.custom_payload, { type: "schema_proposal", data: { x: 1 } });
});

test("options change what is read, whatever was made before", () => {
  const without = read(body, { inlineThinking: false });
  assert.equal(without.find((e) => e.type === "thinking_delta"), undefined);
  assert.match(without.find((e) => e.type === "complete").payload.text, /^<think>let me see<\/think>The answer/);
  const custom = read(body, { thinkingTags: ["reasoning"], payloadMarkers: [{ marker: "is", type: "is" }] });
  assert.equal(custom.find((e) => e.type === "thinking_delta"), undefined);
  // "is" and no JSON after it: the marker is left in the text, with an error naming it.
  assert.deepEqual(custom.find((e) => e.type === "error")?.field, "custom_payload");
  // And a stream with the defaults again reads as the first one did.
  assert.deepEqual(read(body, { dialect: "openai" }), read(body));
});

test("an object that is not plain gives its options, its own or inherited", () => {
  const anthropic = recording("anthropic/text.sse");
  const expected = read(anthropic, { dialect: "anthropic" });
  assert.ok(expected.length > 2);
  class Options {
    get dialect() {
      return "anthropic";
    }
  }
  assert.deepEqual(read(anthropic, new Options()), expected);
  assert.deepEqual(read(anthropic, Object.create({ dialect: "anthropic" })), expected);
  const stream = new ChatStream(Object.create({ dialect: "anthropic" }));
  assert.equal(stream.dialect, "anthropic");
  stream.free();
  // A plain object's inherited keys are not options: one on Object.prototype is not read.
  Object.prototype.dialect = "anthropic";
  try {
    const plain = new ChatStream({});
    assert.equal(plain.dialect, undefined);
    plain.free();
  } finally {
    delete Object.prototype.dialect;
  }
});

test("an unknown option is refused by name, unless it is null or undefined; a getter that throws is not given", () => {
  const known = "`dialect`, `contentType`, `headers`, `maxFrameBytes`, `inlineThinking`, `thinkingTags`, `startsInThinking`, `payloadMarkers`, `idleTimeoutMs`";
  assert.throws(() => new ChatStream({ dialect: "openai", dialct: "openai" }), {
    name: "TypeError",
    message: `ChatStream options: unknown field \`dialct\`, expected one of ${known}`,
  });
  assert.throws(() => new ChatStream({ payloadMarkers: [{ marker: "X:", type: "x", kind: 1 }] }), {
    name: "TypeError",
    message: "ChatStream options: payloadMarkers[]: unknown field `kind`, expected one of `marker`, `type`",
  });
  assert.throws(() => new ChatSession({ dialct: "openai" }), { name: "TypeError", message: /ChatSession options: unknown field `dialct`/ });
  for (const options of [{ dialct: undefined }, { dialct: null }]) new ChatStream(options).free();
  const throwing = {
    get dialct() {
      throw new Error("no");
    },
    get dialect() {
      throw new Error("no");
    },
  };
  const stream = new ChatStream(throwing);
  assert.equal(stream.dialect, undefined);
  stream.free();
  assert.throws(() => new ChatStream({ dialect: 5 }), { name: "TypeError", message: "ChatStream options: dialect must be a string, got 5" });
});

test("options that throw as they are looked at (a Proxy's traps) are refused with a TypeError, and the module keeps working", () => {
  const throwingKeys = new Proxy({}, { ownKeys() { throw new Error("no keys"); } });
  const throwingPrototype = new Proxy({}, { getPrototypeOf() { throw new Error("no prototype"); } });
  const throwingHeaders = new Proxy({}, { ownKeys() { throw new Error("no headers"); } });
  const throwingMarkers = new Proxy([], { get() { throw new Error("no markers"); } });
  // An exception thrown through the module instead of caught leaves part of its stack behind
  // each time: a few thousand of them used to end in `RuntimeError: unreachable`.
  for (let i = 0; i < 3000; i++) {
    assert.throws(() => new ChatStream(throwingKeys), { name: "TypeError", message: "ChatStream options: could not be read (no keys)" });
    assert.throws(() => new ChatStream(throwingPrototype), { name: "TypeError", message: "ChatStream options: could not be read (no prototype)" });
    assert.throws(() => new ChatStream({ headers: throwingHeaders }), {
      name: "TypeError",
      message: "ChatStream options: headers: could not be read (no headers)",
    });
    assert.throws(() => new ChatStream({ payloadMarkers: throwingMarkers }), {
      name: "TypeError",
      message: "ChatStream options: payloadMarkers: could not be read (no markers)",
    });
  }
  assert.deepEqual(read(body, { dialect: "openai" }), read(body));
});

test("an unknown option's getter is read once: one that answers a value and then null is refused all the same", () => {
  let reads = 0;
  const options = {
    get dialct() {
      reads += 1;
      return reads === 1 ? "openai" : null;
    },
  };
  assert.throws(() => new ChatStream(options), { name: "TypeError", message: /unknown field `dialct`/ });
  assert.equal(reads, 1);
});

test("a getter of the options that makes another stream is read, and both streams work", () => {
  let inner;
  const options = {
    get dialect() {
      inner = new ChatStream({ dialect: "anthropic", inlineThinking: false });
      return "openai";
    },
  };
  const outer = new ChatStream(options);
  assert.equal(outer.dialect, "openai");
  assert.equal(inner.dialect, "anthropic");
  assert.deepEqual(read(body, options), read(body, { dialect: "openai" }));
  outer.free();
  inner.free();
});

test("a refusal's complete event carries the recording's reason, usage and stop details, in the documented order", () => {
  const events = read(recording("anthropic/refusal.sse"), { dialect: "anthropic" });
  assert.deepEqual(events.map((e) => e.type), ["complete"]);
  const { payload } = events[0];
  // From the recording: stop_reason "refusal", usage 18 in and 5 out with nothing read from the
  // cache (no total sent: docs/events.md's rule makes it 18 + 5), and its stop_details passed
  // through; the fields in docs/events.md's order, then the extra.
  assert.deepEqual(Object.keys(payload), [
    "message", "text", "thinking", "segments", "tool_history", "suggested_values", "suggested_actions",
    "custom_payload", "finish_reason", "usage", "stop_details",
  ]);
  assert.deepEqual(payload, {
    message: "",
    text: "",
    thinking: null,
    segments: [],
    tool_history: [],
    suggested_values: null,
    suggested_actions: null,
    custom_payload: null,
    finish_reason: "refusal",
    usage: { input_tokens: 18, output_tokens: 5, reasoning_tokens: null, cached_input_tokens: 0, total_tokens: 23 },
    stop_details: {
      type: "refusal",
      category: "cyber",
      explanation: "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
      recommended_model: "claude-fable-5",
    },
  });
});
