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

// Options the session reads from the app on each use (callbacks), not the driver's.
const CALLBACKS = ["onFinish", "onError", "onToolCall", "onData"];

export class ChatSession {
  #driver;
  #snapshot;
  #listeners = new Set();
  #callbacks = {};
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
    const { coalesce = false, ...rest } = isObject ? options : {};
    const driverOptions = { ...rest };
    for (const name of CALLBACKS) delete driverOptions[name];
    this.#driver = new SessionDriver(isObject ? driverOptions : options);
    this.#takeCallbacks(rest);
    this.#coalesce = coalesce === "frame" && typeof requestAnimationFrame === "function";
    this.#snapshot = Object.freeze(this.#driver.state());
    this.#driver.setListener((patches) => this.#apply(patches));
    this.#driver.setEventListener((event) => this.#onEvent(event));
  }

  /** Sends a message; returns the turn's events (iterating them is optional). */
  send(message, context) {
    return this.#driver.send(String(message ?? ""), context ?? null);
  }

  /**
   * Asks again for the last user message: its answer (or the error of a failed turn) is replaced.
   * With a turn in flight, the events are one CONFLICT error.
   */
  regenerate() {
    return this.#driver.regenerate();
  }

  /** Stops the turn in flight. Returns a CONFLICT error event when nothing is in flight. */
  cancel() {
    return this.#driver.cancel();
  }

  /** The same as `cancel()`, under the name React chat hooks use. */
  stop() {
    return this.cancel();
  }

  /** Runs the tool call waiting for approval (`pendingApproval`). False when no such call waits. */
  approve(toolUseId) {
    return this.#driver.approve(toolUseId);
  }

  /** Denies the tool call waiting for approval; the model gets the denial and `reason`. */
  deny(toolUseId, reason = "") {
    return this.#driver.deny(toolUseId, reason);
  }

  /** Clears the error shown. */
  clearError() {
    this.#driver.clearError();
  }

  /** Replaces the conversation (not while a message is being answered); messages without ids get them. */
  setMessages(messages) {
    this.#driver.setMessages(messages);
  }

  /**
   * Changes options between requests: `endpoint`, `headers`, `body`, `credentials`, `fetch` and
   * the callbacks. The others are fixed at construction.
   */
  setOptions(options) {
    if (typeof options !== "object" || options === null) throw new TypeError("ChatSession.setOptions: options must be an object");
    this.#driver.setRequestOptions(options);
    this.#takeCallbacks(options);
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

  /** Stops the turn in flight and frees the session's memory; the session is unusable after. */
  dispose() {
    if (this.#driver === null) return;
    if (this.#snapshot.isLoading) this.#driver.cancel();
    this.#driver.setListener(null);
    this.#driver.setEventListener(null);
    this.#driver.free();
    this.#driver = null;
    this.#listeners.clear();
    if (this.#frame !== null && typeof cancelAnimationFrame === "function") cancelAnimationFrame(this.#frame);
  }

  #takeCallbacks(options) {
    for (const name of CALLBACKS) {
      if (name in options) {
        const callback = options[name];
        if (callback != null && typeof callback !== "function") throw new TypeError(`ChatSession options: ${name} must be a function`);
        this.#callbacks[name] = callback ?? undefined;
      }
    }
  }

  /** Calls the app's callback; what it throws is reported to the host, never to the stream. */
  #call(name, value) {
    const callback = this.#callbacks[name];
    if (callback === undefined) return;
    try {
      callback(value);
    } catch (error) {
      report(error);
    }
  }

  #onEvent(event) {
    if (event.type === "tool_call") this.#call("onToolCall", event);
    else if (event.type === "data") this.#call("onData", event.data);
  }

  #apply(patches) {
    const before = this.#snapshot;
    const next = { ...before };
    const copied = new Set(); // arrays already copied for this batch
    const own = (key) => {
      if (!copied.has(key)) {
        next[key] = [...next[key]];
        copied.add(key);
      }
      return next[key];
    };
    const appendToLast = (key, text) => {
      const list = own(key);
      const last = list[list.length - 1];
      list[list.length - 1] = { ...last, text: last.text + text };
    };
    const finished = [];
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
          if (p.value.role === "assistant") finished.push(p.value);
          break;
        case "setLastMessage": {
          const messages = own("messages");
          messages[messages.length - 1] = p.value;
          break;
        }
        case "push":
          own(p.key).push(p.value);
          break;
        case "setAt":
          own(p.key)[p.at] = p.value;
          break;
        case "appendToLast":
          appendToLast(p.key, p.text);
          break;
        case "appendText":
          next.streamingText += p.text;
          appendToLast("streamingSegments", p.text);
          appendToLast("streamingParts", p.text);
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
    // The app hears of a finished answer or a new error once the state shows it.
    for (const message of finished) this.#call("onFinish", message);
    if (next.error !== null && next.error !== before.error) this.#call("onError", next.error);
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
        report(error);
      }
    }
  }
}

/** An app callback's exception must not break the stream: it goes to the host untouched. */
function report(error) {
  if (typeof reportError === "function") reportError(error);
  else setTimeout(() => { throw error; });
}
