//! The Vercel AI SDK v4 data stream (`X-Vercel-AI-Data-Stream: v1`): one `CODE:JSON` part a line
//! (packages/ui-utils/src/data-stream-parts.ts in AI SDK 4):
//!
//! | code | part | read as |
//! |---|---|---|
//! | `0` | text (a string) | text |
//! | `g` | reasoning (a string) | thinking |
//! | `i` | redacted reasoning `{data}` | `thinking_blocks` |
//! | `j` | reasoning signature `{signature}` | `thinking_blocks`, with the reasoning before it |
//! | `b` | tool call streaming start `{toolCallId, toolName}` | call start |
//! | `c` | tool call delta `{toolCallId, argsTextDelta}` | argument text |
//! | `9` | tool call `{toolCallId, toolName, args}` | the complete call |
//! | `a` | tool result `{toolCallId, result}` | the result of a call the server ran |
//! | `f` | start step `{messageId}` | `message_id` |
//! | `e` | finish step `{finishReason, usage, isContinued}` | nothing: `d` has the totals |
//! | `d` | finish message `{finishReason, usage: {promptTokens, completionTokens}}` | terminal |
//! | `3` | error (a string) | a fatal error |
//! | `2` | data (an array) | each item to `data` |
//! | `8` | message annotations (an array) | each item to `annotations` |
//! | `h` | source `{sourceType, id, url, title?}` | `sources` |
//! | `k` | file `{data, mimeType}` | `files` |
//!
//! Codes this decoder does not know (v3's `1`, `4`–`7`) are skipped.
//!
//! ```
//! use chatstream::dialect::{DataStreamDecoder, DialectDecoder, ProviderEvent, ProviderEvents};
//! use chatstream::framing::FrameRef;
//! let mut decoder = DataStreamDecoder::default();
//! let mut out = ProviderEvents::default();
//! decoder.decode(FrameRef::data(r#"0:"Hello""#), &mut out);
//! assert_eq!(out.as_slice(), [ProviderEvent::Text("Hello".into())]);
//! ```

use serde_json::{json, Value};

use super::{text, DialectDecoder, ProviderEvent, ProviderEvents, ToolNames};
use crate::event::{FinishReason, Usage};
use crate::framing::FrameRef;
use crate::json::to_json;

/// Reads the AI SDK v4 data stream.
#[derive(Debug, Default)]
pub struct DataStreamDecoder {
    /// Reasoning since the last signature: a `j` part signs it.
    reasoning: String,
    /// Tool names by `toolCallId`: results carry only the id.
    tool_names: ToolNames,
}

