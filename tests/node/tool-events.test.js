// The `tool_start` and `tool_call` events cross item by item (src/wasm/mod.rs, `HandOver::tool`),
// not as JSON text. Each must be what JSON.parse makes of its JSON text, written here by hand: the
// same values, the same keys in the same order (`incomplete` and `arguments` only on a call cut by
// the token limit), plain objects, a key "__proto__" an own field.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";
import { assertParsed } from "./parsed.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const frames = (...events) => events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");

/** Every event but `complete` of an OpenAI chat answer that calls `name` (id `id`) with `args`, ending for `finish`. */
function openAiCall(id, name, args, finish = "tool_calls") {
  const stream = new ChatStream({ dialect: "openai" });
  const body = frames(
    { id: "r", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: args } }] }, finish_reason: null }] },
    { id: "r", choices: [{ index: 0, delta: {}, finish_reason: finish }] },
    "[DONE]",
  );
  const events = [...stream.push(body), ...stream.finish()];
  stream.free();
  return events.filter((e) => e.type !== "complete" && e.type !== "tool_input_delta");
}

/** The `tool_start` of an agent stream whose backend runs `tool` (id `id`, when not undefined) with `input`, after `before` frames. */
function agentStart(id, tool, input, ...before) {
  const stream = new ChatStream({ dialect: "agent" });
  const start = `{"type":"tool_start","tool":${JSON.stringify(tool)},${id === undefined ? "" : `"tool_use_id":${JSON.stringify(id)},`}"input":${input}}`;
  const events = stream.push(frames(...before, start));
  stream.free();
  return events.filter((e) => e.type === "tool_start");
}

const str = JSON.stringify;

// Inputs (objects: a tool's input is one), their keys in the order serde_json keeps them (sorted).
const INPUTS = [
  "{}",
  '{"location":"San Francisco"}',
  '{"":"empty key","10":"ten","7":"seven","a":[true,false,null],"b":1}',
  '{"__proto__":{"polluted":true},"constructor":"c","toString":1}',
  '{"n":[0,-1,2147483647,-2147483648,2147483648,-2147483649,9007199254740993,-0.0,1.5,1e300,-2.5e-7]}',
  '{"x":[[],[[]],{},{"y":{"z":[1,"2",null]}}]}',
  '{"s":"quote \\" backslash \\\\ newline \\n tab \\t nul \\u0000 é 中文 😀 \\u2028"}',
  '{"probe":"probe","same":"probe"}',
  // More items than cross one by one, and strings at the edge of those set aside (1,024 bytes).
  str({ v: Array.from({ length: 100 }, (_, i) => ({ i })) }),
  str({ ["k".repeat(1023)]: 1, v: "v".repeat(1023) }),
  str({ ["k".repeat(1024)]: 1, v: "v".repeat(1024) }),
  str({ long: "l".repeat(5000), short: "s" }),
];

test("a tool_call's input reads as JSON.parse reads its JSON text, with the event's keys in order", () => {
  for (const input of INPUTS) {
    const [start, call] = openAiCall("call_1", "probe", input);
    assertParsed(start, '{"type":"tool_start","tool_use_id":"call_1","tool":"probe","index":0,"input":{}}');
    assertParsed(call, `{"type":"tool_call","tool_use_id":"call_1","tool":"probe","index":0,"input":${input}}`);
    assert.ok(!("polluted" in call.input), input);
  }
});

test("a tool_start's input, as the backend sent it, reads as JSON.parse reads it", () => {
  for (const input of [...INPUTS, '"text"', "[1,2]", "7"]) {
    const [start] = agentStart("t1", "probe", input);
    assertParsed(start, `{"type":"tool_start","tool_use_id":"t1","tool":"probe","index":0,"input":${input}}`);
  }
});

test("ids and names at the edges: empty, not ASCII, a key's name, long (set aside), equal to the text before them", () => {
  const texts = ["", "é中文😀\u2028\"\\", "__proto__", "i".repeat(1023), "i".repeat(1024), "é".repeat(600), "probe"];
  for (const id of texts) {
    for (const tool of texts) {
      // A text delta of the same text first: its text item is the one before the tool's.
      const [start] = agentStart(id, tool, "{}", { type: "text_delta", text: id });
      assertParsed(start, `{"type":"tool_start","tool_use_id":${str(id)},"tool":${str(tool)},"index":0,"input":{}}`);
    }
    const [, call] = openAiCall(id === "" ? "x" : id, "name", '{"a":1}');
    assertParsed(call, `{"type":"tool_call","tool_use_id":${str(id === "" ? "x" : id)},"tool":"name","index":0,"input":{"a":1}}`);
  }
});

