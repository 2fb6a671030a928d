// ChatStream's push copies a chunk into the stream's input buffer in the module's memory and reads
// the events from there (pkg-template/api.js, src/wasm/stream.rs): what that must survive. The
// module's memory growing under a stream (another stream's large chunk), a stream used after
// free(), tool calls whose deltas interleave, and text of every width, however the chunks are cut.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const openaiFrame = (content) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const complete = (events) => events.find((e) => e.type === "complete");
const texts = (events) => events.filter((e) => e.type === "text_delta").map((e) => e.text).join("");

test("a stream reads on after another stream's large chunk grew the module's memory", () => {
  const small = new ChatStream({ dialect: "openai" });
  let read = texts(small.push(openaiFrame("before ")));
  // 16 MB of text in one chunk (48 MB reserved for it as UTF-8): more than the memory holds at
  // first, so it grows.
  const big = new ChatStream({ dialect: "openai" });
  const piece = "x".repeat(256 * 1024);
  assert.equal(texts(big.push(Array(64).fill(openaiFrame(piece)).join(""))).length, 64 * piece.length);
  big.free();
  read += texts(small.push(new TextEncoder().encode(openaiFrame("after"))));
  assert.equal(read, "before after");
  assert.equal(complete(small.finish()).payload.message, "before after");
  small.free();
});

test("a freed stream refuses a push and leaves the other streams' bytes alone", () => {
  const kept = new ChatStream({ dialect: "openai" });
  const freed = new ChatStream({ dialect: "openai" });
  let read = texts(kept.push(openaiFrame("one ")));
  freed.push(openaiFrame("gone"));
  freed.free();
  assert.throws(() => freed.push(openaiFrame("x".repeat(4096))));
  assert.throws(() => freed.push(new TextEncoder().encode(openaiFrame("y".repeat(4096)))));
  read += texts(kept.push(openaiFrame("two")));
  assert.equal(read, "one two");
  assert.equal(complete(kept.finish()).payload.message, "one two");
});

test("text of every width reads the same pushed whole, as text one character a push, and as bytes one byte a push", () => {
  const words = ["plain ", "é ", "€ ", "😀 ", "中文 ", "\u{10FFFF} ", 'quote " and \\ backslash ', "𝄞end"];
  const body = words.map(openaiFrame).join("") + "data: [DONE]\n\n";
  const read = (chunks) => {
    const stream = new ChatStream({ dialect: "openai" });
    const events = chunks.flatMap((chunk) => stream.push(chunk)).concat(stream.finish());
    stream.free();
    return events;
  };
  const whole = read([body]);
  assert.equal(texts(whole), words.join("").trim());
  const bytes = new TextEncoder().encode(body);
  for (const cut of [[...body], [...bytes].map((b) => Uint8Array.of(b))]) {
    const events = read(cut);
    assert.equal(texts(events), texts(whole));
    assert.deepEqual(complete(events), complete(whole));
  }
});

test("interleaved tool calls: each delta names its own call, and partial_input follows each call's own arguments", () => {
  const delta = (index, id, args) =>
    `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { tool_calls: [{ index, ...(id ? { id, type: "function", function: { name: `f${index}`, arguments: "" } } : { function: { arguments: args } }) }] }, finish_reason: null }] })}\n\n`;
  const chunks = [delta(0, "call_a"), delta(1, "call_b"), delta(0, null, '{"a":'), delta(1, null, '{"b":'), delta(0, null, "1}"), delta(1, null, "2}")];
  const stream = new ChatStream({ dialect: "openai" });
  const events = chunks.flatMap((chunk) => stream.push(chunk));
  const deltas = events.filter((e) => e.type === "tool_input_delta");
  assert.deepEqual(
    deltas.map((e) => [e.tool_use_id, e.delta]),
    [["call_a", '{"a":'], ["call_b", '{"b":'], ["call_a", "1}"], ["call_b", "2}"]],
  );
  assert.deepEqual(deltas[3].partial_input, { b: 2 });
  assert.deepEqual(deltas[2].partial_input, { a: 1 });
  assert.ok(!("b" in (deltas[0].partial_input ?? {})) && !("a" in (deltas[1].partial_input ?? {})));
  stream.free();
});

