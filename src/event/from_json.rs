//! Stored messages' segments, tool history and usage read back from JSON.

use serde_json::Value;

use super::{FinishReason, Segment, ToolRecord, Usage};
use crate::json::Fields;

impl Segment {
    /// A segment as [`crate::json`] writes it.
    pub fn from_value(value: &Value) -> Result<Segment, String> {
        let fields = Fields::of(value)?;
        match fields.string("type")?.as_str() {
            "text" => Ok(Segment::Text { text: fields.string("text")? }),
            "tool" => Ok(Segment::Tool {
                index: fields.index("index")?,
                tool_use_id: fields.opt_string("tool_use_id")?,
                tool: fields.opt_string("tool")?,
                input: fields.value("input"),
                output: fields.value("output"),
                is_error: fields.bool("is_error")?,
            }),
            other => Err(format!("unknown segment type {other:?}, expected \"text\" or \"tool\"")),
        }
    }
}

impl ToolRecord {
    /// A `tool_history` entry: only `tool_name` is required.
    pub fn from_value(value: &Value) -> Result<ToolRecord, String> {
        let fields = Fields::of(value)?;
        Ok(ToolRecord {
            tool_name: fields.string("tool_name")?,
            tool_use_id: fields.opt_string("tool_use_id")?.unwrap_or_default(),
            input: fields.value("input"),
            output: fields.value("output"),
            is_error: fields.bool("is_error")?,
        })
    }
}

impl Usage {
    /// Token counts; each may be missing.
    pub fn from_value(value: &Value) -> Result<Usage, String> {
        let fields = Fields::of(value)?;
        Ok(Usage {
            input_tokens: fields.count("input_tokens")?,
            output_tokens: fields.count("output_tokens")?,
            reasoning_tokens: fields.count("reasoning_tokens")?,
            cached_input_tokens: fields.count("cached_input_tokens")?,
            total_tokens: fields.count("total_tokens")?,
        })
    }
}

impl FinishReason {
    /// Any word reads (a backend may send its own, a saved message may be older): unknown
    /// ones are `Other`.
    pub fn from_value(value: &Value) -> Result<FinishReason, String> {
        value.as_str().map(FinishReason::from_name).ok_or_else(|| "expected a string".to_owned())
    }
}
