// `./build.sh bench`, the AI SDK backend mode: chatstream/ai-sdk's `AiSdkChat` against the AI SDK's
// own `Chat` (from @ai-sdk/react: the state behind `useChat`), each reading the same answers of an AI
// SDK backend one SSE event per read, in Node. The answers are the ones the AI SDK's route gave the
// AI SDK's chat in tests/fixtures/ai-sdk-chat/conversation.recording (each answer to a new message,
// as it arrived), and its plain text answer made 1, 10 and 100 KB long by repeating its text deltas.
//
// Each contender gets a fresh chat per answer, a subscriber that reads the messages on every change
// (as a render would), and a `fetch` that answers with a ReadableStream giving one event per read
// (the same Uint8Arrays for both). The time is from `sendMessage` to its promise settling; the
// messages at the end must be the same JSON for both, or the row says they differ.
//
// Writes target/bench/ai-sdk-chat.json and BENCHMARKS.md's section on the AI SDK backend mode.
//
//   node bench-js/ai-sdk-chat.js            every answer, written
//   node bench-js/ai-sdk-chat.js --smoke    one answer each: checks the harness works, keeps nothing
//   node bench-js/ai-sdk-chat.js --section  BENCHMARKS.md's section again from target/bench/ai-sdk-chat.json
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSection } from "./section.js";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const out = join(root, "target/bench");
const HEADING = "The AI SDK backend mode against the AI SDK's own chat";
const smoke = process.argv.includes("--smoke");
const recording = JSON.parse(readFileSync(new URL("../tests/fixtures/ai-sdk-chat/conversation.recording", import.meta.url), "utf8"));
const encoder = new TextEncoder();

/** The SSE events of a body, each with its blank line. */
const eventsOf = (body) => body.split(/(?<=\n\n)/).filter((event) => event.trim() !== "");

/**
 * The answers to new messages that ran to their end (a follow-up after a tool result continues a
 * message this chat does not have; an answer the user stopped has no `finish`).
 */
function recordedAnswers() {
  const answers = [];
  const steps = recording.conversation.steps;
  steps.forEach((step, i) => {
    if (step.type !== "response" || steps[i - 1]?.type !== "sendMessage" || !step.read.includes('"type":"finish"')) return;
    answers.push({ name: `${JSON.parse(steps[i - 1].message).parts[0].text}`, events: eventsOf(step.read) });
  });
  return answers;
}

/** The first plain text answer with its text deltas repeated until its text is `bytes` long. */
function longAnswer(answers, bytes) {
  const plain = answers.find((a) => a.events.every((e) => !e.includes('"reasoning') && !e.includes('"tool-') && !e.includes('"source')));
  const deltas = plain.events.filter((e) => e.includes('"type":"text-delta"'));
  const textOf = (event) => JSON.parse(event.slice("data: ".length)).delta;
  const first = plain.events.indexOf(deltas[0]);
  const last = plain.events.indexOf(deltas.at(-1));
  const middle = [];
  for (let length = 0, i = 0; length < bytes; i++) {
    middle.push(deltas[i % deltas.length]);
    length += textOf(deltas[i % deltas.length]).length;
  }
  return { name: `plain text, ${bytes / 1024} KB`, events: [...plain.events.slice(0, first), ...middle, ...plain.events.slice(last + 1)] };
}

/** A fetch answering every request with `chunks`, one per read. */
const fetchOf = (chunks) => async () => {
  let i = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
};

const ids = () => {
  let n = 0;
  return () => `id-${++n}`;
};
const user = { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] };

const OURS = "chatstream/ai-sdk (AiSdkChat)";
const THEIRS = "AI SDK (Chat of @ai-sdk/react)";
const ROUNDS = 5;

/** Microseconds per event of `read` over `chunks`, `runs` answers in a row. */
async function time(read, chunks, runs) {
  const start = performance.now();
  for (let run = 0; run < runs; run++) await read(chunks);
  return ((performance.now() - start) * 1000) / runs / chunks.length;
}

