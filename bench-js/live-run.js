// `./build.sh bench`, first part: chatstream on the repository's recorded provider streams, read as
// a browser receives them, against the JS a developer writes without it; in headless Chromium, then
// in Node. Prints the tables and writes target/bench/live.json (bench-js/report.js puts it first in
// BENCHMARKS.md).
//
//   node --expose-gc bench-js/live-run.js           the full run
//   node --expose-gc bench-js/live-run.js --smoke   tiny inputs, one round: checks every contender reads the same text
//   node --expose-gc bench-js/live-run.js --only deepseek   the recordings whose name holds the text; prints, keeps nothing
//   node --expose-gc bench-js/live-run.js --env chromium    (or node) one environment only; prints, keeps nothing
//   CHATSTREAM_PKG=/path/to/pkg node --expose-gc bench-js/live-run.js --env chromium   another build of the package
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { out, pkg, root, withBenchPage } from "./browser.js";
import { AGAINST, frames, pushCosts, runLive, tile } from "./live.js";
import { profileLivePush } from "./profile.js";
import { openaiStream, tokens } from "./streams.js";

const smoke = process.argv.includes("--smoke");
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
// `--env chromium` or `--env node`: one of the two (prints, keeps nothing).
const env = process.argv.includes("--env") ? process.argv[process.argv.indexOf("--env") + 1] : null;
export const MODES = ["live", "bursty", "buffered"];
// The ReadableStream readers (streamEvents, the session and their baselines) on live reads only.
const WHO = { live: ["bare", "push", "bareStream", "streamEvents", "bareResponse", "session"], bursty: ["bare", "push"], buffered: ["bare", "push"] };
const options = { rounds: smoke ? 1 : 5, target: smoke ? 50 : 10000, modes: MODES, who: WHO };

/** Every recording of every dialect (the folder names the dialect), and the synthetic stream last. */
export function recordings() {
  const dir = join(root, "tests/fixtures/recorded");
  const out = [];
  for (const dialect of readdirSync(dir).filter((d) => !/[A-Z.]/.test(d)).sort()) {
    for (const file of readdirSync(join(dir, dialect)).sort()) {
      const format = file.endsWith(".sse") ? "sse" : file.endsWith(".ndjson") ? "ndjson" : null;
      if (format) out.push({ name: `${dialect}/${file}`, dialect, format, text: readFileSync(join(dir, dialect, file), "utf8") });
    }
  }
  // The stream the older benchmarks use: one ASCII word a frame, every frame the same but its word.
  out.push({ name: "synthetic: one word a frame", dialect: "openai", format: "sse", text: openaiStream(tokens(smoke ? 50 : 10000)), synthetic: true });
  return out;
}

/** The recording the fixed costs of `push` are measured on. */
const COSTS = "openai/openai-text.sse";

async function inNode(recs) {
  const lib = await import(join(pkg, "index.js"));
  lib.initSync({ module: readFileSync(join(pkg, "chatstream_bg.wasm")) });
  const rows = await runLive(lib, recs, { ...options, log: (row) => console.log(JSON.stringify(row)) });
  const costs = recordings().find((r) => r.name === COSTS);
  const list = tile(frames(costs.text, costs.format), costs.dialect, options.target);
  return { rows, push: pushCosts(lib, list, costs.dialect, { repeats: options.rounds }) };
}

/**
 * The Node part in a process of its own (`--node-part`), so that the Chromium run before it leaves
 * nothing behind in it (its garbage, its compiled code). A crash fails the benchmark: it is a bug.
 */
