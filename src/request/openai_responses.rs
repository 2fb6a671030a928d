//! OpenAI Responses API request bodies (platform.openai.com, API reference, "Create a model
//! response"): `openai-responses`.

use serde_json::{json, Map, Value};

use super::{insert_some, output_text, reasoning_effort, system_text, Profile, ToolDef, Turn};

/// The Responses API: `input` items; calls and their outputs are items of their own.
pub(super) fn responses(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
    let mut input = Vec::new();
    for turn in conversation {
        match turn {
            Turn::User { content } => input.push(json!({"role": "user", "content": content})),
            Turn::Assistant { content, tool_calls } => {
                if !content.is_empty() {
                    input.push(json!({"role": "assistant", "content": content}));
                }
                input.extend(tool_calls.iter().map(|c| {
                    json!({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.input.to_string()})
                }));
            }
            Turn::Tool { results } => input.extend(results.iter().map(
                |r| json!({"type": "function_call_output", "call_id": r.tool_use_id, "output": output_text(&r.output)}),
            )),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(profile.model));
    insert_some(&mut body, "instructions", system_text(profile));
    body.insert("input".into(), Value::Array(input));
    body.insert("stream".into(), json!(true));
    // The loop resends the whole conversation; nothing needs keeping on OpenAI's side.
    body.insert("store".into(), json!(false));
    insert_some(&mut body, "temperature", profile.temperature);
    insert_some(&mut body, "max_output_tokens", profile.max_tokens);
    if profile.thinking {
        body.insert("reasoning".into(), json!({"effort": reasoning_effort(profile), "summary": "auto"}));
    }
    if !tools.is_empty() {
        let declared: Vec<Value> = tools
            .iter()
            .map(|t| json!({"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema}))
            .collect();
        body.insert("tools".into(), Value::Array(declared));
        if no_more_tools {
            body.insert("tool_choice".into(), json!("none"));
        }
    }
    Value::Object(body)
}
