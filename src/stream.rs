//! The whole pipeline in one object: bytes in, clean events out.
//!
//! [`ChatStream`] chooses the framing and the dialect (or takes the ones it is given), runs each
//! push through framing → dialect → clean, and returns the events that input completed.
//!
//! ```
//! use chatstream::stream::{ChatStream, StreamOptions};
//! use chatstream::event::StreamEvent;
//!
//! let mut stream = ChatStream::new(StreamOptions::default());
//! let mut events = Vec::new();
//! // An OpenAI chunk split in the middle of its JSON: nothing is decided until it completes.
//! stream.push(br#"data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"con"#, &mut events);
//! assert!(events.is_empty());
//! stream.push(b"tent\":\"Hi\"}}]}\n\n", &mut events);
//! assert_eq!(events, [StreamEvent::TextDelta { text: "Hi".into() }]);
//! ```

use crate::clean::{CleanOptions, Cleaner, TextLeft};
use crate::dialect::{detect, Decoder, Dialect, ProviderEvent, ProviderEvents};
use crate::error::ErrorCode;
use crate::event::{StreamEvent, StreamEvents};
use crate::framing::{Decoded, Frame, FrameDecoder, FrameRef, Framing, FramingError, DEFAULT_MAX_FRAME_BYTES};

/// How many frames auto-detection looks at before it gives up on a stream it cannot recognise.
const DETECTION_FRAME_LIMIT: usize = 16;

/// The error that ends a stream whose dialect was not found. A build of some dialects names the
/// ones it reads: there, a stream of another may well be a chat stream, only not one this build
/// reads (`chatstream` and `chatstream/streaming` read every dialect).
fn not_detected() -> String {
    if cfg!(feature = "dialects") {
        return "Failed to parse response: not a chat stream this package can read".into();
    }
    format!(
        "Failed to parse response: not a chat stream this build of chatstream reads (it reads only {})",
        Dialect::built_in_names()
    )
}

/// How a [`ChatStream`] reads.
#[derive(Debug, Clone)]
pub struct StreamOptions {
    /// The wire dialect; `None` detects it from the headers or the first frames.
    pub dialect: Option<Dialect>,
    /// The response's `Content-Type`, when known (helps detection).
    pub content_type: Option<String>,
    /// The response's headers, when known (the AI SDK protocols announce themselves there).
    pub headers: Vec<(String, String)>,
    /// Cap on one SSE event or one line.
    pub max_frame_bytes: usize,
    /// What the cleaner strips and recognises.
    pub clean: CleanOptions,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            dialect: None,
            content_type: None,
            headers: Vec::new(),
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            clean: CleanOptions::default(),
        }
    }
}

/// The whole pipeline for one response: push its bytes, get clean events.
pub struct ChatStream {
    max_frame_bytes: usize,
    /// Bytes held until the first of them show the framing (auto-detection only).
    prefix: Vec<u8>,
    frames: Option<FrameDecoder>,
    saw_input: bool,
    /// What reads the frames. Apart from `frames`, so that a push borrows the two at once: moved
    /// out of the stream and back around each push, the frame decoder was copied twice a push.
    reader: Reader,
}

/// The stages after the framing: the dialect's decoder and the cleaner.
struct Reader {
    dialect: Option<Dialect>,
    decoder: Option<Decoder>,
    /// Frames held until one of them shows the dialect (auto-detection only).
    undetected: Vec<Frame>,
    cleaner: Cleaner,
    ended: bool,
    /// The provider events of one push, reused between pushes so the hot path does not allocate per call.
    events: ProviderEvents,
}

impl std::fmt::Debug for ChatStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatStream")
            .field("dialect", &self.reader.dialect)
            .field("ended", &self.reader.ended)
            .finish_non_exhaustive()
    }
}

impl ChatStream {
    /// A stream with these options.
    pub fn new(options: StreamOptions) -> ChatStream {
        let headers = options.headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let dialect = options.dialect.or_else(|| detect::from_headers(options.content_type.as_deref(), headers));
        ChatStream {
            max_frame_bytes: options.max_frame_bytes,
            prefix: Vec::new(),
            frames: dialect.map(|d| FrameDecoder::new(d.framing(), options.max_frame_bytes)),
            saw_input: false,
            reader: Reader {
                dialect,
                decoder: dialect.map(Decoder::new),
                undetected: Vec::new(),
                cleaner: Cleaner::new(options.clean),
                ended: false,
                events: ProviderEvents::default(),
            },
        }
    }

