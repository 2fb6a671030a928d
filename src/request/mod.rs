//! Provider requests from one provider-neutral conversation (talking to providers
//! directly, through the proxy, with the tool loop in the browser).
//!
//! A [`Conversation`] is user and assistant turns, assistant tool calls and tool results; a
//! [`Profile`] is the model and its settings; [`ToolDef`]s are the
//! tools offered. [`build`] validates them (the rules: provider and model required, the
//! message not empty) and writes the body in the provider's own format, always streaming:
//!
//! | provider | format |
//! |---|---|
//! | `openai` | Chat Completions: `messages`, `tools[].function`, `stream_options.include_usage`, `reasoning_effort` |
//! | `compat` | the same for OpenAI-compatible servers, with `max_tokens` and no `reasoning_effort` |
//! | `openai-responses` | Responses: `instructions`, `input` items (`function_call`, `function_call_output`), `reasoning` |
//! | `anthropic` | Messages: `system`, content blocks (`tool_use`, `tool_result`), `thinking.budget_tokens` |
//! | `gemini` | `contents` with `parts` (`functionCall`, `functionResponse`), `systemInstruction`, `thinkingConfig`; `model` for the proxy, which moves it to the URL |
//! | `ollama` | `/api/chat`: `messages` with `tool_calls` arguments as objects, `tool` messages by `tool_name`, `think`, `options` |
//!
//! Long conversations go through [`context`] first: above 70% of the model's context limit the
//! oldest exchanges are dropped.
//!
//! ```
//! use chatstream::request::{build, Conversation, Profile, Provider, Turn};
//! let profile = Profile { model: "gpt-4o-mini".into(), system: Some("Be brief.".into()), ..Profile::default() };
//! let conversation: Conversation = vec![Turn::User { content: "Hi".into() }];
//! let body = build(Provider::OpenAi, &profile, &conversation, &[], false).unwrap();
//! assert_eq!(body["messages"][0]["role"], "system");
//! assert_eq!(body["stream"], true);
//! ```

pub mod context;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::error::ErrorCode;

/// The provider formats a request can be built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Provider {
    #[serde(rename = "openai")]
    OpenAi,
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "gemini")]
    Gemini,
    #[serde(rename = "ollama")]
    Ollama,
    #[serde(rename = "compat")]
    Compat,
}

impl Provider {
    pub const ALL: [Provider; 6] = [
        Provider::OpenAi,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Ollama,
        Provider::Compat,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Ollama => "ollama",
            Provider::Compat => "compat",
        }
    }

    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The wire dialect its stream comes back in.
    pub fn dialect(self) -> crate::dialect::Dialect {
        use crate::dialect::Dialect;
        match self {
            Provider::OpenAi | Provider::Compat => Dialect::OpenAi,
            Provider::OpenAiResponses => Dialect::OpenAiResponses,
            Provider::Anthropic => Dialect::Anthropic,
            Provider::Gemini => Dialect::Gemini,
            Provider::Ollama => Dialect::Ollama,
        }
    }
}

/// One turn of a provider-neutral conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Turn {
    User {
        content: String,
    },
    Assistant {
        #[serde(default)]
        content: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The results of the previous assistant turn's tool calls, in the same order.
    Tool {
        results: Vec<ToolResult>,
    },
}

pub type Conversation = Vec<Turn>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub tool_use_id: String,
    pub name: String,
    pub output: Value,
    #[serde(default)]
    pub is_error: bool,
}

/// The model and its settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Profile {
    pub model: String,
    pub system: Option<String>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// Thinking on or off; `thinking_budget` tokens when on (default 10,000).
    pub thinking: bool,
    pub thinking_budget: Option<u32>,
    /// The model's context window in tokens, for the context budget (default: [`context::DEFAULT_LIMIT`]).
    pub context_tokens: Option<u32>,
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// A JSON Schema object for the input.
    #[serde(default = "empty_object_schema")]
    pub input_schema: Value,
}

fn empty_object_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// A request that cannot be built: always `VALIDATION_ERROR`, naming the field.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestError {
    pub code: ErrorCode,
    pub field: &'static str,
    pub message: String,
}

fn invalid(field: &'static str, message: impl Into<String>) -> RequestError {
    RequestError { code: ErrorCode::ValidationError, field, message: message.into() }
}

/// Anthropic requires `max_tokens`; this is used when the profile has none.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 8192;
/// The default thinking budget, in tokens.
pub const DEFAULT_THINKING_BUDGET: u32 = 10_000;

