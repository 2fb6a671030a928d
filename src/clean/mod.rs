//! Stage 3: [`ProviderEvent`]s → clean [`StreamEvent`]s.
//!
//! The [`Cleaner`] strips text (markers, thinking tags, payloads: see `markers.rs`), numbers tool
//! calls in the order they start (the N of `[[tool:N]]`), streams their arguments as best-effort
//! JSON, and gathers everything for the one `complete` each message ends with.
//!
//! ```
//! use chatstream::clean::{CleanOptions, Cleaner};
//! use chatstream::dialect::ProviderEvent;
//! use chatstream::event::{StreamEvent, StreamEvents};
//!
//! let mut cleaner = Cleaner::new(CleanOptions::default());
//! let mut events = Vec::new();
//! // A marker split across two deltas never shows, not even its first bracket.
//! cleaner.push(ProviderEvent::Text("Searching [[to".into()), &mut StreamEvents::new(&mut events));
//! cleaner.push(ProviderEvent::Text("ol:0]] done.".into()), &mut StreamEvents::new(&mut events));
//! cleaner.push(ProviderEvent::End, &mut StreamEvents::new(&mut events));
//! assert_eq!(events[0], StreamEvent::TextDelta { text: "Searching".into() });
//! assert_eq!(events[1], StreamEvent::TextDelta { text: "  done.".into() });
//! let StreamEvent::Complete { payload } = &events[2] else { panic!() };
//! assert_eq!(payload.message, "Searching [[tool:0]] done.");
//! assert_eq!(payload.text, "Searching  done.");
//! ```
//!
//! Decisions made where the contract is silent:
//! - A payload marker whose JSON is missing, malformed or unterminated is released as text and
//!   reported as a non-fatal `error` (SERVICE_UNAVAILABLE, `field` naming the payload field);
//!   the stream goes on. Arguments that never parse are reported the same way.
//! - Edges: whitespace before the first visible character is dropped, and whitespace is held
//!   until something visible follows it (it is invisible, and the final text is trimmed), so the
//!   text deltas joined are exactly `complete.payload.text`. The same holds for thinking.
//! - A later payload of one kind replaces an earlier one; payloads the backend sends
//!   (`ProviderEvent::Payload`, a tool's payload) take precedence over ones parsed
//!   from the model's text.
//! - A tool that ran with no `[[tool:N]]` in the text (a provider talked to directly writes
//!   none) is placed where it started, in `message` and `segments`. A `[[tool:N]]` for a tool
//!   that never ran stays in `message` and is an empty card in `segments`.
//! - A `message` sent by the backend replaces the streamed text for `message`, `text` and
//!   `segments`; it is cleaned the same way ([`parse_llm_response`]).
//! - Each `tool_input_delta` carries a copy of the best value so far: parsing is linear in the
//!   argument length, the copies are proportional to the value's size.

#[cfg(feature = "model-tool-calls")]
pub(crate) mod arguments;
mod backend;
mod markers;
pub(crate) mod matching;
#[cfg(feature = "model-tool-calls")]
mod partial_json;
mod payload;
mod resolve;
mod thinking;
pub(crate) mod tools;
mod trim;

#[cfg(feature = "model-tool-calls")]
pub use arguments::partial_input;
pub(crate) use resolve::TextLeft;
pub use resolve::{parse_llm_response, resolve_tool_markers, ParsedResponse};

use std::borrow::Cow;

use serde_json::{json, Value};

use crate::dialect::ProviderEvent;
use crate::error::ErrorCode;
use crate::event::{CompletePayload, FinishReason, StreamEvent, StreamEvents, Usage};
use backend::{merge_usage, BackendFields};
use markers::{strip_unwanted_chars, without_unwanted_chars, MarkerStripper, Token};
use payload::PayloadKind;
use resolve::{parse_with_parts, resolved, segments_of, Part};
use tools::Tools;
use trim::EdgeTrimmed;

