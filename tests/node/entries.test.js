// The one-protocol entries (chatstream/agent, chatstream/openai): each reads its dialect as the full
// package does (every stream fixture, put beside the full package's reading), and a stream of any
// other dialect ends with an error event, never a throw, naming the dialect the entry reads: a stream
// it cannot detect (an entry carries only its own dialect's detection), or one named in the options.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import * as full from "../../pkg/node.js";
import * as agent from "../../pkg/agent/node.js";
import * as openai from "../../pkg/openai/node.js";
import { fixtures } from "./fixtures.js";

const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

/** The events of `input` read by `entry`'s ChatStream, in two pushes, and the dialect it used. */
function read(entry, input, options = {}) {
  const stream = new entry.ChatStream(options);
  const cut = Math.floor(input.length / 2);
  const events = [...stream.push(input.subarray(0, cut)), ...stream.push(input.subarray(cut)), ...stream.finish()];
  const dialect = stream.dialect;
  stream.free();
  return { events, dialect };
}

const entries = [
  { name: "chatstream/agent", entry: agent, dialect: "agent", dir: "agent" },
  { name: "chatstream/openai", entry: openai, dialect: "openai", dir: "openai" },
];

for (const { name, entry, dialect, dir } of entries) {
  test(`${name}: exports what chatstream exports, over a module of its own smaller than chatstream/streaming's`, () => {
    assert.deepEqual(Object.keys(entry).sort(), Object.keys(full).sort());
    const size = (path) => statSync(new URL(path, import.meta.url)).size;
    assert.ok(size(`../../pkg/${dir}/chatstream_bg.wasm`) < size("../../pkg/streaming/chatstream_bg.wasm"));
  });

  test(`${name}: provider mode is refused with a TypeError naming ${name}`, () => {
    const refused = (error) => error instanceof TypeError && error.message.includes(`provider mode is not in ${name}: import ChatSession from "chatstream"`);
    assert.throws(() => new entry.ChatSession({ provider: "openai", model: "m" }), refused);
  });

  test(`${name}: reads every ${dialect} fixture as chatstream does; any other dialect is not detected and ends with an error event`, () => {
    let own = 0;
    let refused = 0;
    for (const fixture of fixtures()) {
      const expected = read(full, fixture.input);
      const got = read(entry, fixture.input);
      if (expected.dialect === dialect || expected.dialect === undefined) {
        if (expected.dialect === dialect) own += 1;
        assert.equal(got.dialect, expected.dialect, fixture.name);
        assert.deepEqual(got.events, expected.events, fixture.name);
        continue;
      }
      // A first frame that several dialects read alike (an error envelope) is read by the one built in.
      if (got.dialect === dialect) continue;
      refused += 1;
      assert.equal(got.dialect, undefined, fixture.name);
      assert.deepEqual(got.events.map((e) => e.type), ["complete", "error"], fixture.name);
      const error = got.events[1];
      assert.equal(error.code, "SERVICE_UNAVAILABLE", fixture.name);
      assert.equal(
        error.message,
        `Failed to parse response: not a chat stream this build of chatstream reads (it reads only ${dialect})`,
        fixture.name,
      );
    }
    assert.ok(own > 5, `${own} ${dialect} fixtures`);
    assert.ok(refused > 20, `${refused} fixtures refused`);
  });

  test(`${name}: a dialect named in the options but not built in is refused the same way`, () => {
    const other = dialect === "agent" ? "anthropic" : "agent";
    const { events } = read(entry, Buffer.from(sse([{ type: "text_delta", text: "Hi" }])), { dialect: other });
    assert.deepEqual(events.map((e) => [e.type, e.code]), [["complete", undefined], ["error", "SERVICE_UNAVAILABLE"]]);
    assert.match(events[1].message, new RegExp(`a ${other} stream, and this build of chatstream reads only ${dialect}$`));
  });

  test(`${name}: streamEvents ends an other dialect's stream with the error event, without throwing`, async () => {
    const body = dialect === "agent"
      ? sse([{ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "Hi" } }] }]) + "data: [DONE]\n\n"
      : sse([{ type: "text_delta", text: "Hi" }, { type: "complete", payload: { message: "Hi" } }]);
    const events = [];
    for await (const event of entry.streamEvents(new Response(body))) events.push(event);
    assert.deepEqual(events.map((e) => [e.type, e.code]), [["complete", undefined], ["error", "SERVICE_UNAVAILABLE"]]);
  });
}

test("chatstream/agent: an error frame shaped as Anthropic's is read as the agent protocol's error", () => {
  const body = Buffer.from(sse([{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]));
  assert.equal(read(full, body).dialect, "anthropic");
  const { events, dialect } = read(agent, body);
  assert.equal(dialect, "agent");
  assert.equal(events.at(-1).type, "error");
});

test("chatstream/agent: a ChatSession reads an agent backend's answer", async () => {
  const body = sse([{ type: "text_delta", text: "Hi" }, { type: "complete", payload: { message: "Hi" } }]);
  const chat = new agent.ChatSession({ fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
  for await (const _ of chat.send("hello"));
  assert.deepEqual(chat.getSnapshot().messages.map((m) => [m.role, m.content]), [["user", "hello"], ["assistant", "Hi"]]);
  chat.dispose();
});

// The JS of tool_input_delta events and their partial_input getters is in the glue of a module with
// model tool calls only (src/wasm/partial_input.rs): the agent module has none to hand over.
test("chatstream/agent's glue leaves out the tool_input_delta JS, which chatstream/openai's has", () => {
  const snippets = (dir) => {
    const root = new URL(`../../pkg/${dir}/snippets/`, import.meta.url);
    return readdirSync(root, { recursive: true })
      .filter((file) => file.endsWith(".js"))
      .map((file) => readFileSync(new URL(file, root), "utf8"))
      .join("\n");
  };
  const defines = /function (toolInputDelta|grownInput|readPartial)\(/g;
  assert.deepEqual(snippets("agent").match(defines), null);
  assert.deepEqual(snippets("openai").match(defines)?.sort(), ["function grownInput(", "function readPartial(", "function toolInputDelta("]);
});

test("chatstream/openai: a streamed tool call's tool_input_delta events read their partial_input", () => {
  const input = readFileSync(new URL("../fixtures/recorded/openai/mistral-tool-call.sse", import.meta.url));
  const { events } = read(openai, input);
  const deltas = events.filter((e) => e.type === "tool_input_delta");
  const call = events.find((e) => e.type === "tool_call");
  assert.ok(deltas.length > 0);
  assert.deepEqual(deltas.at(-1).partial_input, call.input);
  assert.deepEqual(deltas.map((e) => e.partial_input), read(full, input).events.filter((e) => e.type === "tool_input_delta").map((e) => e.partial_input));
});

test("chatstream/agent: a tool's long input and output, kept by a key, cross whole as chatstream reads them", () => {
  // Longer than a string that crosses inline: each is set aside and kept by JS under a key.
  const query = "CRISPR ".repeat(400);
  const body = sse([
    { type: "tool_start", tool: "search", input: { query }, tool_use_id: "t1" },
    { type: "tool_complete", tool: "search", tool_use_id: "t1", output: { hits: [query] } },
    { type: "complete", payload: { message: "Done" } },
  ]);
  const got = read(agent, Buffer.from(body));
  assert.deepEqual(got.events, read(full, Buffer.from(body)).events);
  assert.equal(got.events[0].input.query, query);
  assert.equal(got.events[1].output.hits[0], query);
  assert.equal(got.events.at(-1).payload.tool_history[0].input.query, query);
});
