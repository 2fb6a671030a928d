//! From a message's parts to what is stored and rendered: `message` with `[[tool:N]]`, `text`
//! with none, and `segments` in reading order; and the same for stored messages (the JS helpers
//! `resolveToolMarkers` and `parseLlmResponse`).

use serde_json::Value;

use super::markers::{strip_unwanted_chars, MarkerStripper, Token};
use super::payload::PayloadKind;
use super::CleanOptions;
use crate::event::{Segment, SharedText, ToolRecord};
use crate::json::Shared;
use crate::wire::wire;

/// One part of a message in reading order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    Text(String),
    /// A `[[tool:N]]` marker in the text.
    Marker(u32),
    /// Where tool N started, for a tool whose marker never appears in the text: an agent backend
    /// writes the marker after the tool ran; a provider talked to directly writes none.
    Started(u32),
    /// This many bytes of text that the reader of the text deltas holds ([`TextLeft`]).
    Held(usize),
}

impl Part {
    /// Appends text, joining it to the text part before it.
    pub(crate) fn push_text(parts: &mut Vec<Part>, text: &str) {
        match parts.last_mut() {
            Some(Part::Text(last)) => last.push_str(text),
            _ => parts.push(Part::Text(text.to_owned())),
        }
    }

    /// Appends `len` bytes of text held by the reader, joining them to the held text before them.
    pub(crate) fn push_held(parts: &mut Vec<Part>, len: usize) {
        match parts.last_mut() {
            Some(Part::Held(last)) => *last += len,
            _ => parts.push(Part::Held(len)),
        }
    }
}

/// `complete`'s `message`, `text` and `segments` left to the reader that keeps the text deltas
/// joined (a session's state, which holds them anyway): the message in reading order with its
/// text as lengths ([`Part::Held`]), and the whitespace no delta carried (before the first
/// visible character, after the last). A long answer's text is then held once while it streams.
#[derive(Debug)]
pub(crate) struct TextLeft {
    pub(crate) parts: Vec<Part>,
    pub(crate) lead: String,
    pub(crate) tail: String,
}

impl TextLeft {
    /// `message`, `text` and `segments`, `joined` being the text deltas joined: moved into them
    /// when the message is text alone (nearly every long answer), else cut into the parts' texts.
    /// Out of line: it runs once an answer, and its caller once a read.
    #[inline(never)]
    pub(crate) fn resolve(self, joined: String, tool_history: &[ToolRecord]) -> (SharedText, SharedText, Vec<Segment>) {
        // The deltas joined are the text trimmed: what `resolved` makes of text alone.
        let parts = if self.parts.iter().all(|part| matches!(part, Part::Held(_))) {
            vec![Part::Text(joined)]
        } else {
            // The text as released, end to end, is the lead, the deltas joined, then the tail: true
            // while the cleaner only trims the text's two edges (no paragraph breaks put in it).
            let pieces = [self.lead.as_str(), joined.as_str(), self.tail.as_str()];
            debug_assert_eq!(
                (self.parts.iter()).map(|part| if let Part::Held(len) = part { *len } else { 0 }).sum::<usize>(),
                pieces.iter().map(|piece| piece.len()).sum::<usize>(),
                "the held lengths are the text released"
            );
            let mut at = 0;
            (self.parts.into_iter())
                .map(|part| match part {
                    Part::Held(len) => {
                        let mut text = String::with_capacity(len);
                        let mut start = 0;
                        for piece in pieces {
                            let end = start + piece.len();
                            let (from, to) = (at.clamp(start, end), (at + len).clamp(start, end));
                            text.push_str(piece.get(from - start..to - start).unwrap_or_default());
                            start = end;
                        }
                        at += len;
                        Part::Text(text)
                    }
                    part => part,
                })
                .collect()
        };
        resolved(parts, tool_history)
    }
}

/// The message in reading order with each tool placed once: at its markers, or where it
/// started when the text has no marker for it (a `Started` part is left out when it has one).
fn placed(parts: &[Part]) -> impl Iterator<Item = &Part> {
    // A sorted Vec, not a BTreeSet: the set's code and the stable sort it brought cost the agent
    // module about 4 KB raw; a message's markers are few, and searched once per tool.
    let mut marked: Vec<u32> =
        parts.iter().filter_map(|p| if let Part::Marker(n) = p { Some(*n) } else { None }).collect();
    marked.sort_unstable();
    parts.iter().filter(move |part| !matches!(part, Part::Started(n) if marked.binary_search(n).is_ok()))
}

