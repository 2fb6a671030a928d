// Writes BENCHMARKS.md from one `./build.sh bench` run, all in target/bench/: live.json
// (bench-js/live-run.js, the first section), fast-paths.json (benches/fast_paths.rs), results.json and
// browser.md (bench-js/run.js), twiggy-full.csv (`twiggy top` of the full module, names kept), native.txt
// and native-heap.txt (criterion's output). The loading (with each entry's weight) and memory sections are
// bench-js/loading.js's and bench-js/memory.js's, with their verdicts, put in after this file is written. The proxy's section comes from `./build.sh load` and is kept.
// `node bench-js/report.js --live-only`: BENCHMARKS.md from live.json (and fast-paths.json) alone,
// saying the rest was not run; `--live-section`, `--fast-paths-section`, `--misses-section`: only that
// section replaced (see below).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fastPathsMarkdown, liveMarkdown } from "./live-run.js";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const dir = join(root, "target/bench");
const read = (name) => readFileSync(join(dir, name), "utf8");
/** The fast paths' section, when benches/fast_paths.rs ran. */
const fastPaths = () => (existsSync(join(dir, "fast-paths.json")) ? `\n${fastPathsMarkdown(JSON.parse(read("fast-paths.json")))}` : "");

/** The proxy's section comes from `./build.sh load`: kept as it is. */
function proxySection() {
  try {
    const current = readFileSync(join(root, "BENCHMARKS.md"), "utf8");
    const at = current.indexOf("## Proxy under load");
    return at >= 0 ? "\n" + current.slice(at) : "";
  } catch {
    return ""; // no BENCHMARKS.md yet
  }
}

