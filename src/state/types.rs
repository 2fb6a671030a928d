//! What a chat UI renders ([`ChatState`]) and the messages it keeps ([`ChatMessage`]).

use std::sync::Arc;

use serde_json::Value;

use super::parts::{is_part_of_segment, parts_of_answer, MessagePart};
use crate::error::ErrorCode;
use crate::event::{CompletePayload, FinishReason, Segment, SharedText, ToolRecord, Usage};
use crate::json::{JsonOut, Shared, ToJson};
use crate::wire::wire;

wire! {
/// One message of the conversation. Serializes to the JSON that `messages` are saved and
/// loaded as ([`ChatMessage::from_value`]); there, everything but `role` and its text (`content`,
/// or parts to read it from) may be absent.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage reads saved_fields {
    /// Stable and unique in the conversation, for keying lists: the caller's, or generated.
    pub id: String => or_default,
    /// `user` or `assistant`.
    pub role: String,
    /// The text as it is stored: `[[tool:N]]` kept where tools ran. A stored message without it
    /// gets its text parts, joined (empty for a stored turn that only called tools).
    pub content: SharedText => or_default,
    /// The message in reading order: text, reasoning, tools with their state, data.
    pub parts: Vec<MessagePart>,
    /// The thinking text.
    pub thinking: Option<String> => omit_empty,
    /// The message in reading order: text and tool cards.
    pub segments: Vec<Segment> => omit_empty,
    /// The message's tools by index.
    pub tool_history: Vec<ToolRecord> => omit_empty,
    /// Quick replies to offer.
    pub suggested_values: Option<Value> => omit_empty,
    /// Action buttons to offer.
    pub suggested_actions: Option<Value> => omit_empty,
    /// A registered payload (`{type, data}`).
    pub custom_payload: Option<Value> => omit_empty,
    /// Why the model stopped; `length` means the answer was cut by the token limit.
    pub finish_reason: Option<FinishReason> => omit_empty,
    /// Token counts.
    pub usage: Option<Usage> => omit_empty,
    /// True when the user stopped this answer: the content is what arrived before.
    pub cancelled: bool => omit_empty,
}
}

/// An answer's long fields, each as its message keeps it.
pub(crate) struct Answer {
    pub content: SharedText,
    pub thinking: Option<String>,
    pub segments: Vec<Segment>,
    pub parts: Vec<MessagePart>,
}

