// The example apps (examples/), built from the packed package by `./build.sh examples`, driven in
// headless Chromium against the proxy's simulated agent backend: each page paints before the .wasm
// arrives, streams an answer with a tool card, keeps a cancelled answer's text and shows an error,
// with no console error and no failed request. And what the README says of each bundler.
//
// Needs the proxy binary (CHATSTREAM_PROXY, default target/debug/chatstream-proxy) and the
// examples built (`./build.sh examples`).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const examples = join(root, "examples");
const proxyBin = process.env.CHATSTREAM_PROXY ?? join(root, "target/debug/chatstream-proxy");
const children = [];
let context, profile;

/** Starts a server and resolves with the first http://127.0.0.1 URL it prints. */
async function serve(command, args, options = {}) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "ignore"], ...options });
  children.push(child);
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`${command} exited (${code}) before printing its URL`);
  });
  const url = (async () => {
    for await (const line of lines) {
      const found = line.match(/http:\/\/127\.0\.0\.1:\d+\/?/);
      if (found) return found[0].replace(/\/?$/, "/");
    }
  })();
  return Promise.race([url, exited]);
}

// 150 ms between the simulated chunks: an answer takes about three seconds, time to watch it grow and stop it.
const proxy = (www) =>
  serve(proxyBin, ["--port", "0", "--www", www, "--pkg", join(root, "pkg"), "--sim-delay-ms", "150", "--rate-limit", "0"]);

