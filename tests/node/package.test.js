// The built package in Node 20: import it, initialise it synchronously, read streams with it; and
// the package as a registry gets it (npm pack, npm publish --dry-run) and an app installs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { initSync, ChatStream } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

test("a ChatStream reads an agent stream pushed as text and as bytes", () => {
  const body = 'data: {"type":"text_delta","text":"Hel"}\n\ndata: {"type":"text_delta","text":"lo"}\n\n';
  const stream = new ChatStream({ dialect: "agent" });
  const bytes = new TextEncoder().encode(body);
  const first = stream.push(bytes.subarray(0, 20));
  assert.deepEqual(first, []);
  const rest = stream.push(new TextDecoder().decode(bytes.subarray(20)));
  assert.deepEqual(rest, [{ type: "text_delta", text: "Hello" }]);
  assert.equal(stream.dialect, "agent");
});

test("an unknown dialect is refused with a clear message", () => {
  assert.throws(() => new ChatStream({ dialect: "klingon" }), /unknown dialect "klingon"/);
});

test("push refuses what is neither bytes nor text", () => {
  const stream = new ChatStream();
  assert.throws(() => stream.push(42), TypeError);
});

// An Anthropic tool call whose input streams in three pieces, each in its own push.
const toolStream = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"search","input":{}}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"query\\": \\"CRI"}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"SPR\\", \\"lim"}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"it\\": 5}"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
];

test("tool_input_delta: partial_input is each event's own value, read in any order, and in JSON.stringify", () => {
  const stream = new ChatStream();
  const deltas = toolStream.flatMap((chunk) => stream.push(chunk)).filter((e) => e.type === "tool_input_delta");
  assert.equal(deltas.length, 3);
  // Read last first: each getter parses the arguments as they were at its own event.
  assert.deepEqual(deltas[2].partial_input, { query: "CRISPR", limit: 5 });
  assert.deepEqual(deltas[0].partial_input, { query: "CRI" });
  assert.deepEqual(deltas[1].partial_input, { query: "CRISPR" });
  assert.equal(deltas[1].partial_input, deltas[1].partial_input, "parsed once, then the same object");
  assert.deepEqual(JSON.parse(JSON.stringify(deltas[1])), {
    type: "tool_input_delta",
    tool_use_id: "toolu_1",
    delta: 'SPR", "lim',
    partial_input: { query: "CRISPR" },
  });
  assert.deepEqual(Object.keys(deltas[0]), ["type", "tool_use_id", "delta", "partial_input"]);
});

// Frameworks wrap events (Vue's `reactive` and Svelte 5's `$state` in a proxy whose get trap
// passes the proxy on as the getter's receiver), and apps copy them: partial_input reads the same
// through each, and the wrapper leaves the event's own value read once.
test("tool_input_delta: partial_input reads the same through a proxy, an object inheriting from the event and a descriptor copy", () => {
  const read = {
    "a proxy": (event) => new Proxy(event, {}).partial_input,
    "a proxy passing its receiver on": (event) => new Proxy(event, { get: (target, key, receiver) => Reflect.get(target, key, receiver) }).partial_input,
    "Object.create(event)": (event) => Object.create(event).partial_input,
    "a descriptor copy": (event) => Object.defineProperties({}, Object.getOwnPropertyDescriptors(event)).partial_input,
  };
  for (const [name, wrapped] of Object.entries(read)) {
    const stream = new ChatStream();
    const deltas = toolStream.flatMap((chunk) => stream.push(chunk)).filter((e) => e.type === "tool_input_delta");
    assert.deepEqual(wrapped(deltas[1]), { query: "CRISPR" }, name);
    assert.deepEqual(wrapped(deltas[2]), { query: "CRISPR", limit: 5 }, name);
    assert.equal(wrapped(deltas[1]), deltas[1].partial_input, `${name}: parsed once, the event's own value`);
    assert.deepEqual(Object.keys(deltas[1]), ["type", "tool_use_id", "delta", "partial_input"], name);
  }
});

// --- The package as a registry and an app get it -------------------------------------------------

const pkgDir = fileURLToPath(new URL("../../pkg/", import.meta.url));
const npm = (args, cwd) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

