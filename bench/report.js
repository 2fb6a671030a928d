// Writes BENCHMARKS.md from one `./build.sh bench` run: target/bench/results.json and
// browser.md (bench/run.js) and target/bench/native.txt (criterion's output).
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const dir = join(root, "target/bench");
const { results, size } = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
const browser = readFileSync(join(dir, "browser.md"), "utf8");
const native = readFileSync(join(dir, "native.txt"), "utf8");

// criterion prints "name  time: [...]" then "thrpt: [low mid high]"; the name may sit alone on the line before.
const throughput = [];
let name = null;
for (const line of native.split("\n")) {
  const named = line.match(/^(\S+)\s*(time:.*)?$/);
  if (named && !line.startsWith(" ")) name = named[1];
  const thrpt = line.match(/thrpt:\s+\[\S+ \S+ (\S+ \S+)/);
  if (thrpt && name) throughput.push([name, thrpt[1]]);
}

const perDelta = (c, who) => {
  const r = results.find((r) => r.case === c && r.contender.startsWith(who));
  return r ? r.ms / r.deltas : NaN;
};
const openai = "OpenAI chat, 20,000 deltas";
const session = perDelta(openai, "chatstream: session");
const vsParser = perDelta(openai, "eventsource-parser") / session;
const vsClient = perDelta(openai, "AI SDK client") / session;
const scaleText = perDelta("text 1 MB", "chatstream: session") / perDelta("text 1 KB", "chatstream: session");
const scaleTool = perDelta("tool input 1 MB", "chatstream: session") / perDelta("tool input 1 KB", "chatstream: session");
const total = size.find((s) => s.name.startsWith("chatstream total"));
const verdict = (ok, text) => `${ok ? "met" : "**missed**"}: ${text}`;

const md = `# Benchmarks

Produced by \`./build.sh bench\` (bench/run.js in headless Chromium, then \`cargo bench --bench framing
--bench pipeline --bench adversarial\`, then bench/report.js). Every browser contender reads the same bytes, cut into the
same 1-16 KB chunks, from a \`ReadableStream\`, in one page, in one run; times are medians of 7 runs after
a warm-up (3 for the 1 MB cases). The machine is shared and noisy: compare ratios within this file, not
absolute times across runs.

## Targets

- Full pipeline vs eventsource-parser + \`JSON.parse\` (bare parsing, no cleaning, no state), per delta,
  target ≥ 2×: ${verdict(vsParser >= 2, `${vsParser.toFixed(2)}×`)}.
- vs the AI SDK's client, target ≥ 20×: ${verdict(vsClient >= 20, `${vsClient.toFixed(1)}×`)}.
- Flat scaling, 1 MB within 1.5× of 1 KB per delta (the session line is also issue 5's evidence that one
  state update does not copy the message across the boundary): text ${verdict(scaleText <= 1.5, `${scaleText.toFixed(2)}×`)};
  tool input ${verdict(scaleTool <= 1.5, `${scaleTool.toFixed(2)}×`)}.
- wasm + JS ≤ 60 KB gzip: ${verdict(total.gzip <= 60 * 1024, `${(total.gzip / 1024).toFixed(0)} KB`)}.

## Why the misses

- **Against bare parsing.** \`JSON.parse\` is V8's native parser; eventsource-parser is a few lines of JS
  around it. chatstream does more per delta (dialect decoding into typed events, cleaning with marker
  hold-back, one merged event per push handed to JS, session patches) inside wasm, and its JSON parsing
  (serde_json) is slower than V8's. The native numbers below show the split: the OpenAI decoder alone
  runs at the throughput listed as \`dialect/openai\`, the whole native pipeline at
  \`chat_stream/openai_8k_chunks\`. The OpenAI decoder reads a plain text chunk into borrowed types that
  skip unused fields (native pipeline 106 → 208 MiB/s); the other decoders still build a \`Value\` per
  frame, and the per-push crossing into JS (one JSON text, one \`JSON.parse\`) remains. Closing the rest
  of the gap is not done.
${vsClient >= 20 ? "" : `- **Against the AI SDK client.** chatstream's full session is an order of magnitude faster per delta than
  the AI SDK's client path, short of 20× in this run (the ratio moves between runs on this shared
  machine); the AI SDK side was not profiled, so where its time goes is not claimed here. The gap closes
  with chatstream's own per-delta cost, above.
`}- **Tool input at 1 MB.** Argument pieces are coalesced per push (one \`partial_input\` per chunk, not per
  piece), but each \`partial_input\` is still a full value of the arguments so far, copied to JS as JSON:
  the cost per chunk grows with the input. Sending \`partial_input\` at most every N KB of growth, or as a
  patch, would make it flat; not done.
- **Size.** The module carries eight decoders, the cleaner, the session, the request builders and the
  agent loop, with serde_json for all JSON; wasm-opt -Oz with LTO and opt-level "s" is applied. Below
  60 KB would need dropping serde_json's generic code paths (a hand-written JSON reader) and feature flags
  per dialect; not done.

## In the browser
${browser}
## Native stages (criterion, throughput: median)

| benchmark | throughput |
|---|---:|
${throughput.map(([n, t]) => `| ${n} | ${t} |`).join("\n")}

\`framing/*\`: SSE and line framing; the \`one_line\` pair feeds an 8 MB line at once and a byte at a time
(the per-byte cost stays a constant factor apart: framing never rescans). \`dialect/<name>\`: each dialect's
decoder over its own fixtures (frames → provider events). \`clean/*\`: the cleaner over 5-byte text
pieces with inline thinking, \`[[tool:N]]\` markers and a payload. \`chat_stream/*\`: the whole pipeline.
\`long_line\`, \`deep_json\`, \`tiny_events\`, \`marker_like\` (benches/adversarial.rs): the whole pipeline on
adversarial shapes at 10 KB, 100 KB and 1 MB; linear cost shows as a throughput that does not fall with
size (a quadratic one would fall tenfold per step).
Run one: \`cargo bench --bench pipeline -- dialect/anthropic\`.
`;
// The proxy's section comes from `./build.sh load`: kept as it is.
let load = "";
try {
  const current = readFileSync(join(root, "BENCHMARKS.md"), "utf8");
  const at = current.indexOf("## Proxy under load");
  if (at >= 0) load = "\n" + current.slice(at);
} catch {
  // no BENCHMARKS.md yet
}
writeFileSync(join(root, "BENCHMARKS.md"), md + load);
console.log("wrote BENCHMARKS.md");
