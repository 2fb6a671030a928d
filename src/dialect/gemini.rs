//! Gemini's `streamGenerateContent?alt=sse` (ai.google.dev, "Generating content"; Vertex AI's
//! `GenerateContentResponse`).
//!
//! Every event is a whole `GenerateContentResponse`: `candidates[0].content.parts` carry text
//! (`thought: true` marks thinking), and function calls; the last one has a `finishReason`.
//! `usageMetadata` repeats running counts. There is no terminal event: the body ends after the
//! `finishReason`, so [`DialectDecoder::finish`] says whether the stream finished properly.
//! Only the first candidate is read (chat asks for one).
//!
//! Function calls come whole (`{"functionCall":{"name","args"}}`) or, on Vertex with
//! `streamFunctionCallArguments`, in pieces: a part with the `name` and `willContinue: true`, then
//! parts whose `partialArgs` set values at JSON paths ("Whether this is not the last part of the
//! same json_path. If true, another PartialArg message for the current json_path is expected to
//! follow"), until a part without `willContinue` closes the call. Gemini gives calls no id unless
//! `functionCall.id` is set; one is made from the `responseId` and the call's number
//! (`<responseId>-0`, or `call_0` without a `responseId`), the same however the bytes were split.
//!
//! Gemini 3 wants each part's `thoughtSignature` sent back with that part; they are attached to
//! `complete.payload.thought_signatures` as `{"signature"}`, with `"tool_use_id"` when the part
//! was a function call.
//!
//! ```
//! use chatstream::dialect::{DialectDecoder, GeminiDecoder, ProviderEvent, ProviderEvents};
//! use chatstream::framing::FrameRef;
//! let mut decoder = GeminiDecoder::default();
//! let mut out = ProviderEvents::default();
//! let chunk = r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP"}]}"#;
//! decoder.decode(FrameRef::data(chunk), &mut out);
//! decoder.finish(&mut out);
//! assert_eq!(out.as_slice(), [
//!     ProviderEvent::Text("Hi".into()),
//!     ProviderEvent::Finish { reason: "stop".into() },
//!     ProviderEvent::End,
//! ]);
//! ```

use serde_json::{Map, Number, Value};

use super::scan::Shapes;
use super::{DialectDecoder, ProviderEvent, ProviderEvents};
use crate::error::ErrorCode;
use crate::event::{FinishReason, Usage};
use crate::framing::FrameRef;

pub(super) mod plain;

/// Reads Gemini's `streamGenerateContent` stream.
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub struct GeminiDecoder {
    response_id: Option<String>,
    /// Function calls seen so far: numbers the synthesized ids, and makes `STOP` a tool-call stop.
    calls: u32,
    /// A Vertex call whose arguments are still streaming.
    streaming: Option<StreamingCall>,
    /// A `finishReason` arrived: the end of the body is the end of a complete answer.
    finished: bool,
    /// The shapes of the last plain responses.
    responses: Shapes<plain::Plain, { plain::SLOTS }, 3>,
}

#[derive(Debug)]
#[cfg_attr(test, derive(PartialEq))]
struct StreamingCall {
    id: String,
    name: String,
    args: Value,
    /// The JSON path whose string value continues in the next `partialArgs` piece.
    continuing: Option<String>,
}

/// What a `functionCall` part says, as the general path and the fast path both read it.
struct CallPart<'a> {
    /// A string `name` starts a call; a part without one continues the call still streaming.
    name: Option<&'a str>,
    id: Option<&'a str>,
    /// Read only beside a name.
    args: Option<Value>,
    will_continue: bool,
    partial_args: &'a [Value],
}

