//! The JS bindings: a thin conversion layer over the core.
//!
//! What a call returns crosses to JS in one hand-over ([`HandOver`]): one string, decoded once, and
//! a layout saying how to cut it, which one JS function builds into objects. Text and thinking
//! deltas (nearly every event of a long answer), the session's text patches (`appendText`,
//! `appendThinking`, `startThinking`, `startTextPart`), the session's `set`, `push` and `setAt`
//! patches (but for a value that is a message or the messages, a segment, a part, the whole state
//! or large), and the `tool_start`, `tool_input_delta`, `tool_call`, `complete` and `error` events
//! are built there from slices of that string; the other values cross as JSON text in the same
//! string, parsed by the engine's `JSON.parse` (one copy instead of one allocation per field, and
//! no serializer in the module), with their long strings (an answer's text, a tool's input) set
//! aside as strings of their own, each once however many values hold it, and read by JS from where
//! the values hold them: a long value is not copied into the hand-over. A crossing costs more than building a small object, so a push costs one
//! crossing, not one per event, field or string.

// A module without the event pipeline's bindings (the `events` feature; the AI SDK entry's)
// leaves the hand-over below unused: it is not linked in.
#![cfg_attr(not(feature = "events"), allow(dead_code, unused_imports))]

#[cfg(feature = "ai-sdk")]
pub mod ai_sdk;
mod args;
pub mod errors;
#[cfg(feature = "model-tool-calls")]
mod partial_input;
#[cfg(feature = "events")]
pub mod resolve;
#[cfg(feature = "events")]
pub mod session;
#[cfg(feature = "events")]
pub mod stream;

use std::cell::{Cell, RefCell};

use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::clean::matching::find;
use crate::event::{CompletePayload, Segment, StreamEvent};
use crate::json::{to_json, AsideString, JsonOut, Shared, ToJson};
#[cfg(feature = "events")]
use crate::state::{ChatState, PatchValue};

/// Converts a Rust value to a plain JS value.
pub(crate) fn to_js<T: ToJson + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let mut hand = HandOver::default();
    hand.value(&value);
    let js = hand.list().get(0);
    if js.is_undefined() {
        return Err(JsError::new("internal error: could not hand a value to JS"));
    }
    Ok(js)
}

/// Events as a JS array.
pub(crate) fn events_to_js(events: &[StreamEvent]) -> Array {
    let mut hand = HandOver::default();
    events.iter().for_each(|event| hand.event(event));
    hand.list()
}

/// What one call hands to JS, gathered item by item, then built in one crossing.
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
    /// The last tool input delta's tool call id, likewise.
    #[cfg(feature = "model-tool-calls")]
    last_id: Option<&'a str>,
    /// The long strings of the items (an answer's text in `complete`), handed over as the strings
    /// the values set aside are, before theirs: each once, and one JS string with an equal one of
    /// the values (the session's message that holds the same answer).
    long: Vec<AsideString<'a>>,
    /// Set when `complete`'s text is the text deltas the stream handed out, joined: their length
    /// in UTF-16 units (see [`HandOver::counted_events`]).
    deltas_joined: Option<u32>,
}

/// A text item: its length in the layout and its text in `texts`, or [`SAME_TEXT`] when it is
/// `last`. Returns its length in UTF-16 units.
fn text_item<'a>(layout: &mut Vec<u32>, texts: &mut String, last: &mut Option<&'a str>, text: &'a str) -> u32 {
    if *last == Some(text) {
        layout.push(SAME_TEXT);
        utf16_len(text)
    } else {
        let units = utf16_len(text);
        layout.push(units);
        texts.push_str(text);
        *last = Some(text);
        units
    }
}

impl Default for HandOver<'_> {
    /// An empty hand-over, its buffers the last one's (see [`BUFFERS`]) unless they grew large.
    fn default() -> Self {
        let (mut texts, mut layout) = BUFFERS.take();
        if texts.capacity() > KEEP_CAPACITY || layout.capacity() > KEEP_CAPACITY / 4 {
            (texts, layout) = (String::new(), Vec::new());
        }
        texts.clear();
        layout.clear();
        HandOver {
            texts,
            layout,
            values: Vec::new(),
            last_text: None,
            #[cfg(feature = "model-tool-calls")]
            last_id: None,
            long: Vec::new(),
            deltas_joined: None,
        }
    }
}

/// The largest buffers kept for the next hand-over: one a push is a few hundred bytes, and a
/// stream of huge pushes should not pin their size for the page's lifetime.
const KEEP_CAPACITY: usize = 64 * 1024;

thread_local! {
    /// The text and layout buffers of the last hand-over, for the next. A live read hands over
    /// one frame's events per push: allocating two buffers for each was a measurable part of a
    /// push (the allocator was a quarter of a profile of live pushes). The hand-over
    /// [`HandOver::into_memory`] left in the module's memory is read there by the package's
    /// `ChatStream` (`api.js`) when its call returns: the next call's hand-over may reuse them.
    static BUFFERS: Cell<(String, Vec<u32>)> = const { Cell::new((String::new(), Vec::new())) };
    /// Where that hand-over is: its text's address and length in bytes (UTF-8), its layout's
    /// address. JS reads these three words at the address `__handOverParts` gives.
    static RECORD: [Cell<u32>; 3] = const { [Cell::new(0), Cell::new(0), Cell::new(0)] };
}

/// What an item of the layout is (`handOver` below reads the same numbers).
#[derive(Clone, Copy)]
pub(crate) enum Op {
    TextDelta = 0,
    ThinkingDelta = 1,
    AppendText = 2,
    Value = 3,
    /// A `tool_input_delta` event (two text items: its tool call's id, `""` after the first event
    /// of its key, and its delta; then the key of its arguments and where its delta ends in
    /// them), which gets its `partial_input` getter.
    #[cfg(feature = "model-tool-calls")]
    ToolInputDelta = 4,
    /// The end of a list: the items after it make the next one.
    EndList = 5,
    /// A session's `{ op: "appendThinking", text }` (a text item, as `AppendText`).
    AppendThinking = 6,
    /// A session's `{ op: "startThinking", text }` (a text item, as `AppendText`).
    StartThinking = 7,
    /// A session's `{ op: "startTextPart", text }` (a text item, as `AppendText`). The package's
    /// JS (`api.js`) builds the session patches of ops 2 and 6-8 by these numbers too.
    StartTextPart = 8,
    /// A `complete` event, field by field (see [`HandOver::complete`]).
    Complete = 9,
    /// An `error` event: its code, message and field as strings of `complete` are (the field
    /// `null` when it has none).
    Error = 10,
    /// A `tool_start` or `tool_call` event, field by field (see [`HandOver::tool`]).
    Tool = 11,
    /// A session's `set`, `push` or `setAt` patch, field by field (see [`HandOver::keyed_patch`]).
    KeyedPatch = 12,
}

