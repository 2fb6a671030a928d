//! Ollama's native `/api/chat` stream (github.com/ollama/ollama, docs/api.md, "Generate a chat
//! completion"): one JSON object a line.
//!
//! Each line's `message` carries `content`, `thinking` (models run with `think`) and
//! `tool_calls` — whole calls whose `function.arguments` is already an object. The last line
//! says `"done": true` with a `done_reason` (`stop`, `length`, `load`, `unload`) and the counts
//! (`prompt_eval_count` input tokens, `eval_count` output tokens). A failure is a line
//! `{"error": "…"}`. Ollama gives calls no ids unless the line has one; `call_<n>` numbers them
//! in the order they arrived.
//!
//! ```
//! use chatstream::dialect::{DialectDecoder, OllamaDecoder, ProviderEvent, ProviderEvents};
//! use chatstream::framing::FrameRef;
//! let mut decoder = OllamaDecoder::default();
//! let mut out = ProviderEvents::default();
//! decoder.decode(FrameRef::data(r#"{"message":{"role":"assistant","content":"Hi"},"done":false}"#), &mut out);
//! assert_eq!(out.as_slice(), [ProviderEvent::Text("Hi".into())]);
//! ```

use serde_json::Value;

use super::scan::{Reader, Seen, Shape, Taken};
use super::{text, DialectDecoder, ProviderEvent, ProviderEvents};
use crate::event::{FinishReason, Usage};
use crate::framing::FrameRef;
use crate::json::to_json;

/// Reads Ollama's `/api/chat` NDJSON stream.
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub struct OllamaDecoder {
    /// Tool calls so far: numbers the synthesized ids, and makes `stop` a tool-call stop.
    calls: u32,
    /// The shape of the last text line.
    text_lines: Shape<(), 2>,
}

impl DialectDecoder for OllamaDecoder {
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        // A blank line between records carries nothing.
        if frame.data.trim().is_empty() {
            return;
        }
        if let Some(((), [content, thinking])) = self.text_lines.read(frame.data, text_line) {
            out.thinking(thinking.unwrap_or_default());
            out.text(content.unwrap_or_default());
            return;
        }
        self.decode_value(frame.data, out);
    }
}

impl OllamaDecoder {
    /// Any line, read as a `Value` (the general path).
    pub(super) fn decode_value(&mut self, data: &str, out: &mut ProviderEvents) {
        let line: Value = match crate::json::parse(data) {
            Ok(line) => line,
            Err(err) => return out.push(ProviderEvent::unreadable(err)),
        };
        if let Some(error) = line.get("error").filter(|e| !e.is_null()) {
            // The crate's JSON writer, not Value's Display: that links serde_json's pretty printer too.
            let message = error.as_str().map_or_else(|| to_json(error), str::to_owned);
            // Ollama's errors are sentences ("unauthorized", "model 'x' not found").
            return out.push(ProviderEvent::provider_error_from_message(&message));
        }
        let message = &line["message"];
        let text = |key: &str| text(message, key).filter(|t| !t.is_empty());
        if let Some(thinking) = text("thinking") {
            out.push(ProviderEvent::Thinking(thinking));
        }
        if let Some(content) = text("content") {
            out.push(ProviderEvent::Text(content));
        }
        for call in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            self.tool_call(call, out);
        }
        if line.get("done").and_then(Value::as_bool) == Some(true) {
            self.done(&line, out);
        }
    }

    /// `{"id"?, "function": {"name", "arguments": {…}}}`: a whole call.
    fn tool_call(&mut self, call: &Value, out: &mut ProviderEvents) {
        let function = &call["function"];
        let id = match call.get("id").and_then(Value::as_str) {
            Some(id) => id.to_owned(),
            None => format!("call_{}", self.calls),
        };
        self.calls += 1;
        let input = match &function["arguments"] {
            Value::Null => Value::Object(Default::default()),
            args => args.clone(),
        };
        let name = function.get("name").and_then(Value::as_str).map(str::to_owned);
        out.push(ProviderEvent::ToolCallEnd { id, name, input: Some(input) });
    }

    fn done(&self, line: &Value, out: &mut ProviderEvents) {
        let reason = match line.get("done_reason").and_then(Value::as_str).unwrap_or("stop") {
            // Ollama says `stop` also when the model asked for tools.
            "stop" if self.calls > 0 => FinishReason::ToolCalls,
            "stop" => FinishReason::Stop,
            "length" => FinishReason::Length,
            _ => FinishReason::Other,
        };
        out.push(ProviderEvent::Finish { reason });
        let count = |key: &str| line.get(key).and_then(Value::as_u64);
        let (input, output) = (count("prompt_eval_count"), count("eval_count"));
        if input.is_some() || output.is_some() {
            out.push(ProviderEvent::Usage(Usage {
                input_tokens: input,
                output_tokens: output,
                total_tokens: input.zip(output).map(|(i, o)| i + o),
                ..Usage::default()
            }));
        }
        out.push(ProviderEvent::End);
    }
}

