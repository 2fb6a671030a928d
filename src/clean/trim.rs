//! Deltas with the edges of the whole text trimmed, without holding back visible text.

/// Leading whitespace is dropped; trailing whitespace waits for the next visible character (it
/// is invisible, and the final text is trimmed), so the deltas joined are exactly the trimmed text.
#[derive(Debug, Default)]
pub(crate) struct EdgeTrimmed {
    /// Everything emitted, joined.
    pub emitted: String,
    held: String,
}

impl EdgeTrimmed {
    /// The delta to emit for `s`, if any.
    pub(crate) fn push(&mut self, s: &str) -> Option<String> {
        let s = if self.emitted.is_empty() { s.trim_start() } else { s };
        let visible = s.trim_end();
        if visible.is_empty() {
            if !self.emitted.is_empty() {
                self.held.push_str(s);
            }
            return None;
        }
        let mut delta = std::mem::take(&mut self.held);
        delta.push_str(visible);
        self.held.push_str(&s[visible.len()..]);
        self.emitted.push_str(&delta);
        Some(delta)
    }
}
