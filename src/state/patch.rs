//! The [`Patch`]es that describe each change to [`ChatState`]: every one names the fields it
//! changes by their keys ([`ChatState::KEY`]), so that what applies them (the JS snapshot) knows
//! no field names of its own.

use std::sync::Arc;

use serde_json::Value;

use super::parts::MessagePart;
use super::types::{ChatMessage, ChatState};
use crate::event::Segment;
use crate::json::{JsonOut, ToJson};
use crate::wire::wire;

wire! {
/// One change to [`ChatState`], named by its fields' keys (the JS snapshot's).
#[derive(Debug, Clone, PartialEq)]
pub enum Patch tag "op" {
    /// `state[key] = value`.
    Set "set" {
        /// The field.
        key: &'static str,
        /// Its new value.
        value: PatchValue,
    },
    /// `state[key] += text` (a string field).
    Append "append" {
        /// The field.
        key: &'static str,
        /// What to append.
        text: String,
    },
    /// `state[key].push(value)` (`messages`, `streamingSegments`, `streamingParts`).
    Push "push" {
        /// The list.
        key: &'static str,
        /// The new item.
        value: PatchValue,
    },
    /// `state[key][at] = value` (a tool card got its output, the last message its ending).
    SetAt "setAt" {
        /// The list.
        key: &'static str,
        /// Which item.
        at: usize,
        /// Its new value.
        value: PatchValue,
    },
    /// More of the same text: `state[key]`'s last item, a text or reasoning part, gets `text`
    /// appended (`streamingSegments`, `streamingParts`).
    AppendToLast "appendToLast" {
        /// The list.
        key: &'static str,
        /// What to append.
        text: String,
    },
    /// More answer text: `state.streamingText += text`, and the last text segment of
    /// `streamingSegments` and the last text part of `streamingParts` get it too. (One patch,
    /// not three: the text crosses into JS once per push.)
    AppendText "appendText" {
        /// What to append.
        text: String,
    },
    /// More thinking: `state.thinkingText += text`, and the last part of `streamingParts`, a
    /// reasoning part, gets it too (one patch, not two, as for [`Patch::AppendText`]).
    AppendThinking "appendThinking" {
        /// What to append.
        text: String,
    },
    /// Thinking after a part of another kind (or none): `state.thinkingText += text`, and
    /// `streamingParts` gets a new reasoning part, `{ type: "reasoning", text }` (one patch, not
    /// two: it crosses as its text alone, as [`Patch::AppendThinking`] does).
    StartThinking "startThinking" {
        /// The new part's text.
        text: String,
    },
    /// Answer text after a part of another kind in the same text segment (after thinking):
    /// `state.streamingText += text`, the last text segment of `streamingSegments` gets it too,
    /// and `streamingParts` gets a new text part, `{ type: "text", text }` (one patch, not three).
    StartTextPart "startTextPart" {
        /// The new part's text.
        text: String,
    },
    /// `state[key][list].push(value)`: a `tool_progress` event joins `activeToolProgress.updates`.
    PushInto "pushInto" {
        /// The object.
        key: &'static str,
        /// Its list.
        list: &'static str,
        /// The new item.
        value: PatchValue,
    },
    /// The whole state is replaced by `value` (saved messages were loaded).
    Reset "reset" {
        /// The new state.
        value: PatchValue,
    },
}
}

/// The value a [`Patch`] carries: a copy of what it sets, as the state holds it, written out as
/// JSON when the patch is. (A JSON [`Value`] made from a typed value meant writing its whole text
/// and reading it back: for a message with a long tool input, two more copies at once.)
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum PatchValue {
    /// A message, shared with the state.
    Message(Arc<ChatMessage>),
    /// The messages, shared with the state.
    Messages(Vec<Arc<ChatMessage>>),
    /// A segment of `streamingSegments`.
    Segment(Segment),
    /// A part of `streamingParts`.
    Part(MessagePart),
    /// The whole state.
    State(Box<ChatState>),
    /// Anything else (a field's value, a `tool_progress` event) as JSON.
    Json(Value),
}

impl PatchValue {
    /// The value as JSON, as the JS snapshot gets it.
    pub fn to_value(&self) -> Value {
        match self {
            PatchValue::Json(value) => value.clone(),
            other => crate::json::to_value(other),
        }
    }
}

impl From<Value> for PatchValue {
    fn from(value: Value) -> Self {
        PatchValue::Json(value)
    }
}

/// As serde's `untagged` writes it: the value alone.
impl ToJson for PatchValue {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        match self {
            PatchValue::Message(message) => message.write_json(out),
            PatchValue::Messages(messages) => messages.write_json(out),
            PatchValue::Segment(segment) => segment.write_json(out),
            PatchValue::Part(part) => part.write_json(out),
            PatchValue::State(state) => state.write_json(out),
            PatchValue::Json(value) => value.write_json(out),
        }
    }
}
