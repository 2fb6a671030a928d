// A session's `complete` and its finished message take their text from the text deltas joined
// only when those are of the length the module counted (session.js, `#fromMemory`): else the
// hand-over throws. Only a bug can make them differ; then the step, which the module has taken,
// must still reach JS with its texts whole, the bug go to the host, and the session go on in step
// with the module. Tested on a copy of the package whose joined text is one character too long,
// against the package itself.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { scriptedFetch } from "./scripted-fetch.js";

const pkg = new URL("../../pkg/", import.meta.url);
const copy = mkdtempSync(join(tmpdir(), "chatstream-joined-"));
after(() => rmSync(copy, { recursive: true, force: true }));
cpSync(pkg, copy, { recursive: true });
const sessionJs = join(copy, "session.js");
const source = readFileSync(sessionJs, "utf8");
const joining = "this.#joined.text = this.#fields[(appendKeys ??= module.memory.appendKeys()).appendText[0]];";
assert.ok(source.includes(joining), "the copy's session.js joins the text as this test expects");
writeFileSync(sessionJs, source.replace(joining, joining.replace(/;$/, ' + "!";')));

const wasm = readFileSync(new URL("chatstream_bg.wasm", pkg));
const packages = {};
for (const [name, at] of [["real", pkg], ["forced", pathToFileURL(`${copy}/`)]]) {
  const entry = await import(new URL("index.js", at));
  entry.initSync({ module: wasm });
  packages[name] = entry.ChatSession;
}

const openaiFrame = (content) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const openaiEnd = 'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
const agentFrame = (event) => `data: ${JSON.stringify(event)}\n\n`;
const words = (n, from = 0) => Array.from({ length: n }, (_, i) => `word${from + i} it\u2019s \u00e9t\u00e9 \u{1F600} `);

// Each turn: its message and the reads of its answer (a string's bytes, or a function of the
// body's controller), and whether it is stopped at its first text delta.
const turns = [
  // A long answer, whole: complete in a push.
  { send: "one", reads: [...words(2000).map(openaiFrame), openaiEnd] },
  // A short one (its text crosses joined, its message with it).
  { send: "two", reads: [openaiFrame("Short \u00e9\u{1F600}"), openaiEnd] },
  // A long one that ends without its end: complete at the response's end (__end).
  { send: "three", reads: words(1500, 7).map(openaiFrame) },
  // Broken off mid-answer: complete with what arrived, then the error.
  { send: "four", reads: [...words(800).map(openaiFrame), (controller) => controller.error(new Error("gone"))] },
  // Stopped by the user mid-answer, the body left open.
  { send: "five", reads: [openaiFrame(words(900).join("")), () => new Promise(() => {})], stop: true },
  // A long one after the stop.
  { send: "six", reads: [openaiFrame(words(1200, 3).join("")), openaiEnd] },
];

/** Every turn read by a session of `ChatSession`: each turn's events and snapshot, the saved messages, what was reported. */
async function run(ChatSession) {
  const reported = [];
  globalThis.reportError = (error) => reported.push(error);
  const finished = [];
  let ids = 0;
  const chat = new ChatSession({
    dialect: "openai",
    generateId: () => `m${++ids}`,
    onFinish: (message) => finished.push(message),
    fetch: scriptedFetch(turns.map((turn) => turn.reads)),
  });
  const results = [];
  for (const turn of turns) {
    const events = [];
    for await (const event of chat.send(turn.send)) {
      events.push(event);
      if (turn.stop && event.type === "text_delta") chat.cancel();
    }
    results.push({ events, snapshot: chat.getSnapshot() });
  }
  const saved = chat.saveMessages();
  chat.dispose();
  delete globalThis.reportError;
  return { results, saved, finished, reported };
}

test("a joined text not of the module's length: the step crosses whole, the bug is reported, the session stays in step", async () => {
  const real = await run(packages.real);
  const forced = await run(packages.forced);
  assert.deepEqual(real.reported, []);
  assert.ok(forced.reported.length >= turns.length, `${forced.reported.length} reported`);
  for (const error of forced.reported) assert.match(String(error?.message), /complete's text is not the text deltas handed out/);
  for (let i = 0; i < turns.length; i++) {
    assert.deepEqual(forced.results[i].events, real.results[i].events, `turn ${i + 1}'s events`);
    assert.deepEqual(forced.results[i].snapshot, real.results[i].snapshot, `turn ${i + 1}'s snapshot`);
    assert.equal(forced.results[i].snapshot.isLoading, false);
  }
  assert.deepEqual(forced.finished, real.finished);
  assert.equal(forced.saved, real.saved);
  // The answers are what arrived.
  const messages = forced.results.at(-1).snapshot.messages;
  assert.equal(messages.length, 2 * turns.length);
  assert.equal(messages[1].content, words(2000).join("").trim());
  assert.equal(messages[3].content, "Short \u00e9\u{1F600}");
  assert.equal(messages[11].content, words(1200, 3).join("").trim());
});
