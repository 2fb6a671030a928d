//! Where a passed-through stream stands in its framing, so that a stream the proxy must cut short can
//! end cleanly: never completing a frame the upstream left half written.
//!
//! Server-sent events (WHATWG "event stream interpretation"): a field line takes effect at its line end;
//! a blank line dispatches the event, but only if its data buffer is not empty (otherwise it just clears
//! the event type); the end of the stream discards an event not yet dispatched. No field and no line
//! clears a data buffer. So:
//! - at an event boundary, the error event follows at once;
//! - an event with fields but no data yet (`event: x`, or a line cut before its colon) is made harmless
//!   and closed: a half field name gets a `_` (no field name ends in one, so the line is ignored), the
//!   line is ended, and the blank line then dispatches nothing;
//! - an event that already holds data (a `data` line, finished or not) cannot be discarded except by
//!   ending the stream. Any blank line would dispatch the half data, which a client then reports as an
//!   unreadable frame before the real error. So the stream ends right there, without an error frame: the
//!   client sees a cut stream (what it is), and the proxy logs why.
//!
//! Before the first line, the SSE rules strip one UTF-8 byte order mark: it is not part of the first
//! field's name (with it, `data` would read as an unknown field, and its half line would be "safe" to end).
//!
//! NDJSON (Ollama): every line is a record, an unfinished one included (readers parse a last line without
//! its newline too), so there is no way to discard a cut line. It is ended with a newline and the error
//! line follows; a reader reports the cut line as unreadable, then the error.

use crate::provider::Provider;

pub struct Position {
    ndjson: bool,
    /// How many bytes of a leading byte order mark have been seen; `None` once there can be none.
    bom: Option<usize>,
    /// The bytes of the unfinished line up to its first colon (at most a few kept: only `data` matters).
    name: Vec<u8>,
    /// The unfinished line has reached its colon (or begins with one: a comment).
    colon: bool,
    /// The unfinished line has any byte.
    in_line: bool,
    /// The last byte was a CR: a LF next would be the rest of the same line end.
    after_cr: bool,
    /// A field line since the last blank line.
    event_has_field: bool,
    /// A `data` line since the last blank line.
    event_has_data: bool,
}

const BOM: &[u8] = "\u{feff}".as_bytes();

/// Bytes of a field name kept: enough to tell `data` from any longer name.
const NAME_KEPT: usize = 5;

impl Position {
    pub fn new(provider: Provider) -> Position {
        Position {
            ndjson: provider == Provider::Ollama,
            bom: (provider != Provider::Ollama).then_some(0),
            name: Vec::new(),
            colon: false,
            in_line: false,
            after_cr: false,
            event_has_field: false,
            event_has_data: false,
        }
    }

