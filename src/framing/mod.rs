//! Stage 1: bytes → frames.
//!
//! Two framings cover every dialect: Server-Sent Events ([`SseDecoder`], WHATWG "event stream
//! interpretation") and newline-delimited records ([`LineDecoder`]: Ollama's NDJSON and the AI SDK
//! v4 `CODE:JSON` lines). Both take input in chunks of any size, decode UTF-8 across chunk
//! boundaries, never scan consumed bytes again, and cap the size of one frame.

mod lines;
mod sse;

pub use lines::LineDecoder;
pub use sse::SseDecoder;

/// Default cap on one frame (one SSE event or one line): generous for long tool inputs,
/// small enough that a runaway stream cannot take the tab's memory.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// One dispatched unit: an SSE event, or one line of a line-framed stream.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frame {
    /// The SSE `event` field; `None` when the event had none (the spec's default, "message").
    /// Always `None` for line framing.
    pub event: Option<String>,
    /// SSE: the `data` lines joined with `\n`. Lines: the line without its terminator.
    pub data: String,
    /// The SSE `id` field when this event set one. Always `None` for line framing.
    pub id: Option<String>,
}

impl Frame {
    /// A frame with only data.
    pub fn data(data: impl Into<String>) -> Frame {
        Frame { event: None, data: data.into(), id: None }
    }

    /// The frame, borrowed.
    pub fn as_ref(&self) -> FrameRef<'_> {
        FrameRef { event: self.event.as_deref(), data: &self.data, id: self.id.as_deref() }
    }
}

/// A [`Frame`] borrowed from the decoder for the length of one call: what the `*_each` methods
/// hand over, so that the hot path allocates nothing per frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRef<'a> {
    /// See [`Frame::event`].
    pub event: Option<&'a str>,
    /// See [`Frame::data`].
    pub data: &'a str,
    /// See [`Frame::id`].
    pub id: Option<&'a str>,
}

impl<'a> FrameRef<'a> {
    /// A frame with only data.
    pub fn data(data: &'a str) -> FrameRef<'a> {
        FrameRef { event: None, data, id: None }
    }

    /// The frame, owned.
    pub fn to_owned(self) -> Frame {
        Frame { event: self.event.map(str::to_owned), data: self.data.to_owned(), id: self.id.map(str::to_owned) }
    }
}

/// What the `*_each` methods hand over, in input order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decoded<'a> {
    /// A complete frame.
    Frame(FrameRef<'a>),
    /// A frame grew past the limit and was dropped; decoding resumes after its end. Said once
    /// per dropped frame, where the frame would have been.
    TooLarge,
    /// Invalid UTF-8 was replaced by U+FFFD since the last frame: `so_far` sequences in the
    /// stream until now. Said just before the frame that holds the text (so a reader can tell
    /// which frames it counts, whatever the chunking).
    InvalidUtf8 {
        /// What [`FrameDecoder::invalid_utf8`] says now.
        so_far: usize,
    },
}

/// The `Vec` form of a `*_each` method: the frames into `out`, and the first frame dropped in
/// this call as an error (the frames before and after it are in `out` all the same).
fn collect_frames(
    limit: usize,
    out: &mut Vec<Frame>,
    push_each: impl FnOnce(&mut dyn FnMut(Decoded<'_>)),
) -> Result<(), FramingError> {
    let mut too_large = None;
    push_each(&mut |decoded| match decoded {
        Decoded::Frame(frame) => out.push(frame.to_owned()),
        Decoded::TooLarge => {
            too_large.get_or_insert(out.len());
        }
        Decoded::InvalidUtf8 { .. } => {}
    });
    match too_large {
        Some(at) => Err(FramingError::FrameTooLarge { limit, at }),
        None => Ok(()),
    }
}

/// What framing refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FramingError {
    /// One frame grew past the cap; it is dropped and decoding resumes after its end. `at` is
    /// where in the output it would have been (the frames before it in `out`), so the error can
    /// be reported in its place, before frames that came after it in the same push.
    FrameTooLarge {
        /// The cap, in bytes.
        limit: usize,
        /// How many frames of the push came before it.
        at: usize,
    },
}

impl std::fmt::Display for FramingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FramingError::FrameTooLarge { limit, .. } => {
                write!(f, "one stream event exceeded the {limit}-byte limit and was dropped")
            }
        }
    }
}

