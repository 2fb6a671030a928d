//! The JS bindings: a thin conversion layer over the core.
//!
//! What a call returns crosses to JS in one hand-over ([`HandOver`]): one string, decoded once,
//! and a layout saying how to cut it, which one JS function builds into objects. Text and
//! thinking deltas (nearly every event of a long answer) and the session's `appendText` patch
//! are built there from slices of that string; the other values cross as JSON text in the same
//! string, parsed by the engine's `JSON.parse` (one copy instead of one allocation per field, and
//! no serializer in the module), with their long strings (an answer's text, a tool's input) set
//! aside as strings of their own, each once however many values hold it. A crossing costs more
//! than building a small object, so a push costs one crossing, not one per event, field or string.

#[cfg(feature = "ai-sdk")]
pub mod ai_sdk;
mod args;
pub mod errors;
mod partial_input;
pub mod resolve;
pub mod session;
pub mod stream;

use std::cell::{Cell, RefCell};

use js_sys::{Array, Function, Map};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::event::StreamEvent;
use crate::json::{to_json, JsonOut, ToJson};
use partial_input::PartialInputs;

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

/// Converts a Rust value to a plain JS value.
pub(crate) fn to_js<T: ToJson + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let mut hand = HandOver::default();
    hand.value(&value);
    let js = hand.list(None).get(0);
    if js.is_undefined() {
        return Err(JsError::new("internal error: could not hand a value to JS"));
    }
    Ok(js)
}

/// Events as a JS array.
pub(crate) fn events_to_js(events: &[StreamEvent]) -> Array {
    let mut hand = HandOver::default();
    events.iter().for_each(|event| hand.event(event));
    hand.list(None)
}

/// What one call hands to JS, gathered item by item, then built in one crossing.
#[derive(Default)]
pub(crate) struct HandOver<'a> {
    /// The texts of the text items, one after another.
    texts: String,
    /// The layout: a head (see [`HandOver::build`]), then per item its [`Op`] and a text item's
    /// length in UTF-16 code units (what JS slices by).
    layout: Vec<u32>,
    /// The values that cross as JSON text.
    values: Vec<&'a dyn ToJson>,
    /// The last text item's text: an equal one that follows shares its JS string.
    last_text: Option<&'a str>,
}

/// What an item of the layout is (`handOver` below reads the same numbers).
#[derive(Clone, Copy)]
pub(crate) enum Op {
    TextDelta = 0,
    ThinkingDelta = 1,
    AppendText = 2,
    Value = 3,
    /// A `tool_input_delta` event, which gets its `partial_input` getter.
    ToolInputDelta = 4,
    /// The end of a list: the items after it make the next one.
    EndList = 5,
}

/// A text item's length that stands for "the same text as the last text item".
const SAME_TEXT: u32 = u32::MAX;

/// The layout's head: the lengths of the JSON text of the values and of the mark, and how many
/// strings were set aside (their lengths end the layout).
const HEAD: usize = 3;

impl<'a> HandOver<'a> {
    /// A clean event: text and thinking deltas as text items, the others as values.
    pub(crate) fn event(&mut self, event: &'a StreamEvent) {
        match event {
            StreamEvent::TextDelta { text } => self.text(Op::TextDelta, text),
            StreamEvent::ThinkingDelta { text } => self.text(Op::ThinkingDelta, text),
            StreamEvent::ToolInputDelta { .. } => self.push_value(Op::ToolInputDelta, event),
            _ => self.push_value(Op::Value, event),
        }
    }

    /// `{ type: "text_delta" | "thinking_delta", text }` or `{ op: "appendText", text }`.
    pub(crate) fn text(&mut self, op: Op, text: &'a str) {
        self.push_op(op);
        if self.last_text == Some(text) {
            self.layout.push(SAME_TEXT);
        } else {
            self.layout.push(utf16_len(text));
            self.texts.push_str(text);
            self.last_text = Some(text);
        }
    }

    /// Any value, through JSON.
    pub(crate) fn value(&mut self, value: &'a dyn ToJson) {
        self.push_value(Op::Value, value);
    }

    fn push_value(&mut self, op: Op, value: &'a dyn ToJson) {
        self.push_op(op);
        self.values.push(value);
    }

    /// Ends a list: what follows goes into the next one (see [`HandOver::lists`]).
    pub(crate) fn end_list(&mut self) {
        self.push_op(Op::EndList);
    }

    /// An item's op, after the layout's head (left out while there is no item: an empty push
    /// allocates nothing).
    fn push_op(&mut self, op: Op) {
        if self.layout.is_empty() {
            self.layout.extend([0; HEAD]);
        }
        self.layout.push(op as u32);
    }

    /// The items as one JS array; `inputs` keeps the stream's tool arguments for `partial_input`.
    pub(crate) fn list(self, inputs: Option<&PartialInputs>) -> Array {
        if self.layout.is_empty() {
            return Array::new();
        }
        self.build(false, inputs).unchecked_into()
    }

