// The TypeScript declarations (pkg/index.d.ts, react.d.ts) against the runtime, so that they cannot
// drift apart unnoticed:
// - every event, chat state, saved message, segment list and parsed response the package produces
//   from the fixtures is written into a TypeScript file as a value of its declared type, and
//   compiled with tsc --strict (a field the declarations lack, miss or type otherwise fails);
// - the classes' methods, the entries' exports and the hook's fields are the declared ones.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import React from "react";
import TestRenderer, { act } from "react-test-renderer";
import ts from "typescript";

import * as entry from "../../pkg/index.js";
import * as streamingEntry from "../../pkg/streaming/index.js";
import * as glue from "../../pkg/chatstream.js";
import { useGeneralChat } from "../../pkg/react.js";
import { STATE_BEFORE_LOAD } from "../../pkg/loading.js";
import { CALLBACKS } from "../../pkg/session-options.js";
import { fixtures } from "./fixtures.js";

const { initSync, ChatSession, ChatStream, parseLlmResponse, resolveToolMarkers } = entry;
const root = fileURLToPath(new URL("../../", import.meta.url));
initSync({ module: readFileSync(join(root, "pkg/chatstream_bg.wasm")) });
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

/** A value as it is handed out, with its getters read (`partial_input`), ready for JSON. */
const plain = (value) => JSON.parse(JSON.stringify(value));

/** Distinct values, by their JSON. */
function distinct(values) {
  const seen = new Map();
  for (const value of values) seen.set(JSON.stringify(value), value);
  return [...seen.values()];
}

const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

/** A fetch that answers each request with the next of `bodies`. */
const scripted = (bodies) => {
  let next = 0;
  return async () => new Response(bodies[Math.min(next++, bodies.length - 1)], { headers: { "content-type": "text/event-stream" } });
};

/** Every state a session passes through while `run` drives it, and its saved messages after. */
async function statesOf(session, run) {
  const states = [session.getSnapshot()];
  const unsubscribe = session.subscribe(() => states.push(session.getSnapshot()));
  await run(session);
  unsubscribe();
  return { states, saved: JSON.parse(session.saveMessages()) };
}

const drain = async (events) => {
  const all = [];
  for await (const event of events) all.push(event);
  return all;
};

