// What a useChat user expects of ChatSession and useGeneralChat, through the built package:
// message ids, regenerate, setMessages, clearError and stop, callbacks, per-request headers and
// body, message parts, tool approval, the hook's lifecycle; and the stored shapes and length
// stops the agent backend's data has.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import React from "react";
import TestRenderer, { act } from "react-test-renderer";

import { initSync, ChatSession, ChatStream, resolveToolMarkers } from "../../pkg/index.js";
import { ChatSession as ModuleChatSession } from "../../pkg/chatstream.js";
import { useGeneralChat } from "../../pkg/react.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

const encoder = new TextEncoder();
const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

/** An agent-protocol answer saying `text`. */
const answer = (text, extra = []) =>
  sse([{ type: "text_delta", text }, ...extra, { type: "complete", payload: { message: text } }]);

/** A fetch that answers each request with the next of `bodies` (text, or a ReadableStream). */
function scripted(bodies, requests = []) {
  let next = 0;
  return async (url, init) => {
    requests.push({ url, init, body: JSON.parse(init.body), headers: { ...init.headers } });
    const body = bodies[Math.min(next++, bodies.length - 1)];
    if (body instanceof Error) throw body;
    // An array is a body that arrives in those pieces, each read on its own.
    const sent = Array.isArray(body) ? ReadableStream.from(body.map((piece) => new TextEncoder().encode(piece))) : body;
    return new Response(sent, { headers: { "content-type": "text/event-stream" } });
  };
}

/** A body that sends `first`, then waits for `release()` before the rest; `signal` aborts it. */
function heldOpen(first, rest) {
  let release;
  const released = new Promise((resolve) => (release = resolve));
  const stream = new ReadableStream({
    async start(controller) {
      controller.enqueue(encoder.encode(first));
      await released;
      controller.enqueue(encoder.encode(rest));
      controller.close();
    },
  });
  return { stream, release };
}

async function drain(events) {
  const all = [];
  for await (const event of events) all.push(event);
  return all;
}

test("every message has a stable unique id, kept across snapshots, saves and loads", async () => {
  const chat = new ChatSession({ fetch: scripted([answer("one"), answer("two")]) });
  await drain(chat.send("first"));
  const afterOne = chat.getSnapshot().messages.map((m) => m.id);
  await drain(chat.send("second"));
  const ids = chat.getSnapshot().messages.map((m) => m.id);
  assert.equal(ids.length, 4);
  assert.deepEqual(ids.slice(0, 2), afterOne, "ids do not change as the conversation grows");
  assert.equal(new Set(ids).size, 4);
  assert.ok(ids.every((id) => typeof id === "string" && id.length > 0));
  const other = new ChatSession({});
  other.loadMessages(chat.saveMessages());
  assert.deepEqual(other.getSnapshot().messages.map((m) => m.id), ids);
  const fresh = new ChatSession({ fetch: scripted([answer("x")]) });
  await drain(fresh.send("y"));
  assert.ok(!ids.includes(fresh.getSnapshot().messages[0].id), "another session's ids differ");
  const counted = new ChatSession({ fetch: scripted([answer("x")]), generateId: (() => { let n = 0; return () => `app-${++n}`; })() });
  await drain(counted.send("y"));
  assert.deepEqual(counted.getSnapshot().messages.map((m) => m.id), ["app-1", "app-2"], "the app's generateId");
  for (const c of [chat, other, fresh, counted]) c.dispose();
});

test("regenerate replaces the last answer; after a failed turn it retries with no orphan or error left", async () => {
  const requests = [];
  const chat = new ChatSession({
    fetch: scripted([answer("one"), answer("two"), new TypeError("Failed to fetch"), answer("retried")], requests),
  });
  await drain(chat.send("first", { page: "a" }));
  await drain(chat.regenerate());
  assert.deepEqual(chat.getSnapshot().messages.map((m) => m.content), ["first", "two"]);
  assert.equal(requests[1].body.message, "first");
  assert.deepEqual(requests[1].body.context, { page: "a" });
  assert.deepEqual(requests[1].body.conversation_history, []);

  await drain(chat.send("second"));
  assert.equal(chat.getSnapshot().error.code, "NETWORK_ERROR");
  assert.deepEqual(chat.getSnapshot().messages.map((m) => m.content), ["first", "two", "second"]);
  await drain(chat.regenerate());
  const state = chat.getSnapshot();
  assert.equal(state.error, null);
  assert.deepEqual(state.messages.map((m) => m.content), ["first", "two", "second", "retried"]);
  assert.equal(requests[3].body.message, "second");
  chat.dispose();
});

