//! Deltas with the edges of the whole text trimmed, without holding back visible text.

/// Leading whitespace is dropped; trailing whitespace waits for the next visible character (it
/// is invisible, and the final text is trimmed), so the deltas joined are exactly the trimmed text.
#[derive(Debug, Default)]
pub(crate) struct EdgeTrimmed {
    /// Everything emitted, joined.
    pub emitted: String,
    held: String,
    /// After a paragraph break, until visible text: leading whitespace is dropped.
    new_paragraph: bool,
}

impl EdgeTrimmed {
    /// What comes next is a new paragraph: whitespace held so far becomes one blank line, and the
    /// next text's leading whitespace is dropped.
    pub(crate) fn paragraph_break(&mut self) {
        if !self.emitted.is_empty() {
            self.held = "\n\n".into();
            self.new_paragraph = true;
        }
    }

    /// The delta to emit for `s`, if any.
    pub(crate) fn push(&mut self, s: &str) -> Option<String> {
        let s = if self.emitted.is_empty() || self.new_paragraph { s.trim_start() } else { s };
        let visible = s.trim_end();
        if visible.is_empty() {
            if !self.emitted.is_empty() {
                self.held.push_str(s);
            }
            return None;
        }
        self.new_paragraph = false;
        let mut delta = std::mem::take(&mut self.held);
        delta.push_str(visible);
        self.held.push_str(&s[visible.len()..]);
        self.emitted.push_str(&delta);
        Some(delta)
    }
}
