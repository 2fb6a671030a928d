//! The OpenAI Responses API stream (`POST /v1/responses` with `stream: true`), also served by
//! LM Studio and other "Open Responses" servers.
//!
//! Each SSE event's JSON has a `type` (the same as the SSE `event` field). Read here:
//! - `response.output_text.delta` and `response.refusal.delta`: text (a refusal finishes with
//!   `refusal`); `response.output_text.annotation.added`: a citation, attached to the payload.
//! - `response.reasoning_summary_text.delta` and `response.reasoning_text.delta`: thinking. A
//!   second summary part of the same item starts on a new paragraph.
//! - `function_call` items: `response.output_item.added` starts the call (its `call_id` is the id
//!   the tool result must name), `response.function_call_arguments.delta` streams its arguments
//!   by `item_id`, `.done` carries them whole (LM Studio sends only that one), and
//!   `response.output_item.done` ends the call.
//! - `response.completed` and `response.incomplete` end the stream with the response's `usage`;
//!   incomplete finishes with the reason in `incomplete_details` (`max_output_tokens` → `length`).
//!   `response.failed` and the `error` event (`{"type":"error","code","message"}`, or the same
//!   fields in a nested `error` object) end the message with an error.
//!
//! There is no `[DONE]`. Other event and item types (web search, file search, images, MCP, …)
//! are ignored. Only the first response of a body is read: the cleaner completes at its end.
//!
//! ```
//! use chatstream::dialect::{DialectDecoder, OpenAiResponsesDecoder, ProviderEvent, ProviderEvents};
//! use chatstream::framing::FrameRef;
//! let mut decoder = OpenAiResponsesDecoder::default();
//! let mut out = ProviderEvents::default();
//! decoder.decode(FrameRef::data(r#"{"type":"response.output_text.delta","item_id":"msg_1","delta":"Hi"}"#), &mut out);
//! assert_eq!(out.as_slice(), [ProviderEvent::Text("Hi".into())]);
//! ```

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use super::openai::{error_event, read_usage, UsageKeys};
use super::scan::{scan, Reader, Seen, Shape, Taken};
use super::{data_to_read, text, DialectDecoder, ProviderEvent, ProviderEvents};
use crate::event::FinishReason;
use crate::framing::FrameRef;

/// Reads the OpenAI Responses API stream.
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub struct OpenAiResponsesDecoder {
    /// Function calls so far, in the order they started.
    calls: Vec<FunctionCall>,
    /// The open calls' places in `calls`, by `item_id`, oldest first: a hostile stream may start tens
    /// of thousands of calls, and a search of every call per event would make it quadratic.
    open: HashMap<String, VecDeque<usize>>,
    /// The call the last argument text went to, while it is open: nearly every delta names it
    /// again, and comparing its `item_id` costs less than hashing the one named (SipHash).
    recent: Option<usize>,
    /// A refusal was streamed: the finish reason is `refusal`.
    refused: bool,
    /// The shape of the last delta event the fast path read.
    deltas: Shape<DeltaEvent, 2>,
}

#[derive(Debug, PartialEq)]
struct FunctionCall {
    /// The output item's `id` (`fc_…`), which argument events name.
    item_id: String,
    /// The `call_id` (`call_…`), the id of the tool call.
    call_id: String,
    /// Argument text was emitted (deltas, or the whole of `.done`).
    has_arguments: bool,
}

impl DialectDecoder for OpenAiResponsesDecoder {
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        // `response.completed` (or its like) ends the message; a `[DONE]` after it is not read.
        let Some(data) = data_to_read(frame) else { return };
        if let Some((event, [Some(delta), item_id])) = self.deltas.read(data, delta_event) {
            match (event, item_id) {
                (DeltaEvent::Text, _) => return out.text(delta),
                (DeltaEvent::Thinking, _) => return out.thinking(delta),
                (DeltaEvent::Arguments, Some(item_id)) => return self.call_arguments(&item_id, delta, true, out),
                // `delta_event` reads no arguments without an `item_id`.
                (DeltaEvent::Arguments, None) => {}
            }
        }
        if let Some((event, [])) = scan(data, passing_event) {
            return match event {
                PassingEvent::Ignored => {}
                PassingEvent::Failed(error) => out.push(error_event(&error)),
            };
        }
        self.decode_value(frame, data, out);
    }
}

