//! One chat's turns, without I/O: the session's state machine ([`StateMachine`]), the stream each
//! response is read through, and, in provider mode, the agent loop ([`AgentTurn`]). The caller
//! (the JS package) sends the requests [`ChatSession`] gives it, pushes the response bytes, and, in
//! provider mode, runs the tools it asks for; every step returns the events to hand out and the
//! state's patches.
//!
//! ```
//! use chatstream::chat::{After, ChatSession};
//! use chatstream::state::StateMachine;
//! use chatstream::stream::StreamOptions;
//!
//! let mut chat = ChatSession::new(StateMachine::default(), StreamOptions::default());
//! let (request, _) = chat.send("Hi", serde_json::Value::Null, "/api/chat/stream").unwrap();
//! assert_eq!(request["message"], "Hi"); // POST it; then push what comes back
//! chat.push(b"data: {\"type\":\"text_delta\",\"text\":\"Hello\"}\n\n");
//! let (step, after) = chat.finish();
//! assert_eq!(after, After::Done);
//! assert_eq!(chat.state_machine().state().messages[1].content, "Hello");
//! # let _ = step;
//! ```

use serde_json::Value;

use crate::error::ErrorCode;
use crate::event::StreamEvent;
use crate::state::{ChatError, ChatRequest, Patch, StateMachine};
use crate::stream::{ChatStream, StreamOptions};
#[cfg(feature = "provider")]
use crate::{
    agent::{AfterStream, AgentConfig, AgentTurn, PendingCall, ToolFailure},
    request::Turn,
    state::PendingApproval,
};

/// chatstream-proxy's provider routes: `/api/chat/<name>`.
const PROVIDER_ROUTES: [&str; 6] = ["openai", "openai-responses", "anthropic", "gemini", "ollama", "compat"];

/// What one step of a turn gives: the events to hand out, in order, and the state's changes.
#[derive(Debug, Default, PartialEq)]
pub struct Step {
    /// The events, as the turn's event stream hands them out.
    pub events: Vec<StreamEvent>,
    /// The session state's changes.
    pub patches: Vec<Patch>,
}

/// What the caller does once a response has ended.
#[derive(Debug, PartialEq)]
pub enum After {
    /// The turn is over.
    Done,
    /// Provider mode: run these tools (reporting each with [`ChatSession::tool_done`]), then send
    /// [`ChatSession::next_request`].
    #[cfg(feature = "provider")]
    RunTools(Vec<PendingCall>),
}

/// A chat: the session, its options, and the turn in flight.
#[derive(Debug)]
pub struct ChatSession {
    machine: StateMachine,
    stream_options: StreamOptions,
    /// The response being read.
    stream: Option<ChatStream>,
    /// A turn is in flight (a request out, a response being read, or tools running).
    in_flight: bool,
    #[cfg(feature = "provider")]
    provider: Option<ProviderMode>,
}

/// Provider mode: the loop's configuration, the model's conversation, and the turn.
#[cfg(feature = "provider")]
#[derive(Debug)]
struct ProviderMode {
    config: AgentConfig,
    /// The provider-neutral conversation, tool calls and results included.
    conversation: Vec<Turn>,
    /// The conversation before the last turn, for asking its question again (`None` after the
    /// messages were replaced: then it is the messages' text).
    before_turn: Option<Vec<Turn>>,
    turn: Option<AgentTurn>,
}

impl ChatSession {
    /// A chat with a backend that runs the agent loop itself; each response is read with
    /// `stream_options`.
    pub fn new(machine: StateMachine, stream_options: StreamOptions) -> ChatSession {
        ChatSession {
            machine,
            stream_options,
            stream: None,
            in_flight: false,
            #[cfg(feature = "provider")]
            provider: None,
        }
    }

    /// A chat that talks to a provider directly, with the agent loop run here.
    #[cfg(feature = "provider")]
    pub fn with_provider(machine: StateMachine, mut stream_options: StreamOptions, config: AgentConfig) -> ChatSession {
        stream_options.dialect = Some(config.provider.dialect());
        let mut chat = ChatSession::new(machine, stream_options);
        chat.provider = Some(ProviderMode { config, conversation: Vec::new(), before_turn: None, turn: None });
        chat
    }

    /// The session (its state, its saved messages).
    pub fn state_machine(&self) -> &StateMachine {
        &self.machine
    }

