// The AI SDK example app (examples/ai-sdk-chat, built by `./build.sh examples`) driven in headless
// Chromium against a backend built on the AI SDK's own streamText with its mock model
// (./server.js), through every scenario a useChat app meets: text, reasoning, sources and a file,
// a server tool with data parts, a client tool run by the page and one answered by the user, an
// approval granted and one denied, a stopped answer, a regenerated one, an error mid-answer, and a
// reload from the saved messages. The same drive runs the app on each chat library; what each run
// ends with (the messages after every scenario, onFinish's reports, the request bodies) is written
// to target/ai-sdk/, and the chatstream run must end where the useChat run does.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "../e2e/chromium.js";
import { startBackend } from "./server.js";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const cleanups = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** `object` with its keys sorted: the order of a message's or a part's own fields carries nothing. */
const sorted = (object) => Object.fromEntries(Object.keys(object).sort().map((key) => [key, object[key]]));

/**
 * Makes two runs comparable: the ids each run makes up (message ids, approval ids, the chat id)
 * become `#1`, `#2`, ... in the order they first appear, and the fields of messages and parts are
 * sorted. Tool call ids and data part ids come from the scripted model and stay; the values the
 * application owns (tool inputs and outputs, data, metadata) keep their keys' order.
 */
function normalizer() {
  const seen = new Map();
  const id = (value) => {
    if (value === undefined) return value;
    if (!seen.has(value)) seen.set(value, `#${seen.size + 1}`);
    return seen.get(value);
  };
  const part = (p) => sorted(p.approval ? { ...p, approval: sorted({ ...p.approval, id: id(p.approval.id) }) } : p);
  const message = (m) => sorted({ ...m, id: id(m.id), parts: m.parts.map(part) });
  return {
    messages: (messages) => messages.map(message),
    finish: (finish) => ({ ...finish, messageId: id(finish.messageId) }),
    request: ({ headers, body }) => ({
      headers: { "content-type": headers["content-type"], "x-chat-app": headers["x-chat-app"] },
      body: sorted({ ...body, id: id(body.id), messageId: id(body.messageId), messages: body.messages.map(message) }),
    }),
  };
}

const chat = (page) => page.evaluate(() => window.__chat);
const lastOf = (messages, role) => messages.findLast((m) => m.role === role);
const textOf = (message) => message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
const typesOf = (message) => message.parts.map((p) => p.type);
const toolPart = (message, name) => message.parts.find((p) => p.type === `tool-${name}`);

