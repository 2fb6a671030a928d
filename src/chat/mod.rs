//! One chat's turns, without I/O: the state machine ([`StateMachine`]), the stream each response
//! is read through, and the mode: a backend that runs the agent loop itself, or, in provider
//! mode (`provider.rs`), a provider talked to directly with the loop run here. The caller (the JS
//! package) sends the requests [`ChatSession`] gives it, pushes the response bytes, and, in
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
//! let body: serde_json::Value = serde_json::from_str(&request).unwrap();
//! assert_eq!(body["message"], "Hi"); // POST it; then push what comes back
//! chat.push(b"data: {\"type\":\"text_delta\",\"text\":\"Hello\"}\n\n");
//! let (step, after) = chat.finish();
//! assert_eq!(after, After::Done);
//! assert_eq!(chat.state_machine().state().messages[1].content, "Hello");
//! # let _ = step;
//! ```

#[cfg(feature = "provider")]
mod provider;

use serde_json::Value;

use crate::clean::TextLeft;
use crate::error::ErrorCode;
use crate::event::StreamEvent;
pub use crate::state::Step;
use crate::state::{ChatError, ChatMessage, ChatRequest, Patch, StateMachine};
use crate::stream::{ChatStream, StreamOptions};
#[cfg(feature = "provider")]
use {crate::agent::PendingCall, provider::ProviderMode};

/// chatstream-proxy's provider routes: `/api/chat/<name>`.
const PROVIDER_ROUTES: [&str; 6] = ["openai", "openai-responses", "anthropic", "gemini", "ollama", "compat"];

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

/// A chat: its state machine, its mode, and the response being read.
#[derive(Debug)]
pub struct ChatSession {
    machine: StateMachine,
    stream_options: StreamOptions,
    /// The response being read.
    stream: Option<ChatStream>,
    /// Whether the last response read gave its `complete` with the text deltas joined as its text
    /// ([`ChatStream::text_is_deltas_joined`]), kept past the stream.
    text_is_deltas_joined: bool,
    /// In backend mode, what the response's `complete` gives its text of: the state's text deltas
    /// joined, which the stream leaves to it ([`ChatStream::leave_text_to_reader`]), taken from
    /// the stream when it emits that `complete` and used when the state applies it.
    text_left: Option<TextLeft>,
    mode: Mode,
}

/// Who runs the agent loop.
#[derive(Debug)]
enum Mode {
    /// The backend: each response is the whole turn.
    Backend,
    /// The provider, talked to directly: the loop runs here, a response per iteration.
    #[cfg(feature = "provider")]
    Provider(Box<ProviderMode>),
}

impl ChatSession {
    /// A chat with a backend that runs the agent loop itself; each response is read with
    /// `stream_options`.
    pub fn new(machine: StateMachine, stream_options: StreamOptions) -> ChatSession {
        ChatSession {
            machine,
            stream_options,
            stream: None,
            text_is_deltas_joined: false,
            text_left: None,
            mode: Mode::Backend,
        }
    }

    /// Whether the `complete` the last response gave has as its text the text deltas that
    /// response handed out, joined (the cleaner made it of them, not of a backend's own message).
    /// In backend mode only: provider mode's loop hands out `complete`s of its own.
    pub fn text_is_deltas_joined(&self) -> bool {
        matches!(self.mode, Mode::Backend) && self.text_is_deltas_joined
    }

    /// The state machine (its state, its saved messages).
    pub fn state_machine(&self) -> &StateMachine {
        &self.machine
    }

    /// Starts a turn for `message`, to be sent to `endpoint`: the first request's body (JSON
    /// text, as it is sent), or the refusal's step (a VALIDATION_ERROR or CONFLICT error event).
    pub fn send(&mut self, message: &str, context: Value, endpoint: &str) -> Result<(String, Step), Step> {
        self.check_endpoint(endpoint)?;
        self.not_in_flight("A message is already being answered").map_err(|error| self.refused(error))?;
        let begun = self.machine.begin(message, context).map_err(|error| self.refused(error))?;
        self.start(begun)
    }

    /// Asks again for the last user message, in place of its answer (or of the error of a failed
    /// turn).
    pub fn regenerate(&mut self, endpoint: &str) -> Result<(String, Step), Step> {
        self.check_endpoint(endpoint)?;
        self.not_in_flight("A message is being answered").map_err(|error| self.refused(error))?;
        let begun = self.machine.regenerate().map_err(|error| self.refused(error))?;
        match &mut self.mode {
            Mode::Backend => {}
            #[cfg(feature = "provider")]
            Mode::Provider(provider) => provider.rewind(),
        }
        self.start(begun)
    }