/// The kind of an [`Op::KeyedPatch`] item (`keyedPatch` in JS reads the same numbers).
#[cfg(feature = "events")]
#[derive(Clone, Copy)]
pub(crate) enum PatchKind {
    Set = 0,
    Push = 1,
    SetAt = 2,
}

/// The kind of an [`Op::Tool`] item, in bits: `tool_call` (else `tool_start`), then its
/// `incomplete: true`, then its `arguments` (each key left out without its bit, as JSON text
/// leaves it out).
const TOOL_START: u32 = 0;
#[cfg(feature = "model-tool-calls")]
const TOOL_CALL: u32 = 1;
#[cfg(feature = "model-tool-calls")]
const TOOL_INCOMPLETE: u32 = 2;
const TOOL_ARGUMENTS: u32 = 4;

/// A text item's length that stands for "the same text as the last text item".
const SAME_TEXT: u32 = u32::MAX;
/// A text item's length that stands for `null` (in `complete` only).
const NULL_TEXT: u32 = u32::MAX - 1;
/// A text item's length that stands for a long string (in `complete` only): the next word is its
/// place among the strings set aside.
const LONG_TEXT: u32 = u32::MAX - 2;
/// A text item's length that stands for the text deltas the stream handed out, joined (in
/// `complete` only, by a `ChatStream`), which JS holds already: the next word is their length in
/// UTF-16 units, which JS checks.
const JOINED_TEXT: u32 = u32::MAX - 3;

/// The layout's head: the lengths of the JSON text of the values and of the mark, how many
/// strings were set aside and how many keys of [`HANDED`] JS lets go. The layout ends with the
/// address, length in bytes and key of each string set aside, then the keys let go.
const HEAD: usize = 4;

impl<'a> HandOver<'a> {
    /// A clean event: text and thinking deltas as text items, the others as values.
    pub(crate) fn event(&mut self, event: &'a StreamEvent) {
        match event {
            StreamEvent::TextDelta { text } => _ = self.text_delta(text),
            StreamEvent::ThinkingDelta { text } => self.text(Op::ThinkingDelta, text),
            // Its id and delta as two text items, not through JSON: a streamed tool call is
            // thousands of these, and JSON.parse then a property redefined for `partial_input`
            // were a third of a live push of one (the JS side builds it with its getter).
            #[cfg(feature = "model-tool-calls")]
            StreamEvent::ToolInputDelta { tool_use_id, delta, partial_input: serde_json::Value::Null, arguments } => {
                self.push_op(Op::ToolInputDelta);
                let (key, end, new) = partial_input::handed(arguments, delta);
                // The id crosses with the key's first event only: JS keeps it by the key (`ids` in
                // partial_input.rs), so the later deltas' pushes do not decode it again.
                let id = if new { tool_use_id } else { "" };
                text_item(&mut self.layout, &mut self.texts, &mut self.last_id, id);
                text_item(&mut self.layout, &mut self.texts, &mut self.last_text, delta);
                self.layout.extend([key, end]);
            }
            StreamEvent::ToolStart { tool_use_id, tool, index, input } => {
                self.tool(TOOL_START, tool_use_id, tool, *index, input, None);
            }
            #[cfg(feature = "model-tool-calls")]
            StreamEvent::ToolCall { tool_use_id, tool, index, input, incomplete, arguments } => {
                let kind = TOOL_CALL | if *incomplete { TOOL_INCOMPLETE } else { 0 };
                self.tool(kind, tool_use_id, tool, *index, input, arguments.as_deref());
            }
            StreamEvent::Complete { payload } => self.complete(payload),
            // Field by field, not through JSON: a stream that ends early (or a provider's error)
            // then hands over no JSON at all, and JS parses none.
            StreamEvent::Error { code, message, field } => {
                self.push_op(Op::Error);
                self.string(Some(code.as_str()));
                self.string(Some(message));
                self.string(field.as_deref());
            }
            _ => self.push_value(Op::Value, event),
        }
    }

    /// A `tool_start` or `tool_call` event, built by JS field by field (`toolEvent`) rather than
    /// parsed from JSON: a tool call's two events were its only values through JSON
    /// (gemini/tool-call.sse read live: 74,879 instructions an event through JSON, 65,265 this way;
    /// callgrind on Node, run side by side). `kind` is [`TOOL_START`] or [`TOOL_CALL`] with
    /// [`TOOL_INCOMPLETE`]; [`TOOL_ARGUMENTS`] is added when it has `arguments`. Its strings and
    /// `input` cross as `complete`'s do, in the order of its JSON text's keys.
    fn tool(
        &mut self,
        kind: u32,
        id: &'a str,
        tool: &'a str,
        index: u32,
        input: &'a Shared,
        arguments: Option<&'a str>,
    ) {
        self.push_op(Op::Tool);
        self.layout.push(kind | if arguments.is_some() { TOOL_ARGUMENTS } else { 0 });
        self.string(Some(id));
        self.string(Some(tool));
        self.layout.push(index);
        self.shared(input);
        if arguments.is_some() {
            self.string(arguments);
        }
    }

