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
use super::object::{json_value, Field, Object};

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
}

/// A chunk that breaks the protocol.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChunkError(pub(crate) String);

/// A tool call whose input is still streaming.
#[derive(Debug, Clone)]
struct PartialToolCall {
    text: String,
    input_encoding: Field,
    tool_name: String,
    dynamic: bool,
    title: Field,
    tool_metadata: Field,
}

/// The assistant message being written, and what the stream has open in it.
#[derive(Debug, Clone)]
pub(crate) struct MessageWriter {
    pub(crate) message: UiMessage,
    /// Text and reasoning parts started and not ended: their place in `message.parts`.
    active_text: HashMap<String, usize>,
    active_reasoning: HashMap<String, usize>,
    partial_tool_calls: HashMap<String, PartialToolCall>,
    places: Places,
    /// The `finish` chunk's reason.
    pub(crate) finish_reason: Option<String>,
}

/// Where the parts that chunks name are, kept as parts come and go, so that no chunk scans the
/// whole message: a stream of many parts must not make reading it quadratic.
#[derive(Debug, Clone, Default)]
struct Places {
    /// Where the current step begins: after the last `step-start`.
    step_start: usize,
    /// The tool parts of each toolCallId, in order.
    tools: HashMap<String, Vec<usize>>,
    /// The first tool part that held each approval id.
    approvals: HashMap<String, usize>,
    /// The first data part of each type and id (`type\0id`).
    data: HashMap<String, usize>,
}

impl Places {
    fn of(parts: &[Object]) -> Places {
        let mut places = Places::default();
        parts.iter().enumerate().for_each(|(at, part)| places.add(at, part));
        places
    }

    fn add(&mut self, at: usize, part: &Object) {
        let kind = part.str("type").unwrap_or_default();
        if kind == "step-start" {
            self.step_start = at + 1;
        } else if is_tool_part(part) {
            self.tools.entry(part.str("toolCallId").unwrap_or_default().to_owned()).or_default().push(at);
            self.add_approval(at, part);
        } else if let Some(id) = part.str("id").filter(|_| kind.starts_with("data-")) {
            self.data.entry(format!("{kind}\0{id}")).or_insert(at);
        }
    }

    fn add_approval(&mut self, at: usize, part: &Object) {
        if let Some(id) = part.get("approval").as_object().and_then(|a| a.str("id").map(str::to_owned)) {
            self.approvals.entry(id).or_insert(at);
        }
    }

    /// The parts from `start` on are gone (a step thrown away): each is forgotten once.
    fn remove_from(&mut self, start: usize, removed: &[Object]) {
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

/// The keys of each chunk type the AI SDK's schema requires as strings.
fn required_strings(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "text-start" | "text-end" | "reasoning-start" | "reasoning-end" => &["id"],
        "text-delta" | "reasoning-delta" => &["id", "delta"],
        "error" => &["errorText"],
        "tool-input-start" | "tool-input-available" => &["toolCallId", "toolName"],
        "tool-input-delta" => &["toolCallId", "inputTextDelta"],
        "tool-input-error" => &["toolCallId", "toolName", "errorText"],
        "tool-approval-request" => &["approvalId", "toolCallId"],
        "tool-approval-response" => &["approvalId"],
        "tool-output-available" | "tool-output-denied" => &["toolCallId"],
        "tool-output-error" => &["toolCallId", "errorText"],
        "custom" => &["kind"],
        "source-url" => &["sourceId", "url"],
        "source-document" => &["sourceId", "mediaType", "title"],
        "file" | "reasoning-file" => &["url", "mediaType"],
        "steering-message" => &["id"],
        "start-step" | "finish-step" | "reset-step" | "start" | "finish" | "abort" | "message-metadata" => &[],
        _ if kind.starts_with("data-") => &[],
        _ => return None,
    })
}

/// Optional keys the logic reads as booleans; the schema refuses anything else in them.
const BOOLEANS: [&str; 5] = ["providerExecuted", "dynamic", "preliminary", "transient", "approved"];

/// Optional keys the logic reads as strings.
const STRINGS: [&str; 4] = ["messageId", "title", "reason", "inputEncoding"];

const FINISH_REASONS: [&str; 7] = ["stop", "length", "content-filter", "tool-calls", "error", "interrupted", "other"];

