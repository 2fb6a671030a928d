//! A checking JSON scanner for the hot path: walks one frame's JSON once, without building it.
//!
//! Nearly every frame of a long answer has one small shape (a text delta). Read as a `Value`, most
//! of its cost is matching and skipping fields nobody reads, and building and dropping the
//! `Value` (BENCHMARKS.md has the measurements). The decoders' fast paths use this reader to pick out their few fields, checking that the text
//! is JSON as it goes (strings, escapes, numbers, literals, nesting) and skipping the rest.
//!
//! A fast path answers only when the answer is certain: exactly what the general path would make
//! of the frame. Anything the reader is unsure of (escapes in keys, a number out of `f64` range,
//! lone surrogate escapes, deep nesting) gives `None`, and the decoder's general path reads the frame.
//! Each fast path's tests check that it agrees with the general path on every recorded frame and
//! on every one-byte edit of the frames it reads (`tests::edits_read`).

use std::borrow::Cow;

#[cfg(any(test, fuzzing))]
pub(super) mod checks;
#[cfg(test)]
mod tests;

/// Deeper than this, leave it to the general path's reader (whose own limit is 128).
const MAX_DEPTH: usize = 64;

/// Holes a shape has room for before it learns its first frame (a Gemini response has about 15).
const HOLES_AT_ONCE: usize = 16;

/// A shape of more holes is not learned: real frames have tens, and a hostile frame of skipped
/// values (`[0,0,0,…]`) would otherwise leave a list of holes several times its size held for
/// the rest of the stream.
const MAX_HOLES: usize = 1024;

/// A shape of more fixed bytes is not learned: a real frame's fixed parts are well under a
/// kilobyte, and a hostile frame of values that are not holes (`[true,true,…]`, up to the frame
/// limit) would otherwise leave its bytes held by each learned shape for the rest of the stream.
const MAX_LAYOUT_BYTES: usize = 4096;

/// The fields met so far in one object, by a number the caller gives each: a field twice is
/// left to the general path (serde_json's derive refuses it; its `Value` keeps the last).
#[derive(Default)]
pub(super) struct Seen(u32);

impl Seen {
    pub(super) fn once(&mut self, field: u32) -> Option<()> {
        let bit = 1 << field;
        (self.0 & bit == 0).then(|| self.0 |= bit)
    }
}

/// Strings a fast path hands over, each in its slot.
pub(super) type Taken<'a, const N: usize> = [Option<Cow<'a, str>>; N];

/// A fast path: what it makes of a frame (`kind`, from values it compared) and the strings it
/// took, or `None` for a frame it leaves to the general path.
pub(super) type Scan<'a, T, const N: usize> = fn(&mut Reader<'a>) -> Option<(T, Taken<'a, N>)>;

/// Runs `scan` over `data`, which must hold nothing after the value it reads: the plain forward
/// scanner, for frames whose shape changes too often for a [`Shape`] to pay.
pub(super) fn scan<'a, T, const N: usize>(data: &'a str, scan: Scan<'a, T, N>) -> Option<(T, Taken<'a, N>)> {
    // The benchmark and the tests compare a stream read with no fast path at all.
    #[cfg(any(test, fuzzing))]
    if checks::MODE.get() == checks::ShapeMode::Off {
        return None;
    }
    let mut r = Reader::new(data);
    let found = scan(&mut r)?;
    r.at_end()?;
    #[cfg(any(test, fuzzing))]
    checks::took(checks::Path::Scanned);
    Some(found)
}

/// The shape of the last frame a fast path read: its bytes but for the places where the fast
/// path only skipped a string or a number, or took a string. In a long answer nearly every frame has the
/// shape of the one before (the same keys in the same order, the same fixed values, other
/// text), and checking that costs a fraction of scanning the frame.
///
/// A frame that has the same bytes outside those places, and there a valid string or number
/// (as the reader accepts them), is read by the fast path exactly as the learned frame was: the
/// same keys with the same values decide, and only what it skipped or took differs. So
/// [`Shape::read`] gives what `scan` would, and falls back to `scan` (learning again) when
/// the frame has another shape. The dialects' tests check this on every recorded frame and on
/// every one-byte edit of them.
pub(super) struct Shape<T, const N: usize> {
    layout: Layout,
    /// What the fast path made of the learned frame; `None` before one is learned.
    kind: Option<T>,
}

