//! Gemini `streamGenerateContent` request bodies (ai.google.dev, "Generating content"): `gemini`.

use serde_json::{Map, Value};

use super::{
    budget, declarations, insert, insert_some, object, string, system_text, text_then_calls, Profile, ToolDef, Turn,
};

/// Gemini `streamGenerateContent`: `contents` of `user` and `model` turns; a function response
/// must be an object, so other outputs are wrapped as `{"result": …}` (`{"error": …}` for errors).
/// `model` is for the proxy, which puts it in the URL and removes it.
pub(super) fn gemini(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
    let mut contents = Vec::new();
    for turn in conversation {
        match turn {
            Turn::User { content } => contents.push(object([("role", string("user")), ("parts", text_parts(content))])),
            Turn::Assistant { content, tool_calls } => {
                let parts = text_then_calls(
                    content,
                    tool_calls,
                    |text| object([("text", string(text))]),
                    |c| object([("functionCall", object([("name", string(&c.name)), ("args", c.input.clone())]))]),
                );
                contents.push(object([("role", string("model")), ("parts", Value::Array(parts))]));
            }
            Turn::Tool { results } => {
                let parts: Vec<Value> = results
                    .iter()
                    .map(|r| {
                        let response = match (&r.output, r.is_error) {
                            (output, true) => object([("error", output.clone())]),
                            (Value::Object(_), false) => r.output.clone(),
                            (output, false) => object([("result", output.clone())]),
                        };
                        object([("functionResponse", object([("name", string(&r.name)), ("response", response)]))])
                    })
                    .collect();
                contents.push(object([("role", string("user")), ("parts", Value::Array(parts))]));
            }
        }
    }
    let mut body = Map::new();
    insert(&mut body, "model", string(&profile.model));
    if let Some(system) = system_text(profile) {
        insert(&mut body, "systemInstruction", object([("parts", text_parts(system))]));
    }
    insert(&mut body, "contents", Value::Array(contents));
    let mut config = Map::new();
    insert_some(&mut config, "temperature", profile.temperature);
    insert_some(&mut config, "maxOutputTokens", profile.max_tokens);
    if profile.thinking {
        let thinking = object([("includeThoughts", Value::Bool(true)), ("thinkingBudget", budget(profile).into())]);
        insert(&mut config, "thinkingConfig", thinking);
    }
    if !config.is_empty() {
        insert(&mut body, "generationConfig", Value::Object(config));
    }
    if !tools.is_empty() {
        let declared = Value::Array(declarations(tools, "parameters"));
        insert(&mut body, "tools", Value::Array(vec![object([("functionDeclarations", declared)])]));
        if no_more_tools {
            insert(&mut body, "toolConfig", object([("functionCallingConfig", object([("mode", string("NONE"))]))]));
        }
    }
    Value::Object(body)
}

/// `parts` of one text: `[{"text": …}]`.
fn text_parts(text: &str) -> Value {
    Value::Array(vec![object([("text", string(text))])])
}
