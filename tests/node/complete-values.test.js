// The JSON values of `complete` (tools' inputs and outputs, the provider's own fields, the
// backend's extra keys): a small one crosses item by item, a large one as JSON text
// (src/wasm/mod.rs, `HandOver::inline`). Either way each must be what JSON.parse makes of its JSON
// text, written here by hand: the same values, the same key order, plain objects and arrays, a key
// "__proto__" an own field.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";
import { assertParsed, EDGE_VALUES } from "./parsed.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const frames = (...events) => events.map((e) => `data: ${e}\n\n`).join("");

/** The `complete` payload of an agent stream whose tool ran with `input` and gave `output`, and whose `complete` adds `extra`. */
function payloadWith(input, output, extra) {
  const stream = new ChatStream({ dialect: "agent" });
  const body = frames(
    `{"type":"text_delta","text":"See [[tool:0]]"}`,
    `{"type":"tool_start","tool":"probe","tool_use_id":"t1","input":${input}}`,
    `{"type":"tool_complete","tool":"probe","tool_use_id":"t1","output":${output},"is_error":false}`,
    `{"type":"complete","payload":{"finish_reason":"stop","extra":${extra}}}`,
  );
  const events = [...stream.push(body), ...stream.finish()];
  stream.free();
  return events.find((e) => e.type === "complete").payload;
}


test("each value of complete reads as JSON.parse reads its JSON text, in a tool's input, its output and an extra field", () => {
  for (const json of EDGE_VALUES) {
    // A tool's input is an object: other values stand in an object's field there.
    const input = json.startsWith("{") ? json : `{"v":${json}}`;
    const payload = payloadWith(input, json, json);
    assertParsed(payload.tool_history[0].input, input);
    assertParsed(payload.tool_history[0].output, json);
    assertParsed(payload.segments[1].input, input);
    assertParsed(payload.segments[1].output, json);
    assertParsed(payload.extra, json);
    if (typeof payload.extra === "object" && payload.extra !== null) assert.ok(!("polluted" in payload.extra), json);
  }
});

test("a value's objects are its own: changing one leaves the payload's other copies alone", () => {
  const payload = payloadWith('{"q":{"deep":[1]}}', '{"hits":[{"n":1}]}', '{"k":"v"}');
  payload.segments[1].input.q.deep.push(2);
  payload.segments[1].output.hits[0].n = 5;
  assert.deepEqual(payload.tool_history[0].input, { q: { deep: [1] } });
  assert.deepEqual(payload.tool_history[0].output, { hits: [{ n: 1 }] });
});

test("a Gemini tool call read whole: its input and thought signature in complete as the frames say", () => {
  const recording = readFileSync(new URL("../fixtures/recorded/gemini/tool-call.sse", import.meta.url), "utf8");
  const stream = new ChatStream({ dialect: "gemini" });
  const events = [...stream.push(recording), ...stream.finish()];
  stream.free();
  const first = JSON.parse(recording.split("\n")[0].slice("data: ".length));
  const part = first.candidates[0].content.parts[0];
  const id = `${first.responseId}-0`;
  const { payload } = events.find((e) => e.type === "complete");
  assertParsed(payload.tool_history[0].input, JSON.stringify(part.functionCall.args));
  assertParsed(payload.segments[0].input, JSON.stringify(part.functionCall.args));
  assertParsed(payload.thought_signatures, JSON.stringify([{ signature: part.thoughtSignature, tool_use_id: id }]));
});
