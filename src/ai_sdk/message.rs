//! UI messages, the AI SDK's message shape (`{ id, role, metadata?, parts }`): read from JSON
//! text with the checks a stored or handed-in message must pass, and written back as they are.
//!
//! A message is kept as the object it came in (its keys in their order, unknown keys kept), its
//! parts likewise. A part is checked for what its type requires (the AI SDK's
//! `validateUIMessages` schema): an unknown part type, a missing field, a tool part in a state it
//! does not have, or a message without parts is refused with a message naming the message, since
//! a message silently emptied would be context lost.

use super::json_reader::array_items;
use super::object::{into_string, quoted, Field, Object};

/// One UI message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UiMessage {
    /// Every key; `parts` only holds its place (as `[]`): the parts are in `parts`.
    pub(crate) head: Object,
    pub(crate) parts: Vec<Object>,
}

/// The tool part states the AI SDK has.
const TOOL_STATES: [&str; 7] = [
    "input-streaming",
    "input-available",
    "approval-requested",
    "approval-responded",
    "output-available",
    "output-error",
    "output-denied",
];

impl UiMessage {
    /// A new assistant message, as the AI SDK starts an answer: `{ id, metadata, role, parts }`.
    pub(crate) fn assistant(id: String) -> UiMessage {
        let head = Object::literal([
            ("id", Field::Text(id)),
            ("metadata", Field::Undefined),
            ("role", "assistant".into()),
            ("parts", Field::Json("[]".into())),
        ]);
        UiMessage { head, parts: Vec::new() }
    }

    pub(crate) fn id(&self) -> &str {
        self.head.str("id").unwrap_or_default()
    }

    pub(crate) fn role(&self) -> &str {
        self.head.str("role").unwrap_or_default()
    }

    /// Reads one message; the error says what is wrong (the caller names the message).
    pub(crate) fn parse(json: &str) -> Result<UiMessage, String> {
        let mut head = Object::parse(json).map_err(|e| format!("not a message object ({e})"))?;
        if head.str("id").is_none() {
            return Err("its id is missing or not a string".into());
        }
        match head.get("role") {
            Field::Text(role) if ["system", "user", "assistant"].contains(&role.as_str()) => {}
            Field::Text(role) => {
                return Err(format!("role {} is not one of \"system\", \"user\", \"assistant\"", quoted(role)))
            }
            _ => return Err("its role is missing or not a string".into()),
        }
        let parts_json = head.get("parts").clone();
        let parts = match &parts_json {
            Field::Json(json) if json.starts_with('[') => array_items(json).map_err(|e| format!("parts: {e}"))?,
            Field::Undefined => return Err("it has no parts (a UI message holds its content in `parts`)".into()),
            _ => return Err("parts is not an array".into()),
        };
        if parts.is_empty() && head.str("role") != Some("assistant") {
            return Err("it has no parts (an empty message would be sent as an empty turn)".into());
        }
        head.set("parts", Field::Json("[]".into()));
        // Plain loops, here and in `parse_all`: `collect` into a `Result` weighed 2.6 KB more in
        // the module.
        let mut read = Vec::with_capacity(parts.len());
        for (i, raw) in parts.iter().enumerate() {
            let part = Object::parse(raw).map_err(|e| format!("parts[{i}] is not an object ({e})"))?;
            check_part(&part).map_err(|e| format!("parts[{i}]: {e}"))?;
            read.push(part);
        }
        Ok(UiMessage { head, parts: read })
    }

    /// Reads an array of messages; the error names the message: `messages[3] (id "abc"): …`.
    pub(crate) fn parse_all(json: &str) -> Result<Vec<UiMessage>, String> {
        let items = array_items(json).map_err(|e| format!("messages must be a JSON array of UI messages ({e})"))?;
        let mut messages = Vec::with_capacity(items.len());
        for (i, raw) in items.iter().enumerate() {
            messages.push(UiMessage::parse(raw).map_err(|e| format!("{}: {e}", name_of(i, raw)))?);
        }
        Ok(messages)
    }

    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        self.head.write_json_with(out, |key, out| {
            if key != "parts" {
                return false;
            }
            out.push(b'[');
            for (i, part) in self.parts.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                part.write_json(out);
            }
            out.push(b']');
            true
        });
    }

    pub(crate) fn to_json(&self) -> String {
        let mut out = Vec::new();
        self.write_json(&mut out);
        into_string(out)
    }
}

/// The JSON text of messages, as an array.
pub(crate) fn write_all<'a>(messages: impl Iterator<Item = &'a UiMessage>, out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, message) in messages.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        message.write_json(out);
    }
    out.push(b']');
}

/// `messages[3] (id "abc")`, or without the id when it has none.
fn name_of(index: usize, json: &str) -> String {
    let id = Object::parse(json).ok().and_then(|m| m.str("id").map(str::to_owned));
    match id {
        Some(id) => format!("messages[{index}] (id {})", quoted(&id)),
        None => format!("messages[{index}]"),
    }
}

/// Whether a part is a tool call: `tool-<name>` or `dynamic-tool`.
pub(crate) fn is_tool_part(part: &Object) -> bool {
    part.str("type").is_some_and(|t| t.starts_with("tool-") || t == "dynamic-tool")
}

/// What a part of its type must hold.
fn check_part(part: &Object) -> Result<(), String> {
    let Some(kind) = part.str("type") else { return Err("its type is missing or not a string".into()) };
    let strings: &[&str] = match kind {
        "text" | "reasoning" => &["text"],
        "file" | "reasoning-file" => &["mediaType", "url"],
        "source-url" => &["sourceId", "url"],
        "source-document" => &["sourceId", "mediaType", "title"],
        "custom" => &["kind"],
        "steering-message" => &["id"],
        "step-start" => &[],
        "dynamic-tool" => &["toolName", "toolCallId", "state"],
        _ if kind.starts_with("tool-") => &["toolCallId", "state"],
        _ if kind.starts_with("data-") => &[],
        _ => return Err(format!("unknown part type {}", quoted(kind))),
    };
    if let Some(missing) = strings.iter().find(|key| part.str(key).is_none()) {
        return Err(format!("a {} part needs `{missing}` as a string", quoted(kind)));
    }
    if is_tool_part(part) {
        let state = part.str("state").unwrap_or_default();
        if !TOOL_STATES.contains(&state) {
            return Err(format!("tool state {} is not one of the AI SDK's", quoted(state)));
        }
        if state == "output-error" && part.str("errorText").is_none() {
            return Err("an output-error tool part needs `errorText` as a string".into());
        }
        if state.starts_with("approval-")
            && part.get("approval").as_object().and_then(|a| a.str("id").map(drop)).is_none()
        {
            return Err(format!("a tool part in state {} needs `approval` with an `id`", quoted(state)));
        }
    }
    Ok(())
}
