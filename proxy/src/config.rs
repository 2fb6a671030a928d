//! Flags and environment → [`Config`]: where each provider lives and how the proxy protects itself.
//!
//! Keys are read from the environment only, never from flags: a flag shows up in `ps` and shell history.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

/// The thin proxy for chatstream: forwards chat requests to the configured providers and answers every
/// other provider with an offline simulated one.
///
/// Keys come from the environment only: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY (or
/// GOOGLE_API_KEY), COMPAT_API_KEY. A provider without its key (or URL) is simulated. A key an upstream
/// echoes is redacted from answers, whole; one shorter than 16 characters (a placeholder such as EMPTY) is
/// not, and the proxy says so at start-up.
#[derive(Debug, Parser)]
#[command(name = "chatstream-proxy", version)]
pub struct Args {
    /// Address to listen on. Loopback by default: the proxy spends your keys.
    #[arg(long, env = "PROXY_HOST", default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Port to listen on; 0 picks a free one (the first stdout line says which).
    #[arg(long, env = "PROXY_PORT", default_value_t = 8787)]
    pub port: u16,
    /// Another name the proxy answers to in the `Host` header, besides its listen address, localhost,
    /// 127.0.0.1 and [::1] (with its port). `NAME` allows NAME and NAME:PORT; `NAME:PORT` only that.
    /// Repeatable. Any other Host is refused (421), so a DNS-rebinding page cannot reach the proxy. While the
    /// proxy listens on loopback, loopback names (localhost, 127.x.x.x, [::1]) on any port need no flag: a dev
    /// server such as Vite's forwards its own.
    #[arg(long = "allowed-host", env = "PROXY_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,
    /// Directory served at `/` (the demo page). No static files when unset.
    #[arg(long, env = "PROXY_WWW")]
    pub www: Option<PathBuf>,
    /// Directory served at `/pkg/` (the wasm package). No static files there when unset.
    #[arg(long, env = "PROXY_PKG")]
    pub pkg: Option<PathBuf>,
    /// Allow cross-origin requests from this origin, with CORS headers (e.g. http://app.example:3000). When
    /// unset: the proxy's own origin only, and, while it listens on loopback, loopback origins on any port
    /// (without CORS headers: a dev server's proxy needs none).
    #[arg(long, env = "PROXY_CORS_ORIGIN")]
    pub cors_origin: Option<String>,

    /// OpenAI base URL (chat completions and responses are under it). Used when OPENAI_API_KEY is set.
    #[arg(long, env = "OPENAI_BASE_URL", default_value = "https://api.openai.com/v1")]
    pub openai_base_url: String,
    /// Anthropic base URL. Used when ANTHROPIC_API_KEY is set.
    #[arg(long, env = "ANTHROPIC_BASE_URL", default_value = "https://api.anthropic.com")]
    pub anthropic_base_url: String,
    /// Gemini base URL. Used when GEMINI_API_KEY or GOOGLE_API_KEY is set.
    #[arg(long, env = "GEMINI_BASE_URL", default_value = "https://generativelanguage.googleapis.com/v1beta")]
    pub gemini_base_url: String,
    /// Gemini model used when the request body has no `model` field.
    #[arg(long, env = "GEMINI_MODEL", default_value = "gemini-2.5-flash")]
    pub gemini_model: String,
    /// Ollama server (e.g. http://127.0.0.1:11434). Simulated when unset.
    #[arg(long, env = "OLLAMA_HOST")]
    pub ollama_host: Option<String>,
    /// Base URL of an OpenAI-compatible server for /api/chat/compat (its key: COMPAT_API_KEY, optional).
    #[arg(long, env = "COMPAT_BASE_URL")]
    pub compat_base_url: Option<String>,
    /// Full URL of an agent backend for /api/chat/stream. Simulated when unset.
    #[arg(long, env = "AGENT_BACKEND_URL")]
    pub agent_backend_url: Option<String>,