impl<'a> CallPart<'a> {
    fn of(call: &'a Value) -> CallPart<'a> {
        let name = call.get("name").and_then(Value::as_str);
        CallPart {
            name,
            id: call.get("id").and_then(Value::as_str),
            args: name.and_then(|_| call.get("args").cloned()),
            will_continue: call.get("willContinue").and_then(Value::as_bool) == Some(true),
            partial_args: call.get("partialArgs").and_then(Value::as_array).map_or(&[], Vec::as_slice),
        }
    }
}

impl DialectDecoder for GeminiDecoder {
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        if let Some((plain, [text, id, reason, signature, name, call_id, args, partial_args, counts @ ..])) =
            self.responses.read(frame.data, plain::plain)
        {
            // The call's values before anything is read: where the reader refuses what the
            // scanner accepted, the general path reads the response. As there, a piece without a
            // name has no `args`, and only an array of `partialArgs` is read.
            let args = match args.filter(|_| name.is_some()).as_deref().map(crate::json::parse) {
                Some(Ok(args)) => Some(args),
                Some(Err(_)) => return self.decode_value(frame.data, out),
                None => None,
            };
            let partial_args = match partial_args.as_deref().map(crate::json::parse) {
                Some(Ok(Value::Array(pieces))) => pieces,
                Some(Ok(_)) | None => Vec::new(),
                Some(Err(_)) => return self.decode_value(frame.data, out),
            };
            // Each count a whole number that fits a `u64`, as the general path's `as_u64` reads
            // it; any other number is left to the general path.
            let mut whole = [None; 6];
            for (slot, count) in whole.iter_mut().zip(&counts) {
                if let Some(count) = count {
                    match count.parse() {
                        Ok(n) => *slot = Some(n),
                        Err(_) => return self.decode_value(frame.data, out),
                    }
                }
            }
            // As the general path reads it: the id, the part, its signature, the finish, the usage.
            if self.response_id.is_none() {
                self.response_id = id.map(String::from);
            }
            let mut tool_use_id = None;
            // The text as the reader took it: a borrowed piece that continues a run is appended to
            // it, not first copied into a string of its own (an allocation a frame).
            if let Some(text) = text.filter(|t| !t.is_empty()) {
                if plain.thought {
                    out.thinking(text);
                } else {
                    out.text(text);
                }
            } else if plain.call {
                let call = CallPart {
                    name: name.as_deref(),
                    id: call_id.as_deref(),
                    args,
                    will_continue: plain.will_continue,
                    partial_args: &partial_args,
                };
                tool_use_id = self.function_call(call, out);
            }
            if let Some(signature) = signature {
                out.push(thought_signature(Value::String(signature.into()), tool_use_id));
            }
            if let Some(reason) = reason {
                self.finish_with(&reason, out);
            }
            if let Some(usage) = usage_of(whole) {
                out.push(ProviderEvent::Usage(usage));
            }
            return;
        }
        self.decode_value(frame.data, out);
    }

    fn finish(&mut self, out: &mut ProviderEvents) {
        // Without a finishReason the body was cut short: nothing is added, and the cleaner reports
        // a stream that ended before completion.
        if self.finished {
            out.push(ProviderEvent::End);
        }
    }
}

impl GeminiDecoder {
    /// Any response, read as a `Value` (the general path).
    pub(super) fn decode_value(&mut self, data: &str, out: &mut ProviderEvents) {
        match crate::json::parse(data) {
            // The non-SSE form of the endpoint sends an array of responses; read one the same way.
            Ok(Value::Array(responses)) => responses.iter().for_each(|r| self.response(r, out)),
            Ok(response) => self.response(&response, out),
            Err(err) => out.push(ProviderEvent::unreadable(err)),
        }
    }

