// `./build.sh bench`, memory: what chatstream holds at its peak while a 20 MB tool argument
// streams in as 1 KB deltas (an Anthropic tool call), against the size of that argument (read by a
// ChatStream with and without its deltas' partial_input read now and then, and by a session); and a
// 2 MB answer of plain text in 1 KB deltas read by a session, whose saved state (saveMessages) is
// kept too. Each case runs in a fresh Node process (`--expose-gc`), so one case's garbage or grown
// wasm memory does not count against another. Writes target/bench/memory.json and BENCHMARKS.md's
// memory section.
//
//   node bench-js/memory.js            every case, written
//   node bench-js/memory.js --smoke    200 KB and 20 KB: checks the harness works, keeps nothing
//   node bench-js/memory.js --section  BENCHMARKS.md's section again from target/bench/memory.json
//   node --expose-gc bench-js/memory.js --case text   one case (push, pushRead, session or text): prints its JSON, keeps nothing
//   node --expose-gc bench-js/memory.js --case pushRead --trace   the same, and its memory on stderr as it grows
//   node --expose-gc bench-js/memory.js --case pushRead --strings  the same, and on stderr the long JS strings
//                                                                   alive at its end, from a heap snapshot
//   CHATSTREAM_PKG=/path/to/pkg node bench-js/memory.js   another build of the package, to compare with
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getHeapSnapshot, getHeapSpaceStatistics } from "node:v8";
import { writeSection } from "./section.js";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const out = join(root, "target/bench");
/** The package measured: pkg/, or another build of it (`CHATSTREAM_PKG`). */
const pkg = resolve(process.env.CHATSTREAM_PKG ?? join(root, "pkg"));
const smoke = process.argv.includes("--smoke");
// With --case: the memory on stderr at each sample where the module's memory grew or RSS moved by
// 4 MB, the young generation's two parts apart (where a case's growth comes from, and when).
const trace = process.argv.includes("--trace");
// With --case: the JS strings over 128 KB alive once the case holds its value (how many copies of
// it JS holds, and whether each is one byte a character), on stderr. The snapshot takes memory
// itself: the numbers printed after it count it, so a case measured is run without it.
const strings = process.argv.includes("--strings");
const ARGUMENT_BYTES = smoke ? 200 * 1024 : 20 * 1024 * 1024;
const TEXT_BYTES = smoke ? 20 * 1024 : 2 * 1024 * 1024;
const DELTA_BYTES = 1024;
// How often the reading case reads a delta's partial_input: every so many frames (every 1 MB).
const READ_EVERY = smoke ? 64 : 1024;

// Each case: how it runs (runCase), how long its value is, and the most it may hold (÷ that length).
export const CASES = {
  "ChatStream.push (pipeline only)": { run: "push", bytes: ARGUMENT_BYTES, target: 4 },
  "ChatStream.push, partial_input read every 1 MB": { run: "pushRead", bytes: ARGUMENT_BYTES, target: 4 },
  "ChatSession (bytes → events → state)": { run: "session", bytes: ARGUMENT_BYTES, target: 6 },
  "ChatSession, 2 MB of text, saved state kept": { run: "text", bytes: TEXT_BYTES, target: 6 },
  // No chatstream: the same answer's bytes read through the same Response and ReadableStream and
  // dropped. What the harness itself grows, a floor under the case before it (no target).
  "the same 2 MB of text read and dropped, no chatstream": { run: "reading", bytes: TEXT_BYTES, target: null },
};

