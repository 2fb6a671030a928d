//! The agent loop's I/O in the browser: each iteration's request is POSTed, its response read
//! through the pipeline into the turn's one event stream, and the tools it calls run as the app's
//! async JS functions, `execute(input, { signal, progress })`. The loop's logic is
//! [`crate::agent::AgentTurn`]; this file only waits on promises.
//!
//! Tools run one after another, in the order the model called them. Each gets its own
//! `AbortSignal`, aborted when the turn is cancelled or the tool's time (`toolTimeoutMs`) is up.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal};

use super::callbacks::{resolvable, Listener, Timer};
use super::events::{close, deliver, read, Pump, ReadEnd, Source};
use super::{args, to_js};
use crate::agent::{denied_output, progress_event, tool_error, AfterStream, AgentConfig, AgentTurn, PendingCall};
use crate::error::ErrorCode;
use crate::event::StreamEvent;
use crate::request::Turn;
use crate::stream::StreamOptions;

/// Default `toolTimeoutMs`.
pub(crate) const DEFAULT_TOOL_TIMEOUT_MS: f64 = 30_000.0;

/// Provider mode's settings and the conversation it keeps between turns.
pub(crate) struct AgentSetup {
    pub config: AgentConfig,
    /// Each tool's `execute`, by name.
    pub executes: HashMap<String, Function>,
    pub tool_timeout_ms: f64,
    /// The provider-neutral conversation, tool calls and results included.
    pub conversation: Vec<Turn>,
    /// The conversation before the last turn, for asking its question again.
    pub before_turn: Option<Vec<Turn>>,
}

/// The `execute` functions of `options.tools`; every tool must have one.
pub(crate) fn tool_functions(options: &JsValue) -> Result<HashMap<String, Function>, JsValue> {
    let mut found = HashMap::new();
    let tools = Reflect::get(options, &"tools".into()).unwrap_or(JsValue::UNDEFINED);
    if tools.is_undefined() || tools.is_null() {
        return Ok(found);
    }
    let tools: Array = tools.dyn_into().map_err(|_| args::type_error("ChatSession options: tools must be an array"))?;
    for tool in tools.iter() {
        let name = Reflect::get(&tool, &"name".into()).ok().and_then(|n| n.as_string()).unwrap_or_default();
        let execute = Reflect::get(&tool, &"execute".into()).ok().and_then(|f| f.dyn_into::<Function>().ok());
        match execute {
            Some(execute) => found.insert(name, execute),
            None => {
                return Err(args::type_error(&format!("ChatSession options: tool {name:?} has no execute function")))
            }
        };
    }
    Ok(found)
}

/// What one turn needs from its session.
pub(crate) struct TurnIo {
    /// POSTs a request body; returns the fetch promise.
    pub post: Box<dyn Fn(Value) -> JsValue>,
    /// Pauses on a call that needs the user's approval: a promise of `true` (approved) or the
    /// denial's reason.
    pub ask_approval: Box<dyn Fn(&PendingCall) -> Promise>,
    pub stream_options: StreamOptions,
    pub step_timeout_ms: f64,
    pub executes: HashMap<String, Function>,
    pub tool_timeout_ms: f64,
    /// The turn's signal: aborted by `cancel()`.
    pub signal: AbortSignal,
    /// Receives the conversation when the turn is over.
    pub done: Box<dyn FnOnce(Vec<Turn>)>,
}

/// Runs a turn to its end, handing its events to `pump`.
pub(crate) async fn drive(pump: Rc<RefCell<Pump>>, mut turn: AgentTurn, first: Value, io: TurnIo) {
    let mut body = first;
    let mut out = Vec::new();
    // Kept alive until the turn ends, so a tool may report progress until then.
    let mut progress_callbacks = Vec::new();
    'turn: loop {
        let source = Source {
            input: (io.post)(std::mem::take(&mut body)),
            options: io.stream_options.clone(),
            idle_timeout_ms: Some(io.step_timeout_ms),
            signal: None,
        };
        let end = {
            let mut sink = |events: &[StreamEvent]| {
                let mut out = Vec::with_capacity(events.len());
                for event in events {
                    turn.on_event(event.clone(), &mut out);
                }
                deliver(&pump, &out);
            };
            read(&pump, source, &mut sink).await
        };
        match end {
            ReadEnd::Read => {}
            ReadEnd::Refused(code, message) => {
                turn.fail(code, &message, &mut out);
                break 'turn;
            }
            ReadEnd::Stopped => {
                turn.cancel(&mut out);
                break 'turn;
            }
        }
        let calls = match turn.stream_ended(&mut out) {
            AfterStream::Done => break 'turn,
            AfterStream::RunTools(calls) => calls,
        };
        deliver(&pump, &std::mem::take(&mut out));
        for call in calls {
            if stopped(&pump) {
                turn.cancel(&mut out);
                break 'turn;
            }
            let (output, is_error) = run_tool(&pump, &turn, &io, &call, &mut progress_callbacks).await;
            if stopped(&pump) {
                turn.cancel(&mut out);
                break 'turn;
            }
            turn.tool_done(&call, output, is_error, &mut out);
            deliver(&pump, &std::mem::take(&mut out));
        }
        match turn.next_request() {
            Ok(next) => body = next,
            Err(err) => {
                turn.fail(err.code, &err.message, &mut out);
                break 'turn;
            }
        }
    }
    deliver(&pump, &out);
    (io.done)(turn.conversation().to_vec());
    close(&pump);
    drop(progress_callbacks);
}

