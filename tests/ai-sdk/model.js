// The language model behind the test backend: the AI SDK's own mock model (`MockLanguageModelV4`
// from `ai/test`, the model specification of ai@7), scripted per scenario. The scenario is a
// keyword in the conversation's last user message, so the route that calls it stays as the AI SDK's
// docs write it; whether the model is answering a question or continuing after a tool result is
// read from the prompt, as a real model would.
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";

/** Milliseconds between two stream parts: the answers visibly stream, and the test stays fast. */
const DELAY_MS = 5;

const usage = (input, output) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

const finish = (unified) => ({ type: "finish", finishReason: { unified, raw: unified }, usage: usage(12, 34) });

/** A text block streamed in the pieces given. */
const text = (id, ...deltas) => [
  { type: "text-start", id },
  ...deltas.map((delta) => ({ type: "text-delta", id, delta })),
  { type: "text-end", id },
];

const reasoning = (id, ...deltas) => [
  { type: "reasoning-start", id },
  ...deltas.map((delta) => ({ type: "reasoning-delta", id, delta })),
  { type: "reasoning-end", id },
];

/** A tool call whose input streams in two pieces before the call itself. */
function toolCall(toolCallId, toolName, input) {
  const json = JSON.stringify(input);
  const half = Math.ceil(json.length / 2);
  return [
    { type: "tool-input-start", id: toolCallId, toolName },
    { type: "tool-input-delta", id: toolCallId, delta: json.slice(0, half) },
    { type: "tool-input-delta", id: toolCallId, delta: json.slice(half) },
    { type: "tool-input-end", id: toolCallId },
    { type: "tool-call", toolCallId, toolName, input: json },
  ];
}

const textOf = (message) =>
  typeof message.content === "string"
    ? message.content
    : message.content.filter((part) => part.type === "text").map((part) => part.text).join("");

/** The tool results at the end of the prompt (the model is continuing after them), by tool call id. */
function trailingToolResults(prompt) {
  const results = new Map();
  for (let i = prompt.length - 1; i >= 0 && prompt[i].role === "tool"; i--) {
    for (const part of prompt[i].content) if (part.type === "tool-result") results.set(part.toolCallId, part.output);
  }
  return results;
}

/** What a tool result says, as the model reads it (`{ type: "json", value }`, `{ type: "execution-denied" }`, ...). */
const describe = (output) => (output.type === "execution-denied" ? "denied" : JSON.stringify(output.value));

/**
 * The scenarios, each a function of the prompt returning the stream parts of one model call.
 * `calls` counts the calls per scenario in this process, so a regenerated answer differs.
 */
