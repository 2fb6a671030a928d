//! What the simulated provider answers, decided from the request, provider-neutral: each dialect's writer
//! turns it into frames.

use serde_json::{json, Value};

use super::request::{Fault, Request, MAX_ECHOED};
use crate::provider::Provider;

/// The answer's content, provider-neutral; each dialect writes it in its own frames.
pub struct Answer {
    pub thinking: Vec<String>,
    pub text: Vec<String>,
    pub tool_call: Option<ToolCall>,
    /// Agent mode only: a tool run between `text` and `after_tool`.
    pub agent_tool: Option<ToolCall>,
    pub after_tool: Vec<String>,
    pub ending: Ending,
}

pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// How a stream ends: its terminal frames, a provider error, or nothing (truncated or stalled).
pub enum Ending {
    Complete,
    Error(String),
    Cut,
}

/// The most bytes of tool arguments the simulator writes: they are built from the tool's schema (a
/// string for each string property, and so on), which the request may make as large as it likes.
const MAX_ARGUMENTS: usize = 4 * MAX_ECHOED;

impl Answer {
    /// The answer to `request`, cut short as its fault asks; `Err` with the message of a 400 when the
    /// tool's schema asks for arguments larger than [`MAX_ARGUMENTS`].
    pub fn plan(provider: Provider, request: &Request) -> Result<Answer, String> {
        let mut answer = Answer::content(provider, request);
        if let Some(call) = &answer.tool_call {
            if call.arguments.to_string().len() > MAX_ARGUMENTS {
                return Err(format!(
                    "The arguments for {}'s schema are larger than the simulated provider writes ({MAX_ARGUMENTS} bytes).",
                    call.name
                ));
            }
        }
        if let Some(fault) = request.fault {
            answer.cut_in_half();
            answer.ending = match fault {
                Fault::Error => Ending::Error("Simulated: the provider failed mid-stream (sim:error).".into()),
                _ => Ending::Cut,
            };
        }
        Ok(answer)
    }

    fn content(provider: Provider, request: &Request) -> Answer {
        let said = excerpt(&request.prompt);
        let thinking = if request.thinking {
            pieces(&format!(
                "The user wrote \"{said}\". A short, friendly answer will do; no tools are needed for that."
            ))
        } else {
            Vec::new()
        };
        let mut answer = Answer {
            thinking,
            text: Vec::new(),
            tool_call: None,
            agent_tool: None,
            after_tool: Vec::new(),
            ending: Ending::Complete,
        };
        if provider == Provider::Agent {
            answer.text = pieces("Let me look that up.");
            answer.agent_tool = Some(ToolCall {
                id: format!("toolu_sim_{}", request.echo.turn),
                name: "search_articles".into(),
                arguments: json!({"query": said}),
            });
            answer.after_tool = pieces(&format!("\n\n[[tool:0]]\n\nI found 3 articles about \"{said}\"."));
            return answer;
        }
        if let Some((name, result)) = &request.tool_result {
            answer.text =
                pieces(&format!("The {name} tool returned: {}. That answers your question.", excerpt(result)));
            return answer;
        }
        let lowered = request.prompt.to_lowercase();
        if let Some((name, schema)) = request.tools.iter().find(|(name, _)| lowered.contains(&name.to_lowercase())) {
            answer.text = pieces(&format!("I'll call {name} for that."));
            answer.tool_call = Some(ToolCall {
                id: tool_call_id(provider, request.echo.turn),
                name: name.clone(),
                arguments: arguments_for(schema, &said),
            });
            return answer;
        }
        answer.text = pieces(&format!(
            "You said: \"{said}\". This is the simulated {} provider answering offline, so here is a short, \
             deterministic reply. Set the provider's key to talk to the real one.",
            provider.name()
        ));
        answer
    }

    /// For faults: keep the first half of the content, drop the tool calls.
    fn cut_in_half(&mut self) {
        let half = self.text.len().div_ceil(2);
        self.text.truncate(half.max(1));
        self.tool_call = None;
        self.agent_tool = None;
        self.after_tool.clear();
    }

