//! The agent backend protocol (`docs/agent-protocol.md`): SSE `data:` lines, each a JSON object
//! discriminated by `type`.
//!
//! - `{"type":"status","message"}`: a status line ("Thinking...").
//! - `{"type":"text_delta","text"}`: response text, `[[tool:N]]` markers included.
//! - `{"type":"thinking_delta","text"}`: reasoning text, for a backend that forwards its model's
//!   thinking (optional).
//! - `{"type":"tool_start","tool","input","tool_use_id"?}`: the backend runs a tool itself.
//! - `{"type":"tool_progress","tool","stage","message","progress","data"}`: a long-running tool.
//! - `{"type":"tool_complete","tool","index","tool_use_id"?,"output"?,"is_error"?}`: the tool
//!   finished; `index` is the N of `[[tool:N]]`. Backends usually send no output here: it arrives in
//!   `complete`'s `tool_history`.
//! - `{"type":"complete","payload":{message, suggested_values, suggested_actions, custom_payload,
//!   tool_history, conversation_id, diagnostics, …}}`: the terminal event; the whole payload
//!   passes through.
//! - `{"type":"error","message","code"?}`: the backend gave up on the message. `code` may be
//!   one of the contract's codes, an HTTP status or a provider's error type.
//! - `{"type":"cancelled"}`: the user cancelled the request.
//!
//! Types this decoder does not know are skipped: a newer backend may add some.
//!
//! ```
//! use chatstream::dialect::{AgentDecoder, DialectDecoder, ProviderEvent, ProviderEvents};
//! use chatstream::framing::FrameRef;
//! let mut decoder = AgentDecoder::default();
//! let mut out = ProviderEvents::default();
//! decoder.decode(FrameRef::data(r#"{"type": "text_delta", "text": "Hello"}"#), &mut out);
//! assert_eq!(out.as_slice(), [ProviderEvent::Text("Hello".into())]);
//! ```

use serde_json::Value;

use super::scan::{Reader, Shape, Taken};
use super::{data_to_read, text, DialectDecoder, ProviderEvent, ProviderEvents, TextEvent};
use crate::error::ErrorCode;
use crate::framing::FrameRef;

/// Reads the agent backend protocol (`docs/agent-protocol.md`).
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub struct AgentDecoder {
    /// The shape of the last text delta.
    text_deltas: Shape<TextEvent, 1>,
}

impl DialectDecoder for AgentDecoder {
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        // `complete` is what ends the message; a `[DONE]` from a proxy is not read.
        let Some(data) = data_to_read(frame) else { return };
        if let Some((push, [Some(text)])) = self.text_deltas.read(data, text_delta) {
            return push(out, &text);
        }
        self.decode_value(data, out);
    }
}

impl AgentDecoder {
    /// Any event, read as a `Value` (the general path).
    pub(super) fn decode_value(&mut self, data: &str, out: &mut ProviderEvents) {
        let event: Value = match crate::json::parse(data) {
            Ok(event) => event,
            Err(err) => return out.push(ProviderEvent::unreadable(err)),
        };
        let text = |key: &str| text(&event, key);
        let tool = || text("tool").unwrap_or_default();
        match event.get("type").and_then(Value::as_str) {
            Some("status") => out.extend(text("message").map(ProviderEvent::Status)),
            Some("text_delta") => out.extend(text("text").filter(|t| !t.is_empty()).map(ProviderEvent::Text)),
            Some("thinking_delta") => out.extend(text("text").filter(|t| !t.is_empty()).map(ProviderEvent::Thinking)),
            Some("tool_start") => out.push(ProviderEvent::ToolRun {
                id: text("tool_use_id"),
                name: tool(),
                input: event.get("input").cloned().unwrap_or(Value::Null),
            }),
            Some("tool_progress") => out.push(ProviderEvent::ToolProgress {
                id: text("tool_use_id"),
                name: tool(),
                stage: text("stage"),
                message: text("message"),
                progress: event.get("progress").and_then(Value::as_f64),
                data: event.get("data").cloned().unwrap_or(Value::Null),
            }),
            Some("tool_complete") => out.push(ProviderEvent::ToolResult {
                id: text("tool_use_id"),
                name: text("tool"),
                index: event.get("index").and_then(Value::as_u64).and_then(|i| u32::try_from(i).ok()),
                output: event.get("output").cloned().unwrap_or(Value::Null),
                is_error: event.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            }),
            Some("complete") => {
                if let Some(Value::Object(payload)) = event.get("payload") {
                    out.push(ProviderEvent::Payload(payload.clone()));
                }
                out.push(ProviderEvent::End);
            }
            Some("error") => {
                let message = text("message");
                let code = error_code(event.get("code"), message.as_deref().unwrap_or_default());
                out.push(ProviderEvent::provider_error(code, message.as_deref()));
            }
            Some("cancelled") => out.push(ProviderEvent::Cancelled),
            Some(_) => {}
            None => out.push(ProviderEvent::unreadable("an agent event without a \"type\"")),
        }
    }
}

/// A `text_delta` or `thinking_delta` whose `text` is a string, read by the checking scanner
/// without building a `Value` (nearly every event of a long answer; see [`super::scan`]). `None`
/// for anything else, which the general path reads.
pub(super) fn text_delta<'a>(r: &mut Reader<'a>) -> Option<(TextEvent, Taken<'a, 1>)> {
    let wanted = |kind: &str| kind == "text_delta" || kind == "thinking_delta";
    let (kind, [text]) = r.kind_and_strings(b"type", &wanted, [b"text"])?;
    let event: TextEvent = match kind.as_deref()? {
        "text_delta" => |out, text| out.text(text),
        "thinking_delta" => |out, text| out.thinking(text),
        _ => return None,
    };
    Some((event, [Some(text?)]))
}

