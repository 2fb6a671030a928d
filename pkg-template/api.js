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
  if (buffer.byteLength > 0) return false; // a detached buffer reads as empty
  if (typeof buffer.detached === "boolean") return buffer.detached;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * Text this short is decoded by `ascii` when it is ASCII, as a live push's text mostly is (a word or
 * a few): TextDecoder's cost per call, a few hundred ns in Chromium, was more than such a push's
 * decoding in the module. Other text stays with TextDecoder: JS decoders of UTF-8 (code units then
 * `String.fromCharCode`, whole or eight at a time) took 0.1 to 0.9 of its time in Chromium on texts
 * of up to 64 bytes that are not ASCII, but more instructions in Node (callgrind: 3,000 to 3,700 a
 * text against 2,700), and more time in Chromium on ollama's 211-byte line text with one U+2019.
 */
const SHORT = 64;

/** The session's patches that cross as a text item, by their op (`Op` in src/wasm/mod.rs, whose
 * hand-over JS has the same names from op 6 on). */
const TEXT_PATCHES = [undefined, undefined, "appendText", undefined, undefined, undefined, "appendThinking", "startThinking", "startTextPart"];

/**
 * `bytes[at..end]` as a string, eight at a time, then the rest (up to seven bytes) in one call;
 * "" when a byte is not ASCII (or there is none). The rest a byte a call, each call's string added
 * to the text, cost a third more on a live push's words (callgrind on Node, texts of 1 to 9 bytes:
 * 601 instructions a text, 465 so).
 */
function ascii(bytes, at, end) {
  let text = "";
  let i = at;
  let high = 0;
  for (; i + 8 <= end; i += 8) {
    const a = bytes[i], b = bytes[i + 1], c = bytes[i + 2], d = bytes[i + 3];
    const e = bytes[i + 4], f = bytes[i + 5], g = bytes[i + 6], h = bytes[i + 7];
    high |= a | b | c | d | e | f | g | h;
    text += String.fromCharCode(a, b, c, d, e, f, g, h);
  }
  // The rest, 0 to 7 bytes, each read once.
  const n = end - i;
  if (n === 0) return high < 0x80 ? text : "";
  const a = bytes[i];
  if (n === 1) return (high | a) < 0x80 ? text + String.fromCharCode(a) : "";
  const b = bytes[i + 1];
  if (n === 2) return (high | a | b) < 0x80 ? text + String.fromCharCode(a, b) : "";
  const c = bytes[i + 2];
  if (n === 3) return (high | a | b | c) < 0x80 ? text + String.fromCharCode(a, b, c) : "";
  const d = bytes[i + 3];
  if (n === 4) return (high | a | b | c | d) < 0x80 ? text + String.fromCharCode(a, b, c, d) : "";
  const e = bytes[i + 4];
  if (n === 5) return (high | a | b | c | d | e) < 0x80 ? text + String.fromCharCode(a, b, c, d, e) : "";
  const f = bytes[i + 5];
  if (n === 6) return (high | a | b | c | d | e | f) < 0x80 ? text + String.fromCharCode(a, b, c, d, e, f) : "";
  const g = bytes[i + 6];
  return (high | a | b | c | d | e | f | g) < 0x80 ? text + String.fromCharCode(a, b, c, d, e, f, g) : "";
}

/** `AiSdkChat` in the entries that do not offer the AI SDK backend mode (the one-dialect ones): says where it is. */
class NoAiSdkChat {
  constructor() {
    throw new TypeError('This entry of chatstream has no AI SDK backend mode: import from "chatstream/ai-sdk", "chatstream" or "chatstream/streaming"');
  }
}

/**
 * The API over `wasm`, the namespace of a wasm-bindgen module (`import * as wasm from "./chatstream.js"`);
 * `AiSdkChat` (ai-sdk-on-demand.js) from the entries that offer the AI SDK backend mode.
 */