test("regenerate, setMessages and a second send are CONFLICT while a turn is in flight", async () => {
  const { stream, release } = heldOpen(sse([{ type: "text_delta", text: "Hel" }]), answer("lo"));
  const chat = new ChatSession({ fetch: scripted([stream]) });
  const turn = drain(chat.send("hi"));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(chat.getSnapshot().isLoading, true);
  const refused = await drain(chat.regenerate());
  assert.deepEqual(refused.map((e) => e.code), ["CONFLICT"]);
  assert.throws(() => chat.setMessages([]), { name: "ChatstreamError", code: "CONFLICT" });
  assert.throws(() => chat.loadMessages("[]"), { name: "ChatstreamError", code: "CONFLICT" });
  release();
  await turn;
  chat.dispose();
});

test("setMessages replaces the conversation, and messages given without ids get them", () => {
  const chat = new ChatSession({});
  chat.setMessages([
    { role: "user", content: "Find CRISPR" },
    { id: "kept", role: "assistant", content: "Searching.[[tool:0]]Found 5.", tool_history: [{ tool_name: "search", input: { q: "x" }, output: "5" }] },
  ]);
  const [user, assistant] = chat.getSnapshot().messages;
  assert.ok(user.id.length > 0);
  assert.equal(assistant.id, "kept");
  assert.deepEqual(assistant.parts.map((p) => p.type), ["text", "tool", "text"]);
  chat.dispose();
});

test("stop is cancel; clearError clears the error", async () => {
  const { stream } = heldOpen(sse([{ type: "text_delta", text: "Partial" }]), "");
  const chat = new ChatSession({ fetch: scripted([stream, new TypeError("Failed to fetch")]) });
  const turn = drain(chat.send("hi"));
  await new Promise((resolve) => setTimeout(resolve, 20));
  chat.stop();
  const events = await turn;
  assert.deepEqual(events.slice(-2).map((e) => e.type), ["complete", "cancelled"]);
  assert.equal(chat.getSnapshot().messages[1].cancelled, true);
  await drain(chat.send("again"));
  assert.equal(chat.getSnapshot().error.code, "NETWORK_ERROR");
  chat.clearError();
  assert.equal(chat.getSnapshot().error, null);
  chat.dispose();
});

test("onFinish of a stopped answer gets the message as messages shows it, cancelled", async () => {
  const { stream } = heldOpen(sse([{ type: "text_delta", text: "Partial" }]), "");
  const finished = [];
  const chat = new ChatSession({ fetch: scripted([stream]), onFinish: (message) => finished.push(message) });
  const turn = drain(chat.send("hi"));
  await new Promise((resolve) => setTimeout(resolve, 20));
  chat.stop();
  await turn;
  assert.equal(finished.length, 1);
  assert.equal(finished[0].content, "Partial");
  assert.equal(finished[0].cancelled, true);
  assert.equal(finished[0], chat.getSnapshot().messages.at(-1));
  chat.dispose();
});

test("callbacks: onFinish, onError, onData; a callback that throws never breaks the stream", async () => {
  const seen = [];
  const thrown = [];
  const reportError = globalThis.reportError;
  globalThis.reportError = (error) => thrown.push(error.message);
  try {
    const ui = (chunks) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
    const body = ui([
      { type: "start", messageId: "m1" },
      { type: "data-weather", id: "w1", data: { city: "Oslo" } },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Cold." },
      { type: "text-end", id: "t" },
      { type: "finish" },
    ]);
    const chat = new ChatSession({
      dialect: "ui-message-stream",
      fetch: scripted([body, new TypeError("Failed to fetch")]),
      onData: (data) => {
        seen.push(["data", data.type]);
        throw new Error("an app bug in onData");
      },
      onFinish: (message) => seen.push(["finish", message.content]),
      onError: (error) => seen.push(["error", error.code]),
    });
    const events = await drain(chat.send("weather?"));
    assert.ok(events.some((e) => e.type === "complete"), "the stream went on after onData threw");
    await drain(chat.send("again"));
    assert.deepEqual(seen, [["data", "data-weather"], ["finish", "Cold."], ["error", "NETWORK_ERROR"]]);
    assert.deepEqual(thrown, ["an app bug in onData"], "reported to the host");
    chat.dispose();
  } finally {
    globalThis.reportError = reportError;
  }
});

