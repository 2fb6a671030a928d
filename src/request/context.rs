//! The context budget: the request is shortened when its estimated
//! token count exceeds 70% of the model's context window.
//!
//! The strategy, in full:
//! - Tokens are estimated as one per 4 bytes of text (tool inputs and outputs as JSON), plus 4 per
//!   turn, plus the system prompt. A rough count on purpose: it needs no tokenizer and errs long.
//! - Under 70% of the limit (`Profile::context_tokens`, default [`DEFAULT_LIMIT`]) nothing changes.
//! - Above it, whole exchanges are dropped from the oldest: an exchange is a user turn with the
//!   assistant turns and tool results that answer it, so a tool call never loses its result.
//!   The system prompt (in the profile, never in the conversation) and the exchange of the last
//!   user message are never dropped, even if they alone exceed the budget.
//! - The first user turn left starts with `[N earlier messages omitted]`, so the model knows.

use super::{Profile, Turn};
use crate::json::to_json;

/// The context window assumed when the profile gives none.
pub const DEFAULT_LIMIT: u32 = 128_000;
/// The share of the context window the conversation may fill.
pub const BUDGET_SHARE: f64 = 0.7;

/// Estimated tokens of one turn.
pub fn estimate_turn(turn: &Turn) -> usize {
    let bytes = match turn {
        Turn::User { content } => content.len(),
        Turn::Assistant { content, tool_calls } => {
            content.len() + tool_calls.iter().map(|c| c.name.len() + to_json(&c.input).len()).sum::<usize>()
        }
        Turn::Tool { results } => results.iter().map(|r| r.name.len() + to_json(&r.output).len()).sum(),
    };
    bytes.div_ceil(4) + 4
}

/// Estimated tokens of the whole request.
pub fn estimate(conversation: &[Turn], profile: &Profile) -> usize {
    let system = profile.system.as_deref().map_or(0, |s| s.len().div_ceil(4));
    system + conversation.iter().map(estimate_turn).sum::<usize>()
}

/// The conversation to send: whole, or with its oldest exchanges dropped to fit the budget.
pub fn fit(conversation: &[Turn], profile: &Profile) -> Vec<Turn> {
    let limit = profile.context_tokens.unwrap_or(DEFAULT_LIMIT);
    let budget = (f64::from(limit) * BUDGET_SHARE) as usize;
    let mut total = estimate(conversation, profile);
    if total <= budget {
        return conversation.to_vec();
    }
    // Exchange starts: each user turn. The last one's exchange always stays.
    let starts: Vec<usize> =
        conversation.iter().enumerate().filter(|(_, t)| matches!(t, Turn::User { .. })).map(|(i, _)| i).collect();
    let Some(&last_start) = starts.last() else {
        return conversation.to_vec();
    };
    let mut cut = 0;
    for &next in starts.iter().skip_while(|&&s| s == 0) {
        if total <= budget {
            break;
        }
        total -= conversation[cut..next].iter().map(estimate_turn).sum::<usize>();
        cut = next;
        if next == last_start {
            break;
        }
    }
    // Turns before the first user turn (none in a well-formed conversation) go with the first cut.
    let mut kept = conversation[cut..].to_vec();
    if cut > 0 {
        if let Some(Turn::User { content }) = kept.first_mut() {
            *content = format!("[{cut} earlier messages omitted]\n\n{content}");
        }
    }
    kept
}