impl OpenAiResponsesDecoder {
    /// Any event, read as a `Value` (the general path).
    pub(super) fn decode_value(&mut self, frame: FrameRef<'_>, data: &str, out: &mut ProviderEvents) {
        let event: Value = match crate::json::parse(data) {
            Ok(event @ Value::Object(_)) => event,
            Ok(_) => return out.push(ProviderEvent::unreadable("expected a JSON object")),
            Err(err) => return out.push(ProviderEvent::unreadable(err)),
        };
        let kind = event.get("type").and_then(Value::as_str).or(frame.event).unwrap_or_default();
        let text = |key: &str| text(&event, key).filter(|t| !t.is_empty());
        match kind {
            "response.output_text.delta" => out.extend(text("delta").map(ProviderEvent::Text)),
            "response.refusal.delta" => {
                self.refused = true;
                out.extend(text("delta").map(ProviderEvent::Text));
            }
            "response.output_text.annotation.added" => {
                if let Some(annotation) = event.get("annotation").filter(|a| a.is_object()) {
                    out.push(ProviderEvent::attach("citations", annotation.clone()));
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                out.extend(text("delta").map(ProviderEvent::Thinking))
            }
            "response.reasoning_summary_part.added"
                if event.get("summary_index").and_then(Value::as_u64).unwrap_or(0) > 0 =>
            {
                out.push(ProviderEvent::Thinking("\n\n".into()))
            }
            "response.output_item.added" => self.item_added(&event["item"], out),
            "response.function_call_arguments.delta" => self.arguments(&event, "delta", out),
            "response.function_call_arguments.done" => self.arguments(&event, "arguments", out),
            "response.output_item.done" => self.item_done(&event["item"], out),
            "response.completed" | "response.incomplete" => self.completed(&event["response"], out),
            "response.failed" => out.push(error_event(&event["response"]["error"])),
            "error" => {
                let error = event.get("error").filter(|e| e.is_object()).unwrap_or(&event);
                out.push(error_event(error));
            }
            _ => {}
        }
    }

    fn item_added(&mut self, item: &Value, out: &mut ProviderEvents) {
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            return;
        }
        let field = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        let (item_id, name) = (field("id"), field("name"));
        let call_id = item.get("call_id").and_then(Value::as_str).map_or_else(|| item_id.clone(), str::to_owned);
        out.push(ProviderEvent::ToolCallStart { id: call_id.clone(), name });
        self.open.entry(item_id.clone()).or_default().push_back(self.calls.len());
        self.calls.push(FunctionCall { item_id, call_id, has_arguments: false });
        self.arguments(item, "arguments", out);
    }

    /// Argument text from `key` of an event naming the call by `item_id` (or of the item itself,
    /// whose `id` it is). `.done` and the item repeat the whole arguments: they count only when
    /// no delta came before.
    fn arguments(&mut self, event: &Value, key: &str, out: &mut ProviderEvents) {
        let Some(item_id) = event.get("item_id").or(event.get("id")).and_then(Value::as_str) else { return };
        let Some(text) = event.get(key).and_then(Value::as_str) else { return };
        self.call_arguments(item_id, text.into(), key == "delta", out);
    }

    /// Argument text for the open call `item_id`: a delta, or the whole arguments.
    fn call_arguments(&mut self, item_id: &str, text: Cow<'_, str>, delta: bool, out: &mut ProviderEvents) {
        let position = match self.recent {
            Some(recent) if self.calls.get(recent).is_some_and(|call| call.item_id == item_id) => recent,
            _ => {
                let Some(&position) = self.open.get(item_id).and_then(VecDeque::front) else { return };
                self.recent = Some(position);
                position
            }
        };
        let call = &mut self.calls[position];
        if !text.is_empty() && (delta || !call.has_arguments) {
            call.has_arguments = true;
            out.push(ProviderEvent::ToolCallDelta { id: call.call_id.clone(), delta: text.into_owned() });
        }
    }