    /// Starts a turn for `message`, to be sent to `endpoint`: the first request's body, or the
    /// refusal's step (a VALIDATION_ERROR or CONFLICT error event).
    pub fn send(&mut self, message: &str, context: Value, endpoint: &str) -> Result<(Value, Step), Step> {
        self.check_endpoint(endpoint)?;
        let begun = self.machine.begin(message, context);
        self.start(begun, false)
    }

    /// Asks again for the last user message, in place of its answer (or of the error of a failed
    /// turn).
    pub fn regenerate(&mut self, endpoint: &str) -> Result<(Value, Step), Step> {
        self.check_endpoint(endpoint)?;
        let begun = self.machine.regenerate();
        self.start(begun, true)
    }

    /// The agent protocol's body sent to one of chatstream-proxy's provider routes would get an
    /// empty answer: refused unless in provider mode.
    fn check_endpoint(&mut self, endpoint: &str) -> Result<(), Step> {
        #[cfg(feature = "provider")]
        if self.provider.is_some() {
            return Ok(());
        }
        let path = endpoint.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
        let Some(route) = PROVIDER_ROUTES.iter().find(|name| path.ends_with(&format!("/api/chat/{name}"))) else {
            return Ok(());
        };
        let message = format!(
            "{endpoint} is chatstream-proxy's {route} route: set provider: \"{route}\" (and a model) to talk to it"
        );
        Err(self.refused(ErrorCode::ValidationError, &message))
    }

    /// A chunk of the response could not be used (neither bytes nor text, or unreadable):
    /// skipped, and said so with `error`.
    pub fn skipped_chunk(&mut self, error: StreamEvent) -> Step {
        self.step(vec![error])
    }

