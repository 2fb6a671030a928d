//! The streaming marker stripper: raw response text in, [`Token`]s out.
//!
//! It takes `[[tool:N]]` markers, inline thinking tags and payload markers with their JSON out of
//! text that arrives in pieces of any size. The hold-back rule: only the longest
//! tail that could still begin a marker is held — at most the longest marker — and everything
//! before it is released in the same push. A payload marker's JSON is held until its brackets
//! balance (capped at [`MAX_PAYLOAD_BYTES`]); JSON that does not parse is released as text, never
//! lost. Text already scanned is never scanned again, except a payload's JSON when it is
//! released, which is read once more as ordinary text.
//!
//! Linear whatever the text holds: a payload marker is looked for in text read for the first
//! time and in a failed payload's JSON read again, but not in the JSON of a failed payload that
//! was itself found in text read again. Otherwise an answer repeating `SUGGESTED_VALUES: [`
//! would be read once more for every marker in it; this way each byte is read a bounded number
//! of times (as text, as JSON, as text again, as JSON again, as text). A failed payload is
//! reported once per kind: one answer can hold thousands.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

use serde_json::Value;

use super::matching::{match_literal, match_tool_marker, Match};
use super::payload::{payload_markers, BalancedJson, PayloadKind, MAX_GAP_BYTES, MAX_PAYLOAD_BYTES};
use super::thinking::{Tag, Thinking, ThinkingTags};
use super::{CleanOptions, PayloadMarker};

/// One decided piece of the text, in reading order: what the stripper made of it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token {
    Text(String),
    Thinking(String),
    /// A `[[tool:N]]` marker.
    Tool(u32),
    Payload {
        kind: PayloadKind,
        value: Value,
    },
    /// A payload marker whose JSON was missing or did not parse; its text was released as text.
    Malformed {
        kind: PayloadKind,
        reason: String,
    },
}

/// [`strip_unwanted_chars`] of an owned text: the text itself when it has none of them.
pub(crate) fn without_unwanted_chars(s: String) -> String {
    let stripped = match strip_unwanted_chars(&s) {
        std::borrow::Cow::Owned(stripped) => Some(stripped),
        std::borrow::Cow::Borrowed(_) => None,
    };
    stripped.unwrap_or(s)
}

/// Removes what never reaches the UI: ␄ (U+2404), the `▌` cursor, and control characters other
/// than `\n` and `\t`.
pub(crate) fn strip_unwanted_chars(s: &str) -> std::borrow::Cow<'_, str> {
    let unwanted = |c: char| c == '\u{2404}' || c == '▌' || (c.is_control() && c != '\n' && c != '\t');
    if !has_unwanted(s.as_bytes()) {
        return s.into();
    }
    s.chars().filter(|&c| !unwanted(c)).collect::<String>().into()
}

/// Whether `strip_unwanted_chars` has anything to remove from these bytes.
///
/// Hand-written on purpose: every text and thinking delta passes here, and looking at each
/// character (decoded, then `is_control`) was a tenth of a live push of a long non-ASCII delta.
/// Each unwanted character's UTF-8 begins with a byte that `SUSPECT` marks: a C0 control or DEL,
/// 0xC2 (the C1 controls are U+0080-U+009F: 0xC2 0x80-0x9F) or 0xE2 (U+2404 is 0xE2 0x90 0x84,
/// U+258C 0xE2 0x96 0x8C; the rest of 0xE2's characters, such as ’ and —, are common text).
fn has_unwanted(bytes: &[u8]) -> bool {
    let mut from = 0;
    while let Some(at) = first_marked(&bytes[from..], &SUSPECT) {
        if unwanted_at(&bytes[from + at..]) {
            return true;
        }
        from += at + 1;
    }
    false
}

