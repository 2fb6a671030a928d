//! OpenAI Chat Completions streams (`chat.completion.chunk`) and the many servers that speak
//! it: DeepSeek, Groq, xAI, Mistral, OpenRouter, vLLM, LM Studio, Anthropic's compatibility layer.
//!
//! Each `data:` event is one chunk; `data: [DONE]` ends the stream. Only choice 0 is read (the
//! product renders one message). From its `delta`:
//! - `content` is text; Mistral sends an array of parts instead: `{"type":"text","text"}` and
//!   `{"type":"thinking","thinking":[{"type":"text","text"}]}`.
//! - `refusal` is text the user must see, so it is `Text`; a message that refused finishes with
//!   `refusal` (OpenAI reports `finish_reason: "stop"` for it).
//! - Reasoning is `reasoning_content` (DeepSeek, vLLM), `reasoning` (Groq, OpenRouter, Ollama) or
//!   `reasoning_details` (OpenRouter: `reasoning.text` and `reasoning.summary` items). OpenRouter
//!   sends `reasoning` and `reasoning_details` with the same text, so the details are read only
//!   when neither plain field is.
//! - `tool_calls` are accumulated per `index`: the first delta of an index carries `id` and
//!   `function.name`, later ones only `function.arguments` fragments. Indexes may start anywhere
//!   (Anthropic's layer starts at 1); Mistral sends whole calls without an index, told apart by
//!   `id`. Every open call ends when the choice's `finish_reason` arrives, or at `[DONE]`.
//!
//! `usage` comes on the last chunk, whose `choices` may be empty, null or absent. An `error`
//! object (`{"error":{"message","type","code"}}`, `{"error":"…"}`, or vLLM's
//! `{"object":"error","message","type","code"}`) ends the message.
//!
//! ```
//! use chatstream::dialect::{DialectDecoder, OpenAiDecoder, ProviderEvent, ProviderEvents};
//! use chatstream::framing::FrameRef;
//! let mut decoder = OpenAiDecoder::default();
//! let mut out = ProviderEvents::default();
//! decoder.decode(FrameRef::data(r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#), &mut out);
//! decoder.decode(FrameRef::data("[DONE]"), &mut out);
//! assert_eq!(out.as_slice(), [ProviderEvent::Text("Hi".into()), ProviderEvent::End]);
//! ```

pub(super) mod plain;
pub(super) mod tools;

use std::collections::HashMap;

use serde_json::Value;

use super::scan::{Shape, Shapes, Taken};
use super::{own_tool_id, DialectDecoder, ProviderEvent, ProviderEvents};
use crate::error::ErrorCode;
use crate::event::{FinishReason, Usage};
use crate::framing::FrameRef;

/// Reads Chat Completions streams (OpenAI and compatible servers).
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub struct OpenAiDecoder {
    /// Tool calls started so far, in the order they started.
    calls: Vec<ToolCall>,
    /// Where each `index` and each id first appears in `calls`: a hostile stream may start tens of
    /// thousands of calls, and a search of every call per delta would make it quadratic. An index
    /// is kept as its decimal text: a `HashMap<String, usize>` is the map every other stage uses,
    /// and a map of `u64` keys would be another copy of the map's code in the openai module.
    by_index: HashMap<String, usize>,
    by_id: HashMap<String, usize>,
    /// Where the search for an id of its own goes on, for a call under an id another call has.
    next_suffix: usize,
    /// The calls before this one are closed: ending calls again looks at the new ones only.
    closed_before: usize,
    /// A refusal was streamed: the finish reason is `refusal`.
    refused: bool,
    /// A `finish_reason` was reported; providers repeat it on the usage chunk.
    finished: bool,
    /// The shapes of the last two plain chunks: Mistral's reasoning models stream thinking and
    /// text as content parts of two shapes, and one shape learned again at every turn of a
    /// stream that goes back and forth.
    plain: Shapes<(), 4, 2>,
    /// The shape of the last chunk read by [`tools::chunk`]. While it is one with tool calls,
    /// the next chunk is tried as such first, not as a plain chunk: a failed plain scan was a
    /// tenth of reading a stream of argument deltas.
    tools: Shape<tools::Chunk, { tools::SLOTS }>,
}

