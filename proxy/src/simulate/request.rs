//! What the simulated request asked, read from the provider's own request format: only what the answer
//! needs, so that the (up to a megabyte) request is not kept while the answer streams.

use serde_json::{json, Value};

use crate::provider::Provider;

/// The most bytes of a request field the simulator repeats in its answer (the model, the conversation
/// id, a tool's name): a field repeated in every frame makes the answer as large as it times the frames.
pub const MAX_ECHOED: usize = 256;

/// A fault the prompt asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    Error,
    Truncate,
    Stall,
    Status(u16),
}

impl Fault {
    fn find(prompt: &str) -> Option<Fault> {
        let at = prompt.find("sim:")?;
        let rest = &prompt[at + 4..];
        if rest.starts_with("error") {
            Some(Fault::Error)
        } else if rest.starts_with("truncate") {
            Some(Fault::Truncate)
        } else if rest.starts_with("stall") {
            Some(Fault::Stall)
        } else {
            let status = rest.get(..3)?.parse::<u16>().ok().filter(|s| (400..600).contains(s))?;
            Some(Fault::Status(status))
        }
    }
}

/// The request fields that every frame or the last one repeats.
pub struct Echo {
    pub model: String,
    /// Number of messages: ids derive from it, so each turn's ids differ and stay deterministic.
    pub turn: usize,
    pub conversation_id: Value,
}

pub struct Request {
    pub echo: Echo,
    /// The last user message's text.
    pub prompt: String,
    /// Names and JSON-schema parameters of the offered tools.
    pub tools: Vec<(String, Value)>,
    /// The tool result the conversation ends with: (tool name, result text).
    pub tool_result: Option<(String, String)>,
    pub thinking: bool,
    pub fault: Option<Fault>,
}

impl Request {
    /// `Err` with the message of a 400 when a field the answer repeats is too long.
    pub fn read(provider: Provider, body: &Value) -> Result<Request, String> {
        let model = match body.get("model").and_then(Value::as_str) {
            Some(model) => model.to_string(),
            None => format!("sim-{}", provider.name()),
        };
        let conversation_id = body.get("conversation_id").cloned().unwrap_or(json!(1));
        let messages = match provider {
            Provider::OpenAiResponses => match body.get("input") {
                Some(Value::String(text)) => vec![json!({"role": "user", "content": text})],
                Some(Value::Array(items)) => items.clone(),
                _ => Vec::new(),
            },
            Provider::Gemini => array(body, "contents"),
            Provider::Agent => {
                vec![json!({"role": "user", "content": body.get("message").cloned().unwrap_or_default()})]
            }
            _ => array(body, "messages"),
        };
        let prompt = messages
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user") && !text_of(m).is_empty())
            .map(text_of)
            .unwrap_or_default();
        let tools = array(body, "tools")
            .iter()
            .flat_map(|tool| match provider {
                // Gemini groups declarations: tools[].functionDeclarations[] (or function_declarations).
                Provider::Gemini => tool
                    .get("functionDeclarations")
                    .or_else(|| tool.get("function_declarations"))
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
                // Chat completions and Ollama nest the function: tools[].function.
                Provider::OpenAi | Provider::Compat | Provider::Ollama => {
                    tool.get("function").cloned().into_iter().collect()
                }
                _ => vec![tool.clone()],
            })
            .filter_map(|f| {
                let name = f.get("name")?.as_str()?.to_string();
                // Anthropic calls the schema input_schema; the others, parameters.
                let schema = f.get("parameters").or_else(|| f.get("input_schema")).cloned().unwrap_or_default();
                Some((name, schema))
            })
            .collect::<Vec<_>>();
        let tool_result = messages.last().and_then(|last| tool_result(provider, last, &messages));
        let thinking = contains_word(&prompt.to_lowercase(), "think")
            || match provider {
                Provider::OpenAi | Provider::Compat => {
                    body.get("reasoning_effort").is_some_and(|e| e != "none" && !e.is_null())
                }
                Provider::OpenAiResponses => body.get("reasoning").is_some_and(|r| !r.is_null()),
                Provider::Anthropic => body.pointer("/thinking/type").and_then(Value::as_str) == Some("enabled"),
                Provider::Gemini => {
                    body.pointer("/generationConfig/thinkingConfig/includeThoughts") == Some(&Value::Bool(true))
                }
                Provider::Ollama => body.get("think").is_some_and(|t| t != false && !t.is_null()),
                Provider::Agent => false,
            };
        let too_long = |what: &str, len: usize| {
            if len > MAX_ECHOED {
                Err(format!("{what} is longer than the simulated provider accepts ({MAX_ECHOED} bytes)."))
            } else {
                Ok(())
            }
        };
        too_long("`model`", model.len())?;
        too_long("`conversation_id`", conversation_id.to_string().len())?;
        for name in tools.iter().map(|(name, _)| name).chain(tool_result.as_ref().map(|(name, _)| name)) {
            too_long("A tool name", name.len())?;
        }
        Ok(Request {
            echo: Echo { model, turn: messages.len(), conversation_id },
            fault: Fault::find(&prompt),
            prompt,
            tools,
            tool_result,
            thinking,
        })
    }
}

