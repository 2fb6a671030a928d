// Provider mode: ChatSession talks to a provider through the proxy and runs the tools here.
// Against the proxy's offline simulated provider, in every provider format: it calls a tool when
// the request offers tools and the prompt names one, and answers once the conversation ends with
// the tool's result.
//
// Needs the proxy binary (CHATSTREAM_PROXY, default target/debug/chatstream-proxy) and pkg/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ChatSession } from "../../pkg/index.js";

initSync({ module: readFileSync(new URL("../../pkg/chatstream_bg.wasm", import.meta.url)) });

const root = fileURLToPath(new URL("../..", import.meta.url));
const proxyBin = process.env.CHATSTREAM_PROXY ?? `${root}target/debug/chatstream-proxy`;
const PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "ollama", "compat"];

let proxy, baseUrl;

before(async () => {
  proxy = spawn(proxyBin, ["--port", "0", "--sim-delay-ms", "0", "--rate-limit", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  baseUrl = await new Promise((resolve, reject) => {
    let out = "";
    proxy.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.split("\n")[0].trim().replace(/\/$/, ""));
    });
    proxy.on("error", reject);
    proxy.on("exit", (code) => reject(new Error(`the proxy exited (${code})`)));
  });
});

after(() => proxy?.kill());

/** A fetch to the proxy that keeps every request body it sends. */
function recordingFetch() {
  const bodies = [];
  const fetchFn = (url, init) => {
    bodies.push(JSON.parse(init.body));
    return fetch(baseUrl + url, init);
  };
  return { fetch: fetchFn, bodies };
}

const weather = (execute) => ({
  name: "get_weather",
  description: "The weather in a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute,
});

const clock = {
  name: "get_time",
  description: "The time now",
  input_schema: { type: "object", properties: {} },
  execute: async () => "12:00",
};

