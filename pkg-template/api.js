// The package's API over one build of the WebAssembly module (the full one, or the streaming-only
// one of `chatstream/streaming`): loading it, and the exports that check it is loaded first.
// ChatSession and streamEvents load it themselves, while their first response is on its way.
import { streamEventsAfterLoad } from "./loading.js";
import { makeChatSession } from "./session.js";
import { makeStreamEvents } from "./stream-events.js";

// wasm-bindgen takes `{ module_or_path }` / `{ module }` and warns on anything else; both forms are fine here.
const isOptions = (input) => Object.getPrototypeOf(input) === Object.prototype;

/** The API over `wasm`, the namespace of a wasm-bindgen module (`import * as wasm from "./chatstream.js"`). */
export function makeApi(wasm) {
  let ready = false;
  let loading = null;
  // Before the module is loaded, the generated bindings fail deep inside ("reading
  // 'chatstream_new'"); every export checks first, so the error says what to do instead.
  const loaded = () => {
    if (!ready) throw new Error("chatstream: call `await init()` first (the WebAssembly module is not loaded yet)");
  };

  /** Loads the module. Idempotent: concurrent calls share one load; after a failed load the next call tries again. */
  function init(input) {
    if (ready) return Promise.resolve();
    loading ??= wasm.default(input === undefined || isOptions(input) ? input : { module_or_path: input }).then(
      () => {
        ready = true;
      },
      (error) => {
        loading = null;
        throw error;
      },
    );
    return loading;
  }

  /** Loads the module from bytes or a compiled module, synchronously. */
  function initSync(input) {
    if (ready) return;
    wasm.initSync(isOptions(input) ? input : { module: input });
    ready = true;
  }

  class ChatStream extends wasm.ChatStream {
    constructor(options) {
      loaded();
      super(options);
    }
  }

  const guarded = (call) => (...args) => {
    loaded();
    return call(...args);
  };
  const streamEvents = makeStreamEvents({ ...wasm, ChatStream });
  const streamEventsWhenLoaded = streamEventsAfterLoad(init, streamEvents);

  return {
    init,
    initSync,
    /** Whether the module is loaded (always, in Node). */
    isReady: () => ready,
    ChatStream,
    ChatSession: makeChatSession(wasm, { isReady: () => ready, load: init }),
    streamEvents: (input, options) => (ready ? streamEvents : streamEventsWhenLoaded)(input, options),
    resolveToolMarkers: guarded(wasm.resolveToolMarkers),
    parseLlmResponse: guarded(wasm.parseLlmResponse),
  };
}
