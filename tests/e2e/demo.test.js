// End to end: the demo page (www/) served by the proxy with its offline simulated provider,
// driven in headless Chromium through playwright-core. Screenshots of the main states are saved
// to the folder printed at the start (target/e2e-screenshots by default, or $E2E_SCREENSHOTS).
//
// Needs the proxy binary (CHATSTREAM_PROXY, default target/debug/chatstream-proxy) and pkg/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./chromium.js";
import { startProxy } from "./servers.js";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const shots = process.env.E2E_SCREENSHOTS ?? join(root, "target/e2e-screenshots");
mkdirSync(shots, { recursive: true });
console.log(`# screenshots: ${shots}`);

let proxy, baseUrl, context, closeChromium;

before(async () => {
  ({ child: proxy, url: baseUrl } = await startProxy());
  ({ context, close: closeChromium } = await launchChromium());
});

after(async () => {
  await closeChromium?.();
  proxy?.kill();
});

/** A fresh page on the demo, with page errors collected (any one fails the test). */
async function openDemo(viewport = { width: 900, height: 800 }) {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  const errors = [];
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(baseUrl);
  // The composer is enabled once the module is loaded and the page wired up.
  await page.waitForSelector("#input:not([disabled])");
  await page.waitForSelector("#empty:not([hidden])");
  return { page, errors };
}

async function ask(page, text) {
  await page.fill("#input", text);
  await page.press("#input", "Enter");
}

const lastAssistant = (page) => page.locator("#messages .bubble.assistant").last();

test("the empty state welcomes, a message streams in, and the final answer is rendered", async () => {
  const { page, errors } = await openDemo();
  await page.screenshot({ path: join(shots, "01-empty.png") });
  await ask(page, "Find articles on CRISPR");
  await page.waitForSelector("#messages .bubble.user");
  assert.equal(await page.textContent("#messages .bubble.user"), "Find articles on CRISPR");
  // While streaming: the thinking indicator or the streaming bubble, with the Stop button shown.
  await page.waitForSelector('#streaming [data-state="streaming"]');
  assert.equal(await page.isVisible("#stop"), true);
  const partial = await page.textContent('#streaming [data-state="streaming"]');
  await page.screenshot({ path: join(shots, "02-streaming.png") });
  // The end: one assistant bubble, Markdown-rendered, no marker left anywhere. (The tool's
  // progress card shows for a frame or two at this pace; the next test holds it on screen.)
  await page.waitForSelector("#streaming", { state: "hidden" });
  const answer = await lastAssistant(page).innerText();
  assert.ok(answer.includes("Let me look that up."), answer);
  assert.ok(answer.includes("I found 3 articles"), answer);
  assert.ok(!answer.includes("[[tool"), "no [[tool:N]] marker is shown");
  assert.ok(partial.length > 0 && !partial.includes("[[tool"));
  assert.equal(await page.isVisible("#stop"), false);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a tool card sits where the tool ran, collapsed, and opens to show input and output", async () => {
  const { page, errors } = await openDemo();
  await ask(page, "CRISPR base editing");
  await page.waitForSelector("#streaming", { state: "hidden" });
  const card = lastAssistant(page).locator("details.tool-card");
  assert.equal(await card.count(), 1);
  assert.equal(await card.getAttribute("open"), null, "collapsed by default");
  assert.equal(await card.locator(".io").isVisible(), false);
  // Between the text before the tool and the text after it, in reading order.
  const order = await lastAssistant(page).evaluate((bubble) =>
    [...bubble.children].map((el) => (el.matches("details.tool-card") ? "tool" : el.textContent.trim().slice(0, 12))),
  );
  assert.deepEqual(order.slice(0, 3), ["Let me look ", "tool", "I found 3 ar"]);
  await card.locator("summary").click();
  assert.equal(await card.locator(".io").isVisible(), true);
  const io = await card.locator(".io").innerText();
  assert.match(io, /"query": "CRISPR base editing"/);
  assert.match(io, /Found 3 articles/);
  await page.screenshot({ path: join(shots, "04-tool-card-open.png") });
  assert.deepEqual(errors, []);
  await page.close();
});

