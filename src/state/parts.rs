//! A message as an ordered list of parts, in the style of the Vercel AI SDK's UI messages: text,
//! reasoning, tool calls with their state, custom data. The same list is built while the answer
//! streams (`streamingParts`) and kept on the message, so an app renders both the same way.

use serde::Serialize;
use serde_json::Value;

use crate::clean::resolve_tool_markers;
use crate::event::{Segment, ToolRecord};
use crate::json::{Fields, JsonOut, Object, ToJson};

/// One part of a message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MessagePart {
    /// Answer text.
    Text {
        /// The text.
        text: String,
    },
    /// The model's reasoning.
    Reasoning {
        /// The text.
        text: String,
    },
    /// A tool call, from its start to its result.
    Tool {
        /// The call's id.
        tool_use_id: String,
        /// The tool's name.
        tool: String,
        /// The N of `[[tool:N]]`.
        index: u32,
        /// Where the call is.
        state: ToolState,
        /// The input so far, then the whole input.
        input: Value,
        /// The output, once there is one.
        output: Value,
        /// The output is an error.
        is_error: bool,
    },
    /// Custom data the backend sent (AI SDK `data-*` parts).
    Data {
        /// The data part as sent.
        data: Value,
    },
}

/// Where a tool call is, in the AI SDK's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolState {
    /// The model is still writing the input.
    InputStreaming,
    /// The input is complete; the tool runs (or will).
    InputAvailable,
    /// The call waits for the user's approval.
    ApprovalRequested,
    /// The tool ran and gave an output.
    OutputAvailable,
    /// The tool ran and failed, or could not run.
    OutputError,
    /// The user denied the call.
    OutputDenied,
}

impl ToolState {
    const ALL: [ToolState; 6] = [
        ToolState::InputStreaming,
        ToolState::InputAvailable,
        ToolState::ApprovalRequested,
        ToolState::OutputAvailable,
        ToolState::OutputError,
        ToolState::OutputDenied,
    ];

    /// The state of a call that finished with this result.
    pub(crate) fn of_result(is_error: bool) -> ToolState {
        if is_error {
            ToolState::OutputError
        } else {
            ToolState::OutputAvailable
        }
    }

    /// The AI SDK's word: `input-streaming`, `output-available`, ….
    pub fn as_str(self) -> &'static str {
        match self {
            ToolState::InputStreaming => "input-streaming",
            ToolState::InputAvailable => "input-available",
            ToolState::ApprovalRequested => "approval-requested",
            ToolState::OutputAvailable => "output-available",
            ToolState::OutputError => "output-error",
            ToolState::OutputDenied => "output-denied",
        }
    }

    fn from_name(name: &str) -> Result<ToolState, String> {
        ToolState::ALL
            .into_iter()
            .find(|state| state.as_str() == name)
            .ok_or_else(|| format!("unknown tool state {name:?}"))
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
            state: if output.is_null() && !is_error {
                ToolState::InputAvailable
            } else {
                ToolState::of_result(is_error)
            },
            input,
            output,
            is_error,
        },
    }
}

impl MessagePart {
    /// A stored message's part read back.
    pub fn from_value(value: &Value) -> Result<MessagePart, String> {
        let fields = Fields::of(value)?;
        match fields.string("type")?.as_str() {
            "text" => Ok(MessagePart::Text { text: fields.string("text")? }),
            "reasoning" => Ok(MessagePart::Reasoning { text: fields.string("text")? }),
            "tool" => Ok(MessagePart::Tool {
                tool_use_id: fields.string("tool_use_id")?,
                tool: fields.string("tool")?,
                index: fields.index("index")?,
                state: ToolState::from_name(&fields.string("state")?)?,
                input: fields.value("input"),
                output: fields.value("output"),
                is_error: fields.bool("is_error")?,
            }),
            "data" => Ok(MessagePart::Data { data: fields.value("data") }),
            other => {
                Err(format!("unknown part type {other:?}, expected one of \"text\", \"reasoning\", \"tool\", \"data\""))
            }
        }
    }
}

impl ToJson for MessagePart {
    fn write_json(&self, out: &mut JsonOut) {
        let part = |out, kind| Object::tagged(out, "type", kind);
        match self {
            MessagePart::Text { text } => part(out, "text").field("text", text).end(),
            MessagePart::Reasoning { text } => part(out, "reasoning").field("text", text).end(),
            MessagePart::Tool { tool_use_id, tool, index, state, input, output, is_error } => part(out, "tool")
                .field("tool_use_id", tool_use_id)
                .field("tool", tool)
                .field("index", index)
                .field("state", state)
                .field("input", input)
                .field("output", output)
                .field("is_error", is_error)
                .end(),
            MessagePart::Data { data } => part(out, "data").field("data", data).end(),
        }
    }
}

impl ToJson for ToolState {
    fn write_json(&self, out: &mut JsonOut) {
        self.as_str().write_json(out);
    }
}