before(async () => {
  profile = mkdtempSync(join(tmpdir(), "chatstream-examples-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});

after(async () => {
  await context?.close();
  for (const child of children) child.kill();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Opens a page, its .wasm requests going through `wasmRoute`; collects every page error, console error and failed request. */
async function open(url, wasmRoute) {
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
  page.on("requestfailed", (request) => problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => response.status() >= 400 && problems.push(`HTTP ${response.status()}: ${response.url()}`));
  if (wasmRoute) await page.route("**/*.wasm", wasmRoute);
  await page.goto(url);
  return { page, problems };
}

const assistantText = (message) =>
  message.evaluate((el) => [...el.querySelectorAll(".text")].map((p) => p.textContent).join(""));
const streamingText = (page) => assistantText(page.locator("#streaming"));
const lastAssistant = (page) => page.locator("#messages .message.assistant").last();

async function ask(page, text) {
  await page.fill("#input", text);
  await page.click("#send");
}

/** Waits until the streaming answer's text is longer than `than`, and returns it. */
async function streamedPast(page, than) {
  const handle = await page.waitForFunction(
    (length) => {
      const text = [...document.querySelectorAll("#streaming .text")].map((p) => p.textContent).join("");
      return text.length > length && text;
    },
    than.length,
    { polling: "raf" },
  );
  return handle.jsonValue();
}

const PROMPT = "Find articles on CRISPR base editing in crop plants";

/** The whole scenario on one page; every example has the same ids and classes. */
async function drive(url) {
  let release;
  const held = new Promise((resolvePromise) => (release = resolvePromise));
  const { page, problems } = await open(url, async (route) => {
    await held;
    await route.continue();
  });

  // Painted, saying it is loading, while the .wasm has not arrived.
  await page.waitForSelector("main h1");
  assert.equal(await page.isDisabled("#send"), true);
  assert.match(await page.textContent("#send"), /Loading/);
  release();
  await page.waitForSelector("#send:not([disabled])");

  // Text streams in (seen growing), a tool card shows while it runs, the answer lands with it.
  await ask(page, PROMPT);
  const first = await streamedPast(page, "");
  const second = await streamedPast(page, first);
  assert.ok(second.startsWith(first), `${JSON.stringify(second)} grew from ${JSON.stringify(first)}`);
  const card = await page.locator("#streaming .tool-card summary").textContent();
  assert.ok(card.length > 0);
  await page.waitForSelector("#streaming", { state: "detached" });
  const answer = lastAssistant(page);
  const full = await assistantText(answer);
  assert.ok(full.startsWith(second), "the answer keeps what streamed");
  assert.deepEqual(await answer.locator(".tool-card summary").allTextContents(), [card]);

  // The same question, stopped early: the partial text stays, marked as stopped.
  await ask(page, PROMPT);
  const partial = await streamedPast(page, "");
  await page.click("#stop");
  await page.waitForSelector("#streaming", { state: "detached" });
  const stopped = lastAssistant(page);
  assert.match(await stopped.getAttribute("class"), /\bcancelled\b/);
  const kept = await assistantText(stopped);
  assert.ok(kept.startsWith(partial) && full.startsWith(kept) && kept.length < full.length, `kept ${JSON.stringify(kept)}`);
  // Stopping aborts the answer's request: the one failure expected.
  const aborted = problems.findIndex((p) => /^failed: POST \S+\/api\/chat\/stream /.test(p));
  assert.notEqual(aborted, -1, `the request was aborted: ${problems.join("; ")}`);
  problems.splice(aborted, 1);

  // A provider failure mid-answer: the error banner.
  await ask(page, `${PROMPT} sim:error`);
  await page.waitForSelector("#error:visible");
  assert.match(await page.textContent("#error"), /sim:error/);

  assert.deepEqual(problems, []);
  await page.close();
}

test("Vite + React (vite build): loads, streams with a tool card, cancels, shows an error", async () => {
  await drive(await proxy(join(examples, "vite-react/dist")));
});

test("webpack 5: loads, streams with a tool card, cancels, shows an error", async () => {
  await drive(`${await proxy(join(examples, "plain-page"))}webpack.html`);
});

test("esbuild: loads, streams with a tool card, cancels, shows an error", async () => {
  await drive(`${await proxy(join(examples, "plain-page"))}esbuild.html`);
});

test("the demo page (www/) loads with no failed request (its icon is inline)", async () => {
  const { page, problems } = await open(await proxy(join(root, "www")));
  await page.waitForSelector("#empty:not([hidden])");
  assert.deepEqual(problems, []);
  await page.close();
});

test("Vite's dev server (npm run dev) serves the .wasm with no configuration", async () => {
  const api = await proxy(join(examples, "vite-react/dist"));
  const dir = join(examples, "vite-react");
  const url = await serve(join(dir, "node_modules/.bin/vite"), ["--port", "0", "--host", "127.0.0.1"], {
    cwd: dir,
    env: { ...process.env, PROXY_URL: api, NO_COLOR: "1" },
  });
  await drive(url);
});

test("esbuild leaves the .wasm out: without a copy beside the bundle, the page gets a 404 and says so", async () => {
  const dir = join(examples, "plain-page");
  const www = mkdtempSync(join(tmpdir(), "chatstream-esbuild-"));
  try {
    const { build } = await import(join(dir, "node_modules/esbuild/lib/main.js"));
    const outdir = join(www, "dist/esbuild");
    const { metafile } = await build({ entryPoints: [join(dir, "src/main.js")], bundle: true, format: "esm", outdir, metafile: true });
    assert.deepEqual(Object.keys(metafile.outputs).map((file) => file.split("/").pop()), ["main.js"]);
    for (const file of ["esbuild.html", "style.css"]) copyFileSync(join(dir, file), join(www, file));
    const { page, problems } = await open(`${await proxy(www)}esbuild.html`);
    await page.waitForSelector("#error:visible");
    assert.match(await page.textContent("#error"), /could not load.*404/);
    const wasm = new URL("dist/esbuild/chatstream_bg.wasm", page.url());
    assert.ok(problems.includes(`HTTP 404: ${wasm}`), problems.join("; "));
    await page.close();
  } finally {
    rmSync(www, { recursive: true, force: true });
  }
});

test("vite build: a top-level `await init()` builds under Vite's default target", () => {
  const app = mkdtempSync(join(tmpdir(), "chatstream-tla-"));
  try {
    symlinkSync(join(examples, "vite-react/node_modules"), join(app, "node_modules"));
    writeFileSync(join(app, "index.html"), '<script type="module" src="./main.js"></script>\n');
    writeFileSync(join(app, "main.js"), 'import init, { ChatStream } from "chatstream";\nawait init();\nnew ChatStream();\n');
    execFileSync(join(app, "node_modules/.bin/vite"), ["build", "--logLevel", "error"], { cwd: app, stdio: "inherit" });
    const assets = readdirSync(join(app, "dist/assets"));
    assert.ok(assets.some((f) => /^chatstream_bg-.*\.wasm$/.test(f)), assets.join(", "));
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
});
