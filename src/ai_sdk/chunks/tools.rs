//! Tool parts: a tool call whose input is still streaming, what a tool part is set to, and the
//! AI SDK's `updateToolPart` / `updateDynamicToolPart` over the message being written.

use super::{ChunkError, MessageWriter};
use crate::ai_sdk::object::{quoted, Field, Object};

/// A tool call whose input is still streaming.
#[derive(Debug, Clone)]
pub(super) struct PartialToolCall {
    pub(super) text: String,
    pub(super) input_encoding: Field,
    pub(super) tool_name: String,
    pub(super) dynamic: bool,
    pub(super) title: Field,
    pub(super) tool_metadata: Field,
}

/// What a tool part is set to (the AI SDK's `updateToolPart` options): every field given is
/// assigned, `undefined` included.
#[derive(Default)]
pub(super) struct ToolUpdate {
    pub(super) state: &'static str,
    pub(super) input: Field,
    pub(super) output: Field,
    pub(super) error_text: Field,
    pub(super) raw_input: Field,
    pub(super) input_encoding: Field,
    pub(super) preliminary: Field,
    pub(super) provider_executed: Field,
    pub(super) provider_metadata: Field,
    pub(super) title: Field,
    pub(super) tool_metadata: Field,
}

impl MessageWriter {
    /// The tool part of `tool_call_id`: in the current step first, else the last in the message (a
    /// place in the parts: what callers index with).
    pub(super) fn tool_invocation(&self, tool_call_id: &str) -> Result<usize, ChunkError> {
        let end = self.message.parts.len();
        let last =
            || self.places.tools.get(tool_call_id).and_then(|places| places.last().copied()).filter(|&at| at < end);
        self.in_step(tool_call_id)
            .next()
            .or_else(last)
            .ok_or_else(|| ChunkError(format!("No tool invocation found for tool call ID {}.", quoted(tool_call_id))))
    }

    /// The AI SDK's `updateToolPart` / `updateDynamicToolPart`: the part `at` (or the current
    /// step's part of this call and kind) gets every field of `update`; a call not seen yet gets a
    /// new part, its keys in the AI SDK's order.
    pub(super) fn update_tool(
        &mut self,
        id: &str,
        tool_name: &str,
        dynamic: bool,
        update: ToolUpdate,
        at: Option<usize>,
    ) {
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