/// What a [`Shape`] keeps of the frame it learned, apart from what the fast path made of it: one
/// copy of the code that learns and replays it for every fast path (the module is smaller).
#[derive(Default)]
struct Layout {
    /// The learned frame's bytes outside its holes.
    bytes: Vec<u8>,
    /// In order; their `start` and `end` are positions in the frame while it is read, and both
    /// the hole's place in `bytes` once it is learned.
    holes: Vec<Hole>,
}

#[derive(Debug, Clone, Copy)]
struct Hole {
    start: usize,
    end: usize,
    what: HoleKind,
}

#[derive(Debug, Clone, Copy)]
enum HoleKind {
    SkippedString,
    SkippedNumber,
    Taken(usize),
    /// A number handed over as its text (a count that changes from frame to frame).
    TakenNumber(usize),
}

impl<T, const N: usize> Default for Shape<T, N> {
    fn default() -> Self {
        Shape { layout: Layout::default(), kind: None }
    }
}

impl<T, const N: usize> std::fmt::Debug for Shape<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shape").field("layout", &String::from_utf8_lossy(&self.layout.bytes)).finish_non_exhaustive()
    }
}

impl<T: Copy, const N: usize> Shape<T, N> {
    /// What `scan` makes of `data`, by the learned shape when `data` has it.
    pub(super) fn read<'a>(&mut self, data: &'a str, scan: Scan<'a, T, N>) -> Option<(T, Taken<'a, N>)> {
        #[cfg(any(test, fuzzing))]
        match checks::MODE.get() {
            checks::ShapeMode::Warm => {}
            checks::ShapeMode::Cold => self.kind = None,
            checks::ShapeMode::Plain => return self::scan(data, scan),
            checks::ShapeMode::Off => return None,
        }
        if let Some(found) = self.replay(data) {
            #[cfg(any(test, fuzzing))]
            checks::took(checks::Path::Replayed);
            return Some(found);
        }
        self.scan_and_learn(data, scan)
    }

    /// What `scan` makes of `data`, learning its shape.
    fn scan_and_learn<'a>(&mut self, data: &'a str, scan: Scan<'a, T, N>) -> Option<(T, Taken<'a, N>)> {
        let mut r =
            Reader { data, bytes: data.as_bytes(), at: 0, holes: Some(self.layout.take_holes()), learned: true };
        let found = scan(&mut r).filter(|_| r.at_end().is_some());
        #[cfg(any(test, fuzzing))]
        if found.is_some() {
            checks::took(checks::Path::Scanned);
        }
        // `None`: more than MAX_HOLES, dropped as they came; nothing is learned.
        let learned = r.learned;
        self.kind = r.holes.take().and_then(|holes| {
            self.layout.holes = holes;
            found.as_ref().filter(|_| learned).and_then(|(kind, _)| self.layout.learn(data.as_bytes()).then_some(*kind))
        });
        found
    }

    /// What the fast path made of the last frame this shape read, when it learned that frame.
    pub(super) fn learned(&self) -> Option<&T> {
        self.kind.as_ref()
    }

    fn replay<'a>(&self, data: &'a str) -> Option<(T, Taken<'a, N>)> {
        let kind = self.kind?;
        let mut taken = [const { None }; N];
        self.layout.replay(data, &mut taken)?;
        Some((kind, taken))
    }
}

impl Layout {
    /// The holes, emptied, for a scan to record a frame's in.
    fn take_holes(&mut self) -> Vec<Hole> {
        self.holes.clear();
        // Room for a real frame's holes at once: grown from nothing, a stream's first frame (the
        // only one of a short answer read whole) paid more for the growth than for its scan.
        self.holes.reserve(HOLES_AT_ONCE);
        std::mem::take(&mut self.holes)
    }

