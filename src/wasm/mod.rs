//! The JS bindings: a thin conversion layer over the core.
//!
//! Values cross the boundary as JSON text parsed by the engine's `JSON.parse`: one copy instead
//! of one allocation per field, and no serializer in the module. Long strings inside them (an
//! answer's text, a tool's input) are not written into the text: they cross as JS strings of
//! their own, each once however many times the values hold it ([`values_to_js`]). The objects
//! made once per push of a long answer (text and thinking events, the session's text patch) are
//! built directly, which costs less than text to parse.

mod args;
pub mod errors;
mod partial_input;
pub mod resolve;
pub mod session;
pub mod stream;

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::event::StreamEvent;
use crate::json::{to_json, JsonOut, ToJson};

thread_local! {
    /// The message of the last Rust panic, for the "poisoned" error that follows it.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// How many panics there have been: tells an object left busy by a panic from one whose call
    /// is still running (see [`PoisonGuard`]).
    static PANICS: Cell<u64> = const { Cell::new(0) };
}

#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
        PANICS.with(|n| n.set(n.get() + 1));
    }));
}

/// Converts a Rust value to a plain JS value (see [`values_to_js`]).
pub(crate) fn to_js<T: ToJson + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let js = values_to_js(&[&value]).pop().unwrap_or(JsValue::UNDEFINED);
    if js.is_undefined() {
        return Err(JsError::new("internal error: could not hand a value to JS"));
    }
    Ok(js)
}

/// Converts values to plain JS values, with their long strings set aside ([`JsonOut`]): each
/// distinct one becomes one JS string, shared by every value of the batch that holds it.
/// (`undefined` for a value JSON.parse refused, which the writer never gives it.)
pub(crate) fn values_to_js(values: &[&dyn ToJson]) -> Vec<JsValue> {
    let mark = ASIDE_MARK.with(Clone::clone);
    let mut out = JsonOut::setting_aside(mark.clone());
    let texts: Vec<(String, usize)> = values
        .iter()
        .map(|value| {
            value.write_json(&mut out);
            out.take_text_counted()
        })
        .collect();
    let strings: js_sys::Array = out.aside().iter().map(|s| JsValue::from_str(s)).collect();
    texts
        .into_iter()
        .zip(values)
        .map(|((text, set_aside), value)| {
            let parsed = if set_aside == 0 {
                js_sys::JSON::parse(&text)
            } else if text.matches(mark.as_str()).count() == set_aside {
                parse_with_aside(&text, &mark, &strings)
            } else {
                // A string of the value itself holds the mark (it is random: never by design).
                // Then the value goes whole.
                js_sys::JSON::parse(&to_json(*value))
            };
            parsed.unwrap_or(JsValue::UNDEFINED)
        })
        .collect()
}

thread_local! {
    /// What marks a string set aside in the JSON text: random, so that no stream can write it.
    static ASIDE_MARK: String = {
        let half = || (js_sys::Math::random() * 4_294_967_296.0) as u64;
        format!("~chatstream-{:016x}~", half() << 32 | half())
    };
}

#[wasm_bindgen(inline_js = r#"
export function parseWithAside(text, mark, strings) {
  return JSON.parse(text, (key, value) =>
    typeof value === "string" && value.startsWith(mark) ? strings[value.slice(mark.length)] : value);
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = parseWithAside, catch)]
    fn parse_with_aside(text: &str, mark: &str, strings: &js_sys::Array) -> Result<JsValue, JsValue>;
}

/// One clean event as a JS object. Text and thinking deltas, nearly every event of a long
/// answer, are built directly: parsing them from JSON text cost more than building them.
pub(crate) fn event_to_js(event: &StreamEvent) -> JsValue {
    match event {
        StreamEvent::TextDelta { text } | StreamEvent::ThinkingDelta { text } => {
            text_event_to_js(event, &JsValue::from_str(text))
        }
        other => to_js(other).unwrap_or(JsValue::NULL),
    }
}

/// A text or thinking event, its text already a JS string.
pub(crate) fn text_event_to_js(event: &StreamEvent, text: &JsValue) -> JsValue {
    let kind = if matches!(event, StreamEvent::ThinkingDelta { .. }) { &THINKING_DELTA } else { &TEXT_DELTA };
    let object: TextEventObject = js_sys::Object::new().unchecked_into();
    kind.with(|kind| object.set_type(kind));
    object.set_text(text);
    object.into()
}

/// Events as a JS array (see [`event_to_js`]); the others in one batch ([`values_to_js`]).
pub(crate) fn events_to_js(events: &[StreamEvent]) -> js_sys::Array {
    let others: Vec<&dyn ToJson> = events.iter().filter(|e| !is_text(e)).map(|e| e as &dyn ToJson).collect();
    let mut others = values_to_js(&others).into_iter();
    events.iter().map(|e| if is_text(e) { event_to_js(e) } else { others.next().unwrap_or(JsValue::NULL) }).collect()
}

pub(crate) fn is_text(event: &StreamEvent) -> bool {
    matches!(event, StreamEvent::TextDelta { .. } | StreamEvent::ThinkingDelta { .. })
}

thread_local! {
    static TEXT_DELTA: JsValue = JsValue::from_str("text_delta");
    static THINKING_DELTA: JsValue = JsValue::from_str("thinking_delta");
}

#[wasm_bindgen]
extern "C" {
    /// `{ type, text }`.
    #[wasm_bindgen(extends = js_sys::Object)]
    type TextEventObject;
    #[wasm_bindgen(method, setter = type)]
    fn set_type(this: &TextEventObject, kind: &JsValue);
    #[wasm_bindgen(method, setter)]
    fn set_text(this: &TextEventObject, text: &JsValue);
}

/// Marks an object busy for the length of one call; every exported method that reads or changes
/// the object's core enters it first. A Rust panic traps out of the call with the mark still set,
/// so the next call finds it and reports the object as poisoned instead of running on
/// half-updated state. A call made while another is running (from a JS callback the first one
/// runs: `generateId`, a getter, a `toJSON`) is refused too: it would find the core borrowed, and
/// that panic would trap the module.
pub(crate) struct PoisonGuard<'a>(&'a Cell<Busy>);

/// Whether an object is in a call, and if so the panic count when the call began.
pub(crate) type Busy = Option<u64>;

impl<'a> PoisonGuard<'a> {
    pub(crate) fn enter(busy: &'a Cell<Busy>, class: &str) -> Result<PoisonGuard<'a>, JsError> {
        let panics = PANICS.with(Cell::get);
        match busy.get() {
            None => {
                busy.set(Some(panics));
                Ok(PoisonGuard(busy))
            }
            Some(began) if panics > began => {
                let cause = LAST_PANIC.with(|p| p.borrow().clone()).unwrap_or_else(|| "unknown".into());
                Err(JsError::new(&format!(
                    "this {class} is unusable after an internal error (a bug in chatstream; please report it): {cause}. Create a new one."
                )))
            }
            Some(_) => Err(JsError::new(&format!(
                "this {class} was called from inside one of its own calls (a callback such as generateId, a getter or a toJSON): call it after that call returns"
            ))),
        }
    }
}

impl Drop for PoisonGuard<'_> {
    fn drop(&mut self) {
        self.0.set(None);
    }
}
