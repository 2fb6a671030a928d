// The package's API over one build of the WebAssembly module (the full one, or the streaming-only
// one of `chatstream/streaming`): loading it, and the exports that check it is loaded first.
// ChatSession and streamEvents load it themselves, while their first response is on its way.
import { makeLoader } from "./init.js";
import { streamEventsAfterLoad } from "./loading.js";
import { makeChatSession } from "./session.js";
import { makeStreamEvents } from "./stream-events.js";

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
    throw new TypeError('This entry of chatstream has no AI SDK backend mode: import from "chatstream/ai-sdk", "chatstream" or "chatstream/streaming"');
  }
}

/**
 * The API over `wasm`, the namespace of a wasm-bindgen module (`import * as wasm from "./chatstream.js"`);
 * `makeAiSdkChat` (ai-sdk-chat.js) from the entries whose module has the AI SDK backend mode.
 */
export function makeApi(wasm, { makeAiSdkChat } = {}) {
  const { init, initSync, isReady } = makeLoader(wasm);
  // Before the module is loaded, the generated bindings fail deep inside ("reading
  // 'chatstream_new'"); every export checks first, so the error says what to do instead.
  const loaded = () => {
    if (!isReady()) throw new Error("chatstream: call `await init()` first (the WebAssembly module is not loaded yet)");
  };

  // The hand-over of `ChatStream`'s events, read from the module's memory (src/wasm/mod.rs,
  // `HandOver::into_memory`): fetched on the first stream's first call.
  let parts = null;
  const handOverParts = () => {
    const [handOver, parse, memory, record] = wasm.__handOverParts();
    parts = { handOver, parse, memory, record: record / 4, bytes: new Uint8Array(0), words: new Uint32Array(0) };
    return parts;
  };
  // Views of the module's memory, made again after it grew (that detaches the old buffer).
  const memoryViews = () => {
    const p = parts ?? handOverParts();
    if (p.bytes.byteLength === 0) {
      p.bytes = new Uint8Array(p.memory.buffer);
      p.words = new Uint32Array(p.memory.buffer);
    }
    return p;
  };
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();

  class ChatStream extends wasm.ChatStream {
    // Each stream's tool arguments so far, for `partial_input` (see `handOver`).
    #inputs = new Map();
    // The stream's input buffer in the module's memory (`__input`): its address and size.
    #at = 0;
    #room = 0;

    constructor(options) {
      loaded();
      super(options);
    }

    // What a body reader hands over, a string or a Uint8Array, is copied straight into the
    // stream's input buffer in the module's memory and pushed with one call: a push is made once
    // per network read, and wasm-bindgen's glue (allocating a copy, a call from the module back
    // into JS for the result) cost more than a small chunk's parsing. Everything else (other
    // views, buffers, detached ones, what is not bytes at all) is read, or refused, in the module.
    push(chunk) {
      // `__wbg_ptr` is 0 once the stream is freed: no writing into memory it no longer owns.
      if (this.__wbg_ptr !== 0) {
        if (typeof chunk === "string") {
          const room = chunk.length * 3; // UTF-8 takes at most 3 bytes per UTF-16 code unit
          if (room > this.#room) this.#reserve(room);
          const { bytes } = memoryViews();
          const { written } = encoder.encodeInto(chunk, bytes.subarray(this.#at, this.#at + room));
          return this.#events(this.__push(written));
        }
        // `isView`: a real typed array (not a proxy, nor an object that only inherits from one).
        if (ArrayBuffer.isView(chunk) && chunk instanceof Uint8Array && (chunk.byteLength > 0 || !isDetached(chunk.buffer))) {
          if (chunk.length > this.#room) this.#reserve(chunk.length);
          memoryViews().bytes.set(chunk, this.#at);
          return this.#events(this.__push(chunk.length));
        }
      }
      return this.#events(super.push(chunk));
    }

    finish() {
      return this.#events(super.finish());
    }

    cancel() {
      return this.#events(super.cancel());
    }

    fail(code, message) {
      return this.#events(super.fail(code, message));
    }

    #reserve(size) {
      this.#at = this.__input(size);
      this.#room = size;
    }

    /** The events the module left in its memory: `words` is their layout's length (0 for none). */
    #events(words) {
      if (words === 0) return [];
      const { bytes, words: memory, record, handOver, parse } = memoryViews();
      const at = memory[record];
      const text = decoder.decode(bytes.subarray(at, at + memory[record + 1]));
      const layout = memory.subarray(memory[record + 2] / 4, memory[record + 2] / 4 + words);
      return handOver(text, layout, false, this.#inputs, parse);
    }
  }

  const guarded = (call) => (...args) => {
    loaded();
    return call(...args);
  };
  const module = { isReady, load: init };
  const AiSdkChat = makeAiSdkChat && wasm.AiSdkChat ? makeAiSdkChat(wasm, module) : NoAiSdkChat;
  const streamEvents = makeStreamEvents({ ...wasm, ChatStream });
  const streamEventsWhenLoaded = streamEventsAfterLoad(init, streamEvents);

  return {
    init,
    initSync,
    isReady,
    ChatStream,
    ChatSession: makeChatSession(wasm, { ...module, AiSdkChat }),
    AiSdkChat,
    streamEvents: (input, options) => (isReady() ? streamEvents : streamEventsWhenLoaded)(input, options),
    resolveToolMarkers: guarded(wasm.resolveToolMarkers),
    parseLlmResponse: guarded(wasm.parseLlmResponse),
  };
}
