// chatstream/ai-sdk, the entry for an app that moves over from useChat: the AI SDK backend mode
// alone, over a module without dialects or ChatStream. Used as an app uses it, against the AI SDK
// test backend (tests/ai-sdk/server.js: a real streamText route over a scripted mock model); what
// each answer must be is what that script says, checked by hand.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import React from "react";
import TestRenderer, { act } from "react-test-renderer";
import * as entry from "../../pkg/ai-sdk/node.js";
import { useGeneralChat } from "../../pkg/ai-sdk/react-node.js";
import { startBackend } from "../ai-sdk/server.js";

globalThis.IS_REACT_ACT_ENVIRONMENT = true;
const backend = await startBackend();
after(() => backend.close());
const api = `${backend.url}api/chat`;

const textOf = (message) => message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
const elsewhere = /chatstream\/ai-sdk has only the AI SDK backend mode: give backend: "ai-sdk", or import from "chatstream\/streaming"/;

test("chatstream/ai-sdk exports the AI SDK backend mode only, over the smallest module of the package", () => {
  assert.deepEqual(Object.keys(entry).sort(), [
    "AiSdkChat",
    "ChatSession",
    "ChatstreamError",
    "default",
    "initSync",
    "isReady",
    "lastAssistantMessageIsCompleteWithApprovalResponses",
    "lastAssistantMessageIsCompleteWithToolCalls",
  ]);
  assert.equal(entry.isReady(), true, "loaded on import in Node");
  const size = (dir) => statSync(new URL(`../../pkg/${dir}chatstream_bg.wasm`, import.meta.url)).size;
  for (const other of ["", "streaming/", "agent/", "openai/"]) {
    assert.ok(size("ai-sdk/") < size(other), `smaller than the module of chatstream${other ? `/${other.slice(0, -1)}` : ""}`);
  }
});

test("chatstream/ai-sdk: a ChatSession of another backend is refused with a TypeError naming the entries that have it", () => {
  assert.throws(() => new entry.ChatSession({ endpoint: "/api/chat" }), (e) => e instanceof TypeError && elsewhere.test(e.message));
  assert.throws(() => new entry.ChatSession(), (e) => e instanceof TypeError && elsewhere.test(e.message));
  const chat = new entry.ChatSession({ backend: "ai-sdk", api });
  assert.ok(chat instanceof entry.AiSdkChat, "backend: \"ai-sdk\" makes an AiSdkChat, as in the other entries");
  chat.dispose();
});

test("chatstream/ai-sdk: an answer streams into messages; a client tool closes its loop by itself", async () => {
  const location = { city: "Berlin", latitude: 52.52, longitude: 13.405, accuracy: "city" };
  const statuses = [];
  const chat = new entry.AiSdkChat({
    api,
    sendAutomaticallyWhen: entry.lastAssistantMessageIsCompleteWithToolCalls,
    onToolCall: ({ toolCall }) => void chat.addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId, output: location }),
  });
  chat.subscribe(() => statuses.push(chat.status));

  await chat.sendMessage({ text: "hello" });
  assert.equal(chat.status, "ready");
  assert.ok(statuses.includes("streaming"));
  assert.deepEqual(chat.messages.map((m) => m.role), ["user", "assistant"]);
  assert.equal(textOf(chat.messages[1]), "Hello! How can I help you today?");
  assert.deepEqual(chat.messages[1].metadata, { model: "scripted-mock", totalTokens: 46 });

  await chat.sendMessage({ text: "where am I?" }); // resolves once the automatic request is over too
  assert.equal(chat.messages.length, 4, "the continuation is the same message");
  const answer = chat.messages[3];
  const tool = answer.parts.find((p) => p.type === "tool-getLocation");
  assert.equal(tool.state, "output-available");
  assert.deepEqual(tool.output, location);
  assert.equal(textOf(answer), `You are in ${JSON.stringify(location)}.`);
  assert.equal(backend.requests.at(-1).body.messages.length, 4, "the second request carried the tool's output");
  chat.dispose();
});

test("chatstream/ai-sdk: an HTTP error has the code of its status and, as in useChat, the body's text as its message", async () => {
  const cases = [
    [500, '{"error":{"message":"the model is overloaded"}}', "SERVICE_UNAVAILABLE"],
    [404, '{"detail":"No such chat"}', "NOT_FOUND"],
    [429, "slow down", "RATE_LIMITED"],
    [400, "", "VALIDATION_ERROR"],
  ];
  for (const [status, body, code] of cases) {
    const chat = new entry.AiSdkChat({ api, fetch: async () => new Response(body, { status }) });
    await chat.sendMessage({ text: "hello" });
    assert.equal(chat.status, "error", body);
    assert.equal(chat.error.code, code, body);
    assert.equal(chat.error.message, body || "Failed to fetch the chat response.", body);
    assert.deepEqual(chat.messages.map((m) => m.role), ["user"], "the question stays");
    chat.dispose();
  }
});

test("chatstream/ai-sdk/react: useGeneralChat({ backend: \"ai-sdk\" }) renders the answer; any other backend is refused", async () => {
  let view;
  function Chat() {
    view = useGeneralChat({ backend: "ai-sdk", api, id: "entry-chat" });
    return React.createElement("p", null, view.messages.map(textOf).join(" | "));
  }
  let renderer;
  await act(async () => {
    renderer = TestRenderer.create(React.createElement(Chat));
  });
  await act(async () => view.sendMessage({ text: "hello" }));
  assert.equal(renderer.toJSON().children[0], "hello | Hello! How can I help you today?");
  assert.equal(view.status, "ready");
  assert.equal(backend.requests.at(-1).body.id, "entry-chat");
  await act(async () => renderer.unmount());

  const refusedHere = (e) => e instanceof TypeError && elsewhere.test(e.message);
  assert.throws(() => useGeneralChat({ endpoint: "/api/chat" }), refusedHere);
});
