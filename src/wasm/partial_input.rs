//! `partial_input` on the JS side: computed when first read, not on every push.
//!
//! A tool input's `partial_input` is as large as its arguments so far. Handing it to JS with
//! every `tool_input_delta` (serialize, copy, `JSON.parse`) made the cost per chunk grow with
//! the input, so a 1 MB tool input cost about 5× more per delta than a 1 KB one (BENCHMARKS.md).
//! Instead the pipeline leaves the field out ([`crate::clean::CleanOptions::partial_input`]),
//! each stream keeps its tool calls' arguments as JS strings, and every `tool_input_delta` gets
//! an enumerable getter that parses the arguments as they were at that event, once, on first
//! read (the hand-over does both: `attachPartialInput` in `mod.rs`). Reading every event's value
//! costs what it did before; not reading it costs nothing.

use js_sys::{Function, Map};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::to_js;
use crate::clean;

/// One stream's tool call arguments so far, by tool call id (JS strings in a JS `Map`).
pub(crate) struct PartialInputs {
    pub(super) arguments: Map,
}

impl Default for PartialInputs {
    fn default() -> PartialInputs {
        PartialInputs { arguments: Map::new() }
    }
}

/// The parser the getters call.
pub(super) fn parser() -> Function {
    Closure::<dyn Fn(String) -> JsValue>::new(|args: String| {
        to_js(&clean::partial_input(&args)).unwrap_or(JsValue::NULL)
    })
    .into_js_value()
    .unchecked_into()
}