    /// Delay between simulated chunks, in milliseconds.
    #[arg(long, env = "PROXY_SIM_DELAY_MS", default_value_t = 20)]
    pub sim_delay_ms: u64,
    /// Largest accepted request body, in bytes. A larger one is read on and thrown away (up to 100 MiB, within
    /// the header timeout) so that the client, a browser's fetch too, reads the 413; then the connection closes.
    #[arg(long, env = "PROXY_BODY_LIMIT", default_value_t = 1024 * 1024)]
    pub body_limit: usize,
    /// Chat requests allowed per client address per minute (more: 429 with Retry-After). 0 disables.
    #[arg(long, env = "PROXY_RATE_LIMIT", default_value_t = 60)]
    pub rate_limit: u32,
    /// Upstream connect timeout, in milliseconds.
    #[arg(long, env = "PROXY_CONNECT_TIMEOUT_MS", default_value_t = 10_000)]
    pub connect_timeout_ms: u64,
    /// Time allowed until the upstream's response headers, in milliseconds.
    #[arg(long, env = "PROXY_FIRST_BYTE_TIMEOUT_MS", default_value_t = 60_000)]
    pub first_byte_timeout_ms: u64,
    /// Longest silence allowed between two chunks of a stream, in milliseconds.
    #[arg(long, env = "PROXY_IDLE_TIMEOUT_MS", default_value_t = 60_000)]
    pub idle_timeout_ms: u64,
    /// Cap on a whole request, in milliseconds.
    #[arg(long, env = "PROXY_TOTAL_TIMEOUT_MS", default_value_t = 600_000)]
    pub total_timeout_ms: u64,

    /// Time a client has to send a request's headers, from their first byte, in milliseconds; then the
    /// connection is closed. A chat request's body has as long again once its headers are in (then 408).
    #[arg(long, env = "PROXY_HEADER_TIMEOUT_MS", default_value_t = 10_000)]
    pub header_timeout_ms: u64,
    /// How long a connection may sit idle, with no request under way (a new one too), in milliseconds.
    #[arg(long, env = "PROXY_KEEP_ALIVE_TIMEOUT_MS", default_value_t = 30_000)]
    pub keep_alive_timeout_ms: u64,
    /// Most client connections open at once; more wait to be accepted. Each chat stream also holds an
    /// upstream connection, so keep twice this under the open-file limit (`ulimit -n`).
    #[arg(long, env = "PROXY_MAX_CONNECTIONS", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,

    /// How long a streamed answer is kept after its last reader went away, in milliseconds, for a client to
    /// resume it (`GET` on its stream URL); the upstream is dropped only once this passes with nobody
    /// reading. 0: dropped as soon as the client goes away, and a finished answer is not kept.
    #[arg(long, env = "PROXY_RESUME_GRACE_MS", default_value_t = 60_000)]
    pub resume_grace_ms: u64,
    /// Most bytes kept of one answer for resuming (16 MiB). A longer answer still reaches the clients
    /// reading it, but is no longer resumable.
    #[arg(long, env = "PROXY_RESUME_STREAM_BYTES", default_value_t = 16 << 20)]
    pub resume_stream_bytes: usize,
    /// Most bytes kept of all answers together (256 MiB). An answer that would pass it is no longer
    /// resumable.
    #[arg(long, env = "PROXY_RESUME_TOTAL_BYTES", default_value_t = 256 << 20)]
    pub resume_total_bytes: usize,
    /// Where answers are kept for resuming: in this proxy's memory (unset), or also in Redis
    /// (`redis://host:port`), so that any proxy using the same Redis can resume or stop an answer another
    /// one is reading (several proxies behind one address, without sticky sessions).
    #[arg(long, env = "PROXY_RESUME_STORE")]
    pub resume_store: Option<String>,
}

/// One configured upstream: its URL and the headers that carry its key.
#[derive(Clone)]
pub struct Upstream {
    pub url: String,
    pub auth_headers: Vec<(&'static str, String)>,
}

// Hand-written so a `{:?}` never prints a key.
impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream").field("url", &self.url).finish_non_exhaustive()
    }
}

