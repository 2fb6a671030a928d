//! Stage 2: frames → [`ProviderEvent`]s, one decoder per wire dialect.
//!
//! A decoder reads one frame ([`FrameRef`]) at a time and appends what it means, in provider-neutral
//! terms, to its output ([`ProviderEvents`], which merges runs of text as they are written). It
//! does no cleaning (markers, thinking tags, control characters are the next stage's work) and
//! never sees bytes. Auto-detection lives in [`detect`].

// Helpers shared by some dialects only: a build without all of them leaves some unused (the
// full build still checks for dead code).
#![cfg_attr(not(feature = "dialects"), allow(dead_code))]

pub mod detect;
/// Test and fuzz builds with every dialect only: see the module's documentation.
#[cfg(all(any(test, fuzzing), feature = "dialects"))]
#[doc(hidden)]
pub mod fuzzing;
mod not_built_in;
mod provider_event;
mod scan;
#[cfg(test)]
mod test_support;

#[cfg(feature = "dialect-agent")]
mod agent;
#[cfg(feature = "dialect-agent")]
pub use agent::AgentDecoder;
#[cfg(feature = "dialect-anthropic")]
mod anthropic;
#[cfg(feature = "dialect-anthropic")]
pub use anthropic::AnthropicDecoder;
#[cfg(feature = "dialect-data-stream")]
mod data_stream;
#[cfg(feature = "dialect-data-stream")]
pub use data_stream::DataStreamDecoder;
#[cfg(feature = "dialect-gemini")]
mod gemini;
#[cfg(feature = "dialect-gemini")]
pub use gemini::GeminiDecoder;
#[cfg(feature = "dialect-ollama")]
mod ollama;
#[cfg(feature = "dialect-ollama")]
pub use ollama::OllamaDecoder;
#[cfg(feature = "dialect-openai")]
mod openai;
#[cfg(feature = "dialect-openai")]
pub use openai::OpenAiDecoder;
#[cfg(feature = "dialect-openai-responses")]
mod openai_responses;
#[cfg(feature = "dialect-openai-responses")]
pub use openai_responses::OpenAiResponsesDecoder;
#[cfg(feature = "dialect-ui-message-stream")]
mod ui_message_stream;
#[cfg(feature = "dialect-ui-message-stream")]
pub use ui_message_stream::UiMessageStreamDecoder;

pub use provider_event::{ProviderEvent, ProviderEvents};

use std::collections::HashMap;

use serde_json::Value;

use crate::framing::{FrameRef, Framing};

/// [`ProviderEvents::text`] or [`ProviderEvents::thinking`]: what a decoder's fast path read.
type TextEvent = fn(&mut ProviderEvents, &str);

/// A frame's data, trimmed, unless it carries nothing: blank, or a `[DONE]` of the kind servers
/// and proxies in OpenAI's style add to dialects that end with an event of their own.
pub(crate) fn data_to_read(frame: FrameRef<'_>) -> Option<&str> {
    let data = frame.data.trim();
    (!data.is_empty() && data != "[DONE]").then_some(data)
}

/// `value[key]` when it is a string.
pub(crate) fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// For a second tool call under an `id` a call already has: an id no call has (`taken` says which
/// are had), `id_N` with N the first free one from `next` (2 at first) on, and the error that says
/// so. Events, the saved state and the results sent back name a call by its id: two calls under one
/// would be merged into one. `next` only moves on, so a stream that takes the candidates ahead
/// makes each one tried once, not once per call. (`taken` is a `dyn`: the module holds one copy
/// of this, not one per caller.)
#[cfg(feature = "model-tool-calls")]
pub(crate) fn own_tool_id(id: &str, next: &mut usize, taken: &dyn Fn(&str) -> bool) -> (String, ProviderEvent) {
    let mut n = (*next).max(2);
    let own = loop {
        let candidate = format!("{id}_{n}");
        n += 1;
        if !taken(&candidate) {
            break candidate;
        }
    };
    *next = n;
    let message = format!("Failed to parse response: a second tool call came with the id {id}; it goes by {own}");
    (own, ProviderEvent::Error { code: crate::error::ErrorCode::ServiceUnavailable, message, fatal: false })
}