// `complete` crosses field by field, not as JSON (src/wasm/mod.rs, `HandOver::complete`): its
// objects must be what JSON.parse of the contract's JSON text makes (docs/events.md).
const agentFrames = (...events) => events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");
const readAll = (body, dialect = "agent") => {
  const stream = new ChatStream({ dialect });
  const events = [...stream.push(body), ...stream.finish()];
  stream.free();
  return events;
};
const PAYLOAD_KEYS = ["message", "text", "thinking", "segments", "tool_history", "suggested_values", "suggested_actions", "custom_payload", "finish_reason", "usage"];
const plain = (value) => Object.getPrototypeOf(value) === Object.prototype && Object.isExtensible(value);

test("complete: the contract's keys in its order, plain objects, the backend's extra keys after them as JSON.parse makes them", () => {
  const body = agentFrames(
    { type: "thinking_delta", text: "plan" },
    { type: "text_delta", text: "Before [[tool:0]] after" },
    { type: "tool_start", tool: "search", tool_use_id: "t1", input: { q: "p53" } },
    { type: "tool_complete", tool: "search", tool_use_id: "t1", output: { hits: 2 }, is_error: false },
    // Written by hand: a "__proto__" key and a count past 2^53 that JSON.stringify would not write.
    '{"type":"complete","payload":{"conversation_id":"c1","__proto__":{"polluted":true},"7":"seven","usage":{"input_tokens":18446744073709551615,"output_tokens":9007199254740993},"finish_reason":"stop"}}',
  );
  const event = complete(readAll(body));
  assert.deepEqual(Object.keys(event), ["type", "payload"]);
  const { payload } = event;
  assert.ok(plain(event) && plain(payload));
  const keys = Reflect.ownKeys(payload);
  // An integer key comes first in any JS object; the contract's keys follow in its order, then the extra ones.
  assert.deepEqual(keys.slice(0, 1 + PAYLOAD_KEYS.length), ["7", ...PAYLOAD_KEYS]);
  assert.deepEqual(keys.slice(1 + PAYLOAD_KEYS.length).sort(), ["__proto__", "conversation_id"]);
  assert.equal(payload.conversation_id, "c1");
  assert.equal(payload[7], "seven");
  assert.deepEqual(Object.getOwnPropertyDescriptor(payload, "__proto__"), { value: { polluted: true }, writable: true, enumerable: true, configurable: true });
  assert.equal(payload.polluted, undefined);
  assert.equal(payload.thinking, "plan");
  assert.equal(payload.message, "Before [[tool:0]] after");
  assert.equal(payload.text, "Before  after");
  assert.deepEqual(payload.segments.map((s) => s.type), ["text", "tool", "text"]);
  assert.ok(payload.segments.every((s) => s.type === "tool" || Object.keys(s).join() === "type,text"));
  assert.ok(Array.isArray(payload.segments) && Object.getPrototypeOf(payload.segments) === Array.prototype);
  const tool = payload.segments.find((s) => s.type === "tool");
  assert.deepEqual(Object.keys(tool), ["type", "index", "tool_use_id", "tool", "input", "output", "is_error"]);
  assert.deepEqual(tool, { type: "tool", index: 0, tool_use_id: "t1", tool: "search", input: { q: "p53" }, output: { hits: 2 }, is_error: false });
  assert.equal(payload.tool_history.length, 1);
  assert.deepEqual(Object.keys(payload.tool_history[0]), ["tool_name", "tool_use_id", "input", "output", "is_error"]);
  assert.deepEqual(payload.tool_history[0], { tool_name: "search", tool_use_id: "t1", input: { q: "p53" }, output: { hits: 2 }, is_error: false });
  assert.ok([payload.segments, ...payload.segments, payload.tool_history[0], payload.usage].every((o) => Object.isExtensible(o)));
  assert.deepEqual(Object.keys(payload.usage), ["input_tokens", "output_tokens", "reasoning_tokens", "cached_input_tokens", "total_tokens"]);
  // Rounded to the nearest double, as JSON.parse reads the numbers.
  assert.equal(payload.usage.input_tokens, JSON.parse("18446744073709551615"));
  assert.equal(payload.usage.output_tokens, JSON.parse("9007199254740993"));
  assert.equal(payload.finish_reason, "stop");
  assert.equal(payload.suggested_values, null);
  assert.equal(payload.custom_payload, null);
  assert.ok(!("invalid_utf8" in payload));
});

