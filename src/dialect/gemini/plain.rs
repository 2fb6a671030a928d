//! A plain Gemini response, read with the checking scanner ([`crate::dialect::scan`]).
//!
//! Nearly every response of a long answer has one shape: one candidate whose content is one
//! part, the running `usageMetadata`, the model's version and the response's id; the last one
//! adds a `finishReason`. The part is text (`thought: true` for thinking) or a `functionCall`:
//! whole, or on Vertex a piece of one streamed in pieces (a name and `willContinue`, a
//! `partialArgs` piece, or `{}`), each maybe beside a `thoughtSignature`. One response differs
//! from the one before in its text and its running counts, so the decoder learns their shape
//! ([`crate::dialect::scan::Shape`]): every string it takes and every count is a hole of it. A
//! call's name, id and `willContinue` are taken field by field; only its `args` and `partialArgs`
//! are handed over as JSON text, for the decoder to parse as the general path parses them (a
//! response with them is not learned, nor the last one, with the finish reason). `Some`
//! exactly when the general path would read the response as that part, that finish reason, that
//! usage and that id and nothing else; `None` for anything else (a `finishMessage`, several parts
//! or candidates, an error, a blocked prompt).

use crate::dialect::scan::{Reader, Seen, Taken};

/// Where [`plain`] puts each string it takes.
pub(super) const TEXT: usize = 0;
pub(super) const RESPONSE_ID: usize = 1;
pub(super) const FINISH_REASON: usize = 2;
pub(super) const SIGNATURE: usize = 3;
/// The part's `functionCall.name`, `.id`, and `.args` and `.partialArgs` as JSON text.
pub(super) const CALL_NAME: usize = 4;
pub(super) const CALL_ID: usize = 5;
pub(super) const CALL_ARGS: usize = 6;
pub(super) const PARTIAL_ARGS: usize = 7;
/// The `usageMetadata` counts by [`COUNTS`], as their text, in the slots from this one on.
pub(super) const FIRST_COUNT: usize = 8;
pub(super) const SLOTS: usize = FIRST_COUNT + COUNTS.len();

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
    /// The part is a `functionCall` (an object; its fields are taken).
    pub(super) call: bool,
    /// The call's `willContinue`.
    pub(super) will_continue: bool,
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
                usage(r, &mut taken)?;
            }
            b"responseId" => {
                seen.once(2)?;
                taken[RESPONSE_ID] = Some(r.take(RESPONSE_ID)?);
            }
            b"error" | b"promptFeedback" => return None,
            _ => r.skip_value(0)?,
        }
        Some(())
    })?;
    (taken[TEXT].is_some() || plain.call).then_some((plain, taken))
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
                // The last response: nothing of its shape follows it.
                r.not_learned();
                taken[FINISH_REASON] = Some(r.string()?);
            }
            b"finishMessage" => return None,
            _ => r.skip_value(1)?,
        }
        Some(())
    })
}

/// The one part: `text` and maybe `thought`, or a `functionCall` object; maybe a
/// `thoughtSignature`; nothing else.
fn part<'a>(r: &mut Reader<'a>, plain: &mut Plain, taken: &mut Taken<'a, SLOTS>) -> Option<()> {
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"text" => {
                seen.once(0)?;
                taken[TEXT] = Some(r.take(TEXT)?);
            }
            b"thought" => {
                seen.once(1)?;
                plain.thought = r.bool()?;
            }
            b"thoughtSignature" => {
                seen.once(2)?;
                taken[SIGNATURE] = Some(r.take(SIGNATURE)?);
            }
            b"functionCall" => {
                seen.once(3)?;
                plain.call = true;
                call(r, plain, taken)?;
            }
            _ => return None,
        }
        Some(())
    })?;
    // The general path reads a call only in a part without text.
    (taken[TEXT].is_none() || !plain.call).then_some(())
}

/// A `functionCall`: a string `name` and `id`, a boolean `willContinue`, `args` and `partialArgs`
/// as JSON text; other fields skipped (the general path reads none). A field of another type is
/// left to the general path, which reads such a call differently (a `null` name is no name).
fn call<'a>(r: &mut Reader<'a>, plain: &mut Plain, taken: &mut Taken<'a, SLOTS>) -> Option<()> {
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"name" => {
                seen.once(0)?;
                taken[CALL_NAME] = Some(r.take(CALL_NAME)?);
            }
            b"id" => {
                seen.once(1)?;
                taken[CALL_ID] = Some(r.take(CALL_ID)?);
            }
            b"willContinue" => {
                seen.once(2)?;
                plain.will_continue = r.bool()?;
            }
            b"args" => {
                seen.once(3)?;
                taken[CALL_ARGS] = Some(r.raw_value(6)?.into());
            }
            b"partialArgs" => {
                seen.once(4)?;
                taken[PARTIAL_ARGS] = Some(r.raw_value(6)?.into());
            }
            _ => r.skip_value(6)?,
        }
        Some(())
    })
}

/// `usageMetadata`: the counts by [`COUNTS`], each a number taken as its text (they grow with
/// every response: holes of the learned shape); other fields skipped.
fn usage<'a>(r: &mut Reader<'a>, taken: &mut Taken<'a, SLOTS>) -> Option<()> {
    r.fields(0, &COUNTS, &mut |r, i| {
        taken[FIRST_COUNT + i] = Some(r.take_number(FIRST_COUNT + i)?);
        Some(())
    })
}
