//! The agent loop for talking to a provider directly (the loop an agent backend runs, in the
//! browser): stream the response, run the tools it calls, send the results back, until the model
//! answers without calling a tool.
//!
//! [`AgentTurn`] is the loop's state for one user message, with no I/O: the chat's provider mode
//! (`src/chat/provider.rs`) reads each response through [`crate::stream::ChatStream`] and tells
//! the turn what happened, while the package's JS fetches and runs the tools. The turn keeps the UI's view continuous
//! across iterations:
//!
//! - tool indexes (the N of `[[tool:N]]`) count on from one iteration to the next;
//! - each iteration's `complete` is held back and merged, so the UI gets one `complete` for the
//!   whole turn: text with markers where the tools ran, segments, tool history with outputs,
//!   thinking, and usage summed over the iterations;
//! - a stream that fails ends the loop with that merged `complete`, then its error.
//!
//! After `max_iterations` responses that called tools, the next request forbids tool calls, so
//! the model has to answer with what it has.

pub mod schema;

use serde_json::{json, Value};

use crate::error::ErrorCode;
use crate::event::{CompletePayload, FinishReason, Segment, StreamEvent, Usage};
use crate::json::Shared;
use crate::request::{self, Profile, Provider, RequestError, ToolCall, ToolDef, ToolResult, Turn};
use crate::wire::wire;

/// The loop's configuration.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Which API the requests are written for.
    pub provider: Provider,
    /// The model and its settings.
    pub profile: Profile,
    /// The tools the model may call.
    pub tools: Vec<ToolDef>,
    /// Responses that may call tools before the model is asked to answer without them.
    pub max_iterations: u32,
}

/// Default `maxIterations`.
pub const DEFAULT_MAX_ITERATIONS: u32 = 5;

impl AgentConfig {
    /// `maxIterations`: the number given, at least one; [`DEFAULT_MAX_ITERATIONS`] when none is.
    pub fn max_iterations(given: Option<u32>) -> u32 {
        given.unwrap_or(DEFAULT_MAX_ITERATIONS).max(1)
    }
}

/// The output of a call that was not run because the answer was cut by the token limit.
pub const CUT_BY_LENGTH: &str = "Not run: the answer was cut by the token limit";

/// The result a tool call gives the model when it did not run or failed: `{code, message}`.
pub fn tool_error(code: ErrorCode, message: impl Into<String>) -> Value {
    json!({"code": code.as_str(), "message": message.into()})
}

/// Why a tool call gave no result of its own.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolFailure {
    /// The tool threw, with this message.
    Threw(String),
    /// The tool took longer than its time limit, in milliseconds.
    TimedOut(u64),
    /// The turn was cancelled while it ran.
    Cancelled,
    /// The user denied the call, for this reason.
    Denied(String),
}

impl ToolFailure {
    /// The error result the model gets for `tool`.
    pub fn output(&self, tool: &str) -> Value {
        match self {
            ToolFailure::Threw(message) => tool_error(ErrorCode::ServiceUnavailable, format!("Error: {message}")),
            ToolFailure::TimedOut(ms) => {
                tool_error(ErrorCode::ServiceUnavailable, format!("Tool {tool} timed out after {ms} ms"))
            }
            ToolFailure::Cancelled => tool_error(ErrorCode::ServiceUnavailable, "Cancelled"),
            ToolFailure::Denied(reason) => denied_output(reason),
        }
    }
}

/// The result a call the user denied gives the model.
fn denied_output(reason: &str) -> Value {
    let message = if reason.trim().is_empty() {
        "The user denied this tool call.".to_owned()
    } else {
        format!("The user denied this tool call: {reason}")
    };
    json!({"denied": true, "message": message})
}

/// A tool's progress report as a `tool_progress` event: a string is its message; an object may
/// carry `stage`, `message`, `progress` (0 to 1) and `data`.
pub fn progress_event(tool_use_id: &str, tool: &str, update: &Value) -> StreamEvent {
    let text = |key: &str| update.get(key).and_then(Value::as_str).map(str::to_owned);
    StreamEvent::ToolProgress {
        tool_use_id: Some(tool_use_id.to_owned()),
        tool: tool.to_owned(),
        stage: text("stage"),
        message: update.as_str().map(str::to_owned).or_else(|| text("message")),
        progress: update.get("progress").and_then(Value::as_f64),
        data: update.get("data").cloned().unwrap_or(Value::Null),
    }
}

