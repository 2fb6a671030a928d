//! Who may use the proxy from a browser. Listening on loopback keeps other machines out, but not the
//! pages the user visits: any of them can send the proxy a request, and one that rebinds its own DNS name
//! to 127.0.0.1 can read the answers too. So, on every route:
//! - the `Host` must be one the proxy serves (its listen address, localhost, 127.0.0.1 or [::1], with its
//!   port, or a name given with `--allowed-host`); otherwise 421. A rebinding page sends its own name.
//! - an `Origin`, when there is one, must be the proxy's own (the scheme and the `Host`) or the
//!   `--cors-origin`; otherwise 403. Browsers send one with every cross-origin request and every POST;
//!   server-side clients send none and are not affected.
//!
//! And on the chat routes, the body must be declared `application/json` (415 otherwise): that is what a
//! page cannot send cross-site without a CORS preflight, which only `--cors-origin` passes.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

#[derive(Clone)]
pub struct Allowed(Arc<AllowedInner>);

struct AllowedInner {
    /// Every accepted `Host` value, lowercase.
    hosts: Vec<String>,
    cors_origin: Option<String>,
}

impl Allowed {
    /// `address` is the bound address (its port is the real one when `--port 0`); `extra` the
    /// `--allowed-host` names.
    pub fn new(address: SocketAddr, extra: &[String], cors_origin: Option<&str>) -> Allowed {
        let port = address.port();
        let listen = match address {
            SocketAddr::V4(v4) => v4.ip().to_string(),
            SocketAddr::V6(v6) => format!("[{}]", v6.ip()),
        };
        let mut hosts = Vec::new();
        for name in [listen.as_str(), "localhost", "127.0.0.1", "[::1]"] {
            hosts.push(format!("{name}:{port}"));
            // A browser leaves the port out of `Host` when it is the scheme's default.
            if port == 80 {
                hosts.push(name.to_string());
            }
        }
        for name in extra.iter().map(|name| name.trim().to_ascii_lowercase()).filter(|name| !name.is_empty()) {
            if !has_port(&name) {
                hosts.push(format!("{name}:{port}"));
            }
            hosts.push(name);
        }
        let cors_origin = cors_origin.map(str::to_ascii_lowercase);
        Allowed(Arc::new(AllowedInner { hosts, cors_origin }))
    }

    fn host_allowed(&self, host: &str) -> bool {
        self.0.hosts.iter().any(|allowed| allowed.eq_ignore_ascii_case(host))
    }

    /// The proxy's own origin for this `Host`, over http or https (behind a TLS front), or the CORS origin.
    fn origin_allowed(&self, origin: &str, host: &str) -> bool {
        let own = ["http://", "https://"].iter().any(|scheme| origin.eq_ignore_ascii_case(&format!("{scheme}{host}")));
        own || self.0.cors_origin.as_deref().is_some_and(|cors| cors.eq_ignore_ascii_case(origin))
    }
}

/// `name:port`, `[v6]:port`: a port is what follows the last colon, after any `]`.
fn has_port(host: &str) -> bool {
    let after_bracket = host.rsplit(']').next().unwrap_or(host);
    after_bracket.rsplit_once(':').is_some_and(|(_, port)| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
}

/// Middleware for every route: refuses a foreign `Host` (421) or `Origin` (403).
pub async fn same_site(State(allowed): State<Allowed>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
    // An absolute request target names the host too; it must agree.
    let target = request.uri().authority().map(|a| a.as_str());
    if !allowed.host_allowed(host) || target.is_some_and(|target| !allowed.host_allowed(target)) {
        return (StatusCode::MISDIRECTED_REQUEST, "This proxy does not serve that host.\n").into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !allowed.origin_allowed(origin, host) {
            return (StatusCode::FORBIDDEN, "Cross-origin requests to this proxy are not allowed.\n").into_response();
        }
    }
    next.run(request).await
}

/// `application/json`, with or without parameters (`; charset=utf-8`).
pub fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) else { return false };
    value.split(';').next().unwrap_or_default().trim().eq_ignore_ascii_case("application/json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_the_listen_address_loopback_names_and_the_allowed_ones() {
        let allowed =
            Allowed::new("127.0.0.1:8787".parse().unwrap(), &["Chat.Example".into(), "lan.example:9000".into()], None);
        for host in [
            "127.0.0.1:8787",
            "localhost:8787",
            "LOCALHOST:8787",
            "[::1]:8787",
            "chat.example",
            "chat.example:8787",
            "lan.example:9000",
        ] {
            assert!(allowed.host_allowed(host), "{host}");
        }
        for host in [
            "",
            "attacker.example",
            "attacker.example:8787",
            "127.0.0.1",
            "localhost:80",
            "127.0.0.1:8788",
            "lan.example",
            "lan.example:8787",
        ] {
            assert!(!allowed.host_allowed(host), "{host}");
        }
        let v6 = Allowed::new("[::1]:80".parse().unwrap(), &[], None);
        assert!(v6.host_allowed("[::1]") && v6.host_allowed("localhost") && v6.host_allowed("[::1]:80"));
    }

    #[test]
    fn origins_are_the_proxys_own_or_the_cors_one() {
        let allowed = Allowed::new("127.0.0.1:8787".parse().unwrap(), &[], Some("http://localhost:5173"));
        assert!(allowed.origin_allowed("http://127.0.0.1:8787", "127.0.0.1:8787"));
        assert!(allowed.origin_allowed("http://localhost:5173", "127.0.0.1:8787"));
        assert!(!allowed.origin_allowed("http://localhost:8787", "127.0.0.1:8787"));
        assert!(!allowed.origin_allowed("null", "127.0.0.1:8787"));
        assert!(!allowed.origin_allowed("http://127.0.0.1:8787.evil.example", "127.0.0.1:8787"));
    }

    #[test]
    fn json_is_recognised_with_parameters() {
        let mut headers = HeaderMap::new();
        assert!(!is_json(&headers));
        for (value, json) in [
            ("application/json", true),
            ("Application/JSON; charset=utf-8", true),
            ("text/plain", false),
            ("application/jsonx", false),
        ] {
            headers.insert(header::CONTENT_TYPE, value.parse().unwrap());
            assert_eq!(is_json(&headers), json, "{value}");
        }
    }
}
