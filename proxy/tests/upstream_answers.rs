//! What the proxy passes back from an upstream, against raw upstreams that write exactly the bytes given:
//! never the upstream's CORS headers, never a key it echoes (whole or split across chunks;
//! in the status line, a header or the body), never an odd status, and never a half event completed when
//! the upstream stops mid-stream.

mod common;

use std::time::Duration;

use chatstream::error::ErrorCode;
use chatstream::event::StreamEvent;
use common::{body_text, chunks, decode, post_json, raw_exchange, send, Proxy, RawUpstream, Step};

const KEY: &str = "sk-test-CANARY-5c1d9e";

/// Every route, its upstream under `base`, every key the same.
fn every_route_env(base: &str) -> Vec<(&'static str, String)> {
    vec![
        ("OPENAI_API_KEY", KEY.into()),
        ("OPENAI_BASE_URL", format!("{base}/v1")),
        ("ANTHROPIC_API_KEY", KEY.into()),
        ("ANTHROPIC_BASE_URL", base.into()),
        ("GEMINI_API_KEY", KEY.into()),
        ("GEMINI_BASE_URL", format!("{base}/v1beta")),
        ("COMPAT_API_KEY", KEY.into()),
        ("COMPAT_BASE_URL", format!("{base}/v1")),
        ("OLLAMA_HOST", base.into()),
        ("AGENT_BACKEND_URL", format!("{base}/agent")),
    ]
}

const ROUTES: [&str; 7] = ["openai", "openai-responses", "anthropic", "gemini", "ollama", "compat", "stream"];

