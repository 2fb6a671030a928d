// The AI SDK backend mode sends a message before its module has loaded when the body built in JS
// (firstRequestBody) is sure to be the one the module's chat builds. These checks put the two side
// by side on the same input: the module's AiSdkChat (chatstream/ai-sdk's, loaded here by initSync)
// made with the messages and asked to send the message, against the JS body: the same text, byte
// for byte (so the same keys in the same order), or no JS body at all where the module refuses the
// input or would write it otherwise, and where a message holds a part the JS side leaves to the
// module (only text, reasoning, file, step-start and data parts go early).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as glue from "../../pkg/ai-sdk/chatstream.js";
import { firstRequestBody } from "../../pkg/ai-sdk-chat.js";

glue.initSync({ module: readFileSync(new URL("../../pkg/ai-sdk/chatstream_bg.wasm", import.meta.url)) });

/** The module's body for sending `user` after `history` with the app's body `json`; or what it threw. */
function moduleBody(json, chatId, history, user) {
  let core;
  try {
    core = new glue.AiSdkChat(chatId, JSON.stringify(history));
    return { body: core.sendMessage(JSON.stringify(user), json, "answer-1") };
  } catch (error) {
    return { refused: error };
  } finally {
    core?.free();
  }
}

const text = (t) => ({ type: "text", text: t });
const user = (id, parts, more = {}) => ({ id, role: "user", parts, ...more });
const assistant = (id, parts, more = {}) => ({ id, role: "assistant", parts, ...more });
/** Whether every part of these messages is of a type the JS side sends early. */
const early = (messages) => messages.every((m) => m.parts.every((p) => ["text", "reasoning", "file", "step-start"].includes(p.type) || p.type.startsWith("data-")));
const UNICODE = 'é ☕ 😀 \u2028\u2029 "quoted" \\ </script> \u0001\u001f\u007f\t\n\r\b\f';