export function makeApi(wasm, { AiSdkChat = NoAiSdkChat } = {}) {
  const { init, initSync, isReady } = makeLoader(wasm);
  // Before the module is loaded, the generated bindings fail deep inside ("reading
  // 'chatstream_new'"); every export checks first, so the error says what to do instead.
  const loaded = () => {
    if (!isReady()) throw new Error("chatstream: call `await init()` first (the WebAssembly module is not loaded yet)");
  };

  // The hand-over of `ChatStream`'s events and of a session's push, read from the module's memory
  // (src/wasm/mod.rs, `HandOver::into_memory`): fetched on the first call that needs it.
  let parts = null;
  const handOverParts = () => {
    const [handOver, partial, memory, record, appendText, appendThinking] = wasm.__handOverParts();
    // toolInputDelta is among the partial_input functions (src/wasm/partial_input.rs), in a module
    // with model tool calls: the agent module has neither.
    const toolInputDelta = partial?.[3];
    parts = { handOver, partial, memory, record: record / 4, appendText, appendThinking, toolInputDelta, bytes: new Uint8Array(0), words: new Uint32Array(0) };
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
  // ignoreBOM: a hand-over's text may begin with U+FEFF (a text delta, a tool's id), which is the
  // stream's own character; a decoder that drops it would also shift every item after it.
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const encoder = new TextEncoder();

  /**
   * A push's chunk straight into the module's memory, for `owner`'s `__push` (a ChatStream's or a
   * session's): what a body reader hands over, a string or a Uint8Array, is copied into the buffer
   * `owner.__input` gave (`input`: its address and size) and pushed with one call. A push is made
   * once per network read, and wasm-bindgen's glue (allocating a copy, a call from the module back
   * into JS for the result) cost more than a small chunk's parsing. Returns the chunk's length in
   * bytes there, or -1 for anything else (other views, buffers, detached ones, what is not bytes
   * at all, an object already freed, a chunk that would take more than `limit` bytes), which the
   * module reads or refuses itself.
   */
  const copyIn = (owner, input, chunk, limit = Infinity) => {
    // `__wbg_ptr` is 0 once the object is freed: no writing into memory it no longer owns.
    if (owner.__wbg_ptr === 0) return -1;
    if (typeof chunk === "string") {
      if (chunk.length === 0) return 0;
      const room = chunk.length * 3; // UTF-8 takes at most 3 bytes per UTF-16 code unit
      if (room > limit) return -1;
      if (room > input.room) reserve(owner, input, room);
      const { bytes } = memoryViews();
      return encoder.encodeInto(chunk, bytes.subarray(input.at, input.at + room)).written;
    }
    // `isView`: a real typed array (not a proxy, nor an object that only inherits from one).
    if (!(ArrayBuffer.isView(chunk) && chunk instanceof Uint8Array)) return -1;
    if (chunk.byteLength === 0) return isDetached(chunk.buffer) ? -1 : 0;
    if (chunk.length > limit) return -1;
    if (chunk.length > input.room) reserve(owner, input, chunk.length);
    memoryViews().bytes.set(chunk, input.at);
    return chunk.length;
  };
  const reserve = (owner, input, size) => {
    input.at = owner.__input(size);
    input.room = size;
  };

  /**
   * What a call left in the module's memory: `words` is its layout's length. Its items as one
   * array, or with `many` as the arrays its lists make. `joined`: a ChatStream's `{ text }`, its
   * text deltas joined (see handOver in src/wasm/mod.rs). `textStep`: a session push's
   * `{ event, op, text }`, filled in and returned in place of the lists when the step is one text
   * event and the one patch that appends its text, as nearly every push of an answer is.
   */
  const fromMemory = (words, many, joined, textStep) => {
    const { bytes, words: memory, record, handOver, partial, toolInputDelta } = memoryViews();
    const at = memory[record];
    const end = at + memory[record + 1];
    const text = (end - at <= SHORT && ascii(bytes, at, end)) || decoder.decode(bytes.subarray(at, end));
    const layout = memory[record + 2] / 4;
    // A head of four zero words (no JSON, no mark, nothing set aside, nothing let go) and one
    // event, as most live pushes are: built here, without handOver's walk.
    if (words >= 6 && words <= 10 && (memory[layout] | memory[layout + 1] | memory[layout + 2] | memory[layout + 3]) === 0) {
      const first = memory[layout + 4];
      // A text or thinking delta (the op, the text's length), and nothing else.
      if (first <= 1) {
        const delta = { type: first === 0 ? "text_delta" : "thinking_delta", text };
        if (words === 6 && !many) {
          if (first === 0 && joined !== undefined) joined.text += text;
          return [delta];
        }
        // A session's push: then the end of the events, and the patch that appends the same text
        // (or starts a part with it): its op, and the length that means the same text (2^32 - 1).
        // Handed over in `textStep`: the three arrays and the patch the lists make were a tenth
        // of the allocations of such a push.
        if (words === 9 && textStep !== undefined && memory[layout + 6] === 5 && memory[layout + 8] === 4294967295) {
          const op = TEXT_PATCHES[memory[layout + 7]];
          if (op !== undefined) {
            textStep.event = delta;
            textStep.op = op;
            textStep.text = text;
            return textStep;
          }
        }
      }
      // A tool_input_delta (the op; its id's length, its delta's; its arguments' key, not 0, and
      // where the delta ends in them), as a streamed tool call's pushes are. Its text is the id
      // then the delta (a hand-over's first two text items are never "the same text").
      // Through handOver, such a push cost about a sixth more (callgrind on Node, run side by side:
      // anthropic/tool-stream.sse read live, 25,215 instructions an event, 21,423 so). A session's
      // ends its events' list (op 5) and has no patch.
      if (first === 4 && (many ? words === 10 && memory[layout + 9] === 5 : words === 9) && memory[layout + 7] !== 0) {
        const n = memory[layout + 5];
        const delta = toolInputDelta(text.slice(0, n), text.slice(n), memory[layout + 7], memory[layout + 8], partial);
        return many ? [[delta], []] : [delta];
      }
    }
    return handOver(text, memory, layout, layout + words, many, partial, joined);
  };
  // The keys of a session's appendText and appendThinking patches: [the text, then the lists].
  const appendKeys = () => {
    const { appendText, appendThinking } = parts ?? handOverParts();
    return { appendText, appendThinking };
  };
  const memory = { copyIn, fromMemory, appendKeys };

  // The input buffer in the module's memory that every ChatStream's `__input` gives (one for all:
  // a push copies its chunk in and pushes it in one go): its address and size. Chunks of at most
  // STREAM_INPUT bytes (a string: three bytes a UTF-16 unit, its worst case in UTF-8) go there,
  // so that a huge read is not held for the page's lifetime.
  const streamInput = { at: 0, room: 0 };
  const STREAM_INPUT = 64 * 1024;

  class ChatStream extends wasm.ChatStream {
    // The text deltas handed out so far, joined (a rope in V8: cheap to build). The module hands
    // `complete`'s text over as these when they are it (JOINED_TEXT in src/wasm/mod.rs): a long
    // answer is then not decoded a second time. An object of its own, not a string field copied
    // in and out of one shared by every stream: that cost a push 1.8-3.6% more on
    // openai/openai-text.sse read live (callgrind on Node, run side by side).
    #joined = { text: "" };

    constructor(options) {
      loaded();
      super(options);
    }

    // An empty chunk (a read that brought nothing) returns at once: it completes no event.
    push(chunk) {
      const length = copyIn(this, streamInput, chunk, STREAM_INPUT);
      if (length === 0) return [];
      return this.#events(length > 0 ? this.__push(length) : super.push(chunk));
    }

    // The module's `__end` (src/wasm/stream.rs): 0 finish, 1 cancel, 2 fail.
    finish() {
      return this.#events(this.__end(0));
    }

    cancel() {
      return this.#events(this.__end(1));
    }

    // The module reads `code` and `message` as JS values (anything not a string as ""): what is
    // not a string is refused here, where the mistake is the caller's.
    fail(code, message) {
      if (typeof code !== "string" || typeof message !== "string") {
        throw new TypeError("ChatStream.fail(code, message): the code and the message must be strings");
      }
      return this.#events(this.__end(2, code, message));
    }

    /** The events the module left in its memory: `words` is their layout's length (0 for none). */
    #events(words) {
      return words === 0 ? [] : fromMemory(words, false, this.#joined);
    }
  }

  const guarded = (call) => (...args) => {
    loaded();
    return call(...args);
  };
  const module = { isReady, load: init };
  const streamEvents = makeStreamEvents({ ...wasm, ChatStream });
  const streamEventsWhenLoaded = streamEventsAfterLoad(init, streamEvents);

  return {
    init,
    initSync,
    isReady,
    ChatStream,
    ChatSession: makeChatSession(wasm, { ...module, AiSdkChat, memory }),
    AiSdkChat,
    streamEvents: (input, options) => (isReady() ? streamEvents : streamEventsWhenLoaded)(input, options),
    resolveToolMarkers: guarded(wasm.resolveToolMarkers),
    parseLlmResponse: guarded(wasm.parseLlmResponse),
  };
}
