//! The message's tool calls, in the order they started: `index` N is the N of `[[tool:N]]`.
//! Each keeps its streamed arguments (and their best JSON so far), the call once its arguments
//! are complete, and the result once it ran.

use std::collections::{BTreeSet, HashMap};

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
    arguments: Arguments,
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
            arguments: Arguments::default(),
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
        tool.arguments.push(delta);
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
        // text, then as its value), not three times.
        let arguments = std::mem::take(&mut tool.arguments).into_text();
        let input = match input {
            Some(input) => input,
            None if arguments.trim().is_empty() => json!({}),
            None => match serde_json::from_str(&arguments) {
                Ok(input) => input,
                Err(_) => {
                    tool.arguments = Arguments { blocks: vec![arguments] };
                    tool.held = true;
                    return;
                }
            },
        };
        drop(arguments);
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
            Shared::new(partial_input(&self.arguments.text()))
        } else {
            self.input.clone()
        }
    }
}

/// The best JSON value that `arguments`, the start of a tool call's arguments, allow.
pub fn partial_input(arguments: &str) -> Value {
    let mut partial = PartialJson::default();
    partial.push(arguments);
    partial.value().unwrap_or_else(|| json!({}))
}

/// A tool call's argument text as it streams: in blocks that are never moved once full, so a
/// long input grows without the copies (and, in WebAssembly, the memory that is never given
/// back) of a string doubling its capacity. Joined once, when the arguments are complete.
#[derive(Debug, Default)]
struct Arguments {
    blocks: Vec<String>,
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

    /// The text as one string; each block is freed once it is copied.
    fn into_text(self) -> String {
        let mut blocks = self.blocks.into_iter();
        let Some(first) = blocks.next() else { return String::new() };
        if blocks.len() == 0 {
            return first;
        }
        let mut text = String::with_capacity(first.len() + blocks.as_slice().iter().map(String::len).sum::<usize>());
        text.push_str(&first);
        drop(first);
        for block in blocks {
            text.push_str(&block);
        }
        text
    }

    fn text(&self) -> std::borrow::Cow<'_, str> {
        match &self.blocks[..] {
            [] => "".into(),
            [one] => one.as_str().into(),
            blocks => blocks.concat().into(),
        }
    }
}
