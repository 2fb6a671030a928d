//! Stage 3: [`ProviderEvent`]s → clean [`StreamEvent`]s.
//!
//! The [`Cleaner`] strips text (markers, thinking tags, payloads: see `markers.rs`), numbers tool
//! calls in the order they start (the N of `[[tool:N]]`), streams their arguments as best-effort
//! JSON, and gathers everything for the one `complete` each message ends with.
//!
//! ```
//! use chatstream::clean::{CleanOptions, Cleaner};
//! use chatstream::dialect::ProviderEvent;
//! use chatstream::event::StreamEvent;
//!
//! let mut cleaner = Cleaner::new(CleanOptions::default());
//! let mut events = Vec::new();
//! // A marker split across two deltas never shows, not even its first bracket.
//! cleaner.push(ProviderEvent::Text("Searching [[to".into()), &mut events);
//! cleaner.push(ProviderEvent::Text("ol:0]] done.".into()), &mut events);
//! cleaner.push(ProviderEvent::End, &mut events);
//! assert_eq!(events[0], StreamEvent::TextDelta { text: "Searching".into() });
//! assert_eq!(events[1], StreamEvent::TextDelta { text: "  done.".into() });
//! let StreamEvent::Complete { payload } = &events[2] else { panic!() };
//! assert_eq!(payload.message, "Searching [[tool:0]] done.");
//! assert_eq!(payload.text, "Searching  done.");
//! ```
//!
//! Decisions made where the contract is silent:
//! - A payload marker whose JSON is missing, malformed or unterminated is released as text and
//!   reported as a non-fatal `error` (SERVICE_UNAVAILABLE, `field` naming the payload field);
//!   the stream goes on. Arguments that never parse are reported the same way.
//! - Edges: whitespace before the first visible character is dropped, and whitespace is held
//!   until something visible follows it (it is invisible, and the final text is trimmed), so the
//!   text deltas joined are exactly `complete.payload.text`. The same holds for thinking.
//! - A later payload of one kind replaces an earlier one; payloads the backend sends
//!   (`ProviderEvent::Payload`, a tool's payload) take precedence over ones parsed
//!   from the model's text.
//! - A tool that ran with no `[[tool:N]]` in the text (a provider talked to directly writes
//!   none) is placed where it started, in `message` and `segments`. A `[[tool:N]]` for a tool
//!   that never ran stays in `message` and is an empty card in `segments`.
//! - A `message` sent by the backend replaces the streamed text for `message`, `text` and
//!   `segments`; it is cleaned the same way ([`parse_llm_response`]).
//! - Each `tool_input_delta` carries a copy of the best value so far: parsing is linear in the
//!   argument length, the copies are proportional to the value's size.

mod markers;
mod partial_json;
mod payload;
mod resolve;
mod thinking;

pub use resolve::{parse_llm_response, resolve_tool_markers, ParsedResponse};

use serde_json::{json, Map, Value};

use crate::dialect::ProviderEvent;
use crate::error::ErrorCode;
use crate::event::{CompletePayload, StreamEvent, ToolRecord, Usage};
use markers::{strip_unwanted_chars, MarkerStripper, Piece};
use partial_json::PartialJson;
use payload::PayloadKind;
use resolve::{message_of, parse_with_parts, segments_of, Part};

/// A registered payload marker: `SCHEMA_PROPOSAL:` followed by JSON becomes
/// `custom_payload: { type: "schema_proposal", data }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadMarker {
    pub marker: String,
    pub type_name: String,
}

