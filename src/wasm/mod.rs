//! The JS bindings: a thin conversion layer over the core.
//!
//! Values cross the boundary as JSON text parsed by the engine's `JSON.parse`: one copy instead
//! of one allocation per field, and no serializer in the module. The exceptions are the objects
//! made once per push of a long answer (text and thinking events, the session's text patch):
//! those are built directly, which costs less than text to parse.

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
use crate::json::{to_json, ToJson};

thread_local! {
    /// The message of the last Rust panic, for the "poisoned" error that follows it.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
    }));
}

/// Converts a Rust value to a plain JS value through JSON.
pub(crate) fn to_js<T: ToJson + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    js_sys::JSON::parse(&to_json(value)).map_err(|_| JsError::new("internal error: could not hand a value to JS"))
}

/// One clean event as a JS object. Text and thinking deltas, nearly every event of a long
/// answer, are built directly: parsing them from JSON text cost more than building them.
pub(crate) fn event_to_js(event: &StreamEvent) -> JsValue {
    let (kind, text) = match event {
        StreamEvent::TextDelta { text } => (&TEXT_DELTA, text),
        StreamEvent::ThinkingDelta { text } => (&THINKING_DELTA, text),
        other => return to_js(other).unwrap_or(JsValue::NULL),
    };
    let object: TextEventObject = js_sys::Object::new().unchecked_into();
    kind.with(|kind| object.set_type(kind));
    object.set_text(text);
    object.into()
}

/// Events as a JS array (see [`event_to_js`]).
pub(crate) fn events_to_js(events: &[StreamEvent]) -> js_sys::Array {
    events.iter().map(event_to_js).collect()
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
    fn set_text(this: &TextEventObject, text: &str);
}

/// Marks an object busy for the length of one call. A Rust panic traps out of the call with
/// the mark still set, so the next call finds it and reports the object as poisoned instead of
/// running on half-updated state.
pub(crate) struct PoisonGuard<'a>(&'a Cell<bool>);

impl<'a> PoisonGuard<'a> {
    pub(crate) fn enter(busy: &'a Cell<bool>, class: &str) -> Result<PoisonGuard<'a>, JsError> {
        if busy.replace(true) {
            let cause = LAST_PANIC.with(|p| p.borrow().clone()).unwrap_or_else(|| "unknown".into());
            return Err(JsError::new(&format!(
                "this {class} is unusable after an internal error (a bug in chatstream; please report it): {cause}. Create a new one."
            )));
        }
        Ok(PoisonGuard(busy))
    }
}

impl Drop for PoisonGuard<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}