impl ChatMessage {
    /// A user message.
    pub fn user(id: String, content: impl Into<SharedText>) -> ChatMessage {
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

    /// The answer a `complete` describes: its text, thinking, segments and parts as given (and
    /// segments from its text when none are given), the rest from the payload.
    pub(crate) fn assistant(id: String, payload: &CompletePayload, answer: Answer) -> ChatMessage {
        let Answer { content, thinking, segments, parts } = answer;
        ChatMessage {
            id,
            role: "assistant".into(),
            content,
            parts,
            thinking,
            segments,
            tool_history: payload.tool_history.clone(),
            suggested_values: payload.suggested_values.clone(),
            suggested_actions: payload.suggested_actions.clone(),
            custom_payload: payload.custom_payload.clone(),
            finish_reason: payload.finish_reason,
            usage: payload.usage.clone(),
            cancelled: false,
        }
        .with_segments()
    }

    /// Whether saving leaves out (its `parts`, its `segments`), as reading it back makes them
    /// again ([`ChatMessage::with_segments`], then the loader): its parts when they are what its
    /// other fields make ([`parts_of_answer`]), and then, for an answer, its segments when they
    /// are what its `content` makes (`resolve_tool_markers`).
    pub(crate) fn made_again_when_read(&self) -> (bool, bool) {
        if !self.parts_follow_from_the_rest() {
            return (false, false);
        }
        let answer = self.role == "assistant";
        (true, answer && made_by_content(&self.segments, &self.content, &self.tool_history))
    }

    /// Whether `parts` are what reading the message back makes of its other fields when it has
    /// none ([`parts_of_answer`]).
    fn parts_follow_from_the_rest(&self) -> bool {
        let thinking = self.thinking.as_deref().filter(|t| !t.is_empty());
        if self.segments.is_empty() {
            // The text split at its markers (rare: a message written by a backend).
            return self.parts == parts_of_answer(thinking, &[], &self.content, &self.tool_history);
        }
        let mut parts = self.parts.iter();
        if let Some(thinking) = thinking {
            if !matches!(parts.next(), Some(MessagePart::Reasoning { text }) if text == thinking) {
                return false;
            }
        }
        parts.len() == self.segments.len() && parts.zip(&self.segments).all(|(p, s)| is_part_of_segment(p, s))
    }

    /// An answer without segments gets those its `content` makes (`resolve_tool_markers`): one
    /// saved with them left out, a backend's, or one whose `complete` had none. So a message reads
    /// to one result however it arrives (a `complete`, `setMessages`, `loadMessages`) and whichever
    /// version saved it.
    ///
    /// An answer whose tool calls are in its `parts` only (a UI message of the AI SDK's shape, its
    /// content read from its text parts) gets the segments its parts make instead: its content
    /// has no markers to place the tool cards.
    pub(crate) fn with_segments(mut self) -> ChatMessage {
        if self.role == "assistant" && self.segments.is_empty() {
            self.segments = if self.parts.iter().any(|part| matches!(part, MessagePart::Tool { .. })) {
                segments_of_parts(&self.parts)
            } else {
                crate::clean::resolve_tool_markers(&self.content, &self.tool_history)
            };
        }
        self
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

wire! {
/// The running tool's progress (`activeToolProgress`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolProgressState keys ToolProgressKeys {
    /// The tool's name.
    pub tool_name: String as "toolName",
    /// The `tool_progress` events received for this tool, in order.
    pub updates: Vec<Value>,
}
}

wire! {
/// The error the chat shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatError {
    /// What kind of error (`docs/events.md`, "Errors").
    pub code: ErrorCode,
    /// What to show.
    pub message: String,
}
}

wire! {
/// A tool call waiting for the user's approval (`pendingApproval`).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingApproval {
    /// The call's id: what `approve(id)` and `deny(id, reason)` name.
    pub tool_use_id: String,
    /// The tool's name.
    pub tool: String,
    /// The call's index in the message (the N of `[[tool:N]]`).
    pub index: u32,
    /// The input the model gave it.
    pub input: Shared,
}
}

wire! {
/// Where the chat is in a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase words {
    /// Nothing in flight.
    Idle "idle",
    /// The request is out; nothing has come back yet ("Thinking…").
    Waiting "waiting",
    /// Text or thinking is arriving.
    Streaming "streaming",
    /// A tool is running.
    Tool "tool",
    /// A tool call waits for the user's approval.
    Approval "approval",
}
}

wire! {
/// What a chat UI renders: the messages, the answer as it streams (`streamingText`,
/// `thinkingText`, `streamingSegments`, `streamingParts`), status, tool progress, the error, and
/// where the turn is (`phase`). Its keys are the JS snapshot's ([`ChatState::KEY`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ChatState keys StateKeys {
    /// The conversation. Each message is shared with the patch that added it (an answer's
    /// text is held once, however many patches and snapshots name it): `Arc::make_mut` changes one.
    pub messages: Vec<Arc<ChatMessage>>,
    /// An answer is coming: from the request until the answer's `complete`, or the turn's end
    /// (the response may stay open a little after its `complete`: see `chat::ChatSession`).
    pub is_loading: bool as "isLoading",
    /// The answer's text so far.
    pub streaming_text: String as "streamingText",
    /// The answer's thinking so far.
    pub thinking_text: String as "thinkingText",
    /// A status line ("Thinking…", "Running search…").
    pub status_text: Option<String> as "statusText",
    /// The running tool's progress.
    pub active_tool_progress: Option<ToolProgressState> as "activeToolProgress",
    /// The last error.
    pub error: Option<ChatError>,
    /// The answer so far as text and tool segments.
    pub streaming_segments: Vec<Segment> as "streamingSegments",
    /// The answer so far as parts: what its message's `parts` will be.
    pub streaming_parts: Vec<MessagePart> as "streamingParts",
    /// A tool call waiting for the user's approval.
    pub pending_approval: Option<PendingApproval> as "pendingApproval",
    /// Where the turn is.
    pub phase: Phase,
    /// The conversation id the backend gave, sent back with the next request.
    pub conversation_id: Option<Value> as "conversationId",
}
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

