//! `streamEvents`: an async iterable of clean events over a fetch `Response` or a
//! `ReadableStream`, with the body read from Rust.
//!
//! A pump task reads the body (with `reader.read()`, not `for await`, which Safari's streams
//! lack), runs each chunk through the pipeline and queues the events; the iterator hands them
//! out. The pump runs whether or not anyone iterates, so a [`super::session`] that only
//! subscribes to state still moves. `return()` (a `break`), an `AbortSignal` or a session's
//! `cancel()` cancels the reader, which also aborts the fetch behind a `Response` body.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStream, ReadableStreamDefaultReader, Response};

use super::callbacks::{resolvable, IdleTimer, Listener, Timer};
use super::partial_input::PartialInputs;
use super::stream::JsStreamOptions;
use super::{args, event_to_js};
use crate::error::ErrorCode;
use crate::event::StreamEvent;
use crate::stream::{ChatStream, StreamOptions};

/// Called with each event before it is queued (the session applies it to its state), and with
/// `None` once the stream has ended.
pub(crate) type EventHook = Box<dyn FnMut(Option<&StreamEvent>)>;

/// What the pump and the iterator share.
pub(crate) struct Pump {
    queue: VecDeque<JsValue>,
    /// No more events will be queued.
    closed: bool,
    /// The resolve function of a `next()` that found the queue empty.
    waiting: Option<Function>,
    reader: Option<ReadableStreamDefaultReader>,
    /// Set by `cancel`: the next read ends in `complete` + `cancelled`.
    cancelled: bool,
    /// Set by `return()`: the consumer left; stop quietly.
    abandoned: bool,
    hook: Option<EventHook>,
    /// Called with each event as JS hands it out (the session's callbacks).
    on_event: Option<Function>,
    partial_inputs: PartialInputs,
    /// The listener on the caller's `AbortSignal`, removed when the stream closes.
    abort_listener: Option<Listener>,
}

impl Pump {
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// Cancelled, or the consumer left: a driver should stop.
    pub(crate) fn is_stopped(&self) -> bool {
        self.cancelled || self.abandoned
    }

    /// Calls `listener` with each event from now on, as it is handed out.
    pub(crate) fn set_event_listener(&mut self, listener: Option<Function>) {
        self.on_event = listener;
    }

    fn new(hook: Option<EventHook>) -> Rc<RefCell<Pump>> {
        Rc::new(RefCell::new(Pump {
            queue: VecDeque::new(),
            closed: false,
            waiting: None,
            reader: None,
            cancelled: false,
            abandoned: false,
            hook,
            on_event: None,
            partial_inputs: PartialInputs::default(),
            abort_listener: None,
        }))
    }
}

/// Cancels the pump's body read: the pump then ends the stream with `complete` and `cancelled`.
pub(crate) fn cancel(pump: &Rc<RefCell<Pump>>) {
    let reader = {
        let mut p = pump.borrow_mut();
        p.cancelled = true;
        p.reader.clone()
    };
    if let Some(reader) = reader {
        // Resolves a pending read() with `done`; the pump sees `cancelled` and finishes.
        let _ = reader.cancel();
    }
}

/// Hands events to the hook and to the queue (or straight to a waiting `next()`).
pub(crate) fn deliver(pump: &Rc<RefCell<Pump>>, events: &[StreamEvent]) {
    for event in events {
        // The hook runs user-visible state updates; take it out so no borrow is held while it runs.
        let hook = pump.borrow_mut().hook.take();
        if let Some(mut hook) = hook {
            hook(Some(event));
            pump.borrow_mut().hook = Some(hook);
        }
        let value = event_to_js(event);
        let (waiting, on_event) = {
            let mut p = pump.borrow_mut();
            p.partial_inputs.attach(event, &value);
            let on_event = p.on_event.clone();
            let waiting = match p.waiting.take() {
                _ if p.abandoned => None,
                Some(resolve) => Some(resolve),
                None => {
                    p.queue.push_back(value.clone());
                    None
                }
            };
            (waiting, on_event)
        };
        if let Some(listener) = on_event {
            // The listener is the package's own: it guards the app's callbacks.
            let _ = listener.call1(&JsValue::UNDEFINED, &value);
        }
        if let Some(resolve) = waiting {
            let _ = resolve.call1(&JsValue::UNDEFINED, &iter_result(value, false));
        }
    }
}

pub(crate) fn close(pump: &Rc<RefCell<Pump>>) {
    let (waiting, hook) = {
        let mut p = pump.borrow_mut();
        if p.closed {
            return;
        }
        p.closed = true;
        p.reader = None;
        p.abort_listener = None;
        (p.waiting.take(), p.hook.take())
    };
    if let Some(mut hook) = hook {
        hook(None);
    }
    if let Some(resolve) = waiting {
        let _ = resolve.call1(&JsValue::UNDEFINED, &iter_result(JsValue::UNDEFINED, true));
    }
}

