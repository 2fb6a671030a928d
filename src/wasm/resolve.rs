//! The two helpers for messages already stored: `resolveToolMarkers` and `parseLlmResponse`
//! (helpers for stored messages).

use wasm_bindgen::prelude::*;

use super::stream::JsStreamOptions;
use super::{args, to_js};
use crate::clean;
use crate::event::ToolRecord;

/// Splits a saved message at its `[[tool:N]]` markers into text and tool segments, each tool
/// filled from `toolHistory[N]` (a marker with no entry stays a tool segment with no output).
#[wasm_bindgen(js_name = resolveToolMarkers)]
pub fn resolve_tool_markers(message: JsValue, tool_history: JsValue) -> Result<JsValue, JsValue> {
    let message = args::text(&message, "resolveToolMarkers: message")?;
    let history = args::list(&tool_history, "resolveToolMarkers: toolHistory", ToolRecord::from_value)?;
    Ok(to_js(&clean::resolve_tool_markers(&message, &history))?)
}

/// Cleans a whole response text as a stream would be cleaned: `{ message, text, thinking,
/// suggested_values, suggested_actions, custom_payload, diagnostics }`. Reads the cleaning
/// options of `ChatStreamOptions` (`inlineThinking`, `thinkingTags`, `startsInThinking`,
/// `payloadMarkers`).
#[wasm_bindgen(js_name = parseLlmResponse)]
pub fn parse_llm_response(text: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let text = args::text(&text, "parseLlmResponse: text")?;
    let options = JsStreamOptions::read(&options, "parseLlmResponse options")?;
    Ok(to_js(&clean::parse_llm_response(&text, &options.clean_options()))?)
}