/// A registered payload marker: `SCHEMA_PROPOSAL:` followed by JSON becomes
/// `custom_payload: { type: "schema_proposal", data }`.
///
/// ```
/// use chatstream::clean::PayloadMarker;
/// let chart = PayloadMarker { marker: "CHART:".into(), type_name: format!("chart_{}", 2).into() };
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadMarker {
    /// The text that starts the payload (`SCHEMA_PROPOSAL:`).
    pub marker: Cow<'static, str>,
    /// The `type` of the `custom_payload` it becomes (`schema_proposal`).
    pub type_name: Cow<'static, str>,
}

/// What the cleaner strips and recognises.
///
/// The lists are `Cow`s so that the defaults are constants: a short answer read whole makes a
/// stream, and its options, per answer. Replace a list with a `Vec` (`.into()`), or add to it
/// with `to_mut()`:
///
/// ```
/// use chatstream::clean::{CleanOptions, PayloadMarker};
/// let mut options = CleanOptions { thinking_tags: vec!["reasoning".into()].into(), ..CleanOptions::default() };
/// options.payload_markers.to_mut().push(PayloadMarker { marker: "CHART:".into(), type_name: "chart".into() });
/// assert_eq!(options.payload_markers.len(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct CleanOptions {
    /// Turn inline `<think>…</think>` text into thinking.
    pub inline_thinking: bool,
    /// Tag names treated as inline thinking (`think` and `thinking` by default).
    pub thinking_tags: Cow<'static, [Cow<'static, str>]>,
    /// The text starts inside thinking: everything up to the first closing tag is thinking
    /// (chat templates that open `<think>` in the prompt). Off by default: then a closing tag
    /// with no opening tag is only removed.
    pub starts_in_thinking: bool,
    /// Custom payload markers, besides `SUGGESTED_VALUES:` and `SUGGESTED_ACTIONS:`
    /// (`SCHEMA_PROPOSAL:` by default).
    pub payload_markers: Cow<'static, [PayloadMarker]>,
    /// Fill each `tool_input_delta`'s `partial_input`. Its value is as large as the arguments so
    /// far, so each one costs more as a long tool input grows. The JS bindings turn this off
    /// (the field is then `null`) and compute the value when a caller first reads it.
    pub partial_input: bool,
}

impl Default for CleanOptions {
    fn default() -> Self {
        CleanOptions {
            inline_thinking: true,
            thinking_tags: Cow::Borrowed(&[Cow::Borrowed("think"), Cow::Borrowed("thinking")]),
            starts_in_thinking: false,
            payload_markers: Cow::Borrowed(&[PayloadMarker {
                marker: Cow::Borrowed("SCHEMA_PROPOSAL:"),
                type_name: Cow::Borrowed("schema_proposal"),
            }]),
            partial_input: true,
        }
    }
}

/// Stage 3's state for one message: what the text has held back, the tools so far, and
/// `complete.payload` as it builds.
#[derive(Debug)]
pub struct Cleaner {
    options: CleanOptions,
    stripper: MarkerStripper,
    /// Scratch space for what the stripper decides.
    tokens: Vec<Token>,
    /// The message in reading order, for `message` and `segments`.
    parts: Vec<Part>,
    text: EdgeTrimmed,
    thinking: EdgeTrimmed,
    /// The thinking deltas joined: `complete`'s `thinking`. (The text's are `parts`' text.)
    thinking_text: String,
    /// Where the last thinking came from.
    thinking_source: Option<ThinkingSource>,
    tools: Tools,
    /// `complete.payload` as it builds; its payload fields hold those parsed from the text.
    payload: CompletePayload,
    backend: BackendFields,
    complete: bool,
    /// Whether `complete`'s text is the text deltas joined, as it is when no backend message
    /// replaced them (trim.rs tests it): the JS bindings then hand it over as the deltas JS holds.
    text_is_deltas_joined: bool,
    /// Invalid UTF-8 sequences the framing replaced, for `complete`.
    invalid_utf8: u64,
    /// Whether the reader keeps the text deltas joined, and makes `complete`'s text of them
    /// ([`Cleaner::leave_text_to_reader`]); then the text is not kept here too.
    text_to_reader: bool,
    /// With `text_to_reader`: the whitespace released before the first visible character.
    lead: String,
    /// With `text_to_reader`: what `complete`'s text is made of, once it is emitted.
    text_left: Option<TextLeft>,
}