/** What the runtime hands out, gathered from every fixture and a few sessions. */
async function handedOut() {
  const events = [];
  const states = [];
  const saved = [];
  const parsed = [];
  const segments = [];
  // What the sessions' callbacks are called with.
  const called = Object.fromEntries(CALLBACKS.map((name) => [name, []]));
  const callbacks = Object.fromEntries(Object.keys(called).map((name) => [name, (value) => called[name].push(value)]));
  for (const fixture of fixtures()) {
    const half = Math.floor(fixture.input.length / 2);
    const options = { dialect: fixture.dialect ?? "auto" };
    const whole = new ChatStream(options);
    events.push(...whole.push(fixture.input.subarray(0, half)), ...whole.push(fixture.input.subarray(half)), ...whole.finish());
    const broken = new ChatStream(options);
    events.push(...broken.push(fixture.input.subarray(0, half)), ...broken.fail("NETWORK_ERROR", "The connection was lost"));
    const stopped = new ChatStream(options);
    events.push(...stopped.push(fixture.input.subarray(0, half)), ...stopped.cancel(), stopped.skippedChunk()[0]);
    for (const s of [whole, broken, stopped]) s.free();

    const text = fixture.input.toString("utf8");
    parsed.push(parseLlmResponse(text, {}));
    // Backend mode, over the agent protocol and the AI SDK's UI message stream (which has data parts).
    if (fixture.dialect === "agent" || fixture.dialect === "ui-message-stream") {
      const session = new ChatSession({ fetch: scripted([fixture.input]), ...callbacks });
      const run = await statesOf(session, async (s) => events.push(...(await drain(s.send("Hi", { page: "x" })))));
      states.push(...run.states);
      saved.push(...run.saved);
      session.dispose();
    }
  }
  for (const message of saved) {
    if (message.role === "assistant") segments.push(resolveToolMarkers(message.content, message.tool_history ?? []));
  }

  // Provider mode: a tool call that waits for approval, runs, and an answer after it.
  const call = sse([
    { object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", content: "Let me look." } }] },
    {
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "search", arguments: '{"q":"par' } }] } }],
    },
    { object: "chat.completion.chunk", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }, finish_reason: "tool_calls" }] },
  ]) + "data: [DONE]\n\n";
  const answer = sse([{ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "Found it." }, finish_reason: "stop" }] }]) + "data: [DONE]\n\n";
  const provider = new ChatSession({
    provider: "openai",
    model: "m",
    fetch: scripted([call, answer]),
    ...callbacks,
    tools: [{ name: "search", description: "Searches", needsApproval: true, execute: async (_input, { progress }) => (progress("Searching"), ["a"]) }],
  });
  const run = await statesOf(provider, async (s) => {
    const unsubscribe = s.subscribe(() => {
      const pending = s.getSnapshot().pendingApproval;
      if (pending) queueMicrotask(() => s.approve(pending.tool_use_id));
    });
    events.push(...(await drain(s.send("Find Paris"))));
    unsubscribe();
  });
  states.push(...run.states);
  saved.push(...run.saved);
  provider.dispose();

  return {
    events: distinct(plain(events)),
    states: distinct(plain(states)),
    saved: distinct(plain(saved)),
    parsed: distinct(plain(parsed)),
    segments: distinct(plain(segments)),
    ...Object.fromEntries(Object.entries(called).map(([name, values]) => [name, distinct(plain(values))])),
  };
}

/**
 * Compiles `lines` (TypeScript importing "chatstream" and "chatstream/react") with tsc --strict;
 * fails with each error and the line it is about.
 */
