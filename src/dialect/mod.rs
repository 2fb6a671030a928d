//! Stage 2: frames → [`ProviderEvent`]s, one decoder per wire dialect.
//!
//! A decoder reads one frame ([`FrameRef`]) at a time and appends what it means, in provider-neutral
//! terms, to its output ([`ProviderEvents`], which merges runs of text as they are written). It
//! does no cleaning (markers, thinking tags, control characters are the next stage's work) and
//! never sees bytes. Auto-detection lives in [`detect`].

// Helpers shared by some dialects only: a build without all of them leaves some unused (the
// full build still checks for dead code).
#![cfg_attr(not(feature = "dialects"), allow(dead_code))]

pub mod detect;
/// Test and fuzz builds with every dialect only: see the module's documentation.
#[cfg(all(any(test, fuzzing), feature = "dialects"))]
#[doc(hidden)]
pub mod fuzzing;
mod not_built_in;
mod scan;
#[cfg(test)]
mod test_support;

#[cfg(feature = "dialect-agent")]
mod agent;
#[cfg(feature = "dialect-agent")]
pub use agent::AgentDecoder;
#[cfg(feature = "dialect-anthropic")]
mod anthropic;
#[cfg(feature = "dialect-anthropic")]
pub use anthropic::AnthropicDecoder;
#[cfg(feature = "dialect-data-stream")]
mod data_stream;
#[cfg(feature = "dialect-data-stream")]
pub use data_stream::DataStreamDecoder;
#[cfg(feature = "dialect-gemini")]
mod gemini;
#[cfg(feature = "dialect-gemini")]
pub use gemini::GeminiDecoder;
#[cfg(feature = "dialect-ollama")]
mod ollama;
#[cfg(feature = "dialect-ollama")]
pub use ollama::OllamaDecoder;
#[cfg(feature = "dialect-openai")]
mod openai;
#[cfg(feature = "dialect-openai")]
pub use openai::OpenAiDecoder;
#[cfg(feature = "dialect-openai-responses")]
mod openai_responses;
#[cfg(feature = "dialect-openai-responses")]
pub use openai_responses::OpenAiResponsesDecoder;
#[cfg(feature = "dialect-ui-message-stream")]
mod ui_message_stream;
#[cfg(feature = "dialect-ui-message-stream")]
pub use ui_message_stream::UiMessageStreamDecoder;

use serde_json::{Map, Value};

use crate::error::ErrorCode;
use crate::event::{FinishReason, Usage};
use crate::framing::{FrameRef, Framing};

/// [`ProviderEvents::text`] or [`ProviderEvents::thinking`]: what a decoder's fast path read.
type TextEvent = fn(&mut ProviderEvents, &str);

