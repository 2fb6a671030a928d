// A session's saved state holds a long answer's text and thinking once each (its parts and
// segments, which the text makes again when read back, are left out), and reading it back gives
// the same messages: what saveMessages() writes is what an app keeps, as large as the answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const frame = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** An Anthropic answer: `thinking`, then `text`, each in deltas of 1,000 code points. */
function answer(thinking, text) {
  const deltas = (s, delta) => {
    const chars = [...s]; // by code point: no cut inside a pair
    const out = [];
    for (let at = 0; at < chars.length; at += 1000) out.push(delta(chars.slice(at, at + 1000).join("")));
    return out;
  };
  const block = (index, type, delta) => [
    frame("content_block_start", { index, content_block: { type, [type]: "" } }),
    ...deltas(type === "text" ? text : thinking, (piece) =>
      frame("content_block_delta", { index, delta: type === "text" ? { type: "text_delta", text: piece } : { type: "thinking_delta", thinking: piece } }),
    ),
    frame("content_block_stop", { index }),
  ];
  return [
    frame("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], usage: { input_tokens: 1, output_tokens: 1 } } }),
    ...block(0, "thinking"),
    ...block(1, "text"),
    frame("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }),
    frame("message_stop", {}),
  ];
}

async function sessionOver(frames) {
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    start(controller) {
      for (const f of frames) controller.enqueue(encoder.encode(f));
      controller.close();
    },
  });
  const chat = new ChatSession({ dialect: "anthropic", fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
  for await (const _ of chat.send("write it"));
  return chat;
}

const occurrences = (text, of) => text.split(of).length - 1;

test("a long answer's text and thinking are saved once each, and read back as the same messages", async () => {
  // Each holds a word found nowhere else, and characters of every UTF-8 width and ones JSON
  // escapes; neither begins or ends with whitespace (an answer's text is trimmed).
  const text = 'Answer-word é🙂 "quoted"\n ✓ ' + "plain é🙂 answer text ✓ \\ ".repeat(40_000) + "end";
  const thinking = "Thought-word " + "plain é🙂 thought ✓\t".repeat(20_000) + "end";
  const chat = await sessionOver(answer(thinking, text));
  const messages = chat.getSnapshot().messages;
  const last = messages.at(-1);
  assert.ok(last.content === text, "the message's content is the text");
  assert.ok(last.thinking === thinking, "its thinking");
  assert.ok(last.parts.some((p) => p.type === "text" && p.text === text), "its text part");
  const saved = chat.saveMessages();
  assert.equal(occurrences(saved, "Answer-word"), 1, "the text is saved once");
  assert.equal(occurrences(saved, "Thought-word"), 1, "the thinking is saved once");
  assert.ok(saved.length < text.length * 1.2 + thinking.length * 1.2, `saved ${saved.length} characters`);
  const restored = new ChatSession({ dialect: "anthropic" });
  restored.loadMessages(saved);
  assert.deepEqual(restored.getSnapshot().messages, messages);
  assert.equal(restored.saveMessages(), saved, "saved again, the same text");
  chat.dispose();
  restored.dispose();
});

test("saved messages are the JSON text JSON.stringify writes, long strings, every escape and many short messages", () => {
  // Every control character, the ones JSON escapes by letter, DEL, the line and paragraph
  // separators, emoji, and NUL (which marks a long string set aside inside the module).
  let escapes = '"\\/\u007f\u2028\u2029é🙂✓';
  for (let c = 0; c < 0x20; c++) escapes += String.fromCharCode(c);
  const long = (word) => `${word} ${escapes} ` + "plain é🙂 text ✓\n".repeat(5_000) + escapes;
  const repeated = long("Repeated-word");
  // A long string is escaped 64 KB at a time: an emoji and escapes across the cuts.
  const straddling = "a".repeat(65_534) + "🙂\n" + "b".repeat(65_530) + '\n"🙂\u0001' + "c".repeat(100);
  const messages = [];
  // A conversation of many short messages (nothing set aside), some right at the length limit.
  for (let i = 0; i < 300; i++) {
    const content = i % 50 === 0 ? "x".repeat(1023) : `turn ${i} ${escapes}`;
    messages.push({ id: `m${i}`, role: i % 2 ? "assistant" : "user", content });
  }
  messages.push({ id: "a", role: "user", content: long("User-word") + "x".repeat(1024) });
  messages.push({ id: "b", role: "assistant", content: repeated, thinking: repeated });
  messages.push({ id: "c", role: "assistant", content: `${escapes}\u0000\u00001"\u0000` + "y".repeat(2000), custom_payload: { note: repeated, short: escapes, straddling } });
  messages.push({ id: "d", role: "user", content: repeated });
  const chat = new ChatSession({ dialect: "anthropic" });
  chat.setMessages(messages);
  const saved = chat.saveMessages();
  assert.equal(saved, JSON.stringify(JSON.parse(saved)), "written as JSON.stringify writes it");
  const restored = new ChatSession({ dialect: "anthropic" });
  restored.loadMessages(saved);
  assert.deepEqual(restored.getSnapshot().messages, chat.getSnapshot().messages);
  assert.equal(restored.saveMessages(), saved, "saved again, the same text");
  const back = JSON.parse(saved);
  assert.equal(back.length, messages.length);
  assert.equal(back.at(-1).content, repeated);
  assert.equal(back.at(-2).content, messages.at(-2).content);
  assert.deepEqual(back.at(-2).custom_payload, messages.at(-2).custom_payload);
  chat.dispose();
  restored.dispose();
});