impl Cleaner {
    /// A cleaner for one message.
    pub fn new(options: CleanOptions) -> Cleaner {
        Cleaner {
            stripper: MarkerStripper::new(&options),
            options,
            tokens: Vec::new(),
            parts: Vec::new(),
            text: EdgeTrimmed::default(),
            thinking: EdgeTrimmed::default(),
            thinking_text: String::new(),
            thinking_source: None,
            tools: Tools::default(),
            payload: CompletePayload::default(),
            backend: BackendFields::default(),
            complete: false,
            text_is_deltas_joined: false,
            invalid_utf8: 0,
            text_to_reader: false,
            lead: String::new(),
            text_left: None,
        }
    }

    /// The reader keeps the text deltas joined (a session's state does): `complete` is emitted
    /// with its `message`, `text` and `segments` empty when they are made of the deltas, and
    /// [`Cleaner::take_text_left`] makes them of the deltas joined. A 2 MB answer was held twice
    /// while it streamed, here and in the state.
    pub(crate) fn leave_text_to_reader(&mut self) {
        self.text_to_reader = true;
    }

    /// What `complete`'s `message`, `text` and `segments` are made of, once it was emitted with
    /// them left to the reader ([`Cleaner::leave_text_to_reader`]).
    pub(crate) fn take_text_left(&mut self) -> Option<TextLeft> {
        self.text_left.take()
    }

    /// How many invalid UTF-8 sequences the input had so far (replaced by U+FFFD before they
    /// got here), reported in `complete`.
    pub fn set_invalid_utf8(&mut self, count: usize) {
        self.invalid_utf8 = count as u64;
    }

    /// Cleans one provider event, writing the clean events it releases to `out`.
    pub fn push(&mut self, event: ProviderEvent, out: &mut StreamEvents<'_>) {
        if self.complete {
            return;
        }
        match event {
            // Text the stripper passes whole skips the token list: the order stays right because
            // `take_tokens` drains that list after every delta, so no token is ever left waiting.
            ProviderEvent::Text(text) => match self.stripper.push_text(text, &mut self.tokens) {
                Some(text) => self.take_text(text, out),
                None => self.take_tokens(out),
            },
            ProviderEvent::Thinking(text) => {
                self.push_thinking(without_unwanted_chars(text), ThinkingSource::Provider, out)
            }
            #[cfg(feature = "model-tool-calls")]
            ProviderEvent::ToolCallDelta { id, delta } => {
                if !delta.is_empty() {
                    // The delta's event names its tool by this id (the tool's own): moved there.
                    let at = match self.tools.open_call(&id) {
                        Some(at) => Some(at),
                        None => self.model_call(id.clone(), None, false, out),
                    };
                    if let Some(at) = at {
                        self.tools.delta(at, id, delta, self.options.partial_input, out);
                    }
                }
            }
            event => self.push_other(event, out),
        }
    }

