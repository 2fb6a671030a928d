//! `chatstream-proxy`: serves the demo and forwards chat requests to providers, or simulates them.

#[macro_use]
mod ordered;
mod config;
mod limits;
mod provider;
mod routes;
mod simulate;
mod upstream;

use std::io::Write;
use std::net::SocketAddr;

use clap::Parser;

use crate::config::{Args, Config};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // Logs go to stderr: stdout's first line is the URL, for scripts to read.
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(colour).with_target(false).init();
    let config = Config::from_args(Args::parse(), |name| std::env::var(name).ok());
    let listener = tokio::net::TcpListener::bind((config.host, config.port)).await?;
    let address = listener.local_addr()?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "http://{address}/")?;
    stdout.flush()?;
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
    let app = routes::router(config);
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