test("suggested values are chips that send their value; a client action runs in the page", async () => {
  const { page, errors } = await openDemo();
  await ask(page, "gene therapy");
  await page.waitForSelector("#messages .chip");
  const chips = await page.locator("#messages .chip").allInnerTexts();
  assert.deepEqual(chips, ["Tell me more", "Search again"]);
  assert.deepEqual(await page.locator("#messages .action").allInnerTexts(), ["Close Chat"]);
  await page.screenshot({ path: join(shots, "05-chips-and-actions.png") });
  await page.click("#messages .chip >> text=Tell me more");
  await page.waitForFunction(() => document.querySelectorAll("#messages .bubble.user").length === 2);
  assert.equal(
    await page.locator("#messages .bubble.user").last().textContent(),
    "Tell me more about the first article",
    "the chip sends its value, not its label",
  );
  await page.waitForSelector("#streaming", { state: "hidden" });
  // Close Chat is a client action: the conversation starts over.
  await page.click("#messages .action >> text=Close Chat");
  await page.waitForSelector("#empty:not([hidden])");
  assert.equal(await page.locator("#messages .bubble").count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test("thinking shows before the answer and stays as a collapsible section", async () => {
  const { page, errors } = await openDemo();
  await ask(page, "think about it: why is the sky blue?");
  await page.waitForSelector("#streaming", { state: "hidden" });
  const section = lastAssistant(page).locator("details.thinking");
  assert.equal(await section.count(), 1);
  assert.equal(await section.locator("div").isVisible(), false, "collapsed");
  await section.locator("summary").click();
  assert.match(await section.locator("div").innerText(), /The user wrote/);
  assert.deepEqual(errors, []);
  await page.close();
});

/**
 * A page whose backend sends `frames` and then nothing (a stream held open), so that states which
 * flash by at the simulated pace stay on screen to be checked and photographed.
 */
async function openDemoHeldAt(frames) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 900, height: 800 });
  const errors = [];
  page.on("pageerror", (err) => errors.push(err.message));
  await page.addInitScript((frames) => {
    const realFetch = window.fetch;
    window.fetch = (url, init) => {
      if (!String(url).endsWith("/api/chat/stream")) return realFetch(url, init);
      const encoder = new TextEncoder();
      let i = 0;
      const body = new ReadableStream({
        pull(controller) {
          if (i < frames.length) controller.enqueue(encoder.encode(frames[i++]));
          else return new Promise(() => {}); // held open
        },
      });
      return Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
    };
  }, frames);
  await page.goto(baseUrl);
  // The composer is enabled once the module is loaded and the page wired up.
  await page.waitForSelector("#input:not([disabled])");
  await page.waitForSelector("#empty:not([hidden])");
  return { page, errors };
}

const frame = (event) => `data: ${JSON.stringify(event)}\n\n`;

test("while a tool runs, the amber card names it and shows its last update", async () => {
  const { page, errors } = await openDemoHeldAt([
    frame({ type: "status", message: "Thinking..." }),
    frame({ type: "text_delta", text: "Let me look that up." }),
    frame({ type: "tool_start", tool: "search_articles", input: { query: "CRISPR" } }),
    frame({ type: "tool_progress", tool: "search_articles", stage: "searching", message: "Searching articles...", progress: 0.5, data: null }),
  ]);
  await ask(page, "Find articles on CRISPR");
  await page.waitForSelector(".tool-progress");
  assert.match(await page.textContent(".tool-progress"), /search_articles · Searching articles\.\.\. \(50%\)/);
  assert.match(await page.textContent('#streaming [data-state="streaming"]'), /Let me look that up\./);
  await page.screenshot({ path: join(shots, "03-tool-progress.png") });
  await page.click("#stop");
  await page.waitForSelector("#streaming", { state: "hidden" });
  assert.equal(await page.isVisible(".tool-progress"), false, "the card goes when the turn ends");
  assert.deepEqual(errors, []);
  await page.close();
});

test("before any text, the gray thinking bubble shows the thinking, collapsible", async () => {
  const { page, errors } = await openDemoHeldAt([
    frame({ type: "status", message: "Thinking..." }),
    frame({ type: "thinking_delta", text: "The user asks about the sky. " }),
    frame({ type: "thinking_delta", text: "Rayleigh scattering." }),
  ]);
  await ask(page, "why is the sky blue?");
  const bubble = page.locator('#streaming [data-state="thinking"]');
  await bubble.locator("details.thinking").waitFor();
  assert.match(await bubble.innerText(), /Thinking\.\.\./);
  const details = bubble.locator("details.thinking");
  assert.equal(await details.locator("div").isVisible(), false, "collapsed");
  await details.locator("summary").click();
  assert.equal(await details.locator("div").innerText(), "The user asks about the sky. Rayleigh scattering.");
  await page.screenshot({ path: join(shots, "06-thinking.png") });
  await page.click("#stop");
  await page.waitForSelector("#streaming", { state: "hidden" });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a provider error mid-stream shows the error banner and keeps the partial answer", async () => {
  const { page, errors } = await openDemo();
  await ask(page, "sim:error please");
  await page.waitForSelector("#error-banner:not([hidden])");
  await page.waitForSelector("#streaming", { state: "hidden" });
  assert.equal(await page.getAttribute("#error-banner", "data-code"), "SERVICE_UNAVAILABLE");
  assert.ok((await lastAssistant(page).innerText()).length > 0, "the partial answer is kept");
  await page.screenshot({ path: join(shots, "07-error-banner.png") });
  assert.deepEqual(errors, []);
  await page.close();
});

