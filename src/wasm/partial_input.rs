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
use serde_json::json;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::to_js;
use crate::clean::arguments::{SharedArguments, Step};
use crate::event::ToolArguments;

/// The arguments JS holds events of, by key (each knows its own key:
/// [`crate::clean::arguments::Arguments::key`]).
#[derive(Default)]
struct Held {
    by_key: HashMap<u32, SharedArguments>,
    last_key: u32,
}

thread_local! {
    static HELD: RefCell<Held> = RefCell::new(Held::default());
}

/// A `tool_input_delta` event handed to JS: the key of its arguments and where in them (in
/// bytes) its delta ends. `(0, 0)` when the event carries no arguments (it has its
/// `partial_input` already).
///
/// The key is kept in the arguments, not found by their address in a map: hashing it (SipHash)
/// for every delta, with a share of the arguments taken and dropped, was a cost a text delta does
/// not have.
pub(super) fn handed(carried: &ToolArguments, delta: &str) -> (u32, u32) {
    let Some(mut arguments) = SharedArguments::lock_carried(carried) else { return (0, 0) };
    if arguments.key == 0 {
        let Some(shared) = SharedArguments::of(carried) else { return (0, 0) };
        arguments.key = HELD.with_borrow_mut(|held| held.insert(shared));
    }
    arguments.handed += delta.len();
    (arguments.key, arguments.handed as u32)
}

impl Held {
    /// A new key for `arguments`, handed to JS for the first time (or again after JS let them go).
    fn insert(&mut self, arguments: SharedArguments) -> u32 {
        // Keys are not used again while they are held (after four billion, they start over at
        // 1, past those still held; 0 means "none").
        loop {
            self.last_key = self.last_key.checked_add(1).unwrap_or(1);
            if !self.by_key.contains_key(&self.last_key) {
                break;
            }
        }
        self.by_key.insert(self.last_key, arguments);
        self.last_key
    }

    /// No event of `key` is left in JS: its arguments go (unless a stream still grows them,
    /// whose next delta takes a new key).
    fn release(&mut self, key: u32) {
        if let Some(arguments) = self.by_key.remove(&key) {
            arguments.lock().key = 0;
        }
    }
}

/// The arguments of `key`, while JS holds them. One lookup for both functions that read them:
/// inlined in each, it was more of the module.
#[inline(never)]
fn held(key: u32) -> Option<SharedArguments> {
    HELD.with_borrow(|held| held.by_key.get(&key).cloned())
}

/// A string being read that crosses on its own, as the bytes JS has not read yet: this long at least.
const LONG: usize = crate::json::JsonOut::ASIDE_FROM;

/// What the getters call: `[read(key, end, from, known, open), release(key), grown(key, from,
/// known, string)]`, for the module's lifetime.
///
/// `read` gives the value, or, when the value ends inside a long string, `open` (an array JS
/// passes for it) holding `[value, path, from, bytes, rest, known]`: the value with `""` in that
/// string's place, its place (keys and indices), where it begins in the text, its length in
/// bytes and its bytes from `known` on. A value without a long string (most reads) crosses alone,
/// with no array made for it.
///
/// `from` and `known` name the string JS built at the last read of these arguments, and its
/// length: when it is this one, which only grew since, JS prepends it to `rest` (`known` is then
/// that length, else 0). A view reading every megabyte of a 20 MB argument otherwise decoded a
/// string as long as all it had read so far each time, 210 MB in all, which the engine held
/// until it collected it; now it decodes each byte once. The JS string so built is the one the
/// read value holds: the holder keeping it for the next read keeps no second copy of it.
///
/// The module builds only those bytes too ([`crate::clean::arguments::Arguments::parsed`]): a string it built whole at
/// every read, as long as all read so far, took a new place in its memory each time it outgrew
/// the last one's, so a 20 MB argument read every megabyte grew the module's memory by 40 MB
/// before its call; now by as much as the argument. When JS knew the bytes of another text (a
/// read at an earlier end, inside the string), the read is made again with none known.
///
/// `grown` says whether the string of `key`'s arguments JS built at the last read (`from`,
/// `known` bytes) is the start of the string JS keeps by `string` (a long string set aside in a
/// value handed over, such as the input of the call these arguments made). The module finds that
/// string by its key, not by an address JS passes: a page's script can call this too. JS then
/// hands that string over as the one it built and the bytes since, not a second copy of it: a
/// view that read a 20 MB argument as it streamed held it twice in JS once the call came, 40 MB.
pub(super) fn functions() -> Array {
    let read = Closure::<dyn Fn(u32, u32, u32, u32, Array) -> JsValue>::new(
        |key: u32, end: u32, from: u32, known: u32, out: Array| {
            let Some(arguments) = held(key) else { return JsValue::NULL };
            // One place that parses: called in two, the parser was in the module twice.
            let mut known = known as usize;
            let parsed = loop {
                let parsed = arguments.lock().parsed(end as usize, (from as usize, known));
                if known == 0 || !parsed.knew_wrongly() {
                    break parsed;
                }
                known = 0;
            };
            let (value, open) = parsed.into_value_open(LONG);
            let value = value.unwrap_or_else(|| json!({}));
            // No value handed over: JS finds no place to put the string in either.
            let Ok(value_js) = to_js(&value) else { return JsValue::NULL };
            let Some(open) = open else { return value_js };
            let path: Array = open
                .path
                .iter()
                .map(|step| match step {
                    Step::Index(i) => JsValue::from(*i as u32),
                    Step::Key(key) => JsValue::from_str(key),
                })
                .collect();
            out.set(0, value_js);
            out.set(1, path.into());
            out.set(2, (open.from as u32).into());
            out.set(3, ((open.known + open.text.len()) as u32).into());
            out.set(4, JsValue::from_str(&open.text));
            out.set(5, (open.known as u32).into());
            out.into()
        },
    );
    let release = Closure::<dyn Fn(u32)>::new(|key: u32| HELD.with_borrow_mut(|held| held.release(key)));
    let grown = Closure::<dyn Fn(u32, u32, u32, u32) -> bool>::new(|key: u32, from: u32, known: u32, string: u32| {
        let known = known as usize;
        let starts = |bytes: &[u8]| {
            bytes.len() == known
                && held(key).is_some_and(|arguments| arguments.lock().string_starts_with(from as usize, bytes))
        };
        super::read_handed(string, known, starts).unwrap_or(false)
    });
    let read: Function = read.into_js_value().unchecked_into();
    let release: Function = release.into_js_value().unchecked_into();
    let grown: Function = grown.into_js_value().unchecked_into();
    Array::of3(&read, &release, &grown)
}
