//! Newline-delimited records: Ollama's NDJSON and the AI SDK v4 `CODE:JSON` lines.
//!
//! Also home of [`LineSplitter`], the byte-level line splitting both framings share.
//!
//! ```
//! use chatstream::framing::{Ending, Frame, LineDecoder};
//!
//! let mut lines = LineDecoder::new();
//! let mut frames = Vec::new();
//! lines.push(b"0:\"Hel", &mut frames).unwrap();
//! assert!(frames.is_empty()); // the line is not complete yet
//! lines.push(b"lo\"\n\n0:\"!\"", &mut frames).unwrap();
//! assert_eq!(frames, [Frame::data("0:\"Hello\"")]);
//! assert_eq!(lines.finish(&mut frames), Ending::Clean);
//! assert_eq!(frames[1], Frame::data("0:\"!\"")); // the unterminated last line counts
//! ```

use memchr::memchr2;

use super::{collect_frames, Decoded, Ending, Frame, FrameRef, FramingError, DEFAULT_MAX_FRAME_BYTES};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What [`LineSplitter`] hands to its caller: `'h` borrows the splitter, `'c` the chunk.
#[derive(Debug)]
pub(super) enum Line<'h, 'c> {
    /// A complete line, without its terminator, not yet decoded, all of it in the chunk being
    /// split: the caller may keep it for the rest of the push.
    InChunk(&'c [u8]),
    /// A complete line whose start came in an earlier chunk, as [`Line::InChunk`] otherwise.
    Held(&'h [u8]),
    /// The current line grew past the budget the caller gave: the bytes held so far are dropped
    /// and the rest of the line will be too, up to its terminator (which yields nothing).
    TooLong,
}

/// Splits bytes into lines, incrementally.
///
/// WHATWG: "Lines must be separated by either a U+000D CARRIAGE RETURN U+000A LINE FEED (CRLF)
/// character pair, a single U+000A LINE FEED (LF) character, or a single U+000D CARRIAGE RETURN
/// (CR) character" and "One leading U+FEFF BYTE ORDER MARK character must be ignored if any are
/// present." NDJSON servers use LF or CRLF; accepting the SSE set costs nothing.
///
/// Only the bytes of the current, unterminated line are kept between pushes, and each byte is
/// searched for a line end once (in the chunk it arrived in), so the cost is linear in the input
/// whatever the chunking. A line held in the tail is never longer than the caller's budget.
#[derive(Debug)]
pub(super) struct LineSplitter {
    /// Bytes of the current line (the undecided tail).
    tail: Vec<u8>,
    /// How many bytes of a leading BOM have matched so far; `None` once the start is decided.
    bom_matched: Option<usize>,
    /// The last line ended with CR: an LF first in the next chunk is that CRLF's second half,
    /// not an empty line.
    after_cr: bool,
    /// The current line went past the budget; its bytes are dropped up to its end.
    dropping: bool,
    /// Most bytes the current line may hold; the caller sets it after every line.
    budget: usize,
}

impl LineSplitter {
    pub(super) fn new(budget: usize) -> LineSplitter {
        LineSplitter { tail: Vec::new(), bom_matched: Some(0), after_cr: false, dropping: false, budget }
    }

    /// Splits `chunk`, calling `on_line` for each line it completes (or finds too long); `on_line`
    /// returns the budget for the next line.
    pub(super) fn push<'c>(&mut self, mut chunk: &'c [u8], mut on_line: impl FnMut(Line<'_, 'c>) -> usize) {
        if let Some(matched) = self.bom_matched {
            let (rest, decided) = self.strip_bom(matched, chunk);
            chunk = rest;
            if !decided {
                return;
            }
        }
        while !chunk.is_empty() {
            if std::mem::take(&mut self.after_cr) && chunk[0] == b'\n' {
                chunk = &chunk[1..];
                continue;
            }
            let Some(end) = memchr2(b'\r', b'\n', chunk) else {
                self.hold(chunk, &mut on_line);
                return;
            };
            let line = &chunk[..end];
            self.after_cr = chunk[end] == b'\r';
            chunk = &chunk[end + 1..];
            if std::mem::take(&mut self.dropping) {
                continue;
            }
            self.budget = if self.tail.len() + line.len() > self.budget {
                self.tail.clear();
                on_line(Line::TooLong)
            } else if self.tail.is_empty() {
                on_line(Line::InChunk(line))
            } else {
                self.tail.extend_from_slice(line);
                let budget = on_line(Line::Held(&self.tail));
                self.tail.clear();
                budget
            };
        }
    }

    /// Keeps `bytes`, the start of a line whose end has not arrived, within the budget.
    fn hold<'c>(&mut self, bytes: &[u8], on_line: &mut impl FnMut(Line<'_, 'c>) -> usize) {
        if self.dropping {
            return;
        }
        if self.tail.len() + bytes.len() > self.budget {
            self.tail.clear();
            self.dropping = true;
            self.budget = on_line(Line::TooLong);
        } else {
            self.tail.extend_from_slice(bytes);
        }
    }

