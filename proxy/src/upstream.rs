//! Pass-through to a configured provider: the browser's body to the provider's fixed URL with the key from
//! the environment, and the provider's bytes back unchanged, as they arrive (but for any key material,
//! see [`crate::redact`]).

use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::time::Instant;

use crate::config::{Limits, Upstream};
use crate::limits::{guard, Watch};
use crate::provider::Provider;
use crate::redact::Redactor;
use crate::server::CloseConnection;

/// The client every upstream request goes through: no redirects (a redirect could carry the key's request
/// elsewhere, so it is refused, not followed), no system proxy, no compression (reqwest is built without
/// gzip/brotli, so it neither asks for nor decodes them).
pub fn client(limits: &Limits) -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .connect_timeout(limits.connect)
        .build()
        .expect("the TLS backend initialises")
}

/// Response headers that describe one hop or one encoding, not the stream: hop-by-hop headers
/// (RFC 9110 §7.6.1), framing and encoding (the proxy re-frames and never re-encodes), cookies of another
/// origin, and the caching headers the proxy sets itself. `Access-Control-*` headers are dropped too: the
/// proxy alone decides who may read its answers cross-origin.
const NOT_COPIED: [&str; 13] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-encoding",
    "content-length",
    "set-cookie",
    "cache-control",
];

/// What a forwarded request goes out with and comes back through.
pub struct Forward<'a> {
    pub client: &'a reqwest::Client,
    pub limits: &'a Limits,
    pub redactor: &'a Redactor,
    pub close: Option<CloseConnection>,
}

pub async fn forward(via: Forward<'_>, provider: Provider, upstream: &Upstream, url: &str, body: Bytes) -> Response {
    let Forward { client, limits, redactor, close } = via;
    let started = Instant::now();
    let deadline = started + limits.total;
    let mut request = client
        .post(url)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT_ENCODING, "identity")
        .body(body);
    for (name, value) in &upstream.auth_headers {
        request = request.header(*name, value);
    }
    let first_byte = (started + limits.first_byte).min(deadline);
    let response = match tokio::time::timeout_at(first_byte, request.send()).await {
        Err(_) => return proxy_error(provider, StatusCode::GATEWAY_TIMEOUT, "The upstream did not answer in time."),
        Ok(Err(err)) if err.is_timeout() => {
            return proxy_error(provider, StatusCode::GATEWAY_TIMEOUT, "Connecting to the upstream timed out.")
        }
        // The error's text is not passed on: it names the upstream's address, which is the proxy's business.
        Ok(Err(_)) => return proxy_error(provider, StatusCode::BAD_GATEWAY, "Could not reach the upstream."),
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    if status.is_redirection() {
        return proxy_error(provider, StatusCode::BAD_GATEWAY, "The upstream answered with a redirect; not followed.");
    }
    // A 1xx (101 Switching Protocols would hand the client a raw connection) or a status past 599 is no
    // answer to a chat request. (Only the code is passed on, never the upstream's reason phrase.)
    if status.is_informational() || status.as_u16() > 599 {
        return proxy_error(provider, StatusCode::BAD_GATEWAY, "The upstream answered with an unexpected status.");
    }
    let mut headers = HeaderMap::new();
    for (name, value) in response.headers() {
        let name_str = name.as_str();
        // A header whose very name holds key material is dropped whole.
        let named_with_key = redactor.redact(name_str.as_bytes()).is_some();
        if NOT_COPIED.contains(&name_str) || name_str.starts_with("access-control-") || named_with_key {
            continue;
        }
        let value = match redactor.redact(value.as_bytes()) {
            None => value.clone(),
            Some(redacted) => match HeaderValue::from_bytes(&redacted) {
                Ok(redacted) => redacted,
                Err(_) => continue,
            },
        };
        headers.append(name.clone(), value);
    }
    let watch = Watch { provider, idle: limits.idle, deadline, redactor: redactor.clone(), close };
    let mut out = Response::new(guard(watch, response.bytes_stream()));
    *out.status_mut() = status;
    *out.headers_mut() = headers;
    stream_headers(out.headers_mut());
    out
}

/// Keeps every hop from buffering the stream: `Cache-Control: no-cache`, and nginx's `X-Accel-Buffering: no`.
pub fn stream_headers(headers: &mut HeaderMap) {
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(HeaderName::from_static("x-accel-buffering"), HeaderValue::from_static("no"));
}

/// An error the proxy itself answers, in the provider's error format so the client reads it like the
/// provider's own.
pub fn proxy_error(provider: Provider, status: StatusCode, message: &str) -> Response {
    (status, axum::Json(provider.error_body(status.as_u16(), message))).into_response()
}