/// The checks of the AI SDK's chunk schema that matter here.
fn check(chunk: &Object) -> Result<&str, ChunkError> {
    let Some(kind) = chunk.str("type") else { return Err(ChunkError("a chunk without a string \"type\"".into())) };
    let Some(required) = required_strings(kind) else {
        return Err(ChunkError(format!("unknown chunk type {kind:?}")));
    };
    if let Some(missing) = required.iter().find(|key| chunk.str(key).is_none()) {
        return Err(ChunkError(format!("a {kind:?} chunk needs `{missing}` as a string")));
    }
    if let Some(key) = BOOLEANS.iter().find(|key| chunk.has(key) && chunk.get(key).as_bool().is_none()) {
        return Err(ChunkError(format!("a {kind:?} chunk's `{key}` must be a boolean")));
    }
    if let Some(key) =
        STRINGS.iter().find(|key| !kind.starts_with("data-") && chunk.has(key) && chunk.str(key).is_none())
    {
        return Err(ChunkError(format!("a {kind:?} chunk's `{key}` must be a string")));
    }
    if kind == "tool-approval-response" && chunk.get("approved").as_bool().is_none() {
        return Err(ChunkError("a \"tool-approval-response\" chunk needs `approved` as a boolean".into()));
    }
    if kind == "finish"
        && chunk.has("finishReason")
        && !chunk.str("finishReason").is_some_and(|r| FINISH_REASONS.contains(&r))
    {
        return Err(ChunkError("a \"finish\" chunk's `finishReason` is not one of the AI SDK's".into()));
    }
    Ok(kind)
}

/// What a tool part is set to (the AI SDK's `updateToolPart` options): every field given is
/// assigned, `undefined` included.
#[derive(Default)]
struct ToolUpdate {
    state: &'static str,
    input: Field,
    output: Field,
    error_text: Field,
    raw_input: Field,
    input_encoding: Field,
    preliminary: Field,
    provider_executed: Field,
    provider_metadata: Field,
    title: Field,
    tool_metadata: Field,
}