/// `message`: the text with `[[tool:N]]` where tools ran (as an agent backend stores it), trimmed.
pub(crate) fn message_of(parts: &[Part]) -> String {
    let mut message = String::new();
    for part in placed(parts) {
        match part {
            Part::Text(text) => message.push_str(text),
            Part::Marker(n) | Part::Started(n) => {
                // Not `format!`: its formatter was a third of resolving a message of one tool call.
                message.push_str("[[tool:");
                message.push_str(itoa::Buffer::new().format(u64::from(*n)));
                message.push_str("]]");
            }
            // Made text before this runs (`TextLeft::resolve`).
            Part::Held(_) => {}
        }
    }
    trim_in_place(&mut message);
    message
}

/// `text`: the text parts joined, without markers, trimmed. The one text part of a message
/// without tools (nearly every long answer) is the text itself, moved, not copied.
pub(crate) fn text_of(parts: Vec<Part>) -> String {
    let mut texts = parts.into_iter().filter_map(|part| if let Part::Text(text) = part { Some(text) } else { None });
    let mut text = texts.next().unwrap_or_default();
    texts.for_each(|more| text.push_str(&more));
    trim_in_place(&mut text);
    text
}

/// `text.trim()`, in `text`'s own buffer: a long text is not copied to be trimmed.
fn trim_in_place(text: &mut String) {
    text.truncate(text.trim_end().len());
    text.drain(..text.len() - text.trim_start().len());
}

/// `message`, `text` and `segments` from a message's parts. An answer without tools (nearly every
/// long one) is one text in all three: it is held once, its parts' text moved into it.
pub(crate) fn resolved(parts: Vec<Part>, tool_history: &[ToolRecord]) -> (SharedText, SharedText, Vec<Segment>) {
    if parts.iter().all(|part| matches!(part, Part::Text(_))) {
        // What `message_of`, `text_of` and `segments_of` make of text alone: the text, trimmed.
        let text = SharedText::from(text_of(parts));
        let segments = if text.is_empty() { Vec::new() } else { vec![Segment::Text { text: text.clone() }] };
        return (text.clone(), text, segments);
    }
    let message = message_of(&parts);
    let segments = segments_of(&parts, tool_history);
    (message.into(), text_of(parts).into(), segments)
}

/// `segments`: text (trimmed, empty ones left out) and tool cards, in reading order. A card whose
/// tool is not in `tool_history` has no tool, input or output: the card stays visible, empty.
pub(crate) fn segments_of(parts: &[Part], tool_history: &[ToolRecord]) -> Vec<Segment> {
    let mut segments = Vec::new();
    // Text between two tools, joined: a start that is not shown does not split it.
    let mut text = String::new();
    for part in placed(parts) {
        match part {
            Part::Text(more) => text.push_str(more),
            Part::Marker(n) | Part::Started(n) => {
                push_text_segment(&mut text, &mut segments);
                segments.push(tool_segment(*n, tool_history.get(*n as usize)));
            }
            // Made text before this runs (`TextLeft::resolve`).
            Part::Held(_) => {}
        }
    }
    push_text_segment(&mut text, &mut segments);
    segments
}

/// Ends a run of text: trimmed (moved into its segment, not copied), and left out when empty.
fn push_text_segment(text: &mut String, segments: &mut Vec<Segment>) {
    trim_in_place(text);
    if !text.is_empty() {
        segments.push(Segment::Text { text: std::mem::take(text).into() });
    }
}

fn tool_segment(index: u32, record: Option<&ToolRecord>) -> Segment {
    match record {
        Some(r) => Segment::Tool {
            index,
            tool_use_id: Some(r.tool_use_id.clone()),
            tool: Some(r.tool_name.clone()),
            input: r.input.clone(),
            output: r.output.clone(),
            is_error: r.is_error,
        },
        None => Segment::Tool {
            index,
            tool_use_id: None,
            tool: None,
            input: Shared::default(),
            output: Shared::default(),
            is_error: false,
        },
    }
}

