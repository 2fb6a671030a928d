//! Answers kept for resuming: a streamed chat answer outlives the connection that asked for it.
//!
//! Every streamed answer (a 2xx in the route's stream format) is read from its upstream by a task of its
//! own, the *keeper*, into memory, under an unguessable id; the client that asked, and any client that
//! resumes, reads from there. So:
//! - a client that goes away does not cancel the upstream: the keeper reads on, and the answer waits
//!   `--resume-grace-ms` for someone to resume it. Only once that grace passes with nobody reading is the
//!   upstream dropped (and a finished answer forgotten);
//! - `DELETE` on the stream's URL (an explicit stop) drops the upstream at once and forgets the answer;
//! - `GET` with `?from=<bytes received>` sends the rest, then follows the answer live until it ends.
//!
//! Memory is bounded: an answer is kept only while it is within `--resume-stream-bytes` and all kept
//! answers within `--resume-total-bytes`. An answer that would pass either is forgotten (no longer
//! resumable: a `GET` is a 404); its readers still get all of it, one chunk at a time as before (the keeper
//! reads on only once they have taken what it holds), and once none is left reading the upstream is
//! dropped at once, since nobody could resume it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::{watch, Notify};
use tokio::time::Instant;

use crate::config::ResumeBounds;
use crate::provider::Provider;
use crate::resume_redis::{RedisMirror, Remote};
use crate::server::CloseConnection;
use crate::upstream::{proxy_error, stream_headers};

/// The response header that carries a kept answer's id.
pub const STREAM_ID: HeaderName = HeaderName::from_static("x-stream-id");

/// The kept answers, by id.
#[derive(Clone)]
pub struct AnswerStore(Arc<StoreInner>);

struct StoreInner {
    bounds: ResumeBounds,
    /// How long a client may take to read an answer: the total time limit and one idle timeout more.
    patience: Duration,
    /// With `--resume-store redis://…`: where answers are mirrored for the other proxies.
    mirror: Option<RedisMirror>,
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    answers: HashMap<String, Arc<Answer>>,
    /// The bytes of every answer in `answers`.
    bytes: usize,
}

/// One streamed answer, as the keeper has read it so far.
struct Answer {
    id: String,
    provider: Provider,
    state: Mutex<AnswerState>,
    /// Tells readers that there are new bytes, or the end.
    news: watch::Sender<()>,
    /// Wakes the keeper: a reader came, went or took bytes; a stop.
    keeper: Notify,
}

struct AnswerState {
    /// The bytes from `base` on (`base` is 0 while the answer is kept: all of them).
    bytes: Vec<u8>,
    base: usize,
    /// In the store, resumable. Once not, it never is again.
    kept: bool,
    ended: bool,
    stopped: bool,
    /// Each reader and how many bytes of the answer it has taken.
    readers: HashMap<u64, usize>,
    next_reader: u64,
    /// Since when nobody has been reading.
    alone_since: Instant,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// 128 random bits in hex: the id is the capability to read or stop an answer, so it must not be guessable.
fn new_id() -> String {
    let mut bits = [0u8; 16];
    getrandom::getrandom(&mut bits).expect("the system has a random source");
    bits.iter().map(|b| format!("{b:02x}")).collect()
}

impl AnswerStore {
    pub fn new(bounds: ResumeBounds, patience: Duration, mirror: Option<RedisMirror>) -> AnswerStore {
        let store = AnswerStore(Arc::new(StoreInner { bounds, patience, mirror, kept: Mutex::default() }));
        if let Some(mirror) = store.0.mirror.clone() {
            let store = store.clone();
            tokio::spawn(async move {
                match mirror.stops().await {
                    Ok(stops) => {
                        futures_util::pin_mut!(stops);
                        while let Some(id) = stops.next().await {
                            let answer = lock(&store.0.kept).answers.get(&id).cloned();
                            if let Some(answer) = answer {
                                store.stop_answer(&answer);
                            }
                        }
                    }
                    Err(err) => tracing::warn!("resume store: cannot follow stops from other proxies: {err}"),
                }
            });
        }
        store
    }

