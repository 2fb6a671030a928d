// The AI SDK backend mode (`new ChatSession({ backend: "ai-sdk" })`) in Node against a real AI SDK
// backend: the route of tests/ai-sdk/route.js (streamText, tools, approvals, data parts, metadata)
// over the AI SDK's own mock model, scripted per scenario (tests/ai-sdk/model.js). What each
// scenario must end with is what that script and the AI SDK's route say, checked here by hand;
// tests/ai-sdk/ai-sdk.test.js puts the same scenarios beside useChat's in a browser.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import {
  AiSdkChat,
  ChatSession,
  ChatstreamError,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
} from "../../pkg/node.js";
import * as agentEntry from "../../pkg/agent/node.js";
import { startBackend } from "../ai-sdk/server.js";

const backend = await startBackend();
after(() => backend.close());
const api = `${backend.url}api/chat`;

const forecast = '{"temperature":21,"unit":"celsius","conditions":"sunny","city":"Paris"}';
const location = { city: "Berlin", latitude: 52.52, longitude: 13.405, accuracy: "city" };
const textOf = (message) => message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
const typesOf = (message) => message.parts.map((p) => p.type);
const toolPart = (message, name) => message.parts.find((p) => p.type === `tool-${name}`);

/** Waits until `done()` holds (each answer takes well under a second). */
async function until(done, what = "the chat to get there") {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 5000) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A chat in the AI SDK backend mode against the test backend, and what it showed and reported:
 * every snapshot (with its JSON at the time, to prove none is changed later), onFinish's,
 * onData's, onToolCall's and onError's arguments, and the request bodies it sent.
 */
function open(options = {}) {
  const seen = { snapshots: [], json: [], finishes: [], data: [], toolCalls: [], errors: [] };
  const firstRequest = backend.requests.length;
  const chat = new ChatSession({
    backend: "ai-sdk",
    api,
    body: { locale: "en-GB" },
    headers: { "X-Chat-App": "node" },
    onFinish: (finish) => seen.finishes.push(finish),
    onData: (part) => seen.data.push(part),
    onError: (error) => seen.errors.push(error),
    ...options,
    onToolCall: (call) => {
      seen.toolCalls.push(call.toolCall);
      return options.onToolCall?.(call);
    },
  });
  chat.subscribe(() => {
    seen.snapshots.push(chat.getSnapshot());
    seen.json.push(JSON.stringify(chat.getSnapshot()));
  });
  seen.requests = () => backend.requests.slice(firstRequest);
  return { chat, seen };
}

test("text: submitted, streaming, ready; the answer in progress is in messages under the id it keeps; no snapshot changes once shown", async () => {
  const { chat, seen } = open();
  assert.ok(chat instanceof AiSdkChat, "ChatSession hands the AI SDK backend mode to AiSdkChat");
  await chat.sendMessage({ text: "hello" });

  const statuses = seen.snapshots.map((s) => s.status).filter((status, i, all) => status !== all[i - 1]);
  assert.deepEqual(statuses, ["submitted", "streaming", "ready"]);
  for (const [i, snapshot] of seen.snapshots.entries()) {
    assert.ok(Object.isFrozen(snapshot));
    assert.equal(JSON.stringify(snapshot), seen.json[i], `snapshot ${i} changed after it was shown`);
  }
  const growing = seen.snapshots.filter((s) => s.messages.length === 2).map((s) => s.messages[1]);
  assert.ok(growing.length >= 4, "the answer shows as it streams");
  assert.ok(growing.some((m) => textOf(m) === "Hello"), "the first text delta alone, in messages");
  assert.deepEqual(new Set(growing.map((m) => m.id)).size, 1, "one id from the first chunk to the end");

  const [user, answer] = chat.messages;
  assert.equal(chat.messages.length, 2);
  assert.deepEqual({ ...user, id: undefined }, { id: undefined, role: "user", parts: [{ type: "text", text: "hello" }] });
  assert.equal(typeof user.id, "string");
  assert.equal(answer.role, "assistant");
  assert.deepEqual(typesOf(answer), ["step-start", "text"]);
  assert.equal(textOf(answer), "Hello! How can I help you today?");
  assert.deepEqual(answer.metadata, { model: "scripted-mock", totalTokens: 46 });

  // The AI SDK's request: the app's body field beside id, messages, trigger; no messageId for a new message.
  const [request] = seen.requests();
  assert.equal(seen.requests().length, 1);
  assert.deepEqual(request.body, { locale: "en-GB", id: chat.id, messages: [user], trigger: "submit-message" });
  assert.equal(request.headers["content-type"], "application/json");
  assert.equal(request.headers["x-chat-app"], "node");

  assert.deepEqual(seen.finishes, [
    { message: answer, messages: chat.messages, isAbort: false, isDisconnect: false, isError: false, finishReason: "stop" },
  ]);
  assert.deepEqual(seen.errors, []);
  chat.dispose();
});