/// What a provider said, in provider-neutral terms. Text is raw: the cleaning stage strips it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ProviderEvent {
    /// A status line from a backend ("Thinking…").
    Status(String),
    /// Response text, as the provider sent it.
    Text(String),
    /// Provider-native thinking / reasoning text (summaries included).
    Thinking(String),
    /// The model starts asking for a tool call; its arguments may stream in `ToolCallDelta`s.
    ToolCallStart {
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More argument text (a JSON fragment) for the call `id`.
    ToolCallDelta {
        /// The call's id.
        id: String,
        /// The new argument text.
        delta: String,
    },
    /// The call's arguments are complete. `input` is set when the provider sent the parsed value
    /// (Gemini, Ollama, AI SDK `tool-input-available`); otherwise the cleaner parses the deltas.
    /// A `ToolCallEnd` with no `ToolCallStart` before it stands for both.
    ToolCallEnd {
        /// The call's id.
        id: String,
        /// The tool's name, when this event carries it.
        name: Option<String>,
        /// The parsed input, when the provider sent it whole.
        input: Option<Value>,
    },
    /// A backend started running a tool itself (agent `tool_start`). `id` may be absent.
    ToolRun {
        /// The call's id, when the backend gave one.
        id: Option<String>,
        /// The tool's name.
        name: String,
        /// Its input.
        input: Value,
    },
    /// Progress of a running tool.
    ToolProgress {
        /// The call's id, when the backend gave one.
        id: Option<String>,
        /// The tool's name.
        name: String,
        /// A stage name.
        stage: Option<String>,
        /// What to show.
        message: Option<String>,
        /// From 0 to 1.
        progress: Option<f64>,
        /// Anything else the tool reported.
        data: Value,
    },
    /// A tool finished: matched by `id`, else by `index`, else to the oldest unfinished tool.
    ToolResult {
        /// The call's id, when the result names it.
        id: Option<String>,
        /// The tool's name, when the result names it.
        name: Option<String>,
        /// The N of `[[tool:N]]`, when the result names it.
        index: Option<u32>,
        /// What the tool gave.
        output: Value,
        /// The output is an error.
        is_error: bool,
    },
    /// Token counts; later reports replace earlier ones field by field within one stream.
    Usage(Usage),
    /// Why generation stopped.
    Finish {
        /// The reason, in the contract's words.
        reason: FinishReason,
    },
    /// Fields the backend sent for `complete.payload` (agent `complete`, message metadata,
    /// `conversation_id`, `suggested_values`, `tool_history`, …). Merged key by key.
    Payload(Map<String, Value>),
    /// Custom data for the app (AI SDK `data-*` parts): passed on as it comes, and collected in
    /// `complete.payload.data`.
    Data(Value),
    /// A value to append to the array `complete.payload[key]` (`sources`, `files`, `data`,
    /// `citations`, …).
    Attach {
        /// The payload field.
        key: String,
        /// The value to append.
        value: Value,
    },
    /// An error. `fatal`: the provider ended the message (its error event, a refusal of the
    /// whole request). Not fatal: one frame could not be read; the stream goes on.
    Error {
        /// What kind of error.
        code: ErrorCode,
        /// What to show.
        message: String,
        /// The message is over.
        fatal: bool,
    },
    /// The dialect's terminal event arrived (`[DONE]`, `message_stop`, `response.completed`,
    /// `done: true`, `finish`, …): the stream finished properly.
    End,
    /// The backend reports the request was cancelled.
    Cancelled,
}

/// The events a decoder writes, runs merged as they are written: text after text, thinking after
/// thinking and more arguments of the same tool call are appended to the event before them, and
/// an empty piece adds nothing. Every decoder writes only through this, so the next stage takes
/// a run as one piece however the provider cut it (per piece it would cost allocations, marker
/// checks and, for arguments, a `partial_input` as large as the arguments so far), and a run of
/// text deltas costs one allocation, not one per delta.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderEvents {
    events: Vec<ProviderEvent>,
}

impl ProviderEvents {
    /// Appends `event`, onto the last event when it continues its run.
    pub fn push(&mut self, event: ProviderEvent) {
        match event {
            ProviderEvent::Text(text) => self.text(&text),
            ProviderEvent::Thinking(text) => self.thinking(&text),
            ProviderEvent::ToolCallDelta { id, delta } => self.tool_call_delta(&id, &delta),
            event => self.events.push(event),
        }
    }

    /// Appends response text (what a fast path read, borrowed from the frame).
    pub fn text(&mut self, text: &str) {
        match self.events.last_mut() {
            _ if text.is_empty() => {}
            Some(ProviderEvent::Text(last)) => last.push_str(text),
            _ => self.events.push(ProviderEvent::Text(text.to_owned())),
        }
    }

    /// Appends thinking text.
    pub fn thinking(&mut self, text: &str) {
        match self.events.last_mut() {
            _ if text.is_empty() => {}
            Some(ProviderEvent::Thinking(last)) => last.push_str(text),
            _ => self.events.push(ProviderEvent::Thinking(text.to_owned())),
        }
    }

    /// Appends arguments of the tool call `id`.
    pub fn tool_call_delta(&mut self, id: &str, delta: &str) {
        match self.events.last_mut() {
            _ if delta.is_empty() => {}
            Some(ProviderEvent::ToolCallDelta { id: last_id, delta: last }) if last_id == id => last.push_str(delta),
            _ => self.events.push(ProviderEvent::ToolCallDelta { id: id.to_owned(), delta: delta.to_owned() }),
        }
    }

    /// The events so far.
    pub fn as_slice(&self) -> &[ProviderEvent] {
        &self.events
    }

