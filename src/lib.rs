//! chatstream reads any LLM chat stream and turns it into clean, ready-to-render events and chat
//! state: OpenAI Chat Completions (and OpenAI-compatible servers), the OpenAI Responses API,
//! Anthropic Messages, Gemini, Ollama, the Vercel AI SDK's UI message stream and data stream, and
//! the agent backend protocol (`docs/agent-protocol.md`). It compiles to WebAssembly for the
//! browser (the npm package `chatstream`) and runs natively too.
//!
//! ```
//! use chatstream::event::StreamEvent;
//! use chatstream::stream::{ChatStream, StreamOptions};
//!
//! // An Anthropic stream, arriving in pieces cut anywhere: here inside a tool marker.
//! let pieces: [&[u8]; 3] = [
//!     b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"role\":\"assistant\",\"content\":[],\"usage\":{}}}\n\n\
//!       event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Found it [[to",
//!     b"ol:0]]. <think>sure?</think>Yes.\"}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n",
//!     b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
//! ];
//! let mut stream = ChatStream::new(StreamOptions::default()); // the dialect is detected
//! let mut events = Vec::new();
//! for piece in pieces {
//!     stream.push(piece, &mut events);
//! }
//! stream.finish(&mut events);
//!
//! let text: String = events
//!     .iter()
//!     .filter_map(|e| if let StreamEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
//!     .collect();
//! assert_eq!(text, "Found it . Yes."); // no marker, no tag, not even for one event
//! let Some(StreamEvent::Complete { payload }) = events.last() else { panic!("{events:?}") };
//! assert_eq!(payload.message, "Found it [[tool:0]]. Yes."); // what to store
//! assert_eq!(payload.thinking.as_deref(), Some("sure?"));
//! assert_eq!(payload.finish_reason.map(|r| r.as_str()), Some("stop"));
//! ```
//!
//! # Four stages
//!
//! Bytes flow one way through four stages. Each takes its input in pieces of any size, keeps only
//! the tail it cannot decide yet, and never reads again what it has consumed.
//!
//! 1. [`framing`]: bytes → frames. Server-Sent Events as the WHATWG HTML standard defines them,
//!    newline-delimited JSON, and the AI SDK v4 `CODE:JSON` lines.
//! 2. [`dialect`]: frames → [`dialect::ProviderEvent`]s, one decoder per wire dialect, the dialect
//!    detected from the headers or the first frames ([`dialect::Dialect`]).
//! 3. [`clean`]: provider events → clean [`event::StreamEvent`]s. Tool, thinking and payload
//!    markers come out of the text; tool calls are numbered; everything is gathered for the one
//!    `complete` each message ends with.
//! 4. [`state`]: events → [`state::ChatState`], the chat's state machine (messages, the
//!    streaming text, status, tool progress, errors), reporting each change as a small patch.
//!
//! [`stream::ChatStream`] runs the first three as one object. [`chat::ChatSession`] runs a chat's
//! turns over a [`state::StateMachine`]: it gives the requests to send and reads each response
//! through a stream. For a page that talks to a provider directly, [`request`] writes each provider's
//! request body from one conversation, and [`agent`] keeps the state of the tool loop run in the
//! browser.
//!
//! The JS bindings (`wasm`, built for `wasm32` only) are `ChatStream`, `ChatSession` (a
//! [`chat::ChatSession`], behind the package's JS `ChatSession` of the same name) and the stateless helpers
//! (`resolveToolMarkers`, `parseLlmResponse`, the error messages). They check JS arguments and
//! convert values, and hold no chat logic of their own. They do no I/O either: the package's JS
//! sends the requests, reads the bodies, keeps the timers and runs the tools.
//!
//! Every value that crosses to JS or is saved (events, message parts, patches, the chat state,
//! saved messages, requests) is declared once, with its JSON keys, by the crate's `wire!` macro:
//! its JSON writer, `serde::Serialize` and, for saved messages, its reader all come from that
//! declaration.
//!
//! # The event contract in brief
//!
//! Events are plain objects discriminated by `type`: `status`, `text_delta`, `thinking_delta`,
//! `tool_start`, `tool_input_delta`, `tool_call`, `tool_progress`, `tool_complete`, `complete`,
//! `error`, `cancelled`. Text never carries `␄`, control characters, thinking tags, payload markers
//! or `[[tool:N]]`. Every message ends with exactly one `complete` whose payload holds the whole
//! message (`message` with markers, `text` without, `segments`, `tool_history`, payloads,
//! `finish_reason`, `usage`). Bad input becomes an `error` event with a code
//! ([`error::ErrorCode`]); what arrived before it is kept. The full contract is `docs/events.md`.
#![warn(missing_docs)]

#[cfg(feature = "provider")]
pub mod agent;
#[cfg(feature = "ai-sdk")]
pub mod ai_sdk;
pub mod chat;
pub mod clean;
pub mod dialect;
pub mod error;
pub mod event;
pub mod framing;
pub mod json;
#[cfg(feature = "provider")]
pub mod request;
pub mod state;
pub mod stream;
mod wire;

/// The JS bindings (only in the wasm build).
#[cfg(target_arch = "wasm32")]
pub mod wasm;

/// talc instead of the standard library's dlmalloc (the `talc` feature, which the npm package is
/// built with), growing a long value in place.
#[cfg(all(target_arch = "wasm32", feature = "talc"))]
mod allocator;