wire! {
/// A tool call to run, with its index in the whole turn.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCall reads pub from_value {
    /// The call's index in the whole turn (the N of `[[tool:N]]`).
    pub index: u32,
    /// The call's id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The call's input.
    pub input: Shared,
}
}

/// One user message's loop.
#[derive(Debug)]
pub struct AgentTurn {
    config: AgentConfig,
    conversation: Vec<Turn>,
    /// Responses read so far in this turn.
    iterations: u32,
    /// Tool indexes used by earlier iterations.
    offset: u32,
    /// Tool indexes seen in the current iteration (one past the highest).
    iteration_tools: u32,
    merged: CompletePayload,
    thinking: String,
    usage: Option<Usage>,
    /// The current iteration's clean text and calls, for the conversation.
    iteration_text: String,
    calls: Vec<PendingCall>,
    /// This iteration's calls whose arguments the token limit cut: the turn ends without running
    /// any of its calls.
    cut: bool,
    results: Vec<ToolResult>,
    /// Whether this iteration's `complete` arrived; an error after it means the stream failed.
    iteration_complete: bool,
    failure: Option<StreamEvent>,
    done: bool,
}

impl AgentTurn {
    /// Starts a turn: `history` is the conversation so far; returns the first request's body.
    pub fn start(config: AgentConfig, history: Vec<Turn>, message: &str) -> Result<(AgentTurn, Value), RequestError> {
        let mut conversation = history;
        conversation.push(Turn::User { content: message.to_owned() });
        let body = request::build(config.provider, &config.profile, &conversation, &config.tools, false)?;
        let turn = AgentTurn {
            config,
            conversation,
            iterations: 0,
            offset: 0,
            iteration_tools: 0,
            merged: CompletePayload::default(),
            thinking: String::new(),
            usage: None,
            iteration_text: String::new(),
            calls: Vec::new(),
            cut: false,
            results: Vec::new(),
            iteration_complete: false,
            failure: None,
            done: false,
        };
        Ok((turn, body))
    }

    /// The conversation with this turn's exchanges (for the next turn's history).
    pub fn conversation(&self) -> &[Turn] {
        &self.conversation
    }

    /// Whether `call` waits for the user's approval before it runs.
    pub fn needs_approval(&self, call: &PendingCall) -> bool {
        self.config.tools.iter().any(|t| t.name == call.name && t.needs_approval)
    }

    /// Whether `call` may run: a tool this turn offers, with input its `input_schema` accepts.
    /// `Err` is the result the model gets instead (a VALIDATION_ERROR), so it can correct itself.
    pub fn check_call(&self, call: &PendingCall) -> Result<(), Value> {
        let Some(tool) = self.config.tools.iter().find(|t| t.name == call.name) else {
            let known: Vec<&str> = self.config.tools.iter().map(|t| t.name.as_str()).collect();
            let message =
                format!("Unknown tool {}; the tools are: {}", crate::json::to_json(&call.name), known.join(", "));
            return Err(tool_error(ErrorCode::ValidationError, message));
        };
        schema::check(&tool.input_schema, &call.input).map_err(|problem| {
            tool_error(ErrorCode::ValidationError, format!("Invalid input for {}: {problem}", call.name))
        })
    }

    /// Whether the turn is over (its `complete` was emitted).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// One event of the current response; what the UI should see goes to `out`.
    pub fn on_event(&mut self, event: StreamEvent, out: &mut Vec<StreamEvent>) {
        if self.done {
            return;
        }
        match event {
            StreamEvent::TextDelta { text } => {
                // A new iteration's text starts a new paragraph after the earlier ones.
                if self.iteration_text.is_empty() && !self.merged.text.is_empty() {
                    out.push(StreamEvent::TextDelta { text: "\n\n".into() });
                }
                self.iteration_text.push_str(&text);
                out.push(StreamEvent::TextDelta { text });
            }
            StreamEvent::ToolStart { tool_use_id, tool, index, input } => {
                let index = self.global(index);
                out.push(StreamEvent::ToolStart { tool_use_id, tool, index, input });
            }
            StreamEvent::ToolCall { tool_use_id, tool, index, input, incomplete, arguments } => {
                let index = self.global(index);
                self.cut |= incomplete;
                self.calls.push(PendingCall {
                    index,
                    id: tool_use_id.clone(),
                    name: tool.clone(),
                    input: input.clone(),
                });
                out.push(StreamEvent::ToolCall { tool_use_id, tool, index, input, incomplete, arguments });
            }
            StreamEvent::ToolComplete { tool_use_id, tool, index, input, output, is_error } => {
                let index = self.global(index);
                out.push(StreamEvent::ToolComplete { tool_use_id, tool, index, input, output, is_error });
            }
            StreamEvent::Complete { payload } => {
                self.iteration_complete = true;
                self.absorb(payload);
            }
            StreamEvent::Error { .. } if self.iteration_complete => self.failure = Some(event),
            StreamEvent::Cancelled => self.cancel(out),
            other => out.push(other),
        }
    }