/// Where the first byte of `bytes` that `table` marks (not 0) is.
///
/// Eight bytes a step, their marks OR-ed, one branch a step: every byte of a text or thinking
/// delta is looked up here (twice for text: its unwanted characters and its markers), and a
/// lookup, a test and a branch a byte was a third of reading a buffered Ollama answer natively
/// (callgrind). The step that has a marked byte is looked at again byte by byte.
#[inline]
fn first_marked(bytes: &[u8], table: &[u8; 256]) -> Option<usize> {
    let mut steps = bytes.chunks_exact(8);
    let mut at = 0;
    for step in &mut steps {
        let mark = |i: usize| table[usize::from(step[i])];
        let marks = mark(0) | mark(1) | mark(2) | mark(3) | mark(4) | mark(5) | mark(6) | mark(7);
        if marks != 0 {
            return step.iter().position(|&b| table[usize::from(b)] != 0).map(|i| at + i);
        }
        at += 8;
    }
    steps.remainder().iter().position(|&b| table[usize::from(b)] != 0).map(|i| at + i)
}

/// Whether `rest`, which begins with a byte `SUSPECT` marks, begins with an unwanted character.
fn unwanted_at(rest: &[u8]) -> bool {
    match rest.first() {
        Some(0xC2) => matches!(rest.get(1), Some(0x80..=0x9F)),
        Some(0xE2) => matches!(rest.get(1..3), Some([0x90, 0x84] | [0x96, 0x8C])),
        _ => true,
    }
}

/// The bytes an unwanted character's UTF-8 may begin with (see [`strip_unwanted_chars`]).
const SUSPECT: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = if b != b'\n' as usize && b != b'\t' as usize { UNWANTED } else { 0 };
        b += 1;
    }
    table[0x7F] = UNWANTED;
    table[0xC2] = UNWANTED;
    table[0xE2] = UNWANTED;
    table
};

/// How often text has been read again: 0 for text read for the first time, one more than the
/// text its payload's marker was found in for a failed payload's JSON.
type Level = u8;

/// Payload markers are looked for in text below this level (see the module's doc).
const PAYLOAD_LEVELS: Level = 2;

/// A payload marker seen, its JSON not finished.
#[derive(Debug)]
struct OpenPayload {
    kind: PayloadKind,
    /// The level of the text its marker was found in.
    level: Level,
    /// The marker and the whitespace after it, as written (released as text if the JSON fails).
    lead: String,
    marker_len: usize,
    /// `None` until the first bracket.
    json: Option<BalancedJson>,
}

/// Where a text scan stopped.
enum Scan {
    /// A payload marker ends after this many bytes; its JSON follows.
    PayloadEndsAt(usize),
    /// Everything before this offset was released; the rest may still begin a marker.
    HeldFrom(usize),
}

/// What became of the held text after one payload step.
enum PayloadStep {
    /// All input taken; the payload is still open.
    NeedMore,
    /// The payload closed after this many bytes.
    Closed(usize),
    /// The payload failed after this many bytes; this text must be read again as ordinary text,
    /// at this level.
    Failed(usize, String, Level),
}

#[derive(Debug)]
pub(crate) struct MarkerStripper {
    markers: Arc<Markers>,
    thinking: Thinking,
    /// Undecided text: a proper prefix of some marker.
    tail: String,
    payload: Option<OpenPayload>,
    /// The kinds of failed payloads already reported.
    reported: Vec<PayloadKind>,
}

/// What a stripper looks for: the same for every stream with the same cleaning options.
#[derive(Debug)]
struct Markers {
    tags: ThinkingTags,
    payload_markers: Vec<(String, PayloadKind)>,
    /// Which bytes can begin a marker outside thinking.
    starts: [bool; 256],
    /// For text outside thinking (0) and inside (1), each byte that can begin a marker
    /// ([`MARKER`]) or an unwanted character ([`UNWANTED`]).
    stops: [[u8; 256]; 2],
}

/// In [`Markers::stops`]: a byte that can begin a marker.
const MARKER: u8 = 1;
/// In [`Markers::stops`]: a byte that can begin an unwanted character (`SUSPECT`).
const UNWANTED: u8 = 2;

impl Markers {
    fn new(tags: ThinkingTags, payload_markers: Vec<(String, PayloadKind)>) -> Markers {
        let mut starts = [false; 256];
        starts[usize::from(b'[')] = true;
        starts[usize::from(b'<')] = !tags.is_empty();
        for (literal, _) in &payload_markers {
            starts[usize::from(literal.as_bytes()[0])] = true;
        }
        let mut stops = [[0; 256]; 2];
        for b in 0..256 {
            stops[0][b] = if starts[b] { MARKER } else { 0 } | SUSPECT[b];
            stops[1][b] = if b == usize::from(b'<') { MARKER } else { 0 } | SUSPECT[b];
        }
        Markers { tags, payload_markers, starts, stops }
    }

