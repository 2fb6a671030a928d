//! A tool call's streamed argument text, shared by the call and its `tool_input_delta` events,
//! and the best JSON value a start of it allows.

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Value};

use super::partial_json::PartialJson;
#[cfg(target_arch = "wasm32")]
pub(crate) use super::partial_json::Step;
use crate::event::ToolArguments;

/// The best JSON value that `arguments`, the start of a tool call's arguments, allow.
pub fn partial_input(arguments: &str) -> Value {
    let mut partial = PartialJson::of_length(arguments.len());
    partial.push(arguments);
    partial.into_value().unwrap_or_else(|| json!({}))
}

/// A tool call's argument text, shared with the WebAssembly bindings, which read a
/// `tool_input_delta`'s `partial_input` from it when it is asked for, after the call too: one
/// copy of a long input, not one here and one in JS.
#[derive(Debug, Default, Clone)]
pub(crate) struct SharedArguments(pub(super) Arc<Mutex<Arguments>>);

impl SharedArguments {
    /// A panic while the lock was held cannot leave the text half-written (`push_str` is
    /// whole or not at all), so a poisoned lock is used as it is.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Arguments> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The handle a `tool_input_delta` carries.
    pub(crate) fn carried(&self) -> ToolArguments {
        ToolArguments(Some(self.0.clone()))
    }

    /// The arguments a `tool_input_delta` carries, if it carries any.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // read by the WebAssembly bindings and tests
    pub(crate) fn of(carried: &ToolArguments) -> Option<SharedArguments> {
        carried.0.clone()?.downcast().ok().map(SharedArguments)
    }

    /// The arguments a `tool_input_delta` carries, locked, without taking a share of them (as
    /// [`SharedArguments::of`] does): what the bindings read of every delta they hand to JS.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn lock_carried(carried: &ToolArguments) -> Option<MutexGuard<'_, Arguments>> {
        let arguments = carried.0.as_deref()?.downcast_ref::<Mutex<Arguments>>()?;
        Some(arguments.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// The text, joined; copied only when another holder shares it.
    pub(super) fn into_text(self) -> String {
        match Arc::try_unwrap(self.0) {
            Ok(alone) => alone.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).into_text(),
            Err(shared) => SharedArguments(shared).lock().text().into_owned(),
        }
    }
}

/// The text in blocks that are never moved once full, so a long input grows without the copies
/// (and, in WebAssembly, the memory that is never given back) of a string doubling its capacity.
/// Joined once, when the arguments are complete.
#[derive(Debug, Default)]
pub(crate) struct Arguments {
    pub(super) blocks: Vec<String>,
    /// How much of the text the bindings handed to JS in `tool_input_delta` events, in bytes:
    /// where the next event's arguments end.
    #[cfg(target_arch = "wasm32")]
    pub(crate) handed: usize,
    /// The key JS knows them by (`src/wasm/partial_input.rs`), 0 while it holds none of their
    /// events: kept here, each delta finds it without a lookup.
    #[cfg(target_arch = "wasm32")]
    pub(crate) key: u32,
}

impl Arguments {
    /// A block's size: small inputs stay in one block, grown as a string grows.
    const BLOCK: usize = 64 * 1024;

    pub(super) fn push(&mut self, text: &str) {
        match self.blocks.last_mut() {
            Some(last) if last.len() + text.len() <= Self::BLOCK.max(last.capacity()) => last.push_str(text),
            _ => {
                let mut block = String::with_capacity(if self.blocks.is_empty() {
                    text.len()
                } else {
                    Self::BLOCK.max(text.len())
                });
                block.push_str(text);
                self.blocks.push(block);
            }
        }
    }

    /// The blocks as one, each freed once it is copied.
    pub(super) fn join(&mut self) {
        if self.blocks.len() > 1 {
            let blocks = std::mem::take(&mut self.blocks);
            let mut text = String::with_capacity(blocks.iter().map(String::len).sum());
            for block in blocks {
                text.push_str(&block);
            }
            self.blocks = vec![text];
        }
    }

    pub(super) fn into_text(mut self) -> String {
        self.join();
        self.blocks.pop().unwrap_or_default()
    }

