//! Gemini `streamGenerateContent` request bodies (ai.google.dev, "Generating content"): `gemini`.

use serde_json::{json, Map, Value};

use super::{budget, insert_some, system_text, Profile, ToolDef, Turn};

/// Gemini `streamGenerateContent`: `contents` of `user` and `model` turns; a function response
/// must be an object, so other outputs are wrapped as `{"result": …}` (`{"error": …}` for errors).
/// `model` is for the proxy, which puts it in the URL and removes it.
pub(super) fn gemini(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
    let mut contents = Vec::new();
    for turn in conversation {
        match turn {
            Turn::User { content } => contents.push(json!({"role": "user", "parts": [{"text": content}]})),
            Turn::Assistant { content, tool_calls } => {
                let mut parts = Vec::new();
                if !content.is_empty() {
                    parts.push(json!({"text": content}));
                }
                parts.extend(tool_calls.iter().map(|c| json!({"functionCall": {"name": c.name, "args": c.input}})));
                contents.push(json!({"role": "model", "parts": parts}));
            }
            Turn::Tool { results } => {
                let parts: Vec<Value> = results
                    .iter()
                    .map(|r| {
                        let response = match (&r.output, r.is_error) {
                            (output, true) => json!({"error": output}),
                            (Value::Object(_), false) => r.output.clone(),
                            (output, false) => json!({"result": output}),
                        };
                        json!({"functionResponse": {"name": r.name, "response": response}})
                    })
                    .collect();
                contents.push(json!({"role": "user", "parts": parts}));
            }
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(profile.model));
    if let Some(system) = system_text(profile) {
        body.insert("systemInstruction".into(), json!({"parts": [{"text": system}]}));
    }
    body.insert("contents".into(), Value::Array(contents));
    let mut config = Map::new();
    insert_some(&mut config, "temperature", profile.temperature);
    insert_some(&mut config, "maxOutputTokens", profile.max_tokens);
    if profile.thinking {
        config.insert("thinkingConfig".into(), json!({"includeThoughts": true, "thinkingBudget": budget(profile)}));
    }
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    if !tools.is_empty() {
        let declared: Vec<Value> = tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "parameters": t.input_schema}))
            .collect();
        body.insert("tools".into(), json!([{"functionDeclarations": declared}]));
        if no_more_tools {
            body.insert("toolConfig".into(), json!({"functionCallingConfig": {"mode": "NONE"}}));
        }
    }
    Value::Object(body)
}