    /// The items as a JS array of arrays, one per [`HandOver::end_list`] and one after the last.
    pub(crate) fn lists(self, inputs: Option<&PartialInputs>) -> Array {
        self.build(true, inputs).unchecked_into()
    }

    /// The string begins with the JSON text of the values, the mark (when strings were set
    /// aside) and each string set aside, in that order; the texts of the text items follow.
    fn build(mut self, many: bool, inputs: Option<&PartialInputs>) -> JsValue {
        if self.layout.is_empty() {
            self.layout.extend([0; HEAD]);
        }
        let text = if self.values.is_empty() {
            self.texts
        } else {
            let mark = ASIDE_MARK.with(Clone::clone);
            let (mut text, aside) = values_json(&self.values, &mark);
            let mark = if aside.is_empty() { "" } else { mark.as_str() };
            self.layout[..HEAD].copy_from_slice(&[utf16_len(&text), utf16_len(mark), aside.len() as u32]);
            self.layout.extend(aside.iter().map(|s| utf16_len(s)));
            text.push_str(mark);
            aside.iter().for_each(|s| text.push_str(s));
            text.push_str(&self.texts);
            text
        };
        match inputs {
            Some(inputs) => {
                PARSE.with(|parse| hand_over(&text, &self.layout, many, Some(&inputs.arguments), Some(parse)))
            }
            None => hand_over(&text, &self.layout, many, None, None),
        }
    }
}

/// The JSON text of `values` as one array (empty for none), and the strings set aside from it.
fn values_json(values: &[&dyn ToJson], mark: &str) -> (String, Vec<String>) {
    if values.is_empty() {
        return (String::new(), Vec::new());
    }
    let mut out = JsonOut::setting_aside(mark.to_owned());
    values.write_json(&mut out);
    let (text, set_aside) = out.take_text_counted();
    if text.matches(mark).count() == set_aside {
        return (text, out.aside().to_vec());
    }
    // A string of the values themselves holds the mark (it is random: never by design). Then
    // nothing is set aside.
    (to_json(values), Vec::new())
}

/// A string's length in UTF-16 code units, as JS counts it.
fn utf16_len(text: &str) -> u32 {
    let units = if text.is_ascii() { text.len() } else { text.chars().map(char::len_utf16).sum() };
    units as u32
}

thread_local! {
    /// What marks a string set aside in the JSON text: random, so that no stream can write it.
    static ASIDE_MARK: String = {
        let half = || (js_sys::Math::random() * 4_294_967_296.0) as u64;
        format!("~chatstream-{:016x}~", half() << 32 | half())
    };
    /// What a `partial_input` getter calls: one closure for the module's lifetime.
    static PARSE: Function = partial_input::parser();
}

#[wasm_bindgen(inline_js = r#"
const SAME_TEXT = 4294967295;
export function handOver(text, layout, many, inputs, parse) {
  let at = 0;
  let i = 0;
  const cut = (n) => text.slice(at, (at += n));
  const json = cut(layout[i++]);
  const mark = cut(layout[i++]);
  const aside = [];
  const end = layout.length - layout[i++];
  for (let j = end; j < layout.length; j++) aside.push(cut(layout[j]));
  let values;
  if (aside.length > 0) {
    values = JSON.parse(json, (key, value) =>
      typeof value === "string" && value.startsWith(mark) ? aside[value.slice(mark.length)] : value);
  } else if (json !== "") {
    values = JSON.parse(json);
  }
  const lists = many ? [] : undefined;
  let list = [];
  let v = 0;
  let last = "";
  while (i < end) {
    const op = layout[i++];
    if (op <= 2) {
      const n = layout[i++];
      if (n !== SAME_TEXT) last = cut(n);
      list.push(op === 2 ? { op: "appendText", text: last } : { type: op === 0 ? "text_delta" : "thinking_delta", text: last });
    } else if (op === 3) {
      list.push(values[v++]);
    } else if (op === 4) {
      const event = values[v++];
      if (inputs) attachPartialInput(event, inputs, parse);
      list.push(event);
    } else {
      lists.push(list);
      list = [];
    }
  }
  if (!many) return list;
  lists.push(list);
  return lists;
}
// The arguments of the event's tool call so far (appending is cheap: V8 strings are ropes), parsed
// on the first read of its `partial_input`.
function attachPartialInput(event, inputs, parse) {
  const args = (inputs.get(event.tool_use_id) ?? "") + event.delta;
  inputs.set(event.tool_use_id, args);
  let value;
  Object.defineProperty(event, "partial_input", {
    enumerable: true,
    configurable: true,
    get() {
      if (value === undefined) value = parse(args);
      return value;
    },
  });
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = handOver)]
    fn hand_over(text: &str, layout: &[u32], many: bool, inputs: Option<&Map>, parse: Option<&Function>) -> JsValue;
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
