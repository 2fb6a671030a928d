// ChatSession: a chat's state for the UI, and its turns. The module's ChatSession keeps the state
// and decides every step; this class does the I/O (the requests, the bodies, the timers, the tools
// the model calls) and keeps immutable snapshots for `subscribe` / `getSnapshot` (React's
// useSyncExternalStore contract), built from the patches each step returns, so one update costs
// the same however long the message is.
import { EventQueue, aResponse, errorPageText, errorParts, isThenable, refusedWithCode, report, settle } from "./io.js";
import { NOTHING_TO_CANCEL, STATE_BEFORE_LOAD, firstRequest, loadFailure } from "./loading.js";
import { RECONNECTING, keptStream, readResumable, resumeOptions } from "./resume.js";
import { CALLBACKS, REQUEST_OPTIONS, functionOption, stringOption } from "./session-options.js";

// The options that stay here, read on each use (see setOptions).
const JS_OPTIONS = new Set([...CALLBACKS, ...REQUEST_OPTIONS]);
// A step that produces nothing for this long ends with NETWORK_ERROR; a slower tool is aborted.
const STEP_TIMEOUT_MS = 60_000;
// A step that changed nothing.
const NO_STEP = Object.freeze({ events: Object.freeze([]), patches: Object.freeze([]) });
// What a step that finished no answer and showed no new error tells the app after it.
const NOTHING_TO_TELL = () => {};
const TOOL_TIMEOUT_MS = 30_000;

/**
 * `ChatSession` over the module's bindings `wasm` (ChatSession, httpError, …); `module.isReady()`
 * says whether they are loaded, `module.load()` loads them (once, however often it is called).
 */