    /// Matches the stream's first bytes against the BOM, which may arrive split across chunks.
    /// Returns the bytes left to split and whether the start is decided.
    fn strip_bom<'a>(&mut self, matched: usize, chunk: &'a [u8]) -> (&'a [u8], bool) {
        let n = chunk.len().min(BOM.len() - matched);
        if chunk[..n] != BOM[matched..matched + n] {
            // Not a BOM: the bytes that looked like one belong to the first line.
            self.bom_matched = None;
            self.tail.extend_from_slice(&BOM[..matched]);
            return (chunk, true);
        }
        if matched + n == BOM.len() {
            self.bom_matched = None;
            (&chunk[n..], true)
        } else {
            self.bom_matched = Some(matched + n);
            (&[], false)
        }
    }

    /// Bytes of a line whose end has not arrived are held (or being dropped).
    pub(super) fn has_partial_line(&self) -> bool {
        !self.tail.is_empty() || self.dropping || self.bom_matched.is_some_and(|m| m > 0)
    }

    /// Ends the input: the unterminated last line, if any bytes of it are held.
    pub(super) fn take_partial_line(&mut self) -> Option<Vec<u8>> {
        if let Some(matched) = self.bom_matched.take() {
            self.tail.extend_from_slice(&BOM[..matched]);
        }
        let line = std::mem::take(&mut self.tail);
        (!line.is_empty()).then_some(line)
    }
}

/// Decodes newline-delimited records: each non-empty line is one [`Frame`] with `data` set.
///
/// Blank lines are skipped: they carry no record (some servers send them as keep-alives), and
/// the next stage would only report them as bad JSON. A line longer than the limit is dropped with one [`FramingError::FrameTooLarge`],
/// and decoding resumes at the next line.
#[derive(Debug)]
pub struct LineDecoder {
    limit: usize,
    lines: LineSplitter,
    /// Invalid UTF-8 sequences replaced so far, so that a corrupted stream can be noticed.
    invalid_utf8: usize,
}

impl Default for LineDecoder {
    fn default() -> Self {
        LineDecoder::with_limit(DEFAULT_MAX_FRAME_BYTES)
    }
}

impl LineDecoder {
    /// A decoder with the default cap on one line.
    pub fn new() -> LineDecoder {
        LineDecoder::default()
    }

    /// A decoder that refuses lines longer than `limit` bytes.
    pub fn with_limit(limit: usize) -> LineDecoder {
        LineDecoder { limit, lines: LineSplitter::new(limit), invalid_utf8: 0 }
    }

    /// How many invalid UTF-8 sequences were replaced by U+FFFD so far.
    pub fn invalid_utf8(&self) -> usize {
        self.invalid_utf8
    }

    /// Decodes `chunk`, appending a frame for every line it completes to `out`. When a line is
    /// too long the whole chunk is still decoded (the lines after it are in `out` too) and the
    /// error is returned once, at the push that found it.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<Frame>) -> Result<(), FramingError> {
        let limit = self.limit;
        collect_frames(limit, out, |each| self.push_each(chunk, each))
    }

    /// Decodes `chunk`, handing each line it completes, and each line it drops as too long, to
    /// `each`. The frames borrow the input where they can.
    pub fn push_each(&mut self, chunk: &[u8], mut each: impl FnMut(Decoded<'_>)) {
        let limit = self.limit;
        let replaced = &mut self.invalid_utf8;
        self.lines.push(chunk, |line| {
            match line {
                Line::InChunk(bytes) | Line::Held(bytes) => {
                    let before = *replaced;
                    let text = super::utf8_lossy(bytes, replaced);
                    if *replaced != before {
                        each(Decoded::InvalidUtf8 { so_far: *replaced });
                    }
                    if !text.is_empty() {
                        each(Decoded::Frame(FrameRef::data(&text)));
                    }
                }
                Line::TooLong => each(Decoded::TooLarge),
            }
            limit
        });
    }

    /// Ends the input. Servers often omit the final newline (Ollama's last object, hand-written
    /// AI SDK routes), so an unterminated last line is a complete record: it is dispatched, and
    /// the ending is always [`Ending::Clean`].
    pub fn finish(&mut self, out: &mut Vec<Frame>) -> Ending {
        self.finish_each(|frame| out.push(frame.to_owned()))
    }

    /// [`LineDecoder::finish`], handing the last line (if any) to `each`.
    pub fn finish_each(&mut self, mut each: impl FnMut(FrameRef<'_>)) -> Ending {
        if let Some(line) = self.lines.take_partial_line().filter(|line| !line.is_empty()) {
            each(FrameRef::data(&super::utf8_lossy(&line, &mut self.invalid_utf8)));
        }
        Ending::Clean
    }
}