    fn response(&mut self, response: &Value, out: &mut ProviderEvents) {
        if let Some(error) = response.get("error").filter(|e| e.is_object()) {
            return out.push(error_event(error));
        }
        if self.response_id.is_none() {
            self.response_id = response.get("responseId").and_then(Value::as_str).map(str::to_owned);
        }
        if let Some(reason) = at(response, &["promptFeedback", "blockReason"]).and_then(Value::as_str) {
            // A blocked prompt gets no candidates at all: say why instead of showing an empty answer.
            out.push(ProviderEvent::Finish { reason: FinishReason::ContentFilter });
            out.push(ProviderEvent::Error {
                code: ErrorCode::ValidationError,
                message: format!("The prompt was blocked by the provider ({reason})"),
                fatal: true,
            });
            return;
        }
        let candidate = at(response, &["candidates", "0"]).unwrap_or(&Value::Null);
        for part in at(candidate, &["content", "parts"]).and_then(Value::as_array).into_iter().flatten() {
            self.part(part, out);
        }
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
            self.finish_with(reason, out);
            if let Some(message) = candidate.get("finishMessage").filter(|m| m.is_string()) {
                out.push(ProviderEvent::payload("finish_message", message.clone()));
            }
        }
        if let Some(usage) = response.get("usageMetadata").and_then(read_usage) {
            out.push(ProviderEvent::Usage(usage));
        }
    }

    fn part(&mut self, part: &Value, out: &mut ProviderEvents) {
        let mut call_id = None;
        if let Some(text) = part.get("text").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
            out.push(if thought { ProviderEvent::Thinking(text.into()) } else { ProviderEvent::Text(text.into()) });
        } else if let Some(call) = part.get("functionCall") {
            call_id = self.function_call(CallPart::of(call), out);
        }
        if let Some(signature) = part.get("thoughtSignature").filter(|s| s.is_string()) {
            out.push(thought_signature(signature.clone(), call_id));
        }
    }

    /// One `functionCall` part; returns the id of the call it started or completed.
    fn function_call(&mut self, call: CallPart<'_>, out: &mut ProviderEvents) -> Option<String> {
        let mut call_state = match (call.name, self.streaming.take()) {
            // A named part begins a new call, closing one still streaming.
            (Some(name), open) => {
                if let Some(open) = open {
                    open.end(out);
                }
                let id = self.call_id(call.id);
                let args = call.args.unwrap_or_else(|| Value::Object(Map::new()));
                StreamingCall { id, name: name.to_owned(), args, continuing: None }
            }
            (None, Some(open)) => open,
            // `{}` with no call streaming: nothing to close.
            (None, None) => return None,
        };
        for arg in call.partial_args {
            if let Err(detail) = call_state.apply(arg) {
                out.push(ProviderEvent::unreadable(detail));
            }
        }
        let id = call_state.id.clone();
        if call.will_continue {
            if call.name.is_some() {
                out.push(ProviderEvent::ToolCallStart { id: id.clone(), name: call_state.name.clone() });
            }
            self.streaming = Some(call_state);
        } else {
            // A whole call, or the last piece of a streaming one.
            call_state.end(out);
        }
        Some(id)
    }

    /// The id of the next call: its own `id`, or one made from the response's and its number.
    fn call_id(&mut self, id: Option<&str>) -> String {
        let n = self.calls;
        self.calls += 1;
        // Pieced together: `format!` was a fifth of reading a whole call, and `to_string` still goes
        // through the formatter (callgrind, natively); itoa (serde_json's) writes the digits alone.
        let (prefix, dash) = match (id, &self.response_id) {
            (Some(id), _) => return id.to_owned(),
            (None, Some(response)) => (response.as_str(), '-'),
            (None, None) => ("call", '_'),
        };
        let mut digits = itoa::Buffer::new();
        let n = digits.format(n);
        let mut id = String::with_capacity(prefix.len() + 1 + n.len());
        id.push_str(prefix);
        id.push(dash);
        id.push_str(n);
        id
    }

    /// A candidate's `finishReason`: the call still streaming ends, then the answer.
    fn finish_with(&mut self, reason: &str, out: &mut ProviderEvents) {
        self.close_streaming_call(out);
        self.finished = true;
        out.push(ProviderEvent::Finish { reason: self.finish_reason(reason) });
    }

    fn close_streaming_call(&mut self, out: &mut ProviderEvents) {
        if let Some(open) = self.streaming.take() {
            open.end(out);
        }
    }

    /// `FinishReason` → the contract's reasons. Gemini says `STOP` also when it asks for tools.
    fn finish_reason(&self, reason: &str) -> FinishReason {
        match reason {
            "STOP" if self.calls > 0 => FinishReason::ToolCalls,
            "STOP" => FinishReason::Stop,
            "MAX_TOKENS" => FinishReason::Length,
            "SAFETY"
            | "RECITATION"
            | "BLOCKLIST"
            | "PROHIBITED_CONTENT"
            | "SPII"
            | "IMAGE_SAFETY"
            | "IMAGE_PROHIBITED_CONTENT"
            | "IMAGE_RECITATION" => FinishReason::ContentFilter,
            "MALFORMED_FUNCTION_CALL" | "UNEXPECTED_TOOL_CALL" | "TOO_MANY_TOOL_CALLS" => FinishReason::Error,
            _ => FinishReason::Other,
        }
    }
}

