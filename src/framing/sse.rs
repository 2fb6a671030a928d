//! Server-Sent Events, following the WHATWG "event stream interpretation"
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation>).
//!
//! ```
//! use chatstream::framing::{Ending, Frame, SseDecoder};
//!
//! let mut sse = SseDecoder::new();
//! let mut frames = Vec::new();
//! // One event in three chunks: a CRLF split between two of them, "é" split across the others.
//! sse.push(b"event: delta\r", &mut frames).unwrap();
//! sse.push(b"\ndata: caf\xC3", &mut frames).unwrap();
//! sse.push(b"\xA9\n\n", &mut frames).unwrap();
//! assert_eq!(frames, [Frame { event: Some("delta".into()), data: "café".into(), id: None }]);
//! assert_eq!(sse.finish(&mut frames), Ending::Clean);
//! ```

use super::lines::{Line, LineSplitter};
use super::{collect_frames, utf8_lossy, Decoded, Ending, Frame, FrameRef, FramingError, DEFAULT_MAX_FRAME_BYTES};

/// The most capacity the data buffer keeps between events.
const KEPT_BUFFER_BYTES: usize = 64 * 1024;

/// Decodes a `text/event-stream` body into [`Frame`]s, one per dispatched event.
///
/// Lines are split as `LineSplitter` says (CR, LF, CRLF; one leading BOM ignored) and decoded
/// as UTF-8 once complete, invalid bytes becoming U+FFFD (the spec's "UTF-8 decode" does the same).
///
/// [`Frame::id`] is the `id` set by this event's own fields, `None` when it set none; the spec's
/// last event ID, which carries over from earlier events, is [`SseDecoder::last_event_id`].
///
/// One event may hold at most `limit` bytes, counted as its data so far plus the line being read.
/// Past that, the event is dropped with one [`FramingError::FrameTooLarge`], its remaining lines
/// are skipped unread up to its end (the next blank line), and decoding resumes after it.
#[derive(Debug)]
pub struct SseDecoder {
    lines: LineSplitter,
    /// The rest of the decoder's state, apart from the splitter so that a push's callback for
    /// each line borrows it while the splitter runs, rather than the splitter moved out and back
    /// around each push (and an empty one dropped in its place). With that, and a push's events
    /// not cleaned when there are none, a push that ends no frame (an SSE comment, read in Node
    /// under callgrind, 100 pushes a stream) cost 2,170 instructions, against 2,320 in two
    /// readings before (one reading after: the gap is within this machine's run-to-run noise).
    event: EventState,
}

/// [`SseDecoder`]'s state but for its line splitter.
#[derive(Debug)]
struct EventState {
    limit: usize,
    /// The spec's "data buffer": each `data` value followed by LF.
    data: String,
    /// The spec's "event type buffer".
    event_type: String,
    /// The `id` this event set, if any.
    event_id: Option<String>,
    /// The spec's "last event ID buffer".
    last_event_id: String,
    /// The reconnection time the stream asked for, in milliseconds.
    retry: Option<u64>,
    /// A field line has been seen since the last blank line: an event has started.
    event_started: bool,
    /// The current event grew past the limit; its lines are skipped up to the next blank line.
    skipping: bool,
    /// Invalid UTF-8 sequences replaced so far, so that a corrupted stream can be noticed.
    invalid_utf8: usize,
    /// `invalid_utf8` as last handed over with a frame ([`Decoded::InvalidUtf8`]).
    invalid_utf8_said: usize,
}

impl Default for SseDecoder {
    fn default() -> Self {
        SseDecoder::with_limit(DEFAULT_MAX_FRAME_BYTES)
    }
}

impl SseDecoder {
    /// A decoder with the default cap on one event.
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// A decoder that refuses events larger than `limit` bytes.
    pub fn with_limit(limit: usize) -> SseDecoder {
        SseDecoder {
            lines: LineSplitter::new(limit),
            event: EventState {
                limit,
                data: String::new(),
                event_type: String::new(),
                event_id: None,
                last_event_id: String::new(),
                retry: None,
                event_started: false,
                skipping: false,
                invalid_utf8: 0,
                invalid_utf8_said: 0,
            },
        }
    }

    /// How many invalid UTF-8 sequences were replaced by U+FFFD so far.
    pub fn invalid_utf8(&self) -> usize {
        self.event.invalid_utf8
    }