    /// The markers of `options`: the last ones made, when they were made from the same options.
    /// A short answer read whole makes a stream per answer, and writing the tags and markers out
    /// (eight strings for the default options) was a tenth of making one.
    fn of(options: &CleanOptions) -> Arc<Markers> {
        thread_local! {
            static LAST: RefCell<Option<(MarkerOptions, Arc<Markers>)>> = const { RefCell::new(None) };
        }
        LAST.with_borrow_mut(|last| match last {
            Some((made_from, markers)) if made_from.is(options) => Arc::clone(markers),
            _ => {
                let markers = Arc::new(Markers::new(ThinkingTags::new(options), payload_markers(options)));
                *last = Some((MarkerOptions::of(options), Arc::clone(&markers)));
                markers
            }
        })
    }
}

/// The cleaning options [`Markers`] are made from.
#[derive(Debug)]
struct MarkerOptions {
    inline_thinking: bool,
    thinking_tags: std::borrow::Cow<'static, [std::borrow::Cow<'static, str>]>,
    payload_markers: std::borrow::Cow<'static, [PayloadMarker]>,
}

impl MarkerOptions {
    fn of(options: &CleanOptions) -> MarkerOptions {
        MarkerOptions {
            inline_thinking: options.inline_thinking,
            thinking_tags: options.thinking_tags.clone(),
            payload_markers: options.payload_markers.clone(),
        }
    }

    fn is(&self, options: &CleanOptions) -> bool {
        self.inline_thinking == options.inline_thinking
            && same(&self.thinking_tags, &options.thinking_tags)
            && same(&self.payload_markers, &options.payload_markers)
    }
}

/// Whether two lists are equal: the same list (the defaults, as nearly every stream has them)
/// without comparing their strings, which was most of reusing the last markers.
fn same<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    std::ptr::eq(a, b) || a == b
}

impl MarkerStripper {
    pub(crate) fn new(options: &CleanOptions) -> MarkerStripper {
        let markers = Markers::of(options);
        let unopened = options.starts_in_thinking && !markers.tags.is_empty();
        MarkerStripper::with(markers, if unopened { Thinking::InsideUnopened } else { Thinking::Outside })
    }

    fn with(markers: Arc<Markers>, thinking: Thinking) -> MarkerStripper {
        MarkerStripper { markers, thinking, tail: String::new(), payload: None, reported: Vec::new() }
    }

    /// Recognises only `[[tool:N]]` (for stored messages, already clean otherwise).
    pub(crate) fn tool_markers_only() -> MarkerStripper {
        MarkerStripper::with(Arc::new(Markers::new(ThinkingTags::default(), Vec::new())), Thinking::Outside)
    }

    /// Reads `text` (already free of unwanted characters), appending what it decides to `out`.
    pub(crate) fn push(&mut self, text: &str, out: &mut Vec<Token>) {
        if text.is_empty() {
            return;
        }
        // Nearly every push: nothing held and no payload open. The text is scanned where it is,
        // not copied into a buffer of its own first (that copy and the stack of `run` were
        // allocations on every text delta).
        if self.tail.is_empty() && self.payload.is_none() {
            match self.scan_text(text, 0, out) {
                Scan::HeldFrom(n) => self.tail = text[n..].to_owned(),
                Scan::PayloadEndsAt(n) => self.run(text[n..].to_owned(), 0, out),
            }
            return;
        }
        let mut buf = std::mem::take(&mut self.tail);
        buf.push_str(text);
        self.run(buf, 0, out);
    }

    /// [`MarkerStripper::push`] of an owned text. When nothing is held and no byte of it can
    /// begin a marker (nearly every delta), it is one token as it is, not a copy.
    pub(crate) fn push_owned(&mut self, text: String, out: &mut Vec<Token>) {
        let inside = self.thinking != Thinking::Outside;
        let may_begin_marker = |b: &u8| if inside { *b == b'<' } else { self.markers.starts[usize::from(*b)] };
        if self.tail.is_empty() && self.payload.is_none() && !text.as_bytes().iter().any(may_begin_marker) {
            self.emit(Cow::from(text), out);
        } else {
            self.push(&text, out);
        }
    }

