//! Inline thinking tags: `<think>…</think>` and `<thinking>…</thinking>` inside response text.
//!
//! Models served without a reasoning parser (DeepSeek-R1, QwQ, Qwen3 behind an OpenAI-compatible
//! server) put their reasoning in the text between these tags. Some chat templates open the tag in
//! the prompt, so the output starts inside the thinking and only `</think>` appears; that cannot be
//! told from ordinary text until the tag arrives, so it is an option
//! ([`CleanOptions::starts_in_thinking`](super::CleanOptions)) rather than a guess.

use super::markers::{match_literal, Match};
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
    Open,
    Close,
}

impl ThinkingTags {
    /// No tags when inline thinking is off.
    pub(crate) fn new(options: &CleanOptions) -> ThinkingTags {
        if !options.inline_thinking {
            return ThinkingTags::default();
        }
        let names = options.thinking_tags.iter().filter(|n| !n.is_empty());
        ThinkingTags {
            opening: names.clone().map(|n| format!("<{n}>")).collect(),
            closing: names.map(|n| format!("</{n}>")).collect(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.opening.is_empty()
    }

    /// Matches a tag at the start of `rest` (which starts with `<`). Inside thinking only closing
    /// tags count; outside, an opening tag starts thinking and a stray closing tag is dropped.
    pub(crate) fn match_at(&self, rest: &str, inside: bool) -> (Match, Tag) {
        let mut best = Match::No;
        for (tags, tag) in [(&self.closing, Tag::Close), (&self.opening, Tag::Open)] {
            if inside && tag == Tag::Open {
                continue;
            }
            for literal in tags {
                match match_literal(rest, literal) {
                    Match::Full(n) => return (Match::Full(n), tag),
                    Match::Partial => best = Match::Partial,
                    Match::No => {}
                }
            }
        }
        (best, Tag::Open)
    }
}
