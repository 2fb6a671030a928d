// The browser side of `./build.sh bench`: every contender reads the same bytes, in the same
// chunks, from a ReadableStream, and is timed with performance.now(). Bundled by esbuild.
import init, { ChatSession, ChatStream, streamEvents } from "/pkg/index.js";
import { createParser } from "eventsource-parser";
import { DefaultChatTransport, readUIMessageStream, streamText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { agentStream, anthropicStream, chunked, openaiStream, tokens, toolInputPieces, uiMessageStream } from "./streams.js";
import { body, frames, pushCosts, runLive, tile } from "./live.js";

const encoder = new TextEncoder();

const sseResponse = (chunks) => new Response(body(chunks), { headers: { "content-type": "text/event-stream" } });

/** Characters of text or tool input an event carries. */
const contentLength = (e) => (e.type === "text_delta" ? e.text.length : e.type === "tool_input_delta" ? e.delta.length : 0);

/** chatstream, end to end: bytes → clean events → session state (every update applied). */
async function chatstreamSession(chunks) {
  const session = new ChatSession({ fetch: async () => sseResponse(chunks) });
  let updates = 0;
  session.subscribe(() => {
    session.getSnapshot();
    updates++;
  });
  for await (const _ of session.send("bench")) {
    // the iterator is drained too, as an app would
  }
  const state = session.getSnapshot();
  return { text: state.messages.at(-1).content.length, updates };
}

/** chatstream without session state: the clean events of the response. */
async function chatstreamEvents(chunks) {
  let text = 0;
  for await (const event of streamEvents(sseResponse(chunks))) text += contentLength(event);
  return { text };
}

/** chatstream's pipeline alone: `push` per chunk, read from the same ReadableStream as the others. */
async function chatstreamPush(chunks) {
  const stream = new ChatStream();
  let text = 0;
  const count = (events) => {
    for (const e of events) text += contentLength(e);
  };
  const reader = body(chunks).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    count(stream.push(value));
  }
  count(stream.finish());
  stream.free();
  return { text };
}

/** eventsource-parser + JSON.parse: bare parsing (every event's JSON), no cleaning, no state. */
async function eventsourceParser(chunks) {
  let events = 0;
  const parser = createParser({
    onEvent(event) {
      if (event.data === "[DONE]") return;
      JSON.parse(event.data);
      events++;
    },
  });
  const reader = body(chunks).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  return { events };
}

/** The AI SDK's client (what useChat runs): its transport's parsing, then readUIMessageStream. */
async function aiSdkClient(chunks) {
  const transport = new DefaultChatTransport({
    api: "/bench",
    fetch: async () => new Response(body(chunks), { headers: { "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1" } }),
  });
  const stream = await transport.sendMessages({ chatId: "bench", messages: [], trigger: "submit-message", messageId: undefined, abortSignal: undefined });
  let last;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return { text: last.parts.filter((p) => p.type === "text").reduce((n, p) => n + p.text.length, 0) };
}

/** The AI SDK's provider parsing: streamText with @ai-sdk/openai over a mocked fetch. */
async function aiSdkProvider(chunks) {
  const openai = createOpenAI({ apiKey: "bench", fetch: async () => sseResponse(chunks) });
  const result = streamText({ model: openai.chat("gpt-4o"), prompt: "bench" });
  let text = 0;
  for await (const part of result.fullStream) if (part.type === "text-delta") text += (part.text ?? part.delta ?? "").length;
  return { text };
}

export const CONTENDERS = {
  "chatstream: session (bytes → events → state)": chatstreamSession,
  "chatstream: session over the AI SDK's UI message stream": chatstreamSession,
  "chatstream: streamEvents (bytes → events)": chatstreamEvents,
  "chatstream: ChatStream.push (pipeline only)": chatstreamPush,
  "eventsource-parser + JSON.parse (bare parsing)": eventsourceParser,
  "AI SDK client (DefaultChatTransport + readUIMessageStream)": aiSdkClient,
  "AI SDK provider (streamText + @ai-sdk/openai)": aiSdkProvider,
};

