// `./build.sh bench`, loading: time to the first text of an answer from a page load in headless
// Chromium, chatstream against the AI SDK's client. Each page is an app bundled by esbuild (what an
// entry imports on first use left out, a chunk of its own as tests/size/measure.js weighs it, which
// these pages never download) that sends a message and reads the answer, an AI SDK UI message
// stream: chatstream's `ChatSession` (the full entry, and chatstream/streaming), which loads its
// module itself and sends the request without waiting for it, chatstream/ai-sdk's `AiSdkChat` (the
// AI SDK backend mode), and the AI SDK's `DefaultChatTransport` with `readUIMessageStream` (what its
// useChat runs). The chatstream pages carry the preload hint the README shows. Served
// gzip-compressed from 127.0.0.1, the .wasm as application/wasm; the simulated server answers after
// a time to first token of 0 or 300 ms; unthrottled and on an emulated 10 Mbit/s link with 40 ms
// latency; cold (a fresh browser context: nothing cached) and warm (the page loaded once before in
// the same context, its files cacheable). The apps take turns, so a slow spell of the machine falls
// on all of them, each round starting with the next app, so that none always loads first or right
// after the same one. Also each entry's weight against useChat. Writes target/bench/loading.json
// and BENCHMARKS.md's loading section (the weights in target/bench/loading-weight.json).
//
//   node bench-js/loading.js            every case, written
//   node bench-js/loading.js --smoke    one load each: checks the harness works, keeps nothing
//   node bench-js/loading.js --breakdown  every case, each app's steps to its first text (median ms
//                                       from the navigation's start), marked in the page; keeps nothing
//                                       (with --smoke: one load of each, as --smoke does)
//   node bench-js/loading.js --section  BENCHMARKS.md's section again from target/bench/loading*.json
//   node bench-js/loading.js --weight   the weights measured again (after ./build.sh), the section
//                                       rewritten with them and the timings of target/bench/loading.json
import { createServer } from "node:http";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { tokens, uiMessageStream } from "./streams.js";
import { writeSection } from "./section.js";
import { entryWeights, useChatSize } from "../tests/size/measure.js";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const out = join(root, "target/bench");
const smoke = process.argv.includes("--smoke");
const breakdown = process.argv.includes("--breakdown");
const LOADS = smoke ? 1 : 15;

// Each app reads the time to first token from its page's query and passes it to the server.
const firstText = `window.firstText = performance.now();`;
const chatstreamApp = (entry) => `
  import { ChatSession } from "${entry}";
  const chat = new ChatSession({ endpoint: "/stream" + location.search });
  for await (const event of chat.send("hi")) {
    if (event.type === "text_delta") { ${firstText} break; }
  }`;
const APPS = {
  chatstream: { source: chatstreamApp("./pkg/index.js"), wasm: "pkg/chatstream_bg.wasm" },
  "chatstream/streaming": { source: chatstreamApp("./pkg/streaming/index.js"), wasm: "pkg/streaming/chatstream_bg.wasm" },
  // The AI SDK backend mode, as an app that moved over from useChat runs it: the first text shows
  // in the chat's messages.
  "chatstream/ai-sdk": {
    source: `
      import { AiSdkChat } from "./pkg/ai-sdk/index.js";
      const chat = new AiSdkChat({ api: "/stream" + location.search });
      chat.subscribe(() => {
        const answer = chat.messages.at(-1);
        if (window.firstText === undefined && answer?.role === "assistant" && answer.parts.some((p) => p.type === "text" && p.text.length > 0)) { ${firstText} }
      });
      chat.sendMessage({ text: "hi" });`,
    wasm: "pkg/ai-sdk/chatstream_bg.wasm",
  },
  "AI SDK": {
    source: `
      import { DefaultChatTransport, readUIMessageStream } from "ai";
      const transport = new DefaultChatTransport({ api: "/stream" + location.search });
      const messages = [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }];
      const stream = await transport.sendMessages({ chatId: "c", messages, trigger: "submit-message", messageId: undefined, abortSignal: undefined });
      for await (const message of readUIMessageStream({ stream })) {
        if (message.parts.some((p) => p.type === "text" && p.text.length > 0)) { ${firstText} break; }
      }`,
  },
};
const slug = (app) => app.replace(/\W/g, "");

// The smoke run loads each app cold and warm, unthrottled, with no TTFT.
const NETWORKS = {
  unthrottled: null,
  ...(smoke ? {} : { "10 Mbit/s, 40 ms": { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 5e6 / 8 } }),
};
const TTFTS = smoke ? [0] : [0, 300];
const CACHES = ["cold", "warm"];

