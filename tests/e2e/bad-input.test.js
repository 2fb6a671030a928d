// The bad-input catalogue and wrong argument types through the built package in headless
// Chromium (the same checks as tests/node/bad-input.test.js, in a page): nothing traps the module,
// every event serializes whole, and a normal stream works afterwards in the same instance.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launchChromium, origin, serveRepository } from "./chromium.js";

let context, closeChromium;

before(async () => {
  ({ context, close: closeChromium } = await launchChromium());
  await serveRepository(context);
});

after(async () => {
  await closeChromium?.();
});

test("in Chromium: every bad-input case, every wrong argument type and detached chunks, then a normal stream", async () => {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(`${origin}/`);
  const result = await page.evaluate(async () => {
    const chatstream = await import("/pkg/index.js");
    await chatstream.default();
    const { runCatalogue, wrongArgumentTypes, stillWorks, detachedChunks } = await import("/tests/bad_input/catalogue.js");
    const catalogue = await (await fetch("/tests/bad_input/catalogue.json")).json();
    return {
      cases: catalogue.cases.length,
      catalogue: runCatalogue(chatstream, catalogue),
      types: wrongArgumentTypes(chatstream),
      detached: await detachedChunks(chatstream),
      after: stillWorks(chatstream),
    };
  });
  assert.ok(result.cases >= 51, `${result.cases} cases`);
  assert.deepEqual(result.catalogue, []);
  assert.deepEqual(result.types, []);
  assert.deepEqual(result.detached, []);
  assert.equal(result.after, null);
  assert.deepEqual(errors, []);
});
