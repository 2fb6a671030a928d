//! What a chat UI renders ([`ChatState`]), the messages it keeps ([`ChatMessage`]), and the
//! [`Patch`]es that describe each change to it.

use serde::Serialize;
use serde_json::Value;

use super::parts::MessagePart;
use crate::error::ErrorCode;
use crate::event::{CompletePayload, FinishReason, Segment, ToolRecord, Usage};
use crate::json::{Fields, JsonOut, Object, ToJson};

/// One message of the conversation. Serializes to the JSON that `messages` are saved and
/// loaded as ([`ChatMessage::from_value`]); there, everything but `role` and its text (`content`,
/// or parts to read it from) may be absent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatMessage {
    /// Stable and unique in the conversation, for keying lists: the caller's, or generated.
    pub id: String,
    /// `user` or `assistant`.
    pub role: String,
    /// The text as it is stored: `[[tool:N]]` kept where tools ran. A stored message without it
    /// gets its text parts, joined (empty for a stored turn that only called tools).
    pub content: String,
    /// The message in reading order: text, reasoning, tools with their state, data.
    pub parts: Vec<MessagePart>,
    /// The thinking text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// The message in reading order: text and tool cards.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<Segment>,
    /// The message's tools by index.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_history: Vec<ToolRecord>,
    /// Quick replies to offer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_values: Option<Value>,
    /// Action buttons to offer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_actions: Option<Value>,
    /// A registered payload (`{type, data}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_payload: Option<Value>,
    /// Why the model stopped; `length` means the answer was cut by the token limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    /// Token counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// True when the user stopped this answer: the content is what arrived before.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
}

impl ChatMessage {
    /// A user message.
    pub fn user(id: String, content: impl Into<String>) -> ChatMessage {
        let content = content.into();
        ChatMessage {
            id,
            role: "user".into(),
            parts: vec![MessagePart::Text { text: content.clone() }],
            content,
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

    /// The answer a `complete` describes, with its parts as they streamed.
    pub(crate) fn assistant(id: String, payload: &CompletePayload, parts: Vec<MessagePart>) -> ChatMessage {
        ChatMessage {
            id,
            role: "assistant".into(),
            content: payload.message.clone(),
            parts,
            thinking: payload.thinking.clone(),
            segments: payload.segments.clone(),
            tool_history: payload.tool_history.clone(),
            suggested_values: payload.suggested_values.clone(),
            suggested_actions: payload.suggested_actions.clone(),
            custom_payload: payload.custom_payload.clone(),
            finish_reason: payload.finish_reason,
            usage: payload.usage.clone(),
            cancelled: false,
        }
    }

    /// No text, thinking, tools or payloads.
    pub(crate) fn is_empty(&self) -> bool {
        self.content.is_empty()
            && self.thinking.as_deref().map_or(true, str::is_empty)
            && self.segments.is_empty()
            && self.tool_history.is_empty()
            && self.suggested_values.is_none()
            && self.suggested_actions.is_none()
            && self.custom_payload.is_none()
    }
}

/// The running tool's progress (`activeToolProgress`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolProgressState {
    /// The tool's name.
    pub tool_name: String,
    /// The `tool_progress` events received for this tool, in order.
    pub updates: Vec<Value>,
}

/// The error the chat shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatError {
    /// What kind of error (`docs/events.md`, "Errors").
    pub code: ErrorCode,
    /// What to show.
    pub message: String,
}

/// A tool call waiting for the user's approval (`pendingApproval`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingApproval {
    /// The call's id: what `approve(id)` and `deny(id, reason)` name.
    pub tool_use_id: String,
    /// The tool's name.
    pub tool: String,
    /// The call's index in the message (the N of `[[tool:N]]`).
    pub index: u32,
    /// The input the model gave it.
    pub input: Value,
}

/// Where the chat is in a turn.
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
    /// A tool call waits for the user's approval.
    Approval,
}