/// What the cleaner strips and recognises.
#[derive(Debug, Clone)]
pub struct CleanOptions {
    /// Turn inline `<think>…</think>` text into thinking.
    pub inline_thinking: bool,
    /// Tag names treated as inline thinking.
    pub thinking_tags: Vec<String>,
    /// The text starts inside thinking: everything up to the first closing tag is thinking
    /// (chat templates that open `<think>` in the prompt). Off by default: then a closing tag
    /// with no opening tag is only removed.
    pub starts_in_thinking: bool,
    /// Custom payload markers, besides `SUGGESTED_VALUES:` and `SUGGESTED_ACTIONS:`.
    pub payload_markers: Vec<PayloadMarker>,
    /// Fill each `tool_input_delta`'s `partial_input`. Its value is as large as the arguments so
    /// far, so each one costs more as a long tool input grows. The JS bindings turn this off
    /// (the field is then `null`) and compute the value when a caller first reads it.
    pub partial_input: bool,
}

impl Default for CleanOptions {
    fn default() -> Self {
        CleanOptions {
            inline_thinking: true,
            thinking_tags: vec!["think".into(), "thinking".into()],
            starts_in_thinking: false,
            payload_markers: vec![PayloadMarker {
                marker: "SCHEMA_PROPOSAL:".into(),
                type_name: "schema_proposal".into(),
            }],
            partial_input: true,
        }
    }
}

#[derive(Debug)]
pub struct Cleaner {
    options: CleanOptions,
    stripper: MarkerStripper,
    /// Scratch space for what the stripper decides.
    pieces: Vec<Piece>,
    /// The message in reading order, for `message` and `segments`.
    parts: Vec<Part>,
    text: EdgeTrimmed,
    thinking: EdgeTrimmed,
    /// Tools in the order they started: `tools[i].index == i`.
    tools: Vec<Tool>,
    /// `complete.payload` as it builds; its payload fields hold those parsed from the text.
    payload: CompletePayload,
    backend: BackendFields,
    complete: bool,
    /// Invalid UTF-8 sequences the framing replaced, for `complete`.
    invalid_utf8: u64,
}

#[derive(Debug)]
struct Tool {
    id: String,
    name: String,
    /// The model asked for it (its arguments stream); otherwise a backend ran it.
    requested: bool,
    arguments: String,
    partial: PartialJson,
    input: Value,
    /// `tool_call` was emitted.
    called: bool,
    output: Option<Value>,
    is_error: bool,
}

/// What the backend sent for `complete.payload`; it wins over what the text gave.
#[derive(Debug, Default)]
struct BackendFields {
    message: Option<String>,
    thinking: Option<String>,
    suggested_values: Option<Value>,
    suggested_actions: Option<Value>,
    custom_payload: Option<Value>,
    tool_history: Option<Value>,
}

/// Deltas with the edges trimmed without holding visible text: leading whitespace is dropped,
/// trailing whitespace waits for the next visible character.
#[derive(Debug, Default)]
struct EdgeTrimmed {
    /// Everything emitted, joined.
    emitted: String,
    held: String,
}

impl EdgeTrimmed {
    /// The delta to emit for `s`, if any.
    fn push(&mut self, s: &str) -> Option<String> {
        let s = if self.emitted.is_empty() { s.trim_start() } else { s };
        let visible = s.trim_end();
        if visible.is_empty() {
            if !self.emitted.is_empty() {
                self.held.push_str(s);
            }
            return None;
        }
        let mut delta = std::mem::take(&mut self.held);
        delta.push_str(visible);
        self.held.push_str(&s[visible.len()..]);
        self.emitted.push_str(&delta);
        Some(delta)
    }
}

impl Cleaner {
    pub fn new(options: CleanOptions) -> Cleaner {
        Cleaner {
            stripper: MarkerStripper::new(&options),
            options,
            pieces: Vec::new(),
            parts: Vec::new(),
            text: EdgeTrimmed::default(),
            thinking: EdgeTrimmed::default(),
            tools: Vec::new(),
            payload: CompletePayload::default(),
            backend: BackendFields::default(),
            complete: false,
            invalid_utf8: 0,
        }
    }

    /// How many invalid UTF-8 sequences the input had so far (replaced by U+FFFD before they
    /// got here), reported in `complete`.
    pub fn set_invalid_utf8(&mut self, count: usize) {
        self.invalid_utf8 = count as u64;
    }

