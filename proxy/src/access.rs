//! Who may use the proxy from a browser. Listening on loopback keeps other machines out, but not the
//! pages the user visits: any of them can send the proxy a request, and one that rebinds its own DNS name
//! to 127.0.0.1 can read the answers too. So, on every route:
//! - the `Host` must be one the proxy serves (its listen address, localhost, 127.0.0.1 or [::1], with its
//!   port, or a name given with `--allowed-host`); otherwise 421. A rebinding page sends its own name.
//! - an `Origin`, when there is one, must be the proxy's own (the scheme and the `Host`) or the
//!   `--cors-origin`; otherwise 403. Browsers send one with every cross-origin request and every POST;
//!   server-side clients send none and are not affected.
//!
//! When the proxy listens on loopback, a loopback `Host` or `Origin` (localhost, 127.x.x.x, [::1]) on any
//! port is its own machine's too, as Ollama has it: a dev server (Vite's `server.proxy`) forwards the
//! browser's `Host` and `Origin`, its own port's. A rebinding page cannot send those: its name is not one.
//!
//! Every refusal names what it refused and the flag that would allow it, in the answer and the log.
//!
//! And on the chat routes, the body must be declared `application/json` (415 otherwise): that is what a
//! page cannot send cross-site without a CORS preflight, which only `--cors-origin` passes.

use std::net::{IpAddr, SocketAddr};
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
    /// The proxy listens on loopback: loopback hosts and origins on any port are allowed.
    loopback: bool,
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
        Allowed(Arc::new(AllowedInner { hosts, cors_origin, loopback: address.ip().is_loopback() }))
    }

    fn host_allowed(&self, host: &str) -> bool {
        self.0.hosts.iter().any(|allowed| allowed.eq_ignore_ascii_case(host)) || (self.0.loopback && is_loopback(host))
    }

    /// The proxy's own origin for this `Host`, over http or https (behind a TLS front), or the CORS origin.
    fn origin_allowed(&self, origin: &str, host: &str) -> bool {
        let own = ["http://", "https://"].iter().any(|scheme| origin.eq_ignore_ascii_case(&format!("{scheme}{host}")));
        let loopback = || {
            let authority = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
            self.0.loopback && authority.is_some_and(is_loopback)
        };
        own || self.0.cors_origin.as_deref().is_some_and(|cors| cors.eq_ignore_ascii_case(origin)) || loopback()
    }
}

/// `name:port`, `[v6]:port`: a port is what follows the last colon, after any `]`.
fn has_port(host: &str) -> bool {
    let after_bracket = host.rsplit(']').next().unwrap_or(host);
    after_bracket.rsplit_once(':').is_some_and(|(_, port)| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
}

/// `localhost`, a 127.x.x.x address or `[::1]`, with or without a port.
fn is_loopback(authority: &str) -> bool {
    let name = match authority.rsplit_once(':') {
        Some((name, port)) if !name.ends_with(':') && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => authority,
    };
    let name = name.strip_prefix('[').and_then(|v6| v6.strip_suffix(']')).unwrap_or(name);
    name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A refusal, with what was refused and how to allow it: in the answer, and in the log.
fn refuse(status: StatusCode, message: String) -> Response {
    tracing::warn!("{message}");
    (status, message + "\n").into_response()
}

/// A header value as a refusal shows it: quoted, escaped, and not too long.
pub fn shown(value: &str) -> String {
    format!("{:?}", value.chars().take(100).collect::<String>())
}

/// Middleware for every route: refuses a foreign `Host` (421) or `Origin` (403).
pub async fn same_site(State(allowed): State<Allowed>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
    // An absolute request target names the host too; it must agree.
    let target = request.uri().authority().map(|a| a.as_str());
    if let Some(refused) = [Some(host), target].into_iter().flatten().find(|name| !allowed.host_allowed(name)) {
        let message = if refused.is_empty() {
            "This proxy serves only requests with a Host header.".to_string()
        } else {
            format!(
                "This proxy does not serve the host {}: start it with --allowed-host {refused} (or \
                 PROXY_ALLOWED_HOSTS) to allow that name.",
                shown(refused)
            )
        };
        return refuse(StatusCode::MISDIRECTED_REQUEST, message);
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !allowed.origin_allowed(origin, host) {
            let message = if origin.eq_ignore_ascii_case("null") {
                "Cross-origin request from an opaque origin (Origin: null: a sandboxed frame or a file:// page) \
                 refused: serve the page over http, and allow its origin with --cors-origin (or PROXY_CORS_ORIGIN)."
                    .to_string()
            } else {
                format!(
                    "Cross-origin request from {} refused: start the proxy with --cors-origin {origin} (or \
                     PROXY_CORS_ORIGIN) to allow that origin.",
                    shown(origin)
                )
            };
            return refuse(StatusCode::FORBIDDEN, message);
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
        let extra = ["Chat.Example".to_string(), "lan.example:9000".to_string()];
        let allowed = Allowed::new("192.0.2.10:8787".parse().unwrap(), &extra, None);
        for host in [
            "192.0.2.10:8787",
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
        let v6 = Allowed::new("[2001:db8::1]:80".parse().unwrap(), &[], None);
        assert!(v6.host_allowed("[::1]") && v6.host_allowed("localhost") && v6.host_allowed("[::1]:80"));
    }

    #[test]
    fn on_loopback_any_loopback_host_and_origin_is_allowed_on_any_port() {
        let allowed = Allowed::new("127.0.0.1:8787".parse().unwrap(), &[], None);
        for host in ["localhost:5173", "127.0.0.1", "127.0.0.2:3000", "[::1]:5173", "LocalHost:1"] {
            assert!(allowed.host_allowed(host), "{host}");
            assert!(allowed.origin_allowed(&format!("http://{host}"), "127.0.0.1:8787"), "{host}");
        }
        for host in [
            "",
            "attacker.example:5173",
            "127.0.0.1.nip.io:8787",
            "localhost.evil.example",
            "localhost:x",
            "0.0.0.0:8787",
        ] {
            assert!(!allowed.host_allowed(host), "{host}");
            assert!(!allowed.origin_allowed(&format!("http://{host}"), "127.0.0.1:8787"), "{host}");
        }
        assert!(!allowed.origin_allowed("null", "localhost:5173"));
        assert!(!allowed.origin_allowed("ftp://localhost:5173", "localhost:5173"));
    }

    #[test]
    fn origins_are_the_proxys_own_or_the_cors_one() {
        let allowed = Allowed::new("192.0.2.10:8787".parse().unwrap(), &[], Some("http://localhost:5173"));
        assert!(allowed.origin_allowed("http://192.0.2.10:8787", "192.0.2.10:8787"));
        assert!(allowed.origin_allowed("http://localhost:5173", "192.0.2.10:8787"));
        assert!(!allowed.origin_allowed("http://localhost:8787", "192.0.2.10:8787"));
        assert!(!allowed.origin_allowed("null", "192.0.2.10:8787"));
        assert!(!allowed.origin_allowed("http://192.0.2.10:8787.evil.example", "192.0.2.10:8787"));
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