const HISTORIES = [
  [],
  [user("u1", [text("hi")])],
  [{ id: "s1", role: "system", parts: [text("Be brief.")] }, user("u1", [text("hi")])],
  [
    user("u1", [text("weather?")], { metadata: { z: 1, a: { c: [2, { y: null, b: true }], "10": "ten", "2": "two" } } }),
    assistant("a1", [
      { type: "step-start" },
      { type: "reasoning", text: "thinking", state: "done", providerMetadata: { p: { signature: "x" } } },
      { type: "tool-weather", toolCallId: "c1", state: "output-available", input: { city: "Paris" }, output: { temperature: 21, unit: "celsius" } },
      { type: "tool-search", toolCallId: "c2", state: "output-error", input: {}, errorText: "down" },
      { type: "dynamic-tool", toolName: "dyn", toolCallId: "c3", state: "input-available", input: [1, 2] },
      { type: "step-start" },
      { type: "text", text: "It is sunny.", state: "done" },
      { type: "source-url", sourceId: "s1", url: "https://example.com", title: "Example" },
      { type: "source-document", sourceId: "s2", mediaType: "application/pdf", title: "Doc", filename: "d.pdf" },
      { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" },
      { type: "data-weather", id: "w1", data: { city: "Paris", "1": 1 } },
    ], { metadata: { model: "m", usage: { inputTokens: 3, outputTokens: 7 } } }),
  ],
  [
    user("u1", [text("delete it")]),
    assistant("a1", [
      { type: "tool-deleteFile", toolCallId: "c1", state: "approval-requested", input: { path: "/x" }, approval: { id: "ap1" } },
      { type: "tool-deleteFile", toolCallId: "c2", state: "approval-responded", input: { path: "/y" }, approval: { id: "ap2", approved: false, reason: "no" } },
      { type: "tool-deleteFile", toolCallId: "c3", state: "output-denied", input: {}, approval: { id: "ap3", approved: false } },
      { type: "tool-x", toolCallId: "c4", state: "input-streaming" },
    ]),
  ],
  // Keys the AI SDK does not have are kept; an assistant message may have no parts.
  [user("u1", [text(UNICODE)], { createdAt: "2026-01-01T00:00:00.000Z", "é😀": [1e21, -0, 0.1, 5e-324] }), assistant("a1", [])],
  [user(UNICODE, [text("id of every kind")]), assistant("", [{ type: "custom", kind: "k", value: 1 }, { type: "reasoning-file", mediaType: "text/plain", url: "u" }])],
];

const USERS = [
  user("m1", [text("hello")]),
  user("m1", [text("")]),
  user("m1", [{ type: "file", mediaType: "image/png", filename: "a.png", url: "data:image/png;base64,AAAA" }, text("what is this?")]),
  user("m1", [text(UNICODE)], { metadata: { sent: "now", n: [1, { b: 2, a: 1 }] } }),
  { parts: [text("given first")], extra: "kept", id: "m1", role: "user", metadata: undefined },
  user("u1", [text("edited")]), // an edit: the message with its id and what follows go
  user("a1", [text("in the place of an answer")]),
  { id: "m1", role: "system", parts: [text("now a system message")] },
  user("m1", [{ type: "data-context", data: { page: "/docs" } }, text("x".repeat(10_000))]),
];

const BODIES = [
  {},
  { locale: "en-GB" },
  { id: "the app's", messages: "the app's", extra: [1, 2], trigger: "t", messageId: "m" },
  { "2": "integer-like keys go first", b: 1, "1": 0 },
  { nested: { z: 1, a: [{}, [], null] }, numbers: [1e21, 1e-7, -0, 123456789.123], u: UNICODE },
  { dropped: undefined, fn: () => 1, date: new Date(0) },
  JSON.parse('{"__proto__":{"polluted":true},"k":1}'),
];
const CHAT_IDS = ["chat-1", UNICODE, ""];

test("the body built in JS is the module's, byte for byte, for every history, message, body and chat id", () => {
  let compared = 0;
  let waited = 0;
  for (const history of HISTORIES) {
    for (const sent of USERS) {
      for (const body of BODIES) {
        for (const chatId of CHAT_IDS) {
          const json = JSON.stringify({ ...body });
          const js = firstRequestBody(json, chatId, JSON.stringify(history), JSON.stringify(sent));
          const expected = moduleBody(json, chatId, history, sent);
          const what = JSON.stringify({ history: history.map((m) => m.id), sent: sent.id, body: json.slice(0, 40), chatId });
          assert.ok(expected.body !== undefined, `the module refused ${what}: ${expected.refused}`);
          if (early([...history, sent])) {
            assert.equal(js, expected.body, what);
            compared++;
          } else {
            assert.equal(js, null, `a tool call or a source waits: ${what}`);
            waited++;
          }
        }
      }
    }
  }
  assert.equal(compared + waited, HISTORIES.length * USERS.length * BODIES.length * CHAT_IDS.length);
  assert.ok(compared > 600 && waited > 300, `both kinds were tried: ${compared} compared, ${waited} left to the module`);
});

test("an edit names the message replaced as messageId, and the messages after it go", () => {
  const history = [user("u1", [text("a")]), assistant("a1", [text("b")]), user("u2", [text("c")])];
  const body = JSON.parse(firstRequestBody("{}", "c", JSON.stringify(history), JSON.stringify(user("u1", [text("edited")]))));
  assert.equal(body.messageId, "u1");
  assert.deepEqual(Object.keys(body), ["id", "messages", "trigger", "messageId"]);
  assert.deepEqual(body.messages, [user("u1", [text("edited")])]);
  assert.equal("messageId" in JSON.parse(firstRequestBody("{}", "c", JSON.stringify(history), JSON.stringify(user("u9", [text("new")])))), false);
});

// Every way a message can fail the module's checks, and the changes to valid messages it takes.
const MANGLES = [
  (m) => delete m.id,
  (m) => (m.id = 7),
  (m) => (m.role = "tool"),
  (m) => delete m.role,
  (m) => (m.parts = []),
  (m) => (m.parts = "[]"),
  (m) => delete m.parts,
  (m) => (m.parts = null),
  (m) => m.parts.push(null),
  (m) => m.parts.push([]),
  (m) => m.parts.push("text"),
  (m) => m.parts.push({}),
  (m) => m.parts.push({ type: 1 }),
  (m) => m.parts.push({ type: "nope" }),
  (m) => m.parts.push({ type: "constructor" }),
  (m) => m.parts.push({ type: "__proto__" }),
  (m) => m.parts.push({ type: "text" }),
  (m) => m.parts.push({ type: "text", text: null }),
  (m) => m.parts.push({ type: "text", text: ["a"] }),
  (m) => m.parts.push({ type: "text", text: "ok" }),
  (m) => m.parts.push({ type: "reasoning", text: 1 }),
  (m) => m.parts.push({ type: "file", url: "u" }),
  (m) => m.parts.push({ type: "file", mediaType: "a/b", url: "u" }),
  (m) => m.parts.push({ type: "reasoning-file", mediaType: "a/b" }),
  (m) => m.parts.push({ type: "source-url", sourceId: "s" }),
  (m) => m.parts.push({ type: "source-url", sourceId: "s", url: "u" }),
  (m) => m.parts.push({ type: "source-document", sourceId: "s", mediaType: "m" }),
  (m) => m.parts.push({ type: "source-document", sourceId: "s", mediaType: "m", title: "t" }),
  (m) => m.parts.push({ type: "custom" }),
  (m) => m.parts.push({ type: "custom", kind: "k" }),
  (m) => m.parts.push({ type: "steering-message" }),
  (m) => m.parts.push({ type: "steering-message", id: "s" }),
  (m) => m.parts.push({ type: "step-start" }),
  (m) => m.parts.push({ type: "data-" }),
  (m) => m.parts.push({ type: "data-x", data: undefined }),
  (m) => m.parts.push({ type: "dynamic-tool", toolCallId: "c", state: "input-available" }),
  (m) => m.parts.push({ type: "dynamic-tool", toolName: "t", toolCallId: "c", state: "input-available" }),
  (m) => m.parts.push({ type: "tool-", toolCallId: "c", state: "input-available" }),
  (m) => m.parts.push({ type: "tool-x", state: "input-available" }),
  (m) => m.parts.push({ type: "tool-x", toolCallId: "c", state: "done" }),
  (m) => m.parts.push({ type: "tool-x", toolCallId: "c", state: "output-error" }),
  (m) => m.parts.push({ type: "tool-x", toolCallId: "c", state: "output-error", errorText: "e" }),
  (m) => m.parts.push({ type: "tool-x", toolCallId: "c", state: "approval-requested" }),
  (m) => m.parts.push({ type: "tool-x", toolCallId: "c", state: "approval-requested", approval: [] }),
  (m) => m.parts.push({ type: "tool-x", toolCallId: "c", state: "approval-requested", approval: { id: 1 } }),
  (m) => m.parts.push({ type: "tool-x", toolCallId: "c", state: "approval-responded", approval: { id: "a" } }),
  (m) => m.parts.push({ type: "tool-x", toolCallId: "c", state: "output-denied" }),
  (m) => m.parts.push({ type: "tool-x", toolCallId: "c", state: "output-available", output: { toJSON: () => "a string" } }),
  (m) => m.parts.push({ type: "text", text: { toJSON: () => "a string after all" } }),
  (m) => m.parts.push({ type: "text", text: "t", toJSON: () => ({ type: "nope" }) }),
];

test("the JS side sends early what the module takes: every message it refuses waits for it", () => {
  const verdicts = { sent: 0, refused: 0, left: 0 };
  const base = () => [user("u1", [text("a")]), assistant("a1", [text("b")])];
  for (const [i, mangle] of MANGLES.entries()) {
    for (const where of ["history user", "history assistant", "sent"]) {
      const history = base();
      const sent = user("m1", [text("hi")]);
      mangle(where === "sent" ? sent : history[where === "history user" ? 0 : 1]);
      const js = firstRequestBody("{}", "c", JSON.stringify(history), JSON.stringify(sent));
      const expected = moduleBody("{}", "c", history, sent);
      const what = `mangle ${i} on the ${where}: ${expected.refused ?? "taken"}`;
      if (expected.body === undefined) {
        assert.ok(expected.refused instanceof TypeError, what);
        assert.equal(js, null, what);
        verdicts.refused++;
      } else if (early(JSON.parse(expected.body).messages)) {
        assert.equal(js, expected.body, what);
        verdicts.sent++;
      } else {
        assert.equal(js, null, what);
        verdicts.left++;
      }
    }
  }
  assert.ok(verdicts.sent > 15 && verdicts.refused > 50 && verdicts.left > 20, `every kind was tried: ${JSON.stringify(verdicts)}`);
});

test("what the module would write otherwise waits for it: lone surrogates, nesting past its depth, text that is not JSON", () => {
  const sent = user("m1", [text("hi")]);
  // A lone surrogate: the module reads it as U+FFFD, so its body is not the JS one.
  for (const lone of ["\ud800", "a\udfff", "\udbff\ud800"]) {
    const cases = [
      ["{}", "c", [user("u1", [text(lone)])], sent],
      ["{}", "c", [], user("m1", [text(lone)])],
      ["{}", lone, [], sent],
      [JSON.stringify({ [lone]: 1 }), "c", [], sent],
      [JSON.stringify({ k: lone }), "c", [], sent],
      ["{}", "c", [], user("m1", [{ type: "text", text: "t", [lone]: 1 }])],
    ];
    for (const [json, chatId, history, message] of cases) {
      // What the module writes is not what JSON.stringify writes for it.
      const written = JSON.stringify({ ...JSON.parse(json), id: chatId, messages: [...history, message], trigger: "submit-message" });
      const { body } = moduleBody(json, chatId, history, message);
      assert.ok(body.includes("\ufffd") && !written.includes("\ufffd") && body.length < written.length, body);
      assert.equal(firstRequestBody(json, chatId, JSON.stringify(history), JSON.stringify(message)), null, JSON.stringify(lone));
    }
  }
  // Metadata nested `levels` deep: the module reads 128 levels in a value, and the body is one more.
  const nested = (levels) => Array.from({ length: levels - 1 }).reduce((inner) => ({ d: inner }), {});
  let sentDeepest = 0;
  for (let levels = 120; levels <= 132; levels++) {
    for (const [json, history, message] of [
      [JSON.stringify({ m: nested(levels) }), [], sent],
      ["{}", [user("u1", [text("a")], { metadata: nested(levels) })], sent],
      ["{}", [], user("m1", [text("a")], { metadata: nested(levels) })],
    ]) {
      const js = firstRequestBody(json, "c", JSON.stringify(history), JSON.stringify(message));
      const expected = moduleBody(json, "c", history, message);
      if (js !== null) {
        assert.equal(js, expected.body, `${levels} levels`);
        sentDeepest = Math.max(sentDeepest, levels);
      }
    }
  }
  assert.ok(sentDeepest >= 124, "values nested well within the module's depth go early");
  assert.ok(moduleBody(JSON.stringify({ m: nested(129) }), "c", [], sent).refused instanceof TypeError, "the module refuses 129 levels in a field of the body");
  // Text that is not JSON (what JSON.stringify gives for a function) or not messages: the module is given the same, and refuses it.
  assert.equal(firstRequestBody("{}", "c", undefined, JSON.stringify(sent)), null);
  assert.equal(firstRequestBody("{}", "c", "[]", undefined), null);
  assert.equal(firstRequestBody("{}", "c", JSON.stringify("not an array"), JSON.stringify(sent)), null);
  assert.equal(firstRequestBody("{}", "c", "[null]", JSON.stringify(sent)), null);
});
