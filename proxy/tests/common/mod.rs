//! Test harness: the proxy binary on a free loopback port (stdout and stderr captured), and fake upstreams
//! (axum servers on free loopback ports, stopped when dropped).

#![allow(dead_code)] // Each test file uses its own part of the harness.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chatstream::event::StreamEvent;
use chatstream::stream::{ChatStream, StreamOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub struct Proxy {
    pub url: String,
    child: Child,
    output: Arc<Mutex<String>>,
}

impl Proxy {
    /// Starts the proxy with `args` and exactly the environment `env` (nothing inherited, so no stray key
    /// or proxy setting of the machine running the tests changes the outcome). Simulated streams are
    /// unpaced unless `args` set `--sim-delay-ms`.
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> Proxy {
        let pace: &[&str] = if args.contains(&"--sim-delay-ms") { &[] } else { &["--sim-delay-ms", "0"] };
        let mut child = Command::new(env!("CARGO_BIN_EXE_chatstream-proxy"))
            .args(["--port", "0"])
            .args(pace)
            .args(args)
            .env_clear()
            .envs(env.iter().copied())
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the proxy binary starts");
        let output = Arc::new(Mutex::new(String::new()));
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).expect("the proxy prints its URL");
        let url = first.trim().to_string();
        if url.is_empty() {
            let mut stderr = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
            panic!("the proxy did not start: {stderr}");
        }
        assert!(url.starts_with("http://127.0.0.1:") && url.ends_with('/'), "first stdout line: {url:?}");
        output.lock().unwrap().push_str(&first);
        for mut stream in [Box::new(stdout) as Box<dyn Read + Send>, Box::new(child.stderr.take().unwrap())] {
            let output = output.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = stream.read(&mut buf) {
                    output.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        Proxy { url, child, output }
    }

    /// `127.0.0.1:PORT`, the proxy's own `Host`.
    pub fn address(&self) -> &str {
        self.url.trim_start_matches("http://").trim_end_matches('/')
    }

    pub fn endpoint(&self, path: &str) -> String {
        format!("{}{}", self.url, path.trim_start_matches('/'))
    }

    /// The proxy's process id (to read its memory from /proc).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything the proxy wrote to stdout and stderr so far.
    pub fn output(&self) -> String {
        self.output.lock().unwrap().clone()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP client for the tests: no system proxy, redirects not followed (to see what the proxy answers).
pub fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// A chat request as apps send it: a JSON body, declared as JSON.
pub fn post_json(url: impl reqwest::IntoUrl, body: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
    client().post(url).header("content-type", "application/json").body(body)
}

pub struct FakeUpstream {
    pub base: String,
    task: tokio::task::JoinHandle<()>,
}

impl FakeUpstream {
    pub async fn start(app: axum::Router) -> FakeUpstream {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        FakeUpstream { base, task }
    }
}

/// Signals on its channel when dropped. Held by a fake upstream's response body, which hyper drops when
/// the connection to the proxy goes away.
pub struct OnDrop(pub tokio::sync::mpsc::UnboundedSender<()>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

impl Drop for FakeUpstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads a whole response body, with a generous guard so a hang fails the test instead of blocking it.
pub async fn body_text(response: reqwest::Response) -> String {
    tokio::time::timeout(std::time::Duration::from_secs(20), response.text())
        .await
        .expect("the body ends (no hang)")
        .expect("the body reads")
}

/// Sends `request` (raw HTTP/1.1, which should say `Connection: close`) to `address` and returns all the
/// proxy answered, head and body, as text.
pub async fn raw_exchange(address: &str, request: &str) -> String {
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), socket.read_to_end(&mut answer))
        .await
        .expect("the answer ends (no hang)")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

/// What a raw upstream does, in order, once it has read a request.
pub enum Step {
    Send(Vec<u8>),
    Pause(Duration),
    /// Keeps the connection open and silent.
    Hang,
}

pub fn send(bytes: impl AsRef<[u8]>) -> Step {
    Step::Send(bytes.as_ref().to_vec())
}

/// An upstream that writes exactly the bytes it is given (status line and headers included), each
/// `Send` as its own write, on every connection; then closes it. Stopped when dropped.
pub struct RawUpstream {
    pub base: String,
    task: tokio::task::JoinHandle<()>,
}

impl RawUpstream {
    pub async fn start(script: Vec<Step>) -> RawUpstream {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let script = Arc::new(script);
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((mut socket, _)) = listener.accept().await {
                let script = script.clone();
                connections.spawn(async move {
                    read_request(&mut socket).await;
                    for step in script.iter() {
                        match step {
                            Step::Send(bytes) => {
                                if socket.write_all(bytes).await.is_err() {
                                    return;
                                }
                                let _ = socket.flush().await;
                            }
                            Step::Pause(pause) => tokio::time::sleep(*pause).await,
                            Step::Hang => std::future::pending::<()>().await,
                        }
                    }
                });
            }
        });
        RawUpstream { base, task }
    }
}

/// Reads a request's head and its `Content-Length` body.
async fn read_request(socket: &mut tokio::net::TcpStream) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    let end = seen.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
    let length: usize =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let mut body = seen.len() - end;
    while body < length {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => body += n,
        }
    }
}

