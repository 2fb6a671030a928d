//! The proxy in front of a fake upstream on loopback: pass-through, timeouts, disconnects, redirects,
//! limits, and keys kept out of every output.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use common::{body_text, client, post_json, FakeUpstream, OnDrop, Proxy};
use futures_util::StreamExt;
use tokio::sync::mpsc;

const KEY: &str = "sk-test-CANARY-5c1d9e";

/// What the fake upstream saw of the last request.
#[derive(Default, Clone)]
struct Seen {
    uri: String,
    headers: HeaderMap,
    body: Bytes,
}

type SeenLog = Arc<Mutex<Vec<Seen>>>;

fn record(seen: &SeenLog, uri: &axum::http::Uri, headers: &HeaderMap, body: Bytes) {
    seen.lock().unwrap().push(Seen { uri: uri.to_string(), headers: headers.clone(), body });
}

/// A streamed response whose chunks the test hands over one at a time through `chunks`.
fn streamed(status: u16, chunks: mpsc::UnboundedReceiver<Result<Bytes, std::io::Error>>) -> Response {
    let body = Body::from_stream(tokio_stream_of(chunks));
    Response::builder()
        .status(status)
        .header("content-type", "text/event-stream")
        .header("x-request-id", "req_123")
        .header("set-cookie", "session=upstream")
        .header("keep-alive", "timeout=5")
        .header("cache-control", "no-store, private")
        .body(body)
        .unwrap()
}

fn tokio_stream_of<T: Send + 'static>(
    mut rx: mpsc::UnboundedReceiver<T>,
) -> impl futures_util::Stream<Item = T> + Send + 'static {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

/// An upstream at `/v1/chat/completions` that streams whatever the test sends into the returned channel.
async fn controlled_openai() -> (FakeUpstream, SeenLog, mpsc::UnboundedSender<Result<Bytes, std::io::Error>>) {
    let seen = SeenLog::default();
    let (tx, rx) = mpsc::unbounded_channel();
    let rx = Arc::new(Mutex::new(Some(rx)));
    let log = seen.clone();
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |uri: axum::http::Uri, headers: HeaderMap, body: Bytes| async move {
            record(&log, &uri, &headers, body);
            streamed(200, rx.lock().unwrap().take().expect("one request"))
        }),
    );
    (FakeUpstream::start(app).await, seen, tx)
}

fn openai_env(upstream: &FakeUpstream) -> Vec<(&'static str, String)> {
    vec![("OPENAI_API_KEY", KEY.to_string()), ("OPENAI_BASE_URL", format!("{}/v1", upstream.base))]
}

