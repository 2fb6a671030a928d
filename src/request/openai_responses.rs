//! OpenAI Responses API request bodies (platform.openai.com, API reference, "Create a model
//! response"): `openai-responses`.

use super::{
    declaration, message, output_text, reasoning_effort, streaming_body, system_text, text_then_calls, Profile,
    ToolDef, Turn, Writer,
};
use crate::json::to_json;

/// The Responses API: `input` items; calls and their outputs are items of their own.
pub(super) fn responses(
    body: &mut Writer,
    profile: &Profile,
    conversation: &[Turn],
    tools: &[ToolDef],
    no_more_tools: bool,
) {
    streaming_body(body, profile, "input").open(b'[');
    for turn in conversation {
        match turn {
            Turn::User { content } => message(body, "user", content),
            Turn::Assistant { content, tool_calls } => text_then_calls(
                body,
                content,
                tool_calls,
                |body, text| message(body, "assistant", text),
                |body, c| {
                    body.open(b'{').field("type", "function_call");
                    body.field("call_id", &c.id);
                    body.field("name", &c.name);
                    body.field("arguments", &to_json(&c.input));
                    body.close(b'}');
                },
            ),
            Turn::Tool { results } => {
                for result in results {
                    body.open(b'{').field("type", "function_call_output");
                    body.field("call_id", &result.tool_use_id);
                    output_text(body.key("output"), &result.output);
                    body.close(b'}');
                }
            }
        }
    }
    body.close(b']');
    body.field_some("instructions", system_text(profile));
    // The loop resends the whole conversation; nothing needs keeping on OpenAI's side.
    body.key("store").bool(false);
    body.float_some("temperature", profile.temperature);
    body.int_some("max_output_tokens", profile.max_tokens);
    if profile.thinking {
        body.key("reasoning").open(b'{').field("effort", reasoning_effort(profile));
        body.field("summary", "auto");
        body.close(b'}');
    }
    if !tools.is_empty() {
        body.key("tools").open(b'[');
        for tool in tools {
            declaration(body, tool, "parameters");
            body.field("type", "function");
            body.close(b'}');
        }
        body.close(b']');
        if no_more_tools {
            body.field("tool_choice", "none");
        }
    }
    body.close(b'}');
}
