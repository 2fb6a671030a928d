//! `partial_input` on the JS side: computed when first read, not on every push.
//!
//! A tool input's `partial_input` is as large as its arguments so far. Handing it to JS with
//! every `tool_input_delta` (serialize, copy, `JSON.parse`) made the cost per chunk grow with
//! the input, so a 1 MB tool input cost about 5× more per delta than a 1 KB one (BENCHMARKS.md).
//! Instead the pipeline leaves the field out ([`crate::clean::CleanOptions::partial_input`]),
//! each stream keeps its tool calls' arguments as JS strings (appending is cheap: V8 strings are
//! ropes), and every `tool_input_delta` gets an enumerable getter that parses the arguments as
//! they were at that event, once, on first read. Reading every event's value costs what it
//! did before; not reading it costs nothing.

use std::collections::HashMap;

use js_sys::{Function, JsString};
use wasm_bindgen::prelude::*;

use super::to_js;
use crate::clean;
use crate::event::StreamEvent;

#[wasm_bindgen(inline_js = r#"
export function attachPartialInput(event, args, parse) {
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
    #[wasm_bindgen(js_name = attachPartialInput)]
    fn attach_partial_input(event: &JsValue, args: &JsString, parse: &Function);
}

thread_local! {
    /// The parser the getters call: one closure for the module's lifetime.
    static PARSE: Function = Closure::<dyn Fn(String) -> JsValue>::new(|args: String| {
        to_js(&clean::partial_input(&args)).unwrap_or(JsValue::NULL)
    })
    .into_js_value()
    .unchecked_into();
}

/// One stream's tool call arguments so far, by tool call id.
#[derive(Default)]
pub(crate) struct PartialInputs {
    arguments: HashMap<String, JsString>,
}

impl PartialInputs {
    /// Gives `value`, the JS object of `event`, its `partial_input` getter when it is a
    /// `tool_input_delta`.
    pub(crate) fn attach(&mut self, event: &StreamEvent, value: &JsValue) {
        let StreamEvent::ToolInputDelta { tool_use_id, delta, .. } = event else { return };
        let delta = JsString::from(delta.as_str());
        let args = match self.arguments.get(tool_use_id) {
            Some(before) => before.concat(&delta),
            None => delta,
        };
        PARSE.with(|parse| attach_partial_input(value, &args, parse));
        self.arguments.insert(tool_use_id.clone(), args);
    }
}
