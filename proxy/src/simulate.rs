//! The offline simulated provider: answers any route whose provider is not configured, in that provider's
//! own wire format, deterministically (the same request always gets the same bytes).
//!
//! What it does, decided from the request body:
//! - a tool result at the end of the conversation → a final answer quoting the result;
//! - tools offered and the last user message names one → a call to that tool;
//! - otherwise a plain answer about the last user message;
//! - thinking first when the request enables it the provider's way, or the prompt contains "think";
//! - on `/api/chat/stream` (agent protocol): status, a tool run with progress, a `[[tool:0]]` marker,
//!   suggested values and actions;
//! - faults when the prompt contains `sim:error` (a provider error mid-stream), `sim:truncate` (the stream
//!   ends without its terminal event), `sim:stall` (the stream stops sending; the proxy's idle timeout
//!   ends it) or `sim:` and an HTTP status such as `sim:401`, `sim:429`, `sim:529` (that status with the
//!   provider's error body; 429 carries Retry-After).
//!
//! The frame layouts follow the recorded streams in the shared fixtures (`real/<provider>/`).

use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{self, BoxStream, StreamExt};
use serde_json::{json, Value};

use crate::ordered::Json;
use crate::provider::{sse, Provider};

/// A simulated answer: an HTTP error, or a stream of frames.
pub enum Simulated {
    Status { status: u16, body: Json },
    Stream { frames: Vec<Bytes>, stall: bool },
}

/// The frames paced `delay` apart (the first at once); a stalled stream then stays silent.
pub fn paced(frames: Vec<Bytes>, stall: bool, delay: Duration) -> BoxStream<'static, Bytes> {
    let paced = stream::iter(frames.into_iter().enumerate()).then(move |(i, frame)| async move {
        if i > 0 && !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        frame
    });
    if stall {
        paced.chain(stream::pending()).boxed()
    } else {
        paced.boxed()
    }
}

