// Every ChatStream's push copies its chunk into one buffer in the module's memory (pkg-template/api.js,
// src/wasm/stream.rs): streams read in turns, each chunk larger or smaller than the last, read
// what each frame says; chunks over the buffer's 64 KB go the general way and read the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();
const openai = (content) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const done = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
const ollama = (content, last) => `${JSON.stringify({ model: "m", message: { role: "assistant", content }, done: last })}\n`;

const texts = (events) => events.filter((e) => e.type === "text_delta").map((e) => e.text).join("");

test("streams pushed in turns each read their own frames, whatever size the chunk before was", () => {
  // Each frame's text is what the stream must hand out for that push (no spaces at the ends:
  // the cleaner trims those of the whole answer).
  const a = ["One", "x".repeat(5000), "é😀", "Three"].map((t, i) => ({ text: t, chunk: i % 2 ? encoder.encode(openai(t)) : openai(t) }));
  const b = ["Alpha", "b", "c".repeat(20000), "中文"].map((t, i) => ({ text: t, chunk: i % 2 ? ollama(t, false) : encoder.encode(ollama(t, false)) }));
  const first = new ChatStream({ dialect: "openai" });
  const second = new ChatStream({ dialect: "ollama" });
  for (let i = 0; i < a.length; i++) {
    assert.equal(texts(first.push(a[i].chunk)), a[i].text, `openai frame ${i}`);
    assert.equal(texts(second.push(b[i].chunk)), b[i].text, `ollama frame ${i}`);
  }
  const one = first.push(done).concat(first.finish());
  const two = second.push(ollama("", true)).concat(second.finish());
  assert.equal(one.at(-1).payload.text, a.map((f) => f.text).join(""));
  assert.equal(two.at(-1).payload.text, b.map((f) => f.text).join(""));
  first.free();
  second.free();
});

test("a chunk over 64 KB, as bytes or as a string, reads as a small one does, before and after small ones", () => {
  for (const asBytes of [true, false]) {
    const big = "w".repeat(70 * 1024);
    const frames = ["small", big, "after", "é".repeat(30000), "end"];
    const stream = new ChatStream({ dialect: "openai" });
    for (const text of frames) {
      const chunk = asBytes ? encoder.encode(openai(text)) : openai(text);
      assert.equal(texts(stream.push(chunk)), text, `${text.slice(0, 8)}… (${text.length} units, ${asBytes ? "bytes" : "a string"})`);
    }
    stream.free();
  }
});

test("a freed stream's push is refused, and does not disturb a live stream's", () => {
  const live = new ChatStream({ dialect: "openai" });
  const freed = new ChatStream({ dialect: "openai" });
  assert.equal(texts(live.push(openai("before"))), "before");
  freed.free();
  assert.throws(() => freed.push(encoder.encode(openai("never"))));
  assert.equal(texts(live.push(encoder.encode(openai("after")))), "after");
  live.free();
});
