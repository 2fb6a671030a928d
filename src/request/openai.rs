//! OpenAI Chat Completions request bodies (platform.openai.com, API reference, "Create chat
//! completion"): `openai`, and the OpenAI-compatible servers of `compat`. The message writer and
//! the tool declarations are Ollama's too.

use serde_json::Value;

use super::{
    declarations, insert, insert_some, object, output_text, reasoning_effort, streaming_body, string, system_text,
    Profile, Provider, ToolCall, ToolDef, ToolResult, Turn,
};

/// Chat Completions (`openai`, and `compat` servers, which take `max_tokens` and know no
/// `reasoning_effort`).
pub(super) fn chat_completions(
    provider: Provider,
    profile: &Profile,
    conversation: &[Turn],
    tools: &[ToolDef],
    no_more_tools: bool,
) -> Value {
    let messages = chat_messages(
        profile,
        conversation,
        |c| {
            let function = object([("name", string(&c.name)), ("arguments", Value::String(c.input.to_string()))]);
            object([("id", string(&c.id)), ("type", string("function")), ("function", function)])
        },
        |r| ("tool_call_id", string(&r.tool_use_id)),
    );
    let mut body = streaming_body(profile, "messages", messages);
    insert(&mut body, "stream_options", object([("include_usage", Value::Bool(true))]));
    insert_some(&mut body, "temperature", profile.temperature);
    let max_key = if provider == Provider::OpenAi { "max_completion_tokens" } else { "max_tokens" };
    insert_some(&mut body, max_key, profile.max_tokens);
    if profile.thinking && provider == Provider::OpenAi {
        insert(&mut body, "reasoning_effort", string(reasoning_effort(profile)));
    }
    if !tools.is_empty() {
        insert(&mut body, "tools", function_tools(tools));
        if no_more_tools {
            insert(&mut body, "tool_choice", string("none"));
        }
    }
    Value::Object(body)
}

/// A system message, then the turns, for the two APIs shaped like Chat Completions (OpenAI and
/// compatible servers, Ollama), which differ only in how a call is written and how a result's
/// `tool` message names its call (`named`: the key and its value).
pub(super) fn chat_messages(
    profile: &Profile,
    conversation: &[Turn],
    call: impl Fn(&ToolCall) -> Value,
    named: impl Fn(&ToolResult) -> (&'static str, Value),
) -> Vec<Value> {
    let result = |r: &ToolResult| {
        let (key, name) = named(r);
        object([("role", string("tool")), (key, name), ("content", Value::String(output_text(&r.output)))])
    };
    let mut messages = Vec::new();
    if let Some(system) = system_text(profile) {
        messages.push(object([("role", string("system")), ("content", string(system))]));
    }
    for turn in conversation {
        match turn {
            Turn::User { content } => messages.push(object([("role", string("user")), ("content", string(content))])),
            Turn::Assistant { content, tool_calls } => {
                let mut message = object([("role", string("assistant")), ("content", string(content))]);
                if !tool_calls.is_empty() {
                    message["tool_calls"] = tool_calls.iter().map(&call).collect();
                }
                messages.push(message);
            }
            Turn::Tool { results } => messages.extend(results.iter().map(&result)),
        }
    }
    messages
}

/// `tools` as Chat Completions and Ollama declare them: `{type: "function", function: {…}}`.
pub(super) fn function_tools(tools: &[ToolDef]) -> Value {
    let function = |declared| object([("type", string("function")), ("function", declared)]);
    declarations(tools, "parameters").into_iter().map(function).collect()
}
