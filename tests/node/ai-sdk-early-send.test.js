// chatstream/ai-sdk as a browser loads it (its default entry, not Node's): a message sent while the
// module downloads goes out at once, and its answer waits in the response until the module is in,
// which reads it as the answer to the request it would have sent. The .wasm's fetch is held back
// (`gate`) to see what happens meanwhile. Against the AI SDK test backend (tests/ai-sdk/server.js):
// the answer is what its script says, checked by hand; the body is checked against the one the
// module builds once loaded. The tests run in order: a module can be loaded only once per process.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { startBackend } from "../ai-sdk/server.js";
import { fetchWithWasm } from "./wasm-fetch.js";

// A browser's fetch of the .wasm (a file: URL here): it waits for `gate`, and fails as a browser's
// does while `failing` is set. The chats' requests go to the backend, each recorded with whether
// the .wasm's fetch had resolved when it was made, and the signal it was made with.
const backendFetch = globalThis.fetch;
let gate = Promise.resolve();
let failing = false;
let wasmIn = false;
const requests = [];
globalThis.fetch = fetchWithWasm(
  async () => {
    await gate;
    if (failing) throw new TypeError("Failed to fetch");
    wasmIn = true;
  },
  (url, init) => {
    requests.push({ url: String(url), wasmIn, signal: init.signal, body: init.body });
    return backendFetch(url, init);
  },
);
/** Holds the .wasm's fetch back until the function returned is called, or the test `t` is over. */
const hold = (t) => {
  let open;
  gate = new Promise((resolve) => (open = resolve));
  t.after(open); // a failed test does not leave the next ones waiting
  return open;
};

const { AiSdkChat } = await import("../../pkg/ai-sdk/index.js");
const { wasm } = await import("../../pkg/ai-sdk/module.js");
const backend = await startBackend();
after(() => backend.close());
const api = `${backend.url}api/chat`;
const textOf = (message) => message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
const shown = (chat) => chat.messages.map((m) => [m.role, textOf(m)]);

/** Waits until `done()` holds (the backend answers in well under a second). */
async function until(done, what) {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 5000) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A chat with its onError and onFinish calls recorded. */
function open(options = {}) {
  const heard = { errors: [], finishes: [] };
  const chat = new AiSdkChat({ api, onError: (e) => heard.errors.push(e), onFinish: (f) => heard.finishes.push(f), ...options });
  return { chat, heard };
}

test("a module that did not load: the request sent meanwhile is aborted, the chat's error is NETWORK_ERROR, the message kept", async (t) => {
  const release = hold(t);
  failing = true;
  const { chat, heard } = open();
  const sent = chat.sendMessage({ text: "hello" });
  await until(() => requests.length === 1, "the request, sent before the module is in");
  assert.equal(requests[0].wasmIn, false);
  release();
  await sent;
  assert.equal(chat.status, "error");
  assert.equal(chat.error.code, "NETWORK_ERROR");
  assert.deepEqual(heard.errors, [chat.error]);
  assert.deepEqual(heard.finishes, []);
  assert.equal(requests[0].signal.aborted, true, "the request is aborted");
  assert.deepEqual(shown(chat), [["user", "hello"]], "the message is kept");
  chat.dispose();
  requests.length = 0;
});

test("stop() while the module downloads aborts the request sent meanwhile, at once: ready, the message kept, nothing read", async (t) => {
  const release = hold(t);
  failing = true; // this download fails too: the next test is the first to load the module
  const { chat, heard } = open();
  const sent = chat.sendMessage({ text: "stop me" });
  await until(() => requests.length === 1, "the request, sent before the module is in");
  await chat.stop(); // does not wait for the download, which is still held back
  await sent;
  assert.equal(requests[0].signal.aborted, true, "the request is aborted");
  assert.equal(chat.status, "ready");
  assert.deepEqual(shown(chat), [["user", "stop me"]]);
  assert.deepEqual(heard, { errors: [], finishes: [] });
  const failed = new Promise((resolve) => chat.subscribe(resolve)); // the constructor's load, shown
  release();
  await failed;
  chat.dispose();
  requests.length = 0;
  failing = false;
});

