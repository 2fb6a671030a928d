//! Chunks with tool calls, a finish or usage, read with the checking scanner
//! ([`super::super::scan`]): what [`super::plain`] leaves to the general path in a stream of
//! tool calls. Read as a `Value`, such a chunk cost several times its share of a live read.
//!
//! One choice (index 0) whose delta has any of `content`, `reasoning_content` and `reasoning`
//! (each a string or `null`), a `null` `refusal`, and `tool_calls`: up to [`MAX_CALLS`] calls,
//! each `{"index"?, "id"?, "function"?: {"name"?, "arguments"?}}` with every one of those a
//! `null` or of the type the general path reads; the choice's `finish_reason` a string or
//! `null`; the chunk's `usage` `null` or Chat Completions' counts, each a plain integer or
//! `null`. Other fields are skipped. `Some` exactly when the general path reads the chunk as
//! these values; anything else (content parts, `reasoning_details`, a refusal, an error,
//! several choices, a field twice, a count that is not an integer) is left to it.

use super::plain::{self, string_or_null};
use crate::dialect::scan::{Reader, Seen, Taken};
use crate::event::{FinishReason, Usage};

/// Calls read in one chunk: servers that stream calls send one a chunk, Mistral a turn's
/// parallel calls together (a few). A chunk of more goes to the general path.
pub(super) const MAX_CALLS: usize = 4;

/// The strings taken: [`CONTENT`], [`REASONING_CONTENT`], [`REASONING`], then each call's
/// [`ID`], [`NAME`] and [`ARGUMENTS`] (see [`slot`]).
pub(super) const SLOTS: usize = 3 + 3 * MAX_CALLS;
pub(super) const ID: usize = 0;
pub(super) const NAME: usize = 1;
pub(super) const ARGUMENTS: usize = 2;

/// Where call `call`'s `field` is taken.
pub(super) const fn slot(call: usize, field: usize) -> usize {
    3 + 3 * call + field
}

/// What the chunk holds besides its strings; compared whole when a shape is replayed, since
/// these values are part of the shape's fixed bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(in crate::dialect) struct Chunk {
    /// How many tool calls the delta has.
    pub(super) calls: usize,
    /// Each call's `index`.
    pub(super) index: [Option<u64>; MAX_CALLS],
    pub(super) finish: Option<FinishReason>,
    /// `usage`, when it is an object: input, output, reasoning, cached input and total tokens.
    pub(super) usage: Option<[Option<u64>; 5]>,
}

impl Chunk {
    pub(super) fn usage(&self) -> Option<Usage> {
        self.usage.map(|[input, output, reasoning, cached, total]| Usage {
            input_tokens: input,
            output_tokens: output,
            reasoning_tokens: reasoning,
            cached_input_tokens: cached,
            total_tokens: total,
        })
    }
}

/// A chunk of the shape above, its strings taken; `None` for any other chunk.
pub(in crate::dialect) fn chunk<'a>(r: &mut Reader<'a>) -> Option<(Chunk, Taken<'a, SLOTS>)> {
    let mut chunk = Chunk::default();
    let mut taken = [const { None }; SLOTS];
    let mut counts = None;
    plain::chunk(
        r,
        |r| {
            let finish = plain::choice(r, |r| delta(r, &mut chunk, &mut taken))?;
            chunk.finish = finish.map(|reason| super::normalize_finish(&reason));
            Some(())
        },
        |r| {
            if r.peek()? != b'n' {
                counts = Some(usage(r)?);
                return Some(());
            }
            r.null()
        },
    )?;
    chunk.usage = counts;
    Some((chunk, taken))
}

