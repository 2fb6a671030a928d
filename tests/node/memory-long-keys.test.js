// A tool call's arguments read as partial_input hold about their own length in the module, even as
// an object of long keys with escapes: a key long enough to be given room for the rest of the text
// gives that room back once it ends (src/clean/partial_json.rs), so the memory the read takes grows
// with the arguments, not with their square (the module's memory never shrinks, and past 4 GB it traps).
import { test } from "node:test";
import assert from "node:assert/strict";

import { memory, ChatStream } from "./module-memory.js";

const frame = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

test("an object of 30 keys of 140 KB, each with a \\n every 1,000 characters: reading partial_input takes memory of the order of its length", () => {
  const key = (k) => String(k).padStart(6, "0") + ("x".repeat(999) + "\n").repeat(140);
  const args = `{${Array.from({ length: 30 }, (_, k) => `${JSON.stringify(key(k))}:1`).join(",")}}`;
  let body =
    frame("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], usage: {} } }) +
    frame("content_block_start", { index: 0, content_block: { type: "tool_use", id: "t1", name: "f", input: {} } });
  for (let i = 0; i < args.length; i += 64 * 1024) {
    body += frame("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: args.slice(i, i + 64 * 1024) } });
  }
  const deltas = new ChatStream({ dialect: "anthropic" }).push(body).filter((e) => e.type === "tool_input_delta");
  const before = memory.buffer.byteLength;
  const value = deltas.at(-1).partial_input;
  const grown = memory.buffer.byteLength - before;
  assert.deepEqual(Object.keys(value), Array.from({ length: 30 }, (_, k) => key(k)));
  // Each key kept room for the rest of the text: 66 MB for these 4.2 MB (about 8 MB now).
  assert.ok(grown < 4 * args.length, `memory grew by ${grown} bytes reading ${args.length} bytes of arguments`);
});
