//! Rust callbacks handed to JS (timers, event listeners) that are taken back when dropped.
//!
//! A closure given away with `Closure::once_into_js` is freed only when JS calls it: a timer
//! cleared before it fires, or an abort listener on a signal that never aborts, leaked its
//! closure and everything it held. These own their closure, and dropping one clears the timer or
//! removes the listener first, so JS never calls a freed closure.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::EventTarget;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// A callback that can be armed as a timer many times (one closure however often it is armed).
pub(crate) struct TimerCallback(Closure<dyn FnMut()>);

impl TimerCallback {
    pub(crate) fn new(fire: impl FnMut() + 'static) -> TimerCallback {
        TimerCallback(Closure::new(fire))
    }

    /// Calls the callback after `ms` unless the returned timer is dropped first.
    pub(crate) fn arm(&self, ms: f64) -> Timer<'_> {
        Timer { id: set_timeout(self.0.as_ref().unchecked_ref(), ms), _callback: self }
    }
}

/// A running timer; dropping it clears it.
pub(crate) struct Timer<'a> {
    id: JsValue,
    _callback: &'a TimerCallback,
}

impl Drop for Timer<'_> {
    fn drop(&mut self) {
        clear_timeout(&self.id);
    }
}

/// An event listener; dropping it removes it.
pub(crate) struct Listener {
    target: EventTarget,
    kind: &'static str,
    callback: Closure<dyn FnMut()>,
}

impl Listener {
    pub(crate) fn new(target: &EventTarget, kind: &'static str, on_event: impl FnMut() + 'static) -> Listener {
        let callback = Closure::<dyn FnMut()>::new(on_event);
        let _ = target.add_event_listener_with_callback(kind, callback.as_ref().unchecked_ref());
        Listener { target: target.clone(), kind, callback }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener_with_callback(self.kind, self.callback.as_ref().unchecked_ref());
    }
}
