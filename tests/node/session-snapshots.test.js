// ChatSession's snapshots as an answer streams in, one SSE event a read: what changes is new,
// what does not keeps its identity, and no snapshot handed out changes afterwards.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const encoder = new TextEncoder();

const event = (delta) => `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta }] })}\n\n`;

/** An OpenAI-style answer: each delta its own SSE event, one a read; a list of deltas, the events of one read. */
function answer(deltas) {
  const chunks = deltas.map((delta) => (Array.isArray(delta) ? delta.map(event).join("") : event(delta)));
  chunks.push("data: [DONE]\n\n");
  return () =>
    new Response(
      new ReadableStream({
        pull: (c) => (chunks.length ? c.enqueue(encoder.encode(chunks.shift())) : c.close()),
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
}

/** Every snapshot a turn shows its subscriber, and each one's JSON text when it was shown. */
async function turn(session, message) {
  const states = [];
  const texts = [];
  const unsubscribe = session.subscribe(() => {
    const state = session.getSnapshot();
    states.push(state);
    texts.push(JSON.stringify(state));
  });
  for await (const _ of session.send(message));
  unsubscribe();
  return { states, texts };
}

const earlier = [
  { role: "user", content: "First question" },
  { role: "assistant", content: "First answer" },
];

test("a read of answer text: the snapshot, its lists and their last items are new; the messages and the parts before keep their identity", async () => {
  const deltas = [{ reasoning_content: "Let me" }, { reasoning_content: " think." }, { content: "Hel" }, { content: "lo," }, { content: " world" }];
  const session = new ChatSession({ dialect: "openai", fetch: async () => answer(deltas)() });
  session.setMessages(earlier);
  const { states } = await turn(session, "Hi");
  session.dispose();
  const streamed = states.filter((s) => s.streamingText !== "");
  assert.deepEqual(streamed.map((s) => s.streamingText), ["Hel", "Hello,", "Hello, world"]);
  for (let i = 1; i < streamed.length; i++) {
    const [before, after] = [streamed[i - 1], streamed[i]];
    assert.notEqual(after, before, "a change is a new snapshot");
    assert.equal(after.messages, before.messages, "the messages, untouched by answer text, are the same array");
    assert.notEqual(after.streamingParts, before.streamingParts);
    assert.notEqual(after.streamingSegments, before.streamingSegments);
    assert.equal(after.streamingParts[0], before.streamingParts[0], "the reasoning part before the text is the same object");
    assert.equal(after.streamingParts[0].text, "Let me think.");
    assert.notEqual(after.streamingParts.at(-1), before.streamingParts.at(-1), "the text part that grew is new");
    assert.equal(after.streamingParts.at(-1).text, after.streamingText);
    assert.equal(after.streamingSegments.at(-1).text, after.streamingText);
  }
  // The conversation's earlier messages stay the same objects through the whole turn.
  const last = states.at(-1);
  assert.equal(last.messages.length, 4);
  for (const state of states.filter((s) => s.messages.length >= 2)) {
    assert.equal(state.messages[0], last.messages[0]);
    assert.equal(state.messages[1], last.messages[1]);
  }
});

test("a read of thinking: thinkingText and the last reasoning part grow together, as new values", async () => {
  const deltas = [{ reasoning_content: "One" }, { reasoning_content: ", two" }, { reasoning_content: ", three" }, { content: "Done." }];
  const session = new ChatSession({ dialect: "openai", fetch: async () => answer(deltas)() });
  const { states } = await turn(session, "Count");
  session.dispose();
  const thinking = states.filter((s) => s.thinkingText !== "" && s.streamingText === "" && s.isLoading);
  assert.deepEqual(thinking.map((s) => s.thinkingText), ["One", "One, two", "One, two, three"]);
  for (let i = 0; i < thinking.length; i++) {
    assert.deepEqual(thinking[i].streamingParts, [{ type: "reasoning", text: thinking[i].thinkingText }]);
    if (i > 0) assert.notEqual(thinking[i].streamingParts[0], thinking[i - 1].streamingParts[0]);
  }
  const message = states.at(-1).messages.at(-1);
  assert.equal(message.role, "assistant");
  assert.deepEqual(message.parts.map((p) => [p.type, p.text]), [["reasoning", "One, two, three"], ["text", "Done."]]);
});

test("no snapshot changes after it was shown, and every one is frozen", async () => {
  // Steps with several patches (a part pushed, then text appended to it in the same read) change
  // the new snapshot's own copies in place: never one shown before.
  const deltas = [
    { reasoning_content: "Hm" },
    [{ reasoning_content: " hm" }, { reasoning_content: " hm" }],
    [{ content: "A" }, { content: "a" }],
    { content: "a" },
    [{ reasoning_content: " again" }, { reasoning_content: "!" }, { content: "B" }, { content: "b" }],
    { content: "C" },
  ];
  const session = new ChatSession({ dialect: "openai", fetch: async () => answer(deltas)() });
  session.setMessages(earlier);
  const { states, texts } = await turn(session, "Go");
  session.dispose();
  assert.ok(states.length > deltas.length);
  assert.equal(states.at(-1).messages.at(-1).content, "AaaBbC");
  states.forEach((state, i) => {
    assert.ok(Object.isFrozen(state));
    assert.equal(JSON.stringify(state), texts[i], `snapshot ${i} as it was shown`);
  });
});

test("a notification calls the listeners subscribed when it began, whatever they (un)subscribe meanwhile", async () => {
  const session = new ChatSession({ dialect: "openai", fetch: async () => answer([{ content: "Hi" }])() });
  const calls = [];
  let unsubscribeB = null;
  let added = false;
  const c = () => calls.push("c");
  session.subscribe(() => {
    calls.push("a");
    if (unsubscribeB !== null) {
      unsubscribeB();
      unsubscribeB = null;
    }
    if (!added) {
      added = true;
      session.subscribe(c);
    }
  });
  unsubscribeB = session.subscribe(() => calls.push("b"));
  session.clearError(); // nothing to clear: no notification
  assert.deepEqual(calls, []);
  for await (const _ of session.send("Hi"));
  session.dispose();
  // The first notification: a, and b (unsubscribed by a meanwhile), not c (subscribed by a meanwhile).
  assert.deepEqual(calls.slice(0, 2), ["a", "b"]);
  assert.ok(calls.length > 2);
  // After it: a and c, never b.
  assert.ok(!calls.slice(2).includes("b"));
  assert.equal(calls.slice(2).filter((x) => x === "a").length, calls.slice(2).filter((x) => x === "c").length);
});

test("unsubscribing twice, or a listener subscribed twice, is harmless", async () => {
  const session = new ChatSession({ dialect: "openai", fetch: async () => answer([{ content: "Hi" }])() });
  let calls = 0;
  const listener = () => calls++;
  const first = session.subscribe(listener);
  const second = session.subscribe(listener);
  session.setMessages(earlier);
  assert.equal(calls, 1, "one listener, once a change");
  first();
  second();
  session.setMessages(earlier);
  assert.equal(calls, 1);
  session.dispose();
});

test("a tool's progress joins activeToolProgress.updates in a new list; the snapshot before keeps its own", async () => {
  const call = { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "count", arguments: "{}" } }] };
  const answers = [answer([call]), answer([{ content: "Counted." }])];
  const session = new ChatSession({
    provider: "openai",
    model: "m",
    fetch: async () => answers.shift()(),
    tools: [
      {
        name: "count",
        description: "Counts",
        input_schema: { type: "object" },
        execute: async (input, { progress }) => {
          progress("one");
          progress("two");
          return "done";
        },
      },
    ],
  });
  const { states, texts } = await turn(session, "Count");
  session.dispose();
  const progress = states.filter((s) => s.activeToolProgress?.updates.length > 0).map((s) => s.activeToolProgress);
  assert.deepEqual(progress.map((p) => p.updates.map((u) => u.message)), [["one"], ["one", "two"]]);
  assert.notEqual(progress[1].updates, progress[0].updates);
  states.forEach((state, i) => assert.equal(JSON.stringify(state), texts[i], `snapshot ${i} as it was shown`));
  assert.equal(states.at(-1).messages.at(-1).content.endsWith("Counted."), true);
});

