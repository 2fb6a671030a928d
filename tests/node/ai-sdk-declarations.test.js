// The AI SDK backend mode's TypeScript declarations (pkg/index.d.ts, react.d.ts) against its runtime:
// every state, message, onFinish report, tool call and data part a chat hands out while it goes
// through the scenarios of the AI SDK test backend is written into a TypeScript file as a value of
// its declared type, typed with the test app's own tools, data and metadata, and compiled with
// tsc --strict; and AiSdkChat's members and the hook's fields are the declared ones.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import React from "react";
import TestRenderer, { act } from "react-test-renderer";
import ts from "typescript";
import {
  AiSdkChat,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
} from "../../pkg/node.js";
import { useGeneralChat } from "../../pkg/react-node.js";
import { startBackend } from "../ai-sdk/server.js";

globalThis.IS_REACT_ACT_ENVIRONMENT = true;
const root = fileURLToPath(new URL("../../", import.meta.url));
const backend = await startBackend();
after(() => backend.close());
const api = `${backend.url}api/chat`;

/** Everything a chat hands out through the scenarios, as JSON values. */
async function handedOut() {
  const out = { states: [], finishes: [], toolCalls: [], data: [], errors: [] };
  const sendAutomaticallyWhen = (options) =>
    lastAssistantMessageIsCompleteWithToolCalls(options) || lastAssistantMessageIsCompleteWithApprovalResponses(options);
  const chat = new AiSdkChat({
    api,
    sendAutomaticallyWhen,
    onToolCall: ({ toolCall }) => {
      out.toolCalls.push(toolCall);
      if (toolCall.toolName === "getLocation") void chat.addToolOutput({ tool: "getLocation", toolCallId: toolCall.toolCallId, output: { city: "Berlin" } });
    },
    onFinish: (finish) => out.finishes.push(finish),
    onData: (part) => out.data.push(part),
    onError: (error) => out.errors.push(error),
  });
  chat.subscribe(() => out.states.push(chat.getSnapshot()));
  const idle = async () => {
    while (chat.status === "submitted" || chat.status === "streaming") await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const approvalOf = (name) => chat.messages.at(-1).parts.find((p) => p.type === `tool-${name}`).approval.id;
  for (const text of ["hello", "think first", "cite your sources", "weather in Paris?", "where am I?", "book a table"]) {
    await chat.sendMessage({ text });
  }
  await chat.addToolOutput({ tool: "askForConfirmation", toolCallId: "call-confirm", state: "output-error", errorText: "no answer" });
  await idle();
  await chat.sendMessage({ text: "this will fail" });
  await chat.sendMessage({ text: "delete the draft" });
  await chat.addToolApprovalResponse({ id: approvalOf("deleteFile"), approved: true, reason: "fine" });
  await idle();
  await chat.sendMessage({ text: "delete my notes" });
  await chat.addToolApprovalResponse({ id: approvalOf("deleteFile"), approved: false });
  await idle();
  const story = chat.sendMessage({ text: "tell me a story" });
  while (!JSON.stringify(chat.messages.at(-1)).includes("Part 1")) await new Promise((resolve) => setTimeout(resolve, 5));
  await chat.stop();
  await story;
  chat.dispose();
  return out;
}

/** TypeScript's errors for `source` (a module importing "chatstream" and "chatstream/react"), each with its line. */
function typeErrors(source) {
  const dir = join(root, "target/ai-sdk-declarations");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "handed-out.ts");
  writeFileSync(file, source);
  try {
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
      types: [],
      paths: { chatstream: [join(root, "pkg/index.d.ts")], "chatstream/react": [join(root, "pkg/react.d.ts")] },
    });
    const lines = source.split("\n");
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const at = d.file ? `${d.file.fileName === file ? lines[d.file.getLineAndCharacterOfPosition(d.start).line].trim() : d.file.fileName}` : "";
      return `${ts.flattenDiagnosticMessageText(d.messageText, "\n")}\n      at: ${at}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A value as TypeScript source (`undefined` kept, which JSON would drop). */
const literal = (value) => JSON.stringify(value, (_key, v) => (v === undefined ? "__undefined__" : v), 1).replaceAll('"__undefined__"', "undefined");

// The test app's types (examples/ai-sdk-chat/src/messages.ts), written with chatstream's UIMessage.
const appTypes = `
import type { AiSdkChatOptions, AiSdkChatState, ChatstreamError, UIDataPartOf, UIMessage, UIToolCall } from "chatstream";
type Forecast = { temperature: number; unit: string; conditions: string; city: string };
type AppMessage = UIMessage<
  { model?: string; totalTokens?: number },
  { weather: { city: string; status: "loading" | "success"; forecast?: Forecast }; notification: { message: string; level: "info" | "warning" | "error" } },
  {
    getWeather: { input: { city: string; unit: "celsius" | "fahrenheit" }; output: Forecast };
    getLocation: { input: Record<string, never>; output: { city: string } };
    askForConfirmation: { input: { message: string }; output: string };
    deleteFile: { input: { path: string }; output: { path: string; deleted: boolean } };
  }
