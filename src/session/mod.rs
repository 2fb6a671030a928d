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

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::ErrorCode;
use crate::event::{CompletePayload, FinishReason, Segment, StreamEvent, ToolRecord, Usage};
use crate::request::Turn;

/// One message of the conversation, (plus what the clean
/// payload adds). Serializes to the JSON that `messages` are saved and loaded as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// The text as it is stored: `[[tool:N]]` kept where tools ran.
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<Segment>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_history: Vec<ToolRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_values: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_actions: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_payload: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// True when the user stopped this answer: the content is what arrived before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
}

impl ChatMessage {
    pub fn user(content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role: "user".into(),
            content: content.into(),
            thinking: None,
            segments: Vec::new(),
            tool_history: Vec::new(),
            suggested_values: None,
            suggested_actions: None,
            custom_payload: None,
            finish_reason: None,
            usage: None,
            cancelled: false,
        }
    }

    /// No text, thinking, tools or payloads.
    fn is_empty(&self) -> bool {
        self.content.is_empty()
            && self.thinking.as_deref().map_or(true, str::is_empty)
            && self.segments.is_empty()
            && self.tool_history.is_empty()
            && self.suggested_values.is_none()
            && self.suggested_actions.is_none()
            && self.custom_payload.is_none()
    }

    fn assistant(payload: &CompletePayload) -> ChatMessage {
        ChatMessage {
            role: "assistant".into(),
            content: payload.message.clone(),
            thinking: payload.thinking.clone(),
            segments: payload.segments.clone(),
            tool_history: payload.tool_history.clone(),
            suggested_values: payload.suggested_values.clone(),
            suggested_actions: payload.suggested_actions.clone(),
            custom_payload: payload.custom_payload.clone(),
            finish_reason: payload.finish_reason.clone(),
            usage: payload.usage.clone(),
            cancelled: false,
        }
    }
}

/// The running tool's progress (`activeToolProgress`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolProgressState {
    pub tool_name: String,
    /// The `tool_progress` events received for this tool, in order.
    pub updates: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatError {
    pub code: ErrorCode,
    pub message: String,
}

/// Where the session is in a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Nothing in flight.
    Idle,
    /// The request is out; nothing has come back yet ("Thinking…").
    Waiting,
    /// Text or thinking is arriving.
    Streaming,
    /// A tool is running.
    Tool,
}

/// What a chat UI renders: messages, the streaming text, status, tool progress, error, plus `thinkingText`, `streamingSegments`, `phase`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatState {
    pub messages: Vec<ChatMessage>,
    pub is_loading: bool,
    pub streaming_text: String,
    pub thinking_text: String,
    pub status_text: Option<String>,
    pub active_tool_progress: Option<ToolProgressState>,
    pub error: Option<ChatError>,
    pub streaming_segments: Vec<Segment>,
    pub phase: Phase,
    pub conversation_id: Option<Value>,
}

impl Default for ChatState {
    fn default() -> Self {
        ChatState {
            messages: Vec::new(),
            is_loading: false,
            streaming_text: String::new(),
            thinking_text: String::new(),
            status_text: None,
            active_tool_progress: None,
            error: None,
            streaming_segments: Vec::new(),
            phase: Phase::Idle,
            conversation_id: None,
        }
    }
}

