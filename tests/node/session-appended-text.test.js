// A session's snapshots while an answer streams in many deltas (session.js, `withTextAppended`): the
// text the deltas append is held in a few long strings, not as a chain of every delta; and every
// snapshot's texts are still exactly the text that had arrived when it was shown, read late, through
// thinking and text blocks that take turns and reads that hold more than one frame.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { getHeapSnapshot } from "node:v8";

import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();
const frame = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const START = frame("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], usage: { input_tokens: 1, output_tokens: 1 } } });
const END =
  frame("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }) + frame("message_stop", {});
const blockStart = (index, type) => frame("content_block_start", { index, content_block: type === "text" ? { type, text: "" } : { type, thinking: "" } });
const blockDelta = (index, type, text) =>
  frame("content_block_delta", { index, delta: type === "text" ? { type: "text_delta", text } : { type: "thinking_delta", thinking: text } });
const blockStop = (index) => frame("content_block_stop", { index });

/** The `n`th delta: `length` code points (no cut inside a pair), starting with its mark `#n#`, none of them whitespace at its edges. */
function delta(n, length, piece = "plain é🙂 ✓ text ") {
  const chars = [...`#${n}# ${piece.repeat(Math.ceil(length / 4))}`].slice(0, length);
  chars[length - 1] = ".";
  return chars.join("");
}

/** A session whose answer is `chunks`, one a read; the body then ends, or stays open (`hang`). */
function sessionOver(chunks, { hang = false } = {}) {
  let i = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else if (hang) return new Promise(() => {});
      else controller.close();
    },
  });
  const headers = { "content-type": "text/event-stream" };
  return new ChatSession({ dialect: "anthropic", fetch: async () => new Response(body, { headers }) });
}

