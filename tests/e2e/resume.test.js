// End to end: answers that survive a cut connection and a reload, in headless Chromium. The page
// reaches the proxy through a TCP forwarder the test controls; mid answer the test resets every
// connection (as a network that goes away), or reloads the page, and the final message must equal
// the same request's uninterrupted answer (the simulated provider answers a request the same way
// every time). For the agent protocol and three provider formats, with the proxy's memory store and
// with Redis behind two proxies (the resume then reaches the other one).
//
// What a cut costs is printed as `# cost …` lines: the time from the cut to the first byte of the
// resumed answer, and the bytes the proxy sent twice.
//
// Needs the proxy binary (CHATSTREAM_PROXY, default target/debug/chatstream-proxy), pkg/ and
// redis-server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium } from "./chromium.js";
import { Forwarder, startProxy, startRedis } from "./servers.js";

// The ChatSession options of each format (as the demo's modes have them).
const FORMATS = {
  agent: { endpoint: "/api/chat/stream" },
  openai: { provider: "openai", model: "gpt-4o-mini" },
  anthropic: { provider: "anthropic", model: "claude-sonnet-4-5" },
  gemini: { provider: "gemini", model: "gemini-2.5-flash" },
};
const PROMPT = "Tell me about résumé writing — and CRISPR 🧬, at some length please";

let context, closeChromium, redis;
const proxies = [];
// The memory store: one proxy. Redis: two proxies on one redis-server; the page starts on the first.
const stores = {};

before(async () => {
  // A slower pace than the other tests': every cut and reload must land mid answer on a busy machine.
  const pace = { simDelayMs: 60 };
  const memory = await startProxy([], pace);
  redis = await startRedis();
  const first = await startProxy(["--resume-store", redis.url], pace);
  const second = await startProxy(["--resume-store", redis.url], pace);
  proxies.push(memory, first, second);
  stores.memory = { forwarder: await new Forwarder(memory.port).listen(), start: memory.port, after: memory.port };
  stores.redis = { forwarder: await new Forwarder(first.port).listen(), start: first.port, after: second.port };
  ({ context, close: closeChromium } = await launchChromium());
});

after(async () => {
  await closeChromium?.();
  for (const store of Object.values(stores)) await store.forwarder.close();
  for (const proxy of proxies) proxy.child.kill();
  redis?.stop();
});

/** A page of the demo's origin (through the store's forwarder), with page errors collected. */
async function openPage(store, path = "/") {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(new URL(path, store.forwarder.url).href);
  return { page, errors };
}

/**
 * Starts a turn in the page: `window.run` collects its events, the text, each response (its status
 * or why the request failed, bytes of its body, when its first byte came) and, at the end, the last
 * message without its id. The fetch
 * only counts: it hands the session the body's chunks as they are.
 */
function startRun(page, options, prompt) {
  return page.evaluate(
    async ({ options, prompt }) => {
      const { default: init, ChatSession } = await import("/pkg/index.js");
      await init();
      const run = (window.run = { events: [], text: "", responses: [], message: null, done: false });
      const counting = async (url, request) => {
        const record = { method: request.method, url: String(url), sentAt: Date.now(), firstByteAt: null, bytes: 0 };
        run.responses.push(record);
        let response;
        try {
          response = await fetch(url, request);
        } catch (failed) {
          record.failed = String(failed);
          throw failed;
        }
        record.headersAt = Date.now();
        record.status = response.status;
        record.streamId = response.headers.get("x-stream-id");
        if (!response.body) return response;
        const counted = new TransformStream({
          transform(chunk, controller) {
            record.firstByteAt ??= Date.now();
            record.bytes += chunk.byteLength;
            controller.enqueue(chunk);
          },
        });
        return new Response(response.body.pipeThrough(counted), { status: response.status, headers: response.headers });
      };
      const session = (window.session = new ChatSession({ ...options, fetch: counting }));
      (async () => {
        for await (const event of session.send(prompt)) {
          run.events.push({ type: event.type, reason: event.reason, at: Date.now() });
          if (event.type === "text_delta") run.text += event.text;
        }
        const { id, ...message } = session.getSnapshot().messages.at(-1);
        run.message = message;
        run.done = true;
      })();
    },
    { options, prompt },
  );
}

async function finishedRun(page) {
  await page.waitForFunction(() => window.run.done, null, { timeout: 60_000 });
  // A stop's DELETE is sent without the session waiting for it: the run can end before its answer.
  await page.waitForFunction(() => window.run.responses.every((r) => r.status !== undefined || r.failed !== undefined));
  return page.evaluate(() => window.run);
}

const uninterrupted = new Map(); // format → the run with no cut (the same for every store)

async function wholeAnswer(store, format) {
  if (!uninterrupted.has(format)) {
    const { page, errors } = await openPage(store);
    await startRun(page, FORMATS[format], PROMPT);
    const run = await finishedRun(page);
    assert.deepEqual(errors, []);
    assert.ok(!run.events.some((e) => e.type === "error" || e.reason), JSON.stringify(run.events));
    uninterrupted.set(format, run);
    await page.close();
  }
  return uninterrupted.get(format);
}

