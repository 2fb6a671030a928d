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

use js_sys::Array;
use serde_json::json;
use wasm_bindgen::prelude::*;

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

/// A `tool_input_delta` event handed to JS: the key of its arguments, where in them (in bytes)
/// its delta ends, and whether the key is new (JS then learns the tool call's id with it, and
/// keeps it by the key: the later events of the key cross without it, so the caller must hand
/// every such event to JS). `(0, 0, true)` when the event carries no arguments (it has its
/// `partial_input` already).
///
/// The key is kept in the arguments, not found by their address in a map: hashing it (SipHash)
/// for every delta, with a share of the arguments taken and dropped, was a cost a text delta does
/// not have.
pub(super) fn handed(carried: &ToolArguments, delta: &str) -> (u32, u32, bool) {
    let Some(mut arguments) = SharedArguments::lock_carried(carried) else { return (0, 0, true) };
    let new = arguments.key == 0;
    if new {
        let Some(shared) = SharedArguments::of(carried) else { return (0, 0, true) };
        arguments.key = HELD.with_borrow_mut(|held| held.insert(shared));
    }
    arguments.handed += delta.len();
    (arguments.key, arguments.handed as u32, new)
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

// The JS of `tool_input_delta` events and their getters, in a module with model tool calls only
// (`functions` hands it to `handOver` in mod.rs, and to the package's JS): the agent module,
// whose events have none, leaves it out of its glue.
#[wasm_bindgen(inline_js = r#"
// A string set aside may begin with U+FEFF: it is kept.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
// A long string of a tool's input (`length` bytes at `at` in the module's memory, kept by `key`)
// that starts with the one the partial_input getters built as its arguments streamed
// (partial_input.rs, `grown`, which finds it by `key`): that string and the bytes since, one JS
// string with it, not a second copy. `grown` allocates nothing: `bytes` stays a view of the
// module's memory.
// Only the holder read last is tried: trying every holder made a hostile stream of many calls, each
// read as it streamed, cost its calls' count times its length; the call a view read last is the
// one whose input comes next.
export function grownInput(bytes, at, length, key, partial) {
  const holder = lastOpen?.deref();
  const last = holder?.last;
  if (last !== undefined && last.bytes <= length && partial[2](holder.key, last.from, last.bytes, key)) {
    return last.string + decoder.decode(bytes.subarray(at + last.bytes, at + length));
  }
}
// The arguments the module holds for `tool_input_delta` events, by key: every event of a key
// holds one object of it, and the module lets the arguments go once no such object is left.
const holders = new Map(); // key -> WeakRef of the object the key's new events hold
const holderCounts = new Map(); // key -> how many of those objects are not collected yet
// key -> the id of the tool call whose arguments the key names: the module hands it over with the
// key's first event only, "" with the others (decoding the id's bytes again for every delta was
// most of what a delta's push decoded). Kept by the key, not on the holder: the holder can be
// collected while the key is still held (its finalizer has not run yet), and the key's next event
// then makes a new holder, which must still find the id.
const ids = new Map();
const collected = new FinalizationRegistry(({ key, release }) => {
  const left = holderCounts.get(key) - 1;
  if (left > 0) return holderCounts.set(key, left);
  holderCounts.delete(key);
  holders.delete(key);
  ids.delete(key);
  release(key);
});
// What a tool_input_delta's `partial_input` getter reads, kept on the event under a symbol (not
// enumerable: the event's keys and JSON stay those of a plain object): the holder of its
// arguments' key and where its delta ends in them, then the value once read. The getter reads it
// through `this`, so a proxy of the event, an object inheriting from it or a copy of its property
// descriptors reads it too (private fields could be read only on the event itself). One getter
// serves every event: a getter written in each event's object literal, or one closure per event
// (a different getter for each event makes the engine give the object a dictionary of its own),
// cost more than the two definitions here (callgrind on Node: 4,945 and 6,186 instructions an
// event, against 3,763 for these two and 4,274 for two Object.defineProperty calls). Neither
// definition has a cheaper form (the event alone built in a loop, callgrind on Node): one
// descriptor object reused for every event, or the state defined before the getter, cost the same
// (3,857 and 3,826 against 3,825 for the form here), and `partial_input: undefined` in the
// literal, then made a getter, cost 5,933 (redefining a field as an accessor takes the object off
// the engine's shared shapes).
const STATE = Symbol("partial_input");
function partialInput() {
  const state = this[STATE];
  if (state.value === undefined) state.value = readPartial(state.holder, state.end);
  return state.value;
}
// The value of the arguments of `holder`'s key up to `end` (read in partial_input.rs). A value
// ending inside a long string gets that string apart: the one built at the last read, when it is
// the same string (it only grew since), followed by the bytes that came since. The holder keeps
// the last one built, until a read at or past its end comes back without a long string open: the
// arguments only grow, so that string has ended, and every later read would hand it to the module
// only for the module to find so and read the arguments a second time.
const OPEN = []; // what a read ending inside a long string fills (reads do not nest)
let lastOpen; // WeakRef of the holder whose read last ended inside a long string (grownInput)
function readPartial(holder, end) {
  const last = holder.last;
  const read = holder.read(holder.key, end, last?.from ?? 0, last?.bytes ?? 0, OPEN);
  if (read !== OPEN) {
    if (last !== undefined && end >= last.end) holder.last = undefined;
    return read;
  }
  const [value, path, from, bytes, marked, known] = OPEN;
  OPEN.length = 0; // holds no string past the read
  const rest = oldCopy(marked, String(end).length);
  const string = known === 0 ? rest : last.string + rest;
  holder.last = { from, bytes, string, end };
  if (lastOpen?.deref() !== holder) lastOpen = new WeakRef(holder);
  if (path.length === 0) return string;
  let at = value;
  for (let j = 0; j < path.length - 1; j++) at = at[path[j]];
  // Set as JSON.parse sets it: a key "__proto__" is the object's own field (it holds "" now).
  Object.defineProperty(at, path[path.length - 1], { value: string, writable: true, enumerable: true, configurable: true });
  return value;
}
// An object in dictionary mode (made with no prototype), whose one property `oldCopy` sets and deletes.
const NAMES = Object.create(null);
// `marked`, the bytes a read hands over after their mark (partial_input.rs, `marked`), without
// the mark (its first `mark` characters), as V8 (Node, Chromium) holds a property's name: a flat
// string in its string table, which it allocates in the old generation. Handed over, the string
// is allocated in the young one; kept for the next read and for the call's input, each one
// survived the young generation's collections, and that much surviving grew its semi-spaces (a
// view reading a 20 MB argument every megabyte: 28 MB). The mark, where the read ends, makes each
// read's name its own: V8 hashes a long name by its length alone, and a view that reads every so
// many bytes hands over strings of one length, which it would compare whole when they begin
// alike; equal ones it would make one string (bench-js/memory.js's argument, one piece repeated,
// would then be held once: a saving no real argument gets). Another engine gives back an equal
// string all the same.
function oldCopy(marked, mark) {
  NAMES[marked] = 0;
  let name = marked;
  for (name in NAMES);
  delete NAMES[name];
  return name.slice(mark);
}
// A tool_input_delta event. Its `partial_input` is the arguments of its tool call up to this
// event's delta, parsed by the module on the first read. `__defineGetter__` defines the
// enumerable, configurable accessor `Object.defineProperty` would, without reading a descriptor
// object (1,454 instructions against 1,965, in V8: Chromium and Node). It is a legacy method of
// the language standard (its Annex B), which every browser engine and Node have. `id` is "" after
// the key's first event: the key's id is then found in `ids`.
export function toolInputDelta(id, delta, key, end, partial) {
  if (id === "") id = ids.get(key) ?? "";
  else ids.set(key, id);
  let holder = holders.get(key)?.deref();
  if (holder === undefined) {
    holder = { key, read: partial[0], last: undefined };
    holders.set(key, new WeakRef(holder));
    holderCounts.set(key, (holderCounts.get(key) ?? 0) + 1);
    collected.register(holder, { key, release: partial[1] });
  }
  const event = { type: "tool_input_delta", tool_use_id: id, delta };
  event.__defineGetter__("partial_input", partialInput);
  Object.defineProperty(event, STATE, { value: { holder, end, value: undefined } });
  return event;
}
// What `functions` hands over: the module's three, then the two above.
export function withToolInputJs(read, release, grown) {
  return [read, release, grown, toolInputDelta, grownInput];
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = withToolInputJs)]
    fn with_tool_input_js(read: &JsValue, release: &JsValue, grown: &JsValue) -> JsValue;
}

/// `text` after a mark, `end` in decimal digits, which the getters' `oldCopy` takes off again.
fn marked(text: &str, end: u32) -> String {
    [&end.to_string(), text].concat()
}

/// What the getters call: `[read(key, end, from, known, open), release(key), grown(key, from,
/// known, string)]`, then the JS above that `handOver` (mod.rs) and the package's JS call:
/// `toolInputDelta(id, delta, key, end, partial)` and `grownInput(bytes, at, length, key, partial)`,
/// which are handed these; for the module's lifetime.
///
/// `read` gives the value, or, when the value ends inside a long string, `open` (an array JS
/// passes for it) holding `[value, path, from, bytes, rest, known]`: the value with `""` in that
/// string's place, its place (keys and indices), where it begins in the text, its length in
/// bytes and its bytes from `known` on (after a mark: [`marked`]). A value without a long string
/// (most reads) crosses alone, with no array made for it.
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
pub(super) fn functions() -> JsValue {
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
            out.set(4, JsValue::from_str(&marked(&open.text, end)));
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
    with_tool_input_js(&read.into_js_value(), &release.into_js_value(), &grown.into_js_value())
}
