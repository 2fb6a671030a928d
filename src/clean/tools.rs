//! The message's tool calls, in the order they started: `index` N is the N of `[[tool:N]]`.
//! Each keeps its input, its streamed arguments (and their best JSON so far) and the call once
//! they are complete (`calls`, for a call the model asks for), and the result once it ran.

use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use serde_json::{json, Value};

use crate::event::{StreamEvent, StreamEvents, ToolRecord};
use crate::json::Shared;

#[cfg(feature = "model-tool-calls")]
mod calls;

/// Up to this many tools, a tool is found by its id, and a name's place by its name, along the
/// list; past it, by the maps. Nearly every message has one to a few tools, for which hashing
/// (SipHash) and making and dropping the maps cost more than comparing a few strings: they were
/// a tenth of the cleaner's work on a Gemini answer of one tool call (callgrind, natively).
const FEW_TOOLS: usize = 8;

/// Besides the list, indexes that let each event find its tool at once: a stream may make tens
/// of thousands of calls, and a search of the list per event would cost their square. The
/// indexes are made once the list is longer than [`FEW_TOOLS`].
#[derive(Debug, Default)]
pub(crate) struct Tools {
    list: Vec<Tool>,
    /// The first tool with each id.
    by_id: HashMap<String, usize>,
    /// The tool a lookup by id gave last: the one nearly every lookup asks for again (each argument
    /// delta names its tool), found by comparing its id instead of hashing the one asked for.
    recent: Cell<Option<usize>>,
    /// The oldest tool without a result (`list.len()` when every tool has one): results end
    /// tools in any order, so it only moves on, past the tools that have one.
    first_unfinished: usize,
    /// Each tool name's place in `unfinished_by_name` (a map of the same type as `by_id`, so
    /// that the module holds one copy of its code).
    names: HashMap<String, usize>,
    /// Per name, its tools without a result, oldest on top. A tool that got its result or
    /// another name is left in until it reaches the top ([`Tools::drop_stale`]), so that each
    /// change costs a heap's O(log n), never a search.
    unfinished_by_name: Vec<BinaryHeap<Reverse<usize>>>,
    /// The calls that went by an id of their own because a call already had the provider's id
    /// ([`Tools::open_call`]): by that id, their place in `renamed_calls` (a map of the same type
    /// as `by_id`, so that the module holds one copy of its code). Empty in nearly every message.
    #[cfg(feature = "model-tool-calls")]
    renamed: HashMap<String, usize>,
    #[cfg(feature = "model-tool-calls")]
    renamed_calls: Vec<Renamed>,
    /// Where the search for such an id goes on ([`crate::dialect::own_tool_id`]).
    #[cfg(feature = "model-tool-calls")]
    next_suffix: usize,
}

/// The calls that went by ids of their own under one provider id, in the order they started.
#[cfg(feature = "model-tool-calls")]
#[derive(Debug)]
struct Renamed {
    calls: Vec<usize>,
    /// Those before it have a result: results come in any order, so it only moves on, past the
    /// calls that have one.
    unfinished: Cell<usize>,
}

#[derive(Debug)]
struct Tool {
    id: String,
    name: String,
    /// Its name's place in `unfinished_by_name`.
    name_at: usize,
    /// Whether the model asked for it, and its streamed arguments until the call.
    #[cfg(feature = "model-tool-calls")]
    call: calls::Call,
    input: Shared,
    output: Option<Shared>,
    is_error: bool,
}

impl Tools {
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether the maps are made (and kept up).
    fn indexed(&self) -> bool {
        self.list.len() > FEW_TOOLS
    }

    pub(crate) fn find(&self, id: &str) -> Option<usize> {
        // `by_id` keeps an id's first tool for good, so the tool it gave for its own id is still the answer.
        if let Some(recent) = self.recent.get().filter(|&at| self.list.get(at).is_some_and(|t| t.id == id)) {
            return Some(recent);
        }
        let found = match self.indexed() {
            true => self.by_id.get(id).copied(),
            false => self.list.iter().position(|t| t.id == id),
        };
        if found.is_some() {
            self.recent.set(found);
        }
        found
    }

    /// A new tool at the next index: `tool_start`. `ran`: the input of a tool the backend ran, or
    /// `None` for a call the model asks for.
    pub(crate) fn start(&mut self, id: String, name: String, ran: Option<Value>, out: &mut StreamEvents<'_>) -> usize {
        #[cfg(feature = "model-tool-calls")]
        let call = calls::Call::new(ran.is_none());
        let input = Shared::new(ran.unwrap_or_else(|| json!({})));
        let index = self.list.len() as u32;
        out.push(StreamEvent::ToolStart { tool_use_id: id.clone(), tool: name.clone(), index, input: input.clone() });
        let at = self.list.len();
        let name_at = self.name_at(&name);
        self.unfinished_by_name[name_at].push(Reverse(at));
        self.list.push(Tool {
            id,
            name,
            name_at,
            #[cfg(feature = "model-tool-calls")]
            call,
            input,
            output: None,
            is_error: false,
        });
        self.index(at);
        at
    }

