// The bad-input catalogue (catalogue.json) through the built package, in whatever engine loads
// this module (Node, or a page in headless Chromium): every case is pushed whole, in random
// pieces and, when small, a byte at a time; every event is serialized whole (JSON.stringify reads
// each lazy field too); the error codes must be the catalogue's and nothing may throw. Then the
// same module instance must still read a normal stream: a trap would have broken it.

/** The case's input bytes (`input`, `input_hex` or `input_repeat`). */
export function inputOf(spec) {
  if (spec.input_hex !== undefined) {
    return Uint8Array.from(spec.input_hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
  }
  const r = spec.input_repeat;
  const text = spec.input ?? `${r.prefix}${r.unit.repeat(r.times)}${r.suffix}`;
  return new TextEncoder().encode(text);
}

/** A small seeded generator, so that a failing split can be replayed. */
function random(seed) {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return state % Math.max(1, n);
  };
}

function splits(length, seed) {
  const below = random(seed);
  const ways = [["one piece", []]];
  // Each one-byte push of a streamed tool input makes an event whose partial_input is as large
  // as the input so far: bytewise is for the small cases.
  if (length <= 4096) ways.push(["a byte at a time", Array.from({ length: length - 1 }, (_, i) => i + 1)]);
  for (let run = 0; run < 4; run++) {
    const cuts = Array.from({ length: 1 + below(8) }, () => below(length)).sort((a, b) => a - b);
    ways.push([`random split ${run} (seed ${seed})`, cuts]);
  }
  return ways;
}

/** The events of `stream` fed `bytes` cut at `cuts` (ascending), then finished. */
export function readCut(stream, bytes, cuts) {
  const events = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...stream.push(bytes.subarray(start, cut)));
    start = cut;
  }
  events.push(...stream.finish());
  return events;
}

function run(ChatStream, spec, bytes, cuts) {
  return readCut(new ChatStream({ dialect: spec.dialect, maxFrameBytes: spec.max_frame_bytes }), bytes, cuts);
}

/** `null` when the events are what the case asks for, else why not. */
function verdict(spec, events) {
  const serialized = events.map((event) => JSON.parse(JSON.stringify(event)));
  const completes = serialized.filter((e) => e.type === "complete");
  if (completes.length !== 1) return `${completes.length} completes`;
  const codes = serialized.filter((e) => e.type === "error").map((e) => e.code);
  if (JSON.stringify(codes) !== JSON.stringify(spec.errors)) {
    return `error codes ${JSON.stringify(codes)}, expected ${JSON.stringify(spec.errors)}`;
  }
  const text = completes[0].payload.text;
  if (spec.kept !== undefined && !text.includes(spec.kept)) return `${JSON.stringify(spec.kept)} was lost: ${JSON.stringify(text)}`;
  if (spec.not_in_text !== undefined) {
    const streamed = serialized.filter((e) => e.type === "text_delta").map((e) => e.text).join("");
    if (streamed.includes(spec.not_in_text) || text.includes(spec.not_in_text)) return `${spec.not_in_text} reached the text`;
  }
  return null;
}

/** Every case under every split; returns the failures (empty when all pass). */
export function runCatalogue({ ChatStream }, catalogue, seed = Date.now()) {
  const failures = [];
  for (const spec of catalogue.cases) {
    const bytes = inputOf(spec);
    for (const [how, cuts] of splits(bytes.length, seed)) {
      let why;
      try {
        why = verdict(spec, run(ChatStream, spec, bytes, cuts));
      } catch (error) {
        why = `threw ${error?.name}: ${error?.message}`;
      }
      if (why !== null) {
        failures.push(`${spec.name}: ${how}: ${why}`);
        break;
      }
    }
  }
  return failures;
}

/**
 * Calls each function with arguments of the wrong type: each must throw a TypeError that names
 * the parameter, or accept the value. Returns the failures.
 */
