//! Deltas with the edges of the whole text trimmed, without holding back visible text.

/// Leading whitespace is dropped; trailing whitespace waits for the next visible character (it
/// is invisible, and the final text is trimmed), so the deltas joined are exactly the trimmed text.
/// It does not keep what it emitted: a long answer's text is held by those that need it whole.
#[derive(Debug, Default)]
pub(crate) struct EdgeTrimmed {
    /// Something was emitted.
    started: bool,
    held: String,
    /// After a paragraph break, until visible text: leading whitespace is dropped.
    new_paragraph: bool,
}

impl EdgeTrimmed {
    /// Whether something was emitted: the whitespace before it was dropped.
    pub(crate) fn started(&self) -> bool {
        self.started
    }

    /// The whitespace held at the end, never emitted.
    pub(crate) fn take_held(&mut self) -> String {
        std::mem::take(&mut self.held)
    }

    /// What comes next is a new paragraph: whitespace held so far becomes one blank line, and the
    /// next text's leading whitespace is dropped.
    pub(crate) fn paragraph_break(&mut self) {
        if self.started {
            self.held = "\n\n".into();
            self.new_paragraph = true;
        }
    }

    /// The delta to emit for `s`, if any. Nearly every delta has nothing held before it and
    /// nothing to trim: then it is `s` itself, not a copy (a live push is one delta, and each
    /// allocation was a measurable part of it).
    pub(crate) fn push(&mut self, mut s: String) -> Option<String> {
        // Most of all: text after text, nothing held, ending in a visible ASCII character, so
        // neither edge can need trimming (asked first: the general case below decodes both edges).
        if self.started
            && !self.new_paragraph
            && self.held.is_empty()
            && s.bytes().last().is_some_and(|b| b.is_ascii_graphic())
        {
            return Some(s);
        }
        let start = if !self.started || self.new_paragraph { s.len() - s.trim_start().len() } else { 0 };
        let end = start + s[start..].trim_end().len();
        if end == start {
            if self.started {
                self.held.push_str(&s[start..]);
            }
            return None;
        }
        self.new_paragraph = false;
        let delta = if self.held.is_empty() && start == 0 && end == s.len() {
            s
        } else {
            // What was held goes in front of the text in the text's own buffer, and the buffer
            // that held it holds the text's trailing whitespace: a buffered read's thinking is
            // kilobytes that end in a newline, and each was copied into a new string.
            let mut held = std::mem::take(&mut self.held);
            // Only the first visible text and the first after a paragraph break start after
            // whitespace to drop.
            let mut delta = if start > 0 { s.split_off(start) } else { s };
            let end = held.len() + end - start;
            delta.insert_str(0, &held);
            held.clear();
            held.push_str(&delta[end..]);
            delta.truncate(end);
            self.held = held;
            delta
        };
        self.started = true;
        Some(delta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_joined_are_the_trimmed_text() {
        let mut trimmed = EdgeTrimmed::default();
        let deltas: Vec<String> = ["  ", " Hi", " there ", "\n", "", "you", "  "]
            .iter()
            .filter_map(|s| trimmed.push((*s).to_owned()))
            .collect();
        assert_eq!(deltas, ["Hi", " there", " \nyou"]);
        trimmed.paragraph_break();
        assert_eq!(trimmed.push("  next".to_owned()).as_deref(), Some("\n\nnext"));
    }

    /// Every sequence of up to four pieces (visible ASCII at either edge or not, whitespace,
    /// non-ASCII, empty): the deltas joined are the pieces joined and trimmed, and none is empty.
    #[test]
    fn deltas_joined_are_the_trimmed_text_whatever_the_pieces() {
        let pieces = ["", " ", "a", "b ", " c", "\n\t", "é", "x.", " \u{3000}"];
        let mut sequence = Vec::new();
        for n in 0..=4u32 {
            for code in 0..pieces.len().pow(n) {
                sequence.clear();
                let mut rest = code;
                for _ in 0..n {
                    sequence.push(pieces[rest % pieces.len()]);
                    rest /= pieces.len();
                }
                let mut trimmed = EdgeTrimmed::default();
                let deltas: Vec<String> = sequence.iter().filter_map(|s| trimmed.push((*s).to_owned())).collect();
                assert_eq!(deltas.concat(), sequence.concat().trim(), "{sequence:?}");
                assert!(deltas.iter().all(|d| !d.is_empty()), "{sequence:?}: {deltas:?}");
            }
        }
    }
}