/// A line that is not the last, whose message carries only text: `content` (taken in slot 0)
/// and maybe `thinking` (slot 1). `Some` exactly when the general path would read `data` as
/// text and thinking only (no error, not done, no tool calls), read by the checking scanner
/// without building a `Value` (nearly every line of a long answer; see [`super::scan`]); `None`
/// for anything else.
pub(super) fn text_line<'a>(r: &mut Reader<'a>) -> Option<((), Taken<'a, 2>)> {
    let (mut seen, mut content, mut thinking) = (Seen::default(), None, None);
    r.object(|r, key| {
        match key {
            b"message" => {
                seen.once(0)?;
                let mut seen = Seen::default();
                r.object(|r, key| {
                    match key {
                        b"role" => {
                            seen.once(0)?;
                            r.skip_value(2)?;
                        }
                        b"content" => {
                            seen.once(1)?;
                            content = Some(r.take(0)?);
                        }
                        b"thinking" => {
                            seen.once(2)?;
                            thinking = Some(r.take(1)?);
                        }
                        _ => return None,
                    }
                    Some(())
                })?;
            }
            b"done" => {
                seen.once(1)?;
                (!r.bool()?).then_some(())?;
            }
            b"error" => {
                seen.once(2)?;
                r.null()?;
            }
            _ => r.skip_value(0)?,
        }
        Some(())
    })?;
    Some(((), [Some(content?), thinking]))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::error::ErrorCode;

    fn decode(lines: &[&str]) -> Vec<ProviderEvent> {
        crate::dialect::test_support::decode::<OllamaDecoder>(lines)
    }

    #[test]
    fn content_then_done_with_counts() {
        let events = decode(&[
            r#"{"model":"gemma3:4b","message":{"role":"assistant","content":"The sky"},"done":false}"#,
            "",
            r#"{"model":"gemma3:4b","message":{"role":"assistant","content":""},"done":false}"#,
            r#"{"model":"gemma3:4b","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":499049129,"prompt_eval_count":21,"eval_count":40}"#,
            r#"{"model":"gemma3:4b","message":{"role":"assistant","content":"after the end"},"done":false}"#,
        ]);
        let usage =
            Usage { input_tokens: Some(21), output_tokens: Some(40), total_tokens: Some(61), ..Usage::default() };
        assert_eq!(
            events,
            [
                ProviderEvent::Text("The sky".into()),
                ProviderEvent::Finish { reason: "stop".into() },
                ProviderEvent::Usage(usage),
                ProviderEvent::End,
            ]
        );
    }

    #[test]
    fn thinking_and_tool_calls() {
        let events = decode(&[
            r#"{"message":{"role":"assistant","content":"","thinking":"User wants weather."},"done":false}"#,
            r#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Toronto"}}},{"id":"call_x","function":{"index":1,"name":"get_time","arguments":{}}}]},"done":false}"#,
            r#"{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}"#,
        ]);
        assert_eq!(
            events,
            [
                ProviderEvent::Thinking("User wants weather.".into()),
                ProviderEvent::ToolCallEnd {
                    id: "call_0".into(),
                    name: Some("get_weather".into()),
                    input: Some(json!({"city":"Toronto"})),
                },
                ProviderEvent::ToolCallEnd {
                    id: "call_x".into(),
                    name: Some("get_time".into()),
                    input: Some(json!({}))
                },
                ProviderEvent::Finish { reason: "tool_calls".into() },
                ProviderEvent::End,
            ]
        );
    }

    #[test]
    fn done_reasons() {
        for (wire, reason) in [("length", "length"), ("load", "other"), ("unload", "other")] {
            let line =
                format!(r#"{{"message":{{"role":"assistant","content":""}},"done":true,"done_reason":"{wire}"}}"#);
            assert_eq!(
                decode(&[&line]),
                [ProviderEvent::Finish { reason: reason.into() }, ProviderEvent::End],
                "{wire}"
            );
        }
    }

    #[test]
    fn an_error_line_is_fatal() {
        let events = decode(&[
            r#"{"message":{"role":"assistant","content":"Hel"},"done":false}"#,
            r#"{"error":"an error was encountered while running the model: unexpected EOF"}"#,
            r#"{"message":{"role":"assistant","content":"lo"},"done":false}"#,
        ]);
        assert_eq!(
            events,
            [
                ProviderEvent::Text("Hel".into()),
                ProviderEvent::Error {
                    code: ErrorCode::ServiceUnavailable,
                    message: "an error was encountered while running the model: unexpected EOF".into(),
                    fatal: true,
                },
            ]
        );
        let unauthorized = decode(&[r#"{"error":"unauthorized"}"#]);
        assert!(matches!(&unauthorized[..], [ProviderEvent::Error { code: ErrorCode::Unauthorized, fatal: true, .. }]));
        let not_found = decode(&[r#"{"error":"model \"llama9\" not found, try pulling it first"}"#]);
        assert!(matches!(&not_found[..], [ProviderEvent::Error { code: ErrorCode::NotFound, fatal: true, .. }]));
    }

    #[test]
    fn a_line_that_is_not_json_is_not_fatal() {
        let events = decode(&["<html>", r#"{"message":{"content":"ok"},"done":true}"#]);
        assert!(matches!(&events[0], ProviderEvent::Error { fatal: false, .. }));
        assert_eq!(
            events[1..],
            [ProviderEvent::Text("ok".into()), ProviderEvent::Finish { reason: "stop".into() }, ProviderEvent::End]
        );
    }
}
