//! Pass-through to a configured provider: the browser's body to the provider's fixed URL with the key from
//! the environment, and the provider's bytes back unchanged, as they arrive (but for any key, see
//! [`crate::redact`]), with only the headers that are safe on the proxy's origin.

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

/// The upstream response headers passed on: request ids (what a provider's support asks for) and the
/// rate-limit state (what a client backs off by). No other: the rest either acts on the origin they are
/// served from, which is the proxy's (`Content-Security-Policy`, `Clear-Site-Data`, `Link`, `Refresh`,
/// `Location`, `Content-Disposition`, `Set-Cookie`, `Access-Control-*`: the proxy alone decides who may
/// read its answers), or describes the upstream's hop and encoding, which the proxy replaces with its own.
fn passed_on(name: &str) -> bool {
    matches!(name, "x-request-id" | "request-id" | "retry-after" | "retry-after-ms")
        || ["x-ratelimit-", "anthropic-ratelimit-", "ratelimit"].iter().any(|prefix| name.starts_with(prefix))
}

/// The content type of a forwarded answer: the route's stream format, or JSON (an error, or an answer not
/// streamed), whatever else the upstream says, so that nothing from it is rendered on the proxy's origin.
fn content_type(provider: Provider, status: StatusCode, upstream: Option<&HeaderValue>) -> HeaderValue {
    let essence = upstream.and_then(|v| v.to_str().ok()).and_then(|v| v.split(';').next()).map(str::trim);
    let json = "application/json";
    let format = match essence {
        Some(essence) if essence.eq_ignore_ascii_case(provider.content_type()) => provider.content_type(),
        Some(essence) if essence.eq_ignore_ascii_case(json) => json,
        _ if status.is_success() => provider.content_type(),
        _ => json,
    };
    HeaderValue::from_static(format)
}

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
    // Asked for `identity`; a body encoded anyway would reach the client as bytes it cannot read.
    if let Some(encoding) = response.headers().get(header::CONTENT_ENCODING) {
        if !encoding.as_bytes().trim_ascii().eq_ignore_ascii_case(b"identity") {
            let encoding = redactor.redact(encoding.as_bytes()).unwrap_or_else(|| encoding.as_bytes().to_vec());
            let encoding: String = String::from_utf8_lossy(&encoding).chars().take(40).collect();
            let message = format!(
                "The upstream sent its body encoded (Content-Encoding: {encoding}) although asked for none; \
                 the proxy does not decode it."
            );
            return proxy_error(provider, StatusCode::BAD_GATEWAY, &message);
        }
    }
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, content_type(provider, status, response.headers().get(header::CONTENT_TYPE)));
    for (name, value) in response.headers() {
        // A header whose very name holds a key is dropped whole.
        if !passed_on(name.as_str()) || redactor.redact(name.as_str().as_bytes()).is_some() {
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