// The chats of the last four tests send while one download is held back: the module loads once.
const invalid = { id: "x", role: "user", parts: [{ type: "nope" }] };
const valid = { id: "u0", role: "user", parts: [{ type: "text", text: "earlier" }] };
const alongside = {};

test("while the module downloads: a message goes out at once with the module's own body, and its answer is read once the module is in", async (t) => {
  const release = hold(t);
  // Messages the module refuses, saved or sent: nothing goes out before it is in to say so.
  alongside.saved = open({ api: `${api}?saved`, messages: [valid, invalid] });
  alongside.saved.sent = alongside.saved.chat.sendMessage({ text: "hello" }).catch((error) => error);
  alongside.sent = open({ api: `${api}?sent`, messages: [valid] });
  alongside.sent.sent = alongside.sent.chat.sendMessage({ parts: [{ type: "text", text: "hello" }, { type: "file", url: "data:," }] }).catch((error) => error);
  // A saved message the app changes after the request went out: the module starts from it as it was sent.
  alongside.changed = open({ api: `${api}?changed`, messages: [structuredClone(valid)] });
  alongside.changed.sent = alongside.changed.chat.sendMessage({ text: "hello" });
  const saved = [
    { id: "u0", role: "user", parts: [{ type: "text", text: "earlier ☕" }], metadata: { z: 1, a: [1, { c: 2, b: 1 }] } },
    { id: "a0", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: "an answer 😀", state: "done" }] },
  ];
  let bodyCalls = 0;
  const { chat, heard } = open({
    id: "chat-é",
    messages: saved,
    body: () => (bodyCalls++, { locale: "en-GB", "2": "two", id: "replaced in place" }),
    headers: async () => new Headers({ "X-Chat-App": "node" }),
    credentials: "include",
  });
  const statuses = [];
  chat.subscribe(() => statuses.push(chat.status));
  const sent = chat.sendMessage({ text: "hello \u2028 \"there\"", metadata: { sentAt: 1 } }, { body: { perRequest: true } });
  await until(() => backend.requests.length === 1, "the backend to have the request");
  assert.equal(wasmIn, false, "the backend has the request before the module's .wasm is in");
  assert.equal(chat.status, "submitted");
  assert.deepEqual(requests.map((r) => r.url).sort(), [api, `${api}?changed`], "only the valid chats' requests went out");
  alongside.changed.chat.messages[0].parts[0].text = "changed";
  release();
  await sent;

  // The body is the one the module builds for the same message, key for key in order.
  const user = chat.messages[2];
  const core = new wasm.AiSdkChat("chat-é", JSON.stringify(saved));
  const expected = core.sendMessage(JSON.stringify(user), JSON.stringify({ locale: "en-GB", "2": "two", id: "replaced in place", perRequest: true }), "x");
  core.free();
  assert.equal(requests.filter((r) => r.url === api).length, 1, "one request: the module read the answer to the one sent early");
  assert.equal(requests.find((r) => r.url === api).body, expected);
  const received = backend.requests.find((r) => r.body.id === "chat-é");
  assert.equal(JSON.stringify(received.body), expected, "as the server read it");
  assert.equal(received.headers["x-chat-app"], "node");
  assert.equal(bodyCalls, 1);

  assert.deepEqual(shown(chat), [["user", "earlier ☕"], ["assistant", "an answer 😀"], ["user", 'hello \u2028 "there"'], ["assistant", "Hello! How can I help you today?"]]);
  assert.deepEqual(chat.messages.slice(0, 2), saved);
  assert.deepEqual(user.metadata, { sentAt: 1 });
  assert.deepEqual(statuses.filter((s, i) => s !== statuses[i - 1]), ["submitted", "streaming", "ready"]);
  assert.equal(heard.finishes.length, 1);
  assert.equal(heard.finishes[0].isAbort, false);
  assert.equal(heard.finishes[0].isError, false);
  assert.deepEqual(heard.errors, []);
  chat.dispose();
});

