//! The offline simulated provider: answers any route whose provider is not configured, in that provider's
//! own wire format, deterministically (the same request always gets the same bytes).
//!
//! What it does, decided from the request body:
//! - a tool result at the end of the conversation → a final answer quoting the result;
//! - tools offered and the last user message names one → a call to that tool;
//! - otherwise a plain answer about the last user message;
//! - thinking first when the request enables it the provider's way, or the prompt contains "think";
//! - on `/api/chat/stream` (agent protocol): status, a tool run with progress, a `[[tool:0]]` marker,
//!   suggested values and actions;
//! - faults when the prompt contains `sim:error` (a provider error mid-stream), `sim:truncate` (the stream
//!   ends without its terminal event), `sim:stall` (the stream stops sending; the proxy's idle timeout
//!   ends it) or `sim:` and an HTTP status such as `sim:401`, `sim:429`, `sim:529` (that status with the
//!   provider's error body; 429 carries Retry-After).
//!
//! The frame layouts follow the recorded streams in `tests/fixtures/recorded/<provider>/`.
//!
//! The request is read (`request`), the answer planned (`plan`), and the frames written by the dialect's
//! writer one at a time, as the client takes them: a connection holds the plan (a few hundred bytes of
//! text) and one frame, never the whole answer. What the answer repeats from the request (the model, the
//! conversation id, tool names and arguments) is bounded; a longer one gets a 400.

use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{self, BoxStream, StreamExt};
use serde_json::Value;

use crate::ordered::Json;
use crate::provider::Provider;

mod agent;
mod anthropic;
mod gemini;
mod ollama;
mod openai;
mod openai_responses;
mod plan;
mod request;

use plan::Answer;
use request::{Fault, Request};

/// A simulated answer: an HTTP error, or a stream of frames (produced as it is read).
pub enum Simulated {
    Status { status: u16, body: Json },
    Stream { frames: BoxStream<'static, Bytes>, stall: bool },
}

/// The frames paced `delay` apart (the first at once); a stalled stream then stays silent.
pub fn paced(frames: BoxStream<'static, Bytes>, stall: bool, delay: Duration) -> BoxStream<'static, Bytes> {
    let paced = frames.enumerate().then(move |(i, frame)| async move {
        if i > 0 && !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        frame
    });
    if stall {
        paced.chain(stream::pending()).boxed()
    } else {
        paced.boxed()
    }
}

pub fn simulate(provider: Provider, body: &Value) -> Simulated {
    let bad_request = |message: String| Simulated::Status { status: 400, body: provider.error_body(400, &message) };
    let request = match Request::read(provider, body) {
        Ok(request) => request,
        Err(message) => return bad_request(message),
    };
    if let Some(Fault::Status(status)) = request.fault {
        let message = match status {
            401 => "Simulated: invalid API key.".to_string(),
            429 => "Simulated: rate limit reached, retry after 1s.".to_string(),
            529 => "Simulated: overloaded.".to_string(),
            _ => format!("Simulated: HTTP {status}."),
        };
        return Simulated::Status { status, body: provider.error_body(status, &message) };
    }
    let answer = match Answer::plan(provider, &request) {
        Ok(answer) => answer,
        Err(message) => return bad_request(message),
    };
    let stall = request.fault == Some(Fault::Stall);
    // Only what the frames repeat is kept; the request itself is dropped here.
    let echo = request.echo;
    let frames = match provider {
        Provider::OpenAi | Provider::Compat => openai::frames(echo, answer).boxed(),
        Provider::OpenAiResponses => openai_responses::frames(echo, answer).boxed(),
        Provider::Anthropic => anthropic::frames(echo, answer).boxed(),
        Provider::Gemini => gemini::frames(echo, answer).boxed(),
        Provider::Ollama => ollama::frames(echo, answer).boxed(),
        Provider::Agent => agent::frames(echo, answer).boxed(),
    };
    Simulated::Stream { frames: frames.map(Bytes::from).boxed(), stall }
}
