//! What the decoders say: [`ProviderEvent`]s, written through [`ProviderEvents`], which merges
//! runs of text as they are written.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::error::ErrorCode;
use crate::event::{FinishReason, Usage};

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
    #[cfg(feature = "model-tool-calls")]
    ToolCallStart {
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More argument text (a JSON fragment) for the call `id`.
    #[cfg(feature = "model-tool-calls")]
    ToolCallDelta {
        /// The call's id.
        id: String,
        /// The new argument text.
        delta: String,
    },
    /// The call's arguments are complete. `input` is set when the provider sent the parsed value
    /// (Gemini, Ollama, AI SDK `tool-input-available`); otherwise the cleaner parses the deltas.
    /// A `ToolCallEnd` with no `ToolCallStart` before it stands for both.
    #[cfg(feature = "model-tool-calls")]
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
    /// An owned piece that starts a run is moved in, not copied (the borrowed methods below copy).
    pub fn push(&mut self, event: ProviderEvent) {
        match (self.events.last_mut(), event) {
            (_, ProviderEvent::Text(text) | ProviderEvent::Thinking(text)) if text.is_empty() => {}
            #[cfg(feature = "model-tool-calls")]
            (_, ProviderEvent::ToolCallDelta { delta, .. }) if delta.is_empty() => {}
            (Some(ProviderEvent::Text(last)), ProviderEvent::Text(text)) => last.push_str(&text),
            (Some(ProviderEvent::Thinking(last)), ProviderEvent::Thinking(text)) => last.push_str(&text),
            #[cfg(feature = "model-tool-calls")]
            (
                Some(ProviderEvent::ToolCallDelta { id: last_id, delta: last }),
                ProviderEvent::ToolCallDelta { id, delta },
            ) if *last_id == id => last.push_str(&delta),
            (_, event) => self.events.push(event),
        }
    }

    /// Appends response text (what a fast path read): a borrowed piece that starts a run is
    /// copied, an owned one (a string the fast path unescaped) moved in.
    pub fn text<'t>(&mut self, text: impl Into<Cow<'t, str>>) {
        let text = text.into();
        match self.events.last_mut() {
            _ if text.is_empty() => {}
            Some(ProviderEvent::Text(last)) => last.push_str(&text),
            _ => self.events.push(ProviderEvent::Text(text.into_owned())),
        }
    }

    /// Appends thinking text.
    pub fn thinking<'t>(&mut self, text: impl Into<Cow<'t, str>>) {
        let text = text.into();
        match self.events.last_mut() {
            _ if text.is_empty() => {}
            Some(ProviderEvent::Thinking(last)) => last.push_str(&text),
            _ => self.events.push(ProviderEvent::Thinking(text.into_owned())),
        }
    }

    /// Appends arguments of the tool call `id`. Arguments are JSON inside a JSON string, their
    /// quotes escaped: nearly every delta is one the fast path unescaped, moved in here.
    #[cfg(feature = "model-tool-calls")]
    pub fn tool_call_delta<'t>(&mut self, id: &str, delta: impl Into<Cow<'t, str>>) {
        let delta = delta.into();
        match self.events.last_mut() {
            _ if delta.is_empty() => {}
            Some(ProviderEvent::ToolCallDelta { id: last_id, delta: last }) if last_id == id => last.push_str(&delta),
            _ => self.events.push(ProviderEvent::ToolCallDelta { id: id.to_owned(), delta: delta.into_owned() }),
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
        // Not `Map::from_iter`: that sorts its items first, and the sort's code for (String, Value)
        // was 6 KB of the module (raw) for one item.
        let mut field = Map::new();
        field.insert(key.to_owned(), value);
        ProviderEvent::Payload(field)
    }

    /// Whether the message is over after this event: the dialect's terminal event, a fatal
    /// error, a cancel.
    pub fn ends_message(&self) -> bool {
        matches!(self, ProviderEvent::End | ProviderEvent::Cancelled | ProviderEvent::Error { fatal: true, .. })
    }
}

#[cfg(all(test, feature = "model-tool-calls"))]
mod tests {
    use super::*;

    fn delta(id: &str, delta: &str) -> ProviderEvent {
        ProviderEvent::ToolCallDelta { id: id.into(), delta: delta.into() }
    }

    #[test]
    fn owned_pieces_merge_into_runs_as_borrowed_ones_do() {
        let pieces = [
            ProviderEvent::Text(String::new()),
            ProviderEvent::Text("Hel".into()),
            ProviderEvent::Text("lo".into()),
            ProviderEvent::Thinking("a".into()),
            ProviderEvent::Thinking(String::new()),
            ProviderEvent::Thinking("b".into()),
            delta("1", "{\"a\""),
            delta("1", ":1}"),
            delta("1", ""),
            delta("2", "{}"),
            ProviderEvent::End,
            ProviderEvent::Text("after".into()),
        ];
        let mut owned = ProviderEvents::default();
        owned.extend(pieces.clone());
        let mut borrowed = ProviderEvents::default();
        for piece in &pieces {
            match piece {
                ProviderEvent::Text(text) => borrowed.text(text.as_str()),
                ProviderEvent::Thinking(text) => borrowed.thinking(text.as_str()),
                ProviderEvent::ToolCallDelta { id, delta } => borrowed.tool_call_delta(id, delta.as_str()),
                other => borrowed.push(other.clone()),
            }
        }
        let expected = [
            ProviderEvent::Text("Hello".into()),
            ProviderEvent::Thinking("ab".into()),
            delta("1", "{\"a\":1}"),
            delta("2", "{}"),
            ProviderEvent::End,
            ProviderEvent::Text("after".into()),
        ];
        assert_eq!(owned.as_slice(), expected);
        assert_eq!(borrowed.as_slice(), expected);
    }
}