test("headers and body may be functions, sync or async, called for each request", async () => {
  const requests = [];
  let token = 0;
  const chat = new ChatSession({
    fetch: scripted([answer("a"), answer("b")], requests),
    headers: async () => ({ authorization: `Bearer ${++token}` }),
    body: () => ({ user_id: `u${token}`, interaction_type: "voice_input" }),
  });
  await drain(chat.send("one"));
  await drain(chat.send("two"));
  assert.deepEqual(requests.map((r) => r.headers.authorization), ["Bearer 1", "Bearer 2"]);
  assert.deepEqual(requests.map((r) => r.body.user_id), ["u1", "u2"]);
  assert.deepEqual(requests.map((r) => r.body.interaction_type), ["voice_input", "voice_input"], "over the session's own");
  assert.equal(requests[0].body.message, "one");
  assert.equal(requests[0].headers["content-type"], "application/json");
  chat.setOptions({ headers: { authorization: "Bearer fixed" }, body: null });
  await drain(chat.regenerate());
  assert.equal(requests[2].headers.authorization, "Bearer fixed");
  assert.equal(requests[2].body.user_id, undefined);
  assert.equal(requests[2].body.interaction_type, "text_input");
  chat.dispose();
});

test("a session pointed at a provider route without provider is refused with VALIDATION_ERROR", async () => {
  const requests = [];
  const chat = new ChatSession({ endpoint: "/api/chat/ollama", fetch: scripted([answer("x")], requests) });
  const events = await drain(chat.send("hi"));
  assert.equal(events[0].code, "VALIDATION_ERROR");
  assert.match(events[0].message, /provider: "ollama"/);
  assert.equal(requests.length, 0, "nothing was sent");
  chat.dispose();
});

test("assistant messages carry ordered parts, the same while streaming and after", async () => {
  const body = [
    { type: "thinking_delta", text: "Need a tool." },
    { type: "text_delta", text: "Checking." },
    { type: "tool_start", tool: "search", input: { q: "x" }, tool_use_id: "t1" },
    { type: "tool_complete", tool: "search", index: 0, tool_use_id: "t1", output: "3 hits" },
    { type: "text_delta", text: "[[tool:0]]\n\nFound 3." },
    { type: "complete", payload: { message: "Checking.[[tool:0]]\n\nFound 3." } },
  ].map((event) => sse([event]));
  const chat = new ChatSession({ fetch: scripted([body]) });
  let streamingParts = [];
  chat.subscribe(() => {
    const parts = chat.getSnapshot().streamingParts;
    if (parts.length > 0) streamingParts = parts;
  });
  await drain(chat.send("search"));
  const parts = chat.getSnapshot().messages[1].parts;
  assert.deepEqual(parts.map((p) => p.type), ["reasoning", "text", "tool", "text"]);
  assert.equal(parts[2].state, "output-available");
  assert.equal(parts[2].output, "3 hits");
  assert.equal(parts[3].text, "Found 3.", "no blank lines at the start of a part");
  assert.deepEqual(streamingParts, parts, "the last streaming state is the message's parts");
  chat.dispose();
});

/** OpenAI Chat Completions chunks. */
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const toolCallResponse = (args) =>
  chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "delete_file", arguments: args } }] }) +
  chunk({}, "tool_calls") +
  "data: [DONE]\n\n";
const finalAnswer = (text) => chunk({ content: text }) + chunk({}, "stop") + "data: [DONE]\n\n";

function approvalSession(requests, ran, extra = {}) {
  return new ChatSession({
    provider: "openai",
    model: "gpt-test",
    fetch: scripted([toolCallResponse('{"path":"a.txt"}'), finalAnswer("Done.")], requests),
    tools: [
      {
        name: "delete_file",
        description: "Deletes a file",
        input_schema: { type: "object", properties: { path: { type: "string" } } },
        needsApproval: true,
        execute: async (input) => {
          ran.push(input);
          return "deleted";
        },
      },
    ],
    ...extra,
  });
}

async function waitFor(check) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(check(), "timed out waiting");
}

test("a tool that needs approval pauses the turn; approve runs it", async () => {
  const requests = [];
  const ran = [];
  const calls = [];
  const chat = approvalSession(requests, ran, { onToolCall: (call) => calls.push(call.tool) });
  const turn = drain(chat.send("delete a.txt"));
  await waitFor(() => chat.getSnapshot().pendingApproval !== null);
  const state = chat.getSnapshot();
  assert.deepEqual(state.pendingApproval, { tool_use_id: "call_1", tool: "delete_file", index: 0, input: { path: "a.txt" } });
  assert.equal(state.phase, "approval");
  assert.equal(state.streamingParts.find((p) => p.type === "tool").state, "approval-requested");
  assert.deepEqual(ran, [], "nothing runs before the answer");
  assert.equal(chat.approve("no-such-call"), false);
  assert.equal(chat.approve("call_1"), true);
  await turn;
  assert.deepEqual(ran, [{ path: "a.txt" }]);
  assert.deepEqual(calls, ["delete_file"], "onToolCall heard the call");
  const last = chat.getSnapshot().messages.at(-1);
  assert.equal(last.parts.find((p) => p.type === "tool").state, "output-available");
  assert.equal(chat.getSnapshot().pendingApproval, null);
  chat.dispose();
});