    /// Keeps `response` if it is a streamed answer (a 2xx in the route's stream format) and hands its
    /// client a reader of it, with the id in [`STREAM_ID`]; any other response passes unchanged.
    pub fn keep(&self, provider: Provider, response: Response, close: Option<CloseConnection>) -> Response {
        let streamed = response.headers().get(header::CONTENT_TYPE).is_some_and(|v| v == provider.content_type());
        if !response.status().is_success() || !streamed {
            return response;
        }
        let (mut parts, body) = response.into_parts();
        let answer = Arc::new(Answer {
            id: new_id(),
            provider,
            state: Mutex::new(AnswerState {
                bytes: Vec::new(),
                base: 0,
                kept: true,
                ended: false,
                stopped: false,
                readers: HashMap::new(),
                next_reader: 0,
                alone_since: Instant::now(),
            }),
            news: watch::Sender::new(()),
            keeper: Notify::new(),
        });
        lock(&self.0.kept).answers.insert(answer.id.clone(), answer.clone());
        // The first reader is attached before the keeper starts, so that it never sees the answer alone.
        let reader = self.read(answer.clone(), 0, close);
        tokio::spawn(self.clone().keeper(answer.clone(), body));
        parts.headers.insert(STREAM_ID, HeaderValue::from_str(&answer.id).expect("hex is a header value"));
        Response::from_parts(parts, Body::from_stream(reader))
    }

    /// `GET` on a stream's URL: the answer from byte `from` on, then live until it ends.
    pub async fn resume(
        &self,
        provider: Provider,
        id: &str,
        from: Option<&str>,
        close: Option<CloseConnection>,
    ) -> Response {
        let from = match from.map(str::parse::<usize>) {
            None => 0,
            Some(Ok(from)) => from,
            Some(Err(_)) => {
                let message = "`from` must be the number of bytes of the answer already received (0 or more).";
                return proxy_error(provider, StatusCode::BAD_REQUEST, message);
            }
        };
        let body = match self.find(provider, id) {
            Some(answer) => {
                let sent = lock(&answer.state).bytes.len();
                if from > sent {
                    return past(provider, from, sent);
                }
                Body::from_stream(self.read(answer, from, close))
            }
            None => match &self.0.mirror {
                None => return unknown(provider),
                Some(mirror) => match mirror.resume(provider, id, from).await {
                    Ok(Remote::Found(rest)) => Body::from_stream(rest.map(Ok::<_, std::convert::Infallible>)),
                    Ok(Remote::Past(sent)) => return past(provider, from, sent),
                    Ok(Remote::Unknown) => return unknown(provider),
                    Err(err) => return unreachable_store(provider, &err),
                },
            },
        };
        let mut response = Response::new(body);
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(provider.content_type()));
        response.headers_mut().insert(STREAM_ID, HeaderValue::from_str(id).expect("found ids are hex"));
        stream_headers(response.headers_mut());
        response
    }

    /// `DELETE` on a stream's URL: drops the upstream at once and forgets the answer.
    pub async fn stop(&self, provider: Provider, id: &str) -> Response {
        match (self.find(provider, id), &self.0.mirror) {
            (Some(answer), _) => self.stop_answer(&answer),
            (None, None) => return unknown(provider),
            (None, Some(mirror)) => match mirror.stop(provider, id).await {
                Ok(true) => {}
                Ok(false) => return unknown(provider),
                Err(err) => return unreachable_store(provider, &err),
            },
        }
        Response::builder().status(StatusCode::NO_CONTENT).body(Body::empty()).expect("a valid response")
    }

    fn stop_answer(&self, answer: &Answer) {
        lock(&answer.state).stopped = true;
        self.forget(answer);
        answer.keeper.notify_one();
    }

    /// A kept answer of this route.
    fn find(&self, provider: Provider, id: &str) -> Option<Arc<Answer>> {
        lock(&self.0.kept).answers.get(id).filter(|answer| answer.provider == provider).cloned()
    }

    /// Takes an answer out of the store (no longer resumable), with its bytes from the total.
    fn forget(&self, answer: &Answer) {
        let mut state = lock(&answer.state);
        if std::mem::take(&mut state.kept) {
            let mut kept = lock(&self.0.kept);
            kept.answers.remove(&answer.id);
            kept.bytes -= state.bytes.len();
        }
    }