test("package.json has what a registry shows, and types for each entry", () => {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  for (const field of ["name", "version", "description", "license", "homepage", "engines", "sideEffects", "files"]) {
    assert.ok(manifest[field], `${field} is set`);
  }
  assert.match(manifest.repository.url, /^git\+https:\/\/.+\.git$/);
  for (const [entry, target] of Object.entries(manifest.exports)) {
    if (typeof target === "object") assert.equal(Object.keys(target)[0], "types", `${entry}: types first, for every resolver`);
  }
});

test("npm pack carries README, both licenses and every file the entries import", () => {
  const [{ files }] = JSON.parse(npm(["pack", "--dry-run", "--json"], pkgDir));
  const packed = new Set(files.map((f) => f.path));
  for (const file of ["README.md", "LICENSE-MIT", "LICENSE-APACHE", "package.json"]) assert.ok(packed.has(file), file);
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const targets = (value) => (typeof value === "string" ? [value] : Object.values(value).flatMap(targets));
  for (const file of targets(manifest.exports)) assert.ok(packed.has(file.replace(/^\.\//, "")), `exports names ${file}`);
  for (const file of [...packed].filter((f) => f.endsWith(".js"))) {
    const source = readFileSync(join(pkgDir, file), "utf8");
    for (const [, specifier] of source.matchAll(/(?:from|import) "(\.[^"]+)"/g)) {
      const imported = join(dirname(file), specifier);
      assert.ok(packed.has(imported), `${file} imports ${imported}`);
    }
  }
});

test("npm publish --dry-run warns about nothing in the package", () => {
  const result = spawnSync("npm", ["publish", "--dry-run"], { cwd: pkgDir, encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  // What this machine's npm says of itself (its config, no login) is not about the package.
  const warnings = result.stderr
    .split("\n")
    .filter((line) => line.startsWith("npm warn") && !/Unknown user config|requires you to be logged in/.test(line));
  assert.deepEqual(warnings, []);
});

test("installed from its tarball, Node imports it by name and reads a stream with no init()", () => {
  const app = mkdtempSync(join(tmpdir(), "chatstream-app-"));
  try {
    const [{ filename }] = JSON.parse(npm(["pack", "--json", "--pack-destination", app], pkgDir));
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    npm(["install", "--offline", "--no-audit", "--no-fund", join(app, filename)], app);
    writeFileSync(
      join(app, "read.js"),
      `import init, { ChatStream } from "chatstream";
      const stream = new ChatStream();
      const events = [...stream.push('data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\\n\\n'), ...stream.finish()];
      await init(); // resolves at once: Node's entry loaded the module on import
      console.log(JSON.stringify({ dialect: stream.dialect, text: events.find((e) => e.type === "complete").payload.text }));`,
    );
    const out = execFileSync(process.execPath, ["read.js"], { cwd: app, encoding: "utf8" });
    assert.deepEqual(JSON.parse(out), { dialect: "openai", text: "Hi" });

    // `chatstream/react` imports in Node too: a server render shows the loading state (the session
    // is made in the browser), as the client's first render does.
    for (const name of ["react", "react-dom"]) {
      symlinkSync(fileURLToPath(new URL(`../../node_modules/${name}`, import.meta.url)), join(app, "node_modules", name));
    }
    writeFileSync(
      join(app, "render.js"),
      `import { createElement } from "react";
      import { renderToString } from "react-dom/server";
      import { useGeneralChat } from "chatstream/react";
      const Chat = () => createElement("p", null, useGeneralChat().phase);
      console.log(renderToString(createElement(Chat)));`,
    );
    assert.equal(execFileSync(process.execPath, ["render.js"], { cwd: app, encoding: "utf8" }).trim(), "<p>loading</p>");

    // The streaming-only entry, by name: its own module, the same API, no provider mode.
    writeFileSync(
      join(app, "streaming.js"),
      `import { ChatStream, ChatSession } from "chatstream/streaming";
      import { useGeneralChat } from "chatstream/streaming/react";
      const stream = new ChatStream();
      const events = [...stream.push('data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\\n\\n'), ...stream.finish()];
      let refused = null;
      try { new ChatSession({ provider: "openai" }); } catch (error) { refused = error.message; }
      console.log(JSON.stringify({ text: events.find((e) => e.type === "complete").payload.text, refused, hook: typeof useGeneralChat }));`,
    );
    const streaming = JSON.parse(execFileSync(process.execPath, ["streaming.js"], { cwd: app, encoding: "utf8" }));
    assert.equal(streaming.text, "Hi");
    assert.match(streaming.refused, /provider mode is not in chatstream\/streaming/);
    assert.equal(streaming.hook, "function");
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
});