/// Gemini names the model in the URL: `{base}/models/{model}:streamGenerateContent?alt=sse`.
#[derive(Clone, Debug)]
pub struct GeminiUpstream {
    pub base_url: String,
    pub default_model: String,
    pub key: Upstream,
}

#[derive(Clone, Debug, Default)]
pub struct Upstreams {
    pub openai: Option<Upstream>,
    pub openai_responses: Option<Upstream>,
    pub anthropic: Option<Upstream>,
    pub gemini: Option<GeminiUpstream>,
    pub ollama: Option<Upstream>,
    pub compat: Option<Upstream>,
    pub agent: Option<Upstream>,
}

#[derive(Clone, Debug)]
pub struct Limits {
    pub body_bytes: usize,
    pub requests_per_minute: u32,
    pub connect: Duration,
    pub first_byte: Duration,
    pub idle: Duration,
    pub total: Duration,
}

/// What a client connection may cost before the proxy closes it (see [`crate::server`]).
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    pub header: Duration,
    pub keep_alive: Duration,
    pub max_connections: usize,
}

/// Every configured key with the variable it came from, for the redactor. Hand-written `Debug` so that a
/// `{:?}` never prints one.
#[derive(Clone, Default)]
pub struct Keys(pub Vec<(&'static str, String)>);

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Keys({} configured)", self.0.len())
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub host: IpAddr,
    pub port: u16,
    pub allowed_hosts: Vec<String>,
    pub www: Option<PathBuf>,
    pub pkg: Option<PathBuf>,
    pub cors_origin: Option<String>,
    pub upstreams: Upstreams,
    pub keys: Keys,
    pub sim_delay: Duration,
    pub limits: Limits,
    pub connections: ConnectionLimits,
    pub resume: ResumeBounds,
    pub resume_store: Option<String>,
}

/// How long and how much of each answer is kept for resuming (see `resume`).
#[derive(Clone, Copy, Debug)]
pub struct ResumeBounds {
    /// How long an answer is kept after its last reader went away.
    pub grace: Duration,
    /// The most bytes kept of one answer; past it, the answer is no longer resumable.
    pub stream_bytes: usize,
    /// The most bytes kept of all answers together.
    pub total_bytes: usize,
}

impl Config {
    /// `env` looks up a key (the process environment in `main`); empty values count as unset.
    pub fn from_args(args: Args, env: impl Fn(&str) -> Option<String>) -> Config {
        let env = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let openai_base = trim_slash(&args.openai_base_url);
        let bearer = |key: String| vec![("authorization", format!("Bearer {key}"))];
        let upstreams = Upstreams {
            openai: env("OPENAI_API_KEY")
                .map(|key| Upstream { url: format!("{openai_base}/chat/completions"), auth_headers: bearer(key) }),
            openai_responses: env("OPENAI_API_KEY")
                .map(|key| Upstream { url: format!("{openai_base}/responses"), auth_headers: bearer(key) }),
            anthropic: env("ANTHROPIC_API_KEY").map(|key| Upstream {
                url: format!("{}/v1/messages", trim_slash(&args.anthropic_base_url)),
                auth_headers: vec![("x-api-key", key), ("anthropic-version", "2023-06-01".into())],
            }),
            gemini: env("GEMINI_API_KEY").or_else(|| env("GOOGLE_API_KEY")).map(|key| GeminiUpstream {
                base_url: trim_slash(&args.gemini_base_url).into(),
                default_model: args.gemini_model.clone(),
                key: Upstream { url: String::new(), auth_headers: vec![("x-goog-api-key", key)] },
            }),
            ollama: args.ollama_host.as_deref().filter(|h| !h.trim().is_empty()).map(|host| Upstream {
                url: format!("{}/api/chat", with_scheme(trim_slash(host))),
                auth_headers: Vec::new(),
            }),
            compat: args.compat_base_url.as_deref().filter(|u| !u.trim().is_empty()).map(|base| Upstream {
                url: format!("{}/chat/completions", trim_slash(base)),
                auth_headers: env("COMPAT_API_KEY").map(bearer).unwrap_or_default(),
            }),
            agent: args
                .agent_backend_url
                .filter(|u| !u.trim().is_empty())
                .map(|url| Upstream { url, auth_headers: Vec::new() }),
        };
        let keys = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "COMPAT_API_KEY"]
            .into_iter()
            .filter_map(|name| env(name).map(|key| (name, key.trim().to_string())))
            .collect();
        Config {
            host: args.host,
            port: args.port,
            allowed_hosts: args.allowed_hosts,
            www: args.www,
            pkg: args.pkg,
            cors_origin: args.cors_origin.map(|origin| trim_slash(&origin).to_string()),
            upstreams,
            keys: Keys(keys),
            sim_delay: Duration::from_millis(args.sim_delay_ms),
            limits: Limits {
                body_bytes: args.body_limit,
                requests_per_minute: args.rate_limit,
                connect: Duration::from_millis(args.connect_timeout_ms),
                first_byte: Duration::from_millis(args.first_byte_timeout_ms),
                idle: Duration::from_millis(args.idle_timeout_ms),
                total: Duration::from_millis(args.total_timeout_ms),
            },
            connections: ConnectionLimits {
                header: Duration::from_millis(args.header_timeout_ms),
                keep_alive: Duration::from_millis(args.keep_alive_timeout_ms),
                max_connections: args.max_connections as usize,
            },
            resume: ResumeBounds {
                grace: Duration::from_millis(args.resume_grace_ms),
                stream_bytes: args.resume_stream_bytes,
                total_bytes: args.resume_total_bytes,
            },
            resume_store: args.resume_store.filter(|url| !url.trim().is_empty()),
        }
    }
}

