//! The driver behind JS `ChatSession`, talking to a backend that runs the agent loop itself
//! (`docs/agent-protocol.md`), or, with `provider` set, to a provider through the proxy with the
//! loop run here ([`super::agent`]).
//!
//! The state machine is [`crate::session::Session`]; this binding sends the request, feeds the
//! response through a pump ([`super::events`]) and hands every state change to one listener as
//! an array of patches, and every event to one event listener. The package's JS wrapper turns
//! those into immutable snapshots for `subscribe` / `getSnapshot`, and into the app's callbacks.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Object, Promise};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

use super::agent::{self, AgentSetup, TurnIo};
use super::callbacks::{rejected, resolvable};
use super::events::{self, EventStream, Pump, Source};
use super::request::RequestOptions;
use super::stream::{JsPayloadMarker, JsStreamOptions};
use super::{args, to_js, PoisonGuard};
use crate::agent::{AgentConfig, AgentTurn, PendingCall, DEFAULT_MAX_ITERATIONS};
use crate::error::ErrorCode;
use crate::event::StreamEvent;
use crate::request::{Profile, Provider, ToolDef};
use crate::session::{ChatError, ChatMessage, ChatRequest, Patch, PendingApproval, Session};

/// Default `stepTimeoutMs`: a step silent for longer than 60 seconds is given up.
const DEFAULT_STEP_TIMEOUT_MS: f64 = 60_000.0;

/// The options read through JSON; those of the request (some may be functions) and
/// `generateId` are read apart ([`RequestOptions`], [`message_ids`]).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct JsSessionOptions {
    dialect: Option<String>,
    step_timeout_ms: Option<f64>,
    interaction_type: Option<String>,
    inline_thinking: Option<bool>,
    thinking_tags: Option<Vec<String>>,
    starts_in_thinking: Option<bool>,
    payload_markers: Option<Vec<JsPayloadMarker>>,
    // Provider mode (talking to a provider directly, tools run in the browser):
    provider: Option<String>,
    model: Option<String>,
    system: Option<String>,
    temperature: Option<f64>,
    max_tokens: Option<u32>,
    thinking: Option<bool>,
    thinking_budget: Option<u32>,
    context_tokens: Option<u32>,
    /// `{ name, description, input_schema, needsApproval }` (their `execute` functions are read
    /// separately).
    tools: Option<Vec<ToolDef>>,
    max_iterations: Option<u32>,
    tool_timeout_ms: Option<f64>,
}

/// The options not read through JSON: functions, and what may be a function.
const READ_APART: [&str; 6] = ["endpoint", "headers", "body", "credentials", "fetch", "generateId"];

struct Inner {
    session: Session,
    request: RequestOptions,
    step_timeout_ms: f64,
    stream_options: JsStreamOptions,
    /// Called with each batch of patches.
    listener: Option<Function>,
    /// Called with each event of a turn.
    event_listener: Option<Function>,
    current: Option<(Rc<RefCell<Pump>>, AbortController)>,
    /// The tool call waiting for the user, and the function that resumes the turn.
    approval: Option<(String, Function)>,
    /// Set in provider mode.
    agent: Option<AgentSetup>,
}

/// A chat's turns: sends each request, reads the response into the state machine and reports
/// every change as patches. The package's `ChatSession` wraps it with snapshots.
#[wasm_bindgen]
pub struct SessionDriver {
    inner: Rc<RefCell<Inner>>,
    busy: Cell<bool>,
}

