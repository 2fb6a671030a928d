//! Auto-detection: which framing and which dialect a stream speaks.
//!
//! Headers decide when they are explicit (the AI SDK's protocol headers, `application/x-ndjson`);
//! otherwise the first bytes choose the framing and the first meaningful frame the dialect.
//!
//! Only the dialects the build reads are detected: each test of a header or a frame's shape is
//! compiled in with its dialect ([`built`]), so a one-dialect module carries neither the others'
//! tests nor their keys. In such a build a stream of another dialect shows none it reads, and ends
//! with an error event (`SERVICE_UNAVAILABLE`) that names the dialects the build reads; the builds
//! with every dialect detect them all.
//!
//! ```
//! use chatstream::dialect::{detect, Dialect};
//! use chatstream::framing::FrameRef;
//! let frame = FrameRef::data(r#"{"object":"chat.completion.chunk","choices":[]}"#);
//! assert_eq!(detect::from_frame(frame), Some(Dialect::OpenAi));
//! ```

use serde_json::Value;

use super::Dialect;
use crate::framing::{FrameRef, Framing};

/// The response headers that name a dialect (the AI SDK's protocol headers), with the dialect
/// each names. A reader of responses passes these on to [`from_headers`].
pub const DIALECT_HEADERS: [(&str, Dialect); 2] =
    [("x-vercel-ai-ui-message-stream", Dialect::UiMessageStream), ("x-vercel-ai-data-stream", Dialect::DataStream)];

/// The dialect the response headers name, if they name one.
pub fn from_headers<'a>(
    content_type: Option<&str>,
    headers: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Option<Dialect> {
    // A build with none of the dialects headers name has nothing to look for: the headers are not read.
    if !(built(Dialect::UiMessageStream) || built(Dialect::DataStream) || built(Dialect::Ollama)) {
        return None;
    }
    for (name, value) in headers {
        let named = DIALECT_HEADERS.iter().find(|(header, d)| built(*d) && name.eq_ignore_ascii_case(header));
        if let Some((_, dialect)) = named.filter(|_| !value.trim().is_empty()) {
            return Some(*dialect);
        }
    }
    if !built(Dialect::Ollama) {
        return None;
    }
    let mime = content_type?.split(';').next()?.trim().to_ascii_lowercase();
    match mime.as_str() {
        "application/x-ndjson" | "application/ndjson" | "application/jsonl" => Some(Dialect::Ollama),
        _ => None,
    }
}

/// The framing the stream's first bytes show, or `None` while too few bytes have arrived.
///
/// A JSON object at the start means NDJSON; one character and a colon (`0:"Hi"`, `f:{…}`) means
/// AI SDK v4 lines; anything else is read as Server-Sent Events, whose field names are words.
pub fn framing_from_prefix(bytes: &[u8]) -> Option<Framing> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &bytes[start..];
    match rest {
        [b'{', ..] => Some(Framing::Lines),
        [c, b':', ..] if c.is_ascii_digit() || c.is_ascii_lowercase() => Some(Framing::Lines),
        [_] => None,
        _ => Some(Framing::Sse),
    }
}

/// The dialect one frame shows, or `None` when it could belong to several (`[DONE]`, a frame
/// that is not JSON). Event names decide first; then the JSON's shape.
pub fn from_frame(frame: FrameRef<'_>) -> Option<Dialect> {
    if let Some(dialect) = frame.event.and_then(from_event_name) {
        return Some(dialect);
    }
    let data = frame.data.trim_start();
    if let [c, b':', ..] = data.as_bytes() {
        if built(Dialect::DataStream) && (c.is_ascii_digit() || c.is_ascii_lowercase()) {
            return Some(Dialect::DataStream);
        }
    }
    let value: Value = crate::json::parse(data).ok()?;
    from_json(&value)
}

/// The dialect an event's name is unique to (as the SSE `event` field, or as the JSON's `type`).
fn from_event_name(name: &str) -> Option<Dialect> {
    match name {
        _ if built(Dialect::OpenAiResponses) && name.starts_with("response.") => Some(Dialect::OpenAiResponses),
        "message_start"
        | "content_block_start"
        | "content_block_delta"
        | "content_block_stop"
        | "message_delta"
        | "message_stop"
            if built(Dialect::Anthropic) =>
        {
            Some(Dialect::Anthropic)
        }
        _ => None,
    }
}