    fn item_done(&mut self, item: &Value, out: &mut ProviderEvents) {
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            return;
        }
        let item_id = item.get("id").and_then(Value::as_str).unwrap_or_default();
        if self.open.get(item_id).map_or(true, VecDeque::is_empty) {
            // A call whose `added` never came: it starts and ends here.
            self.item_added(item, out);
        }
        self.arguments(item, "arguments", out);
        if let Some(position) = self.open.get_mut(item_id).and_then(VecDeque::pop_front) {
            self.recent = None;
            let id = self.calls[position].call_id.clone();
            out.push(ProviderEvent::ToolCallEnd { id, name: None, input: None });
        }
    }

    /// `response.completed` / `response.incomplete`: the finish reason, usage, and the end.
    fn completed(&mut self, response: &Value, out: &mut ProviderEvents) {
        self.recent = None;
        let mut open: Vec<usize> = self.open.drain().flat_map(|(_, positions)| positions).collect();
        open.sort_unstable();
        for position in open {
            out.push(ProviderEvent::ToolCallEnd { id: self.calls[position].call_id.clone(), name: None, input: None });
        }
        let incomplete = response["incomplete_details"]["reason"].as_str();
        let reason = match (response["status"].as_str(), incomplete) {
            (_, Some("max_output_tokens")) => FinishReason::Length,
            (_, Some("content_filter")) => FinishReason::ContentFilter,
            (Some("incomplete"), _) => FinishReason::Other,
            _ if self.refused => FinishReason::Refusal,
            _ if !self.calls.is_empty() => FinishReason::ToolCalls,
            _ => FinishReason::Stop,
        };
        out.push(ProviderEvent::Finish { reason });
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            out.push(ProviderEvent::Usage(read_usage(usage, &UsageKeys::RESPONSES)));
        }
        out.push(ProviderEvent::End);
    }
}

/// What a delta event read by [`delta_event`] makes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum DeltaEvent {
    Text,
    Thinking,
    /// Arguments of the function call its `item_id` names.
    Arguments,
}

/// A text, reasoning or function-call arguments delta whose `delta` (and `item_id`, which
/// arguments need) is a string, read by the checking scanner without building a `Value` (nearly
/// every event of a long answer or a streamed call; see [`super::scan`]). `None` for anything
/// else, which the general path reads. Its strings: `[delta, item_id]`.
pub(super) fn delta_event<'a>(r: &mut Reader<'a>) -> Option<(DeltaEvent, Taken<'a, 2>)> {
    let (kind, [delta, item_id]) =
        r.kind_and_strings(b"type", &|kind| delta_kind(kind).is_some(), [b"delta", b"item_id"])?;
    let event = match delta_kind(&kind?)? {
        DeltaEvent::Arguments if item_id.is_none() => return None,
        event => event,
    };
    Some((event, [Some(delta?), item_id]))
}

fn delta_kind(kind: &str) -> Option<DeltaEvent> {
    match kind {
        "response.output_text.delta" => Some(DeltaEvent::Text),
        "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => Some(DeltaEvent::Thinking),
        "response.function_call_arguments.delta" => Some(DeltaEvent::Arguments),
        _ => None,
    }
}

/// The event types the general path reads something from besides their `type`.
const READ: [&str; 13] = [
    "response.output_text.delta",
    "response.refusal.delta",
    "response.output_text.annotation.added",
    "response.reasoning_summary_text.delta",
    "response.reasoning_text.delta",
    "response.reasoning_summary_part.added",
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.completed",
    "response.incomplete",
    "error",
];

/// What a passing event read by [`passing_event`] makes.
#[derive(Debug)]
pub(super) enum PassingEvent {
    /// An event the decoder does not read.
    Ignored,
    /// `response.failed`, with its `response.error` (`null` when it has none).
    Failed(Value),
}