    /// The current response ended (after its `complete`): the tools to run (report each with
    /// [`AgentTurn::tool_done`], then send [`AgentTurn::next_request`]), or `None` when the turn
    /// is over (its `complete`, and an error if it failed, were emitted).
    pub fn stream_ended(&mut self, out: &mut Vec<StreamEvent>) -> Option<Vec<PendingCall>> {
        if self.done {
            return None;
        }
        self.iterations += 1;
        if self.cut {
            // An answer cut in the middle of a call cannot go on: none of its calls run.
            for call in std::mem::take(&mut self.calls) {
                if let Some(record) = self.merged.tool_history.get_mut(call.index as usize) {
                    record.output = Shared::new(tool_error(ErrorCode::ValidationError, CUT_BY_LENGTH));
                    record.is_error = true;
                }
            }
        }
        if self.failure.is_some() || self.calls.is_empty() {
            self.finish(out);
            return None;
        }
        Some(self.calls.clone())
    }

    /// A tool finished: emits `tool_complete` and records the result for the model.
    pub fn tool_done(&mut self, call: &PendingCall, output: Value, is_error: bool, out: &mut Vec<StreamEvent>) {
        let output = Shared::new(output);
        if let Some(record) = self.merged.tool_history.get_mut(call.index as usize) {
            record.output = output.clone();
            record.is_error = is_error;
        }
        self.results.push(ToolResult {
            tool_use_id: call.id.clone(),
            name: call.name.clone(),
            output: Value::clone(&output),
            is_error,
        });
        out.push(StreamEvent::ToolComplete {
            tool_use_id: call.id.clone(),
            tool: call.name.clone(),
            index: call.index,
            input: call.input.clone(),
            output,
            is_error,
        });
    }

    /// The request that sends this iteration's tool results back; the last allowed iteration's
    /// forbids further calls.
    pub fn next_request(&mut self) -> Result<Value, RequestError> {
        let tool_calls: Vec<ToolCall> = self
            .calls
            .drain(..)
            .map(|c| ToolCall { id: c.id, name: c.name, input: Shared::unwrap_or_clone(c.input) })
            .collect();
        self.conversation.push(Turn::Assistant { content: std::mem::take(&mut self.iteration_text), tool_calls });
        self.conversation.push(Turn::Tool { results: std::mem::take(&mut self.results) });
        self.offset += self.iteration_tools;
        self.iteration_tools = 0;
        self.iteration_complete = false;
        let no_more_tools = self.iterations >= self.config.max_iterations;
        request::build(
            self.config.provider,
            &self.config.profile,
            &self.conversation,
            &self.config.tools,
            no_more_tools,
        )
    }

    /// Stops the turn: the merged `complete` with what arrived, then `cancelled`.
    pub fn cancel(&mut self, out: &mut Vec<StreamEvent>) {
        if self.done {
            return;
        }
        self.failure = None;
        self.finish(out);
        out.push(StreamEvent::Cancelled);
    }

    /// A request failed before any response (HTTP status, network): the merged `complete`
    /// (when earlier iterations produced something), then the error.
    pub fn fail(&mut self, code: ErrorCode, message: &str, out: &mut Vec<StreamEvent>) {
        if self.done {
            return;
        }
        self.failure = Some(StreamEvent::error(code, message));
        if self.iterations == 0 {
            // Nothing was said yet: only the error, as for a backend's HTTP error.
            self.done = true;
            out.extend(self.failure.take());
            return;
        }
        self.finish(out);
    }

