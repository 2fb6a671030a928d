// Resuming an answer the proxy keeps. chatstream-proxy names every streamed answer (its
// `X-Stream-Id` header) and keeps it for a while after its reader goes away; `GET
// <endpoint>/streams/<id>?from=<bytes>` returns the rest of the same body, byte for byte. So when a
// body breaks off, the session asks for the rest and pushes it into the same parser: the message
// goes on where it stopped, with nothing missing and nothing twice.
import { readBody, settle } from "./io.js";

/**
 * A cut answer is asked for again this many times in a row: the first at once (a reset connection
 * is often back right away), then after waits that double from `delayMs`. The defaults cover about
 * 24 s, well within the 60 s the proxy keeps an answer nobody reads.
 */
export const RESUME_DEFAULTS = Object.freeze({ attempts: 8, delayMs: 250 });
// A wait never grows past this: a connection back after a long outage is found within it.
const MAX_DELAY_MS = 8000;

/** The `resume` option: `false` (never resume), or `{ attempts, delayMs }` over the defaults. */
export function resumeOptions(option) {
  if (option === false) return null;
  if (option === undefined || option === null || option === true) return RESUME_DEFAULTS;
  if (typeof option !== "object" || Array.isArray(option)) {
    throw new TypeError("ChatSession options: resume must be false or { attempts, delayMs }");
  }
  const count = (name, value) => {
    if (value === undefined) return RESUME_DEFAULTS[name];
    if (!Number.isInteger(value) || value < 0) throw new TypeError(`ChatSession options: resume.${name} must be a whole number, 0 or more`);
    return value;
  };
  return Object.freeze({ attempts: count("attempts", option.attempts), delayMs: count("delayMs", option.delayMs) });
}

/**
 * Where the proxy keeps the answer to a POST to `endpoint` that it named `id` (its `X-Stream-Id`
 * header): `<endpoint>/streams/<id>`; null when the backend keeps nothing, or names it with
 * anything but letters, digits, `-` and `_` (chatstream-proxy's are hex): `..` would be a path step.
 */
export function keptStream(endpoint, id) {
  if (!/^[\w-]{1,128}$/.test(id ?? "")) return null;
  return `${endpoint.replace(/[?#].*$/s, "").replace(/\/$/, "")}/streams/${id}`;
}

/** The wait before attempt `attempt` (from 1): none, then `delayMs`, twice as long each time, capped. */
export function resumeDelay(options, attempt) {
  return attempt === 1 ? 0 : Math.min(options.delayMs * 2 ** (attempt - 2), MAX_DELAY_MS);
}

/** Waits `ms`, or until `signal` aborts: `{ cancelled: true }` then, and the timer is gone. */
function wait(ms, signal) {
  let timer;
  return settle(new Promise((resolve) => (timer = setTimeout(resolve, ms))), 0, signal).finally(() => clearTimeout(timer));
}

/** The status events a turn gets while it resumes; `reason` tells them from a backend's own. */
export const RECONNECTING = Object.freeze({ type: "status", message: "Reconnecting…", reason: "reconnecting" });
export const RESUMED = Object.freeze({ type: "status", message: "Resumed", reason: "resumed" });

/**
 * Reads an answer's body to its end, resuming it from the proxy when it breaks off (the read
 * failed or went silent) and the proxy keeps it (`url` is not null) and `options` allow.
 *
 * `push(chunk)` takes each chunk, from the first body and the resumed ones alike; `get(url,
 * signal)` makes the resuming request (a `settle` outcome); `status(event)` tells of each attempt
 * and each success. Resolves like `readBody`: with the last body's end, or the first failure when
 * the proxy no longer has the answer, or `{ cancelled: true }` when `signal` aborts, waits included.
 */
export async function readResumable(body, { url, options, push, get, status, idleMs, signal }) {
  let received = 0; // bytes pushed: where a resumed body starts
  let countable = true;
  const read = (stream) =>
    stream
      ? readBody(
          stream,
          (chunk) => {
            // Only bytes can be counted as the proxy counts them; a fetch that hands out anything
            // else (an app's own) is read to its end but never resumed.
            if (chunk instanceof Uint8Array) received += chunk.byteLength;
            else countable = false;
            push(chunk);
          },
          { idleMs, signal },
        )
      : Promise.resolve({ ended: true });
  let end = await read(body);
  if (url === null || options === null) return end;
  const broken = (outcome) => countable && ("failed" in outcome || outcome.timedOut === true);
  for (let attempt = 1; broken(end) && attempt <= options.attempts; attempt++) {
    status(RECONNECTING);
    const waited = await wait(resumeDelay(options, attempt), signal);
    if (waited.cancelled) return waited;
    const got = await get(`${url}?from=${received}`, signal);
    if (got.cancelled) return got;
    if (!("value" in got)) continue; // still no connection: the next attempt
    if (!got.value.ok) {
      got.value.body?.cancel().catch(() => {});
      // A busy proxy or its store out of reach (429, 5xx) may answer the next attempt, and so may
      // one that has fewer bytes than the page (416): a proxy that reads the answer from another
      // one's mirror in Redis may be a chunk behind what that one sent. An answer unknown, expired
      // or stopped (404), or any other refusal, is final: the cut stands.
      if ([416, 429].includes(got.value.status) || got.value.status >= 500) continue;
      return end;
    }
    status(RESUMED);
    const before = received;
    end = await read(got.value.body);
    // Each cut gets every attempt: only cuts in a row with nothing between them use them up.
    if (received > before) attempt = 0;
  }
  return end;
}
