// chatstream/streaming: the same API over its own, smaller module, without provider mode.
import { test } from "node:test";
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import * as full from "../../pkg/node.js";
import * as streaming from "../../pkg/streaming/node.js";

const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

test("it exports what chatstream exports, over a module of its own that is smaller", () => {
  assert.deepEqual(Object.keys(streaming).sort(), Object.keys(full).sort());
  assert.notEqual(streaming.ChatStream, full.ChatStream);
  const size = (path) => statSync(new URL(path, import.meta.url)).size;
  assert.ok(size("../../pkg/streaming/chatstream_bg.wasm") < size("../../pkg/chatstream_bg.wasm"));
});

test("streams and sessions work the same as with chatstream", async () => {
  const body = sse([{ type: "text_delta", text: "Hi" }, { type: "complete", payload: { message: "Hi" } }]);
  const events = [];
  for await (const event of streaming.streamEvents(new Response(body))) events.push(event);
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "complete"]);

  const chat = new streaming.ChatSession({ fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
  for await (const _ of chat.send("hello"));
  assert.deepEqual(chat.getSnapshot().messages.map((m) => [m.role, m.content]), [["user", "hello"], ["assistant", "Hi"]]);
  chat.dispose();
});

test("provider mode is refused with a TypeError that names the entry that has it", () => {
  assert.throws(() => new streaming.ChatSession({ provider: "openai", model: "gpt-4o" }), {
    name: "TypeError",
    message: /provider mode is not in chatstream\/streaming: import ChatSession from "chatstream"/,
  });
  // A session pointed at a provider route is refused as in chatstream, before any request.
  const chat = new streaming.ChatSession({ endpoint: "/api/chat/openai", fetch: () => assert.fail("nothing is sent") });
  return (async () => {
    const events = [];
    for await (const event of chat.send("hi")) events.push(event);
    assert.equal(events[0].code, "VALIDATION_ERROR");
    chat.dispose();
  })();
});