fn start(args: &[&str], env: &[(&'static str, String)]) -> Proxy {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Proxy::start(args, &env)
}

#[tokio::test]
async fn upstream_cors_headers_never_reach_the_client() {
    let upstream = RawUpstream::start(vec![send(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nAccess-Control-Allow-Origin: *\r\n\
         Access-Control-Allow-Credentials: true\r\nAccess-Control-Expose-Headers: x-secret\r\nConnection: close\r\n\r\n\
         data: [DONE]\n\n",
    )])
    .await;
    // A page of another site, without and with --cors-origin; a loopback page (served, as the proxy is on
    // loopback, but given no CORS header: only --cors-origin gets those).
    let (app, local) = ("http://app.example:5173", "http://localhost:5173");
    for (args, origin) in [(&[][..], app), (&["--cors-origin", app][..], app), (&[][..], local)] {
        let proxy = start(args, &every_route_env(&upstream.base));
        let response = post_json(proxy.endpoint("/api/chat/openai"), "{}").header("origin", origin).send().await;
        let response = response.unwrap();
        let cors: Vec<_> =
            response.headers().iter().filter(|(name, _)| name.as_str().starts_with("access-control-")).collect();
        if args.is_empty() {
            // No --cors-origin: a cross-origin page is refused, a loopback one served; no CORS header at all.
            assert_eq!(response.status(), if origin == app { 403 } else { 200 });
            assert!(cors.is_empty(), "{cors:?}");
        } else {
            // The proxy's own CORS headers (its stream id header exposed, for resuming), the upstream's none.
            assert_eq!(response.status(), 200);
            assert_eq!(response.headers()["access-control-allow-origin"], app);
            assert_eq!(response.headers()["access-control-expose-headers"], "x-stream-id");
            let own = ["access-control-allow-origin", "access-control-expose-headers", "vary"];
            assert!(cors.iter().all(|(name, _)| own.contains(&name.as_str())), "{cors:?}");
        }
        let response = post_json(proxy.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
        assert!(response.headers().get("access-control-allow-credentials").is_none());
        // The upstream's exposed header never; with --cors-origin, the proxy's own.
        let exposed = response.headers().get("access-control-expose-headers");
        assert!(exposed.is_none() || (!args.is_empty() && exposed.unwrap() == "x-stream-id"), "{exposed:?}");
    }
}

#[tokio::test]
async fn only_known_upstream_headers_pass_and_the_content_type_is_the_routes() {
    let dangerous = "Content-Security-Policy: default-src *\r\nClear-Site-Data: \"*\"\r\n\
                     Link: </evil.js>; rel=preload\r\nRefresh: 0; url=http://evil.example/\r\n\
                     Location: http://evil.example/\r\nContent-Disposition: attachment; filename=x.html\r\n\
                     X-Frame-Options: ALLOWALL\r\nServer: upstream/1.0";
    let kept = "X-Request-Id: req_1\r\nRequest-Id: req_2\r\nX-Ratelimit-Remaining-Requests: 9\r\n\
                anthropic-ratelimit-tokens-remaining: 99\r\nRetry-After: 3";
    for (status, format) in [(200, None), (429, Some("application/json"))] {
        let upstream = RawUpstream::start(vec![send(format!(
            "HTTP/1.1 {status} X\r\nContent-Type: text/html\r\n{dangerous}\r\n{kept}\r\nConnection: close\r\n\r\n\
             <script>alert(1)</script>"
        ))])
        .await;
        let proxy = start(&["--rate-limit", "0"], &every_route_env(&upstream.base));
        for route in ROUTES {
            let response = post_json(proxy.endpoint(&format!("/api/chat/{route}")), "{}").send().await.unwrap();
            assert_eq!(response.status(), status, "{route}");
            let headers = response.headers();
            let stream = if route == "ollama" { "application/x-ndjson" } else { "text/event-stream" };
            assert_eq!(headers["content-type"], format.unwrap_or(stream), "{route}");
            for name in ["x-request-id", "request-id", "x-ratelimit-remaining-requests", "retry-after"] {
                assert!(headers.contains_key(name), "{route}: {name} dropped: {headers:?}");
            }
            assert_eq!(headers["anthropic-ratelimit-tokens-remaining"], "99");
            for name in dangerous.split("\r\n").map(|line| line.split(':').next().unwrap().to_ascii_lowercase()) {
                assert!(!headers.contains_key(&name), "{route}: {name} passed on: {headers:?}");
            }
        }
    }
}

#[tokio::test]
async fn a_compressed_body_is_refused_not_passed_on_raw() {
    let upstream = RawUpstream::start(vec![send(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n\
         \x1f\u{8b}\x08\x00garbled",
    )])
    .await;
    let proxy = start(&[], &every_route_env(&upstream.base));
    let response = post_json(proxy.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
    assert_eq!(response.status(), 502);
    let body: serde_json::Value = serde_json::from_str(&body_text(response).await).unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("Content-Encoding: gzip"), "{message}");
}

#[tokio::test]
async fn an_echoed_key_is_redacted_from_status_line_headers_and_body_on_every_route() {
    let upstream = RawUpstream::start(vec![
        send(format!(
            "HTTP/1.1 401 Bad key {KEY}\r\nContent-Type: application/json\r\n\
             WWW-Authenticate: Bearer error=\"invalid_token\", key=\"{KEY}\"\r\n\
             Connection: close\r\n\r\n"
        )),
        // The key split across two chunks, then a prefix of it (not the key: left alone).
        send("{\"error\":{\"message\":\"Incorrect API key provided: sk-test-CA"),
        Step::Pause(Duration::from_millis(50)),
        send("NARY-5c1d9e. You can find your key at sk-test-C…\"}}"),
    ])
    .await;
    let proxy = start(&[], &every_route_env(&upstream.base));
    for route in ROUTES {
        let path = format!("/api/chat/{route}");
        let response = post_json(proxy.endpoint(&path), "{}").send().await.unwrap();
        assert_eq!(response.status(), 401, "{route}");
        let headers = format!("{:?}", response.headers());
        let body = chunks(response).await.concat();
        let body = String::from_utf8(body).unwrap();
        assert_eq!(
            body,
            "{\"error\":{\"message\":\"Incorrect API key provided: [REDACTED]. You can find your key at sk-test-C…\"}}",
            "{route}"
        );
        // The raw status line: only the code's own reason phrase.
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\
             Connection: close\r\n\r\n{{}}",
            proxy.address()
        );
        let raw = raw_exchange(proxy.address(), &request).await;
        let head = raw.split("\r\n\r\n").next().unwrap();
        assert!(head.starts_with("HTTP/1.1 401 Unauthorized\r\n"), "{route}: {head}");
        for leaked in [&headers, head] {
            assert!(!leaked.contains("CANARY"), "{route}: {leaked}");
        }
    }
}

#[tokio::test]
async fn an_odd_upstream_status_is_a_502_in_the_routes_format() {
    for status_line in
        ["HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket", "HTTP/1.1 999 Odd"]
    {
        let upstream = RawUpstream::start(vec![send(format!("{status_line}\r\n\r\n")), Step::Hang]).await;
        let proxy = start(&[], &every_route_env(&upstream.base));
        for route in ROUTES {
            let response = post_json(proxy.endpoint(&format!("/api/chat/{route}")), "{}").send().await.unwrap();
            assert_eq!(response.status(), 502, "{route}: {status_line}");
            let body: serde_json::Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
            let message = match route {
                "ollama" => &body["error"],
                "stream" => &body["message"],
                _ => &body["error"]["message"],
            };
            assert_eq!(message, "The upstream answered with an unexpected status.", "{route}: {body}");
        }
    }
}

/// What a client reading `route` through chatstream sees when the upstream sends `sent` and then nothing:
/// the proxy's idle timeout cuts it.
async fn cut_after(route: &str, head: &str, sent: &str) -> Vec<StreamEvent> {
    let upstream = RawUpstream::start(vec![
        send(format!("HTTP/1.1 200 OK\r\n{head}\r\nConnection: close\r\n\r\n")),
        send(sent),
        Step::Hang,
    ])
    .await;
    let proxy = start(&["--idle-timeout-ms", "200"], &every_route_env(&upstream.base));
    let response = post_json(proxy.endpoint(&format!("/api/chat/{route}")), "{}").send().await.unwrap();
    let content_type = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string());
    let body = chunks(response).await;
    decode(content_type.as_deref(), &body)
}

fn errors(events: &[StreamEvent]) -> Vec<(ErrorCode, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Error { code, message, .. } => Some((*code, message.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_stream_cut_mid_event_never_shows_the_client_a_half_event() {
    let sse = "Content-Type: text/event-stream";
    let anthropic_start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"role\":\"assistant\"}}\n\n\
        event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n";
    let openai_start = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n";
    let gemini_start =
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"}}]}\r\n\r\n";
    // Where the upstream stops, and whether the proxy's own error can still follow.
    let cases: [(&str, String, bool); 9] = [
        ("anthropic", anthropic_start.to_string(), true),
        ("anthropic", format!("{anthropic_start}event: content_block_delta\n"), true),
        ("anthropic", format!("{anthropic_start}event: content_bl"), true),
        ("anthropic", format!("{anthropic_start}da"), true),
        ("anthropic", format!("{anthropic_start}event: content_block_delta\ndata"), true),
        ("anthropic", format!("{anthropic_start}event: content_block_delta\ndata: {{\"ty"), false),
        ("openai", format!("{openai_start}data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"the"), false),
        ("openai", format!("{openai_start}data: {{\"choices\":[]}}\n"), false),
        (
            "gemini",
            format!("{gemini_start}data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":\"the\r"),
            false,
        ),
    ];
    for (route, sent, error_follows) in cases {
        let events = cut_after(route, sse, &sent).await;
        let text: String = events
            .iter()
            .filter_map(|e| if let StreamEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
            .collect();
        assert_eq!(text, "Hi", "{route} {sent:?}: {events:?}");
        let errors = errors(&events);
        assert_eq!(errors.len(), 1, "{route} {sent:?}: one error, no unreadable frame first: {errors:?}");
        let (code, message) = &errors[0];
        if error_follows {
            assert!(message.contains("idle timeout"), "{route} {sent:?}: {errors:?}");
        } else {
            // The half event is discarded by the end of the stream; the client sees the cut.
            assert_eq!(*code, ErrorCode::NetworkError, "{route} {sent:?}: {errors:?}");
        }
    }
}

#[tokio::test]
async fn a_byte_order_mark_before_the_first_frame_does_not_hide_its_data_line() {
    // The SSE rules strip one leading BOM: the first line is a `data` line, half written, so the stream
    // ends there rather than with a blank line that would dispatch it.
    for (route, sent) in [
        ("openai", "\u{feff}data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"the"),
        ("gemini", "\u{feff}data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"the\r"),
    ] {
        let events = cut_after(route, "Content-Type: text/event-stream", sent).await;
        let errors = errors(&events);
        // One error: the stream's own end, not the half frame read as a whole one.
        assert_eq!(errors.len(), 1, "{route}: {errors:?}");
        assert!(!errors[0].1.contains("EOF while parsing") && !errors[0].1.contains("idle"), "{route}: {errors:?}");
    }
}

#[tokio::test]
async fn a_cut_ndjson_line_is_ended_before_the_proxys_error_line() {
    let head = "Content-Type: application/x-ndjson";
    let first = "{\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\n";
    let events = cut_after("ollama", head, first).await;
    let reported = errors(&events);
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert!(reported[0].1.contains("idle timeout"), "{reported:?}");
    // A line cannot be discarded in NDJSON (a reader parses even a last line without its newline): the
    // cut line is reported as unreadable, then the proxy's error.
    let events = cut_after("ollama", head, &format!("{first}{{\"message\":{{\"con")).await;
    let reported = errors(&events);
    assert_eq!(reported.len(), 2, "{reported:?}");
    assert!(reported[0].1.starts_with("Failed to parse response"), "{reported:?}");
    assert!(reported[1].1.contains("idle timeout"), "{reported:?}");
}
