//! `--resume-store redis://…`: kept answers mirrored in Redis, so that any proxy behind one address can
//! resume or stop an answer another one is reading from its upstream.
//!
//! The proxy that reads the upstream (the answer's owner) keeps it in memory as always and mirrors it:
//! - `chatstream:answer:{id}:route` the route's name, `…:bytes` the bytes so far (`APPEND`), `…:ended` once
//!   it has ended; all expire (a grace period after the end, or the total time limit and a grace period
//!   while it runs, so that nothing outlives a proxy that died);
//! - every chunk is published on the channel `chatstream:answer:{id}` as `d`, its offset (8 bytes, big
//!   endian) and its bytes; the end as `e`.
//!
//! Another proxy resumes by subscribing first, then reading the stored bytes, then following the channel,
//! skipping what it already sent (hence the offsets). While it follows, it keeps `…:reading` alive, which
//! the owner takes as a reader within the grace period. A stop anywhere is published on `chatstream:stop`,
//! which every proxy follows.

use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{Stream, StreamExt};
use redis::aio::MultiplexedConnection;
use redis::AsyncCommands;

use crate::provider::Provider;

const STOP_CHANNEL: &str = "chatstream:stop";

#[derive(Clone)]
pub struct RedisMirror {
    client: redis::Client,
    connection: MultiplexedConnection,
    grace: Duration,
    /// How long a running answer's keys live without news: the total time limit and a grace period.
    running: Duration,
}

fn key(id: &str, part: &str) -> String {
    format!("chatstream:answer:{id}:{part}")
}

fn channel(id: &str) -> String {
    format!("chatstream:answer:{id}")
}

/// What another proxy finds of an answer.
pub enum Remote {
    Unknown,
    /// `from` is past the bytes stored so far: their number.
    Past(usize),
    Found(std::pin::Pin<Box<dyn Stream<Item = Bytes> + Send>>),
}

impl RedisMirror {
    pub async fn connect(url: &str, grace: Duration, total: Duration) -> redis::RedisResult<RedisMirror> {
        let client = redis::Client::open(url)?;
        let connection = client.get_multiplexed_async_connection().await?;
        Ok(RedisMirror { client, connection, grace, running: total + grace })
    }

    fn millis(duration: Duration) -> u64 {
        (duration.as_millis() as u64).max(1)
    }

    pub async fn start(&self, id: &str, provider: Provider) -> redis::RedisResult<()> {
        let mut c = self.connection.clone();
        let ttl = Self::millis(self.running);
        redis::pipe()
            .cmd("SET")
            .arg(key(id, "route"))
            .arg(provider.name())
            .arg("PX")
            .arg(ttl)
            .ignore()
            .cmd("SET")
            .arg(key(id, "bytes"))
            .arg("")
            .arg("PX")
            .arg(ttl)
            .ignore()
            .query_async(&mut c)
            .await
    }

    pub async fn append(&self, id: &str, offset: usize, chunk: &[u8]) -> redis::RedisResult<()> {
        let mut c = self.connection.clone();
        let mut message = Vec::with_capacity(9 + chunk.len());
        message.push(b'd');
        message.extend_from_slice(&(offset as u64).to_be_bytes());
        message.extend_from_slice(chunk);
        redis::pipe()
            .cmd("APPEND")
            .arg(key(id, "bytes"))
            .arg(chunk)
            .ignore()
            .cmd("PUBLISH")
            .arg(channel(id))
            .arg(message)
            .ignore()
            .query_async(&mut c)
            .await
    }

    /// The answer ended: it is kept for the grace period from now.
    pub async fn end(&self, id: &str) -> redis::RedisResult<()> {
        let mut c = self.connection.clone();
        let ttl = Self::millis(self.grace);
        redis::pipe()
            .cmd("SET")
            .arg(key(id, "ended"))
            .arg(1)
            .arg("PX")
            .arg(ttl)
            .ignore()
            .cmd("PEXPIRE")
            .arg(key(id, "route"))
            .arg(ttl)
            .ignore()
            .cmd("PEXPIRE")
            .arg(key(id, "bytes"))
            .arg(ttl)
            .ignore()
            .cmd("PUBLISH")
            .arg(channel(id))
            .arg("e")
            .ignore()
            .query_async(&mut c)
            .await
    }