fn iter_result(value: JsValue, done: bool) -> JsValue {
    let result: IterResult = Object::new().unchecked_into();
    result.set_value(&value);
    result.set_done(done);
    result.into()
}

#[wasm_bindgen]
extern "C" {
    /// `{ value, done }`: what `reader.read()` resolves to, and what an iterator's `next()`
    /// returns. Typed accessors, because `Reflect` with a key made from a Rust string copies
    /// the key into JS on every call, once or twice per chunk.
    #[wasm_bindgen(extends = Object)]
    type IterResult;
    #[wasm_bindgen(method, getter)]
    fn done(this: &IterResult) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn value(this: &IterResult) -> JsValue;
    #[wasm_bindgen(method, setter)]
    fn set_done(this: &IterResult, done: bool);
    #[wasm_bindgen(method, setter)]
    fn set_value(this: &IterResult, value: &JsValue);
}

/// What the pump reads: a response (maybe still on its way), or a bare body stream.
pub(crate) struct Source {
    pub input: JsValue,
    pub options: StreamOptions,
    pub idle_timeout_ms: Option<f64>,
    pub signal: Option<AbortSignal>,
}

/// A pump for a driver of its own (the agent loop), and the iterator over its events.
pub(crate) fn pump(hook: Option<EventHook>) -> (Rc<RefCell<Pump>>, EventStream) {
    let pump = Pump::new(hook);
    (pump.clone(), EventStream { pump })
}

/// Starts a pump over `source`; returns the iterator over its events.
pub(crate) fn start(source: Source, hook: Option<EventHook>) -> EventStream {
    let pump = Pump::new(hook);
    if let Some(signal) = &source.signal {
        if signal.aborted() {
            pump.borrow_mut().cancelled = true;
        } else {
            let target = Rc::downgrade(&pump);
            let listener = Listener::new(signal, "abort", move || {
                if let Some(pump) = target.upgrade() {
                    cancel(&pump);
                }
            });
            pump.borrow_mut().abort_listener = Some(listener);
        }
    }
    wasm_bindgen_futures::spawn_local(run(pump.clone(), source));
    EventStream { pump }
}

/// How waiting for a promise ended.
enum Step {
    Chunk(JsValue),
    TimedOut,
    Failed(JsValue),
}

async fn run(pump: Rc<RefCell<Pump>>, source: Source) {
    let mut sink = |events: &[StreamEvent]| deliver(&pump, events);
    if let ReadEnd::Refused(code, message) = read(&pump, source, &mut sink).await {
        deliver(&pump, &[StreamEvent::error(code, message)]);
    }
    close(&pump);
}

/// How reading one response ended.
pub(crate) enum ReadEnd {
    /// The body was read to its end, or failed mid-way (the sink got `complete` and the error).
    Read,
    /// There was no body to read: no response, an HTTP error status, not a response at all.
    /// Nothing went to the sink; this is the error.
    Refused(ErrorCode, String),
    /// Cancelled (the sink got `complete` and `cancelled`), or the consumer left.
    Stopped,
}