    /// Cleans one provider event, appending the clean events it releases to `out`.
    pub fn push(&mut self, event: ProviderEvent, out: &mut Vec<StreamEvent>) {
        if self.complete {
            return;
        }
        match event {
            ProviderEvent::Status(message) => {
                out.push(StreamEvent::Status { message: strip_unwanted_chars(&message).into_owned() })
            }
            ProviderEvent::Text(text) => {
                self.stripper.push(&strip_unwanted_chars(&text), &mut self.pieces);
                self.take_pieces(out);
            }
            ProviderEvent::Thinking(text) => self.push_thinking(&strip_unwanted_chars(&text), out),
            ProviderEvent::ToolCallStart { id, name } => {
                if self.find(&id).is_none() {
                    self.start_tool(id, name, true, json!({}), out);
                }
            }
            ProviderEvent::ToolCallDelta { id, delta } => self.tool_delta(id, &delta, out),
            ProviderEvent::ToolCallEnd { id, name, input } => {
                let at = match self.find(&id) {
                    Some(at) => at,
                    None => self.start_tool(id, name.clone().unwrap_or_default(), true, json!({}), out),
                };
                if let Some(name) = name.filter(|_| self.tools[at].name.is_empty()) {
                    self.tools[at].name = name;
                }
                self.call_tool(at, input, out);
            }
            ProviderEvent::ToolRun { id, name, input } => {
                let input = if input.is_null() { json!({}) } else { input };
                match id.as_deref().and_then(|id| self.find(id)) {
                    Some(at) if self.tools[at].input == json!({}) => self.tools[at].input = input,
                    Some(_) => {}
                    None => {
                        let id = id.unwrap_or_else(|| format!("tool_{}", self.tools.len()));
                        self.start_tool(id, name, false, input, out);
                    }
                }
            }
            ProviderEvent::ToolProgress { id, name, stage, message, progress, data } => {
                out.push(StreamEvent::ToolProgress { tool_use_id: id, tool: name, stage, message, progress, data })
            }
            ProviderEvent::ToolResult { id, name, index, output, is_error } => {
                self.tool_result(id, name, index, output, is_error, out)
            }
            ProviderEvent::Usage(usage) => merge_usage(self.payload.usage.get_or_insert_with(Usage::default), &usage),
            ProviderEvent::Finish { reason } => self.payload.finish_reason = Some(reason),
            ProviderEvent::Payload(fields) => self.merge_backend_fields(fields),
            ProviderEvent::Attach { key, value } => self.attach(key, value),
            ProviderEvent::Error { code, message, fatal: false } => out.push(StreamEvent::error(code, message)),
            ProviderEvent::Error { code, message, fatal: true } => {
                self.payload.finish_reason.get_or_insert_with(|| "error".into());
                self.complete(out);
                out.push(StreamEvent::error(code, message));
            }
            ProviderEvent::End => {
                // The stream finished properly, so arguments still open are complete.
                for at in 0..self.tools.len() {
                    if self.tools[at].requested && !self.tools[at].called {
                        self.call_tool(at, None, out);
                    }
                }
                self.complete(out);
            }
            ProviderEvent::Cancelled => {
                self.complete(out);
                out.push(StreamEvent::Cancelled);
            }
        }
    }

    /// The input ended. Without a terminal event first, this emits `complete` with what arrived
    /// and then an `error` (NETWORK_ERROR, "stream ended before completion").
    pub fn finish(&mut self, out: &mut Vec<StreamEvent>) {
        if !self.complete {
            self.complete(out);
            out.push(StreamEvent::error(ErrorCode::NetworkError, "stream ended before completion"));
        }
    }

    /// The reader cancelled: `complete` with the partial content, then `cancelled`; after a
    /// `complete`, an `error` CONFLICT and nothing else.
    pub fn cancel(&mut self, out: &mut Vec<StreamEvent>) {
        if self.complete {
            out.push(StreamEvent::error(ErrorCode::Conflict, "Nothing to cancel: the stream already completed"));
        } else {
            self.complete(out);
            out.push(StreamEvent::Cancelled);
        }
    }