/** Drives the app on one chat library through every scenario; resolves with what it ended with. */
async function drive(library) {
  const backend = await startBackend();
  cleanups.push(backend.close);
  const { context, close } = await launchChromium();
  cleanups.push(close);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000); // every answer takes well under a second
  const problems = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
  page.on("requestfailed", (request) => problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => response.status() >= 400 && problems.push(`HTTP ${response.status()}: ${response.url()}`));

  const ids = normalizer();
  const snapshots = {};
  let finished = 0; // onFinish reports so far on this page

  /** Waits until `count` more answers have finished and the chat is idle; returns its state. */
  async function answered(count = 1) {
    finished += count;
    await page.waitForFunction(
      (n) => window.__chat.finishes.length >= n && !["submitted", "streaming"].includes(window.__chat.status),
      finished,
    );
    const state = await chat(page);
    assert.equal(state.finishes.length, finished, "one onFinish per request");
    return state;
  }

  /** Takes the aborted chat request out of `problems` (Chromium reports it a moment after the fact). */
  async function aborted() {
    const isAborted = (p) => /^failed: POST \S+\/api\/chat net::ERR_ABORTED$/.test(p);
    for (let i = 0; i < 100 && !problems.some(isAborted); i++) await new Promise((r) => setTimeout(r, 20));
    const found = problems.findIndex(isAborted);
    if (found !== -1) problems.splice(found, 1);
    return found !== -1;
  }

  async function ask(text) {
    await page.fill("#input", text);
    await page.click("#send");
  }

  /** Keeps the messages a scenario ended with, for the comparison between libraries. */
  const keep = (name, state) => (snapshots[name] = ids.messages(state.messages));

  await page.goto(`${backend.url}?chat=${library}`);
  await page.waitForFunction(() => window.__chat?.status === "ready");

  // Text.
  await ask("hello");
  let state = await answered();
  let answer = lastOf(state.messages, "assistant");
  assert.equal(textOf(answer), "Hello! How can I help you today?");
  assert.deepEqual(typesOf(answer), ["step-start", "text"]);
  assert.deepEqual(answer.metadata, { model: "scripted-mock", totalTokens: 46 });
  assert.equal(await page.textContent(".message.assistant .text"), "Hello! How can I help you today?");
  keep("text", state);

  // Reasoning, then text.
  await ask("think first");
  state = await answered();
  answer = lastOf(state.messages, "assistant");
  assert.deepEqual(typesOf(answer), ["step-start", "reasoning", "text"]);
  assert.equal(answer.parts[1].text, "The user wants a short answer. Keep it brief.");
  keep("reasoning", state);

  // Sources and a file beside the text.
  await ask("cite your sources");
  state = await answered();
  answer = lastOf(state.messages, "assistant");
  assert.deepEqual(typesOf(answer), ["step-start", "source-url", "source-document", "text", "file"]);
  assert.equal(answer.parts.at(-1).url, "data:text/plain;base64,c3VtbWFyeQ==");
  keep("sources", state);

  // A server tool in two steps of one request, its progress in a data part, a transient notification.
  await ask("weather in Paris?");
  state = await answered();
  answer = lastOf(state.messages, "assistant");
  assert.deepEqual(typesOf(answer), ["step-start", "tool-getWeather", "data-weather", "step-start", "text"]);
  const forecast = '{"temperature":21,"unit":"celsius","conditions":"sunny","city":"Paris"}';
  assert.equal(toolPart(answer, "getWeather").state, "output-available");
  assert.equal(JSON.stringify(toolPart(answer, "getWeather").output), forecast, "the output's keys in their order");
  assert.equal(answer.parts[2].data.status, "success", "the data part was updated in place");
  assert.equal(textOf(answer), `The forecast says ${forecast}.`);
  assert.deepEqual(state.notifications, ["Looking up Paris"]);
  keep("server tool", state);

  // A client tool the page runs (onToolCall → addToolOutput); the answer is sent back by itself.
  await ask("where am I?");
  state = await answered(2);
  answer = lastOf(state.messages, "assistant");
  const location = '{"city":"Berlin","latitude":52.52,"longitude":13.405,"accuracy":"city"}';
  assert.equal(JSON.stringify(toolPart(answer, "getLocation").output), location);
  assert.equal(textOf(answer), `You are in ${location}.`, "the continuation is the same message");
  assert.deepEqual(state.finishes.slice(-2).map((f) => f.finishReason), ["tool-calls", "stop"]);
  keep("client tool", state);

  // A client tool the user answers (a button → addToolOutput).
  await ask("book a table");
  state = await answered();
  assert.equal(toolPart(lastOf(state.messages, "assistant"), "askForConfirmation").state, "input-available");
  await page.click('.tool-card[data-tool="askForConfirmation"] button:text("Yes")');
  state = await answered();
  answer = lastOf(state.messages, "assistant");
  assert.equal(toolPart(answer, "askForConfirmation").output, "Yes, confirmed.");
  assert.equal(textOf(answer), 'Let me ask first.You answered "Yes, confirmed.".');
  keep("user-answered tool", state);

  // A tool that needs approval: approved, it runs on the server.
  await ask("delete the draft");
  state = await answered();
  assert.equal(toolPart(lastOf(state.messages, "assistant"), "deleteFile").state, "approval-requested");
  await page.click('.tool-card[data-state="approval-requested"] button:text("Approve")');
  state = await answered();
  answer = lastOf(state.messages, "assistant");
  assert.equal(toolPart(answer, "deleteFile").state, "output-available");
  assert.equal(toolPart(answer, "deleteFile").approval.approved, true);
  assert.equal(textOf(answer), 'Deleting draft.txt: {"path":"/tmp/draft.txt","deleted":true}.');
  keep("approval granted", state);

  // Denied, it does not run, and the model hears so.
  await ask("delete my notes");
  state = await answered();
  await page.click('.tool-card[data-state="approval-requested"] button:text("Deny")');
  state = await answered();
  answer = lastOf(state.messages, "assistant");
  assert.equal(toolPart(answer, "deleteFile").state, "output-denied");
  assert.equal(toolPart(answer, "deleteFile").approval.approved, false);
  assert.equal(textOf(answer), "Deleting notes.txt: denied.");
  keep("approval denied", state);

  // A long answer, stopped once all it will send has arrived: the text stays, in the same message.
  await ask("tell me a story");
  await page.waitForFunction(() => window.__chat.messages.at(-1).parts.some((p) => p.type === "text" && p.text.includes("Part 8")));
  const inProgress = (await chat(page)).messages.at(-1);
  await page.click("#stop");
  state = await answered();
  answer = state.messages.at(-1);
  assert.equal(answer.id, inProgress.id, "the answer in progress kept its id");
  assert.equal(textOf(answer), Array.from({ length: 8 }, (_, i) => `Part ${i + 1} of a long story. `).join(""));
  assert.deepEqual(state.finishes.at(-1), { messageId: answer.id, isAbort: true, isDisconnect: false, isError: false, finishReason: undefined });
  assert.ok(await aborted(), `stopping aborts the request: ${problems.join("; ")}`);
  keep("stop", state);

  // Regenerate an answer by its id: a new one in its place.
  await ask("a joke please");
  state = await answered();
  const joke = lastOf(state.messages, "assistant");
  const count = state.messages.length;
  assert.match(textOf(joke), /^Joke number 1:/);
  await page.click(`article[data-id="${joke.id}"] .regenerate`);
  state = await answered();
  answer = state.messages.at(-1);
  assert.match(textOf(answer), /^Joke number 2:/);
  assert.notEqual(answer.id, joke.id);
  assert.equal(state.messages.length, count, "in the place of the first");
  keep("regenerate", state);

  // An error mid-answer: the error shows, the text so far stays; the user then forgets the exchange (setMessages).
  const before = state.messages.length;
  await ask("this will fail");
  state = await answered();
  assert.equal(state.status, "error");
  assert.equal(state.error, "An error occurred.");
  assert.match(await page.textContent("#error"), /An error occurred\./);
  answer = state.messages.at(-1);
  assert.equal(textOf(answer), "Let me check that for you");
  assert.deepEqual({ ...state.finishes.at(-1), messageId: undefined }, { messageId: undefined, isAbort: false, isDisconnect: false, isError: true, finishReason: undefined });
  keep("error", state);
  await aborted(); // useChat stops reading at the error chunk (and aborts the rest); a library may read on
  await page.click(`article[data-id="${answer.id}"] .forget`);
  await page.click(`article[data-id="${state.messages.at(-2).id}"] .forget`);
  await page.waitForFunction((n) => window.__chat.messages.length === n, before);

  // Reload: the saved messages come back as they were, and the conversation goes on from them.
  const saved = (await chat(page)).messages;
  await page.reload();
  await page.waitForFunction(() => window.__chat?.status === "ready");
  assert.equal(JSON.stringify((await chat(page)).messages), JSON.stringify(saved), "loaded without loss");
  finished = 0;
  await ask("do you recall?");
  state = await answered();
  assert.equal(
    textOf(state.messages.at(-1)),
    // The model's view of the history (convertToModelMessages): a step boundary splits an assistant
    // message, so 10 answers make 15 assistant model messages; a denial read from the stored parts
    // is an error text.
    "I see 11 user messages, 15 assistant messages, 5 tool calls (getWeather, getLocation, askForConfirmation, deleteFile, deleteFile) " +
      `and 5 tool results (getWeather: ${forecast}; getLocation: ${location}; askForConfirmation: "Yes, confirmed."; ` +
      'deleteFile: {"path":"/tmp/draft.txt","deleted":true}; deleteFile: "Tool call execution denied."); reasoning kept; your first message was "hello".',
  );
  keep("reload", state);

  assert.deepEqual(problems, []);
  await page.close();
  return {
    snapshots,
    finishes: state.finishes.map(ids.finish),
    requests: backend.requests.map(ids.request),
  };
}

