//! Stage 4: clean events → chat state, the logic of the `useGeneralChat` hook.
//!
//! [`ChatState`] holds what a chat UI renders. [`StateMachine::apply`] moves it along one event at
//! a time, as a chat UI handles them, and returns the [`Patch`]es that
//! describe the change, so that a UI (the JS wrapper) can update its immutable snapshot in time
//! independent of the message's length: a text delta is an `append`, never a copy of the text.
//!
//! ```
//! use chatstream::state::StateMachine;
//! use chatstream::event::StreamEvent;
//!
//! let mut machine = StateMachine::default();
//! machine.begin("Hi", serde_json::Value::Null).unwrap();
//! machine.apply(&StreamEvent::TextDelta { text: "Hel".into() });
//! machine.apply(&StreamEvent::TextDelta { text: "lo".into() });
//! assert_eq!(machine.state().streaming_text, "Hello");
//! assert!(machine.state().is_loading);
//! ```

mod apply;
mod parts;
mod patch;
mod types;

pub use parts::{MessagePart, ToolState};
pub use patch::{Patch, PatchValue};
pub use types::{
    ChatError, ChatMessage, ChatRequest, ChatState, HistoryEntry, PendingApproval, Phase, StateKeys, ToolProgressKeys,
    ToolProgressState,
};

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::error::ErrorCode;
use crate::event::{Segment, SharedText, StreamEvent};
use crate::json::{to_json_within, to_value, ToJson};
#[cfg(feature = "provider")]
use crate::request::Turn;
use parts::parts_of_answer;

const KEY: StateKeys = ChatState::KEY;

/// The state machine. It knows nothing of HTTP: the caller begins a turn, feeds it the
/// turn's events, and reports transport failures with [`StateMachine::fail`]. The caller keeps
/// turns apart (`chat::ChatSession` refuses a second one while one is in flight).
pub struct StateMachine {
    state: ChatState,
    /// The page context of the last message sent, sent again by [`StateMachine::regenerate`].
    context: Value,
    /// Makes the ids of new messages.
    ids: Box<dyn FnMut() -> String>,
    /// Where each tool call of the turn is in `streaming_parts` and `streaming_segments` (the
    /// first of each, if its id repeats), so that an event about a call finds it at once however
    /// many calls the turn made. Two maps of `usize` rather than one of a pair: the cleaner's map
    /// of that type is in every module already, and a map of a type of its own carried its own copy of
    /// the map's code (1,478 bytes, 808 gzip, in the module of one backend protocol).
    tool_parts: HashMap<String, usize>,
    tool_segments: HashMap<String, usize>,
    /// Where the last text segment's and text part's texts are in `streaming_text` while they grow.
    open: OpenRun,
    /// `streaming_text` was moved into the text of the `complete` being applied
    /// ([`StateMachine::step_into`]): the runs still open are cut from that.
    text_lent: bool,
}

/// The answer's last runs of text and thinking, each held once. While it grows, the last text
/// segment's text and the last text part's are `streaming_text[from..]` (each its own `from`: a
/// data part starts a new part, not a new segment), the last reasoning part's is
/// `thinking_text[from..]`, and they themselves hold nothing: a long answer's text grew three
/// times over, each copy doubling its buffer, and the freed buffers were the module's memory for
/// good. They get their texts when their run ends (another segment or part, the end of the
/// answer), and a copy of the state read meanwhile has them ([`StateMachine::state`]).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct OpenRun {
    pub(super) segment: Option<usize>,
    pub(super) part: Option<usize>,
    pub(super) reasoning: Option<usize>,
}

impl OpenRun {
    /// `state`'s last text segment and last part, those of this run, get their texts.
    pub(super) fn fill(self, state: &mut ChatState) {
        self.fill_sharing(state, &[], None);
    }

