//! Anthropic Messages API request bodies (docs.anthropic.com, "Messages"): `anthropic`.

use serde_json::Value;

use super::{
    budget, declarations, insert, insert_some, object, output_text, streaming_body, string, system_text,
    text_then_calls, Profile, ToolDef, Turn, ANTHROPIC_DEFAULT_MAX_TOKENS,
};

/// Anthropic Messages: tool calls are `tool_use` blocks of the assistant, results are
/// `tool_result` blocks of the next user message. Thinking needs `max_tokens` above the budget
/// and no `temperature` (the API refuses both otherwise).
///
/// Limitation: thinking blocks are not sent back with their signatures, which Anthropic asks for
/// when thinking and tool use are combined in one turn.
pub(super) fn anthropic(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    for turn in conversation {
        match turn {
            Turn::User { content } => messages.push(object([("role", string("user")), ("content", string(content))])),
            Turn::Assistant { content, tool_calls } => {
                let blocks = text_then_calls(
                    content,
                    tool_calls,
                    |text| object([("type", string("text")), ("text", string(text))]),
                    |c| {
                        let (id, name) = (string(&c.id), string(&c.name));
                        object([("type", string("tool_use")), ("id", id), ("name", name), ("input", c.input.clone())])
                    },
                );
                messages.push(object([("role", string("assistant")), ("content", Value::Array(blocks))]));
            }
            Turn::Tool { results } => {
                let blocks: Vec<Value> = results
                    .iter()
                    .map(|r| {
                        let mut block = object([
                            ("type", string("tool_result")),
                            ("tool_use_id", string(&r.tool_use_id)),
                            ("content", Value::String(output_text(&r.output))),
                        ]);
                        if r.is_error {
                            block["is_error"] = Value::Bool(true);
                        }
                        block
                    })
                    .collect();
                messages.push(object([("role", string("user")), ("content", Value::Array(blocks))]));
            }
        }
    }
    let mut body = streaming_body(profile, "messages", messages);
    insert_some(&mut body, "system", system_text(profile));
    let mut max_tokens = profile.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS);
    if profile.thinking {
        let budget = budget(profile).max(1024);
        max_tokens = max_tokens.max(budget + 1024);
        insert(&mut body, "thinking", object([("type", string("enabled")), ("budget_tokens", budget.into())]));
    } else {
        insert_some(&mut body, "temperature", profile.temperature);
    }
    insert(&mut body, "max_tokens", max_tokens.into());
    if !tools.is_empty() {
        insert(&mut body, "tools", Value::Array(declarations(tools, "input_schema")));
        if no_more_tools {
            insert(&mut body, "tool_choice", object([("type", string("none"))]));
        }
    }
    Value::Object(body)
}