    /// Takes the events out, in order, leaving the buffer empty (and its memory kept for reuse).
    pub fn drain(&mut self) -> std::vec::Drain<'_, ProviderEvent> {
        self.events.drain(..)
    }

    /// The events.
    pub fn into_vec(self) -> Vec<ProviderEvent> {
        self.events
    }
}

impl Extend<ProviderEvent> for ProviderEvents {
    fn extend<I: IntoIterator<Item = ProviderEvent>>(&mut self, events: I) {
        events.into_iter().for_each(|event| self.push(event));
    }
}

impl std::ops::Deref for ProviderEvents {
    type Target = [ProviderEvent];

    fn deref(&self) -> &[ProviderEvent] {
        &self.events
    }
}

impl ProviderEvent {
    /// The error for a frame that is not what its dialect allows.
    pub fn unreadable(detail: impl std::fmt::Display) -> ProviderEvent {
        ProviderEvent::Error {
            code: ErrorCode::ServiceUnavailable,
            message: format!("Failed to parse response: {detail}"),
            fatal: false,
        }
    }

    /// The provider's error event, which ends its message. Codes the contract gives a fixed
    /// message ("Invalid API key", "Rate limited, try again") use it, as HTTP errors do;
    /// otherwise the provider's own message is kept.
    pub fn provider_error(code: ErrorCode, provider_message: Option<&str>) -> ProviderEvent {
        let message = match (code, provider_message) {
            (ErrorCode::Unauthorized | ErrorCode::RateLimited, _) | (_, None) => code.default_message(),
            (_, Some(message)) => message,
        };
        ProviderEvent::Error { code, message: message.to_owned(), fatal: true }
    }

    /// The provider's error event when it names no kind: its message's words decide the code.
    pub fn provider_error_from_message(message: &str) -> ProviderEvent {
        ProviderEvent::provider_error(ErrorCode::from_message(message), Some(message))
    }

    /// One value to append to the array `complete.payload[key]`.
    pub fn attach(key: &str, value: Value) -> ProviderEvent {
        ProviderEvent::Attach { key: key.to_owned(), value }
    }

    /// One field for `complete.payload`.
    pub fn payload(key: &str, value: Value) -> ProviderEvent {
        ProviderEvent::Payload(Map::from_iter([(key.to_owned(), value)]))
    }

    /// Whether the message is over after this event: the dialect's terminal event, a fatal
    /// error, a cancel.
    pub fn ends_message(&self) -> bool {
        matches!(self, ProviderEvent::End | ProviderEvent::Cancelled | ProviderEvent::Error { fatal: true, .. })
    }
}

/// A frame's data, trimmed, unless it carries nothing: blank, or a `[DONE]` of the kind servers
/// and proxies in OpenAI's style add to dialects that end with an event of their own.
pub(crate) fn data_to_read(frame: FrameRef<'_>) -> Option<&str> {
    let data = frame.data.trim();
    (!data.is_empty() && data != "[DONE]").then_some(data)
}

/// `value[key]` when it is a string.
pub(crate) fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A wire-dialect decoder. It reads every frame it is given; [`Decoder`] adds the rule all
/// dialects share, that nothing is read after the message is over.
pub trait DialectDecoder {
    /// Decodes one frame, appending its events to `out`.
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents);
    /// The input ended. Dialects whose end of body is their terminal event (Gemini) emit
    /// `End` here when the stream finished properly; the others add nothing.
    fn finish(&mut self, _out: &mut ProviderEvents) {}
}