impl MessageWriter {
    /// Writing a new answer (`id` until the stream gives its own), or continuing `last`, an
    /// assistant message: its tool calls whose input was still streaming stay open.
    pub(crate) fn new(continued: Option<UiMessage>, id: String) -> MessageWriter {
        let message = continued.filter(|m| m.role() == "assistant").unwrap_or_else(|| UiMessage::assistant(id));
        let places = Places::of(&message.parts);
        let mut partial_tool_calls = HashMap::new();
        for part in message.parts.get(places.step_start..).unwrap_or_default() {
            if !is_tool_part(part) || part.str("state") != Some("input-streaming") {
                continue;
            }
            let dynamic = part.str("type") == Some("dynamic-tool");
            let tool_name = if dynamic { part.str("toolName") } else { part.str("type").map(|t| &t["tool-".len()..]) };
            partial_tool_calls.insert(
                part.str("toolCallId").unwrap_or_default().to_owned(),
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
                let Some(part) = found.and_then(|at| self.message.parts.get_mut(at)) else {
                    return Err(ChunkError(format!(
                        "{kind} for a {what} part that is not open (id {id:?}): a \"{what}-start\" must come first"
                    )));
                };
                if let Some(delta) = chunk.str("delta").filter(|_| !end) {
                    match part.text_mut("text") {
                        Some(text) => text.push_str(delta),
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
                    id.clone(),
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
                        "tool-input-delta for a tool call that did not start (toolCallId {id:?}): a \"tool-input-start\" must come first"
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
                    return Err(ChunkError(format!("No tool invocation found for approval ID {approval_id:?}.")));
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

    /// The tool part of `tool_call_id`: in the current step first, else the last in the message (a
    /// place in the parts: what callers index with).
    fn tool_invocation(&self, tool_call_id: &str) -> Result<usize, ChunkError> {
        let end = self.message.parts.len();
        let last =
            || self.places.tools.get(tool_call_id).and_then(|places| places.last().copied()).filter(|&at| at < end);
        self.in_step(tool_call_id)
            .next()
            .or_else(last)
            .ok_or_else(|| ChunkError(format!("No tool invocation found for tool call ID {tool_call_id:?}.")))
    }

    /// The AI SDK's `updateToolPart` / `updateDynamicToolPart`: the part `at` (or the current
    /// step's part of this call and kind) gets every field of `update`; a call not seen yet gets a
    /// new part, its keys in the AI SDK's order.
    fn update_tool(&mut self, id: &str, tool_name: &str, dynamic: bool, update: ToolUpdate, at: Option<usize>) {
        let at = at.or_else(|| {
            self.in_step(id).find(|&at| {
                let kind = self.message.parts[at].str("type").unwrap_or_default();
                if dynamic {
                    kind == "dynamic-tool"
                } else {
                    kind.starts_with("tool-")
                }
            })
        });
        let result = matches!(update.state, "output-available" | "output-error");
        let metadata_key = if result { "resultProviderMetadata" } else { "callProviderMetadata" };
        let Some(part) = at.and_then(|at| self.message.parts.get_mut(at)) else {
            let encoding = update.input_encoding;
            let encoding = (!encoding.is_nullish()).then_some(("inputEncoding", encoding));
            let tool_metadata = update.tool_metadata;
            let tool_metadata = (!matches!(tool_metadata, Field::Undefined)).then_some(("toolMetadata", tool_metadata));
            let metadata = update.provider_metadata;
            let metadata = (!metadata.is_nullish()).then_some((metadata_key, metadata));
            let fields = if dynamic {
                [
                    Some(("type", "dynamic-tool".into())),
                    Some(("toolName", tool_name.into())),
                    Some(("toolCallId", id.into())),
                    Some(("state", update.state.into())),
                    Some(("input", update.input)),
                    encoding,
                    Some(("output", update.output)),
                    Some(("errorText", update.error_text)),
                    Some(("preliminary", update.preliminary)),
                    Some(("providerExecuted", update.provider_executed)),
                    Some(("title", update.title)),
                    tool_metadata,
                    metadata,
                ]
            } else {
                [
                    Some(("type", format!("tool-{tool_name}").into())),
                    Some(("toolCallId", id.into())),
                    Some(("state", update.state.into())),
                    Some(("title", update.title)),
                    tool_metadata,
                    Some(("input", update.input)),
                    encoding,
                    Some(("output", update.output)),
                    Some(("rawInput", update.raw_input)),
                    Some(("errorText", update.error_text)),
                    Some(("providerExecuted", update.provider_executed)),
                    Some(("preliminary", update.preliminary)),
                    metadata,
                ]
            };
            let mut part = Object::default();
            fields.into_iter().flatten().for_each(|(key, value): (&str, Field)| part.set(key, value));
            self.push(part);
            return;
        };
        part.set("state", update.state);
        if dynamic {
            part.set("toolName", tool_name);
        } else {
            part.set("type", format!("tool-{tool_name}"));
        }
        part.set("input", update.input);
        part.set("output", update.output);
        part.set("errorText", update.error_text);
        part.set("rawInput", update.raw_input);
        if update.input_encoding.is_nullish() {
            part.remove("inputEncoding");
        } else {
            part.set("inputEncoding", update.input_encoding);
        }
        part.set("preliminary", update.preliminary);
        if !matches!(update.title, Field::Undefined) {
            part.set("title", update.title);
        }
        if !matches!(update.tool_metadata, Field::Undefined) {
            part.set("toolMetadata", update.tool_metadata);
        }
        let executed = update.provider_executed.or(part.get("providerExecuted").clone());
        part.set("providerExecuted", executed);
        if !update.provider_metadata.is_nullish() {
            part.set(metadata_key, update.provider_metadata);
        }
    }
}

/// A tool part's tool name: `toolName` of a dynamic one, else its type after `tool-`.
pub(crate) fn tool_name(part: &Object) -> &str {
    match part.str("type") {
        Some("dynamic-tool") => part.str("toolName").unwrap_or_default(),
        Some(kind) => kind.strip_prefix("tool-").unwrap_or_default(),
        None => "",
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

/// The best value a tool's input so far allows (the AI SDK's `parsePartialJson`): the text as
/// it is when it parses, else the text closed (an open string and the open arrays and objects
/// closed, a literal cut short completed, a number cut short cut back to its last digit, a
/// dangling key, comma or colon dropped); `undefined` when neither parses.
pub(crate) fn partial_json(text: &str) -> Field {
    let tries = [text.to_owned(), close_json(text)];
    tries.iter().find_map(|json| json_value(json)).map_or(Field::Undefined, |value| Field::Json(value.into()))
}

/// `text` with what is open closed, for [`partial_json`].
fn close_json(text: &str) -> String {
    let mut open = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    // Where the text stays valid once closed: before a dangling key, comma, colon or a part
    // of a literal.
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else {
            match c {
                '"' => in_string = true,
                '{' => open.push('}'),
                '[' => open.push(']'),
                '}' | ']' => _ = open.pop(),
                _ => {}
            }
        }
        out.push(c);
    }
    if in_string {
        if escaped {
            out.pop();
        }
        // A `\u` escape cut short.
        if let Some(at) = out.rfind("\\u").filter(|at| out.len() - at < 6) {
            out.truncate(at);
        }
        out.push('"');
    } else {
        let token_start = out.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || "+-.".contains(c)).len();
        let token = out[token_start..].to_owned();
        if let Some(word) = ["true", "false", "null"].iter().find(|w| !token.is_empty() && w.starts_with(&token)) {
            out.push_str(&word[token.len()..]);
        } else if token.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
            out.truncate(token_start + token.trim_end_matches(|c: char| "+-.eE".contains(c)).len());
        }
    }
    loop {
        let trimmed = out.trim_end();
        let cut = if trimmed.ends_with(',') || trimmed.ends_with(':') {
            trimmed.len() - 1
        } else if let Some(key) = dangling_key(trimmed, open.last() == Some(&'}')) {
            key
        } else {
            break;
        };
        out.truncate(cut);
    }
    open.iter().rev().for_each(|c| out.push(*c));
    out
}

/// Where a key with no colon after it begins, when the text ends with one inside an object.
fn dangling_key(text: &str, in_object: bool) -> Option<usize> {
    if !in_object || !text.ends_with('"') {
        return None;
    }
    let start = text[..text.len() - 1].rfind('"')?;
    let before = text[..start].trim_end();
    (before.ends_with('{') || before.ends_with(',')).then_some(start)
}