// An answer that goes back and forth between thinking and text starts a part at each turn: past a
// few dozen parts the snapshots share one list, each seeing its own first items (see SharedList in
// session.js). What each shows must be what a list of its own would.
const backAndForth = (turns) =>
  Array.from({ length: turns }, (_, i) => [{ reasoning_content: `think ${i}.` }, { content: `say ${i}.` }]).flat();

/** A turn's snapshots, each turned into JSON only after the turn, and with `late` as well the ones turned at once. */
async function lateAndNow(makeSession, message) {
  const ids = () => {
    let n = 0;
    return () => `id${++n}`;
  };
  const now = makeSession(ids());
  const { texts } = await turn(now, message);
  now.dispose();
  const later = makeSession(ids());
  const states = [];
  const unsubscribe = later.subscribe(() => states.push(later.getSnapshot()));
  for await (const _ of later.send(message));
  unsubscribe();
  later.dispose();
  // Read late, each snapshot's parts still add up to its texts (as the module kept them; after
  // a tool call the next request's answer is joined to the text with a blank line).
  for (const state of states) {
    const of = (type) => state.streamingParts.filter((p) => p.type === type).map((p) => p.text).join("");
    assert.equal(of("reasoning"), state.thinkingText);
    if (!state.streamingParts.some((p) => p.type === "tool")) assert.equal(of("text"), state.streamingText);
  }
  return { states, texts, late: states.map((state) => JSON.stringify(state)) };
}