test("reasoning, then text", async () => {
  const { chat } = open();
  await chat.sendMessage({ text: "think first" });
  const answer = chat.messages.at(-1);
  assert.deepEqual(typesOf(answer), ["step-start", "reasoning", "text"]);
  assert.equal(answer.parts[1].text, "The user wants a short answer. Keep it brief.");
  assert.equal(textOf(answer), "Here is a short answer.");
  chat.dispose();
});

test("sources and a file beside the text", async () => {
  const { chat } = open();
  await chat.sendMessage({ text: "cite your sources" });
  const answer = chat.messages.at(-1);
  assert.deepEqual(typesOf(answer), ["step-start", "source-url", "source-document", "text", "file"]);
  assert.deepEqual(answer.parts[1], { type: "source-url", sourceId: "src-1", url: "https://example.com/crispr", title: "CRISPR primer" });
  assert.equal(answer.parts[2].filename, "notes.pdf");
  assert.deepEqual(answer.parts[4], { type: "file", mediaType: "text/plain", url: "data:text/plain;base64,c3VtbWFyeQ==" });
  chat.dispose();
});

test("a server tool in two steps: its output's keys in their order, a data part updated in place, a transient one heard by onData only", async () => {
  const { chat, seen } = open();
  await chat.sendMessage({ text: "weather in Paris?" });
  const answer = chat.messages.at(-1);
  assert.deepEqual(typesOf(answer), ["step-start", "tool-getWeather", "data-weather", "step-start", "text"]);
  const tool = toolPart(answer, "getWeather");
  assert.equal(tool.state, "output-available");
  assert.equal(tool.toolCallId, "call-weather");
  assert.deepEqual(tool.input, { city: "Paris", unit: "celsius" });
  assert.equal(JSON.stringify(tool.output), forecast);
  assert.equal(answer.parts[2].data.status, "success");
  assert.equal(textOf(answer), `The forecast says ${forecast}.`);
  // As in useChat, onToolCall hears the call: the page cannot tell a tool the route runs until its output comes.
  assert.deepEqual(seen.toolCalls.map((c) => [c.toolName, c.toolCallId]), [["getWeather", "call-weather"]]);
  assert.deepEqual(
    seen.data.map((d) => [d.type, d.data.status ?? d.data.message, d.transient]),
    [
      ["data-weather", "loading", undefined],
      ["data-notification", "Looking up Paris", true],
      ["data-weather", "success", undefined],
    ],
  );
  chat.dispose();
});

test("a client tool: onToolCall, addToolOutput, and the conversation sent again by itself into the same message", async () => {
  const { chat, seen } = open({
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    // Not awaited, as the AI SDK's docs say.
    onToolCall: ({ toolCall }) => void chat.addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId, output: location }),
  });
  await chat.sendMessage({ text: "where am I?" }); // resolves once the automatic request is over too
  assert.deepEqual(
    seen.toolCalls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
    [{ toolCallId: "call-location", toolName: "getLocation", input: {} }],
  );
  assert.equal(chat.messages.length, 2, "the continuation is the same message");
  const answer = chat.messages[1];
  assert.equal(JSON.stringify(toolPart(answer, "getLocation").output), JSON.stringify(location));
  assert.equal(textOf(answer), `You are in ${JSON.stringify(location)}.`);
  assert.deepEqual(seen.finishes.map((f) => f.finishReason), ["tool-calls", "stop"]);
  assert.ok(seen.finishes.every((f) => f.message.id === answer.id));

  const [, second] = seen.requests();
  assert.equal(second.body.trigger, "submit-message");
  assert.equal(second.body.messageId, answer.id);
  assert.equal(toolPart(second.body.messages[1], "getLocation").state, "output-available");
  chat.dispose();
});