/// An event the decoder reads nothing from but its type (`response.created`,
/// `response.in_progress`, `response.content_part.added`, …), or `response.failed`, read by the
/// checking scanner. The first two repeat the whole response, a few kilobytes, and building them
/// as a `Value` only to drop them was most of the cost of a short answer read live. `None` for
/// the events of [`READ`], which the general path reads; their `type` comes first in every
/// recorded stream, so they are given up at their first field.
pub(super) fn passing_event<'a>(r: &mut Reader<'a>) -> Option<(PassingEvent, Taken<'a, 0>)> {
    let (mut seen, mut kind, mut error) = (Seen::default(), None, None);
    r.object(|r, key| {
        match key {
            b"type" => {
                seen.once(0)?;
                let read = r.string()?;
                READ.iter().all(|k| *k != read).then_some(())?;
                kind = Some(read);
            }
            b"response" => {
                seen.once(1)?;
                error = response_error(r)?;
            }
            _ => r.skip_value(0)?,
        }
        Some(())
    })?;
    let event = match kind?.as_ref() {
        // As the general path's `event["response"]["error"]`: `null` where there is none.
        "response.failed" => PassingEvent::Failed(match error {
            Some(raw) => crate::json::parse(raw).ok()?,
            None => Value::Null,
        }),
        _ => PassingEvent::Ignored,
    };
    Some((event, []))
}