test("deny gives the model the denial as the tool's result, and the tool never runs", async () => {
  const requests = [];
  const ran = [];
  const chat = approvalSession(requests, ran);
  const turn = drain(chat.send("delete a.txt"));
  await waitFor(() => chat.getSnapshot().pendingApproval !== null);
  assert.equal(chat.deny("call_1", "keep it"), true);
  await turn;
  assert.deepEqual(ran, []);
  const toolMessage = requests[1].body.messages.find((m) => m.role === "tool");
  assert.match(toolMessage.content, /denied this tool call: keep it/);
  const part = chat.getSnapshot().messages.at(-1).parts.find((p) => p.type === "tool");
  assert.equal(part.state, "output-denied");
  chat.dispose();
});

test("a length stop in the middle of a tool call: no error, the call marked incomplete, never run", async () => {
  const stream = new ChatStream({ dialect: "openai" });
  const cut =
    chunk({ tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "delete_file", arguments: '{"path":"a.t' } }] }) +
    chunk({}, "length") +
    "data: [DONE]\n\n";
  const events = [...stream.push(cut), ...stream.finish()];
  assert.ok(!events.some((e) => e.type === "error"));
  const call = events.find((e) => e.type === "tool_call");
  assert.deepEqual(
    { incomplete: call.incomplete, input: call.input, arguments: call.arguments },
    { incomplete: true, input: { path: "a.t" }, arguments: '{"path":"a.t' },
  );
  assert.equal(events.at(-1).payload.finish_reason, "length");

  const ran = [];
  const chat = new ChatSession({
    provider: "openai",
    model: "gpt-test",
    fetch: scripted([cut]),
    tools: [{ name: "delete_file", input_schema: { type: "object" }, execute: async (input) => ran.push(input) }],
  });
  await drain(chat.send("delete"));
  const message = chat.getSnapshot().messages.at(-1);
  assert.deepEqual(ran, []);
  assert.equal(message.finish_reason, "length");
  assert.match(message.tool_history[0].output.message, /cut by the token limit/);
  assert.equal(chat.getSnapshot().error, null);
  chat.dispose();
});

test("stored tool_history entries without ids are read everywhere", () => {
  const stored = [{ tool_name: "search", input: { q: "x" }, output: "3 hits" }];
  const segments = resolveToolMarkers("Looking.[[tool:0]]Done.", stored);
  assert.deepEqual(segments[1], { type: "tool", index: 0, tool_use_id: "", tool: "search", input: { q: "x" }, output: "3 hits", is_error: false });
  const chat = new ChatSession({});
  chat.loadMessages([{ role: "user", content: "q" }, { role: "assistant", content: "Looking.[[tool:0]]Done.", tool_history: stored }]);
  assert.equal(chat.getSnapshot().messages[1].tool_history[0].tool_name, "search");
  chat.dispose();
});

/**
 * Counts the module's ChatSessions made and freed while `body` runs. Each made one sets its pointer
 * (`__wbg_ptr`, wasm-bindgen's) once in its constructor: that first assignment reaches a setter on
 * the prototype, which counts it and makes the pointer the object's own field.
 */
async function countingDrivers(body) {
  const counts = { made: 0, freed: 0 };
  const { free } = ModuleChatSession.prototype;
  Object.defineProperty(ModuleChatSession.prototype, "__wbg_ptr", {
    configurable: true,
    set(pointer) {
      counts.made++;
      Object.defineProperty(this, "__wbg_ptr", { value: pointer, writable: true, enumerable: true, configurable: true });
    },
  });
  ModuleChatSession.prototype.free = function () {
    counts.freed++;
    return free.call(this);
  };
  try {
    await body(counts);
  } finally {
    delete ModuleChatSession.prototype.__wbg_ptr;
    Object.assign(ModuleChatSession.prototype, { free });
  }
  return counts;
}