    /// Takes note of bytes sent to the client.
    pub fn observe(&mut self, mut bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if let Some(seen) = self.bom {
            let rest = &BOM[seen..];
            let matched = bytes.iter().zip(rest).take_while(|(a, b)| a == b).count();
            if matched == rest.len() {
                // The whole mark: no part of a line (its first bytes, seen so far, are forgotten).
                self.bom = None;
                self.name.clear();
                self.in_line = false;
                bytes = &bytes[matched..];
            } else if matched == bytes.len() {
                // Maybe a mark, maybe not: a line so far, until the rest shows.
                self.bom = Some(seen + matched);
            } else {
                self.bom = None;
            }
        }
        if std::mem::take(&mut self.after_cr) && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', bytes) {
            self.extend_line(&bytes[..end]);
            self.end_line();
            let rest = &bytes[end + 1..];
            bytes = match (bytes[end], rest.first()) {
                (b'\r', Some(b'\n')) => &rest[1..],
                (b'\r', None) => {
                    self.after_cr = true;
                    rest
                }
                _ => rest,
            };
        }
        self.extend_line(bytes);
    }

    fn extend_line(&mut self, part: &[u8]) {
        if part.is_empty() {
            return;
        }
        self.in_line = true;
        if !self.colon {
            let name = match memchr::memchr(b':', part) {
                Some(colon) => {
                    self.colon = true;
                    &part[..colon]
                }
                None => part,
            };
            let room = NAME_KEPT.saturating_sub(self.name.len());
            self.name.extend_from_slice(&name[..name.len().min(room)]);
        }
    }

    fn end_line(&mut self) {
        if !self.in_line {
            self.event_has_field = false;
            self.event_has_data = false;
        } else if !(self.colon && self.name.is_empty()) {
            self.event_has_field = true;
            self.event_has_data |= self.name == b"data";
        }
        self.name.clear();
        self.colon = false;
        self.in_line = false;
    }

    /// What to send before an error frame so that it reads as a frame of its own, and nothing of the
    /// cut frame is dispatched; `None` when that is impossible and the stream must end as it is.
    pub fn before_error_frame(&self) -> Option<&'static str> {
        if self.ndjson {
            return Some(if self.in_line { "\n" } else { "" });
        }
        // After a CR, a LF is part of the same line end: harmless, and it keeps ours unambiguous.
        let lf = if self.after_cr { "\n" } else { "" };
        let data_pending = self.event_has_data || (self.in_line && self.colon && self.name == b"data");
        if data_pending {
            return None;
        }
        Some(match (self.in_line, self.colon, self.event_has_field) {
            // A comment, or a field other than data: end the line, then the blank line.
            (true, true, _) => "\n\n",
            // A field name not finished: make it one that no parser knows.
            (true, false, _) => "_\n\n",
            (false, _, true) => {
                if lf.is_empty() {
                    "\n"
                } else {
                    "\n\n"
                }
            }
            (false, _, false) => lf,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(provider: Provider, chunks: &[&str]) -> Option<&'static str> {
        let mut position = Position::new(provider);
        chunks.iter().for_each(|c| position.observe(c.as_bytes()));
        position.before_error_frame()
    }

    #[test]
    fn an_error_frame_never_completes_a_cut_event() {
        let sse = |chunks: &[&str]| after(Provider::Anthropic, chunks);
        assert_eq!(sse(&[]), Some(""));
        assert_eq!(sse(&["data: {}\n\n"]), Some(""));
        assert_eq!(sse(&["data: {}\r\n\r", "\n"]), Some(""));
        assert_eq!(sse(&["data: {}\r\n\r"]), Some("\n"));
        assert_eq!(sse(&["data: {}\r\r"]), Some("\n"));
        assert_eq!(sse(&["data: {}\n\nevent: content_block_delta\n"]), Some("\n"));
        assert_eq!(sse(&["data: {}\n\nevent: content_block_delta\r"]), Some("\n\n"));
        assert_eq!(sse(&["data: {}\n\nevent: content_bl"]), Some("\n\n"));
        assert_eq!(sse(&["data: {}\n\nda"]), Some("_\n\n"));
        assert_eq!(sse(&["data: {}\n\ndata"]), Some("_\n\n"));
        assert_eq!(sse(&["data: {}\n\n: keep-alive"]), Some("\n\n"));
        assert_eq!(sse(&["data: {}\n\n:\n"]), Some(""));
        // Data is pending: only the end of the stream discards it.
        assert_eq!(sse(&["data: {}\n\nevent: x\ndata: {\"ty"]), None);
        assert_eq!(sse(&["data: {}\n\nda", "ta:"]), None);
        assert_eq!(sse(&["data: {\"a\":1}\n"]), None);
        assert_eq!(sse(&["data\n"]), None);
    }

    #[test]
    fn one_leading_byte_order_mark_is_not_part_of_the_first_line() {
        let bom = "\u{feff}";
        let sse = |chunks: &[&[u8]]| {
            let mut position = Position::new(Provider::OpenAi);
            chunks.iter().for_each(|c| position.observe(c));
            position.before_error_frame()
        };
        let first = format!("{bom}data: {{\"a\"");
        let bytes = first.as_bytes();
        for split in 0..=bytes.len() {
            assert_eq!(sse(&[&bytes[..split], &bytes[split..]]), None, "split at {split}");
        }
        assert_eq!(sse(&[bom.as_bytes()]), Some(""));
        // Half a mark is not a mark: a line that no parser knows.
        assert_eq!(sse(&[&bom.as_bytes()[..2]]), Some("_\n\n"));
        assert_eq!(sse(&[format!("{bom}{bom}data: x").as_bytes()]), Some("\n\n"));
        assert_eq!(sse(&[format!("data: {{}}\n\n{bom}data: x").as_bytes()]), Some("\n\n"));
    }

    #[test]
    fn an_ndjson_line_is_ended_before_the_error_line() {
        assert_eq!(after(Provider::Ollama, &[]), Some(""));
        assert_eq!(after(Provider::Ollama, &["{\"a\":1}\n"]), Some(""));
        assert_eq!(after(Provider::Ollama, &["{\"a\":1}\n{\"mess"]), Some("\n"));
    }
}
