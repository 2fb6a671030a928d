//! Stage 4: clean events → chat state, the logic of the `useGeneralChat` hook.
//!
//! [`ChatState`] holds what a chat UI renders. [`Session::apply`] moves it along one event at
//! a time, as a chat UI handles them, and returns the [`Patch`]es that
//! describe the change, so that a UI (the JS wrapper) can update its immutable snapshot in time
//! independent of the message's length: a text delta is an `append`, never a copy of the text.
//!
//! ```
//! use chatstream::session::Session;
//! use chatstream::event::StreamEvent;
//!
//! let mut session = Session::default();
//! session.begin("Hi", serde_json::Value::Null).unwrap();
//! session.apply(&StreamEvent::TextDelta { text: "Hel".into() });
//! session.apply(&StreamEvent::TextDelta { text: "lo".into() });
//! assert_eq!(session.state().streaming_text, "Hello");
//! assert!(session.state().is_loading);
//! ```

mod parts;
mod state;

pub use parts::{MessagePart, ToolState};
pub use state::{
    ChatError, ChatMessage, ChatRequest, ChatState, HistoryEntry, Patch, PendingApproval, Phase, ToolProgressState,
};

use serde_json::{json, Value};

use crate::error::ErrorCode;
use crate::event::{CompletePayload, Segment, StreamEvent};
use crate::json::{to_json, to_value};
#[cfg(feature = "provider")]
use crate::request::Turn;
use parts::parts_of_answer;

/// The state machine. It knows nothing of HTTP: the caller begins a turn, feeds it the
/// turn's events, and reports transport failures with [`Session::fail`].
pub struct Session {
    state: ChatState,
    /// The page context of the last message sent, sent again by [`Session::regenerate`].
    context: Value,
    /// Makes the ids of new messages.
    ids: Box<dyn FnMut() -> String>,
}