    /// The answer is no longer resumable anywhere; readers elsewhere see its end.
    pub async fn forget(&self, id: &str) -> redis::RedisResult<()> {
        let mut c = self.connection.clone();
        redis::pipe()
            .cmd("DEL")
            .arg(key(id, "route"))
            .arg(key(id, "bytes"))
            .arg(key(id, "ended"))
            .ignore()
            .cmd("PUBLISH")
            .arg(channel(id))
            .arg("e")
            .ignore()
            .query_async(&mut c)
            .await
    }

    /// Someone on another proxy is reading the answer.
    pub async fn read_elsewhere(&self, id: &str) -> bool {
        let mut c = self.connection.clone();
        c.exists(key(id, "reading")).await.unwrap_or(false)
    }

    async fn is_of(&self, provider: Provider, id: &str) -> redis::RedisResult<bool> {
        let mut c = self.connection.clone();
        let route: Option<String> = c.get(key(id, "route")).await?;
        Ok(route.as_deref() == Some(provider.name()))
    }

    /// Asks every proxy to stop the answer; `false` when there is none of this route.
    pub async fn stop(&self, provider: Provider, id: &str) -> redis::RedisResult<bool> {
        if !self.is_of(provider, id).await? {
            return Ok(false);
        }
        let mut c = self.connection.clone();
        let () = c.publish(STOP_CHANNEL, id).await?;
        Ok(true)
    }

    /// The ids whose stop was asked for, on any proxy.
    pub async fn stops(&self) -> redis::RedisResult<impl Stream<Item = String>> {
        let mut pubsub = self.client.get_async_pubsub().await?;
        pubsub.subscribe(STOP_CHANNEL).await?;
        Ok(pubsub.into_on_message().filter_map(|message| async move { message.get_payload::<String>().ok() }))
    }

    /// The answer from byte `from` on, then live, as another proxy mirrors it.
    pub async fn resume(&self, provider: Provider, id: &str, from: usize) -> redis::RedisResult<Remote> {
        // Subscribed before reading the stored bytes, so that nothing falls between the two.
        let mut pubsub = self.client.get_async_pubsub().await?;
        pubsub.subscribe(channel(id)).await?;
        if !self.is_of(provider, id).await? {
            return Ok(Remote::Unknown);
        }
        let mut c = self.connection.clone();
        let stored: Vec<u8> = c.get(key(id, "bytes")).await?;
        let ended: bool = c.exists(key(id, "ended")).await?;
        if from > stored.len() {
            return Ok(Remote::Past(stored.len()));
        }
        let mirror = self.clone();
        let id = id.to_string();
        let reading = async_stream::stream! {
            let heartbeat = mirror.heartbeat(&id);
            futures_util::pin_mut!(heartbeat);
            let mut sent = stored.len();
            if from < stored.len() {
                yield Bytes::copy_from_slice(&stored[from..]);
            }
            if ended {
                return;
            }
            let mut messages = pubsub.into_on_message();
            loop {
                let message = tokio::select! {
                    message = messages.next() => message,
                    () = &mut heartbeat => None,
                };
                let Some(message) = message else { return };
                let payload = message.get_payload_bytes();
                match payload.split_first() {
                    Some((b'd', rest)) if rest.len() >= 8 => {
                        let offset = u64::from_be_bytes(rest[..8].try_into().expect("8 bytes")) as usize;
                        let chunk = &rest[8..];
                        // Skips what the stored bytes already held.
                        if offset + chunk.len() > sent && offset <= sent {
                            yield Bytes::copy_from_slice(&chunk[sent - offset..]);
                            sent = offset + chunk.len();
                        }
                    }
                    _ => return,
                }
            }
        };
        Ok(Remote::Found(Box::pin(reading)))
    }

    /// Keeps `…:reading` alive for as long as it is polled (never resolves unless Redis fails).
    async fn heartbeat(&self, id: &str) {
        let mut c = self.connection.clone();
        let ttl = Self::millis(self.grace);
        loop {
            let set: redis::RedisResult<()> =
                redis::cmd("SET").arg(key(id, "reading")).arg(1).arg("PX").arg(ttl).query_async(&mut c).await;
            if set.is_err() {
                return;
            }
            tokio::time::sleep((self.grace / 3).max(Duration::from_millis(100))).await;
        }
    }
}
