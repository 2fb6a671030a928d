//! Gemini `streamGenerateContent` request bodies (ai.google.dev, "Generating content"): `gemini`.

use serde_json::Value;

use super::{budget, declarations, system_text, text_then_calls, Profile, ToolDef, Turn, Writer};

/// Gemini `streamGenerateContent`: `contents` of `user` and `model` turns; a function response
/// must be an object, so other outputs are wrapped as `{"result": …}` (`{"error": …}` for errors).
/// `model` is for the proxy, which puts it in the URL and removes it.
pub(super) fn gemini(
    body: &mut Writer,
    profile: &Profile,
    conversation: &[Turn],
    tools: &[ToolDef],
    no_more_tools: bool,
) {
    body.open(b'{').field("model", &profile.model);
    if let Some(system) = system_text(profile) {
        text_parts(body.key("systemInstruction").open(b'{'), system);
        body.close(b'}');
    }
    body.key("contents").open(b'[');
    for turn in conversation {
        match turn {
            Turn::User { content } => {
                body.open(b'{').field("role", "user");
                text_parts(body, content);
                body.close(b'}');
            }
            Turn::Assistant { content, tool_calls } => {
                body.open(b'{').field("role", "model");
                body.key("parts").open(b'[');
                text_then_calls(
                    body,
                    content,
                    tool_calls,
                    |body, text| body.object_of("text", text),
                    |body, c| {
                        body.open(b'{').key("functionCall").open(b'{').field("name", &c.name);
                        body.key("args").value(&c.input);
                        body.close(b'}');
                        body.close(b'}');
                    },
                );
                body.close(b']');
                body.close(b'}');
            }
            Turn::Tool { results } => {
                body.open(b'{').field("role", "user");
                body.key("parts").open(b'[');
                for result in results {
                    body.open(b'{').key("functionResponse").open(b'{').field("name", &result.name);
                    body.key("response");
                    match (&result.output, result.is_error) {
                        (Value::Object(_), false) => body.value(&result.output),
                        (output, is_error) => {
                            body.open(b'{').key(if is_error { "error" } else { "result" }).value(output);
                            body.close(b'}');
                        }
                    }
                    body.close(b'}');
                    body.close(b'}');
                }
                body.close(b']');
                body.close(b'}');
            }
        }
    }
    body.close(b']');
    if profile.temperature.is_some() || profile.max_tokens.is_some() || profile.thinking {
        body.key("generationConfig").open(b'{');
        body.float_some("temperature", profile.temperature);
        body.int_some("maxOutputTokens", profile.max_tokens);
        if profile.thinking {
            body.key("thinkingConfig").open(b'{').key("includeThoughts").bool(true);
            body.key("thinkingBudget").int(budget(profile));
            body.close(b'}');
        }
        body.close(b'}');
    }
    if !tools.is_empty() {
        body.key("tools").open(b'[').open(b'{');
        declarations(body.key("functionDeclarations"), tools, "parameters");
        body.close(b'}');
        body.close(b']');
        if no_more_tools {
            body.key("toolConfig").open(b'{').key("functionCallingConfig").object_of("mode", "NONE");
            body.close(b'}');
        }
    }
    body.close(b'}');
}

/// `"parts": [{"text": …}]`.
fn text_parts(body: &mut Writer, text: &str) {
    body.key("parts").open(b'[').object_of("text", text);
    body.close(b']');
}
