// The values of a session's `set`, `push` and `setAt` patches: a small one crosses item by item, a
// large one (or a message, a segment, a part) as JSON text (src/wasm/mod.rs,
// `HandOver::keyed_patch`). Either way the snapshot's field must be what JSON.parse makes of its
// JSON text, written here by hand: the same values, the same key order, plain objects and arrays, a
// key "__proto__" an own field.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession } from "../../pkg/index.js";
import { assertParsed, EDGE_VALUES } from "./parsed.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();
const frames = (...events) => events.map((e) => `data: ${e}\n\n`);

/** A Response whose body is `reads` (bytes), one a read. */
const body = (reads) =>
  new Response(
    new ReadableStream({
      pull: (c) => (reads.length ? c.enqueue(reads.shift()) : c.close()),
    }),
  );

/** `chunks` as reads: one each, or with `cut` their bytes in reads of that many (frames, values
 * and characters cut anywhere). */
function reads(chunks, cut) {
  if (!cut) return chunks.map((chunk) => encoder.encode(chunk));
  const bytes = encoder.encode(chunks.join(""));
  return Array.from({ length: Math.ceil(bytes.length / cut) }, (_, i) => bytes.subarray(i * cut, (i + 1) * cut));
}

/** Every snapshot of a turn of the agent dialect whose response is `chunks` (read as `reads`
 * gives them), and its events. */
async function turn(chunks, cut = 0) {
  const session = new ChatSession({ dialect: "agent", fetch: async () => body(reads(chunks, cut)) });
  const shown = [];
  const events = [];
  session.subscribe(() => shown.push(session.getSnapshot()));
  for await (const event of session.send("hi")) events.push(event);
  session.dispose();
  return { shown, events };
}


test("a conversation id of every JSON type reads in the snapshot as JSON.parse reads its JSON text", async () => {
  for (const [json, cut] of EDGE_VALUES.flatMap((json) => [[json, 0], [json, 7]])) {
    const { shown } = await turn(frames(`{"type":"text_delta","text":"Hello"}`, `{"type":"complete","payload":{"conversation_id":${json}}}`), cut);
    const last = shown.at(-1);
    assertParsed(last.conversationId, json);
    if (typeof last.conversationId === "object" && last.conversationId !== null) assert.ok(!("polluted" in last.conversationId), json);
    // The finished message, beside it in the same step, is whole.
    assert.equal(last.messages.at(-1).content, "Hello");
    assert.equal(last.isLoading, false);
  }
});

test("status lines with escapes, non-ASCII and long text read in the snapshot as sent", async () => {
  const lines = ['quote " backslash \\ newline \n tab \t nul \u0000 é 中文 😀 \u2028', "s".repeat(1023), "é".repeat(600), "x".repeat(5000), ""];
  const { shown, events } = await turn([
    ...frames(...lines.map((message) => JSON.stringify({ type: "status", message }))),
    ...frames(`{"type":"text_delta","text":"ok"}`, `{"type":"complete","payload":{}}`),
  ]);
  const seen = shown.map((s) => s.statusText).filter((text, i, all) => text !== all[i - 1]);
  // Each status line as its event has it (cleaned of control characters, as the event is).
  const messages = events.filter((e) => e.type === "status").map((e) => e.message);
  assert.equal(messages.length, lines.length);
  for (const message of messages) assert.ok(seen.includes(message), JSON.stringify(message.slice(0, 40)));
  assert.equal(shown.at(-1).statusText, null);
  assert.equal(shown.at(-1).phase, "idle");
  // Every snapshot's lists are plain arrays (a pushed or emptied list crosses item by item too).
  for (const s of shown) for (const key of ["streamingSegments", "streamingParts", "messages"]) assert.ok(Array.isArray(s[key]), key);
});

test("a tool's output of every JSON type reads in its card and part as JSON.parse reads its JSON text", async () => {
  // A tool's end changes its card and its part in place (`setAt` patches): the value crosses with
  // the place it goes to, and the text after it must land where it did before.
  for (const [json, cut] of EDGE_VALUES.flatMap((json) => [[json, 0], [json, 7]])) {
    const { shown } = await turn(
      frames(
        `{"type":"text_delta","text":"Looking. "}`,
        `{"type":"tool_start","tool":"search","input":{"q":"x"},"tool_use_id":"t1"}`,
        `{"type":"tool_complete","tool":"search","index":0,"tool_use_id":"t1","output":${json}}`,
        `{"type":"text_delta","text":"Found it."}`,
      ),
      cut,
    );
    // The last snapshot before the turn ends: the answer still streaming, its card done.
    const streaming = shown.findLast((s) => s.streamingSegments.length > 0);
    const card = streaming.streamingSegments.find((s) => s.type === "tool");
    assert.ok(card, json);
    assertParsed(card.output, json);
    const part = streaming.streamingParts.find((p) => p.type !== "text");
    assertParsed(part.output, json);
    assert.equal(streaming.streamingText.endsWith("Found it."), true, json);
    assert.equal(streaming.streamingSegments.at(-1).text, "Found it.", json);
  }
});