/// What a chat UI renders: the messages, the answer as it streams (`streamingText`,
/// `thinkingText`, `streamingSegments`, `streamingParts`), status, tool progress, the error, and
/// where the turn is (`phase`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatState {
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// An answer is coming: from the request until the answer's `complete`, or the turn's end
    /// (the response may stay open a little after its `complete`: see `chat::ChatSession`).
    pub is_loading: bool,
    /// The answer's text so far.
    pub streaming_text: String,
    /// The answer's thinking so far.
    pub thinking_text: String,
    /// A status line ("Thinking…", "Running search…").
    pub status_text: Option<String>,
    /// The running tool's progress.
    pub active_tool_progress: Option<ToolProgressState>,
    /// The last error.
    pub error: Option<ChatError>,
    /// The answer so far as text and tool segments.
    pub streaming_segments: Vec<Segment>,
    /// The answer so far as parts: what its message's `parts` will be.
    pub streaming_parts: Vec<MessagePart>,
    /// A tool call waiting for the user's approval.
    pub pending_approval: Option<PendingApproval>,
    /// Where the turn is.
    pub phase: Phase,
    /// The conversation id the backend gave, sent back with the next request.
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
            streaming_parts: Vec::new(),
            pending_approval: None,
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
    Set {
        /// The field.
        key: &'static str,
        /// Its new value.
        value: PatchValue,
    },
    /// `state[key] += text` (a string field).
    Append {
        /// The field.
        key: &'static str,
        /// What to append.
        text: String,
    },
    /// `state.messages.push(value)`.
    PushMessage {
        /// The message.
        value: PatchValue,
    },
    /// The last message of `state.messages` is replaced by `value`.
    SetLastMessage {
        /// The message.
        value: PatchValue,
    },
    /// `state[key].push(value)` (`streamingSegments`, `streamingParts`).
    Push {
        /// The list.
        key: &'static str,
        /// The new item.
        value: PatchValue,
    },
    /// `state[key][at] = value` (a tool card got its output).
    SetAt {
        /// The list.
        key: &'static str,
        /// Which item.
        at: usize,
        /// Its new value.
        value: PatchValue,
    },
    /// More of the same text: `state[key]`'s last item, a text or reasoning part, gets `text`
    /// appended (`streamingSegments`, `streamingParts`).
    AppendToLast {
        /// The list.
        key: &'static str,
        /// What to append.
        text: String,
    },
    /// More answer text: `state.streamingText += text`, and the last text segment of
    /// `streamingSegments` and the last text part of `streamingParts` get it too. (One patch,
    /// not three: the text crosses into JS once per push.)
    AppendText {
        /// What to append.
        text: String,
    },
    /// `activeToolProgress.updates.push(value)`.
    PushToolUpdate {
        /// The `tool_progress` event.
        value: PatchValue,
    },
    /// The whole state is replaced by `value` (saved messages were loaded).
    Reset {
        /// The new state.
        value: PatchValue,
    },
}

/// The value a [`Patch`] carries: a copy of what it sets, as the state holds it, written out as
/// JSON when the patch is. (A JSON [`Value`] made from a typed value meant writing its whole text
/// and reading it back: for a message with a long tool input, two more copies at once.)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PatchValue {
    /// A message.
    Message(Box<ChatMessage>),
    /// The messages.
    Messages(Vec<ChatMessage>),
    /// A segment of `streamingSegments`.
    Segment(Segment),
    /// A part of `streamingParts`.
    Part(MessagePart),
    /// The whole state.
    State(Box<ChatState>),
    /// Anything else (a field's value, a `tool_progress` event) as JSON.
    Json(Value),
}

impl PatchValue {
    /// The value as JSON, as the JS snapshot gets it.
    pub fn to_value(&self) -> Value {
        match self {
            PatchValue::Json(value) => value.clone(),
            other => crate::json::to_value(other),
        }
    }
}

impl From<Value> for PatchValue {
    fn from(value: Value) -> Self {
        PatchValue::Json(value)
    }
}

impl ToJson for PatchValue {
    fn write_json(&self, out: &mut JsonOut) {
        match self {
            PatchValue::Message(message) => message.write_json(out),
            PatchValue::Messages(messages) => messages.write_json(out),
            PatchValue::Segment(segment) => segment.write_json(out),
            PatchValue::Part(part) => part.write_json(out),
            PatchValue::State(state) => state.write_json(out),
            PatchValue::Json(value) => value.write_json(out),
        }
    }
}

/// The request body an agent backend takes on `POST /api/chat/stream` (`docs/agent-protocol.md`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest {
    /// The user's message.
    pub message: String,
    /// The page's context (`{}` when none).
    pub context: Value,
    /// Always `text_input`.
    pub interaction_type: String,
    /// The id the backend gave in an earlier `complete`.
    pub conversation_id: Option<Value>,
    /// Every earlier message, oldest first.
    pub conversation_history: Vec<HistoryEntry>,
}

/// One earlier message in a [`ChatRequest`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryEntry {
    /// `user` or `assistant`.
    pub role: String,
    /// Its stored text.
    pub content: String,
}

impl ChatMessage {
    /// A stored message read back (as `messages_json` writes it, or written by a backend, or a
    /// UI message of the AI SDK's shape, `{id, role, parts}`). A message without `content` is
    /// read from its text parts; one with nothing to read it from (no content, parts, segments
    /// or tool history) is refused, naming its id, rather than kept as an empty turn that would
    /// drop what it said from the conversation.
    pub fn from_value(value: &Value) -> Result<ChatMessage, String> {
        let fields = Fields::of(value)?;
        let id = fields.opt_string("id")?.unwrap_or_default();
        let role = fields.string("role")?;
        if role != "user" && role != "assistant" {
            // The state and the requests know only these two: another role would be sent as one of them.
            return Err(format!("role {role:?}{} is not supported, expected \"user\" or \"assistant\"", named(&id)));
        }
        let parts = fields.list("parts", MessagePart::from_value)?;
        let segments = fields.list("segments", Segment::from_value)?;
        let tool_history = fields.list("tool_history", ToolRecord::from_value)?;
        let content = match fields.opt_string("content")? {
            Some(content) => content,
            None if parts.is_empty() && segments.is_empty() && tool_history.is_empty() => {
                return Err(format!("the message{} has no `content` and no `parts`", named(&id)));
            }
            // A stored turn that only called tools has no text: its content is empty.
            None => text_of_parts(&parts),
        };
        Ok(ChatMessage {
            id,
            role,
            content,
            parts,
            thinking: fields.opt_string("thinking")?,
            segments,
            tool_history,
            suggested_values: fields.opt_value("suggested_values"),
            suggested_actions: fields.opt_value("suggested_actions"),
            custom_payload: fields.opt_value("custom_payload"),
            finish_reason: fields.opt("finish_reason", FinishReason::from_value)?,
            usage: fields.opt("usage", Usage::from_value)?,
            cancelled: fields.bool("cancelled")?,
        })
    }
}