/**
 * What an app imports on first use (`import(…)`, such as the AI SDK backend mode of chatstream and
 * chatstream/streaming) left out of its bundle, as an app's bundler puts it in a chunk of its own
 * that these pages, never using it, do not download. Not esbuild's own splitting: that also moves
 * the code the entry and the chunk share into a third file, which the page would then wait for
 * before it runs (Rollup and webpack leave such code in the entry).
 */
const onFirstUseApart = {
  name: "on-first-use-apart",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => (args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined));
  },
};

/**
 * With --breakdown, what each page marks (performance.mark) besides its first text: its bundle
 * starting to run (a banner), each fetch called and its headers in (the answer's request, and the
 * .wasm's for chatstream), and the module's streaming compile started and done. The times of the
 * downloads themselves come from the page's resource timing (see `steps`).
 */
const PROBE = `<script>(() => {
  const mark = (name) => performance.getEntriesByName(name).length === 0 && performance.mark(name);
  const fetch = window.fetch;
  window.fetch = function (input) {
    const what = String(input?.url ?? input).includes("/stream") ? "answer" : "wasm";
    mark(what + " requested");
    const response = fetch.apply(this, arguments);
    response.then(() => mark(what + " headers read"), () => {});
    return response;
  };
  for (const name of ["instantiateStreaming", "compileStreaming"]) {
    const original = WebAssembly[name];
    WebAssembly[name] = function () {
      mark("wasm compile started");
      const done = original.apply(this, arguments);
      done.then(() => mark("wasm compiled"), () => {});
      return done;
    };
  }
})();</script>`;

/** Each app's files under /<slug>/: its page (with the hints), its bundle and its .wasm, gzipped once. */
async function apps() {
  const files = {};
  const add = (path, type, body) => (files[path] = { type, body: gzipSync(body) });
  for (const [app, { source, wasm }] of Object.entries(APPS)) {
    const dir = `/${slug(app)}`;
    const result = await build({
      stdin: { contents: source, resolveDir: root, loader: "js" },
      bundle: true,
      format: "esm",
      minify: true,
      write: false,
      logLevel: "error",
      plugins: [onFirstUseApart],
      ...(breakdown ? { banner: { js: 'performance.mark("bundle runs");' } } : {}),
    });
    add(`${dir}/main.js`, "text/javascript", Buffer.from(result.outputFiles[0].contents));
    // The .wasm is fetched beside the bundle (wasm-bindgen's default: new URL(…, import.meta.url)).
    const hint = wasm ? `<link rel="preload" href="${dir}/chatstream_bg.wasm" as="fetch" type="application/wasm" crossorigin>` : "";
    if (wasm) add(`${dir}/chatstream_bg.wasm`, "application/wasm", readFileSync(join(root, wasm)));
    add(`${dir}/`, "text/html", Buffer.from(`<!doctype html><link rel="icon" href="data:,">${breakdown ? PROBE : ""}${hint}<script type="module" src="${dir}/main.js"></script>`));
  }
  return files;
}

function serve(files) {
  const answer = Buffer.from(uiMessageStream(tokens(200)));
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    if (url.pathname === "/stream") {
      // Headers at once, as a streaming backend sends them; the first token after the model's time.
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", "x-vercel-ai-ui-message-stream": "v1" });
      res.flushHeaders();
      req.resume();
      setTimeout(() => res.end(answer), Number(url.searchParams.get("ttft") ?? 0));
      return;
    }
    const file = files[url.pathname];
    if (!file) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { "content-type": file.type, "content-encoding": "gzip", "cache-control": "max-age=3600" });
    res.end(file.body);
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

/** One load of `url` in `context`: when the first text showed, in ms from the navigation's start. */
async function load(context, url, network, cache) {
  const page = await context.newPage();
  try {
    const problems = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("console", (m) => ["error", "warning"].includes(m.type()) && problems.push(m.text()));
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: cache === "cold" });
    if (network) await cdp.send("Network.emulateNetworkConditions", network);
    await page.goto(url);
    await page.waitForFunction(() => window.firstText !== undefined, null, { timeout: 60000 });
    if (problems.length > 0) throw new Error(`${url}: ${problems.join("; ")}`);
    return await page.evaluate(breakdown ? steps : () => window.firstText);
  } finally {
    await page.close();
  }
}