/// The text of `response.error` where `response` is an object that has one.
fn response_error<'a>(r: &mut Reader<'a>) -> Option<Option<&'a str>> {
    if r.peek()? != b'{' {
        r.skip_value(1)?;
        return Some(None);
    }
    let mut error = None;
    r.fields(1, &["error"], &mut |r, _| {
        error = Some(r.raw_value(2)?);
        Some(())
    })?;
    Some(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::test_support::{delta, end, finish, start, text, thinking};
    use crate::error::ErrorCode;
    use crate::event::Usage;

    fn decode(frames: &[&str]) -> Vec<ProviderEvent> {
        crate::dialect::test_support::decode::<OpenAiResponsesDecoder>(frames)
    }

    #[test]
    fn reasoning_text_and_completed_with_usage() {
        let events = decode(&[
            r#"{"type":"response.created","response":{"id":"resp_1","status":"in_progress","usage":null}}"#,
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}"#,
            r#"{"type":"response.reasoning_summary_part.added","item_id":"rs_1","summary_index":0,"part":{"type":"summary_text","text":""}}"#,
            r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"Plan"}"#,
            r#"{"type":"response.reasoning_summary_text.done","item_id":"rs_1","summary_index":0,"text":"Plan"}"#,
            r#"{"type":"response.reasoning_summary_part.added","item_id":"rs_1","summary_index":1,"part":{"type":"summary_text","text":""}}"#,
            r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":1,"delta":"More"}"#,
            r#"{"type":"response.reasoning_text.delta","item_id":"rs_1","delta":"raw"}"#,
            r#"{"type":"response.output_text.delta","item_id":"msg_1","delta":"Hello"}"#,
            r#"{"type":"response.output_text.done","item_id":"msg_1","text":"Hello"}"#,
            r#"{"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":2},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":15},"total_tokens":30}}}"#,
            r#"{"type":"response.output_text.delta","item_id":"msg_2","delta":"after the end"}"#,
        ]);
        let usage = Usage {
            input_tokens: Some(10),
            output_tokens: Some(20),
            reasoning_tokens: Some(15),
            cached_input_tokens: Some(2),
            total_tokens: Some(30),
        };
        assert_eq!(
            events,
            [
                thinking("Plan"),
                thinking("\n\n"),
                thinking("More"),
                thinking("raw"),
                text("Hello"),
                finish("stop"),
                ProviderEvent::Usage(usage),
                ProviderEvent::End
            ]
        );
    }

    #[test]
    fn function_calls_streamed_or_whole_in_done() {
        let events = decode(&[
            r#"{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"get_weather"}}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"city\":"}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"\"Paris\"}"}"#,
            r#"{"type":"response.function_call_arguments.done","item_id":"fc_1","arguments":"{\"city\":\"Paris\"}"}"#,
            r#"{"type":"response.output_item.done","item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"city\":\"Paris\"}","call_id":"call_1","name":"get_weather"}}"#,
            // LM Studio: no deltas, the arguments only in `.done`.
            r#"{"type":"response.output_item.added","item":{"id":"fc_2","type":"function_call","arguments":"","call_id":"call_2","name":"weather"}}"#,
            r#"{"type":"response.function_call_arguments.done","item_id":"fc_2","arguments":"{\"location\":\"SF\"}"}"#,
            r#"{"type":"response.output_item.done","item":{"id":"fc_2","type":"function_call","arguments":"{\"location\":\"SF\"}","call_id":"call_2","name":"weather"}}"#,
            r#"{"type":"response.completed","response":{"status":"completed","usage":null}}"#,
        ]);
        assert_eq!(
            events,
            [
                start("call_1", "get_weather"),
                delta("call_1", "{\"city\":"),
                delta("call_1", "\"Paris\"}"),
                end("call_1"),
                start("call_2", "weather"),
                delta("call_2", "{\"location\":\"SF\"}"),
                end("call_2"),
                finish("tool_calls"),
                ProviderEvent::End,
            ]
        );
    }

    /// Deltas go to the open call their `item_id` names: two calls streaming in turns, and an
    /// `item_id` used again by a later call once the first one ended (the later one gets them).
    #[test]
    fn argument_deltas_go_to_the_open_call_they_name() {
        let added = |id: &str, call: &str| {
            format!(
                r#"{{"type":"response.output_item.added","item":{{"id":"{id}","type":"function_call","arguments":"","call_id":"{call}","name":"f"}}}}"#
            )
        };
        let delta_of = |id: &str, text: &str| {
            format!(r#"{{"type":"response.function_call_arguments.delta","item_id":"{id}","delta":"{text}"}}"#)
        };
        let done = |id: &str, call: &str| {
            format!(
                r#"{{"type":"response.output_item.done","item":{{"id":"{id}","type":"function_call","call_id":"{call}","name":"f"}}}}"#
            )
        };
        let frames = [
            added("fc_1", "call_1"),
            added("fc_2", "call_2"),
            delta_of("fc_1", "a"),
            delta_of("fc_1", "b"),
            delta_of("fc_2", "c"),
            delta_of("fc_1", "d"),
            done("fc_1", "call_1"),
            delta_of("fc_1", "lost"),
            added("fc_1", "call_3"),
            delta_of("fc_1", "e"),
            delta_of("fc_2", "f"),
        ];
        let events = decode(&frames.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(
            events,
            [
                start("call_1", "f"),
                start("call_2", "f"),
                delta("call_1", "a"),
                delta("call_1", "b"),
                delta("call_2", "c"),
                delta("call_1", "d"),
                end("call_1"),
                start("call_3", "f"),
                delta("call_3", "e"),
                delta("call_2", "f"),
            ]
        );
    }

    /// Argument deltas as servers write them, each read by the fast path and as the general path
    /// reads it: fields in any order, unknown ones (`obfuscation`, arrays), escapes, and a
    /// surrogate pair (an emoji escaped by a server that escapes all but ASCII).
    #[test]
    fn argument_deltas_at_the_edges_of_the_fast_path() {
        let deltas = [
            r#"{"type":"response.function_call_arguments.delta","delta":"{\"q\":\"","item_id":"fc_1","output_index":1,"sequence_number":5}"#,
            r#"{"item_id":"fc_1","delta":"caf\u00e9 \ud83d\ude00","type":"response.function_call_arguments.delta","sequence_number":6}"#,
            r#"{"type":"response.function_call_arguments.delta","sequence_number":7,"item_id":"fc_1","output_index":1,"delta":"\\n\t","obfuscation":"x9Q","logprobs":[]}"#,
            r#"{"type":"response.function_call_arguments.delta","delta":"\uD83C\uDF89\"}","item_id":"fc_1","output_index":1,"sequence_number":8,"obfuscation":"a"}"#,
        ];
        let added = r#"{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","arguments":"","call_id":"call_1","name":"f"}}"#;
        let frames: Vec<&str> = [added].into_iter().chain(deltas).collect();
        super::super::scan::checks::take_paths();
        let events = decode(&frames);
        assert_eq!(super::super::scan::checks::take_paths().iter().sum::<usize>(), deltas.len());
        assert_eq!(
            events,
            [
                start("call_1", "f"),
                delta("call_1", "{\"q\":\""),
                delta("call_1", "café 😀"),
                delta("call_1", "\\n\t"),
                delta("call_1", "🎉\"}"),
            ]
        );
    }

    #[test]
    fn a_call_seen_only_at_item_done_starts_and_ends_there() {
        let events = decode(&[
            r#"{"type":"response.output_item.done","item":{"id":"fc_9","type":"function_call","arguments":"{}","call_id":"call_9","name":"ls"}}"#,
        ]);
        assert_eq!(events, [start("call_9", "ls"), delta("call_9", "{}"), end("call_9")]);
    }

    #[test]
    fn unknown_items_and_events_are_ignored() {
        let events = decode(&[
            r#"{"type":"response.output_item.added","item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}"#,
            r#"{"type":"response.web_search_call.searching","item_id":"ws_1"}"#,
            r#"{"type":"response.output_item.done","item":{"id":"ws_1","type":"web_search_call","status":"completed"}}"#,
            r#"{"type":"response.something_new","whatever":[1,2]}"#,
            r#"{"type":"response.output_text.delta","item_id":"msg_1","delta":"ok"}"#,
            r#"{"type":"response.completed","response":{"status":"completed"}}"#,
        ]);
        assert_eq!(events, [text("ok"), finish("stop"), ProviderEvent::End]);
    }

    #[test]
    fn refusal_is_text_and_finishes_as_refusal() {
        let events = decode(&[
            r#"{"type":"response.refusal.delta","item_id":"msg_1","delta":"I can't"}"#,
            r#"{"type":"response.refusal.done","item_id":"msg_1","refusal":"I can't"}"#,
            r#"{"type":"response.completed","response":{"status":"completed"}}"#,
        ]);
        assert_eq!(events, [text("I can't"), finish("refusal"), ProviderEvent::End]);
    }

    #[test]
    fn citations_are_attached() {
        let events = decode(&[
            r#"{"type":"response.output_text.annotation.added","item_id":"msg_1","annotation_index":0,"annotation":{"type":"url_citation","url":"https://example.com","title":"Ex"}}"#,
        ]);
        let value = serde_json::json!({"type":"url_citation","url":"https://example.com","title":"Ex"});
        assert_eq!(events, [ProviderEvent::Attach { key: "citations".into(), value }]);
    }

    #[test]
    fn incomplete_ends_with_length_and_open_calls_closed() {
        let events = decode(&[
            r#"{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"f"}}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"a\""}"#,
            r#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3}}}"#,
        ]);
        let usage = Usage { input_tokens: Some(1), output_tokens: Some(2), total_tokens: Some(3), ..Usage::default() };
        assert_eq!(
            events,
            [
                start("call_1", "f"),
                delta("call_1", "{\"a\""),
                end("call_1"),
                finish("length"),
                ProviderEvent::Usage(usage),
                ProviderEvent::End
            ]
        );
    }

    #[test]
    fn error_event_shapes_and_failed() {
        let cases = [
            (
                r#"{"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null}"#,
                ErrorCode::RateLimited,
                "Rate limited, try again",
            ),
            (
                r#"{"type":"error","sequence_number":2,"error":{"type":"insufficient_quota","code":"insufficient_quota","message":"You exceeded your current quota","param":null}}"#,
                ErrorCode::ServiceUnavailable,
                "You exceeded your current quota",
            ),
            (
                r#"{"type":"error","code":null,"message":"The server had an error"}"#,
                ErrorCode::ServiceUnavailable,
                "The server had an error",
            ),
            (
                r#"{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"Something went wrong"}}}"#,
                ErrorCode::ServiceUnavailable,
                "Something went wrong",
            ),
        ];
        for (frame, code, message) in cases {
            let failed =
                r#"{"type":"response.failed","response":{"status":"failed","error":{"code":"other","message":"x"}}}"#;
            let events = decode(&[r#"{"type":"response.output_text.delta","delta":"Hi"}"#, frame, failed]);
            assert_eq!(
                events,
                [text("Hi"), ProviderEvent::Error { code, message: message.into(), fatal: true }],
                "{frame}"
            );
        }
    }

    #[test]
    fn unreadable_frame_is_reported_and_done_is_ignored() {
        let events = decode(&["{oops", "[DONE]", r#"{"type":"response.output_text.delta","delta":"ok"}"#]);
        assert!(matches!(&events[0], ProviderEvent::Error { code: ErrorCode::ServiceUnavailable, fatal: false, .. }));
        assert_eq!(events[1..], [text("ok")]);
    }
}
