//! The clean event contract: what the UI receives (`docs/events.md`).
//!
//! Events serialize to plain objects discriminated by `type`, with the field names of the
//! agent backend protocol, so that existing `switch (event.type)` code keeps working.
//!
//! ```
//! use chatstream::event::StreamEvent;
//! let e = StreamEvent::TextDelta { text: "Hi".into() };
//! assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"type":"text_delta","text":"Hi"}"#);
//! ```

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::ErrorCode;
use crate::json::{Fields, JsonOut, Shared, ToJson};
use crate::wire::{wire, ReadField};

/// Text that may be long (an answer's): the `complete` payload's `message` and `text`, its
/// segments, the message's `content` and its parts share one copy, and a clone copies a pointer.
/// A 2 MB answer was held six times at once when its `complete` was handed out. An `Arc`, not
/// an `Rc`: events and messages cross threads on the native side (the proxy). It holds a `String`,
/// so that a text built in a `String` becomes one without a copy.
#[derive(Clone, PartialEq, Eq)]
pub struct SharedText(Arc<String>);

impl Default for SharedText {
    /// The empty text, one copy per thread: a stream's `complete` payload starts with two and is
    /// taken (leaving two more) when it goes out, and allocating each was a part of reading a
    /// short answer whole.
    fn default() -> SharedText {
        thread_local! {
            static EMPTY: SharedText = SharedText(Arc::default());
        }
        EMPTY.with(SharedText::clone)
    }
}

impl SharedText {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text to change: its own copy first if another holds it too.
    pub fn make_mut(&mut self) -> &mut String {
        Arc::make_mut(&mut self.0)
    }

