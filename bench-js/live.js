// The live benchmark's streams and contenders, the same code in Chromium (bundled into the bench
// page) and in Node: the repository's recorded provider streams, tiled to about 10,000 events and
// read the way a browser receives them, through chatstream and through the JS a developer writes
// without it. bench-js/live-run.js drives it and writes the table.
import { createParser } from "eventsource-parser";
import { chunked, rng } from "./streams.js";

const encoder = new TextEncoder();

/** The events of a recording: SSE events (each with its blank line) or NDJSON lines, as text. */
export function frames(text, format) {
  if (format === "ndjson") return text.split(/(?<=\n)/).filter((line) => line.trim() !== "");
  return text.split(/(?<=\r?\n\r?\n)/).filter((frame) => frame.trim() !== "");
}

/**
 * About `target` events: the recording's frames kept in order, its longest run of consecutive
 * content frames (text, thinking or tool-argument deltas, as the JS baseline reads them; one block
 * of an answer) repeated in its place. The run's first frame is kept once when the run is longer:
 * it may open the block. Whole tool calls are not content: repeating them would make thousands of
 * calls, which no answer has.
 */
export function tile(recorded, dialect, target) {
  const list = firstResponse(recorded, dialect);
  const content = list.map((frame) => contentOf(dialect, frame));
  let [start, end] = [0, 0];
  for (let i = 0; i < list.length; ) {
    if (!content[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < list.length && content[j]) j++;
    if (j - i > end - start) [start, end] = [i, j];
    i = j;
  }
  // Without content (an error, a refusal, only whole tool calls) there is nothing to repeat: the
  // stream is read whole, as many times as it takes to make about `target` events (see `runLive`).
  if (end === start || list.length >= target) return list;
  const from = end - start > 1 ? start + 1 : start;
  const middle = list.slice(from, end);
  const out = list.slice(0, from);
  while (out.length + middle.length + (list.length - end) <= target) out.push(...middle);
  return out.concat(list.slice(end));
}

/**
 * The frames up to the end of the first response: one recording holds several Responses API
 * turns, and a reader (chatstream's, or the baseline a developer writes) stops at the first end.
 */
function firstResponse(list, dialect) {
  if (dialect !== "openai-responses") return list;
  const end = list.findIndex((frame) => /^data: \{"type":"response\.(completed|failed|incomplete)"/m.test(frame));
  return end < 0 ? list : list.slice(0, end + 1);
}

/** Whether a frame carries content for the JS baseline. */
function contentOf(dialect, frame) {
  const got = { text: "", thinking: "", args: "" };
  const data = frame
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trimStart())
    .join("\n");
  const json = dialect === "ollama" ? frame : data;
  if (json.trim() === "" || json.trim() === "[DONE]") return false;
  ACCESS[dialect](JSON.parse(json), got);
  return got.text !== "" || got.thinking !== "" || got.args !== "";
}

/**
 * The reads: (a) live, one event a read; (b) bursty, 1-3 events a read (seeded); (c) buffered,
 * 4-16 KB reads cut anywhere (seeded). Each an array of `Uint8Array`s.
 */
export function reads(list, how, seed = 11) {
  const next = rng(seed);
  if (how === "live") return list.map((frame) => encoder.encode(frame));
  if (how === "bursty") {
    const out = [];
    for (let i = 0; i < list.length; ) {
      const n = 1 + Math.floor(next() * 3);
      out.push(encoder.encode(list.slice(i, i + n).join("")));
      i += n;
    }
    return out;
  }
  return chunked(encoder.encode(list.join("")), seed, { min: 4096, max: 16 * 1024 });
}

/**
 * The field access a JS developer writes per dialect, after `JSON.parse`: the answer's text, its
 * thinking and its tool arguments.
 */
export const ACCESS = {
  openai(j, got) {
    const delta = j.choices?.[0]?.delta;
    if (!delta) return;
    if (typeof delta.content === "string") got.text += delta.content;
    else if (Array.isArray(delta.content)) {
      // Mistral's reasoning models: content as parts, thinking among them.
      for (const part of delta.content) {
        if (part.type === "text") got.text += part.text;
        else if (part.type === "thinking") for (const t of part.thinking) got.thinking += t.text ?? "";
      }
    }
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string") got.thinking += reasoning;
    if (delta.tool_calls) for (const call of delta.tool_calls) got.args += call.function?.arguments ?? "";
  },
  "openai-responses"(j, got) {
    switch (j.type) {
      case "response.output_text.delta":
        got.text += j.delta;
        break;
      case "response.reasoning_text.delta":
      case "response.reasoning_summary_text.delta":
        got.thinking += j.delta;
        break;
      case "response.function_call_arguments.delta":
        got.args += j.delta;
        break;
    }
  },
  anthropic(j, got) {
    if (j.type !== "content_block_delta") return;
    const d = j.delta;
    if (d.type === "text_delta") got.text += d.text;
    else if (d.type === "thinking_delta") got.thinking += d.thinking;
    else if (d.type === "input_json_delta") got.args += d.partial_json;
  },
  gemini(j, got) {
    for (const part of j.candidates?.[0]?.content?.parts ?? []) {
      if (typeof part.text === "string") {
        if (part.thought) got.thinking += part.text;
        else got.text += part.text;
      }
    }
  },
  ollama(j, got) {
    const m = j.message;
    if (!m) return;
    if (m.content) got.text += m.content;
    if (m.thinking) got.thinking += m.thinking;
  },
};

/** What the contenders are compared on: the text and thinking each one read. */
const empty = () => ({ text: "", thinking: "", args: "", events: 0 });

/** chatstream's events into the same totals. */
function collect(got, events) {
  for (const e of events) {
    if (e.type === "text_delta") got.text += e.text;
    else if (e.type === "thinking_delta") got.thinking += e.text;
    else if (e.type === "tool_input_delta") got.args += e.delta;
    got.events++;
  }
}

/** A fresh ReadableStream over the same chunks (each contender reads its own). */
export function body(chunks) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
}

