//! The JS bindings: a thin conversion layer over the core (DESIGN.md, "JS surface").
//!
//! Events cross the boundary as one JSON text per call, parsed by the engine's `JSON.parse`:
//! one copy per batch instead of one allocation per field, and no serializer in the module.

pub mod agent;
mod callbacks;
pub mod events;
mod partial_input;
pub mod resolve;
pub mod session;
pub mod stream;

use std::cell::{Cell, RefCell};

use serde::Serialize;
use wasm_bindgen::prelude::*;

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

thread_local! {
    /// The JSON text of the last value handed to JS, kept for its capacity: a push's events are
    /// written into the same buffer every time instead of a string grown from empty.
    static JSON_TEXT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Converts a Rust value to a plain JS value through JSON.
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    JSON_TEXT.with(|text| {
        let mut text = text.borrow_mut();
        text.clear();
        serde_json::to_writer(&mut *text, value).map_err(|e| JsError::new(&e.to_string()))?;
        let text = std::str::from_utf8(&text).expect("serde_json writes UTF-8");
        js_sys::JSON::parse(text).map_err(|_| JsError::new("internal error: could not hand a value to JS"))
    })
}

/// Reads a plain JS options object through JSON.
pub(crate) fn from_js<T: serde::de::DeserializeOwned + Default>(value: &JsValue, what: &str) -> Result<T, JsError> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    let text: String =
        js_sys::JSON::stringify(value).map_err(|_| JsError::new(&format!("{what}: not a plain object")))?.into();
    serde_json::from_str(&text).map_err(|e| JsError::new(&format!("{what}: {e}")))
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