export function wrongArgumentTypes({ ChatStream, ChatSession, resolveToolMarkers, parseLlmResponse, streamEvents }) {
  const cases = [
    ["resolveToolMarkers(42, [])", () => resolveToolMarkers(42, []), /message/],
    ["resolveToolMarkers('a', 5)", () => resolveToolMarkers("a", 5), /toolHistory/],
    ["resolveToolMarkers('a', [7])", () => resolveToolMarkers("a", [7]), /toolHistory/],
    ["parseLlmResponse({})", () => parseLlmResponse({}), /text/],
    ["parseLlmResponse('a', 3)", () => parseLlmResponse("a", 3), /options/],
    ["new ChatStream(7)", () => new ChatStream(7), /options/],
    ["new ChatStream({ dialect: 5 })", () => new ChatStream({ dialect: 5 }), /options/],
    ["new ChatStream({ maxFrameBytes: -1 })", () => new ChatStream({ maxFrameBytes: -1 }), /options/],
    ["push(42)", () => new ChatStream().push(42), /chunk/],
    ["push({})", () => new ChatStream().push({}), /chunk/],
    ["push(null)", () => new ChatStream().push(null), /chunk/],
    // Objects that pass for a Uint8Array by their prototype, but hold no bytes.
    ["push(Object.create(Uint8Array.prototype))", () => new ChatStream().push(Object.create(Uint8Array.prototype)), /chunk/],
    ["push(new Proxy(new Uint8Array(2), {}))", () => new ChatStream().push(new Proxy(new Uint8Array(2), {})), /chunk/],
    ["new ChatSession(5)", () => new ChatSession(5), /options/],
    ["new ChatSession({ headers: 5 })", () => new ChatSession({ headers: 5 }), /options/],
    ["streamEvents(5)", () => streamEvents(5), /input/],
    ["streamEvents(new Response(''), 'x')", () => streamEvents(new Response(""), "x"), /options/],
  ];
  const failures = [];
  for (const [name, call, names] of cases) {
    try {
      call();
      failures.push(`${name}: did not throw`);
    } catch (error) {
      if (!(error instanceof TypeError)) failures.push(`${name}: threw ${error?.name}: ${error?.message}`);
      else if (!names.test(error.message)) failures.push(`${name}: the message does not name the parameter: ${error.message}`);
    }
  }
  // Accepted: a tool-call turn stored with `content: null`, and every byte container.
  const accepted = [
    ["resolveToolMarkers(null, undefined)", () => JSON.stringify(resolveToolMarkers(null, undefined)) === "[]"],
    ["parseLlmResponse(null)", () => parseLlmResponse(null).text === ""],
    ...[
      (b) => b.buffer,
      (b) => new DataView(b.buffer),
      (b) => new Uint16Array(b.buffer.slice(0, 2)),
      (b) => new Uint8Array(b.buffer, 1, 1),
    ].map((wrap, i) => [`push(bytes form ${i})`, () => Array.isArray(new ChatStream().push(wrap(new TextEncoder().encode("ab"))))]),
  ];
  for (const [name, call] of accepted) {
    try {
      if (!call()) failures.push(`${name}: wrong result`);
    } catch (error) {
      failures.push(`${name}: threw ${error?.name}: ${error?.message}`);
    }
  }
  return failures;
}

/** A normal stream, read after everything else: `null` when the module still works. */
export function stillWorks({ ChatStream }) {
  const stream = new ChatStream();
  const body = 'data: {"type":"text_delta","text":"still "}\n\ndata: {"type":"text_delta","text":"working"}\n\ndata: {"type":"complete","payload":{}}\n\n';
  const events = [...stream.push(body), ...stream.finish()];
  const text = events.find((e) => e.type === "complete")?.payload.text;
  return text === "still working" ? null : `a normal stream gave ${JSON.stringify(events)}`;
}

