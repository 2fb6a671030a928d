//! A chat whose backend is an AI SDK route (`streamText(...).toUIMessageStreamResponse()`), its
//! messages kept in the AI SDK's UI message shape, as the AI SDK's own chat (`useChat`) keeps
//! them: [`AiSdkChat`].
//!
//! Three stages, one module each:
//!
//! 1. `message`: UI messages read from JSON text with the checks a stored message must pass
//!    (a message that is not one is refused, naming it), and written back as they came, keys in
//!    their order (`object`: JSON objects as JS holds them; `json_reader`: JSON text read into
//!    them).
//! 2. `chunks`: the reducer, each UI message stream chunk applied to the message being written
//!    (`partial_json`: a tool input streamed so far, read as the AI SDK reads it).
//! 3. `chat`: the turns: request bodies, regenerate slicing, continuing after tool outputs and
//!    approval answers, reading an answer's body through the SSE framing (`framing`).
//!
//! The behaviour follows the AI SDK's (`AbstractChat`, `processUIMessageStream`,
//! `DefaultChatTransport`): the messages an app saves are the ones `useChat` would have saved.
//! Where this differs, it says so: a body that ends without a `finish` chunk is an error here
//! (the AI SDK reads it as complete), and a tool output or approval answer for an id no message
//! holds is refused (the AI SDK ignores it).

mod chat;
mod chunks;
mod json_reader;
mod message;
mod object;
mod partial_json;

pub use chat::{AiSdkChat, Append, Finish, Update};

/// The message a JSON error body gives, as [`crate::error::json_message`] finds it, read with this
/// mode's JSON reader instead of serde_json (for [`crate::error::http_error_read`]).
pub fn error_body_message(body: &str) -> Option<String> {
    let value = object::Object::parse(body).ok()?;
    let error = value.get("error");
    let nested = error.as_object();
    let found = nested.as_ref().and_then(|e| e.str("message"));
    let found = found.or(error.as_str()).or(value.str("message")).or(value.str("detail"));
    found.map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use crate::error::json_message;

    /// Both readers find the same message in an error body, whatever its shape.
    #[test]
    fn an_error_body_gives_the_message_serde_json_finds() {
        let bodies = [
            r#"{"error":{"message":"Model not found","type":"invalid_request_error"}}"#,
            r#"{"error":"quota exceeded"}"#,
            r#" {"message":"Bad input"} "#,
            r#"{"detail":"Conversation not found"}"#,
            r#"{"error":{"message":7},"message":"the second"}"#,
            r#"{"error":{"code":1},"detail":"the fourth"}"#,
            r#"{"message":"first","message":"last"}"#,
            r#"{"message":"caf\u00e9 \"quoted\""}"#,
            r#"[{"message":"an array"}]"#,
            r#"{"message":"unclosed"#,
            r#"{"other":1}"#,
            "plain words",
            "",
        ];
        for body in bodies {
            assert_eq!(super::error_body_message(body), json_message(body), "{body}");
        }
        assert_eq!(super::error_body_message(r#"{"message":"caf\u00e9"}"#).as_deref(), Some("café"));
    }
}
