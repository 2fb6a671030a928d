//! `--resume-store redis://…`: two proxies on one real `redis-server` (Debian's package; `./build.sh`
//! installs it): an answer one proxy reads from its upstream is resumed, and stopped, through the other.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use axum::body::Bytes;
use common::{client, frame, post_json, upstream, Answer, Proxy};
use futures_util::StreamExt;

/// A `redis-server` on a free loopback port, with nothing saved to disk; stopped when dropped.
struct RedisServer {
    url: String,
    child: Child,
}

impl RedisServer {
    async fn start() -> RedisServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server runs (./build.sh installs Debian's redis-server)");
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return RedisServer { url: format!("redis://127.0.0.1:{port}"), child };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis-server did not start listening");
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn next(body: &mut (impl futures_util::Stream<Item = reqwest::Result<Bytes>> + Unpin)) -> Option<Bytes> {
    tokio::time::timeout(Duration::from_secs(20), body.next()).await.expect("no hang").map(|chunk| chunk.unwrap())
}

#[tokio::test]
async fn an_answer_read_by_one_proxy_is_resumed_and_stopped_through_another() {
    let redis = RedisServer::start().await;
    let (upstream, mut answers) = upstream(2).await;
    let base = format!("{}/v1", upstream.base);
    let env = [("OPENAI_API_KEY", "sk-test-CANARY-5c1d9e"), ("OPENAI_BASE_URL", base.as_str())];
    let args = ["--resume-store", redis.url.as_str()];
    let (one, other) = (Proxy::start(&args, &env), Proxy::start(&args, &env));

    // Started on one proxy, cut after the first frame.
    let response = post_json(one.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
    let id = response.headers()["x-stream-id"].to_str().unwrap().to_string();
    let Answer { send, .. } = answers.remove(0);
    send.send(frame("Once")).unwrap();
    let mut body = response.bytes_stream();
    let mut received = next(&mut body).await.unwrap().to_vec();
    drop(body);
    send.send(frame(" upon")).unwrap();
    // Resumed on the other: what the first had stored, then live.
    let url = other.endpoint(&format!("/api/chat/openai/streams/{id}?from={}", received.len()));
    let resumed = client().get(url).send().await.unwrap();
    assert_eq!(resumed.status(), 200, "{}", other.output());
    let mut rest = resumed.bytes_stream();
    while received.len() < [frame("Once"), frame(" upon")].concat().len() {
        received.extend_from_slice(&next(&mut rest).await.unwrap());
    }
    send.send(frame(" a time")).unwrap();
    drop(send);
    while let Some(chunk) = next(&mut rest).await {
        received.extend_from_slice(&chunk);
    }
    assert_eq!(received, [frame("Once"), frame(" upon"), frame(" a time")].concat());

    // Stopped through the other proxy: the first drops its upstream at once (its grace period is a minute).
    let response = post_json(one.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
    let id = response.headers()["x-stream-id"].to_str().unwrap().to_string();
    let Answer { send, mut dropped } = answers.remove(0);
    send.send(frame("Hello")).unwrap();
    let stop = client().delete(other.endpoint(&format!("/api/chat/openai/streams/{id}"))).send().await.unwrap();
    assert_eq!(stop.status(), 204);
    tokio::time::timeout(Duration::from_secs(20), dropped.recv()).await.expect("the stop reaches the first proxy");
    let gone = client().get(other.endpoint(&format!("/api/chat/openai/streams/{id}"))).send().await.unwrap();
    assert_eq!(gone.status(), 404);
    let unknown = client().get(other.endpoint("/api/chat/anthropic/streams/0123")).send().await.unwrap();
    assert_eq!(unknown.status(), 404);
}