test("a call cut by the token limit has incomplete and its raw arguments, after its input; a broken one neither", () => {
  for (const args of ['{"a":[1,', '{"q":"é😀', `{"long":"${"l".repeat(3000)}`, "{"]) {
    const [, cut] = openAiCall("c1", "probe", args, "length");
    const best = { '{"a":[1,': '{"a":[1]}', '{"q":"é😀': '{"q":"é😀"}', "{": "{}" }[args] ?? `{"long":"${"l".repeat(3000)}"}`;
    assertParsed(cut, `{"type":"tool_call","tool_use_id":"c1","tool":"probe","index":0,"input":${best},"incomplete":true,"arguments":${str(args)}}`);
    const [, error, broken] = openAiCall("c1", "probe", args, "stop");
    assert.equal(error.type, "error");
    assertParsed(broken, `{"type":"tool_call","tool_use_id":"c1","tool":"probe","index":0,"input":${str(args)}}`);
  }
});

test("several tool calls in one push: each its own index, id and input, between the other events", () => {
  const stream = new ChatStream({ dialect: "openai" });
  const call = (index, id, name, args) => ({ index, id, type: "function", function: { name, arguments: args } });
  const body = frames(
    { id: "r", choices: [{ index: 0, delta: { content: "Let me check." }, finish_reason: null }] },
    { id: "r", choices: [{ index: 0, delta: { tool_calls: [call(0, "a", "first", '{"n":1}')] }, finish_reason: null }] },
    { id: "r", choices: [{ index: 0, delta: { tool_calls: [call(1, "b", "first", "{}")] }, finish_reason: null }] },
    { id: "r", choices: [{ index: 0, delta: { tool_calls: [call(2, "c", "third", '{"s":"a"}')] }, finish_reason: null }] },
    { id: "r", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    "[DONE]",
  );
  const events = [...stream.push(body), ...stream.finish()].filter((e) => e.type.startsWith("tool_") && e.type !== "tool_input_delta");
  stream.free();
  const expected = [
    '{"type":"tool_start","tool_use_id":"a","tool":"first","index":0,"input":{}}',
    '{"type":"tool_start","tool_use_id":"b","tool":"first","index":1,"input":{}}',
    '{"type":"tool_start","tool_use_id":"c","tool":"third","index":2,"input":{}}',
    '{"type":"tool_call","tool_use_id":"a","tool":"first","index":0,"input":{"n":1}}',
    '{"type":"tool_call","tool_use_id":"b","tool":"first","index":1,"input":{}}',
    '{"type":"tool_call","tool_use_id":"c","tool":"third","index":2,"input":{"s":"a"}}',
  ];
  assert.equal(events.length, expected.length);
  events.forEach((event, i) => assertParsed(event, expected[i]));
});

test("a Gemini tool call: its events as the frame says", () => {
  const recording = readFileSync(new URL("../fixtures/recorded/gemini/tool-call.sse", import.meta.url), "utf8");
  const first = JSON.parse(recording.split("\n")[0].slice("data: ".length));
  const part = first.candidates[0].content.parts[0];
  const id = `${first.responseId}-0`;
  const stream = new ChatStream({ dialect: "gemini" });
  const events = [...stream.push(recording), ...stream.finish()].filter((e) => e.type !== "complete");
  stream.free();
  const name = str(part.functionCall.name);
  assertParsed(events[0], `{"type":"tool_start","tool_use_id":${str(id)},"tool":${name},"index":0,"input":{}}`);
  assertParsed(events[1], `{"type":"tool_call","tool_use_id":${str(id)},"tool":${name},"index":0,"input":${str(part.functionCall.args)}}`);
  assert.equal(events.length, 2);
});

test("a tool call's events are the same whatever byte its stream is cut at", () => {
  const body = new TextEncoder().encode(
    frames(
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_é", function: { name: "probe", arguments: "" } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"q":"😀",' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"n":[1,2]}' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    ),
  );
  const read = (cut) => {
    const stream = new ChatStream({ dialect: "openai" });
    const events = [...stream.push(body.subarray(0, cut)), ...stream.push(body.subarray(cut)), ...stream.finish()];
    stream.free();
    return events.filter((e) => e.type === "tool_start" || e.type === "tool_call");
  };
  const [start, call] = read(body.length);
  assertParsed(start, '{"type":"tool_start","tool_use_id":"call_é","tool":"probe","index":0,"input":{}}');
  assert.deepEqual(call, { type: "tool_call", tool_use_id: "call_é", tool: "probe", index: 0, input: { q: "😀", n: [1, 2] } });
  for (let cut = 1; cut < body.length; cut++) assert.equal(JSON.stringify(read(cut)), JSON.stringify([start, call]), `cut at ${cut}`);
});
