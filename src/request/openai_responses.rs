//! OpenAI Responses API request bodies (platform.openai.com, API reference, "Create a model
//! response"): `openai-responses`.

use serde_json::Value;

use super::{
    declarations, insert, insert_some, object, output_text, reasoning_effort, streaming_body, string, system_text,
    text_then_calls, Profile, ToolDef, Turn,
};

/// The Responses API: `input` items; calls and their outputs are items of their own.
pub(super) fn responses(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
    let mut input = Vec::new();
    for turn in conversation {
        match turn {
            Turn::User { content } => input.push(object([("role", string("user")), ("content", string(content))])),
            Turn::Assistant { content, tool_calls } => input.extend(text_then_calls(
                content,
                tool_calls,
                |text| object([("role", string("assistant")), ("content", string(text))]),
                |c| {
                    let (id, name, arguments) = (string(&c.id), string(&c.name), Value::String(c.input.to_string()));
                    object([
                        ("type", string("function_call")),
                        ("call_id", id),
                        ("name", name),
                        ("arguments", arguments),
                    ])
                },
            )),
            Turn::Tool { results } => input.extend(results.iter().map(|r| {
                object([
                    ("type", string("function_call_output")),
                    ("call_id", string(&r.tool_use_id)),
                    ("output", Value::String(output_text(&r.output))),
                ])
            })),
        }
    }
    let mut body = streaming_body(profile, "input", input);
    insert_some(&mut body, "instructions", system_text(profile));
    // The loop resends the whole conversation; nothing needs keeping on OpenAI's side.
    insert(&mut body, "store", Value::Bool(false));
    insert_some(&mut body, "temperature", profile.temperature);
    insert_some(&mut body, "max_output_tokens", profile.max_tokens);
    if profile.thinking {
        let reasoning = object([("effort", string(reasoning_effort(profile))), ("summary", string("auto"))]);
        insert(&mut body, "reasoning", reasoning);
    }
    if !tools.is_empty() {
        let mut declared = declarations(tools, "parameters");
        for tool in &mut declared {
            tool["type"] = string("function");
        }
        insert(&mut body, "tools", Value::Array(declared));
        if no_more_tools {
            insert(&mut body, "tool_choice", string("none"));
        }
    }
    Value::Object(body)
}