    /// The response's headers arrived (see [`ChatStream::use_response_headers`]).
    pub fn use_response_headers<'a>(
        &mut self,
        content_type: Option<&str>,
        headers: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) {
        if let Some(stream) = self.stream.as_mut() {
            stream.use_response_headers(content_type, headers);
        }
    }

    /// More of the response.
    pub fn push(&mut self, bytes: &[u8]) -> Step {
        let mut events = Vec::new();
        if let Some(stream) = self.stream.as_mut() {
            stream.push(bytes, &mut events);
        }
        self.step(events)
    }

    /// The response ended; in provider mode, the tools it called are to run next.
    pub fn finish(&mut self) -> (Step, After) {
        let mut events = Vec::new();
        if let Some(stream) = self.stream.as_mut() {
            stream.finish(&mut events);
        }
        self.response_ended(events)
    }

    /// The response broke off (the connection failed, or was silent too long): `complete` with
    /// what arrived, then the error.
    pub fn fail(&mut self, code: ErrorCode, message: &str) -> (Step, After) {
        let mut events = Vec::new();
        if let Some(stream) = self.stream.as_mut() {
            stream.fail(code, message, &mut events);
        }
        self.response_ended(events)
    }

    /// The request got no response to read (an HTTP error status, no connection): the error,
    /// after the answer so far in provider mode. The turn is over.
    pub fn refuse(&mut self, code: ErrorCode, message: &str) -> Step {
        self.stream = None;
        #[cfg(feature = "provider")]
        if let Some(turn) = self.provider.as_mut().and_then(|p| p.turn.as_mut()) {
            let mut events = Vec::new();
            turn.fail(code, message, &mut events);
            return self.end_turn(events);
        }
        self.end_turn(vec![StreamEvent::error(code, message)])
    }

    /// Stops the turn in flight: `complete` with the partial answer, then `cancelled`. With
    /// nothing in flight, a CONFLICT error event and no change.
    pub fn cancel(&mut self) -> Step {
        if !self.in_flight {
            let event = StreamEvent::error(ErrorCode::Conflict, "Nothing to cancel: no message is being answered");
            return Step { events: vec![event], patches: Vec::new() };
        }
        let mut events = Vec::new();
        #[cfg(feature = "provider")]
        if let Some(turn) = self.provider.as_mut().and_then(|p| p.turn.as_mut()) {
            turn.cancel(&mut events);
            self.stream = None;
            return self.end_turn(events);
        }
        if let Some(stream) = self.stream.as_mut() {
            stream.cancel(&mut events);
        }
        self.end_turn(events)
    }

    /// Clears the error shown.
    pub fn clear_error(&mut self) -> Vec<Patch> {
        self.machine.clear_error()
    }

    /// Replaces the conversation (not while a turn is in flight).
    pub fn set_messages(&mut self, messages: Vec<crate::state::ChatMessage>) -> Result<Vec<Patch>, ChatError> {
        let patches = self.machine.set_messages(messages)?;
        self.messages_replaced();
        Ok(patches)
    }

    /// Replaces the whole state with saved messages (JSON; not while a turn is in flight).
    pub fn load_messages(&mut self, json: &str) -> Result<Vec<Patch>, ChatError> {
        let patches = self.machine.load_messages(json)?;
        self.messages_replaced();
        Ok(patches)
    }

    fn start(
        &mut self,
        begun: Result<(ChatRequest, Vec<Patch>), ChatError>,
        again: bool,
    ) -> Result<(Value, Step), Step> {
        let (request, patches) = match begun {
            Ok(begun) => begun,
            Err(error) => return Err(self.refused(error.code, &error.message)),
        };
        #[cfg_attr(not(feature = "provider"), allow(unused_mut))]
        let mut step = Step { events: Vec::new(), patches };
        #[cfg(feature = "provider")]
        if self.provider.is_some() {
            return match self.start_provider_turn(&request.message, again) {
                Ok(body) => {
                    self.begin_response();
                    Ok((body, step))
                }
                Err(refusal) => {
                    step.events.extend(refusal.events);
                    step.patches.extend(refusal.patches);
                    Err(step)
                }
            };
        }
        #[cfg(not(feature = "provider"))]
        let _ = again;
        self.begin_response();
        Ok((crate::json::to_value(&request), step))
    }

    /// A refusal before any request: the error event; a VALIDATION_ERROR is shown too.
    fn refused(&mut self, code: ErrorCode, message: &str) -> Step {
        let patches = if code == ErrorCode::ValidationError { self.machine.fail(code, message) } else { Vec::new() };
        Step { events: vec![StreamEvent::error(code, message)], patches }
    }

    /// A response is about to be read.
    fn begin_response(&mut self) {
        self.in_flight = true;
        self.stream = Some(ChatStream::new(self.stream_options.clone()));
    }

    /// The response's events, through the agent loop in provider mode, applied to the session.
    fn step(&mut self, events: Vec<StreamEvent>) -> Step {
        #[cfg(feature = "provider")]
        let events = match self.provider.as_mut().and_then(|p| p.turn.as_mut()) {
            Some(turn) => {
                let mut out = Vec::with_capacity(events.len());
                for event in events {
                    turn.on_event(event, &mut out);
                }
                out
            }
            None => events,
        };
        let patches = events.iter().flat_map(|event| self.machine.apply(event)).collect();
        Step { events, patches }
    }

    fn response_ended(&mut self, events: Vec<StreamEvent>) -> (Step, After) {
        self.stream = None;
        let mut step = self.step(events);
        #[cfg(feature = "provider")]
        if let Some(turn) = self.provider.as_mut().and_then(|p| p.turn.as_mut()) {
            let mut out = Vec::new();
            let after = turn.stream_ended(&mut out);
            let more = match after {
                AfterStream::Done => self.end_turn(out),
                AfterStream::RunTools(calls) => {
                    let more = self.step_without_agent(out);
                    step.events.extend(more.events);
                    step.patches.extend(more.patches);
                    return (step, After::RunTools(calls));
                }
            };
            step.events.extend(more.events);
            step.patches.extend(more.patches);
            return (step, After::Done);
        }
        step.patches.extend(self.close_turn());
        (step, After::Done)
    }

    /// The turn is over with `events` (already through the agent loop, if any).
    fn end_turn(&mut self, events: Vec<StreamEvent>) -> Step {
        let mut step = self.step_without_agent(events);
        step.patches.extend(self.close_turn());
        step
    }

    fn step_without_agent(&mut self, events: Vec<StreamEvent>) -> Step {
        let patches = events.iter().flat_map(|event| self.machine.apply(event)).collect();
        Step { events, patches }
    }

    /// Nothing is in flight any more.
    fn close_turn(&mut self) -> Vec<Patch> {
        self.in_flight = false;
        self.stream = None;
        #[cfg(feature = "provider")]
        if let Some(provider) = self.provider.as_mut() {
            if let Some(turn) = provider.turn.take() {
                provider.conversation = turn.conversation().to_vec();
            }
        }
        self.machine.stream_closed()
    }

    fn messages_replaced(&mut self) {
        #[cfg(feature = "provider")]
        if let Some(provider) = self.provider.as_mut() {
            provider.conversation = self.machine.conversation();
            provider.before_turn = None;
        }
    }
}