/// Reads one response (or a promise of one, or a bare body stream) through the pipeline,
/// handing each batch of events to `sink`. The pump provides the cancel and abandon flags.
pub(crate) async fn read(pump: &Rc<RefCell<Pump>>, source: Source, sink: &mut dyn FnMut(&[StreamEvent])) -> ReadEnd {
    let mut core = ChatStream::new(source.options.clone());
    let mut events = Vec::new();
    let timeout = source.idle_timeout_ms;

    // A promise (e.g. `fetch(...)` itself) is awaited first: its failure is a connection failure.
    let mut input = source.input;
    if input.has_type::<Promise>() || is_thenable(&input) {
        // No response means no message: only the error, as for an HTTP error status.
        let failure = match await_with_timeout(Promise::resolve(&input), timeout).await {
            Step::Chunk(value) => {
                input = value;
                None
            }
            _ if pump.borrow().cancelled => return finish_cancelled(&mut core, sink),
            Step::TimedOut => Some(timed_out(timeout)),
            Step::Failed(err) => Some(connection_failed(&err)),
        };
        if let Some(message) = failure {
            return ReadEnd::Refused(ErrorCode::NetworkError, message);
        }
    }

    let body: ReadableStream = if let Some(response) = input.dyn_ref::<Response>() {
        if !response.ok() {
            let (code, message) = http_error(response).await;
            return ReadEnd::Refused(code, message);
        }
        core = ChatStream::new(with_response_headers(source.options, response));
        match response.body() {
            Some(body) => body,
            None => {
                core.finish(&mut events);
                sink(&events);
                return ReadEnd::Read;
            }
        }
    } else if let Some(stream) = input.dyn_ref::<ReadableStream>() {
        stream.clone()
    } else {
        let message = "streamEvents takes a Response, a ReadableStream or a promise of one";
        return ReadEnd::Refused(ErrorCode::ValidationError, message.into());
    };
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    pump.borrow_mut().reader = Some(reader.clone());

    // The idle timeout cancels the reader, which ends the pending read. (A timer promise raced
    // against each read cost a closure and two promises per chunk.)
    let idle_fired = Rc::new(Cell::new(false));
    let idle = timeout.filter(|ms| *ms > 0.0).map(|ms| {
        let (flag, reader) = (idle_fired.clone(), reader.clone());
        IdleTimer::new(ms, move || {
            flag.set(true);
            let _ = reader.cancel();
        })
    });

    let mut bytes = Vec::new();
    loop {
        if pump.borrow().cancelled {
            let _ = reader.cancel();
            return finish_cancelled(&mut core, sink);
        }
        if pump.borrow().abandoned {
            let _ = reader.cancel();
            return ReadEnd::Stopped;
        }
        let outcome = JsFuture::from(reader.read()).await;
        if let Some(idle) = &idle {
            idle.touch();
        }
        let step = match outcome {
            _ if idle_fired.get() => Step::TimedOut,
            Ok(result) => Step::Chunk(result),
            Err(err) => Step::Failed(err),
        };
        match step {
            Step::Chunk(result) => {
                let result: IterResult = result.unchecked_into();
                let done = result.done().is_truthy();
                if done {
                    if pump.borrow().cancelled {
                        return finish_cancelled(&mut core, sink);
                    }
                    events.clear();
                    core.finish(&mut events);
                    sink(&events);
                    return ReadEnd::Read;
                }
                events.clear();
                if args::bytes(&result.value(), &mut bytes) {
                    core.push(&bytes, &mut events);
                } else {
                    let detail = "a chunk of the body is neither bytes nor text; it was skipped";
                    events.push(StreamEvent::error(
                        ErrorCode::ServiceUnavailable,
                        format!("Failed to parse response: {detail}"),
                    ));
                }
                sink(&events);
            }
            Step::TimedOut => {
                let _ = reader.cancel();
                return finish_failed(&mut core, sink, ErrorCode::NetworkError, &timed_out(timeout));
            }
            Step::Failed(err) => {
                if pump.borrow().cancelled {
                    return finish_cancelled(&mut core, sink);
                }
                return finish_failed(&mut core, sink, ErrorCode::NetworkError, &connection_failed(&err));
            }
        }
    }
}

fn finish_cancelled(core: &mut ChatStream, sink: &mut dyn FnMut(&[StreamEvent])) -> ReadEnd {
    let mut events = Vec::new();
    core.cancel(&mut events);
    sink(&events);
    ReadEnd::Stopped
}

fn finish_failed(
    core: &mut ChatStream,
    sink: &mut dyn FnMut(&[StreamEvent]),
    code: ErrorCode,
    message: &str,
) -> ReadEnd {
    let mut events = Vec::new();
    core.fail(code, message, &mut events);
    sink(&events);
    ReadEnd::Read
}

fn timed_out(timeout: Option<f64>) -> String {
    format!("Connection failed: no data for {} ms", timeout.unwrap_or_default())
}

fn connection_failed(err: &JsValue) -> String {
    let field = |key: &str| Reflect::get(err, &key.into()).ok().and_then(|m| m.as_string()).unwrap_or_default();
    crate::error::connection_failed(&field("name"), &field("message"))
}

fn is_thenable(value: &JsValue) -> bool {
    value.is_object() && Reflect::get(value, &"then".into()).is_ok_and(|then| then.is_function())
}

/// Waits for `promise`, or for `timeout` ms of silence.
async fn await_with_timeout(promise: Promise, timeout: Option<f64>) -> Step {
    let Some(ms) = timeout.filter(|ms| *ms > 0.0) else {
        return match JsFuture::from(promise).await {
            Ok(value) => Step::Chunk(value),
            Err(err) => Step::Failed(err),
        };
    };
    // The timer resolves the race with a marker no result can equal.
    let marker = JsValue::from_str("chatstream:timeout");
    let (timer_promise, resolve) = resolvable();
    let timer = {
        let marker = marker.clone();
        Timer::new(ms, move || {
            let _ = resolve.call1(&JsValue::UNDEFINED, &marker);
        })
    };
    let outcome = JsFuture::from(Promise::race(&js_sys::Array::of2(&promise, &timer_promise))).await;
    drop(timer);
    match outcome {
        Ok(value) if value == marker => Step::TimedOut,
        Ok(value) => Step::Chunk(value),
        Err(err) => Step::Failed(err),
    }
}