#[derive(Debug)]
#[cfg_attr(test, derive(PartialEq))]
struct ToolCall {
    id: String,
    open: bool,
}

impl DialectDecoder for OpenAiDecoder {
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        let data = frame.data.trim();
        if data.is_empty() {
            return;
        }
        if data == "[DONE]" {
            self.close_calls(out);
            return out.push(ProviderEvent::End);
        }
        if !self.tools.learned().is_some_and(|chunk| chunk.calls > 0) {
            if let Some(((), [content, reasoning_content, reasoning, thinking_part])) =
                self.plain.read(data, plain::plain)
            {
                // As the general path reads it: the first reasoning field with text, then the
                // content (a string, or one part: thinking or text).
                if let Some(thinking) = [reasoning_content, reasoning].into_iter().flatten().find(|t| !t.is_empty()) {
                    out.thinking(thinking);
                }
                out.thinking(thinking_part.unwrap_or_default());
                out.text(content.unwrap_or_default());
                return;
            }
        }
        if let Some((chunk, taken)) = self.tools.read(data, tools::chunk) {
            return self.read_scanned(chunk, &taken, out);
        }
        self.decode_chunk(data, out);
    }
}

impl OpenAiDecoder {
    /// A chunk [`tools::chunk`] read, in the general path's order: reasoning, text, calls,
    /// finish, usage.
    fn read_scanned(&mut self, chunk: tools::Chunk, taken: &Taken<'_, { tools::SLOTS }>, out: &mut ProviderEvents) {
        let text = |slot: usize| taken[slot].as_deref();
        if let Some(thinking) =
            [plain::REASONING_CONTENT, plain::REASONING].into_iter().filter_map(text).find(|t| !t.is_empty())
        {
            out.thinking(thinking);
        }
        out.text(text(plain::CONTENT).unwrap_or_default());
        for (at, index) in chunk.index.into_iter().enumerate().take(chunk.calls) {
            let field = |field| text(tools::slot(at, field));
            self.call_delta(index, field(tools::ID), field(tools::NAME), field(tools::ARGUMENTS), out);
        }
        if let Some(reason) = chunk.finish {
            self.finish(reason, out);
        }
        if let Some(usage) = chunk.usage() {
            out.push(ProviderEvent::Usage(usage));
        }
    }