    /// The last `retry` value the stream sent, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.event.retry
    }

    /// The spec's last event ID: the last `id` value seen, kept across events until another
    /// `id` replaces it (an empty `id` resets it to "").
    pub fn last_event_id(&self) -> &str {
        &self.event.last_event_id
    }

    /// Decodes `chunk`, appending every event it completes to `out`. When an event is too large
    /// the whole chunk is still decoded (the events after it are in `out` too) and the error is
    /// returned once, at the push that found it.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<Frame>) -> Result<(), FramingError> {
        let limit = self.event.limit;
        collect_frames(limit, out, |each| self.push_each(chunk, each))
    }

    /// Decodes `chunk`, handing each event it completes, and each event it drops as too large,
    /// to `each`. The frames borrow the decoder's buffers or the chunk: nothing is allocated per
    /// event.
    pub fn push_each(&mut self, chunk: &[u8], mut each: impl FnMut(Decoded<'_>)) {
        // The event's data while it is one `data` line, valid UTF-8, still in `chunk` (nearly
        // every event of a stream read live): handed over from the chunk when the event ends in
        // it, rather than copied into the data buffer first. Copied into `data` when another
        // `data` line comes, or when the chunk ends first.
        let mut single: Option<&str> = None;
        let state = &mut self.event;
        self.lines.push(chunk, |line| {
            let dropped = match line {
                Line::InChunk(bytes) if state.single_data_line(bytes, &mut single) => false,
                Line::InChunk(bytes) | Line::Held(bytes) => {
                    state.process_line(bytes, &mut single, &mut each);
                    false
                }
                Line::TooLong => {
                    single = None;
                    state.drop_event()
                }
            };
            // The data can outgrow its bytes only when U+FFFD replacements made it longer.
            let data_len = state.data_len(single);
            if dropped || (data_len > state.limit && state.drop_event()) {
                each(Decoded::TooLarge);
            }
            if state.skipping {
                single = None;
            }
            state.line_budget(data_len)
        });
        if let Some(text) = single {
            state.append_data(text);
        }
    }

    /// Ends the input without dispatching: "If the file ends in the middle of an event, before
    /// the final empty line, the incomplete event is not dispatched." Returns
    /// [`Ending::Truncated`] when an event had started (a field line since the last blank line,
    /// or part of a line), so a cut-off stream can be told from a finished one.
    pub fn finish(&mut self, _out: &mut Vec<Frame>) -> Ending {
        let truncated = self.event.event_started || self.event.skipping || self.lines.has_partial_line();
        self.lines.take_partial_line();
        self.event.reset_event();
        if truncated {
            Ending::Truncated
        } else {
            Ending::Clean
        }
    }
}

impl EventState {
    /// Most bytes the next line may hold: what the limit leaves after the data so far. While
    /// skipping, none: only a blank line (the event's end) is let through.
    fn line_budget(&self, data_len: usize) -> usize {
        if self.skipping {
            0
        } else {
            self.limit.saturating_sub(data_len)
        }
    }

    /// The data buffer's length, counting the `data` line kept in the chunk as the buffer would
    /// hold it (its text and LF).
    fn data_len(&self, single: Option<&str>) -> usize {
        self.data.len() + single.map_or(0, |text| text.len() + 1)
    }

