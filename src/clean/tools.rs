//! The message's tool calls, in the order they started: `index` N is the N of `[[tool:N]]`.
//! Each keeps its streamed arguments (and their best JSON so far), the call once its arguments
//! are complete, and the result once it ran.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Value};

use super::partial_json::PartialJson;
use crate::error::ErrorCode;
use crate::event::{StreamEvent, StreamEvents, ToolRecord};
use crate::json::Shared;

/// Besides the list, indexes that let each event find its tool at once: a stream may make tens
/// of thousands of calls, and a search of the list per event would cost their square.
#[derive(Debug, Default)]
pub(crate) struct Tools {
    list: Vec<Tool>,
    /// The first tool with each id.
    by_id: HashMap<String, usize>,
    /// The tools without a result, all of them and by name, oldest first.
    unfinished: BTreeSet<usize>,
    unfinished_by_name: HashMap<String, BTreeSet<usize>>,
}

#[derive(Debug)]
struct Tool {
    id: String,
    name: String,
    /// The model asked for it (its arguments stream); otherwise a backend ran it.
    requested: bool,
    /// Until the call: released once they are parsed.
    arguments: SharedArguments,
    partial: PartialJson,
    input: Shared,
    /// `tool_call` was emitted.
    called: bool,
    /// The arguments ended but are not JSON: whether they are broken or were cut by the token
    /// limit is decided when the message's finish reason is known ([`Tools::settle`]).
    held: bool,
    output: Option<Shared>,
    is_error: bool,
}

