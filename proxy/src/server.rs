//! The accept loop: what a client connection may cost before the proxy closes it.
//!
//! - At most `max_connections` connections at once: past that, new ones wait in the kernel's accept
//!   queue (holding no descriptor of the proxy's) until one closes.
//! - A connection with no request under way (a new one, or between keep-alive requests) is closed after
//!   `keep_alive` without a byte in or out; once a request's first byte is in, its headers must follow
//!   within `header` (hyper's own header timeout counts the idle wait too, so it cannot tell the two
//!   apart).
//! - Each request carries a [`CloseConnection`] so that a response may close its connection (see
//!   `limits::guard`: a client that stops reading past the total time limit).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::Router;
use futures_util::StreamExt;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};
use tokio::time::Instant;
use tower::ServiceExt;

use crate::config::ConnectionLimits;

/// Lets a response close the connection it is sent on.
#[derive(Clone)]
pub struct CloseConnection(Arc<Notify>);

impl CloseConnection {
    pub fn close(&self) {
        self.0.notify_one();
    }
}

pub async fn serve(listener: TcpListener, app: Router, limits: ConnectionLimits) {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        let permit = permits.clone().acquire_owned().await.expect("the semaphore is never closed");
        let (socket, remote) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(err) => {
                // Out of descriptors, most likely: pause rather than spin, and let connections close.
                tracing::warn!("accept failed: {err}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let app = app.clone();
        tokio::spawn(async move {
            serve_connection(socket, remote, app, limits).await;
            drop(permit);
        });
    }
}

async fn serve_connection(socket: TcpStream, remote: SocketAddr, app: Router, limits: ConnectionLimits) {
    let activity = Arc::new(Activity::new());
    let close = CloseConnection(Arc::new(Notify::new()));
    let io = TokioIo::new(Watched { socket, activity: activity.clone() });
    let request_activity = activity.clone();
    let request_close = close.clone();
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        let busy = Busy::start(&request_activity);
        request.extensions_mut().insert(ConnectInfo(remote));
        request.extensions_mut().insert(request_close.clone());
        let response = app.clone().oneshot(request.map(Body::new));
        async move {
            let response = response.await?;
            // The request counts as under way until hyper is done with its response body (all taken, or
            // dropped); the bytes hyper still writes out after that keep the connection from being idle.
            Ok::<_, std::convert::Infallible>(response.map(|body| {
                Body::from_stream(body.into_data_stream().map(move |chunk| {
                    let _ = &busy;
                    chunk
                }))
            }))
        }
    });
    // hyper's own header timeout is off: `Activity` times the idle wait and the headers apart.
    let connection = hyper::server::conn::http1::Builder::new().header_read_timeout(None).serve_connection(io, service);
    tokio::select! {
        _ = connection => {}
        () = activity.expired(limits) => {}
        () = close.0.notified() => {}
    }
}

/// What a connection is doing, for its timeouts.
struct Activity {
    state: Mutex<(Phase, Instant)>,
    /// Wakes the watchdog when the phase changes (its deadline with it).
    changed: Notify,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No request under way and no byte of the next one yet, since the instant beside it (or the last
    /// byte written).
    Idle,
    /// The next request's first byte came at the instant beside it; its headers are not complete.
    Head,
    /// This many requests are under way.
    Busy(usize),
}

impl Activity {
    fn new() -> Activity {
        Activity { state: Mutex::new((Phase::Idle, Instant::now())), changed: Notify::new() }
    }

    fn with<T>(&self, f: impl FnOnce(&mut (Phase, Instant)) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }

    /// Moves to another phase, since now.
    fn enter(&self, phase: Phase) {
        self.with(|state| *state = (phase, Instant::now()));
        self.changed.notify_one();
    }

    fn read_some(&self) {
        if self.with(|state| state.0 == Phase::Idle) {
            self.enter(Phase::Head);
        }
    }

    /// hyper writes the end of a response from its own buffer after the body is done: while that goes
    /// out, the connection is not idle.
    fn wrote_some(&self) {
        self.with(|state| {
            if state.0 == Phase::Idle {
                state.1 = Instant::now();
            }
        });
    }

    /// Resolves once the connection has been idle, or on a request's headers, for too long.
    async fn expired(&self, limits: ConnectionLimits) {
        loop {
            let deadline = self.with(|(phase, since)| match phase {
                Phase::Idle => Some(*since + limits.keep_alive),
                Phase::Head => Some(*since + limits.header),
                Phase::Busy(_) => None,
            });
            match deadline {
                Some(deadline) if deadline <= Instant::now() => return,
                Some(deadline) => tokio::select! {
                    () = tokio::time::sleep_until(deadline) => {}
                    () = self.changed.notified() => {}
                },
                None => self.changed.notified().await,
            }
        }
    }
}

/// One request under way, from its complete headers until its response body is done with.
struct Busy(Arc<Activity>);

impl Busy {
    fn start(activity: &Arc<Activity>) -> Busy {
        let phase = activity.with(|state| state.0);
        activity.enter(match phase {
            Phase::Busy(n) => Phase::Busy(n + 1),
            _ => Phase::Busy(1),
        });
        Busy(activity.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let phase = self.0.with(|state| state.0);
        self.0.enter(match phase {
            Phase::Busy(n) if n > 1 => Phase::Busy(n - 1),
            _ => Phase::Idle,
        });
    }
}

/// The client's socket, telling [`Activity`] when bytes arrive.
struct Watched {
    socket: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.socket).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.read_some();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let polled = std::pin::Pin::new(&mut self.socket).poll_write(cx, buf);
        if let std::task::Poll::Ready(Ok(1..)) = polled {
            self.activity.wrote_some();
        }
        polled
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.socket).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.socket).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let polled = std::pin::Pin::new(&mut self.socket).poll_write_vectored(cx, bufs);
        if let std::task::Poll::Ready(Ok(1..)) = polled {
            self.activity.wrote_some();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.socket.is_write_vectored()
    }
}