fn start(args: &[&str], env: &[(&'static str, String)]) -> Proxy {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Proxy::start(args, &env)
}

async fn next_chunk(body: &mut (impl futures_util::Stream<Item = reqwest::Result<Bytes>> + Unpin)) -> Option<Bytes> {
    tokio::time::timeout(Duration::from_secs(20), body.next())
        .await
        .expect("a chunk or the end (no hang)")
        .map(|r| r.unwrap())
}

#[tokio::test]
async fn bytes_pass_through_unchanged_and_unbuffered() {
    let (upstream, seen, tx) = controlled_openai().await;
    let proxy = start(&[], &openai_env(&upstream));
    let request_body = r#"{"model":"gpt-x","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    let response = post_json(proxy.endpoint("/api/chat/openai"), request_body).send();

    // Frames as a real stream can split them: mid-JSON, a malformed frame, a multi-byte character cut.
    let chunks: [&[u8]; 4] = [
        b"data: {\"choices\":[{\"delta\":{\"content\":\"caf",
        b"\xc3",
        b"\xa9\"}}]}\n\ndata: {not json\n\n",
        b"data: [DONE]\n\n",
    ];
    tx.send(Ok(Bytes::from_static(chunks[0]))).unwrap();
    let response = response.await.unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "text/event-stream");
    assert_eq!(headers["cache-control"], "no-cache");
    assert_eq!(headers["x-accel-buffering"], "no");
    assert_eq!(headers["x-request-id"], "req_123");
    for absent in ["set-cookie", "keep-alive", "content-encoding", "content-length"] {
        assert!(headers.get(absent).is_none(), "{absent} copied: {headers:?}");
    }
    let mut body = response.bytes_stream();
    let mut received = Vec::new();
    // Each chunk reaches the client before the upstream sends the next one, but for the end of a word cut
    // at the chunk's end: it could be the start of a key, so it waits for the next chunk (see `redact`).
    let sent_as = [&chunks[0][..chunks[0].len() - 3], b"caf\xc3", chunks[2], chunks[3]];
    for (i, (chunk, expected)) in chunks.iter().zip(sent_as).enumerate() {
        if i > 0 {
            tx.send(Ok(Bytes::from_static(chunk))).unwrap();
        }
        let mut got = Vec::new();
        while got.len() < expected.len() {
            got.extend_from_slice(&next_chunk(&mut body).await.expect("the chunk arrives"));
        }
        assert_eq!(got, expected, "chunk {i}");
        received.extend_from_slice(&got);
    }
    drop(tx);
    assert_eq!(next_chunk(&mut body).await, None);
    assert_eq!(received, chunks.concat());

    let seen = seen.lock().unwrap()[0].clone();
    assert_eq!(seen.uri, "/v1/chat/completions");
    assert_eq!(seen.body, request_body.as_bytes(), "the request body goes upstream byte for byte");
    assert_eq!(seen.headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(seen.headers["accept-encoding"], "identity");
    assert!(seen.headers.get("cookie").is_none());
}

#[tokio::test]
async fn upstream_error_statuses_and_bodies_pass_through() {
    let cases: [(u16, &str, Option<&str>); 3] = [
        (401, r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#, None),
        (429, r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#, Some("7")),
        (529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#, None),
    ];
    for (status, body, retry_after) in cases {
        let app = Router::new().route(
            "/v1/messages",
            post(move || async move {
                let mut response = Response::builder().status(status).header("content-type", "application/json");
                if let Some(seconds) = retry_after {
                    response = response.header("retry-after", seconds);
                }
                response.body(Body::from(body)).unwrap()
            }),
        );
        let upstream = FakeUpstream::start(app).await;
        let proxy =
            start(&[], &[("ANTHROPIC_API_KEY", KEY.to_string()), ("ANTHROPIC_BASE_URL", upstream.base.clone())]);
        let response = post_json(proxy.endpoint("/api/chat/anthropic"), "{}").send().await.unwrap();
        assert_eq!(response.status().as_u16(), status);
        assert_eq!(response.headers().get("retry-after").map(|v| v.to_str().unwrap()), retry_after);
        assert_eq!(body_text(response).await, body);
    }
}

#[tokio::test]
async fn anthropic_and_gemini_get_their_own_key_headers_and_urls() {
    let seen = SeenLog::default();
    let (anthropic_log, gemini_log) = (seen.clone(), seen.clone());
    let app = Router::new()
        .route(
            "/v1/messages",
            post(move |uri: axum::http::Uri, headers: HeaderMap, body: Bytes| async move {
                record(&anthropic_log, &uri, &headers, body);
                "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
            }),
        )
        .route(
            "/v1beta/models/{action}",
            post(move |uri: axum::http::Uri, headers: HeaderMap, body: Bytes| async move {
                record(&gemini_log, &uri, &headers, body);
                "data: {}\r\n\r\n"
            }),
        );
    let upstream = FakeUpstream::start(app).await;
    let proxy = start(
        &[],
        &[
            ("ANTHROPIC_API_KEY", KEY.to_string()),
            ("ANTHROPIC_BASE_URL", upstream.base.clone()),
            ("GOOGLE_API_KEY", KEY.to_string()),
            ("GEMINI_BASE_URL", format!("{}/v1beta", upstream.base)),
        ],
    );
    let anthropic = post_json(proxy.endpoint("/api/chat/anthropic"), r#"{"max_tokens":5}"#).send().await;
    assert_eq!(body_text(anthropic.unwrap()).await, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    let gemini =
        post_json(proxy.endpoint("/api/chat/gemini"), r#"{"model":"gemini-test-1.5","contents":[]}"#).send().await;
    assert_eq!(body_text(gemini.unwrap()).await, "data: {}\r\n\r\n");
    let bad_model = post_json(proxy.endpoint("/api/chat/gemini"), r#"{"model":"../x?key=1"}"#).send().await;
    assert_eq!(bad_model.unwrap().status(), 400);

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "the bad model name never went upstream");
    assert_eq!(seen[0].uri, "/v1/messages");
    assert_eq!(seen[0].headers["x-api-key"], KEY);
    assert_eq!(seen[0].headers["anthropic-version"], "2023-06-01");
    assert!(seen[0].headers.get("authorization").is_none());
    assert_eq!(seen[1].uri, "/v1beta/models/gemini-test-1.5:streamGenerateContent?alt=sse");
    assert_eq!(seen[1].headers["x-goog-api-key"], KEY);
    assert_eq!(seen[1].body, r#"{"contents":[]}"#.as_bytes(), "`model` is removed from Gemini's body");
}

#[tokio::test]
async fn an_idle_upstream_ends_the_stream_with_an_error_frame() {
    let (upstream, _seen, tx) = controlled_openai().await;
    let proxy = start(&["--idle-timeout-ms", "200"], &openai_env(&upstream));
    tx.send(Ok(Bytes::from_static(b"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"))).unwrap();
    let response = post_json(proxy.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
    assert_eq!(response.status(), 200);
    let text = body_text(response).await;
    let (first, rest) = text.split_at(text.find("\n\n").unwrap() + 2);
    assert_eq!(first, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n");
    let error: serde_json::Value = serde_json::from_str(rest.strip_prefix("data: ").unwrap().trim_end()).unwrap();
    assert_eq!(error["error"]["type"], "server_error");
    assert!(error["error"]["message"].as_str().unwrap().contains("idle timeout"), "{error}");
    drop(tx);
}

#[tokio::test]
async fn the_total_cap_ends_a_stream_that_never_stops() {
    // A chunk every 20 ms, forever: never idle, so only the total cap can end it.
    let app = Router::new().route(
        "/api/chat",
        post(|| async {
            let ticks = futures_util::stream::unfold((), |()| async {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Some((
                    Ok::<_, std::io::Error>(Bytes::from_static(b"{\"message\":{\"content\":\"x\"},\"done\":false}\n")),
                    (),
                ))
            });
            Response::builder().header("content-type", "application/x-ndjson").body(Body::from_stream(ticks)).unwrap()
        }),
    );
    let upstream = FakeUpstream::start(app).await;
    let proxy =
        start(&["--total-timeout-ms", "300", "--idle-timeout-ms", "10000"], &[("OLLAMA_HOST", upstream.base.clone())]);
    let response = post_json(proxy.endpoint("/api/chat/ollama"), "{}").send().await.unwrap();
    let text = body_text(response).await;
    let last = text.lines().last().unwrap();
    let error: serde_json::Value = serde_json::from_str(last).unwrap();
    assert!(error["error"].as_str().unwrap().contains("total time limit"), "{last}");
    assert!(text.lines().count() > 1, "the chunks before the cap arrived");
}

#[tokio::test]
async fn an_upstream_that_never_answers_gets_a_504() {
    let app = Router::new().route("/v1/chat/completions", post(std::future::pending::<&'static str>));
    let upstream = FakeUpstream::start(app).await;
    let proxy = start(&["--first-byte-timeout-ms", "200"], &openai_env(&upstream));
    let response = post_json(proxy.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
    assert_eq!(response.status(), 504);
    let body: serde_json::Value = serde_json::from_str(&body_text(response).await).unwrap();
    assert_eq!(body["error"]["message"], "The upstream did not answer in time.");
}

#[tokio::test]
async fn an_upstream_that_never_accepts_the_connection_gets_a_504() {
    // A listener with a backlog of 0, filled by connections never accepted: the next SYN gets no answer.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let address = listener.local_addr().unwrap();
    let fillers: Vec<_> =
        (0..3).map(|_| tokio::spawn(async move { tokio::net::TcpStream::connect(address).await })).collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let proxy = start(
        &["--connect-timeout-ms", "200"],
        &[("OPENAI_API_KEY", KEY.to_string()), ("OPENAI_BASE_URL", format!("http://{address}/v1"))],
    );
    let response = post_json(proxy.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
    assert_eq!(response.status(), 504);
    let body: serde_json::Value = serde_json::from_str(&body_text(response).await).unwrap();
    assert_eq!(body["error"]["message"], "Connecting to the upstream timed out.");
    fillers.iter().for_each(|f| f.abort());
    drop(listener);
}

#[tokio::test]
async fn an_unreachable_upstream_gets_a_502() {
    // Bound, then closed: nothing listens on the port.
    let address = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let proxy = start(&[], &[("OLLAMA_HOST", address.to_string())]);
    let response = post_json(proxy.endpoint("/api/chat/ollama"), "{}").send().await.unwrap();
    assert_eq!(response.status(), 502);
    assert_eq!(body_text(response).await, r#"{"error":"Could not reach the upstream."}"#);
}

#[tokio::test]
async fn a_reset_mid_event_ends_the_stream_there() {
    let sent: &[u8] =
        b"event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: content_block_delta\ndata: {\"ty";
    let app = Router::new().route(
        "/v1/messages",
        post(move || async move {
            // The first chunk, then (once it is surely on its way) a reset.
            let chunks =
                futures_util::stream::iter([Ok(Bytes::from_static(sent))]).chain(futures_util::stream::once(async {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset"))
                }));
            Response::builder().header("content-type", "text/event-stream").body(Body::from_stream(chunks)).unwrap()
        }),
    );
    let upstream = FakeUpstream::start(app).await;
    let proxy = start(&[], &[("ANTHROPIC_API_KEY", KEY.to_string()), ("ANTHROPIC_BASE_URL", upstream.base.clone())]);
    let response = post_json(proxy.endpoint("/api/chat/anthropic"), "{}").send().await.unwrap();
    // The half-written event is kept as it came and never completed: only the end of the stream discards it
    // (see src/cut.rs), so the stream ends there.
    assert_eq!(body_text(response).await.as_bytes(), sent);
}

#[tokio::test]
async fn without_a_grace_period_a_client_that_disconnects_closes_the_upstream_connection() {
    let (closed_tx, mut closed_rx) = mpsc::unbounded_channel::<()>();
    let app = Router::new().route(
        "/v1/responses",
        post(move || async move {
            let guard = OnDrop(closed_tx.clone());
            let ticks = futures_util::stream::unfold(guard, |guard| async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Some((Ok::<_, std::io::Error>(Bytes::from_static(b"event: ping\ndata: {}\n\n")), guard))
            });
            Response::builder().header("content-type", "text/event-stream").body(Body::from_stream(ticks)).unwrap()
        }),
    );
    let upstream = FakeUpstream::start(app).await;
    // With no grace period, nobody can resume the answer (see tests/resume.rs for one).
    let proxy = start(&["--resume-grace-ms", "0"], &openai_env(&upstream));
    let response = post_json(proxy.endpoint("/api/chat/openai-responses"), "{}").send().await.unwrap();
    let mut body = response.bytes_stream();
    assert!(next_chunk(&mut body).await.is_some());
    drop(body);
    tokio::time::timeout(Duration::from_secs(20), closed_rx.recv())
        .await
        .expect("the upstream response is dropped once the client is gone");
    // The access log line for it says so.
    let mut log = String::new();
    for _ in 0..100 {
        log = proxy.output();
        if log.contains("client went away") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(log.contains("path=/api/chat/openai-responses") && log.contains("client went away"), "{log}");
}

#[tokio::test]
async fn upstream_redirects_are_refused_not_followed() {
    let hits = Arc::new(Mutex::new(0));
    let counter = hits.clone();
    let app = Router::new()
        .route(
            "/v1/chat/completions",
            post(|| async {
                Response::builder().status(307).header("location", "/elsewhere").body(Body::empty()).unwrap()
            }),
        )
        .route(
            "/elsewhere",
            post(move || async move {
                *counter.lock().unwrap() += 1;
                "followed"
            }),
        );
    let upstream = FakeUpstream::start(app).await;
    let proxy = start(&[], &openai_env(&upstream));
    let response = post_json(proxy.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
    assert_eq!(response.status(), 502);
    assert!(response.headers().get("location").is_none());
    let body: serde_json::Value = serde_json::from_str(&body_text(response).await).unwrap();
    assert_eq!(body["error"]["message"], "The upstream answered with a redirect; not followed.");
    assert_eq!(*hits.lock().unwrap(), 0);
}

#[tokio::test]
async fn bodies_over_the_limit_get_413_and_never_go_upstream() {
    let (upstream, seen, _tx) = controlled_openai().await;
    let proxy = start(&["--body-limit", "1000"], &openai_env(&upstream));
    let big = format!(r#"{{"messages":[{{"role":"user","content":"{}"}}]}}"#, "x".repeat(2000));
    let response = post_json(proxy.endpoint("/api/chat/openai"), big).send().await.unwrap();
    assert_eq!(response.status(), 413);
    assert!(seen.lock().unwrap().is_empty());
}

/// Node's `fetch` (undici, which like browsers reads no answer before its body is sent) posting 60 MB of
/// JSON to `url`, as one string with its length and as a stream: what it reports, one line each.
fn node_fetch_60_mb(url: &str) -> String {
    let script = r#"
        const url = process.argv[1];
        const chunk = "x".repeat(1 << 20);
        const whole = JSON.stringify({ messages: [{ role: "user", content: chunk.repeat(60) }] });
        let sent = 0;
        const streamed = () => new ReadableStream({
            pull(c) { sent++ < 60 ? c.enqueue(new TextEncoder().encode(chunk)) : c.close(); },
        });
        for (const body of [whole, streamed()]) {
            try {
                const response = await fetch(url, {
                    method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half",
                });
                console.log(response.status, (await response.json()).error.message);
            } catch (err) {
                console.log("failed:", err.message, err.cause?.code);
            }
        }
    "#;
    let output = std::process::Command::new("node")
        .args(["--input-type=module", "-e", script, url])
        .output()
        .expect("node runs (Node 18 or later)");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test]
async fn a_body_far_over_the_limit_gets_its_413_read_by_the_client() {
    let (upstream, seen, _tx) = controlled_openai().await;
    let proxy = start(&[], &openai_env(&upstream));
    let url = proxy.endpoint("/api/chat/openai");
    for _ in 0..3 {
        let reported = tokio::task::spawn_blocking({
            let url = url.clone();
            move || node_fetch_60_mb(&url)
        })
        .await
        .unwrap();
        let expected = "413 The request body is larger than the proxy's limit (--body-limit).\n";
        assert_eq!(reported, expected.repeat(2));
    }
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_client_over_the_rate_limit_gets_429_with_retry_after() {
    let proxy = Proxy::start(&["--rate-limit", "2"], &[]);
    let send = || post_json(proxy.endpoint("/api/chat/openai"), r#"{"messages":[]}"#).send();
    assert_eq!(send().await.unwrap().status(), 200);
    assert_eq!(send().await.unwrap().status(), 200);
    let limited = send().await.unwrap();
    assert_eq!(limited.status(), 429);
    let retry_after: u64 = limited.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    // Static files are not chat requests: not counted.
    assert_ne!(client().get(proxy.url.clone()).send().await.unwrap().status(), 429);
}

#[tokio::test]
async fn bad_requests_unknown_routes_and_cors() {
    let proxy = Proxy::start(&[], &[]);
    let response = post_json(proxy.endpoint("/api/chat/openai"), "{not json").send().await.unwrap();
    assert_eq!(response.status(), 400);
    let response = post_json(proxy.endpoint("/api/chat/openai"), "[1, 2]").send().await.unwrap();
    assert_eq!(response.status(), 400);
    for path in ["/api/chat/unknown", "/api/other", "/no-such-file.js", "/pkg/no-such-file.wasm"] {
        let method = if path.starts_with("/api") { reqwest::Method::POST } else { reqwest::Method::GET };
        let response = client().request(method, proxy.endpoint(path)).body("{}").send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let preflight = client()
        .request(reqwest::Method::OPTIONS, proxy.endpoint("/api/chat/openai"))
        .header("origin", "http://evil.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(preflight.headers().get("access-control-allow-origin").is_none());

    let proxy = Proxy::start(&["--cors-origin", "http://localhost:5173"], &[]);
    let response = client()
        .post(proxy.endpoint("/api/chat/openai"))
        .header("origin", "http://localhost:5173")
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["access-control-allow-origin"], "http://localhost:5173");
}

#[tokio::test]
async fn keys_never_appear_in_responses_or_logs() {
    // Every path a key could leak through: success, upstream error, unreachable upstream, timeout.
    let app = Router::new()
        .route("/v1/chat/completions", post(|| async { "data: [DONE]\n\n" }))
        .route(
            "/v1/responses",
            post(|| async {
                Response::builder().status(401).body(Body::from(r#"{"error":{"message":"bad key"}}"#)).unwrap()
            }),
        )
        .route("/v1/messages", post(std::future::pending::<&'static str>));
    let upstream = FakeUpstream::start(app).await;
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let proxy = start(
        &["--first-byte-timeout-ms", "200"],
        &[
            ("OPENAI_API_KEY", KEY.to_string()),
            ("OPENAI_BASE_URL", format!("{}/v1", upstream.base)),
            ("ANTHROPIC_API_KEY", KEY.to_string()),
            ("ANTHROPIC_BASE_URL", upstream.base.clone()),
            ("COMPAT_BASE_URL", format!("http://{closed}/v1")),
            ("COMPAT_API_KEY", KEY.to_string()),
            ("GEMINI_API_KEY", KEY.to_string()),
            ("GEMINI_BASE_URL", format!("http://{closed}/v1beta")),
        ],
    );
    let mut captured = String::new();
    for route in ["openai", "openai-responses", "anthropic", "compat", "gemini"] {
        let response = post_json(proxy.endpoint(&format!("/api/chat/{route}")), "{}").send().await.unwrap();
        captured.push_str(&format!("{:?}\n", response.headers()));
        captured.push_str(&body_text(response).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let log = proxy.output();
    assert_eq!(log.matches("path=/api/chat/").count(), 5, "one log line per request: {log}");
    captured.push_str(&log);
    assert!(!captured.contains("CANARY"), "a key leaked:\n{captured}");
}

#[tokio::test]
async fn the_agent_route_and_compat_forward_to_their_configured_urls() {
    let seen = SeenLog::default();
    let (agent_log, compat_log) = (seen.clone(), seen.clone());
    let app = Router::new()
        .route(
            "/backend/chat",
            post(move |uri: axum::http::Uri, headers: HeaderMap, body: Bytes| async move {
                record(&agent_log, &uri, &headers, body);
                "data: {\"type\":\"status\",\"message\":\"Thinking...\"}\n\n"
            }),
        )
        .route(
            "/compat/v1/chat/completions",
            post(move |uri: axum::http::Uri, headers: HeaderMap, body: Bytes| async move {
                record(&compat_log, &uri, &headers, body);
                "data: [DONE]\n\n"
            }),
        );
    let upstream = FakeUpstream::start(app).await;
    let proxy = start(
        &[],
        &[
            ("AGENT_BACKEND_URL", format!("{}/backend/chat", upstream.base)),
            ("COMPAT_BASE_URL", format!("{}/compat/v1/", upstream.base)),
            ("COMPAT_API_KEY", KEY.to_string()),
        ],
    );
    let agent_body = r#"{"message":"hi","conversation_id":7}"#;
    let response = post_json(proxy.endpoint("/api/chat/stream"), agent_body).send().await.unwrap();
    assert_eq!(body_text(response).await, "data: {\"type\":\"status\",\"message\":\"Thinking...\"}\n\n");
    let response = post_json(proxy.endpoint("/api/chat/compat"), "{}").send().await.unwrap();
    assert_eq!(body_text(response).await, "data: [DONE]\n\n");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].uri, "/backend/chat");
    assert_eq!(seen[0].body, agent_body.as_bytes());
    assert_eq!(seen[1].uri, "/compat/v1/chat/completions");
    assert_eq!(seen[1].headers["authorization"], format!("Bearer {KEY}"));
}

#[tokio::test]
async fn the_provider_list_says_which_routes_are_real_and_shows_no_secret() {
    let upstream = FakeUpstream::start(Router::new()).await;
    let proxy = start(&[], &openai_env(&upstream));
    let response = client().get(proxy.endpoint("/api/providers")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(!text.contains(KEY) && !text.contains(&upstream.base), "{text}");
    let listed: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(listed["openai"], "configured");
    assert_eq!(listed["openai-responses"], "configured", "the same key serves both OpenAI routes");
    assert_eq!(listed["anthropic"], "simulated");
    assert_eq!(listed["stream"], "simulated");
}