fn trim_slash(url: &str) -> &str {
    url.trim().trim_end_matches('/')
}

/// `OLLAMA_HOST` is often written as `host:port`, as the Ollama CLI accepts it.
fn with_scheme(host: &str) -> String {
    if host.starts_with("http://") || host.starts_with("https://") {
        host.into()
    } else {
        format!("http://{host}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str], env: &[(&str, &str)]) -> Config {
        let args = Args::try_parse_from(std::iter::once("chatstream-proxy").chain(args.iter().copied())).unwrap();
        Config::from_args(args, |name| env.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn providers_without_their_key_or_url_are_simulated() {
        let upstreams = config(&[], &[("OPENAI_API_KEY", " "), ("GOOGLE_API_KEY", "")]).upstreams;
        assert!(upstreams.openai.is_none() && upstreams.gemini.is_none() && upstreams.ollama.is_none());
        assert!(upstreams.anthropic.is_none() && upstreams.compat.is_none() && upstreams.agent.is_none());
    }

    #[test]
    fn urls_are_built_from_base_urls_and_hosts() {
        let config = config(
            &["--openai-base-url", "http://127.0.0.1:9/v1/", "--ollama-host", "localhost:11434"],
            &[("OPENAI_API_KEY", "sk-1"), ("GOOGLE_API_KEY", "g-1")],
        );
        let upstreams = config.upstreams;
        assert_eq!(upstreams.openai.unwrap().url, "http://127.0.0.1:9/v1/chat/completions");
        assert_eq!(upstreams.openai_responses.unwrap().url, "http://127.0.0.1:9/v1/responses");
        assert_eq!(upstreams.ollama.unwrap().url, "http://localhost:11434/api/chat");
        let gemini = upstreams.gemini.unwrap();
        assert_eq!(gemini.key.auth_headers, [("x-goog-api-key", "g-1".to_string())]);
        assert_eq!(config.host.to_string(), "127.0.0.1");
    }

    #[test]
    fn debug_output_never_shows_a_key() {
        let config = config(&[], &[("OPENAI_API_KEY", "sk-secret"), ("ANTHROPIC_API_KEY", "ant-secret")]);
        let debug = format!("{config:?}");
        assert!(debug.contains("api.openai.com") && !debug.contains("secret"), "{debug}");
    }
}