    /// Whether `complete` has been emitted.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    fn take_pieces(&mut self, out: &mut Vec<StreamEvent>) {
        let mut pieces = std::mem::take(&mut self.pieces);
        for piece in pieces.drain(..) {
            match piece {
                Piece::Text(text) => {
                    Part::push_text(&mut self.parts, &text);
                    if let Some(text) = self.text.push(&text) {
                        out.push(StreamEvent::TextDelta { text });
                    }
                }
                Piece::Thinking(text) => self.push_thinking(&text, out),
                Piece::Tool(n) => self.parts.push(Part::Marker(n)),
                Piece::Payload { kind, value } => *payload_field(&mut self.payload, &kind) = Some(kind.wrap(value)),
                Piece::Malformed { kind, reason } => out.push(StreamEvent::Error {
                    code: ErrorCode::ServiceUnavailable,
                    message: format!("Failed to parse response: {reason}"),
                    field: Some(kind.field().into()),
                }),
            }
        }
        self.pieces = pieces;
    }

    fn push_thinking(&mut self, text: &str, out: &mut Vec<StreamEvent>) {
        if let Some(text) = self.thinking.push(text) {
            out.push(StreamEvent::ThinkingDelta { text });
        }
    }

    fn find(&self, id: &str) -> Option<usize> {
        self.tools.iter().position(|t| t.id == id)
    }

    /// A new tool: the next index, a place in the message, and `tool_start`.
    fn start_tool(
        &mut self,
        id: String,
        name: String,
        requested: bool,
        input: Value,
        out: &mut Vec<StreamEvent>,
    ) -> usize {
        let index = self.tools.len() as u32;
        self.parts.push(Part::Started(index));
        out.push(StreamEvent::ToolStart { tool_use_id: id.clone(), tool: name.clone(), index, input: input.clone() });
        self.tools.push(Tool {
            id,
            name,
            requested,
            arguments: String::new(),
            partial: PartialJson::default(),
            input,
            called: false,
            output: None,
            is_error: false,
        });
        self.tools.len() - 1
    }

    fn tool_delta(&mut self, id: String, delta: &str, out: &mut Vec<StreamEvent>) {
        if delta.is_empty() {
            return;
        }
        let at = match self.find(&id) {
            Some(at) => at,
            None => self.start_tool(id, String::new(), true, json!({}), out),
        };
        let tool = &mut self.tools[at];
        if tool.called {
            return;
        }
        tool.arguments.push_str(delta);
        let partial_input = if self.options.partial_input {
            tool.partial.push(delta);
            tool.partial.value().unwrap_or_else(|| json!({}))
        } else {
            Value::Null
        };
        out.push(StreamEvent::ToolInputDelta { tool_use_id: tool.id.clone(), delta: delta.to_owned(), partial_input });
    }

    /// The arguments are complete: `tool_call` with the given input or the parsed arguments.
    fn call_tool(&mut self, at: usize, input: Option<Value>, out: &mut Vec<StreamEvent>) {
        let tool = &mut self.tools[at];
        if tool.called {
            return;
        }
        tool.called = true;
        tool.input = match input {
            Some(input) => input,
            None if tool.arguments.trim().is_empty() => json!({}),
            None => match serde_json::from_str(&tool.arguments) {
                Ok(input) => input,
                Err(err) => {
                    out.push(StreamEvent::error(
                        ErrorCode::ServiceUnavailable,
                        format!(
                            "Failed to parse response: the arguments of tool call {} ({}) are not valid JSON ({err}); \
                             passing them on as a string",
                            tool.id, tool.name
                        ),
                    ));
                    Value::String(tool.arguments.clone())
                }
            },
        };
        out.push(StreamEvent::ToolCall {
            tool_use_id: tool.id.clone(),
            tool: tool.name.clone(),
            index: at as u32,
            input: tool.input.clone(),
        });
    }

    /// A tool finished: matched by id, else by index, else the oldest unfinished one (of the
    /// same name if there is one). A result that names an id no tool has, and no index, is a tool
    /// of its own (given to no other call), started here.
    fn tool_result(
        &mut self,
        id: Option<String>,
        name: Option<String>,
        index: Option<u32>,
        output: Value,
        is_error: bool,
        out: &mut Vec<StreamEvent>,
    ) {
        let unfinished = |t: &Tool| t.output.is_none();
        let found = match (&id, index) {
            (Some(id), _) if self.find(id).is_some() => self.find(id),
            (_, Some(index)) if (index as usize) < self.tools.len() => Some(index as usize),
            (Some(_), _) => None,
            (None, _) => self
                .tools
                .iter()
                .position(|t| unfinished(t) && Some(&t.name) == name.as_ref())
                .or_else(|| self.tools.iter().position(unfinished)),
        };
        let at = match found {
            Some(at) => at,
            None => {
                let id = id.unwrap_or_else(|| format!("tool_{}", self.tools.len()));
                self.start_tool(id, name.unwrap_or_default(), false, json!({}), out)
            }
        };
        let tool = &mut self.tools[at];
        tool.output = Some(output.clone());
        tool.is_error = is_error;
        out.push(StreamEvent::ToolComplete {
            tool_use_id: tool.id.clone(),
            tool: tool.name.clone(),
            index: at as u32,
            input: tool_input(tool),
            output,
            is_error,
        });
    }

    fn merge_backend_fields(&mut self, fields: Map<String, Value>) {
        for (key, value) in fields {
            let backend = &mut self.backend;
            match key.as_str() {
                "message" => backend.message = value.as_str().map(str::to_owned),
                "thinking" => backend.thinking = value.as_str().map(str::to_owned),
                "suggested_values" => backend.suggested_values = Some(value).filter(|v| !v.is_null()),
                "suggested_actions" => backend.suggested_actions = Some(value).filter(|v| !v.is_null()),
                "custom_payload" => backend.custom_payload = Some(value).filter(|v| !v.is_null()),
                "tool_history" => backend.tool_history = Some(value).filter(|v| !v.is_null()),
                "finish_reason" => {
                    if let Some(reason) = value.as_str() {
                        self.payload.finish_reason = Some(reason.to_owned());
                    }
                }
                "usage" => {
                    if let Ok(usage) = serde_json::from_value::<Usage>(value) {
                        merge_usage(self.payload.usage.get_or_insert_with(Usage::default), &usage);
                    }
                }
                // Derived from `message`.
                "text" | "segments" => {}
                _ => {
                    self.payload.extra.insert(key, value);
                }
            }
        }
    }

    /// Appends `value` to the array `payload[key]`.
    fn attach(&mut self, key: String, value: Value) {
        match self.payload.extra.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
            Value::Array(items) => items.push(value),
            other => *other = Value::Array(vec![other.take(), value]),
        }
    }

    /// Resolves what is held and emits the one `complete`.
    fn complete(&mut self, out: &mut Vec<StreamEvent>) {
        self.stripper.finish(&mut self.pieces);
        self.take_pieces(out);
        self.complete = true;
        self.payload.invalid_utf8 = self.invalid_utf8;

        let ours: Vec<ToolRecord> = self
            .tools
            .iter()
            .map(|t| ToolRecord {
                tool_name: t.name.clone(),
                tool_use_id: t.id.clone(),
                input: tool_input(t),
                output: t.output.clone().unwrap_or(Value::Null),
                is_error: t.is_error,
            })
            .collect();
        let backend = std::mem::take(&mut self.backend);
        let history_value = backend.tool_history.or_else(|| {
            let custom = backend.custom_payload.as_ref()?;
            (custom["type"] == "tool_history").then(|| custom["data"].clone())
        });
        let tool_history = history_value.as_ref().and_then(|v| backend_tool_history(v, &ours)).unwrap_or(ours);

        let mut payload = std::mem::take(&mut self.payload);
        match backend.message {
            Some(message) => {
                let (parsed, parts) = parse_with_parts(&message, &self.options);
                payload.message = parsed.message;
                payload.text = parsed.text;
                payload.segments = segments_of(&parts, &tool_history);
                payload.suggested_values = payload.suggested_values.or(parsed.suggested_values);
                payload.suggested_actions = payload.suggested_actions.or(parsed.suggested_actions);
                payload.custom_payload = payload.custom_payload.or(parsed.custom_payload);
            }
            None => {
                payload.message = message_of(&self.parts);
                payload.text = std::mem::take(&mut self.text.emitted);
                payload.segments = segments_of(&self.parts, &tool_history);
            }
        }
        let thinking = std::mem::take(&mut self.thinking.emitted);
        payload.thinking = if thinking.is_empty() {
            backend.thinking.map(|t| strip_unwanted_chars(&t).trim().to_owned()).filter(|t| !t.is_empty())
        } else {
            Some(thinking)
        };
        payload.tool_history = tool_history;
        payload.suggested_values = backend.suggested_values.or(payload.suggested_values);
        payload.suggested_actions = backend.suggested_actions.or(payload.suggested_actions);
        payload.custom_payload = backend.custom_payload.or(payload.custom_payload);
        out.push(StreamEvent::Complete { payload });
    }
}

