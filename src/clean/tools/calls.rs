//! The tool calls the model asks for: their arguments as they stream (`tool_input_delta`), the
//! call once they are complete (`tool_call`), and arguments that are not JSON.

use std::cell::Cell;

use serde_json::{json, Value};

use super::{Renamed, Tool, Tools};
use crate::clean::arguments::{partial_input, SharedArguments};
use crate::clean::partial_json::PartialJson;
use crate::dialect::{own_tool_id, ProviderEvent};
use crate::error::ErrorCode;
use crate::event::{StreamEvent, StreamEvents, ToolArguments};
use crate::json::Shared;

/// What a tool keeps of a call the model asks for.
#[derive(Debug)]
pub(super) struct Call {
    /// The model asked for it (its arguments stream); otherwise a backend ran it.
    requested: bool,
    /// Until the call: released once they are parsed. Made by the first delta: a call that comes
    /// whole (Gemini's, Ollama's) or a tool a backend ran has none, and a short answer's stream
    /// made, read and freed per answer paid for two of them.
    arguments: Option<SharedArguments>,
    partial: PartialJson,
    /// `tool_call` was emitted.
    called: bool,
    /// The arguments ended but are not JSON: whether they are broken or were cut by the token
    /// limit is decided when the message's finish reason is known ([`Tools::settle`]).
    held: bool,
}

impl Call {
    pub(super) fn new(requested: bool) -> Call {
        Call { requested, arguments: None, partial: PartialJson::default(), called: false, held: false }
    }
}

impl Tools {
    /// The call the model asks for that a provider's event names by `id`: the latest call given
    /// that id, while its arguments are open. `None` when there is none, or once its arguments
    /// ended: its input is final, so more under its id is another call.
    pub(crate) fn open_call(&self, id: &str) -> Option<usize> {
        let renamed = match self.renamed.is_empty() {
            true => None,
            false => self.renamed.get(id).and_then(|&r| self.renamed_calls[r].calls.last().copied()),
        };
        let at = renamed.or_else(|| self.find(id))?;
        let call = &self.list[at].call;
        (!call.called && !call.held).then_some(at)
    }

    /// The oldest call renamed from the provider's `id` that has no result ([`Tools::for_result`]).
    pub(super) fn renamed_unfinished(&self, id: &str) -> Option<usize> {
        let renamed = &self.renamed_calls[*self.renamed.get(id)?];
        let mut at = renamed.unfinished.get();
        while renamed.calls.get(at).is_some_and(|&call| self.list[call].output.is_some()) {
            at += 1;
        }
        renamed.unfinished.set(at);
        renamed.calls.get(at).copied()
    }

    /// For a second call under the provider's `id`: an id of its own, and the error that says so.
    pub(crate) fn own_id(&mut self, id: &str) -> (String, ProviderEvent) {
        let mut next = self.next_suffix;
        let own = own_tool_id(id, &mut next, &|candidate| self.find(candidate).is_some());
        self.next_suffix = next;
        own
    }

    /// Events the provider sends under `id` go to the call at `at` from now on.
    pub(crate) fn rename(&mut self, id: String, at: usize) {
        match self.renamed.get(&id) {
            Some(&r) => self.renamed_calls[r].calls.push(at),
            None => {
                self.renamed.insert(id, self.renamed_calls.len());
                self.renamed_calls.push(Renamed { calls: vec![at], unfinished: Cell::new(0) });
            }
        }
    }

    /// More argument text: `tool_input_delta`, with the best JSON so far when `partial_input`.
    /// `id` is the tool's id, which the event takes.
    pub(crate) fn delta(
        &mut self,
        at: usize,
        id: String,
        delta: String,
        partial_input: bool,
        out: &mut StreamEvents<'_>,
    ) {
        let tool = &mut self.list[at];
        if tool.call.called {
            return;
        }
        // A call that went by an id of its own is named by it, not by the provider's.
        let id = if self.renamed.is_empty() || id == tool.id { id } else { tool.id.clone() };
        let shared = tool.call.arguments.get_or_insert_with(SharedArguments::default);
        shared.lock().push(&delta);
        // Without the value, the event carries the arguments it is read from when asked
        // (`partial_input` in src/wasm/partial_input.rs): whoever keeps the event keeps them.
        let (partial_input, arguments) = if partial_input {
            tool.call.partial.push(&delta);
            (tool.call.partial.value().unwrap_or_else(|| json!({})), ToolArguments::default())
        } else {
            (Value::Null, shared.carried())
        };
        out.push(StreamEvent::ToolInputDelta { tool_use_id: id, delta, partial_input, arguments });
    }

    /// The arguments are complete: `tool_call` with the given input or the parsed arguments.
    /// Arguments that are not JSON are held until [`Tools::settle`].
    pub(crate) fn call(&mut self, at: usize, input: Option<Value>, out: &mut StreamEvents<'_>) {
        let tool = &mut self.list[at];
        if tool.call.called || tool.call.held {
            return;
        }
        // The text leaves its blocks before it is parsed: a long input is held twice at most (as
        // text, then as its value), not three times. The joined text stays where whoever shares
        // the arguments (the bindings' `partial_input`) reads them; this tool lets go of it.
        let mut arguments = tool.call.arguments.as_ref().map(SharedArguments::lock);
        arguments.iter_mut().for_each(|arguments| arguments.join());
        let text = arguments.as_ref().and_then(|a| a.blocks.first()).map_or("", String::as_str);
        let input = match input {
            Some(input) => input,
            None if text.trim().is_empty() => json!({}),
            None => match crate::json::parse(text) {
                Ok(input) => input,
                Err(_) => {
                    drop(arguments);
                    tool.call.held = true;
                    return;
                }
            },
        };
        drop(arguments);
        tool.call.arguments = None;
        self.emit_call(at, input, None, out);
    }