test("an HTTP 429 offers a retry; an empty message is a validation error", async () => {
  const { page, errors } = await openDemo();
  await ask(page, "sim:429");
  await page.waitForSelector("#error-banner:not([hidden])");
  assert.equal(await page.getAttribute("#error-banner", "data-code"), "RATE_LIMITED");
  assert.match(await page.textContent("#error-text"), /Rate limited, try again/);
  assert.equal(await page.isVisible("#retry"), true);
  assert.equal(await page.locator("#messages .bubble.user").count(), 1, "the user's message is kept");
  await page.click("#retry");
  await page.waitForSelector("#error-banner:not([hidden])"); // the simulated provider says 429 again
  assert.equal(await page.locator("#messages .bubble.user").count(), 1, "a retry leaves no second copy");
  await page.click("#dismiss");
  assert.equal(await page.isVisible("#error-banner"), false);
  await page.fill("#input", "   ");
  await page.click("#send");
  await page.waitForSelector("#error-banner:not([hidden])");
  assert.equal(await page.getAttribute("#error-banner", "data-code"), "VALIDATION_ERROR");
  assert.deepEqual(errors, []);
  await page.close();
});

test("Stop cancels the answer and keeps the partial text", async () => {
  const { page, errors } = await openDemo();
  await ask(page, "sim:stall tell me everything");
  await page.waitForSelector('#streaming [data-state="streaming"]');
  await page.waitForFunction(() => document.querySelector("#streaming .streaming-text")?.textContent.length > 5);
  await page.click("#stop");
  await page.waitForSelector("#streaming", { state: "hidden" });
  const bubble = await lastAssistant(page).innerText();
  assert.match(bubble, /Stopped/);
  assert.ok(bubble.replace("Stopped", "").trim().length > 5, bubble);
  assert.equal(await page.isVisible("#error-banner"), false, "stopping is not an error");
  await page.screenshot({ path: join(shots, "08-stopped.png") });
  assert.deepEqual(errors, []);
  await page.close();
});

test("keyboard only, at phone width: Tab reaches the input, Enter sends", async () => {
  const { page, errors } = await openDemo({ width: 375, height: 700 });
  await page.focus("#provider");
  await page.keyboard.press("Tab"); // the example prompts come next, then the input
  let focused = await page.evaluate(() => document.activeElement.className || document.activeElement.id);
  assert.equal(focused, "example");
  await page.focus("#input");
  await page.keyboard.type("hello from a phone");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#streaming", { state: "hidden", timeout: 15000 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 375, `no horizontal scrolling at 375px (scrollWidth ${width})`);
  await page.screenshot({ path: join(shots, "09-phone.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("provider mode: the model calls the page's calculator, the card shows its result", async () => {
  const { page, errors } = await openDemo();
  const labels = await page.locator("#provider option").allInnerTexts();
  assert.equal(labels.length, 7, labels.join(" | "));
  assert.ok(labels.every((l) => l.endsWith("simulated")), "no keys here: every route is simulated");
  for (const provider of ["anthropic", "openai-responses"]) {
    await page.selectOption("#provider", provider);
    await ask(page, "use calculate: what is 12*(3+4)?");
    await page.waitForSelector("#messages .bubble.assistant");
    await page.waitForSelector("#streaming", { state: "hidden" });
    const answer = lastAssistant(page);
    assert.match(await answer.innerText(), /The calculate tool returned/, provider);
    const card = answer.locator("details.tool-card");
    assert.equal(await card.count(), 1, provider);
    await card.locator("summary").click();
    const io = await card.locator(".io").innerText();
    assert.match(io, /"value": 84/, `${provider}: ${io}`);
    await page.screenshot({ path: join(shots, `10-provider-${provider}-tool.png`) });
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test("Regenerate asks the last question again in place of its answer", async () => {
  const { page, errors } = await openDemo();
  await ask(page, "hello there");
  await page.waitForSelector("#messages .regenerate");
  await page.click("#messages .regenerate");
  await page.waitForSelector('#streaming:not([hidden])');
  await page.waitForSelector("#streaming", { state: "hidden" });
  assert.equal(await page.locator("#messages .bubble.user").count(), 1);
  assert.equal(await page.locator("#messages .bubble.assistant").count(), 1, "the answer was replaced, not added");
  assert.deepEqual(errors, []);
  await page.close();
});

test("provider mode: a tool that needs approval waits for the user; approve runs it, deny tells the model", async () => {
  const { page, errors } = await openDemo();
  await page.selectOption("#provider", "openai");
  await ask(page, "use save_note: buy milk");
  await page.waitForSelector("#streaming .approval");
  assert.match(await page.textContent("#streaming .approval"), /save_note wants to run/);
  await page.screenshot({ path: join(shots, "11-approval.png") });
  await page.click("#streaming .approval [data-approve]");
  await page.waitForSelector("#streaming", { state: "hidden" });
  assert.match(await lastAssistant(page).innerText(), /The save_note tool returned/);
  await ask(page, "use save_note: sell milk");
  await page.waitForSelector("#streaming .approval");
  await page.click("#streaming .approval [data-deny]");
  await page.waitForSelector("#streaming", { state: "hidden" });
  assert.match(await lastAssistant(page).innerText(), /denied this tool call/);
  assert.deepEqual(errors, []);
  await page.close();
});