    /// `{ type: "complete", payload }`, built by JS field by field rather than parsed from JSON: a
    /// stream made and finished with nothing pushed costs 46,001 instructions so, 63,182 with its
    /// `complete` through JSON (callgrind on Node, 10,000 streams a pass). Its strings are text items
    /// (long ones set aside), its numbers words, and only the JSON values it holds (tools' inputs and
    /// outputs, payloads, the backend's extra fields) cross as values. The JS side (`completePayload`)
    /// reads the items in this order and writes the keys in the order of [`CompletePayload`]'s
    /// declaration, as its JSON text has them.
    fn complete(&mut self, payload: &'a CompletePayload) {
        self.push_op(Op::Complete);
        self.answer(payload.message.as_str(), payload);
        self.answer(payload.text.as_str(), payload);
        self.string(payload.thinking.as_deref());
        self.layout.push(payload.segments.len() as u32);
        for segment in &payload.segments {
            match segment {
                Segment::Text { text } => {
                    self.layout.push(0);
                    self.answer(text.as_str(), payload);
                }
                Segment::Tool { index, tool_use_id, tool, input, output, is_error } => {
                    self.layout.extend([1, *index]);
                    self.string(tool_use_id.as_deref());
                    self.string(tool.as_deref());
                    self.shared(input);
                    self.shared(output);
                    self.layout.push(u32::from(*is_error));
                }
            }
        }
        self.layout.push(payload.tool_history.len() as u32);
        for record in &payload.tool_history {
            self.string(Some(record.tool_name.as_str()));
            self.string(Some(record.tool_use_id.as_str()));
            self.shared(&record.input);
            self.shared(&record.output);
            self.layout.push(u32::from(record.is_error));
        }
        for value in [&payload.suggested_values, &payload.suggested_actions, &payload.custom_payload] {
            self.json(value.as_ref());
        }
        self.string(payload.finish_reason.as_ref().map(|reason| reason.as_str()));
        match &payload.usage {
            Some(usage) => {
                self.layout.push(1);
                let counts = [usage.input_tokens, usage.output_tokens, usage.reasoning_tokens];
                for count in counts.into_iter().chain([usage.cached_input_tokens, usage.total_tokens]) {
                    self.number(count);
                }
            }
            None => self.layout.push(0),
        }
        self.number((payload.invalid_utf8 != 0).then_some(payload.invalid_utf8));
        self.layout.push(payload.extra.len() as u32);
        for (key, value) in &payload.extra {
            self.string(Some(key.as_str()));
            self.json(Some(value));
        }
    }

    /// `{ op, key, value }` (with `at` after `key` for `setAt`), built by JS field by field rather
    /// than parsed from JSON: a turn's small patches (`isLoading`, `phase`, `statusText`, an emptied
    /// list) were most of its patches' JSON text, and with none left a step's patches cross without
    /// `JSON.parse`. A value that is not a small JSON value (a message or the messages, a segment,
    /// a part, the whole state, a large value) still crosses as JSON text, among the values.
    #[cfg(feature = "events")]
    pub(crate) fn keyed_patch(&mut self, kind: PatchKind, key: &'a str, at: usize, value: &'a PatchValue) {
        self.push_op(Op::KeyedPatch);
        self.layout.push(kind as u32);
        self.string(Some(key));
        if let PatchKind::SetAt = kind {
            // A list's index: wasm32's sizes are 32 bits.
            self.layout.push(at as u32);
        }
        match value {
            PatchValue::Json(value) => self.json(Some(value)),
            other => {
                self.layout.push(1);
                self.values.push(other);
            }
        }
    }

    /// Clean events ([`HandOver::event`]), counting the text deltas among them into `counted`
    /// (their length in bytes and in UTF-16 units since the last `complete`, where the count
    /// starts again: no text follows it). A `complete` whose text `joined` says is those deltas
    /// (given the payload and the bytes counted) crosses as them, [`JOINED_TEXT`], which the
    /// package's JS joined as it built each `text_delta` (api.js, session.js) and checks by its
    /// length in UTF-16 units, throwing rather than hand out another text. A `ChatStream` and a
    /// `ChatSession` count their own.
    pub(crate) fn counted_events(
        &mut self,
        events: &'a [StreamEvent],
        counted: &Cell<(usize, u32)>,
        joined: impl Fn(&CompletePayload, usize) -> bool,
    ) {
        let (mut bytes, mut units) = counted.get();
        for event in events {
            match event {
                StreamEvent::TextDelta { text } => {
                    bytes = bytes.wrapping_add(text.len());
                    units = units.wrapping_add(self.text_delta(text));
                    continue;
                }
                StreamEvent::Complete { payload } => {
                    if joined(payload, bytes) {
                        self.deltas_joined = Some(units);
                    }
                    (bytes, units) = (0, 0);
                }
                _ => {}
            }
            self.event(event);
        }
        counted.set((bytes, units));
    }

    /// A string of `complete` that may be its text (its `message` and text segment are the same
    /// copy when no tool ran): [`JOINED_TEXT`] when it is, and that text is the text deltas
    /// joined. Decoding it again was about half of a live push of a long answer that is not ASCII
    /// (ollama/simple-stream.ndjson in Chromium: 10 ms of `TextDecoder.decode` for its 2.1 MB).
    fn answer(&mut self, text: &'a str, payload: &CompletePayload) {
        match self.deltas_joined {
            // The same copy, not compared: comparing a long answer byte by byte costs a pass over it.
            Some(units) if std::ptr::eq(text, payload.text.as_str()) => self.layout.extend([JOINED_TEXT, units]),
            _ => self.string(Some(text)),
        }
    }

    /// A string of `complete` or `error`, or `null`: a text item, or the place of a long one among the
    /// strings set aside.
    fn string(&mut self, text: Option<&'a str>) {
        match text {
            None => self.layout.push(NULL_TEXT),
            Some(text) if text.len() >= JsonOut::ASIDE_FROM => {
                let at = AsideString::place(&mut self.long, text, None);
                self.layout.extend([LONG_TEXT, at as u32]);
            }
            Some(text) => _ = text_item(&mut self.layout, &mut self.texts, &mut self.last_text, text),
        }
    }

    /// A JSON value of `complete`: 0 for `null`; 2 and the value item by item when it is small
    /// ([`inline_items`]); else 1 and the value among the values, as JSON text.
    fn json(&mut self, value: Option<&'a serde_json::Value>) {
        match value {
            Some(value) if !value.is_null() => self.value_of_complete(value, value),
            _ => self.layout.push(0),
        }
    }

