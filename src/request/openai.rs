//! OpenAI Chat Completions request bodies (platform.openai.com, API reference, "Create chat
//! completion"): `openai`, and the OpenAI-compatible servers of `compat`. The message writer and
//! the tool declarations are Ollama's too.

use super::{
    declaration, message, output_text, reasoning_effort, streaming_body, system_text, Profile, Provider, ToolCall,
    ToolDef, ToolResult, Turn, Writer,
};
use crate::json::to_json;

/// Chat Completions (`openai`, and `compat` servers, which take `max_tokens` and know no
/// `reasoning_effort`).
pub(super) fn chat_completions(
    body: &mut Writer,
    provider: Provider,
    profile: &Profile,
    conversation: &[Turn],
    tools: &[ToolDef],
    no_more_tools: bool,
) {
    chat_messages(
        streaming_body(body, profile, "messages"),
        profile,
        conversation,
        |body, c| {
            body.open(b'{').field("id", &c.id);
            body.field("type", "function");
            body.key("function").open(b'{').field("name", &c.name);
            body.field("arguments", &to_json(&c.input));
            body.close(b'}');
            body.close(b'}');
        },
        |r| ("tool_call_id", &r.tool_use_id),
    );
    body.key("stream_options").open(b'{').key("include_usage").bool(true);
    body.close(b'}');
    body.float_some("temperature", profile.temperature);
    let max_key = if provider == Provider::OpenAi { "max_completion_tokens" } else { "max_tokens" };
    body.int_some(max_key, profile.max_tokens);
    if profile.thinking && provider == Provider::OpenAi {
        body.field("reasoning_effort", reasoning_effort(profile));
    }
    if !tools.is_empty() {
        function_tools(body.key("tools"), tools);
        if no_more_tools {
            body.field("tool_choice", "none");
        }
    }
    body.close(b'}');
}

/// A system message, then the turns, for the two APIs shaped like Chat Completions (OpenAI and
/// compatible servers, Ollama), which differ only in how a call is written and how a result's
/// `tool` message names its call (`named`: the key and its value).
pub(super) fn chat_messages(
    body: &mut Writer,
    profile: &Profile,
    conversation: &[Turn],
    call: fn(&mut Writer, &ToolCall),
    named: fn(&ToolResult) -> (&'static str, &String),
) {
    body.open(b'[');
    if let Some(system) = system_text(profile) {
        message(body, "system", system);
    }
    for turn in conversation {
        match turn {
            Turn::User { content } => message(body, "user", content),
            Turn::Assistant { content, tool_calls } => {
                body.open(b'{').field("role", "assistant");
                body.field("content", content);
                if !tool_calls.is_empty() {
                    body.key("tool_calls").open(b'[');
                    tool_calls.iter().for_each(|c| call(body, c));
                    body.close(b']');
                }
                body.close(b'}');
            }
            Turn::Tool { results } => {
                for result in results {
                    let (key, name) = named(result);
                    body.open(b'{').field("role", "tool");
                    body.field(key, name);
                    output_text(body.key("content"), &result.output);
                    body.close(b'}');
                }
            }
        }
    }
    body.close(b']');
}

/// `tools` as Chat Completions and Ollama declare them: `{type: "function", function: {…}}`.
pub(super) fn function_tools(body: &mut Writer, tools: &[ToolDef]) {
    body.open(b'[');
    for tool in tools {
        body.open(b'{').field("type", "function");
        declaration(body.key("function"), tool, "parameters");
        body.close(b'}');
        body.close(b'}');
    }
    body.close(b']');
}
