//! Ollama `/api/chat` request bodies (github.com/ollama/ollama, docs/api.md, "Generate a chat
//! completion"): `ollama`, written with the Chat Completions message writer and tool declarations.

use serde_json::{Map, Value};

use super::openai::{chat_messages, function_tools};
use super::{insert, insert_some, object, streaming_body, string, Profile, ToolDef, Turn};

/// Ollama's `/api/chat`: arguments as objects, results as `tool` messages naming the tool. It
/// has no way to forbid calls, so the last iteration sends no tools.
pub(super) fn ollama(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
    let messages = chat_messages(
        profile,
        conversation,
        |c| object([("function", object([("name", string(&c.name)), ("arguments", c.input.clone())]))]),
        |r| ("tool_name", string(&r.name)),
    );
    let mut body = streaming_body(profile, "messages", messages);
    if profile.thinking {
        insert(&mut body, "think", Value::Bool(true));
    }
    let mut options = Map::new();
    insert_some(&mut options, "temperature", profile.temperature);
    insert_some(&mut options, "num_predict", profile.max_tokens);
    if !options.is_empty() {
        insert(&mut body, "options", Value::Object(options));
    }
    if !tools.is_empty() && !no_more_tools {
        insert(&mut body, "tools", function_tools(tools));
    }
    Value::Object(body)
}