test("the hook under StrictMode leaves one session; unmounting aborts the turn and frees it", async () => {
  let signal;
  const { stream } = heldOpen(sse([{ type: "text_delta", text: "Hel" }]), "");
  const fetch = async (url, init) => {
    signal = init.signal;
    return new Response(stream);
  };
  let chat;
  function Chat() {
    chat = useGeneralChat({ fetch });
    return null;
  }
  const counts = await countingDrivers(async (counts) => {
    let renderer;
    await act(async () => {
      renderer = TestRenderer.create(React.createElement(React.StrictMode, null, React.createElement(Chat)));
    });
    assert.equal(counts.made - counts.freed, 1, "one live session after StrictMode's double mount");
    await act(async () => {
      chat.sendMessage("hi");
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    assert.equal(chat.isLoading, true);
    await act(async () => renderer.unmount());
  });
  assert.equal(counts.made, counts.freed, "every session was freed");
  assert.equal(signal.aborted, true, "the turn's request was aborted");
});

test("the hook takes changed options: endpoint, headers and callbacks from the latest render", async () => {
  const requests = [];
  const fetch = scripted([answer("a"), answer("b")], requests);
  const finished = [];
  let chat;
  function Chat({ token }) {
    chat = useGeneralChat({ fetch, endpoint: `/chat/${token}`, headers: { authorization: token }, onFinish: (m) => finished.push([token, m.content]) });
    return null;
  }
  let renderer;
  await act(async () => {
    renderer = TestRenderer.create(React.createElement(Chat, { token: "t1" }));
  });
  await act(async () => chat.sendMessage("one"));
  await act(async () => renderer.update(React.createElement(Chat, { token: "t2" })));
  await act(async () => chat.sendMessage("two"));
  assert.deepEqual(requests.map((r) => [r.url, r.headers.authorization]), [["/chat/t1", "t1"], ["/chat/t2", "t2"]]);
  assert.deepEqual(finished, [["t1", "a"], ["t2", "b"]]);
  await act(async () => renderer.unmount());
});

test("the hook can drive an existing ChatSession, which it leaves to its owner", async () => {
  const session = new ChatSession({ fetch: scripted([answer("shared")]) });
  let chat;
  function Chat() {
    chat = useGeneralChat({ session });
    return null;
  }
  let renderer;
  await act(async () => {
    renderer = TestRenderer.create(React.createElement(Chat));
  });
  assert.equal(chat.session, session);
  await act(async () => chat.sendMessage("hi"));
  assert.deepEqual(chat.messages.map((m) => m.content), ["hi", "shared"]);
  await act(async () => renderer.unmount());
  assert.equal(session.getSnapshot().messages.length, 2, "still usable: not disposed by the hook");
  session.dispose();
});

test("a request that fails before any response says what the browser lets one know", async () => {
  const failing = (error) => async () => {
    throw error;
  };
  const network = new ChatSession({ fetch: failing(new TypeError("Failed to fetch")) });
  const [refused] = await drain(network.send("hi"));
  assert.equal(refused.code, "NETWORK_ERROR");
  assert.match(refused.message, /could not be reached, or it refused this page's request \(CORS\)/);
  const aborted = new ChatSession({ fetch: failing(new DOMException("signal is aborted", "AbortError")) });
  const [stopped] = await drain(aborted.send("hi"));
  assert.equal(stopped.message, "Connection failed: the request was aborted");
  network.dispose();
  aborted.dispose();
});

test("long strings arrive whole and equal wherever the state and the events hold them", async () => {
  // Over the size the module hands to JS as strings of their own; with escapes, non-ASCII, and a
  // look-alike of the marker that stands for such a string in the JSON text.
  const long = `é"\\\n\u2028 ~chatstream-0000000000000000~0 `.repeat(200) + "end";
  const other = long.replace("end", "other end");
  const input = { q: long, nested: [{ deep: other }], short: "x" };
  const body = sse([
    { type: "text_delta", text: long },
    { type: "tool_start", tool: "search", input, tool_use_id: "t1" },
    { type: "tool_complete", tool: "search", index: 0, tool_use_id: "t1", output: other },
    { type: "complete", payload: { message: long } },
  ]);
  const chat = new ChatSession({ fetch: scripted([body]) });
  const events = await drain(chat.send("go"));
  const complete = events.find((e) => e.type === "complete");
  assert.equal(complete.payload.text, long);
  assert.deepEqual(complete.payload.tool_history[0].input, input);
  assert.equal(complete.payload.tool_history[0].output, other);
  const message = chat.getSnapshot().messages[1];
  assert.equal(message.content, long);
  assert.deepEqual(message.tool_history[0].input, input);
  assert.deepEqual(JSON.parse(chat.saveMessages())[1].content, long);
  chat.dispose();
});