/** The live strings of this process that are flat (not built by `+`) and begin with a delta's mark: how many. */
async function stringsWithAMark() {
  let text = "";
  for await (const chunk of getHeapSnapshot()) text += chunk;
  const { snapshot, nodes, strings } = JSON.parse(text);
  const fields = snapshot.meta.node_fields;
  const [type, name] = ["type", "name"].map((f) => fields.indexOf(f));
  const types = snapshot.meta.node_types[0];
  let count = 0;
  for (let i = 0; i < nodes.length; i += fields.length) {
    if (types[nodes[i + type]] === "string" && /^#\d+# /.test(strings[nodes[i + name]])) count++;
  }
  return count;
}

test("a long answer streaming in 1,000-character deltas: the snapshot holds its text in a few long strings, not every delta", async () => {
  const DELTAS = 400;
  const deltas = Array.from({ length: DELTAS }, (_, n) => delta(n, 1000));
  const chunks = [START, blockStart(0, "text"), ...deltas.map((d) => blockDelta(0, "text", d))];
  const chat = sessionOver(chunks, { hang: true });
  let count = 0;
  let held = null;
  for await (const event of chat.send("write it")) {
    if (event.type !== "text_delta" || ++count < DELTAS) continue;
    // Every delta has arrived; the answer streams on. The snapshot holds its text, and no event is
    // kept. (Its text is compared after the count: a comparison may flatten it.)
    held = await stringsWithAMark();
    assert.ok(chat.getSnapshot().streamingText === deltas.join(""), "the snapshot's text");
    chat.cancel();
  }
  chat.dispose();
  // Besides the test's own deltas (`deltas`, each once), the text the snapshot holds: in strings of
  // several deltas each, not one string a delta.
  assert.ok(held - DELTAS < DELTAS / 2, `${held - DELTAS} strings beginning with a delta's mark, besides the test's own ${DELTAS}`);
});

test("thinking and text blocks taking turns, in deltas and in reads of two frames: every snapshot, read late, shows the texts that had arrived", async () => {
  // Four blocks, each longer than the text moved at once (a few thousand characters), in 700-character deltas.
  const blocks = ["thinking", "text", "thinking", "text"].map((type, index) => ({
    type,
    deltas: Array.from({ length: 14 }, (_, n) => delta(index * 100 + n, 700, type === "text" ? "answer é🙂 ✓ " : "thought ✓ é ")),
  }));
  const chunks = [START];
  for (const [index, { type, deltas }] of blocks.entries()) {
    chunks.push(blockStart(index, type));
    deltas.forEach((d, n) => {
      const frame = blockDelta(index, type, d);
      // Every fifth delta comes in one read with the one before it.
      if (n % 5 === 4) chunks[chunks.length - 1] += frame;
      else chunks.push(frame);
    });
    chunks.push(blockStop(index));
  }
  chunks.push(END);
  const chat = sessionOver(chunks);
  const states = [];
  const unsubscribe = chat.subscribe(() => states.push(chat.getSnapshot()));
  for await (const _ of chat.send("think, then write"));
  unsubscribe();
  chat.dispose();

  const joined = (type) => blocks.filter((b) => b.type === type).map((b) => b.deltas.join(""));
  const [texts, thoughts] = [joined("text"), joined("thinking")];
  const allText = texts.join("");
  const allThinking = thoughts.join("");
  const streamed = states.filter((s) => s.streamingParts.length > 0);
  assert.ok(streamed.length > 40, `${streamed.length} snapshots while the answer streamed`);
  for (const [i, s] of streamed.entries()) {
    const at = `snapshot ${i}`;
    assert.ok(s.streamingText === allText.slice(0, s.streamingText.length), `${at}: its streamingText, the text's beginning`);
    assert.ok(s.thinkingText === allThinking.slice(0, s.thinkingText.length), `${at}: its thinkingText, the thinking's beginning`);
    // Its parts: one a block so far, each the whole block but the last, which holds what arrived of it.
    const parts = s.streamingParts;
    for (const [k, part] of parts.entries()) {
      const block = blocks[k];
      assert.equal(part.type, block.type === "text" ? "text" : "reasoning", `${at}: part ${k}'s type`);
      const whole = block.deltas.join("");
      if (k < parts.length - 1) assert.ok(part.text === whole, `${at}: part ${k}, whole`);
    }
    const last = parts.at(-1);
    const kind = blocks[parts.length - 1].type;
    const before = (kind === "text" ? texts : thoughts).slice(0, Math.floor((parts.length - 1) / 2)).join("");
    const sofar = kind === "text" ? s.streamingText : s.thinkingText;
    assert.ok(last.text === sofar.slice(before.length), `${at}: the last part holds the block's text that arrived`);
    assert.ok(sofar === before + last.text, `${at}: its text is the blocks' before it and the last part's`);
    if (s.streamingText !== "") assert.ok(s.streamingSegments.at(-1).text === s.streamingText, `${at}: the text segment`);
  }
  assert.ok(states.at(-1).messages.at(-1).content === allText, "the finished message's content");
});

test("deltas of every length, some longer than the text moved at once and than 16,383 characters: every snapshot shows the text that had arrived", async () => {
  const lengths = [5, 3000, 20000, 7, 4100, 40000, 1, 16384, 16383, 900];
  const deltas = lengths.map((length, n) => delta(n, Math.max(length, 5)));
  const chat = sessionOver([START, blockStart(0, "text"), ...deltas.map((d) => blockDelta(0, "text", d)), blockStop(0), END]);
  const states = [];
  const unsubscribe = chat.subscribe(() => states.push(chat.getSnapshot()));
  for await (const _ of chat.send("write it"));
  unsubscribe();
  chat.dispose();
  const text = deltas.join("");
  const streamed = states.filter((s) => s.streamingText !== "");
  assert.ok(streamed.length >= deltas.length - 1, `${streamed.length} snapshots while the answer streamed`);
  for (const [i, s] of streamed.entries()) {
    assert.ok(s.streamingText === text.slice(0, s.streamingText.length), `snapshot ${i}: its streamingText, the text's beginning`);
    assert.ok(s.streamingSegments.at(-1).text === s.streamingText, `snapshot ${i}: its segment`);
    assert.ok(s.streamingParts.at(-1).text === s.streamingText, `snapshot ${i}: its part`);
  }
  assert.ok(streamed.at(-1).streamingText === text, "the last snapshot, the whole text");
});