fn array(body: &Value, key: &str) -> Vec<Value> {
    body.get(key).and_then(Value::as_array).cloned().unwrap_or_default()
}

/// The text of a message in any of the request formats: a string `content`, or text parts
/// (`{"type":"text"|"input_text","text"}`, Gemini's `{"text"}` in `parts`).
fn text_of(message: &Value) -> String {
    let parts = match message.get("content").or_else(|| message.get("parts")) {
        Some(Value::String(text)) => return text.clone(),
        Some(Value::Array(parts)) => parts,
        _ => return String::new(),
    };
    parts
        .iter()
        .filter(|p| p.get("type").is_none_or(|t| t == "text" || t == "input_text"))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("")
}

/// The tool result `last` carries, if it is one, with the tool's name when the conversation shows it.
fn tool_result(provider: Provider, last: &Value, messages: &[Value]) -> Option<(String, String)> {
    let as_text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Array(_) => text_of(&json!({"content": v})),
        other => other.to_string(),
    };
    // The name of the call with this id, from the assistant turns before it.
    let call_name = |id: &str| -> String {
        let found = messages.iter().find_map(|m| {
            let calls = m.get("tool_calls").and_then(Value::as_array)?;
            calls.iter().find(|c| c.get("id").and_then(Value::as_str) == Some(id))?.pointer("/function/name")?.as_str()
        });
        found.unwrap_or("tool").to_string()
    };
    match provider {
        Provider::OpenAi | Provider::Compat | Provider::Ollama => {
            if last.get("role")? != "tool" {
                return None;
            }
            let id = last.get("tool_call_id").and_then(Value::as_str).unwrap_or_default();
            let name =
                last.get("tool_name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| call_name(id));
            Some((name, as_text(last.get("content")?)))
        }
        Provider::OpenAiResponses => {
            if last.get("type")? != "function_call_output" {
                return None;
            }
            let call_id = last.get("call_id");
            let name = messages
                .iter()
                .find(|m| m.get("type").is_some_and(|t| t == "function_call") && m.get("call_id") == call_id)
                .and_then(|m| m.get("name")?.as_str())
                .unwrap_or("tool");
            Some((name.to_string(), as_text(last.get("output")?)))
        }
        Provider::Anthropic => {
            let block =
                last.get("content")?.as_array()?.iter().find(|b| b.get("type").is_some_and(|t| t == "tool_result"))?;
            let id = block.get("tool_use_id");
            let name = messages
                .iter()
                .filter_map(|m| m.get("content")?.as_array())
                .flatten()
                .find(|b| b.get("type").is_some_and(|t| t == "tool_use") && b.get("id") == id)
                .and_then(|b| b.get("name")?.as_str())
                .unwrap_or("tool");
            Some((name.to_string(), as_text(block.get("content").unwrap_or(&Value::Null))))
        }
        Provider::Gemini => {
            let response = last.get("parts")?.as_array()?.iter().find_map(|p| p.get("functionResponse"))?;
            let name = response.get("name").and_then(Value::as_str).unwrap_or("tool");
            Some((name.to_string(), as_text(response.get("response").unwrap_or(&Value::Null))))
        }
        Provider::Agent => None,
    }
}

fn contains_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric()).any(|w| w == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_found_by_their_markers() {
        assert_eq!(Fault::find("hello"), None);
        assert_eq!(Fault::find("please sim:error now"), Some(Fault::Error));
        assert_eq!(Fault::find("sim:truncate"), Some(Fault::Truncate));
        assert_eq!(Fault::find("x sim:stall"), Some(Fault::Stall));
        assert_eq!(Fault::find("sim:429"), Some(Fault::Status(429)));
        assert_eq!(Fault::find("sim:200"), None);
        assert_eq!(Fault::find("sim:4"), None);
    }

    #[test]
    fn fields_the_answer_repeats_are_bounded() {
        let long = "m".repeat(MAX_ECHOED + 1);
        let read = |body: Value| Request::read(Provider::OpenAi, &body).map(|_| ());
        assert!(read(json!({"model": "m".repeat(MAX_ECHOED)})).is_ok());
        assert!(read(json!({"model": long})).unwrap_err().contains("`model`"));
        assert!(read(json!({"conversation_id": long})).unwrap_err().contains("`conversation_id`"));
        let tools = json!([{"type": "function", "function": {"name": long}}]);
        assert!(read(json!({"tools": tools})).unwrap_err().contains("tool name"));
    }
}