test("complete: invalid_utf8 after usage when the stream had some; a long answer with thinking reads whole in every field", () => {
  const answer = "é".repeat(700) + "😀" + "x".repeat(2000);
  const frames = agentFrames({ type: "text_delta", text: "bad " }, { type: "thinking_delta", text: "t".repeat(1500) }, { type: "text_delta", text: answer });
  const bytes = Buffer.concat([Buffer.from('data: {"type":"text_delta","text":"\xff\xfe"}\n\n', "latin1"), Buffer.from(frames)]);
  const { payload } = complete(readAll(bytes));
  // Each invalid byte is one invalid sequence, replaced by U+FFFD (as TextDecoder does).
  assert.equal(payload.invalid_utf8, 2);
  assert.equal(payload.text, "\u{FFFD}\u{FFFD}bad " + answer);
  assert.equal(payload.message, payload.text);
  assert.deepEqual(payload.segments, [{ type: "text", text: payload.text }]);
  assert.equal(payload.thinking, "t".repeat(1500));
  assert.deepEqual(Object.keys(payload), [...PAYLOAD_KEYS, "invalid_utf8"]);
});

test("a push of one text or thinking delta, and of one with other events, reads as the frames say", () => {
  const stream = new ChatStream({ dialect: "agent" });
  const pushes = [
    agentFrames({ type: "thinking_delta", text: "think é" }),
    agentFrames({ type: "text_delta", text: "😀" }),
    agentFrames({ type: "status", message: "busy" }, { type: "text_delta", text: "x" }),
    agentFrames({ type: "text_delta", text: "y".repeat(100) }),
  ].map((frames) => stream.push(frames));
  assert.deepEqual(pushes, [
    [{ type: "thinking_delta", text: "think é" }],
    [{ type: "text_delta", text: "😀" }],
    [{ type: "status", message: "busy" }, { type: "text_delta", text: "x" }],
    [{ type: "text_delta", text: "y".repeat(100) }],
  ]);
  assert.ok(pushes.flat().every(plain));
  stream.free();
});

test("long strings set aside come back in their places, also under a key __proto__ and in arrays", () => {
  // A tool call's arguments whose strings are long enough to cross on their own (a kilobyte and more).
  const long = "é".repeat(2000);
  const text = `{"__proto__":"${long}","list":${JSON.stringify([long, "short", { deep: long + "!" }])},"n":1}`;
  const call = { index: 0, id: "call_1", type: "function", function: { name: "f", arguments: text } };
  const chunk = (choice) => `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, ...choice }] })}\n\n`;
  const frame = chunk({ delta: { tool_calls: [call] } }) + chunk({ delta: {}, finish_reason: "tool_calls" }) + "data: [DONE]\n\n";
  const stream = new ChatStream({ dialect: "openai" });
  const events = [...stream.push(frame), ...stream.finish()];
  stream.free();
  const input = events.find((e) => e.type === "tool_call").input;
  const expected = JSON.parse(text); // what JSON.parse makes of the arguments: __proto__ an own field
  assert.ok(Object.hasOwn(input, "__proto__"));
  assert.equal(Object.getOwnPropertyDescriptor(input, "__proto__").value, long);
  assert.equal(Object.getPrototypeOf(input), Object.prototype);
  assert.deepEqual(input, expected);
  assert.equal(complete(events).payload.tool_history[0].input.list[2].deep, long + "!");
});

// The markers of `complete`'s encoding (null, the same text again, a long string set aside), each
// against the payload's JSON text written by hand from the contract (docs/events.md): JSON.parse of
// it is what the payload must be, its keys in the same order.
const assertPayload = (payload, json) => {
  const expected = JSON.parse(json);
  assert.deepEqual(payload, expected);
  assert.equal(JSON.stringify(payload), JSON.stringify(expected));
};
const EMPTY_TAIL = '"suggested_values":null,"suggested_actions":null,"custom_payload":null,"finish_reason":"stop","usage":null';

test("complete: a marker whose tool never ran is a tool segment with null tool_use_id, tool, input and output", () => {
  const body = agentFrames({ type: "text_delta", text: "Look [[tool:2]] here" }, { type: "complete", payload: { finish_reason: "stop" } });
  assertPayload(
    complete(readAll(body)).payload,
    `{"message":"Look [[tool:2]] here","text":"Look  here","thinking":null,"segments":[{"type":"text","text":"Look"},` +
      `{"type":"tool","index":2,"tool_use_id":null,"tool":null,"input":null,"output":null,"is_error":false},{"type":"text","text":"here"}],` +
      `"tool_history":[],${EMPTY_TAIL}}`,
  );
});