    /// A provider's text, with its unwanted characters ([`strip_unwanted_chars`]): nearly every
    /// delta has none of them and nothing that begins a marker, and nothing is held before it,
    /// so it is text as it is. One pass over its bytes asks both questions: asked apart, they were
    /// two passes, a fifth of a live push of a long Ollama delta (callgrind).
    ///
    /// Such text outside thinking is given back, not written to `out`: the caller takes it as a
    /// text token. A live push is one delta, and the token list's round trip (written, drained,
    /// matched) was a sixth of the cleaner's cost per push.
    #[must_use]
    pub(crate) fn push_text(&mut self, text: String, out: &mut Vec<Token>) -> Option<String> {
        if self.tail.is_empty() && self.payload.is_none() && !self.may_stop(&text) {
            if self.thinking == Thinking::Outside && !text.is_empty() {
                return Some(text);
            }
            self.emit(Cow::from(text), out);
        } else {
            self.push_owned(without_unwanted_chars(text), out);
        }
        None
    }

    /// Whether `text` holds an unwanted character or a marker, whole or begun at its end: what
    /// [`MarkerStripper::scan_text`] would not release as it is. A byte that may begin a marker
    /// is matched there and then: a buffered read's text is kilobytes, and nearly every one holds
    /// an `S` (the first byte of the default payload markers) or a `[` that begins none, which
    /// sent the whole text through the stripper's other passes.
    fn may_stop(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        let stops = &self.markers.stops[usize::from(self.thinking != Thinking::Outside)];
        let mut from = 0;
        while let Some(at) = first_marked(&bytes[from..], stops) {
            let at = from + at;
            let stop = stops[usize::from(bytes[at])];
            if stop & UNWANTED != 0 && unwanted_at(&bytes[at..]) {
                return true;
            }
            if stop & MARKER != 0 {
                // A marker begins with an ASCII byte or a leading byte: `at` is a char boundary
                // (were it not, the stripper's other passes decide).
                let Some(rest) = text.get(at..) else { return true };
                if self.match_at(rest, bytes[at], true).0 != Match::No {
                    return true;
                }
            }
            from = at + 1;
        }
        false
    }

    /// The text ended: a payload still open is released as text, and a held tail is text.
    pub(crate) fn finish(&mut self, out: &mut Vec<Token>) {
        while let Some(open) = self.payload.take() {
            let reason = if open.json.is_some() { "its JSON never closed" } else { "no JSON followed it" };
            let (again, level) = self.release(open, reason, out);
            self.run(again, level, out);
        }
        let tail = std::mem::take(&mut self.tail);
        self.emit(Cow::from(&tail), out);
    }

    /// Reads `buf`, text at `level`. A failed payload's JSON is read before the text after it,
    /// from a stack of buffers rather than by joining the two, so a failure costs the length of
    /// its JSON only.
    fn run(&mut self, buf: String, level: Level, out: &mut Vec<Token>) {
        let mut stack = vec![(buf, 0, level)];
        while let Some((buf, pos, level)) = stack.last_mut() {
            let rest = &buf[*pos..];
            if self.payload.is_some() {
                match self.feed_payload(rest, out) {
                    PayloadStep::NeedMore => {
                        stack.pop();
                    }
                    PayloadStep::Closed(n) => *pos += n,
                    PayloadStep::Failed(n, again, again_level) => {
                        *pos += n;
                        stack.push((again, 0, again_level));
                    }
                }
                continue;
            }
            match self.scan_text(rest, *level, out) {
                Scan::PayloadEndsAt(n) => *pos += n,
                Scan::HeldFrom(n) => {
                    let (buf, pos, _) = stack.pop().expect("the buffer just read");
                    let held = &buf[pos + n..];
                    match stack.last_mut() {
                        None => self.tail = held.to_owned(),
                        // Only a released JSON cut off at the cap can end in a held tail.
                        Some((next, next_pos, _)) if !held.is_empty() => {
                            *next = format!("{held}{}", &next[*next_pos..]);
                            *next_pos = 0;
                        }
                        Some(_) => {}
                    }
                }
            }
        }
    }

