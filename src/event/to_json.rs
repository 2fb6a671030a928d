//! The event contract's JSON, as the derives on the types write it, for the JS bindings.

use super::{CompletePayload, FinishReason, Segment, StreamEvent, ToolRecord, Usage};
use crate::json::{JsonOut, Object, ToJson};

impl ToJson for StreamEvent {
    fn write_json(&self, out: &mut JsonOut) {
        let event = |out, kind| Object::tagged(out, "type", kind);
        match self {
            StreamEvent::Status { message } => event(out, "status").field("message", message).end(),
            StreamEvent::TextDelta { text } => event(out, "text_delta").field("text", text).end(),
            StreamEvent::ThinkingDelta { text } => event(out, "thinking_delta").field("text", text).end(),
            StreamEvent::ToolStart { tool_use_id, tool, index, input } => event(out, "tool_start")
                .field("tool_use_id", tool_use_id)
                .field("tool", tool)
                .field("index", index)
                .field("input", input)
                .end(),
            StreamEvent::ToolInputDelta { tool_use_id, delta, partial_input } => event(out, "tool_input_delta")
                .field("tool_use_id", tool_use_id)
                .field("delta", delta)
                .field("partial_input", partial_input)
                .end(),
            StreamEvent::ToolCall { tool_use_id, tool, index, input, incomplete, arguments } => event(out, "tool_call")
                .field("tool_use_id", tool_use_id)
                .field("tool", tool)
                .field("index", index)
                .field("input", input)
                .field_if(*incomplete, "incomplete", incomplete)
                .field_if(arguments.is_some(), "arguments", arguments)
                .end(),
            StreamEvent::ToolProgress { tool_use_id, tool, stage, message, progress, data } => {
                event(out, "tool_progress")
                    .field("tool_use_id", tool_use_id)
                    .field("tool", tool)
                    .field("stage", stage)
                    .field("message", message)
                    .field("progress", progress)
                    .field("data", data)
                    .end()
            }
            StreamEvent::ToolComplete { tool_use_id, tool, index, input, output, is_error } => {
                event(out, "tool_complete")
                    .field("tool_use_id", tool_use_id)
                    .field("tool", tool)
                    .field("index", index)
                    .field("input", input)
                    .field("output", output)
                    .field("is_error", is_error)
                    .end()
            }
            StreamEvent::Data { data } => event(out, "data").field("data", data).end(),
            StreamEvent::Complete { payload } => event(out, "complete").field("payload", payload).end(),
            StreamEvent::Error { code, message, field } => event(out, "error")
                .field("code", code)
                .field("message", message)
                .field_if(field.is_some(), "field", field)
                .end(),
            StreamEvent::Cancelled => event(out, "cancelled").end(),
        }
    }
}

impl ToJson for CompletePayload {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out)
            .field("message", &self.message)
            .field("text", &self.text)
            .field("thinking", &self.thinking)
            .field("segments", &self.segments)
            .field("tool_history", &self.tool_history)
            .field("suggested_values", &self.suggested_values)
            .field("suggested_actions", &self.suggested_actions)
            .field("custom_payload", &self.custom_payload)
            .field("finish_reason", &self.finish_reason)
            .field("usage", &self.usage)
            .field_if(self.invalid_utf8 != 0, "invalid_utf8", &self.invalid_utf8)
            .flatten(&self.extra)
            .end();
    }
}

impl ToJson for FinishReason {
    fn write_json(&self, out: &mut JsonOut) {
        self.as_str().write_json(out);
    }
}

impl ToJson for Segment {
    fn write_json(&self, out: &mut JsonOut) {
        match self {
            Segment::Text { text } => Object::tagged(out, "type", "text").field("text", text).end(),
            Segment::Tool { index, tool_use_id, tool, input, output, is_error } => Object::tagged(out, "type", "tool")
                .field("index", index)
                .field("tool_use_id", tool_use_id)
                .field("tool", tool)
                .field("input", input)
                .field("output", output)
                .field("is_error", is_error)
                .end(),
        }
    }
}

impl ToJson for ToolRecord {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out)
            .field("tool_name", &self.tool_name)
            .field("tool_use_id", &self.tool_use_id)
            .field("input", &self.input)
            .field("output", &self.output)
            .field("is_error", &self.is_error)
            .end();
    }
}

impl ToJson for Usage {
    fn write_json(&self, out: &mut JsonOut) {
        Object::new(out)
            .field("input_tokens", &self.input_tokens)
            .field("output_tokens", &self.output_tokens)
            .field("reasoning_tokens", &self.reasoning_tokens)
            .field("cached_input_tokens", &self.cached_input_tokens)
            .field("total_tokens", &self.total_tokens)
            .end();
    }
}