    pub(super) fn text(&self) -> std::borrow::Cow<'_, str> {
        match &self.blocks[..] {
            [] => "".into(),
            [one] => one.as_str().into(),
            blocks => blocks.concat().into(),
        }
    }

    /// The best JSON value the first `end` bytes of the text allow (all of it past its end),
    /// read from the blocks where they are.
    pub(crate) fn partial_input(&self, end: usize) -> Value {
        self.parsed(end, (0, 0)).into_value().unwrap_or_else(|| json!({}))
    }

    /// The first `end` bytes of the text (all of it past its end) read by a [`PartialJson`],
    /// `known` as [`PartialJson::knowing`] takes it (where a string begins, and how many of its
    /// bytes JS holds: none, 0).
    pub(crate) fn parsed(&self, end: usize, (from, known): (usize, usize)) -> PartialJson {
        let length = self.blocks.iter().map(String::len).sum::<usize>().min(end);
        let mut partial = PartialJson::of_length(length).knowing(from, known);
        let mut left = end;
        for block in &self.blocks {
            if left < block.len() {
                // `end` is where a delta ended, a character boundary; one that is not is moved back to one.
                let mut upto = left;
                while !block.is_char_boundary(upto) {
                    upto -= 1;
                }
                partial.push(&block[..upto]);
                break;
            }
            partial.push(block);
            left -= block.len();
        }
        partial
    }

    /// Whether the string that opens at `from` in the text (its quote) begins with `prefix`
    /// as it is written, with no escape in it: then the string read there begins with `prefix`
    /// too, byte for byte. What lets JS hand over a long input it built while it streamed
    /// (`src/wasm/partial_input.rs`) as the call's string, not a second copy of it.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // read by the WebAssembly bindings and tests
    pub(crate) fn string_starts_with(&self, from: usize, prefix: &[u8]) -> bool {
        let Some(end) = from.checked_add(1 + prefix.len()) else { return false };
        // The bytes from `from` to `end` in the text, each block's part of them compared in turn.
        let (mut at, mut checked) = (0, 0);
        for block in &self.blocks {
            let (start, stop) = (from.max(at), end.min(at + block.len()));
            if start < stop {
                let written = &block.as_bytes()[start - at..stop - at];
                let written = match written.split_first() {
                    _ if start > from => written,
                    Some((b'"', after)) => after,
                    _ => return false,
                };
                if prefix.get(checked..checked + written.len()) != Some(written)
                    || memchr::memchr(b'\\', written).is_some()
                {
                    return false;
                }
                checked += written.len();
            }
            at += block.len();
        }
        checked == prefix.len() && at > from
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value at an end inside the blocks is the value of the text up to there read whole,
    /// at every kind of end: inside the first block, on a block's edge, inside a later one, past the text.
    #[test]
    fn partial_input_reads_the_blocks_up_to_an_end() {
        let pieces: Vec<String> = std::iter::once(r#"{"a": ["#.to_owned())
            .chain((0..10_000).map(|i| format!(r#""é{i}🙂 x", "#)))
            .chain(std::iter::once(r#""z"], "b": 1}"#.to_owned()))
            .collect();
        let mut arguments = Arguments::default();
        let mut ends = vec![0];
        for piece in &pieces {
            arguments.push(piece);
            ends.push(ends.last().unwrap() + piece.len());
        }
        assert!(arguments.blocks.len() > 1, "the text spans blocks");
        let text = pieces.concat();
        let edge = arguments.blocks[0].len();
        for end in [1, 7, ends[40], edge, ends[ends.len() / 2], text.len() - 1, text.len(), usize::MAX] {
            assert_eq!(arguments.partial_input(end), partial_input(&text[..end.min(text.len())]), "end {end}");
        }
        assert_eq!(arguments.partial_input(usize::MAX)["b"], 1);
    }

    /// A string's start is known as written only up to its first escape, across blocks, and only
    /// for the string that opens at the place named.
    #[test]
    fn a_string_starts_with_what_is_written_before_any_escape() {
        let long = "é🙂x".repeat(20_000);
        let mut arguments = Arguments::default();
        for piece in [r#"{"a": "#, "\"", &long[..30_001], &long[30_001..], r#"\n tail", "b": "x"}"#] {
            arguments.push(piece);
        }
        assert!(arguments.blocks.len() > 1, "the string spans blocks");
        let from = r#"{"a": "#.len();
        let value = arguments.partial_input(usize::MAX)["a"].as_str().unwrap().to_owned();
        assert!(value.starts_with(&long));
        for (prefix, expected) in [
            (&long[..0], true),
            (&long[..7], true),
            (&long[..], true),
            // The escape: read, it is a line break; written, a backslash and an `n`.
            (&value[..long.len() + 1], false),
            ("é🙂y", false),
        ] {
            assert_eq!(arguments.string_starts_with(from, prefix.as_bytes()), expected, "{} bytes", prefix.len());
        }
        assert!(!arguments.string_starts_with(from + 1, "🙂".as_bytes()), "not where a string opens");
        assert!(!arguments.string_starts_with(from - 1, b""), "not a quote");
        let after = arguments.blocks.iter().map(String::len).sum::<usize>();
        assert!(!arguments.string_starts_with(after, b""), "past the text");
        assert!(!arguments.string_starts_with(usize::MAX, b""));

        // Four backslashes written are two read, then "ab": the string read does not start with four.
        let mut escaped = Arguments::default();
        escaped.push(r#"{"a": "\\\\ab"}"#);
        assert_eq!(escaped.partial_input(usize::MAX)["a"], "\\\\ab");
        assert!(escaped.string_starts_with(from, b""));
        assert!(!escaped.string_starts_with(from, b"\\\\\\\\"));
    }
}
