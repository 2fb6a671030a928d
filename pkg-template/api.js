// The package's API over one build of the WebAssembly module (the full one, or the streaming-only
// one of `chatstream/streaming`): loading it, and the exports that check it is loaded first.
// ChatSession and streamEvents load it themselves, while their first response is on its way.
import { streamEventsAfterLoad } from "./loading.js";
import { makeChatSession } from "./session.js";
import { makeStreamEvents } from "./stream-events.js";

// wasm-bindgen takes `{ module_or_path }` / `{ module }` and warns on anything else; both forms are fine here.
const isOptions = (input) => Object.getPrototypeOf(input) === Object.prototype;

/**
 * Whether a buffer was transferred away: its views then read as empty, like an empty view, but the
 * module reports such a chunk as unreadable. `detached` where the engine has it (not Node 20).
 */
function isDetached(buffer) {
  if (typeof buffer.detached === "boolean") return buffer.detached;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/** `AiSdkChat` in the entries whose module has no AI SDK backend mode (the one-dialect ones): says where it is. */
class NoAiSdkChat {
  constructor() {
    throw new TypeError('This entry of chatstream has no AI SDK backend mode: import from "chatstream" or "chatstream/streaming"');
  }
}

/**
 * The API over `wasm`, the namespace of a wasm-bindgen module (`import * as wasm from "./chatstream.js"`);
 * `makeAiSdkChat` (ai-sdk-chat.js) from the entries whose module has the AI SDK backend mode.
 */
export function makeApi(wasm, { makeAiSdkChat } = {}) {
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

    // What a body reader hands over, a string or a Uint8Array, goes straight in: the module then
    // need not call back into JS to find out what the chunk is and read it, which cost more than
    // a small chunk's parsing. Everything else (other views, buffers, detached ones, what is not
    // bytes at all) is read, or refused, in the module.
    push(chunk) {
      if (typeof chunk === "string") return this.__pushText(chunk);
      // `isView`: a real typed array (not a proxy, nor an object that only inherits from one).
      const bytes = ArrayBuffer.isView(chunk) && chunk instanceof Uint8Array;
      if (bytes && (chunk.byteLength > 0 || !isDetached(chunk.buffer))) return this.__pushBytes(chunk);
      return super.push(chunk);
    }
  }

  const guarded = (call) => (...args) => {
    loaded();
    return call(...args);
  };
  const module = { isReady: () => ready, load: init };
  const AiSdkChat = makeAiSdkChat && wasm.AiSdkChat ? makeAiSdkChat(wasm, module) : NoAiSdkChat;
  const streamEvents = makeStreamEvents({ ...wasm, ChatStream });
  const streamEventsWhenLoaded = streamEventsAfterLoad(init, streamEvents);

  return {
    init,
    initSync,
    /** Whether the module is loaded (always, in Node). */
    isReady: () => ready,
    ChatStream,
    ChatSession: makeChatSession(wasm, { ...module, AiSdkChat }),
    AiSdkChat,
    streamEvents: (input, options) => (ready ? streamEvents : streamEventsWhenLoaded)(input, options),
    resolveToolMarkers: guarded(wasm.resolveToolMarkers),
    parseLlmResponse: guarded(wasm.parseLlmResponse),
  };
}