function compiles(lines) {
  const dir = mkdtempSync(join(tmpdir(), "chatstream-declarations-"));
  try {
    writeFileSync(join(dir, "handed-out.ts"), lines.join("\n"));
    const config = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM", "DOM.Iterable"],
        types: [],
        paths: { chatstream: [join(root, "pkg/index.d.ts")], "chatstream/react": [join(root, "pkg/react.d.ts")] },
      },
      files: ["handed-out.ts"],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
    try {
      execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { encoding: "utf8" });
    } catch (error) {
      // Each error with the line it is about: the file is gone once the test ends.
      const source = readFileSync(join(dir, "handed-out.ts"), "utf8").split("\n");
      const report = `${error.stdout}${error.stderr}`.replace(/handed-out\.ts\((\d+),\d+\): (.*)/g, (_, line, text) => `${text}\n      at: ${source[line - 1].trim()}`);
      assert.fail(`the declarations disagree with the runtime:\n${report}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A value as TypeScript source (`undefined` included). */
const literal = (value) => (value === undefined ? "undefined" : JSON.stringify(value, null, 1));

test("every value the runtime hands out compiles as its declared type (tsc --strict)", async () => {
  const out = await handedOut();
  for (const [name, values] of Object.entries(out)) assert.ok(values.length > 0, `no ${name} gathered`);
  const kinds = new Set(out.events.map((e) => e.type));
  for (const type of ["status", "text_delta", "thinking_delta", "tool_start", "tool_input_delta", "tool_call", "tool_progress", "tool_complete", "data", "complete", "error", "cancelled"]) {
    assert.ok(kinds.has(type), `the fixtures gave no ${type} event`);
  }
  assert.ok(out.states.some((s) => s.pendingApproval !== null), "no state with a pending approval");

  compiles([
    'import type { ChatCallbacks, ChatMessage, ChatState, ParsedResponse, Segment, StreamEvent } from "chatstream";',
    "type Argument<Name extends keyof ChatCallbacks> = Parameters<NonNullable<ChatCallbacks[Name]>>[0];",
    ...CALLBACKS.map((name) => `export const ${name}: Argument<"${name}">[] = ${literal(out[name])};`),
    `export const events: StreamEvent[] = ${literal(out.events)};`,
    `export const states: ChatState[] = ${literal(out.states)};`,
    `export const saved: ChatMessage[] = ${literal(out.saved)};`,
    `export const parsed: ParsedResponse[] = ${literal(out.parsed)};`,
    `export const segments: Segment[][] = ${literal(out.segments)};`,
    // What a session and the hook show before the module has loaded is a chat state too.
    `export const beforeLoad: ChatState = ${literal(STATE_BEFORE_LOAD)};`,
    "",
  ]);
});

/** useGeneralChat({}) rendered: what it returns, and the renderer (to unmount). */
async function rendered() {
  let chat;
  function Probe() {
    chat = useGeneralChat({});
    return null;
  }
  let renderer;
  await act(async () => {
    renderer = TestRenderer.create(React.createElement(Probe));
  });
  return { chat, renderer };
}

/** What `call` throws (it must throw). */
function thrown(call) {
  try {
    call();
  } catch (error) {
    return error;
  }
  assert.fail("it did not throw");
}

test("what the calls return when there is nothing to do, and what they throw, compile as their declared types", async () => {
  // Stopping with nothing in flight: the session says so (a CONFLICT event); the hook, as React chat hooks do, says nothing.
  const idle = new ChatSession({});
  const cancelled = idle.cancel();
  const stopped = idle.stop();
  assert.equal(cancelled.code, "CONFLICT");
  const { chat, renderer } = await rendered();
  const hookStopped = chat.stop();
  const hookCancelled = chat.cancel();
  await act(async () => renderer.unmount());

  // Replacing the messages while one is being answered: a ChatstreamError with its code.
  const busy = new ChatSession({ fetch: () => new Promise(() => {}) });
  busy.send("Hi");
  const conflict = thrown(() => busy.setMessages([]));
  const loadConflict = thrown(() => busy.loadMessages("[]"));
  busy.dispose();
  for (const error of [conflict, loadConflict]) {
    assert.ok(error instanceof entry.ChatstreamError, String(error));
    assert.equal(error.code, "CONFLICT");
  }
  // An AI SDK UI message (its text in parts, no content) is a stored message the session reads.
  const uiMessages = [
    { id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Paris?" }] },
    { id: "a1", role: "assistant", parts: [{ type: "reasoning", text: "Look it up." }, { type: "text", text: "Sunny." }] },
  ];
  idle.setMessages(uiMessages);
  assert.deepEqual(idle.getSnapshot().messages.map((m) => m.content), ["Weather in Paris?", "Sunny."]);
  idle.dispose();

  const fields = (error) => ({ name: error.name, message: error.message, code: error.code });
  compiles([
    'import type { ChatSession, ChatstreamError, StoredMessage } from "chatstream";',
    'import type { GeneralChat } from "chatstream/react";',
    `export const cancelled: ReturnType<ChatSession["cancel"]> = ${literal(cancelled)};`,
    `export const stopped: ReturnType<ChatSession["stop"]> = ${literal(stopped)};`,
    `export const hookStopped: ReturnType<GeneralChat["stop"]> = ${literal(hookStopped)};`,
    `export const hookCancelled: ReturnType<GeneralChat["cancel"]> = ${literal(hookCancelled)};`,
    `export const conflict: Pick<ChatstreamError, "name" | "message" | "code"> = ${literal(fields(conflict))};`,
    `export const loadConflict: Pick<ChatstreamError, "name" | "message" | "code"> = ${literal(fields(loadConflict))};`,
    `export const uiMessages: StoredMessage[] = ${literal(uiMessages)};`,
    "",
  ]);
});

/** The declarations of one .d.ts file: its exported names, and each class's and interface's members. */
function declared(file) {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const exports = new Set();
  const members = new Map();
  const exported = (node) => node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const isDefault = (node) => node.modifiers?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
  for (const node of source.statements) {
    if ((ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name) {
      const names = node.members.filter((m) => m.name && !ts.isConstructorDeclaration(m)).map((m) => m.name.getText(source));
      members.set(node.name.text, new Set(names));
    }
    if (!exported(node)) continue;
    if (isDefault(node)) exports.add("default");
    else if ((ts.isClassDeclaration(node) || ts.isFunctionDeclaration(node)) && node.name) exports.add(node.name.text);
    else if (ts.isVariableStatement(node)) for (const d of node.declarationList.declarations) exports.add(d.name.getText(source));
  }
  return { exports, members };
}

/** The public methods, accessors and function fields of an instance, its base classes' included. */
function runtimeMembers(instance) {
  const names = new Set(Object.keys(instance).filter((name) => typeof instance[name] === "function"));
  for (let proto = Object.getPrototypeOf(instance); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== "constructor" && !name.startsWith("__")) names.add(name);
    }
  }
  return names;
}

const sorted = (set) => [...set].sort();

test("the classes have the declared methods, and the entries export the declared names", () => {
  const { exports, members } = declared("pkg/index.d.ts");
  const stream = new ChatStream();
  const session = new ChatSession({});
  assert.deepEqual(sorted(runtimeMembers(stream)), sorted(members.get("ChatStream")), "ChatStream");
  assert.deepEqual(sorted(runtimeMembers(session)), sorted(members.get("ChatSession")), "ChatSession");
  stream.free();
  session.dispose();
  assert.deepEqual(sorted(Object.keys(entry)), sorted(exports), "chatstream");
  assert.deepEqual(sorted(Object.keys(streamingEntry)), sorted(exports), "chatstream/streaming");
});

test("the hook returns the declared fields, and the state before the module loads has every field of the module's", async () => {
  const { members } = declared("pkg/react.d.ts");
  const { chat, renderer } = await rendered();
  assert.equal(chat.ready, true);
  assert.deepEqual(sorted(Object.keys(chat)), sorted(members.get("GeneralChat")));
  const state = chat.session.getSnapshot();
  assert.deepEqual(sorted(Object.keys(STATE_BEFORE_LOAD)), sorted(Object.keys(state)));
  await act(async () => renderer.unmount());
});

test("an appendText patch changes the chat state's fields the module names from the state's declaration", async () => {
  // The keys the module hands over with its hand-over parts (src/wasm/mod.rs: from ChatState::KEY).
  const keys = glue.__handOverParts()[4];
  assert.equal(keys.length, 3, "the text, then the two lists whose last item gets it");
  const { members } = declared("pkg/index.d.ts");
  for (const key of keys) assert.ok(members.get("ChatState").has(key), `ChatState declares ${key}`);
  // What the session's snapshot shows while an answer streams in, one delta a read.
  const deltas = ["Hel", "lo, wor", "ld"];
  const chunks = deltas.map((text) => sse([{ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: text } }] }]));
  const body = () => new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(new TextEncoder().encode(chunks.shift())) : c.close()) });
  const session = new ChatSession({ dialect: "openai", fetch: async () => new Response(body(), { headers: { "content-type": "text/event-stream" } }) });
  const { states } = await statesOf(session, async (s) => drain(s.send("Hi")));
  session.dispose();
  const [text, ...lists] = keys;
  const streamed = states.filter((state) => state[text] !== "");
  assert.deepEqual(streamed.map((state) => state[text]), ["Hel", "Hello, wor", "Hello, world"]);
  for (const state of streamed) {
    for (const list of lists) assert.equal(state[list].at(-1).text, state[text], `the last of ${list} has the text so far`);
  }
});