/** Every answer read by both contenders: µs per event each, and whether their messages were the same. */
async function measure() {
  const { Chat } = await import("@ai-sdk/react");
  const { DefaultChatTransport } = await import("ai");
  const { AiSdkChat } = await import("../pkg/ai-sdk/node.js");
  // Each contender: one answer read by a fresh chat; resolves with its messages' JSON.
  const contenders = {
    [OURS]: async (chunks) => {
      const chat = new AiSdkChat({ id: "chat-1", api: "/api/chat", fetch: fetchOf(chunks), generateId: ids() });
      let seen = 0;
      chat.subscribe(() => (seen += chat.getSnapshot().messages.length));
      await chat.sendMessage(user);
      if (chat.status !== "ready") throw new Error(`AiSdkChat ended ${chat.status}: ${chat.error?.message}`);
      return JSON.stringify(chat.messages);
    },
    [THEIRS]: async (chunks) => {
      const transport = new DefaultChatTransport({ api: "/api/chat", fetch: fetchOf(chunks) });
      const chat = new Chat({ id: "chat-1", transport, generateId: ids() });
      let seen = 0;
      // What useChat subscribes with (useSyncExternalStore), without its throttle.
      chat["~registerMessagesCallback"](() => (seen += chat.messages.length));
      await chat.sendMessage(user);
      if (chat.status !== "ready") throw new Error(`the AI SDK's Chat ended ${chat.status}: ${chat.error?.message}`);
      return JSON.stringify(chat.messages);
    },
  };
  const answers = recordedAnswers();
  const cases = [...answers, ...[1, 10, 100].map((kb) => longAnswer(answers, kb * 1024))];
  const rows = [];
  for (const { name, events } of cases) {
    const chunks = events.map((event) => encoder.encode(event));
    const outputs = [];
    for (const who of [OURS, THEIRS]) outputs.push(await contenders[who](chunks));
    // About 5,000 events a round for each contender, at least one answer.
    const runs = smoke ? 1 : Math.max(1, Math.round(5000 / chunks.length));
    const us = {};
    // The contenders take turns round by round, so a change in the machine's load falls on both.
    for (let round = 0; round < (smoke ? 1 : ROUNDS); round++) {
      for (const who of [OURS, THEIRS]) us[who] = Math.min(us[who] ?? Infinity, await time(contenders[who], chunks, runs));
    }
    rows.push({ name, events: chunks.length, us, same: outputs[0] === outputs[1] });
  }
  return rows;
}

const geomean = (xs) => Math.exp(xs.reduce((n, x) => n + Math.log(x), 0) / xs.length);
const ratio = (row) => row.us[THEIRS] / row.us[OURS];

function table(rows) {
  let md = `| answer | events | ${OURS}, µs per event | ${THEIRS}, µs per event | ratio | messages |\n|---|---:|---:|---:|---:|---|\n`;
  for (const row of rows) {
    md += `| ${row.name} | ${row.events} | ${row.us[OURS].toFixed(2)} | ${row.us[THEIRS].toFixed(2)} | ${ratio(row).toFixed(2)}× | ${row.same ? "same" : "**differ**"} |\n`;
  }
  const differ = rows.filter((row) => !row.same).length;
  md += `| **geometric mean** | | | | **${geomean(rows.map(ratio)).toFixed(2)}×** | ${differ === 0 ? "all the same" : `${differ} differ`} |\n`;
  return md;
}

/** BENCHMARKS.md's section, every figure from `run`. */
function section({ rows, node, aiVersion }) {
  const slowest = rows.reduce((a, b) => (ratio(a) <= ratio(b) ? a : b));
  const fastest = rows.reduce((a, b) => (ratio(a) >= ratio(b) ? a : b));
  const long = rows.filter((row) => row.name.startsWith("plain text"));
  return `\`node bench-js/ai-sdk-chat.js\` (Node ${node}, ai ${aiVersion}): chatstream/ai-sdk's \`AiSdkChat\` and the AI SDK's
\`Chat\` (from @ai-sdk/react, the state behind \`useChat\`) each read the same answers of an AI SDK backend, one SSE
event per read from a \`ReadableStream\` behind the chat's \`fetch\`, a fresh chat per answer with a subscriber that
reads the messages on every change. The answers are those the AI SDK's route gave the AI SDK's own chat in the test
recording (\`tests/fixtures/ai-sdk-chat/conversation.recording\`; each answer to a new message that ran to its end),
and its plain text answer with its deltas repeated to 1, 10 and 100 KB of text. Time from \`sendMessage\` until it
settles, per event, best of ${ROUNDS} rounds with the two taking turns; ratio = the AI SDK's time ÷ chatstream's. The
messages at the end are compared as JSON.

${table(rows)}
Geometric mean ${geomean(rows.map(ratio)).toFixed(2)}×; the smallest ratio ${ratio(slowest).toFixed(2)}× (${slowest.name}), the largest
${ratio(fastest).toFixed(2)}× (${fastest.name}). Per event at 1, 10 and 100 KB of text: chatstream
${long.map((row) => row.us[OURS].toFixed(2)).join(", ")} µs, the AI SDK ${long.map((row) => row.us[THEIRS].toFixed(2)).join(", ")} µs.
${rows.every((row) => row.same) ? "Both ended with the same messages for every answer." : `The messages differed for: ${rows.filter((row) => !row.same).map((row) => row.name).join(", ")}.`}`;
}

if (process.argv.includes("--section")) {
  writeSection(HEADING, section(JSON.parse(readFileSync(join(out, "ai-sdk-chat.json"), "utf8"))));
  console.log("wrote BENCHMARKS.md's AI SDK backend mode section");
} else {
  const rows = await measure();
  console.log(table(rows));
  if (smoke) console.log("smoke: one answer each, not a measurement");
  else {
    const aiVersion = JSON.parse(readFileSync(join(root, "node_modules/ai/package.json"), "utf8")).version;
    const run = { rows, node: process.versions.node, aiVersion };
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "ai-sdk-chat.json"), JSON.stringify(run, null, 2));
    writeSection(HEADING, section(run));
    console.log("wrote target/bench/ai-sdk-chat.json and BENCHMARKS.md's AI SDK backend mode section");
  }
  for (const row of rows.filter((r) => !r.same)) console.error(`messages differ: ${row.name}`);
  if (rows.some((row) => !row.same)) process.exitCode = 1;
}
