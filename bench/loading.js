// `./build.sh bench`, loading: time to first event from a cold load in headless Chromium,
// chatstream against the AI SDK's client. Each page is an app bundled by esbuild that reads the
// same AI SDK UI message stream: chatstream's `streamEvents`, from the full entry and from
// chatstream/streaming (its module fetched and compiled
// while it downloads: `instantiateStreaming`, served as application/wasm) and the AI SDK's
// `readUIMessageStream`. Every load is cold (a fresh browser context: no cache, no compiled
// code), served gzip-compressed from 127.0.0.1, unthrottled and on an emulated 10 Mbit/s link
// with 40 ms latency. Writes target/bench/loading.json.
//
//   node bench/loading.js            every case, written
//   node bench/loading.js --smoke    one load each: checks the harness works, keeps nothing
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { tokens, uiMessageStream } from "./streams.js";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const out = join(root, "target/bench");
const smoke = process.argv.includes("--smoke");
const LOADS = smoke ? 1 : 15;

const APPS = {
  chatstream: `
    import init, { streamEvents } from "./pkg/index.js";
    await init({ module_or_path: "/chatstream_bg.wasm" });
    for await (const event of streamEvents(fetch("/stream", { method: "POST" }))) {
      if (event.type === "text_delta") { window.firstEvent = performance.now(); break; }
    }`,
  "chatstream/streaming": `
    import init, { streamEvents } from "./pkg/streaming/index.js";
    await init({ module_or_path: "/streaming_bg.wasm" });
    for await (const event of streamEvents(fetch("/stream", { method: "POST" }))) {
      if (event.type === "text_delta") { window.firstEvent = performance.now(); break; }
    }`,
  "AI SDK": `
    import { DefaultChatTransport, readUIMessageStream } from "ai";
    const transport = new DefaultChatTransport({ api: "/stream" });
    const stream = await transport.sendMessages({ chatId: "c", messages: [], trigger: "submit-message", messageId: undefined, abortSignal: undefined });
    for await (const message of readUIMessageStream({ stream })) {
      if (message.parts.some((p) => p.type === "text" && p.text.length > 0)) { window.firstEvent = performance.now(); break; }
    }`,
};

const NETWORKS = {
  unthrottled: null,
  "10 Mbit/s, 40 ms": { offline: false, latency: 40, downloadThroughput: (10e6 / 8), uploadThroughput: (5e6 / 8) },
};

async function bundles() {
  const files = {};
  for (const [name, source] of Object.entries(APPS)) {
    const result = await build({
      stdin: { contents: source, resolveDir: root, loader: "js" },
      bundle: true,
      format: "esm",
      minify: true,
      write: false,
      logLevel: "error",
    });
    files[`/${name.replace(/\W/g, "")}.js`] = Buffer.from(result.outputFiles[0].contents);
  }
  return files;
}

function serve(files) {
  const stream = Buffer.from(uiMessageStream(tokens(200)));
  const wasm = readFileSync(join(root, "pkg/chatstream_bg.wasm"));
  const streamingWasm = readFileSync(join(root, "pkg/streaming/chatstream_bg.wasm"));
  const server = createServer((req, res) => {
    const path = req.url.split("?")[0];
    const send = (type, body) => {
      const gzip = /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
      res.writeHead(200, { "content-type": type, "cache-control": "no-store", ...(gzip ? { "content-encoding": "gzip" } : {}) });
      res.end(gzip ? gzipSync(body) : body);
    };
    if (path === "/stream") {
      res.writeHead(200, { "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1" });
      return res.end(stream);
    }
    if (path === "/chatstream_bg.wasm") return send("application/wasm", wasm);
    if (path === "/streaming_bg.wasm") return send("application/wasm", streamingWasm);
    if (path === "/favicon.ico") {
      res.writeHead(204);
      return res.end();
    }
    if (files[path]) return send("text/javascript", files[path]);
    const app = path.slice(1);
    if (app in files || `/${app}.js` in files) {
      return send("text/html", Buffer.from(`<!doctype html><script type="module" src="/${app}.js"></script>`));
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

async function coldLoad(url, network) {
  const profile = mkdtempSync(join(tmpdir(), "chatstream-loading-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => ["error", "warning"].includes(m.type()) && errors.push(m.text()));
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    if (network) await cdp.send("Network.emulateNetworkConditions", network);
    await page.goto(url);
    await page.waitForFunction(() => window.firstEvent !== undefined, null, { timeout: 60000 });
    if (errors.length > 0) throw new Error(`${url}: ${errors.join("; ")}`);
    return await page.evaluate(() => window.firstEvent);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function main() {
  mkdirSync(out, { recursive: true });
  const files = await bundles();
  const server = await serve(files);
  const base = `http://127.0.0.1:${server.address().port}`;
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const sizes = {
    chatstream: gz(files["/chatstream.js"]) + gz(readFileSync(join(root, "pkg/chatstream_bg.wasm"))),
    "chatstream/streaming": gz(files["/chatstreamstreaming.js"]) + gz(readFileSync(join(root, "pkg/streaming/chatstream_bg.wasm"))),
    "AI SDK": gz(files["/AISDK.js"]),
  };
  const rows = [];
  try {
    for (const [network, conditions] of Object.entries(NETWORKS)) {
      const times = Object.fromEntries(Object.keys(APPS).map((app) => [app, []]));
      // The apps take turns, so a slow spell of the machine falls on both.
      for (let i = 0; i < LOADS; i++) {
        for (const app of Object.keys(APPS)) times[app].push(await coldLoad(`${base}/${app.replace(/\W/g, "")}`, conditions));
      }
      for (const [app, t] of Object.entries(times)) {
        const median = t.sort((a, b) => a - b)[t.length >> 1];
        rows.push({ network, app, medianMs: median, gzipBytes: sizes[app] });
        console.log(`${network.padEnd(20)} ${app.padEnd(12)} first event at ${median.toFixed(0)} ms (median of ${t.length} cold loads; ${sizes[app]} bytes gzip)`);
      }
    }
  } finally {
    server.close();
  }
  if (smoke) return console.log("loading smoke: every app loaded and showed its first event");
  writeFileSync(join(out, "loading.json"), JSON.stringify(rows, null, 2));
}

await main();
