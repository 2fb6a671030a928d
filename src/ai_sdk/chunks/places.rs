//! Where the parts that chunks name are in the message being written: the current step's start,
//! each tool call's parts, each approval's part, each data part by type and id.

use std::collections::HashMap;

use super::ById;
use crate::ai_sdk::message::is_tool_part;
use crate::ai_sdk::object::Object;

/// Where the parts that chunks name are, kept as parts come and go, so that no chunk scans the
/// whole message: a stream of many parts must not make reading it quadratic.
#[derive(Debug, Clone, Default)]
pub(super) struct Places {
    /// Where the current step begins: after the last `step-start`.
    pub(super) step_start: usize,
    /// The tool parts of each toolCallId, in order.
    pub(super) tools: ById<Vec<usize>>,
    /// The first tool part that held each approval id.
    pub(super) approvals: HashMap<String, usize>,
    /// The first data part of each type and id (`type\0id`).
    pub(super) data: HashMap<String, usize>,
}

impl Places {
    pub(super) fn of(parts: &[Object]) -> Places {
        let mut places = Places::default();
        parts.iter().enumerate().for_each(|(at, part)| places.add(at, part));
        places
    }

    pub(super) fn add(&mut self, at: usize, part: &Object) {
        let kind = part.str("type").unwrap_or_default();
        if kind == "step-start" {
            self.step_start = at + 1;
        } else if is_tool_part(part) {
            self.tools.get_or_insert_with(part.str("toolCallId").unwrap_or_default(), Vec::new).push(at);
            self.add_approval(at, part);
        } else if let Some(id) = part.str("id").filter(|_| kind.starts_with("data-")) {
            self.data.entry(format!("{kind}\0{id}")).or_insert(at);
        }
    }

    pub(super) fn add_approval(&mut self, at: usize, part: &Object) {
        if let Some(id) = part.get("approval").as_object().and_then(|a| a.str("id").map(str::to_owned)) {
            self.approvals.entry(id).or_insert(at);
        }
    }

    /// The parts from `start` on are gone (a step thrown away): each is forgotten once.
    pub(super) fn remove_from(&mut self, start: usize, removed: &[Object]) {
        for part in removed {
            if let Some(places) = part.str("toolCallId").and_then(|id| self.tools.get_mut(id)) {
                places.retain(|&at| at < start);
            }
        }
        self.approvals.retain(|_, at| *at < start);
        self.data.retain(|_, at| *at < start);
        self.step_start = self.step_start.min(start);
    }
}
