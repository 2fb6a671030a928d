//! Test harness: the proxy binary on a free loopback port (stdout and stderr captured), and fake upstreams
//! (axum servers on free loopback ports, stopped when dropped).

#![allow(dead_code)] // Each test file uses its own part of the harness.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

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