/// The error's code: the contract's own code when the backend sent one (`RATE_LIMITED`), an
/// HTTP status, a provider's error kind; else the message's words decide ("API rate limit
/// exceeded" is RATE_LIMITED), as for providers' error types.
fn error_code(code: Option<&Value>, message: &str) -> ErrorCode {
    match code {
        Some(Value::Number(status)) => status
            .as_u64()
            .and_then(|s| u16::try_from(s).ok())
            .map_or(ErrorCode::ServiceUnavailable, ErrorCode::from_http_status),
        Some(Value::String(code)) => ErrorCode::from_name(code).unwrap_or_else(|| ErrorCode::from_provider_kind(code)),
        _ => ErrorCode::from_message(message),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn decode(frames: &[&str]) -> Vec<ProviderEvent> {
        crate::dialect::test_support::decode::<AgentDecoder>(frames)
    }

    #[test]
    fn a_turn_with_one_tool_and_the_complete_payload() {
        let events = decode(&[
            r#"{"type": "status", "message": "Thinking..."}"#,
            r#"{"type": "text_delta", "text": "Let me search for that..."}"#,
            r#"{"type": "tool_start", "tool": "search_articles", "input": {"query": "CRISPR"}, "tool_use_id": "toolu_abc123"}"#,
            r#"{"type": "tool_progress", "tool": "search_articles", "stage": "searching", "message": "Found 15 articles...", "progress": 0.5, "data": null}"#,
            r#"{"type": "tool_complete", "tool": "search_articles", "index": 0}"#,
            r#"{"type": "text_delta", "text": "[[tool:0]]"}"#,
            r#"{"type": "complete", "payload": {"message": "Let me search for that...\n\n[[tool:0]]", "suggested_values": [{"label": "No, cancel", "value": "no"}], "conversation_id": 789}}"#,
        ]);
        let payload = json!({
            "message": "Let me search for that...\n\n[[tool:0]]",
            "suggested_values": [{"label": "No, cancel", "value": "no"}],
            "conversation_id": 789,
        });
        let Value::Object(payload) = payload else { unreachable!() };
        assert_eq!(
            events,
            [
                ProviderEvent::Status("Thinking...".into()),
                ProviderEvent::Text("Let me search for that...".into()),
                ProviderEvent::ToolRun {
                    id: Some("toolu_abc123".into()),
                    name: "search_articles".into(),
                    input: json!({"query": "CRISPR"}),
                },
                ProviderEvent::ToolProgress {
                    id: None,
                    name: "search_articles".into(),
                    stage: Some("searching".into()),
                    message: Some("Found 15 articles...".into()),
                    progress: Some(0.5),
                    data: Value::Null,
                },
                ProviderEvent::ToolResult {
                    id: None,
                    name: Some("search_articles".into()),
                    index: Some(0),
                    output: Value::Null,
                    is_error: false,
                },
                ProviderEvent::Text("[[tool:0]]".into()),
                ProviderEvent::Payload(payload),
                ProviderEvent::End,
            ]
        );
    }

    #[test]
    fn tool_start_without_an_id_and_a_complete_with_output() {
        let events = decode(&[
            r#"{"type":"tool_start","tool":"web_search","input":{"q":"x"}}"#,
            r#"{"type":"tool_complete","tool":"web_search","index":1,"tool_use_id":"t1","output":"3 hits","is_error":true}"#,
        ]);
        assert_eq!(
            events,
            [
                ProviderEvent::ToolRun { id: None, name: "web_search".into(), input: json!({"q": "x"}) },
                ProviderEvent::ToolResult {
                    id: Some("t1".into()),
                    name: Some("web_search".into()),
                    index: Some(1),
                    output: json!("3 hits"),
                    is_error: true,
                },
            ]
        );
    }

    #[test]
    fn errors_are_fatal_with_a_code_from_code_or_message() {
        let error = |frame: &str| match decode(&[frame]).as_slice() {
            [ProviderEvent::Error { code, message, fatal: true }] => (*code, message.clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            error(r#"{"type": "error", "message": "API rate limit exceeded"}"#),
            (ErrorCode::RateLimited, "Rate limited, try again".into())
        );
        assert_eq!(error(r#"{"type":"error","message":"no key","code":"UNAUTHORIZED"}"#).0, ErrorCode::Unauthorized);
        assert_eq!(
            error(r#"{"type":"error","message":"bad","code":"VALIDATION_ERROR"}"#).0,
            ErrorCode::ValidationError
        );
        assert_eq!(error(r#"{"type":"error","message":"x","code":503}"#).0, ErrorCode::ServiceUnavailable);
        assert_eq!(
            error(r#"{"type":"error","message":"x","code":"overloaded_error"}"#).0,
            ErrorCode::ServiceUnavailable
        );
        assert_eq!(
            error(r#"{"type":"error","message":"Tool crashed"}"#),
            (ErrorCode::ServiceUnavailable, "Tool crashed".into())
        );
    }

    #[test]
    fn cancelled_unknown_types_and_unreadable_frames() {
        let events = decode(&[
            r#"{"type":"heartbeat"}"#,
            "not json",
            r#"{"text":"no type"}"#,
            "[DONE]",
            r#"{"type":"complete"}"#,
        ]);
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(
            matches!(&events[0], ProviderEvent::Error { fatal: false, message, .. } if message.starts_with("Failed to parse response"))
        );
        assert!(matches!(&events[1], ProviderEvent::Error { fatal: false, .. }));
        assert_eq!(events[2..], [ProviderEvent::End]);
        assert_eq!(decode(&[r#"{"type":"cancelled"}"#]), [ProviderEvent::Cancelled]);
    }
}
