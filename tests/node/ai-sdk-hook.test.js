// useGeneralChat({ backend: "ai-sdk" }) rendered with react-test-renderer against the AI SDK test
// backend (tests/ai-sdk/server.js): it returns what useChat returns, and its state moves with the stream.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import React, { StrictMode } from "react";
import TestRenderer, { act } from "react-test-renderer";
import { lastAssistantMessageIsCompleteWithToolCalls } from "../../pkg/node.js";
import { useGeneralChat } from "../../pkg/react-node.js";
import { startBackend } from "../ai-sdk/server.js";

globalThis.IS_REACT_ACT_ENVIRONMENT = true;
const backend = await startBackend();
after(() => backend.close());
const api = `${backend.url}api/chat`;

const textOf = (message) => message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Renders a component calling the hook with `options()` (read on every render), in StrictMode as apps do. */
async function render(options) {
  const renders = [];
  const view = {};
  function Chat() {
    const chat = useGeneralChat(options());
    renders.push({ status: chat.status, messages: chat.messages.length, id: chat.messages[1]?.id });
    view.chat = chat;
    return React.createElement("p", null, chat.messages.map(textOf).join(" | "));
  }
  await act(async () => {
    view.renderer = TestRenderer.create(React.createElement(StrictMode, null, React.createElement(Chat)));
  });
  return { view, renders };
}

test("the hook returns useChat's fields, and renders the answer as it streams under one id", async () => {
  const { view, renders } = await render(() => ({ backend: "ai-sdk", api, id: "chat-1" }));
  assert.deepEqual(Object.keys(view.chat).sort(), [
    "addToolApprovalResponse", "addToolOutput", "clearError", "error", "id", "messages", "regenerate", "sendMessage", "setMessages", "status", "stop",
  ]);
  assert.equal(view.chat.id, "chat-1");
  assert.equal(view.chat.status, "ready");
  await act(async () => view.chat.sendMessage({ text: "hello" }));
  assert.equal(view.renderer.toJSON().children[0], "hello | Hello! How can I help you today?");
  assert.equal(view.chat.status, "ready");
  const statuses = renders.map((r) => r.status).filter((s, i, all) => s !== all[i - 1]);
  assert.deepEqual(statuses, ["ready", "submitted", "streaming", "ready"]);
  assert.equal(new Set(renders.filter((r) => r.id).map((r) => r.id)).size, 1, "the answer's React key never changes");
  assert.equal(backend.requests.at(-1).body.id, "chat-1");
  await act(async () => view.renderer.unmount());
});

test("the callbacks of the latest render are called; the tool loop closes; setMessages takes an updater; unmounting stops the answer", async () => {
  let render1 = true;
  const finished = [];
  const location = { city: "Berlin" };
  const { view } = await render(() => {
    const round = render1 ? "first" : "later";
    return {
      backend: "ai-sdk",
      api,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
      onToolCall: ({ toolCall }) => void view.chat.addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId, output: location }),
      onFinish: ({ finishReason }) => finished.push(`${round}:${finishReason}`),
    };
  });
  render1 = false;
  await act(async () => view.chat.sendMessage({ text: "where am I?" }));
  assert.deepEqual(finished, ["later:tool-calls", "later:stop"]);
  assert.equal(textOf(view.chat.messages[1]), `You are in ${JSON.stringify(location)}.`);

  await act(async () => view.chat.setMessages((messages) => messages.slice(0, 1)));
  assert.deepEqual(view.chat.messages.map((m) => m.role), ["user"]);

  let sent;
  await act(async () => {
    sent = view.chat.sendMessage({ text: "tell me a story" });
    await settle();
  });
  const requests = backend.requests.length;
  await act(async () => view.renderer.unmount());
  await sent;
  await settle();
  assert.equal(backend.requests.length, requests, "nothing sent after the unmount");
});
