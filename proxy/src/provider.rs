//! The routes' providers and the one thing every module needs from each: how it frames its stream and how
//! it writes an error, so that an error the proxy adds reads like one from the provider itself.

use crate::ordered::Json;
use bytes::Bytes;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    OpenAi,
    OpenAiResponses,
    Anthropic,
    Gemini,
    Ollama,
    /// Any OpenAI-compatible server: speaks the OpenAI chat completions dialect.
    Compat,
    /// The seeds' agent protocol on `/api/chat/stream`.
    Agent,
}

impl Provider {
    /// The `{provider}` of `POST /api/chat/{provider}`.
    pub fn from_route(name: &str) -> Option<Provider> {
        Some(match name {
            "openai" => Provider::OpenAi,
            "openai-responses" => Provider::OpenAiResponses,
            "anthropic" => Provider::Anthropic,
            "gemini" => Provider::Gemini,
            "ollama" => Provider::Ollama,
            "compat" => Provider::Compat,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Ollama => "ollama",
            Provider::Compat => "compat",
            Provider::Agent => "agent",
        }
    }

    /// Ollama streams newline-delimited JSON; every other provider streams server-sent events.
    pub fn content_type(self) -> &'static str {
        match self {
            Provider::Ollama => "application/x-ndjson",
            _ => "text/event-stream",
        }
    }

    /// A mid-stream error frame in the provider's own dialect, for a stream the proxy must end early.
    /// `separator` ends whatever frame the stream was in the middle of (see [`frame_separator`]).
    pub fn error_frame(self, message: &str, separator: &str) -> Bytes {
        let frame = match self {
            // OpenAI ends a failing stream with a bare `error` object in a data line.
            Provider::OpenAi | Provider::Compat => sse(
                None,
                &ordered!({"error": {"message": message, "type": "server_error", "param": null, "code": null}}),
            ),
            // Responses API: `event: error` then `response.failed` (as in the recorded insufficient-quota stream);
            // the proxy knows no response id, so it sends the error event alone.
            Provider::OpenAiResponses => sse(
                Some("error"),
                &ordered!({"type": "error", "error": {"type": "server_error", "code": "server_error", "message": message, "param": null}}),
            ),
            // Anthropic: "event: error / data: {"type":"error","error":{"type":"overloaded_error",...}}".
            Provider::Anthropic => {
                sse(Some("error"), &ordered!({"type": "error", "error": {"type": "api_error", "message": message}}))
            }
            // Gemini sends a google.rpc.Status object in a data line.
            Provider::Gemini => {
                sse(None, &ordered!({"error": {"code": 504, "message": message, "status": "DEADLINE_EXCEEDED"}}))
            }
            Provider::Ollama => format!("{}\n", ordered!({"error": message})),
            Provider::Agent => sse(None, &ordered!({"type": "error", "message": message})),
        };
        Bytes::from(format!("{separator}{frame}"))
    }

    /// An HTTP error body in the provider's own format.
    pub fn error_body(self, status: u16, message: &str) -> Json {
        match self {
            Provider::OpenAi | Provider::Compat | Provider::OpenAiResponses => {
                let (kind, code) = match status {
                    401 => ("invalid_request_error", "invalid_api_key"),
                    429 => ("requests", "rate_limit_exceeded"),
                    400 | 404 | 413 => ("invalid_request_error", "invalid_request"),
                    _ => ("server_error", "server_error"),
                };
                ordered!({"error": {"message": message, "type": kind, "param": null, "code": code}})
            }
            Provider::Anthropic => {
                let kind = match status {
                    400 => "invalid_request_error",
                    401 => "authentication_error",
                    403 => "permission_error",
                    404 => "not_found_error",
                    413 => "request_too_large",
                    429 => "rate_limit_error",
                    529 => "overloaded_error",
                    _ => "api_error",
                };
                ordered!({"type": "error", "error": {"type": kind, "message": message}})
            }
            Provider::Gemini => {
                let rpc_status = match status {
                    400 | 413 => "INVALID_ARGUMENT",
                    401 => "UNAUTHENTICATED",
                    403 => "PERMISSION_DENIED",
                    404 => "NOT_FOUND",
                    429 => "RESOURCE_EXHAUSTED",
                    503 | 529 => "UNAVAILABLE",
                    504 => "DEADLINE_EXCEEDED",
                    _ => "INTERNAL",
                };
                ordered!({"error": {"code": status, "message": message, "status": rpc_status}})
            }
            Provider::Ollama => ordered!({"error": message}),
            Provider::Agent => ordered!({"type": "error", "message": message}),
        }
    }
}

/// One server-sent event: an optional `event:` line, one `data:` line, a blank line.
pub fn sse(event: Option<&str>, data: &impl std::fmt::Display) -> String {
    match event {
        Some(event) => format!("event: {event}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// What must come before an appended frame so that it does not run into a frame the upstream left half
/// written: nothing at a frame boundary, otherwise line ends until there is one. `tail` is the stream's
/// last bytes (up to 4). SSE: "a blank line dispatches the event"; NDJSON: one value per line.
pub fn frame_separator(provider: Provider, tail: &[u8]) -> &'static str {
    if tail.is_empty() {
        return "";
    }
    if provider == Provider::Ollama {
        return if tail.ends_with(b"\n") { "" } else { "\n" };
    }
    if tail.ends_with(b"\n\n") || tail.ends_with(b"\r\n\r\n") || tail.ends_with(b"\r\r") {
        ""
    } else if tail.ends_with(b"\n") || tail.ends_with(b"\r") {
        "\n"
    } else {
        "\n\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separator_closes_a_half_written_frame() {
        assert_eq!(frame_separator(Provider::OpenAi, b""), "");
        assert_eq!(frame_separator(Provider::OpenAi, b"}\n\n"), "");
        assert_eq!(frame_separator(Provider::Gemini, b"}\r\n\r\n"), "");
        assert_eq!(frame_separator(Provider::OpenAi, b"}\n"), "\n");
        assert_eq!(frame_separator(Provider::OpenAi, b"{\"a"), "\n\n");
        assert_eq!(frame_separator(Provider::Ollama, b"}\n"), "");
        assert_eq!(frame_separator(Provider::Ollama, b"{\"a"), "\n");
    }
}