#[wasm_bindgen]
impl SessionDriver {
    /// A session with `options` (`ChatSessionOptions` in the TypeScript declarations).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<SessionDriver, JsValue> {
        let plain = READ_APART.iter().fold(options.clone(), |plain, key| events::without_key(&plain, key));
        let parsed: JsSessionOptions = args::options(&plain, "ChatSession options")?;
        let agent = match &parsed.provider {
            None => None,
            Some(name) => Some(agent_setup(name, &parsed, &options)?),
        };
        let default_endpoint = match &parsed.provider {
            Some(provider) => format!("/api/chat/{provider}"),
            None => "/api/chat/stream".into(),
        };
        let request = RequestOptions::new(&options, default_endpoint)?;
        let dialect = match &agent {
            Some(agent) => Some(agent.config.provider.dialect().name().to_owned()),
            None => parsed.dialect,
        };
        let stream_options = JsStreamOptions {
            dialect,
            inline_thinking: parsed.inline_thinking,
            thinking_tags: parsed.thinking_tags,
            starts_in_thinking: parsed.starts_in_thinking,
            payload_markers: parsed.payload_markers,
            ..JsStreamOptions::default()
        };
        // Check the stream options now, so a bad dialect fails at construction, not at send.
        JsStreamOptions { payload_markers: None, ..stream_options.clone() }.into_core()?;
        let inner = Inner {
            session: Session::with_ids(message_ids(&options)?),
            request,
            step_timeout_ms: parsed.step_timeout_ms.unwrap_or(DEFAULT_STEP_TIMEOUT_MS),
            stream_options,
            listener: None,
            event_listener: None,
            current: None,
            approval: None,
            agent,
        };
        Ok(SessionDriver { inner: Rc::new(RefCell::new(inner)), busy: Cell::new(false) })
    }

    /// The one listener for state changes: called with an array of patches (the JS wrapper).
    #[wasm_bindgen(js_name = setListener)]
    pub fn set_listener(&self, listener: Option<Function>) {
        self.inner.borrow_mut().listener = listener;
    }

    /// The one listener for events: called with each event of every turn (the JS wrapper).
    #[wasm_bindgen(js_name = setEventListener)]
    pub fn set_event_listener(&self, listener: Option<Function>) {
        self.inner.borrow_mut().event_listener = listener;
    }

    /// Changes where and how the next requests go: `endpoint`, `headers`, `body`,
    /// `credentials`, `fetch` (the others stay).
    #[wasm_bindgen(js_name = setRequestOptions)]
    pub fn set_request_options(&self, options: JsValue) -> Result<(), JsValue> {
        self.inner.borrow_mut().request.update(&options)
    }

    /// The whole state, as a plain object.
    pub fn state(&self) -> Result<JsValue, JsError> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatSession")?;
        to_js(self.inner.borrow().session.state())
    }

    /// Sends `message` (with the page's `context`) and returns the turn's events. The state moves
    /// whether or not the events are iterated.
    pub fn send(&self, message: JsValue, context: JsValue) -> Result<EventStream, JsValue> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatSession")?;
        let message = args::text(&message, "ChatSession.send: message")?;
        let context: Value = args::json(&context, "ChatSession.send: context")?;
        let begun = self.inner.borrow_mut().session.begin(&message, context);
        self.turn(begun, false)
    }

    /// Asks again for the last user message, in place of its answer (or of the error of a failed
    /// turn). With a turn in flight, a CONFLICT error event.
    pub fn regenerate(&self) -> Result<EventStream, JsValue> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatSession")?;
        let begun = self.inner.borrow_mut().session.regenerate();
        self.turn(begun, true)
    }

    /// Stops the turn in flight: its events end with `complete` (the partial answer) and
    /// `cancelled`. With nothing in flight, returns a CONFLICT error event and changes nothing.
    pub fn cancel(&self) -> Result<JsValue, JsError> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatSession")?;
        let current = self.inner.borrow_mut().current.take();
        match current {
            Some((pump, controller)) => {
                events::cancel(&pump);
                controller.abort();
                Ok(JsValue::UNDEFINED)
            }
            None => to_js(&StreamEvent::error(ErrorCode::Conflict, "Nothing to cancel: no message is being answered")),
        }
    }

    /// Runs the tool call waiting for approval. `false` when no call with this id waits.
    pub fn approve(&self, tool_use_id: JsValue) -> Result<bool, JsValue> {
        let id = args::text(&tool_use_id, "ChatSession.approve: id")?;
        Ok(self.answer(&id, JsValue::TRUE))
    }

    /// Denies the tool call waiting for approval; the model gets the denial, with `reason`, as
    /// the call's result. `false` when no call with this id waits.
    pub fn deny(&self, tool_use_id: JsValue, reason: JsValue) -> Result<bool, JsValue> {
        let id = args::text(&tool_use_id, "ChatSession.deny: id")?;
        let reason = args::text(&reason, "ChatSession.deny: reason")?;
        Ok(self.answer(&id, reason.into()))
    }

    /// Clears the error shown.
    #[wasm_bindgen(js_name = clearError)]
    pub fn clear_error(&self) {
        let patches = self.inner.borrow_mut().session.clear_error();
        notify(&self.inner, &patches);
    }

    /// Replaces the conversation (an array of messages; not while a message is being answered).
    #[wasm_bindgen(js_name = setMessages)]
    pub fn set_messages(&self, messages: JsValue) -> Result<(), JsValue> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatSession")?;
        let messages: Vec<ChatMessage> = args::list(&messages, "ChatSession.setMessages: messages")?;
        let patches = self.inner.borrow_mut().session.set_messages(messages).map_err(chat_error)?;
        self.conversation_changed();
        notify(&self.inner, &patches);
        Ok(())
    }

    /// `messages` as JSON text, to save.
    #[wasm_bindgen(js_name = saveMessages)]
    pub fn save_messages(&self) -> String {
        self.inner.borrow().session.messages_json()
    }

    /// Replaces the whole state with saved messages (JSON text from `saveMessages`).
    #[wasm_bindgen(js_name = loadMessages)]
    pub fn load_messages(&self, json: JsValue) -> Result<(), JsValue> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatSession")?;
        let json = args::text(&json, "ChatSession.loadMessages: json")?;
        let patches = self.inner.borrow_mut().session.load_messages(&json).map_err(chat_error)?;
        self.conversation_changed();
        notify(&self.inner, &patches);
        Ok(())
    }
}