/** `promise`'s value, or `fallback` if it takes longer than `ms`. */
function within(ms, promise, fallback) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Chunks whose buffer was transferred away (detached, as by `postMessage(…, [buffer])`) before
 * they were read, in each form a chunk can take. `push` must give an error event for it (or
 * throw a TypeError) and go on; `streamEvents` and a `ChatSession` must end normally, with an
 * error and the text around the chunk kept. Returns the failures.
 */
export async function detachedChunks({ ChatStream, ChatSession, streamEvents }) {
  const encoder = new TextEncoder();
  const before = encoder.encode('data: {"type":"text_delta","text":"kept"}\n\n');
  const after = encoder.encode('data: {"type":"text_delta","text":" and after"}\n\ndata: {"type":"complete","payload":{}}\n\n');
  const forms = [
    ["a Uint8Array", (bytes) => bytes],
    ["a Uint8Array at an offset", (bytes) => bytes.subarray(2)],
    ["a DataView", (bytes) => new DataView(bytes.buffer)],
    ["an ArrayBuffer", (bytes) => bytes.buffer],
    ["a Uint16Array", (bytes) => new Uint16Array(bytes.buffer, 0, bytes.length >> 1)],
  ];
  const detached = (wrap) => {
    const bytes = encoder.encode('data: {"type":"text_delta","text":" lost"}\n\n');
    const chunk = wrap(bytes);
    structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
    return chunk;
  };
  const body = (chunk) => {
    const chunks = [before, chunk, after];
    return new ReadableStream({
      pull(controller) {
        if (chunks.length > 0) controller.enqueue(chunks.shift());
        else controller.close();
      },
    });
  };
  const textOf = (events) => events.find((e) => e.type === "complete")?.payload.text;
  const failures = [];
  for (const [form, wrap] of forms) {
    try {
      const stream = new ChatStream();
      const events = [...stream.push(before)];
      let threw = false;
      try {
        events.push(...stream.push(detached(wrap)));
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        threw = true;
      }
      events.push(...stream.push(after), ...stream.finish());
      stream.free();
      if (!threw && !events.some((e) => e.type === "error" && e.code && e.message)) {
        failures.push(`push(${form}): no error event and no TypeError`);
      }
      if (textOf(events) !== "kept and after") failures.push(`push(${form}): the text is ${JSON.stringify(textOf(events))}`);
    } catch (error) {
      failures.push(`push(${form}) threw ${error?.name}: ${error?.message}`);
    }

    try {
      const read = (async () => {
        const events = [];
        for await (const event of streamEvents(body(detached(wrap)))) events.push(event);
        return events;
      })();
      const events = await within(5000, read, null);
      if (events === null) failures.push(`streamEvents(${form}): never ended`);
      else if (!events.some((e) => e.type === "error")) failures.push(`streamEvents(${form}): no error event`);
      else if (textOf(events) !== "kept and after") failures.push(`streamEvents(${form}): the text is ${JSON.stringify(textOf(events))}`);
    } catch (error) {
      failures.push(`streamEvents(${form}) threw ${error?.name}: ${error?.message}`);
    }

    try {
      const headers = new Headers({ "content-type": "text/event-stream" });
      const fetch = async () => ({ ok: true, status: 200, headers, body: body(detached(wrap)) });
      const session = new ChatSession({ fetch });
      const ended = new Promise((resolve) => session.subscribe(() => !session.getSnapshot().isLoading && resolve()));
      session.send("hi");
      const state = await within(5000, ended.then(() => session.getSnapshot()), null);
      if (state === null) failures.push(`ChatSession(${form}): still loading`);
      else if (state.error === null) failures.push(`ChatSession(${form}): ended without an error`);
      else if (state.messages.at(-1)?.content !== "kept and after") {
        failures.push(`ChatSession(${form}): the answer is ${JSON.stringify(state.messages.at(-1)?.content)}`);
      }
      session.dispose();
    } catch (error) {
      failures.push(`ChatSession(${form}) threw ${error?.name}: ${error?.message}`);
    }
  }
  return failures;
}