pub fn simulate(provider: Provider, body: &Value) -> Simulated {
    let request = Request::read(provider, body);
    let fault = Fault::find(&request.prompt);
    if let Some(Fault::Status(status)) = fault {
        let message = match status {
            401 => "Simulated: invalid API key.".to_string(),
            429 => "Simulated: rate limit reached, retry after 1s.".to_string(),
            529 => "Simulated: overloaded.".to_string(),
            _ => format!("Simulated: HTTP {status}."),
        };
        return Simulated::Status { status, body: provider.error_body(status, &message) };
    }
    let mut answer = Answer::plan(provider, &request);
    let ending = match fault {
        None => Ending::Complete,
        Some(fault) => {
            answer.cut_in_half();
            match fault {
                Fault::Error => Ending::Error("Simulated: the provider failed mid-stream (sim:error).".into()),
                _ => Ending::Cut,
            }
        }
    };
    let frames = match provider {
        Provider::OpenAi | Provider::Compat => openai(&request, &answer, &ending),
        Provider::OpenAiResponses => openai_responses(&request, &answer, &ending),
        Provider::Anthropic => anthropic(&request, &answer, &ending),
        Provider::Gemini => gemini(&request, &answer, &ending),
        Provider::Ollama => ollama(&request, &answer, &ending),
        Provider::Agent => agent(&request, &answer, &ending),
    };
    Simulated::Stream { frames: frames.into_iter().map(Bytes::from).collect(), stall: fault == Some(Fault::Stall) }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
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

/// How a stream ends: its terminal frames, a provider error, or nothing (truncated or stalled).
enum Ending {
    Complete,
    Error(String),
    Cut,
}

/// What the simulated request asked, read from the provider's own request format.
struct Request {
    model: String,
    /// The last user message's text.
    prompt: String,
    /// Names and JSON-schema parameters of the offered tools.
    tools: Vec<(String, Value)>,
    /// The tool result the conversation ends with: (tool name, result text).
    tool_result: Option<(String, String)>,
    thinking: bool,
    /// Number of messages: ids derive from it, so each turn's ids differ and stay deterministic.
    turn: usize,
    conversation_id: Value,
}

impl Request {
    fn read(provider: Provider, body: &Value) -> Request {
        let str_at = |pointer: &str| body.pointer(pointer).and_then(Value::as_str).map(str::to_string);
        let model = str_at("/model").unwrap_or_else(|| format!("sim-{}", provider.name()));
        let mut request = Request {
            model,
            prompt: String::new(),
            tools: Vec::new(),
            tool_result: None,
            thinking: false,
            turn: 0,
            conversation_id: body.get("conversation_id").cloned().unwrap_or(json!(1)),
        };
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
        request.turn = messages.len();
        request.prompt = messages
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user") && !text_of(m).is_empty())
            .map(text_of)
            .unwrap_or_default();
        request.tools = array(body, "tools")
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
            .collect();
        request.tool_result = messages.last().and_then(|last| tool_result(provider, last, &messages));
        request.thinking = contains_word(&request.prompt.to_lowercase(), "think")
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
        request
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

/// The answer's content, provider-neutral; each dialect writes it in its own frames.
struct Answer {
    thinking: Vec<String>,
    text: Vec<String>,
    tool_call: Option<ToolCall>,
    /// Agent mode only: a tool run between `text` and `after_tool`.
    agent_tool: Option<ToolCall>,
    after_tool: Vec<String>,
}

struct ToolCall {
    id: String,
    name: String,
    arguments: Value,
}

impl Answer {
    fn plan(provider: Provider, request: &Request) -> Answer {
        let said = excerpt(&request.prompt);
        let thinking = if request.thinking {
            pieces(&format!(
                "The user wrote \"{said}\". A short, friendly answer will do; no tools are needed for that."
            ))
        } else {
            Vec::new()
        };
        let mut answer =
            Answer { thinking, text: Vec::new(), tool_call: None, agent_tool: None, after_tool: Vec::new() };
        if provider == Provider::Agent {
            answer.text = pieces("Let me look that up.");
            answer.agent_tool = Some(ToolCall {
                id: format!("toolu_sim_{}", request.turn),
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
                id: tool_call_id(provider, request.turn),
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

    fn full_text(&self) -> String {
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
fn json_pieces(value: &Value) -> Vec<String> {
    let text = value.to_string();
    let chars: Vec<char> = text.chars().collect();
    let third = chars.len().div_ceil(3).max(1);
    chars.chunks(third).map(|c| c.iter().collect()).collect()
}

const CREATED: u64 = 1_767_225_600; // 2026-01-01T00:00:00Z: fixed so output is deterministic.

// Field order in each dialect follows the recordings named in its heading.

// --- OpenAI chat completions (real/openai/openai-text.sse, tool-call-with-finish-reason.sse) --------------

fn openai(request: &Request, answer: &Answer, ending: &Ending) -> Vec<String> {
    let id = format!("chatcmpl-sim-{}", request.turn);
    let chunk = |delta: Json, finish: Json| {
        let choice = ordered!({"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish});
        sse(
            None,
            &ordered!({"id": (id.as_str()), "object": "chat.completion.chunk", "created": CREATED,
                "model": (request.model.as_str()), "choices": [choice]}),
        )
    };
    let mut frames = vec![chunk(ordered!({"role": "assistant", "content": ""}), ordered!(null))];
    // Reasoning as the OpenAI-compatible reasoning models stream it (real/openai/deepseek-reasoning.sse).
    for piece in &answer.thinking {
        frames.push(chunk(ordered!({"content": null, "reasoning_content": (piece.as_str())}), ordered!(null)));
    }
    for piece in &answer.text {
        frames.push(chunk(ordered!({"content": (piece.as_str())}), ordered!(null)));
    }
    if let Some(call) = &answer.tool_call {
        let function = ordered!({"name": (call.name.as_str()), "arguments": ""});
        let tool_call = ordered!({"index": 0, "id": (call.id.as_str()), "type": "function", "function": function});
        frames.push(chunk(ordered!({"tool_calls": [tool_call]}), ordered!(null)));
        for piece in json_pieces(&call.arguments) {
            frames.push(chunk(
                ordered!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
                ordered!(null),
            ));
        }
    }
    match ending {
        Ending::Complete => {
            let finish = if answer.tool_call.is_some() { "tool_calls" } else { "stop" };
            frames.push(chunk(ordered!({}), ordered!(finish)));
            frames.push("data: [DONE]\n\n".into());
        }
        Ending::Error(message) => frames.push(sse(
            None,
            &ordered!({"error": {"message": (message.as_str()), "type": "server_error", "param": null, "code": null}}),
        )),
        Ending::Cut => {}
    }
    frames
}

// --- OpenAI Responses (real/openai-responses/reasoning-encrypted-content.sse, multi-tool-ordering.sse, ----
// --- error-insufficient-quota.sse) ------------------------------------------------------------------------

fn openai_responses(request: &Request, answer: &Answer, ending: &Ending) -> Vec<String> {
    let id = format!("resp_sim_{}", request.turn);
    let mut frames = Vec::new();
    let mut sequence = 0u64;
    // Every event: its type, then its sequence number, then its own fields; `event:` repeats the type.
    let mut emit = |frames: &mut Vec<String>, mut data: Json| {
        data.insert(Some(1), "sequence_number", sequence);
        sequence += 1;
        let kind = data.get("type").and_then(Json::as_str).unwrap_or_default().to_string();
        frames.push(sse(Some(&kind), &data));
    };
    let response = |status: &str, output: Vec<Json>, error: Json| {
        let usage = if status == "completed" {
            ordered!({"input_tokens": 10, "output_tokens": 20, "total_tokens": 30})
        } else {
            ordered!(null)
        };
        ordered!({"id": (id.as_str()), "object": "response", "created_at": CREATED, "status": status, "error": error,
            "incomplete_details": null, "model": (request.model.as_str()), "output": (Json::Array(output)), "usage": usage})
    };
    emit(
        &mut frames,
        ordered!({"type": "response.created", "response": (response("in_progress", vec![], ordered!(null)))}),
    );
    emit(
        &mut frames,
        ordered!({"type": "response.in_progress", "response": (response("in_progress", vec![], ordered!(null)))}),
    );
    let mut output = Vec::new();
    if !answer.thinking.is_empty() {
        let item_id = format!("rs_sim_{}", request.turn);
        let item_id = item_id.as_str();
        let index = output.len();
        let summary = answer.thinking.concat();
        emit(
            &mut frames,
            ordered!({"type": "response.output_item.added", "output_index": index,
            "item": {"id": item_id, "type": "reasoning", "summary": []}}),
        );
        emit(
            &mut frames,
            ordered!({"type": "response.reasoning_summary_part.added", "item_id": item_id,
            "output_index": index, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}),
        );
        for piece in &answer.thinking {
            emit(
                &mut frames,
                ordered!({"type": "response.reasoning_summary_text.delta", "item_id": item_id,
                "output_index": index, "summary_index": 0, "delta": (piece.as_str())}),
            );
        }
        emit(
            &mut frames,
            ordered!({"type": "response.reasoning_summary_text.done", "item_id": item_id,
            "output_index": index, "summary_index": 0, "text": (summary.as_str())}),
        );
        emit(
            &mut frames,
            ordered!({"type": "response.reasoning_summary_part.done", "item_id": item_id,
            "output_index": index, "summary_index": 0, "part": {"type": "summary_text", "text": (summary.as_str())}}),
        );
        let item = ordered!({"id": item_id, "type": "reasoning",
            "summary": [{"type": "summary_text", "text": (summary.as_str())}]});
        emit(
            &mut frames,
            ordered!({"type": "response.output_item.done", "output_index": index, "item": (item.clone())}),
        );
        output.push(item);
    }
    let item_id = format!("msg_sim_{}", request.turn);
    let item_id = item_id.as_str();
    let index = output.len();
    emit(
        &mut frames,
        ordered!({"type": "response.output_item.added", "output_index": index,
        "item": {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}}),
    );
    emit(
        &mut frames,
        ordered!({"type": "response.content_part.added", "item_id": item_id, "output_index": index,
        "content_index": 0, "part": {"type": "output_text", "annotations": [], "text": ""}}),
    );
    for piece in &answer.text {
        emit(
            &mut frames,
            ordered!({"type": "response.output_text.delta", "item_id": item_id, "output_index": index,
            "content_index": 0, "delta": (piece.as_str())}),
        );
    }
    if let Ending::Complete = ending {
        let text = answer.text.concat();
        let part = ordered!({"type": "output_text", "annotations": [], "text": (text.as_str())});
        emit(
            &mut frames,
            ordered!({"type": "response.output_text.done", "item_id": item_id, "output_index": index,
            "content_index": 0, "text": (text.as_str())}),
        );
        emit(
            &mut frames,
            ordered!({"type": "response.content_part.done", "item_id": item_id, "output_index": index,
            "content_index": 0, "part": (part.clone())}),
        );
        let item = ordered!({"id": item_id, "type": "message", "status": "completed", "content": [part],
            "role": "assistant"});
        emit(
            &mut frames,
            ordered!({"type": "response.output_item.done", "output_index": index, "item": (item.clone())}),
        );
        output.push(item);
        if let Some(call) = &answer.tool_call {
            let index = output.len();
            let item_id = format!("fc_sim_{}", request.turn);
            let item_id = item_id.as_str();
            let arguments = call.arguments.to_string();
            let (call_id, name) = (call.id.as_str(), call.name.as_str());
            emit(
                &mut frames,
                ordered!({"type": "response.output_item.added", "output_index": index,
                "item": {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": "",
                    "call_id": call_id, "name": name}}),
            );
            for piece in json_pieces(&call.arguments) {
                emit(
                    &mut frames,
                    ordered!({"type": "response.function_call_arguments.delta", "item_id": item_id,
                    "output_index": index, "delta": piece}),
                );
            }
            emit(
                &mut frames,
                ordered!({"type": "response.function_call_arguments.done", "item_id": item_id,
                "output_index": index, "arguments": (arguments.as_str())}),
            );
            let item = ordered!({"id": item_id, "type": "function_call", "status": "completed",
                "arguments": (arguments.as_str()), "call_id": call_id, "name": name});
            emit(
                &mut frames,
                ordered!({"type": "response.output_item.done", "output_index": index, "item": (item.clone())}),
            );
            output.push(item);
        }
        emit(
            &mut frames,
            ordered!({"type": "response.completed", "response": (response("completed", output, ordered!(null)))}),
        );
    } else if let Ending::Error(message) = ending {
        // As recorded: an `error` event, then `response.failed`.
        let message = message.as_str();
        emit(
            &mut frames,
            ordered!({"type": "error",
            "error": {"type": "server_error", "code": "server_error", "message": message, "param": null}}),
        );
        let error = ordered!({"code": "server_error", "message": message});
        emit(&mut frames, ordered!({"type": "response.failed", "response": (response("failed", output, error))}));
    }
    frames
}

// --- Anthropic Messages (real/anthropic/tool-stream.sse, text.sse) -----------------------------------------

fn anthropic(request: &Request, answer: &Answer, ending: &Ending) -> Vec<String> {
    let event = |data: Json| sse(data.get("type").and_then(Json::as_str), &data);
    let id = format!("msg_sim_{}", request.turn);
    let mut frames = vec![event(ordered!({"type": "message_start", "message": {
        "id": (id.as_str()), "type": "message", "role": "assistant", "content": [], "model": (request.model.as_str()),
        "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}))];
    let mut index = 0;
    if !answer.thinking.is_empty() {
        // Extended thinking: a `thinking` block of thinking_delta, closed by a signature_delta.
        frames.push(event(ordered!({"type": "content_block_start", "index": index,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""}})));
        for piece in &answer.thinking {
            frames.push(event(ordered!({"type": "content_block_delta", "index": index,
                "delta": {"type": "thinking_delta", "thinking": (piece.as_str())}})));
        }
        frames.push(event(ordered!({"type": "content_block_delta", "index": index,
            "delta": {"type": "signature_delta", "signature": "c2ltdWxhdGVkLXNpZ25hdHVyZQ=="}})));
        frames.push(event(ordered!({"type": "content_block_stop", "index": index})));
        index += 1;
    }
    frames.push(event(ordered!({"type": "content_block_start", "index": index,
        "content_block": {"type": "text", "text": ""}})));
    frames.push(event(ordered!({"type": "ping"})));
    for piece in &answer.text {
        frames.push(event(ordered!({"type": "content_block_delta", "index": index,
            "delta": {"type": "text_delta", "text": (piece.as_str())}})));
    }
    match ending {
        Ending::Complete => {
            frames.push(event(ordered!({"type": "content_block_stop", "index": index})));
            if let Some(call) = &answer.tool_call {
                index += 1;
                frames.push(event(ordered!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "tool_use", "id": (call.id.as_str()), "name": (call.name.as_str()), "input": {}}})));
                for piece in json_pieces(&call.arguments) {
                    frames.push(event(ordered!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": piece}})));
                }
                frames.push(event(ordered!({"type": "content_block_stop", "index": index})));
            }
            let stop = if answer.tool_call.is_some() { "tool_use" } else { "end_turn" };
            frames
                .push(event(ordered!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": 20}})));
            frames.push(event(ordered!({"type": "message_stop"})));
        }
        Ending::Error(message) => frames.push(event(ordered!({"type": "error",
            "error": {"type": "overloaded_error", "message": (message.as_str())}}))),
        Ending::Cut => {}
    }
    frames
}

// --- Gemini streamGenerateContent?alt=sse (real/gemini/text.sse, thinking-stream-crlf.sse) --------------
// Gemini ends its lines with CRLF.

fn gemini(request: &Request, answer: &Answer, ending: &Ending) -> Vec<String> {
    let frame = |data: Json| format!("data: {data}\r\n\r\n");
    let response_id = format!("sim-{}", request.turn);
    let chunk = |part: Json, finish: Option<&str>| {
        let mut candidate = ordered!({"content": {"parts": [part], "role": "model"}});
        if let Some(finish) = finish {
            candidate.insert(None, "finishReason", finish);
        }
        candidate.insert(None, "index", 0);
        frame(ordered!({"candidates": [candidate],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 20, "totalTokenCount": 30},
            "modelVersion": (request.model.as_str()), "responseId": (response_id.as_str())}))
    };
    let mut frames = Vec::new();
    for piece in &answer.thinking {
        frames.push(chunk(ordered!({"text": (piece.as_str()), "thought": true}), None));
    }
    for piece in &answer.text {
        frames.push(chunk(ordered!({"text": (piece.as_str())}), None));
    }
    match ending {
        Ending::Complete => {
            // Gemini sends a function call whole, in one part (real/gemini/tool-call.sse).
            if let Some(call) = &answer.tool_call {
                let function_call = ordered!({"name": (call.name.as_str()), "args": (call.arguments.clone())});
                frames.push(chunk(ordered!({"functionCall": function_call}), None));
            }
            frames.push(chunk(ordered!({"text": ""}), Some("STOP")));
        }
        Ending::Error(message) => frames.push(frame(ordered!({"error": {"code": 503, "message": (message.as_str()),
            "status": "UNAVAILABLE"}}))),
        Ending::Cut => {}
    }
    frames
}

// --- Ollama /api/chat NDJSON (real/ollama/simple-stream.ndjson) --------------------------------------------

fn ollama(request: &Request, answer: &Answer, ending: &Ending) -> Vec<String> {
    let line = |message: Json, done: bool| {
        let mut data = ordered!({"model": (request.model.as_str()), "created_at": "2026-01-01T00:00:00Z",
            "message": message, "done": done});
        if done {
            data.insert(None, "done_reason", "stop");
            data.insert(None, "total_duration", 1_000_000);
            data.insert(None, "prompt_eval_count", 10);
            data.insert(None, "eval_count", 20);
        }
        format!("{data}\n")
    };
    let mut frames = Vec::new();
    for piece in &answer.thinking {
        frames.push(line(ordered!({"role": "assistant", "content": "", "thinking": (piece.as_str())}), false));
    }
    for piece in &answer.text {
        frames.push(line(ordered!({"role": "assistant", "content": (piece.as_str())}), false));
    }
    match ending {
        Ending::Complete => {
            if let Some(call) = &answer.tool_call {
                let function = ordered!({"name": (call.name.as_str()), "arguments": (call.arguments.clone())});
                frames.push(line(
                    ordered!({"role": "assistant", "content": "", "tool_calls": [{"function": function}]}),
                    false,
                ));
            }
            frames.push(line(ordered!({"role": "assistant", "content": ""}), true));
        }
        Ending::Error(message) => frames.push(format!("{}\n", ordered!({"error": (message.as_str())}))),
        Ending::Cut => {}
    }
    frames
}

// --- The agent protocol (seeds 001/002: status, text_delta, tool_start, tool_progress, tool_complete, -----
// --- complete, error) ---------------------------------------------------------------------------------------

fn agent(request: &Request, answer: &Answer, ending: &Ending) -> Vec<String> {
    let event = |data: Json| sse(None, &data);
    let mut frames = vec![event(ordered!({"type": "status", "message": "Thinking..."}))];
    for piece in &answer.thinking {
        frames.push(event(ordered!({"type": "thinking_delta", "text": (piece.as_str())})));
    }
    for piece in &answer.text {
        frames.push(event(ordered!({"type": "text_delta", "text": (piece.as_str())})));
    }
    let mut tool_history = Vec::new();
    if let Some(tool) = &answer.agent_tool {
        let (name, input) = (tool.name.as_str(), tool.arguments.clone());
        frames.push(event(ordered!({"type": "tool_start", "tool": name, "input": (input.clone()),
            "tool_use_id": (tool.id.as_str())})));
        for (stage, message, progress) in
            [("searching", "Searching articles...", 0.5), ("ranking", "Found 3 articles", 0.9)]
        {
            frames.push(event(ordered!({"type": "tool_progress", "tool": name, "stage": stage, "message": message,
                "progress": progress, "data": null})));
        }
        frames.push(event(ordered!({"type": "tool_complete", "tool": name, "index": 0})));
        tool_history.push(ordered!({"tool_name": name, "input": input,
            "output": "Found 3 articles: Simulated article one; Simulated article two; Simulated article three."}));
    }
    for piece in &answer.after_tool {
        frames.push(event(ordered!({"type": "text_delta", "text": (piece.as_str())})));
    }
    match ending {
        Ending::Complete => {
            let tool_history = Json::Array(tool_history);
            frames.push(event(ordered!({"type": "complete", "payload": {
                "message": (answer.full_text()),
                "suggested_values": [{"label": "Tell me more", "value": "Tell me more about the first article"},
                                     {"label": "Search again", "value": "Search for something else"}],
                "suggested_actions": [{"label": "Close Chat", "action": "close_chat", "handler": "client", "style": "secondary"}],
                "custom_payload": {"type": "tool_history", "data": (tool_history.clone())},
                "tool_history": tool_history,
                "conversation_id": (request.conversation_id.clone()),
            }})))
        }
        Ending::Error(message) => frames.push(event(ordered!({"type": "error", "message": (message.as_str())}))),
        Ending::Cut => {}
    }
    frames
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
        let request = Request::read(Provider::OpenAi, &body);
        let answer = Answer::plan(Provider::OpenAi, &request);
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
        let request = Request::read(Provider::OpenAi, &body);
        assert_eq!(request.tool_result, Some(("get_weather".into(), "18C and sunny".into())));
        let answer = Answer::plan(Provider::OpenAi, &request);
        assert!(answer.tool_call.is_none());
        assert_eq!(answer.text.concat(), "The get_weather tool returned: 18C and sunny. That answers your question.");
    }
}