/// One change to [`ChatState`], named by its camelCase field (the JS snapshot's key).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Patch {
    /// `state[key] = value`.
    Set { key: &'static str, value: Value },
    /// `state[key] += text` (a string field).
    Append { key: &'static str, text: String },
    /// `state.messages.push(value)`.
    PushMessage { value: Value },
    /// The last message of `state.messages` is replaced by `value`.
    SetLastMessage { value: Value },
    /// `state.streamingSegments.push(value)`.
    PushSegment { value: Value },
    /// More answer text: `state.streamingText += text`, and the last segment of
    /// `streamingSegments`, a text segment, gets `text` appended too. (One patch, not an
    /// `Append` and a segment patch: the text crosses into JS once per push.)
    AppendText { text: String },
    /// `streamingSegments[at]` is replaced by `value` (a tool card got its output).
    SetSegment { at: usize, value: Value },
    /// `activeToolProgress.updates.push(value)`.
    PushToolUpdate { value: Value },
    /// The whole state is replaced by `value` (saved messages were loaded).
    Reset { value: Value },
}

/// The request body an agent backend takes on `POST /api/chat/stream` (`docs/agent-protocol.md`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest {
    pub message: String,
    pub context: Value,
    pub interaction_type: String,
    pub conversation_id: Option<Value>,
    pub conversation_history: Vec<HistoryEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryEntry {
    pub role: String,
    pub content: String,
}

/// The state machine. It knows nothing of HTTP: the caller begins a turn, feeds it the
/// turn's events, and reports transport failures with [`Session::fail`].
#[derive(Debug, Default)]
pub struct Session {
    state: ChatState,
}

impl Session {
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
        if self.state.is_loading {
            let error = ChatError { code: ErrorCode::Conflict, message: "A message is already being answered".into() };
            return Err(error);
        }
        let conversation_history = self
            .state
            .messages
            .iter()
            .map(|m| HistoryEntry { role: m.role.clone(), content: m.content.clone() })
            .collect();
        let user = ChatMessage::user(message);
        let mut patches = vec![Patch::PushMessage { value: to_value(&user) }];
        self.state.messages.push(user);
        self.set(&mut patches, Field::IsLoading(true));
        self.set(&mut patches, Field::Error(None));
        self.set(&mut patches, Field::Phase(Phase::Waiting));
        self.clear_streaming(&mut patches);
        let request = ChatRequest {
            message: message.to_owned(),
            context: if context.is_null() { json!({}) } else { context },
            interaction_type: "text_input".into(),
            conversation_id: self.state.conversation_id.clone(),
            conversation_history,
        };
        Ok((request, patches))
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
                self.state.streaming_text.push_str(text);
                if let Some(Segment::Text { text: last }) = self.state.streaming_segments.last_mut() {
                    last.push_str(text);
                    patches.push(Patch::AppendText { text: text.clone() });
                } else {
                    patches.push(Patch::Append { key: "streamingText", text: text.clone() });
                    let segment = Segment::Text { text: text.clone() };
                    patches.push(Patch::PushSegment { value: to_value(&segment) });
                    self.state.streaming_segments.push(segment);
                }
                self.enter(&mut patches, Phase::Streaming);
            }
            StreamEvent::ThinkingDelta { text } => {
                self.state.thinking_text.push_str(text);
                patches.push(Patch::Append { key: "thinkingText", text: text.clone() });
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
                patches.push(Patch::PushSegment { value: to_value(&segment) });
                self.state.streaming_segments.push(segment);
                self.enter(&mut patches, Phase::Tool);
            }
            StreamEvent::ToolCall { tool_use_id, input, .. } => {
                // The arguments are final: the card shows them.
                if let Some(at) = self.tool_segment(tool_use_id) {
                    if let Segment::Tool { input: shown, .. } = &mut self.state.streaming_segments[at] {
                        *shown = input.clone();
                    }
                    let value = to_value(&self.state.streaming_segments[at]);
                    patches.push(Patch::SetSegment { at, value });
                }
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
                        patches.push(Patch::SetSegment { at, value });
                    }
                    None => {
                        self.state.streaming_segments.push(finished);
                        patches.push(Patch::PushSegment { value });
                    }
                }
                self.enter(&mut patches, Phase::Streaming);
            }
            StreamEvent::Complete { payload } => {
                // A turn that produced nothing (failed or stopped before any output) adds no
                // empty bubble: the user's message stays last, ready to retry.
                let message = ChatMessage::assistant(payload);
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
        serde_json::to_string(&self.state.messages).expect("messages serialize")
    }

    /// Replaces the conversation with saved `messages` (not while a turn is in flight).
    pub fn load_messages(&mut self, json: &str) -> Result<Vec<Patch>, ChatError> {
        if self.state.is_loading {
            return Err(ChatError {
                code: ErrorCode::Conflict,
                message: "Cannot load messages while answering".into(),
            });
        }
        let messages: Vec<ChatMessage> = serde_json::from_str(json).map_err(|e| ChatError {
            code: ErrorCode::ValidationError,
            message: format!("Invalid saved messages: {e}"),
        })?;
        self.state = ChatState { messages, ..ChatState::default() };
        Ok(vec![Patch::Reset { value: to_value(&self.state) }])
    }

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

    fn end_turn(&mut self, patches: &mut Vec<Patch>) {
        self.set(patches, Field::IsLoading(false));
        self.set(patches, Field::StatusText(None));
        self.set(patches, Field::ActiveToolProgress(None));
        self.clear_streaming(patches);
        self.enter(patches, Phase::Idle);
    }

    fn clear_streaming(&mut self, patches: &mut Vec<Patch>) {
        if !self.state.streaming_text.is_empty() {
            self.state.streaming_text.clear();
            patches.push(Patch::Set { key: "streamingText", value: json!("") });
        }
        if !self.state.thinking_text.is_empty() {
            self.state.thinking_text.clear();
            patches.push(Patch::Set { key: "thinkingText", value: json!("") });
        }
        if !self.state.streaming_segments.is_empty() {
            self.state.streaming_segments.clear();
            patches.push(Patch::Set { key: "streamingSegments", value: json!([]) });
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
                ("isLoading", json!(v))
            }
            Field::StatusText(v) if s.status_text != v => {
                let value = json!(v);
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
    Phase(Phase),
}

fn to_value<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_value(value).expect("state values serialize")
}
