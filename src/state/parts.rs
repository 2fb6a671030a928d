//! A message as an ordered list of parts, in the style of the Vercel AI SDK's UI messages: text,
//! reasoning, tool calls with their state, custom data. The same list is built while the answer
//! streams (`streamingParts`) and kept on the message, so an app renders both the same way.

use serde_json::Value;

use crate::clean::resolve_tool_markers;
use crate::event::{Segment, SharedText, ToolRecord};
use crate::json::{Fields, Shared};
use crate::wire::{wire, ReadField};

wire! {
/// One part of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum MessagePart tag "type" reads from_value {
    /// Answer text.
    Text "text" {
        /// The text.
        text: SharedText,
    },
    /// The model's reasoning.
    Reasoning "reasoning" {
        /// The text.
        text: String,
    },
    /// A tool call, from its start to its result.
    Tool "tool" {
        /// The call's id.
        tool_use_id: String,
        /// The tool's name.
        tool: String,
        /// The N of `[[tool:N]]`.
        index: u32,
        /// Where the call is.
        state: ToolState,
        /// The input so far, then the whole input.
        input: Shared,
        /// The output, once there is one.
        output: Shared,
        /// The output is an error.
        is_error: bool,
    },
    /// Custom data the backend sent (AI SDK `data-*` parts).
    Data "data" {
        /// The data part as sent.
        data: Value,
    },
}
}

wire! {
/// Where a tool call is, in the AI SDK's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolState words {
    /// The model is still writing the input.
    InputStreaming "input-streaming",
    /// The input is complete; the tool runs (or will).
    InputAvailable "input-available",
    /// The call waits for the user's approval.
    ApprovalRequested "approval-requested",
    /// The tool ran and gave an output.
    OutputAvailable "output-available",
    /// The tool ran and failed, or could not run.
    OutputError "output-error",
    /// The user denied the call.
    OutputDenied "output-denied",
}
}

impl ToolState {
    /// The state of a call that finished with this result.
    pub(crate) fn of_result(is_error: bool) -> ToolState {
        if is_error {
            ToolState::OutputError
        } else {
            ToolState::OutputAvailable
        }
    }
}

/// A saved part's state: one of the AI SDK's words.
impl ReadField for ToolState {
    fn read(fields: &Fields<'_>, key: &str) -> Result<Self, String> {
        let name = fields.string(key)?;
        ToolState::ALL
            .iter()
            .find(|state| state.as_str() == name)
            .copied()
            .ok_or_else(|| format!("unknown tool state {}", crate::json::to_json(&name)))
    }
}

/// An answer's parts from what is kept of it: the thinking, then the segments (or, when there
/// are none, the text split at its `[[tool:N]]` markers).
pub(crate) fn parts_of_answer(
    thinking: Option<&str>,
    segments: &[Segment],
    content: &str,
    tool_history: &[ToolRecord],
) -> Vec<MessagePart> {
    let mut parts = Vec::new();
    if let Some(thinking) = thinking.filter(|t| !t.is_empty()) {
        parts.push(MessagePart::Reasoning { text: thinking.to_owned() });
    }
    let segments = if segments.is_empty() { resolve_tool_markers(content, tool_history) } else { segments.to_vec() };
    parts.extend(segments.into_iter().map(part_of_segment));
    parts
}

/// A text or tool segment as a part.
pub(crate) fn part_of_segment(segment: Segment) -> MessagePart {
    match segment {
        Segment::Text { text } => MessagePart::Text { text },
        Segment::Tool { index, tool_use_id, tool, input, output, is_error } => MessagePart::Tool {
            tool_use_id: tool_use_id.unwrap_or_default(),
            tool: tool.unwrap_or_default(),
            index,
            state: state_of_segment(&output, is_error),
            input,
            output,
            is_error,
        },
    }
}

/// A tool segment's part's state: it has run when it has an output or an error.
fn state_of_segment(output: &Value, is_error: bool) -> ToolState {
    if output.is_null() && !is_error {
        ToolState::InputAvailable
    } else {
        ToolState::of_result(is_error)
    }
}

/// Whether `part` is [`part_of_segment`] of `segment`, compared in place: a long text or input
/// is not copied to be compared.
pub(crate) fn is_part_of_segment(part: &MessagePart, segment: &Segment) -> bool {
    match (part, segment) {
        (MessagePart::Text { text }, Segment::Text { text: segment_text }) => text == segment_text,
        (
            MessagePart::Tool { tool_use_id, tool, index, state, input, output, is_error },
            Segment::Tool { index: at, tool_use_id: id, tool: name, input: given, output: gave, is_error: failed },
        ) => {
            index == at
                && tool_use_id == id.as_deref().unwrap_or_default()
                && tool == name.as_deref().unwrap_or_default()
                && *state == state_of_segment(gave, *failed)
                && is_error == failed
                && input == given
                && output == gave
        }
        _ => false,
    }
}