    /// Adds a chunk to an answer: kept while within the bounds, forgotten past them. The chunk's offset
    /// when the answer is (still) kept.
    fn append(&self, answer: &Answer, chunk: &[u8]) -> Option<usize> {
        let bounds = self.0.bounds;
        let mut state = lock(&answer.state);
        if state.kept {
            let mut kept = lock(&self.0.kept);
            if state.bytes.len() + chunk.len() <= bounds.stream_bytes && kept.bytes + chunk.len() <= bounds.total_bytes
            {
                kept.bytes += chunk.len();
            } else {
                drop(kept);
                drop(state);
                tracing::warn!(
                    "{}: an answer grew past --resume-stream-bytes ({}) or all kept answers past \
                     --resume-total-bytes ({}): it is no longer resumable.",
                    answer.provider.name(),
                    bounds.stream_bytes,
                    bounds.total_bytes
                );
                self.forget(answer);
                state = lock(&answer.state);
            }
        }
        let offset = state.kept.then_some(state.bytes.len());
        state.bytes.extend_from_slice(chunk);
        state.drop_taken();
        answer.news.send_replace(());
        offset
    }

    /// Reads `body` (the upstream, through its guard) into `answer` until it ends, nobody has read it
    /// for the grace period, or it is stopped; then keeps the finished answer for the grace period.
    async fn keeper(self, answer: Arc<Answer>, body: Body) {
        let grace = self.0.bounds.grace;
        let mirror = self.0.mirror.as_ref();
        let mirrored = |result: redis::RedisResult<()>| {
            if let Err(err) = result {
                tracing::warn!("resume store: {err}");
            }
        };
        if let Some(mirror) = mirror {
            mirrored(mirror.start(&answer.id, answer.provider).await);
        }
        let mut body = Some(body.into_data_stream());
        let mut forgotten_elsewhere = false;
        loop {
            // What the keeper waits for now: when set, the instant nobody-reading becomes final.
            let (alone_until, full, done) = {
                let mut state = lock(&answer.state);
                state.drop_taken();
                let alone = state.readers.is_empty();
                let done = state.stopped;
                // Forgotten and unread by anyone: nobody can ever read the rest.
                let done = done || (!state.kept && alone);
                let alone_until = alone.then_some(state.alone_since + grace);
                // Forgotten: the next chunk waits until the readers have taken the last.
                (alone_until, !state.kept && !state.bytes.is_empty(), done)
            };
            if done {
                break;
            }
            let reading = body.as_mut().filter(|_| !full);
            let read = tokio::select! {
                chunk = async { reading.expect("only polled when reading").next().await }, if reading.is_some() => chunk,
                () = answer.keeper.notified() => continue,
                () = tokio::time::sleep_until(alone_until.unwrap_or_else(Instant::now)), if alone_until.is_some() => {
                    let elsewhere = match mirror {
                        Some(mirror) => mirror.read_elsewhere(&answer.id).await,
                        None => false,
                    };
                    let mut state = lock(&answer.state);
                    if elsewhere {
                        // A reader on another proxy: the grace period starts again.
                        state.alone_since = Instant::now();
                    } else if state.readers.is_empty() && state.alone_since + grace <= Instant::now() {
                        // Nobody came back: let the upstream go, or forget the finished answer.
                        state.stopped = true;
                    }
                    continue;
                }
            };
            match read {
                Some(Ok(chunk)) => {
                    let offset = self.append(&answer, &chunk);
                    if let Some(mirror) = mirror {
                        match offset {
                            Some(offset) => mirrored(mirror.append(&answer.id, offset, &chunk).await),
                            None if !forgotten_elsewhere => {
                                forgotten_elsewhere = true;
                                mirrored(mirror.forget(&answer.id).await);
                            }
                            None => {}
                        }
                    }
                }
                // The guard ends a failing upstream with its own error frame: an error here is the end.
                Some(Err(_)) | None => {
                    body = None;
                    lock(&answer.state).ended = true;
                    answer.news.send_replace(());
                    if let Some(mirror) = mirror {
                        mirrored(mirror.end(&answer.id).await);
                    }
                }
            }
        }
        // Dropping the guarded body drops the upstream request (a no-op once it has ended).
        drop(body);
        self.forget(&answer);
        lock(&answer.state).ended = true;
        answer.news.send_replace(());
        if let Some(mirror) = mirror {
            mirrored(mirror.forget(&answer.id).await);
        }
    }
}

