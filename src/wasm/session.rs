//! The driver behind JS `ChatSession`, talking to a backend that runs the agent loop itself
//! (`docs/agent-protocol.md`), or,
//! with `provider` set, to a provider through the proxy with the loop run here ([`super::agent`]).
//!
//! The state machine is [`crate::session::Session`]; this binding sends the request, feeds the
//! response through a pump ([`super::events`]) and hands every state change to one listener as
//! an array of patches. The package's JS wrapper turns those into immutable snapshots for
//! `subscribe` / `getSnapshot`.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use js_sys::{Function, Object, Reflect};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

use super::agent::{self, AgentSetup, TurnIo};
use super::callbacks::rejected;
use super::events::{self, EventStream, Pump, Source};
use super::stream::{JsPayloadMarker, JsStreamOptions};
use super::{args, to_js, PoisonGuard};
use crate::agent::{AgentConfig, AgentTurn, DEFAULT_MAX_ITERATIONS};
use crate::error::ErrorCode;
use crate::event::StreamEvent;
use crate::request::{Profile, Provider, ToolDef};
use crate::session::{Patch, Session};

/// Default `stepTimeoutMs`: a step silent for longer than 60 seconds is given up.
const DEFAULT_STEP_TIMEOUT_MS: f64 = 60_000.0;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct JsSessionOptions {
    endpoint: Option<String>,
    dialect: Option<String>,
    /// Request headers (e.g. authorization for the backend).
    headers: Option<BTreeMap<String, String>>,
    credentials: Option<String>,
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
    /// `{ name, description, input_schema }` (their `execute` functions are read separately).
    tools: Option<Vec<ToolDef>>,
    max_iterations: Option<u32>,
    tool_timeout_ms: Option<f64>,
}

struct Inner {
    session: Session,
    endpoint: String,
    headers: BTreeMap<String, String>,
    credentials: Option<String>,
    step_timeout_ms: f64,
    stream_options: JsStreamOptions,
    fetch: Option<Function>,
    listener: Option<Function>,
    current: Option<(Rc<RefCell<Pump>>, AbortController)>,
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
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<SessionDriver, JsValue> {
        let fetch = if options.is_object() {
            Reflect::get(&options, &"fetch".into()).ok().and_then(|f| f.dyn_into::<Function>().ok())
        } else {
            None
        };
        let plain = events::without_key(&options, "fetch");
        let parsed: JsSessionOptions = args::options(&plain, "ChatSession options")?;
        let agent = match &parsed.provider {
            None => None,
            Some(name) => Some(agent_setup(name, &parsed, &options)?),
        };
        let default_endpoint = match &parsed.provider {
            Some(provider) => format!("/api/chat/{provider}"),
            None => "/api/chat/stream".into(),
        };
        let endpoint = parsed.endpoint.clone().unwrap_or(default_endpoint);
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
            session: Session::default(),
            endpoint,
            headers: parsed.headers.unwrap_or_default(),
            credentials: parsed.credentials,
            step_timeout_ms: parsed.step_timeout_ms.unwrap_or(DEFAULT_STEP_TIMEOUT_MS),
            stream_options,
            fetch,
            listener: None,
            current: None,
            agent,
        };
        Ok(SessionDriver { inner: Rc::new(RefCell::new(inner)), busy: Cell::new(false) })
    }

    /// The one listener for state changes: called with an array of patches (the JS wrapper).
    #[wasm_bindgen(js_name = setListener)]
    pub fn set_listener(&self, listener: Option<Function>) {
        self.inner.borrow_mut().listener = listener;
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

        let controller = AbortController::new().map_err(|_| JsError::new("AbortController is not available"))?;
        if self.inner.borrow().agent.is_some() {
            return Ok(self.send_to_provider(&message, controller)?);
        }
        let body = serde_json::to_string(&request).expect("request serializes");
        let response = post(&self.inner.borrow(), &body, &controller.signal());
        let (options, timeout) = {
            let inner = self.inner.borrow();
            (inner.stream_options.clone().into_core()?, inner.step_timeout_ms)
        };
        let source = Source { input: response, options, idle_timeout_ms: Some(timeout), signal: None };
        let stream = events::start(source, Some(session_hook(&self.inner)));
        if !stream.pump().borrow().is_closed() {
            self.inner.borrow_mut().current = Some((stream.pump().clone(), controller));
        }
        Ok(stream)
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

    /// `messages` as JSON text, to save.
    #[wasm_bindgen(js_name = saveMessages)]
    pub fn save_messages(&self) -> String {
        self.inner.borrow().session.messages_json()
    }

    /// Replaces the conversation with saved messages (JSON text from `saveMessages`).
    #[wasm_bindgen(js_name = loadMessages)]
    pub fn load_messages(&self, json: JsValue) -> Result<(), JsValue> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatSession")?;
        let json = args::text(&json, "ChatSession.loadMessages: json")?;
        let patches = self.inner.borrow_mut().session.load_messages(&json).map_err(|e| JsError::new(&e.message))?;
        {
            // Provider mode: the model's conversation is the messages' text.
            let mut inner = self.inner.borrow_mut();
            let turns = inner.session.conversation();
            if let Some(agent) = inner.agent.as_mut() {
                agent.conversation = turns;
            }
        }
        notify(&self.inner, &patches);
        Ok(())
    }
}