    /// Scans ordinary text at `level`, releasing everything but an undecided tail or a payload's
    /// JSON.
    fn scan_text(&mut self, s: &str, level: Level, out: &mut Vec<Token>) -> Scan {
        let bytes = s.as_bytes();
        let mut released = 0;
        let mut i = 0;
        while i < bytes.len() {
            // Every marker starts with an ASCII byte or, for a custom marker, a leading byte,
            // never a UTF-8 continuation byte, so `i` is a char boundary past this check.
            let inside = self.thinking != Thinking::Outside;
            if !(if inside { bytes[i] == b'<' } else { self.markers.starts[usize::from(bytes[i])] }) {
                i += 1;
                continue;
            }
            let (found, what) = self.match_at(&s[i..], bytes[i], level < PAYLOAD_LEVELS);
            match found {
                Match::No => i += 1,
                Match::Partial => {
                    self.emit(Cow::from(&s[released..i]), out);
                    return Scan::HeldFrom(i);
                }
                Match::Full(len) => {
                    self.emit(Cow::from(&s[released..i]), out);
                    let marker = &s[i..i + len];
                    i += len;
                    released = i;
                    match what {
                        Marker::Tool(n) => out.push(Token::Tool(n)),
                        Marker::Tag(Tag::Open(n)) => self.thinking = Thinking::Inside(n),
                        Marker::Tag(Tag::Close) => self.thinking = Thinking::Outside,
                        Marker::Payload(kind) => {
                            self.payload =
                                Some(OpenPayload { kind, level, lead: marker.to_owned(), marker_len: len, json: None });
                            return Scan::PayloadEndsAt(i);
                        }
                    }
                }
            }
        }
        self.emit(Cow::from(&s[released..]), out);
        Scan::HeldFrom(s.len())
    }

    /// The marker, if any, at the start of `rest` (whose first byte is `first`), payload markers
    /// only when `payloads`. A whole marker wins over a prefix of another, so a held tail is
    /// always a prefix of no whole marker.
    fn match_at(&self, rest: &str, first: u8, payloads: bool) -> (Match, Marker) {
        let mut partial = false;
        if first == b'<' && !self.markers.tags.is_empty() {
            match self.markers.tags.match_at(rest, self.thinking) {
                (Match::Full(n), tag) => return (Match::Full(n), Marker::Tag(tag)),
                (found, _) => partial |= found == Match::Partial,
            }
        }
        if self.thinking == Thinking::Outside {
            if first == b'[' {
                match match_tool_marker(rest) {
                    (Match::Full(len), n) => return (Match::Full(len), Marker::Tool(n)),
                    (found, _) => partial |= found == Match::Partial,
                }
            }
            let payload_markers = if payloads { &self.markers.payload_markers[..] } else { &[] };
            for (literal, kind) in payload_markers.iter().filter(|(l, _)| l.as_bytes()[0] == first) {
                match match_literal(rest, literal) {
                    Match::Full(n) => return (Match::Full(n), Marker::Payload(kind.clone())),
                    found => partial |= found == Match::Partial,
                }
            }
        }
        (if partial { Match::Partial } else { Match::No }, Marker::Tool(0))
    }