/** In the page: when each step of its load happened (ms from the navigation's start), the first text among them. */
function steps() {
  const at = { "page downloaded": performance.getEntriesByType("navigation")[0].responseEnd, "first text": window.firstText };
  for (const { name, startTime } of performance.getEntriesByType("mark")) at[name] = startTime;
  for (const entry of performance.getEntriesByType("resource")) {
    const file = new URL(entry.name).pathname.split("/").at(-1);
    const name = { "main.js": "bundle", "chatstream_bg.wasm": "wasm", stream: "answer" }[file];
    if (name === undefined) continue;
    at[`${name} first byte`] = entry.responseStart;
    at[`${name} downloaded`] = entry.responseEnd;
  }
  return at;
}

/** --breakdown: each app's steps, the median of each over the loads, in the order they happened. */
function printSteps(label, loads) {
  for (const [app, runs] of Object.entries(loads)) {
    const names = [...new Set(runs.flatMap(Object.keys))];
    const medians = names.map((name) => [name, median(runs.map((r) => r[name]).filter((t) => t !== undefined))]);
    medians.sort((a, b) => a[1] - b[1]);
    console.log(`${label} ${app}: ${medians.map(([name, t]) => `${name} ${t.toFixed(0)}`).join(", ")}`);
  }
}

const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];