    /// Keeps the maps up once the list outgrows [`FEW_TOOLS`] with the tool at `at`: the tool
    /// that makes it too long for a search indexes every tool, and the later ones themselves.
    fn index(&mut self, at: usize) {
        let from = match at.cmp(&FEW_TOOLS) {
            std::cmp::Ordering::Less => return,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => at,
        };
        for (i, tool) in self.list.iter().enumerate().skip(from) {
            self.by_id.entry(tool.id.clone()).or_insert(i);
            self.names.entry(tool.name.clone()).or_insert(tool.name_at);
        }
    }

    /// Names a tool that started without a name (its arguments came first: a model's call).
    #[cfg(any(test, feature = "model-tool-calls"))]
    pub(crate) fn name_if_unnamed(&mut self, at: usize, name: String) {
        if !self.list[at].name.is_empty() || name.is_empty() {
            return;
        }
        let (unnamed_at, name_at) = (self.list[at].name_at, self.name_at(&name));
        let tool = &mut self.list[at];
        tool.name = name;
        tool.name_at = name_at;
        if tool.output.is_none() {
            self.unfinished_by_name[name_at].push(Reverse(at));
        }
        self.drop_stale(unnamed_at);
    }

    /// `name`'s place in `unfinished_by_name`, if it has one. Without the maps, the place of a
    /// tool of that name: tools of one name share its place, and a name no tool has any more
    /// (an unnamed tool was named) gets a new one, whose heap has no stale tools to pass over.
    fn place_of(&self, name: &str) -> Option<usize> {
        match self.indexed() {
            true => self.names.get(name).copied(),
            false => self.list.iter().find(|t| t.name == name).map(|t| t.name_at),
        }
    }

    /// `name`'s place in `unfinished_by_name`, made on its first use.
    fn name_at(&mut self, name: &str) -> usize {
        if let Some(at) = self.place_of(name) {
            return at;
        }
        if self.indexed() {
            self.names.insert(name.to_owned(), self.unfinished_by_name.len());
        }
        self.unfinished_by_name.push(BinaryHeap::new());
        self.unfinished_by_name.len() - 1
    }

    /// Takes off the top of a name's heap the tools that no longer belong there (they have their
    /// result, or another name), so that its top is its oldest unfinished tool. Each tool is
    /// taken off at most once per name it had.
    fn drop_stale(&mut self, name_at: usize) {
        let list = &self.list;
        let stale = |at: usize| list.get(at).map_or(true, |t| t.output.is_some() || t.name_at != name_at);
        if let Some(heap) = self.unfinished_by_name.get_mut(name_at) {
            while heap.peek().is_some_and(|&Reverse(at)| stale(at)) {
                heap.pop();
            }
        }
    }

    /// Gives a tool the backend runs its input, unless it already has one.
    pub(crate) fn set_input_if_empty(&mut self, at: usize, input: Value) {
        if *self.list[at].input == json!({}) {
            self.list[at].input = Shared::new(input);
        }
    }

    /// Which tool a result is for: by id (under an id the provider gave more than one call, the
    /// oldest of them without a result), else by index, else the oldest unfinished one (of the
    /// same name if there is one). `None` for a result that names an id no tool has, and no
    /// index: a tool of its own, given to no other call.
    pub(crate) fn for_result(&self, id: Option<&str>, name: Option<&str>, index: Option<u32>) -> Option<usize> {
        match (id, index) {
            (Some(id), _) if self.find(id).is_some() => {
                let first = self.find(id)?;
                #[cfg(feature = "model-tool-calls")]
                if self.list[first].output.is_some() {
                    return self.renamed_unfinished(id).or(Some(first));
                }
                Some(first)
            }
            (_, Some(index)) if (index as usize) < self.list.len() => Some(index as usize),
            (Some(_), _) => None,
            (None, _) => name
                .and_then(|name| self.place_of(name))
                .and_then(|name_at| self.unfinished_by_name.get(name_at)?.peek())
                .map(|&Reverse(at)| at)
                .or_else(|| (self.first_unfinished < self.list.len()).then_some(self.first_unfinished)),
        }
    }

