//! What a backend sends for `complete.payload` (an agent's `complete`, message metadata): fields
//! it owns win over what the streamed text gave, and its `tool_history` is reconciled with the
//! tools seen in the stream.

use serde_json::{json, Map, Value};

use crate::event::{CompletePayload, FinishReason, ToolRecord, Usage};
use crate::json::Shared;

/// The fields the backend sent that take precedence over the stream's own.
#[derive(Debug, Default)]
pub(crate) struct BackendFields {
    pub message: Option<String>,
    pub thinking: Option<String>,
    pub suggested_values: Option<Value>,
    pub suggested_actions: Option<Value>,
    pub custom_payload: Option<Value>,
    tool_history: Option<Value>,
}

impl BackendFields {
    /// Takes the backend's fields; those the stream has no rival for (`finish_reason`, `usage`,
    /// anything unknown) go straight into `payload`.
    pub(crate) fn merge(&mut self, fields: Map<String, Value>, payload: &mut CompletePayload) {
        for (key, value) in fields {
            match key.as_str() {
                "message" => self.message = value.as_str().map(str::to_owned),
                "thinking" => self.thinking = value.as_str().map(str::to_owned),
                "suggested_values" => self.suggested_values = Some(value).filter(|v| !v.is_null()),
                "suggested_actions" => self.suggested_actions = Some(value).filter(|v| !v.is_null()),
                "custom_payload" => self.custom_payload = Some(value).filter(|v| !v.is_null()),
                "tool_history" => self.tool_history = Some(value).filter(|v| !v.is_null()),
                "finish_reason" => {
                    if let Some(reason) = value.as_str() {
                        payload.finish_reason = Some(FinishReason::from_name(reason));
                    }
                }
                "usage" => {
                    if let Ok(usage) = Usage::from_value(&value) {
                        merge_usage(payload.usage.get_or_insert_with(Usage::default), &usage);
                    }
                }
                // Derived from `message`.
                "text" | "segments" => {}
                _ => {
                    payload.extra.insert(key, value);
                }
            }
        }
    }

    /// The message's `tool_history`: the backend's (as `tool_history`, or as a custom payload of
    /// that type), with what its entries leave out taken from `ours`, the tools seen in the
    /// stream at the same index; else `ours`.
    pub(crate) fn tool_history(&self, ours: Vec<ToolRecord>) -> Vec<ToolRecord> {
        let sent = self.tool_history.as_ref().or_else(|| {
            let custom = self.custom_payload.as_ref()?;
            (custom["type"] == "tool_history").then(|| &custom["data"])
        });
        let Some(entries) = sent.and_then(Value::as_array) else { return ours };
        let records = entries.iter().enumerate().map(|(i, entry)| {
            let ours = ours.get(i);
            let text = |keys: &[&str]| keys.iter().find_map(|k| entry[*k].as_str()).map(str::to_owned);
            ToolRecord {
                tool_name: text(&["tool_name", "tool", "name"])
                    .or_else(|| ours.map(|r| r.tool_name.clone()))
                    .unwrap_or_default(),
                tool_use_id: text(&["tool_use_id", "id"])
                    .or_else(|| ours.map(|r| r.tool_use_id.clone()))
                    .unwrap_or_default(),
                input: entry
                    .get("input")
                    .map(|input| Shared::new(input.clone()))
                    .or_else(|| ours.map(|r| r.input.clone()))
                    .unwrap_or_else(|| Shared::new(json!({}))),
                output: entry
                    .get("output")
                    .map(|output| Shared::new(output.clone()))
                    .or_else(|| ours.map(|r| r.output.clone()))
                    .unwrap_or_default(),
                is_error: entry["is_error"].as_bool().or(ours.map(|r| r.is_error)).unwrap_or(false),
            }
        });
        records.collect()
    }
}

/// Later usage reports replace earlier ones field by field.
pub(crate) fn merge_usage(into: &mut Usage, later: &Usage) {
    let fields = [
        (&mut into.input_tokens, later.input_tokens),
        (&mut into.output_tokens, later.output_tokens),
        (&mut into.reasoning_tokens, later.reasoning_tokens),
        (&mut into.cached_input_tokens, later.cached_input_tokens),
        (&mut into.total_tokens, later.total_tokens),
    ];
    for (field, value) in fields {
        if value.is_some() {
            *field = value;
        }
    }
}