    /// [`Cleaner::push`] of the events other than text, thinking and argument deltas. Out of
    /// line: the engine's optimizing compiler compiles a function that runs often (`push`, once
    /// per delta of a long answer) whole, and these arms, which run a few times a message, made
    /// it hold megabytes while it compiled `push` (bench-js/memory.js). (Called by `cancel` too,
    /// so that wasm-opt, which joins a function called once to its caller, leaves it out.)
    #[inline(never)]
    fn push_other(&mut self, event: ProviderEvent, out: &mut StreamEvents<'_>) {
        match event {
            ProviderEvent::Status(message) => {
                out.push(StreamEvent::Status { message: without_unwanted_chars(message) })
            }
            // `push` cleans these itself.
            ProviderEvent::Text(_) | ProviderEvent::Thinking(_) => {}
            #[cfg(feature = "model-tool-calls")]
            ProviderEvent::ToolCallDelta { .. } => {}
            #[cfg(feature = "model-tool-calls")]
            ProviderEvent::ToolCallStart { id, name } => {
                self.model_call(id, Some(name), true, out);
            }
            #[cfg(feature = "model-tool-calls")]
            ProviderEvent::ToolCallEnd { id, name, input } => {
                let Some(at) = self.model_call(id, name, input.is_some(), out) else { return };
                self.tools.call(at, input, out);
            }
            ProviderEvent::ToolRun { id, name, input } => {
                let input = if input.is_null() { json!({}) } else { input };
                match id.as_deref().and_then(|id| self.tools.find(id)) {
                    Some(at) => self.tools.set_input_if_empty(at, input),
                    None => {
                        let id = id.unwrap_or_else(|| format!("tool_{}", self.tools.len()));
                        self.start_tool(id, name, Some(input), out);
                    }
                }
            }
            ProviderEvent::ToolProgress { id, name, stage, message, progress, data } => {
                out.push(StreamEvent::ToolProgress { tool_use_id: id, tool: name, stage, message, progress, data })
            }
            ProviderEvent::ToolResult { id, name, index, output, is_error } => {
                let at = match self.tools.for_result(id.as_deref(), name.as_deref(), index) {
                    Some(at) => at,
                    None => {
                        let id = id.unwrap_or_else(|| format!("tool_{}", self.tools.len()));
                        self.start_tool(id, name.unwrap_or_default(), Some(json!({})), out)
                    }
                };
                self.tools.complete(at, output, is_error, out);
            }
            ProviderEvent::Usage(usage) => merge_usage(self.payload.usage.get_or_insert_with(Usage::default), &usage),
            ProviderEvent::Finish { reason } => {
                self.payload.finish_reason = Some(reason);
                #[cfg(feature = "model-tool-calls")]
                self.tools.settle(reason == FinishReason::Length, out);
            }
            ProviderEvent::Payload(fields) => self.backend.merge(fields, &mut self.payload),
            ProviderEvent::Attach { key, value } => self.attach(key, value),
            ProviderEvent::Data(data) => {
                out.push(StreamEvent::Data { data: data.clone() });
                self.attach("data".into(), data);
            }
            ProviderEvent::Error { code, message, fatal: false } => out.push(StreamEvent::error(code, message)),
            ProviderEvent::Error { code, message, fatal: true } => {
                self.payload.finish_reason.get_or_insert(FinishReason::Error);
                self.complete(out);
                out.push(StreamEvent::error(code, message));
            }
            ProviderEvent::End => {
                // The stream finished properly, so arguments still open are complete.
                #[cfg(feature = "model-tool-calls")]
                self.tools.call_open(self.payload.finish_reason == Some(FinishReason::Length), out);
                self.complete(out);
            }
            ProviderEvent::Cancelled => {
                self.complete(out);
                out.push(StreamEvent::Cancelled);
            }
        }
    }

    /// The input ended. Without a terminal event first, this emits `complete` with what arrived
    /// and then an `error` (NETWORK_ERROR, "stream ended before completion").
    pub fn finish(&mut self, out: &mut StreamEvents<'_>) {
        if !self.complete {
            self.complete(out);
            out.push(StreamEvent::error(ErrorCode::NetworkError, "stream ended before completion"));
        }
    }

    /// The reader cancelled: `complete` with the partial content, then `cancelled`; after a
    /// `complete`, an `error` CONFLICT and nothing else.
    pub fn cancel(&mut self, out: &mut StreamEvents<'_>) {
        if self.complete {
            out.push(StreamEvent::error(ErrorCode::Conflict, "Nothing to cancel: the stream already completed"));
        } else {
            self.push_other(ProviderEvent::Cancelled, out);
        }
    }

    /// Whether `complete` has been emitted.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Whether `complete` was emitted with its text made of the text deltas (not of a backend's
    /// own message): then the text deltas joined are exactly its `text`.
    pub fn text_is_deltas_joined(&self) -> bool {
        self.text_is_deltas_joined
    }

    fn take_tokens(&mut self, out: &mut StreamEvents<'_>) {
        let mut tokens = std::mem::take(&mut self.tokens);
        for token in tokens.drain(..) {
            match token {
                Token::Text(text) => self.take_text(text, out),
                Token::Thinking(text) => self.push_thinking(text, ThinkingSource::InlineTags, out),
                Token::Tool(n) => self.parts.push(Part::Marker(n)),
                token => self.take_payload(token, out),
            }
        }
        self.tokens = tokens;
    }