    fn feed_payload(&mut self, s: &str, out: &mut Vec<Token>) -> PayloadStep {
        let open = self.payload.as_mut().expect("called with a payload open");
        let mut taken = 0;
        if open.json.is_none() {
            let gap = s.len() - s.trim_start_matches([' ', '\t', '\n']).len();
            open.lead.push_str(&s[..gap]);
            taken = gap;
            let too_long = open.lead.len() - open.marker_len > MAX_GAP_BYTES;
            match s.as_bytes().get(gap) {
                None if !too_long => return PayloadStep::NeedMore,
                Some(b'[' | b'{') if !too_long => open.json = Some(BalancedJson::default()),
                _ => {
                    let open = self.payload.take().expect("open");
                    let (again, level) = self.release(open, "no JSON followed it", out);
                    return PayloadStep::Failed(taken, again, level);
                }
            }
        }
        let json = open.json.as_mut().expect("opened above");
        match json.feed(&s[taken..]) {
            Some(n) => {
                let open = self.payload.take().expect("open");
                let raw = &open.json.as_ref().expect("opened").raw;
                match crate::json::parse(raw) {
                    Ok(value) => {
                        out.push(Token::Payload { kind: open.kind, value });
                        PayloadStep::Closed(taken + n)
                    }
                    Err(err) => {
                        let reason = format!("its JSON is not valid ({err})");
                        let (again, level) = self.release(open, &reason, out);
                        PayloadStep::Failed(taken + n, again, level)
                    }
                }
            }
            None if json.raw.len() > MAX_PAYLOAD_BYTES => {
                let open = self.payload.take().expect("open");
                let reason = format!("its JSON is longer than {MAX_PAYLOAD_BYTES} bytes");
                let (again, level) = self.release(open, &reason, out);
                PayloadStep::Failed(s.len(), again, level)
            }
            None => PayloadStep::NeedMore,
        }
    }

    /// Gives up on a payload: its marker goes out as text with a diagnostic (the first of its
    /// kind), and its JSON is returned to be read again as ordinary text, at the level returned.
    fn release(&mut self, open: OpenPayload, reason: &str, out: &mut Vec<Token>) -> (String, Level) {
        if !self.reported.contains(&open.kind) {
            let marker = open.lead.trim_end();
            let reason = format!("{marker} was left in the text: {reason}");
            self.reported.push(open.kind.clone());
            out.push(Token::Malformed { kind: open.kind, reason });
        }
        self.emit(Cow::from(&open.lead), out);
        (open.json.map(|json| json.raw).unwrap_or_default(), open.level + 1)
    }

    /// Text or thinking (as the stripper is inside thinking or not), onto the token before it when
    /// that is of the same kind; an owned text that starts a token is moved into it, not copied.
    /// One function for borrowed and owned text, not one instance of each (about 650 bytes of
    /// the module, raw).
    fn emit(&self, s: Cow<'_, str>, out: &mut Vec<Token>) {
        match (out.last_mut(), self.thinking != Thinking::Outside) {
            _ if s.is_empty() => {}
            (Some(Token::Text(text)), false) | (Some(Token::Thinking(text)), true) => text.push_str(&s),
            (_, false) => out.push(Token::Text(s.into_owned())),
            (_, true) => out.push(Token::Thinking(s.into_owned())),
        }
    }
}

/// What a full match found.
enum Marker {
    Tool(u32),
    Tag(Tag),
    Payload(PayloadKind),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of a stripper made with `options` that is given `deltas` by `push`, then finished.
    fn tokens_of(
        options: &CleanOptions,
        deltas: &[&str],
        push: impl Fn(&mut MarkerStripper, &str, &mut Vec<Token>),
    ) -> Vec<Token> {
        let (mut stripper, mut out) = (MarkerStripper::new(options), Vec::new());
        for delta in deltas {
            push(&mut stripper, delta, &mut out);
        }
        stripper.finish(&mut out);
        out
    }

    #[test]
    fn owned_text_makes_the_tokens_borrowed_text_does() {
        // Each list is one stream's deltas: plain text, markers and tags whole and split, thinking.
        let streams: &[&[&str]] = &[
            &["Hello", " world", "!"],
            &["a [[tool:0]] b", "c"],
            &["a [[to", "ol:1]] b", " c"],
            &["<think>", "hmm", "</think>", "done"],
            &["x<thi", "nk>y", "z</th", "ink>w"],
            &["SUGGESTED_VALUES:", "[\"a\"]", " after"],
            &["[", "not a marker", " <b>"],
        ];
        for deltas in streams {
            let options = CleanOptions::default();
            let by_ref = tokens_of(&options, deltas, |s, delta, out| s.push(delta, out));
            let by_value = tokens_of(&options, deltas, |s, delta, out| s.push_owned(delta.to_owned(), out));
            assert_eq!(by_value, by_ref, "{deltas:?}");
            assert!(!by_ref.is_empty(), "{deltas:?}");
        }
    }

