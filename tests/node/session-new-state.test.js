// A new ChatSession shows the state of a new chat without asking the module for it: that state is
// the same for every session, whatever its options, and is the module's own (its `state()`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import * as glue from "../../pkg/chatstream.js";
import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

// Options the module's ChatSession takes, each as a session is made with them.
const OPTIONS = [
  {},
  { dialect: "openai" },
  { dialect: "anthropic", inlineThinking: true },
  { dialect: "gemini", startsInThinking: true },
  { dialect: "ollama" },
  { generateId: () => "id" },
  { provider: "openai", model: "m", system: "be brief", tools: [{ name: "t", description: "d", input_schema: { type: "object" } }] },
  { provider: "anthropic", model: "m", thinking: true, thinkingBudget: 1024, maxIterations: 3 },
];

test("a new session's snapshot is the module's state of a new chat, for every kind of options", () => {
  for (const options of OPTIONS) {
    const module = new glue.ChatSession(options);
    const expected = module.state();
    module.free();
    const tools = options.tools?.map((tool) => ({ ...tool, execute: () => null }));
    const session = new ChatSession(tools ? { ...options, tools } : options);
    assert.deepEqual(session.getSnapshot(), expected, JSON.stringify(options));
    assert.ok(Object.isFrozen(session.getSnapshot()));
    session.dispose();
  }
});

test("a session and its turn never ask the module for the whole state", async () => {
  const state = glue.ChatSession.prototype.state;
  let calls = 0;
  glue.ChatSession.prototype.state = function () {
    calls++;
    return state.call(this);
  };
  try {
    const answer = 'data: {"choices":[{"delta":{"content":"Hello"}}]}\n\ndata: [DONE]\n\n';
    const session = new ChatSession({ dialect: "openai", fetch: async () => new Response(answer, { headers: { "content-type": "text/event-stream" } }) });
    const before = session.getSnapshot();
    for await (const _ of session.send("hi"));
    const after = session.getSnapshot();
    assert.equal(calls, 0);
    // The new chat's state was not changed by the turn: a snapshot is never mutated.
    assert.deepEqual(before.messages, []);
    assert.equal(before.isLoading, false);
    assert.deepEqual(
      after.messages.map((m) => [m.role, m.content]),
      [
        ["user", "hi"],
        ["assistant", "Hello"],
      ],
    );
    session.dispose();
  } finally {
    glue.ChatSession.prototype.state = state;
  }
});