    /// Whether `self` and `other` are one copy (not only equal texts).
    pub fn same_copy(&self, other: &SharedText) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for SharedText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<String> for SharedText {
    fn from(mut text: String) -> SharedText {
        // A grown buffer gives back what it does not use (in place: not a copy).
        text.shrink_to_fit();
        SharedText(Arc::new(text))
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> SharedText {
        SharedText(Arc::new(text.to_owned()))
    }
}

impl From<SharedText> for String {
    fn from(text: SharedText) -> String {
        Arc::try_unwrap(text.0).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl PartialEq<str> for SharedText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SharedText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for SharedText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<SharedText> for String {
    fn eq(&self, other: &SharedText) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<SharedText> for str {
    fn eq(&self, other: &SharedText) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<SharedText> for &str {
    fn eq(&self, other: &SharedText) -> bool {
        *self == other.as_str()
    }
}

impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl ToJson for SharedText {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        self.as_str().write_json(out);
    }
}

impl serde::Serialize for SharedText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

impl ReadField for SharedText {
    fn read(fields: &Fields<'_>, key: &str) -> Result<Self, String> {
        fields.string(key).map(SharedText::from)
    }
}

impl ReadField for Option<SharedText> {
    fn read(fields: &Fields<'_>, key: &str) -> Result<Self, String> {
        Ok(fields.opt_string(key)?.map(SharedText::from))
    }
}

/// A streamed tool call's arguments, shared with the call (a pointer, not a copy), on each
/// `tool_input_delta` when [`crate::clean::CleanOptions::partial_input`] is off: the WebAssembly
/// bindings read the event's `partial_input` from them when JS asks for it. Not part of the
/// event's value: never written, and equal to any other. Build events with `ToolArguments::default()`.
///
/// Opaque here (the pipeline's own type, behind `Any`): events know nothing of the pipeline.
#[derive(Debug, Clone, Default)]
#[cfg(feature = "model-tool-calls")]
pub struct ToolArguments(pub(crate) Option<Arc<dyn std::any::Any + Send + Sync>>);

#[cfg(feature = "model-tool-calls")]
impl PartialEq for ToolArguments {
    fn eq(&self, _: &ToolArguments) -> bool {
        true
    }
}

wire! {
/// One clean event: what the UI receives (`docs/events.md`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent tag "type" {
    /// A status line from the backend.
    Status "status" {
        /// "Thinking…", "Running search…".
        message: String,
    },
    /// Clean response text: no ␄, control characters, thinking tags, payload markers or `[[tool:N]]`.
    TextDelta "text_delta" {
        /// The text.
        text: String,
    },
    /// Provider-native or inline `<think>` thinking, cleaned the same way.
    ThinkingDelta "thinking_delta" {
        /// The text.
        text: String,
    },
    /// A tool call begins.
    ToolStart "tool_start" {
        /// The call's id.
        tool_use_id: String,
        /// The tool's name.
        tool: String,
        /// The N of `[[tool:N]]`: the order tools started in this message, from 0.
        index: u32,
        /// The input, when it is known at the start (a backend that runs the tool), else `{}`.
        input: Shared,
    },
    /// More argument text for a streaming tool call.
    #[cfg(feature = "model-tool-calls")]
    ToolInputDelta "tool_input_delta" {
        /// The call's id.
        tool_use_id: String,
        /// The new argument text.
        delta: String,
        /// The best JSON value the arguments so far allow (`null` when
        /// [`crate::clean::CleanOptions::partial_input`] is off, as in the JS bindings, which
        /// compute it when it is read).
        partial_input: Value,
        /// The call's arguments so far, when `partial_input` is left out: not on the wire.
        arguments: ToolArguments => skip,
    },
    /// The arguments are complete and parsed: the model asks for this call.
    ///
    /// When the answer was cut by the token limit in the middle of the arguments, the call is
    /// `incomplete`: `input` is the best value the arguments allow, `arguments` their raw text,
    /// and the call must not be run.
    #[cfg(feature = "model-tool-calls")]
    ToolCall "tool_call" {
        /// The call's id.
        tool_use_id: String,
        /// The tool's name.
        tool: String,
        /// The N of `[[tool:N]]`.
        index: u32,
        /// The parsed arguments (their raw text when they are not JSON, with an `error` before).
        input: Shared,
        /// The token limit cut the arguments.
        incomplete: bool => omit_empty,
        /// The raw arguments of an incomplete call.
        arguments: Option<String> => omit_empty,
    },
    /// Progress of a long-running tool.
    ToolProgress "tool_progress" {
        /// The call's id, when the backend gave one.
        tool_use_id: Option<String>,
        /// The tool's name.
        tool: String,
        /// A stage name ("searching").
        stage: Option<String>,
        /// What to show ("Found 15 articles…").
        message: Option<String>,
        /// From 0 to 1.
        progress: Option<f64>,
        /// Anything else the tool reported.
        data: Value,
    },
    /// A tool finished (run by the backend or the browser). A tool error never stops the stream.
    ToolComplete "tool_complete" {
        /// The call's id.
        tool_use_id: String,
        /// The tool's name.
        tool: String,
        /// The N of `[[tool:N]]`.
        index: u32,
        /// The input it ran with.
        input: Shared,
        /// What it gave.
        output: Shared,
        /// The output is an error.
        is_error: bool,
    },
    /// Custom data the backend sent (AI SDK `data-*` parts, the v4 data stream's `2:` items), as
    /// sent; also collected in `complete.payload.data`.
    Data "data" {
        /// The data part.
        data: Value,
    },
    /// Exactly once per message, also after cancel (with the partial content).
    Complete "complete" {
        /// The whole message.
        payload: CompletePayload,
    },
    /// Something went wrong; what arrived before is kept.
    Error "error" {
        /// What kind of error.
        code: ErrorCode,
        /// What to show.
        message: String,
        /// The payload field the error is about (a payload marker whose JSON did not parse).
        field: Option<String> => omit_empty,
    },
    /// After the `complete` that carries the partial content.
    Cancelled "cancelled",
}
}

impl StreamEvent {
    /// The error for a chunk of a body that is neither bytes nor text (a stream of other values).
    pub fn skipped_chunk() -> StreamEvent {
        let message = "Failed to parse response: a chunk of the body is neither bytes nor text; it was skipped";
        StreamEvent::error(ErrorCode::ServiceUnavailable, message)
    }

    /// An `error` event about nothing in particular (no `field`).
    pub fn error(code: ErrorCode, message: impl Into<String>) -> StreamEvent {
        StreamEvent::Error { code, message: message.into(), field: None }
    }
}

/// The clean events one call writes, runs merged as they are written: text after text, thinking
/// after thinking and more arguments of the same tool call (the merged one keeps the later
/// `partial_input`) are appended to the event before them, so a push returns one event per run
/// however its bytes were cut. Only events this call wrote are merged into: those already in
/// the list are the caller's, who may have read them.
///
/// ```
/// use chatstream::event::{StreamEvent, StreamEvents};
/// let text = |t: &str| StreamEvent::TextDelta { text: t.into() };
/// let mut events = vec![text("a")];
/// let mut out = StreamEvents::new(&mut events);
/// out.push(text("b"));
/// out.push(text("c"));
/// out.push(StreamEvent::Cancelled);
/// assert_eq!(events, [text("a"), text("bc"), StreamEvent::Cancelled]);
/// ```
#[derive(Debug)]
pub struct StreamEvents<'a> {
    events: &'a mut Vec<StreamEvent>,
    /// Where this call's events begin.
    first: usize,
}

impl<'a> StreamEvents<'a> {
    /// Writes after what `events` holds.
    pub fn new(events: &'a mut Vec<StreamEvent>) -> StreamEvents<'a> {
        let first = events.len();
        StreamEvents { events, first }
    }

    /// Appends `event`, onto the last event this call wrote when it continues its run.
    ///
    /// The last event is looked at in place and `event` moved once (into the list, or its fields
    /// into the last event): matching `(last, event)` as a pair would copy the event first, and
    /// an event is a few hundred bytes (`complete`'s payload is held in place).
    pub fn push(&mut self, event: StreamEvent) {
        let Some(last) = self.events[self.first..].last_mut() else { return self.events.push(event) };
        match (last, event) {
            (StreamEvent::TextDelta { text }, StreamEvent::TextDelta { text: more })
            | (StreamEvent::ThinkingDelta { text }, StreamEvent::ThinkingDelta { text: more }) => text.push_str(&more),
            #[cfg(feature = "model-tool-calls")]
            (
                StreamEvent::ToolInputDelta { tool_use_id: id, delta, partial_input, arguments },
                StreamEvent::ToolInputDelta { tool_use_id: next, delta: more, partial_input: later, arguments: their },
            ) if *id == next => {
                delta.push_str(&more);
                *partial_input = later;
                *arguments = their;
            }
            (_, event) => self.events.push(event),
        }
    }

    /// [`StreamEvents::push`] of a text delta, or of a thinking delta when `thinking`. Apart, so
    /// that the event is built where it goes: `push` moves its event whatever its kind (a few
    /// hundred bytes), and a live push is mostly one delta. Its rule for text and thinking is
    /// `push`'s (a run continues only within this call's events): a change to one is made to both.
    pub(crate) fn delta(&mut self, thinking: bool, text: String) {
        match self.events[self.first..].last_mut() {
            Some(StreamEvent::TextDelta { text: last }) if !thinking => last.push_str(&text),
            Some(StreamEvent::ThinkingDelta { text: last }) if thinking => last.push_str(&text),
            _ if thinking => self.events.push(StreamEvent::ThinkingDelta { text }),
            _ => self.events.push(StreamEvent::TextDelta { text }),
        }
    }
}

/// `events[from..]` with their runs merged as [`StreamEvents`] merges them: two event lists are
/// compared this way whatever the chunking was (the cleaner's output does not depend on how its
/// input is cut, only on where deltas begin and end), and a push's events are left as they are
/// by it (the output contract, which the tests check).
///
/// ```
/// use chatstream::event::{merge_adjacent_deltas, StreamEvent};
/// let text = |t: &str| StreamEvent::TextDelta { text: t.into() };
/// let mut events = vec![text("a"), text("b"), StreamEvent::Cancelled, text("c")];
/// merge_adjacent_deltas(&mut events, 0);
/// assert_eq!(events, [text("ab"), StreamEvent::Cancelled, text("c")]);
/// ```
pub fn merge_adjacent_deltas(events: &mut Vec<StreamEvent>, from: usize) {
    let written = events.split_off(from);
    let mut merged = StreamEvents::new(events);
    written.into_iter().for_each(|event| merged.push(event));
}

wire! {
/// `complete.payload`: the whole message, ready to persist and render.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompletePayload {
    /// Clean text with `[[tool:N]]` kept where tools ran (as an agent backend stores it).
    pub message: SharedText,
    /// Clean text with no markers at all.
    pub text: SharedText,
    /// The thinking text, or null.
    pub thinking: Option<String>,
    /// The message in reading order: text and tool cards.
    pub segments: Vec<Segment>,
    /// The message's tools by index.
    pub tool_history: Vec<ToolRecord>,
    /// `SUGGESTED_VALUES` pulled out of the text, or sent by the backend.
    pub suggested_values: Option<Value>,
    /// `SUGGESTED_ACTIONS` pulled out of the text, or sent by the backend.
    pub suggested_actions: Option<Value>,
    /// A registered payload (`{type, data}`) pulled out of the text, or sent by the backend.
    pub custom_payload: Option<Value>,
    /// Why the model stopped.
    pub finish_reason: Option<FinishReason>,
    /// Token counts.
    pub usage: Option<Usage>,
    /// How many invalid UTF-8 sequences in the stream were replaced by U+FFFD (as a browser's
    /// text decoder does); left out when there were none.
    pub invalid_utf8: u64 => omit_empty,
    /// Whatever else the backend sent (`conversation_id`, `diagnostics`, …), passed through.
    pub extra: Map<String, Value> => flatten,
}
}

wire! {
/// Why the model stopped, the same words for every provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FinishReason words {
    /// A natural end (or a stop sequence).
    Stop "stop",
    /// The token limit (or the context window) was reached.
    Length "length",
    /// The model asks for tool calls.
    ToolCalls "tool_calls",
    /// The provider's content filter stopped the answer.
    ContentFilter "content_filter",
    /// The model refused.
    Refusal "refusal",
    /// The provider stopped on an error.
    Error "error",
    /// Anything else the provider said.
    Other "other",
}
}

impl FinishReason {
    /// The reason for one of the contract's words; any other word is `Other`.
    pub fn from_name(name: &str) -> FinishReason {
        FinishReason::ALL.iter().find(|r| r.as_str() == name).copied().unwrap_or(FinishReason::Other)
    }

    /// The Vercel AI SDK's `FinishReason` (`stop`, `length`, `content-filter`, `tool-calls`,
    /// `error`, `other`, `unknown`).
    pub fn from_ai_sdk(name: &str) -> FinishReason {
        FinishReason::from_name(&name.replace('-', "_"))
    }

    /// Any word reads (a backend may send its own, a saved message may be older): unknown
    /// ones are `Other`.
    pub fn from_value(value: &Value) -> Result<FinishReason, String> {
        value.as_str().map(FinishReason::from_name).ok_or_else(|| "expected a string".to_owned())
    }
}

impl ReadField for Option<FinishReason> {
    fn read(fields: &Fields<'_>, key: &str) -> Result<Self, String> {
        fields.opt(key, FinishReason::from_value)
    }
}

impl From<&str> for FinishReason {
    fn from(name: &str) -> FinishReason {
        FinishReason::from_name(name)
    }
}

wire! {
/// One piece of a message in reading order.
#[derive(Debug, Clone, PartialEq)]
pub enum Segment tag "type" reads from_value {
    /// Text.
    Text "text" {
        /// The text.
        text: SharedText,
    },
    /// A tool card. `tool_use_id`, `tool`, `input` and `output` are null for a marker whose
    /// tool never ran: the card stays visible with no output.
    Tool "tool" {
        /// The N of `[[tool:N]]`.
        index: u32,
        /// The call's id.
        tool_use_id: Option<String>,
        /// The tool's name.
        tool: Option<String>,
        /// The input it ran with.
        input: Shared,
        /// What it gave.
        output: Shared,
        /// The output is an error.
        is_error: bool,
    },
}
}

wire! {
/// One entry of `tool_history`, by index. Stored entries may carry only `tool_name`, `input`
/// and `output` (as agent backends write them): the others read as empty when absent.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRecord reads pub from_value {
    /// The tool's name.
    pub tool_name: String,
    /// The call's id (empty when the stored entry had none).
    pub tool_use_id: String => or_default,
    /// The input it ran with.
    pub input: Shared,
    /// What it gave.
    pub output: Shared,
    /// The output is an error.
    pub is_error: bool,
}
}

wire! {
/// Token counts normalized across providers; `None` where the provider did not say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage reads pub from_value {
    /// Every input token (cached ones included).
    pub input_tokens: Option<u64>,
    /// Output tokens (thinking included).
    pub output_tokens: Option<u64>,
    /// Thinking tokens, where the provider counts them separately.
    pub reasoning_tokens: Option<u64>,
    /// Input tokens read from the provider's cache.
    pub cached_input_tokens: Option<u64>,
    /// All tokens.
    pub total_tokens: Option<u64>,
}
}

impl Usage {
    /// Adds `other` into `self`, field by field (usage summed over agent iterations).
    pub fn add(&mut self, other: &Usage) {
        fn sum(a: &mut Option<u64>, b: Option<u64>) {
            if let Some(b) = b {
                *a = Some(a.unwrap_or(0) + b);
            }
        }
        sum(&mut self.input_tokens, other.input_tokens);
        sum(&mut self.output_tokens, other.output_tokens);
        sum(&mut self.reasoning_tokens, other.reasoning_tokens);
        sum(&mut self.cached_input_tokens, other.cached_input_tokens);
        sum(&mut self.total_tokens, other.total_tokens);
    }
}