    pub fn full_text(&self) -> String {
        self.text.concat() + &self.after_tool.concat()
    }
}

fn tool_call_id(provider: Provider, turn: usize) -> String {
    match provider {
        Provider::Anthropic => format!("toolu_sim_{turn}"),
        _ => format!("call_sim_{turn}"),
    }
}

/// Arguments that fit the tool's JSON schema: strings get the prompt excerpt, numbers 1, booleans true.
fn arguments_for(schema: &Value, said: &str) -> Value {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return json!({});
    };
    let args = properties.iter().map(|(name, property)| {
        let value = match property.get("type").and_then(Value::as_str) {
            Some("number") | Some("integer") => json!(1),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => property.pointer("/enum/0").cloned().unwrap_or_else(|| json!(said)),
        };
        (name.clone(), value)
    });
    Value::Object(args.collect())
}

/// The user's words, shortened and without `[[`/`]]` so an echo never forms a `[[tool:N]]` marker.
fn excerpt(text: &str) -> String {
    let flat: String = text.replace("[[", "").replace("]]", "").split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}

/// Splits text into word-sized pieces, each with its leading space, as models stream tokens.
fn pieces(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c == ' ' && !current.trim().is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// JSON split in three, the way providers stream tool arguments.
pub fn json_pieces(value: &Value) -> Vec<String> {
    let text = value.to_string();
    let chars: Vec<char> = text.chars().collect();
    let third = chars.len().div_ceil(3).max(1);
    chars.chunks(third).map(|c| c.iter().collect()).collect()
}

pub const CREATED: u64 = 1_767_225_600; // 2026-01-01T00:00:00Z: fixed so output is deterministic.

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_keep_every_character() {
        let text = "You said: \"hi  there\".\n\nOk";
        assert_eq!(pieces(text).concat(), text);
        assert_eq!(pieces("a b"), ["a", " b"]);
    }

    #[test]
    fn echo_never_forms_a_marker() {
        assert_eq!(excerpt("show [[tool:0]] please"), "show tool:0 please");
    }

    #[test]
    fn a_named_tool_is_called_with_arguments_from_its_schema() {
        let body = json!({"messages": [{"role": "user", "content": "use get_weather for Paris"}],
            "tools": [{"type": "function", "function": {"name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]});
        let request = Request::read(Provider::OpenAi, &body).unwrap();
        let answer = Answer::plan(Provider::OpenAi, &request).unwrap();
        let call = answer.tool_call.expect("a tool call");
        assert_eq!(call.name, "get_weather");
        assert_eq!(call.arguments, json!({"city": "use get_weather for Paris", "days": 1}));
    }

    #[test]
    fn a_tool_result_gets_a_final_answer_quoting_it() {
        let body = json!({"messages": [
            {"role": "user", "content": "use get_weather"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18C and sunny"}],
            "tools": [{"type": "function", "function": {"name": "get_weather"}}]});
        let request = Request::read(Provider::OpenAi, &body).unwrap();
        assert_eq!(request.tool_result, Some(("get_weather".into(), "18C and sunny".into())));
        let answer = Answer::plan(Provider::OpenAi, &request).unwrap();
        assert!(answer.tool_call.is_none());
        assert_eq!(answer.text.concat(), "The get_weather tool returned: 18C and sunny. That answers your question.");
    }

    #[test]
    fn tool_arguments_are_bounded() {
        let properties: serde_json::Map<String, Value> =
            (0..100).map(|i| (format!("number_{i}"), json!({"type": "number"}))).collect();
        let body = json!({"messages": [{"role": "user", "content": "use big"}],
            "tools": [{"type": "function", "function": {"name": "big", "parameters": {"properties": properties}}}]});
        let request = Request::read(Provider::OpenAi, &body).unwrap();
        assert!(Answer::plan(Provider::OpenAi, &request).is_err());
    }
}