function inNodeProcess() {
  const file = join(out, "live-node.json");
  rmSync(file, { force: true });
  const args = ["--expose-gc", fileURLToPath(import.meta.url), "--node-part", ...process.argv.slice(2)];
  const run = spawnSync(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
  if (run.status !== 0 || !existsSync(file)) throw new Error(`the Node part failed (exit ${run.status}, signal ${run.signal})`);
  return JSON.parse(readFileSync(file, "utf8"));
}

const geomean = (xs) => Math.exp(xs.reduce((n, x) => n + Math.log(x), 0) / xs.length);

/** Baseline time ÷ chatstream's time (above 1: chatstream is faster). */
export const ratio = (row, who) => row.us[AGAINST[who]] / row.us[who];

/** The summary of one environment's rows: per mode and contender, the geometric mean and the worst recording. */
export function summary(rows) {
  const real = rows.filter((r) => !r.recording.startsWith("synthetic"));
  const out = {};
  for (const mode of MODES) {
    for (const who of Object.keys(AGAINST)) {
      const at = real.filter((r) => r.mode === mode && r.us[who] !== undefined).map((r) => ({ name: r.recording, x: ratio(r, who) }));
      if (at.length === 0) continue;
      const worst = at.reduce((a, b) => (b.x < a.x ? b : a));
      out[`${mode}/${who}`] = { geomean: geomean(at.map((a) => a.x)), worst };
    }
  }
  return out;
}

/** The table: one row per recording, the live reads first. */
export function table(result) {
  const rows = result.rows;
  const names = [...new Set(rows.map((r) => r.recording))];
  const at = (name, mode) => rows.find((r) => r.recording === name && r.mode === mode);
  const x = (v) => `${v.toFixed(2)}×`;
  let md = "| recording | events | live: push µs/event | live: JS µs/event | live: push | bursty: push | buffered: push | live: streamEvents | live: session |\n";
  md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const name of names) {
    const [live, bursty, buffered] = MODES.map((m) => at(name, m));
    md += `| ${name} | ${live.events.toLocaleString("en")} | ${live.us.push.toFixed(2)} | ${live.us.bare.toFixed(2)} | ${x(ratio(live, "push"))} | ${x(ratio(bursty, "push"))} | ${x(ratio(buffered, "push"))} | ${x(ratio(live, "streamEvents"))} | ${x(ratio(live, "session"))} |\n`;
  }
  const s = summary(rows);
  const cell = (key, pick) => (s[key] ? pick(s[key]) : "—");
  const cols = [["live", "push"], ["bursty", "push"], ["buffered", "push"], ["live", "streamEvents"], ["live", "session"]];
  md += `| **geometric mean** (recordings) | | | | ${cols.map(([m, w]) => `**${cell(`${m}/${w}`, (v) => x(v.geomean))}**`).join(" | ")} |\n`;
  md += `| **worst** (recordings) | | | | ${cols.map(([m, w]) => cell(`${m}/${w}`, (v) => `${x(v.worst.x)} ${v.worst.name}`)).join(" | ")} |\n`;
  return md;
}

const us = (v) => `${v.toFixed(2)} µs`;
const pct = (part, whole) => `${((part / whole) * 100).toFixed(0)}%`;

/**
 * Where a live push spends its time (bench-js/live.js `pushCosts`), as a sentence of this run's
 * figures. Each stage is the difference of two medians: one that comes out below zero is smaller
 * than this run's noise, and is said so rather than printed.
 */
export function breakdown({ push: p }) {
  const stage = (cost, what) =>
    cost >= 0 ? `${us(cost)} (${pct(cost, p.onePerPush)}) ${what}` : `${what}: below this run's noise (the difference of the medians is ${us(cost)})`;
  return (
    `a push of nothing (an empty read, which returns at once) costs ${(p.emptyPush * 1000).toFixed(0)} ns; on ${COSTS} one frame a push costs ${us(p.onePerPush)} a frame: ` +
    `${stage(p.commentPush, "the call into the module, copying the chunk in and framing it (an SSE comment as long as the frame)")}, ` +
    `${stage(p.onePerPush - p.commentPush, "decoding, cleaning and building the events")}; ` +
    `sixteen frames a push cost ${us(p.sixteenPerPush)} a frame; a stream made, finished with nothing read and freed, ${us(p.createFinish)} ` +
    `(each the median of ${p.rounds} rounds, the four pushes taking turns in each)`
  );
}

const verdict = (ok, text) => `${ok ? "met" : "**missed**"}: ${text}`;
/** `got` against a floor `want`: met, or missed and by how much. */
const atLeast = (got, want) => verdict(got >= want, got >= want ? `${got.toFixed(2)}×` : `${got.toFixed(2)}×, ${pct(want - got, want)} short of ${want}×`);

