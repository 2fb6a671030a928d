//! Provider mode: the page talks to a provider directly and the agent loop ([`AgentTurn`]) runs
//! here. Each turn is a response per iteration; between them the caller runs the tools the model
//! called and sends [`ChatSession::next_request`].

use serde_json::Value;

use super::{ChatSession, Mode};
use crate::agent::{AgentConfig, AgentTurn, PendingCall, ToolFailure};
use crate::error::ErrorCode;
use crate::event::StreamEvent;
use crate::request::{RequestError, Turn};
use crate::state::{Patch, PendingApproval, StateMachine, Step};
use crate::stream::{ChatStream, StreamOptions};

/// The loop's configuration, the model's conversation, and the turn.
#[derive(Debug)]
pub(super) struct ProviderMode {
    config: AgentConfig,
    /// The provider-neutral conversation, tool calls and results included.
    conversation: Vec<Turn>,
    /// The conversation before the last turn, for asking its question again.
    before_turn: Vec<Turn>,
    turn: Option<AgentTurn>,
}

impl ProviderMode {
    /// Whether a turn is running (a response being read, or its tools).
    pub(super) fn in_turn(&self) -> bool {
        self.turn.is_some()
    }

    /// The last question is asked again: the conversation goes back to before its turn.
    pub(super) fn rewind(&mut self) {
        self.conversation = self.before_turn.clone();
    }

    /// The loop's first request for `message`.
    pub(super) fn start_turn(&mut self, message: &str) -> Result<Value, RequestError> {
        self.before_turn = self.conversation.clone();
        let (turn, body) = AgentTurn::start(self.config.clone(), self.conversation.clone(), message)?;
        self.turn = Some(turn);
        Ok(body)
    }

    /// A response's events, through the loop, applied to the state: what the UI sees.
    pub(super) fn on_events(&mut self, events: Vec<StreamEvent>, machine: &mut StateMachine) -> Step {
        let events = self.through_loop(events);
        machine.step(events)
    }

    fn through_loop(&mut self, events: Vec<StreamEvent>) -> Vec<StreamEvent> {
        let Some(turn) = self.turn.as_mut() else { return events };
        let mut out = Vec::with_capacity(events.len());
        for event in events {
            turn.on_event(event, &mut out);
        }
        out
    }

    /// The response ended: the tools to run next, or `None` when the turn is over.
    pub(super) fn response_ended(&mut self, out: &mut Vec<StreamEvent>) -> Option<Vec<PendingCall>> {
        self.turn.as_mut().and_then(|turn| turn.stream_ended(out))
    }

    /// A request got no response: the answer so far, then the error.
    pub(super) fn refuse(&mut self, code: ErrorCode, message: &str) -> Vec<StreamEvent> {
        let Some(turn) = self.turn.as_mut() else { return vec![StreamEvent::error(code, message)] };
        let mut events = Vec::new();
        turn.fail(code, message, &mut events);
        events
    }

    /// Stops the turn: the response's last `events` through the loop (its partial `complete`
    /// joins the turn's), then the answer so far and `cancelled`.
    pub(super) fn cancel(&mut self, events: Vec<StreamEvent>) -> Vec<StreamEvent> {
        let mut events = self.through_loop(events);
        if let Some(turn) = self.turn.as_mut() {
            turn.cancel(&mut events);
        }
        events
    }

    /// The turn is over: its exchanges join the conversation.
    pub(super) fn close_turn(&mut self) {
        if let Some(turn) = self.turn.take() {
            self.conversation = turn.conversation().to_vec();
        }
    }

    /// The messages were replaced: the conversation is theirs (without the tool calls, which
    /// saved messages do not keep), and asking again asks their last question.
    pub(super) fn messages_replaced(&mut self, machine: &StateMachine) {
        self.conversation = machine.conversation();
        let last_question = self.conversation.iter().rposition(|turn| matches!(turn, Turn::User { .. }));
        self.before_turn = self.conversation[..last_question.unwrap_or(0)].to_vec();
    }
}

/// The error event of a request that cannot be written, naming the option at fault.
pub(super) fn refusal(err: RequestError) -> StreamEvent {
    let mut event = StreamEvent::error(err.code, err.message);
    if let StreamEvent::Error { field, .. } = &mut event {
        *field = Some(err.field.to_owned());
    }
    event
}

impl ChatSession {
    /// A chat that talks to a provider directly, with the agent loop run here.
    pub fn with_provider(machine: StateMachine, mut stream_options: StreamOptions, config: AgentConfig) -> ChatSession {
        stream_options.dialect = Some(config.provider.dialect());
        let provider = ProviderMode { config, conversation: Vec::new(), before_turn: Vec::new(), turn: None };
        ChatSession { mode: Mode::Provider(Box::new(provider)), ..ChatSession::new(machine, stream_options) }
    }

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
        self.machine.step(vec![event])
    }

    /// A tool finished: its result for the model and the UI.
    pub fn tool_done(&mut self, call: &PendingCall, output: Value, is_error: bool) -> Step {
        let mut events = Vec::new();
        if let Some(turn) = self.agent_turn_mut() {
            turn.tool_done(call, output, is_error, &mut events);
        }
        self.machine.step(events)
    }

    /// A tool gave no result of its own (it threw, timed out, was cancelled or denied).
    pub fn tool_failed(&mut self, call: &PendingCall, failure: &ToolFailure) -> Step {
        self.tool_done(call, failure.output(&call.name), true)
    }

    /// The request that sends the tool results back (JSON text, as [`ChatSession::send`]'s), or
    /// the step that ends the turn when it cannot be made.
    pub fn next_request(&mut self) -> Result<String, Step> {
        let Some(turn) = self.agent_turn_mut() else {
            return Err(Step::default());
        };
        match turn.next_request() {
            Ok(body) => {
                self.stream = Some(ChatStream::new(self.stream_options.clone()));
                Ok(crate::json::to_json(&body))
            }
            Err(err) => {
                let mut events = Vec::new();
                turn.fail(err.code, &err.message, &mut events);
                Err(self.end_turn(events))
            }
        }
    }

    fn agent_turn(&self) -> Option<&AgentTurn> {
        match &self.mode {
            Mode::Provider(provider) => provider.turn.as_ref(),
            Mode::Backend => None,
        }
    }

    fn agent_turn_mut(&mut self) -> Option<&mut AgentTurn> {
        match &mut self.mode {
            Mode::Provider(provider) => provider.turn.as_mut(),
            Mode::Backend => None,
        }
    }
}