impl SessionDriver {
    /// Provider mode: the loop runs here, over as many requests as the tools need.
    fn send_to_provider(&self, message: &str, controller: AbortController) -> Result<EventStream, JsError> {
        let (turn, first) = {
            let inner = self.inner.borrow();
            let agent = inner.agent.as_ref().expect("provider mode");
            AgentTurn::start(agent.config.clone(), agent.conversation.clone(), message)
        }
        .map_or_else(|err| (Err(err), Value::Null), |(turn, first)| (Ok(turn), first));
        let turn = match turn {
            Ok(turn) => turn,
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
            let poster = Rc::downgrade(&self.inner);
            let signal = controller.signal();
            let keeper = Rc::downgrade(&self.inner);
            TurnIo {
                post: Box::new(move |body| match poster.upgrade() {
                    Some(inner) => post(&inner.borrow(), body, &signal),
                    None => rejected(&js_sys::Error::new("the session is gone").into()),
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
        self.inner.borrow_mut().current = Some((pump.clone(), controller));
        wasm_bindgen_futures::spawn_local(agent::drive(pump, turn, first, io));
        Ok(stream)
    }
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
                    inner.session.stream_closed()
                }
            }
        };
        notify(&inner, &patches);
    })
}

/// Starts a JSON POST to the session's endpoint; returns the fetch's promise (or a rejected one
/// if fetch threw at once).
fn post(inner: &Inner, body: &str, signal: &web_sys::AbortSignal) -> JsValue {
    let init = Object::new();
    let headers = Object::new();
    let _ = Reflect::set(&headers, &"content-type".into(), &"application/json".into());
    let _ = Reflect::set(&headers, &"accept".into(), &"text/event-stream".into());
    for (name, value) in &inner.headers {
        let _ = Reflect::set(&headers, &name.into(), &value.into());
    }
    let _ = Reflect::set(&init, &"method".into(), &"POST".into());
    let _ = Reflect::set(&init, &"headers".into(), &headers);
    let _ = Reflect::set(&init, &"body".into(), &body.into());
    let _ = Reflect::set(&init, &"signal".into(), signal);
    if let Some(credentials) = &inner.credentials {
        let _ = Reflect::set(&init, &"credentials".into(), &credentials.into());
    }
    let global = js_sys::global();
    let fetch =
        inner.fetch.clone().or_else(|| Reflect::get(&global, &"fetch".into()).ok().and_then(|f| f.dyn_into().ok()));
    let Some(fetch) = fetch else {
        return rejected(&js_sys::Error::new("fetch is not available here").into());
    };
    match fetch.call2(&global, &inner.endpoint.as_str().into(), &init) {
        Ok(promise) => promise,
        Err(err) => rejected(&err),
    }
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
/// directly; as JSON text to parse it cost a session about 250 ns per delta in Chromium (three
/// rounds of 21 runs on the OpenAI stream: about 1100 → 820 ns).
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