/** The targets, each computed from the Chromium run. */
export function targets({ chromium, profiles = [] }) {
  const s = summary(chromium.rows);
  const p = chromium.push;
  const below = chromium.rows.filter((r) => r.mode === "live" && !r.recording.startsWith("synthetic") && ratio(r, "push") < 1);
  const oneVsSixteen = p.onePerPush / p.sixteenPerPush;
  return [
    `- live reads, \`push\` against the JS baseline, geometric mean ≥ 1.5×: ${atLeast(s["live/push"].geomean, 1.5)}.`,
    `- no recording below 1.0× live: ${verdict(below.length === 0, below.length === 0 ? `the slowest is ${s["live/push"].worst.name} at ${s["live/push"].worst.x.toFixed(2)}×` : `${below.length} of ${chromium.rows.filter((r) => r.mode === "live" && !r.recording.startsWith("synthetic")).length} are below, the slowest ${s["live/push"].worst.name} at ${s["live/push"].worst.x.toFixed(2)}×`)}.`,
    `- buffered reads (4-16 KB), geometric mean ≥ 3×: ${atLeast(s["buffered/push"].geomean, 3)}.`,
    `- the whole session, live, geometric mean ≥ 1.0× (the baseline reading the same Response's body): ${atLeast(s["live/session"].geomean, 1)}; the slowest ${s["live/session"].worst.name} at ${s["live/session"].worst.x.toFixed(2)}×.`,
    `- a \`push\` of nothing ≤ 100 ns: ${verdict(p.emptyPush <= 0.1, `${(p.emptyPush * 1000).toFixed(0)} ns${p.emptyPush <= 0.1 ? "" : `, ${(p.emptyPush * 10).toFixed(1)}× the target`}`)}.`,
    `- one frame a \`push\` within 1.5× of its share of a sixteen-frame \`push\`: ${verdict(oneVsSixteen <= 1.5, `${oneVsSixteen.toFixed(2)}× (${us(p.onePerPush)} against ${us(p.sixteenPerPush)} a frame)`)}.`,
  ].join("\n") + `\n\n${why(chromium, profiles)}`;
}

/**
 * Why live pushes miss, in this run's figures: the fixed cost of a push, the short recordings read
 * whole many times, and where the profiles put the time.
 */
function why({ push: p, rows }, profiles) {
  const share = (profile, pattern) => profile.stages.filter((s) => pattern.test(s.stage)).reduce((n, s) => n + s.share, 0);
  const short = rows.filter((r) => r.mode === "live" && r.events < 100);
  const parts = [
    `Why: a push of one frame of ${COSTS} costs ${us(p.onePerPush)}, of which ${us(p.commentPush)} ` +
      `(${pct(p.commentPush, p.onePerPush)}) is the call, the copy in and the framing that a frame-long comment costs too; ` +
      `one frame a read costs ${(p.onePerPush / p.sixteenPerPush).toFixed(2)}× what it costs at sixteen a read, ` +
      `the rest of the difference being the work per push that a larger read shares (one call, one hand-over of the events, ` +
      `one run of the cleaner over merged deltas) against the baseline's ${us(rows.find((r) => r.mode === "live" && r.recording === COSTS).us.bare)} a frame.`,
  ];
  if (short.length > 0) {
    const made = (r) => pct(p.createFinish, r.us.push * r.events);
    parts.push(
      `${short.map((r) => `${r.recording} (${r.events} events, ${ratio(r, "push").toFixed(2)}×; a stream made and finished is ${made(r)} of its time)`).join(", ")} ` +
        `${short.length === 1 ? "is" : "are"} read whole thousands of times: each pass makes a \`ChatStream\` and ` +
        `finishes it (the \`complete\` event with the whole message), ${us(p.createFinish)} with nothing read, ` +
        `which the baseline's few lines do not pay.`,
    );
  }
  const live = rows.filter((r) => r.mode === "live" && !r.recording.startsWith("synthetic"));
  const times = (a, b) => geomean(live.map((r) => r.us[a] / r.us[b])).toFixed(2);
  parts.push(
    `The session costs ${times("session", "streamEvents")}× what \`streamEvents\` costs an event on the same live reads (geometric mean over the recordings), ` +
      `and \`streamEvents\` ${times("streamEvents", "push")}× what \`push\` costs: on each read the session also applies the step's patches to a new frozen ` +
      `snapshot and tells its subscribers, and \`streamEvents\` hands each event out through its async queue (a promise an event), ` +
      `while their baselines read the same ReadableStream (the session's, the body of the same kind of \`Response\`) and keep three strings.`,
  );
  for (const profile of profiles) {
    parts.push(
      `In the profile of ${profile.recording}, crossing between JS and the module and building the event objects take ` +
        `${pct(share(profile, /^(crossing|building the events)/), 1)} of the samples, the allocator ${pct(share(profile, /^the allocator/), 1)}, ` +
        `decoding, cleaning and framing ${pct(share(profile, /^(decoding|cleaning|framing)/), 1)}, ` +
        `of which the marker stripper ${pct(share(profile, /^cleaning: the marker stripper/), 1)}.`,
    );
  }
  return parts.join(" ");
}

