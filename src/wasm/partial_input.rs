//! `partial_input` on the JS side: computed when first read, not on every push, from the one
//! copy of the arguments the module holds.
//!
//! A tool input's `partial_input` is as large as its arguments so far. Handing it to JS with
//! every `tool_input_delta` (serialize, copy, `JSON.parse`) made the cost per chunk grow with
//! the input, so a 1 MB tool input cost about 5× more per delta than a 1 KB one (BENCHMARKS.md).
//! Instead the pipeline leaves the field out ([`crate::clean::CleanOptions::partial_input`]) and
//! every `tool_input_delta` gets an enumerable getter that parses the arguments as they were at
//! that event, once, on first read: it names them by a key and where the event's delta ended.
//!
//! The arguments stay here, shared with the tool call that streams them ([`SharedArguments`]),
//! for as long as an event may read them: a getter may be read in any order, after the call
//! completed and after its stream was freed. The package's JS lets a key go (a
//! `FinalizationRegistry`) once no event of it is left. A copy kept in JS instead, a string as
//! long as the arguments, doubled what a long input held while it streamed (and the engine's
//! young generation grew with what it kept).

use std::cell::RefCell;
use std::collections::HashMap;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::to_js;
use crate::clean::tools::{SharedArguments, STREAMED};

/// The arguments JS holds events of, by key.
#[derive(Default)]
struct Held {
    by_key: HashMap<u32, SharedArguments>,
    /// The key of each tool call id's latest arguments.
    by_id: HashMap<String, u32>,
    last_key: u32,
}

thread_local! {
    static HELD: RefCell<Held> = RefCell::new(Held::default());
}

/// A `tool_input_delta` event handed to JS: the key of its arguments and where in them (in
/// bytes) its delta ends. `(0, 0)` when the module holds no arguments for it.
pub(super) fn handed(tool_use_id: &str, delta: &str) -> (u32, u32) {
    HELD.with_borrow_mut(|held| {
        let streamed = STREAMED.with_borrow(|streamed| {
            streamed.iter().rev().find(|(id, _)| id == tool_use_id).map(|(_, arguments)| arguments.clone())
        });
        let known = held.by_id.get(tool_use_id).copied();
        let key = match (known, streamed) {
            (Some(key), Some(arguments)) if !held.by_key[&key].same(&arguments) => held.insert(tool_use_id, arguments),
            (None, Some(arguments)) => held.insert(tool_use_id, arguments),
            (Some(key), _) => key,
            (None, None) => return (0, 0),
        };
        let mut arguments = held.by_key[&key].lock();
        arguments.handed += delta.len();
        (key, arguments.handed as u32)
    })
}

/// A hand-over was built: the arguments that grew in the call before it are forgotten, those
/// that JS got events of are held.
pub(super) fn hand_over_built() {
    STREAMED.with_borrow_mut(Vec::clear);
}

impl Held {
    fn insert(&mut self, id: &str, arguments: SharedArguments) -> u32 {
        // Keys are never used again (after four billion, 0 is skipped: it means "none").
        self.last_key = self.last_key.checked_add(1).unwrap_or(1);
        self.by_key.insert(self.last_key, arguments);
        self.by_id.insert(id.to_owned(), self.last_key);
        self.last_key
    }
}

/// What the getters call: `[read(key, end), release(key)]`, for the module's lifetime.
pub(super) fn functions() -> Array {
    let read = Closure::<dyn Fn(u32, u32) -> JsValue>::new(|key: u32, end: u32| {
        let value = HELD.with_borrow(|held| held.by_key.get(&key).map(|arguments| arguments.lock().partial_input(end as usize)));
        value.map_or(JsValue::NULL, |value| to_js(&value).unwrap_or(JsValue::NULL))
    });
    let release = Closure::<dyn Fn(u32)>::new(|key: u32| {
        HELD.with_borrow_mut(|held| {
            held.by_key.remove(&key);
            held.by_id.retain(|_, k| *k != key);
        })
    });
    let read: Function = read.into_js_value().unchecked_into();
    let release: Function = release.into_js_value().unchecked_into();
    Array::of2(&read, &release)
}