impl DialectDecoder for DataStreamDecoder {
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        let line = frame.data.trim();
        if line.is_empty() {
            return;
        }
        let Some((code, json)) = line.split_once(':').filter(|(code, _)| code.len() == 1) else {
            return out.push(ProviderEvent::unreadable("a data stream line without a CODE: prefix"));
        };
        let value: Value = match crate::json::parse(json) {
            Ok(value) => value,
            Err(err) => return out.push(ProviderEvent::unreadable(err)),
        };
        let text = |key: &str| text(&value, key);
        let tool_id = || text("toolCallId").unwrap_or_default();
        match code {
            "0" => out.extend(value.as_str().filter(|t| !t.is_empty()).map(|t| ProviderEvent::Text(t.into()))),
            "g" => {
                if let Some(thinking) = value.as_str().filter(|t| !t.is_empty()) {
                    self.reasoning.push_str(thinking);
                    out.push(ProviderEvent::Thinking(thinking.into()));
                }
            }
            "i" => out.push(ProviderEvent::attach(
                "thinking_blocks",
                json!({"type": "redacted_thinking", "data": value["data"]}),
            )),
            "j" => {
                let thinking = std::mem::take(&mut self.reasoning);
                let block = json!({"type": "thinking", "thinking": thinking, "signature": value["signature"]});
                out.push(ProviderEvent::attach("thinking_blocks", block));
            }
            "b" => {
                let (id, name) = (tool_id(), text("toolName").unwrap_or_default());
                self.tool_names.set(&id, name.clone());
                out.push(ProviderEvent::ToolCallStart { id, name });
            }
            "c" => out
                .push(ProviderEvent::ToolCallDelta { id: tool_id(), delta: text("argsTextDelta").unwrap_or_default() }),
            "9" => {
                let (id, name) = (tool_id(), text("toolName"));
                if let Some(name) = &name {
                    self.tool_names.set(&id, name.clone());
                }
                out.push(ProviderEvent::ToolCallEnd { id, name, input: value.get("args").cloned() });
            }
            "a" => {
                let id = tool_id();
                out.push(ProviderEvent::ToolResult {
                    name: self.tool_names.get(&id).map(str::to_owned),
                    id: Some(id),
                    index: None,
                    output: value.get("result").cloned().unwrap_or(Value::Null),
                    is_error: false,
                });
            }
            "f" => {
                if let Some(id) = text("messageId") {
                    out.push(ProviderEvent::payload("message_id", Value::String(id)));
                }
            }
            "d" => {
                if let Some(reason) = value.get("finishReason").and_then(Value::as_str) {
                    out.push(ProviderEvent::Finish { reason: FinishReason::from_ai_sdk(reason) });
                }
                out.extend(usage(&value["usage"]).map(ProviderEvent::Usage));
                out.push(ProviderEvent::End);
            }
            "3" => {
                // The crate's JSON writer, not Value's Display: that links serde_json's pretty printer too.
                let message = value.as_str().map_or_else(|| to_json(&value), str::to_owned);
                out.push(ProviderEvent::provider_error_from_message(&message));
            }
            "2" => out.extend(items(value).map(ProviderEvent::Data)),
            "8" => out.extend(items(value).map(|item| ProviderEvent::attach("annotations", item))),
            "h" => out.push(ProviderEvent::attach("sources", value)),
            "k" => out.push(ProviderEvent::attach("files", value)),
            _ => {}
        }
    }
}

/// The items of an array part; a lone value is one item.
fn items(value: Value) -> impl Iterator<Item = Value> {
    match value {
        Value::Array(items) => items.into_iter(),
        other => vec![other].into_iter(),
    }
}

