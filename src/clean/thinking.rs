//! Inline thinking tags: `<think>…</think>` and `<thinking>…</thinking>` inside response text.
//!
//! Models served without a reasoning parser (DeepSeek-R1, QwQ, Qwen3 behind an OpenAI-compatible
//! server) put their reasoning in the text between these tags. Some chat templates open the tag in
//! the prompt, so the output starts inside the thinking and only `</think>` appears; that cannot be
//! told from ordinary text until the tag arrives, so it is an option
//! ([`CleanOptions::starts_in_thinking`](super::CleanOptions)) rather than a guess.

use super::matching::{match_literal, Match};
use super::CleanOptions;

/// The configured tags, written out.
#[derive(Debug, Clone, Default)]
pub(crate) struct ThinkingTags {
    opening: Vec<String>,
    closing: Vec<String>,
}

/// What a tag at some position does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    /// Opens thinking with the configured tag of this number.
    Open(usize),
    Close,
}

/// Where the text is relative to inline thinking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Thinking {
    Outside,
    /// Opened by the tag of this number: only its own closing tag ends it, so a model writing
    /// about `</thinking>` inside `<think>` is not cut short.
    Inside(usize),
    /// The text started inside thinking, with no opening tag: any closing tag ends it.
    InsideUnopened,
}

impl ThinkingTags {
    /// No tags when inline thinking is off.
    pub(crate) fn new(options: &CleanOptions) -> ThinkingTags {
        if !options.inline_thinking {
            return ThinkingTags::default();
        }
        let mut tags = ThinkingTags::default();
        // One loop for both lists (two iterators over the names were each built twice over).
        // `concat`, not `format!`: every stream makes these, and the formatting machinery was a
        // tenth of making one.
        for name in options.thinking_tags.iter().filter(|n| !n.is_empty()) {
            tags.opening.push(["<", name, ">"].concat());
            tags.closing.push(["</", name, ">"].concat());
        }
        tags
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.opening.is_empty()
    }

    /// Matches a tag at the start of `rest` (which starts with `<`). Outside thinking, an opening
    /// tag starts it and a stray closing tag is only dropped; inside, only a closing tag counts.
    pub(crate) fn match_at(&self, rest: &str, state: Thinking) -> (Match, Tag) {
        let closing: &[String] = match state {
            Thinking::Inside(i) => std::slice::from_ref(&self.closing[i]),
            _ => &self.closing,
        };
        let opening: &[String] = if state == Thinking::Outside { &self.opening } else { &[] };
        let mut best = (Match::No, Tag::Close);
        let candidates =
            closing.iter().map(|t| (t, Tag::Close)).chain(opening.iter().enumerate().map(|(i, t)| (t, Tag::Open(i))));
        for (literal, tag) in candidates {
            match match_literal(rest, literal) {
                Match::Full(n) => return (Match::Full(n), tag),
                Match::Partial => best.0 = Match::Partial,
                Match::No => {}
            }
        }
        best
    }
}
