// streamEvents: the clean events of a response body, as an async iterable. The body is read here;
// the module's ChatStream parses each chunk.
import { EventQueue, errorParts, isThenable, readBody, report, settle } from "./io.js";

/** `streamEvents` over the module's bindings `wasm` (ChatStream, httpError, …). */
export function makeStreamEvents(wasm) {
  /**
   * @param {Response | ReadableStream | Promise<Response>} input
   * @param {import("./index.js").StreamEventsOptions} [options]
   */
  return function streamEvents(input, options) {
    if (!(input instanceof Response || input instanceof ReadableStream || isThenable(input))) {
      throw new TypeError("streamEvents: input must be a Response, a ReadableStream or a promise of one");
    }
    if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
      throw new TypeError("streamEvents options must be an object");
    }
    const { signal, idleTimeoutMs, ...streamOptions } = options ?? {};
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw new TypeError("streamEvents options: signal must be an AbortSignal");
    }
    const stream = new wasm.ChatStream(streamOptions); // refuses bad options with a TypeError, now
    const reading = new AbortController();
    let left = false; // the consumer left (`break`): stop quietly
    const queue = new EventQueue(() => {
      left = true;
      reading.abort();
    });
    const onAbort = () => reading.abort();
    if (signal?.aborted) reading.abort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    const deliver = (events) => left || queue.push(events);

    read(wasm, stream, input, idleTimeoutMs, reading.signal, deliver)
      .catch((error) => deliver([{ type: "error", code: "NETWORK_ERROR", message: String(error?.message ?? error) }]))
      .finally(() => {
        signal?.removeEventListener("abort", onAbort);
        queue.close();
        // Never a rejection nobody handles: a failure here is a bug, for the host to hear of.
        try {
          stream.free();
        } catch (error) {
          report(error);
        }
      });
    return queue;
  };
}

/** Reads `input` through `stream`, handing each batch of events to `deliver`. */
async function read(wasm, stream, input, idleMs, signal, deliver) {
  let response = input;
  if (isThenable(input)) {
    const got = await settle(input, idleMs, signal);
    if (got.cancelled) return deliver(stream.cancel());
    if (got.timedOut) return deliver([networkError(wasm.timedOut(idleMs))]);
    if (got.failed) return deliver([networkError(wasm.connectionFailed(...errorParts(got.failed)))]);
    response = got.value;
  }
  let body = response;
  if (response instanceof Response) {
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      return deliver([{ type: "error", ...wasm.httpError(response.status, text) }]);
    }
    stream.useResponse(response.headers.get("content-type"), Object.fromEntries(response.headers));
    body = response.body;
    if (body === null) return deliver(stream.finish());
  } else if (!(response instanceof ReadableStream)) {
    const message = "streamEvents takes a Response, a ReadableStream or a promise of one";
    return deliver([{ type: "error", code: "VALIDATION_ERROR", message }]);
  }
  if (signal.aborted) return deliver(stream.cancel());
  const end = await readBody(body, (chunk) => deliver(push(stream, chunk)), { idleMs, signal });
  if (end.ended) deliver(stream.finish());
  else if (end.cancelled) deliver(stream.cancel());
  else if (end.timedOut) deliver(stream.fail("NETWORK_ERROR", wasm.timedOut(idleMs)));
  else deliver(stream.fail("NETWORK_ERROR", wasm.connectionFailed(...errorParts(end.failed))));
}

/** One chunk's events; a chunk that is neither bytes nor text is skipped and said so. */
function push(stream, chunk) {
  try {
    return stream.push(chunk);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return stream.skippedChunk();
  }
}

const networkError = (message) => ({ type: "error", code: "NETWORK_ERROR", message });