impl StreamingCall {
    fn end(self, out: &mut ProviderEvents) {
        out.push(ProviderEvent::ToolCallEnd { id: self.id, name: Some(self.name), input: Some(self.args) });
    }

    /// One `PartialArg`: `{"jsonPath":"$.a[0].b","stringValue":"x","willContinue":true}` (or
    /// `numberValue`, `boolValue`, `nullValue`). A string piece extends the string the previous
    /// piece for the same path left open.
    fn apply(&mut self, arg: &Value) -> Result<(), String> {
        let path = arg.get("jsonPath").and_then(Value::as_str).unwrap_or("");
        let slot = slot_at(&mut self.args, path)?;
        let continues = self.continuing.as_deref() == Some(path);
        if let Some(piece) = arg.get("stringValue").and_then(Value::as_str) {
            match slot {
                Value::String(s) if continues => s.push_str(piece),
                _ => *slot = Value::String(piece.to_owned()),
            }
        } else if let Some(n) = arg.get("numberValue").and_then(Value::as_f64) {
            *slot = number(n);
        } else if let Some(b) = arg.get("boolValue").and_then(Value::as_bool) {
            *slot = Value::Bool(b);
        } else if arg.get("nullValue").is_some() {
            *slot = Value::Null;
        }
        let will_continue = arg.get("willContinue").and_then(Value::as_bool) == Some(true);
        self.continuing = will_continue.then(|| path.to_owned());
        Ok(())
    }
}

/// A part's `thoughtSignature`, attached to the payload with the id of the call it came with.
fn thought_signature(signature: Value, call_id: Option<String>) -> ProviderEvent {
    let mut value = Map::new();
    value.insert("signature".into(), signature);
    if let Some(id) = call_id {
        value.insert("tool_use_id".into(), Value::String(id));
    }
    ProviderEvent::attach("thought_signatures", Value::Object(value))
}