async function collect(iterable) {
  const events = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const kinds = (events) => events.map((e) => e.type);
const completeOf = (events) => events.find((e) => e.type === "complete").payload;

for (const provider of PROVIDERS) {
  test(`${provider}: a conversation with two tool calls completes with the right history`, async () => {
    const { fetch: fetchFn, bodies } = recordingFetch();
    const seen = [];
    const session = new ChatSession({
      provider,
      model: "sim-model",
      system: "You are a test.",
      fetch: fetchFn,
      tools: [
        weather(async (input, { signal, progress }) => {
          assert.ok(signal instanceof AbortSignal);
          seen.push(input);
          progress({ stage: "looking", message: "Looking outside", progress: 0.5 });
          return { city: input.city, temp_c: 18 };
        }),
        clock,
      ],
    });

    const first = await collect(session.send("Please use get_weather now"));
    const types = kinds(first);
    assert.ok(types.includes("tool_call"), types.join());
    assert.deepEqual(
      types.filter((t) => ["tool_progress", "tool_complete", "complete"].includes(t)),
      ["tool_progress", "tool_complete", "complete"],
    );
    assert.equal(types.at(-1), "complete");
    assert.equal(seen.length, 1);
    const done = first.find((e) => e.type === "tool_complete");
    assert.deepEqual(done.output, { city: seen[0].city, temp_c: 18 });
    assert.equal(done.is_error, false);
    const payload = completeOf(first);
    assert.match(payload.text, /The get_weather tool returned/);
    assert.match(payload.message, /\[\[tool:0\]\]/);
    assert.equal(payload.tool_history.length, 1);
    assert.deepEqual(payload.tool_history[0].output, { city: seen[0].city, temp_c: 18 });
    assert.equal(payload.iterations, 2);
    assert.equal(bodies.length, 2, "one request with the question, one with the tool's result");

    const second = await collect(session.send("And use get_time too"));
    const secondPayload = completeOf(second);
    // Gemini takes a function response as an object: a plain result goes as {"result": …}.
    assert.match(secondPayload.text, /The get_time tool returned: (12:00|\{"result":"12:00"\})\./);
    assert.equal(secondPayload.tool_history[0].tool_name, "get_time");
    // The third request carried the whole first exchange: question, call, result, answer.
    const third = JSON.stringify(bodies[2]);
    for (const part of ["Please use get_weather now", "get_weather", "temp_c", "And use get_time too", "You are a test."]) {
      assert.ok(third.includes(part), `${part} missing from ${third}`);
    }
    const state = session.getSnapshot();
    assert.equal(state.isLoading, false);
    assert.deepEqual(
      state.messages.map((m) => m.role),
      ["user", "assistant", "user", "assistant"],
    );
    assert.equal(state.messages[1].tool_history[0].tool_name, "get_weather");
    assert.equal(state.error, null);
  });
}

test("after maxIterations the model is asked to answer without tools", async () => {
  for (const provider of PROVIDERS) {
    const { fetch: fetchFn, bodies } = recordingFetch();
    const session = new ChatSession({
      provider,
      model: "sim-model",
      fetch: fetchFn,
      maxIterations: 1,
      tools: [weather(async () => "sunny")],
    });
    const events = await collect(session.send("use get_weather"));
    assert.equal(events.at(-1).type, "complete", provider);
    assert.equal(bodies.length, 2, provider);
    const last = bodies[1];
    const forbidden =
      last.tool_choice === "none" ||
      last.tool_choice?.type === "none" ||
      last.toolConfig?.functionCallingConfig?.mode === "NONE" ||
      (provider === "ollama" && last.tools === undefined);
    assert.ok(forbidden, `${provider}: ${JSON.stringify(last)}`);
  }
});

test("a tool that throws gives an error result and the loop goes on", async () => {
  for (const provider of PROVIDERS) {
    const session = new ChatSession({
      provider,
      model: "sim-model",
      fetch: recordingFetch().fetch,
      tools: [weather(async () => { throw new Error("weather service down"); })],
    });
    const events = await collect(session.send("use get_weather"));
    const done = events.find((e) => e.type === "tool_complete");
    assert.equal(done.is_error, true, provider);
    assert.equal(done.output.message, "Error: weather service down");
    assert.equal(events.at(-1).type, "complete", `${provider}: the answer still comes`);
    assert.ok(!events.some((e) => e.type === "error"), provider);
    assert.match(completeOf(events).text, /The get_weather tool returned/);
  }
});

test("a tool that takes too long times out, is aborted, and gives an error result", async () => {
  let aborted = false;
  const session = new ChatSession({
    provider: "openai",
    model: "sim-model",
    fetch: recordingFetch().fetch,
    toolTimeoutMs: 50,
    tools: [
      weather((input, { signal }) => new Promise(() => signal.addEventListener("abort", () => (aborted = true)))),
    ],
  });
  const events = await collect(session.send("use get_weather"));
  const done = events.find((e) => e.type === "tool_complete");
  assert.equal(done.is_error, true);
  assert.equal(done.output.code, "SERVICE_UNAVAILABLE");
  assert.match(done.output.message, /timed out after 50 ms/);
  assert.equal(aborted, true, "the tool's signal was aborted");
  assert.equal(events.at(-1).type, "complete");
});

test("input that fails the tool's schema is a validation error the model can retry on", async () => {
  let ran = false;
  const session = new ChatSession({
    provider: "anthropic",
    model: "sim-model",
    fetch: recordingFetch().fetch,
    tools: [
      {
        name: "book_days",
        description: "Books days",
        input_schema: { type: "object", properties: { days: { type: "integer", minimum: 2 } } },
        execute: async () => { ran = true; return "booked"; },
      },
    ],
  });
  const events = await collect(session.send("use book_days"));
  const done = events.find((e) => e.type === "tool_complete");
  assert.equal(ran, false, "the tool never ran");
  assert.equal(done.is_error, true);
  assert.equal(done.output.code, "VALIDATION_ERROR");
  assert.match(done.output.message, /input.days: below the minimum 2/);
});

test("cancel during a tool aborts it and ends with the partial answer, then cancelled", async () => {
  let toolSignal;
  let session;
  session = new ChatSession({
    provider: "gemini",
    model: "sim-model",
    fetch: recordingFetch().fetch,
    tools: [
      weather((input, { signal }) => {
        toolSignal = signal;
        setTimeout(() => session.cancel(), 10);
        return new Promise(() => {});
      }),
    ],
  });
  const events = await collect(session.send("use get_weather"));
  assert.deepEqual(kinds(events).slice(-2), ["complete", "cancelled"]);
  assert.equal(toolSignal.aborted, true);
  assert.match(completeOf(events).text, /I'll call get_weather/);
  const state = session.getSnapshot();
  assert.equal(state.isLoading, false);
  assert.equal(state.messages.at(-1).cancelled, true);
  assert.equal(session.cancel().code, "CONFLICT", "nothing left to cancel");
});

/**
 * A fetch to the proxy whose request number `cut` (from 0) gets the first half of the provider's
 * response, up to a line's end, and then nothing more until it is aborted: an answer stopped in
 * the middle.
 */
function halfFetch(cut) {
  let requests = 0;
  return async (url, init) => {
    const response = await fetch(baseUrl + url, init);
    if (requests++ !== cut) return response;
    const text = await response.text();
    const half = text.slice(0, text.lastIndexOf("\n", text.length / 2) + 1);
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(half));
        init.signal?.addEventListener("abort", () => controller.error(init.signal.reason), { once: true });
      },
    });
    return new Response(body, { headers: { "content-type": response.headers.get("content-type") } });
  };
}

