//! A chat whose backend is an AI SDK route (`streamText(...).toUIMessageStreamResponse()`), its
//! messages kept in the AI SDK's UI message shape, as the AI SDK's own chat (`useChat`) keeps
//! them: [`AiSdkChat`].
//!
//! Three stages, one module each:
//!
//! 1. `message`: UI messages read from JSON text with the checks a stored message must pass
//!    (a message that is not one is refused, naming it), and written back as they came, keys in
//!    their order (`object`: JSON objects as JS holds them; `json_reader`: JSON text read into
//!    them).
//! 2. `chunks`: the reducer, each UI message stream chunk applied to the message being written
//!    (`partial_json`: a tool input streamed so far, read as the AI SDK reads it).
//! 3. `chat`: the turns: request bodies, regenerate slicing, continuing after tool outputs and
//!    approval answers, reading an answer's body through the SSE framing (`framing`).
//!
//! The behaviour follows the AI SDK's (`AbstractChat`, `processUIMessageStream`,
//! `DefaultChatTransport`): the messages an app saves are the ones `useChat` would have saved.
//! Where this differs, it says so: a body that ends without a `finish` chunk is an error here
//! (the AI SDK reads it as complete), and a tool output or approval answer for an id no message
//! holds is refused (the AI SDK ignores it).

mod chat;
mod chunks;
mod json_reader;
mod message;
mod object;
mod partial_json;

pub use chat::{AiSdkChat, Finish, Update};
