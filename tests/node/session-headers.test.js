// A response's headers can name its dialect (the AI SDK's UI message stream header). A session
// hands them to the module when it has no dialect to read with ("auto" or none), and not when one
// is given: the module would not read them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as glue from "../../pkg/chatstream.js";
import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

/** The answer a session with `options` shows for `body` sent with `headers`, and how often it called the module's useResponse. */
async function answer(options, body, headers) {
  const { useResponse } = glue.ChatSession.prototype;
  let calls = 0;
  glue.ChatSession.prototype.useResponse = function (...args) {
    calls++;
    return useResponse.apply(this, args);
  };
  try {
    const session = new ChatSession({ ...options, fetch: async () => new Response(body, { headers }) });
    for await (const _ of session.send("hi"));
    const last = session.getSnapshot().messages.at(-1);
    session.dispose();
    return { role: last.role, content: last.content, calls };
  } finally {
    glue.ChatSession.prototype.useResponse = useResponse;
  }
}

// The AI SDK's UI message stream: its text parts, named as such by its header.
const UI_STREAM = [
  { type: "start" },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Hel" },
  { type: "text-delta", id: "t", delta: "lo" },
  { type: "text-end", id: "t" },
  { type: "finish" },
]
  .map((part) => `data: ${JSON.stringify(part)}\n\n`)
  .concat("data: [DONE]\n\n")
  .join("");
const UI_HEADERS = { "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1" };

test("without a dialect, or with auto, the headers go to the module and name the dialect", async () => {
  for (const options of [{}, { dialect: "auto" }, { dialect: null }]) {
    assert.deepEqual(await answer(options, UI_STREAM, UI_HEADERS), { role: "assistant", content: "Hello", calls: 1 }, JSON.stringify(options));
  }
});

test("with a dialect given, the headers are not handed over, and the answer is read with that dialect", async () => {
  const openai = ["Hel", "lo"].map((text) => `data: ${JSON.stringify({ choices: [{ delta: { content: text } }] })}\n\n`).join("") + "data: [DONE]\n\n";
  assert.deepEqual(await answer({ dialect: "openai" }, openai, UI_HEADERS), { role: "assistant", content: "Hello", calls: 0 });
  assert.deepEqual(await answer({ dialect: "ui-message-stream" }, UI_STREAM, { "content-type": "text/event-stream" }), {
    role: "assistant",
    content: "Hello",
    calls: 0,
  });
});