>;
type Finish = Parameters<NonNullable<AiSdkChatOptions<AppMessage>["onFinish"]>>[0];
`;

test("every state, message, onFinish report, tool call and data part the AI SDK mode hands out compiles as its declared type (tsc --strict)", async () => {
  const out = await handedOut();
  for (const [name, values] of Object.entries(out)) assert.ok(values.length > 0, `no ${name} gathered`);
  const states = new Set(out.states.flatMap((s) => s.messages.flatMap((m) => m.parts.map((p) => p.state)))).add(undefined);
  for (const state of ["input-available", "approval-requested", "approval-responded", "output-available", "output-error", "output-denied"]) {
    assert.ok(states.has(state), `no tool part in state ${state}`);
  }
  // An Error's message is not an own enumerable field: its fields are checked beside the state.
  const plain = (error) => (error === undefined ? undefined : { name: error.name, message: error.message, code: error.code });
  const errors = typeErrors(
    appTypes +
      `export const states: Omit<AiSdkChatState<AppMessage>, "error">[] = ${literal(out.states.map(({ error, ...rest }) => rest))};\n` +
      `export const errors: (Pick<ChatstreamError, "name" | "message" | "code"> | undefined)[] = ${literal([...out.states.map((s) => plain(s.error)), ...out.errors.map(plain)])};\n` +
      `export const finishes: Finish[] = ${literal(out.finishes)};\n` +
      `export const toolCalls: UIToolCall<AppMessage>[] = ${literal(out.toolCalls)};\n` +
      `export const data: UIDataPartOf<AppMessage>[] = ${literal(out.data)};\n`,
  );
  assert.deepEqual(errors, [], `the declarations disagree with the runtime:\n${errors.join("\n")}`);
});

test("what the declarations refuse does not compile: a wrong tool output, an unknown tool, another role", () => {
  const refused = [
    'new AiSdkChat<AppMessage>({}).addToolOutput({ tool: "getLocation", toolCallId: "c", output: 42 });',
    'new AiSdkChat<AppMessage>({}).addToolOutput({ tool: "sendEmail", toolCallId: "c", output: {} });',
    'new AiSdkChat<AppMessage>({}).setMessages([{ id: "1", role: "tool", parts: [] }]);',
    'new AiSdkChat<AppMessage>({ messages: [{ id: "1", role: "user", parts: [{ type: "tool", tool_use_id: "x" }] }] });',
  ];
  for (const line of refused) {
    assert.notDeepEqual(typeErrors(`${appTypes}import { AiSdkChat } from "chatstream";\n${line}\n`), [], line);
  }
});

/** The members of a class or an interface declared in one .d.ts file. */
function declaredMembers(file, name) {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const node = source.statements.find((s) => (ts.isClassDeclaration(s) || ts.isInterfaceDeclaration(s)) && s.name?.text === name);
  return node.members.filter((m) => m.name).map((m) => m.name.getText(source)).sort();
}

test("AiSdkChat has the declared members, and the hook returns the declared fields", async () => {
  const chat = new AiSdkChat({ api });
  const names = new Set(Object.keys(chat).filter((name) => typeof chat[name] === "function"));
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(chat))) if (name !== "constructor") names.add(name);
  assert.deepEqual([...names].sort(), declaredMembers("pkg/index.d.ts", "AiSdkChat"));
  chat.dispose();

  let returned;
  function Probe() {
    returned = useGeneralChat({ backend: "ai-sdk", api });
    return null;
  }
  let renderer;
  await act(async () => {
    renderer = TestRenderer.create(React.createElement(Probe));
  });
  assert.deepEqual(Object.keys(returned).sort(), declaredMembers("pkg/react.d.ts", "UseChatHelpers"));
  await act(async () => renderer.unmount());
});
