//! Ollama `/api/chat` request bodies (github.com/ollama/ollama, docs/api.md, "Generate a chat
//! completion"): `ollama`, written with the Chat Completions message writer and tool declarations.

use super::openai::{chat_messages, function_tools};
use super::{streaming_body, Profile, ToolDef, Turn, Writer};

/// Ollama's `/api/chat`: arguments as objects, results as `tool` messages naming the tool. It
/// has no way to forbid calls, so the last iteration sends no tools.
pub(super) fn ollama(
    body: &mut Writer,
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
            body.open(b'{').key("function").open(b'{').field("name", &c.name);
            body.key("arguments").value(&c.input);
            body.close(b'}');
            body.close(b'}');
        },
        |r| ("tool_name", &r.name),
    );
    if profile.thinking {
        body.key("think").bool(true);
    }
    if profile.temperature.is_some() || profile.max_tokens.is_some() {
        body.key("options").open(b'{');
        body.float_some("temperature", profile.temperature);
        body.int_some("num_predict", profile.max_tokens);
        body.close(b'}');
    }
    if !tools.is_empty() && !no_more_tools {
        function_tools(body.key("tools"), tools);
    }
    body.close(b'}');
}
