// resolveToolMarkers and parseLlmResponse from the built package: the helpers for
// messages that are already stored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { initSync, resolveToolMarkers, parseLlmResponse, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const search = { tool_name: "search", tool_use_id: "t1", input: { q: "cats" }, output: { hits: 5 }, is_error: false };

test("resolveToolMarkers places each tool from its history entry, in reading order", () => {
  const segments = resolveToolMarkers("Looking.\n\n[[tool:0]]\n\nFound 5.", [search]);
  assert.deepEqual(
    segments.map((s) => s.type),
    ["text", "tool", "text"],
  );
  assert.equal(segments[0].text.trim(), "Looking.");
  assert.equal(segments[1].index, 0);
  assert.equal(segments[1].tool, "search");
  assert.deepEqual(segments[1].output, { hits: 5 });
  assert.equal(segments[2].text.trim(), "Found 5.");
});

test("resolveToolMarkers keeps a marker with no history entry as an empty tool segment", () => {
  const segments = resolveToolMarkers("a [[tool:3]] b");
  const tool = segments.find((s) => s.type === "tool");
  assert.equal(tool.index, 3);
  assert.equal(tool.output, null);
});

test("resolveToolMarkers leaves text that only looks like a marker alone", () => {
  const segments = resolveToolMarkers("see [[CRISPR]] and [[to]]", []);
  assert.deepEqual(segments, [{ type: "text", text: "see [[CRISPR]] and [[to]]" }]);
});

test("resolveToolMarkers refuses a history that is not an array of records", () => {
  assert.throws(() => resolveToolMarkers("x", [{ nope: 1 }]), /toolHistory/);
});

test("parseLlmResponse pulls out thinking and payloads and trims the text", () => {
  const parsed = parseLlmResponse(
    '<think>check units</think>The answer is 4.\nSUGGESTED_VALUES: [{"label":"More","value":"more"}]\n',
  );
  assert.equal(parsed.text, "The answer is 4.");
  assert.equal(parsed.thinking, "check units");
  assert.deepEqual(parsed.suggested_values, [{ label: "More", value: "more" }]);
  assert.deepEqual(parsed.diagnostics, []);
});

test("parseLlmResponse reads an app's own payload marker", () => {
  const parsed = parseLlmResponse('Try this. QUERY_SUGGESTION: {"q":"a]b"}', {
    payloadMarkers: [{ marker: "QUERY_SUGGESTION:", type: "query_suggestion" }],
  });
  assert.equal(parsed.text, "Try this.");
  assert.deepEqual(parsed.custom_payload, { type: "query_suggestion", data: { q: "a]b" } });
});

test("parseLlmResponse keeps malformed payload JSON as text, with a diagnostic", () => {
  const parsed = parseLlmResponse("Done. SUGGESTED_ACTIONS: [{oops");
  assert.match(parsed.text, /SUGGESTED_ACTIONS: \[\{oops/);
  assert.equal(parsed.suggested_actions, null);
  assert.equal(parsed.diagnostics.length, 1);
});

test("startsInThinking reads text before a lone closing tag as thinking", () => {
  const text =
    '{"message":{"role":"assistant","content":"plan</think>Answer"},"done":false}\n' +
    '{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n';
  const options = { dialect: "ollama", startsInThinking: true };
  const stream = new ChatStream(options);
  const events = [...stream.push(text), ...stream.finish()];
  const thinking = events.filter((e) => e.type === "thinking_delta").map((e) => e.text).join("");
  assert.equal(thinking, "plan");
  assert.equal(events.at(-1).payload.text, "Answer");
  assert.equal(parseLlmResponse("plan</think>Answer", { startsInThinking: true }).text, "Answer");
  assert.equal(parseLlmResponse("plan</think>Answer").text, "planAnswer");
});