const CONTENT_TYPE = { ndjson: "application/x-ndjson", sse: "text/event-stream" };

/** A `Response` over a fresh ReadableStream of the chunks, as a `fetch` answers. */
function response(chunks, format) {
  return new Response(body(chunks), { headers: { "content-type": CONTENT_TYPE[format] } });
}

/** Feeds every read of `stream` to a baseline reader (`bareReader`); what it kept. */
async function readAll(reader, stream) {
  const source = stream.getReader();
  for (;;) {
    const { value, done } = await source.read();
    if (done) break;
    reader.feed(value);
  }
  reader.end();
  return reader.got;
}

/**
 * The JS baseline's reader: bytes to text (`TextDecoder`, streaming), events out of the text
 * (eventsource-parser, or splitting lines for NDJSON), `JSON.parse`, the dialect's field access.
 * `feed(chunk)` per read, `end()` at the end.
 */
function bareReader(dialect, format) {
  const got = empty();
  const access = ACCESS[dialect];
  const decoder = new TextDecoder();
  if (format === "ndjson") {
    let rest = "";
    const lines = (text) => {
      const parts = (rest + text).split("\n");
      rest = parts.pop();
      for (const line of parts) {
        if (line.trim() === "") continue;
        access(JSON.parse(line), got);
        got.events++;
      }
    };
    return { got, feed: (chunk) => lines(decoder.decode(chunk, { stream: true })), end: () => lines(decoder.decode() + "\n") };
  }
  const parser = createParser({
    onEvent(event) {
      got.events++;
      if (event.data === "[DONE]") return;
      access(JSON.parse(event.data), got);
    },
  });
  return { got, feed: (chunk) => parser.feed(decoder.decode(chunk, { stream: true })), end: () => parser.feed(decoder.decode()) };
}

/**
 * The contenders, each over `chunks` of one recording. The synchronous pair reads the array; the
 * asynchronous ones each read their own ReadableStream of the same chunks.
 */
export function contenders(lib) {
  return {
    /** The JS a developer writes, read synchronously from the array. */
    bare(chunks, { dialect, format }) {
      const reader = bareReader(dialect, format);
      for (const chunk of chunks) reader.feed(chunk);
      reader.end();
      return reader.got;
    },
    /** chatstream's pipeline, `push` per read. */
    push(chunks, { dialect }) {
      const got = empty();
      const stream = new lib.ChatStream({ dialect });
      for (const chunk of chunks) collect(got, stream.push(chunk));
      collect(got, stream.finish());
      stream.free();
      return got;
    },
    /** The JS a developer writes, reading a ReadableStream (what streamEvents reads). */
    async bareStream(chunks, { dialect, format }) {
      return readAll(bareReader(dialect, format), body(chunks));
    },
    /** The same, reading the body of a `Response` (what a `fetch` hands the session and the developer alike). */
    async bareResponse(chunks, { dialect, format }) {
      return readAll(bareReader(dialect, format), response(chunks, format).body);
    },
    async streamEvents(chunks, { dialect }) {
      const got = empty();
      for await (const e of lib.streamEvents(body(chunks), { dialect })) collect(got, [e]);
      return got;
    },
    /** The whole session: a turn over a `fetch` that answers with the chunks; every update read. */
    async session(chunks, { dialect, format }) {
      const got = empty();
      const session = new lib.ChatSession({ dialect, fetch: async () => response(chunks, format) });
      session.subscribe(() => session.getSnapshot());
      for await (const e of session.send("bench")) collect(got, [e]);
      session.dispose?.();
      return got;
    },
  };
}

