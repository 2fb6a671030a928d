// The time limits of requests and body reads (`Deadline` in io.js): every one of the page is
// watched by one timer, and each still fires when its own time is up, and not before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

import { Deadline, settle } from "../../pkg/io.js";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `done()` holds, or two seconds have passed (a loaded machine is slow, never early). */
async function until(done) {
  for (const stop = performance.now() + 2000; !done() && performance.now() < stop; ) await sleep(5);
}

test("a deadline fires once its time is up, never before", async () => {
  const made = performance.now();
  let fired = null;
  new Deadline(40, () => (fired = performance.now()));
  await until(() => fired !== null);
  assert.ok(fired !== null, "fired");
  assert.ok(fired - made >= 40, `fired after ${fired - made} ms`);
});

test("renew counts the time from the renewal; cancel stops it", async () => {
  let renewedAt = null;
  let renewedFired = null;
  let cancelledFired = false;
  const renewed = new Deadline(40, () => (renewedFired = performance.now()));
  const cancelled = new Deadline(40, () => (cancelledFired = true));
  await sleep(25);
  renewedAt = performance.now(); // read before renew(): the deadline counts from after this
  renewed.renew();
  cancelled.cancel();
  await until(() => renewedFired !== null);
  assert.ok(renewedFired !== null, "fired");
  assert.ok(renewedFired - renewedAt >= 40, `fired ${renewedFired - renewedAt} ms after its renewal`);
  await sleep(50);
  assert.equal(cancelledFired, false);
});

test("deadlines of different lengths each fire at their own time, whatever order they were made in", async () => {
  const made = performance.now();
  const fired = {};
  // A long one first: the one timer is set for it, then for the shorter ones made after it.
  for (const ms of [120, 30, 60]) new Deadline(ms, () => (fired[ms] = performance.now() - made));
  await until(() => Object.keys(fired).length === 3);
  assert.deepEqual(Object.keys(fired).sort(), ["120", "30", "60"]);
  for (const ms of [30, 60, 120]) assert.ok(fired[ms] >= ms, `the ${ms} ms deadline fired after ${fired[ms]} ms`);
  assert.ok(fired[30] <= fired[60] && fired[60] <= fired[120], JSON.stringify(fired));
});

test("a deadline made in another's callback is watched too", async () => {
  let inner = false;
  new Deadline(20, () => new Deadline(20, () => (inner = true)));
  await until(() => inner);
  assert.equal(inner, true);
});

test("a time limit of Infinity is no limit: a request waits for its answer (a timer given Infinity fires at once)", async () => {
  let answer;
  const settled = settle(new Promise((resolve) => (answer = resolve)), Infinity);
  let shortFired = false;
  new Deadline(20, () => (shortFired = true)); // the one timer runs, and looks at the other deadlines
  await until(() => shortFired);
  await sleep(30);
  answer("late");
  assert.deepEqual(await settled, { value: "late" });
});

test("what a callback throws goes to the host (reportError), and the other deadlines still fire", async () => {
  const reported = [];
  globalThis.reportError = (error) => reported.push(error);
  try {
    let other = false;
    new Deadline(20, () => {
      throw new Error("boom");
    });
    new Deadline(20, () => (other = true));
    await until(() => other);
    assert.equal(other, true);
    assert.deepEqual(reported.map((e) => e.message), ["boom"]);
  } finally {
    delete globalThis.reportError;
  }
});

test("Node exits once no deadline is left, though the one timer is set for a long one that was cancelled", () => {
  const script = `
    import { Deadline } from ${JSON.stringify(new URL("../../pkg/io.js", import.meta.url).href)};
    new Deadline(60000, () => {}).cancel();
  `;
  const started = performance.now();
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { timeout: 20000 });
  assert.equal(run.status, 0, String(run.stderr));
  assert.ok(performance.now() - started < 15000, "it did not wait for the cancelled deadline's time");
});