/// Checks a conversation about to be sent: the rules listed in the module docs.
pub fn validate(profile: &Profile, conversation: &[Turn], tools: &[ToolDef]) -> Result<(), RequestError> {
    if profile.model.trim().is_empty() {
        return Err(invalid("model", "model is required"));
    }
    match conversation.iter().rev().find(|t| matches!(t, Turn::User { .. })) {
        Some(Turn::User { content }) if !content.trim().is_empty() => {}
        Some(_) => return Err(invalid("message", "message must not be empty")),
        None => return Err(invalid("message", "the conversation has no user message")),
    }
    if let Some(t) = profile.temperature {
        if !(0.0..=2.0).contains(&t) {
            return Err(invalid("temperature", "temperature must be between 0 and 2"));
        }
    }
    let mut names = std::collections::HashSet::new();
    for tool in tools {
        let valid_name = !tool.name.is_empty()
            && tool.name.len() <= 64
            && tool.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid_name {
            return Err(invalid("tools", format!("tool name {:?} must be 1-64 of a-z, A-Z, 0-9, _ or -", tool.name)));
        }
        if !names.insert(tool.name.as_str()) {
            return Err(invalid("tools", format!("two tools are named {:?}", tool.name)));
        }
        if !tool.input_schema.is_object() {
            return Err(invalid("tools", format!("tool {:?}: input_schema must be a JSON Schema object", tool.name)));
        }
    }
    Ok(())
}

/// The streaming request body for `provider`. With `no_more_tools`, the tools stay declared (the
/// conversation refers to them) but the model is told not to call any: the loop's last iteration.
pub fn build(
    provider: Provider,
    profile: &Profile,
    conversation: &[Turn],
    tools: &[ToolDef],
    no_more_tools: bool,
) -> Result<Value, RequestError> {
    validate(profile, conversation, tools)?;
    let conversation = context::fit(conversation, profile);
    let body = match provider {
        Provider::OpenAi | Provider::Compat => chat_completions(provider, profile, &conversation, tools, no_more_tools),
        Provider::OpenAiResponses => responses(profile, &conversation, tools, no_more_tools),
        Provider::Anthropic => anthropic(profile, &conversation, tools, no_more_tools),
        Provider::Gemini => gemini(profile, &conversation, tools, no_more_tools),
        Provider::Ollama => ollama(profile, &conversation, tools, no_more_tools),
    };
    Ok(body)
}

/// A tool's output as the text most providers want in a result.
fn output_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn system_text(profile: &Profile) -> Option<&str> {
    profile.system.as_deref().filter(|s| !s.trim().is_empty())
}

fn budget(profile: &Profile) -> u32 {
    profile.thinking_budget.unwrap_or(DEFAULT_THINKING_BUDGET)
}

/// OpenAI's effort levels for a token budget.
fn reasoning_effort(profile: &Profile) -> &'static str {
    match budget(profile) {
        0..=2048 => "low",
        2049..=16384 => "medium",
        _ => "high",
    }
}

fn insert_some<T: Serialize>(body: &mut Map<String, Value>, key: &str, value: Option<T>) {
    if let Some(value) = value {
        body.insert(key.into(), json!(value));
    }
}

