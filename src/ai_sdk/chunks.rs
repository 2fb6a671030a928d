//! The reducer: UI message stream chunks applied to the assistant message being written, as the
//! AI SDK's `processUIMessageStream` applies them (text and reasoning parts by id, tool parts
//! through their states, sources, files, data parts replaced by id, steps, metadata merged).
//!
//! Parts are built with the keys the AI SDK gives them, in its order (see `object`): the messages
//! an app saves come out as `useChat` would have saved them. A chunk the AI SDK's chunk schema
//! refuses, or one that names a part or a tool call that is not there, is an error
//! ([`ChunkError`]); the caller stops reading there, as the AI SDK does, and keeps the message.

use std::collections::HashMap;

use super::message::{is_tool_part, UiMessage};
use super::object::{quoted, Field, Object};
use super::partial_json::partial_json;

mod by_id;
mod places;
mod schema;
mod tools;

use by_id::ById;
use places::Places;
use schema::check;
use tools::{tool_name, PartialToolCall, ToolUpdate};

/// What one chunk did, besides changing the message.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// The message changed in a way the AI SDK shows (its `write()`).
    pub(crate) wrote: bool,
    /// A data part for `onData` (transient ones too), in the chunk schema's key order.
    pub(crate) data: Option<Object>,
    /// A tool call the page is to run (`onToolCall`): the `tool-input-available` chunk.
    pub(crate) tool_call: Option<Object>,
    /// An `error` chunk's `errorText`: the server gave up.
    pub(crate) error_text: Option<String>,
    /// A `finish` chunk: the answer is complete.
    pub(crate) finish: bool,
    /// The message changed where the AI SDK does not show it yet (a step's start).
    pub(crate) unshown: bool,
    /// The chunk did nothing but append its delta to the text of the part at this place, whose text
    /// was this many bytes long before.
    pub(crate) appended: Option<(usize, usize)>,
}

/// A chunk that breaks the protocol.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChunkError(pub(crate) String);

/// The assistant message being written, and what the stream has open in it.
#[derive(Debug, Clone)]
pub(crate) struct MessageWriter {
    pub(crate) message: UiMessage,
    /// Text and reasoning parts started and not ended: their place in `message.parts`.
    active_text: HashMap<String, usize>,
    active_reasoning: HashMap<String, usize>,
    partial_tool_calls: ById<PartialToolCall>,
    places: Places,
    /// The `finish` chunk's reason.
    pub(crate) finish_reason: Option<String>,
}

impl MessageWriter {
    /// Writing a new answer (`id` until the stream gives its own), or continuing `last`, an
    /// assistant message: its tool calls whose input was still streaming stay open.
    pub(crate) fn new(continued: Option<UiMessage>, id: String) -> MessageWriter {
        let message = continued.filter(|m| m.role() == "assistant").unwrap_or_else(|| UiMessage::assistant(id));
        let places = Places::of(&message.parts);
        let mut partial_tool_calls = ById::default();
        for part in message.parts.get(places.step_start..).unwrap_or_default() {
            if !is_tool_part(part) || part.str("state") != Some("input-streaming") {
                continue;
            }
            let dynamic = part.str("type") == Some("dynamic-tool");
            let tool_name = if dynamic { part.str("toolName") } else { part.str("type").map(|t| &t["tool-".len()..]) };
            partial_tool_calls.insert(
                part.str("toolCallId").unwrap_or_default(),
                PartialToolCall {
                    text: part.str("rawInput").unwrap_or_default().to_owned(),
                    input_encoding: part.get("inputEncoding").clone(),
                    tool_name: tool_name.unwrap_or_default().to_owned(),
                    dynamic,
                    title: part.get("title").clone(),
                    tool_metadata: part.get("toolMetadata").clone(),
                },
            );
        }
        MessageWriter {
            message,
            active_text: HashMap::new(),
            active_reasoning: HashMap::new(),
            partial_tool_calls,
            places,
            finish_reason: None,
        }
    }

    /// Adds a part at the end.
    fn push(&mut self, part: Object) {
        self.places.add(self.message.parts.len(), &part);
        self.message.parts.push(part);
    }