    /// Text the stripper released: into the message, and out as a delta with the edges trimmed.
    fn take_text(&mut self, text: String, out: &mut StreamEvents<'_>) {
        if self.text_to_reader {
            // The deltas leave out the whitespace before the first visible character: kept.
            if !self.text.started() {
                self.lead.push_str(&text[..text.len() - text.trim_start().len()]);
            }
            Part::push_held(&mut self.parts, text.len());
        } else {
            Part::push_text(&mut self.parts, &text);
        }
        if let Some(text) = self.text.push(text) {
            out.delta(false, text);
        }
    }

    /// A payload token, or a malformed one. Out of line, as [`Cleaner::push_other`] is: a payload
    /// comes once a message, and `take_tokens` runs for every delta.
    #[inline(never)]
    fn take_payload(&mut self, token: Token, out: &mut StreamEvents<'_>) {
        match token {
            Token::Payload { kind, value } => *payload_field(&mut self.payload, &kind) = Some(kind.wrap(value)),
            Token::Malformed { kind, reason } => out.push(StreamEvent::Error {
                code: ErrorCode::ServiceUnavailable,
                message: format!("Failed to parse response: {reason}"),
                field: Some(kind.field().into()),
            }),
            // `take_tokens` takes these itself.
            Token::Text(_) | Token::Thinking(_) | Token::Tool(_) => {}
        }
    }

    fn push_thinking(&mut self, text: String, source: ThinkingSource, out: &mut StreamEvents<'_>) {
        // Thinking from two sources is two passages, not one run-on word.
        if self.thinking_source.replace(source).is_some_and(|before| before != source) {
            self.thinking.paragraph_break();
        }
        if let Some(text) = self.thinking.push(text) {
            self.thinking_text.push_str(&text);
            out.delta(true, text);
        }
    }

    /// The call the model asks for that a provider's event names by `id`: the latest call under
    /// that id while its arguments are open; otherwise a new one (`tool_start`). A call's input is
    /// final once its arguments ended, so a start, or a whole call, under its id is a second call
    /// the provider gave the same id: it goes by an id of its own, and an error says so (events,
    /// the saved state and the results sent back name a call by its id: two calls under one would
    /// be merged into one). What cannot begin a call (`begins` false: an argument delta, an end
    /// without its input) is dropped there: the call it was for is over. `name` names an open call
    /// that has none yet (its arguments came first), and is moved into a new one, not copied.
    #[cfg(feature = "model-tool-calls")]
    fn model_call(
        &mut self,
        id: String,
        name: Option<String>,
        begins: bool,
        out: &mut StreamEvents<'_>,
    ) -> Option<usize> {
        if let Some(at) = self.tools.open_call(&id) {
            if let Some(name) = name {
                self.tools.name_if_unnamed(at, name);
            }
            return Some(at);
        }
        let name = name.unwrap_or_default();
        if self.tools.find(&id).is_none() {
            return Some(self.start_tool(id, name, None, out));
        }
        if !begins {
            return None;
        }
        let (own, error) = self.tools.own_id(&id);
        self.push_other(error, out);
        let at = self.start_tool(own, name, None, out);
        self.tools.rename(id, at);
        Some(at)
    }

    /// A new tool: the next index, a place in the message, and `tool_start`. `ran` is the input
    /// of a tool the backend ran; `None` for a call the model asks for (its arguments stream).
    fn start_tool(&mut self, id: String, name: String, ran: Option<Value>, out: &mut StreamEvents<'_>) -> usize {
        let at = self.tools.start(id, name, ran, out);
        self.parts.push(Part::Started(at as u32));
        at
    }