function write(name, result) {
  mkdirSync(join(root, "target/ai-sdk"), { recursive: true });
  writeFileSync(join(root, `target/ai-sdk/${name}.json`), JSON.stringify(result, null, 2));
}

/** Asserts that run `ours` ended as run `theirs` did: every scenario's messages, onFinish's reports, the requests. */
function assertSameRun(ours, theirs) {
  const json = (value) => JSON.stringify(value, null, 1);
  for (const [scenario, messages] of Object.entries(theirs.snapshots)) {
    assert.equal(json(ours.snapshots[scenario]), json(messages), `the messages after the ${scenario} scenario`);
  }
  assert.deepEqual(ours.finishes, theirs.finishes);
  assert.equal(json(ours.requests), json(theirs.requests));
}

let useChatRun;

test("useChat (@ai-sdk/react) through every scenario against streamText", async () => {
  useChatRun = drive("ai-sdk");
  write("useChat", await useChatRun);
});

test("the comparison holds still: a second useChat run ends as the first", async () => {
  const again = await drive("ai-sdk");
  assertSameRun(again, await useChatRun);
});

test("useGeneralChat in its AI SDK mode ends with the same messages, onFinish reports and requests as useChat", async () => {
  const ours = await drive("chatstream");
  write("useGeneralChat", ours);
  assertSameRun(ours, await useChatRun);
});
