//! What a chat UI renders ([`ChatState`]), the messages it keeps ([`ChatMessage`]), and the
//! [`Patch`]es that describe each change to it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::parts::MessagePart;
use crate::error::ErrorCode;
use crate::event::{CompletePayload, FinishReason, Segment, ToolRecord, Usage};

/// One message of the conversation. Serializes to the JSON that `messages` are saved and
/// loaded as; everything but `role` and `content` may be absent there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Stable and unique in the conversation, for keying lists: the caller's, or generated.
    #[serde(default)]
    pub id: String,
    /// `user` or `assistant`.
    pub role: String,
    /// The text as it is stored: `[[tool:N]]` kept where tools ran. `null` reads as empty (a
    /// stored turn that only called tools).
    #[serde(default, deserialize_with = "text_or_null")]
    pub content: String,
    /// The message in reading order: text, reasoning, tools with their state, data.
    #[serde(default)]
    pub parts: Vec<MessagePart>,
    /// The thinking text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// The message in reading order: text and tool cards.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<Segment>,
    /// The message's tools by index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_history: Vec<ToolRecord>,
    /// Quick replies to offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_values: Option<Value>,
    /// Action buttons to offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_actions: Option<Value>,
    /// A registered payload (`{type, data}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_payload: Option<Value>,
    /// Why the model stopped; `length` means the answer was cut by the token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    /// Token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// True when the user stopped this answer: the content is what arrived before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
}

fn text_or_null<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(deserializer)?.unwrap_or_default())
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
    /// A turn is in flight.
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
        value: Value,
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
        value: Value,
    },
    /// The last message of `state.messages` is replaced by `value`.
    SetLastMessage {
        /// The message.
        value: Value,
    },
    /// `state[key].push(value)` (`streamingSegments`, `streamingParts`).
    Push {
        /// The list.
        key: &'static str,
        /// The new item.
        value: Value,
    },
    /// `state[key][at] = value` (a tool card got its output).
    SetAt {
        /// The list.
        key: &'static str,
        /// Which item.
        at: usize,
        /// Its new value.
        value: Value,
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
        value: Value,
    },
    /// The whole state is replaced by `value` (saved messages were loaded).
    Reset {
        /// The new state.
        value: Value,
    },
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