impl Tools {
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    pub(crate) fn find(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// A new tool at the next index: `tool_start`. `ran`: the input of a tool the backend ran, or
    /// `None` for a call the model asks for.
    pub(crate) fn start(&mut self, id: String, name: String, ran: Option<Value>, out: &mut StreamEvents<'_>) -> usize {
        let requested = ran.is_none();
        let input = Shared::new(ran.unwrap_or_else(|| json!({})));
        let index = self.list.len() as u32;
        out.push(StreamEvent::ToolStart { tool_use_id: id.clone(), tool: name.clone(), index, input: input.clone() });
        let at = self.list.len();
        self.by_id.entry(id.clone()).or_insert(at);
        self.unfinished.insert(at);
        self.unfinished_by_name.entry(name.clone()).or_default().insert(at);
        self.list.push(Tool {
            id,
            name,
            requested,
            arguments: SharedArguments::default(),
            partial: PartialJson::default(),
            input,
            called: false,
            held: false,
            output: None,
            is_error: false,
        });
        self.list.len() - 1
    }

    /// Names a tool that started without a name (its arguments came first).
    pub(crate) fn name_if_unnamed(&mut self, at: usize, name: String) {
        if self.list[at].name.is_empty() {
            if self.unfinished.contains(&at) {
                if let Some(unnamed) = self.unfinished_by_name.get_mut("") {
                    unnamed.remove(&at);
                }
                self.unfinished_by_name.entry(name.clone()).or_default().insert(at);
            }
            self.list[at].name = name;
        }
    }

    /// Gives a tool the backend runs its input, unless it already has one.
    pub(crate) fn set_input_if_empty(&mut self, at: usize, input: Value) {
        if *self.list[at].input == json!({}) {
            self.list[at].input = Shared::new(input);
        }
    }

    /// More argument text: `tool_input_delta`, with the best JSON so far when `partial_input`.
    pub(crate) fn delta(&mut self, at: usize, delta: &str, partial_input: bool, out: &mut StreamEvents<'_>) {
        let tool = &mut self.list[at];
        if tool.called {
            return;
        }
        tool.arguments.lock().push(delta);
        // Without the value here, the WebAssembly bindings read it from these arguments when
        // asked (`partial_input` in src/wasm/partial_input.rs): they keep them past the call.
        #[cfg(target_arch = "wasm32")]
        if !partial_input {
            STREAMED.with_borrow_mut(|streamed| match streamed.last() {
                Some((_, last)) if last.same(&tool.arguments) => {}
                _ => streamed.push((tool.id.clone(), tool.arguments.clone())),
            });
        }
        let partial_input = if partial_input {
            tool.partial.push(delta);
            tool.partial.value().unwrap_or_else(|| json!({}))
        } else {
            Value::Null
        };
        out.push(StreamEvent::ToolInputDelta { tool_use_id: tool.id.clone(), delta: delta.to_owned(), partial_input });
    }

    /// The arguments are complete: `tool_call` with the given input or the parsed arguments.
    /// Arguments that are not JSON are held until [`Tools::settle`].
    pub(crate) fn call(&mut self, at: usize, input: Option<Value>, out: &mut StreamEvents<'_>) {
        let tool = &mut self.list[at];
        if tool.called || tool.held {
            return;
        }
        // The text leaves its blocks before it is parsed: a long input is held twice at most (as
        // text, then as its value), not three times. The joined text stays where whoever shares
        // the arguments (the bindings' `partial_input`) reads them; this tool lets go of it.
        let mut arguments = tool.arguments.lock();
        arguments.join();
        let text = arguments.blocks.first().map_or("", String::as_str);
        let input = match input {
            Some(input) => input,
            None if text.trim().is_empty() => json!({}),
            None => match serde_json::from_str(text) {
                Ok(input) => input,
                Err(_) => {
                    drop(arguments);
                    tool.held = true;
                    return;
                }
            },
        };
        drop(arguments);
        tool.arguments = SharedArguments::default();
        self.emit_call(at, input, None, out);
    }

    /// The stream finished properly: arguments still open are complete (or, `cut_by_length`,
    /// were cut short).
    pub(crate) fn call_open(&mut self, cut_by_length: bool, out: &mut StreamEvents<'_>) {
        for at in 0..self.list.len() {
            if self.list[at].requested && !self.list[at].called {
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
            if !std::mem::take(&mut tool.held) {
                continue;
            }
            let arguments = std::mem::take(&mut tool.arguments).into_text();
            if cut_by_length {
                self.emit_call(at, partial_input(&arguments), Some(arguments), out);
                continue;
            }
            let err = serde_json::from_str::<Value>(&arguments).err().map(|e| e.to_string()).unwrap_or_default();
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
        tool.called = true;
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

    /// Which tool a result is for: by id, else by index, else the oldest unfinished one (of the
    /// same name if there is one). `None` for a result that names an id no tool has, and no
    /// index: a tool of its own, given to no other call.
    pub(crate) fn for_result(&self, id: Option<&str>, name: Option<&str>, index: Option<u32>) -> Option<usize> {
        match (id, index) {
            (Some(id), _) if self.find(id).is_some() => self.find(id),
            (_, Some(index)) if (index as usize) < self.list.len() => Some(index as usize),
            (Some(_), _) => None,
            (None, _) => name
                .and_then(|name| self.unfinished_by_name.get(name))
                .and_then(|tools| tools.first())
                .or_else(|| self.unfinished.first())
                .copied(),
        }
    }

    /// A tool finished: `tool_complete`.
    pub(crate) fn complete(&mut self, at: usize, output: Value, is_error: bool, out: &mut StreamEvents<'_>) {
        let output = Shared::new(output);
        let tool = &mut self.list[at];
        tool.output = Some(output.clone());
        tool.is_error = is_error;
        self.unfinished.remove(&at);
        if let Some(named) = self.unfinished_by_name.get_mut(&tool.name) {
            named.remove(&at);
        }
        out.push(StreamEvent::ToolComplete {
            tool_use_id: tool.id.clone(),
            tool: tool.name.clone(),
            index: at as u32,
            input: tool.input_so_far(),
            output,
            is_error,
        });
    }

    /// `tool_history`: every tool by index, once the message is over. The records share the
    /// inputs and outputs.
    pub(crate) fn records(&self) -> Vec<ToolRecord> {
        self.list
            .iter()
            .map(|t| ToolRecord {
                tool_name: t.name.clone(),
                tool_use_id: t.id.clone(),
                input: t.input_so_far(),
                output: t.output.clone().unwrap_or_default(),
                is_error: t.is_error,
            })
            .collect()
    }
}

impl Tool {
    /// The input as called, or the arguments so far for a call that never completed.
    fn input_so_far(&self) -> Shared {
        if self.requested && !self.called {
            Shared::new(self.arguments.lock().partial_input(usize::MAX))
        } else {
            self.input.clone()
        }
    }
}

/// The best JSON value that `arguments`, the start of a tool call's arguments, allow.
pub fn partial_input(arguments: &str) -> Value {
    let mut partial = PartialJson::default();
    partial.push(arguments);
    partial.into_value().unwrap_or_else(|| json!({}))
}

/// A tool call's argument text, shared with the WebAssembly bindings, which read a
/// `tool_input_delta`'s `partial_input` from it when it is asked for, after the call too: one
/// copy of a long input, not one here and one in JS.
#[derive(Debug, Default, Clone)]
pub(crate) struct SharedArguments(Arc<Mutex<Arguments>>);

impl SharedArguments {
    /// A panic while the lock was held cannot leave the text half-written (`push_str` is
    /// whole or not at all), so a poisoned lock is used as it is.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Arguments> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    #[cfg(target_arch = "wasm32")]
    pub(crate) fn same(&self, other: &SharedArguments) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The text, joined; copied only when another holder shares it.
    fn into_text(self) -> String {
        match Arc::try_unwrap(self.0) {
            Ok(alone) => alone.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).into_text(),
            Err(shared) => SharedArguments(shared).lock().text().into_owned(),
        }
    }
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// The arguments that grew since the bindings last looked, with their tool call ids (the
    /// bindings take them at each hand-over: `partial_input.rs`).
    pub(crate) static STREAMED: std::cell::RefCell<Vec<(String, SharedArguments)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The text in blocks that are never moved once full, so a long input grows without the copies
/// (and, in WebAssembly, the memory that is never given back) of a string doubling its capacity.
/// Joined once, when the arguments are complete.
#[derive(Debug, Default)]
pub(crate) struct Arguments {
    blocks: Vec<String>,
    /// How much of the text the bindings handed to JS in `tool_input_delta` events, in bytes:
    /// where the next event's arguments end.
    #[cfg(target_arch = "wasm32")]
    pub(crate) handed: usize,
}

impl Arguments {
    /// A block's size: small inputs stay in one block, grown as a string grows.
    const BLOCK: usize = 64 * 1024;

    fn push(&mut self, text: &str) {
        match self.blocks.last_mut() {
            Some(last) if last.len() + text.len() <= Self::BLOCK.max(last.capacity()) => last.push_str(text),
            _ => {
                let mut block = String::with_capacity(if self.blocks.is_empty() {
                    text.len()
                } else {
                    Self::BLOCK.max(text.len())
                });
                block.push_str(text);
                self.blocks.push(block);
            }
        }
    }

    /// The blocks as one, each freed once it is copied.
    fn join(&mut self) {
        if self.blocks.len() > 1 {
            let blocks = std::mem::take(&mut self.blocks);
            let mut text = String::with_capacity(blocks.iter().map(String::len).sum());
            for block in blocks {
                text.push_str(&block);
            }
            self.blocks = vec![text];
        }
    }

    fn into_text(mut self) -> String {
        self.join();
        self.blocks.pop().unwrap_or_default()
    }

    fn text(&self) -> std::borrow::Cow<'_, str> {
        match &self.blocks[..] {
            [] => "".into(),
            [one] => one.as_str().into(),
            blocks => blocks.concat().into(),
        }
    }

    /// The best JSON value the first `end` bytes of the text allow (all of it past its end),
    /// read from the blocks where they are.
    pub(crate) fn partial_input(&self, end: usize) -> Value {
        let mut partial = PartialJson::default();
        let mut left = end;
        for block in &self.blocks {
            if left < block.len() {
                // `end` is where a delta ended, a character boundary; one that is not is moved back to one.
                let mut upto = left;
                while !block.is_char_boundary(upto) {
                    upto -= 1;
                }
                partial.push(&block[..upto]);
                break;
            }
            partial.push(block);
            left -= block.len();
        }
        partial.into_value().unwrap_or_else(|| json!({}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value at an end inside the blocks is the value of the text up to there read whole,
    /// at every kind of end: inside the first block, on a block's edge, inside a later one, past the text.
    #[test]
    fn partial_input_reads_the_blocks_up_to_an_end() {
        let pieces: Vec<String> = std::iter::once(r#"{"a": ["#.to_owned())
            .chain((0..10_000).map(|i| format!(r#""é{i}🙂 x", "#)))
            .chain(std::iter::once(r#""z"], "b": 1}"#.to_owned()))
            .collect();
        let mut arguments = Arguments::default();
        let mut ends = vec![0];
        for piece in &pieces {
            arguments.push(piece);
            ends.push(ends.last().unwrap() + piece.len());
        }
        assert!(arguments.blocks.len() > 1, "the text spans blocks");
        let text = pieces.concat();
        let edge = arguments.blocks[0].len();
        for end in [1, 7, ends[40], edge, ends[ends.len() / 2], text.len() - 1, text.len(), usize::MAX] {
            assert_eq!(arguments.partial_input(end), partial_input(&text[..end.min(text.len())]), "end {end}");
        }
        assert_eq!(arguments.partial_input(usize::MAX)["b"], 1);
    }
}
