// The I/O around the WebAssembly module: reading bodies, waiting with a time limit, handing events
// out through an async iterator. Promises, timers and abort signals are JavaScript's own; the
// module parses and keeps the state, and never waits on anything.

/**
 * The events of one stream or turn, handed out by `for await`. The producer pushes and closes;
 * `break` (the iterator's `return()`) calls `onLeave` and drops whatever comes after.
 */
export class EventQueue {
  #items = [];
  #waiting = null;
  #closed = false;
  #onLeave;

  constructor(onLeave = () => {}) {
    this.#onLeave = onLeave;
  }

  push(events) {
    for (const value of events) this.pushOne(value);
  }

  pushOne(value) {
    if (this.#closed) return;
    if (this.#waiting) {
      this.#waiting({ value, done: false });
      this.#waiting = null;
    } else {
      this.#items.push(value);
    }
  }

  close() {
    this.#closed = true;
    this.#waiting?.({ value: undefined, done: true });
    this.#waiting = null;
  }

  next() {
    if (this.#items.length > 0) return Promise.resolve({ value: this.#items.shift(), done: false });
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  return() {
    const left = !this.#closed;
    this.#items = [];
    this.close();
    if (left) this.#onLeave();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/**
 * Waits for `promise` at most `ms` milliseconds (none when `ms` is not a positive number), and
 * not past `signal`'s abort: `{ value }`, `{ failed }` (it rejected), `{ timedOut: true }` or
 * `{ cancelled: true }`.
 */
export function settle(promise, ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve({ cancelled: true });
    const done = (outcome) => {
      deadline?.cancel();
      signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const onAbort = () => done({ cancelled: true });
    const deadline = ms > 0 ? new Deadline(ms, () => done({ timedOut: true })) : null;
    signal?.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => done(signal?.aborted ? { cancelled: true } : { value }),
      (failed) => done(signal?.aborted ? { cancelled: true } : { failed }),
    );
  });
}

/**
 * A time limit: `onTimeout` is called once `ms` milliseconds have passed since it was made or last
 * `renew`ed, unless it is `cancel`ed first. Every deadline of the page is watched by one timer
 * (see `watch`): a request and a body read each set and cleared a timer of their own, and those
 * timers were a twentieth of a short answer's turn in Chromium. Times are read from the monotonic
 * clock (`performance.now()`): a system clock set forward or back does not end or stretch a limit.
 *
 * `renew` reads no clock (a body read renews its deadline at every read, and reading the clock
 * there, with the renewal, was a thirteenth of a live session's read in Chromium's profile): it
 * marks the deadline, and the timer, which looks at every deadline at least once an eighth of its
 * time, counts the time from the look that finds the mark. So a deadline fires at least `ms` after
 * its last renewal, and at most an eighth of `ms` (and the timer's own lateness) after that.
 */
export class Deadline {
  constructor(ms, onTimeout) {
    this.ms = ms;
    this.at = performance.now() + ms;
    this.renewed = false;
    this.onTimeout = onTimeout;
    watch(this);
  }

  renew() {
    this.renewed = true;
  }

  cancel() {
    deadlines.delete(this);
    if (deadlines.size === 0) timer?.unref?.(); // nothing left to wait for: Node may exit
  }
}

const deadlines = new Set();
let timer = null; // the one timer, set for `timerAt` (the earliest look a deadline needed when it was set), or null
let timerAt = Infinity;

/** When the timer must look at `deadline` next: its time, or an eighth of its length from `now`, whichever comes first. */
const nextLook = (deadline, now) => Math.min(deadline.at, now + deadline.ms / 8);

function watch(deadline) {
  if (deadlines.size === 0) timer?.ref?.();
  deadlines.add(deadline);
  const at = nextLook(deadline, performance.now());
  if (at >= timerAt) return; // the timer fires first, and looks again then
  clearTimeout(timer);
  setTimer(at);
}

function setTimer(at) {
  timerAt = at;
  // A longer delay than a timer can hold (2^31 - 1 ms) would fire at once.
  timer = setTimeout(check, Math.min(at - performance.now(), 2 ** 31 - 1));
}

/**
 * Counts each renewed deadline's time from now, calls the deadlines that have passed, and sets
 * the timer for the next look.
 */
function check() {
  timer = null;
  timerAt = Infinity;
  const now = performance.now();
  let next = Infinity;
  for (const deadline of deadlines) {
    if (deadline.renewed) {
      deadline.renewed = false;
      deadline.at = now + deadline.ms;
    }
    if (deadline.at <= now) {
      deadlines.delete(deadline);
      try {
        deadline.onTimeout();
      } catch (error) {
        report(error);
      }
    } else {
      next = Math.min(next, nextLook(deadline, now));
    }
  }
  if (next < timerAt) {
    clearTimeout(timer); // a timeout's callback may have made a new deadline, and set the timer
    setTimer(next);
  }
}

/**
 * Reads `body` (a ReadableStream) to its end, handing each chunk to `onChunk`: `{ ended: true }`,
 * `{ cancelled: true }` (`signal` aborted), `{ timedOut: true }` (silent for `idleMs`) or
 * `{ failed }` (the read threw). A read that stops before the body's end cancels the body, which
 * also aborts the request behind a fetch body that is left unread.
 */
export async function readBody(body, onChunk, { idleMs, signal }) {
  let reader;
  try {
    reader = body.getReader();
  } catch (failed) {
    return { failed };
  }
  let timedOut = false;
  let ended = false; // read to its end: nothing left to release
  // Set by the abort's listener (or at once): `signal.aborted`, a getter of the host's, read at
  // every read cost more than the flag.
  let aborted = signal?.aborted === true;
  const stop = () => reader.cancel().catch(() => {});
  const onAbort = () => {
    aborted = true;
    stop();
  };
  const deadline =
    idleMs > 0
      ? new Deadline(idleMs, () => {
          timedOut = true;
          stop();
        })
      : null;
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      if (aborted) return { cancelled: true };
      const { value, done } = await reader.read();
      deadline?.renew();
      if (aborted) return { cancelled: true };
      if (timedOut) return { timedOut: true };
      if (done) {
        ended = true;
        return { ended };
      }
      onChunk(value);
    }
  } catch (failed) {
    if (aborted) return { cancelled: true };
    return timedOut ? { timedOut: true } : { failed };
  } finally {
    deadline?.cancel();
    signal?.removeEventListener("abort", onAbort);
    if (!ended) stop();
  }
}

/**
 * What the package throws when a call is refused for the state the chat is in (`code` CONFLICT:
 * replacing the messages while one is being answered), so that a `catch` can tell it by its code.
 */
export class ChatstreamError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "ChatstreamError";
    this.code = code;
  }
}