    /// [`OpenRun::fill`], a run whose text is one of `known` taking that copy of it, and a text
    /// segment and text part of one run sharing theirs.
    /// `lent`: the text the runs are cut from, when `streaming_text` was moved into it.
    pub(super) fn fill_sharing(self, state: &mut ChatState, known: &[&SharedText], lent: Option<&str>) {
        let text = lent.unwrap_or(&state.streaming_text);
        let text_run = |from: usize| -> SharedText {
            let run = text.get(from..).unwrap_or_default();
            known.iter().find(|text| ***text == *run).map_or_else(|| run.into(), |text| (*text).clone())
        };
        let segment = self.segment.map(text_run);
        let part = match (self.part, &segment) {
            (Some(from), Some(run)) if self.segment == Some(from) => Some(run.clone()),
            (from, _) => from.map(text_run),
        };
        let reasoning = self.reasoning.map(|from| state.thinking_text[from..].to_owned());
        if let (Some(run), Some(Segment::Text { text: last })) = (segment, state.streaming_segments.last_mut()) {
            *last = run;
        }
        match (state.streaming_parts.last_mut(), part, reasoning) {
            (Some(MessagePart::Text { text: last }), Some(run), _) => *last = run,
            (Some(MessagePart::Reasoning { text: last }), _, Some(run)) => *last = run,
            _ => {}
        }
    }
}

/// Events applied to the state, in order: what one step of a turn hands out (the events) and the
/// state's changes (the patches).
#[derive(Debug, Default, PartialEq)]
pub struct Step {
    /// The events, as the turn's event stream hands them out.
    pub events: Vec<StreamEvent>,
    /// The state's changes.
    pub patches: Vec<Patch>,
}

impl Step {
    /// `more` after this step.
    pub fn extend(&mut self, more: Step) {
        self.events.extend(more.events);
        self.patches.extend(more.patches);
    }
}

/// The answer as it streamed: `thinkingText`, `streamingSegments`, `streamingParts` (its text is
/// the `complete`'s).
struct Streamed {
    thinking: String,
    segments: Vec<crate::event::Segment>,
    parts: Vec<MessagePart>,
}

impl Default for StateMachine {
    /// A state machine whose message ids count up: `m1`, `m2`, … (the JS bindings give each chat
    /// a random prefix, or the app's own `generateId`).
    fn default() -> Self {
        StateMachine::with_ids(counting_ids("m"))
    }
}

impl std::fmt::Debug for StateMachine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateMachine").field("state", &self.state).finish_non_exhaustive()
    }
}

/// Ids `{prefix}1`, `{prefix}2`, ….
pub fn counting_ids(prefix: &str) -> impl FnMut() -> String + 'static {
    let prefix = prefix.to_owned();
    let mut next = 0u64;
    move || {
        next += 1;
        format!("{prefix}{next}")
    }
}

impl StateMachine {
    /// A state machine whose new messages get their ids from `ids`.
    pub fn with_ids(ids: impl FnMut() -> String + 'static) -> StateMachine {
        StateMachine {
            state: ChatState::default(),
            context: Value::Null,
            ids: Box::new(ids),
            tool_parts: HashMap::new(),
            tool_segments: HashMap::new(),
            open: OpenRun::default(),
            text_lent: false,
        }
    }

