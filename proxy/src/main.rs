//! `chatstream-proxy`: serves the demo and forwards chat requests to providers, or simulates them.

#[macro_use]
mod ordered;
mod access;
mod config;
mod cut;
mod limits;
mod provider;
mod redact;
mod resume;
mod resume_redis;
mod routes;
mod server;
mod simulate;
mod static_files;
mod upstream;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::config::{Args, Config};

#[tokio::main]
async fn main() -> ExitCode {
    // Logs go to stderr: stdout's first line is the URL, for scripts to read.
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(colour).with_target(false).init();
    let config = Config::from_args(Args::parse(), |name| std::env::var(name).ok());
    // Before the URL is printed: a proxy that cannot use its store does not start.
    let mirror = match config.resume_store.as_deref() {
        None => None,
        Some(url) => match resume_redis::RedisMirror::connect(url, config.resume.grace, config.limits.total).await {
            Ok(mirror) => Some(mirror),
            Err(err) => {
                // Not the URL: it may hold a password.
                eprintln!("chatstream-proxy: cannot reach the resume store (--resume-store): {err}");
                return ExitCode::FAILURE;
            }
        },
    };
    let listener = match tokio::net::TcpListener::bind((config.host, config.port)).await {
        Ok(listener) => listener,
        Err(err) => {
            let address = std::net::SocketAddr::new(config.host, config.port);
            let hint = match err.kind() {
                std::io::ErrorKind::AddrInUse => format!(
                    "port {} is already in use on {}; choose another with --port <PORT> (or PROXY_PORT), \
                     or --port 0 for any free port",
                    config.port, config.host
                ),
                _ => format!("cannot listen on {address}: {err}"),
            };
            eprintln!("chatstream-proxy: {hint}");
            return ExitCode::FAILURE;
        }
    };
    let Ok(address) = listener.local_addr() else { return ExitCode::FAILURE };
    let mut stdout = std::io::stdout();
    if writeln!(stdout, "http://{address}/").and_then(|()| stdout.flush()).is_err() {
        return ExitCode::FAILURE;
    }
    let upstreams = &config.upstreams;
    for (name, configured) in [
        ("openai", upstreams.openai.is_some()),
        ("openai-responses", upstreams.openai_responses.is_some()),
        ("anthropic", upstreams.anthropic.is_some()),
        ("gemini", upstreams.gemini.is_some()),
        ("ollama", upstreams.ollama.is_some()),
        ("compat", upstreams.compat.is_some()),
        ("agent (/api/chat/stream)", upstreams.agent.is_some()),
    ] {
        tracing::info!("{name}: {}", if configured { "forwarded" } else { "simulated" });
    }
    for (name, key) in &config.keys.0 {
        if key.len() < redact::MIN_KEY {
            tracing::warn!(
                "{name} is too short to be a secret ({} characters; a placeholder such as EMPTY?): answers that \
                 contain it are passed on unredacted. Keys of {} characters or more are redacted.",
                key.len(),
                redact::MIN_KEY
            );
        }
    }
    let connections = config.connections;
    let app = routes::router(config, address, mirror);
    tokio::select! {
        () = server::serve(listener, app, connections) => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    ExitCode::SUCCESS
}
