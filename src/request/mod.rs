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

mod anthropic;
pub mod context;
mod gemini;
mod ollama;
mod openai;
mod openai_responses;
mod writer;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::ErrorCode;
use crate::json::to_json;

use anthropic::anthropic;
use gemini::gemini;
use ollama::ollama;
use openai::chat_completions;
use openai_responses::responses;
use writer::Writer;

/// The provider formats a request can be built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Provider {
    /// Chat Completions at OpenAI.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI's Responses API.
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// Gemini `streamGenerateContent`.
    #[serde(rename = "gemini")]
    Gemini,
    /// Ollama's `/api/chat`.
    #[serde(rename = "ollama")]
    Ollama,
    /// An OpenAI-compatible server (Chat Completions).
    #[serde(rename = "compat")]
    Compat,
}

impl Provider {
    /// Every provider.
    pub const ALL: [Provider; 6] = [
        Provider::OpenAi,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Ollama,
        Provider::Compat,
    ];

    /// The name in options and routes: `openai`, `openai-responses`, ….
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

    /// The provider with this name.
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
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Turn {
    /// What the user wrote.
    User {
        /// The text.
        content: String,
    },
    /// What the model answered.
    Assistant {
        /// Its text.
        content: String,
        /// The tools it called.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The results of the previous assistant turn's tool calls, in the same order.
    Tool {
        /// Each call's result.
        results: Vec<ToolResult>,
    },
}

/// Turns, oldest first.
pub type Conversation = Vec<Turn>;

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// The call's id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its input.
    pub input: Value,
}

/// A tool call's result, for the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResult {
    /// The call's id.
    pub tool_use_id: String,
    /// The tool's name.
    pub name: String,
    /// What it gave.
    pub output: Value,
    /// The output is an error.
    pub is_error: bool,
}

/// The model and its settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Profile {
    /// The model's name.
    pub model: String,
    /// The system prompt.
    pub system: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// The longest answer, in tokens.
    pub max_tokens: Option<u32>,
    /// Thinking on or off; `thinking_budget` tokens when on (default 10,000).
    pub thinking: bool,
    /// Thinking tokens allowed when thinking is on.
    pub thinking_budget: Option<u32>,
    /// The model's context window in tokens, for the context budget (default: [`context::DEFAULT_LIMIT`]).
    pub context_tokens: Option<u32>,
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDef {
    /// The tool's name (letters, digits, `_` and `-`).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// A JSON Schema object for the input.
    pub input_schema: Value,
    /// The user approves each call before it runs (the turn pauses until then).
    #[serde(skip_serializing)]
    pub needs_approval: bool,
}

impl ToolDef {
    /// The schema of a tool that takes no input (an object with no properties): what a tool that
    /// gives none gets.
    pub fn no_input() -> Value {
        let mut schema = Map::new();
        schema.insert("type".to_owned(), Value::String("object".to_owned()));
        schema.insert("properties".to_owned(), Value::Object(Map::new()));
        Value::Object(schema)
    }
}

/// A request that cannot be built: always `VALIDATION_ERROR`, naming the field.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestError {
    /// `VALIDATION_ERROR`.
    pub code: ErrorCode,
    /// The option at fault.
    pub field: &'static str,
    /// What is wrong.
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
    for (i, tool) in tools.iter().enumerate() {
        let valid_name = !tool.name.is_empty()
            && tool.name.len() <= 64
            && tool.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid_name {
            return Err(invalid(
                "tools",
                format!("tool name {} must be 1-64 of a-z, A-Z, 0-9, _ or -", to_json(&tool.name)),
            ));
        }
        // A scan, not a set: a request offers a few tools, and a set's code weighs in the module.
        if tools[..i].iter().any(|earlier| earlier.name == tool.name) {
            return Err(invalid("tools", format!("two tools are named {}", to_json(&tool.name))));
        }
        if !tool.input_schema.is_object() {
            return Err(invalid(
                "tools",
                format!("tool {}: input_schema must be a JSON Schema object", to_json(&tool.name)),
            ));
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
    let mut body = Writer::default();
    match provider {
        Provider::OpenAi | Provider::Compat => {
            chat_completions(&mut body, provider, profile, &conversation, tools, no_more_tools)
        }
        Provider::OpenAiResponses => responses(&mut body, profile, &conversation, tools, no_more_tools),
        Provider::Anthropic => anthropic(&mut body, profile, &conversation, tools, no_more_tools),
        Provider::Gemini => gemini(&mut body, profile, &conversation, tools, no_more_tools),
        Provider::Ollama => ollama(&mut body, profile, &conversation, tools, no_more_tools),
    }
    Ok(body.into_value())
}

/// A tool's output as the text most providers want in a result.
fn output_text(body: &mut Writer, output: &Value) {
    match output {
        Value::String(s) => body.string(s),
        // The crate's JSON writer: Value's Display would link serde_json's pretty printer too.
        other => body.string(&to_json(other)),
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

/// A tool as every format declares it at its core, `{"name", "description", <schema>`, the
/// input schema under the format's key for it; left open for the Responses API's `type`.
fn declaration(body: &mut Writer, tool: &ToolDef, schema: &str) {
    body.open(b'{').field("name", &tool.name);
    body.field("description", &tool.description);
    body.key(schema).value(&tool.input_schema);
}

/// Each tool's [`declaration`], as an array.
fn declarations(body: &mut Writer, tools: &[ToolDef], schema: &str) {
    body.open(b'[');
    for tool in tools {
        declaration(body, tool, schema);
        body.close(b'}');
    }
    body.close(b']');
}

/// An assistant turn's items, as the formats that write its text and its calls side by side have
/// them: the text (when there is any), then each call, into the array being written.
/// (Function pointers, not generics: one copy of this in the wasm module for every format.)
fn text_then_calls(
    body: &mut Writer,
    content: &str,
    tool_calls: &[ToolCall],
    text: fn(&mut Writer, &str),
    call: fn(&mut Writer, &ToolCall),
) {
    if !content.is_empty() {
        text(body, content);
    }
    for tool_call in tool_calls {
        call(body, tool_call);
    }
}

/// A streaming request's body as it begins: `{"model", "stream": true`, then the key of the
/// conversation, which the caller writes next.
fn streaming_body<'b>(body: &'b mut Writer, profile: &Profile, key: &str) -> &'b mut Writer {
    body.open(b'{').field("model", &profile.model);
    body.key("stream").bool(true);
    body.key(key)
}

/// `{"role": role, "content": text}`.
fn message(body: &mut Writer, role: &str, content: &str) {
    body.open(b'{').field("role", role);
    body.field("content", content);
    body.close(b'}');
}
