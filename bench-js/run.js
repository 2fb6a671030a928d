// `./build.sh bench`: chatstream against what users would pick instead, in headless Chromium,
// in one run. Writes target/bench/results.json and browser.md (bench-js/report.js puts them in
// BENCHMARKS.md; each entry's weight is bench-js/loading.js's).
//
//   node bench-js/run.js            the full run
//   node bench-js/run.js --smoke    tiny streams, one run each: checks the harness works, no numbers kept
//   node bench-js/run.js --only "tool input"   the cases whose name contains the text; prints, keeps nothing
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { chromiumVersion, out, withBenchPage } from "./browser.js";

const smoke = process.argv.includes("--smoke");
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;

const ALL = [
  "chatstream: session (bytes → events → state)",
  "chatstream: streamEvents (bytes → events)",
  "chatstream: ChatStream.push (pipeline only)",
  "eventsource-parser + JSON.parse (bare parsing)",
  "AI SDK client (DefaultChatTransport + readUIMessageStream)",
  "AI SDK provider (streamText + @ai-sdk/openai)",
  "chatstream: session over the AI SDK's UI message stream",
];
const OURS = ALL.slice(0, 4);
const SCALE = [ALL[0], ALL[2]];
// Both read the AI SDK's own UI message stream, one event a read, as useChat meets a live answer.
const UI = [ALL[4], ALL[6]];
/** Pieces for a message of about `kb` KB (the pieces average about 3.8 bytes). */
const pieces = (kb) => Math.round((kb * 1024) / 3.8);

const scale = smoke ? 0.01 : 1;
const n = (count) => Math.max(20, Math.round(count * scale));
const CASES = [
  { name: "OpenAI chat, 20,000 deltas", kind: "openai", n: n(20000), contenders: ALL },
  { name: "Anthropic: thinking, text, streamed tool input", kind: "anthropic", n: n(20000), contenders: OURS },
  { name: "Agent protocol with [[tool:N]] markers", kind: "agent", n: n(20000), contenders: OURS },
  // Scaling: the same pieces (about 5 bytes each), messages of about 1 KB, 100 KB and 1 MB.
  { name: "text 1 KB", kind: "openai", n: n(200), contenders: SCALE, runs: smoke ? 1 : 21 },
  { name: "text 100 KB", kind: "openai", n: n(20000), contenders: SCALE },
  { name: "text 1 MB", kind: "openai", n: n(200000), contenders: SCALE, runs: smoke ? 1 : 5 },
  { name: "tool input 1 KB", kind: "tool-input", n: n(200), contenders: SCALE, runs: smoke ? 1 : 21 },
  { name: "tool input 100 KB", kind: "tool-input", n: n(20000), contenders: SCALE },
  { name: "tool input 1 MB", kind: "tool-input", n: n(200000), contenders: SCALE, runs: smoke ? 1 : 5 },
  { name: "UI message stream 1 KB, one event a read", kind: "ui-live", n: n(pieces(1)), contenders: UI, runs: smoke ? 1 : 21 },
  { name: "UI message stream 10 KB, one event a read", kind: "ui-live", n: n(pieces(10)), contenders: UI },
  { name: "UI message stream 100 KB, one event a read", kind: "ui-live", n: n(pieces(100)), contenders: UI, runs: smoke ? 1 : 5 },
];

async function main() {
  const cases = only === null ? CASES : CASES.filter((c) => c.name.includes(only));
  if (cases.length === 0) throw new Error(`no case name contains ${JSON.stringify(only)}`);
  const results = await withBenchPage((page) => page.evaluate(([cases, runs]) => window.bench(cases, runs), [cases, smoke ? 1 : 15]));
  for (const r of results) {
    const perDelta = (r.ms * 1e6) / r.deltas;
    console.log(`${r.case.padEnd(48)} ${r.contender.padEnd(60)} ${r.ms.toFixed(1).padStart(9)} ms ${perDelta.toFixed(0).padStart(7)} ns/delta`);
  }
  if (smoke) {
    // The harness ran every contender and each read the whole stream.
    for (const r of results) if (Object.values(r.result).some((v) => !(v > 0))) throw new Error(`${r.case} / ${r.contender}: read nothing: ${JSON.stringify(r.result)}`);
    console.log("bench smoke: every contender read every stream");
    return;
  }
  if (only !== null) return;
  writeFileSync(join(out, "results.json"), JSON.stringify({ results }, null, 2));
  writeFileSync(join(out, "browser.md"), report(results));
  console.log(`wrote ${join(out, "browser.md")}`);
}