/// The wire dialects chatstream reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Chat Completions (`openai`): OpenAI and every compatible server.
    OpenAi,
    /// OpenAI's Responses API (`openai-responses`).
    OpenAiResponses,
    /// Anthropic Messages (`anthropic`).
    Anthropic,
    /// Gemini (`gemini`).
    Gemini,
    /// Ollama's native `/api/chat` (`ollama`).
    Ollama,
    /// The Vercel AI SDK UI message stream, v5 and later (`ui-message-stream`).
    UiMessageStream,
    /// The Vercel AI SDK v4 data stream (`data-stream`).
    DataStream,
    /// The agent backend protocol (`agent`).
    Agent,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 8] = [
        Dialect::OpenAi,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Ollama,
        Dialect::UiMessageStream,
        Dialect::DataStream,
        Dialect::Agent,
    ];

    /// The name used in options and fixtures: `openai`, `openai-responses`, ….
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAi => "openai",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Ollama => "ollama",
            Dialect::UiMessageStream => "ui-message-stream",
            Dialect::DataStream => "data-stream",
            Dialect::Agent => "agent",
        }
    }

    /// The dialect with this name.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The framing it is carried in.
    pub fn framing(self) -> Framing {
        match self {
            Dialect::Ollama | Dialect::DataStream => Framing::Lines,
            _ => Framing::Sse,
        }
    }

    /// Whether this build reads it. Each dialect is a cargo feature (`dialect-openai`, …, all of
    /// them in `dialects`, a default feature), so that a build for one backend protocol carries
    /// only its decoder.
    pub fn is_built_in(self) -> bool {
        match self {
            Dialect::OpenAi => cfg!(feature = "dialect-openai"),
            Dialect::OpenAiResponses => cfg!(feature = "dialect-openai-responses"),
            Dialect::Anthropic => cfg!(feature = "dialect-anthropic"),
            Dialect::Gemini => cfg!(feature = "dialect-gemini"),
            Dialect::Ollama => cfg!(feature = "dialect-ollama"),
            Dialect::UiMessageStream => cfg!(feature = "dialect-ui-message-stream"),
            Dialect::DataStream => cfg!(feature = "dialect-data-stream"),
            Dialect::Agent => cfg!(feature = "dialect-agent"),
        }
    }

    /// A fresh decoder for it (see [`Decoder`] for the rule all of them share). For a dialect
    /// not built in, one that ends the message with an error at its first frame.
    pub fn decoder(self) -> Box<dyn DialectDecoder> {
        match self {
            #[cfg(feature = "dialect-openai")]
            Dialect::OpenAi => Box::<OpenAiDecoder>::default(),
            #[cfg(feature = "dialect-openai-responses")]
            Dialect::OpenAiResponses => Box::<OpenAiResponsesDecoder>::default(),
            #[cfg(feature = "dialect-anthropic")]
            Dialect::Anthropic => Box::<AnthropicDecoder>::default(),
            #[cfg(feature = "dialect-gemini")]
            Dialect::Gemini => Box::<GeminiDecoder>::default(),
            #[cfg(feature = "dialect-ollama")]
            Dialect::Ollama => Box::<OllamaDecoder>::default(),
            #[cfg(feature = "dialect-ui-message-stream")]
            Dialect::UiMessageStream => Box::<UiMessageStreamDecoder>::default(),
            #[cfg(feature = "dialect-data-stream")]
            Dialect::DataStream => Box::<DataStreamDecoder>::default(),
            #[cfg(feature = "dialect-agent")]
            Dialect::Agent => Box::<AgentDecoder>::default(),
            #[allow(unreachable_patterns)] // every dialect built in
            _ => Box::new(not_built_in::NotBuiltIn(self)),
        }
    }
}

/// A dialect's decoder under the rule every dialect shares: once the message is over (its
/// terminal event, a fatal error or a cancel), later frames are not read. Servers send things
/// after their end marker (a repeated `[DONE]`, a usage chunk, keep-alives); none of it belongs
/// to the message.
pub struct Decoder {
    dialect: Box<dyn DialectDecoder>,
    ended: bool,
}

impl Decoder {
    /// The decoder for `dialect`.
    pub fn new(dialect: Dialect) -> Decoder {
        Decoder::of(dialect.decoder())
    }

    /// The rule around any decoder.
    pub fn of(dialect: Box<dyn DialectDecoder>) -> Decoder {
        Decoder { dialect, ended: false }
    }

    /// Decodes one frame, unless the message is over.
    pub fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        if self.ended {
            return;
        }
        let first = out.len();
        self.dialect.decode(frame, out);
        self.ended = out[first..].iter().any(ProviderEvent::ends_message);
    }

    /// The message is over: later frames are not read.
    pub fn has_ended(&self) -> bool {
        self.ended
    }

    /// The input ended.
    pub fn finish(&mut self, out: &mut ProviderEvents) {
        if !self.ended {
            self.dialect.finish(out);
            self.ended = true;
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