    /// The stream finished properly: arguments still open are complete (or, `cut_by_length`,
    /// were cut short).
    pub(crate) fn call_open(&mut self, cut_by_length: bool, out: &mut StreamEvents<'_>) {
        for at in 0..self.list.len() {
            if self.list[at].call.requested && !self.list[at].call.called {
                self.call(at, None, out);
            }
        }
        self.settle(cut_by_length, out);
    }

    /// The message's finish reason is known, or the message is over: arguments that are not
    /// JSON are decided. Cut by the token limit, they are an incomplete call (the best value
    /// they allow, and their raw text) and no error: the model ran out of room, the stream is
    /// fine. Otherwise they are broken: an error, and the call with the raw text as its input.
    pub(crate) fn settle(&mut self, cut_by_length: bool, out: &mut StreamEvents<'_>) {
        for at in 0..self.list.len() {
            let tool = &mut self.list[at];
            if !std::mem::take(&mut tool.call.held) {
                continue;
            }
            let arguments = tool.call.arguments.take().map(SharedArguments::into_text).unwrap_or_default();
            if cut_by_length {
                self.emit_call(at, partial_input(&arguments), Some(arguments), out);
                continue;
            }
            let err = crate::json::parse(&arguments).err().map(|e| e.to_string()).unwrap_or_default();
            out.push(StreamEvent::error(
                ErrorCode::ServiceUnavailable,
                format!(
                    "Failed to parse response: the arguments of tool call {} ({}) are not valid JSON ({err}); \
                     passing them on as a string",
                    tool.id, tool.name
                ),
            ));
            self.emit_call(at, Value::String(arguments), None, out);
        }
    }

    /// `tool_call`; `incomplete_arguments` for a call cut by the token limit.
    fn emit_call(&mut self, at: usize, input: Value, incomplete_arguments: Option<String>, out: &mut StreamEvents<'_>) {
        let tool = &mut self.list[at];
        tool.call.called = true;
        tool.input = Shared::new(input);
        out.push(StreamEvent::ToolCall {
            tool_use_id: tool.id.clone(),
            tool: tool.name.clone(),
            index: at as u32,
            input: tool.input.clone(),
            incomplete: incomplete_arguments.is_some(),
            arguments: incomplete_arguments,
        });
    }
}

impl Tool {
    /// The arguments so far, for a call the model asked for that never completed.
    pub(super) fn arguments_so_far(&self) -> Option<Shared> {
        (self.call.requested && !self.call.called).then(|| {
            Shared::new(self.call.arguments.as_ref().map_or(json!({}), |a| a.lock().partial_input(usize::MAX)))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// Without `partial_input`, each delta carries its call's arguments (one copy, shared), its
    /// own call's even when another call has the same id; nothing of them is written.
    #[test]
    fn deltas_without_partial_input_carry_their_calls_arguments() {
        let mut tools = Tools::default();
        let mut events = Vec::new();
        let first = tools.start("call_1".into(), "a".into(), None, &mut StreamEvents::new(&mut events));
        let second = tools.start("call_1".into(), "b".into(), None, &mut StreamEvents::new(&mut events));
        // A push each: the deltas of one id are not merged.
        let id = || "call_1".to_owned();
        tools.delta(first, id(), r#"{"x": "#.into(), false, &mut StreamEvents::new(&mut events));
        tools.delta(second, id(), r#"{"y": 2}"#.into(), false, &mut StreamEvents::new(&mut events));
        tools.delta(first, id(), "1}".into(), false, &mut StreamEvents::new(&mut events));
        tools.delta(first, id(), "ignored".into(), true, &mut StreamEvents::new(&mut events));
        let carried: Vec<&ToolArguments> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolInputDelta { arguments, .. } => Some(arguments),
                _ => None,
            })
            .collect();
        let address = |arguments: &ToolArguments| SharedArguments::of(arguments).map(|a| Arc::as_ptr(&a.0));
        assert_eq!(carried.len(), 4);
        assert_eq!(address(carried[0]), tools.list[first].call.arguments.as_ref().map(|a| Arc::as_ptr(&a.0)));
        assert_eq!(address(carried[2]), address(carried[0]), "one call's deltas share its arguments");
        assert_eq!(address(carried[1]), tools.list[second].call.arguments.as_ref().map(|a| Arc::as_ptr(&a.0)));
        assert_ne!(address(carried[1]), address(carried[0]), "same id, another call");
        assert_eq!(address(carried[3]), None, "a delta with its partial_input carries nothing");
        assert_eq!(SharedArguments::of(carried[0]).unwrap().lock().partial_input(usize::MAX), json!({"x": 1}));
        let written = crate::json::to_json(&events[2]);
        assert_eq!(written, serde_json::to_string(&events[2]).unwrap());
        assert_eq!(
            written,
            r#"{"type":"tool_input_delta","tool_use_id":"call_1","delta":"{\"x\": ","partial_input":null}"#
        );
    }
}