/// A delta: its text as a plain one's, its `tool_calls`, other fields skipped.
fn delta<'a>(r: &mut Reader<'a>, chunk: &mut Chunk, taken: &mut Taken<'a, SLOTS>) -> Option<()> {
    let mut seen = Seen::default();
    plain::delta(r, taken, |r, key, taken| match key {
        b"tool_calls" => {
            seen.once(0)?;
            calls(r, chunk, taken)
        }
        // Read by the general path only (a `content` here is an array of parts).
        b"content" | b"reasoning_details" => None,
        _ => r.skip_value(2),
    })
}

/// `tool_calls`: an array of calls, or `null` (which the general path ignores).
fn calls<'a>(r: &mut Reader<'a>, chunk: &mut Chunk, taken: &mut Taken<'a, SLOTS>) -> Option<()> {
    if r.peek()? == b'n' {
        return r.null();
    }
    r.eat(b'[')?;
    if r.eat(b']').is_some() {
        return Some(());
    }
    loop {
        (chunk.calls < MAX_CALLS).then_some(())?;
        call(r, chunk, taken)?;
        chunk.calls += 1;
        if r.eat(b',').is_none() {
            return r.eat(b']');
        }
    }
}

/// One call, at `chunk.calls`.
fn call<'a>(r: &mut Reader<'a>, chunk: &mut Chunk, taken: &mut Taken<'a, SLOTS>) -> Option<()> {
    let at = chunk.calls;
    let mut seen = Seen::default();
    r.object(|r, key| match key {
        b"index" => {
            seen.once(0)?;
            if r.peek()? == b'n' {
                return r.null();
            }
            chunk.index[at] = Some(r.u64()?);
            Some(())
        }
        b"id" => {
            seen.once(1)?;
            string_or_null(r, slot(at, ID), taken)
        }
        b"function" => {
            seen.once(2)?;
            if r.peek()? == b'n' {
                return r.null();
            }
            let mut seen = Seen::default();
            r.object(|r, key| {
                let field = match key {
                    b"name" => NAME,
                    b"arguments" => ARGUMENTS,
                    _ => return r.skip_value(4),
                };
                seen.once(field as u32)?;
                string_or_null(r, slot(at, field), taken)
            })
        }
        _ => r.skip_value(3),
    })
}

/// Chat Completions' `usage` object; `None` where a count is neither a plain integer nor `null`.
fn usage(r: &mut Reader<'_>) -> Option<[Option<u64>; 5]> {
    const INPUT: usize = 0;
    const OUTPUT: usize = 1;
    const REASONING_TOKENS: usize = 2;
    const CACHED: usize = 3;
    const TOTAL: usize = 4;
    let mut counts = [None; 5];
    let mut seen = Seen::default();
    r.object(|r, key| {
        let (field, details) = match key {
            b"prompt_tokens" => (INPUT, None),
            b"completion_tokens" => (OUTPUT, None),
            b"total_tokens" => (TOTAL, None),
            b"prompt_tokens_details" => (CACHED, Some(&b"cached_tokens"[..])),
            b"completion_tokens_details" => (REASONING_TOKENS, Some(&b"reasoning_tokens"[..])),
            _ => return r.skip_value(2),
        };
        seen.once(field as u32)?;
        counts[field] = match details {
            None => count(r)?,
            Some(inner) => details_count(r, inner)?,
        };
        Some(())
    })?;
    Some(counts)
}

/// A count: a plain integer that fits a `u64`, or `null`.
fn count(r: &mut Reader<'_>) -> Option<Option<u64>> {
    if r.peek()? == b'n' {
        return r.null().map(|()| None);
    }
    r.u64().map(Some)
}

/// The count `key` of a details object (`null` or absent: none).
fn details_count(r: &mut Reader<'_>, key: &[u8]) -> Option<Option<u64>> {
    if r.peek()? == b'n' {
        return r.null().map(|()| None);
    }
    let mut found = None;
    let mut seen = Seen::default();
    r.object(|r, field| {
        if field != key {
            return r.skip_value(3);
        }
        seen.once(0)?;
        found = count(r)?;
        Some(())
    })?;
    Some(found)
}