/// `{promptTokens, completionTokens}`; the SDK writes NaN (JSON `null`) when a provider gave none.
fn usage(usage: &Value) -> Option<Usage> {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64);
    let (input, output) = (count("promptTokens"), count("completionTokens"));
    (input.is_some() || output.is_some()).then(|| Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input.zip(output).map(|(i, o)| i.saturating_add(o)),
        ..Usage::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;
    use crate::error::ErrorCode;

    fn decode(lines: &[&str]) -> Vec<ProviderEvent> {
        crate::dialect::test_support::decode::<DataStreamDecoder>(lines)
    }

    #[test]
    fn counts_at_the_largest_add_up_to_the_largest_not_a_wrapped_small_number() {
        let max = u64::MAX;
        let events =
            decode(&[&format!(r#"d:{{"finishReason":"stop","usage":{{"promptTokens":{max},"completionTokens":3}}}}"#)]);
        let usage =
            Usage { input_tokens: Some(max), output_tokens: Some(3), total_tokens: Some(max), ..Usage::default() };
        assert!(events.contains(&ProviderEvent::Usage(usage)), "{events:?}");
    }

    #[test]
    fn text_tools_and_the_finish_message() {
        let events = decode(&[
            r#"f:{"messageId":"msg-1"}"#,
            r#"0:"Let me check.""#,
            r#"b:{"toolCallId":"call_1","toolName":"weather"}"#,
            r#"c:{"toolCallId":"call_1","argsTextDelta":"{\"city\":"}"#,
            r#"c:{"toolCallId":"call_1","argsTextDelta":"\"Oslo\"}"}"#,
            r#"9:{"toolCallId":"call_1","toolName":"weather","args":{"city":"Oslo"}}"#,
            r#"a:{"toolCallId":"call_1","result":{"temp":3}}"#,
            r#"e:{"finishReason":"tool-calls","usage":{"promptTokens":10,"completionTokens":5},"isContinued":false}"#,
            "",
            r#"0:"It is 3°C.""#,
            r#"d:{"finishReason":"stop","usage":{"promptTokens":30,"completionTokens":12}}"#,
            r#"0:"after the end""#,
        ]);
        assert_eq!(
            events,
            [
                ProviderEvent::Payload(Map::from_iter([("message_id".to_owned(), json!("msg-1"))])),
                ProviderEvent::Text("Let me check.".into()),
                ProviderEvent::ToolCallStart { id: "call_1".into(), name: "weather".into() },
                ProviderEvent::ToolCallDelta { id: "call_1".into(), delta: r#"{"city":"#.into() },
                ProviderEvent::ToolCallDelta { id: "call_1".into(), delta: r#""Oslo"}"#.into() },
                ProviderEvent::ToolCallEnd {
                    id: "call_1".into(),
                    name: Some("weather".into()),
                    input: Some(json!({"city": "Oslo"})),
                },
                ProviderEvent::ToolResult {
                    id: Some("call_1".into()),
                    name: Some("weather".into()),
                    index: None,
                    output: json!({"temp": 3}),
                    is_error: false,
                },
                ProviderEvent::Text("It is 3°C.".into()),
                ProviderEvent::Finish { reason: "stop".into() },
                ProviderEvent::Usage(Usage {
                    input_tokens: Some(30),
                    output_tokens: Some(12),
                    total_tokens: Some(42),
                    ..Usage::default()
                }),
                ProviderEvent::End,
            ]
        );
    }

    #[test]
    fn reasoning_signatures_sources_files_data_and_annotations() {
        let events = decode(&[
            r#"g:"Think""#,
            r#"g:"ing.""#,
            r#"j:{"signature":"sig1"}"#,
            r#"i:{"data":"opaque"}"#,
            r#"h:{"sourceType":"url","id":"s1","url":"https://a.example","title":"A"}"#,
            r#"k:{"data":"AA==","mimeType":"image/png"}"#,
            r#"2:[{"step":1},"two"]"#,
            r#"8:[{"id":"note"}]"#,
            r#"d:{"finishReason":"length","usage":{"promptTokens":null,"completionTokens":null}}"#,
        ]);
        assert_eq!(
            events,
            [
                ProviderEvent::Thinking("Think".into()),
                ProviderEvent::Thinking("ing.".into()),
                ProviderEvent::attach(
                    "thinking_blocks",
                    json!({"type": "thinking", "thinking": "Thinking.", "signature": "sig1"})
                ),
                ProviderEvent::attach("thinking_blocks", json!({"type": "redacted_thinking", "data": "opaque"})),
                ProviderEvent::attach(
                    "sources",
                    json!({"sourceType": "url", "id": "s1", "url": "https://a.example", "title": "A"})
                ),
                ProviderEvent::attach("files", json!({"data": "AA==", "mimeType": "image/png"})),
                ProviderEvent::Data(json!({"step": 1})),
                ProviderEvent::Data(json!("two")),
                ProviderEvent::attach("annotations", json!({"id": "note"})),
                ProviderEvent::Finish { reason: "length".into() },
                ProviderEvent::End,
            ]
        );
    }

    #[test]
    fn errors_unknown_codes_and_unreadable_lines() {
        let events = decode(&[
            "hello",
            r#"0:"unterminated"#,
            r#"ab:"two-letter code""#,
            r#"7:{"legacy":true}"#,
            r#"0:"kept""#,
            r#"3:"Rate limit exceeded""#,
            r#"0:"after the error""#,
        ]);
        assert_eq!(events.len(), 5, "{events:?}");
        for event in &events[..3] {
            assert!(
                matches!(event, ProviderEvent::Error { fatal: false, message, .. } if message.starts_with("Failed to parse response"))
            );
        }
        assert_eq!(events[3], ProviderEvent::Text("kept".into()));
        assert_eq!(
            events[4],
            ProviderEvent::Error {
                code: ErrorCode::RateLimited,
                message: "Rate limited, try again".into(),
                fatal: true
            }
        );
        // No finish message: no End.
        assert_eq!(decode(&[r#"0:"Hi""#]), [ProviderEvent::Text("Hi".into())]);
    }
}