test("complete: a string equal to the one before it (message and text, a segment's text, finish_reason, a key; a tool named as its id) reads whole", () => {
  const plainBody = agentFrames({ type: "text_delta", text: "stop" }, '{"type":"complete","payload":{"finish_reason":"stop","stop":"stop"}}');
  assertPayload(
    complete(readAll(plainBody)).payload,
    `{"message":"stop","text":"stop","thinking":null,"segments":[{"type":"text","text":"stop"}],"tool_history":[],` +
      `"suggested_values":null,"suggested_actions":null,"custom_payload":null,"finish_reason":"stop","usage":null,"stop":"stop"}`,
  );
  const toolBody = agentFrames(
    { type: "text_delta", text: "Same[[tool:0]]" },
    { type: "tool_start", tool: "probe", tool_use_id: "probe", input: {} },
    { type: "tool_complete", tool: "probe", tool_use_id: "probe", output: "probe", is_error: true },
    { type: "complete", payload: { finish_reason: "stop", note: "probe" } },
  );
  assertPayload(
    complete(readAll(toolBody)).payload,
    `{"message":"Same[[tool:0]]","text":"Same","thinking":null,"segments":[{"type":"text","text":"Same"},` +
      `{"type":"tool","index":0,"tool_use_id":"probe","tool":"probe","input":{},"output":"probe","is_error":true}],` +
      `"tool_history":[{"tool_name":"probe","tool_use_id":"probe","input":{},"output":"probe","is_error":true}],${EMPTY_TAIL},"note":"probe"}`,
  );
});

test("complete: a long string of the text that is also a tool's output, beside another long one of its input, each in its place", () => {
  const answer = "a".repeat(1500) + "é";
  const query = "q".repeat(2048);
  const body = agentFrames(
    { type: "text_delta", text: answer + "[[tool:0]]" },
    { type: "tool_start", tool: "echo", tool_use_id: "t1", input: { query } },
    { type: "tool_complete", tool: "echo", tool_use_id: "t1", output: answer, is_error: false },
    { type: "complete", payload: { finish_reason: "stop", echoed: [query, answer] } },
  );
  const A = JSON.stringify(answer);
  const Q = JSON.stringify(query);
  assertPayload(
    complete(readAll(body)).payload,
    `{"message":${JSON.stringify(answer + "[[tool:0]]")},"text":${A},"thinking":null,"segments":[{"type":"text","text":${A}},` +
      `{"type":"tool","index":0,"tool_use_id":"t1","tool":"echo","input":{"query":${Q}},"output":${A},"is_error":false}],` +
      `"tool_history":[{"tool_name":"echo","tool_use_id":"t1","input":{"query":${Q}},"output":${A},"is_error":false}],${EMPTY_TAIL},"echoed":[${Q},${A}]}`,
  );
});

test("complete: a long key among the backend's extra keys, with a long value and a short one", () => {
  const key = "k".repeat(1200);
  const value = "v".repeat(3000);
  const frame = `{"type":"complete","payload":{"finish_reason":"stop",${JSON.stringify(key)}:${JSON.stringify(value)},"short":1}}`;
  const body = agentFrames({ type: "text_delta", text: "Hi" }, frame);
  const payload = complete(readAll(body)).payload;
  assertPayload(payload, `{"message":"Hi","text":"Hi","thinking":null,"segments":[{"type":"text","text":"Hi"}],"tool_history":[],${EMPTY_TAIL},${JSON.stringify(key)}:${JSON.stringify(value)},"short":1}`);
});

test("complete: long strings of its own and values with none (nothing of theirs set aside) read whole", () => {
  const answer = "Long answer.".repeat(100);
  const thinking = "t".repeat(1100);
  const body = agentFrames(
    { type: "thinking_delta", text: thinking },
    { type: "text_delta", text: answer + "[[tool:0]]" },
    { type: "tool_start", tool: "f", tool_use_id: "id", input: { n: 1 } },
    { type: "tool_complete", tool: "f", tool_use_id: "id", output: [1, "short"], is_error: false },
    { type: "complete", payload: { finish_reason: "stop", conversation_id: "c" } },
  );
  const A = JSON.stringify(answer);
  assertPayload(
    complete(readAll(body)).payload,
    `{"message":${JSON.stringify(answer + "[[tool:0]]")},"text":${A},"thinking":${JSON.stringify(thinking)},"segments":[{"type":"text","text":${A}},` +
      `{"type":"tool","index":0,"tool_use_id":"id","tool":"f","input":{"n":1},"output":[1,"short"],"is_error":false}],` +
      `"tool_history":[{"tool_name":"f","tool_use_id":"id","input":{"n":1},"output":[1,"short"],"is_error":false}],${EMPTY_TAIL},"conversation_id":"c"}`,
  );
});
