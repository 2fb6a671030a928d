//! The error contract shared by every stage: a code and a message (`docs/events.md`, "Errors").
//!
//! ```
//! use chatstream::error::ErrorCode;
//! assert_eq!(ErrorCode::from_http_status(429), ErrorCode::RateLimited);
//! assert_eq!(ErrorCode::RateLimited.as_str(), "RATE_LIMITED");
//! ```

use crate::wire::wire;

wire! {
/// The error codes of the event contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode words {
    /// HTTP 400/422, an invalid request or message: "Invalid request".
    ValidationError "VALIDATION_ERROR",
    /// HTTP 404: "Not found".
    NotFound "NOT_FOUND",
    /// HTTP 401/403 or a provider's authentication error: "Invalid API key".
    Unauthorized "UNAUTHORIZED",
    /// HTTP 429 or a provider's rate-limit error: "Rate limited, try again".
    RateLimited "RATE_LIMITED",
    /// The connection failed or the stream ended before its terminal event.
    NetworkError "NETWORK_ERROR",
    /// Provider errors (overloaded, 5xx, model errors) and unreadable streams.
    ServiceUnavailable "SERVICE_UNAVAILABLE",
    /// Cancel after the stream completed.
    Conflict "CONFLICT",
}
}

impl ErrorCode {
    /// The code with this name (`"RATE_LIMITED"`), if it is one.
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().find(|code| code.as_str() == name).copied()
    }

    /// The code for an HTTP error status from a provider or backend.
    pub fn from_http_status(status: u16) -> ErrorCode {
        match status {
            400 | 422 => ErrorCode::ValidationError,
            401 | 403 => ErrorCode::Unauthorized,
            404 => ErrorCode::NotFound,
            409 => ErrorCode::Conflict,
            429 => ErrorCode::RateLimited,
            _ => ErrorCode::ServiceUnavailable,
        }
    }

    /// The code for a provider's error `type` or `code` string
    /// (`authentication_error`, `rate_limit_error`, `overloaded_error`, `RESOURCE_EXHAUSTED`, …).
    /// Anything not recognised is a provider error: SERVICE_UNAVAILABLE.
    pub fn from_provider_kind(kind: &str) -> ErrorCode {
        // The words each code is known by ("unauthenticated" holds "auth"), looked for byte by byte:
        // `str::contains` with a word links the two-way string searcher into every module, for an
        // error path that reads a few short words.
        const WORDS: [(ErrorCode, &[&str]); 4] = [
            (ErrorCode::Unauthorized, &["auth", "api_key", "permission"]),
            (ErrorCode::RateLimited, &["rate_limit", "resource_exhausted", "too_many"]),
            (ErrorCode::NotFound, &["not_found"]),
            (ErrorCode::ValidationError, &["invalid_request", "invalid_argument"]),
        ];
        // Each window compared in place, a byte at a time until one differs (the words are lower
        // case): a slice's `==` calls `memcmp` per window (in the module a call out of it), and
        // lowering the kind first allocated; that was 7% of reading a short stream that ends with
        // a quota error (callgrind, natively: 53,400 instructions a stream before, 49,700 after).
        let kind = kind.as_bytes();
        let holds = |word: &&str| {
            kind.windows(word.len()).any(|w| w.iter().zip(word.as_bytes()).all(|(a, b)| a.to_ascii_lowercase() == *b))
        };
        WORDS.iter().find(|(_, words)| words.iter().any(holds)).map_or(ErrorCode::ServiceUnavailable, |(code, _)| *code)
    }

    /// The code for a provider's error that names no kind: its message's words decide
    /// ("Rate limit exceeded" is RATE_LIMITED, "Invalid API key" UNAUTHORIZED).
    pub fn from_message(message: &str) -> ErrorCode {
        ErrorCode::from_provider_kind(&message.replace(' ', "_"))
    }

    /// The message for an HTTP error response whose body is `body`: the body's own
    /// (`{"error":{"message":…}}`, `{"error":"…"}`, `{"message":…}`, `{"detail":…}`, or the start of a
    /// text body), else `HTTP <status>` (for an empty or HTML body).
    ///
    /// ```
    /// use chatstream::error::ErrorCode;
    /// assert_eq!(ErrorCode::message_from_body(404, r#"{"detail":"Conversation not found"}"#), "Conversation not found");
    /// assert_eq!(ErrorCode::message_from_body(502, "<html>Bad gateway</html>"), "HTTP 502");
    /// ```
    pub fn message_from_body(status: u16, body: &str) -> String {
        json_message(body).unwrap_or_else(|| text_message(status, body))
    }

    /// The contract's fixed user-facing message for this code, where it has one.
    pub fn default_message(self) -> &'static str {
        match self {
            ErrorCode::Unauthorized => "Invalid API key",
            ErrorCode::RateLimited => "Rate limited, try again",
            ErrorCode::NetworkError => "Connection failed",
            ErrorCode::ServiceUnavailable => "Failed to parse response",
            ErrorCode::ValidationError => "Invalid request",
            ErrorCode::NotFound => "Not found",
            ErrorCode::Conflict => "Nothing to cancel",
        }
    }
}

/// The error for a response whose status is not 2xx: the contract's code, and the body's own
/// message where the contract has no fixed one ("Invalid API key", "Rate limited, try again").
///
/// ```
/// use chatstream::error::{http_error, ErrorCode};
/// assert_eq!(http_error(404, r#"{"detail":"No such chat"}"#), (ErrorCode::NotFound, "No such chat".into()));
/// assert_eq!(http_error(401, "wrong key sk-123"), (ErrorCode::Unauthorized, "Invalid API key".into()));
/// ```
pub fn http_error(status: u16, body: &str) -> (ErrorCode, String) {
    http_error_read(status, body, json_message)
}