test("a saved message the app changes after the send: one request, the messages as they were when it was sent", async () => {
  const { chat, heard, sent } = alongside.changed;
  await sent;
  const mine = requests.filter((r) => r.url === `${api}?changed`);
  assert.equal(mine.length, 1, "the request sent early was read: the module's body is written from the same text");
  assert.equal(JSON.parse(mine[0].body).messages[0].parts[0].text, "earlier", "written when it was sent");
  assert.equal(textOf(chat.messages[2]), "Hello! How can I help you today?");
  assert.equal(heard.finishes.length, 1);
  assert.deepEqual(heard.errors, []);
  chat.dispose();
  requests.length = 0;
});

test("a saved message the module refuses: nothing was sent, the send is refused with a TypeError naming it once the module is in, the messages kept", async () => {
  const { chat, heard, sent } = alongside.saved;
  const refused = await sent;
  assert.ok(refused instanceof TypeError && /messages\[1\] \(id "x"\): parts\[0\]: unknown part type "nope"/.test(refused.message), String(refused));
  assert.deepEqual(chat.messages, [valid, invalid], "nothing lost");
  assert.deepEqual(heard.finishes, []);
  assert.deepEqual(requests, []);
  chat.dispose();
});

test("a message the module refuses: nothing was sent, the send is refused with a TypeError once the module is in, the chat as it was", async () => {
  const { chat, heard, sent } = alongside.sent;
  const refused = await sent;
  assert.ok(refused instanceof TypeError && /a "file" part needs `mediaType`/.test(refused.message), String(refused));
  assert.equal(refused.code, "VALIDATION_ERROR");
  assert.deepEqual(chat.messages, [valid]);
  assert.equal(chat.status, "ready");
  assert.deepEqual(heard, { errors: [], finishes: [] });
  assert.deepEqual(requests, []);
  chat.dispose();
});

// The module is in from here on. The next tests hold a download back of their own: an AiSdkChat
// over a stand-in whose load waits for `open`, with the loaded module's chat inside, its bodies
// changed by `alter` (so that the one sent early is not the module's: the JS and the module would
// have to write a message differently for that to happen otherwise). The requests go to `fetch`,
// which records them and answers with `answer(n)` for the nth.
const { makeAiSdkChat } = await import("../../pkg/ai-sdk-chat.js");
const SSE = ['{"type":"start","messageId":"a1"}', '{"type":"text-start","id":"t"}', '{"type":"text-delta","id":"t","delta":"Hi"}', '{"type":"text-end","id":"t"}', '{"type":"finish"}', "[DONE]"]
  .map((event) => `data: ${event}\n\n`)
  .join("");
const sse = () => new Response(SSE, { headers: { "content-type": "text/event-stream" } });

function held({ alter = (body) => body, answer = sse } = {}) {
  let open;
  let ready = false;
  const loading = new Promise((resolve) => (open = resolve));
  function AiSdkChat(id, messages) {
    const core = new wasm.AiSdkChat(id, messages);
    const get = (target, key) => (key === "sendMessage" ? (...args) => alter(target.sendMessage(...args)) : typeof target[key] === "function" ? target[key].bind(target) : target[key]);
    return new Proxy(core, { get });
  }
  const Chat = makeAiSdkChat({ isReady: () => ready, load: () => loading.then(() => (ready = true)), bindings: () => ({ ...wasm, AiSdkChat }) });
  const calls = [];
  const fetch = async (url, init) => (calls.push(init), answer(calls.length));
  return { Chat, open, calls, fetch };
}
/** A chat of class `Chat` with its onError and onFinish calls recorded. */
function recorded(Chat, options) {
  const heard = { errors: [], finishes: [] };
  return { chat: new Chat({ onError: (e) => heard.errors.push(e), onFinish: (f) => heard.finishes.push(f), ...options }), heard };
}

const differs = (body) => JSON.stringify({ ...JSON.parse(body), differs: true });
const never = () => new Promise(() => {});