    /// Appends `value` to the array `payload[key]`.
    fn attach(&mut self, key: String, value: Value) {
        match self.payload.extra.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
            Value::Array(items) => items.push(value),
            other => *other = Value::Array(vec![other.take(), value]),
        }
    }

    /// Resolves what is held and emits the one `complete`.
    fn complete(&mut self, out: &mut StreamEvents<'_>) {
        #[cfg(feature = "model-tool-calls")]
        self.tools.settle(self.payload.finish_reason == Some(FinishReason::Length), out);
        self.stripper.finish(&mut self.tokens);
        self.take_tokens(out);
        self.complete = true;
        self.payload.invalid_utf8 = self.invalid_utf8;

        let backend = std::mem::take(&mut self.backend);
        let tool_history = backend.tool_history(self.tools.records());

        let mut payload = std::mem::take(&mut self.payload);
        match backend.message {
            Some(message) => {
                let (parsed, parts) = parse_with_parts(&message, &self.options);
                payload.text = parsed.text.into();
                // Without tools the text is the message: one copy for both.
                payload.message =
                    if payload.text == parsed.message { payload.text.clone() } else { parsed.message.into() };
                payload.segments = segments_of(&parts, &tool_history);
                payload.suggested_values = payload.suggested_values.or(parsed.suggested_values);
                payload.suggested_actions = payload.suggested_actions.or(parsed.suggested_actions);
                payload.custom_payload = payload.custom_payload.or(parsed.custom_payload);
            }
            None => {
                // The text deltas joined: the parts' text, trimmed (taken: nothing reads them after this).
                let parts = std::mem::take(&mut self.parts);
                if self.text_to_reader {
                    let (lead, tail) = (std::mem::take(&mut self.lead), self.text.take_held());
                    self.text_left = Some(TextLeft { parts, lead, tail });
                } else {
                    (payload.message, payload.text, payload.segments) = resolved(parts, &tool_history);
                }
                self.text_is_deltas_joined = true;
            }
        }
        let thinking = std::mem::take(&mut self.thinking_text);
        payload.thinking = if thinking.is_empty() {
            backend.thinking.map(|t| strip_unwanted_chars(&t).trim().to_owned()).filter(|t| !t.is_empty())
        } else {
            Some(thinking)
        };
        payload.tool_history = tool_history;
        payload.suggested_values = backend.suggested_values.or(payload.suggested_values);
        payload.suggested_actions = backend.suggested_actions.or(payload.suggested_actions);
        payload.custom_payload = backend.custom_payload.or(payload.custom_payload);
        out.push(StreamEvent::Complete { payload });
    }
}

/// Thinking arrives from the provider's own reasoning field or inside the text's thinking tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ThinkingSource {
    Provider,
    InlineTags,
}

