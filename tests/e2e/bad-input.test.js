// The bad-input catalogue and wrong argument types through the built package in headless
// Chromium (the same checks as tests/node/bad-input.test.js, in a page): nothing traps the module,
// every event serializes whole, and a normal stream works afterwards in the same instance.
//
// The page and the package are served from disk through playwright's request routing: no server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./chromium.js";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const origin = "http://chatstream.test";
const types = { ".js": "text/javascript", ".json": "application/json", ".wasm": "application/wasm", ".html": "text/html" };
let context, closeChromium;

before(async () => {
  ({ context, close: closeChromium } = await launchChromium());
  await context.route(`${origin}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === "/") return route.fulfill({ contentType: "text/html", body: "<!doctype html><title>bad input</title>" });
    const file = join(root, path);
    if (!file.startsWith(root + "/")) return route.fulfill({ status: 404 });
    try {
      return route.fulfill({ contentType: types[extname(file)] ?? "application/octet-stream", body: await readFile(file) });
    } catch {
      return route.fulfill({ status: 404 });
    }
  });
});

after(async () => {
  await closeChromium?.();
});

test("in Chromium: every bad-input case and every wrong argument type, then a normal stream", async () => {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(`${origin}/`);
  const result = await page.evaluate(async () => {
    const chatstream = await import("/pkg/index.js");
    await chatstream.default();
    const { runCatalogue, wrongArgumentTypes, stillWorks } = await import("/tests/bad_input/catalogue.js");
    const catalogue = await (await fetch("/tests/bad_input/catalogue.json")).json();
    return {
      cases: catalogue.cases.length,
      catalogue: runCatalogue(chatstream, catalogue),
      types: wrongArgumentTypes(chatstream),
      after: stillWorks(chatstream),
    };
  });
  assert.ok(result.cases >= 49, `${result.cases} cases`);
  assert.deepEqual(result.catalogue, []);
  assert.deepEqual(result.types, []);
  assert.equal(result.after, null);
  assert.deepEqual(errors, []);
});