/// Chat Completions (`openai`, and `compat` servers, which take `max_tokens` and know no
/// `reasoning_effort`).
fn chat_completions(
    provider: Provider,
    profile: &Profile,
    conversation: &[Turn],
    tools: &[ToolDef],
    no_more_tools: bool,
) -> Value {
    let messages = chat_messages(
        profile,
        conversation,
        |c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.input.to_string()}}),
        |r| json!({"role": "tool", "tool_call_id": r.tool_use_id, "content": output_text(&r.output)}),
    );
    let mut body = Map::new();
    body.insert("model".into(), json!(profile.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    insert_some(&mut body, "temperature", profile.temperature);
    let max_key = if provider == Provider::OpenAi { "max_completion_tokens" } else { "max_tokens" };
    insert_some(&mut body, max_key, profile.max_tokens);
    if profile.thinking && provider == Provider::OpenAi {
        body.insert("reasoning_effort".into(), json!(reasoning_effort(profile)));
    }
    if !tools.is_empty() {
        body.insert("tools".into(), function_tools(tools));
        if no_more_tools {
            body.insert("tool_choice".into(), json!("none"));
        }
    }
    Value::Object(body)
}

/// A system message, then the turns, for the two APIs shaped like Chat Completions (OpenAI and
/// compatible servers, Ollama), which differ only in how a call and a result are written.
fn chat_messages(
    profile: &Profile,
    conversation: &[Turn],
    call: impl Fn(&ToolCall) -> Value,
    result: impl Fn(&ToolResult) -> Value,
) -> Vec<Value> {
    let mut messages = Vec::new();
    if let Some(system) = system_text(profile) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for turn in conversation {
        match turn {
            Turn::User { content } => messages.push(json!({"role": "user", "content": content})),
            Turn::Assistant { content, tool_calls } => {
                let mut message = json!({"role": "assistant", "content": content});
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
fn function_tools(tools: &[ToolDef]) -> Value {
    tools
        .iter()
        .map(|t| {
            json!({"type": "function",
                   "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}})
        })
        .collect()
}

/// The Responses API: `input` items; calls and their outputs are items of their own.
fn responses(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
    let mut input = Vec::new();
    for turn in conversation {
        match turn {
            Turn::User { content } => input.push(json!({"role": "user", "content": content})),
            Turn::Assistant { content, tool_calls } => {
                if !content.is_empty() {
                    input.push(json!({"role": "assistant", "content": content}));
                }
                input.extend(tool_calls.iter().map(|c| {
                    json!({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.input.to_string()})
                }));
            }
            Turn::Tool { results } => input.extend(results.iter().map(
                |r| json!({"type": "function_call_output", "call_id": r.tool_use_id, "output": output_text(&r.output)}),
            )),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(profile.model));
    insert_some(&mut body, "instructions", system_text(profile));
    body.insert("input".into(), Value::Array(input));
    body.insert("stream".into(), json!(true));
    // The loop resends the whole conversation; nothing needs keeping on OpenAI's side.
    body.insert("store".into(), json!(false));
    insert_some(&mut body, "temperature", profile.temperature);
    insert_some(&mut body, "max_output_tokens", profile.max_tokens);
    if profile.thinking {
        body.insert("reasoning".into(), json!({"effort": reasoning_effort(profile), "summary": "auto"}));
    }
    if !tools.is_empty() {
        let declared: Vec<Value> = tools
            .iter()
            .map(|t| json!({"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema}))
            .collect();
        body.insert("tools".into(), Value::Array(declared));
        if no_more_tools {
            body.insert("tool_choice".into(), json!("none"));
        }
    }
    Value::Object(body)
}

/// Anthropic Messages: tool calls are `tool_use` blocks of the assistant, results are
/// `tool_result` blocks of the next user message. Thinking needs `max_tokens` above the budget
/// and no `temperature` (the API refuses both otherwise).
///
/// Limitation: thinking blocks are not sent back with their signatures, which Anthropic asks for
/// when thinking and tool use are combined in one turn.
fn anthropic(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    for turn in conversation {
        match turn {
            Turn::User { content } => messages.push(json!({"role": "user", "content": content})),
            Turn::Assistant { content, tool_calls } => {
                let mut blocks = Vec::new();
                if !content.is_empty() {
                    blocks.push(json!({"type": "text", "text": content}));
                }
                blocks.extend(
                    tool_calls
                        .iter()
                        .map(|c| json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.input})),
                );
                messages.push(json!({"role": "assistant", "content": blocks}));
            }
            Turn::Tool { results } => {
                let blocks: Vec<Value> = results
                    .iter()
                    .map(|r| {
                        let mut block =
                            json!({"type": "tool_result", "tool_use_id": r.tool_use_id, "content": output_text(&r.output)});
                        if r.is_error {
                            block["is_error"] = json!(true);
                        }
                        block
                    })
                    .collect();
                messages.push(json!({"role": "user", "content": blocks}));
            }
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(profile.model));
    insert_some(&mut body, "system", system_text(profile));
    body.insert("messages".into(), Value::Array(messages));
    let mut max_tokens = profile.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS);
    if profile.thinking {
        let budget = budget(profile).max(1024);
        max_tokens = max_tokens.max(budget + 1024);
        body.insert("thinking".into(), json!({"type": "enabled", "budget_tokens": budget}));
    } else {
        insert_some(&mut body, "temperature", profile.temperature);
    }
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    if !tools.is_empty() {
        let declared: Vec<Value> = tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        body.insert("tools".into(), Value::Array(declared));
        if no_more_tools {
            body.insert("tool_choice".into(), json!({"type": "none"}));
        }
    }
    Value::Object(body)
}

/// Gemini `streamGenerateContent`: `contents` of `user` and `model` turns; a function response
/// must be an object, so other outputs are wrapped as `{"result": …}` (`{"error": …}` for errors).
/// `model` is for the proxy, which puts it in the URL and removes it.
fn gemini(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
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

/// Ollama's `/api/chat`: arguments as objects, results as `tool` messages naming the tool. It
/// has no way to forbid calls, so the last iteration sends no tools.
fn ollama(profile: &Profile, conversation: &[Turn], tools: &[ToolDef], no_more_tools: bool) -> Value {
    let messages = chat_messages(
        profile,
        conversation,
        |c| json!({"function": {"name": c.name, "arguments": c.input}}),
        |r| json!({"role": "tool", "tool_name": r.name, "content": output_text(&r.output)}),
    );
    let mut body = Map::new();
    body.insert("model".into(), json!(profile.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    if profile.thinking {
        body.insert("think".into(), json!(true));
    }
    let mut options = Map::new();
    insert_some(&mut options, "temperature", profile.temperature);
    insert_some(&mut options, "num_predict", profile.max_tokens);
    if !options.is_empty() {
        body.insert("options".into(), Value::Object(options));
    }
    if !tools.is_empty() && !no_more_tools {
        body.insert("tools".into(), function_tools(tools));
    }
    Value::Object(body)
}
