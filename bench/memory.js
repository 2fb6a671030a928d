// `./build.sh bench`, memory: what chatstream holds at its peak while a 20 MB tool argument
// streams in as 1 KB deltas (an Anthropic tool call), against the size of that argument.
// Each case runs in a fresh Node process (`--expose-gc`), so one case's garbage or grown wasm
// memory does not count against another. Writes target/bench/memory.json.
//
//   node bench/memory.js            every case, written
//   node bench/memory.js --smoke    a 200 KB argument: checks the harness works, keeps nothing
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const smoke = process.argv.includes("--smoke");
const ARGUMENT_BYTES = smoke ? 200 * 1024 : 20 * 1024 * 1024;
const DELTA_BYTES = 1024;

export const CASES = {
  "ChatStream.push (pipeline only)": "push",
  "ChatSession (bytes → events → state)": "session",
};

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

/** Runs one case in this process and prints its numbers as JSON. */
async function runCase(which) {
  const glue = await import(join(root, "pkg/chatstream.js"));
  const { makeApi } = await import(join(root, "pkg/api.js"));
  const exports = glue.initSync({ module: readFileSync(join(root, "pkg/chatstream_bg.wasm")) });
  const { ChatStream, ChatSession, initSync } = makeApi(glue);
  initSync(exports); // already loaded: marks the API ready
  const encoder = new TextEncoder();
  let held = 0;

  globalThis.gc();
  const before = { rss: process.memoryUsage().rss, wasm: exports.memory.buffer.byteLength };
  let peakRss = before.rss;
  const sample = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));

  if (which === "push") {
    const stream = new ChatStream({ dialect: "anthropic" });
    let n = 0;
    let call = null; // the one event kept: the deltas are dropped as an app that renders them would
    const keep = (events) => (call = events.find((e) => e.type === "tool_call") ?? call);
    for (const frame of toolCallFrames(ARGUMENT_BYTES)) {
      keep(stream.push(encoder.encode(frame)));
      if (++n % 256 === 0) sample();
    }
    keep(stream.finish());
    sample();
    held = JSON.stringify(call?.input ?? null).length;
    stream.free();
  } else {
    const frames = toolCallFrames(ARGUMENT_BYTES);
    let n = 0;
    const body = new ReadableStream({
      pull(controller) {
        const next = frames.next();
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(next.value));
        if (++n % 256 === 0) sample();
      },
    });
    const chat = new ChatSession({ fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
    for await (const _ of chat.send("write it")) sample();
    sample();
    const last = chat.getSnapshot().messages.at(-1);
    held = JSON.stringify(last.parts.find((p) => p.type === "tool")?.input ?? null).length;
    chat.dispose();
  }
  const usage = process.resourceUsage();
  console.log(JSON.stringify({ before, peakRss: Math.max(peakRss, usage.maxRSS * 1024), wasm: exports.memory.buffer.byteLength, held }));
}

function main() {
  const out = join(root, "target/bench");
  mkdirSync(out, { recursive: true });
  const rows = [];
  for (const [name, which] of Object.entries(CASES)) {
    const printed = execFileSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--case", which, ...(smoke ? ["--smoke"] : [])], {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    const r = JSON.parse(printed.trim().split("\n").at(-1));
    const mb = (bytes) => bytes / (1024 * 1024);
    const row = {
      case: name,
      argumentMb: mb(ARGUMENT_BYTES),
      heldMb: mb(r.held),
      peakGrowthMb: mb(r.peakRss - r.before.rss),
      wasmGrowthMb: mb(r.wasm - r.before.wasm),
    };
    row.multiple = row.peakGrowthMb / row.argumentMb;
    rows.push(row);
    console.log(`${name.padEnd(40)} argument ${row.argumentMb.toFixed(1)} MB, peak RSS +${row.peakGrowthMb.toFixed(1)} MB (${row.multiple.toFixed(2)}x), wasm memory +${row.wasmGrowthMb.toFixed(1)} MB`);
    if (!(r.held >= ARGUMENT_BYTES)) throw new Error(`${name}: the argument did not arrive whole (${r.held} bytes)`);
  }
  if (smoke) return console.log("memory smoke: every case ran and held the whole argument");
  writeFileSync(join(out, "memory.json"), JSON.stringify(rows, null, 2));
}

if (process.argv.includes("--case")) await runCase(process.argv[process.argv.indexOf("--case") + 1]);
else main();