const scenarios = {
  hello: () => text("t1", "Hello", "! How can ", "I help you", " today?"),

  think: () => [
    ...reasoning("r1", "The user wants ", "a short answer. ", "Keep it brief."),
    ...text("t1", "Here is ", "a short answer."),
  ],

  // Sources, a document and a file beside the text (the route sends sources).
  cite: () => [
    { type: "source", sourceType: "url", id: "src-1", url: "https://example.com/crispr", title: "CRISPR primer" },
    { type: "source", sourceType: "document", id: "src-2", mediaType: "application/pdf", title: "Lab notes", filename: "notes.pdf" },
    ...text("t1", "Base editing ", "changes single letters [1]."),
    { type: "file", mediaType: "text/plain", data: { type: "data", data: "c3VtbWFyeQ==" } },
  ],

  // A server tool: the route executes it and streams another step.
  weather: (prompt, results) =>
    results.has("call-weather")
      ? text("t2", "The forecast says ", describe(results.get("call-weather")), ".")
      : toolCall("call-weather", "getWeather", { city: "Paris", unit: "celsius" }),

  // A client tool run automatically by the page (onToolCall, then addToolOutput).
  where: (prompt, results) =>
    results.has("call-location")
      ? text("t2", "You are in ", describe(results.get("call-location")), ".")
      : toolCall("call-location", "getLocation", {}),

  // A client tool the user answers (a button, then addToolOutput).
  book: (prompt, results) =>
    results.has("call-confirm")
      ? text("t2", "You answered ", describe(results.get("call-confirm")), ".")
      : [...text("t1", "Let me ask first."), ...toolCall("call-confirm", "askForConfirmation", { message: "Book a table for two at 8 pm?" })],

  // A server tool that needs the user's approval; the file named decides the tool call id.
  delete: (prompt, results, last) => {
    const file = /notes/.test(last) ? "notes.txt" : "draft.txt";
    const id = `call-delete-${file.split(".")[0]}`;
    return results.has(id)
      ? text("t2", `Deleting ${file}: `, describe(results.get(id)), ".")
      : toolCall(id, "deleteFile", { path: `/tmp/${file}` });
  },

  // A long answer: eight pieces, then nothing more until the request is cancelled (the test stops it).
  story: () => ({ held: text("t1", ...Array.from({ length: 8 }, (_, i) => `Part ${i + 1} of a long story. `)).slice(0, -1) }),

  joke: (prompt, results, last, call) => text("t1", `Joke number ${call}: `, "why did the stream ", "cross the road?"),

  // Text, then the provider fails mid-answer (the text block never ends).
  fail: () => [...text("t1", "Let me check ", "that for you").slice(0, -1), { type: "error", error: new Error("the provider is overloaded") }],

  // What the model received of the conversation, so the test sees a reloaded history reach it whole.
  recall: (prompt) => {
    const count = (role) => prompt.filter((m) => m.role === role).length;
    const toolResults = prompt.flatMap((m) => (m.role === "tool" ? m.content.filter((p) => p.type === "tool-result") : []));
    const calls = prompt.flatMap((m) => (m.role === "assistant" ? m.content.filter((p) => p.type === "tool-call") : []));
    const reasoned = prompt.some((m) => m.role === "assistant" && m.content.some((p) => p.type === "reasoning"));
    const first = textOf(prompt.find((m) => m.role === "user"));
    return text(
      "t1",
      `I see ${count("user")} user messages, ${count("assistant")} assistant messages, `,
      `${calls.length} tool calls (${calls.map((c) => c.toolName).join(", ")}) `,
      `and ${toolResults.length} tool results (${toolResults.map((r) => `${r.toolName}: ${describe(r.output)}`).join("; ")}); `,
      `reasoning ${reasoned ? "kept" : "lost"}; your first message was "${first}".`,
    );
  },
};

/** The scenario of a user message: the first keyword it contains, else `hello`. */
export const scenarioOf = (userText) =>
  Object.keys(scenarios).find((name) => new RegExp(`\\b${name}\\b`, "i").test(userText)) ?? "hello";

/** A stream of `parts` that, for a held answer, stops short of its end and waits to be cancelled. */
function streamOf(parts, held) {
  if (!held) return simulateReadableStream({ chunks: parts, chunkDelayInMs: DELAY_MS });
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      if (i === parts.length) return new Promise(() => {}); // held: the reader's cancel ends it
      await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
      controller.enqueue(parts[i++]);
    },
  });
}

/** A fresh scripted model (its regenerate counters start at zero). */
export function scriptedModel() {
  const calls = new Map();
  return new MockLanguageModelV4({
    provider: "scripted",
    modelId: "scripted-mock",
    doStream: async ({ prompt }) => {
      const last = textOf(prompt.findLast((message) => message.role === "user") ?? { content: "" });
      const name = scenarioOf(last);
      const results = trailingToolResults(prompt);
      if (results.size === 0) calls.set(name, (calls.get(name) ?? 0) + 1);
      const script = scenarios[name](prompt, results, last, calls.get(name));
      const held = !Array.isArray(script);
      const body = held ? script.held : script;
      const ends = body.some((part) => part.type === "error") || held;
      const toolCalls = body.some((part) => part.type === "tool-call");
      const parts = [{ type: "stream-start", warnings: [] }, ...body, ...(ends ? [] : [finish(toolCalls ? "tool-calls" : "stop")])];
      return { stream: streamOf(parts, held) };
    },
  });
}
