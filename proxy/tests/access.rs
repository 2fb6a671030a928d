//! Who may use the proxy from a browser: pages of other sites (a "simple" cross-site POST, a foreign
//! `Origin`) and DNS-rebinding pages (a foreign `Host`) are refused on every route; the proxy's own page,
//! the `--cors-origin` app and server-side clients (no `Origin`) are served.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::routing::post;
use axum::Router;
use common::{client, post_json, raw_exchange, FakeUpstream, Proxy};

const KEY: &str = "sk-test-CANARY-5c1d9e";

/// A proxy with a key for an upstream that counts the requests it gets.
async fn keyed_proxy(args: &[&str]) -> (Proxy, FakeUpstream, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move || async move {
            counter.fetch_add(1, Ordering::SeqCst);
            "data: [DONE]\n\n"
        }),
    );
    let upstream = FakeUpstream::start(app).await;
    let base = format!("{}/v1", upstream.base);
    let proxy = Proxy::start(args, &[("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", &base)]);
    (proxy, upstream, hits)
}

#[tokio::test]
async fn a_cross_site_simple_post_is_refused_before_it_reaches_the_upstream() {
    let (proxy, _upstream, hits) = keyed_proxy(&[]).await;
    let chat = proxy.endpoint("/api/chat/openai");
    let body = r#"{"messages":[{"role":"user","content":"hi"}]}"#;
    // What an HTML form or a no-preflight fetch can send: no Content-Type, or text/plain.
    for content_type in [None, Some("text/plain"), Some("application/x-www-form-urlencoded")] {
        let mut request = client().post(&chat).header("origin", "http://evil.example").body(body);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let status = request.send().await.unwrap().status();
        assert!(status == 403 || status == 415, "{content_type:?}: {status}");
        // Without an Origin (a server-side client), a body not declared as JSON is refused too.
        let mut request = client().post(&chat).body(body);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        assert_eq!(request.send().await.unwrap().status(), 415, "{content_type:?}");
    }
    // Declared as JSON but from another site: refused.
    let response = post_json(&chat, body).header("origin", "http://evil.example").send().await.unwrap();
    assert_eq!(response.status(), 403);
    let response = post_json(&chat, body).header("origin", "null").send().await.unwrap();
    assert_eq!(response.status(), 403);
    assert_eq!(hits.load(Ordering::SeqCst), 0, "a refused request went upstream");

    // The proxy's own page, a server-side client, and JSON with a charset: served.
    let own = format!("http://{}", proxy.address());
    assert_eq!(post_json(&chat, body).header("origin", own).send().await.unwrap().status(), 200);
    assert_eq!(post_json(&chat, body).send().await.unwrap().status(), 200);
    let charset = client().post(&chat).header("content-type", "application/json; charset=utf-8").body(body);
    assert_eq!(charset.send().await.unwrap().status(), 200);
    assert_eq!(hits.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_foreign_host_is_refused_on_every_route() {
    let (proxy, _upstream, hits) = keyed_proxy(&["--allowed-host", "chat.example"]).await;
    let port = proxy.address().rsplit(':').next().unwrap().to_string();
    let request = |method: &str, path: &str, host: &str| {
        let body = if method == "POST" { "{}" } else { "" };
        format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let status = |answer: String| answer.split(' ').nth(1).unwrap_or_default().to_string();
    for (method, path) in [("POST", "/api/chat/openai"), ("GET", "/api/providers"), ("GET", "/"), ("GET", "/pkg/x.js")]
    {
        // A DNS-rebinding page reaches 127.0.0.1 under its own name.
        for host in [format!("attacker.example:{port}"), "attacker.example".into(), format!("127.0.0.1.nip.io:{port}")]
        {
            let answer = raw_exchange(proxy.address(), &request(method, path, &host)).await;
            assert_eq!(status(answer), "421", "{method} {path} with Host {host}");
        }
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0);
    for host in
        [proxy.address().to_string(), format!("localhost:{port}"), format!("[::1]:{port}"), "chat.example".into()]
    {
        let answer = raw_exchange(proxy.address(), &request("GET", "/api/providers", &host)).await;
        assert_eq!(status(answer), "200", "Host {host}");
    }
}

#[tokio::test]
async fn the_cors_origin_is_served_and_its_preflight_allows_authorization() {
    let (proxy, _upstream, _hits) = keyed_proxy(&["--cors-origin", "http://localhost:5173"]).await;
    let chat = proxy.endpoint("/api/chat/openai");
    let preflight = client()
        .request(reqwest::Method::OPTIONS, &chat)
        .header("origin", "http://localhost:5173")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization,content-type")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    let headers = preflight.headers();
    assert_eq!(headers["access-control-allow-origin"], "http://localhost:5173");
    let allowed = headers["access-control-allow-headers"].to_str().unwrap().to_ascii_lowercase();
    assert!(allowed.contains("authorization") && allowed.contains("content-type"), "{allowed}");

    let response = post_json(&chat, "{}")
        .header("origin", "http://localhost:5173")
        .header("authorization", "Bearer app-token")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["access-control-allow-origin"], "http://localhost:5173");
    // Any other origin is still refused, preflight included.
    let other = client()
        .request(reqwest::Method::OPTIONS, &chat)
        .header("origin", "http://evil.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());
    assert_eq!(other.status(), 403);
}

/// Ways to write a chat route's path other than its own: a character percent-encoded (either case of hex
/// digit), the whole name encoded, encoded twice, letters in another case, extra slashes and dots.
fn spellings(route: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (i, c) in route.char_indices() {
        for encoded in [format!("%{:02x}", c as u8), format!("%{:02X}", c as u8), format!("%25{:02x}", c as u8)] {
            names.push(format!("{}{encoded}{}", &route[..i], &route[i + 1..]));
        }
    }
    names.push(route.bytes().map(|b| format!("%{b:02X}")).collect());
    names.push(route.to_ascii_uppercase());
    names.push(route[..1].to_ascii_uppercase() + &route[1..]);
    let mut paths: Vec<String> = names.iter().map(|name| format!("/api/chat/{name}")).collect();
    for path in ["/API/chat/{}", "/api/Chat/{}", "/api/chat/{}/", "/api/chat//{}", "/api//chat/{}", "/api/chat/./{}"] {
        paths.push(path.replace("{}", route));
    }
    paths.push(format!("/api/chat%2F{route}"));
    paths.push(format!("/%61pi/chat/{route}"));
    paths
}

const ROUTES: [&str; 7] = ["openai", "openai-responses", "anthropic", "gemini", "ollama", "compat", "stream"];

fn status(answer: &str) -> u16 {
    answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

#[tokio::test]
async fn every_spelling_of_a_chat_route_meets_the_same_checks() {
    // openai goes to the counting upstream; every other route is simulated, which answers anything let in.
    let (proxy, _upstream, hits) = keyed_proxy(&["--rate-limit", "2"]).await;
    let host = proxy.address().to_string();
    let raw = |path: &str, host: &str, headers: &str, body: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let body = r#"{"messages":[{"role":"user","content":"hi"}],"message":"hi"}"#;
    let mut served = 0;
    for route in ROUTES {
        for path in spellings(route) {
            // Not JSON: 415 where the spelling names the route, 404 where it names none; never served.
            let plain = raw(&path, &host, "Content-Type: text/plain\r\n", body);
            let answer = raw_exchange(proxy.address(), &plain).await;
            assert!([404, 415].contains(&status(&answer)), "{path} as text/plain: {answer}");
            // A foreign Origin or Host is refused whatever the path.
            let json = "Content-Type: application/json\r\n";
            let foreign = raw(&path, &host, &format!("{json}Origin: http://evil.example\r\n"), body);
            assert_eq!(status(&raw_exchange(proxy.address(), &foreign).await), 403, "{path}");
            let rebound = raw(&path, "attacker.example", json, body);
            assert_eq!(status(&raw_exchange(proxy.address(), &rebound).await), 421, "{path}");
            // JSON: counted against the rate limit like the route's own spelling.
            let answer = raw_exchange(proxy.address(), &raw(&path, &host, json, body)).await;
            match status(&answer) {
                200 => served += 1,
                404 | 429 => {}
                other => panic!("{path}: {other}: {answer}"),
            }
        }
    }
    assert!(served <= 2, "{served} requests served past a rate limit of 2");
    assert!(hits.load(Ordering::SeqCst) <= served, "a refused request went upstream");
}

#[tokio::test]
async fn a_dev_server_forwarding_to_the_proxy_is_served_and_every_refusal_says_how_to_allow_it() {
    let (proxy, _upstream, hits) = keyed_proxy(&[]).await;
    let body = r#"{"messages":[{"role":"user","content":"hi"}]}"#;
    // What Vite's `server.proxy: { '/api': 'http://127.0.0.1:8787' }` forwards: the browser's own Host and
    // Origin, the dev server's port.
    for dev in ["localhost:5173", "127.0.0.1:5173", "[::1]:3000"] {
        let request = format!(
            "POST /api/chat/openai HTTP/1.1\r\nHost: {dev}\r\nOrigin: http://{dev}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let answer = raw_exchange(proxy.address(), &request).await;
        assert_eq!(status(&answer), 200, "{dev}: {answer}");
    }
    assert_eq!(hits.load(Ordering::SeqCst), 3);

    let request = |host: &str, origin: &str| {
        format!("GET /api/providers HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nConnection: close\r\n\r\n")
    };
    let foreign_host = raw_exchange(proxy.address(), &request("chat.example:5173", "http://chat.example:5173")).await;
    assert_eq!(status(&foreign_host), 421);
    let expected = "the host \"chat.example:5173\": start it with --allowed-host chat.example:5173";
    assert!(foreign_host.contains(expected), "{foreign_host}");
    let foreign_origin = raw_exchange(proxy.address(), &request(proxy.address(), "http://chat.example:5173")).await;
    assert_eq!(status(&foreign_origin), 403);
    let expected =
        "from \"http://chat.example:5173\" refused: start the proxy with --cors-origin http://chat.example:5173";
    assert!(foreign_origin.contains(expected), "{foreign_origin}");
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let log = proxy.output();
    assert!(
        log.contains("--allowed-host chat.example:5173") && log.contains("--cors-origin http://chat.example:5173"),
        "{log}"
    );
}
