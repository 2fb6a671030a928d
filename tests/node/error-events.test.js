// `error` events cross from the module field by field (src/wasm/mod.rs, Op::Error), not through
// JSON: each must be the plain object its JSON text describes, its keys in the contract's order
// (`type`, `code`, `message`, then `field` only when it has one), its message the input's however
// long or wide it is, and the events around it in their places.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const errors = (events) => events.filter((e) => e.type === "error");

/** A plain object with exactly these keys in this order, equal to its own JSON read back. */
const assertPlain = (event, keys) => {
  assert.equal(Object.getPrototypeOf(event), Object.prototype);
  assert.deepEqual(Object.keys(event), keys);
  assert.deepEqual(JSON.parse(JSON.stringify(event)), event);
};

test("a stream that ends before its end: complete, then the documented NETWORK_ERROR, no field", () => {
  for (const options of [{ dialect: "gemini" }, undefined]) {
    const stream = new ChatStream(options);
    const events = stream.finish();
    stream.free();
    assert.deepEqual(events.map((e) => e.type), ["complete", "error"]);
    assertPlain(events[1], ["type", "code", "message"]);
  }
  const stream = new ChatStream({ dialect: "openai" });
  stream.push('data: {"choices":[{"index":0,"delta":{"content":"cut"}}]}\n\n');
  const events = stream.finish();
  stream.free();
  assert.deepEqual(events[1], { type: "error", code: "NETWORK_ERROR", message: "stream ended before completion" });
  assert.equal(events[0].payload.text, "cut");
});

test("a provider's error message of any length and width is the input's, in place among the events", () => {
  // Short and ASCII, non-ASCII with a surrogate pair, and past the length at which the module
  // sets long strings aside (1,024 bytes).
  const messages = ["model 'x' not found", "modèle introuvable 😀 — ошибка", `model not found: ${"é😀x".repeat(400)}`];
  for (const message of messages) {
    const stream = new ChatStream({ dialect: "ollama" });
    const line = (record) => JSON.stringify(record) + "\n";
    const events = stream.push(line({ message: { role: "assistant", content: "Hi" }, done: false }) + line({ error: message }));
    stream.free();
    assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete", "error"], message.slice(0, 20));
    const [error] = errors(events);
    assertPlain(error, ["type", "code", "message"]);
    assert.equal(error.message, message);
    assert.match(error.code, /^[A-Z_]+$/);
    assert.equal(events[0].text, "Hi");
  }
});

test("an error about a payload field names it, after the text before it", () => {
  const stream = new ChatStream({ dialect: "openai", payloadMarkers: [{ marker: "CHART:", type: "chart" }] });
  const frame = (content) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
  const events = [...stream.push(frame("Here CHART: {not json")), ...stream.push("data: [DONE]\n\n"), ...stream.finish()];
  stream.free();
  const [error] = errors(events);
  assertPlain(error, ["type", "code", "message", "field"]);
  assert.equal(error.field, "custom_payload");
  assert.equal(error.code, "SERVICE_UNAVAILABLE");
  assert.ok(events.indexOf(error) > events.findIndex((e) => e.type === "text_delta"));
});

test("errors of many streams in a row, and one after a long text, read alike", () => {
  const long = "ü".repeat(5000);
  const stream = new ChatStream({ dialect: "openai" });
  const before = stream.push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: long } }] })}\n\n`);
  assert.equal(before[0].text, long);
  const events = stream.finish();
  stream.free();
  assert.deepEqual(events[1], { type: "error", code: "NETWORK_ERROR", message: "stream ended before completion" });
  assert.equal(events[0].payload.text, long);
  for (let i = 0; i < 100; i++) {
    const s = new ChatStream({ dialect: "anthropic" });
    assert.deepEqual(s.finish()[1], { type: "error", code: "NETWORK_ERROR", message: "stream ended before completion" });
    s.free();
  }
});

test("an error message equal to the text just before it is its own copy of that text", () => {
  // The hand-over writes a string equal to the one before it once; each place must still read it.
  for (const message of ["oops", "ü".repeat(2000)]) {
    const stream = new ChatStream({ dialect: "ollama" });
    const line = (record) => JSON.stringify(record) + "\n";
    const events = stream.push(line({ message: { role: "assistant", content: message }, done: false }) + line({ error: message }));
    stream.free();
    assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete", "error"]);
    assert.equal(events[0].text, message);
    assert.equal(events[1].payload.text, message);
    assertPlain(events[2], ["type", "code", "message"]);
    assert.equal(events[2].message, message);
  }
});