    /// Any chunk, read as a `Value` (the general path).
    pub(super) fn decode_chunk(&mut self, data: &str, out: &mut ProviderEvents) {
        let chunk: Value = match crate::json::parse(data) {
            Ok(chunk @ Value::Object(_)) => chunk,
            Ok(_) => return out.push(ProviderEvent::unreadable("expected a JSON object")),
            Err(err) => return out.push(ProviderEvent::unreadable(err)),
        };
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return out.push(error_event(error));
        }
        if chunk.get("object").and_then(Value::as_str) == Some("error") {
            return out.push(error_event(&chunk));
        }
        // The last chunk, carrying usage, may have `choices` empty, null or absent.
        let choices = match chunk.get("choices") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(choices)) => choices.as_slice(),
            Some(_) => return out.push(ProviderEvent::unreadable("\"choices\" is not an array")),
        };
        let choice = choices.iter().find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0);
        if let Some(choice) = choice {
            self.choice(choice, out);
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            out.push(ProviderEvent::Usage(read_usage(usage, &UsageKeys::CHAT)));
        }
    }

    fn choice(&mut self, choice: &Value, out: &mut ProviderEvents) {
        let delta = &choice["delta"];
        self.reasoning(delta, out);
        match &delta["content"] {
            Value::String(text) if !text.is_empty() => out.push(ProviderEvent::Text(text.clone())),
            Value::Array(parts) => parts.iter().for_each(|part| content_part(part, out)),
            _ => {}
        }
        if let Some(refusal) = delta.get("refusal").and_then(Value::as_str).filter(|r| !r.is_empty()) {
            self.refused = true;
            out.push(ProviderEvent::Text(refusal.to_owned()));
        }
        for call in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            self.tool_call(call, out);
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish(normalize_finish(reason), out);
        }
    }

    /// The choice finished: every open call ends, and the first finish is reported.
    fn finish(&mut self, reason: FinishReason, out: &mut ProviderEvents) {
        self.close_calls(out);
        if !self.finished {
            self.finished = true;
            let reason = if self.refused { FinishReason::Refusal } else { reason };
            out.push(ProviderEvent::Finish { reason });
        }
    }

    fn reasoning(&self, delta: &Value, out: &mut ProviderEvents) {
        let plain = ["reasoning_content", "reasoning"]
            .iter()
            .find_map(|key| delta.get(*key).and_then(Value::as_str).filter(|t| !t.is_empty()));
        if let Some(text) = plain {
            return out.push(ProviderEvent::Thinking(text.to_owned()));
        }
        for detail in delta.get("reasoning_details").and_then(Value::as_array).into_iter().flatten() {
            // `reasoning.encrypted` items carry no readable text.
            let text = match detail.get("type").and_then(Value::as_str) {
                Some("reasoning.text") => detail.get("text"),
                Some("reasoning.summary") => detail.get("summary"),
                _ => None,
            };
            if let Some(text) = text.and_then(Value::as_str).filter(|t| !t.is_empty()) {
                out.push(ProviderEvent::Thinking(text.to_owned()));
            }
        }
    }

    /// `{"index", "id"?, "function": {"name"?, "arguments"?}}`.
    fn tool_call(&mut self, call: &Value, out: &mut ProviderEvents) {
        let function = &call["function"];
        let index = call.get("index").and_then(Value::as_u64);
        let id = call.get("id").and_then(Value::as_str);
        let name = function.get("name").and_then(Value::as_str);
        self.call_delta(index, id, name, function.get("arguments").and_then(Value::as_str), out);
    }

    /// One call's delta, however it was read: starts the call if it is new, then streams its
    /// arguments while it is open.
    fn call_delta(
        &mut self,
        index: Option<u64>,
        id: Option<&str>,
        name: Option<&str>,
        arguments: Option<&str>,
        out: &mut ProviderEvents,
    ) {
        let id = id.filter(|id| !id.is_empty());
        let position = match (index, id) {
            (Some(index), _) => self.by_index.get(itoa::Buffer::new().format(index)).copied(),
            (None, Some(id)) => self.by_id.get(id).copied(),
            // No index and no id: a continuation of the latest call.
            (None, None) => self.calls.len().checked_sub(1),
        };
        let position = match position {
            Some(position) => position,
            None => {
                let id = match (id, index) {
                    (Some(id), _) => id.to_owned(),
                    (None, index) => format!("call_{}", index.unwrap_or(self.calls.len() as u64)),
                };
                // Another index under an id a call already has: calls stay open side by side
                // until the finish, so only here can the two be told apart.
                let id = match self.by_id.get(id.as_str()) {
                    None => id,
                    Some(_) => {
                        // `get`, as above: `contains_key` would be another copy of the map's code.
                        #[allow(clippy::unnecessary_get_then_check)]
                        let taken = |candidate: &str| self.by_id.get(candidate).is_some();
                        let (own, error) = own_tool_id(&id, &mut self.next_suffix, &taken);
                        out.push(error);
                        own
                    }
                };
                let name = name.unwrap_or_default().to_owned();
                out.push(ProviderEvent::ToolCallStart { id: id.clone(), name });
                let position = self.calls.len();
                if let Some(index) = index {
                    self.by_index.entry(itoa::Buffer::new().format(index).to_owned()).or_insert(position);
                }
                self.by_id.entry(id.clone()).or_insert(position);
                self.calls.push(ToolCall { id, open: true });
                position
            }
        };
        let call = &self.calls[position];
        if let Some(delta) = arguments.filter(|a| !a.is_empty()) {
            if call.open {
                out.push(ProviderEvent::ToolCallDelta { id: call.id.clone(), delta: delta.to_owned() });
            }
        }
    }

    fn close_calls(&mut self, out: &mut ProviderEvents) {
        for call in self.calls[self.closed_before..].iter_mut().filter(|c| c.open) {
            call.open = false;
            out.push(ProviderEvent::ToolCallEnd { id: call.id.clone(), name: None, input: None });
        }
        self.closed_before = self.calls.len();
    }
}