/// How the input ended, reported by `finish`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Nothing was left undecided.
    Clean,
    /// An event had started (fields seen, no blank line yet) when the input ended. Per the
    /// WHATWG rule it was not dispatched; later stages use this to tell truncation from a finish.
    Truncated,
}

/// The framing a dialect is carried in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Server-Sent Events.
    Sse,
    /// Newline-delimited records.
    Lines,
}

/// Either decoder behind one interface, chosen at run time.
#[derive(Debug)]
pub enum FrameDecoder {
    /// Server-Sent Events.
    Sse(SseDecoder),
    /// Newline-delimited records.
    Lines(LineDecoder),
}

impl FrameDecoder {
    /// A decoder for `framing` that refuses frames over `max_frame_bytes`.
    pub fn new(framing: Framing, max_frame_bytes: usize) -> FrameDecoder {
        match framing {
            Framing::Sse => FrameDecoder::Sse(SseDecoder::with_limit(max_frame_bytes)),
            Framing::Lines => FrameDecoder::Lines(LineDecoder::with_limit(max_frame_bytes)),
        }
    }

    /// Decodes `chunk`, appending every frame it completes to `out`. On an oversized frame the
    /// frames before it are in `out`, the error is returned, and the decoder skips to the frame's end.
    /// The whole chunk is decoded all the same: frames completed after the oversized one in this
    /// chunk are in `out` too, and one error stands for every frame this chunk dropped.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<Frame>) -> Result<(), FramingError> {
        match self {
            FrameDecoder::Sse(d) => d.push(chunk, out),
            FrameDecoder::Lines(d) => d.push(chunk, out),
        }
    }

    /// Decodes `chunk`, handing each frame it completes (and each frame it drops) to `each`.
    pub fn push_each(&mut self, chunk: &[u8], each: impl FnMut(Decoded<'_>)) {
        match self {
            FrameDecoder::Sse(d) => d.push_each(chunk, each),
            FrameDecoder::Lines(d) => d.push_each(chunk, each),
        }
    }

    /// How many invalid UTF-8 sequences were replaced by U+FFFD so far.
    pub fn invalid_utf8(&self) -> usize {
        match self {
            FrameDecoder::Sse(d) => d.invalid_utf8(),
            FrameDecoder::Lines(d) => d.invalid_utf8(),
        }
    }

    /// Ends the input: dispatches what the framing's rules allow and says how it ended.
    pub fn finish(&mut self, out: &mut Vec<Frame>) -> Ending {
        self.finish_each(|frame| out.push(frame.to_owned()))
    }

    /// [`FrameDecoder::finish`], handing the frame it dispatches (if any) to `each`.
    pub fn finish_each(&mut self, each: impl FnMut(FrameRef<'_>)) -> Ending {
        match self {
            FrameDecoder::Sse(d) => d.finish(&mut Vec::new()),
            FrameDecoder::Lines(d) => d.finish_each(each),
        }
    }
}

/// `String::from_utf8_lossy` (the WHATWG "UTF-8 decode": each maximal invalid subpart becomes
/// one U+FFFD), adding the replacements made to `replaced`. The common case comes first:
/// `str::from_utf8` checks ASCII a word at a time, where the lossy scan goes byte by byte.
fn utf8_lossy<'a>(bytes: &'a [u8], replaced: &mut usize) -> std::borrow::Cow<'a, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => {
            *replaced += bytes.utf8_chunks().filter(|chunk| !chunk.invalid().is_empty()).count();
            String::from_utf8_lossy(bytes)
        }
    }
}