    /// What the UI renders. While answer text streams, a copy with the last text segment's and
    /// part's texts filled in ([`OpenRun`]): the state itself holds them once.
    pub fn state(&self) -> Cow<'_, ChatState> {
        if self.open == OpenRun::default() {
            return Cow::Borrowed(&self.state);
        }
        let mut state = self.state.clone();
        self.open.fill(&mut state);
        Cow::Owned(state)
    }

    /// Applies `events` in order ([`StateMachine::apply`]), handing them back with their patches.
    pub fn step(&mut self, events: Vec<StreamEvent>) -> Step {
        let mut step = Step { events, patches: Vec::new() };
        self.step_into(&mut step, &mut None);
        step
    }

    /// Starts a turn: validates the message (non-empty after trimming), adds it to
    /// the conversation and returns the request to send. A refused message changes nothing; the
    /// caller shows the error with [`StateMachine::fail`].
    pub fn begin(&mut self, message: &str, context: Value) -> Result<(ChatRequest, Vec<Patch>), ChatError> {
        if message.trim().is_empty() {
            return Err(ChatError { code: ErrorCode::ValidationError, message: "Message cannot be empty".into() });
        }
        let user = Arc::new(ChatMessage::user((self.ids)(), message));
        let mut patches = vec![Patch::Push { key: KEY.messages, value: PatchValue::Message(user.clone()) }];
        self.state.messages.push(user);
        self.context = if context.is_null() { json!({}) } else { context };
        self.start_turn(&mut patches);
        Ok((self.request(self.state.messages.len() - 1), patches))
    }

    /// Asks again for the last user message: the answer after it is taken away (after a failed
    /// turn there is none, and the error is cleared), and the same request goes out again.
    pub fn regenerate(&mut self) -> Result<(ChatRequest, Vec<Patch>), ChatError> {
        let Some(at) = self.state.messages.iter().rposition(|m| m.role == "user") else {
            return Err(ChatError {
                code: ErrorCode::ValidationError,
                message: "There is no message to answer".into(),
            });
        };
        let mut patches = Vec::new();
        if self.state.messages.len() > at + 1 {
            self.state.messages.truncate(at + 1);
            patches.push(Patch::Set { key: KEY.messages, value: PatchValue::Messages(self.state.messages.clone()) });
        }
        self.start_turn(&mut patches);
        Ok((self.request(at), patches))
    }

    /// Replaces the conversation. Messages without an id get one; stored messages without parts
    /// get theirs from their text and tools.
    pub fn set_messages(&mut self, messages: Vec<ChatMessage>) -> Vec<Patch> {
        self.state.messages = messages.into_iter().map(|m| Arc::new(self.complete_stored(m))).collect();
        let mut patches =
            vec![Patch::Set { key: KEY.messages, value: PatchValue::Messages(self.state.messages.clone()) }];
        self.set(&mut patches, Field::Error(None));
        patches
    }

    /// Clears the error shown.
    pub fn clear_error(&mut self) -> Vec<Patch> {
        let mut patches = Vec::new();
        self.set(&mut patches, Field::Error(None));
        patches
    }

    /// A tool call waits for the user: the turn pauses with it in `pendingApproval`.
    pub fn request_approval(&mut self, call: PendingApproval) -> Vec<Patch> {
        let mut patches = Vec::new();
        self.set_tool_part(&call.tool_use_id, &mut patches, |state, _| *state = ToolState::ApprovalRequested);
        self.set(&mut patches, Field::PendingApproval(Some(call)));
        self.set(&mut patches, Field::StatusText(None));
        self.enter(&mut patches, Phase::Approval);
        patches
    }

    /// The user answered the pending approval: the call runs (`approved`) or is denied.
    pub fn approval_answered(&mut self, tool_use_id: &str, approved: bool) -> Vec<Patch> {
        let mut patches = Vec::new();
        let state = if approved { ToolState::InputAvailable } else { ToolState::OutputDenied };
        self.set_tool_part(tool_use_id, &mut patches, |s, _| *s = state);
        self.set(&mut patches, Field::PendingApproval(None));
        self.enter(&mut patches, Phase::Tool);
        patches
    }

    /// The transport failed before the stream could report it (HTTP status, network error):
    /// the user's message stays, the error is shown, nothing else changes.
    pub fn fail(&mut self, code: ErrorCode, message: &str) -> Vec<Patch> {
        let mut patches = self.apply(&StreamEvent::error(code, message));
        patches.extend(self.stream_closed());
        patches
    }

    /// The turn's stream ended (after its last event): whatever it said, nothing is loading now.
    pub fn stream_closed(&mut self) -> Vec<Patch> {
        let mut patches = Vec::new();
        if self.state.is_loading {
            self.end_turn(&mut patches);
        }
        patches
    }

    /// `messages` as JSON, to save. What reading a message back makes again is left out: its
    /// `parts` (written empty) when its other fields make them, as a finished answer's nearly always
    /// do, and then an answer's `segments` too when its `content` makes them, as a plain answer's
    /// do; so that a long answer's text is written once, not three times. [`StateMachine::load_messages`]
    /// makes them again. (They are set aside while the JSON is written, not copied: hence `&mut`.)
    pub fn messages_json(&mut self) -> String {
        self.saved_messages(|messages, about| to_json_within(messages, about + about / 16))
    }

    /// What [`StateMachine::messages_json`] writes, handed to `write` with about how long their
    /// texts are (the JS bindings hand its long strings over apart).
    pub(crate) fn saved_messages<R>(&mut self, write: impl FnOnce(&dyn ToJson, usize) -> R) -> R {
        let set_aside: Vec<Option<(Vec<MessagePart>, Option<Vec<Segment>>)>> = (self.state.messages.iter_mut())
            .map(|m| {
                let (parts, segments) = m.made_again_when_read();
                parts.then(|| {
                    let m = Arc::make_mut(m);
                    (std::mem::take(&mut m.parts), segments.then(|| std::mem::take(&mut m.segments)))
                })
            })
            .collect();
        // Their texts, and room for the rest of each message (ids, keys, tools).
        let about: usize = (self.state.messages.iter())
            .map(|m| m.content.len() + m.thinking.as_ref().map_or(0, String::len) + 256)
            .sum();
        let written = write(&self.state.messages, about);
        for (message, set_aside) in self.state.messages.iter_mut().zip(set_aside) {
            if let Some((parts, segments)) = set_aside {
                let message = Arc::make_mut(message);
                message.parts = parts;
                if let Some(segments) = segments {
                    message.segments = segments;
                }
            }
        }
        written
    }

    /// Replaces the whole state with saved `messages` (JSON).
    pub fn load_messages(&mut self, json: &str) -> Result<Vec<Patch>, ChatError> {
        let messages = crate::json::parse(json)
            .map_err(|e| format!(": {e}"))
            .and_then(|value| crate::json::list(&value, ChatMessage::from_value))
            .map_err(|e| ChatError {
                code: ErrorCode::ValidationError,
                message: format!("Invalid saved messages{e}"),
            })?;
        let messages = messages.into_iter().map(|m| Arc::new(self.complete_stored(m))).collect();
        self.state = ChatState { messages, ..ChatState::default() };
        // The answer in the making went with the old state: no run of it is open any more.
        self.open = OpenRun::default();
        self.tool_parts.clear();
        self.tool_segments.clear();
        Ok(vec![Patch::Reset { value: PatchValue::State(Box::new(self.state.clone())) }])
    }

    #[cfg(feature = "provider")]
    /// The conversation as a provider-neutral one, for a model talked to directly: user text,
    /// and assistant text with the `[[tool:N]]` markers taken out. (Saved messages do not keep
    /// the tool calls and results the model saw; the tool cards keep them for the UI.)
    pub fn conversation(&self) -> Vec<Turn> {
        let text_of = |content: &str| -> String {
            crate::clean::resolve_tool_markers(content, &[])
                .into_iter()
                .filter_map(
                    |s| if let crate::event::Segment::Text { text } = s { Some(String::from(text)) } else { None },
                )
                .collect()
        };
        self.state
            .messages
            .iter()
            .map(|m| match m.role.as_str() {
                "user" => Turn::User { content: m.content.to_string() },
                _ => Turn::Assistant { content: text_of(&m.content), tool_calls: Vec::new() },
            })
            .collect()
    }

    /// A stored message made whole: an id if it has none, an answer's segments if it has none
    /// ([`ChatMessage::with_segments`]), parts if it has none.
    fn complete_stored(&mut self, message: ChatMessage) -> ChatMessage {
        let mut message = message.with_segments();
        if message.id.is_empty() {
            message.id = (self.ids)();
        }
        if message.parts.is_empty() {
            // Saved before parts existed, or written by a backend: its thinking, then its text and
            // tool cards in reading order.
            message.parts = parts_of_answer(
                message.thinking.as_deref(),
                &message.segments,
                &message.content,
                &message.tool_history,
            );
        }
        message
    }

    /// The request answering `messages[at]`, with the messages before it as history.
    fn request(&self, at: usize) -> ChatRequest {
        let messages = &self.state.messages;
        ChatRequest {
            message: messages[at].content.to_string(),
            context: self.context.clone(),
            interaction_type: "text_input".into(),
            conversation_id: self.state.conversation_id.clone(),
            conversation_history: messages[..at]
                .iter()
                .map(|m| HistoryEntry { role: m.role.clone(), content: m.content.clone() })
                .collect(),
        }
    }

    fn start_turn(&mut self, patches: &mut Vec<Patch>) {
        self.set(patches, Field::IsLoading(true));
        self.set(patches, Field::Error(None));
        self.set(patches, Field::Phase(Phase::Waiting));
        self.clear_streaming(patches);
    }

    fn end_turn(&mut self, patches: &mut Vec<Patch>) {
        self.set(patches, Field::IsLoading(false));
        self.set(patches, Field::StatusText(None));
        self.set(patches, Field::ActiveToolProgress(None));
        self.set(patches, Field::PendingApproval(None));
        self.clear_streaming(patches);
        self.enter(patches, Phase::Idle);
    }

    fn clear_streaming(&mut self, patches: &mut Vec<Patch>) {
        self.take_streaming(patches, &[], None);
    }

    /// The answer as it streamed, taken out of the state (not copied), with the patches that
    /// clear it in the snapshot. The runs of text still open get their texts: those of `known`
    /// that are theirs (the `complete`'s), so that a long answer's text is not copied again
    /// (`lent`: [`OpenRun::fill_sharing`]).
    fn take_streaming(&mut self, patches: &mut Vec<Patch>, known: &[&SharedText], lent: Option<&str>) -> Streamed {
        self.tool_parts.clear();
        self.tool_segments.clear();
        std::mem::take(&mut self.open).fill_sharing(&mut self.state, known, lent);
        let s = &mut self.state;
        let text = std::mem::take(&mut s.streaming_text);
        let streamed = Streamed {
            thinking: std::mem::take(&mut s.thinking_text),
            segments: std::mem::take(&mut s.streaming_segments),
            parts: std::mem::take(&mut s.streaming_parts),
        };
        if !text.is_empty() || lent.is_some_and(|text| !text.is_empty()) {
            patches.push(Patch::Set { key: KEY.streaming_text, value: Value::from("").into() });
        }
        if !streamed.thinking.is_empty() {
            patches.push(Patch::Set { key: KEY.thinking_text, value: Value::from("").into() });
        }
        if !streamed.segments.is_empty() {
            patches.push(Patch::Set { key: KEY.streaming_segments, value: json!([]).into() });
        }
        if !streamed.parts.is_empty() {
            patches.push(Patch::Set { key: KEY.streaming_parts, value: json!([]).into() });
        }
        streamed
    }

    fn enter(&mut self, patches: &mut Vec<Patch>, phase: Phase) {
        if self.state.phase != phase {
            self.set(patches, Field::Phase(phase));
        }
    }

    /// Sets one scalar field and records the patch, skipping no-op changes. Out of line, as
    /// [`StateMachine::apply_other`] is: [`StateMachine::apply`]'s deltas reach it only to clear a
    /// status or enter a phase, a few times a turn.
    #[inline(never)]
    fn set(&mut self, patches: &mut Vec<Patch>, field: Field) {
        let s = &mut self.state;
        // A flag, a status line and a phase are made as JSON values directly, not written as JSON
        // text and parsed back: a short answer read whole sets them about ten times a turn.
        let (key, value) = match field {
            Field::IsLoading(v) => (KEY.is_loading, replace(&mut s.is_loading, v).map(|on| Value::Bool(*on))),
            Field::StatusText(v) => (KEY.status_text, replace(&mut s.status_text, v).map(|text| text.clone().into())),
            Field::ActiveToolProgress(v) => {
                (KEY.active_tool_progress, replace(&mut s.active_tool_progress, v).map(json))
            }
            Field::Error(v) => (KEY.error, replace(&mut s.error, v).map(json)),
            Field::PendingApproval(v) => (KEY.pending_approval, replace(&mut s.pending_approval, v).map(json)),
            Field::Phase(v) => (KEY.phase, replace(&mut s.phase, v).map(|phase| phase.as_str().into())),
        };
        if let Some(value) = value {
            patches.push(Patch::Set { key, value: value.into() });
        }
    }
}

/// Puts `value` in `slot`: the slot, when that changed it.
fn replace<T: PartialEq>(slot: &mut T, value: T) -> Option<&T> {
    if *slot == value {
        return None;
    }
    *slot = value;
    Some(slot)
}

/// A field's value as JSON: `null` for none.
fn json<T: ToJson>(value: &Option<T>) -> Value {
    // Through `dyn`: one `to_value` for every field's type, not one each in the module.
    value.as_ref().map_or(Value::Null, |value| to_value(value as &dyn ToJson))
}

enum Field {
    IsLoading(bool),
    StatusText(Option<String>),
    ActiveToolProgress(Option<ToolProgressState>),
    Error(Option<ChatError>),
    PendingApproval(Option<PendingApproval>),
    Phase(Phase),
}
