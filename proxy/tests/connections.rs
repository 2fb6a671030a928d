//! What a client connection may hold: headers sent too slowly, idle connections, too many connections,
//! a response the client never reads past the total time limit; the rate limit's idea of a client; and how
//! the proxy starts (no compiled-in folders, a clear word when its port is taken).

mod common;

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use common::{client, post_json, FakeUpstream, OnDrop, Proxy};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// Whether the proxy closes `socket` within `limit`, reading (and dropping) whatever it still sends.
async fn closed_within(socket: &mut TcpStream, limit: Duration) -> bool {
    let mut buf = [0u8; 16 * 1024];
    let read_to_end = async {
        loop {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(limit, read_to_end).await.is_ok()
}

fn get_providers(proxy: &Proxy) -> String {
    format!("GET /api/providers HTTP/1.1\r\nHost: {}\r\n\r\n", proxy.address())
}

/// Sends one keep-alive request and reads its whole answer (a small JSON body, one read is plenty).
async fn one_request(socket: &mut TcpStream, request: &str) {
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut buf = [0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(20), socket.read(&mut buf)).await.unwrap().unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&buf[..n]));
}

#[tokio::test]
async fn headers_sent_a_byte_at_a_time_are_cut_off() {
    let proxy = Proxy::start(&["--header-timeout-ms", "300", "--keep-alive-timeout-ms", "60000"], &[]);
    let mut socket = TcpStream::connect(proxy.address()).await.unwrap();
    socket.write_all(b"GET /api/providers HTTP/1.1\r\n").await.unwrap();
    // A header byte every 50 ms, for up to 20 s: only the header timeout can end it.
    let mut closed = false;
    for _ in 0..400 {
        if socket.write_all(b"X").await.is_err() || closed_within(&mut socket, Duration::from_millis(50)).await {
            closed = true;
            break;
        }
    }
    assert!(closed, "the connection is still open after 20 s of trickled headers");
}

#[tokio::test]
async fn idle_connections_are_closed() {
    let proxy = Proxy::start(&["--keep-alive-timeout-ms", "300", "--header-timeout-ms", "60000"], &[]);
    // One that never sends a byte, and one idle after a request.
    let mut silent = TcpStream::connect(proxy.address()).await.unwrap();
    let mut after_request = TcpStream::connect(proxy.address()).await.unwrap();
    one_request(&mut after_request, &get_providers(&proxy)).await;
    assert!(closed_within(&mut silent, Duration::from_secs(20)).await, "a silent connection stays open");
    assert!(closed_within(&mut after_request, Duration::from_secs(20)).await, "an idle keep-alive stays open");
}

#[tokio::test]
async fn connections_past_the_cap_wait_until_one_closes() {
    let proxy = Proxy::start(
        &["--max-connections", "2", "--keep-alive-timeout-ms", "60000", "--header-timeout-ms", "60000"],
        &[],
    );
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut socket = TcpStream::connect(proxy.address()).await.unwrap();
        one_request(&mut socket, &get_providers(&proxy)).await;
        held.push(socket);
    }
    let third = tokio::spawn(client().get(proxy.endpoint("/api/providers")).send());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!third.is_finished(), "a third connection was served while two were open");
    drop(held.pop());
    let answered = tokio::time::timeout(Duration::from_secs(20), third).await.expect("served once one closed");
    assert_eq!(answered.unwrap().unwrap().status(), 200);
}

#[tokio::test]
async fn the_total_time_limit_drops_the_upstream_of_a_client_that_never_reads() {
    let (dropped_tx, mut dropped) = mpsc::unbounded_channel::<()>();
    // An upstream that streams as fast as it can, forever.
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move || async move {
            let frame = Bytes::from(format!("data: {{\"pad\":\"{}\"}}\n\n", "x".repeat(16 * 1024)));
            let body = futures_util::stream::unfold(OnDrop(dropped_tx.clone()), move |guard| {
                let frame = frame.clone();
                async move {
                    tokio::task::yield_now().await;
                    Some((Ok::<_, std::io::Error>(frame), guard))
                }
            });
            Response::builder().header("content-type", "text/event-stream").body(Body::from_stream(body)).unwrap()
        }),
    );
    let upstream = FakeUpstream::start(app).await;
    let base = format!("{}/v1", upstream.base);
    let proxy = Proxy::start(
        &["--total-timeout-ms", "500", "--idle-timeout-ms", "500", "--keep-alive-timeout-ms", "500"],
        &[("OPENAI_API_KEY", "sk-test"), ("OPENAI_BASE_URL", &base)],
    );
    // A client with a small receive buffer that sends its request and never reads.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut socket = socket.connect(proxy.address().parse().unwrap()).await.unwrap();
    let request = format!(
        "POST /api/chat/openai HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}",
        proxy.address()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let dropped = tokio::time::timeout(Duration::from_secs(20), dropped.recv()).await;
    assert!(dropped.is_ok(), "the upstream connection is still open after the total time limit: {}", proxy.output());
    // The connection of the client that never read is closed too: at the latest once it has taken nothing
    // for the keep-alive timeout.
    assert!(closed_within(&mut socket, Duration::from_secs(20)).await);
}

#[tokio::test]
async fn all_of_loopback_counts_as_one_client() {
    let proxy = Proxy::start(&["--rate-limit", "2"], &[]);
    let body = r#"{"messages":[]}"#;
    for _ in 0..2 {
        assert_eq!(post_json(proxy.endpoint("/api/chat/openai"), body).send().await.unwrap().status(), 200);
    }
    let other_loopback = reqwest::Client::builder().no_proxy().local_address("127.0.0.2".parse().ok()).build().unwrap();
    let response = other_loopback
        .post(proxy.endpoint("/api/chat/openai"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
}

#[tokio::test]
async fn no_static_files_without_www_and_pkg() {
    let proxy = Proxy::start(&[], &[]);
    for path in ["/", "/index.html", "/app.js", "/pkg/index.js"] {
        assert_eq!(client().get(proxy.endpoint(path)).send().await.unwrap().status(), 404, "{path}");
    }
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_chatstream-proxy")).arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let www = help.split("--www").nth(1).unwrap().split("--pkg").next().unwrap();
    assert!(!www.contains("[default"), "--www has a compiled-in default:{www}");
}

#[tokio::test]
async fn a_port_in_use_is_named_with_how_to_choose_another() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_chatstream-proxy"))
        .args(["--port", &port])
        .env_clear()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut waited = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if waited == 200 {
            let _ = child.kill();
            panic!("the proxy did not exit with its port taken");
        }
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!status.success());
    assert!(stderr.contains(&format!("port {port}")) && stderr.contains("--port"), "{stderr}");
    assert!(output.stdout.is_empty(), "no URL printed: {:?}", String::from_utf8_lossy(&output.stdout));
    drop(taken);
}