impl AnswerState {
    /// Once forgotten, the bytes every reader has taken are no longer needed.
    fn drop_taken(&mut self) {
        if self.kept {
            return;
        }
        let taken = self.readers.values().copied().min().unwrap_or(self.base + self.bytes.len());
        let drop = taken.saturating_sub(self.base).min(self.bytes.len());
        self.bytes.drain(..drop);
        self.base += drop;
    }
}

/// 416 in the route's format: `from` is past what was sent so far.
fn past(provider: Provider, from: usize, sent: usize) -> Response {
    let message = format!("`from` is {from}, but the answer has only {sent} bytes so far.");
    proxy_error(provider, StatusCode::RANGE_NOT_SATISFIABLE, &message)
}

/// 502 in the route's format: the shared store did not answer.
fn unreachable_store(provider: Provider, err: &redis::RedisError) -> Response {
    tracing::warn!("resume store: {err}");
    proxy_error(provider, StatusCode::BAD_GATEWAY, "The proxy's resume store (--resume-store) did not answer.")
}

/// 404 in the route's format.
fn unknown(provider: Provider) -> Response {
    let message = "No stream with this id on this route: it is unknown, its grace period (--resume-grace-ms) \
                   has passed, it was stopped, or it grew past what the proxy keeps (--resume-stream-bytes, \
                   --resume-total-bytes).";
    proxy_error(provider, StatusCode::NOT_FOUND, message)
}

impl AnswerStore {
    /// A reader of `answer` from byte `from` on; it counts as reading until dropped.
    ///
    /// A client still reading once the patience has passed (the upstream is gone by then, whatever it
    /// was doing) has stopped reading: its connection is closed rather than held.
    fn read(
        &self,
        answer: Arc<Answer>,
        from: usize,
        close: Option<CloseConnection>,
    ) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> {
        let id = {
            let mut state = lock(&answer.state);
            let id = state.next_reader;
            state.next_reader += 1;
            state.readers.insert(id, from);
            id
        };
        answer.keeper.notify_one();
        if let Some(close) = close {
            let give_up = Instant::now() + self.0.patience;
            let answer = answer.clone();
            tokio::spawn(async move {
                tokio::time::sleep_until(give_up).await;
                if lock(&answer.state).readers.contains_key(&id) {
                    close.close();
                }
            });
        }
        read_from(answer, id, from)
    }
}

fn read_from(answer: Arc<Answer>, id: u64, from: usize) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> {
    let news = answer.news.subscribe();
    let reader = Reader { answer, id, taken: from };
    stream::unfold((reader, news), |(mut reader, mut news)| async move {
        loop {
            {
                let mut state = lock(&reader.answer.state);
                let end = state.base + state.bytes.len();
                if reader.taken < state.base {
                    // Forgotten and dropped between the look-up and now: what this reader wants is gone.
                    return None;
                }
                if reader.taken < end {
                    let chunk = Bytes::copy_from_slice(&state.bytes[reader.taken - state.base..]);
                    reader.taken = end;
                    state.readers.insert(reader.id, end);
                    let forgotten = !state.kept;
                    drop(state);
                    if forgotten {
                        // The keeper waits for this before reading on.
                        reader.answer.keeper.notify_one();
                    }
                    return Some((Ok(chunk), (reader, news)));
                }
                if state.ended {
                    return None;
                }
            }
            if news.changed().await.is_err() {
                return None;
            }
        }
    })
}

/// Detaches from its answer when dropped (the client went away, or read to the end).
struct Reader {
    answer: Arc<Answer>,
    id: u64,
    taken: usize,
}

impl Drop for Reader {
    fn drop(&mut self) {
        let mut state = lock(&self.answer.state);
        state.readers.remove(&self.id);
        if state.readers.is_empty() {
            state.alone_since = Instant::now();
        }
        drop(state);
        self.answer.keeper.notify_one();
    }
}