/// One part of Mistral's content array.
fn content_part(part: &Value, out: &mut ProviderEvents) {
    let text_of =
        |value: &Value| value.get("text").and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_owned);
    match part.get("type").and_then(Value::as_str) {
        Some("text") => out.extend(text_of(part).map(ProviderEvent::Text)),
        Some("thinking") => {
            for inner in part.get("thinking").and_then(Value::as_array).into_iter().flatten() {
                out.extend(text_of(inner).map(ProviderEvent::Thinking));
            }
        }
        _ => {}
    }
}

/// `stop`, `length`, `tool_calls`, `content_filter` are OpenAI's; `function_call` is the legacy
/// form of `tool_calls`, `model_length` Mistral's `length`.
fn normalize_finish(reason: &str) -> FinishReason {
    match reason {
        "stop" | "end_turn" | "stop_sequence" => FinishReason::Stop,
        "length" | "model_length" | "max_tokens" => FinishReason::Length,
        "tool_calls" | "function_call" | "tool_use" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        "error" => FinishReason::Error,
        _ => FinishReason::Other,
    }
}

/// `{"message", "type", "code"}`, or a bare string. `code` may be an HTTP status (vLLM,
/// OpenRouter) or a word; the first of `code` (`invalid_api_key`, `rate_limit_exceeded`) and
/// `type` (`invalid_request_error`) that names a known kind decides. The Responses API's error
/// objects have the same fields.
pub(super) fn error_event(error: &Value) -> ProviderEvent {
    if let Some(message) = error.as_str() {
        return ProviderEvent::provider_error_from_message(message);
    }
    let text = |key: &str| error.get(key).and_then(Value::as_str);
    let code = match error.get("code").and_then(Value::as_u64) {
        Some(status) => ErrorCode::from_http_status(status.try_into().unwrap_or(u16::MAX)),
        None => [text("code"), text("type")]
            .into_iter()
            .flatten()
            .map(ErrorCode::from_provider_kind)
            .find(|code| *code != ErrorCode::ServiceUnavailable)
            .unwrap_or(ErrorCode::ServiceUnavailable),
    };
    ProviderEvent::provider_error(code, text("message"))
}

/// The keys of OpenAI's usage object: Chat Completions names its sides `prompt` and
/// `completion`, the Responses API `input` and `output`.
pub(super) struct UsageKeys {
    input: &'static str,
    output: &'static str,
    input_details: &'static str,
    output_details: &'static str,
}

impl UsageKeys {
    pub(super) const CHAT: UsageKeys = UsageKeys {
        input: "prompt_tokens",
        output: "completion_tokens",
        input_details: "prompt_tokens_details",
        output_details: "completion_tokens_details",
    };
    pub(super) const RESPONSES: UsageKeys = UsageKeys {
        input: "input_tokens",
        output: "output_tokens",
        input_details: "input_tokens_details",
        output_details: "output_tokens_details",
    };
}

/// OpenAI's usage object. The keys are written out, not formatted from the sides' names: four
/// `format!`s were a tenth of reading a chunk that carries usage.
pub(super) fn read_usage(usage: &Value, keys: &UsageKeys) -> Usage {
    let count = |value: &Value, key: &str| value.get(key).and_then(Value::as_u64);
    Usage {
        input_tokens: count(usage, keys.input),
        output_tokens: count(usage, keys.output),
        reasoning_tokens: count(&usage[keys.output_details], "reasoning_tokens"),
        cached_input_tokens: count(&usage[keys.input_details], "cached_tokens"),
        total_tokens: count(usage, "total_tokens"),
    }
}

#[cfg(test)]
mod tests;