fn stopped(pump: &Rc<RefCell<Pump>>) -> bool {
    pump.borrow().is_stopped()
}

/// Runs one tool call: the result for the model, and whether it is an error.
async fn run_tool(
    pump: &Rc<RefCell<Pump>>,
    turn: &AgentTurn,
    io: &TurnIo,
    call: &PendingCall,
    keep_alive: &mut Vec<Closure<dyn FnMut(JsValue)>>,
) -> (Value, bool) {
    if let Err(refused) = turn.check_call(call) {
        return (refused, true);
    }
    if turn.needs_approval(call) {
        // The user's answer may take any time: no tool time limit applies to it.
        match wait((io.ask_approval)(call), None, &io.signal).await {
            Waited::Value(answer) if answer == JsValue::TRUE => {}
            Waited::Value(reason) => return (denied_output(&reason.as_string().unwrap_or_default()), true),
            _ => return (tool_error(ErrorCode::ServiceUnavailable, "Cancelled"), true),
        }
    }
    let Some(execute) = io.executes.get(&call.name) else {
        return (tool_error(ErrorCode::ValidationError, format!("No execute function for {}", call.name)), true);
    };
    let controller = match AbortController::new() {
        Ok(controller) => controller,
        Err(_) => return (tool_error(ErrorCode::ServiceUnavailable, "AbortController is not available"), true),
    };
    // The turn's cancel aborts the tool too.
    let tool_signal = controller.clone();
    let _on_turn_abort = Listener::new(&io.signal, "abort", move || tool_signal.abort());

    let progress_pump = pump.clone();
    let (id, name) = (call.id.clone(), call.name.clone());
    let progress = Closure::<dyn FnMut(JsValue)>::new(move |update: JsValue| {
        if progress_pump.borrow().is_closed() {
            return;
        }
        let update =
            if update.is_string() { Value::String(update.as_string().unwrap_or_default()) } else { json_of(&update) };
        deliver(&progress_pump, &[progress_event(&id, &name, &update)]);
    });
    let context = Object::new();
    let _ = Reflect::set(&context, &"signal".into(), &controller.signal());
    let _ = Reflect::set(&context, &"progress".into(), progress.as_ref());
    keep_alive.push(progress);

    let input = to_js(&call.input).unwrap_or(JsValue::NULL);
    let returned = match execute.call2(&JsValue::UNDEFINED, &input, &context) {
        Ok(value) => value,
        Err(thrown) => return (thrown_output(&thrown), true),
    };
    let outcome = wait(Promise::resolve(&returned), Some(io.tool_timeout_ms), &io.signal).await;
    match outcome {
        Waited::Value(value) => (json_of(&value), false),
        Waited::Threw(thrown) => (thrown_output(&thrown), true),
        Waited::TimedOut => {
            controller.abort();
            let message = format!("Tool {} timed out after {} ms", call.name, io.tool_timeout_ms);
            (tool_error(ErrorCode::ServiceUnavailable, message), true)
        }
        Waited::Aborted => (tool_error(ErrorCode::ServiceUnavailable, "Cancelled"), true),
    }
}

/// A JS value as JSON (`undefined` is null; what JSON cannot hold becomes its text).
fn json_of(value: &JsValue) -> Value {
    if value.is_undefined() {
        return Value::Null;
    }
    args::json::<Value>(value, "tool output")
        .unwrap_or_else(|_| Value::String(js_sys::JsString::from(value.clone()).as_string().unwrap_or_default()))
}

/// What a tool that threw gives the model (`Error: <message>`, as agent backends report it).
fn thrown_output(thrown: &JsValue) -> Value {
    let message = Reflect::get(thrown, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| thrown.as_string())
        .unwrap_or_else(|| "the tool failed".into());
    tool_error(ErrorCode::ServiceUnavailable, format!("Error: {message}"))
}

enum Waited {
    Value(JsValue),
    Threw(JsValue),
    TimedOut,
    Aborted,
}

/// Waits for a promise, its time limit (if any), or the turn's cancel, whichever comes first.
async fn wait(promise: Promise, timeout_ms: Option<f64>, signal: &AbortSignal) -> Waited {
    // Markers no tool result can be: distinct objects, compared by identity.
    let timed_out: JsValue = Object::new().into();
    let aborted: JsValue = Object::new().into();
    let (timer_promise, resolve_timer) = resolvable();
    let (abort_promise, resolve_abort) = resolvable();
    let timer = timeout_ms.map(|ms| {
        let marker = timed_out.clone();
        Timer::new(ms, move || {
            let _ = resolve_timer.call1(&JsValue::UNDEFINED, &marker);
        })
    });
    let on_abort = {
        let marker = aborted.clone();
        Listener::new(signal, "abort", move || {
            let _ = resolve_abort.call1(&JsValue::UNDEFINED, &marker);
        })
    };
    if signal.aborted() {
        return Waited::Aborted;
    }
    let race = Promise::race(&Array::of3(&promise, &timer_promise, &abort_promise));
    let outcome = JsFuture::from(race).await;
    drop((timer, on_abort));
    match outcome {
        Ok(value) if value == timed_out => Waited::TimedOut,
        Ok(value) if value == aborted => Waited::Aborted,
        Ok(value) => Waited::Value(value),
        Err(thrown) => Waited::Threw(thrown),
    }
}