    fn global(&mut self, index: u32) -> u32 {
        self.iteration_tools = self.iteration_tools.max(index + 1);
        index + self.offset
    }

    /// Merges one iteration's `complete` into the turn's.
    fn absorb(&mut self, payload: CompletePayload) {
        let offset = self.offset;
        let separate = |merged: &mut String, next: &str| {
            if !merged.is_empty() && !next.is_empty() {
                merged.push_str("\n\n");
            }
            merged.push_str(next);
        };
        separate(self.merged.message.make_mut(), &renumber_markers(&payload.message, offset));
        separate(self.merged.text.make_mut(), &payload.text);
        if let Some(thinking) = payload.thinking.filter(|t| !t.is_empty()) {
            separate(&mut self.thinking, &thinking);
        }
        for segment in payload.segments {
            match segment {
                Segment::Text { text } => match self.merged.segments.last_mut() {
                    Some(Segment::Text { text: last }) => separate(last.make_mut(), &text),
                    _ => self.merged.segments.push(Segment::Text { text }),
                },
                Segment::Tool { index, tool_use_id, tool, input, output, is_error } => {
                    self.merged.segments.push(Segment::Tool {
                        index: index + offset,
                        tool_use_id,
                        tool,
                        input,
                        output,
                        is_error,
                    });
                }
            }
        }
        self.merged.tool_history.extend(payload.tool_history);
        if let Some(usage) = payload.usage {
            self.usage.get_or_insert_with(Usage::default).add(&usage);
        }
        self.merged.finish_reason = payload.finish_reason;
        self.merged.invalid_utf8 += payload.invalid_utf8;
        // A later payload of a kind replaces an earlier one.
        if payload.suggested_values.is_some() {
            self.merged.suggested_values = payload.suggested_values;
        }
        if payload.suggested_actions.is_some() {
            self.merged.suggested_actions = payload.suggested_actions;
        }
        if payload.custom_payload.is_some() {
            self.merged.custom_payload = payload.custom_payload;
        }
        self.merged.extra.extend(payload.extra);
    }

    /// Emits the merged `complete` (tool segments filled from the results), then any failure.
    fn finish(&mut self, out: &mut Vec<StreamEvent>) {
        self.done = true;
        // The last response's text (an answer, or a partial one) joins the conversation.
        if !self.iteration_text.is_empty() {
            let content = std::mem::take(&mut self.iteration_text);
            self.conversation.push(Turn::Assistant { content, tool_calls: Vec::new() });
        }
        let mut payload = std::mem::take(&mut self.merged);
        for segment in &mut payload.segments {
            if let Segment::Tool { index, output, is_error, tool, tool_use_id, input } = segment {
                if let Some(record) = payload.tool_history.get(*index as usize) {
                    *output = record.output.clone();
                    *is_error = record.is_error;
                    tool.get_or_insert_with(|| record.tool_name.clone());
                    tool_use_id.get_or_insert_with(|| record.tool_use_id.clone());
                    if input.is_null() {
                        *input = record.input.clone();
                    }
                }
            }
        }
        payload.thinking = (!self.thinking.is_empty()).then(|| std::mem::take(&mut self.thinking));
        payload.usage = self.usage.take();
        if payload.finish_reason.is_none() && self.iterations > 1 {
            payload.finish_reason = Some(FinishReason::Stop);
        }
        payload.extra.insert("iterations".into(), json!(self.iterations));
        out.push(StreamEvent::Complete { payload });
        out.extend(self.failure.take());
    }
}

/// `[[tool:N]]` markers in clean text, each N moved up by `offset`.
fn renumber_markers(message: &str, offset: u32) -> String {
    if offset == 0 {
        return message.to_owned();
    }
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = crate::clean::matching::find(rest, "[[tool:") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 7..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match (after[..digits].parse::<u32>(), after[digits..].starts_with("]]")) {
            (Ok(n), true) => {
                out.push_str(&format!("[[tool:{}]]", n.saturating_add(offset)));
                rest = &after[digits + 2..];
            }
            _ => {
                out.push_str("[[tool:");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_renumbered_and_other_text_kept() {
        assert_eq!(renumber_markers("a[[tool:0]]b[[tool:12]]", 3), "a[[tool:3]]b[[tool:15]]");
        assert_eq!(renumber_markers("[[tool:x]] [[tool:1", 2), "[[tool:x]] [[tool:1");
    }
}