/** The SSE frames of an Anthropic answer of `bytes` of plain text. */
function* textFrames(bytes) {
  const frame = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  yield frame("message_start", { message: { id: "msg_mem", type: "message", role: "assistant", model: "claude", content: [], usage: { input_tokens: 1, output_tokens: 1 } } });
  yield frame("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
  // Each delta distinct (its number first), as a real answer's are: equal deltas would let an engine
  // hold one string for all of them.
  const piece = "abcdefghij ".repeat(DELTA_BYTES / 11 + 1).slice(0, DELTA_BYTES - 8);
  for (let sent = 0; sent < bytes; sent += DELTA_BYTES) {
    const text = String(sent / DELTA_BYTES).padStart(8, "0") + piece;
    yield frame("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
  }
  yield frame("content_block_stop", { index: 0 });
  yield frame("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } });
  yield frame("message_stop", {});
}

/** The SSE frames of an Anthropic tool call whose input is `{"content": "<bytes of text>"}`, made as they are read. */
function* toolCallFrames(bytes) {
  const frame = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  yield frame("message_start", { message: { id: "msg_mem", type: "message", role: "assistant", model: "claude", content: [], usage: { input_tokens: 1, output_tokens: 1 } } });
  yield frame("content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_mem", name: "write_report", input: {} } });
  const delta = (partial_json) => frame("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json } });
  yield delta('{"content": "');
  const piece = "abcdefghij ".repeat(DELTA_BYTES / 11 + 1).slice(0, DELTA_BYTES);
  for (let sent = 0; sent < bytes; sent += DELTA_BYTES) yield delta(piece);
  yield delta('"}');
  yield frame("content_block_stop", { index: 0 });
  yield frame("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 1 } });
  yield frame("message_stop", {});
}

/** The length of the strings in a value: whether the value arrived whole, measured without a
 * copy of it (a JSON.stringify of it would be one more 20 MB string at the peak). */
function stringLength(value) {
  if (typeof value === "string") return value.length;
  if (value === null || typeof value !== "object") return 0;
  return Object.values(value).reduce((sum, item) => sum + stringLength(item), 0);
}

/** The answer `frames` (SSE) as a response's body; `sample` is called every 256 frames. */
function responseOf(frames, sample) {
  const encoder = new TextEncoder();
  let n = 0;
  const body = new ReadableStream({
    pull(controller) {
      const next = frames.next();
      if (next.done) return controller.close();
      controller.enqueue(encoder.encode(next.value));
      if (++n % 256 === 0) sample();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** A session that has read the answer `frames` as a response body; `sample` is called every 256 frames and event. */
async function readBySession(ChatSession, frames, sample) {
  const chat = new ChatSession({ fetch: async () => responseOf(frames, sample) });
  for await (const _ of chat.send("write it")) sample();
  sample();
  return chat;
}

/** The answer `frames` read as a response body and dropped, with no chatstream: its length in bytes. */
async function readAndDrop(frames, sample) {
  const reader = responseOf(frames, sample).body.getReader();
  let bytes = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.length;
  sample();
  return bytes;
}

/** Prints on stderr the JS strings over 128 KB alive now (a heap snapshot, which collects the
 * garbage first), against `length`, the value's length in characters: a string of about `length`
 * bytes is one byte a character, of twice that two. A string built by `+` is its pieces (each
 * listed) and a small node joining them. */
async function printLongStrings(length) {
  let text = "";
  for await (const chunk of getHeapSnapshot()) text += chunk;
  const { snapshot, nodes, strings: names } = JSON.parse(text);
  const fields = snapshot.meta.node_fields;
  const [type, size, name] = ["type", "self_size", "name"].map((f) => fields.indexOf(f));
  const types = snapshot.meta.node_types[0];
  const long = [];
  for (let i = 0; i < nodes.length; i += fields.length) {
    if (types[nodes[i + type]] === "string" && nodes[i + size] > 128 * 1024) long.push({ bytes: nodes[i + size], starts: names[nodes[i + name]].slice(0, 16) });
  }
  const mb = (bytes) => `${(bytes / (1024 * 1024)).toFixed(2)} MB`;
  const total = long.reduce((sum, s) => sum + s.bytes, 0);
  const ratio = length > 0 ? ` (${(total / length).toFixed(2)}x the value's ${length} characters)` : " (the value was not found whole)";
  console.error(`long strings alive: ${long.length}, ${mb(total)} in all${ratio}`);
  for (const s of long.sort((a, b) => b.bytes - a.bytes)) console.error(`  ${mb(s.bytes)} ${JSON.stringify(s.starts)}`);
}

/** Runs one case in this process and prints its numbers as JSON. */
async function runCase(which) {
  const runs = Object.values(CASES).map((c) => c.run);
  if (!runs.includes(which)) throw new Error(`--case takes one of ${runs.join(", ")}, not ${JSON.stringify(which)}`);
  const glue = await import(join(pkg, "chatstream.js"));
  const { makeApi } = await import(join(pkg, "api.js"));
  const exports = glue.initSync({ module: readFileSync(join(pkg, "chatstream_bg.wasm")) });
  const { ChatStream, ChatSession, initSync } = makeApi(glue);
  initSync(exports); // already loaded: marks the API ready
  const encoder = new TextEncoder();
  let held = 0;
  let warm = null; // the text case's baseline after its warm-up turn

  /** The process's memory now: RSS, the wasm module's memory and the V8 heap's spaces. */
  const memoryNow = () => {
    const space = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
    return {
      rss: process.memoryUsage().rss,
      wasm: exports.memory.buffer.byteLength,
      young: space.new_space + space.new_large_object_space,
      semi: space.new_space, // the young generation's semi-spaces, without its large objects
      old: space.old_space,
      large: space.large_object_space,
    };
  };
  globalThis.gc();
  const before = memoryNow();
  let peakRss = before.rss;
  let atPeak = null; // memoryNow() at the highest sample
  let samples = 0;
  let traced = before;
  const sample = () => {
    samples++;
    if (trace) {
      const now = memoryNow();
      if (now.wasm !== traced.wasm || Math.abs(now.rss - traced.rss) >= 4 * 1024 * 1024) {
        traced = now;
        const space = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
        const mb = (bytes) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
        console.error(
          `sample ${samples}: RSS ${mb(now.rss)}, wasm ${mb(now.wasm)}, new space ${mb(space.new_space)}, new large objects ${mb(space.new_large_object_space)}, old ${mb(now.old)}, large objects ${mb(now.large)}`,
        );
      }
    }
    const rss = process.memoryUsage().rss;
    if (rss <= peakRss) return;
    peakRss = rss;
    atPeak = memoryNow();
  };

  if (which === "push" || which === "pushRead") {
    const stream = new ChatStream({ dialect: "anthropic" });
    let n = 0;
    let call = null; // the one event kept: the deltas are dropped as an app that renders them would
    const keep = (events) => (call = events.find((e) => e.type === "tool_call") ?? call);
    for (const frame of toolCallFrames(ARGUMENT_BYTES)) {
      const events = stream.push(encoder.encode(frame));
      keep(events);
      // As a view of the arguments as they stream would, throttled: the value of the last delta
      // of every READ_EVERY-th frame (each read parses the arguments so far).
      const delta = which === "pushRead" && n % READ_EVERY === 0 ? events.findLast((e) => e.type === "tool_input_delta") : undefined;
      if (delta && !(stringLength(delta.partial_input) > 0)) throw new Error("partial_input is empty");
      if (++n % 256 === 0) sample();
    }
    keep(stream.finish());
    sample();
    held = stringLength(call?.input);
    if (strings) await printLongStrings(held);
    stream.free();
  } else if (which === "reading") {
    await readAndDrop(textFrames(DELTA_BYTES), () => {}); // the text case's warm-up, the same way
    globalThis.gc();
    warm = memoryNow();
    peakRss = warm.rss;
    atPeak = null;
    held = await readAndDrop(textFrames(TEXT_BYTES), sample);
  } else {
    if (which === "text") {
      // A warm-up turn first, a tiny answer read the same way: what any first turn costs (undici's
      // Response and ReadableStream, the engine's first compiles of the code on the way) is not
      // this answer's. The growth is counted from before it (cold) and from after it (warm).
      const warmUp = await readBySession(ChatSession, textFrames(DELTA_BYTES), () => {});
      warmUp.saveMessages();
      warmUp.dispose();
      globalThis.gc();
      warm = memoryNow();
      // The warm figure's peak is the highest sample from here on, not one reached during the warm-up.
      peakRss = warm.rss;
      atPeak = null;
    }
    const chat = await readBySession(ChatSession, which === "text" ? textFrames(TEXT_BYTES) : toolCallFrames(ARGUMENT_BYTES), sample);
    const last = chat.getSnapshot().messages.at(-1);
    if (which === "text") {
      const saved = chat.saveMessages(); // kept, as an app that stores the chat would
      sample();
      // The saved text holds the answer whole (this text needs no escaping), found without a copy of it.
      held = saved.includes(last.content) ? last.content.length : 0;
      if (strings) await printLongStrings(held);
    } else {
      held = stringLength(last.parts.find((p) => p.type === "tool")?.input);
      if (strings) await printLongStrings(held);
    }
    chat.dispose();
  }
  const usage = process.resourceUsage();
  // The process's maximum RSS may come from before the warm-up: it counts only toward the cold figure.
  const maxRss = Math.max(peakRss, usage.maxRSS * 1024);
  console.log(JSON.stringify({ before, warm, peakRss: warm ? peakRss : maxRss, maxRss, wasm: exports.memory.buffer.byteLength, held, atPeak }));
}

function main() {
  mkdirSync(out, { recursive: true });
  const rows = [];
  for (const [name, { run: which, bytes, target }] of Object.entries(CASES)) {
    const printed = execFileSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--case", which, ...(smoke ? ["--smoke"] : [])], {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    const r = JSON.parse(printed.trim().split("\n").at(-1));
    const mb = (bytes) => bytes / (1024 * 1024);
    const base = r.warm ?? r.before;
    const row = {
      case: name,
      target,
      argumentMb: mb(bytes),
      heldMb: mb(r.held),
      // From after the warm-up turn when the case has one (the cold figures beside them).
      peakGrowthMb: mb(r.peakRss - base.rss),
      wasmGrowthMb: mb(r.wasm - base.wasm),
      // At the highest sample, growth since the start (or the warm-up): the module's memory, the
      // V8 heap's young generation (its semi-spaces, sized by how fast the engine allocates), its
      // old generation and its large objects (objects over about 128 KB, such as a long value handed to JS).
      atPeak: r.atPeak && {
        rssMb: mb(r.atPeak.rss - base.rss),
        wasmMb: mb(r.atPeak.wasm - base.wasm),
        youngMb: mb(r.atPeak.young - base.young),
        semiMb: mb(r.atPeak.semi - base.semi),
        oldMb: mb(r.atPeak.old - base.old),
        largeMb: mb(r.atPeak.large - base.large),
      },
    };
    row.multiple = row.peakGrowthMb / row.argumentMb;
    if (r.warm) Object.assign(row, { coldPeakGrowthMb: mb(r.maxRss - r.before.rss), coldWasmGrowthMb: mb(r.wasm - r.before.wasm) });
    rows.push(row);
    const cold = r.warm ? `; cold (warm-up turn included) +${row.coldPeakGrowthMb.toFixed(1)} MB (${(row.coldPeakGrowthMb / row.argumentMb).toFixed(2)}x), wasm +${row.coldWasmGrowthMb.toFixed(1)} MB` : "";
    console.log(`${name.padEnd(44)} value ${row.argumentMb.toFixed(1)} MB, peak RSS +${row.peakGrowthMb.toFixed(1)} MB (${row.multiple.toFixed(2)}x), wasm memory +${row.wasmGrowthMb.toFixed(1)} MB${cold}`);
    if (row.atPeak) console.log(`${"".padEnd(44)} at the highest sample: ${atPeakText(row.atPeak)}`);
    if (!(r.held >= bytes)) throw new Error(`${name}: the value did not arrive whole (${r.held} bytes)`);
  }
  if (smoke) return console.log("memory smoke: every case ran and held the whole value");
  writeFileSync(join(out, "memory.json"), JSON.stringify(rows, null, 2));
  writeSection(HEADING, section(rows));
  console.log("wrote target/bench/memory.json and BENCHMARKS.md's memory section");
}

const HEADING = "Memory: a long value held once";

/** BENCHMARKS.md's memory section. */
function section(rows) {
  const verdict = (m) => (m.target === null ? "no target: the floor" : m.multiple <= m.target ? "met" : "**missed**");
  return `Produced by \`node bench-js/memory.js\` (Node, each case in a fresh process with \`--expose-gc\`): a
${rows[0].argumentMb.toFixed(0)} MB tool argument streamed in 1 KB deltas (an Anthropic tool call), read by a \`ChatStream\` (the
events dropped as an app that renders them would, the \`tool_call\` kept; once more with the \`partial_input\`
of the last delta of every 1,024th frame read, as a throttled view of the arguments would) and by a \`ChatSession\`
(bytes → events → state, the answer kept in its snapshot); and a 2 MB answer of plain text in 1 KB
deltas (each one different: its number, then the same letters) read by a session whose saved
state (\`saveMessages()\`) is kept as well, its growth counted
from after a warm-up turn (a 1 KB answer read and saved the same way first: what any first turn
costs, such as the first \`Response\` and \`ReadableStream\` and the code compiled for them, is not
this answer's; its growth counted from before the warm-up is given under the table); and, with no
chatstream, the same answer's bytes read through the same \`Response\` and \`ReadableStream\` and dropped
(after the same warm-up): what the harness itself grows, a floor under the text case. Peak RSS growth
(sampled every 256 frames; without a warm-up, the process's maximum RSS too) ÷ the value's length, against the most
the case may hold; wasm memory growth beside it (a wasm module's memory never shrinks). The value
kept is checked whole by the length of its strings, without a copy of it. Under a case that missed:
what had grown by its highest sample, the module's memory and the V8 heap's spaces (the young
generation's semi-spaces grow with how much the engine allocates, up to 16 MB each; large objects
are objects over about 128 KB, such as the long value handed to JS).

| case | value | peak RSS growth | ÷ value | at most | wasm memory growth | verdict |
|---|---:|---:|---:|---:|---:|---|
${rows.map((m) => `| ${m.case} | ${m.argumentMb.toFixed(1)} MB | ${m.peakGrowthMb.toFixed(1)} MB | ${m.multiple.toFixed(2)}× | ${m.target === null ? "" : `${m.target}×`} | ${m.wasmGrowthMb.toFixed(1)} MB | ${verdict(m)} |`).join("\n")}
${misses(rows)}${coldLines(rows)}`;
}

/** For each case with a warm-up turn: its growth counted from before it. */
function coldLines(rows) {
  const cold = rows.filter((m) => m.coldPeakGrowthMb !== undefined);
  const line = (m) =>
    `- ${m.case}, counted from before its warm-up turn: peak RSS growth ${m.coldPeakGrowthMb.toFixed(1)} MB, ${(m.coldPeakGrowthMb / m.argumentMb).toFixed(2)}× the value; wasm memory growth ${m.coldWasmGrowthMb.toFixed(1)} MB.`;
  return cold.length === 0 ? "" : `\n${cold.map(line).join("\n")}\n`;
}

/** What grew by the highest sample (see `atPeak` in `main`). */
function atPeakText(p) {
  const f = (mb) => `${mb.toFixed(1)} MB`;
  // Rows written before the semi-spaces were counted apart have no semiMb.
  const semi = p.semiMb === undefined ? "" : ` (semi-spaces +${f(p.semiMb)}, the rest its large objects)`;
  return `RSS +${f(p.rssMb)}: wasm memory +${f(p.wasmMb)}, the V8 heap's young generation +${f(p.youngMb)}${semi}, old generation +${f(p.oldMb)}, large objects +${f(p.largeMb)}`;
}

/** For each case that missed: by how much, and what grew by its highest sample. */
function misses(rows) {
  const missed = rows.filter((m) => m.target !== null && m.multiple > m.target);
  if (missed.length === 0) return "";
  const line = (m) =>
    `- ${m.case}: ${(m.peakGrowthMb - m.target * m.argumentMb).toFixed(1)} MB over the ${(m.target * m.argumentMb).toFixed(1)} MB its target allows` +
    (m.atPeak ? `; at its highest sample, ${atPeakText(m.atPeak)} (the rest: the engine's other memory).` : ".");
  return `\n${missed.map(line).join("\n")}\n`;
}

if (process.argv.includes("--case")) await runCase(process.argv[process.argv.indexOf("--case") + 1]);
else if (process.argv.includes("--section")) {
  writeSection(HEADING, section(JSON.parse(readFileSync(join(out, "memory.json"), "utf8"))));
  console.log("wrote BENCHMARKS.md's memory section");
} else main();