/// A tool's input: as called, or the arguments so far for a call that never completed.
fn tool_input(tool: &Tool) -> Value {
    if tool.requested && !tool.called {
        partial_input(&tool.arguments)
    } else {
        tool.input.clone()
    }
}

/// The best JSON value that `arguments`, the start of a tool call's arguments, allow.
pub fn partial_input(arguments: &str) -> Value {
    let mut partial = PartialJson::default();
    partial.push(arguments);
    partial.value().unwrap_or_else(|| json!({}))
}

/// Later usage reports replace earlier ones field by field.
fn merge_usage(into: &mut Usage, later: &Usage) {
    let fields = [
        (&mut into.input_tokens, later.input_tokens),
        (&mut into.output_tokens, later.output_tokens),
        (&mut into.reasoning_tokens, later.reasoning_tokens),
        (&mut into.cached_input_tokens, later.cached_input_tokens),
        (&mut into.total_tokens, later.total_tokens),
    ];
    for (field, value) in fields {
        if value.is_some() {
            *field = value;
        }
    }
}

fn payload_field<'a>(payload: &'a mut CompletePayload, kind: &PayloadKind) -> &'a mut Option<Value> {
    match kind {
        PayloadKind::SuggestedValues => &mut payload.suggested_values,
        PayloadKind::SuggestedActions => &mut payload.suggested_actions,
        PayloadKind::Custom(_) => &mut payload.custom_payload,
    }
}

