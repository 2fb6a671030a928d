//! chatstream: read any LLM chat stream, get clean events and chat state.
//! (Crate docs are written in full once the pipeline exists.)

pub mod agent;
pub mod clean;
pub mod dialect;
pub mod error;
pub mod event;
pub mod framing;
pub mod request;
pub mod session;
pub mod stream;

/// The JS bindings (only in the wasm build).
#[cfg(target_arch = "wasm32")]
pub mod wasm;