impl SessionDriver {
    /// Starts a turn the session has begun (or reports why it could not).
    fn turn(&self, begun: Result<(ChatRequest, Vec<Patch>), ChatError>, again: bool) -> Result<EventStream, JsValue> {
        let (request, patches) = match begun {
            Ok(begun) => begun,
            Err(error) => {
                let event = StreamEvent::error(error.code, error.message.clone());
                if error.code == ErrorCode::ValidationError {
                    let patches = self.inner.borrow_mut().session.fail(error.code, &error.message);
                    notify(&self.inner, &patches);
                }
                return Ok(EventStream::of(&[event]));
            }
        };
        notify(&self.inner, &patches);
        let controller = AbortController::new()?;
        if self.inner.borrow().agent.is_some() {
            return Ok(self.turn_with_provider(&request.message, again, controller)?);
        }
        let endpoint = self.inner.borrow().request.endpoint.clone();
        if let Some(provider) = provider_route(&endpoint) {
            // The agent protocol's body would get an empty answer there.
            let message = format!(
                "{endpoint} is chatstream-proxy's {provider} route: set provider: \"{provider}\" (and a model) to talk to it"
            );
            let patches = self.inner.borrow_mut().session.fail(ErrorCode::ValidationError, &message);
            notify(&self.inner, &patches);
            return Ok(EventStream::of(&[StreamEvent::error(ErrorCode::ValidationError, message)]));
        }
        let body = serde_json::to_value(&request).expect("request serializes");
        let (response, options, timeout) = {
            let inner = self.inner.borrow();
            let response = inner.request.post(body, &controller.signal());
            (response, inner.stream_options.clone().into_core()?, inner.step_timeout_ms)
        };
        let source = Source { input: response, options, idle_timeout_ms: Some(timeout), signal: None };
        let stream = events::start(source, Some(session_hook(&self.inner)));
        self.follow(stream.pump(), controller);
        Ok(stream)
    }

    /// The turn in flight is `pump`'s: cancel stops it, and its events reach the event listener.
    fn follow(&self, pump: &Rc<RefCell<Pump>>, controller: AbortController) {
        let listener = self.inner.borrow().event_listener.clone();
        pump.borrow_mut().set_event_listener(listener);
        if !pump.borrow().is_closed() {
            self.inner.borrow_mut().current = Some((pump.clone(), controller));
        }
    }