    /// A shared JSON value of `complete` (a tool's input or output), as [`HandOver::json`]: its
    /// long strings are kept by JS as those of shared values are (see [`Handed`]).
    fn shared(&mut self, value: &'a Shared) {
        if value.is_null() {
            self.layout.push(0);
        } else {
            self.value_of_complete(value.as_ref(), value);
        }
    }

    /// A value of `complete` that is not `null`, `as_json` being the same value as JSON text
    /// would write it. A short answer's values are small (a tool's input, a provider's details, a
    /// signature): item by item they cost less than their JSON text and its `JSON.parse`, most of
    /// all when no value is left to cross as JSON.
    fn value_of_complete(&mut self, value: &'a serde_json::Value, as_json: &'a dyn ToJson) {
        let mut budget = INLINE_ITEMS;
        if inline_items(value, &mut budget) {
            self.layout.push(2);
            self.inline(value);
        } else {
            self.layout.push(1);
            self.values.push(as_json);
        }
    }

    /// A small value item by item (`inlineValue` in JS reads them): 0 `null`, 1 `false`, 2 `true`,
    /// 3 and an integer's 32 bits, 4 and a string's text item, 5 and an array's length then its
    /// items, 6 and an object's length then its keys' text items each before its value.
    fn inline(&mut self, value: &'a serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::Null => self.layout.push(0),
            Value::Bool(on) => self.layout.push(1 + u32::from(*on)),
            // `inline_items` let only integers that fit 32 bits through.
            Value::Number(n) => self.layout.extend([3, n.as_i64().unwrap_or(0) as i32 as u32]),
            Value::String(text) => {
                self.layout.push(4);
                self.string(Some(text));
            }
            Value::Array(items) => {
                self.layout.extend([5, items.len() as u32]);
                items.iter().for_each(|item| self.inline(item));
            }
            Value::Object(map) => {
                self.layout.extend([6, map.len() as u32]);
                for (key, item) in map {
                    self.string(Some(key));
                    self.inline(item);
                }
            }
        }
    }

    /// A count of `complete`: 0 for `null`, else 1 and the count's low and high 32 bits (JS adds
    /// them up as its `JSON.parse` reads the number: rounded once, to the nearest double).
    fn number(&mut self, count: Option<u64>) {
        match count {
            Some(count) => self.layout.extend([1, count as u32, (count >> 32) as u32]),
            None => self.layout.push(0),
        }
    }

    /// `{ type: "text_delta" | "thinking_delta", text }` or `{ op: "appendText" | "appendThinking", text }`.
    pub(crate) fn text(&mut self, op: Op, text: &'a str) {
        self.push_op(op);
        text_item(&mut self.layout, &mut self.texts, &mut self.last_text, text);
    }

    /// A `text_delta` event, as [`HandOver::event`] hands it over: returns its text's length in
    /// UTF-16 units.
    fn text_delta(&mut self, text: &'a str) -> u32 {
        self.push_op(Op::TextDelta);
        text_item(&mut self.layout, &mut self.texts, &mut self.last_text, text)
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

    /// The items as one JS array.
    pub(crate) fn list(self) -> Array {
        if self.layout.is_empty() {
            return Array::new();
        }
        self.build(false).unchecked_into()
    }

    /// The items as a JS array of arrays, one per [`HandOver::end_list`] and one after the last.
    pub(crate) fn lists(self) -> Array {
        self.build(true).unchecked_into()
    }

    /// The items left in the module's memory for the package's JS to build (see `api.js`):
    /// how many words the layout has, 0 for no items. The [`RECORD`] says where they are.
    ///
    /// Hand-written on purpose: the package's `ChatStream.push`, called once per network read,
    /// reads the events from the module's memory itself. Handed over through wasm-bindgen's
    /// glue, each push also paid a call from the module into JS, a copy of the layout, an entry
    /// in the table of JS values and its release: a third of a one-frame push (BENCHMARKS.md).
    ///
    /// The strings set aside are read where the values hold them: the values must stay as they
    /// are until JS has read them (until the next hand-over).
    pub(crate) fn into_memory(self) -> u32 {
        if self.layout.is_empty() {
            BUFFERS.set((self.texts, self.layout));
            return 0;
        }
        let (text, layout) = self.compose();
        RECORD.with(|record| {
            record[0].set(text.as_ptr() as u32);
            record[1].set(text.len() as u32);
            record[2].set(layout.as_ptr() as u32);
        });
        let words = layout.len() as u32;
        BUFFERS.set((text, layout));
        words
    }

    fn build(self, many: bool) -> JsValue {
        let (text, layout) = self.compose();
        // Read before this call returns: nothing is kept.
        let to = layout.len() as u32;
        let built = PARTIAL.with(|partial| hand_over(&text, &layout, 0, to, many, partial));
        BUFFERS.set((text, layout));
        built
    }

    /// The text and the layout. The text begins with the JSON text of the values and the mark
    /// (when strings were set aside); the texts of the text items follow. The strings set aside
    /// stay where they are: the layout ends with each one's address and length.
    fn compose(mut self) -> (String, Vec<u32>) {
        if self.layout.is_empty() {
            self.layout.extend([0; HEAD]);
        }
        if self.values.is_empty() && self.long.is_empty() {
            return (self.texts, self.layout);
        }
        let long = std::mem::take(&mut self.long);
        let (mut text, aside, marked) = ASIDE_MARK.with(|mark| values_json(&self.values, long, mark));
        let mark = if marked { ASIDE_MARK.with(Clone::clone) } else { String::new() };
        let mark = mark.as_str();
        let let_go = HANDED.with_borrow_mut(|handed| {
            let let_go = handed.sweep();
            // Addresses in the module's memory: wasm32's pointers are 32 bits.
            for s in &aside {
                let key = s.within.map_or(0, |within| handed.key(within, s.text));
                self.layout.extend([s.text.as_ptr() as u32, s.text.len() as u32, key]);
            }
            let_go
        });
        self.layout[..HEAD].copy_from_slice(&[
            utf16_len(&text),
            utf16_len(mark),
            aside.len() as u32,
            let_go.len() as u32,
        ]);
        self.layout.extend(let_go);
        text.reserve_exact(mark.len() + self.texts.len());
        text.push_str(mark);
        text.push_str(&self.texts);
        (text, self.layout)
    }
}