    /// The response's headers, once they are known and before any of its bytes: a dialect they
    /// name is used (unless one was given or detected already).
    pub fn use_response_headers<'a>(
        &mut self,
        content_type: Option<&str>,
        headers: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) {
        if self.reader.dialect.is_some() || self.saw_input {
            return;
        }
        if let Some(dialect) = detect::from_headers(content_type, headers) {
            self.reader.dialect = Some(dialect);
            self.frames = Some(FrameDecoder::new(dialect.framing(), self.max_frame_bytes));
            self.reader.decoder = Some(Decoder::new(dialect));
        }
    }

    /// The dialect in use, once known.
    pub fn dialect(&self) -> Option<Dialect> {
        self.reader.dialect
    }

    /// Whether `complete` has been emitted.
    pub fn is_complete(&self) -> bool {
        self.reader.cleaner.is_complete()
    }

    /// Whether `complete` was emitted with its text made of the text deltas (not of a backend's
    /// own message): then the text deltas joined are exactly its `text`.
    pub fn text_is_deltas_joined(&self) -> bool {
        self.reader.cleaner.text_is_deltas_joined()
    }

    /// The reader keeps the text deltas joined ([`Cleaner::leave_text_to_reader`]).
    pub(crate) fn leave_text_to_reader(&mut self) {
        self.reader.cleaner.leave_text_to_reader();
    }

    /// What `complete`'s text is made of, when it was left to the reader ([`Cleaner::take_text_left`]).
    pub(crate) fn take_text_left(&mut self) -> Option<TextLeft> {
        self.reader.cleaner.take_text_left()
    }

    /// Feeds the next chunk of the body, appending the events it completes to `out`.
    /// Adjacent text and thinking deltas within one push are merged.
    /// Once the message is over (its terminal event, a fatal error), what follows is not framed:
    /// nothing in it could reach the events.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<StreamEvent>) {
        if self.reader.message_over() || chunk.is_empty() {
            return;
        }
        self.saw_input = true;
        let out = &mut StreamEvents::new(out);
        if self.frames.is_some() {
            self.decode_chunk(chunk, out);
        } else {
            self.prefix.extend_from_slice(chunk);
            if let Some(framing) = detect::framing_from_prefix(&self.prefix) {
                self.start_framing(framing, out);
            } else {
                // Only whitespace so far (or one byte): nothing in it can matter to either framing
                // but a lone first byte, so keep at most that.
                let keep = self.prefix.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
                self.prefix.truncate(keep);
            }
        }
    }

    /// The body ended: resolves what is held and emits `complete` (and an error if the stream
    /// ended before its dialect's terminal event).
    pub fn finish(&mut self, out: &mut Vec<StreamEvent>) {
        if self.reader.ended {
            return;
        }
        let out = &mut StreamEvents::new(out);
        if self.frames.is_none() && !self.prefix.is_empty() {
            self.start_framing(Framing::Sse, out);
        }
        let reader = &mut self.reader;
        if let Some(frames) = self.frames.as_mut() {
            let reading = !reader.message_over();
            frames.finish_each(|frame| reader.decode_frame(frame, out));
            if reading {
                reader.cleaner.set_invalid_utf8(frames.invalid_utf8());
            }
        }
        match reader.decoder.as_mut() {
            Some(decoder) => decoder.finish(&mut reader.events),
            None => {
                let message = if self.saw_input {
                    not_detected()
                } else {
                    "Failed to parse response: the response body was empty".into()
                };
                reader.events.push(ProviderEvent::Error { code: ErrorCode::ServiceUnavailable, message, fatal: true });
            }
        }
        reader.clean(out);
        reader.cleaner.finish(out);
        reader.ended = true;
    }

    /// Stops reading: `complete` with the partial content, then `cancelled`
    /// (or an `error` CONFLICT when the stream had already completed).
    pub fn cancel(&mut self, out: &mut Vec<StreamEvent>) {
        self.reader.cleaner.cancel(&mut StreamEvents::new(out));
        self.reader.ended = true;
    }

    /// The transport failed mid-stream (connection lost, timed out): `complete` with the partial
    /// content, then an `error` with `code` and `message`.
    pub fn fail(&mut self, code: ErrorCode, message: &str, out: &mut Vec<StreamEvent>) {
        if self.reader.ended {
            return;
        }
        let out = &mut StreamEvents::new(out);
        self.reader.cleaner.push(ProviderEvent::Error { code, message: message.into(), fatal: true }, out);
        self.reader.cleaner.finish(out);
        self.reader.ended = true;
    }

    fn start_framing(&mut self, framing: Framing, out: &mut StreamEvents<'_>) {
        self.frames = Some(FrameDecoder::new(framing, self.max_frame_bytes));
        let prefix = std::mem::take(&mut self.prefix);
        self.decode_chunk(&prefix, out);
    }

    /// Frames, decodes and cleans one chunk. Frames are decoded as the framing completes them,
    /// borrowed from its buffers; their events are cleaned at the end of the chunk.
    fn decode_chunk(&mut self, chunk: &[u8], out: &mut StreamEvents<'_>) {
        let Some(frames) = self.frames.as_mut() else { return };
        let reader = &mut self.reader;
        let limit = self.max_frame_bytes;
        frames.push_each(chunk, |decoded| match decoded {
            Decoded::Frame(frame) => reader.decode_frame(frame, out),
            // A frame after the message's end is not read, whatever its size: the events are
            // the same however the body was cut.
            Decoded::TooLarge if reader.message_over() => {}
            Decoded::TooLarge => {
                // In its place: after the events of the frames before it, before those after it.
                reader.clean(out);
                let message = FramingError::FrameTooLarge { limit, at: 0 }.to_string();
                reader
                    .cleaner
                    .push(ProviderEvent::Error { code: ErrorCode::ServiceUnavailable, message, fatal: false }, out);
            }
            Decoded::InvalidUtf8 { so_far } => reader.count_invalid_utf8(so_far),
        });
        reader.clean(out);
    }
}