/** A profile's stages as a table. */
function profileTable({ recording, stages }) {
  return `Profile of live pushes of ${recording} (Node's sampling profiler, the module with its function names kept; share of the samples):

| stage | share |
|---|---:|
${stages.map((s) => `| ${s.stage} | ${pct(s.share, 1)} |`).join("\n")}
`;
}

/**
 * The fast paths per recording (benches/fast_paths.rs, target/bench/fast-paths.json): the share
 * of frames each path read, and the decoding time per frame as built, with the forward scanner
 * alone (no learned shape) and with no fast path.
 */
export function fastPathsMarkdown(rows) {
  const x = (v) => `${v.toFixed(2)}×`;
  const share = (n, r) => pct(n, r.frames);
  const withShapes = rows.filter((r) => r.replayed > 0);
  const shapeGain = (r) => r.nsPlain / r.nsWarm;
  const fastGain = (r) => r.nsOff / r.nsWarm;
  const best = withShapes.reduce((a, b) => (shapeGain(b) > shapeGain(a) ? b : a), withShapes[0]);
  const worst = withShapes.reduce((a, b) => (shapeGain(b) < shapeGain(a) ? b : a), withShapes[0]);
  return `## Fast paths per recording

Produced by \`RUSTFLAGS="--cfg fuzzing" cargo bench --bench fast_paths\` (native; the switch between the
three ways below and the counts exist only in test and fuzz builds, never in the package). Each recording
as recorded (not tiled), its frames decoded by its dialect's decoder: the share of the frames that a
learned shape (\`Shape\`, src/dialect/scan.rs) replayed, that the forward scanner read, and the rest (the
general path, or a frame no fast path reads: \`[DONE]\`, a ping, an error, a whole tool call but OpenAI-compatible ones); then ns per
frame as built, with the forward scanner alone reading every frame (no shape learned), and with no fast
path (every frame read whole by the JSON reader). Medians of 5 runs of at least 20 ms each.

| recording | frames | shape replayed | scanner read | rest | as built ns/frame | scanner alone | no fast path | shapes' gain | fast paths' gain |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows
  .map((r) => `| ${r.recording} | ${r.frames} | ${share(r.replayed, r)} | ${share(r.scanned, r)} | ${share(r.frames - r.replayed - r.scanned, r)} | ${r.nsWarm.toFixed(0)} | ${r.nsPlain.toFixed(0)} | ${r.nsOff.toFixed(0)} | ${x(shapeGain(r))} | ${x(fastGain(r))} |`)
  .join("\n")}

Shapes' gain is the scanner alone's time ÷ the time as built; fast paths' gain, the time with no fast path ÷
the time as built (above 1, faster as built). Over the ${withShapes.length} recordings with a frame a shape replayed, the
shapes' gain has a geometric mean of ${x(geomean(withShapes.map(shapeGain)))} (from ${x(shapeGain(worst))} on ${worst.recording} to
${x(shapeGain(best))} on ${best.recording}); the fast paths' gain over all ${rows.length} recordings, ${x(geomean(rows.map(fastGain)))}.
`;
}

