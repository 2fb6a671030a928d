// The AI SDK backend mode: a chat with a backend written for the AI SDK's `useChat` (a route that
// answers with `streamText(...).toUIMessageStreamResponse()`), left as it is. Requests carry the
// AI SDK's body (`id`, `messages` as UI messages, `trigger`, `messageId`, the app's `body`), answers
// are read as its UI message stream, and the messages are its UI messages, every part kept.
//
// The module's AiSdkChat keeps the messages and reads the stream; this class does the I/O (the
// requests, the bodies, stop), runs the app's callbacks, closes the tool loop (`sendAutomaticallyWhen`)
// and keeps immutable snapshots for `subscribe` / `getSnapshot` (React's useSyncExternalStore
// contract). Its names are the AI SDK's (`useChat`, `Chat`), so that a useChat app moves over by
// renaming what it imports.
import { ChatstreamError, aResponse, errorPageText, errorParts, readBody, refusedWithCode, report, settle } from "./io.js";
import { loadFailure } from "./loading.js";
import { functionOption, stringOption } from "./session-options.js";

// The options this mode takes, under the AI SDK's names (its transport's at the top level). The
// callbacks and the request options are read on each use; the React hook passes them on when they change.
export const CALLBACKS = ["onToolCall", "onFinish", "onError", "onData", "sendAutomaticallyWhen"];
export const REQUEST_OPTIONS = ["api", "headers", "body", "credentials", "fetch"];
const OPTIONS = new Set(["backend", "id", "messages", "generateId", ...CALLBACKS, ...REQUEST_OPTIONS]);

// useChat options this mode has no use for, with what to do instead: said when one is given.
const INSTEAD = {
  transport: "give its api, headers, body, credentials and fetch as options of their own",
  chat: "give the options of the chat to this one",
  throttle: "leave it out: each update is one snapshot, and React batches renders",
  experimental_throttle: "leave it out: each update is one snapshot, and React batches renders",
};

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A 16-character random id, as the AI SDK's default `generateId` makes (not for secrets). */
export function generateId() {
  let id = "";
  for (let i = 0; i < 16; i++) id += ALPHABET[(Math.random() * ALPHABET.length) | 0];
  return id;
}

/** The file parts of `files`: file parts as they are, or a browser's FileList read as data URLs. */
async function fileParts(files) {
  if (files == null) return [];
  if (Array.isArray(files)) return files;
  if (typeof FileList === "undefined" || !(files instanceof FileList)) {
    throw new TypeError("sendMessage: files must be an array of file parts or a FileList");
  }
  const read = (file) =>
    new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(file);
    });
  return Promise.all([...files].map(async (file) => ({ type: "file", mediaType: file.type, filename: file.name, url: await read(file) })));
}

/** Headers as a plain object with lower-case names (a Headers, pairs, or an object; empty values left out). */
function headerObject(headers) {
  const entries = headers == null ? [] : headers instanceof Headers ? [...headers] : Array.isArray(headers) ? headers : Object.entries(headers);
  return Object.fromEntries(entries.filter(([, value]) => value != null).map(([name, value]) => [name.toLowerCase(), value]));
}

/** An option that may be a value, a promise, or a function giving either (the AI SDK's `Resolvable`). */
const resolved = async (option) => (typeof option === "function" ? option() : option);

/**
 * The AI SDK backend mode's chat over chatstream/ai-sdk's module: `module.isReady()` says whether it
 * is loaded, `module.load()` loads it, and `module.bindings()` are its bindings once it is.
 */
