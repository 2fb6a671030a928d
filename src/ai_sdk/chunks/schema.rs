//! The checks of the AI SDK's UI message stream chunk schema that the reducer relies on: each
//! chunk type's required string keys, the optional keys it reads as booleans or strings, and the
//! finish reasons. A chunk that fails them is a [`ChunkError`].

use super::ChunkError;
use crate::ai_sdk::object::{quoted, Object};

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
pub(super) fn check(chunk: &Object) -> Result<&str, ChunkError> {
    let Some(kind) = chunk.str("type") else { return Err(ChunkError("a chunk without a string \"type\"".into())) };
    let Some(required) = required_strings(kind) else {
        return Err(ChunkError(format!("unknown chunk type {}", quoted(kind))));
    };
    if let Some(missing) = required.iter().find(|key| chunk.str(key).is_none()) {
        return Err(ChunkError(format!("a {} chunk needs `{missing}` as a string", quoted(kind))));
    }
    if let Some(key) = BOOLEANS.iter().find(|key| chunk.has(key) && chunk.get(key).as_bool().is_none()) {
        return Err(ChunkError(format!("a {} chunk's `{key}` must be a boolean", quoted(kind))));
    }
    if let Some(key) =
        STRINGS.iter().find(|key| !kind.starts_with("data-") && chunk.has(key) && chunk.str(key).is_none())
    {
        return Err(ChunkError(format!("a {} chunk's `{key}` must be a string", quoted(kind))));
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