    /// The agent protocol's body sent to one of chatstream-proxy's provider routes would get an
    /// empty answer: refused unless in provider mode.
    fn check_endpoint(&mut self, endpoint: &str) -> Result<(), Step> {
        match self.mode {
            Mode::Backend => {}
            #[cfg(feature = "provider")]
            Mode::Provider(_) => return Ok(()),
        }
        let path = endpoint.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
        let is_route = |name: &str| path.strip_suffix(name).is_some_and(|rest| rest.ends_with("/api/chat/"));
        let Some(route) = PROVIDER_ROUTES.iter().find(|name| is_route(name)) else {
            return Ok(());
        };
        let message = format!(
            "{endpoint} is chatstream-proxy's {route} route: set provider: \"{route}\" (and a model) to talk to it"
        );
        Err(self.refused(ChatError { code: ErrorCode::ValidationError, message }))
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
        let mut step = Step::default();
        self.push_into(bytes, &mut step);
        step
    }

    /// [`ChatSession::push`] into `step`, which is empty: a live read pushes once per network
    /// read, and the lists of the step before, cleared, keep their room for this one (two
    /// allocations and two frees fewer a push).
    pub fn push_into(&mut self, bytes: &[u8], step: &mut Step) {
        self.read_stream(|stream| stream.push(bytes, &mut step.events));
        self.step_into(step);
    }

    /// Runs `read` on the response's stream, if there is one, then keeps what the session needs of
    /// the text it read past the stream.
    fn read_stream(&mut self, read: impl FnOnce(&mut ChatStream)) {
        if let Some(stream) = self.stream.as_mut() {
            read(stream);
            self.text_is_deltas_joined = stream.text_is_deltas_joined();
            self.text_left = stream.take_text_left();
        }
    }

    /// The response ended; in provider mode, the tools it called are to run next.
    pub fn finish(&mut self) -> (Step, After) {
        let mut events = Vec::new();
        self.read_stream(|stream| stream.finish(&mut events));
        self.response_ended(events)
    }

    /// The response broke off (the connection failed, or was silent too long): `complete` with
    /// what arrived, then the error.
    pub fn fail(&mut self, code: ErrorCode, message: &str) -> (Step, After) {
        let mut events = Vec::new();
        self.read_stream(|stream| stream.fail(code, message, &mut events));
        self.response_ended(events)
    }

    /// The request got no response to read (an HTTP error status, no connection): the error,
    /// after the answer so far in provider mode. The turn is over.
    pub fn refuse(&mut self, code: ErrorCode, message: &str) -> Step {
        self.stream = None;
        let events = match &mut self.mode {
            Mode::Backend => vec![StreamEvent::error(code, message)],
            #[cfg(feature = "provider")]
            Mode::Provider(provider) => provider.refuse(code, message),
        };
        self.end_turn(events)
    }

    /// Stops the turn in flight: `complete` with the partial answer, then `cancelled`. With
    /// nothing in flight, a CONFLICT error event and no change.
    pub fn cancel(&mut self) -> Step {
        if !self.in_flight() {
            let event = StreamEvent::error(ErrorCode::Conflict, "Nothing to cancel: no message is being answered");
            return Step { events: vec![event], patches: Vec::new() };
        }
        let mut events = Vec::new();
        self.read_stream(|stream| stream.cancel(&mut events));
        self.stream = None;
        match &mut self.mode {
            Mode::Backend => {}
            // When tools were running (no response), or the response had completed already, the
            // turn stops here.
            #[cfg(feature = "provider")]
            Mode::Provider(provider) => events = provider.cancel(events),
        }
        self.end_turn(events)
    }

    /// `messages` as JSON, to save ([`StateMachine::messages_json`]).
    pub fn messages_json(&mut self) -> String {
        self.machine.messages_json()
    }

    /// What [`ChatSession::messages_json`] writes, handed to `write` with about how long their
    /// texts are: the JS bindings hand its long strings over apart.
    #[cfg(all(target_arch = "wasm32", feature = "events"))]
    pub(crate) fn saved_messages<R>(&mut self, write: impl FnOnce(&dyn crate::json::ToJson, usize) -> R) -> R {
        self.machine.saved_messages(write)
    }

    /// Clears the error shown.
    pub fn clear_error(&mut self) -> Vec<Patch> {
        self.machine.clear_error()
    }

    /// Replaces the conversation (not while a turn is in flight).
    pub fn set_messages(&mut self, messages: Vec<ChatMessage>) -> Result<Vec<Patch>, ChatError> {
        self.not_in_flight("Cannot replace the messages while answering")?;
        let patches = self.machine.set_messages(messages);
        self.messages_replaced();
        Ok(patches)
    }