/// ` (id "…")` for a message that has an id, to name it in an error.
fn named(id: &str) -> String {
    if id.is_empty() {
        String::new()
    } else {
        format!(" (id {id:?})")
    }
}

/// A message's text parts, joined as paragraphs (the AI SDK starts a text part per step).
fn text_of_parts(parts: &[MessagePart]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|part| if let MessagePart::Text { text } = part { Some(text.as_str()) } else { None })
        .collect();
    texts.join("\n\n")
}

impl ToJson for ChatMessage {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out)
            .field("id", &self.id)
            .field("role", &self.role)
            .field("content", &self.content)
            .field("parts", &self.parts)
            .field_if(self.thinking.is_some(), "thinking", &self.thinking)
            .field_if(!self.segments.is_empty(), "segments", &self.segments)
            .field_if(!self.tool_history.is_empty(), "tool_history", &self.tool_history)
            .field_if(self.suggested_values.is_some(), "suggested_values", &self.suggested_values)
            .field_if(self.suggested_actions.is_some(), "suggested_actions", &self.suggested_actions)
            .field_if(self.custom_payload.is_some(), "custom_payload", &self.custom_payload)
            .field_if(self.finish_reason.is_some(), "finish_reason", &self.finish_reason)
            .field_if(self.usage.is_some(), "usage", &self.usage)
            .field_if(self.cancelled, "cancelled", &self.cancelled)
            .end();
    }
}

impl ToJson for ToolProgressState {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out).field("toolName", &self.tool_name).field("updates", &self.updates).end();
    }
}

impl ToJson for ChatError {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out).field("code", &self.code).field("message", &self.message).end();
    }
}

impl ToJson for PendingApproval {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out)
            .field("tool_use_id", &self.tool_use_id)
            .field("tool", &self.tool)
            .field("index", &self.index)
            .field("input", &self.input)
            .end();
    }
}

impl ToJson for Phase {
    fn write_json(&self, out: &mut JsonOut) {
        let name = match self {
            Phase::Idle => "idle",
            Phase::Waiting => "waiting",
            Phase::Streaming => "streaming",
            Phase::Tool => "tool",
            Phase::Approval => "approval",
        };
        name.write_json(out);
    }
}

impl ToJson for ChatState {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out)
            .field("messages", &self.messages)
            .field("isLoading", &self.is_loading)
            .field("streamingText", &self.streaming_text)
            .field("thinkingText", &self.thinking_text)
            .field("statusText", &self.status_text)
            .field("activeToolProgress", &self.active_tool_progress)
            .field("error", &self.error)
            .field("streamingSegments", &self.streaming_segments)
            .field("streamingParts", &self.streaming_parts)
            .field("pendingApproval", &self.pending_approval)
            .field("phase", &self.phase)
            .field("conversationId", &self.conversation_id)
            .end();
    }
}

impl ToJson for Patch {
    fn write_json(&self, out: &mut JsonOut) {
        let patch = |out, op| Object::tagged(out, "op", op);
        match self {
            Patch::Set { key, value } => patch(out, "set").field("key", key).field("value", value).end(),
            Patch::Append { key, text } => patch(out, "append").field("key", key).field("text", text).end(),
            Patch::PushMessage { value } => patch(out, "pushMessage").field("value", value).end(),
            Patch::SetLastMessage { value } => patch(out, "setLastMessage").field("value", value).end(),
            Patch::Push { key, value } => patch(out, "push").field("key", key).field("value", value).end(),
            Patch::SetAt { key, at, value } => {
                patch(out, "setAt").field("key", key).field("at", at).field("value", value).end()
            }
            Patch::AppendToLast { key, text } => patch(out, "appendToLast").field("key", key).field("text", text).end(),
            Patch::AppendText { text } => patch(out, "appendText").field("text", text).end(),
            Patch::PushToolUpdate { value } => patch(out, "pushToolUpdate").field("value", value).end(),
            Patch::Reset { value } => patch(out, "reset").field("value", value).end(),
        }
    }
}

impl ToJson for ChatRequest {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out)
            .field("message", &self.message)
            .field("context", &self.context)
            .field("interaction_type", &self.interaction_type)
            .field("conversation_id", &self.conversation_id)
            .field("conversation_history", &self.conversation_history)
            .end();
    }
}

impl ToJson for HistoryEntry {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out).field("role", &self.role).field("content", &self.content).end();
    }
}