    /// Keeps `line` in `single` when it is the event's first `data` line and valid UTF-8 (what
    /// [`EventState::process_line`] would copy unchanged into the empty data buffer); false for
    /// any other line, which is processed as usual.
    fn single_data_line<'c>(&mut self, line: &'c [u8], single: &mut Option<&'c str>) -> bool {
        let Some(value) = line.strip_prefix(b"data:") else { return false };
        if self.skipping || single.is_some() || !self.data.is_empty() {
            return false;
        }
        let Ok(text) = std::str::from_utf8(value.strip_prefix(b" ").unwrap_or(value)) else { return false };
        self.event_started = true;
        *single = Some(text);
        true
    }

    /// "Append the field value to the data buffer, then append a single U+000A LINE FEED (LF)
    /// character to the data buffer."
    fn append_data(&mut self, text: &str) {
        // The buffer keeps its capacity from event to event: no allocation per event.
        self.data.reserve(text.len() + 1);
        self.data.push_str(text);
        self.data.push('\n');
    }

    /// Drops the current event; true when this is news (not already skipping it).
    fn drop_event(&mut self) -> bool {
        let news = !self.skipping;
        self.reset_event();
        self.skipping = true;
        news
    }

    /// One complete line, per the spec:
    /// - "If the line is empty (a blank line): Dispatch the event."
    /// - "If the line starts with a U+003A COLON character (:): Ignore the line."
    /// - "If the line contains a U+003A COLON character (:)": the field name is what comes before
    ///   the first colon, the value what comes after, "If value starts with a U+0020 SPACE
    ///   character, remove it from value."
    /// - "Otherwise, the string is not empty but does not contain a U+003A COLON character (:)":
    ///   the whole line is the field name and the value is empty.
    ///
    /// The split is made on bytes before decoding: a colon byte is never part of a multi-byte
    /// character, and invalid bytes never absorb it, so this equals decoding first.
    ///
    /// `single` is the event's data kept in the chunk ([`EventState::single_data_line`]).
    fn process_line(&mut self, line: &[u8], single: &mut Option<&str>, each: &mut impl FnMut(Decoded<'_>)) {
        if line.is_empty() {
            if !std::mem::take(&mut self.skipping) {
                self.dispatch(single.take(), each);
            }
            return;
        }
        if self.skipping || line[0] == b':' {
            return;
        }
        self.event_started = true;
        let (name, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        if name == b"data" {
            if let Some(text) = single.take() {
                self.append_data(text);
            }
        }
        self.process_field(name, value);
    }

    /// The field rules:
    /// - "event": "Set the event type buffer to field value."
    /// - "data": "Append the field value to the data buffer, then append a single U+000A LINE
    ///   FEED (LF) character to the data buffer."
    /// - "id": "If the field value does not contain U+0000 NULL, then set the last event ID
    ///   buffer to the field value. Otherwise, ignore the field."
    /// - "retry": "If the field value consists of only ASCII digits, then interpret the field
    ///   value as an integer in base ten, and set the event stream's reconnection time to that
    ///   integer. Otherwise, ignore the field." An empty value or one too large for a `u64` is
    ///   not an integer, so it is ignored too.
    /// - "Otherwise: The field is ignored."
    fn process_field(&mut self, name: &[u8], value: &[u8]) {
        match name {
            b"event" => {
                self.event_type.clear();
                self.event_type.push_str(&utf8_lossy(value, &mut self.invalid_utf8));
            }
            b"data" => {
                let text = utf8_lossy(value, &mut self.invalid_utf8);
                self.append_data(&text);
            }
            b"id" if !value.contains(&0) => {
                let id = utf8_lossy(value, &mut self.invalid_utf8).into_owned();
                self.last_event_id.clone_from(&id);
                self.event_id = Some(id);
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let millis = value.iter().try_fold(0u64, |n, d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')));
                if millis.is_some() {
                    self.retry = millis;
                }
            }
            _ => {}
        }
    }

    /// "If the data buffer is an empty string, set the data buffer and the event type buffer to
    /// the empty string and return." Otherwise "If the data buffer's last character is a U+000A
    /// LINE FEED (LF) character, then remove the last character from the data buffer", and the
    /// event goes out with type "message" unless the event type buffer is not empty. `single`:
    /// the data kept in the chunk, without its LF, when the data buffer holds none.
    fn dispatch(&mut self, single: Option<&str>, each: &mut impl FnMut(Decoded<'_>)) {
        if let Some(data) = single.or_else(|| self.data.strip_suffix('\n')) {
            if self.invalid_utf8 != self.invalid_utf8_said {
                self.invalid_utf8_said = self.invalid_utf8;
                each(Decoded::InvalidUtf8 { so_far: self.invalid_utf8 });
            }
            let event = Some(self.event_type.as_str()).filter(|t| !t.is_empty());
            each(Decoded::Frame(FrameRef { event, data, id: self.event_id.as_deref() }));
        }
        self.reset_event();
    }

    fn reset_event(&mut self) {
        self.data.clear();
        // The buffer is kept for the next event, but not a large event's: the memory of one long
        // tool input is not held for the rest of the stream.
        if self.data.capacity() > KEPT_BUFFER_BYTES {
            self.data = String::new();
        }
        self.event_type.clear();
        self.event_id = None;
        self.event_started = false;
        self.skipping = false;
    }
}