async function measure() {
  const server = await serve(await apps());
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const rows = [];
  try {
    for (const cache of CACHES) {
      for (const ttftMs of TTFTS) {
        for (const [network, conditions] of Object.entries(NETWORKS)) {
          const times = Object.fromEntries(Object.keys(APPS).map((app) => [app, []]));
          const names = Object.keys(APPS);
          for (let i = 0; i < LOADS; i++) {
            for (const app of [...names.slice(i % names.length), ...names.slice(0, i % names.length)]) {
              // A fresh context each time: an empty HTTP cache and no compiled code kept.
              const context = await browser.newContext();
              try {
                const url = `${base}/${slug(app)}/?ttft=${ttftMs}`;
                if (cache === "warm") await load(context, url, null, cache);
                times[app].push(await load(context, url, conditions, cache));
              } finally {
                await context.close();
              }
            }
          }
          const label = `${cache} ttft ${String(ttftMs).padStart(3)} ms  ${network.padEnd(17)}`;
          if (breakdown) {
            printSteps(label, times);
            continue;
          }
          for (const [app, t] of Object.entries(times)) {
            const medianMs = median(t);
            rows.push({ cache, ttftMs, network, app, medianMs, loads: t.length });
            console.log(`${label} ${app.padEnd(21)} first text at ${medianMs.toFixed(0)} ms (median of ${t.length})`);
          }
        }
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  return rows;
}

/** Each entry's weight (what an app downloads for it; every entry of size-budget.json) against useChat's. */
async function weights() {
  const measured = await entryWeights(budgetEntries().map((e) => e.entry));
  const entries = Object.fromEntries(Object.entries(measured).map(([entry, { bytes }]) => [entry, bytes]));
  const onFirstUse = Object.fromEntries(Object.entries(measured).map(([entry, w]) => [entry, w.onFirstUse]));
  return { entries, onFirstUse, useChat: await useChatSize() };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
/** size-budget.json's entries: each with its weight target. */
const budgetEntries = () => JSON.parse(readFileSync(join(root, "size-budget.json"), "utf8")).entries;

/** An entry's weight against its target: met, or missed by how much. */
function targetVerdict(entry, bytes) {
  const target = budgetEntries().find((e) => e.entry === entry).target;
  return bytes <= target ? `≤ ${kb(target)}: met` : `≤ ${kb(target)}: **missed** by ${kb(bytes - target)}`;
}

/** What an entry downloads later, on the AI SDK backend mode's first use ("—": nothing, or a weight saved before it was measured). */
const laterCell = (weight, entry) => (weight.onFirstUse?.[entry] > 0 ? `+ ${kb(weight.onFirstUse[entry])}` : "—");

/** BENCHMARKS.md's loading section. */
function section({ rows, weight }) {
  const find = (cache, ttftMs, network, app) => rows.find((r) => r.cache === cache && r.ttftMs === ttftMs && r.network === network && r.app === app);
  const apps = [...new Set(rows.map((r) => r.app))];
  const chatstreamApps = apps.filter((a) => a !== "AI SDK");
  const lines = [];
  const verdicts = [];
  for (const cache of CACHES) {
    for (const ttftMs of TTFTS) {
      for (const network of Object.keys(NETWORKS)) {
        const ai = find(cache, ttftMs, network, "AI SDK").medianMs;
        const cells = apps.map((app) => {
          const t = find(cache, ttftMs, network, app).medianMs;
          return app === "AI SDK" ? `${t.toFixed(0)} ms` : `${t.toFixed(0)} ms (${(t / ai).toFixed(2)}×)`;
        });
        lines.push(`| ${cache} | ${ttftMs} ms | ${network} | ${cells.join(" | ")} |`);
        for (const app of chatstreamApps) {
          const ratio = find(cache, ttftMs, network, app).medianMs / ai;
          const limit = ttftMs === 0 ? 1.1 : 1;
          if (ratio > limit) verdicts.push(`${app}, ${cache}, ${ttftMs} ms, ${network}: ${ratio.toFixed(2)}×`);
        }
      }
    }
  }
  const loads = rows[0].loads;
  return `Produced by \`node bench-js/loading.js\` (headless Chromium). Time from the page's navigation to the
first text of the answer on screen: an app bundled by esbuild (what an entry imports on first use
left out, a chunk of its own as the weights below count it) sends one message and reads the answer
(200 words of an AI SDK UI message stream). chatstream's app is \`new ChatSession(…).send("hi")\`,
which loads the module itself and sends the request without waiting for it; its page carries the
\`<link rel="preload" … type="application/wasm">\` hint the README shows, and the .wasm is compiled
while it downloads (served as \`application/wasm\`). chatstream/ai-sdk's app is the AI SDK backend mode,
\`new AiSdkChat(…).sendMessage({ text: "hi" })\`, the first text read from its messages. The AI SDK's app is \`DefaultChatTransport\` and
\`readUIMessageStream\` (what \`useChat\` runs). Everything gzip-served from 127.0.0.1; the simulated
server sends its headers at once and the answer after the time to first token (TTFT). Cold: a fresh
browser context. Warm: the page loaded once before in the same context (files cacheable for an
hour). Median of ${loads} loads each, the apps taking turns (each round starting with the next app); in
brackets, the time against the AI SDK's.

| cache | TTFT | network | ${apps.join(" | ")} |
|---|---:|---|${apps.map(() => "---:").join("|")}|
${lines.join("\n")}

Target: never later than the AI SDK with a 300 ms TTFT, within 10% with 0 ms.
${verdicts.length === 0 ? "Met in every case above." : `Missed: ${verdicts.join("; ")}.`}

**Weight** (what an app downloads for each entry: gzip -9 of the .wasm and of the JS it bundles,
esbuild, minified, React external; \`useChat\` is \`@ai-sdk/react\`'s, bundled the same way):

| entry | gzip | against useChat (${kb(weight.useChat)}) | target (size-budget.json) | on first use of the AI SDK backend mode |
|---|---:|---:|---|---:|
${Object.entries(weight.entries).map(([entry, bytes]) => `| \`${entry}\` | ${kb(bytes)} | ${(bytes / weight.useChat).toFixed(2)}× | ${targetVerdict(entry, bytes)} | ${laterCell(weight, entry)} |`).join("\n")}
`;
}

const HEADING = "Loading: time to first text, and weight";

if (process.argv.includes("--section") || process.argv.includes("--weight")) {
  const read = (name) => JSON.parse(readFileSync(join(out, name), "utf8"));
  let weight = read("loading-weight.json");
  if (process.argv.includes("--weight")) {
    weight = await weights();
    writeFileSync(join(out, "loading-weight.json"), JSON.stringify(weight, null, 2));
  }
  writeSection(HEADING, section({ rows: read("loading.json"), weight }));
  console.log("wrote BENCHMARKS.md's loading section");
} else if (breakdown) {
  await measure();
} else {
  mkdirSync(out, { recursive: true });
  const rows = await measure();
  const weight = await weights();
  for (const [entry, bytes] of Object.entries(weight.entries)) {
    const later = weight.onFirstUse[entry] > 0 ? `; the AI SDK backend mode adds ${kb(weight.onFirstUse[entry])} on first use` : "";
    console.log(`${entry.padEnd(28)} ${kb(bytes).padStart(9)}  ${(bytes / weight.useChat).toFixed(2)}× useChat (${kb(weight.useChat)})${later}`);
  }
  if (smoke) {
    console.log("loading smoke: every app loaded and showed its first text");
  } else {
    // The rows bench-js/report.js reads as well: network, app, medianMs and gzipBytes (the app's entry).
    const gzipBytes = { ...weight.entries, "AI SDK": weight.useChat };
    const withBytes = rows.map((r) => ({ ...r, gzipBytes: gzipBytes[r.app] }));
    writeFileSync(join(out, "loading.json"), JSON.stringify(withBytes, null, 2));
    writeFileSync(join(out, "loading-weight.json"), JSON.stringify(weight, null, 2));
    writeSection(HEADING, section({ rows: withBytes, weight }));
    console.log("wrote target/bench/loading.json, loading-weight.json and BENCHMARKS.md's loading section");
  }
}