impl Reader {
    fn decode_frame(&mut self, frame: FrameRef<'_>, out: &mut StreamEvents<'_>) {
        match self.decoder.as_mut() {
            Some(decoder) => decoder.decode(frame, &mut self.events),
            None => self.detect_dialect(frame, out),
        }
    }

    /// Hands the events decoded so far to the cleaner (their runs merged already as the decoder
    /// wrote them).
    fn clean(&mut self, out: &mut StreamEvents<'_>) {
        // Most pushes of a live read that end no frame (part of one, a keep-alive) leave none:
        // no drain to make and drop.
        if self.events.as_slice().is_empty() {
            return;
        }
        for event in self.events.drain() {
            self.cleaner.push(event, out);
        }
    }

    /// The message is over: the frames that follow are not read.
    fn message_over(&self) -> bool {
        self.ended || self.decoder.as_ref().is_some_and(Decoder::has_ended)
    }

    /// Counts the invalid UTF-8 of the frame that follows, unless that frame is not read: the
    /// count in `complete` covers the frames up to the message's end, however the body was cut.
    fn count_invalid_utf8(&mut self, so_far: usize) {
        if !self.message_over() {
            self.cleaner.set_invalid_utf8(so_far);
        }
    }

    /// Holds frames until one shows the dialect, then decodes them all in order. Only the first
    /// frames count, however many one push brought: the outcome must not depend on how the body
    /// was chunked.
    fn detect_dialect(&mut self, frame: FrameRef<'_>, out: &mut StreamEvents<'_>) {
        if self.ended {
            return;
        }
        self.undetected.push(frame.to_owned());
        if let Some(dialect) = detect::from_frame(frame) {
            self.dialect = Some(dialect);
            let mut decoder = Decoder::new(dialect);
            for held in self.undetected.drain(..) {
                decoder.decode(held.as_ref(), &mut self.events);
            }
            self.decoder = Some(decoder);
        } else if self.undetected.len() > DETECTION_FRAME_LIMIT {
            self.undetected.clear();
            let message = not_detected();
            self.cleaner.push(ProviderEvent::Error { code: ErrorCode::ServiceUnavailable, message, fatal: true }, out);
            self.cleaner.finish(out);
            self.ended = true;
        }
    }
}
