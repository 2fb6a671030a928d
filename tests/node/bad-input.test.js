// The bad-input catalogue and wrong argument types through the built package in Node: nothing
// traps the module, every event serializes whole, and a normal stream works afterwards.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as chatstream from "../../pkg/index.js";
import { runCatalogue, wrongArgumentTypes, stillWorks, detachedChunks } from "../bad_input/catalogue.js";

chatstream.initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });
const catalogue = JSON.parse(readFileSync(new URL("../bad_input/catalogue.json", import.meta.url), "utf8"));

test("every bad-input case, under every split, gives the catalogue's errors and serializes whole", () => {
  assert.ok(catalogue.cases.length >= 51);
  assert.deepEqual(runCatalogue(chatstream, catalogue), []);
  assert.equal(stillWorks(chatstream), null);
});

test("arguments of the wrong type throw a TypeError naming the parameter, and the module goes on", () => {
  assert.deepEqual(wrongArgumentTypes(chatstream), []);
  assert.equal(stillWorks(chatstream), null);
});

test("a chunk whose buffer was transferred away is an error; the stream, streamEvents and a ChatSession end normally", async () => {
  assert.deepEqual(await detachedChunks(chatstream), []);
  assert.equal(stillWorks(chatstream), null);
});

test("a tool input nested 10,000 levels deep: partial_input stops at the depth limit, the raw arguments are kept", () => {
  const stream = new chatstream.ChatStream({ dialect: "openai" });
  const args = '{"a":'.repeat(10_000);
  const call = { index: 0, id: "c1", type: "function", function: { name: "deep", arguments: args } };
  const events = [
    ...stream.push(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [call] } }] })}\n\n`),
    ...stream.push('data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'),
    ...stream.finish(),
  ];
  const delta = events.find((e) => e.type === "tool_input_delta");
  let depth = 0;
  for (let value = delta.partial_input; value?.a !== undefined; value = value.a) depth++;
  assert.ok(depth > 100 && depth < 200, `partial_input is ${depth} levels deep`);
  assert.ok(JSON.stringify({ ...delta }).length > 0);
  const error = events.find((e) => e.type === "error");
  assert.equal(error?.code, "SERVICE_UNAVAILABLE");
  assert.equal(events.find((e) => e.type === "tool_call").input, args);
  assert.equal(stillWorks(chatstream), null);
});