    /// Keeps the bytes of `data` outside the holes just recorded (in `data`'s positions), and
    /// moves the holes to their places in those bytes: a frame with a long text leaves a layout
    /// as short as its fixed parts. False if the holes do not fit `data`, or its fixed parts are
    /// longer than `MAX_LAYOUT_BYTES`.
    fn learn(&mut self, data: &[u8]) -> bool {
        self.bytes.clear();
        let in_holes: usize = self.holes.iter().map(|hole| hole.end.saturating_sub(hole.start)).sum();
        let fixed = data.len().saturating_sub(in_holes);
        if fixed > MAX_LAYOUT_BYTES {
            return false;
        }
        self.bytes.reserve_exact(fixed);
        let mut from = 0;
        for hole in &mut self.holes {
            let Some(literal) = data.get(from..hole.start) else { return false };
            self.bytes.extend_from_slice(literal);
            from = hole.end;
            (hole.start, hole.end) = (self.bytes.len(), self.bytes.len());
        }
        let Some(rest) = data.get(from..) else { return false };
        self.bytes.extend_from_slice(rest);
        true
    }

    /// Reads `data` by the layout, its taken strings into their slots of `taken`; `None` when
    /// `data` has another shape.
    fn replay<'a>(&self, data: &'a str, taken: &mut [Option<Cow<'a, str>>]) -> Option<()> {
        let mut r = Reader::new(data);
        let mut from = 0;
        for hole in &self.holes {
            r.literal(self.bytes.get(from..hole.start)?)?;
            match hole.what {
                HoleKind::SkippedString => r.skip_string().map(drop)?,
                HoleKind::SkippedNumber => r.number()?,
                HoleKind::Taken(slot) => *taken.get_mut(slot)? = Some(r.string()?),
                HoleKind::TakenNumber(slot) => *taken.get_mut(slot)? = Some(r.number_text()?),
            }
            from = hole.end;
        }
        let (rest, layout_rest) = (r.bytes.get(r.at..)?, self.bytes.get(from..)?);
        same_bytes(rest, layout_rest).then_some(())
    }
}

/// The last `K` shapes a fast path learned, the one that read last first: for a stream whose
/// frames take a few shapes in turn (Gemini's thinking, its text, and its last response with the
/// finish reason), where one [`Shape`] would learn again at every turn.
#[derive(Debug)]
#[cfg_attr(test, derive(PartialEq))]
pub(super) struct Shapes<T, const N: usize, const K: usize>([Shape<T, N>; K]);

impl<T, const N: usize, const K: usize> Default for Shapes<T, N, K> {
    fn default() -> Self {
        Shapes(std::array::from_fn(|_| Shape::default()))
    }
}

impl<T: Copy, const N: usize, const K: usize> Shapes<T, N, K> {
    /// What `scan` makes of `data`, by the first learned shape `data` has, or learned in place of
    /// the one that read longest ago (first when learned).
    pub(super) fn read<'a>(&mut self, data: &'a str, scan: Scan<'a, T, N>) -> Option<(T, Taken<'a, N>)> {
        #[cfg(any(test, fuzzing))]
        match checks::MODE.get() {
            checks::ShapeMode::Warm => {}
            checks::ShapeMode::Cold => self.0.iter_mut().for_each(|shape| shape.kind = None),
            checks::ShapeMode::Plain => return self::scan(data, scan),
            checks::ShapeMode::Off => return None,
        }
        for i in 0..K {
            if let Some(found) = self.0[i].replay(data) {
                self.0[..=i].rotate_right(1);
                #[cfg(any(test, fuzzing))]
                checks::took(checks::Path::Replayed);
                return Some(found);
            }
        }
        // Scanned with the one that read longest ago, which a frame not learned leaves empty:
        // the next such frame (a Gemini response with its finish reason) then evicts no other.
        let found = self.0[K - 1].scan_and_learn(data, scan);
        if self.0[K - 1].kind.is_some() {
            self.0.rotate_right(1);
        }
        found
    }
}

pub(super) struct Reader<'a> {
    data: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// While a shape is learned: the holes so far.
    holes: Option<Vec<Hole>>,
    /// False once the fast path says the frame is not to be learned (its holes are no longer kept).
    learned: bool,
}

