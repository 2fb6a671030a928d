//! Matching a marker at a position of text that may still be incomplete: the one question the
//! stripper and the thinking tags both ask ("is this a marker, the start of one, or neither?").

/// How text at some position relates to a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Match {
    /// A whole marker of this many bytes.
    Full(usize),
    /// All of the text is a proper prefix of a marker: more text decides.
    Partial,
    No,
}

/// Where `needle` first is in `text`. An empty needle is found nowhere (`None`, where `str::find`
/// says 0): no caller searches for one. Hand-written: the standard library's searcher for a string
/// needle (`str::find`, `str::contains`) was 1.8 KB of each module (raw), and memchr's `memmem` in
/// its place made each 2.4-2.6 KB gzip larger than the standard library's. Its callers search off
/// the hot path (a hand-over's values once, a message loaded, an agent's message); at most
/// `needle.len()` comparisons a byte of `text`.
pub(crate) fn find(text: &str, needle: &str) -> Option<usize> {
    let (text, needle) = (text.as_bytes(), needle.as_bytes());
    let first = *needle.first()?;
    let last = text.len().checked_sub(needle.len())?;
    (0..=last).find(|&at| text[at] == first && text[at..].starts_with(needle))
}

/// Matches `literal` at the start of `rest`.
pub(crate) fn match_literal(rest: &str, literal: &str) -> Match {
    if rest.len() >= literal.len() {
        if rest.starts_with(literal) {
            Match::Full(literal.len())
        } else {
            Match::No
        }
    } else if literal.starts_with(rest) {
        Match::Partial
    } else {
        Match::No
    }
}

const TOOL_MARKER_OPEN: &str = "[[tool:";
/// `N` in `[[tool:N]]` has at most this many digits (so it fits a u32).
const MAX_TOOL_DIGITS: usize = 9;

/// Matches `[[tool:N]]` (N decimal digits) at the start of `rest`, returning N for a full match.
pub(crate) fn match_tool_marker(rest: &str) -> (Match, u32) {
    let open = TOOL_MARKER_OPEN.len();
    match match_literal(rest, TOOL_MARKER_OPEN) {
        Match::Full(_) => {}
        other => return (other, 0),
    }
    let bytes = rest.as_bytes();
    let digits = bytes[open..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > MAX_TOOL_DIGITS {
        return (Match::No, 0);
    }
    let close = open + digits;
    let tail = &bytes[close..];
    if tail.is_empty() || (digits > 0 && tail == b"]") {
        return (Match::Partial, 0);
    }
    if digits == 0 || !tail.starts_with(b"]]") {
        return (Match::No, 0);
    }
    let n = rest[open..close].parse().expect("at most nine digits");
    (Match::Full(close + 2), n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `find` finds what `str::find` finds: at the start, the end, after a partial match, in text
    /// shorter than the needle, among multi-byte characters, and none.
    #[test]
    fn find_is_str_find() {
        let texts = ["", "[", "[[", "a[[", "[a[[tool:", "x[[tool[[tool:1]]", "é[[€", "~m~m~", "abc"];
        let needles = ["[[", "[[tool:", "~m~", "€", "abcd", "c"];
        for text in texts {
            for needle in needles {
                assert_eq!(find(text, needle), text.find(needle), "{needle:?} in {text:?}");
            }
        }
        assert_eq!(find("abc", ""), None);
    }
}