    /// Provider mode: the loop runs here, over as many requests as the tools need. `again`
    /// asks the last turn's question again, from the conversation as it was before it.
    fn turn_with_provider(
        &self,
        message: &str,
        again: bool,
        controller: AbortController,
    ) -> Result<EventStream, JsError> {
        let started = {
            let mut inner = self.inner.borrow_mut();
            let before = match (again, inner.agent.as_ref().and_then(|a| a.before_turn.clone())) {
                (true, Some(before)) => before,
                // Messages set since: the conversation is theirs, up to the message asked again.
                (true, None) => {
                    let mut turns = inner.session.conversation();
                    turns.pop();
                    turns
                }
                (false, _) => inner.agent.as_ref().expect("provider mode").conversation.clone(),
            };
            let agent = inner.agent.as_mut().expect("provider mode");
            agent.before_turn = Some(before.clone());
            AgentTurn::start(agent.config.clone(), before, message)
        };
        let (turn, first) = match started {
            Ok(started) => started,
            Err(err) => {
                let patches = self.inner.borrow_mut().session.fail(err.code, &err.message);
                notify(&self.inner, &patches);
                let mut event = StreamEvent::error(err.code, err.message);
                if let StreamEvent::Error { field, .. } = &mut event {
                    *field = Some(err.field.to_owned());
                }
                return Ok(EventStream::of(&[event]));
            }
        };
        let (pump, stream) = events::pump(Some(session_hook(&self.inner)));
        let io = {
            let inner = self.inner.borrow();
            let agent = inner.agent.as_ref().expect("provider mode");
            let (poster, asker, keeper) =
                (Rc::downgrade(&self.inner), Rc::downgrade(&self.inner), Rc::downgrade(&self.inner));
            let signal = controller.signal();
            TurnIo {
                post: Box::new(move |body| match poster.upgrade() {
                    Some(inner) => inner.borrow().request.post(body, &signal),
                    None => rejected(&js_sys::Error::new("the session is gone").into()),
                }),
                ask_approval: Box::new(move |call| match asker.upgrade() {
                    Some(inner) => ask_approval(&inner, call),
                    None => Promise::resolve(&JsValue::FALSE),
                }),
                stream_options: inner.stream_options.clone().into_core()?,
                step_timeout_ms: inner.step_timeout_ms,
                executes: agent.executes.clone(),
                tool_timeout_ms: agent.tool_timeout_ms,
                signal: controller.signal(),
                done: Box::new(move |conversation| {
                    if let Some(inner) = keeper.upgrade() {
                        if let Some(agent) = inner.borrow_mut().agent.as_mut() {
                            agent.conversation = conversation;
                        }
                    }
                }),
            }
        };
        self.follow(&pump, controller);
        wasm_bindgen_futures::spawn_local(agent::drive(pump, turn, first, io));
        Ok(stream)
    }

    /// Answers the pending approval of call `id` with `answer`.
    fn answer(&self, id: &str, answer: JsValue) -> bool {
        let waiting = {
            let mut inner = self.inner.borrow_mut();
            match inner.approval.take() {
                Some((waiting, resume)) if waiting == id => Some(resume),
                other => {
                    inner.approval = other;
                    None
                }
            }
        };
        let Some(resume) = waiting else { return false };
        let patches = self.inner.borrow_mut().session.approval_answered(id, answer == JsValue::TRUE);
        notify(&self.inner, &patches);
        let _ = resume.call1(&JsValue::UNDEFINED, &answer);
        true
    }

    /// The messages were replaced: in provider mode, the model's conversation is their text.
    fn conversation_changed(&self) {
        let mut inner = self.inner.borrow_mut();
        let turns = inner.session.conversation();
        if let Some(agent) = inner.agent.as_mut() {
            agent.conversation = turns;
            agent.before_turn = None;
        }
    }
}

/// Pauses the turn on `call` until the user answers: a promise of `true` (approved) or the
/// reason of a denial.
fn ask_approval(inner: &Rc<RefCell<Inner>>, call: &PendingCall) -> Promise {
    let (promise, resume) = resolvable();
    let pending = PendingApproval {
        tool_use_id: call.id.clone(),
        tool: call.name.clone(),
        index: call.index,
        input: call.input.clone(),
    };
    let patches = {
        let mut inner = inner.borrow_mut();
        inner.approval = Some((call.id.clone(), resume));
        inner.session.request_approval(pending)
    };
    notify(inner, &patches);
    promise
}

/// `/api/chat/<provider>` (chatstream-proxy's provider routes), for an endpoint that ends so.
fn provider_route(endpoint: &str) -> Option<&'static str> {
    let path = endpoint.split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
    Provider::ALL.iter().map(|p| p.name()).find(|name| path.ends_with(&format!("/api/chat/{name}")))
}

fn chat_error(error: ChatError) -> JsValue {
    JsError::new(&format!("{}: {}", error.code, error.message)).into()
}

