//! Anthropic Messages API request bodies (docs.anthropic.com, "Messages"): `anthropic`.

use serde_json::{json, Map, Value};

use super::{budget, insert_some, output_text, system_text, Profile, ToolDef, Turn, ANTHROPIC_DEFAULT_MAX_TOKENS};

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
            Turn::User { content } => messages.push(json!({"role": "user", "content": content})),
            Turn::Assistant { content, tool_calls } => {
                let mut blocks = Vec::new();
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                blocks.extend(
                    tool_calls
                        .iter()
                        .map(|c| json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.input})),
                );
                messages.push(json!({"role": "assistant", "content": blocks}));
            }
            Turn::Tool { results } => {
                let blocks: Vec<Value> = results
                    .iter()
                    .map(|r| {
                        let mut block =
                            json!({"type": "tool_result", "tool_use_id": r.tool_use_id, "content": output_text(&r.output)});
                        if r.is_error {
                            block["is_error"] = json!(true);
                        }
                        block
                    })
                    .collect();
                messages.push(json!({"role": "user", "content": blocks}));
            }
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(profile.model));
    insert_some(&mut body, "system", system_text(profile));
    body.insert("messages".into(), Value::Array(messages));
    let mut max_tokens = profile.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS);
    if profile.thinking {
        let budget = budget(profile).max(1024);
        max_tokens = max_tokens.max(budget + 1024);
        body.insert("thinking".into(), json!({"type": "enabled", "budget_tokens": budget}));
    } else {
        insert_some(&mut body, "temperature", profile.temperature);
    }
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    if !tools.is_empty() {
        let declared: Vec<Value> = tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        body.insert("tools".into(), Value::Array(declared));
        if no_more_tools {
            body.insert("tool_choice".into(), json!({"type": "none"}));
        }
    }
    Value::Object(body)
}