    /// The tool parts of `tool_call_id` in the current step, in order (each a place in the parts:
    /// what callers index with).
    fn in_step(&self, tool_call_id: &str) -> impl Iterator<Item = usize> + '_ {
        let (start, end) = (self.places.step_start, self.message.parts.len());
        self.places.tools.get(tool_call_id).into_iter().flatten().copied().filter(move |&at| at >= start && at < end)
    }

    /// Applies one chunk.
    pub(crate) fn apply(&mut self, chunk: Object) -> Result<Applied, ChunkError> {
        let kind = check(&chunk)?.to_owned();
        let mut applied = Applied { wrote: true, ..Applied::default() };
        let field = |key: &str| chunk.get(key).clone();
        let text = |key: &str| chunk.str(key).unwrap_or_default().to_owned();
        match kind.as_str() {
            "text-start" | "reasoning-start" => {
                let reasoning = kind == "reasoning-start";
                let id = text("id");
                let part = if reasoning {
                    Object::literal([
                        ("type", "reasoning".into()),
                        ("id", Field::Text(id.clone())),
                        ("text", "".into()),
                        ("providerMetadata", field("providerMetadata")),
                        ("state", "streaming".into()),
                    ])
                } else {
                    Object::literal([
                        ("type", "text".into()),
                        ("text", "".into()),
                        ("providerMetadata", field("providerMetadata")),
                        ("state", "streaming".into()),
                    ])
                };
                let active = if reasoning { &mut self.active_reasoning } else { &mut self.active_text };
                active.insert(id, self.message.parts.len());
                self.push(part);
            }
            "text-delta" | "reasoning-delta" | "text-end" | "reasoning-end" => {
                let (what, active) = match kind.starts_with("text") {
                    true => ("text", &mut self.active_text),
                    false => ("reasoning", &mut self.active_reasoning),
                };
                let id = text("id");
                let end = kind.ends_with("-end");
                let found = if end { active.remove(&id) } else { active.get(&id).copied() };
                let Some((at, part)) = found.and_then(|at| Some((at, self.message.parts.get_mut(at)?))) else {
                    return Err(ChunkError(format!(
                        "{kind} for a {what} part that is not open (id {}): a \"{what}-start\" must come first",
                        quoted(&id)
                    )));
                };
                if let Some(delta) = chunk.str("delta").filter(|_| !end) {
                    match part.text_mut("text") {
                        Some(text) => {
                            if chunk.get("providerMetadata").is_nullish() {
                                applied.appended = Some((at, text.len()));
                            }
                            text.push_str(delta)
                        }
                        None => part.set("text", delta),
                    }
                }
                if end {
                    part.set("state", "done");
                    if kind == "text-end" && !chunk.get("citations").is_nullish() {
                        part.set("citations", field("citations"));
                    }
                }
                let metadata = field("providerMetadata").or(part.get("providerMetadata").clone());
                part.set("providerMetadata", metadata);
            }
            "custom" => self.push(Object::literal([
                ("type", "custom".into()),
                ("kind", field("kind")),
                ("providerMetadata", field("providerMetadata")),
            ])),
            "file" | "reasoning-file" => {
                let mut part = Object::literal([
                    ("type", Field::Text(kind.clone())),
                    ("mediaType", field("mediaType")),
                    ("url", field("url")),
                ]);
                if !chunk.get("providerMetadata").is_nullish() {
                    part.set("providerMetadata", field("providerMetadata"));
                }
                self.push(part);
            }
            "source-url" => self.push(Object::literal([
                ("type", "source-url".into()),
                ("sourceId", field("sourceId")),
                ("url", field("url")),
                ("title", field("title")),
                ("providerMetadata", field("providerMetadata")),
            ])),
            "source-document" => self.push(Object::literal([
                ("type", "source-document".into()),
                ("sourceId", field("sourceId")),
                ("mediaType", field("mediaType")),
                ("title", field("title")),
                ("filename", field("filename")),
                ("providerMetadata", field("providerMetadata")),
            ])),
            "tool-input-start" => {
                let id = text("toolCallId");
                let dynamic = chunk.get("dynamic").as_bool() == Some(true);
                self.partial_tool_calls.insert(
                    &id,
                    PartialToolCall {
                        text: String::new(),
                        input_encoding: field("inputEncoding"),
                        tool_name: text("toolName"),
                        dynamic,
                        title: field("title"),
                        tool_metadata: field("toolMetadata"),
                    },
                );
                let update = ToolUpdate {
                    state: "input-streaming",
                    input_encoding: field("inputEncoding"),
                    provider_executed: field("providerExecuted"),
                    title: field("title"),
                    tool_metadata: field("toolMetadata"),
                    provider_metadata: field("providerMetadata"),
                    ..ToolUpdate::default()
                };
                self.update_tool(&id, &text("toolName"), dynamic, update, None);
            }
            "tool-input-delta" => {
                let id = text("toolCallId");
                let Some(call) = self.partial_tool_calls.get_mut(&id) else {
                    return Err(ChunkError(format!(
                        "tool-input-delta for a tool call that did not start (toolCallId {}): a \"tool-input-start\" must come first", quoted(&id)
                    )));
                };
                call.text.push_str(chunk.str("inputTextDelta").unwrap_or_default());
                let input = if call.input_encoding.as_str() == Some("text") {
                    Field::Text(call.text.clone())
                } else {
                    partial_json(&call.text)
                };
                let call = call.clone();
                let update = ToolUpdate {
                    state: "input-streaming",
                    input_encoding: call.input_encoding,
                    input,
                    raw_input: Field::Text(call.text),
                    title: call.title,
                    tool_metadata: call.tool_metadata,
                    ..ToolUpdate::default()
                };
                self.update_tool(&id, &call.tool_name, call.dynamic, update, None);
            }
            "tool-input-available" => {
                let id = text("toolCallId");
                let dynamic = chunk.get("dynamic").as_bool() == Some(true);
                let update = ToolUpdate {
                    state: "input-available",
                    input: field("input"),
                    provider_executed: field("providerExecuted"),
                    provider_metadata: field("providerMetadata"),
                    title: field("title"),
                    tool_metadata: field("toolMetadata"),
                    ..ToolUpdate::default()
                };
                self.update_tool(&id, &text("toolName"), dynamic, update, None);
                if chunk.get("providerExecuted").as_bool() != Some(true) {
                    applied.tool_call = Some(chunk.clone().in_schema_order(&[
                        "type",
                        "toolCallId",
                        "toolName",
                        "input",
                        "providerExecuted",
                        "providerMetadata",
                        "toolMetadata",
                        "dynamic",
                        "title",
                    ]));
                }
            }
            "tool-input-error" => {
                let id = text("toolCallId");
                let existing = self.in_step(&id).next().and_then(|at| self.message.parts.get(at));
                let dynamic = match existing {
                    Some(part) => part.str("type") == Some("dynamic-tool"),
                    None => chunk.get("dynamic").as_bool() == Some(true),
                };
                let update = ToolUpdate {
                    state: "output-error",
                    input: field("input"),
                    error_text: field("errorText"),
                    provider_executed: field("providerExecuted"),
                    provider_metadata: field("providerMetadata"),
                    tool_metadata: field("toolMetadata"),
                    ..ToolUpdate::default()
                };
                self.update_tool(&id, &text("toolName"), dynamic, update, None);
            }
            "tool-approval-request" => {
                let at = self.tool_invocation(&text("toolCallId"))?;
                let mut approval = Object::literal([("id", field("approvalId"))]);
                if !chunk.get("approvalDescriptor").is_nullish() {
                    approval.set("descriptor", field("approvalDescriptor"));
                }
                if chunk.has("inputSchemaInput") {
                    approval.set("inputSchemaInput", field("inputSchemaInput"));
                }
                if !chunk.get("reason").is_nullish() {
                    approval.set("requestReason", field("reason"));
                }
                if chunk.get("isAutomatic").as_bool() == Some(true) {
                    approval.set("isAutomatic", Field::bool(true));
                }
                if !chunk.get("signature").is_nullish() {
                    approval.set("signature", field("signature"));
                }
                let part = &mut self.message.parts[at];
                part.set("state", "approval-requested");
                part.set("approval", Field::object(&approval));
                self.places.add_approval(at, &self.message.parts[at]);
            }
            "tool-approval-response" => {
                let approval_id = text("approvalId");
                let holds =
                    |p: &Object| p.get("approval").as_object().is_some_and(|a| a.str("id") == Some(&approval_id));
                let found = self.places.approvals.get(&approval_id).and_then(|&at| self.message.parts.get_mut(at));
                let Some(part) = found.filter(|p| holds(p)) else {
                    return Err(ChunkError(format!(
                        "No tool invocation found for approval ID {}.",
                        quoted(&approval_id)
                    )));
                };
                let mut approval = part.get("approval").as_object().unwrap_or_default();
                part.set("state", "approval-responded");
                approval.set("id", approval_id.as_str());
                approval.set("approved", field("approved"));
                if !chunk.get("reason").is_nullish() {
                    approval.set("reason", field("reason"));
                }
                part.set("approval", Field::object(&approval));
                if !chunk.get("providerExecuted").is_nullish() {
                    part.set("providerExecuted", field("providerExecuted"));
                }
                if !chunk.get("providerMetadata").is_nullish() {
                    part.set("callProviderMetadata", field("providerMetadata"));
                }
            }
            "tool-output-denied" => {
                let at = self.tool_invocation(&text("toolCallId"))?;
                self.message.parts[at].set("state", "output-denied");
            }
            "tool-output-available" | "tool-output-error" => {
                let id = text("toolCallId");
                let at = self.tool_invocation(&id)?;
                let part = &self.message.parts[at];
                let dynamic = part.str("type") == Some("dynamic-tool");
                let tool_name = tool_name(part).to_owned();
                let mut update = ToolUpdate {
                    state: "output-available",
                    input: part.get("input").clone(),
                    provider_executed: field("providerExecuted"),
                    provider_metadata: field("providerMetadata"),
                    title: part.get("title").clone(),
                    tool_metadata: field("toolMetadata").or(part.get("toolMetadata").clone()),
                    ..ToolUpdate::default()
                };
                if kind == "tool-output-available" {
                    update.output = field("output");
                    update.preliminary = field("preliminary");
                } else {
                    update.state = "output-error";
                    update.error_text = field("errorText");
                    if !dynamic {
                        update.raw_input = part.get("rawInput").clone();
                    }
                }
                self.update_tool(&id, &tool_name, dynamic, update, Some(at));
            }
            "steering-message" => self.push(Object::literal([
                ("type", "steering-message".into()),
                ("id", field("id")),
                ("parts", field("parts")),
            ])),
            "start-step" => {
                self.push(Object::literal([("type", "step-start".into())]));
                applied.wrote = false;
                applied.unshown = true;
            }
            "reset-step" => {
                let start = self.places.step_start;
                self.active_text.clear();
                self.active_reasoning.clear();
                self.partial_tool_calls.clear();
                applied.wrote = start < self.message.parts.len();
                let removed = self.message.parts.split_off(start);
                self.places.remove_from(start, &removed);
            }
            "start" => {
                if let Some(id) = chunk.str("messageId") {
                    self.message.head.set("id", id);
                }
                applied.wrote = chunk.has("messageId") | self.merge_metadata(chunk.get("messageMetadata"));
            }
            "finish" => {
                applied.finish = true;
                if let Some(reason) = chunk.str("finishReason") {
                    self.finish_reason = Some(reason.to_owned());
                }
                applied.wrote = self.merge_metadata(chunk.get("messageMetadata"));
            }
            "message-metadata" => applied.wrote = self.merge_metadata(chunk.get("messageMetadata")),
            "error" => {
                applied.error_text = Some(text("errorText"));
                applied.wrote = false;
            }
            "finish-step" | "abort" => applied.wrote = false,
            _ => {
                // A data part (the schema let no other type through).
                let part = chunk.in_schema_order(&["type", "id", "data", "transient"]);
                applied.data = Some(part.clone());
                if part.get("transient").as_bool() == Some(true) {
                    applied.wrote = false;
                    return Ok(applied);
                }
                let key = part.str("id").map(|id| format!("{}\0{id}", part.str("type").unwrap_or_default()));
                let existing =
                    key.and_then(|key| self.places.data.get(&key)).and_then(|&at| self.message.parts.get_mut(at));
                match existing {
                    Some(existing) => existing.set("data", part.get("data").clone()),
                    None => self.push(part),
                }
            }
        }
        Ok(applied)
    }

    /// Merges `metadata` into the message's (the AI SDK's `mergeObjects`: objects key by key,
    /// deeply; anything else replaces). Whether there was any.
    fn merge_metadata(&mut self, metadata: &Field) -> bool {
        if metadata.is_nullish() {
            return false;
        }
        let merged = match self.message.head.get("metadata") {
            base if base.is_nullish() => metadata.clone(),
            base => merge_objects(base, metadata),
        };
        self.message.head.set("metadata", merged);
        true
    }
}

/// The AI SDK's `mergeObjects(base, overrides)` over JSON text, keys kept in order.
fn merge_objects(base: &Field, overrides: &Field) -> Field {
    let (Some(mut base), Some(overrides)) = (base.as_object(), overrides.as_object()) else {
        return overrides.clone();
    };
    for (key, value) in overrides.iter() {
        if matches!(key, "__proto__" | "constructor" | "prototype") {
            continue;
        }
        let merged = match base.get(key) {
            old if old.as_object().is_some() && value.as_object().is_some() => merge_objects(old, value),
            _ => value.clone(),
        };
        base.set(key, merged);
    }
    Field::object(&base)
}
