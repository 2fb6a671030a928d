//! Anthropic Messages API request bodies (docs.anthropic.com, "Messages"): `anthropic`.

use super::{
    budget, declarations, message, output_text, streaming_body, system_text, text_then_calls, Profile, ToolDef, Turn,
    Writer, ANTHROPIC_DEFAULT_MAX_TOKENS,
};

/// Anthropic Messages: tool calls are `tool_use` blocks of the assistant, results are
/// `tool_result` blocks of the next user message. Thinking needs `max_tokens` above the budget
/// and no `temperature` (the API refuses both otherwise).
///
/// Limitation: thinking blocks are not sent back with their signatures, which Anthropic asks for
/// when thinking and tool use are combined in one turn.
pub(super) fn anthropic(
    body: &mut Writer,
    profile: &Profile,
    conversation: &[Turn],
    tools: &[ToolDef],
    no_more_tools: bool,
) {
    streaming_body(body, profile, "messages").open(b'[');
    for turn in conversation {
        match turn {
            Turn::User { content } => message(body, "user", content),
            Turn::Assistant { content, tool_calls } => {
                body.open(b'{').field("role", "assistant");
                body.key("content").open(b'[');
                text_then_calls(
                    body,
                    content,
                    tool_calls,
                    |body, text| {
                        body.open(b'{').field("type", "text");
                        body.field("text", text);
                        body.close(b'}');
                    },
                    |body, c| {
                        body.open(b'{').field("type", "tool_use");
                        body.field("id", &c.id);
                        body.field("name", &c.name);
                        body.key("input").value(&c.input);
                        body.close(b'}');
                    },
                );
                body.close(b']');
                body.close(b'}');
            }
            Turn::Tool { results } => {
                body.open(b'{').field("role", "user");
                body.key("content").open(b'[');
                for result in results {
                    body.open(b'{').field("type", "tool_result");
                    body.field("tool_use_id", &result.tool_use_id);
                    output_text(body.key("content"), &result.output);
                    if result.is_error {
                        body.key("is_error").bool(true);
                    }
                    body.close(b'}');
                }
                body.close(b']');
                body.close(b'}');
            }
        }
    }
    body.close(b']');
    body.field_some("system", system_text(profile));
    let mut max_tokens = profile.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS);
    if profile.thinking {
        let budget = budget(profile).max(1024);
        max_tokens = max_tokens.max(budget.saturating_add(1024));
        body.key("thinking").open(b'{').field("type", "enabled");
        body.key("budget_tokens").int(budget);
        body.close(b'}');
    } else {
        body.float_some("temperature", profile.temperature);
    }
    body.key("max_tokens").int(max_tokens);
    if !tools.is_empty() {
        declarations(body.key("tools"), tools, "input_schema");
        if no_more_tools {
            body.key("tool_choice").object_of("type", "none");
        }
    }
    body.close(b'}');
}
