// The benchmark's streams, generated the same way every run (seeded), as the providers send them.

/** A small seeded generator (mulberry32), so every run cuts the same chunks. */
export function rng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "the of and to in is that for it as with was on be by this are or from at which an have not but".split(" ");

/** `n` token-sized pieces of prose (3-8 bytes each, as models stream them). */
export function tokens(n, seed = 1) {
  const next = rng(seed);
  const out = [];
  for (let i = 0; i < n; i++) out.push(" " + WORDS[Math.floor(next() * WORDS.length)]);
  return out;
}

const sse = (data, event) => (event ? `event: ${event}\n` : "") + `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/** An OpenAI Chat Completions stream of `pieces`, with the usage chunk and [DONE]. */
export function openaiStream(pieces) {
  const chunk = (delta, finish = null) =>
    sse({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "gpt-4o", choices: [{ index: 0, delta, finish_reason: finish }] });
  let out = chunk({ role: "assistant", content: "" });
  for (const p of pieces) out += chunk({ content: p });
  out += chunk({}, "stop");
  out += sse({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "gpt-4o", choices: [], usage: { prompt_tokens: 10, completion_tokens: pieces.length, total_tokens: pieces.length + 10 } });
  return out + sse("[DONE]");
}

/** The same text as an AI SDK UI message stream (what its useChat reads). */
export function uiMessageStream(pieces) {
  let out = sse({ type: "start", messageId: "msg-bench" }) + sse({ type: "start-step" }) + sse({ type: "text-start", id: "t0" });
  for (const p of pieces) out += sse({ type: "text-delta", id: "t0", delta: p });
  out += sse({ type: "text-end", id: "t0" }) + sse({ type: "finish-step" }) + sse({ type: "finish" });
  return out + sse("[DONE]");
}

/** An Anthropic stream: thinking, text, then a tool call whose input streams in `inputPieces`. */
export function anthropicStream(thinking, text, inputPieces) {
  let out = sse({ type: "message_start", message: { id: "msg_bench", type: "message", role: "assistant", model: "claude", content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }, "message_start");
  out += sse({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }, "content_block_start");
  for (const p of thinking) out += sse({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: p } }, "content_block_delta");
  out += sse({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "c2ln" } }, "content_block_delta");
  out += sse({ type: "content_block_stop", index: 0 }, "content_block_stop");
  out += sse({ type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }, "content_block_start");
  for (const p of text) out += sse({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: p } }, "content_block_delta");
  out += sse({ type: "content_block_stop", index: 1 }, "content_block_stop");
  out += sse({ type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_bench", name: "write_report", input: {} } }, "content_block_start");
  for (const p of inputPieces) out += sse({ type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: p } }, "content_block_delta");
  out += sse({ type: "content_block_stop", index: 2 }, "content_block_stop");
  out += sse({ type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 100 } }, "message_delta");
  return out + sse({ type: "message_stop" }, "message_stop");
}

/** A tool input (`{"report": "…"}`) cut into `n` pieces of JSON text. */
export function toolInputPieces(n, seed = 3) {
  const json = JSON.stringify({ report: tokens(n, seed).join("") });
  const size = Math.max(1, Math.ceil(json.length / n));
  const out = [];
  for (let i = 0; i < json.length; i += size) out.push(json.slice(i, i + size));
  return out;
}

/** The agent backend protocol: text with `[[tool:N]]` markers split across deltas, tools, suggestions. */
export function agentStream(pieces) {
  let out = sse({ type: "status", message: "Thinking..." });
  let tool = 0;
  pieces.forEach((p, i) => {
    if (i > 0 && i % 500 === 0) {
      out += sse({ type: "tool_start", tool: "search", input: { q: "x" } });
      out += sse({ type: "tool_progress", tool: "search", stage: "run", message: "Searching", progress: 0.5, data: null });
      out += sse({ type: "tool_complete", tool: "search", index: tool });
      // The marker arrives split across three deltas.
      out += sse({ type: "text_delta", text: "\n\n[[to" }) + sse({ type: "text_delta", text: `ol:${tool}` }) + sse({ type: "text_delta", text: "]]\n\n" });
      tool++;
    }
    out += sse({ type: "text_delta", text: p });
  });
  out += sse({ type: "text_delta", text: '\nSUGGESTED_VALUES: [{"label": "More", "value": "more"}]' });
  return out + sse({ type: "complete", payload: { message: "(the backend's copy)" } });
}

/** Cuts `bytes` into network-sized chunks (`min` to `max` bytes, 1-16 KB unless told), the same cuts for the same seed. */
export function chunked(bytes, seed = 7, { min = 1024, max = 16 * 1024 } = {}) {
  const next = rng(seed);
  const out = [];
  for (let at = 0; at < bytes.length; ) {
    const size = min + Math.floor(next() * (max - min));
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}