/// What the package's JS needs to build a hand-over that [`HandOver::into_memory`] left in the
/// module's memory: `[handOver, the partial_input functions, the module's memory, the address of
/// the record, the keys of an appendText patch, those of an appendThinking patch]`.
/// Called once per module.
///
/// An `appendText` or `appendThinking` patch names no keys (it crosses as its text alone, once
/// per push): what it changes is handed over here, from the chat state's declaration
/// ([`ChatState::KEY`]): the string it is appended to, then the lists whose last item's text gets it.
#[cfg(feature = "events")]
#[wasm_bindgen(js_name = __handOverParts)]
pub fn hand_over_parts() -> js_sys::Array {
    let record = RECORD.with(|record| record.as_ptr() as u32);
    let (hand_over, partial) = (HAND_OVER.with(JsValue::clone), PARTIAL.with(JsValue::clone));
    let key = ChatState::KEY;
    let keys = |keys: &[&str]| keys.iter().map(|k| JsValue::from_str(k)).collect::<Array>();
    let append_text = keys(&[key.streaming_text, key.streaming_segments, key.streaming_parts]);
    let parts = js_sys::Array::of5(&hand_over, &partial, &wasm_bindgen::memory(), &record.into(), &append_text);
    parts.push(&keys(&[key.thinking_text, key.streaming_parts]));
    parts
}

/// The JSON text of `values` as one array (empty for none), the strings set aside (`long`, the
/// items' own, then the values' own), and whether the text names any of them by the mark.
fn values_json<'v>(
    values: &'v [&dyn ToJson],
    long: Vec<AsideString<'v>>,
    mark: &str,
) -> (String, Vec<AsideString<'v>>, bool) {
    if values.is_empty() {
        return (String::new(), long, false);
    }
    let mut out = JsonOut::setting_aside(mark.to_owned(), long.clone());
    values.write_json(&mut out);
    let (text, set_aside) = out.take_text_counted();
    // With nothing set aside, JS parses the text as it is: a mark in it means nothing.
    if set_aside == 0 {
        return (text, long, false);
    }
    let (mut marks, mut from) = (0, 0);
    while let Some(at) = find(&text[from..], mark) {
        marks += 1;
        from += at + mark.len();
    }
    if marks == set_aside {
        return (text, out.aside().to_vec(), true);
    }
    // A string of the values themselves holds the mark (it is random: never by design). Then
    // nothing of theirs is set aside.
    (to_json(values), long, false)
}

/// What marks a long string set aside in saved messages: a NUL byte, which no JSON text holds
/// (a string holds it escaped, and it is invalid outside one), so no string of theirs can be taken
/// for a mark.
const SAVED_MARK: &str = "\0";

/// How much of a long string [`json_in_pieces`] escapes and hands over at a time.
const PIECE: usize = 64 * 1024;