impl<'a> Reader<'a> {
    pub(super) fn new(data: &'a str) -> Reader<'a> {
        Reader { data, bytes: data.as_bytes(), at: 0, holes: None, learned: true }
    }

    fn hole(&mut self, start: usize, what: HoleKind) {
        if let Some(holes) = self.holes.as_mut().filter(|_| self.learned) {
            if holes.len() == MAX_HOLES {
                self.holes = None;
            } else {
                holes.push(Hole { start, end: self.at, what });
            }
        }
    }

    /// The frame being read is not learned as a shape.
    pub(super) fn not_learned(&mut self) {
        self.learned = false;
    }

    /// Only whitespace is left.
    pub(super) fn at_end(&mut self) -> Option<()> {
        self.whitespace();
        (self.at == self.bytes.len()).then_some(())
    }

    /// An object's string value of `kind` (compared by the caller: part of a shape) and those of
    /// `keys` (taken, in their slots); its other fields are skipped. `None` when a wanted field
    /// is not a string or comes twice, and as soon as the kind is not one that `wanted` accepts:
    /// the kind comes first in real frames, and the frames a fast path does not read (a few
    /// kilobytes of `response.created`) are left at their first field.
    pub(super) fn kind_and_strings<const N: usize>(
        &mut self,
        kind: &[u8],
        wanted: &dyn Fn(&str) -> bool,
        keys: [&[u8]; N],
    ) -> Option<(Option<Cow<'a, str>>, Taken<'a, N>)> {
        let mut taken = [const { None }; N];
        let found = self.kind_and_strings_into(kind, wanted, &keys, &mut taken)?;
        Some((found, taken))
    }

    /// [`Reader::kind_and_strings`] for any number of keys: one copy in the module for every fast
    /// path that reads an object this way.
    fn kind_and_strings_into(
        &mut self,
        kind: &[u8],
        wanted: &dyn Fn(&str) -> bool,
        keys: &[&[u8]],
        taken: &mut [Option<Cow<'a, str>>],
    ) -> Option<Option<Cow<'a, str>>> {
        let mut found = None;
        self.object(|r, key| {
            if key == kind {
                found.is_none().then_some(())?;
                let read = r.string()?;
                wanted(&read).then_some(())?;
                found = Some(read);
                return Some(());
            }
            match keys.iter().position(|k| *k == key) {
                Some(slot) if taken[slot].is_none() => {
                    taken[slot] = Some(r.take(slot)?);
                    Some(())
                }
                Some(_) => None,
                None => r.skip_value(1),
            }
        })?;
        Some(found)
    }

    /// A non-negative integer that fits a `u64`, written plainly (no fraction, no exponent).
    pub(super) fn u64(&mut self) -> Option<u64> {
        self.peek()?;
        let start = self.at;
        self.number()?;
        self.data[start..self.at].parse().ok()
    }

    #[inline]
    pub(super) fn whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    pub(super) fn peek(&mut self) -> Option<u8> {
        self.whitespace();
        self.bytes.get(self.at).copied()
    }

    #[inline]
    pub(super) fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// `{ "key": value, ... }`, calling `field` with each key and the reader at its value. Keys
    /// with escapes are left to the general path.
    #[inline]
    pub(super) fn object(&mut self, mut field: impl FnMut(&mut Self, &[u8]) -> Option<()>) -> Option<()> {
        self.object_of(&mut field)
    }

    /// [`Reader::object`]'s loop, `field` called through a pointer: one copy of the loop in the
    /// module, not one inlined in each of the fast paths' objects. A frame read by a learned shape
    /// runs none of it.
    fn object_of(&mut self, field: &mut dyn FnMut(&mut Self, &[u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.peek()?;
            let start = self.at + 1;
            if self.skip_string()? {
                return None;
            }
            let key = &self.bytes[start..self.at - 1];
            self.eat(b':')?;
            field(self, key)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An object `depth` deep whose fields named in `names` are read by `read`, given their
    /// place in `names`; the others are skipped. A named field twice is left to the general path.
    ///
    /// `read` is called through a pointer: the objects read this way come a few times an answer
    /// (or are replayed by a learned shape), and one copy of the loop for all of them keeps the
    /// module smaller than a copy for each `read`.
    pub(super) fn fields(
        &mut self,
        depth: usize,
        names: &[&str],
        read: &mut dyn FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        let mut seen = Seen::default();
        self.object(|r, key| match names.iter().position(|name| name.as_bytes() == key) {
            Some(at) => {
                seen.once(at as u32)?;
                read(r, at)
            }
            None => r.skip_value(depth + 1),
        })
    }

    /// `None` for `null`, else what `read` reads.
    pub(super) fn or_null<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.peek()? == b'n' {
            self.null().map(|()| None)
        } else {
            read(self).map(Some)
        }
    }

    pub(super) fn bool(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| true),
            b'f' => self.literal(b"false").map(|()| false),
            _ => None,
        }
    }

    #[inline]
    pub(super) fn null(&mut self) -> Option<()> {
        self.peek()?;
        self.bytes[self.at..].starts_with(b"null").then(|| self.at += 4)
    }

    /// A string value the caller hands over, in `slot` of what it takes (see [`Shape`]).
    pub(super) fn take(&mut self, slot: usize) -> Option<Cow<'a, str>> {
        self.peek()?;
        let start = self.at;
        let text = self.string()?;
        self.hole(start, HoleKind::Taken(slot));
        Some(text)
    }

