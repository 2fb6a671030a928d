// The demo page's in-page tools (www/tools.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import { calculate, arithmeticIn, TOOLS } from "../../www/tools.js";

test("the calculator follows precedence and parentheses", () => {
  assert.equal(calculate("12*(3+4)"), 84);
  assert.equal(calculate("2+3*4"), 14);
  assert.equal(calculate("2^3^2"), 512, "^ is right-associative");
  assert.equal(calculate("-(1.5+0.5)/4"), -0.5);
  assert.equal(calculate("10-4-3"), 3, "- is left-associative");
});

test("the calculator refuses what is not arithmetic instead of evaluating it", () => {
  assert.throws(() => calculate("(1+2"), /not closed/);
  assert.throws(() => calculate("1+"), /unexpected end/);
  assert.throws(() => calculate("alert(1)"), /not arithmetic: a/);
});

test("the arithmetic is found in a sentence", () => {
  assert.equal(arithmeticIn("use calculate: what is 12*(3+4)?"), "12*(3+4)");
  assert.equal(arithmeticIn("no numbers here"), "");
});

test("the tools take the package's tool shape and report progress", async () => {
  const calc = TOOLS.find((t) => t.name === "calculate");
  const updates = [];
  const out = await calc.execute({ expression: "what is 6*7" }, { signal: new AbortController().signal, progress: (u) => updates.push(u) });
  assert.deepEqual(out, { expression: "6*7", value: 42 });
  assert.equal(updates.length, 1);
  const clock = TOOLS.find((t) => t.name === "get_time");
  assert.match((await clock.execute({ timezone: "Asia/Tokyo" })).time, /\d{2}:\d{2}/);
  assert.ok((await clock.execute({ timezone: "not a zone" })).timezone, "falls back to local time");
});