impl Drop for RawUpstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The chunks of a response as `chatstream` reads them (dialect detected from the content type and the
/// first frames), and their events.
pub fn decode(content_type: Option<&str>, chunks: &[bytes::Bytes]) -> Vec<StreamEvent> {
    let mut stream =
        ChatStream::new(StreamOptions { content_type: content_type.map(str::to_string), ..StreamOptions::default() });
    let mut events = Vec::new();
    for chunk in chunks {
        stream.push(chunk, &mut events);
    }
    stream.finish(&mut events);
    events
}

/// A response's body chunks as they arrived, with a guard against a hang.
pub async fn chunks(response: reqwest::Response) -> Vec<bytes::Bytes> {
    use futures_util::StreamExt;
    let mut body = response.bytes_stream();
    let mut chunks = Vec::new();
    while let Some(chunk) = tokio::time::timeout(Duration::from_secs(20), body.next()).await.expect("no hang") {
        chunks.push(chunk.unwrap());
    }
    chunks
}

/// One upstream answer under the test's control: frames go in through `send`, dropping `send` ends the
/// answer, and `dropped` hears when the proxy let go of it (ended or cancelled).
pub struct Answer {
    pub send: tokio::sync::mpsc::UnboundedSender<bytes::Bytes>,
    pub dropped: tokio::sync::mpsc::UnboundedReceiver<()>,
}

/// An OpenAI upstream that answers its requests with the given answers' streams, in order.
pub async fn upstream(count: usize) -> (FakeUpstream, Vec<Answer>) {
    let mut answers = Vec::new();
    let mut streams = std::collections::VecDeque::new();
    for _ in 0..count {
        let (send, frames) = tokio::sync::mpsc::unbounded_channel::<bytes::Bytes>();
        let (dropped_tx, dropped) = tokio::sync::mpsc::unbounded_channel();
        answers.push(Answer { send, dropped });
        streams.push_back((frames, OnDrop(dropped_tx)));
    }
    let streams = Arc::new(Mutex::new(streams));
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move || async move {
            let stream = streams.lock().unwrap().pop_front().expect("one answer per request");
            let body = futures_util::stream::unfold(stream, |(mut frames, guard)| async move {
                let frame = frames.recv().await?;
                Some((Ok::<_, std::io::Error>(frame), (frames, guard)))
            });
            axum::response::Response::builder()
                .header("content-type", "text/event-stream")
                .body(axum::body::Body::from_stream(body))
                .unwrap()
        }),
    );
    (FakeUpstream::start(app).await, answers)
}

/// An OpenAI chat completions frame with `text` as its delta.
pub fn frame(text: &str) -> bytes::Bytes {
    bytes::Bytes::from(format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n"))
}
