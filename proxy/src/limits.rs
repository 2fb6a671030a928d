//! What keeps one client or one upstream from holding the proxy: a per-client rate limit, and the
//! idle/total timeouts on every response stream. (The body limit is axum's `DefaultBodyLimit`; connect
//! and first-byte timeouts are in `upstream`; connection timeouts and the connection cap in `server`.)

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::cut::Position;
use crate::provider::Provider;
use crate::redact::Redactor;
use crate::server::CloseConnection;

const WINDOW: Duration = Duration::from_secs(60);

/// A fixed one-minute window per client (see [`client_of`]): simple, and enough to stop a runaway page
/// loop.
#[derive(Clone)]
pub struct RateLimiter {
    per_minute: u32,
    windows: Arc<Mutex<HashMap<IpAddr, (Instant, u32)>>>,
}

/// The client an address counts as: an IPv4 address on its own, an IPv6 address by its /64 (what one
/// home or host is usually given), and all of loopback (127.0.0.0/8, ::1) as one: the same machine.
fn client_of(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        address if address.is_loopback() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
    }
}

impl RateLimiter {
    pub fn new(per_minute: u32) -> RateLimiter {
        RateLimiter { per_minute, windows: Arc::default() }
    }

    /// `Err(seconds to wait)` when the client at `address` has used up its window.
    pub fn check(&self, address: IpAddr) -> Result<(), u64> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Forget finished windows so the map stays as small as the set of recent clients.
        if windows.len() > 10_000 {
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let (start, count) = windows.entry(client_of(address)).or_insert((now, 0));
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

/// How a response stream is watched.
pub struct Watch {
    /// Whose error frame ends a stream cut short.
    pub provider: Provider,
    /// Longest silence allowed between two chunks of the body.
    pub idle: Duration,
    /// The end of the request's total time.
    pub deadline: Instant,
    pub redactor: Redactor,
    /// The client's connection, closed when the client has not taken the response by the deadline.
    pub close: Option<CloseConnection>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ending {
    Complete,
    Failed,
    Idle,
    Total,
}

/// Passes `body` through chunk by chunk, unbuffered (keys redacted), and ends it cleanly — with an error
/// frame in the provider's dialect where one can follow (see [`crate::cut`]) — when it stays silent longer
/// than `idle`, runs past the deadline, or fails.
///
/// The body is read by a task of its own, one chunk ahead of the client, so that the deadline holds
/// whether the client reads or not: when it passes, the body is dropped (which closes the upstream
/// connection) and, if the client has not taken the rest within one more idle timeout, its connection is
/// closed too. A client that goes away drops the body at once as well.
pub fn guard<S, E>(watch: Watch, body: S) -> Body
where
    S: Stream<Item = Result<Bytes, E>> + Send + Unpin + 'static,
    E: Send + 'static,
{
    let (chunks, received) = mpsc::channel::<Bytes>(1);
    let (taken, all_taken) = oneshot::channel::<()>();
    tokio::spawn(pump(watch, body, chunks, all_taken));
    // `taken` is dropped once the last chunk is received, or the client goes away.
    let received = stream::unfold((received, taken), |(mut received, taken)| async move {
        let chunk = received.recv().await?;
        Some((Ok::<_, std::convert::Infallible>(chunk), (received, taken)))
    });
    Body::from_stream(received)
}

async fn pump<S, E>(watch: Watch, mut body: S, chunks: mpsc::Sender<Bytes>, all_taken: oneshot::Receiver<()>)
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    let mut redactor = watch.redactor.stream();
    let mut position = Position::new(watch.provider);
    let ending = loop {
        let wake = (Instant::now() + watch.idle).min(watch.deadline);
        let next = tokio::select! {
            next = tokio::time::timeout_at(wake, body.next()) => next,
            // The client went away: dropping `body` closes the upstream connection.
            () = chunks.closed() => return,
        };
        let chunk = match next {
            Ok(Some(Ok(chunk))) => redactor.push(chunk),
            Ok(Some(Err(_))) => break Ending::Failed,
            Ok(None) => break Ending::Complete,
            Err(_) if Instant::now() >= watch.deadline => break Ending::Total,
            Err(_) => break Ending::Idle,
        };
        if chunk.is_empty() {
            continue;
        }
        position.observe(&chunk);
        match tokio::time::timeout_at(watch.deadline, chunks.send(chunk)).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return,
            Err(_) => break Ending::Total,
        }
    };
    // Read to the end or cut short, the upstream is let go now.
    drop(body);
    // The bytes the redactor kept back, redacted.
    let mut last = redactor.finish().to_vec();
    position.observe(&last);
    if ending != Ending::Complete {
        let message = match ending {
            Ending::Failed => "The upstream connection failed mid-stream.",
            Ending::Total => "The response took longer than the proxy's total time limit.",
            _ => "The upstream stopped sending (the proxy's idle timeout).",
        };
        match position.before_error_frame() {
            Some(before) => last.extend_from_slice(&watch.provider.error_frame(message, before)),
            None => {
                tracing::warn!("{}: {message} It stopped mid-event, so the stream ends there.", watch.provider.name())
            }
        }
    }
    let last = Some(Bytes::from(last)).filter(|last| !last.is_empty());
    let delivered = async move {
        if let Some(last) = last {
            if chunks.send(last).await.is_err() {
                return;
            }
        }
        drop(chunks);
        let _ = all_taken.await;
    };
    // A client that has not taken the whole response by the deadline (or one idle timeout from now,
    // whichever is later) is not reading: its connection is closed rather than held.
    let patience = watch.deadline.max(Instant::now() + watch.idle);
    if tokio::time::timeout_at(patience, delivered).await.is_err() {
        if let Some(close) = &watch.close {
            close.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_client_over_its_window_waits() {
        let limiter = RateLimiter::new(2);
        let client: IpAddr = "192.0.2.1".parse().unwrap();
        let other: IpAddr = "192.0.2.2".parse().unwrap();
        assert_eq!(limiter.check(client), Ok(()));
        assert_eq!(limiter.check(client), Ok(()));
        let wait = limiter.check(client).unwrap_err();
        assert!((1..=60).contains(&wait), "{wait}");
        assert_eq!(limiter.check(other), Ok(()));
    }

    #[tokio::test]
    async fn loopback_is_one_client_and_ipv6_counts_by_its_64() {
        let limiter = RateLimiter::new(2);
        let check = |address: &str| limiter.check(address.parse().unwrap()).is_ok();
        assert!(check("127.0.0.1") && check("127.0.0.2"));
        assert!(!check("127.9.9.9") && !check("::1") && !check("::ffff:127.0.0.1"));
        assert!(check("2001:db8::1") && check("2001:db8::ffff:2"));
        assert!(!check("2001:db8::3"));
        assert!(check("2001:db8:0:1::1"));
        assert!(check("192.0.2.1") && check("::ffff:192.0.2.1"));
        assert!(!check("192.0.2.1"));
    }

    fn watch(provider: Provider) -> Watch {
        let deadline = Instant::now() + Duration::from_secs(3600);
        Watch { provider, idle: Duration::from_millis(50), deadline, redactor: Redactor::default(), close: None }
    }

    async fn guarded(provider: Provider, first: &'static [u8]) -> Vec<Bytes> {
        let body = stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(first))]).chain(stream::pending());
        guard(watch(provider), body).into_data_stream().map(Result::unwrap).collect().await
    }

    #[tokio::test]
    async fn a_silent_body_ends_with_an_error_frame_at_an_event_boundary() {
        let out = guarded(Provider::OpenAi, b"data: {\"a\":1}\n\n").await;
        assert_eq!(out.len(), 2);
        let error = std::str::from_utf8(&out[1]).unwrap();
        assert!(error.starts_with("data: {\"error\":{") && error.ends_with("}\n\n"), "{error}");
        assert!(error.contains("idle timeout"), "{error}");
    }

    #[tokio::test]
    async fn a_body_silent_mid_event_ends_there_without_completing_it() {
        assert_eq!(guarded(Provider::OpenAi, b"data: {\"a\"").await, [Bytes::from_static(b"data: {\"a\"")]);
        // NDJSON has no way to drop a line: the cut one is ended, then the error line.
        let out = guarded(Provider::Ollama, b"{\"a\"").await;
        assert_eq!(out[1], "\n{\"error\":\"The upstream stopped sending (the proxy's idle timeout).\"}\n");
    }
}