    #[test]
    fn text_read_in_one_pass_makes_the_tokens_of_stripping_then_reading() {
        // Unwanted characters (U+2404, the cursor, C0 and C1 controls) beside the characters
        // that share their first byte (’ and — begin with 0xE2, é and ¢ with 0xC3 and 0xC2),
        // markers and tags whole and split across deltas, inside and outside thinking, and a
        // custom marker whose first byte is 0xE2 too.
        let streams: &[&[&str]] = &[
            &["plain text", " more"],
            &["Earth’s — café ¢", " next"],
            &["a\u{2404}b", "c▌", "\u{0}d\re\u{7f}f\u{85}g\n\th"],
            &["’\u{2404}", "▌’"],
            &["a [[to", "ol:1]] b’", " c▌"],
            &["x<thi", "nk>y’▌", "z</th", "ink>w\u{1}"],
            &["<think>", "a[[tool:0]]’", "</think>", "[[tool:0]]"],
            &["€UR: {\"a\": 1} ’", "€", "UR: [2]"],
            &["SUGGESTED_VALUES:", "[\"a’\"]", " after▌"],
            &["So [1] is <b>", "SUGG", "ESTED_VALUES: [1] S", "CHEMA_PROPOSAL: {} <", "think>S[x]<b></think>["],
            &["Sky [2] <i>’", "’ [[tool:3]] SUGGESTED", "_ACTIONS", ": [] €", "U€UR"],
        ];
        let options = CleanOptions {
            payload_markers: vec![PayloadMarker { marker: "€UR:".into(), type_name: "euro".into() }].into(),
            ..CleanOptions::default()
        };
        for deltas in streams {
            let by_one = tokens_of(&options, deltas, |s, delta, out| {
                if let Some(text) = s.push_text(delta.to_owned(), out) {
                    s.emit(Cow::from(text), out);
                }
            });
            let by_two = tokens_of(&options, deltas, |s, delta, out| s.push(&strip_unwanted_chars(delta), out));
            assert_eq!(by_one, by_two, "{deltas:?}");
            assert!(!by_two.is_empty(), "{deltas:?}");
        }
    }

    #[test]
    fn text_with_bytes_that_begin_no_marker_is_given_back_whole() {
        let mut stripper = MarkerStripper::new(&CleanOptions::default());
        let mut out = Vec::new();
        // `S`, `[` and `<` begin the default markers and tags, but none of these.
        for text in ["Sky is [1] <b>blue</b>", "Sure: S[x] <thin> SUGGEST_VALUES: [[tool:x]]", "[<S."] {
            assert_eq!(stripper.push_text(text.to_owned(), &mut out).as_deref(), Some(text));
        }
        assert_eq!(out, []);
        // A marker begun at the end is held; a whole one is a token.
        assert_eq!(stripper.push_text("and SUGGESTED_VAL".to_owned(), &mut out), None);
        assert_eq!(out, [Token::Text("and ".into())]);
        assert_eq!(stripper.push_text("UES: [1] ok [[tool:2]]".to_owned(), &mut out), None);
        let value = serde_json::json!([1]);
        assert_eq!(
            out[1..],
            [Token::Payload { kind: PayloadKind::SuggestedValues, value }, Token::Text(" ok ".into()), Token::Tool(2)]
        );
    }

    #[test]
    fn the_default_lists_clean_as_the_same_lists_given_as_vecs() {
        let given = CleanOptions {
            thinking_tags: vec!["think".into(), String::from("thinking").into()].into(),
            payload_markers: vec![PayloadMarker {
                marker: String::from("SCHEMA_PROPOSAL:").into(),
                type_name: String::from("schema_proposal").into(),
            }]
            .into(),
            ..CleanOptions::default()
        };
        let text = "<think>a</think> <thinking>b</thinking>SCHEMA_PROPOSAL: {\"x\": 1} c";
        let read = |options: &CleanOptions| tokens_of(options, &[text], |s, delta, out| s.push(delta, out));
        let expected = vec![
            Token::Thinking("a".into()),
            Token::Text(" ".into()),
            Token::Thinking("b".into()),
            Token::Payload { kind: PayloadKind::Custom("schema_proposal".into()), value: serde_json::json!({"x": 1}) },
            Token::Text(" c".into()),
        ];
        assert_eq!(read(&CleanOptions::default()), expected);
        assert_eq!(read(&given), expected);
    }