export function makeAiSdkChat(module) {
  return class AiSdkChat {
    #core = null; // made once the module has loaded
    #snapshot;
    #listeners = new Set();
    #request = { api: "/api/chat", headers: undefined, body: undefined, credentials: undefined, fetch: undefined };
    #callbacks = {};
    #generateId = generateId;
    #response = null; // the request in flight: see #send
    #stops = 0; // stop() calls so far: an automatic request decided before one is not sent
    #beforeUnsent = null; // while a message shown at once waits for the module: the messages before it, as JSON text written when it was sent (the module starts from them)
    #disposed = false;

    constructor(options = {}) {
      if (typeof options !== "object" || options === null) throw new TypeError("AiSdkChat: options must be an object");
      for (const name of Object.keys(options)) {
        if (!OPTIONS.has(name)) {
          const instead = INSTEAD[name] ? `: ${INSTEAD[name]}` : "";
          throw new TypeError(`AiSdkChat options: "${name}" is not an option of the AI SDK backend mode${instead}`);
        }
      }
      if (options.generateId !== undefined) this.#generateId = fn(options.generateId, "generateId");
      const id = options.id === undefined ? this.#generateId() : string(options.id, "id");
      this.setOptions(options);
      this.#snapshot = Object.freeze({ id, messages: options.messages ?? [], status: "ready", error: undefined });
      // Made now when the module is loaded (a message that is not a UI message throws here, a
      // TypeError naming it), else once it is: then such a message shows as the chat's error.
      if (module.isReady()) this.#makeCore();
      else this.#live().catch((error) => this.#show({ status: "error", error }));
    }

    /** The chat's id, sent as `id` with each request. */
    get id() {
      return this.#snapshot.id;
    }

    get messages() {
      return this.#snapshot.messages;
    }

    /** "submitted" (the request is out), "streaming" (the answer is coming), "ready" or "error". */
    get status() {
      return this.#snapshot.status;
    }

    get error() {
      return this.#snapshot.error;
    }

    /** Subscribes to state changes; returns the unsubscribe function. */
    subscribe = (listener) => {
      this.#listeners.add(listener);
      return () => this.#listeners.delete(listener);
    };

    /** `{ id, messages, status, error }`: the same object until something changes, never mutated. */
    getSnapshot = () => this.#snapshot;

    /**
     * Sends a user message (`{ text, files?, metadata? }`, or a UI message's `{ parts, metadata? }`)
     * and reads the answer; resolves once it is over, and the answers sent automatically after it
     * (`sendAutomaticallyWhen`) too. With `messageId`, that user message is replaced and what
     * followed it dropped. With no message, sends the conversation as it is (tool outputs and
     * approval answers added since), and the answer continues the last one.
     */
    async sendMessage(message, options) {
      if (message == null) return this.#send((core, body, id) => core.continueTurn(body, id), options);
      const stops = this.#stops;
      const user = await this.#userMessage(message);
      if (stops !== this.#stops) return; // stopped before it went out: not sent, as in useChat
      // Written once, now, as useChat writes it when it is sent: the request sent early and the
      // module's are built from this text, whatever the app does with its objects meanwhile.
      const json = JSON.stringify(user);
      return this.#send((core, body, id) => core.sendMessage(json, body, id), options, user, json);
    }

    /**
     * Asks again: for the answer `messageId` (it and what follows are replaced), the answer after the
     * user message `messageId`, or the last answer when none is given.
     */
    async regenerate({ messageId, ...options } = {}) {
      return this.#send((core, body, id) => core.regenerate(messageId, body, id), options);
    }

    /** Stops the answer being read (what came so far stays); resolves once it has wound down. */
    async stop() {
      this.#stops++;
      const response = this.#response;
      response?.controller.abort();
      await response?.done;
    }

    /**
     * The output of a tool call the page runs (or its `errorText`, with `state: "output-error"`).
     * When `sendAutomaticallyWhen` then says so, the conversation is sent again.
     */
    async addToolOutput({ toolCallId, output, state, errorText, options } = {}) {
      const core = this.#core ?? (await this.#live());
      const failed = state === "output-error";
      const json = failed || output === undefined ? undefined : JSON.stringify(output);
      this.#apply(refusedWithCode(() => core.addToolOutput(toolCallId, json, failed ? String(errorText ?? "") : undefined)));
      await this.#answered(options);
    }

    /** The user's answer to a tool call's approval request (`approval.id`). Sent as addToolOutput's are. */
    async addToolApprovalResponse({ id, approved, reason, options } = {}) {
      const core = this.#core ?? (await this.#live());
      this.#apply(refusedWithCode(() => core.addToolApprovalResponse(id, approved, reason)));
      await this.#answered(options);
    }

    /**
     * Replaces the messages (an array of UI messages, or a function of the current ones). A message
     * that is not a UI message is a TypeError naming it; while an answer is read, a ChatstreamError
     * (CONFLICT).
     */
    setMessages(messages) {
      if (this.#disposed) throw new Error("AiSdkChat: the chat was disposed");
      if (this.#response !== null) throw new ChatstreamError("CONFLICT", "setMessages: an answer is being read; stop it first");
      const next = typeof messages === "function" ? messages(this.#snapshot.messages) : messages;
      if (this.#core === null) return this.#show({ messages: next }); // checked once the module is in
      refusedWithCode(() => this.#core.setMessages(JSON.stringify(next)));
      this.#show({ messages: JSON.parse(this.#core.messages()) });
    }

    /** Clears the error shown; the status goes back to "ready". */
    clearError() {
      if (this.#snapshot.status === "error") this.#show({ status: "ready", error: undefined });
    }

    /** Changes the request options (`api`, `headers`, `body`, `credentials`, `fetch`) and the callbacks, from the next use on. */
    setOptions(options) {
      if (typeof options !== "object" || options === null) throw new TypeError("AiSdkChat.setOptions: options must be an object");
      const given = (name) => options[name] !== undefined;
      if (given("api")) this.#request.api = string(options.api, "api");
      for (const name of ["headers", "body", "credentials"]) if (name in options) this.#request[name] = options[name];
      if ("fetch" in options) this.#request.fetch = options.fetch == null ? undefined : fn(options.fetch, "fetch");
      for (const name of CALLBACKS) {
        if (name in options) this.#callbacks[name] = options[name] == null ? undefined : fn(options[name], name);
      }
    }

    /** Stops the answer in flight and frees the chat's memory; the chat is unusable after. */
    dispose() {
      if (this.#disposed) return;
      this.#disposed = true;
      this.#listeners.clear();
      const response = this.#response;
      if (response === null) return this.#free();
      response.controller.abort();
      response.done.then(() => this.#free());
    }

    #free() {
      this.#core?.free();
      this.#core = null;
    }

    #makeCore() {
      const { id, messages } = this.#snapshot;
      this.#core = new (module.bindings().AiSdkChat)(id, this.#beforeUnsent ?? JSON.stringify(messages));
      if (this.#beforeUnsent === null) this.#show({ messages: JSON.parse(this.#core.messages()) });
    }

    /** The module's chat, made once the module has loaded (or its refusal of the messages, thrown). */
    async #live() {
      if (this.#disposed) throw new Error("AiSdkChat: the chat was disposed");
      if (this.#core === null) {
        await load(module);
        if (this.#disposed) throw new Error("AiSdkChat: the chat was disposed");
        if (this.#core === null) this.#makeCore();
      }
      return this.#core;
    }

    /** The user message `message` describes, as the AI SDK builds it. */
    async #userMessage(message) {
      if (typeof message !== "object") throw new TypeError("sendMessage: the message must be an object ({ text } or { parts })");
      const { messageId, text, files, metadata, ...given } = message;
      const parts = "text" in message || "files" in message ? [...(await fileParts(files)), ...(text == null ? [] : [{ type: "text", text }])] : given.parts;
      if (messageId != null && !this.#snapshot.messages.some((m) => m.id === messageId && m.role === "user")) {
        const refused = new TypeError(`sendMessage: messageId "${messageId}" is not the id of a user message of this chat`);
        throw Object.assign(refused, { code: "VALIDATION_ERROR" }); // as the module refuses an unknown id
      }
      return { ...given, parts, id: messageId ?? given.id ?? this.#generateId(), role: given.role ?? "user", metadata };
    }

    /**
     * One request and its answer: `start` has the module's chat build the request body (adding the
     * message `sent`, or dropping what a regenerate replaces) from the app's body, with the id of an
     * answer whose stream names none (the app's `generateId`, as useChat's); the answer is read into
     * the messages. A message `sent` (`sentJson` its JSON text) while the module downloads may go out
     * before it is in (firstRequestBody). Resolves once it is over and the automatic requests after it are too.
     */
    async #send(start, options = {}, sent = undefined, sentJson = undefined) {
      if (this.#disposed) throw new Error("AiSdkChat: the chat was disposed");
      if (this.#response !== null) throw new ChatstreamError("CONFLICT", "An answer is being read; stop it first");
      const stops = this.#stops;
      const { messages, status, error } = this.#snapshot;
      const waits = this.#core === null && sent !== undefined;
      // The messages before the one sent, written now with it: the module starts from this text.
      const before = waits ? JSON.stringify(messages) : null;
      // `message`: the answer's message so far; `error`, `finish`: what the module said of its end;
      // `callbacks`: what the app's onToolCall returned (its end is waited for before the answer's).
      const response = { controller: new AbortController(), done: null, message: null, error: null, finish: null, callbacks: [] };
      let ended;
      response.done = new Promise((resolve) => (ended = resolve));
      this.#response = response;
      // "submitted" at once, as in useChat (what waits for an answer sees it at once), and the message
      // sent with it while the module is not in yet (in place of the one it edits, as useChat shows it).
      if (waits) {
        this.#beforeUnsent = before;
        const edited = messages.findIndex((m) => m.id === sent.id);
        this.#show({ messages: [...(edited < 0 ? messages : messages.slice(0, edited)), sent], status: "submitted", error: undefined });
      } else this.#show({ status: "submitted", error: undefined });
      let finish;
      try {
        let core, request, headers, credentials, early;
        try {
          // The app's body, headers and credentials: undefined once the send is stopped, which
          // does not wait for them (a stopped send sends nothing).
          const stopped = aborted(response.controller.signal).then(() => undefined);
          const untilStopped = (option) => Promise.race([resolved(option), stopped]);
          const body = await untilStopped(this.#request.body);
          headers = { ...headerObject(await untilStopped(this.#request.headers)), ...headerObject(options.headers) };
          credentials = await untilStopped(this.#request.credentials);
          const json = JSON.stringify({ ...body, ...options.body });
          // A message sent while the module downloads goes out at once when its body is sure to be
          // the one the module builds: the server's answer waits in the response until the module
          // is in, which then reads it as the answer to its own request (the bodies compared).
          // It has an AbortController of its own (aborted with the send's), to be given up alone.
          const wire = waits && this.#core === null ? firstRequestBody(json, this.#snapshot.id, before, sentJson) : null;
          if (wire !== null) {
            const controller = new AbortController();
            const { signal } = response.controller;
            if (signal.aborted) controller.abort();
            else signal.addEventListener("abort", () => controller.abort(), { once: true });
            early = { body: wire, controller, got: this.#post(wire, headers, credentials, controller.signal) };
          }
          core = this.#core ?? (await this.#loaded(response));
          if (core === null) return; // stopped, or the module did not load: shown
          request = refusedWithCode(() => start(core, json, this.#generateId()));
        } catch (refused) {
          // Nothing was sent, or what was sent early is given up: the chat is as it was.
          response.controller.abort();
          this.#beforeUnsent = null;
          this.#show(waits ? { messages, status, error } : { status, error });
          throw refused;
        }
        this.#beforeUnsent = null;
        this.#sent(JSON.parse(request).messages, sent?.id);
        // The bodies are written from the same text, so they differ only if the JS and the module
        // write a message differently: then the module's request is the one sent.
        const got = early?.body === request ? early.got : (giveUp(early), this.#post(request, headers, credentials, response.controller.signal));
        finish = await this.#read(core, response, got);
      } finally {
        if (this.#response === response) this.#response = null;
        ended();
      }
      this.#finished(response, finish);
      const over = finish.isAbort || finish.isError || finish.finishReason === "interrupted";
      if (!over && stops === this.#stops && (await this.#shouldSend())) await this.#send((c, body, id) => c.continueTurn(body, id), options);
    }

    /**
     * The module's chat, for a send that waits for the module; null when the send was stopped
     * meanwhile (at once: not after the download) or the module did not load. Either way the message
     * shown stays, as useChat keeps one whose request was stopped or failed, and the module has it
     * once it is in; a failed load is the chat's error, and the next use loads it again.
     */
    async #loaded(response) {
      const { signal } = response.controller;
      let failed;
      const loaded = await Promise.race([load(module).then(() => true, (error) => ((failed = error), false)), aborted(signal).then(() => false)]);
      if (loaded && !signal.aborted) return this.#core ?? (this.#makeCore(), this.#core);
      this.#beforeUnsent = null;
      if (signal.aborted || this.#disposed) this.#show({ status: "ready" });
      else {
        this.#show({ status: "error", error: failed });
        this.#call("onError", failed);
      }
      response.controller.abort(); // a request sent early is given up
      return null;
    }

    /**
     * The request went out with `messages`: a message was added (or the one `sent` replaced, with what
     * followed it) or answers were dropped. The others are as they were: they keep their objects.
     */
    #sent(messages, sent) {
      const before = this.#snapshot.messages;
      const kept = messages.map((m, i) => (before[i]?.id === m.id && m.id !== sent ? before[i] : m));
      this.#show({ messages: kept });
    }

    /** POSTs `body` (JSON text): the response, or how it failed, as `settle` gives it. */
    #post(body, headers, credentials, signal) {
      const fetch = this.#request.fetch ?? globalThis.fetch;
      const init = { method: "POST", headers: { "content-type": "application/json", ...headers }, body, credentials, signal };
      return settle(signal.aborted ? null : (async () => aResponse(await fetch.call(globalThis, this.#request.api, init)))(), 0, signal);
    }

    /** Reads the answer `posted` (what #post gave) into the messages; resolves with the module's `finish` for it. */
    async #read(core, response, posted) {
      const { signal } = response.controller;
      const step = (update) => this.#apply(update, response);
      const got = await posted;
      if (got.cancelled) step(core.cancel());
      else if (got.failed) step(core.fail("NETWORK_ERROR", errorParts(got.failed)[1] || "The request failed"));
      else if (!got.value.ok) {
        const text = await errorPageText(got.value);
        if (signal.aborted) step(core.cancel());
        else step(core.fail(module.bindings().httpError(got.value.status, text).code, text || "Failed to fetch the chat response."));
      } else if (got.value.body == null) {
        step(core.fail("SERVICE_UNAVAILABLE", "The response body is empty."));
      } else {
        // Read to the body's end, as useChat does, unless the stream reported an error: it stops there.
        const reading = new AbortController();
        const stopReading = () => reading.abort();
        signal.addEventListener("abort", stopReading, { once: true });
        const end = await readBody(
          got.value.body,
          (chunk) => {
            step(core.push(chunk));
            if (response.finish?.isError) stopReading();
          },
          { idleMs: 0, signal: reading.signal },
        );
        signal.removeEventListener("abort", stopReading);
        if (response.finish === null) {
          if (end.cancelled) step(core.cancel());
          else if (end.ended) step(core.finish());
          else step(core.fail("NETWORK_ERROR", errorParts(end.failed)[1] || "The connection was lost"));
        }
      }
      // The app's onToolCall handlers run to their end before the answer is over, as in useChat.
      await Promise.all(response.callbacks);
      return response.finish;
    }

    /**
     * An update of the module's chat: what it says of the `response` being read noted, the message it
     * changed shown (an answer that ended before it showed has no place), the callbacks it calls for.
     */
    #apply(update, response = null) {
      let message = update.message === undefined ? undefined : JSON.parse(update.message);
      if (update.appendText !== undefined) message = appended(this.#snapshot.messages[update.index], update.appendPart, update.appendText);
      if (response !== null) {
        if (message !== undefined) response.message = message;
        if (update.error !== undefined) response.error ??= update.error;
        if (update.finish !== undefined) response.finish ??= update.finish;
      }
      if (this.#disposed) return;
      if (update.index !== undefined) {
        const messages = [...this.#snapshot.messages];
        messages[update.index] = message;
        const streaming = response !== null && this.#snapshot.status === "submitted" && message.parts.length > 0;
        this.#show(streaming ? { messages, status: "streaming" } : { messages });
      }
      if (update.data !== undefined) for (const part of JSON.parse(update.data)) this.#call("onData", part);
      if (update.toolCalls !== undefined) {
        for (const toolCall of JSON.parse(update.toolCalls)) {
          const returned = this.#call("onToolCall", { toolCall });
          response?.callbacks.push(Promise.resolve(returned).catch(report));
        }
      }
    }

    /** The answer is over: the status says how, and onError and onFinish hear of it. */
    #finished(response, { finishReason, isAbort, isDisconnect, isError }) {
      if (this.#disposed) return;
      const error = isError ? new ChatstreamError(response.error?.code ?? "SERVICE_UNAVAILABLE", response.error?.message ?? "The answer failed") : undefined;
      if (error) this.#call("onError", error);
      this.#show({ status: isError ? "error" : "ready", error });
      this.#call("onFinish", { message: response.message, messages: this.#snapshot.messages, isAbort, isDisconnect, isError, finishReason });
    }

    /** A tool output or an approval answer was added: sent on when no answer is being read and the app says so. */
    async #answered(options) {
      if (this.#response !== null || this.#disposed) return; // the end of the answer being read decides
      const stops = this.#stops;
      if (!(await this.#shouldSend()) || stops !== this.#stops) return;
      // Not waited for, as in useChat: a caller inside onToolCall would wait for itself.
      this.#send((core, body, id) => core.continueTurn(body, id), options).catch(report);
    }

    /** Whether the app's `sendAutomaticallyWhen` says to send the conversation again now. */
    async #shouldSend() {
      const when = this.#callbacks.sendAutomaticallyWhen;
      if (when === undefined || this.#disposed) return false;
      try {
        return Boolean(await when({ messages: this.#snapshot.messages })) && this.#response === null;
      } catch (error) {
        report(error);
        return false;
      }
    }

    /** Calls the app's callback; what it throws goes to the host, never into the chat. */
    #call(name, value) {
      const callback = this.#callbacks[name];
      if (callback === undefined || this.#disposed) return undefined;
      try {
        return callback(value);
      } catch (error) {
        report(error);
        return undefined;
      }
    }

    #show(changes) {
      this.#snapshot = Object.freeze({ ...this.#snapshot, ...changes });
      for (const listener of [...this.#listeners]) {
        try {
          listener();
        } catch (error) {
          report(error);
        }
      }
    }
  };
}

/**
 * The body the module's chat builds to send the user message `userJson` after the messages
 * `messagesJson` (JSON text, as JSON.stringify wrote them) with the app's body (`json`, JSON text of
 * an object), as `DefaultChatTransport` builds it: `{ ...body, id, messages, trigger, messageId }`,
 * keys and values as the module writes them (it writes back what JSON.stringify wrote, in order).
 * Null where the module may refuse or write another: a message that is not a UI message with the
 * fields the module checks (a role, an id, parts of a type it knows with their string fields) or
 * with a part not checked here, a lone surrogate in a string (it reads U+FFFD), nesting deeper than
 * it reads, or text that is not JSON.
 */
export function firstRequestBody(json, chatId, messagesJson, userJson) {
  let history, sent;
  try {
    [history, sent] = [JSON.parse(messagesJson), JSON.parse(userJson)];
  } catch {
    return null;
  }
  if (!Array.isArray(history) || !history.every(isUiMessage) || !isUiMessage(sent)) return null;
  const edited = history.findIndex((m) => m.id === sent.id); // replaced with what follows it
  const messageId = edited < 0 ? undefined : sent.id;
  const body = { ...JSON.parse(json), id: chatId, messages: [...history.slice(0, edited < 0 ? undefined : edited), sent], trigger: "submit-message", messageId };
  if (deeperThan(body, MAX_DEPTH)) return null;
  const text = JSON.stringify(body);
  return /\\ud[89a-f]/.test(text) ? null : text;
}

// A body with an object or array at this level is left to the module, which reads 128 levels in a
// value: deeperThan counts the body itself as level 0 and its fields (`messages`, the app's) as level 1.
const MAX_DEPTH = 128;
const deeperThan = (value, levels) => typeof value === "object" && value !== null && (levels === 0 || Object.values(value).some((v) => deeperThan(v, levels - 1)));
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
// The parts a message sent early may hold, with the string fields the module checks each for (and
// `data-*` parts); a message with another part (a tool call, a source) waits for the module.
const PART_STRINGS = { text: ["text"], reasoning: ["text"], file: ["mediaType", "url"], "step-start": [] };

/** Whether the module takes `message` (parsed JSON) as a UI message, its parts all of those above. */
function isUiMessage(message) {
  if (!isObject(message) || typeof message.id !== "string" || !["system", "user", "assistant"].includes(message.role)) return false;
  const { parts } = message;
  return Array.isArray(parts) && (parts.length > 0 || message.role === "assistant") && parts.every(isPart);
}

function isPart(part) {
  if (!isObject(part) || typeof part.type !== "string") return false;
  const strings = Object.hasOwn(PART_STRINGS, part.type) ? PART_STRINGS[part.type] : part.type.startsWith("data-") ? [] : null;
  return strings !== null && strings.every((key) => typeof part[key] === "string");
}

/**
 * A request sent early and not read after all (none when undefined): aborted while it waits for its
 * response, its body cancelled once it has one; either closes its connection.
 */
function giveUp(early) {
  if (early === undefined) return;
  early.controller.abort();
  early.got.then((got) => got.value?.body?.cancel()).catch(() => {});
}

/** Resolves once `signal` is aborted (at once if it is). */
const aborted = (signal) => new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", resolve, { once: true })));

/** The module loaded; its failure a ChatstreamError (NETWORK_ERROR), as a ChatSession says its own module's. */
async function load(module) {
  try {
    await module.load();
  } catch (error) {
    const { code, message } = loadFailure(error);
    throw new ChatstreamError(code, message);
  }
}

/**
 * `message` with `text` added to the text of its part `at`: new objects for what changed, the rest
 * shared (a snapshot shown is never changed).
 */
function appended(message, at, text) {
  const parts = [...message.parts];
  parts[at] = { ...parts[at], text: parts[at].text + text };
  return { ...message, parts };
}

function string(value, name) {
  return stringOption("AiSdkChat", value, name);
}

function fn(value, name) {
  return functionOption("AiSdkChat", value, name);
}