test("a long answer of many parts: a snapshot read late shows what it showed when new, its parts before keep their identity", async () => {
  const deltas = backAndForth(60);
  const make = (generateId) => new ChatSession({ dialect: "openai", generateId, fetch: async () => answer(deltas)() });
  const { states, texts, late } = await lateAndNow(make, "Go");
  assert.deepEqual(late, texts);
  const long = states.filter((s) => s.streamingParts.length > 100);
  assert.ok(long.length > 10);
  for (let i = 1; i < long.length; i++) {
    const [before, after] = [long[i - 1], long[i]];
    assert.ok(Object.isFrozen(after));
    assert.ok(Array.isArray(after.streamingParts));
    assert.equal(after.streamingParts, after.streamingParts, "the same array at every read");
    assert.notEqual(after.streamingParts, before.streamingParts);
    assert.equal(after.streamingParts.length, before.streamingParts.length + 1, "one delta a read, a part each");
    for (let k = 0; k < before.streamingParts.length - 1; k++) assert.equal(after.streamingParts[k], before.streamingParts[k]);
    assert.deepEqual({ ...after }.streamingParts, after.streamingParts);
  }
  const parts = states.at(-1).messages.at(-1).parts;
  assert.equal(parts.length, 120);
  assert.deepEqual(parts.slice(0, 3), [
    { type: "reasoning", text: "think 0." },
    { type: "text", text: "say 0." },
    { type: "reasoning", text: "think 1." },
  ]);
  assert.equal(parts.at(-1).text, "say 59.");
});

test("a long answer's parts with text appended within reads, and two tool calls changed in place: every snapshot as it was", async () => {
  // Several deltas a read: a part pushed and then grown in the same step; then two tool calls,
  // the first of which gets its output while the second follows it (a change before the last item).
  const grown = Array.from({ length: 40 }, (_, i) => [
    [{ reasoning_content: `a${i}` }, { reasoning_content: "b" }],
    [{ content: `c${i}` }, { content: "d" }],
    { content: "e" },
  ]).flat();
  const calls = {
    tool_calls: [
      { index: 0, id: "call_1", type: "function", function: { name: "count", arguments: '{"n":1}' } },
      { index: 1, id: "call_2", type: "function", function: { name: "count", arguments: '{"n":2}' } },
    ],
  };
  const make = (generateId) => {
    const answers = [answer([...grown, calls]), answer([{ content: "Counted." }])];
    return new ChatSession({
      provider: "openai",
      model: "m",
      generateId,
      fetch: async () => answers.shift()(),
      tools: [{ name: "count", description: "Counts", input_schema: { type: "object" }, execute: async ({ n }) => `n=${n}` }],
    });
  };
  const { states, texts, late } = await lateAndNow(make, "Count");
  assert.deepEqual(late, texts);
  const message = states.at(-1).messages.at(-1);
  const tools = message.parts.filter((p) => p.type === "tool");
  assert.deepEqual(tools.map((t) => [t.toolUseId ?? t.tool_use_id, t.output]), [["call_1", "n=1"], ["call_2", "n=2"]]);
  assert.deepEqual(message.parts.slice(0, 2), [{ type: "reasoning", text: "a0b" }, { type: "text", text: "c0de" }]);
  assert.equal(message.parts.filter((p) => p.type === "reasoning").length, 40);
});

// An older list shares `items` with the newer one that pushed onto it: past its own length it has
// no item (appendToLast compares the new last item with the list before's item at that place, and
// would copy an item just pushed for nothing).
test("a SharedList has no item past its length, whatever a newer list pushed", async () => {
  const { SharedList } = await import("../../pkg/session.js");
  const items = Array.from({ length: 70 }, (_, i) => ({ text: `${i}` }));
  const before = SharedList.from(items);
  const next = SharedList.from(before);
  const pushed = { text: "new" };
  next.push(pushed);
  assert.equal(next.at(70), pushed);
  assert.equal(before.at(70), undefined);
  assert.equal(before.at(69), items[69]);
  assert.equal(before.toArray().length, 70);
});

test("a snapshot of a long answer has the fields of any other: the same keys, read through a proxy, an object inheriting from it or a copy", async () => {
  const session = new ChatSession({ dialect: "openai", fetch: async () => answer(backAndForth(60))() });
  const { states } = await turn(session, "Go");
  session.dispose();
  const short = states.find((s) => s.streamingParts.length === 1);
  const long = states.filter((s) => s.streamingParts.length > 100);
  assert.ok(long.length > 10);
  for (const state of long) {
    assert.deepEqual(Object.keys(state), Object.keys(short), "the same fields, in the same order");
    assert.deepEqual(Object.getOwnPropertySymbols(state).filter((s) => Object.getOwnPropertyDescriptor(state, s).enumerable), []);
    const parts = state.streamingParts;
    assert.equal(new Proxy(state, {}).streamingParts, parts);
    assert.equal(Object.create(state).streamingParts, parts);
    assert.equal(Object.defineProperties({}, Object.getOwnPropertyDescriptors(state)).streamingParts, parts);
    assert.deepEqual(Object.keys({ ...state }), Object.keys(short));
  }
  // Each snapshot sees its own parts: one more than the snapshot before, the last one new.
  const lengths = long.map((s) => s.streamingParts.length);
  assert.deepEqual(lengths, lengths.map((_, i) => lengths[0] + i));
});
