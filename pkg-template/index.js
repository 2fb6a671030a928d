// chatstream: the package entry.
//
// The wasm module (./chatstream.js, made by wasm-bindgen) does the work: framing, dialects,
// cleaning, the chat state machine, reading response bodies. This file adds what is JS by
// nature: immutable snapshots for `subscribe` / `getSnapshot` (React's useSyncExternalStore
// contract), built from the patches the state machine emits, so one update costs the same
// however long the message is.
import load, {
  initSync as loadSync,
  ChatStream as WasmChatStream,
  SessionDriver,
  streamEvents as wasmStreamEvents,
  resolveToolMarkers as wasmResolveToolMarkers,
  parseLlmResponse as wasmParseLlmResponse,
} from "./chatstream.js";

// Before the module is loaded, the generated bindings fail deep inside with "reading
// 'sessiondriver_new'"; every export checks first, so the error says what to do instead.
let ready = false;
function loaded() {
  if (!ready) throw new Error("chatstream: call `await init()` first (the WebAssembly module is not loaded yet)");
}
// wasm-bindgen takes `{ module_or_path }` / `{ module }` and warns on anything else; both forms are fine here.
const isOptions = (input) => Object.getPrototypeOf(input) === Object.prototype;

/** Loads the module. Idempotent: concurrent calls share one load; after a failed load the next call tries again. */
export default async function init(input) {
  await load(input === undefined || isOptions(input) ? input : { module_or_path: input });
  ready = true;
}

/** Loads the module from bytes or a compiled module, synchronously. */
export function initSync(input) {
  loadSync(isOptions(input) ? input : { module: input });
  ready = true;
}

/** Whether the module is loaded (always, in Node). */
export const isReady = () => ready;

export class ChatStream extends WasmChatStream {
  constructor(options) {
    loaded();
    super(options);
  }
}

const guarded = (call) => (...args) => {
  loaded();
  return call(...args);
};
export const streamEvents = guarded(wasmStreamEvents);
export const resolveToolMarkers = guarded(wasmResolveToolMarkers);
export const parseLlmResponse = guarded(wasmParseLlmResponse);

export class ChatSession {
  #driver;
  #snapshot;
  #listeners = new Set();
  #coalesce;
  #frame = null; // the animation frame of the current coalescing window
  #dirty = false;

  /**
   * @param {import("./index.js").ChatSessionOptions} options
   */
  constructor(options) {
    loaded();
    // Anything but an object goes to the driver as it is, which refuses it with a TypeError.
    const isObject = typeof options === "object" && options !== null;
    const { coalesce = false, ...coreOptions } = isObject ? options : {};
    this.#driver = new SessionDriver(isObject ? coreOptions : options);
    this.#coalesce = coalesce === "frame" && typeof requestAnimationFrame === "function";
    this.#snapshot = Object.freeze(this.#driver.state());
    this.#driver.setListener((patches) => this.#apply(patches));
  }

  /** Sends a message; returns the turn's events (iterating them is optional). */
  send(message, context) {
    return this.#driver.send(String(message ?? ""), context ?? null);
  }

  /** Stops the turn in flight. Returns a CONFLICT error event when nothing is in flight. */
  cancel() {
    return this.#driver.cancel();
  }

  /** Subscribes to state changes; returns the unsubscribe function. */
  subscribe = (listener) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** The current state: the same object until something changes, never mutated. */
  getSnapshot = () => this.#snapshot;

  /** The conversation as JSON text, to save. */
  saveMessages() {
    return this.#driver.saveMessages();
  }

  /** Replaces the conversation with saved JSON text (not while a message is being answered). */
  loadMessages(json) {
    this.#driver.loadMessages(typeof json === "string" ? json : JSON.stringify(json));
  }

  #apply(patches) {
    const next = { ...this.#snapshot };
    const copied = new Set(); // arrays already copied for this batch
    const own = (key) => {
      if (!copied.has(key)) {
        next[key] = [...next[key]];
        copied.add(key);
      }
      return next[key];
    };
    for (const p of patches) {
      switch (p.op) {
        case "set":
          next[p.key] = p.value;
          copied.delete(p.key);
          break;
        case "append":
          next[p.key] += p.text;
          break;
        case "pushMessage":
          own("messages").push(p.value);
          break;
        case "setLastMessage": {
          const messages = own("messages");
          messages[messages.length - 1] = p.value;
          break;
        }
        case "pushSegment":
          own("streamingSegments").push(p.value);
          break;
        case "appendText": {
          next.streamingText += p.text;
          const segments = own("streamingSegments");
          const last = segments[segments.length - 1];
          segments[segments.length - 1] = { ...last, text: last.text + p.text };
          break;
        }
        case "setSegment":
          own("streamingSegments")[p.at] = p.value;
          break;
        case "pushToolUpdate": {
          const progress = next.activeToolProgress;
          next.activeToolProgress = { ...progress, updates: [...progress.updates, p.value] };
          break;
        }
        case "reset":
          Object.assign(next, p.value);
          copied.clear();
          break;
      }
    }
    this.#snapshot = Object.freeze(next);
    this.#changed();
  }

  #changed() {
    if (!this.#coalesce) return this.#notify();
    if (this.#frame !== null) {
      this.#dirty = true;
      return;
    }
    // The first update of a window goes out at once; the rest wait for the next frame.
    this.#notify();
    const tick = () => {
      if (this.#dirty) {
        this.#dirty = false;
        this.#notify();
        this.#frame = requestAnimationFrame(tick);
      } else {
        this.#frame = null;
      }
    };
    this.#frame = requestAnimationFrame(tick);
  }

  #notify() {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        // A subscriber's exception must not break the stream; report it to the host untouched.
        if (typeof reportError === "function") reportError(error);
        else setTimeout(() => { throw error; });
      }
    }
  }
}