/// `value`'s JSON text as a JS string made of pieces, each crossing on its own: the module never
/// holds the whole text. Saved messages that hold a long answer were written whole, a second copy
/// of the answer in the module's memory, which never shrinks (bench-js/memory.js). The long strings
/// are set aside as they are written and escaped a piece at a time; the text between them crosses
/// as it is written, not copied.
pub(crate) fn json_in_pieces(value: &dyn ToJson) -> js_sys::JsString {
    let mut out = JsonOut::setting_aside(SAVED_MARK.to_owned(), Vec::new());
    value.write_json(&mut out);
    let text = out.take_text();
    let (mut joined, mut escaped) = (js_sys::JsString::from(""), Vec::new());
    let mut rest = text.as_str();
    // Each string set aside is written `"<mark><n>"`.
    while let Some(at) = find(rest, SAVED_MARK) {
        let after = &rest[at + SAVED_MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let string = after[..digits].parse::<usize>().ok().and_then(|n| out.aside().get(n));
        // Each with one of the quotes around the mark.
        let (Some(before), Some(string), Some(after)) = (rest.get(..at), string, after.get(digits..)) else {
            // Never (the writer wrote the marks); a whole text rather than a wrong one.
            return to_json(value).as_str().into();
        };
        joined = joined.concat(&before.into());
        let mut string = string.text;
        while !string.is_empty() {
            let mut end = string.len().min(PIECE);
            while !string.is_char_boundary(end) {
                end -= 1;
            }
            escaped.clear();
            crate::json::write_str(&mut escaped, &string[..end]);
            // Without the quotes `write_str` puts around it; cut between characters: UTF-8.
            let piece = escaped.get(1..escaped.len() - 1).and_then(|p| std::str::from_utf8(p).ok());
            joined = joined.concat(&piece.unwrap_or_default().into());
            string = &string[end..];
        }
        rest = after;
    }
    joined.concat(&rest.into())
}

/// The strings set aside that lie in a shared value (a tool's input or output) and that JS keeps
/// by a key, so that a long input handed over again (in `tool_call`, then in `complete`, in a
/// session's state) is decoded once and is one JS string, not one per hand-over.
///
/// A key stands for one string of one shared value, kept by a weak pointer: while the value
/// lives, nothing can change it in place (`Arc::get_mut` refuses a value that has weak pointers,
/// and `make_mut` moves it to a new one), so its string is where it was, as it was. Once the
/// value is gone, its keys are let go: JS forgets them at the next hand-over with values. A
/// hand-over still says where each string is: JS reads it there when it does not hold the key (a
/// hand-over it did not read).
#[derive(Default)]
struct Handed {
    strings: Vec<HandedString>,
    last_key: u32,
}

/// A string of a shared value that JS keeps by `key`: where it is and its length in bytes.
struct HandedString {
    within: std::sync::Weak<serde_json::Value>,
    at: usize,
    /// Read by the `partial_input` getters alone.
    #[cfg(feature = "model-tool-calls")]
    len: usize,
    key: u32,
}

impl Handed {
    /// The keys of strings whose values are gone, forgotten here.
    fn sweep(&mut self) -> Vec<u32> {
        let mut gone = Vec::new();
        self.strings.retain(|s| {
            s.within.strong_count() > 0 || {
                gone.push(s.key);
                false
            }
        });
        gone
    }

    /// The key of `text`, a string of `within`: the one it had, or a new one.
    fn key(&mut self, within: &Shared, text: &str) -> u32 {
        let at = text.as_ptr() as usize;
        let same = |s: &&HandedString| s.at == at && std::ptr::eq(s.within.as_ptr(), std::sync::Arc::as_ptr(within));
        if let Some(s) = self.strings.iter().find(same) {
            return s.key;
        }
        // Keys are never used again (after four billion, 0 is skipped: it means "no key").
        self.last_key = self.last_key.checked_add(1).unwrap_or(1);
        let within = std::sync::Arc::downgrade(within);
        self.strings.push(HandedString {
            within,
            at,
            #[cfg(feature = "model-tool-calls")]
            len: text.len(),
            key: self.last_key,
        });
        self.last_key
    }

    /// Calls `read` with the first `len` bytes (at most) of the string JS keeps by `key`, while
    /// its value lives: None for a key let go, or one no hand-over gave.
    #[cfg(feature = "model-tool-calls")]
    fn read<T>(&self, key: u32, len: usize, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        let s = self.strings.iter().find(|s| s.key == key)?;
        let within = s.within.upgrade()?;
        // SAFETY: `at` and `len` are those of a string of `within` (`key` above), which is held
        // here, so its bytes are where they were: while a weak pointer to a shared value lives,
        // nothing changes it in place (see Handed).
        let bytes = unsafe { std::slice::from_raw_parts(s.at as *const u8, s.len.min(len)) };
        let read = read(bytes);
        drop(within);
        Some(read)
    }
}

/// Calls `read` with the first `len` bytes (at most) of the string JS keeps by `key` (a string
/// set aside in a shared value), while its value lives ([`Handed::read`]).
#[cfg(feature = "model-tool-calls")]
pub(super) fn read_handed<T>(key: u32, len: usize, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
    HANDED.with_borrow(|handed| handed.read(key, len, read))
}

/// How many items (values, at any depth) a value of `complete` may hold to cross item by item.
const INLINE_ITEMS: usize = 64;

/// Whether `value` crosses item by item ([`HandOver::inline`]): at most `budget` items, its
/// numbers integers of 32 bits, its strings and keys short (a long one crosses set aside, as
/// the values' long strings do, see [`Handed`]).
fn inline_items(value: &serde_json::Value, budget: &mut usize) -> bool {
    use serde_json::Value;
    let short = |text: &str| text.len() < JsonOut::ASIDE_FROM;
    let Some(left) = budget.checked_sub(1) else { return false };
    *budget = left;
    match value {
        Value::Null | Value::Bool(_) => true,
        Value::Number(n) => n.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        Value::String(text) => short(text),
        Value::Array(items) => items.iter().all(|item| inline_items(item, budget)),
        Value::Object(map) => map.iter().all(|(key, item)| short(key) && inline_items(item, budget)),
    }
}

/// A string's length in UTF-16 code units, as JS counts it.
///
/// Hand-written on purpose, counted eight bytes at a time: every byte but a UTF-8 continuation
/// byte (`10xxxxxx`) starts a character of one unit, and a four-byte character (lead byte
/// `11110xxx`) is two. Counting by decoding each character was 8% of a live push of an answer
/// with one non-ASCII character in it, and an iterator over the bytes, which this build does not
/// inline, was a quarter (so is `copy_from_slice`, hence the bytes one by one).
fn utf16_len(text: &str) -> u32 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    if bytes.is_ascii() {
        return bytes.len() as u32;
    }
    let (mut continuation, mut four_byte) = (0, 0);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let x = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
        // In each byte, bit 7 of `x << k` is the byte's own bit 7 - k.
        continuation += (x & !(x << 1) & HIGH).count_ones();
        four_byte += (x & (x << 1) & (x << 2) & (x << 3) & HIGH).count_ones();
    }
    for &b in chunks.remainder() {
        continuation += u32::from(b & 0xC0 == 0x80);
        four_byte += u32::from(b >= 0xF0);
    }
    bytes.len() as u32 - continuation + four_byte
}

thread_local! {
    /// What marks a string set aside in the JSON text: random, so that no stream can write it.
    static ASIDE_MARK: String = {
        let half = || (js_sys::Math::random() * 4_294_967_296.0) as u64;
        format!("~chatstream-{:016x}~", half() << 32 | half())
    };
    /// The keys of the strings of shared values JS keeps (see [`Handed`]).
    static HANDED: RefCell<Handed> = RefCell::new(Handed::default());
    /// What the `partial_input` getters call (see `partial_input.rs`): for the module's lifetime.
    #[cfg(feature = "model-tool-calls")]
    static PARTIAL: JsValue = partial_input::functions();
    /// A module without model tool calls hands over no `tool_input_delta`: nothing reads this
    /// but `handOver`, which then leaves out the getters' JS (partial_input.rs) too.
    #[cfg(not(feature = "model-tool-calls"))]
    static PARTIAL: JsValue = JsValue::UNDEFINED;
}