/** One SSE event a chunk: a live answer as a browser reads it. */
function perEvent(bytes) {
  const out = [];
  for (let at = 0; at < bytes.length; ) {
    let end = at;
    while (end < bytes.length && !(bytes[end] === 10 && bytes[end + 1] === 10)) end++;
    out.push(bytes.subarray(at, end + 2));
    at = end + 2;
  }
  return out;
}

/** One timed run, after a full garbage collection so no contender pays for another's garbage. */
async function timeOnce(fn, chunks) {
  globalThis.gc?.();
  const start = performance.now();
  const result = await fn(chunks);
  return { ms: performance.now() - start, result };
}

const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];

/**
 * The streams, by name: `bytes` for every contender, `ui` (the same text as a UI message stream)
 * for the AI SDK's client, `deltas` the number of content deltas.
 */
function makeCase(kind, n) {
  const text = tokens(n);
  switch (kind) {
    case "openai":
      return { bytes: openaiStream(text), ui: uiMessageStream(text), deltas: n };
    case "ui-live":
      // The AI SDK's own UI message stream, one event a read.
      return { bytes: uiMessageStream(text), ui: uiMessageStream(text), deltas: n, live: true };
    case "anthropic": {
      const input = toolInputPieces(Math.floor(n / 2));
      const thinking = tokens(Math.floor(n / 4), 2);
      const said = text.slice(0, Math.floor(n / 4));
      return { bytes: anthropicStream(thinking, said, input), deltas: thinking.length + said.length + input.length };
    }
    case "agent":
      return { bytes: agentStream(text), deltas: n };
    case "tool-input": {
      const input = toolInputPieces(n);
      return { bytes: anthropicStream([], [], input), deltas: input.length };
    }
  }
  throw new Error(`unknown case ${kind}`);
}

// Contenders take turns (one run each per round, after a warm-up each), so a slow spell on this
// shared machine falls on all of them rather than on whichever ran then.
const loaded = init({ module_or_path: "/pkg/chatstream_bg.wasm" });

window.bench = async function bench(cases, runs) {
  await loaded;
  const out = [];
  for (const c of cases) {
    const made = makeCase(c.kind, c.n);
    const cut = made.live ? perEvent : chunked;
    const sse = cut(encoder.encode(made.bytes));
    const ui = made.ui && cut(encoder.encode(made.ui));
    // The AI SDK's client reads its own protocol; so does chatstream's session in the row named so.
    const inputs = c.contenders.map((name) => (name.startsWith("AI SDK client") || name.includes("UI message stream") ? ui : sse));
    const results = [];
    for (const [i, name] of c.contenders.entries()) results.push((await timeOnce(CONTENDERS[name], inputs[i])).result);
    const times = c.contenders.map(() => []);
    for (let round = 0; round < (c.runs ?? runs); round++) {
      for (const [i, name] of c.contenders.entries()) times[i].push((await timeOnce(CONTENDERS[name], inputs[i])).ms);
    }
    for (const [i, name] of c.contenders.entries()) {
      const bytes = inputs[i].reduce((n, ch) => n + ch.length, 0);
      out.push({ case: c.name, contender: name, bytes, deltas: made.deltas, ms: median(times[i]), result: results[i] });
    }
  }
  return out;
};

/** The live benchmark (bench-js/live.js) in this page: every row, then the fixed costs of `push`. */
window.live = async function live(recordings, options, costs) {
  await loaded;
  const lib = { ChatStream, ChatSession, streamEvents };
  const rows = await runLive(lib, recordings, { ...options, log: (row) => console.log(JSON.stringify(row)) });
  const list = tile(frames(costs.text, costs.format), costs.dialect, options.target);
  return { rows, push: pushCosts(lib, list, costs.dialect, { repeats: options.rounds }) };
};
window.ready = true;
