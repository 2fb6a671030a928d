//! The simulated provider's memory per connection stays small whatever the request, for clients that
//! never read their answer: the answer is written as it is read, and what it repeats from the request is
//! bounded.

mod common;

use std::time::Duration;

use common::Proxy;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn vm_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or_default();
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// Sends `body` to `path` and reads only the status line: the answer is then left unread.
async fn request_and_stop_reading(proxy: &Proxy, path: &str, body: &str) -> (TcpStream, String) {
    let mut socket = TcpStream::connect(proxy.address()).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        proxy.address(),
        body.len()
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    socket.write_all(body.as_bytes()).await.unwrap();
    let mut status = [0u8; 12];
    tokio::time::timeout(Duration::from_secs(20), socket.read_exact(&mut status)).await.unwrap().unwrap();
    (socket, String::from_utf8_lossy(&status).into_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn clients_that_never_read_cost_little_memory() {
    let proxy = Proxy::start(&["--body-limit", "2000000", "--rate-limit", "0", "--sim-delay-ms", "0"], &[]);
    // Settle the allocator with one small answer first.
    drop(request_and_stop_reading(&proxy, "/api/chat/openai", r#"{"messages":[]}"#).await);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = vm_rss_kb(proxy.pid());

    let megabyte = "x".repeat(1_000_000);
    // A model name of a megabyte, which every frame would repeat: refused.
    let big_model = format!(r#"{{"model":"{megabyte}","messages":[{{"role":"user","content":"hi"}}]}}"#);
    // A prompt of a megabyte, quoted only in part: served, and then never read.
    let big_prompt = format!(r#"{{"model":"m","messages":[{{"role":"user","content":"{megabyte}"}}]}}"#);
    let mut held = Vec::new();
    for i in 0..20 {
        let route = ["openai", "anthropic", "openai-responses", "gemini", "ollama"][i % 5];
        let (socket, status) = request_and_stop_reading(&proxy, &format!("/api/chat/{route}"), &big_model).await;
        assert_eq!(status, "HTTP/1.1 400", "{route}");
        held.push(socket);
        let (socket, status) = request_and_stop_reading(&proxy, &format!("/api/chat/{route}"), &big_prompt).await;
        assert_eq!(status, "HTTP/1.1 200", "{route}");
        held.push(socket);
    }
    let grown_mb = vm_rss_kb(proxy.pid()).saturating_sub(before) / 1024;
    // Each request passed through a megabyte body once; what stays per connection is small. (Repeating a
    // megabyte model in every frame held about 30 MB per connection.)
    assert!(grown_mb < 100, "40 unread answers grew the proxy by {grown_mb} MB");
    drop(held);
}