#[wasm_bindgen(inline_js = r#"
const SAME_TEXT = 4294967295;
const NULL_TEXT = 4294967294;
const LONG_TEXT = 4294967293;
const JOINED_TEXT = 4294967292;
// The session's patches that cross as a text item, by their op from 6 on.
const TEXT_PATCHES = ["appendThinking", "startThinking", "startTextPart"];
// The items built field by field from the layout, by their op from 9 on (Op in mod.rs): each reads
// on from where `read` is and leaves it past the item.
const FIELD_BY_FIELD = [(read) => ({ type: "complete", payload: completePayload(read) }), errorEvent, toolEvent, keyedPatch];
// A string set aside may begin with U+FEFF: it is kept.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
// The strings of shared values (tools' inputs and outputs) already handed over, by their key in
// the module (Handed in mod.rs): one JS string however many hand-overs hold one.
const kept = new Map();
// `layout[from..to]` is the layout: the package's JS passes all of the module's memory, as words;
// wasm-bindgen's glue passes a view of it. Either way `layout.buffer` is the module's memory.
// `partial`: the module's `[read, release, grown, toolInputDelta, grownInput]` (partial_input.rs);
// undefined in a module without model tool calls, which hands over no `tool_input_delta`.
// `joined`: a ChatStream's `{ text }`, the text deltas it handed out joined, which this appends
// to (`complete`'s text crosses as JOINED_TEXT when it is they); undefined for others, whose
// hand-overs have none.
export function handOver(text, layout, from, to, many, partial, joined) {
  let at = 0;
  let i = from;
  const cut = (n) => text.slice(at, (at += n));
  const json = cut(layout[i++]);
  const mark = cut(layout[i++]);
  const aside = [];
  const asideCount = layout[i++];
  const letGo = to - layout[i++];
  const end = letGo - 3 * asideCount;
  for (let j = letGo; j < to; j++) kept.delete(layout[j]);
  if (end < letGo) {
    // Each string set aside: the one kept by its key, or read where the module holds it (its
    // address and length in bytes), and kept when it has a key.
    const bytes = new Uint8Array(layout.buffer);
    for (let j = end; j < letGo; j += 3) {
      const key = layout[j + 2];
      let string = key === 0 ? undefined : kept.get(key);
      if (string === undefined) {
        if (key !== 0) string = partial?.[4](bytes, layout[j], layout[j + 1], key, partial);
        string ??= decoder.decode(bytes.subarray(layout[j], layout[j] + layout[j + 1]));
        if (key !== 0) kept.set(key, string);
      }
      aside.push(string);
    }
  }
  let values;
  if (json !== "") values = JSON.parse(json);
  if (mark !== "") restoreAside(values, mark, aside);
  const lists = many ? [] : undefined;
  let list = [];
  let v = 0;
  let last = "";
  let id = "";
  while (i < end) {
    const op = layout[i++];
    if (op <= 2 || (op >= 6 && op <= 8)) {
      const n = layout[i++];
      if (n !== SAME_TEXT) last = cut(n);
      if (op === 2) list.push({ op: "appendText", text: last });
      else if (op >= 6) list.push({ op: TEXT_PATCHES[op - 6], text: last });
      else list.push({ type: op === 0 ? "text_delta" : "thinking_delta", text: last });
      if (op === 0 && joined !== undefined) joined.text += last;
    } else if (op === 3) {
      list.push(values[v++]);
    } else if (op >= 9) {
      const read = { text, at, layout, i, aside, values, v, last, joined };
      list.push(FIELD_BY_FIELD[op - 9](read));
      ({ at, i, v, last } = read);
      // After `complete` the stream hands out no more text (the module starts its count again).
      if (op === 9 && joined !== undefined) joined.text = "";
    } else if (op === 4) {
      const n = layout[i++];
      if (n !== SAME_TEXT) id = cut(n);
      const m = layout[i++];
      if (m !== SAME_TEXT) last = cut(m);
      const key = layout[i++];
      const end = layout[i++];
      list.push(key === 0 ? { type: "tool_input_delta", tool_use_id: id, delta: last, partial_input: null } : partial[3](id, last, key, end, partial));
    } else {
      lists.push(list);
      list = [];
    }
  }
  if (!many) return list;
  lists.push(list);
  return lists;
}
// `complete`'s payload (HandOver::complete in mod.rs), read from `read`: the hand-over's text, its
// place in it, the layout, the place in it, the strings set aside, the values, the next one and the
// last text item. Its keys in the order of its JSON text: the contract's, then the backend's own.
function completePayload(read) {
  const message = string(read);
  const text = string(read);
  const thinking = string(read);
  const segments = [];
  for (let n = read.layout[read.i++]; n > 0; n--) {
    if (read.layout[read.i++] === 0) {
      segments.push({ type: "text", text: string(read) });
      continue;
    }
    const index = read.layout[read.i++];
    const tool_use_id = string(read);
    const tool = string(read);
    const input = value(read);
    const output = value(read);
    segments.push({ type: "tool", index, tool_use_id, tool, input, output, is_error: read.layout[read.i++] === 1 });
  }
  const tool_history = [];
  for (let n = read.layout[read.i++]; n > 0; n--) {
    const tool_name = string(read);
    const tool_use_id = string(read);
    const input = value(read);
    const output = value(read);
    tool_history.push({ tool_name, tool_use_id, input, output, is_error: read.layout[read.i++] === 1 });
  }
  const suggested_values = value(read);
  const suggested_actions = value(read);
  const custom_payload = value(read);
  const finish_reason = string(read);
  let usage = null;
  if (read.layout[read.i++] === 1) {
    const input_tokens = count(read);
    const output_tokens = count(read);
    const reasoning_tokens = count(read);
    const cached_input_tokens = count(read);
    usage = { input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, total_tokens: count(read) };
  }
  const payload = { message, text, thinking, segments, tool_history, suggested_values, suggested_actions, custom_payload, finish_reason, usage };
  const invalid = count(read);
  if (invalid !== null) payload.invalid_utf8 = invalid;
  for (let n = read.layout[read.i++]; n > 0; n--) {
    // A key "__proto__" defined, as JSON.parse does: a property like any other. Only that key:
    // defining every key cost about 250 ns each in Node against 50 assigned (a provider's
    // details, a signature: most short answers have one).
    const key = string(read);
    const item = value(read);
    if (key === "__proto__") Object.defineProperty(payload, key, { value: item, writable: true, enumerable: true, configurable: true });
    else payload[key] = item;
  }
  return payload;
}
// An `error` event (HandOver::event in mod.rs): its `field`, a string, left out when it has none (null).
function errorEvent(read) {
  const event = { type: "error", code: string(read), message: string(read) };
  const field = string(read);
  if (field !== null) event.field = field;
  return event;
}
// A `tool_start` or `tool_call` event (HandOver::tool in mod.rs): its keys in the order of its JSON
// text, `incomplete` and `arguments` left out when the kind's bits (2 and 4) say it has none.
function toolEvent(read) {
  const kind = read.layout[read.i++];
  const tool_use_id = string(read);
  const tool = string(read);
  const index = read.layout[read.i++];
  const event = { type: (kind & 1) === 1 ? "tool_call" : "tool_start", tool_use_id, tool, index, input: value(read) };
  if ((kind & 2) === 2) event.incomplete = true;
  if ((kind & 4) === 4) event.arguments = string(read);
  return event;
}
// A session's `set`, `push` or `setAt` patch (HandOver::keyed_patch in mod.rs): its kind (0, 1, 2),
// its key, `setAt`'s index, then its value as a value of `complete` is.
const KEYED_PATCHES = ["set", "push", "setAt"];
function keyedPatch(read) {
  const op = KEYED_PATCHES[read.layout[read.i++]];
  const key = string(read);
  if (op === "setAt") {
    const at = read.layout[read.i++];
    return { op, key, at, value: value(read) };
  }
  return { op, key, value: value(read) };
}
function string(read) {
  const n = read.layout[read.i++];
  if (n === SAME_TEXT) return read.last;
  if (n === NULL_TEXT) return null;
  if (n === LONG_TEXT) return read.aside[read.layout[read.i++]];
  if (n === JOINED_TEXT) return deltasJoined(read);
  return (read.last = read.text.slice(read.at, (read.at += n)));
}
// The text deltas the stream handed out, joined (JOINED_TEXT), as long as the module counted
// them: else they are not the text (a hand-over this stream's JS did not build), and nothing is
// handed out rather than a wrong text.
function deltasJoined(read) {
  const units = read.layout[read.i++];
  const text = read.joined?.text;
  if (text?.length !== units) throw new Error("internal error: complete's text is not the text deltas handed out");
  return text;
}
function value(read) {
  const tag = read.layout[read.i++];
  return tag === 0 ? null : tag === 1 ? read.values[read.v++] : inlineValue(read);
}
// A small value of `complete` item by item (HandOver::inline in mod.rs), built as JSON.parse
// builds it: plain objects and arrays, a key "__proto__" an own field like any other.
function inlineValue(read) {
  const layout = read.layout;
  const tag = layout[read.i++];
  if (tag === 4) return string(read);
  if (tag === 6) {
    const object = {};
    for (let n = layout[read.i++]; n > 0; n--) {
      const key = string(read);
      const item = inlineValue(read);
      if (key === "__proto__") Object.defineProperty(object, key, { value: item, writable: true, enumerable: true, configurable: true });
      else object[key] = item;
    }
    return object;
  }
  if (tag === 5) {
    const array = [];
    for (let n = layout[read.i++]; n > 0; n--) array.push(inlineValue(read));
    return array;
  }
  if (tag === 3) return layout[read.i++] | 0;
  return tag === 0 ? null : tag === 2;
}
// Low 32 bits, then high: added once, rounded as JSON.parse rounds a number.
function count(read) {
  return read.layout[read.i++] === 0 ? null : read.layout[read.i++] + read.layout[read.i++] * 4294967296;
}
// The strings set aside put back in place of their marks in `value`, parsed JSON. A walk, not a
// reviver for JSON.parse: the reviver is called for every value, and was three quarters of the
// parse of a long answer's `complete` (thousands of parts) in Node.
function restoreAside(value, mark, aside) {
  const keys = Array.isArray(value) ? null : Object.keys(value);
  const n = keys === null ? value.length : keys.length;
  for (let j = 0; j < n; j++) {
    const key = keys === null ? j : keys[j];
    const item = value[key];
    if (typeof item === "string") {
      if (!item.startsWith(mark)) continue;
      const string = aside[item.slice(mark.length)];
      // Set as JSON.parse sets it: a key "__proto__" is the object's own field.
      if (key === "__proto__") Object.defineProperty(value, key, { value: string, writable: true, enumerable: true, configurable: true });
      else value[key] = string;
    } else if (typeof item === "object" && item !== null) {
      restoreAside(item, mark, aside);
    }
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = handOver)]
    fn hand_over(text: &str, layout: &[u32], from: u32, to: u32, many: bool, partial: &JsValue) -> JsValue;
    /// The same function, as a value for the package's JS.
    #[wasm_bindgen(thread_local_v2, js_name = handOver)]
    static HAND_OVER: JsValue;
}