/// Tool names by call id, for the dialects whose results carry only the id. A
/// `HashMap<String, usize>` into a list of names: that map type is the one the other stages use,
/// so its code is in the module once (a map of `String` values was another copy of it).
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub(crate) struct ToolNames {
    places: HashMap<String, usize>,
    names: Vec<String>,
}

impl ToolNames {
    /// The name of the call `id`.
    pub(crate) fn get(&self, id: &str) -> Option<&str> {
        self.places.get(id).and_then(|&at| self.names.get(at)).map(String::as_str)
    }

    /// Names the call `id`, in place of any name it had.
    pub(crate) fn set(&mut self, id: &str, name: String) {
        match self.places.get(id).and_then(|&at| self.names.get_mut(at)) {
            Some(old) => *old = name,
            None => {
                self.places.insert(id.to_owned(), self.names.len());
                self.names.push(name);
            }
        }
    }
}

/// A wire-dialect decoder. It reads every frame it is given; [`Decoder`] adds the rule all
/// dialects share, that nothing is read after the message is over.
pub trait DialectDecoder {
    /// Decodes one frame, appending its events to `out`.
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents);
    /// The input ended. Dialects whose end of body is their terminal event (Gemini) emit
    /// `End` here when the stream finished properly; the others add nothing.
    fn finish(&mut self, _out: &mut ProviderEvents) {}
}

/// The wire dialects chatstream reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Chat Completions (`openai`): OpenAI and every compatible server.
    OpenAi,
    /// OpenAI's Responses API (`openai-responses`).
    OpenAiResponses,
    /// Anthropic Messages (`anthropic`).
    Anthropic,
    /// Gemini (`gemini`).
    Gemini,
    /// Ollama's native `/api/chat` (`ollama`).
    Ollama,
    /// The Vercel AI SDK UI message stream, v5 and later (`ui-message-stream`).
    UiMessageStream,
    /// The Vercel AI SDK v4 data stream (`data-stream`).
    DataStream,
    /// The agent backend protocol (`agent`).
    Agent,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 8] = [
        Dialect::OpenAi,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Ollama,
        Dialect::UiMessageStream,
        Dialect::DataStream,
        Dialect::Agent,
    ];

    /// The name used in options and fixtures: `openai`, `openai-responses`, ….
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAi => "openai",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Ollama => "ollama",
            Dialect::UiMessageStream => "ui-message-stream",
            Dialect::DataStream => "data-stream",
            Dialect::Agent => "agent",
        }
    }

    /// The dialect with this name.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The framing it is carried in.
    pub fn framing(self) -> Framing {
        match self {
            Dialect::Ollama | Dialect::DataStream => Framing::Lines,
            _ => Framing::Sse,
        }
    }

    /// The names of the dialects this build reads, for the errors that say so.
    pub(crate) fn built_in_names() -> String {
        let names: Vec<&str> = Dialect::ALL.into_iter().filter(|d| d.is_built_in()).map(Dialect::name).collect();
        names.join(", ")
    }

    /// Whether this build reads it. Each dialect is a cargo feature (`dialect-openai`, …, all of
    /// them in `dialects`, a default feature), so that a build for one backend protocol carries
    /// only its decoder.
    #[inline(always)]
    pub fn is_built_in(self) -> bool {
        match self {
            Dialect::OpenAi => cfg!(feature = "dialect-openai"),
            Dialect::OpenAiResponses => cfg!(feature = "dialect-openai-responses"),
            Dialect::Anthropic => cfg!(feature = "dialect-anthropic"),
            Dialect::Gemini => cfg!(feature = "dialect-gemini"),
            Dialect::Ollama => cfg!(feature = "dialect-ollama"),
            Dialect::UiMessageStream => cfg!(feature = "dialect-ui-message-stream"),
            Dialect::DataStream => cfg!(feature = "dialect-data-stream"),
            Dialect::Agent => cfg!(feature = "dialect-agent"),
        }
    }

    /// A fresh decoder for it (see [`Decoder`] for the rule all of them share). For a dialect
    /// not built in, one that ends the message with an error at its first frame.
    pub fn decoder(self) -> Box<dyn DialectDecoder> {
        match self {
            #[cfg(feature = "dialect-openai")]
            Dialect::OpenAi => Box::<OpenAiDecoder>::default(),
            #[cfg(feature = "dialect-openai-responses")]
            Dialect::OpenAiResponses => Box::<OpenAiResponsesDecoder>::default(),
            #[cfg(feature = "dialect-anthropic")]
            Dialect::Anthropic => Box::<AnthropicDecoder>::default(),
            #[cfg(feature = "dialect-gemini")]
            Dialect::Gemini => Box::<GeminiDecoder>::default(),
            #[cfg(feature = "dialect-ollama")]
            Dialect::Ollama => Box::<OllamaDecoder>::default(),
            #[cfg(feature = "dialect-ui-message-stream")]
            Dialect::UiMessageStream => Box::<UiMessageStreamDecoder>::default(),
            #[cfg(feature = "dialect-data-stream")]
            Dialect::DataStream => Box::<DataStreamDecoder>::default(),
            #[cfg(feature = "dialect-agent")]
            Dialect::Agent => Box::<AgentDecoder>::default(),
            #[allow(unreachable_patterns)] // every dialect built in
            _ => Box::new(not_built_in::NotBuiltIn(self)),
        }
    }
}