wire! {
/// The request body an agent backend takes on `POST /api/chat/stream` (`docs/agent-protocol.md`).
#[derive(Debug, Clone, PartialEq)]
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
}

wire! {
/// One earlier message in a [`ChatRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    /// `user` or `assistant`.
    pub role: String,
    /// Its stored text (shared with its message).
    pub content: SharedText,
}
}

/// The state's messages are shared with the patches that add them; each is written as the message.
impl ToJson for Arc<ChatMessage> {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        (**self).write_json(out);
    }
}

impl ChatMessage {
    /// A stored message read back (as `messages_json` writes it, or written by a backend, or a
    /// UI message of the AI SDK's shape, `{id, role, parts}`). A message without `content` is
    /// read from its text parts; one with nothing to read it from (no content, parts, segments
    /// or tool history) is refused, naming its id, rather than kept as an empty turn that would
    /// drop what it said from the conversation.
    pub fn from_value(value: &Value) -> Result<ChatMessage, String> {
        let mut message = ChatMessage::saved_fields(value)?;
        if message.role != "user" && message.role != "assistant" {
            // The state and the requests know only these two: another role would be sent as one of them.
            return Err(format!(
                "role {}{} is not supported, expected \"user\" or \"assistant\"",
                crate::json::to_json(&message.role),
                named(&message.id)
            ));
        }
        if value.get("content").map_or(true, Value::is_null) {
            if message.parts.is_empty() && message.segments.is_empty() && message.tool_history.is_empty() {
                return Err(format!("the message{} has no `content` and no `parts`", named(&message.id)));
            }
            // A stored turn that only called tools has no text: its content is empty.
            message.content = text_of_parts(&message.parts).into();
        }
        Ok(message)
    }
}

/// Whether `segments` are what `content` makes (`resolve_tool_markers`). Text without a marker
/// makes one text segment, trimmed (none when blank): compared in place, a long answer's text is
/// not copied to be compared.
fn made_by_content(segments: &[Segment], content: &str, tool_history: &[ToolRecord]) -> bool {
    if crate::clean::matching::find(content, "[[").is_some() {
        return *segments == crate::clean::resolve_tool_markers(content, tool_history);
    }
    match (content.trim(), segments) {
        ("", []) => true,
        (text, [Segment::Text { text: segment }]) => !text.is_empty() && text == segment,
        _ => false,
    }
}

/// ` (id "…")` for a message that has an id, to name it in an error.
fn named(id: &str) -> String {
    if id.is_empty() {
        String::new()
    } else {
        format!(" (id {})", crate::json::to_json(id))
    }
}

/// A message's text parts, joined as paragraphs (the AI SDK starts a text part per step).
/// The segments of an answer's parts: a tool card for each tool part, a text segment for each
/// run of text parts between them (joined as [`text_of_parts`] joins them into the content).
fn segments_of_parts(parts: &[MessagePart]) -> Vec<Segment> {
    let mut segments = Vec::new();
    let mut texts: Vec<&str> = Vec::new();
    let close_text = |texts: &mut Vec<&str>, segments: &mut Vec<Segment>| {
        if !texts.is_empty() {
            segments.push(Segment::Text { text: texts.join("\n\n").into() });
            texts.clear();
        }
    };
    for part in parts {
        match part {
            MessagePart::Text { text } if !text.trim().is_empty() => texts.push(text),
            MessagePart::Tool { tool_use_id, tool, index, input, output, is_error, .. } => {
                close_text(&mut texts, &mut segments);
                segments.push(Segment::Tool {
                    index: *index,
                    tool_use_id: Some(tool_use_id.clone()),
                    tool: Some(tool.clone()),
                    input: input.clone(),
                    output: output.clone(),
                    is_error: *is_error,
                });
            }
            _ => {}
        }
    }
    close_text(&mut texts, &mut segments);
    segments
}

fn text_of_parts(parts: &[MessagePart]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|part| if let MessagePart::Text { text } = part { Some(text.as_str()) } else { None })
        .collect();
    texts.join("\n\n")
}