for (const storeName of ["memory", "redis"]) {
  for (const format of Object.keys(FORMATS)) {
    test(`${format}, ${storeName} store: a connection reset mid answer is resumed; the message equals the uninterrupted one`, async () => {
      const store = stores[storeName];
      const whole = await wholeAnswer(store, format);
      const { page, errors } = await openPage(store);
      await startRun(page, FORMATS[format], PROMPT);
      // Mid answer: some text is on screen, and more to come.
      await page.waitForFunction(() => window.run.text.length >= 12, null, { timeout: 30_000 });
      const textAtCut = await page.evaluate(() => window.run.text);
      store.forwarder.to = store.after;
      const cutAt = Date.now();
      store.forwarder.cut();
      const run = await finishedRun(page);
      store.forwarder.to = store.start;

      assert.ok(textAtCut.length < whole.text.length, "the cut came before the end");
      assert.deepEqual(run.message, whole.message);
      assert.equal(run.text, whole.text);
      assert.deepEqual(errors, []);
      assert.ok(!run.events.some((e) => e.type === "error"), JSON.stringify(run.events));
      assert.deepEqual(run.events.filter((e) => e.reason).map((e) => e.reason), ["reconnecting", "resumed"]);
      const [post, get, ...more] = run.responses;
      assert.deepEqual(more, []);
      assert.equal(post.method, "POST");
      assert.equal(get.method, "GET");
      assert.equal(get.status, 200);
      assert.match(get.url, new RegExp(`/streams/[0-9a-f]{32}\\?from=${post.bytes}$`));
      const wholeBytes = whole.responses[0].bytes;
      assert.ok(post.bytes > 0 && post.bytes < wholeBytes, `${post.bytes} of ${wholeBytes} bytes before the cut`);
      const resent = post.bytes + get.bytes - wholeBytes;
      assert.equal(resent, 0);
      const noticed = run.events.find((e) => e.reason === "reconnecting").at;
      console.log(
        `# cost ${format}, ${storeName} store: cut after ${post.bytes} of ${wholeBytes} bytes; noticed ${noticed - cutAt} ms ` +
          `after the cut; the resuming GET sent ${get.sentAt - cutAt} ms after it (the first attempt waits for nothing), its headers back in ` +
          `${get.headersAt - get.sentAt} ms, its first byte in ${get.firstByteAt - get.sentAt} ms; ${resent} bytes sent again`,
      );
      await page.close();
    });
  }
}