    /// A tool finished: `tool_complete`.
    pub(crate) fn complete(&mut self, at: usize, output: Value, is_error: bool, out: &mut StreamEvents<'_>) {
        let output = Shared::new(output);
        let tool = &mut self.list[at];
        tool.output = Some(output.clone());
        tool.is_error = is_error;
        out.push(StreamEvent::ToolComplete {
            tool_use_id: tool.id.clone(),
            tool: tool.name.clone(),
            index: at as u32,
            input: tool.input_so_far(),
            output,
            is_error,
        });
        let name_at = tool.name_at;
        self.drop_stale(name_at);
        while self.list.get(self.first_unfinished).is_some_and(|t| t.output.is_some()) {
            self.first_unfinished += 1;
        }
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
        #[cfg(feature = "model-tool-calls")]
        if let Some(arguments) = self.arguments_so_far() {
            return arguments;
        }
        self.input.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lookup gives an id's first tool, whichever tool was asked for before it.
    #[test]
    fn find_gives_each_ids_first_tool() {
        let mut tools = Tools::default();
        let mut events = Vec::new();
        for (id, name) in [("a", "x"), ("b", "y"), ("a", "z")] {
            tools.start(id.into(), name.into(), None, &mut StreamEvents::new(&mut events));
        }
        for (id, expected) in
            [("a", Some(0)), ("a", Some(0)), ("b", Some(1)), ("c", None), ("a", Some(0)), ("b", Some(1))]
        {
            assert_eq!(tools.find(id), expected, "{id}");
        }
    }

    /// A result with neither id nor index goes to the oldest tool without one, of its name when
    /// it has a name: a tool named after it started counts by its start, and a tool that has its
    /// result, or that lost the name, is passed over.
    #[test]
    fn results_without_id_go_to_the_oldest_unfinished_of_their_name() {
        let mut tools = Tools::default();
        let mut events = Vec::new();
        let mut start = |tools: &mut Tools, name: &str| {
            tools.start(format!("t{}", tools.len()), name.into(), None, &mut StreamEvents::new(&mut events))
        };
        for name in ["", "x", "", "y", "x"] {
            start(&mut tools, name);
        }
        let oldest = |tools: &Tools, name: Option<&str>| tools.for_result(None, name, None);
        assert_eq!(oldest(&tools, Some("x")), Some(1));
        assert_eq!(oldest(&tools, Some("")), Some(0));
        tools.name_if_unnamed(2, "x".into());
        tools.name_if_unnamed(0, "y".into());
        assert_eq!(oldest(&tools, Some("")), Some(0), "no tool is unnamed now: the oldest of all");
        assert_eq!(oldest(&tools, Some("y")), Some(0), "named after it started, it is still the oldest");
        assert_eq!(oldest(&tools, Some("x")), Some(1));
        let complete = |tools: &mut Tools, at: usize| {
            tools.complete(at, json!(at), false, &mut StreamEvents::new(&mut Vec::new()));
        };
        complete(&mut tools, 1);
        assert_eq!(oldest(&tools, Some("x")), Some(2), "named later, started before the other x");
        assert_eq!(oldest(&tools, None), Some(0));
        complete(&mut tools, 0);
        assert_eq!(oldest(&tools, Some("y")), Some(3));
        assert_eq!(oldest(&tools, Some("z")), Some(2), "a name no tool has: the oldest of all");
        for at in [2, 4, 3] {
            complete(&mut tools, at);
        }
        assert_eq!(oldest(&tools, Some("x")), None);
        assert_eq!(oldest(&tools, None), None);
        start(&mut tools, "x");
        assert_eq!(oldest(&tools, Some("x")), Some(5));
        assert_eq!(oldest(&tools, None), Some(5));
    }

    /// Lookups by id and by name give what a search of the list gives, before and after the
    /// list outgrows [`FEW_TOOLS`] (where the maps take over): over tools started with ids and
    /// names that repeat, unnamed tools named later, and results, in a seeded random order.
    #[test]
    fn lookups_agree_with_a_search_of_the_list_at_any_length() {
        let (mut tools, mut events) = (Tools::default(), Vec::new());
        // The model: per tool, its id, its name and whether it has its result.
        let mut model: Vec<(String, String, bool)> = Vec::new();
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let names = ["", "a", "b", "c"];
        for _ in 0..200 {
            match next(4) {
                0 | 1 if model.len() < 40 => {
                    let (id, name) = (format!("id{}", next(12)), names[next(4) as usize].to_owned());
                    tools.start(id.clone(), name.clone(), None, &mut StreamEvents::new(&mut events));
                    model.push((id, name, false));
                }
                2 if !model.is_empty() => {
                    let at = next(model.len() as u64) as usize;
                    let name = names[1 + next(3) as usize].to_owned();
                    tools.name_if_unnamed(at, name.clone());
                    if model[at].1.is_empty() {
                        model[at].1 = name;
                    }
                }
                _ if !model.is_empty() => {
                    let at = next(model.len() as u64) as usize;
                    if !model[at].2 {
                        tools.complete(at, json!(null), false, &mut StreamEvents::new(&mut events));
                        model[at].2 = true;
                    }
                }
                _ => {}
            }
            for k in 0..12 {
                let id = format!("id{k}");
                assert_eq!(tools.find(&id), model.iter().position(|t| t.0 == id), "{id} of {}", model.len());
            }
            let oldest_unfinished = model.iter().position(|t| !t.2);
            for name in names {
                let of_name = model.iter().position(|t| t.1 == name && !t.2);
                let expected = of_name.or(oldest_unfinished);
                assert_eq!(tools.for_result(None, Some(name), None), expected, "{name:?} of {}", model.len());
            }
        }
        assert!(model.len() > FEW_TOOLS, "the list outgrew the search");
    }
}
