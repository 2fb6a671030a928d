//! A plain Gemini response, read with the checking scanner ([`crate::dialect::scan`]).
//!
//! Nearly every response of a long answer has one shape: one candidate whose content is one
//! text part (`thought: true` for thinking), the running `usageMetadata`, the model's version and
//! the response's id; the last one adds a `finishReason`. A function call comes whole in the same
//! shape, its part a `functionCall` with a `name`, maybe `args` and an `id`, beside its
//! `thoughtSignature`. Every response repeats the usage and the id, so a plain forward scan (no
//! learned layout) reads it. `Some` exactly when the general path would read the response as that
//! part, that finish reason, that usage and that id and nothing else; `None` for anything else
//! (a `finishMessage`, a call streamed in pieces, several parts or candidates, an error, a
//! blocked prompt).

use crate::dialect::scan::{Reader, Seen, Taken};

/// Where [`plain`] puts each string it takes.
pub(super) const TEXT: usize = 0;
pub(super) const RESPONSE_ID: usize = 1;
pub(super) const FINISH_REASON: usize = 2;
pub(super) const SIGNATURE: usize = 3;
/// A whole function call's `name`, `id` and `args` (its JSON text).
pub(super) const CALL_NAME: usize = 4;
pub(super) const CALL_ID: usize = 5;
pub(super) const CALL_ARGS: usize = 6;
const SLOTS: usize = 7;

/// The `usageMetadata` counts the general path reads ([`super::usage_of`]).
pub(super) const COUNTS: [&str; 6] = [
    "promptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "totalTokenCount",
    "toolUsePromptTokenCount",
    "cachedContentTokenCount",
];

/// What a plain response says besides its strings.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(in crate::dialect) struct Plain {
    /// The part is thinking.
    pub(super) thought: bool,
    /// By [`COUNTS`]; all `None` without `usageMetadata`.
    pub(super) counts: [Option<u64>; 6],
}

impl Plain {
    /// A count by its name, as the general path looks it up.
    pub(super) fn count(&self, name: &str) -> Option<u64> {
        COUNTS.iter().position(|c| *c == name).and_then(|i| self.counts[i])
    }
}

/// A plain response, its strings taken; `None` for any other.
pub(in crate::dialect) fn plain<'a>(r: &mut Reader<'a>) -> Option<(Plain, Taken<'a, SLOTS>)> {
    let mut plain = Plain::default();
    let mut taken = [const { None }; SLOTS];
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"candidates" => {
                seen.once(0)?;
                r.eat(b'[')?;
                candidate(r, &mut plain, &mut taken)?;
                r.eat(b']')?;
            }
            b"usageMetadata" => {
                seen.once(1)?;
                usage(r, &mut plain.counts)?;
            }
            b"responseId" => {
                seen.once(2)?;
                taken[RESPONSE_ID] = Some(r.string()?);
            }
            b"error" | b"promptFeedback" => return None,
            _ => r.skip_value(0)?,
        }
        Some(())
    })?;
    (taken[TEXT].is_some() || taken[CALL_NAME].is_some()).then_some((plain, taken))
}

/// The one candidate: its content, and maybe its `finishReason` (a string; the general path
/// ignores one of another type, so that is left to it).
fn candidate<'a>(r: &mut Reader<'a>, plain: &mut Plain, taken: &mut Taken<'a, SLOTS>) -> Option<()> {
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"content" => {
                seen.once(0)?;
                r.object(|r, key| match key {
                    b"parts" => {
                        seen.once(1)?;
                        r.eat(b'[')?;
                        part(r, plain, taken)?;
                        r.eat(b']')
                    }
                    _ => r.skip_value(2),
                })?;
            }
            b"finishReason" => {
                seen.once(2)?;
                taken[FINISH_REASON] = Some(r.string()?);
            }
            b"finishMessage" => return None,
            _ => r.skip_value(1)?,
        }
        Some(())
    })
}

/// The one part: `text` and maybe `thought`, or a whole `functionCall`; maybe a
/// `thoughtSignature`; nothing else.
fn part<'a>(r: &mut Reader<'a>, plain: &mut Plain, taken: &mut Taken<'a, SLOTS>) -> Option<()> {
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"text" => {
                seen.once(0)?;
                taken[TEXT] = Some(r.string()?);
            }
            b"thought" => {
                seen.once(1)?;
                plain.thought = r.bool()?;
            }
            b"thoughtSignature" => {
                seen.once(2)?;
                taken[SIGNATURE] = Some(r.string()?);
            }
            b"functionCall" => {
                seen.once(3)?;
                function_call(r, taken)?;
            }
            _ => return None,
        }
        Some(())
    })?;
    // The general path reads a call only in a part without text.
    (taken[TEXT].is_none() || taken[CALL_NAME].is_none()).then_some(())
}

/// A whole call: its `name`, maybe its `args` (any value, as JSON text) and `id`; nothing else
/// (a call streamed in pieces is the general path's).
fn function_call<'a>(r: &mut Reader<'a>, taken: &mut Taken<'a, SLOTS>) -> Option<()> {
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"name" => {
                seen.once(0)?;
                taken[CALL_NAME] = Some(r.string()?);
            }
            b"id" => {
                seen.once(1)?;
                taken[CALL_ID] = Some(r.string()?);
            }
            b"args" => {
                seen.once(2)?;
                taken[CALL_ARGS] = Some(r.raw_value(5)?.into());
            }
            _ => return None,
        }
        Some(())
    })?;
    taken[CALL_NAME].as_ref().map(drop)
}

/// `usageMetadata`: the counts by [`COUNTS`], each a plain whole number; other fields skipped.
fn usage(r: &mut Reader<'_>, counts: &mut [Option<u64>; 6]) -> Option<()> {
    let mut seen = Seen::default();
    r.object(|r, key| match COUNTS.iter().position(|c| c.as_bytes() == key) {
        Some(i) => {
            seen.once(i as u32)?;
            counts[i] = Some(r.u64()?);
            Some(())
        }
        None => r.skip_value(1),
    })
}