impl Default for Session {
    /// A session whose message ids count up: `m1`, `m2`, … (the JS bindings give each session
    /// a random prefix, or the app's own `generateId`).
    fn default() -> Self {
        Session::with_ids(counting_ids("m"))
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("state", &self.state).finish_non_exhaustive()
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

impl Session {
    /// A session whose new messages get their ids from `ids`.
    pub fn with_ids(ids: impl FnMut() -> String + 'static) -> Session {
        Session { state: ChatState::default(), context: Value::Null, ids: Box::new(ids) }
    }

    /// What the UI renders.
    pub fn state(&self) -> &ChatState {
        &self.state
    }

    /// Whether a turn is in flight.
    pub fn in_flight(&self) -> bool {
        self.state.is_loading
    }

    /// Starts a turn: validates the message (non-empty after trimming), adds it to
    /// the conversation and returns the request to send. A refused message changes nothing; the
    /// caller shows the error with [`Session::fail`].
    pub fn begin(&mut self, message: &str, context: Value) -> Result<(ChatRequest, Vec<Patch>), ChatError> {
        if message.trim().is_empty() {
            return Err(ChatError { code: ErrorCode::ValidationError, message: "Message cannot be empty".into() });
        }
        self.not_in_flight("A message is already being answered")?;
        let user = ChatMessage::user((self.ids)(), message);
        let mut patches = vec![Patch::PushMessage { value: to_value(&user) }];
        self.state.messages.push(user);
        self.context = if context.is_null() { json!({}) } else { context };
        self.start_turn(&mut patches);
        Ok((self.request(self.state.messages.len() - 1), patches))
    }

    /// Asks again for the last user message: the answer after it is taken away (after a failed
    /// turn there is none, and the error is cleared), and the same request goes out again.
    pub fn regenerate(&mut self) -> Result<(ChatRequest, Vec<Patch>), ChatError> {
        self.not_in_flight("A message is being answered")?;
        let Some(at) = self.state.messages.iter().rposition(|m| m.role == "user") else {
            return Err(ChatError {
                code: ErrorCode::ValidationError,
                message: "There is no message to answer".into(),
            });
        };
        let mut patches = Vec::new();
        if self.state.messages.len() > at + 1 {
            self.state.messages.truncate(at + 1);
            patches.push(Patch::Set { key: "messages", value: to_value(&self.state.messages) });
        }
        self.start_turn(&mut patches);
        Ok((self.request(at), patches))
    }

    /// The last user message's text, the one a turn answers.
    pub fn last_user_message(&self) -> Option<&str> {
        self.state.messages.iter().rev().find(|m| m.role == "user").map(|m| m.content.as_str())
    }

    /// Replaces the conversation (not while a turn is in flight). Messages without an id get
    /// one; stored messages without parts get theirs from their text and tools.
    pub fn set_messages(&mut self, messages: Vec<ChatMessage>) -> Result<Vec<Patch>, ChatError> {
        self.not_in_flight("Cannot replace the messages while answering")?;
        self.state.messages = messages.into_iter().map(|m| self.complete_stored(m)).collect();
        let mut patches = vec![Patch::Set { key: "messages", value: to_value(&self.state.messages) }];
        self.set(&mut patches, Field::Error(None));
        Ok(patches)
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

    /// Moves the state along by one event of the turn.
    pub fn apply(&mut self, event: &StreamEvent) -> Vec<Patch> {
        let mut patches = Vec::new();
        match event {
            StreamEvent::Status { message } => self.set(&mut patches, Field::StatusText(Some(message.clone()))),
            StreamEvent::TextDelta { text } => {
                if self.state.status_text.is_some() {
                    self.set(&mut patches, Field::StatusText(None));
                }
                self.append_text(text, &mut patches);
                self.enter(&mut patches, Phase::Streaming);
            }
            StreamEvent::ThinkingDelta { text } => {
                self.state.thinking_text.push_str(text);
                patches.push(Patch::Append { key: "thinkingText", text: text.clone() });
                match self.state.streaming_parts.last_mut() {
                    Some(MessagePart::Reasoning { text: last }) => {
                        last.push_str(text);
                        patches.push(Patch::AppendToLast { key: "streamingParts", text: text.clone() });
                    }
                    _ => self.push_part(MessagePart::Reasoning { text: text.clone() }, &mut patches),
                }
                self.enter(&mut patches, Phase::Streaming);
            }
            StreamEvent::ToolStart { tool_use_id, tool, index, input } => {
                self.set(&mut patches, Field::StatusText(Some(format!("Running {tool}..."))));
                let progress = ToolProgressState { tool_name: tool.clone(), updates: Vec::new() };
                self.set(&mut patches, Field::ActiveToolProgress(Some(progress)));
                let segment = Segment::Tool {
                    index: *index,
                    tool_use_id: Some(tool_use_id.clone()),
                    tool: Some(tool.clone()),
                    input: input.clone(),
                    output: Value::Null,
                    is_error: false,
                };
                patches.push(Patch::Push { key: "streamingSegments", value: to_value(&segment) });
                self.state.streaming_segments.push(segment);
                // A backend that runs the tool itself starts it with its input; a model's call
                // starts empty and its input streams.
                let streaming = input.as_object().is_some_and(|o| o.is_empty());
                let state = if streaming { ToolState::InputStreaming } else { ToolState::InputAvailable };
                let part = MessagePart::Tool {
                    tool_use_id: tool_use_id.clone(),
                    tool: tool.clone(),
                    index: *index,
                    state,
                    input: input.clone(),
                    output: Value::Null,
                    is_error: false,
                };
                self.push_part(part, &mut patches);
                self.enter(&mut patches, Phase::Tool);
            }
            StreamEvent::ToolCall { tool_use_id, input, .. } => {
                // The arguments are final: the card shows them.
                if let Some(at) = self.tool_segment(tool_use_id) {
                    if let Segment::Tool { input: shown, .. } = &mut self.state.streaming_segments[at] {
                        *shown = input.clone();
                    }
                    let value = to_value(&self.state.streaming_segments[at]);
                    patches.push(Patch::SetAt { key: "streamingSegments", at, value });
                }
                self.set_tool_part(tool_use_id, &mut patches, |state, shown| {
                    *state = ToolState::InputAvailable;
                    *shown = input.clone();
                });
            }
            StreamEvent::ToolProgress { .. } => {
                if let Some(progress) = self.state.active_tool_progress.as_mut() {
                    let value = to_value(event);
                    progress.updates.push(value.clone());
                    patches.push(Patch::PushToolUpdate { value });
                }
            }
            StreamEvent::ToolComplete { tool_use_id, tool, index, input, output, is_error } => {
                self.set(&mut patches, Field::ActiveToolProgress(None));
                self.set(&mut patches, Field::StatusText(None));
                self.tool_finished(event, &mut patches);
                let finished = Segment::Tool {
                    index: *index,
                    tool_use_id: Some(tool_use_id.clone()),
                    tool: Some(tool.clone()),
                    input: input.clone(),
                    output: output.clone(),
                    is_error: *is_error,
                };
                let value = to_value(&finished);
                match self.tool_segment(tool_use_id) {
                    Some(at) => {
                        self.state.streaming_segments[at] = finished;
                        patches.push(Patch::SetAt { key: "streamingSegments", at, value });
                    }
                    None => {
                        self.state.streaming_segments.push(finished);
                        patches.push(Patch::Push { key: "streamingSegments", value });
                    }
                }
                self.enter(&mut patches, Phase::Streaming);
            }
            StreamEvent::Data { data } => self.push_part(MessagePart::Data { data: data.clone() }, &mut patches),
            StreamEvent::Complete { payload } => {
                // A turn that produced nothing (failed or stopped before any output) adds no
                // empty bubble: the user's message stays last, ready to retry.
                let parts = self.final_parts(payload);
                let message = ChatMessage::assistant((self.ids)(), payload, parts);
                if !message.is_empty() {
                    patches.push(Patch::PushMessage { value: to_value(&message) });
                    self.state.messages.push(message);
                }
                if let Some(id) = payload.extra.get("conversation_id").filter(|v| !v.is_null()) {
                    self.state.conversation_id = Some(id.clone());
                    patches.push(Patch::Set { key: "conversationId", value: id.clone() });
                }
                self.end_turn(&mut patches);
            }
            StreamEvent::Error { code, message, .. } => {
                // An error before `complete` may be one unreadable frame in a stream that goes on,
                // so the turn ends when the stream does (`stream_closed`), not here.
                self.set(&mut patches, Field::Error(Some(ChatError { code: *code, message: message.clone() })));
                self.set(&mut patches, Field::StatusText(None));
                self.set(&mut patches, Field::ActiveToolProgress(None));
            }
            StreamEvent::Cancelled => {
                // The `complete` before this carried the partial answer: mark it as stopped.
                if let Some(last) = self.state.messages.last_mut().filter(|m| m.role == "assistant" && !m.cancelled) {
                    last.cancelled = true;
                    patches.push(Patch::SetLastMessage { value: to_value(last) });
                }
                self.end_turn(&mut patches);
            }
            _ => {}
        }
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

    /// `messages` as JSON, to save.
    pub fn messages_json(&self) -> String {
        to_json(&self.state.messages)
    }

    /// Replaces the whole state with saved `messages` (JSON; not while a turn is in flight).
    pub fn load_messages(&mut self, json: &str) -> Result<Vec<Patch>, ChatError> {
        self.not_in_flight("Cannot load messages while answering")?;
        let messages = serde_json::from_str::<Value>(json)
            .map_err(|e| format!(": {e}"))
            .and_then(|value| crate::json::list(&value, ChatMessage::from_value))
            .map_err(|e| ChatError {
                code: ErrorCode::ValidationError,
                message: format!("Invalid saved messages{e}"),
            })?;
        let messages = messages.into_iter().map(|m| self.complete_stored(m)).collect();
        self.state = ChatState { messages, ..ChatState::default() };
        Ok(vec![Patch::Reset { value: to_value(&self.state) }])
    }

    #[cfg(feature = "provider")]
    /// The conversation as a provider-neutral one, for a model talked to directly: user text,
    /// and assistant text with the `[[tool:N]]` markers taken out. (Saved messages do not keep
    /// the tool calls and results the model saw; the tool cards keep them for the UI.)
    pub fn conversation(&self) -> Vec<Turn> {
        let text_of = |content: &str| -> String {
            crate::clean::resolve_tool_markers(content, &[])
                .into_iter()
                .filter_map(|s| if let Segment::Text { text } = s { Some(text) } else { None })
                .collect()
        };
        self.state
            .messages
            .iter()
            .map(|m| match m.role.as_str() {
                "user" => Turn::User { content: m.content.clone() },
                _ => Turn::Assistant { content: text_of(&m.content), tool_calls: Vec::new() },
            })
            .collect()
    }

    fn not_in_flight(&self, message: &str) -> Result<(), ChatError> {
        if self.state.is_loading {
            return Err(ChatError { code: ErrorCode::Conflict, message: message.into() });
        }
        Ok(())
    }

    /// A stored message made whole: an id if it has none, parts if it has none.
    fn complete_stored(&mut self, mut message: ChatMessage) -> ChatMessage {
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
            message: messages[at].content.clone(),
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

    /// Answer text: appended to `streamingText`, and to the last text segment and text part, or
    /// starting new ones. A new segment or part (after a tool) drops its leading whitespace, as
    /// the final message's segments do, so nothing jumps when the answer completes.
    fn append_text(&mut self, text: &str, patches: &mut Vec<Patch>) {
        self.state.streaming_text.push_str(text);
        let segment_continues = matches!(self.state.streaming_segments.last(), Some(Segment::Text { .. }));
        let part_continues = matches!(self.state.streaming_parts.last(), Some(MessagePart::Text { .. }));
        if let Some(Segment::Text { text: last }) = self.state.streaming_segments.last_mut() {
            last.push_str(text);
        }
        if let Some(MessagePart::Text { text: last }) = self.state.streaming_parts.last_mut() {
            last.push_str(text);
        }
        if segment_continues && part_continues {
            patches.push(Patch::AppendText { text: text.to_owned() });
            return;
        }
        patches.push(Patch::Append { key: "streamingText", text: text.to_owned() });
        let fresh = text.trim_start();
        if segment_continues {
            patches.push(Patch::AppendToLast { key: "streamingSegments", text: text.to_owned() });
        } else if !fresh.is_empty() {
            let segment = Segment::Text { text: fresh.to_owned() };
            patches.push(Patch::Push { key: "streamingSegments", value: to_value(&segment) });
            self.state.streaming_segments.push(segment);
        }
        if part_continues {
            patches.push(Patch::AppendToLast { key: "streamingParts", text: text.to_owned() });
        } else if !fresh.is_empty() {
            self.push_part(MessagePart::Text { text: fresh.to_owned() }, patches);
        }
    }

    fn push_part(&mut self, part: MessagePart, patches: &mut Vec<Patch>) {
        patches.push(Patch::Push { key: "streamingParts", value: to_value(&part) });
        self.state.streaming_parts.push(part);
    }

    /// Changes the tool part of this call (its state, its input), if there is one.
    fn set_tool_part(&mut self, id: &str, patches: &mut Vec<Patch>, change: impl FnOnce(&mut ToolState, &mut Value)) {
        let found = self.state.streaming_parts.iter_mut().enumerate().find_map(|(at, part)| match part {
            MessagePart::Tool { tool_use_id, state, input, .. } if tool_use_id == id => Some((at, state, input)),
            _ => None,
        });
        if let Some((at, state, input)) = found {
            change(state, input);
            let value = to_value(&self.state.streaming_parts[at]);
            patches.push(Patch::SetAt { key: "streamingParts", at, value });
        }
    }

    /// A `tool_complete`: the tool part gets its output (a denied call stays denied).
    fn tool_finished(&mut self, event: &StreamEvent, patches: &mut Vec<Patch>) {
        let StreamEvent::ToolComplete { tool_use_id, tool, index, input, output, is_error } = event else { return };
        let at = self
            .state
            .streaming_parts
            .iter()
            .position(|part| matches!(part, MessagePart::Tool { tool_use_id: id, .. } if id == tool_use_id));
        let denied = at.is_some_and(|at| {
            matches!(self.state.streaming_parts[at], MessagePart::Tool { state: ToolState::OutputDenied, .. })
        });
        let part = MessagePart::Tool {
            tool_use_id: tool_use_id.clone(),
            tool: tool.clone(),
            index: *index,
            state: if denied { ToolState::OutputDenied } else { ToolState::of_result(*is_error) },
            input: input.clone(),
            output: output.clone(),
            is_error: *is_error,
        };
        match at {
            Some(at) => {
                patches.push(Patch::SetAt { key: "streamingParts", at, value: to_value(&part) });
                self.state.streaming_parts[at] = part;
            }
            None => self.push_part(part, patches),
        }
    }

    /// The answer's parts as they streamed, with each tool's final input and output from the
    /// payload's `tool_history`. A backend that sent its own `message` decides the text: then
    /// the parts are its thinking, its segments and the data that streamed.
    fn final_parts(&self, payload: &CompletePayload) -> Vec<MessagePart> {
        let texts = || {
            self.state.streaming_parts.iter().filter_map(|p| {
                if let MessagePart::Text { text } = p {
                    Some(text.as_str())
                } else {
                    None
                }
            })
        };
        // The same visible text. Usually one part that is the whole text, compared at once; else
        // character by character, whitespace left out.
        let visible = |c: &char| !c.is_whitespace();
        let same_text = match texts().collect::<Vec<_>>()[..] {
            [one] if one.trim() == payload.text.trim() => true,
            _ => texts().flat_map(str::chars).filter(visible).eq(payload.text.chars().filter(visible)),
        };
        if !same_text {
            let mut parts = parts_of_answer(
                payload.thinking.as_deref(),
                &payload.segments,
                &payload.message,
                &payload.tool_history,
            );
            parts.extend(self.state.streaming_parts.iter().filter(|p| matches!(p, MessagePart::Data { .. })).cloned());
            return parts;
        }
        let mut parts = self.state.streaming_parts.clone();
        for part in &mut parts {
            if let MessagePart::Tool { index, state, input, output, is_error, .. } = part {
                if let Some(record) = payload.tool_history.get(*index as usize) {
                    *input = record.input.clone();
                    *output = record.output.clone();
                    *is_error = record.is_error;
                    if *state != ToolState::OutputDenied && (!output.is_null() || *is_error) {
                        *state = ToolState::of_result(*is_error);
                    }
                }
            }
        }
        parts
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
        if !self.state.streaming_text.is_empty() {
            self.state.streaming_text.clear();
            patches.push(Patch::Set { key: "streamingText", value: Value::from("") });
        }
        if !self.state.thinking_text.is_empty() {
            self.state.thinking_text.clear();
            patches.push(Patch::Set { key: "thinkingText", value: Value::from("") });
        }
        if !self.state.streaming_segments.is_empty() {
            self.state.streaming_segments.clear();
            patches.push(Patch::Set { key: "streamingSegments", value: json!([]) });
        }
        if !self.state.streaming_parts.is_empty() {
            self.state.streaming_parts.clear();
            patches.push(Patch::Set { key: "streamingParts", value: json!([]) });
        }
    }

    fn enter(&mut self, patches: &mut Vec<Patch>, phase: Phase) {
        if self.state.phase != phase {
            self.set(patches, Field::Phase(phase));
        }
    }

    fn tool_segment(&self, tool_use_id: &str) -> Option<usize> {
        self.state
            .streaming_segments
            .iter()
            .position(|s| matches!(s, Segment::Tool { tool_use_id: Some(id), .. } if id == tool_use_id))
    }

    /// Sets one scalar field and records the patch, skipping no-op changes.
    fn set(&mut self, patches: &mut Vec<Patch>, field: Field) {
        let s = &mut self.state;
        let (key, value) = match field {
            Field::IsLoading(v) if s.is_loading != v => {
                s.is_loading = v;
                ("isLoading", Value::Bool(v))
            }
            Field::StatusText(v) if s.status_text != v => {
                let value = Value::from(v.clone());
                s.status_text = v;
                ("statusText", value)
            }
            Field::ActiveToolProgress(v) if s.active_tool_progress != v => {
                let value = to_value(&v);
                s.active_tool_progress = v;
                ("activeToolProgress", value)
            }
            Field::Error(v) if s.error != v => {
                let value = to_value(&v);
                s.error = v;
                ("error", value)
            }
            Field::PendingApproval(v) if s.pending_approval != v => {
                let value = to_value(&v);
                s.pending_approval = v;
                ("pendingApproval", value)
            }
            Field::Phase(v) if s.phase != v => {
                s.phase = v;
                ("phase", to_value(&v))
            }
            _ => return,
        };
        patches.push(Patch::Set { key, value });
    }
}

enum Field {
    IsLoading(bool),
    StatusText(Option<String>),
    ActiveToolProgress(Option<ToolProgressState>),
    Error(Option<ChatError>),
    PendingApproval(Option<PendingApproval>),
    Phase(Phase),
}