    #[test]
    fn each_stripper_reads_its_own_options_markers_when_streams_of_other_options_were_made_between() {
        let reasoning = CleanOptions {
            thinking_tags: vec!["reasoning".into()].into(),
            payload_markers: vec![PayloadMarker { marker: "CHART:".into(), type_name: "chart".into() }].into(),
            ..CleanOptions::default()
        };
        let no_inline = CleanOptions { inline_thinking: false, ..CleanOptions::default() };
        let text = "<think>a</think><reasoning>b</reasoning>CHART: [1] SCHEMA_PROPOSAL: {}";
        let read = |options: &CleanOptions| tokens_of(options, &[text], |s, delta, out| s.push(delta, out));
        let thinking = |t: &str| Token::Thinking(t.into());
        let text_token = |t: &str| Token::Text(t.into());
        let payload = |kind, value: Value| Token::Payload { kind, value };
        let custom = |name: &str| PayloadKind::Custom(name.into());
        // Written from the options: the default ones know <think>, <thinking> and SCHEMA_PROPOSAL:.
        let default = vec![
            thinking("a"),
            text_token("<reasoning>b</reasoning>CHART: [1] "),
            payload(custom("schema_proposal"), serde_json::json!({})),
        ];
        let with_reasoning = vec![
            text_token("<think>a</think>"),
            thinking("b"),
            payload(custom("chart"), serde_json::json!([1])),
            text_token(" SCHEMA_PROPOSAL: {}"),
        ];
        let without_inline = vec![
            text_token("<think>a</think><reasoning>b</reasoning>CHART: [1] "),
            payload(custom("schema_proposal"), serde_json::json!({})),
        ];
        for _ in 0..2 {
            assert_eq!(read(&CleanOptions::default()), default);
            assert_eq!(read(&reasoning), with_reasoning);
            assert_eq!(read(&CleanOptions::default()), default);
            assert_eq!(read(&no_inline), without_inline);
        }
    }

    #[test]
    fn tool_marker_matching() {
        let cases: &[(&str, Match, u32)] = &[
            ("[[tool:0]]", Match::Full(10), 0),
            ("[[tool:12]] more", Match::Full(11), 12),
            ("[", Match::Partial, 0),
            ("[[to", Match::Partial, 0),
            ("[[tool:", Match::Partial, 0),
            ("[[tool:3", Match::Partial, 0),
            ("[[tool:3]", Match::Partial, 0),
            ("[[tool:]]", Match::No, 0),
            ("[[tool:3]x", Match::No, 0),
            ("[[tox", Match::No, 0),
            ("[[CRISPR]]", Match::No, 0),
            ("[[1, 2], [3]]", Match::No, 0),
            ("[[tool:1234567890]]", Match::No, 0),
            ("[[tool:123456789]]", Match::Full(18), 123_456_789),
        ];
        for &(text, expected, n) in cases {
            assert_eq!(match_tool_marker(text), (expected, n), "{text:?}");
        }
    }

    #[test]
    fn unwanted_chars_are_every_control_but_newline_and_tab_and_two_symbols() {
        // Every character of the first three UTF-8 lengths and some of the fourth, each between
        // two letters, against the definition read character by character.
        let unwanted = |c: char| c == '\u{2404}' || c == '▌' || (c.is_control() && c != '\n' && c != '\t');
        for c in (0..0x3_0000).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            let expected: String = text.chars().filter(|&c| !unwanted(c)).collect();
            assert_eq!(strip_unwanted_chars(&text), expected, "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn unwanted_chars_go_and_newlines_and_tabs_stay() {
        assert_eq!(strip_unwanted_chars("a\u{2404}b▌c\u{0}d\re\u{7f}f\u{85}g\n\th"), "abcdefg\n\th");
        assert_eq!(strip_unwanted_chars("emoji 👩\u{200d}💻"), "emoji 👩\u{200d}💻");
    }
}
