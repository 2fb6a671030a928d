// What the package does before its WebAssembly module has loaded, so that the module's download
// overlaps the answer instead of coming before the request: a chat's first request is built here
// and sent at once (the module builds every other request; tests/node/first-request.test.js
// checks that the two agree), and `streamEvents` reads a response that is already on its way
// once the module is ready. Until then the response's bytes wait in the browser's buffers.
import { EventQueue, errorParts, isThenable, report } from "./io.js";

/** What a ChatSession shows before its module has loaded: the state of a new chat. */
export const STATE_BEFORE_LOAD = Object.freeze({
  messages: Object.freeze([]),
  isLoading: false,
  streamingText: "",
  thinkingText: "",
  statusText: null,
  activeToolProgress: null,
  error: null,
  streamingSegments: Object.freeze([]),
  streamingParts: Object.freeze([]),
  pendingApproval: null,
  phase: "idle",
  conversationId: null,
});

/** What `ChatSession.cancel()` returns with nothing in flight before its module has loaded: the module's event. */
export const NOTHING_TO_CANCEL = Object.freeze({
  type: "error",
  code: "CONFLICT",
  message: "Nothing to cancel: no message is being answered",
});

// Every character that JavaScript's `\s` or Rust's `char::is_whitespace` counts as white space
// (Rust's adds U+0085): a message of only these may be refused by the module, so it waits for it.
const BLANK = /^[\s\u0085]*$/u;

/**
 * The agent protocol's request body for the first message of a new chat (no history): the body
 * the module's `ChatSession.send` builds. Null when only the module can say what to do (a message
 * it may refuse, a context JSON cannot hold, an endpoint that looks like one of chatstream-proxy's
 * provider routes): that request then waits for the module.
 */
export function firstRequest(message, context, endpoint) {
  if (BLANK.test(message)) return null;
  const path = endpoint.split(/[?#]/)[0].replace(/\/+$/, "");
  if (/\/api\/chat\/[^/]+$/.test(path) && !path.endsWith("/api/chat/stream")) return null;
  let json;
  try {
    json = context === null || context === undefined ? "{}" : JSON.stringify(context);
  } catch {
    return null; // a cycle or a BigInt: the module refuses it
  }
  if (json === undefined) return null; // a function or a symbol
  return {
    message,
    context: JSON.parse(json),
    interaction_type: "text_input",
    conversation_id: null,
    conversation_history: [],
  };
}

/** The error event of a turn whose module did not load: `{ code, message }` beside `type`. */
export function loadFailure(error) {
  return { code: "NETWORK_ERROR", message: `chatstream: the WebAssembly module did not load: ${errorParts(error)[1]}` };
}

/**
 * `streamEvents` before the module has loaded: `load()` starts it (or joins the load under way),
 * and the events come from `streamEvents` itself once it is done. The response's request is
 * already out (the app made it); its body is read only then.
 */
export function streamEventsAfterLoad(load, streamEvents) {
  return function streamEventsWhenLoaded(input, options) {
    let inner = null;
    let left = false;
    const queue = new EventQueue(() => {
      left = true;
      inner?.return();
    });
    load()
      .then(
        async () => {
          // Made even when the consumer has left, so that it releases the body as it always does.
          try {
            inner = streamEvents(input, options);
          } catch (error) {
            // Refused input: said at once once the module is loaded, here as the stream's error.
            return queue.push([{ type: "error", code: "VALIDATION_ERROR", message: String(error?.message ?? error) }]);
          }
          if (left) return inner.return();
          for await (const event of inner) queue.push([event]);
        },
        (error) => {
          discard(input);
          queue.push([{ type: "error", ...loadFailure(error) }]);
        },
      )
      .catch(report)
      .finally(() => queue.close());
    return queue;
  };
}

/** Lets go of a response nobody will read, which ends its request. */
function discard(input) {
  const cancel = (body) => body?.cancel?.().catch(() => {});
  if (input instanceof ReadableStream) cancel(input);
  else if (isThenable(input)) Promise.resolve(input).then((response) => cancel(response?.body), () => {});
  else cancel(input?.body);
}
