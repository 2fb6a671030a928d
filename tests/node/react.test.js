// The React hook drives a session: rendered with react-test-renderer, updated by the stream.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import React from "react";
import TestRenderer, { act } from "react-test-renderer";

import { initSync } from "../../pkg/index.js";
import { useGeneralChat } from "../../pkg/react.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

const encoder = new TextEncoder();

test("useGeneralChat renders the streaming text and then the final message", async () => {
  let release; // lets the test hold the body open after the first delta
  const held = new Promise((r) => (release = r));
  const fetch = async () =>
    new Response(
      new ReadableStream({
        async start(c) {
          c.enqueue(encoder.encode('data: {"type":"text_delta","text":"Hello"}\n\n'));
          await held;
          c.enqueue(encoder.encode('data: {"type":"complete","payload":{"message":"Hello world"}}\n\n'));
          c.close();
        },
      }),
    );
  const renders = [];
  let chat;
  function Chat() {
    chat = useGeneralChat({ fetch });
    renders.push({ streamingText: chat.streamingText, isLoading: chat.isLoading, messages: chat.messages.length });
    return React.createElement("p", null, chat.streamingText);
  }
  let renderer;
  await act(async () => {
    renderer = TestRenderer.create(React.createElement(Chat));
  });
  let sent;
  await act(async () => {
    sent = chat.sendMessage("hi");
    await new Promise((r) => setTimeout(r, 20));
  });
  assert.equal(renderer.toJSON().children[0], "Hello", "the streaming text is on screen");
  assert.equal(chat.isLoading, true);
  await act(async () => {
    release();
    await sent;
  });
  assert.equal(chat.isLoading, false);
  assert.deepEqual(chat.messages.map((m) => m.content), ["hi", "Hello world"]);
  assert.equal(chat.error, null);
  assert.ok(renders.some((r) => r.streamingText === "Hello" && r.isLoading));
});
