// `new ChatSession({ dialect })` (and `{}`, no options) hands the module options it reads by a
// shorter way than any others: every way of naming a dialect reads each recording into the same
// events and snapshots as the general reading of the same options (forced here by a second key,
// `inlineThinking: undefined`, which changes nothing else).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";

import * as glue from "../../pkg/chatstream.js";
import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const recorded = new URL("../fixtures/recorded/", import.meta.url);
const dialects = readdirSync(recorded).filter((name) => /^[a-z-]+$/.test(name));

// A message id: a random prefix (unique to the session, so that the ids of two sessions of a page
// never meet), then a count from 1.
const ID = /^[0-9a-f]{1,8}-(\d+)$/;

/** A turn over `body` (one chunk a line), with the ids as their counts: its events and every snapshot shown. */
async function turn(options, body, contentType = "text/event-stream") {
  const chunks = body.split(/(?<=\n)/).map((line) => new TextEncoder().encode(line));
  const fetch = async () =>
    new Response(new ReadableStream({ pull: (c) => (chunks.length > 0 ? c.enqueue(chunks.shift()) : c.close()) }), {
      headers: { "content-type": contentType },
    });
  const session = new ChatSession({ ...options, fetch });
  const prefixes = new Set();
  const snapshots = [];
  session.subscribe(() => {
    const snapshot = JSON.parse(JSON.stringify(session.getSnapshot()));
    for (const message of snapshot.messages) {
      const [, count] = message.id.match(ID) ?? assert.fail(`a message id of a random prefix and a count: ${message.id}`);
      prefixes.add(message.id.slice(0, message.id.length - count.length));
      message.id = Number(count);
    }
    snapshots.push(snapshot);
  });
  const events = [];
  for await (const event of session.send("hi")) events.push(event);
  session.dispose();
  assert.equal(prefixes.size, 1, "one prefix for the session's ids");
  return { events, snapshots, prefix: [...prefixes][0] };
}

test("a session's dialect named alone reads every recording as the general reading of the same options does", async () => {
  assert.ok(dialects.length >= 5, `recordings' dialects: ${dialects}`);
  const files = (dialect) => readdirSync(new URL(`${dialect}/`, recorded)).filter((f) => !f.endsWith(".json"));
  for (const [at, dialect] of dialects.entries()) {
    // Its own recordings, and one of another dialect's (read as this dialect, not as detected).
    const other = dialects[(at + 1) % dialects.length];
    for (const path of [...files(dialect).map((f) => `${dialect}/${f}`), `${other}/${files(other)[0]}`]) {
      const body = readFileSync(new URL(path, recorded), "utf8");
      // A content type that says nothing of the dialect: the session must read the one it was given.
      const alone = await turn({ dialect }, body, "text/plain");
      const general = await turn({ dialect, inlineThinking: undefined }, body, "text/plain");
      assert.ok(alone.events.length > 0, `${dialect}: ${path}`);
      assert.deepEqual(alone.events, general.events, `${dialect}: ${path}`);
      assert.deepEqual(alone.snapshots, general.snapshots, `${dialect}: ${path}`);
    }
  }
});

test("a session's dialect left out, \"auto\" or null is detected, as the general reading detects it", async () => {
  const body = readFileSync(new URL("gemini/text.sse", recorded), "utf8");
  const general = await turn({ dialect: "auto", inlineThinking: undefined }, body);
  assert.ok(general.events.some((event) => event.type === "text_delta"));
  for (const options of [{}, { dialect: "auto" }, { dialect: null }, { dialect: undefined }]) {
    const { events, snapshots } = await turn(options, body);
    assert.deepEqual({ events, snapshots }, { events: general.events, snapshots: general.snapshots }, JSON.stringify(options));
  }
});

test("two sessions made with a dialect alone number their messages from different random prefixes", async () => {
  const body = readFileSync(new URL("anthropic/text.sse", recorded), "utf8");
  const prefixes = new Set();
  for (let i = 0; i < 4; i++) prefixes.add((await turn({ dialect: "anthropic" }, body)).prefix);
  // Four 32-bit prefixes drawn at random: the same one twice would be a one in a billion chance.
  assert.equal(prefixes.size, 4);
});

test("the module's ChatSession made with a dialect alone, or with no options, is the general reading's, and refuses what it refuses", () => {
  for (const options of [undefined, null, {}, { dialect: "openai" }, { dialect: "auto" }]) {
    const alone = new glue.ChatSession(options);
    const general = new glue.ChatSession({ ...options, inlineThinking: undefined });
    assert.deepEqual(alone.state(), general.state(), JSON.stringify(options));
    alone.free();
    general.free();
  }
  const refusal = (options) => {
    try {
      new glue.ChatSession(options).free();
    } catch (error) {
      return `${error.constructor.name}: ${error.message}`;
    }
    return assert.fail(`${JSON.stringify(options)} was not refused`);
  };
  for (const dialect of ["nope", 7, ""]) {
    assert.equal(refusal({ dialect }), refusal({ dialect, inlineThinking: undefined }), JSON.stringify(dialect));
  }
  assert.match(refusal({ dialect: "nope" }), /unknown dialect "nope"/);
});
