// The one-protocol entries (chatstream/agent, chatstream/openai): each reads its dialect as the full
// package does (every stream fixture, put beside the full package's reading), and a stream of any
// other dialect ends with an error event, never a throw.
import { test } from "node:test";
import assert from "node:assert/strict";
import { statSync } from "node:fs";
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

  test(`${name}: reads every ${dialect} fixture as chatstream does; any other dialect ends with an error event naming it`, () => {
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
      assert.equal(got.dialect, expected.dialect, fixture.name);
      assert.deepEqual(got.events.map((e) => e.type), ["complete", "error"], fixture.name);
      const error = got.events[1];
      assert.equal(error.code, "SERVICE_UNAVAILABLE", fixture.name);
      assert.equal(
        error.message,
        `Failed to parse response: a ${expected.dialect} stream, and this build of chatstream reads only ${dialect}`,
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