/** Which contender is measured against which baseline. */
export const AGAINST = { push: "bare", streamEvents: "bareStream", session: "bareResponse" };

/**
 * What every contender must agree on: the text and the thinking, but for the whitespace at their
 * ends, which chatstream's cleaner trims. (Tool arguments are not compared: chatstream hands some
 * over whole in `tool_call`, not in deltas.)
 */
export const agreed = (got) => JSON.stringify([got.text.trim(), got.thinking.trim()]);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Times every contender over every recording and way of reading: medians of `rounds` runs, the
 * contenders taking turns. `recordings`: `{ name, dialect, format, text }`; `who`: the contenders
 * for each way of reading. Throws when two contenders read different text.
 */
export async function runLive(lib, recordings, { rounds, target, modes, who, log = () => {} }) {
  const all = contenders(lib);
  const out = [];
  for (const rec of recordings) {
    const list = tile(frames(rec.text, rec.format), rec.dialect, target);
    for (const mode of modes) {
      const chunks = reads(list, mode);
      const opts = { dialect: rec.dialect, format: rec.format };
      // A short stream that is not tiled is read several times a run, about `target` events in all.
      const passes = Math.max(1, Math.round(target / list.length));
      const names = who[mode];
      const first = {};
      for (const name of names) first[name] = await all[name](chunks, opts); // warm-up, and the output checked
      const expected = agreed(first.bare ?? first[names[0]]);
      for (const name of names) {
        if (agreed(first[name]) !== expected) {
          throw new Error(`${rec.name} (${mode}): ${name} read other text than the JS baseline:\n  ${agreed(first[name]).slice(0, 300)}\n  ${expected.slice(0, 300)}`);
        }
      }
      const times = Object.fromEntries(names.map((n) => [n, []]));
      for (let r = 0; r < rounds; r++) {
        for (const name of names) {
          globalThis.gc?.();
          const start = performance.now();
          for (let p = 0; p < passes; p++) await all[name](chunks, opts);
          times[name].push((performance.now() - start) / passes);
        }
      }
      const row = { recording: rec.name, dialect: rec.dialect, mode, events: list.length, reads: chunks.length, bytes: chunks.reduce((n, c) => n + c.length, 0), us: {} };
      for (const name of names) row.us[name] = (median(times[name]) * 1000) / list.length;
      log(row);
      out.push(row);
    }
  }
  return out;
}

/**
 * Where a live `push` spends its time, on `list`'s frames (SSE), in µs: a push of nothing (an
 * empty chunk, which returns at once); a push of an SSE comment as long as each frame
 * (adds copying the chunk in and framing it: comments are framed and dropped); a push of each frame
 * (adds decoding, cleaning and building the events); and sixteen frames a push, per frame. The
 * four take turns in every round, so that a slow spell of a shared machine falls on all of them.
 * Then `createFinish`: a stream made, finished and freed, in µs. Each is the median of five times
 * `repeats` rounds: a round takes tens of milliseconds, and five rounds' median still moved by a
 * third between runs on a quiet machine.
 */
export function pushCosts(lib, list, dialect, { repeats }) {
  const rounds = repeats * 5;
  const perFrame = (chunks) => {
    const s = new lib.ChatStream({ dialect });
    const start = performance.now();
    for (const c of chunks) s.push(c);
    s.finish();
    const t = ((performance.now() - start) * 1000) / chunks.length;
    s.free();
    return t;
  };
  const sixteen = [];
  for (let i = 0; i < list.length; i += 16) sixteen.push(encoder.encode(list.slice(i, i + 16).join("")));
  const one = reads(list, "live");
  const kinds = {
    emptyPush: one.map(() => new Uint8Array(0)),
    commentPush: one.map((c) => encoder.encode(`:${"x".repeat(Math.max(0, c.length - 3))}\n\n`)),
    onePerPush: one,
    sixteenPerPush: sixteen,
  };
  const times = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  for (let r = 0; r < rounds + 1; r++) {
    for (const [kind, chunks] of Object.entries(kinds)) {
      const t = perFrame(chunks);
      if (r > 0) times[kind].push(t); // the first round is a warm-up
    }
  }
  const out = Object.fromEntries(Object.entries(times).map(([k, t]) => [k, median(t)]));
  out.sixteenPerPush = (out.sixteenPerPush * sixteen.length) / list.length;
  // A stream made, finished with nothing read (its `complete` event) and freed: what a short
  // answer read whole pays once.
  const streams = 1000;
  const made = [];
  for (let r = 0; r < rounds + 1; r++) {
    const start = performance.now();
    for (let i = 0; i < streams; i++) {
      const s = new lib.ChatStream({ dialect });
      s.finish();
      s.free();
    }
    if (r > 0) made.push(((performance.now() - start) * 1000) / streams);
  }
  out.createFinish = median(made);
  out.rounds = rounds;
  return out;
}