/** The section BENCHMARKS.md opens with. */
export function liveMarkdown(live) {
  const { chromium, node, profiles, options: o } = live;
  return `## Recorded streams, read as they arrive

Every recording in \`tests/fixtures/recorded/\` (each folder a dialect), tiled to about ${o.target.toLocaleString("en")} events (its longest run of
consecutive content frames, one block of the answer, repeated in place; one without such a run, an error, a
refusal or only whole tool calls, is read whole as many times as makes as many events), read three ways: **live**, one SSE event or NDJSON line a
read; **bursty**, 1-3 events a read (seeded); **buffered**, 4-16 KB reads cut anywhere (seeded). The JS baseline
is what a developer writes without chatstream: \`TextDecoder\`, eventsource-parser (a line splitter for NDJSON),
\`JSON.parse\` and the dialect's field access for text, thinking and tool arguments. \`push\` and the baseline read
the same array of \`Uint8Array\` chunks synchronously; \`streamEvents\` is compared with the same baseline reading a
\`ReadableStream\` of the same chunks, and the session (a \`ChatSession\` turn whose \`fetch\` answers with a \`Response\`
over that stream, every update's snapshot read) with the baseline reading such a \`Response\`'s body, as it would a \`fetch\`'s. Every contender's text and thinking are checked equal to the baseline's
before timing (the run fails otherwise). Figures: median of ${o.rounds} runs, µs per event; ratios are the
baseline's time ÷ chatstream's (above 1, chatstream is faster). The synthetic stream (the older benchmarks'
one word a frame) is one row, left out of the geometric mean and the worst.
Which frames took a fast path, and what the learned shapes earn on their own, is measured natively
further down ([Fast paths](#fast-paths-per-recording)): the module carries no counters.

### Chromium

${table(chromium)}
Where a live \`push\` goes: ${breakdown(chromium)}.

${profiles.map(profileTable).join("\n")}
**Targets** (Chromium):

${targets(live)}

### Node

${
  node
    ? `${table(node)}
Where a live \`push\` goes: ${breakdown(node)}.`
    : "Not measured in this run: the Node part stopped three times with a fatal error in V8's deoptimizer (Node 20)."
}
`;
}

async function main() {
  const recs = recordings().filter((r) => only === null || r.name.includes(only));
  if (process.argv.includes("--node-part")) {
    writeFileSync(join(out, "live-node.json"), JSON.stringify(await inNode(recs)));
    return;
  }
  console.log(`live benchmark: ${recs.length} streams × ${MODES.join(", ")}; ${options.rounds} rounds each (Chromium, then Node)`);
  const costs = recordings().find((r) => r.name === COSTS);
  const results = [];
  if (env !== "node") {
    const chromium = await withBenchPage((page) => page.evaluate(([recs, options, costs]) => window.live(recs, options, costs), [recs, options, costs]));
    console.log("\nChromium (ratio: the JS baseline's time ÷ chatstream's; above 1, chatstream is faster)\n");
    console.log(table(chromium));
    console.log(`Chromium: ${breakdown(chromium)}`);
    results.push(chromium);
  }
  if (env !== "chromium") {
    const node = inNodeProcess();
    console.log("Node\n");
    console.log(table(node));
    console.log(`Node: ${breakdown(node)}`);
    results.push(node);
  }
  if (env !== null) return;
  const [chromium, node] = results;
  // Profiles: the recording the costs are measured on, Chromium's slowest live one, and the one
  // NDJSON recording (an Ollama answer, where the marker stripper shows).
  const profiles = [];
  for (const name of new Set([COSTS, summary(chromium.rows)["live/push"]?.worst.name, "ollama/simple-stream.ndjson"])) {
    if (!name || name.startsWith("synthetic")) continue;
    const stages = await profileLivePush(root, name, { passes: smoke ? 1 : 20, target: options.target });
    if (stages) profiles.push({ recording: name, stages });
  }
  if (profiles.length === 0) console.log("no profile: the named module (target/bench/named-full) is not built, or is older than pkg/; ./build.sh bench (or ./build.sh weight) builds it");
  for (const p of profiles) console.log(`profile of ${p.recording}: ${p.stages.map((s) => `${s.stage} ${pct(s.share, 1)}`).join("; ")}`);
  if (smoke || only !== null) {
    if (smoke) console.log("live bench smoke: every contender read the same text from every recording, every way of reading");
    return;
  }
  writeFileSync(join(out, "live.json"), JSON.stringify({ chromium, node, profiles, options: { rounds: options.rounds, target: options.target } }, null, 2));
  console.log(`wrote ${join(out, "live.json")}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