/// What `value.pointer` finds at the path of these tokens (an object's key, or an array's index),
/// without the string it allocates for each token (it unescapes them): those allocations were a
/// seventh of reading a response with a function call (callgrind, natively).
fn at<'v>(value: &'v Value, tokens: &[&str]) -> Option<&'v Value> {
    tokens.iter().try_fold(value, |value, token| match value {
        Value::Object(map) => map.get(*token),
        Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// Whole numbers as integers, so that `{"count": 3}` reaches the tool as 3 and not 3.0.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Value::from(n as i64)
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// Well within the 128 levels the reader takes, the root and the value included.
const MAX_PATH_DEPTH: usize = 100;

/// The value at an RFC 9535 normalized path (`$.a.b[0]`, `$['a b']`), made (as objects, arrays
/// and nulls) where it does not exist yet; an array grows by one item at a time.
fn slot_at<'a>(root: &'a mut Value, path: &str) -> Result<&'a mut Value, String> {
    let bad = || format!("a function call argument has an unreadable JSON path: {}", crate::json::to_json(path));
    let mut rest = path.strip_prefix('$').ok_or_else(bad)?;
    let mut slot = root;
    let mut depth = 0;
    while !rest.is_empty() {
        // A deeper path would build a value that nothing downstream can read back (and whose
        // drop could overflow the stack).
        depth += 1;
        if depth > MAX_PATH_DEPTH {
            return Err(format!("a function call argument's JSON path is deeper than {MAX_PATH_DEPTH} levels"));
        }
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            slot = object_entry(slot, &after[..end]);
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix("['").or_else(|| rest.strip_prefix("[\"")) {
            let quote = rest.as_bytes()[1] as char;
            let end = after.find(quote).ok_or_else(bad)?;
            slot = object_entry(slot, &after[..end]);
            rest = after[end + 1..].strip_prefix(']').ok_or_else(bad)?;
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or_else(bad)?;
            let index: usize = after[..end].parse().map_err(|_| bad())?;
            if !slot.is_array() {
                *slot = Value::Array(Vec::new());
            }
            let items = slot.as_array_mut().expect("made an array above");
            // Items stream in order, so a path names an existing item or the next one; an index
            // further on would make the input up (and a huge one would exhaust memory).
            if index == items.len() {
                items.push(Value::Null);
            }
            slot = items.get_mut(index).ok_or_else(bad)?;
            rest = &after[end + 1..];
        } else {
            return Err(bad());
        }
    }
    Ok(slot)
}

fn object_entry<'a>(slot: &'a mut Value, key: &str) -> &'a mut Value {
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut().expect("made an object above").entry(key).or_insert(Value::Null)
}

/// `usageMetadata` → [`Usage`]. Gemini counts thinking apart from `candidatesTokenCount`; the
/// contract's `output_tokens` includes it (as OpenAI's `completion_tokens` does). Vertex sends
/// `usageMetadata` with no counts until the end: that is not a report.
fn read_usage(meta: &Value) -> Option<Usage> {
    usage_of(plain::COUNTS.map(|key| meta.get(key).and_then(Value::as_u64)))
}

/// The usage from `usageMetadata`'s counts, in [`plain::COUNTS`]' order (the general path and
/// the fast one read them differently, and make the same usage of them).
fn usage_of(counts: [Option<u64>; 6]) -> Option<Usage> {
    let [prompt, candidates, thoughts, total, tool_use_prompt, cached] = counts;
    if prompt.is_none() && candidates.is_none() && total.is_none() {
        return None;
    }
    let output = (candidates.is_some() || thoughts.is_some())
        .then(|| candidates.unwrap_or(0).saturating_add(thoughts.unwrap_or(0)));
    Some(Usage {
        input_tokens: prompt.map(|p| p.saturating_add(tool_use_prompt.unwrap_or(0))),
        output_tokens: output,
        reasoning_tokens: thoughts,
        cached_input_tokens: cached,
        total_tokens: total,
    })
}

/// `{"error":{"code":429,"message":"…","status":"RESOURCE_EXHAUSTED","details":[…]}}`. A bad key
/// is a 400 whose details say `API_KEY_INVALID`, so the details are read first; then the HTTP
/// code, then the status word.
fn error_event(error: &Value) -> ProviderEvent {
    let reasons = error.get("details").and_then(Value::as_array).into_iter().flatten();
    let bad_key = reasons
        .filter_map(|d| d.get("reason").and_then(Value::as_str))
        .any(|r| ErrorCode::from_provider_kind(r) == ErrorCode::Unauthorized);
    let status = error.get("status").and_then(Value::as_str);
    let code = match (bad_key, error.get("code").and_then(Value::as_u64), status) {
        (true, _, _) => ErrorCode::Unauthorized,
        (false, Some(http), _) => ErrorCode::from_http_status(u16::try_from(http).unwrap_or(500)),
        (false, None, Some(status)) => ErrorCode::from_provider_kind(status),
        (false, None, None) => ErrorCode::ServiceUnavailable,
    };
    ProviderEvent::provider_error(code, error.get("message").and_then(Value::as_str))
}

#[cfg(test)]
mod tests;