test("the app changing the parts it sent while the module downloads: one request, the message as it was sent", async () => {
  const { Chat, open, calls, fetch } = held();
  const { chat, heard } = recorded(Chat, { fetch });
  const draft = [{ type: "text", text: "hello" }];
  const sent = chat.sendMessage({ parts: draft });
  await until(() => calls.length === 1, "the request sent early");
  draft.length = 0; // the app clears its draft
  open();
  await sent;
  assert.equal(calls.length, 1);
  assert.deepEqual(shown(chat), [["user", "hello"], ["assistant", "Hi"]]);
  assert.equal(heard.finishes.length, 1);
  assert.deepEqual(heard.errors, []);
  chat.dispose();
});

test("a request sent early and given up while it waits for its response is aborted; the module's is sent and read", async () => {
  const { Chat, open, calls, fetch } = held({ alter: differs, answer: (n) => (n === 1 ? never() : sse()) });
  const chat = new Chat({ fetch });
  const sent = chat.sendMessage({ text: "hello" });
  await until(() => calls.length === 1, "the request sent early");
  open();
  await sent;
  assert.equal(calls.length, 2);
  assert.equal(calls[0].signal.aborted, true, "the early request is aborted");
  assert.equal(calls[1].signal.aborted, false, "the module's is not");
  assert.equal(JSON.parse(calls[1].body).differs, true);
  assert.deepEqual(shown(chat), [["user", "hello"], ["assistant", "Hi"]]);
  chat.dispose();
});

test("a request sent early and given up after its response came: its body is cancelled", async () => {
  let cancelled = false;
  const unread = () => new Response(new ReadableStream({ cancel: () => void (cancelled = true) }), { headers: { "content-type": "text/event-stream" } });
  const { Chat, open, calls, fetch } = held({ alter: differs, answer: (n) => (n === 1 ? unread() : sse()) });
  const chat = new Chat({ fetch });
  const sent = chat.sendMessage({ text: "hello" });
  await until(() => calls.length === 1, "the request sent early");
  await new Promise((resolve) => setTimeout(resolve, 10)); // its response in
  open();
  await sent;
  assert.equal(calls.length, 2);
  await until(() => cancelled, "the early response's body to be cancelled");
  assert.deepEqual(shown(chat), [["user", "hello"], ["assistant", "Hi"]]);
  chat.dispose();
});

test("a send the module refuses after its request went out early: that request is aborted, the send refused, the chat as it was", async () => {
  const { Chat, open, calls, fetch } = held({ answer: never });
  const { chat, heard } = recorded(Chat, { id: "c1", fetch, generateId: () => 7 }); // an answer's id must be a string
  const sent = chat.sendMessage({ id: "m1", text: "hello" }).catch((error) => error);
  await until(() => calls.length === 1, "the request sent early");
  open();
  const refused = await sent;
  assert.ok(refused instanceof TypeError && /responseId must be a string/.test(refused.message), String(refused));
  assert.equal(calls.length, 1);
  assert.equal(calls[0].signal.aborted, true, "the early request is aborted");
  assert.deepEqual(chat.messages, []);
  assert.equal(chat.status, "ready");
  assert.deepEqual(heard, { errors: [], finishes: [] });
  chat.dispose();
});

test("stop() while the module downloads and the app's async headers are pending: it does not wait for them, and nothing is sent", async (t) => {
  let give;
  const { Chat, open, calls, fetch } = held();
  t.after(open);
  const { chat, heard } = recorded(Chat, { fetch, headers: () => new Promise((resolve) => (give = resolve)) });
  t.after(() => give?.({}));
  const sent = chat.sendMessage({ text: "hello" });
  await until(() => give !== undefined, "the app's headers to be asked for");
  // A bounded wait: without the fix stop() waits for the headers, which come only after the test.
  const stopped = await Promise.race([chat.stop().then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 2000))]);
  assert.equal(stopped, true, "stop() resolved without the app's headers");
  await sent;
  assert.equal(chat.status, "ready");
  assert.deepEqual(shown(chat), [["user", "hello"]]);
  assert.deepEqual(calls, []);
  assert.deepEqual(heard, { errors: [], finishes: [] });
  chat.dispose();
});