/** `twiggy top -f csv` rows: every item of a module, its name section left out (not shipped). */
function twiggy(file) {
  const [, ...rows] = read(file).trim().split("\n");
  const cells = (row) => [...row.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map(([, cell]) => cell.replace(/^"|"$/g, "").replace(/""/g, '"'));
  return rows
    .map(cells)
    .filter(([item]) => !/names" subsection$/.test(item))
    .map(([item, bytes]) => ({ item: item.replace(/::h[0-9a-f]{16}$/, "").replace(/\[[0-9a-f]+\]/g, ""), bytes: Number(bytes) }));
}

const CRATES = ["core", "alloc", "std", "serde_json", "serde", "hashbrown", "wasm_bindgen", "js_sys", "memchr", "talc", "zmij", "itoa"];

/**
 * Where an item's bytes belong: an exported function, an import shim, data, or the crate whose code it is
 * (for chatstream, its module). A generic of the standard library made for one of our types counts as the
 * standard library's: that is the code a smaller use of it would remove. wasm-bindgen wraps each export in a
 * shim (named after the export) and wasm-opt inlines the exported Rust function into it, so an export's shim
 * is mostly chatstream::wasm's code; an import's shim (named after its Rust path) is a few bytes of glue.
 */
function groupOf(item) {
  if (/^[\w$]+ (externref|multivalue) shim/.test(item)) return "chatstream::wasm exports";
  if (/ shim$/.test(item)) return "wasm-bindgen import shims";
  if (item.startsWith("data segment")) return "data (strings, tables)";
  const path = item.replace(/^[<&[]*(mut |dyn )?/, "").split(/::|[<>\]; ]/);
  if (path[0] === "chatstream" && path.length > 2) return `chatstream::${path[1]}`;
  if (/^([iu](8|16|32|64|128|size)|f32|f64|str|char|bool)$/.test(path[0])) return "core";
  return CRATES.includes(path[0]) ? path[0] : "other";
}

/** The "Why the misses" section: each module's bytes by where they belong, and the full module's largest items. */
function missesMarkdown() {
  const modules = ["full", "streaming", "agent", "openai", "ai-sdk"].filter((name) => existsSync(join(dir, `twiggy-${name}.csv`)));
  const items = Object.fromEntries(modules.map((name) => [name, twiggy(`twiggy-${name}.csv`)]));
  const totals = Object.fromEntries(modules.map((name) => [name, items[name].reduce((sum, t) => sum + t.bytes, 0)]));
  const groups = new Map();
  for (const name of modules) {
    for (const t of items[name]) {
      const group = groupOf(t.item);
      if (!groups.has(group)) groups.set(group, {});
      groups.get(group)[name] = (groups.get(group)[name] ?? 0) + t.bytes;
    }
  }
  const rows = [...groups].sort(([, a], [, b]) => (b[modules[0]] ?? 0) - (a[modules[0]] ?? 0));
  const cell = (bytes) => (bytes ? bytes.toLocaleString("en") : "");
  const top = items.full?.slice(0, 15) ?? [];
  const topBytes = top.reduce((sum, t) => sum + t.bytes, 0);
  return `## Why the misses

- **Weight.** Each module's bytes before gzip (\`twiggy top\` of the module as built, names kept, the name
  section left out), by where they belong:

  | | ${modules.join(" | ")} |
  |---|${modules.map(() => "---:").join("|")}|
${rows.map(([group, by]) => `  | ${group} | ${modules.map((name) => cell(by[name])).join(" | ")} |`).join("\n")}
  | **total** | ${modules.map((name) => `**${cell(totals[name])}**`).join(" | ")} |
${
  top.length
    ? `
  The full module's largest items, together ${topBytes.toLocaleString("en")} bytes (${((100 * topBytes) / totals.full).toFixed(1)}% of it):

  | item | bytes |
  |---|---:|
${top.map((t) => `  | \`${t.item.slice(0, 100).replace(/\|/g, "\\|")}\` | ${t.bytes.toLocaleString("en")} |`).join("\n")}
`
    : ""
}`;
}

// `node bench-js/report.js --live-section`: the live section alone written anew from live.json, in place,
// the rest of BENCHMARKS.md kept as it is (for a run of bench-js/live-run.js without the rest).
if (process.argv.includes("--live-section")) {
  const current = readFileSync(join(root, "BENCHMARKS.md"), "utf8");
  const start = current.indexOf("## Recorded streams, read as they arrive");
  const end = current.indexOf("\n## ", start + 1);
  if (start < 0 || end < 0) throw new Error("BENCHMARKS.md has no live section to replace");
  const note = `*This section is from a run of \`node --expose-gc bench-js/live-run.js\` alone, later than the rest of this file.*\n\n`;
  const section = liveMarkdown(JSON.parse(read("live.json"))).replace("\n\n", `\n\n${note}`);
  writeFileSync(join(root, "BENCHMARKS.md"), current.slice(0, start) + section + current.slice(end + 1));
  console.log("wrote BENCHMARKS.md's live section");
  process.exit(0);
}

// `node bench-js/report.js --fast-paths-section`: the fast paths' section alone written anew from
// fast-paths.json (`cargo bench --bench fast_paths`, as `./build.sh bench` runs it), in place.
if (process.argv.includes("--fast-paths-section")) {
  const current = readFileSync(join(root, "BENCHMARKS.md"), "utf8");
  const start = current.indexOf("## Fast paths per recording");
  const end = current.indexOf("\n## ", start + 1);
  if (start < 0 || end < 0) throw new Error("BENCHMARKS.md has no fast paths section to replace");
  if (!existsSync(join(dir, "fast-paths.json"))) throw new Error("no target/bench/fast-paths.json: run the fast_paths benchmark first");
  writeFileSync(join(root, "BENCHMARKS.md"), current.slice(0, start) + fastPaths().trimStart() + "\n" + current.slice(end + 1));
  console.log("wrote BENCHMARKS.md's fast paths section");
  process.exit(0);
}

// `node bench-js/report.js --misses-section`: the "Why the misses" section alone written anew from the
// twiggy-<module>.csv files (`./build.sh weight`), in place, the rest of BENCHMARKS.md kept as it is.
if (process.argv.includes("--misses-section")) {
  const current = readFileSync(join(root, "BENCHMARKS.md"), "utf8");
  const start = current.indexOf("## Why the misses");
  const end = current.indexOf("\n## ", start + 1);
  if (start < 0 || end < 0) throw new Error("BENCHMARKS.md has no \"Why the misses\" section to replace");
  writeFileSync(join(root, "BENCHMARKS.md"), current.slice(0, start) + missesMarkdown() + "\n" + current.slice(end + 1));
  console.log("wrote BENCHMARKS.md's \"Why the misses\" section");
  process.exit(0);
}

if (process.argv.includes("--live-only")) {
  const md = `# Benchmarks

Produced by \`node --expose-gc bench-js/live-run.js\` (headless Chromium, then Node) and \`node bench-js/report.js
--live-only\`: the first part of \`./build.sh bench\` alone. The rest of it (the generated streams against
eventsource-parser and the AI SDK, size, the native stages) was not run with it, so none of its figures are
here; the loading and memory sections further down are bench-js/loading.js's and bench-js/memory.js's own runs,
each written by its script (\`--section\`). The machine is shared and noisy: compare ratios within this
file, not absolute times across runs.

${liveMarkdown(JSON.parse(read("live.json")))}${fastPaths()}`;
  writeFileSync(join(root, "BENCHMARKS.md"), md + proxySection());
  console.log("wrote BENCHMARKS.md (the live part only)");
  process.exit(0);
}

const { results } = JSON.parse(read("results.json"));
const browser = read("browser.md");
const native = read("native.txt");
const live = JSON.parse(read("live.json"));

/** criterion's output as [name, median throughput]: "name  time: [...]" then "thrpt: [low mid high]"; the name may sit alone on the line before. */
function throughputs(text) {
  const out = [];
  let name = null;
  for (const line of text.split("\n")) {
    const named = line.match(/^(\S+)\s*(time:.*)?$/);
    if (named && !line.startsWith(" ")) name = named[1];
    const thrpt = line.match(/thrpt:\s+\[\S+ \S+ (\S+ \S+)/);
    // A second thrpt line is criterion's change against the previous run: not a throughput.
    if (thrpt && name && !out.some(([n]) => n === name)) out.push([name, thrpt[1]]);
  }
  return out;
}
const throughput = throughputs(native);
const heap = throughputs(read("native-heap.txt"));
/** "123.4 MiB/s" in MiB/s. */
const mib = (text) => {
  const [value, unit] = text.split(" ");
  return Number(value) * { "KiB/s": 1 / 1024, "MiB/s": 1, "GiB/s": 1024 }[unit];
};

/**
 * Each adversarial group of benches/adversarial.rs: its throughput at its largest input ÷ at its
 * smallest, in the run and in the run again with glibc's malloc keeping the memory it frees, and
 * the share of the fall that the second run does not have.
 */
const ADVERSARIAL = ["long_line", "deep_json", "tiny_events", "marker_like", "unclosed_payloads", "markers_without_json", "openai_tool_calls", "agent_tools", "agent_results_by_name"];
const span = (rows, group) => {
  const mine = rows.filter(([n]) => n.startsWith(`${group}/`));
  if (mine.length < 2) return null;
  const [small, big] = [mine[0], mine[mine.length - 1]];
  return { small: small[0], big: big[0], smallMib: mib(small[1]), bigMib: mib(big[1]), ratio: mib(big[1]) / mib(small[1]) };
};
const drops = ADVERSARIAL.map((group) => ({ group, run: span(throughput, group), kept: span(heap, group) })).filter((d) => d.run && d.run.ratio < 0.9);

/** One sentence per adversarial fall, from this run's figures. */
function dropSentence({ run, kept }) {
  const fall = `\`${run.big}\` runs at ${run.ratio.toFixed(2)}× the throughput of \`${run.small}\` (${run.bigMib.toFixed(1)} against ${run.smallMib.toFixed(1)} MiB/s)`;
  if (!kept) return `- ${fall}; it was not run again with malloc keeping its memory.`;
  const explained = (kept.ratio - run.ratio) / (1 - run.ratio);
  const again = `with malloc keeping its memory, ${kept.ratio.toFixed(2)}× (${kept.bigMib.toFixed(1)} against ${kept.smallMib.toFixed(1)} MiB/s)`;
  if (explained >= 0.5) {
    return `- ${fall}; ${again}: memory mapped afresh for the large input's buffers and handed back (page faults, zeroing) accounts for ${(Math.min(1, explained) * 100).toFixed(0)}% of the fall.`;
  }
  return `- ${fall}; ${again}: memory mapped afresh accounts for ${Math.max(0, explained * 100).toFixed(0)}% of the fall, and this run does not explain the rest.`;
}

const perDelta = (c, who) => {
  const r = results.find((r) => r.case === c && r.contender.startsWith(who));
  return r ? r.ms / r.deltas : NaN;
};
const SESSION = "chatstream: session (";
// Against the AI SDK's client, both read the same bytes: its own UI message stream.
const openai = "OpenAI chat, 20,000 deltas";
const vsClient = perDelta(openai, "AI SDK client") / perDelta(openai, "chatstream: session over the AI SDK's UI message stream");
const scaleText = perDelta("text 1 MB", SESSION) / perDelta("text 1 KB", SESSION);
const scaleTool = perDelta("tool input 1 MB", SESSION) / perDelta("tool input 1 KB", SESSION);
const verdict = (ok, text) => `${ok ? "met" : "**missed**"}: ${text}`;

const md = `# Benchmarks

Produced by \`./build.sh bench\`: bench-js/live-run.js (headless Chromium, then Node), bench-js/run.js (headless
Chromium), bench-js/memory.js (Node), bench-js/loading.js (headless Chromium, cold loads), \`twiggy top\` of each
module, then \`cargo bench --bench framing --bench pipeline --bench adversarial\` and the fast paths'
benchmark, written here by bench-js/report.js. Every figure and verdict below comes from that one run. The
machine is shared and noisy: compare ratios within this file, not absolute times across runs.

${liveMarkdown(live)}${fastPaths()}
## Other targets

**Speed on generated streams** (Chromium; [In the browser](#in-the-browser) has the figures):

- flat scaling, 1 MB within 1.5× of 1 KB per delta: text ${verdict(scaleText <= 1.5, `${scaleText.toFixed(2)}×`)};
  tool input ${verdict(scaleTool <= 1.5, `${scaleTool.toFixed(2)}×`)}.
- against the AI SDK's client, both reading the AI SDK's own UI message stream, ≥ 20×: ${verdict(vsClient >= 20, `${vsClient.toFixed(1)}×`)}.

**Weight**, **memory** and **loading** have sections of their own below, each written by its script
(bench-js/loading.js, bench-js/memory.js) with its targets and verdicts.

${missesMarkdown()}
## In the browser

Streams generated by bench-js/streams.js, every contender reading the same 1-16 KB chunks (one event a read
where the name says so) from a \`ReadableStream\`, in one page; the contenders take turns (one run each per
round, after a warm-up each) and each timed run starts after a forced garbage collection; times are
medians of 15 rounds (5 for the 1 MB and 100 KB UI cases, 21 for the 1 KB ones).
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
adversarial shapes at 10 KB, 100 KB and 1 MB; the hostile answers (\`unclosed_payloads\` and the others)
a whole chat turn at 1×, 2×, 4× and 8× their base size. Linear cost shows as a throughput that does not
fall with size (a quadratic one would fall tenfold per step).

Where a group's throughput falls by more than a tenth from its smallest input to its largest (the
adversarial benchmark was run again with glibc's malloc keeping the memory it frees,
\`MALLOC_MMAP_THRESHOLD_\` and \`MALLOC_TRIM_THRESHOLD_\` at 1 GiB: no block mapped afresh, nothing handed back
to the system, so the large inputs' buffers cost no page faults and no zeroing):
${drops.length === 0 ? "none fell by more than a tenth in this run." : drops.map(dropSentence).join("\n")}

Run one: \`cargo bench --bench pipeline -- dialect/anthropic\`.
`;
writeFileSync(join(root, "BENCHMARKS.md"), md + proxySection());
console.log("wrote BENCHMARKS.md");