/// Splits a stored message at its `[[tool:N]]` markers: text segments and tool cards filled from
/// `tool_history[N]` (the JS helper `resolveToolMarkers`).
///
/// ```
/// use chatstream::clean::resolve_tool_markers;
/// use chatstream::event::Segment;
/// let segments = resolve_tool_markers("Searching.\n\n[[tool:0]]\n\nFound 5.", &[]);
/// assert_eq!(segments.len(), 3);
/// assert!(matches!(&segments[1], Segment::Tool { index: 0, tool: None, .. }));
/// ```
pub fn resolve_tool_markers(message: &str, tool_history: &[ToolRecord]) -> Vec<Segment> {
    let mut stripper = MarkerStripper::tool_markers_only();
    let mut tokens = Vec::new();
    stripper.push(message, &mut tokens);
    stripper.finish(&mut tokens);
    let parts: Vec<Part> = tokens
        .into_iter()
        .filter_map(|token| match token {
            Token::Text(text) => Some(Part::Text(text)),
            Token::Tool(n) => Some(Part::Marker(n)),
            _ => None,
        })
        .collect();
    segments_of(&parts, tool_history)
}

wire! {
/// A whole response text taken apart (the JS helper `parseLlmResponse`, and how a backend's
/// `complete.payload.message` is cleaned).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedResponse {
    /// Clean text with `[[tool:N]]` markers kept.
    pub message: String,
    /// Clean text with no markers.
    pub text: String,
    /// Inline `<think>` text, if any.
    pub thinking: Option<String>,
    /// `SUGGESTED_VALUES:` pulled out of the text.
    pub suggested_values: Option<Value>,
    /// `SUGGESTED_ACTIONS:` pulled out of the text.
    pub suggested_actions: Option<Value>,
    /// `{type, data}` from a registered marker such as `SCHEMA_PROPOSAL:`.
    pub custom_payload: Option<Value>,
    /// Why a payload marker was left in the text (its JSON missing or malformed).
    pub diagnostics: Vec<String>,
}
}

/// Cleans a whole response text as the stream would: unwanted characters, thinking tags, payload
/// markers (a later payload of a kind replaces an earlier one), edges trimmed.
///
/// ```
/// use chatstream::clean::{parse_llm_response, CleanOptions};
/// let parsed = parse_llm_response(
///     "Pick one.\nSUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"yes\"}]",
///     &CleanOptions::default(),
/// );
/// assert_eq!(parsed.text, "Pick one.");
/// assert_eq!(parsed.suggested_values.unwrap()[0]["value"], "yes");
/// ```
pub fn parse_llm_response(text: &str, options: &CleanOptions) -> ParsedResponse {
    parse_with_parts(text, options).0
}

/// [`parse_llm_response`] and the message's parts (for segments).
pub(crate) fn parse_with_parts(text: &str, options: &CleanOptions) -> (ParsedResponse, Vec<Part>) {
    let mut stripper = MarkerStripper::new(options);
    let mut tokens = Vec::new();
    stripper.push(&strip_unwanted_chars(text), &mut tokens);
    stripper.finish(&mut tokens);
    let mut parsed = ParsedResponse::default();
    let mut parts = Vec::new();
    let mut clean_text = String::new();
    let mut thinking = String::new();
    for token in tokens {
        match token {
            Token::Text(text) => {
                clean_text.push_str(&text);
                Part::push_text(&mut parts, &text);
            }
            Token::Thinking(text) => thinking.push_str(&text),
            Token::Tool(n) => parts.push(Part::Marker(n)),
            Token::Payload { kind, value } => *parsed.field(&kind) = Some(kind.wrap(value)),
            Token::Malformed { reason, .. } => parsed.diagnostics.push(reason),
        }
    }
    parsed.message = message_of(&parts);
    parsed.text = clean_text.trim().to_owned();
    let thinking = thinking.trim();
    parsed.thinking = (!thinking.is_empty()).then(|| thinking.to_owned());
    (parsed, parts)
}

impl ParsedResponse {
    pub(crate) fn field(&mut self, kind: &PayloadKind) -> &mut Option<Value> {
        match kind {
            PayloadKind::SuggestedValues => &mut self.suggested_values,
            PayloadKind::SuggestedActions => &mut self.suggested_actions,
            PayloadKind::Custom(_) => &mut self.custom_payload,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_the_text_parts_joined_and_trimmed_markers_left_out() {
        let parts = vec![
            Part::Text("\u{3000} héllo ".into()),
            Part::Marker(0),
            Part::Started(1),
            Part::Text(" wörld \n".into()),
        ];
        assert_eq!(text_of(parts), "héllo  wörld");
        assert_eq!(text_of(vec![Part::Text(" \u{feff}x\t".into())]), "\u{feff}x");
        assert_eq!(text_of(vec![Part::Marker(0)]), "");
    }
}