#[cfg(feature = "provider")]
impl ChatSession {
    /// Whether this call waits for the user's approval before it runs.
    pub fn needs_approval(&self, call: &PendingCall) -> bool {
        self.agent_turn().is_some_and(|turn| turn.needs_approval(call))
    }

    /// Whether this call may run; `Err` is the result the model gets instead.
    pub fn check_call(&self, call: &PendingCall) -> Result<(), Value> {
        match self.agent_turn() {
            Some(turn) => turn.check_call(call),
            None => Ok(()),
        }
    }

    /// The turn pauses on `call` until the user answers.
    pub fn ask_approval(&mut self, call: &PendingCall) -> Vec<Patch> {
        let pending = PendingApproval {
            tool_use_id: call.id.clone(),
            tool: call.name.clone(),
            index: call.index,
            input: call.input.clone(),
        };
        self.machine.request_approval(pending)
    }

    /// The user answered the approval of call `id`.
    pub fn approval_answered(&mut self, id: &str, approved: bool) -> Vec<Patch> {
        self.machine.approval_answered(id, approved)
    }

    /// A running tool reported progress (a string, or `{stage, message, progress, data}`).
    pub fn tool_progress(&mut self, call: &PendingCall, update: &Value) -> Step {
        let event = crate::agent::progress_event(&call.id, &call.name, update);
        self.step_without_agent(vec![event])
    }

    /// A tool finished: its result for the model and the UI.
    pub fn tool_done(&mut self, call: &PendingCall, output: Value, is_error: bool) -> Step {
        let mut events = Vec::new();
        if let Some(turn) = self.provider.as_mut().and_then(|p| p.turn.as_mut()) {
            turn.tool_done(call, output, is_error, &mut events);
        }
        self.step_without_agent(events)
    }

    /// A tool gave no result of its own (it threw, timed out, was cancelled or denied).
    pub fn tool_failed(&mut self, call: &PendingCall, failure: &ToolFailure) -> Step {
        self.tool_done(call, failure.output(&call.name), true)
    }

    /// The request that sends the tool results back, or the step that ends the turn when it
    /// cannot be made.
    pub fn next_request(&mut self) -> Result<Value, Step> {
        let Some(turn) = self.provider.as_mut().and_then(|p| p.turn.as_mut()) else {
            return Err(Step::default());
        };
        match turn.next_request() {
            Ok(body) => {
                self.stream = Some(ChatStream::new(self.stream_options.clone()));
                Ok(body)
            }
            Err(err) => {
                let mut events = Vec::new();
                turn.fail(err.code, &err.message, &mut events);
                Err(self.end_turn(events))
            }
        }
    }

    fn agent_turn(&self) -> Option<&AgentTurn> {
        self.provider.as_ref().and_then(|p| p.turn.as_ref())
    }

    /// The agent loop's first request for `message`, from the conversation as it was (or, asked
    /// again, as it was before the last turn).
    fn start_provider_turn(&mut self, message: &str, again: bool) -> Result<Value, Step> {
        let provider = self.provider.as_mut().expect("provider mode");
        let before = match (again, provider.before_turn.clone()) {
            (true, Some(before)) => before,
            (true, None) => {
                // Messages set since: the conversation is theirs, up to the message asked again.
                let mut turns = self.machine.conversation();
                turns.pop();
                turns
            }
            (false, _) => provider.conversation.clone(),
        };
        provider.before_turn = Some(before.clone());
        match AgentTurn::start(provider.config.clone(), before, message) {
            Ok((turn, body)) => {
                provider.turn = Some(turn);
                Ok(body)
            }
            Err(err) => {
                let patches = self.machine.fail(err.code, &err.message);
                let mut event = StreamEvent::error(err.code, err.message);
                if let StreamEvent::Error { field, .. } = &mut event {
                    *field = Some(err.field.to_owned());
                }
                Err(Step { events: vec![event], patches })
            }
        }
    }
}