export function makeChatSession(wasm, module) {
  let appendKeys = null; // { appendText, appendThinking }: each patch's keys, [the text, then the lists], asked for once
  let appendKeysDeclared = null;
  // Whether the module's `appendText` and `appendThinking` keys are the ones `withTextAppended` is written for.
  const declaredAppendKeys = () => {
    const { appendText, appendThinking } = (appendKeys ??= module.memory.appendKeys());
    return (appendKeysDeclared ??=
      appendText.join() === "streamingText,streamingSegments,streamingParts" && appendThinking.join() === "thinkingText,streamingParts");
  };
  return class ChatSession {
    #wasmSession = null; // the module's ChatSession, which keeps the state: made once the module has loaded
    #input = { at: 0, room: 0 }; // its input buffer in the module's memory (see `module.memory.copyIn`)
    #wasmOptions; // what it is made with
    #firstRequestHere; // a first message's request may be built before the module has loaded
    #readsHeaders; // whether a response's headers may say its dialect: none was given (see #drive)
    #disposed = false;
    #snapshot;
    // The snapshot's fields as the patches change them: the snapshot itself, or, while it has a
    // long list (a `SharedList`), the fields it is made from.
    #fields;
    // Replaced, never changed, on (un)subscribing: a notification calls those subscribed when it began.
    #listeners = new Set();
    #callbacks = {};
    #request = {};
    #stepTimeoutMs;
    #toolTimeoutMs;
    #resume; // { attempts, delayMs }, or null: a cut answer is not asked for again
    #tools = new Map(); // name → execute
    #turn = null; // see #newTurn
    #approval = null; // { id, answer }
    #coalesce;
    #frame = null; // the animation frame of the current coalescing window
    #dirty = false;
    // Whether the snapshot's fields are the chat state's declared ones (see `fieldsOf`): a patch
    // that sets any other makes every later step copy them by spreading.
    #declaredFields = true;
    // The texts the last steps appended to, while each step is one append (see `withTextAppended`).
    #appended = new AppendedText();
    // What `#fromMemory` hands the module's hand-over: `{ text }`, the text deltas joined.
    #joined = { text: "" };
    // A push's one text event and its patch's op and text, when that is the step (see `#push`).
    #textStep = { event: null, op: "", text: "" };

    /**
     * @param {import("./index.js").ChatSessionOptions} options
     */
    constructor(options) {
      // Anything but an object goes to the module's ChatSession as it is, which refuses it with a TypeError.
      const isObject = typeof options === "object" && options !== null && !Array.isArray(options);
      // A backend that speaks the AI SDK's chat protocol: a chat of its own (ai-sdk-chat.js), in the entries that have it.
      if (isObject && options.backend !== undefined) {
        if (options.backend === "ai-sdk") return new module.AiSdkChat(options);
        throw new TypeError(`ChatSession options: backend must be "ai-sdk" (a backend written for the AI SDK's useChat) or left out, not ${JSON.stringify(options.backend)}`);
      }
      const { coalesce = false, stepTimeoutMs, toolTimeoutMs, tools, resume, ...rest } = isObject ? options : {};
      // The module's options: the others, copied one by one (a copy with those deleted became a
      // slow dictionary object, which the module then read).
      const wasmOptions = {};
      for (const key of Object.keys(rest)) if (!JS_OPTIONS.has(key)) wasmOptions[key] = rest[key];
      if (tools !== undefined && tools !== null) wasmOptions.tools = this.#takeTools(tools);
      this.#wasmOptions = isObject ? wasmOptions : options;
      this.#firstRequestHere = !rest.provider; // provider mode waits for the module
      this.#readsHeaders = !rest.provider && (rest.dialect === undefined || rest.dialect === null || rest.dialect === "auto");
      const defaultEndpoint = rest.provider ? `/api/chat/${rest.provider}` : "/api/chat/stream";
      this.#request = { endpoint: defaultEndpoint, headers: null, body: null, credentials: undefined, fetch: undefined };
      this.setOptions(rest);
      this.#stepTimeoutMs = number(stepTimeoutMs, "stepTimeoutMs") ?? STEP_TIMEOUT_MS;
      this.#toolTimeoutMs = number(toolTimeoutMs, "toolTimeoutMs") ?? TOOL_TIMEOUT_MS;
      this.#resume = resumeOptions(resume);
      this.#coalesce = coalesce === "frame" && typeof requestAnimationFrame === "function";
      // Made now when the module is loaded (refusing bad options at once), else once it is.
      this.#snapshot = this.#fields = STATE_BEFORE_LOAD;
      if (module.isReady()) this.#makeWasmSession();
      else this.#whenWasmSession().catch(report);
    }

    /** Sends a message; returns the turn's events (iterating them is optional: the state moves anyway). */
    send(message, context) {
      const text = String(message ?? "");
      const start = () => this.#live().send(text, context ?? null, this.#request.endpoint);
      if (this.#wasmSession !== null || this.#disposed) return this.#start(start());
      // Before the module has loaded, a new chat's first message goes out at once.
      const first = this.#firstRequestHere && this.#turn === null ? firstRequest(text, context, this.#request.endpoint) : null;
      return this.#startWhenLoaded(start, first === null ? null : JSON.stringify(first));
    }

    /**
     * Asks again for the last user message: its answer (or the error of a failed turn) is replaced.
     * With a turn in flight, the events are one CONFLICT error.
     */
    regenerate() {
      const start = () => this.#live().regenerate(this.#request.endpoint);
      return this.#wasmSession !== null || this.#disposed ? this.#start(start()) : this.#startWhenLoaded(start, null);
    }

    /**
     * The URL of the answer being streamed when the proxy keeps it for resuming, else null. Saved
     * with `saveMessages()` while a message is answered, it lets the page pick the answer up after
     * a reload: `loadMessages(saved)`, then `resume(url)`. Null in a turn's later requests (after
     * tools ran in the page): their answer alone would not be the whole message.
     */
    streamInFlight() {
      return this.#turn?.stream ?? null;
    }

    /**
     * Picks up the answer to the last user message that the proxy keeps at `url` (what
     * `streamInFlight()` said before a reload), from its first byte, as a turn of its own: its
     * events, as `send` gives them. An answer no longer kept ends in the proxy's 404 error.
     */
    resume(url) {
      const turn = this.#newTurn();
      turn.kept = string(url, "resume: url"); // checked before the module's ChatSession starts the turn
      const start = () => this.#live().regenerate(this.#request.endpoint);
      return this.#wasmSession !== null || this.#disposed ? this.#start(start(), turn) : this.#startWhenLoaded(start, null, turn);
    }

    /** Stops the turn in flight. Returns a CONFLICT error event when nothing is in flight. */
    cancel() {
      if (this.#turn === null && this.#wasmSession === null && !this.#disposed) return NOTHING_TO_CANCEL;
      if (this.#turn === null) return this.#end(this.#live(), 3 /* cancel */).events[0];
      this.#turn.controller.abort();
      return undefined;
    }

    /** The same as `cancel()`, under the name React chat hooks use. */
    stop() {
      return this.cancel();
    }

    /** Runs the tool call waiting for approval (`pendingApproval`). False when no such call waits. */
    approve(toolUseId) {
      return this.#answer(toolUseId, true);
    }

    /** Denies the tool call waiting for approval; the model gets the denial and `reason`. */
    deny(toolUseId, reason = "") {
      return this.#answer(toolUseId, String(reason ?? ""));
    }

    /** Clears the error shown. */
    clearError() {
      if (this.#wasmSession !== null || this.#disposed) return this.#apply(this.#end(this.#live(), 4 /* clearError */).patches);
      if (this.#snapshot.error !== null) this.#show({ ...this.#snapshot, error: null });
    }

    /**
     * Replaces the conversation; messages without ids get them. While a message is being answered,
     * a ChatstreamError (CONFLICT); a message with neither `content` nor `parts`, a TypeError.
     */
    setMessages(messages) {
      this.#apply(refusedWithCode(() => this.#live().setMessages(messages)));
    }

    /**
     * Changes options between requests: `endpoint`, `headers`, `body`, `credentials`, `fetch` and
     * the callbacks. The others are fixed at construction.
     */
    setOptions(options) {
      if (typeof options !== "object" || options === null) throw new TypeError("ChatSession.setOptions: options must be an object");
      const given = (name) => name in options && options[name] !== undefined;
      if (given("endpoint")) this.#request.endpoint = string(options.endpoint, "endpoint");
      for (const name of ["headers", "body"]) {
        if (!given(name)) continue;
        const value = options[name];
        const ok = value === null || typeof value === "function" || (typeof value === "object" && !Array.isArray(value));
        if (!ok) throw new TypeError(`ChatSession options: ${name} must be an object or a function`);
        this.#request[name] = value;
      }
      if (given("credentials")) this.#request.credentials = string(options.credentials, "credentials");
      if (given("fetch")) this.#request.fetch = fn(options.fetch, "fetch");
      for (const name of CALLBACKS) {
        if (name in options) this.#callbacks[name] = options[name] == null ? undefined : fn(options[name], name);
      }
    }

    /** Subscribes to state changes; returns the unsubscribe function. */
    subscribe = (listener) => {
      this.#listeners = new Set(this.#listeners).add(listener);
      return () => {
        const listeners = new Set(this.#listeners);
        const had = listeners.delete(listener);
        this.#listeners = listeners;
        return had;
      };
    };

    /** The current state: the same object until something changes, never mutated. */
    getSnapshot = () => this.#snapshot;

    /** The conversation as JSON text, to save. */
    saveMessages() {
      return this.#live().saveMessages();
    }

    /** Replaces the conversation with saved JSON text; refused as `setMessages` refuses. */
    loadMessages(json) {
      this.#apply(refusedWithCode(() => this.#live().loadMessages(typeof json === "string" ? json : JSON.stringify(json))));
    }

    /**
     * Stops the turn in flight and frees the session's memory; the session is unusable after.
     * Also from inside a callback: the turn's events end there, and nothing else is sent or called.
     */
    dispose() {
      if (this.#disposed) return;
      this.#disposed = true;
      this.#listeners = new Set();
      if (this.#frame !== null && typeof cancelAnimationFrame === "function") cancelAnimationFrame(this.#frame);
      // A turn in flight ends on its abort and frees the module's ChatSession then; its last steps still need it.
      if (this.#turn !== null) this.#turn.controller.abort();
      else this.#free();
    }

    #live() {
      if (this.#disposed) throw new Error("ChatSession: the session was disposed");
      if (this.#wasmSession === null) {
        throw new Error("chatstream: call `await init()` first (the WebAssembly module is not loaded yet; a message sent now waits for it)");
      }
      return this.#wasmSession;
    }

    #free() {
      this.#wasmSession?.free();
      this.#wasmSession = null;
    }

    /**
     * This session's ChatSession in the module, and the state of a new chat, shown; throws what the
     * module refuses. A new chat's state is the same for every session (tests/node/session-new-state
     * checks it against the module's `state()`): the constant, not the module's state handed over
     * again for each session.
     */
    #makeWasmSession() {
      this.#wasmSession = new wasm.ChatSession(this.#wasmOptions);
      this.#snapshot = this.#fields = STATE_BEFORE_LOAD;
    }

    /**
     * Loads the module (or joins the load under way) and makes the module's ChatSession: null once there is one,
     * or the error that stops it (the load failed, or the module refused the options). A later
     * call tries again.
     */
    async #whenWasmSession() {
      try {
        await module.load();
      } catch (error) {
        return loadFailure(error);
      }
      if (this.#wasmSession !== null || this.#disposed) return null;
      try {
        this.#makeWasmSession();
      } catch (error) {
        this.#firstRequestHere = false; // the options are refused: no request goes out for them again
        return { code: "VALIDATION_ERROR", message: String(error?.message ?? error) };
      }
      this.#changed();
      return null;
    }

    /**
     * A turn asked for before the module has loaded: `body` (JSON text), when there is one, is sent at once;
     * `start` starts the turn in the module's ChatSession once it is made, and the turn goes on from the response.
     */
    #startWhenLoaded(start, body, turn = this.#newTurn()) {
      if (this.#turn === null) this.#turn = turn; // cancel() and dispose() stop it meanwhile
      turn.sent = body === null ? null : this.#post(body, turn.controller.signal);
      this.#whenWasmSession()
        .then((failure) => {
          if (failure === null && !this.#disposed) {
            try {
              return this.#start(start(), turn);
            } catch (error) {
              failure = { code: "VALIDATION_ERROR", message: String(error?.message ?? error) };
            }
          }
          this.#endWithoutWasmSession(turn, failure);
        })
        .catch(report);
      return turn.queue;
    }

    /** A turn that never reached the module's ChatSession: `failure` says why (shown, as the module's ChatSession would show it); none when disposed. */
    #endWithoutWasmSession(turn, failure) {
      turn.controller.abort();
      if (this.#turn === turn) this.#turn = null;
      if (failure !== null && !this.#disposed) {
        const error = Object.freeze(failure);
        turn.queue.push([{ type: "error", ...failure }]);
        if (this.#wasmSession === null) this.#show({ ...this.#snapshot, error });
        this.#call("onError", error);
      }
      turn.queue.close();
      if (this.#disposed && this.#turn === null) this.#free();
    }

    /** A new snapshot, shown. */
    #show(state) {
      this.#snapshot = this.#fields = Object.freeze(state);
      this.#changed();
    }

    /**
     * A turn's own: its abort `controller`, its events' `queue`, its first request if `sent` early,
     * the URL of a `kept` answer it picks up (a reload's) and the URL of its first answer while that
     * `stream`s, when the proxy keeps it.
     */
    #newTurn() {
      const turn = { controller: new AbortController(), queue: null, sent: null, kept: null, stream: null };
      turn.queue = new EventQueue(() => this.#turn === turn && turn.controller.abort());
      return turn;
    }

    /** The module's view of the tools; their `execute` stay here. */
    #takeTools(tools) {
      if (!Array.isArray(tools)) throw new TypeError("ChatSession options: tools must be an array");
      return tools.map((tool) => {
        const name = String(tool?.name ?? "");
        if (typeof tool?.execute !== "function") throw new TypeError(`ChatSession options: tool "${name}" has no execute function`);
        this.#tools.set(name, tool.execute);
        const { execute, ...described } = tool;
        return described;
      });
    }

    /**
     * A turn the module's ChatSession started (or refused): its events, handed out as they come. `turn` is one
     * begun before the module had loaded, with its first request maybe `sent` already.
     */
    #start(started, turn = this.#newTurn()) {
      const { controller, queue } = turn;
      this.#step(started, queue);
      // A subscriber may have disposed of the session on this very step.
      if (!started.request || this.#disposed) {
        controller.abort(); // a request sent early that the module's ChatSession refused
        if (this.#turn === turn) this.#turn = null;
        queue.close();
        if (this.#disposed && this.#turn === null) this.#free();
        return queue;
      }
      this.#turn = turn;
      const ended = () => {
        if (this.#turn === turn) this.#turn = null;
        queue.close();
        if (this.#disposed && this.#turn === null) this.#free();
      };
      // One reaction for both outcomes: `.catch().finally()` made a promise more, and a microtask more, a turn.
      this.#drive(started.request, controller.signal, queue, turn).then(ended, (error) => {
        report(error);
        ended();
      });
      return queue;
    }

    /**
     * Requests, responses and tools until the module's ChatSession says the turn is over. A turn that picks up a
     * `kept` answer gets it from its first byte, in place of its first request.
     */
    async #drive(request, signal, queue, turn) {
      for (let body = request, sent = turn.sent, first = true; ; sent = null, first = false) {
        const step = (result) => this.#step(result, queue);
        const resumed = first && turn.kept !== null;
        const got = await (sent ?? (resumed ? this.#getKept(`${turn.kept}?from=0`, signal) : this.#post(body, signal)));
        if (got.cancelled) return step(this.#end(this.#wasmSession, 3 /* cancel */));
        if (got.timedOut) return step(this.#end(this.#wasmSession, 2 /* refuse */, "NETWORK_ERROR", wasm.timedOut(this.#stepTimeoutMs)));
        if (got.failed) return step(this.#end(this.#wasmSession, 2 /* refuse */, "NETWORK_ERROR", wasm.connectionFailed(...errorParts(got.failed))));
        const response = got.value;
        if (!response.ok) {
          const { code, message } = wasm.httpError(response.status, await errorPageText(response));
          return step(this.#end(this.#wasmSession, 2 /* refuse */, code, message));
        }
        // The module reads the headers only to find the dialect: with one given (or provider
        // mode's), they are not handed over (their copy and the call were about 2% of a short
        // turn's profile in Chromium).
        if (this.#readsHeaders) this.#wasmSession.useResponse(response.headers.get("content-type"), Object.fromEntries(response.headers));
        const kept = resumed ? turn.kept : keptStream(this.#request.endpoint, response.headers.get("x-stream-id"));
        if (first) turn.stream = kept;
        // While a cut answer is asked for again, the status line says so; then it is as it was.
        let covered = null; // { text }: the status line "Reconnecting…" covers
        const status = (event) => {
          if (event === RECONNECTING) covered ??= { text: this.#snapshot.statusText };
          const text = event === RECONNECTING ? event.message : covered.text;
          if (event !== RECONNECTING) covered = null;
          step({ events: [event], patches: [{ op: "set", key: "statusText", value: text }] });
        };
        const end = await readResumable(response.body, {
          url: kept,
          options: this.#resume,
          push: (chunk) => this.#push(chunk, queue),
          get: (url, signal) => this.#getKept(url, signal),
          status,
          idleMs: this.#stepTimeoutMs,
          signal,
        });
        turn.stream = null;
        if (covered !== null && !this.#disposed) this.#apply([{ op: "set", key: "statusText", value: covered.text }]);
        if (end.cancelled) {
          if (kept !== null) this.#stopKept(kept);
          return step(this.#end(this.#wasmSession, 3 /* cancel */));
        }
        const after = end.ended
          ? this.#end(this.#wasmSession, 0 /* finish */)
          : this.#end(
              this.#wasmSession,
              1 /* fail */,
              "NETWORK_ERROR",
              end.timedOut ? wasm.timedOut(this.#stepTimeoutMs) : wasm.connectionFailed(...errorParts(end.failed)),
            );
        step(after);
        if (!after.tools) return;
        for (const call of after.tools) {
          if (signal.aborted) return step(this.#end(this.#wasmSession, 3 /* cancel */));
          const result = await this.#runTool(call, signal, step);
          if (signal.aborted) return step(this.#end(this.#wasmSession, 3 /* cancel */));
          step(result);
        }
        const next = this.#wasmSession.nextRequest();
        if (!next.request) return step(next);
        body = next.request;
      }
    }

    /**
     * POSTs `body`, JSON text (the module's request, as it is sent), with the headers and extra
     * fields as they are now.
     */
    async #post(body, signal) {
      const { endpoint, credentials } = this.#request;
      if (this.#request.fetch === undefined && !resolvable(endpoint)) {
        return { failed: new Error(noPageFor(`the endpoint "${endpoint}"`, "the endpoint option", endpoint)) };
      }
      const fetch = this.#request.fetch ?? globalThis.fetch;
      // The headers and extra fields are made within the step, under its time limit and the turn's
      // signal: a function's promise that never settles ends with the step, and a cancel ends it.
      // They are awaited only when a function gives a promise: two awaits of plain values were four
      // microtask hops before each request.
      const sent = (async () => {
        let headers = evaluate(this.#request.headers);
        if (isThenable(headers)) headers = await headers;
        let extra = evaluate(this.#request.body);
        if (isThenable(extra)) extra = await extra;
        signal.throwIfAborted();
        const init = {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
          body: extra ? JSON.stringify({ ...JSON.parse(body), ...extra }) : body,
          signal,
        };
        if (credentials) init.credentials = credentials;
        return aResponse(await fetch.call(globalThis, endpoint, init));
      })();
      return settle(sent, this.#stepTimeoutMs, signal);
    }

    /**
     * The proxy keeps an answer whose reader went away, so that it can be resumed; a stop says that
     * it is not wanted, and the upstream is cancelled at once. Nothing waits for the answer.
     */
    #stopKept(url) {
      this.#askProxy("DELETE", url).catch(() => {});
    }

    /** `GET` on a kept answer's URL (the rest of it, with `?from=`): a `settle` outcome. */
    #getKept(url, signal) {
      return settle(this.#askProxy("GET", url, signal), this.#stepTimeoutMs, signal);
    }

    /** A request about an answer the proxy keeps (`GET` its rest, `DELETE` it), with the app's headers. */
    async #askProxy(method, url, signal) {
      const { credentials } = this.#request;
      if (this.#request.fetch === undefined && !resolvable(url)) {
        const kept = url.replace(/\?from=\d+$/, "");
        throw new Error(noPageFor(`the answer's URL "${kept}"`, "resume(url)", kept));
      }
      const fetch = this.#request.fetch ?? globalThis.fetch;
      const headers = await evaluate(this.#request.headers);
      return aResponse(await fetch.call(globalThis, url, { method, headers: { ...headers }, signal, ...(credentials ? { credentials } : {}) }));
    }

    /**
     * A chunk of the response, through the module's memory as `ChatStream.push` hands it over
     * (api.js), taken as a step of the turn. An empty chunk changes nothing. Its events and
     * patches go to the step as they come, in no object of their own: nearly every event of a
     * long answer is one push.
     */
    #push(chunk, queue) {
      const session = this.#wasmSession;
      const length = module.memory.copyIn(session, this.#input, chunk);
      if (length < 0) return this.#step(session.push(chunk), queue);
      const words = length === 0 ? 0 : session.__push(length);
      if (words === 0) return this.#step(NO_STEP, queue);
      const textStep = this.#textStep;
      const lists = this.#fromMemory(words, textStep);
      if (lists !== textStep) return this.#stepOf(lists[0], lists[1], queue);
      // One text event and the patch that appends its text: `#stepOf`'s work for them, with no
      // list made (neither is a finished answer, an error or a callback's event).
      const { event, op, text } = textStep;
      textStep.event = null; // holds no event past the step
      if (this.#disposed) return queue.close();
      if (!this.#appendOnly(op, text)) this.#apply([{ op, text }]);
      queue.pushOne(event);
    }

    /**
     * The module's `__end`, from its memory: `{ events, patches, tools? }`. `op`: 0 finish, 1 fail,
     * 2 refuse, 3 cancel, 4 clearError (END_FINISH and on, src/wasm/session.rs); numbers, since
     * the bundler keeps named constants as variables (about 35 bytes gzip more).
     */
    #end(session, op, code = "", message = "") {
      const words = session.__end(op, code, message);
      if (words === 0) return NO_STEP;
      const [events, patches, tools] = this.#fromMemory(words);
      return tools === undefined ? { events, patches } : { events, patches, tools };
    }

    /**
     * The lists a call left in the module's memory (`words` long), read with the text deltas
     * joined: the state's `streamingText` (this response's deltas so far, the ones the module
     * counts), to which the hand-over appends the step's own. When `complete`'s text is those
     * deltas (the cleaner made it of them, and the module checked their length in bytes), it
     * crosses as them and so do the finished message's fields that hold it: the module leaves
     * them empty, and a list first among the patches says which (LeanMessage in
     * src/wasm/session.rs). A long answer is then not decoded again at its end.
     *
     * With `textStep` (a push's): a step that is one text event and the patch appending its text
     * is written into it, and it is returned in place of the lists (see `#push`).
     */
    #fromMemory(words, textStep) {
      this.#joined.text = this.#fields[(appendKeys ??= module.memory.appendKeys()).appendText[0]];
      let lists;
      try {
        lists = module.memory.fromMemory(words, true, this.#joined, textStep);
        if (lists === textStep) return lists;
      } catch (error) {
        // Only a bug gets here: the deltas joined are not of the length the module counted, and
        // the hand-over throws rather than give `complete` another text. The module has taken
        // the step already: thrown on, it would leave the snapshot behind the module's state for
        // the rest of the session (and a read that throws is taken for a broken connection). So
        // the step crosses again with its texts whole, as it would without the deltas joined,
        // and the bug goes to the host.
        report(error);
        return module.memory.fromMemory(this.#wasmSession.__end(5 /* again */, "", ""), true);
      }
      const patches = lists[1];
      // [at, content, n, ...segments, ...parts]: the fields of the message of patches[at] that get
      // the text (LeanMessage in src/wasm/session.rs). Patches are objects.
      const fields = patches[0];
      if (Array.isArray(fields)) {
        patches.shift();
        const { text } = lists[0].find((event) => event.type === "complete").payload;
        const message = patches[fields[0]].value;
        if (fields[1] === 1) message.content = text;
        const parts = 3 + fields[2];
        for (let i = 3; i < parts; i++) message.segments[fields[i]].text = text;
        for (let i = parts; i < fields.length; i++) message.parts[fields[i]].text = text;
      }
      return lists;
    }

    /** Runs one tool call the model made (after the user's approval, when it needs one). */
    async #runTool(call, signal, step) {
      const refusal = this.#wasmSession.checkCall(call);
      if (refusal !== null) return this.#wasmSession.toolDone(call, refusal, true);
      if (this.#wasmSession.needsApproval(call)) {
        this.#apply(this.#wasmSession.askApproval(call));
        const answer = await settle(new Promise((resolve) => (this.#approval = { id: call.id, answer: resolve })), 0, signal);
        this.#approval = null;
        if (answer.cancelled) return this.#wasmSession.toolFailed(call, "cancelled", null);
        if (answer.value !== true) return this.#wasmSession.toolFailed(call, "denied", answer.value);
      }
      const execute = this.#tools.get(call.name);
      const tool = new AbortController(); // aborted when the turn is, or the tool's time is up
      const stopTool = () => tool.abort();
      signal.addEventListener("abort", stopTool, { once: true });
      const progress = (update) => {
        if (!signal.aborted && !tool.signal.aborted) step(this.#wasmSession.toolProgress(call, update ?? null));
      };
      try {
        const ran = await settle((async () => execute(call.input, { signal: tool.signal, progress }))(), this.#toolTimeoutMs, signal);
        if (ran.cancelled) return this.#wasmSession.toolFailed(call, "cancelled", null);
        if (ran.timedOut) {
          tool.abort();
          return this.#wasmSession.toolFailed(call, "timed_out", this.#toolTimeoutMs);
        }
        if ("failed" in ran) return this.#wasmSession.toolFailed(call, "threw", String(ran.failed?.message ?? ran.failed));
        return this.#wasmSession.toolDone(call, ran.value === undefined ? null : ran.value, false);
      } finally {
        signal.removeEventListener("abort", stopTool);
      }
    }

    #answer(id, answer) {
      if (this.#approval?.id !== String(id)) return false;
      this.#apply(this.#wasmSession.approvalAnswered(String(id), answer === true));
      this.#approval.answer(answer);
      return true;
    }

    /** A step of the turn as the module's calls return it, `{ events, patches }` (see #stepOf). */
    #step(step, queue) {
      this.#stepOf(step.events, step.patches, queue);
    }

    /**
     * A step of the turn: its patches to the snapshot, its events to the turn and the callbacks,
     * which hear of data and tool calls before the answer they belong to is finished.
     */
    #stepOf(events, patches, queue) {
      // Disposed from a callback: the turn winds down without a word (its cancel is no news).
      if (this.#disposed) return queue.close();
      const settled = this.#apply(patches, false);
      queue.push(events);
      for (const event of events) {
        if (event.type === "tool_call") this.#call("onToolCall", event);
        else if (event.type === "data") this.#call("onData", event.data);
      }
      settled();
    }

    /** Calls the app's callback; what it throws is reported to the host, never to the stream. */
    #call(name, value) {
      const callback = this.#callbacks[name];
      if (callback === undefined || this.#disposed) return;
      try {
        callback(value);
      } catch (error) {
        report(error);
      }
    }

    /**
     * Applies the module's patches to a new snapshot. The app hears of a finished answer or a new
     * error once the state shows it: now, or when the returned function is called.
     *
     * The new snapshot shares with the one before it every value the patches leave alone: a
     * changed list is copied once per step and its changed item once (the others keep their
     * identity, so a renderer can skip them), and a step's later patches change those copies in
     * place. A push of answer text, nearly every push, makes the snapshot, two lists and their
     * last items anew, however long the conversation. A long list is not copied at all: the
     * snapshots share it (`SharedList`), and each one's array is made when it is first read.
     */
    #apply(patches, tellNow = true) {
      if (patches.length === 0) return NOTHING_TO_TELL;
      if (patches.length === 1 && this.#appendOnly(patches[0].op, patches[0].text)) return NOTHING_TO_TELL;
      const before = this.#fields;
      this.#appended.clear(); // its fields are no longer the snapshot's: the text it holds goes with them
      const next = this.#declaredFields ? fieldsOf(before) : { ...before };
      const sharedLists = SharedList.made; // a list this step starts sharing counts one more
      let finished = null;
      for (const p of patches) {
        switch (p.op) {
          case "set":
            if (!Object.hasOwn(STATE_BEFORE_LOAD, p.key)) this.#declaredFields = false;
            next[p.key] = p.value;
            break;
          case "append":
            next[p.key] += p.text;
            break;
          case "push":
            ownList(next, before, p.key).push(p.value);
            // Only messages have a role: a pushed answer is a finished one.
            if (p.value.role === "assistant") (finished ??= []).push(p.value);
            break;
          case "setAt":
            setItem(ownList(next, before, p.key), p.at, p.value);
            break;
          case "appendToLast":
            appendToLast(next, before, p.key, p.text);
            break;
          case "appendText":
          case "appendThinking": {
            // Their keys are the chat state's declaration's, handed over by the module.
            const keys = (appendKeys ??= module.memory.appendKeys())[p.op];
            next[keys[0]] += p.text;
            for (let i = 1; i < keys.length; i++) appendToLast(next, before, keys[i], p.text);
            break;
          }
          case "startThinking":
          case "startTextPart": {
            // appendThinking's or appendText's keys, the last of them the list that gets the new part.
            const thinking = p.op === "startThinking";
            const keys = (appendKeys ??= module.memory.appendKeys())[thinking ? "appendThinking" : "appendText"];
            const last = keys.length - 1;
            next[keys[0]] += p.text;
            for (let i = 1; i < last; i++) appendToLast(next, before, keys[i], p.text);
            ownList(next, before, keys[last]).push({ type: thinking ? "reasoning" : "text", text: p.text });
            break;
          }
          case "pushInto": {
            if (!Object.hasOwn(STATE_BEFORE_LOAD, p.key)) this.#declaredFields = false;
            const object = { ...next[p.key] }; // then set, as in appendToLast
            object[p.list] = [...object[p.list], p.value];
            next[p.key] = object;
            break;
          }
          case "reset":
            for (const key in p.value) if (!Object.hasOwn(STATE_BEFORE_LOAD, key)) this.#declaredFields = false;
            Object.assign(next, p.value);
            break;
        }
      }
      // Fields that were their snapshot (no list shared: see snapshotOf), with no list shared by
      // this step, are this one's: the patches' values are the module's, never a SharedList.
      const noneShared = before === this.#snapshot && SharedList.made === sharedLists;
      this.#fields = next;
      this.#snapshot = noneShared ? Object.freeze(next) : snapshotOf(next, this.#declaredFields);
      this.#changed();
      const newError = next.error !== null && next.error !== before.error;
      if (finished === null && !newError) return NOTHING_TO_TELL;
      const tell = () => {
        if (finished !== null) for (const message of finished) this.#call("onFinish", message);
        if (newError) this.#call("onError", next.error);
      };
      if (!tellNow) return tell;
      tell();
      return NOTHING_TO_TELL;
    }

    /**
     * Nearly every push of an answer: its text (or reasoning) appended (`op`), and nothing else,
     * to a new snapshot. False when `#apply`'s loop must take the patch (another op, or fields
     * `withTextAppended` is not written for).
     */
    #appendOnly(op, text) {
      if (op !== "appendText" && op !== "appendThinking") return false;
      const before = this.#fields;
      if (before !== this.#snapshot || !this.#declaredFields || !declaredAppendKeys()) return false;
      const next = withTextAppended(before, op === "appendThinking", text, this.#appended);
      if (next === null) return false;
      this.#fields = next;
      this.#snapshot = Object.freeze(next);
      this.#changed();
      return true;
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
      for (const listener of this.#listeners) {
        try {
          listener();
        } catch (error) {
          report(error);
        }
      }
    }
  };
}

// From this many items a list is shared by the snapshots (`SharedList`) rather than copied for
// each: a snapshot's getter costs a few µs in Node, more than copying a short list. In Chromium
// sharing later costs more than it saves: with 4,096 here, a live read of an answer whose parts
// grow to 10,000 took 1.24× the renderer's CPU time (medians of 5 rounds).
const SHARED_FROM = 64;

/**
 * A long list of the snapshots (an answer that goes back and forth between thinking and text
 * starts a part at each turn: thousands of parts), as one array that the snapshots share, each
 * seeing its first `length` items with its own `last`. A read pushes an item or replaces the last
 * one, so copying the list for each snapshot made every read cost as much as the answer was long
 * (42 µs a read on average in Node while a list grew to 10,000 items); a snapshot's
 * own array is made the first time the app reads it (a renderer reads it once a frame, not once
 * a read), and is the same array at every read after.
 *
 * Only the newest list pushes onto `items`; the items before an older list's last are never
 * changed (a change to one, `setAt`, gives the newest list an array of its own first).
 * Exported for its tests only (the package's entries do not export it).
 */
export class SharedList {
  static made = 0; // how many were made: whether a step made one (see #apply)

  constructor(items, length, last) {
    SharedList.made++;
    this.items = items;
    this.length = length;
    this.last = last;
    this.array = null;
  }

  /** A copy of `list` (an array, or another SharedList) that this step may change. */
  static from(list) {
    if (Array.isArray(list)) return new SharedList(list.slice(), list.length, list.at(-1));
    return new SharedList(list.items, list.length, list.last);
  }

  push(item) {
    if (this.length > 0) this.items[this.length - 1] = this.last;
    this.items[this.length++] = item;
    this.last = item;
    this.array = null;
  }

  /** Undefined past this list's length: `items` may hold a newer list's items there. */
  at(index) {
    if (index >= this.length) return undefined;
    return index === this.length - 1 ? this.last : this.items[index];
  }

  set(index, item) {
    this.array = null;
    if (index === this.length - 1) {
      this.last = item;
      return;
    }
    const items = this.items.slice(0, this.length); // the older lists keep theirs
    if (this.length > 0) items[this.length - 1] = this.last;
    items[index] = item;
    this.items = items;
  }

  toArray() {
    if (this.array === null) {
      this.array = this.items.slice(0, this.length);
      if (this.length > 0) this.array[this.length - 1] = this.last;
    }
    return this.array;
  }
}

/**
 * A copy of a snapshot's fields, for a step to change: the chat state's fields (those of
 * STATE_BEFORE_LOAD, in its order) by name: V8 spreads a frozen object of 12 fields on a slow
 * path, about 3,500 instructions a copy against 400 this way (callgrind, Node), and each push of
 * answer text makes one.
 */
const fieldsOf = (s) => ({
  messages: s.messages,
  isLoading: s.isLoading,
  streamingText: s.streamingText,
  thinkingText: s.thinkingText,
  statusText: s.statusText,
  activeToolProgress: s.activeToolProgress,
  error: s.error,
  streamingSegments: s.streamingSegments,
  streamingParts: s.streamingParts,
  pendingApproval: s.pendingApproval,
  phase: s.phase,
  conversationId: s.conversationId,
});

/**
 * The snapshot of `fields`, frozen: itself, or with a getter in place of each `SharedList`. The
 * lists are kept on the snapshot under a symbol (not enumerable: its keys, spread and JSON stay
 * the fields'), and each key's getter is one function for every snapshot: a getter made for each
 * snapshot gave each one a shape of its own, in the engine's slow dictionary mode, and defining it
 * and freezing the snapshot were a tenth of a live read of an answer with thousands of parts.
 * `declared`: the fields are the chat state's declared ones (see `fieldsOf`), built by
 * `declaredSnapshotOf`.
 */
function snapshotOf(fields, declared) {
  if (declared) return declaredSnapshotOf(fields);
  let lists = null;
  for (const key in fields) if (fields[key] instanceof SharedList) (lists ??= {})[key] = fields[key];
  if (lists === null) return Object.freeze(fields);
  const snapshot = {};
  for (const key in fields) {
    if (key in lists) snapshot.__defineGetter__(key, sharedListGetter(key));
    else snapshot[key] = fields[key];
  }
  return withLists(snapshot, lists);
}

/**
 * `snapshotOf` for the chat state's declared fields, of which only the lists that patches push
 * to or change (`messages`, `streamingSegments`, `streamingParts`; see `ownList`) may be shared:
 * each field by its name, in the declaration's order. Looping over the keys, each field was set
 * through a store that saw every key (slow in V8), and the loop and the definitions took 2.2 µs
 * a snapshot against 0.9 µs so (Node, a snapshot with one shared list), once per read of an
 * answer whose parts grow past `SHARED_FROM`.
 */
function declaredSnapshotOf(fields) {
  const { messages, streamingSegments, streamingParts } = fields;
  const sharesMessages = messages instanceof SharedList;
  const sharesSegments = streamingSegments instanceof SharedList;
  const sharesParts = streamingParts instanceof SharedList;
  if (!sharesMessages && !sharesSegments && !sharesParts) return Object.freeze(fields);
  const snapshot = {};
  if (sharesMessages) snapshot.__defineGetter__("messages", sharedListGetter("messages"));
  else snapshot.messages = messages;
  snapshot.isLoading = fields.isLoading;
  snapshot.streamingText = fields.streamingText;
  snapshot.thinkingText = fields.thinkingText;
  snapshot.statusText = fields.statusText;
  snapshot.activeToolProgress = fields.activeToolProgress;
  snapshot.error = fields.error;
  if (sharesSegments) snapshot.__defineGetter__("streamingSegments", sharedListGetter("streamingSegments"));
  else snapshot.streamingSegments = streamingSegments;
  if (sharesParts) snapshot.__defineGetter__("streamingParts", sharedListGetter("streamingParts"));
  else snapshot.streamingParts = streamingParts;
  snapshot.pendingApproval = fields.pendingApproval;
  snapshot.phase = fields.phase;
  snapshot.conversationId = fields.conversationId;
  const lists = {};
  if (sharesMessages) lists.messages = messages;
  if (sharesSegments) lists.streamingSegments = streamingSegments;
  if (sharesParts) lists.streamingParts = streamingParts;
  return withLists(snapshot, lists);
}

const LISTS = Symbol("shared lists");
// The descriptor of a snapshot's lists, its value set for each definition (no object made for each).
const LISTS_DESCRIPTOR = { value: null, writable: false, enumerable: false, configurable: false };

/** `snapshot` frozen, holding `lists` under LISTS. */
function withLists(snapshot, lists) {
  LISTS_DESCRIPTOR.value = lists;
  Object.defineProperty(snapshot, LISTS, LISTS_DESCRIPTOR);
  LISTS_DESCRIPTOR.value = null; // holds no snapshot's lists after
  return Object.freeze(snapshot);
}

const getters = new Map(); // key → every snapshot's getter of that list

/**
 * The getter of the list `key`: one function for every snapshot, defined with `__defineGetter__`
 * (an enumerable, configurable accessor, made non-configurable by the snapshot's freeze: the same
 * property as `Object.defineProperty` with `{ get, enumerable: true }` makes, without reading a
 * descriptor object). It reads the list through `this` (the snapshot, or a proxy of it or an
 * object inheriting from it).
 */
function sharedListGetter(key) {
  let getter = getters.get(key);
  if (getter === undefined) {
    ({ get: getter } = {
      get() {
        return this[LISTS][key].toArray();
      },
    });
    getters.set(key, getter);
  }
  return getter;
}

const itemAt = (list, index) => (list instanceof SharedList ? list.at(index) : list[index]);

function setItem(list, index, item) {
  if (list instanceof SharedList) list.set(index, item);
  else list[index] = item;
}

/**
 * `state[key]`, a list, as the new snapshot's own: copied on its first change in a step (the
 * snapshot before keeps its list), then changed in place; a long one shared (`SharedList`). A
 * list the step set anew is its own.
 */
function ownList(next, before, key) {
  const list = next[key];
  if (list !== before[key]) return list;
  if (list.length >= SHARED_FROM || list instanceof SharedList) return (next[key] = SharedList.from(list));
  // A new chat's lists are frozen (STATE_BEFORE_LOAD's), and V8 slices a frozen array on a slow
  // path (about 15 times as long in Node as `[]`): the first push of each list in a turn did.
  return (next[key] = list.length === 0 ? [] : list.slice());
}

/**
 * The fields after an `appendText` patch (`appendThinking` with `thinking`), as `#apply`'s loop
 * makes them, for the declared fields of a snapshot that shares no list, with lists too short to
 * start sharing (`appended`, the session's, carries its texts on from step to step): null for any
 * other. Written out for the keys the module hands over for the patch
 * (`appendKeys`), which are the declaration's, as `fieldsOf`'s are: without the loop's general
 * steps (its keys looked up, each list and item checked for sharing) a session read live takes
 * about 4% fewer instructions an event on anthropic/text.sse and 3-9% fewer on
 * openai/openai-text.sse (callgrind on Node, two runs each).
 */
function withTextAppended(before, thinking, text, appended) {
  const parts = before.streamingParts;
  const segments = thinking ? null : before.streamingSegments;
  if (!appendable(parts) || !(thinking || appendable(segments))) return null;
  // Carried on from the last step when `before` is the fields it made, for the same patch.
  if (appended.fields !== before || appended.thinking !== thinking) {
    appended.start(thinking, thinking ? [before.thinkingText, parts.at(-1).text] : [before.streamingText, segments.at(-1).text, parts.at(-1).text]);
  }
  appended.append(text);
  const next = fieldsOf(before);
  if (thinking) {
    next.thinkingText = appended.text(0);
    next.streamingParts = withLastText(parts, appended.text(1));
  } else {
    next.streamingText = appended.text(0);
    next.streamingSegments = withLastText(segments, appended.text(1));
    next.streamingParts = withLastText(parts, appended.text(2));
  }
  appended.fields = next;
  return next;
}

/** Whether `list`'s last item may be replaced by a copy in a new list: an array, not empty, not long. */
const appendable = (list) => Array.isArray(list) && list.length > 0 && list.length < SHARED_FROM;

/** A copy of `list` whose last item is a copy with `text`. */
function withLastText(list, text) {
  const copy = list.slice();
  const at = copy.length - 1;
  const item = { ...copy[at] };
  item.text = text;
  copy[at] = item;
  return copy;
}

// How long the text appended since the last move into the heads may grow (see AppendedText). A
// 2 MB answer read by a session (bench-js/memory.js's text case, its deltas made distinct), peak RSS
// growth against 4,096: with 1,024 no less in 1 KB deltas; with 16,384, 1 MB more in 32-byte ones
// (the tail's chain of deltas survived collections again and grew the semi-spaces).
const TAIL_CHARS = 4096;

/**
 * The texts that the steps of an answer append to, as a step after step of single appends makes
 * them (the answer's text, its last segment's and its last part's; or its thinking and its last
 * part's): each is its `heads` item (its text when the appends began, then each tail moved in)
 * followed by `tail`, the text appended since, moved into every head as one string once it is
 * TAIL_CHARS long. `+=` alone made each text a chain of every delta (three chains sharing
 * them): in V8 each delta, allocated young, survived the young generation's collections as long
 * as the answer streamed, and that much surviving grew its semi-spaces (a 2 MB answer in 1 KB
 * deltas: 4 MB more); in short deltas the chains' links outweighed the text (in 32-byte ones, peak
 * RSS growth 30 times the answer's size, 10 times so). Moved in, the tail is a copy in the old
 * generation (`oldCopy`) and the deltas die young. `fields`: the fields the last step made
 * (whether the next one carries on), null when none does.
 */
class AppendedText {
  constructor() {
    this.clear();
  }

  start(thinking, heads) {
    this.thinking = thinking;
    this.heads = heads;
    this.tail = "";
  }

  clear() {
    this.start(false, []);
    this.fields = null;
  }

  append(text) {
    this.tail += text;
    if (this.tail.length < TAIL_CHARS) return;
    // V8 (Node, Chromium) hashes a longer name by its length alone: names of one length would all
    // be compared when each is interned.
    const moved = this.tail.length < 16384 ? oldCopy(this.tail) : this.tail;
    for (let i = 0; i < this.heads.length; i++) this.heads[i] += moved;
    this.tail = "";
  }

  /** The `i`th text now. */
  text(i) {
    return this.heads[i] + this.tail;
  }
}

// An object in dictionary mode (made with no prototype), whose one property `oldCopy` sets and deletes.
const NAMES = Object.create(null);

/**
 * `text`, equal, as V8 (Node, Chromium) holds a property's name: one flat string in its string
 * table, which it allocates in the old generation (a delta is allocated in the young one, and
 * copied by each of its collections while it lives). Another engine gives back an equal string
 * all the same, only without the saving. `text` is never an array index (at least TAIL_CHARS
 * long), so the property is named by it, not numbered.
 */
function oldCopy(text) {
  NAMES[text] = 0;
  let name = text;
  for (name in NAMES);
  delete NAMES[name];
  return name;
}

/** `state[key]`'s last item, a text or reasoning part, gets `text` appended: a copy of it, the first time in a step. */
function appendToLast(next, before, key, text) {
  const list = ownList(next, before, key);
  const at = list.length - 1;
  const last = itemAt(list, at);
  if (last === itemAt(before[key], at)) {
    // A copy, then its text set: V8 builds `{ ...last, text }` on a slow path, ten times as long
    // (1.8 against 0.17 µs in Node), and this runs twice a push of answer text.
    const copy = { ...last };
    copy.text = last.text + text;
    setItem(list, at, copy);
  } else {
    last.text += text; // made in this step: no snapshot holds it yet
  }
}

/**
 * Whether the global fetch can resolve `url`: an absolute URL, or any URL in a page. Outside one
 * (Node) a relative URL fails with a TypeError that would read as the browser's CORS refusal.
 */
function resolvable(url) {
  if (typeof location !== "undefined") return true;
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

/** Why a relative `url` (`what`, named) cannot be fetched here, and what to give `where` instead. */
const noPageFor = (what, where, url) =>
  `${what} is a relative URL, and there is no page here to resolve it against (Node): ` +
  `give ${where} an absolute URL, such as "http://localhost:3000${url.startsWith("/") ? "" : "/"}${url}"`;

/** An option that may be a function (sync or async), evaluated now: its value, or a promise of it. */
function evaluate(option) {
  return typeof option === "function" ? option() : option;
}

function string(value, name) {
  return stringOption("ChatSession", value, name);
}

function fn(value, name) {
  return functionOption("ChatSession", value, name);
}

function number(value, name) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || Number.isNaN(value)) throw new TypeError(`ChatSession options: ${name} must be a number`);
  return value;
}