fn payload_field<'a>(payload: &'a mut CompletePayload, kind: &PayloadKind) -> &'a mut Option<Value> {
    match kind {
        PayloadKind::SuggestedValues => &mut payload.suggested_values,
        PayloadKind::SuggestedActions => &mut payload.suggested_actions,
        PayloadKind::Custom(_) => &mut payload.custom_payload,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of `pushes` then a cancel, and of a second cancel.
    fn cancelled_after(pushes: Vec<ProviderEvent>) -> (Vec<StreamEvent>, Vec<StreamEvent>) {
        let mut cleaner = Cleaner::new(CleanOptions::default());
        let mut events = Vec::new();
        for event in pushes {
            cleaner.push(event, &mut StreamEvents::new(&mut events));
        }
        cleaner.cancel(&mut StreamEvents::new(&mut events));
        let mut again = Vec::new();
        cleaner.cancel(&mut StreamEvents::new(&mut again));
        cleaner.push(ProviderEvent::Text("late".into()), &mut StreamEvents::new(&mut again));
        (events, again)
    }

    /// The events of `deltas` as text, then the end.
    fn events_of(deltas: &[&str]) -> Vec<StreamEvent> {
        let mut cleaner = Cleaner::new(CleanOptions::default());
        let mut events = Vec::new();
        for delta in deltas {
            cleaner.push(ProviderEvent::Text((*delta).into()), &mut StreamEvents::new(&mut events));
        }
        cleaner.push(ProviderEvent::End, &mut StreamEvents::new(&mut events));
        events
    }

    /// Deltas the stripper passes whole (plain text, as nearly every delta is) between deltas it
    /// reads as tokens (a marker, a thinking tag, an unwanted character) make the message the
    /// whole text read in one delta makes.
    #[test]
    fn deltas_passed_whole_and_read_as_tokens_make_one_message() {
        let deltas = ["Hello", " world", " [[tool:0]] then", " <think>hm</think>", "ok\u{2404}", " done."];
        let events = events_of(&deltas);
        let joined = |thinking: bool| -> String {
            events
                .iter()
                .filter_map(|e| match e {
                    StreamEvent::TextDelta { text } if !thinking => Some(text.as_str()),
                    StreamEvent::ThinkingDelta { text } if thinking => Some(text.as_str()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(joined(false), "Hello world  then ok done.");
        assert_eq!(joined(true), "hm");
        let Some(StreamEvent::Complete { payload }) = events.last() else { panic!("complete last: {events:?}") };
        assert_eq!(payload.message, "Hello world [[tool:0]] then ok done.");
        assert_eq!(payload.text, "Hello world  then ok done.");
        let Some(StreamEvent::Complete { payload: whole }) = events_of(&[&deltas.concat()]).pop() else { panic!() };
        assert_eq!(*payload, whole);
    }

    /// A session's cleaner leaves the text to the reader that joins the deltas: `complete` holds
    /// none of it, and what is left, given the deltas joined, makes the payload a cleaner keeping
    /// the text makes (here with a marker and a thinking tag, so the text is cut into parts).
    #[test]
    fn the_text_left_to_the_reader_is_not_kept_and_makes_the_same_payload() {
        let deltas = ["  Hello", " world", " [[tool:0]] then", " <think>hm</think>", "ok done.  "];
        let mut cleaner = Cleaner::new(CleanOptions::default());
        cleaner.leave_text_to_reader();
        let mut events = Vec::new();
        for delta in deltas {
            cleaner.push(ProviderEvent::Text(delta.into()), &mut StreamEvents::new(&mut events));
        }
        cleaner.push(ProviderEvent::End, &mut StreamEvents::new(&mut events));
        let joined: String = (events.iter())
            .filter_map(|e| if let StreamEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
            .collect();
        let Some(StreamEvent::Complete { payload }) = events.last() else { panic!("complete last: {events:?}") };
        assert_eq!((payload.message.as_ref(), payload.text.as_ref()), ("", ""), "the cleaner kept the text");
        let left = cleaner.take_text_left().expect("the text left to the reader");
        let (message, text, segments) = left.resolve(joined, &payload.tool_history);
        let Some(StreamEvent::Complete { payload: kept }) = events_of(&deltas).pop() else { panic!() };
        assert_eq!((message, text, segments), (kept.message.clone(), kept.text.clone(), kept.segments.clone()));
    }

    /// A cancel is a `Cancelled` from the provider: `complete` with what arrived (an unfinished
    /// marker released as text), then `cancelled`; after it, a cancel is a CONFLICT and text is ignored.
    #[test]
    fn cancel_completes_with_what_arrived_then_cancelled() {
        let (events, again) =
            cancelled_after(vec![ProviderEvent::Status("looking".into()), ProviderEvent::Text("Hello [[to".into())]);
        assert_eq!(events[0], StreamEvent::Status { message: "looking".into() });
        // The text deltas (where the marker stripper cuts them is its own business), then the end.
        let texts = events.iter().take_while(|e| !matches!(e, StreamEvent::Complete { .. })).skip(1);
        let text: String = texts
            .clone()
            .map(|e| match e {
                StreamEvent::TextDelta { text } => text.as_str(),
                other => panic!("a text delta, not {other:?}"),
            })
            .collect();
        assert_eq!(text, "Hello [[to");
        let end = 1 + texts.count();
        let StreamEvent::Complete { payload } = &events[end] else { panic!("complete, not {:?}", events[end]) };
        assert_eq!(payload.text, "Hello [[to");
        assert_eq!(payload.message, "Hello [[to");
        assert_eq!(events[end + 1..], [StreamEvent::Cancelled]);
        assert!(matches!(again[..], [StreamEvent::Error { code: ErrorCode::Conflict, .. }]), "{again:?}");

        // The provider's Cancelled, then the reader's cancel (a CONFLICT: nothing is left to cancel).
        let (cancelled_by_provider, _) = cancelled_after(vec![
            ProviderEvent::Status("looking".into()),
            ProviderEvent::Text("Hello [[to".into()),
            ProviderEvent::Cancelled,
        ]);
        assert_eq!(cancelled_by_provider[..5], events[..], "a cancel is the provider's Cancelled");
        assert_eq!(cancelled_by_provider[5..], again[..1]);
    }
}