test("a client tool the user answers: the chat waits; addToolOutput sends the conversation on", async () => {
  const { chat, seen } = open({ sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls });
  await chat.sendMessage({ text: "book a table" });
  assert.equal(chat.status, "ready");
  const waiting = toolPart(chat.messages.at(-1), "askForConfirmation");
  assert.equal(waiting.state, "input-available");
  assert.deepEqual(waiting.input, { message: "Book a table for two at 8 pm?" });
  await chat.addToolOutput({ tool: "askForConfirmation", toolCallId: "call-confirm", output: "Yes, confirmed." });
  await until(() => seen.finishes.length === 2 && chat.status === "ready", "the continuation");
  const answer = chat.messages.at(-1);
  assert.equal(toolPart(answer, "askForConfirmation").output, "Yes, confirmed.");
  assert.equal(textOf(answer), 'Let me ask first.You answered "Yes, confirmed.".');
  chat.dispose();
});

for (const approved of [true, false]) {
  test(`a tool that needs approval, ${approved ? "approved: it runs on the server" : "denied: it does not run, and the model hears so"}`, async () => {
    const { chat, seen } = open({ sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
    const file = approved ? "draft" : "notes";
    await chat.sendMessage({ text: `delete the ${file}` });
    const asked = toolPart(chat.messages.at(-1), "deleteFile");
    assert.equal(asked.state, "approval-requested");
    assert.equal(typeof asked.approval.id, "string");
    await chat.addToolApprovalResponse({ id: asked.approval.id, approved });
    await until(() => seen.finishes.length === 2 && chat.status === "ready", "the answer after the approval");

    const sent = toolPart(seen.requests()[1].body.messages.at(-1), "deleteFile");
    assert.equal(sent.state, "approval-responded", "the answer goes back as the AI SDK sends it");
    assert.deepEqual(sent.approval, { id: asked.approval.id, approved });
    const answer = chat.messages.at(-1);
    const tool = toolPart(answer, "deleteFile");
    assert.equal(tool.state, approved ? "output-available" : "output-denied");
    assert.equal(tool.approval.approved, approved);
    assert.equal(
      textOf(answer),
      approved ? 'Deleting draft.txt: {"path":"/tmp/draft.txt","deleted":true}.' : "Deleting notes.txt: denied.",
    );
    chat.dispose();
  });
}

test("stop: what came stays in the same message; onFinish says isAbort; a second stop has nothing to do", async () => {
  const { chat, seen } = open();
  const sent = chat.sendMessage({ text: "tell me a story" });
  await until(() => chat.messages.length === 2 && textOf(chat.messages[1]).includes("Part 8"), "the eighth part");
  const inProgress = chat.messages.at(-1);
  // While the answer is read, the chat refuses what would change it under the stream.
  const conflict = (error) => error instanceof ChatstreamError && error.code === "CONFLICT";
  assert.throws(() => chat.setMessages([]), conflict);
  await assert.rejects(chat.sendMessage({ text: "hello" }), conflict);
  await chat.stop();
  await sent;
  assert.equal(chat.status, "ready");
  const answer = chat.messages.at(-1);
  assert.equal(answer.id, inProgress.id);
  assert.equal(textOf(answer), Array.from({ length: 8 }, (_, i) => `Part ${i + 1} of a long story. `).join(""));
  assert.deepEqual(seen.finishes.map(({ message, messages, ...rest }) => ({ id: message.id, ...rest })), [
    { id: answer.id, isAbort: true, isDisconnect: false, isError: false, finishReason: undefined },
  ]);
  const before = chat.getSnapshot();
  assert.equal(await chat.stop(), undefined);
  assert.equal(chat.getSnapshot(), before);
  chat.dispose();
});

test("regenerate by id: a new answer in the place of that one; by a user message's id, the answer after it; an unknown id is refused", async () => {
  const { chat, seen } = open();
  await chat.sendMessage({ text: "a joke please" });
  const [user, joke] = chat.messages;
  const number = Number(/^Joke number (\d+):/.exec(textOf(joke))[1]);
  await chat.regenerate({ messageId: joke.id });
  assert.equal(chat.messages.length, 2);
  assert.equal(chat.messages[0], user, "the message before keeps its object");
  assert.notEqual(chat.messages[1].id, joke.id);
  assert.match(textOf(chat.messages[1]), new RegExp(`^Joke number ${number + 1}:`));
  assert.deepEqual(seen.requests()[1].body, { locale: "en-GB", id: chat.id, messages: [user], trigger: "regenerate-message", messageId: joke.id });

  await chat.regenerate({ messageId: user.id });
  assert.match(textOf(chat.messages[1]), new RegExp(`^Joke number ${number + 2}:`));

  const before = JSON.stringify(chat.getSnapshot());
  await assert.rejects(chat.regenerate({ messageId: "no-such-id" }), (error) => {
    assert.ok(error instanceof TypeError);
    assert.equal(error.code, "VALIDATION_ERROR");
    assert.match(error.message, /no-such-id/);
    return true;
  });
  assert.equal(JSON.stringify(chat.getSnapshot()), before, "nothing changed");
  assert.equal(seen.requests().length, 3, "nothing sent");
  chat.dispose();
});

test("an error mid-answer: the error with its code, the text so far kept; clearError; setMessages with an updater", async () => {
  const { chat, seen } = open();
  await chat.sendMessage({ text: "hello" });
  await chat.sendMessage({ text: "this will fail" });
  assert.equal(chat.status, "error");
  assert.ok(chat.error instanceof ChatstreamError);
  assert.equal(chat.error.message, "An error occurred."); // the route's errorText, as useChat shows it
  assert.equal(typeof chat.error.code, "string");
  assert.deepEqual(seen.errors, [chat.error]);
  const answer = chat.messages.at(-1);
  assert.equal(textOf(answer), "Let me check that for you");
  const finish = seen.finishes.at(-1);
  assert.deepEqual({ ...finish, message: finish.message.id, messages: undefined }, {
    message: answer.id, messages: undefined, isAbort: false, isDisconnect: false, isError: true, finishReason: undefined,
  });

  chat.clearError();
  assert.equal(chat.status, "ready");
  assert.equal(chat.error, undefined);
  const kept = chat.messages.slice(0, 2);
  chat.setMessages((messages) => messages.slice(0, -2));
  assert.deepEqual(chat.messages, kept);
  chat.dispose();
});

test("a failed request: an HTTP error shows the body's text; a network failure is a disconnect", async () => {
  const failing = open({ fetch: async () => new Response("the route is down", { status: 500 }) });
  await failing.chat.sendMessage({ text: "hello" });
  assert.equal(failing.chat.status, "error");
  assert.equal(failing.chat.error.message, "the route is down");
  assert.deepEqual(failing.chat.messages.map((m) => m.role), ["user"], "the question stays");
  assert.deepEqual(
    failing.seen.finishes.map(({ isAbort, isDisconnect, isError }) => ({ isAbort, isDisconnect, isError })),
    [{ isAbort: false, isDisconnect: false, isError: true }],
  );
  failing.chat.dispose();

  const offline = open({ fetch: async () => Promise.reject(new TypeError("fetch failed")) });
  await offline.chat.sendMessage({ text: "hello" });
  assert.equal(offline.chat.status, "error");
  assert.equal(offline.chat.error.code, "NETWORK_ERROR");
  assert.deepEqual(
    offline.seen.finishes.map(({ isAbort, isDisconnect, isError }) => ({ isAbort, isDisconnect, isError })),
    [{ isAbort: false, isDisconnect: true, isError: true }],
  );
  offline.chat.dispose();
});

test("reload: saved messages load without loss, and the conversation goes on from them with every part", async () => {
  const { chat } = open({ sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
  await chat.sendMessage({ text: "hello" });
  await chat.sendMessage({ text: "think first" });
  await chat.sendMessage({ text: "weather in Paris?" });
  await chat.sendMessage({ text: "delete the draft" });
  await chat.addToolApprovalResponse({ id: toolPart(chat.messages.at(-1), "deleteFile").approval.id, approved: true });
  await until(() => chat.status === "ready" && textOf(chat.messages.at(-1)).startsWith("Deleting"), "the approved answer");
  const saved = JSON.stringify(chat.messages);
  chat.dispose();

  const reloaded = open({ id: chat.id, messages: JSON.parse(saved) }).chat;
  assert.equal(JSON.stringify(reloaded.messages), saved);
  await reloaded.sendMessage({ text: "do you recall?" });
  const recall = textOf(reloaded.messages.at(-1));
  assert.match(recall, /^I see 5 user messages, /);
  assert.match(recall, /2 tool calls \(getWeather, deleteFile\) and 2 tool results \(getWeather: (.*); deleteFile: \{"path":"\/tmp\/draft.txt","deleted":true\}\)/);
  assert.ok(recall.includes(`getWeather: ${forecast}`), "the tool output's keys in their order");
  assert.match(recall, /reasoning kept; your first message was "hello"\.$/);
  reloaded.dispose();
});

test("a saved message that is not a UI message is a TypeError naming it; so is one given to setMessages, which changes nothing", () => {
  const good = { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] };
  const refused = [
    [{ id: "abc", role: "user", parts: [{ type: "foo" }] }, /messages\[1\].*"abc".*foo/],
    [{ id: "old", role: "user", content: "a stored text with no parts" }, /messages\[1\].*"old"/],
    [{ id: "t1", role: "tool", parts: [] }, /messages\[1\].*"t1"/],
  ];
  for (const [bad, names] of refused) {
    assert.throws(() => new ChatSession({ backend: "ai-sdk", api, messages: [good, bad] }), (error) => {
      assert.ok(error instanceof TypeError, String(error));
      assert.match(error.message, names);
      return true;
    });
  }
  const chat = new ChatSession({ backend: "ai-sdk", api, messages: [good] });
  const before = chat.getSnapshot();
  assert.throws(() => chat.setMessages([good, refused[0][0]]), TypeError);
  assert.equal(chat.getSnapshot(), before);
  chat.dispose();
});

test("an unknown tool call, approval or message id is a TypeError naming it (code VALIDATION_ERROR)", async () => {
  const chat = new ChatSession({ backend: "ai-sdk", api });
  const refusedNaming = (id) => (error) => error instanceof TypeError && error.code === "VALIDATION_ERROR" && error.message.includes(id);
  await assert.rejects(chat.sendMessage({ text: "edited", messageId: "message-none" }), refusedNaming("message-none"));
  await assert.rejects(chat.addToolOutput({ tool: "getLocation", toolCallId: "call-none", output: {} }), refusedNaming("call-none"));
  await assert.rejects(chat.addToolApprovalResponse({ id: "approval-none", approved: true }), refusedNaming("approval-none"));
  chat.dispose();
});

test("options: an unknown backend and useChat options this mode has no use for are refused, naming what to do", () => {
  assert.throws(() => new ChatSession({ backend: "langchain" }), /backend must be "ai-sdk"/);
  assert.throws(() => new ChatSession({ backend: "ai-sdk", transport: {} }), /"transport".*api, headers, body/);
  assert.throws(() => new ChatSession({ backend: "ai-sdk", endpoint: "/x" }), /"endpoint" is not an option of the AI SDK backend mode/);
  assert.throws(() => new ChatSession({ backend: "ai-sdk", onFinish: 1 }), /onFinish must be a function/);
  // A one-dialect entry's module has no such mode: it says where it is.
  const elsewhere = /no AI SDK backend mode: import from "chatstream\/ai-sdk", "chatstream" or "chatstream\/streaming"/;
  assert.throws(() => new agentEntry.ChatSession({ backend: "ai-sdk", api }), elsewhere);
  assert.throws(() => new agentEntry.AiSdkChat({ api }), elsewhere);
});