/// Where the package's JS copies a push's chunk (a `Uint8Array`, or a string encoded as UTF-8)
/// before calling the object's `__push` (`copyIn` in `api.js`): a `ChatStream`'s or a session's.
/// The bytes stay where they are until the next [`Input::reserve`].
///
/// Hand-written on purpose: wasm-bindgen's glue for a `&[u8]` argument allocates the bytes and
/// frees them in every call, and a push is made once per network read.
#[derive(Default)]
pub(crate) struct Input(RefCell<Vec<u8>>);

impl Input {
    /// Room for `len` bytes: their address.
    pub(crate) fn reserve(&self, len: u32) -> u32 {
        let mut input = self.0.borrow_mut();
        input.clear();
        input.resize(len as usize, 0);
        input.as_ptr() as u32
    }

    /// The first `len` bytes copied in.
    pub(crate) fn bytes(&self, len: u32) -> std::cell::Ref<'_, [u8]> {
        std::cell::Ref::map(self.0.borrow(), |input| &input[..input.len().min(len as usize)])
    }
}

/// Marks an object busy for the length of one call; every exported method that reads or changes
/// the object's core enters it first. A call made while another is running (from a JS callback the
/// first one runs: `generateId`, a getter, a `toJSON`) is refused: it would find the core borrowed,
/// and that panic would trap the module. A call that trapped (a bug) leaves the mark set, so the
/// object refuses every later call instead of running on half-updated state. The module is built
/// to abort at once on a panic, with no hook run first, so the two cannot be told apart here: the
/// refusal names both.
pub(crate) struct PoisonGuard<'a>(&'a Cell<Busy>);

/// Whether an object is in a call (or was, when a call trapped).
pub(crate) type Busy = bool;

impl<'a> PoisonGuard<'a> {
    pub(crate) fn enter(busy: &'a Cell<Busy>, class: &str) -> Result<PoisonGuard<'a>, JsError> {
        if busy.replace(true) {
            return Err(JsError::new(&format!(
                "this {class} was called from inside one of its own calls (a callback such as generateId, a getter or a toJSON): call it after that call returns. If no such call is running, an earlier call ended in an internal error (a bug in chatstream; please report it) and this {class} is unusable: create a new one"
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