/** Runs a call the module may refuse: a refusal with a code is thrown as a ChatstreamError; a TypeError (bad input) as it is. */
export function refusedWithCode(call) {
  try {
    return call();
  } catch (error) {
    if (error instanceof TypeError || typeof error?.code !== "string") throw error;
    throw new ChatstreamError(error.code, error.message);
  }
}

/** What a failed request's error says: its `name` and `message`, as far as it has them. */
export function errorParts(error) {
  return [String(error?.name ?? ""), String(error?.message ?? error ?? "")];
}

/** An app callback's exception must not break the stream: it goes to the host untouched. */
export function report(error) {
  if (typeof reportError === "function") reportError(error);
  else setTimeout(() => { throw error; });
}

/** An error response's text, or "" when it cannot be read (or a Response-like object has none). */
export async function errorPageText(response) {
  try {
    return String(await response.text());
  } catch {
    return "";
  }
}

/** What a fetch gave, if it is a Response: an app's `fetch` option may give anything. */
export function aResponse(response) {
  if (typeof response?.ok === "boolean" && typeof response.status === "number" && typeof response.headers?.get === "function") {
    return response;
  }
  const kind = typeof response;
  const what = response == null ? String(response) : kind === "object" ? "an object that is not one" : `a ${kind}`;
  throw new Error(`the fetch option gave ${what}, not a Response`);
}

export const isThenable = (value) => typeof value?.then === "function";