function report(results) {
  const row = (r) => {
    const mbs = r.bytes / 1e6 / (r.ms / 1000);
    return `| ${r.contender} | ${r.ms.toFixed(1)} | ${((r.ms * 1e6) / r.deltas).toFixed(0)} | ${mbs.toFixed(1)} |`;
  };
  const find = (c, who) => results.find((r) => r.case === c && r.contender === who);
  const perDelta = (r) => r.ms / r.deltas;
  let md = "";
  for (const c of CASES.slice(0, 3)) {
    const rows = results.filter((r) => r.case === c.name);
    md += `\n### ${c.name} (${rows[0].deltas.toLocaleString("en")} deltas, ${(rows[0].bytes / 1e6).toFixed(2)} MB in 1-16 KB chunks)\n\n`;
    md += "| contender | median ms | ns per delta | MB/s |\n|---|---:|---:|---:|\n" + rows.map(row).join("\n") + "\n";
  }
  const first = CASES[0].name;
  const session = find(first, ALL[0]);
  const ratio = (other) => (other ? (perDelta(other) / perDelta(session)).toFixed(2) : "n/a");
  md += `\n### Against bare parsing, per dialect (eventsource-parser + JSON.parse time per delta ÷ chatstream's; above 1 is faster)\n\n`;
  md += `| stream | session | streamEvents | ChatStream.push |\n|---|---:|---:|---:|\n`;
  for (const c of CASES.slice(0, 3)) {
    const bare = find(c.name, ALL[3]);
    const vs = (who) => (perDelta(bare) / perDelta(find(c.name, who))).toFixed(2);
    md += `| ${c.name} | ${vs(ALL[0])} | ${vs(ALL[1])} | ${vs(ALL[2])} |\n`;
  }
  md += `\n### Against the AI SDK (OpenAI case, per delta; above 1 means chatstream's session is faster)\n\n`;
  md += `| chatstream session vs | ratio |\n|---|---:|\n`;
  md += `| AI SDK client (readUIMessageStream) | ${ratio(find(first, ALL[4]))} |\n`;
  const sameBytes = find(first, ALL[6]);
  const uiRatio = sameBytes ? (perDelta(find(first, ALL[4])) / perDelta(sameBytes)).toFixed(2) : "n/a";
  md += `| AI SDK client, both reading the AI SDK's UI message stream | ${uiRatio} |\n`;
  md += `| AI SDK provider parsing (streamText) | ${ratio(find(first, ALL[5]))} |\n`;
  md += `\n### Against the AI SDK's client, one event a read (both reading the AI SDK's UI message stream)\n\n`;
  md += `| message | deltas | AI SDK client µs/delta | chatstream session µs/delta | ratio (above 1: chatstream is faster) |\n|---|---:|---:|---:|---:|\n`;
  for (const c of CASES.filter((c) => c.kind === "ui-live")) {
    const [sdk, ours] = UI.map((who) => find(c.name, who));
    if (!sdk || !ours) continue;
    md += `| ${c.name.replace(", one event a read", "")} | ${ours.deltas.toLocaleString("en")} | ${((sdk.ms * 1000) / sdk.deltas).toFixed(2)} | ${((ours.ms * 1000) / ours.deltas).toFixed(2)} | ${(perDelta(sdk) / perDelta(ours)).toFixed(1)}× |\n`;
  }
  md += `\n### Scaling: cost per delta as the message grows\n\n| stream | contender | 1 KB ns/delta | 100 KB ns/delta | 1 MB ns/delta | 1 MB / 1 KB |\n|---|---|---:|---:|---:|---:|\n`;
  for (const kind of ["text", "tool input"]) {
    for (const who of SCALE) {
      const at = (s) => find(`${kind} ${s}`, who);
      const [a, b, c] = ["1 KB", "100 KB", "1 MB"].map(at);
      const ns = (r) => ((r.ms * 1e6) / r.deltas).toFixed(0);
      md += `| ${kind} | ${who} | ${ns(a)} | ${ns(b)} | ${ns(c)} | ${(perDelta(c) / perDelta(a)).toFixed(2)} |\n`;
    }
  }
  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
  md += `\nMachine: ${cpus().length} × ${cpus()[0].model}; Node ${process.version}; Chromium ${chromiumVersion()}.\n`;
  return md;
}

await main();