/// Message ids: the app's `generateId`, or a random prefix (so that ids stay unique across the
/// sessions of a page and their saved conversations) and a count.
fn message_ids(options: &JsValue) -> Result<Box<dyn FnMut() -> String>, JsValue> {
    let generate =
        if options.is_object() { js_sys::Reflect::get(options, &"generateId".into())? } else { JsValue::UNDEFINED };
    if generate.is_undefined() {
        let prefix = format!("{:x}", (js_sys::Math::random() * 4_294_967_296.0) as u64);
        return Ok(Box::new(crate::session::counting_ids(&format!("{prefix}-"))));
    }
    let generate: Function =
        generate.dyn_into().map_err(|_| args::type_error("ChatSession options: generateId must be a function"))?;
    let mut fallback = crate::session::counting_ids("m");
    Ok(Box::new(move || {
        generate.call0(&JsValue::UNDEFINED).ok().and_then(|id| id.as_string()).unwrap_or_else(&mut fallback)
    }))
}

/// The provider-mode settings from the options (the tools' `execute` functions from the
/// original object: JSON cannot carry functions).
fn agent_setup(provider: &str, parsed: &JsSessionOptions, options: &JsValue) -> Result<AgentSetup, JsValue> {
    let provider = Provider::from_name(provider).ok_or_else(|| {
        let known: Vec<&str> = Provider::ALL.iter().map(|p| p.name()).collect();
        JsError::new(&format!("unknown provider {provider:?}: use one of {}", known.join(", ")))
    })?;
    let tools = parsed.tools.clone().unwrap_or_default();
    let executes = agent::tool_functions(options)?;
    let config = AgentConfig {
        provider,
        profile: Profile {
            model: parsed.model.clone().unwrap_or_default(),
            system: parsed.system.clone(),
            temperature: parsed.temperature,
            max_tokens: parsed.max_tokens,
            thinking: parsed.thinking.unwrap_or(false),
            thinking_budget: parsed.thinking_budget,
            context_tokens: parsed.context_tokens,
        },
        tools,
        max_iterations: parsed.max_iterations.unwrap_or(DEFAULT_MAX_ITERATIONS).max(1),
    };
    Ok(AgentSetup {
        config,
        executes,
        tool_timeout_ms: parsed.tool_timeout_ms.unwrap_or(agent::DEFAULT_TOOL_TIMEOUT_MS),
        conversation: Vec::new(),
        before_turn: None,
    })
}

/// Applies each event to the session's state and reports the change; `None` is the end.
fn session_hook(inner: &Rc<RefCell<Inner>>) -> events::EventHook {
    let target = Rc::downgrade(inner);
    Box::new(move |event: Option<&StreamEvent>| {
        let Some(inner) = target.upgrade() else { return };
        let patches = {
            let mut inner = inner.borrow_mut();
            match event {
                Some(event) => inner.session.apply(event),
                None => {
                    inner.current = None;
                    inner.approval = None;
                    inner.session.stream_closed()
                }
            }
        };
        notify(&inner, &patches);
    })
}

/// Hands patches to the listener. A listener that throws is reported to the host as an uncaught
/// error (it must not break the stream); the JS wrapper catches its subscribers' errors itself.
fn notify(inner: &Rc<RefCell<Inner>>, patches: &[Patch]) {
    if patches.is_empty() {
        return;
    }
    let listener = inner.borrow().listener.clone();
    if let Some(listener) = listener {
        if let Some(value) = patches_to_js(patches) {
            let _ = listener.call1(&JsValue::UNDEFINED, &value);
        }
    }
}

/// The patches as JS objects. `appendText`, the one patch of nearly every push, is built
/// directly: as JSON text to parse it cost a session about a quarter of its time per delta.
fn patches_to_js(patches: &[Patch]) -> Option<JsValue> {
    let array = js_sys::Array::new();
    for patch in patches {
        let value = match patch {
            Patch::AppendText { text } => {
                let object: PatchObject = Object::new().unchecked_into();
                APPEND_TEXT.with(|op| object.set_op(op));
                object.set_text(text);
                object.into()
            }
            other => to_js(other).ok()?,
        };
        array.push(&value);
    }
    Some(array.into())
}

thread_local! {
    static APPEND_TEXT: JsValue = JsValue::from_str("appendText");
}

#[wasm_bindgen]
extern "C" {
    /// `{ op, text }`.
    #[wasm_bindgen(extends = Object)]
    type PatchObject;
    #[wasm_bindgen(method, setter)]
    fn set_op(this: &PatchObject, op: &JsValue);
    #[wasm_bindgen(method, setter)]
    fn set_text(this: &PatchObject, text: &str);
}
