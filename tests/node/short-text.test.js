// A push's short ASCII text is decoded from the module's memory by the package's JS
// (pkg-template/api.js), the rest by TextDecoder: every width of character, at every place
// against the JS decoder's eight-byte steps, on both sides of the length where TextDecoder takes over.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const frame = (content) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

// One frame a push, as a live read hands them over: each push's text is that frame's delta.
const deltas = (contents, asBytes) => {
  const stream = new ChatStream({ dialect: "openai" });
  const encoder = new TextEncoder();
  const read = contents.map((content) => {
    const chunk = asBytes ? encoder.encode(frame(content)) : frame(content);
    return stream.push(chunk).filter((e) => e.type === "text_delta").map((e) => e.text).join("");
  });
  stream.free();
  return read;
};

test("a one-frame push's text of every width, at every offset and length up to past 64 bytes and beyond, reads as sent", () => {
  // One, two, three and four bytes in UTF-8 (the last two units in UTF-16), and the ends of ranges.
  const wide = ["é", "\u07FF", "€", "\uFFFD", "\uFFFF", "😀", "\u{10000}", "\u{10FFFF}", "中"];
  const contents = [];
  for (const char of wide) {
    for (let before = 0; before < 9; before++) {
      for (const after of [0, 1, 7, 8, 9, 50, 54, 55, 56, 63, 64, 65, 200]) contents.push("a".repeat(before) + char + "z".repeat(after));
    }
    contents.push(char.repeat(70), (char + "ab").repeat(30));
  }
  contents.push("plain ascii only", "x".repeat(63), "x".repeat(64), "x".repeat(65), "x".repeat(300), "é".repeat(32), "é".repeat(33));
  for (let n = 1; n <= 66; n++) contents.push("abcdefgh".repeat(9).slice(0, n));
  for (const asBytes of [false, true]) {
    const read = deltas(contents, asBytes);
    for (let i = 0; i < contents.length; i++) assert.equal(read[i], contents[i], `${JSON.stringify(contents[i].slice(0, 12))}… (${contents[i].length} units)`);
  }
});
