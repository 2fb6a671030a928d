// `new ChatStream({ dialect })`, `{}` and no options are read by a shorter way than other options:
// every way of naming a dialect reads each recording as the general reading does (forced here by a
// second key, `idleTimeoutMs`, which ChatStream accepts and ignores).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const recorded = new URL("../fixtures/recorded/", import.meta.url);
const dialects = readdirSync(recorded).filter((name) => /^[a-z-]+$/.test(name));

/** The stream's dialect before any input, and every event of `body` read one frame a push. */
const read = (body, options) => {
  const stream = new ChatStream(options);
  const dialect = stream.dialect;
  const events = body.split(/(?<=\n)/).flatMap((chunk) => stream.push(chunk));
  events.push(...stream.finish());
  stream.free();
  return { dialect, events };
};

test("a dialect named alone reads every recording as the general reading of the same options does", () => {
  assert.ok(dialects.length >= 5, `recordings' dialects: ${dialects}`);
  for (const dialect of dialects) {
    for (const file of readdirSync(new URL(`${dialect}/`, recorded))) {
      const body = readFileSync(new URL(`${dialect}/${file}`, recorded), "utf8");
      const alone = read(body, { dialect });
      // The folder names the dialect: the stream knows it before the first byte.
      assert.equal(alone.dialect, dialect, `${dialect}/${file}`);
      assert.deepEqual(alone, read(body, { dialect, idleTimeoutMs: undefined }), `${dialect}/${file}`);
      const prototypeless = Object.assign(Object.create(null), { dialect });
      assert.deepEqual(read(body, prototypeless), alone, `${dialect}/${file}, an object without a prototype`);
    }
  }
});

test("no dialect, \"auto\", null or undefined detect it, as every other way of leaving it out does", () => {
  const body = readFileSync(new URL("gemini/text.sse", recorded), "utf8");
  const general = read(body, { dialect: "auto", idleTimeoutMs: undefined });
  assert.equal(general.dialect, undefined);
  for (const options of [undefined, null, {}, { dialect: "auto" }, { dialect: null }, { dialect: undefined }]) {
    assert.deepEqual(read(body, options), general, JSON.stringify(options));
  }
  // Detected from the first frame.
  const stream = new ChatStream({});
  stream.push(body.split("\n\n")[0] + "\n\n");
  assert.equal(stream.dialect, "gemini");
  stream.free();
});

test("a dialect that cannot be read alone is read, or refused, by the general reading", () => {
  assert.throws(() => new ChatStream({ dialect: "klingon" }), /unknown dialect "klingon"/);
  assert.throws(() => new ChatStream({ dialect: "Gemini" }), /unknown dialect "Gemini"/);
  assert.throws(() => new ChatStream({ dialect: 5 }), { name: "TypeError", message: "ChatStream options: dialect must be a string, got 5" });
  assert.throws(() => new ChatStream({ dialect: ["gemini"] }), { name: "TypeError" });
  assert.throws(() => new ChatStream("gemini"), { name: "TypeError" });
  assert.throws(() => new ChatStream(["gemini"]), { name: "TypeError" });
  // A getter that throws reads as no dialect, as the general reading reads it.
  const throwing = {
    get dialect() {
      throw new Error("no dialect");
    },
  };
  const stream = new ChatStream(throwing);
  assert.equal(stream.dialect, undefined);
  stream.free();
  // A Proxy is read through its traps, its dialect named alone or not.
  const proxied = new ChatStream(new Proxy({ dialect: "ollama" }, {}));
  assert.equal(proxied.dialect, "ollama");
  proxied.free();
  assert.throws(() => new ChatStream(new Proxy({}, { ownKeys() { throw new Error("no keys"); } })), {
    name: "TypeError",
    message: "ChatStream options: could not be read (no keys)",
  });
});
