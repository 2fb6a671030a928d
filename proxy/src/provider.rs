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
    /// The agent backend protocol (docs/agent-protocol.md) on `/api/chat/stream`.
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

    /// The provider of a chat route's path: `/api/chat/{provider}`, or `/api/chat/stream` for the agent.
    pub fn from_path(path: &str) -> Option<Provider> {
        match path.strip_prefix("/api/chat/")? {
            "stream" => Some(Provider::Agent),
            name => Provider::from_route(name),
        }
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
    /// `before` closes what the stream was in the middle of (see [`crate::cut`]).
    pub fn error_frame(self, message: &str, before: &str) -> Bytes {
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
            Provider::Agent => sse(None, &agent_error(503, message)),
        };
        Bytes::from(format!("{before}{frame}"))
    }

    /// An HTTP error body in the provider's own format.
    pub fn error_body(self, status: u16, message: &str) -> Json {
        match self {
            Provider::OpenAi | Provider::Compat | Provider::OpenAiResponses => {
                let (kind, code) = match status {
                    401 => ("invalid_request_error", "invalid_api_key"),
                    429 => ("requests", "rate_limit_exceeded"),
                    400 | 404 | 408 | 413 | 415 => ("invalid_request_error", "invalid_request"),
                    _ => ("server_error", "server_error"),
                };
                ordered!({"error": {"message": message, "type": kind, "param": null, "code": code}})
            }
            Provider::Anthropic => {
                let kind = match status {
                    400 | 408 | 415 => "invalid_request_error",
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
                    400 | 408 | 413 | 415 => "INVALID_ARGUMENT",
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
            Provider::Agent => agent_error(status, message),
        }
    }
}

/// The agent protocol's error event, `{"type":"error","code",…}` with the contract's code for `status`
/// (as the simulated agent writes its errors).
pub fn agent_error(status: u16, message: &str) -> Json {
    let code = match status {
        400 | 408 | 413 | 415 | 422 => "VALIDATION_ERROR",
        401 | 403 => "UNAUTHORIZED",
        404 => "NOT_FOUND",
        429 => "RATE_LIMITED",
        _ => "SERVICE_UNAVAILABLE",
    };
    ordered!({"type": "error", "code": code, "message": message})
}

/// One server-sent event: an optional `event:` line, one `data:` line, a blank line.
pub fn sse(event: Option<&str>, data: &impl std::fmt::Display) -> String {
    match event {
        Some(event) => format!("event: {event}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}