    /// Replaces the whole state with saved messages (JSON; not while a turn is in flight).
    pub fn load_messages(&mut self, json: &str) -> Result<Vec<Patch>, ChatError> {
        self.not_in_flight("Cannot load messages while answering")?;
        let patches = self.machine.load_messages(json)?;
        self.messages_replaced();
        Ok(patches)
    }

    /// A turn is in flight from its first request until its last response ends: a response is
    /// being read, or (provider mode) the tools it called are running. The state's `isLoading`
    /// ends earlier, with the answer's `complete`, while the response may still be open.
    fn in_flight(&self) -> bool {
        self.stream.is_some()
            || match &self.mode {
                Mode::Backend => false,
                #[cfg(feature = "provider")]
                Mode::Provider(provider) => provider.in_turn(),
            }
    }

    fn not_in_flight(&self, message: &str) -> Result<(), ChatError> {
        if self.in_flight() {
            return Err(ChatError { code: ErrorCode::Conflict, message: message.into() });
        }
        Ok(())
    }

    /// The first request of a turn the state machine began, as JSON text: the caller sends it as
    /// it is (a JSON value made of it would be written out again).
    fn start(&mut self, (request, patches): (ChatRequest, Vec<Patch>)) -> Result<(String, Step), Step> {
        let mut step = Step { events: Vec::new(), patches };
        let body: Result<String, StreamEvent> = match &mut self.mode {
            Mode::Backend => Ok(crate::json::to_json(&request)),
            #[cfg(feature = "provider")]
            Mode::Provider(provider) => {
                provider.start_turn(&request.message).map(|body| crate::json::to_json(&body)).map_err(provider::refusal)
            }
        };
        match body {
            Ok(body) => {
                let mut stream = ChatStream::new(self.stream_options.clone());
                // Provider mode's loop reads each response's `complete` itself.
                if matches!(self.mode, Mode::Backend) {
                    stream.leave_text_to_reader();
                }
                self.stream = Some(stream);
                self.text_is_deltas_joined = false;
                self.text_left = None;
                Ok((body, step))
            }
            Err(error) => {
                step.extend(self.end_turn(vec![error]));
                Err(step)
            }
        }
    }

    /// A refusal before any request: the error event; a VALIDATION_ERROR is shown too.
    fn refused(&mut self, error: ChatError) -> Step {
        let patches = if error.code == ErrorCode::ValidationError {
            self.machine.fail(error.code, &error.message)
        } else {
            Vec::new()
        };
        Step { events: vec![StreamEvent::error(error.code, error.message)], patches }
    }

    /// The response's events, through the agent loop in provider mode, applied to the state.
    fn step(&mut self, events: Vec<StreamEvent>) -> Step {
        let mut step = Step { events, patches: Vec::new() };
        self.step_into(&mut step);
        step
    }

    /// Applies `step`'s events, whose patches are not made yet: in provider mode the provider's
    /// step takes its place.
    fn step_into(&mut self, step: &mut Step) {
        match &mut self.mode {
            Mode::Backend => self.machine.step_into(step, &mut self.text_left),
            #[cfg(feature = "provider")]
            Mode::Provider(provider) => *step = provider.on_events(std::mem::take(&mut step.events), &mut self.machine),
        }
    }

    fn response_ended(&mut self, events: Vec<StreamEvent>) -> (Step, After) {
        self.stream = None;
        let mut step = self.step(events);
        match &mut self.mode {
            Mode::Backend => {}
            #[cfg(feature = "provider")]
            Mode::Provider(provider) => {
                let mut out = Vec::new();
                if let Some(calls) = provider.response_ended(&mut out) {
                    step.extend(self.machine.step(out));
                    return (step, After::RunTools(calls));
                }
                step.extend(self.machine.step(out));
            }
        }
        step.patches.extend(self.close_turn());
        (step, After::Done)
    }

    /// The turn is over with `events` (already through the agent loop, if any).
    fn end_turn(&mut self, events: Vec<StreamEvent>) -> Step {
        let mut step = Step { events, patches: Vec::new() };
        self.machine.step_into(&mut step, &mut self.text_left);
        step.patches.extend(self.close_turn());
        step
    }

    /// Nothing is in flight any more.
    fn close_turn(&mut self) -> Vec<Patch> {
        self.stream = None;
        match &mut self.mode {
            Mode::Backend => {}
            #[cfg(feature = "provider")]
            Mode::Provider(provider) => provider.close_turn(),
        }
        self.machine.stream_closed()
    }

    fn messages_replaced(&mut self) {
        match &mut self.mode {
            Mode::Backend => {}
            #[cfg(feature = "provider")]
            Mode::Provider(provider) => provider.messages_replaced(&self.machine),
        }
    }
}
