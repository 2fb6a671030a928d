//! Rust callbacks handed to JS (timers, event listeners) that are taken back when dropped.
//!
//! A closure given away with `Closure::once_into_js` is freed only when JS calls it: a timer
//! cleared before it fires, or an abort listener on a signal that never aborts, leaked its
//! closure and everything it held. These own their closure, and dropping one clears the timer or
//! removes the listener first, so JS never calls a freed closure.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Promise};
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

/// A timer; dropping it clears it and frees its callback.
pub(crate) struct Timer {
    id: JsValue,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    /// Calls `fire` after `ms` unless the timer is dropped first.
    pub(crate) fn new(ms: f64, fire: impl FnMut() + 'static) -> Timer {
        let callback = Closure::<dyn FnMut()>::new(fire);
        Timer { id: set_timeout(callback.as_ref().unchecked_ref(), ms), _callback: callback }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.id);
    }
}

/// A timeout on silence: calls `on_idle` once `touch` has not been called for `ms`. One timer runs
/// at a time, re-armed only when it finds it expired early: a `setTimeout` and `clearTimeout`
/// for every chunk were a measurable part of a session's time in Chromium.
pub(crate) struct IdleTimer {
    state: Rc<IdleState>,
    _callback: Closure<dyn FnMut()>,
}

struct IdleState {
    ms: f64,
    last: Cell<f64>,
    timer: RefCell<JsValue>,
    callback: RefCell<Option<Function>>,
    on_idle: RefCell<Option<Box<dyn FnOnce()>>>,
}

impl IdleTimer {
    pub(crate) fn new(ms: f64, on_idle: impl FnOnce() + 'static) -> IdleTimer {
        let state = Rc::new(IdleState {
            ms,
            last: Cell::new(js_sys::Date::now()),
            timer: RefCell::new(JsValue::UNDEFINED),
            callback: RefCell::new(None),
            on_idle: RefCell::new(Some(Box::new(on_idle))),
        });
        // Weak: the closure must not keep alive the state that holds its own function.
        let weak = Rc::downgrade(&state);
        let callback = Closure::<dyn FnMut()>::new(move || {
            if let Some(state) = weak.upgrade() {
                state.expired();
            }
        });
        *state.callback.borrow_mut() = Some(callback.as_ref().unchecked_ref::<Function>().clone());
        state.arm(ms);
        IdleTimer { state, _callback: callback }
    }

    /// Something arrived: the silence starts over.
    pub(crate) fn touch(&self) {
        self.state.last.set(js_sys::Date::now());
    }
}

impl IdleState {
    fn arm(&self, ms: f64) {
        if let Some(callback) = &*self.callback.borrow() {
            *self.timer.borrow_mut() = set_timeout(callback, ms);
        }
    }

    fn expired(&self) {
        let quiet = js_sys::Date::now() - self.last.get();
        if quiet < self.ms {
            return self.arm(self.ms - quiet);
        }
        let on_idle = self.on_idle.borrow_mut().take();
        if let Some(on_idle) = on_idle {
            on_idle();
        }
    }
}

impl Drop for IdleTimer {
    fn drop(&mut self) {
        clear_timeout(&self.state.timer.borrow());
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

/// A promise and the function that resolves it.
pub(crate) fn resolvable() -> (Promise, Function) {
    let mut resolve = None;
    let promise = Promise::new(&mut |resolve_fn, _| resolve = Some(resolve_fn));
    (promise, resolve.expect("a promise's executor runs at once"))
}

/// A promise already rejected with `error`.
pub(crate) fn rejected(error: &JsValue) -> JsValue {
    Promise::reject(error).into()
}