    /// A number value the caller hands over as its text, in `slot` of what it takes (see
    /// [`Shape`]): a value that changes from frame to frame (a running count) is then a hole of the
    /// shape, not a byte of its layout that sends every frame back to `scan`.
    pub(super) fn take_number(&mut self, slot: usize) -> Option<Cow<'a, str>> {
        self.peek()?;
        let start = self.at;
        let text = self.number_text()?;
        self.hole(start, HoleKind::TakenNumber(slot));
        Some(text)
    }

    fn number_text(&mut self) -> Option<Cow<'a, str>> {
        let start = self.at;
        self.number()?;
        Some(Cow::Borrowed(&self.data[start..self.at]))
    }

    /// A string value: borrowed when it has no escapes, else decoded as it is read.
    ///
    /// Hand-written on purpose, in one pass: every tool-argument delta is JSON inside a string,
    /// its quotes escaped. Decoding one through serde_json (a `Value`, set up per string) was a
    /// third of reading an OpenAI Responses arguments delta, and checking the string, then
    /// decoding it in a second pass, cost more per live frame of such deltas than this. The runs
    /// between escapes are found eight bytes at a time ([`string_stop`]); they are pushed as bytes
    /// and the text checked as UTF-8 once at the end: pushed as characters, they cost more than
    /// the check.
    pub(super) fn string(&mut self) -> Option<Cow<'a, str>> {
        let data = self.data;
        self.eat(b'"')?;
        let mut from = self.at;
        let mut decoded: Option<Vec<u8>> = None;
        loop {
            let stop = self.at + string_stop(self.bytes.get(self.at..)?)?;
            let run = data.get(from..stop)?;
            self.at = stop + 1;
            match self.bytes.get(stop)? {
                b'"' => {
                    return Some(match decoded {
                        None => Cow::Borrowed(run),
                        Some(mut out) => {
                            push_run(&mut out, run.as_bytes());
                            Cow::Owned(String::from_utf8(out).ok()?)
                        }
                    });
                }
                b'\\' => {
                    // Room for a short string at once; a long one grows as a `Vec` does. Not the
                    // rest of the frame: the string would keep that capacity as long as it lives.
                    let out = decoded.get_or_insert_with(|| Vec::with_capacity((self.bytes.len() - from).min(256)));
                    push_run(out, run.as_bytes());
                    match self.escaped()? {
                        c if c.is_ascii() => out.push(c as u8),
                        c => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                    }
                    from = self.at;
                }
                _ => return None,
            }
        }
    }

    /// The character an escape stands for, after its backslash; a lone surrogate is left to the
    /// general path, which reports it. A one-letter escape (nearly all of them: the quotes and
    /// line breaks of text and tool arguments) is read here, a `\u` by the general reader's code.
    fn escaped(&mut self) -> Option<char> {
        let letter = *self.bytes.get(self.at)?;
        if letter == b'u' {
            return crate::json::escape(self.bytes, &mut self.at).ok();
        }
        self.at += 1;
        crate::json::escaped(letter)
    }

    /// Past one string, checking its escapes and that it holds no control characters; whether
    /// it had escapes.
    #[inline]
    fn skip_string(&mut self) -> Option<bool> {
        self.eat(b'"')?;
        let mut escaped = false;
        loop {
            let rest = &self.bytes[self.at..];
            let stop = string_stop(rest)?;
            self.at += stop + 1;
            match rest[stop] {
                b'"' => return Some(escaped),
                b'\\' => {
                    escaped = true;
                    self.escaped()?;
                }
                _ => return None,
            }
        }
    }

    /// Past one JSON value of any kind, `depth` deep: its text. A frame with one is not learned as
    /// a shape: a replay would skip what the value's holes hold, and not take its text.
    pub(super) fn raw_value(&mut self, depth: usize) -> Option<&'a str> {
        self.not_learned();
        self.peek()?;
        let start = self.at;
        self.skip_value(depth)?;
        Some(&self.data[start..self.at])
    }

    /// Past one JSON value of any kind.
    pub(super) fn skip_value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let next = self.peek()?;
        let start = self.at;
        match next {
            b'"' => {
                self.skip_string()?;
                self.hole(start, HoleKind::SkippedString);
                Some(())
            }
            b'{' => self.object(|r, _| r.skip_value(depth + 1)),
            b'[' => {
                self.at += 1;
                if self.peek()? == b']' {
                    self.at += 1;
                    return Some(());
                }
                loop {
                    self.skip_value(depth + 1)?;
                    match self.peek()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => {
                self.number()?;
                self.hole(start, HoleKind::SkippedNumber);
                Some(())
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let here = self.bytes.get(self.at..self.at + word.len())?;
        same_bytes(here, word).then(|| self.at += word.len())
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)?`. An exponent, or 300 digits, is left to the general
    /// path: its reader refuses a number out of `f64`'s range, as serde_json does.
    fn number(&mut self) -> Option<()> {
        let start = self.at;
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at)? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.at_least_one_digit()?;
        }
        let exponent = matches!(self.bytes.get(self.at), Some(b'e' | b'E'));
        (!exponent && self.at - start < 300).then_some(())
    }

    fn digits(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
    }

    fn at_least_one_digit(&mut self) -> Option<()> {
        self.bytes.get(self.at).filter(|b| b.is_ascii_digit())?;
        self.digits();
        Some(())
    }
}

/// Appends a run of text between escapes: a long one in one copy, a short one a byte at a
/// time (most runs in tool arguments are a few bytes between quotes, where the call of a copy
/// costs more than the copy, most of all in the module, where a copy is a call out of it).
#[inline]
fn push_run(out: &mut Vec<u8>, run: &[u8]) {
    if run.len() > 16 {
        out.extend_from_slice(run);
    } else {
        run.iter().for_each(|&b| out.push(b));
    }
}

/// `a == b`, eight bytes at a time. The slice comparison calls `memcmp`, which in WebAssembly
/// compares a byte at a time; comparing a learned shape's fixed bytes is most of what reading a
/// frame by its shape costs.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut a8, mut b8) = (a.chunks_exact(8), b.chunks_exact(8));
    a8.by_ref().zip(b8.by_ref()).all(|(x, y)| {
        u64::from_le_bytes(x.try_into().expect("eight bytes")) == u64::from_le_bytes(y.try_into().expect("eight bytes"))
    }) && a8.remainder() == b8.remainder()
}

/// Where in `bytes` the string ends or needs a look: the first `"`, `\\` or control character.
/// Eight bytes at a time (the has-zero-byte trick: a flag can be wrong only after the first true
/// one, and only the first is used). memchr2 cannot check for control characters, and its
/// set-up per call costs more than it saves on a chunk's short strings.
#[inline]
fn string_stop(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let flags = zero_byte(w ^ (ONES * u64::from(b'"')))
            | zero_byte(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGHS);
        if flags != 0 {
            return Some(at + flags.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let tail = words.remainder().iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    Some(at + tail)
}