/// [`http_error`], with `read` finding the message of a JSON body in place of [`json_message`].
/// The module of the package's AI SDK entry passes the AI SDK backend mode's own JSON reader:
/// serde_json's `Value` reader would be 17 KB (raw) of a module that has no other use for it.
pub fn http_error_read(status: u16, body: &str, read: fn(&str) -> Option<String>) -> (ErrorCode, String) {
    let code = ErrorCode::from_http_status(status);
    if matches!(code, ErrorCode::Unauthorized | ErrorCode::RateLimited) {
        return (code, code.default_message().into());
    }
    (code, read(body).unwrap_or_else(|| text_message(status, body)))
}

/// The message a JSON error body gives: the first string of `error.message`, `error`, `message`,
/// `detail`, in a body that is a JSON object.
pub fn json_message(body: &str) -> Option<String> {
    let value = crate::json::parse(body).ok()?;
    let found = [&value["error"]["message"], &value["error"], &value["message"], &value["detail"]]
        .into_iter()
        .find_map(|v| v.as_str().map(str::to_owned));
    found
}

/// The message of an error body that gives none as JSON: the start of its text, or `HTTP <status>`
/// (for an empty or HTML body).
fn text_message(status: u16, body: &str) -> String {
    let text: String = body.trim().chars().take(300).collect();
    if text.is_empty() || text.starts_with('<') {
        format!("HTTP {status}")
    } else {
        text
    }
}

/// The message for a response silent for `ms` milliseconds.
pub fn timed_out(ms: u64) -> String {
    format!("Connection failed: no data for {ms} ms")
}

/// The message for a request that failed before any response, from what the browser tells of
/// the failure: the error's `name` and `message`. An abort says so; a `TypeError` ("Failed to
/// fetch", "Load failed", "NetworkError when attempting to fetch resource.") is all a browser
/// says of an unreachable server and of a response the page may not read (CORS) alike.
///
/// ```
/// use chatstream::error::connection_failed;
/// assert_eq!(connection_failed("AbortError", "signal is aborted"), "Connection failed: the request was aborted");
/// ```
pub fn connection_failed(name: &str, message: &str) -> String {
    match name {
        "AbortError" => "Connection failed: the request was aborted".into(),
        "TypeError" => format!(
            "Connection failed: the server could not be reached, or it refused this page's request (CORS); \
             the browser does not say which ({message})"
        ),
        _ if message.is_empty() => "Connection failed".into(),
        _ => format!("Connection failed: {message}"),
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    #[test]
    fn a_failed_request_says_what_the_browser_lets_us_know() {
        assert_eq!(super::connection_failed("AbortError", "x"), "Connection failed: the request was aborted");
        let network = super::connection_failed("TypeError", "Failed to fetch");
        assert!(
            network.contains("could not be reached")
                && network.contains("CORS")
                && network.ends_with("(Failed to fetch)")
        );
        assert_eq!(super::connection_failed("Error", "socket hang up"), "Connection failed: socket hang up");
        assert_eq!(super::connection_failed("", ""), "Connection failed");
    }

    /// The kinds providers document (Anthropic's error types, OpenAI's codes, Google's status
    /// words), in any case, anywhere in the kind; and messages read by their words.
    #[test]
    fn a_kind_is_known_by_its_words_in_any_case() {
        let cases = [
            ("authentication_error", ErrorCode::Unauthorized),
            ("UNAUTHENTICATED", ErrorCode::Unauthorized),
            ("invalid_api_key", ErrorCode::Unauthorized),
            ("PERMISSION_DENIED", ErrorCode::Unauthorized),
            ("rate_limit_error", ErrorCode::RateLimited),
            ("RESOURCE_EXHAUSTED", ErrorCode::RateLimited),
            ("too_many_requests", ErrorCode::RateLimited),
            ("not_found_error", ErrorCode::NotFound),
            ("invalid_request_error", ErrorCode::ValidationError),
            ("INVALID_ARGUMENT", ErrorCode::ValidationError),
            ("overloaded_error", ErrorCode::ServiceUnavailable),
            ("insufficient_quota", ErrorCode::ServiceUnavailable),
            ("aut", ErrorCode::ServiceUnavailable),
            ("", ErrorCode::ServiceUnavailable),
            ("ÄAUTHÖ", ErrorCode::Unauthorized),
        ];
        for (kind, code) in cases {
            assert_eq!(ErrorCode::from_provider_kind(kind), code, "{kind}");
        }
        assert_eq!(ErrorCode::from_message("Rate limit exceeded, slow down"), ErrorCode::RateLimited);
        assert_eq!(ErrorCode::from_message("Invalid API key"), ErrorCode::Unauthorized);
        assert_eq!(ErrorCode::from_message("You exceeded your current quota"), ErrorCode::ServiceUnavailable);
    }

    #[test]
    fn an_error_body_gives_its_own_message() {
        let cases = [
            (r#"{"error":{"message":"Model not found","type":"invalid_request_error"}}"#, "Model not found"),
            (r#"{"error":"quota exceeded"}"#, "quota exceeded"),
            (r#"{"message":"Bad input"}"#, "Bad input"),
            (r#"{"detail":"Conversation not found"}"#, "Conversation not found"),
            ("  plain words  ", "plain words"),
            ("", "HTTP 500"),
            ("<!doctype html><h1>Error</h1>", "HTTP 500"),
            (r#"{"other":1}"#, r#"{"other":1}"#),
        ];
        for (body, message) in cases {
            assert_eq!(ErrorCode::message_from_body(500, body), message, "{body}");
        }
        let long = "x".repeat(1000);
        assert_eq!(ErrorCode::message_from_body(500, &long).len(), 300);
    }
}