/// The backend's `tool_history` (`{tool_name, input, output}` entries), with what it
/// leaves out taken from the tools seen in the stream at the same index.
fn backend_tool_history(value: &Value, ours: &[ToolRecord]) -> Option<Vec<ToolRecord>> {
    let entries = value.as_array()?;
    let records = entries.iter().enumerate().map(|(i, entry)| {
        let ours = ours.get(i);
        let text = |keys: &[&str]| keys.iter().find_map(|k| entry[*k].as_str()).map(str::to_owned);
        ToolRecord {
            tool_name: text(&["tool_name", "tool", "name"])
                .or_else(|| ours.map(|r| r.tool_name.clone()))
                .unwrap_or_default(),
            tool_use_id: text(&["tool_use_id", "id"])
                .or_else(|| ours.map(|r| r.tool_use_id.clone()))
                .unwrap_or_default(),
            input: entry.get("input").cloned().or_else(|| ours.map(|r| r.input.clone())).unwrap_or_else(|| json!({})),
            output: entry.get("output").cloned().or_else(|| ours.map(|r| r.output.clone())).unwrap_or(Value::Null),
            is_error: entry["is_error"].as_bool().or(ours.map(|r| r.is_error)).unwrap_or(false),
        }
    });
    Some(records.collect())
}