for (const [storeName, format] of [["memory", "agent"], ["redis", "anthropic"]]) {
  test(`${format}, ${storeName} store: stop() while a resume waits stops the answer at the proxy`, async () => {
    const store = stores[storeName];
    const { page, errors } = await openPage(store);
    await startRun(page, { ...FORMATS[format], resume: { attempts: 3, delayMs: 3000 } }, PROMPT);
    await page.waitForFunction(() => window.run.text.length >= 12, null, { timeout: 30_000 });
    // The network goes and stays away: the first attempt (at once) fails, and the session waits.
    store.forwarder.refusing = true;
    store.forwarder.to = store.after;
    store.forwarder.cut();
    await page.waitForFunction(() => window.run.responses.length === 2 && window.run.events.some((e) => e.reason === "reconnecting"));
    await page.waitForTimeout(100); // the failed attempt is over: the session waits for the next
    store.forwarder.refusing = false;
    await page.evaluate(() => window.session.stop());
    const run = await finishedRun(page);
    store.forwarder.to = store.start;

    assert.deepEqual(run.events.slice(-2).map((e) => e.type), ["complete", "cancelled"]);
    const [post, failedGet, del, ...more] = run.responses;
    assert.deepEqual(more, []);
    assert.equal(failedGet.status, undefined, "the attempt found no connection");
    assert.ok(failedGet.failed, "the attempt failed");
    assert.deepEqual([del.method, del.status], ["DELETE", 204]);
    // The proxy forgot the answer: another resume is a 404.
    const url = `${FORMATS[format].endpoint ?? `/api/chat/${format}`}/streams/${post.streamId}?from=0`;
    assert.equal(await page.evaluate(async (url) => (await fetch(url)).status, url), 404);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

/** The demo page, through the store's forwarder, with the mode `format` chosen. */
async function openDemo(store, format) {
  const { page, errors } = await openPage(store);
  await page.waitForSelector("#input:not([disabled])");
  await page.selectOption("#provider", format);
  return { page, errors };
}

async function askDemo(page, text) {
  await page.fill("#input", text);
  await page.press("#input", "Enter");
}

/** The demo's conversation once nothing streams: each bubble's role and text. */
async function demoConversation(page) {
  await page.waitForSelector("#messages .bubble.assistant", { timeout: 60_000 });
  await page.waitForSelector("#streaming", { state: "hidden", timeout: 60_000 });
  return page.locator("#messages .bubble").evaluateAll((bubbles) =>
    bubbles.map((b) => ({ role: b.classList.contains("user") ? "user" : "assistant", text: b.innerText })),
  );
}

/**
 * Counts the body bytes the page receives, through the DevTools protocol (the demo uses the global
 * fetch): `post()` of the chat POST, `get()` of the resuming GET, as far as they have come.
 */
async function bodyBytes(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  const kinds = new Map(); // request id → "post" | "get"
  const bytes = { post: 0, get: 0 };
  cdp.on("Network.requestWillBeSent", ({ requestId, request }) => {
    if (!request.url.includes("/api/chat/")) return;
    kinds.set(requestId, request.method === "POST" ? "post" : "get");
  });
  cdp.on("Network.dataReceived", ({ requestId, dataLength }) => {
    if (kinds.has(requestId)) bytes[kinds.get(requestId)] += dataLength;
  });
  return { post: () => bytes.post, get: () => bytes.get };
}

const demoAnswers = new Map(); // format → the demo's conversation with no cut

async function demoUninterrupted(store, format) {
  if (!demoAnswers.has(format)) {
    const { page, errors } = await openDemo(store, format);
    await askDemo(page, PROMPT);
    const conversation = await demoConversation(page);
    await page.close();
    assert.deepEqual(errors, []);
    assert.deepEqual(conversation.map((b) => b.role), ["user", "assistant"]);
    demoAnswers.set(format, conversation);
  }
  return demoAnswers.get(format);
}

/** Asks the demo, and resolves once some of the answer is on screen. */
async function askDemoAndWait(page) {
  await askDemo(page, PROMPT);
  await page.waitForFunction(() => document.querySelector('#streaming [data-state="streaming"]')?.innerText.length > 12, null, {
    timeout: 30_000,
  });
}

test("the demo page: a cut mid answer says Reconnecting…, then shows the whole answer", async () => {
  const store = stores.memory;
  const expected = await demoUninterrupted(store, "openai");
  const { page, errors } = await openDemo(store, "openai");
  await askDemoAndWait(page);
  // The line may show for a few milliseconds only (the first attempt goes at once): watch every change.
  await page.evaluate(() => {
    const area = document.querySelector("#streaming");
    new MutationObserver(() => {
      if (area.innerText.includes("Reconnecting…")) window.sawReconnecting = true;
    }).observe(area, { childList: true, subtree: true, characterData: true });
  });
  store.forwarder.cut();
  await page.waitForFunction(() => window.sawReconnecting === true);
  assert.deepEqual(await demoConversation(page), expected);
  assert.equal(await page.isVisible("#error-banner"), false);
  assert.deepEqual(errors, []);
  await page.close();
});

for (const [storeName, format] of [["memory", "agent"], ["memory", "openai"], ["memory", "anthropic"], ["redis", "agent"], ["redis", "gemini"]]) {
  test(`the demo page, ${format}, ${storeName} store: a reload mid answer shows the whole answer`, async () => {
    const store = stores[storeName];
    const expected = await demoUninterrupted(store, format);
    const { page, errors } = await openDemo(store, format);
    const received = await bodyBytes(page);
    await askDemoAndWait(page);
    const partial = await page.locator('#streaming [data-state="streaming"]').innerText();
    const beforeReload = received.post();
    store.forwarder.to = store.after;
    // Open connections would still lead to the first proxy: with two, they go, so that the other answers.
    if (store.after !== store.start) store.forwarder.cut();
    const reloadedAt = Date.now();
    const resumed = page.waitForResponse((response) => /\/streams\/[0-9a-f]{32}\?from=0$/.test(response.url()));
    await page.reload();
    const firstResumed = await resumed;
    const resumedAt = Date.now();
    const got = await demoConversation(page);
    store.forwarder.to = store.start;

    assert.ok(partial.length < expected[1].text.length, "the reload came before the end");
    assert.equal(firstResumed.status(), 200);
    assert.deepEqual(got, expected);
    assert.equal(await page.$eval("#provider", (select) => select.value), format);
    assert.equal(await page.isVisible("#error-banner"), false);
    assert.deepEqual(errors, []);
    assert.ok(beforeReload > 0);
    console.log(
      `# cost of a reload, demo, ${format}, ${storeName} store: the resumed answer's headers ${resumedAt - reloadedAt} ms ` +
        `after the reload began; ${beforeReload} bytes received before it, sent again (of ${received.get()})`,
    );
    await page.close();
  });
}

test("the demo page: a reload after the proxy forgot the answer shows the conversation and an error, not a hang", async () => {
  const store = stores.memory;
  const { page, errors } = await openDemo(store, "agent");
  await page.evaluate(() =>
    sessionStorage.setItem(
      "chatstream-demo",
      JSON.stringify({ mode: "agent", messages: JSON.stringify([{ role: "user", content: "hello" }]), stream: "/api/chat/stream/streams/0123456789abcdef0123456789abcdef" }),
    ),
  );
  await page.reload();
  await page.waitForSelector("#error-banner:not([hidden])");
  assert.equal(await page.locator("#messages .bubble.user").innerText(), "hello");
  assert.equal(await page.getAttribute("#error-banner", "data-code"), "NOT_FOUND");
  assert.deepEqual(errors, []);
  await page.close();
});