/** Sends `message` and stops the answer at its first text after the events `before` names. */
async function stopAtText(session, message, before = []) {
  const events = [];
  let stopped = false;
  for await (const event of session.send(message)) {
    events.push(event);
    if (!stopped && event.type === "text_delta" && before.every((type) => kinds(events).includes(type))) {
      stopped = true;
      session.stop();
    }
  }
  return events;
}

for (const provider of PROVIDERS) {
  test(`${provider}: a stopped answer keeps what arrived, and asking again replaces it`, { timeout: 20000 }, async () => {
    const session = new ChatSession({ provider, model: "sim-model", fetch: halfFetch(0) });
    const stopped = await stopAtText(session, "Tell me something");
    assert.deepEqual(kinds(stopped).slice(-2), ["complete", "cancelled"]);
    assert.equal(kinds(stopped).filter((t) => t === "complete").length, 1);
    const partial = completeOf(stopped);
    assert.ok(partial.text.length > 0, "the text that arrived");
    const kept = session.getSnapshot().messages;
    assert.deepEqual(kept.map((m) => m.role), ["user", "assistant"]);
    assert.equal(kept[1].content, partial.message);
    assert.equal(kept[1].cancelled, true);

    const again = completeOf(await collect(session.regenerate()));
    assert.ok(again.text.startsWith(partial.text) && again.text.length > partial.text.length, `${partial.text} | ${again.text}`);
    const messages = session.getSnapshot().messages;
    assert.deepEqual(messages.map((m) => [m.role, m.content]), [["user", "Tell me something"], ["assistant", again.message]]);
  });
}

test("stopped in the round after a tool: the tool's result and both rounds' text are kept", { timeout: 20000 }, async () => {
  const session = new ChatSession({
    provider: "openai",
    model: "sim-model",
    fetch: halfFetch(1),
    tools: [weather(async (input) => ({ city: input.city, temp_c: 18 }))],
  });
  const events = await stopAtText(session, "Please use get_weather now", ["tool_complete"]);
  assert.deepEqual(kinds(events).slice(-2), ["complete", "cancelled"]);
  const partial = completeOf(events);
  assert.match(partial.text, /^I'll call get_weather[^]*\n\nThe /);
  assert.deepEqual(partial.tool_history[0].output.temp_c, 18);
  const last = session.getSnapshot().messages.at(-1);
  assert.equal(last.content, partial.message);
  assert.equal(last.tool_history[0].output.temp_c, 18);
  assert.equal(last.cancelled, true);
});

test("provider mode validates: model required, message not empty, tools need execute", async () => {
  const noModel = new ChatSession({ provider: "openai", fetch: recordingFetch().fetch });
  const events = await collect(noModel.send("hello"));
  assert.deepEqual(
    events.map((e) => [e.type, e.code, e.field]),
    [["error", "VALIDATION_ERROR", "model"]],
  );
  assert.equal(noModel.getSnapshot().error.code, "VALIDATION_ERROR");
  assert.equal(noModel.getSnapshot().isLoading, false);
  const empty = new ChatSession({ provider: "openai", model: "m", fetch: recordingFetch().fetch });
  assert.equal((await collect(empty.send("  ")))[0].code, "VALIDATION_ERROR");
  assert.throws(() => new ChatSession({ provider: "klingon", model: "m" }), /unknown provider "klingon"/);
  assert.throws(
    () => new ChatSession({ provider: "openai", model: "m", tools: [{ name: "x", input_schema: {} }] }),
    /tool "x" has no execute function/,
  );
});

test("an HTTP error from the provider keeps the user's message and shows the contract's code", async () => {
  const session = new ChatSession({ provider: "anthropic", model: "m", fetch: recordingFetch().fetch });
  const events = await collect(session.send("sim:429 hello"));
  assert.deepEqual(kinds(events), ["error"]);
  assert.equal(events[0].code, "RATE_LIMITED");
  const state = session.getSnapshot();
  assert.deepEqual(state.messages.map((m) => m.content), ["sim:429 hello"]);
  assert.equal(state.error.code, "RATE_LIMITED");
});
