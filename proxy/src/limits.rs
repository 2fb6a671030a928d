//! What keeps one client or one upstream from holding the proxy: a per-client rate limit, and the
//! idle/total timeouts on every response stream. (The body limit is axum's `DefaultBodyLimit`; connect
//! and first-byte timeouts are in `upstream`.)

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::stream::{self, Stream, StreamExt};
use tokio::time::Instant;

use crate::provider::{frame_separator, Provider};

const WINDOW: Duration = Duration::from_secs(60);

/// A fixed one-minute window per client address: simple, and enough to stop a runaway page loop.
#[derive(Clone)]
pub struct RateLimiter {
    per_minute: u32,
    windows: Arc<Mutex<HashMap<IpAddr, (Instant, u32)>>>,
}

impl RateLimiter {
    pub fn new(per_minute: u32) -> RateLimiter {
        RateLimiter { per_minute, windows: Arc::default() }
    }

    /// `Err(seconds to wait)` when `client` has used up its window.
    fn check(&self, client: IpAddr) -> Result<(), u64> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Forget finished windows so the map stays as small as the set of recent clients.
        if windows.len() > 10_000 {
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let (start, count) = windows.entry(client).or_insert((now, 0));
        if now.duration_since(*start) >= WINDOW {
            *start = now;
            *count = 0;
        }
        if *count >= self.per_minute {
            let wait = WINDOW.saturating_sub(now.duration_since(*start));
            return Err(wait.as_secs_f64().ceil().max(1.0) as u64);
        }
        *count += 1;
        Ok(())
    }
}

/// Middleware for the chat routes: 429 with `Retry-After` (seconds) once a client's window is used up.
pub async fn rate_limit(
    State(limiter): State<RateLimiter>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    match limiter.check(client.ip()) {
        Ok(()) => next.run(request).await,
        Err(retry_after) => (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, retry_after.to_string())],
            axum::Json(serde_json::json!({"error": {"message": "Too many requests to the proxy; retry later."}})),
        )
            .into_response(),
    }
}

/// Passes `body` through chunk by chunk, unbuffered, and ends it cleanly — with an error frame in the
/// provider's dialect — when it stays silent longer than `idle`, runs past `deadline`, or fails.
/// Dropping the returned stream (the client went away) drops `body`, which closes the upstream connection.
pub fn guard<S, E>(
    provider: Provider,
    body: S,
    idle: Duration,
    deadline: Instant,
) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send + Unpin + 'static,
{
    struct Guarded<S> {
        body: S,
        /// The last bytes sent, to end a half-written frame before an error frame.
        tail: Vec<u8>,
    }
    let state = Some(Guarded { body, tail: Vec::new() });
    stream::unfold(state, move |state| async move {
        let mut guarded = state?;
        loop {
            let wake = (Instant::now() + idle).min(deadline);
            let message = match tokio::time::timeout_at(wake, guarded.body.next()).await {
                Ok(Some(Ok(chunk))) if chunk.is_empty() => continue,
                Ok(Some(Ok(chunk))) => {
                    guarded.tail.extend_from_slice(&chunk[chunk.len().saturating_sub(4)..]);
                    let excess = guarded.tail.len().saturating_sub(4);
                    guarded.tail.drain(..excess);
                    return Some((Ok(chunk), Some(guarded)));
                }
                Ok(None) => return None,
                Ok(Some(Err(_))) => "The upstream connection failed mid-stream.",
                Err(_) if Instant::now() >= deadline => "The response took longer than the proxy's total time limit.",
                Err(_) => "The upstream stopped sending (the proxy's idle timeout).",
            };
            let frame = provider.error_frame(message, frame_separator(provider, &guarded.tail));
            return Some((Ok(frame), None));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_client_over_its_window_waits() {
        let limiter = RateLimiter::new(2);
        let client: IpAddr = "127.0.0.1".parse().unwrap();
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        assert_eq!(limiter.check(client), Ok(()));
        assert_eq!(limiter.check(client), Ok(()));
        let wait = limiter.check(client).unwrap_err();
        assert!((1..=60).contains(&wait), "{wait}");
        assert_eq!(limiter.check(other), Ok(()));
    }

    #[tokio::test]
    async fn a_silent_body_ends_with_an_error_frame_after_the_partial_frame() {
        let body =
            stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"data: {\"a\""))]).chain(stream::pending());
        let deadline = Instant::now() + Duration::from_secs(3600);
        let out: Vec<Bytes> =
            guard(Provider::OpenAi, body, Duration::from_millis(50), deadline).map(Result::unwrap).collect().await;
        assert_eq!(out.len(), 2);
        assert_eq!(out[0], "data: {\"a\"");
        let error = std::str::from_utf8(&out[1]).unwrap();
        assert!(error.starts_with("\n\ndata: {\"error\":{"), "{error}");
        assert!(error.contains("idle timeout"), "{error}");
        assert!(error.ends_with("\n\n"));
    }
}