fn from_json(value: &Value) -> Option<Dialect> {
    let obj = value.as_object()?;
    if let Some(kind) = obj.get("type").and_then(Value::as_str) {
        if let Some(dialect) = from_event_name(kind) {
            return Some(dialect);
        }
        match kind {
            "ping" if built(Dialect::Anthropic) => return Some(Dialect::Anthropic),
            "status" | "text_delta" | "tool_start" | "tool_progress" | "tool_complete" | "complete" | "cancelled"
                if built(Dialect::Agent) =>
            {
                return Some(Dialect::Agent)
            }
            // Every dialect with a `type` field reads this frame as the error it is: its shape
            // only orders them.
            "error" => {
                let order = if obj.get("error").is_some_and(Value::is_object) {
                    [Dialect::Anthropic, Dialect::Agent, Dialect::UiMessageStream]
                } else if obj.contains_key("errorText") {
                    [Dialect::UiMessageStream, Dialect::Agent, Dialect::Anthropic]
                } else {
                    [Dialect::Agent, Dialect::UiMessageStream, Dialect::Anthropic]
                };
                if let Some(dialect) = built_in_first(order) {
                    return Some(dialect);
                }
            }
            _ if built(Dialect::UiMessageStream)
                && (kind.contains('-') || matches!(kind, "start" | "finish" | "abort")) =>
            {
                return Some(Dialect::UiMessageStream)
            }
            _ => {}
        }
    }
    if built(Dialect::OpenAi)
        && (obj.get("object").and_then(Value::as_str).is_some_and(|o| o.starts_with("chat.completion"))
            || obj.contains_key("choices"))
    {
        return Some(Dialect::OpenAi);
    }
    if built(Dialect::Gemini)
        && (obj.contains_key("candidates") || obj.contains_key("promptFeedback") || obj.contains_key("usageMetadata"))
    {
        return Some(Dialect::Gemini);
    }
    if built(Dialect::Ollama)
        && (obj.contains_key("done") || (obj.contains_key("model") && obj.contains_key("message")))
    {
        return Some(Dialect::Ollama);
    }
    if let Some(error) = obj.get("error") {
        // Gemini's envelope carries a numeric `code` and a `status` word; OpenAI-style servers don't.
        // Both read either envelope as the provider's error: the shape only orders them.
        let order =
            if error.get("status").is_some_and(Value::is_string) && error.get("code").is_some_and(Value::is_number) {
                [Dialect::Gemini, Dialect::OpenAi]
            } else {
                [Dialect::OpenAi, Dialect::Gemini]
            };
        if let Some(dialect) = built_in_first(order) {
            return Some(dialect);
        }
    }
    if built(Dialect::OpenAi) && obj.get("object").and_then(Value::as_str) == Some("error") {
        return Some(Dialect::OpenAi); // vLLM's error object
    }
    None
}

/// Whether this build reads `dialect`, known when the module is compiled: a test that detects a
/// dialect the build leaves out is left out with it.
#[inline(always)]
fn built(dialect: Dialect) -> bool {
    dialect.is_built_in()
}

/// For a frame several dialects read alike: the first of `candidates` this build reads.
fn built_in_first<const N: usize>(candidates: [Dialect; N]) -> Option<Dialect> {
    candidates.into_iter().find(|d| built(*d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_name_the_ai_sdk_protocols_and_ndjson_in_a_build_that_reads_them() {
        let named = |dialect: Dialect| Some(dialect).filter(|d| d.is_built_in());
        assert_eq!(from_headers(None, [("X-Vercel-AI-UI-Message-Stream", "v1")]), named(Dialect::UiMessageStream));
        assert_eq!(from_headers(None, [("x-vercel-ai-data-stream", "v1")]), named(Dialect::DataStream));
        assert_eq!(from_headers(Some("application/x-ndjson; charset=utf-8"), []), named(Dialect::Ollama));
        assert_eq!(from_headers(Some("text/event-stream"), []), None);
    }

    #[test]
    fn first_bytes_choose_the_framing() {
        assert_eq!(framing_from_prefix(b"data: {}"), Some(Framing::Sse));
        assert_eq!(framing_from_prefix(b": keep-alive\n"), Some(Framing::Sse));
        assert_eq!(framing_from_prefix(b"\xEF\xBB\xBFevent: x"), Some(Framing::Sse));
        assert_eq!(framing_from_prefix(b"{\"model\""), Some(Framing::Lines));
        assert_eq!(framing_from_prefix(b"0:\"Hi\"\n"), Some(Framing::Lines));
        assert_eq!(framing_from_prefix(b"f:{"), Some(Framing::Lines));
        assert_eq!(framing_from_prefix(b"\n\n d"), None);
        assert_eq!(framing_from_prefix(b""), None);
    }

    // With every dialect built in: a build without some reads ambiguous frames with one it has.
    #[cfg(feature = "dialects")]
    #[test]
    fn frames_name_their_dialect() {
        let cases: &[(Option<&str>, &str, Option<Dialect>)] = &[
            (None, r#"{"id":"x","object":"chat.completion.chunk","choices":[]}"#, Some(Dialect::OpenAi)),
            (Some("response.created"), r#"{"type":"response.created"}"#, Some(Dialect::OpenAiResponses)),
            (None, r#"{"type":"response.output_text.delta"}"#, Some(Dialect::OpenAiResponses)),
            (Some("message_start"), r#"{"type":"message_start"}"#, Some(Dialect::Anthropic)),
            (None, r#"{"type":"error","error":{"type":"overloaded_error"}}"#, Some(Dialect::Anthropic)),
            (None, r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}"#, Some(Dialect::Gemini)),
            (None, r#"{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}"#, Some(Dialect::Gemini)),
            (
                None,
                r#"{"model":"llama3","message":{"role":"assistant","content":"Hi"},"done":false}"#,
                Some(Dialect::Ollama),
            ),
            (None, r#"{"type":"start","messageId":"m"}"#, Some(Dialect::UiMessageStream)),
            (None, r#"{"type":"message-start","messageId":"m"}"#, Some(Dialect::UiMessageStream)),
            (None, r#"{"type":"error","errorText":"boom"}"#, Some(Dialect::UiMessageStream)),
            (None, r#"0:"Hello""#, Some(Dialect::DataStream)),
            (None, r#"{"type":"status","message":"Thinking..."}"#, Some(Dialect::Agent)),
            (None, r#"{"type":"text_delta","text":"Hi"}"#, Some(Dialect::Agent)),
            (None, r#"{"error":{"message":"bad","type":"invalid_request_error"}}"#, Some(Dialect::OpenAi)),
            (None, r#"{"object":"error","message":"bad","code":400}"#, Some(Dialect::OpenAi)),
            (None, "[DONE]", None),
            (None, "<html>", None),
        ];
        for (event, data, want) in cases {
            let frame = FrameRef { event: *event, data, id: None };
            assert_eq!(from_frame(frame), *want, "{data}");
        }
    }
}