/// The error for a response whose status is not 2xx: the contract's code, and the body's own
/// message where the contract has no fixed one.
async fn http_error(response: &Response) -> (ErrorCode, String) {
    let status = response.status();
    let code = ErrorCode::from_http_status(status);
    if matches!(code, ErrorCode::Unauthorized | ErrorCode::RateLimited) {
        return (code, code.default_message().into());
    }
    let body = match response.text() {
        Ok(promise) => JsFuture::from(promise).await.ok().and_then(|t| t.as_string()).unwrap_or_default(),
        Err(_) => String::new(),
    };
    (code, ErrorCode::message_from_body(status, &body))
}

fn with_response_headers(mut options: StreamOptions, response: &Response) -> StreamOptions {
    let headers = response.headers();
    if options.content_type.is_none() {
        options.content_type = headers.get("content-type").ok().flatten();
    }
    for (name, _) in crate::dialect::detect::DIALECT_HEADERS {
        if let Ok(Some(value)) = headers.get(name) {
            options.headers.push((name.to_owned(), value));
        }
    }
    // Headers only help auto-detection; an explicit dialect stays.
    if options.dialect.is_none() {
        let named = crate::dialect::detect::from_headers(
            options.content_type.as_deref(),
            options.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        );
        options.dialect = named;
    }
    options
}

/// The async iterator `streamEvents` returns (`for await (const event of …)`).
#[wasm_bindgen]
pub struct EventStream {
    pump: Rc<RefCell<Pump>>,
}

#[wasm_bindgen]
impl EventStream {
    /// The next event, or `done` after the last.
    pub fn next(&self) -> Promise {
        let mut p = self.pump.borrow_mut();
        if let Some(value) = p.queue.pop_front() {
            return Promise::resolve(&iter_result(value, false));
        }
        if p.closed || p.abandoned {
            return Promise::resolve(&iter_result(JsValue::UNDEFINED, true));
        }
        let (promise, resolve) = resolvable();
        p.waiting = Some(resolve);
        promise
    }

    /// `break` out of `for await`: stops reading and cancels the request.
    #[wasm_bindgen(js_name = "return")]
    pub fn stop(&self) -> Promise {
        let reader = {
            let mut p = self.pump.borrow_mut();
            p.abandoned = true;
            p.queue.clear();
            p.reader.clone()
        };
        if let Some(reader) = reader {
            let _ = reader.cancel();
        }
        close(&self.pump);
        Promise::resolve(&iter_result(JsValue::UNDEFINED, true))
    }

    /// `for await (const event of stream)`: the stream is its own iterator.
    #[wasm_bindgen(js_name = "[Symbol.asyncIterator]")]
    pub fn async_iterator(&self) -> EventStream {
        EventStream { pump: self.pump.clone() }
    }
}

impl EventStream {
    pub(crate) fn pump(&self) -> &Rc<RefCell<Pump>> {
        &self.pump
    }

    /// An iterator over events already known (a refused `send`).
    pub(crate) fn of(events: &[StreamEvent]) -> EventStream {
        let pump = Pump::new(None);
        deliver(&pump, events);
        close(&pump);
        EventStream { pump }
    }
}

/// `streamEvents(responseOrStream, options)`: the clean events of a response body, as an
/// async iterable. `options.signal` cancels (`complete` with the partial content, then
/// `cancelled`); `options.idleTimeoutMs` ends a silent stream with NETWORK_ERROR.
#[wasm_bindgen(js_name = streamEvents)]
pub fn stream_events(input: JsValue, options: JsValue) -> Result<EventStream, JsValue> {
    if !(input.is_instance_of::<Response>() || input.is_instance_of::<ReadableStream>() || is_thenable(&input)) {
        return Err(args::type_error("streamEvents: input must be a Response, a ReadableStream or a promise of one"));
    }
    let signal = if options.is_object() {
        Reflect::get(&options, &"signal".into()).ok().and_then(|s| s.dyn_into::<AbortSignal>().ok())
    } else {
        None
    };
    let plain = without_key(&options, "signal");
    let mut parsed: JsStreamOptions = args::options(&plain, "streamEvents options")?;
    let idle_timeout_ms = parsed.idle_timeout_ms.take();
    let source = Source { input, options: parsed.into_core()?, idle_timeout_ms, signal };
    Ok(start(source, None))
}

/// A shallow copy of a plain options object without `key` (values JSON cannot carry).
pub(crate) fn without_key(options: &JsValue, key: &str) -> JsValue {
    if !options.is_object() {
        return options.clone();
    }
    let copy = Object::assign(&Object::new(), options.unchecked_ref());
    let _ = Reflect::delete_property(&copy, &key.into());
    copy.into()
}