/// A dialect's decoder under the rule every dialect shares: once the message is over (its
/// terminal event, a fatal error or a cancel), later frames are not read. Servers send things
/// after their end marker (a repeated `[DONE]`, a usage chunk, keep-alives); none of it belongs
/// to the message.
pub struct Decoder {
    dialect: Box<dyn DialectDecoder>,
    ended: bool,
}

impl Decoder {
    /// The decoder for `dialect`.
    pub fn new(dialect: Dialect) -> Decoder {
        Decoder::of(dialect.decoder())
    }

    /// The rule around any decoder.
    pub fn of(dialect: Box<dyn DialectDecoder>) -> Decoder {
        Decoder { dialect, ended: false }
    }

    /// Decodes one frame, unless the message is over.
    pub fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        if self.ended {
            return;
        }
        let first = out.len();
        self.dialect.decode(frame, out);
        self.ended = out[first..].iter().any(ProviderEvent::ends_message);
    }

    /// The message is over: later frames are not read.
    pub fn has_ended(&self) -> bool {
        self.ended
    }

    /// The input ended.
    pub fn finish(&mut self, out: &mut ProviderEvents) {
        if !self.ended {
            self.dialect.finish(out);
            self.ended = true;
        }
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::ToolNames;

    /// Tool names kept as a `HashMap<String, String>` keeps them, over ids set, renamed and read
    /// in a pseudo-random order.
    #[test]
    fn tool_names_are_a_map_of_names() {
        let (mut names, mut map) = (ToolNames::default(), HashMap::<String, String>::new());
        let mut seed = 7u32;
        for step in 0..2000 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let id = format!("call_{}", (seed >> 16) % 50);
            if seed % 3 == 0 {
                names.set(&id, format!("tool{step}"));
                map.insert(id.clone(), format!("tool{step}"));
            }
            assert_eq!(names.get(&id), map.get(&id).map(String::as_str), "{id} at step {step}");
        }
    }
    /// A stream that first takes the ids a renamed call would get (`x_2` … `x_1001`), then sends a
    /// thousand more calls under `x`: each gets an id no call has, and each candidate is tried
    /// once over all of them (a search from 2 for every call would try half a million).
    #[cfg(feature = "model-tool-calls")]
    #[test]
    fn second_calls_get_free_ids_each_candidate_tried_once() {
        use std::cell::Cell;
        use std::collections::HashSet;

        let mut taken: HashSet<String> = (2..=1001).map(|n| format!("x_{n}")).collect();
        taken.insert("x".into());
        let (mut next, tries) = (0, Cell::new(0));
        for _ in 0..1000 {
            let is_taken = |candidate: &str| {
                tries.set(tries.get() + 1);
                taken.contains(candidate)
            };
            let (own, error) = super::own_tool_id("x", &mut next, &is_taken);
            assert!(matches!(error, super::ProviderEvent::Error { fatal: false, .. }));
            assert!(taken.insert(own.clone()), "{own} was taken");
        }
        assert_eq!(tries.get(), 2000);
    }
}
