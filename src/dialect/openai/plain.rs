//! The text of a plain OpenAI text chunk, read by hand.
//!
//! Nearly every chunk of a long answer has one shape: one choice, index 0, a delta with
//! `content` (and maybe `role`), no finish, no usage, no error. serde_json was half of the
//! pipeline's time on such a stream (callgrind on the native pipeline: the decoder 45% of all
//! instructions, serde_json 41%), most of it spent matching and skipping fields nobody reads. This
//! reader walks the chunk once, checks it is JSON as it goes (strings, numbers, literals,
//! nesting), and skips what it does not need without building it.
//!
//! It answers only when the answer is certain: `Some(text)` exactly when the general path would
//! read the chunk as that text and nothing else. Anything it is unsure of (escapes in keys,
//! duplicate fields, deep nesting, any other shape) gives `None`, and the general path reads
//! the chunk. The tests below check the two agree on every recorded chunk and on every one-byte
//! edit of plain ones; the `dialect_openai` fuzz target runs this reader for panics.

use std::borrow::Cow;

/// Deeper than this, leave it to serde_json (whose own limit is 128).
const MAX_DEPTH: usize = 64;

/// The text of `data` if it is a plain text chunk; `None` for any other chunk.
pub(super) fn plain_text_chunk(data: &str) -> Option<Cow<'_, str>> {
    let mut r = Reader { bytes: data.as_bytes(), at: 0 };
    let mut text = None;
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"choices" => {
                seen.once(Field::Choices)?;
                text = Some(r.choices(data)?);
            }
            b"error" | b"usage" => {
                seen.once(if key == b"error" { Field::Error } else { Field::Usage })?;
                r.null()?;
            }
            b"object" => {
                seen.once(Field::Object)?;
                if r.string(data)? == "error" {
                    return None;
                }
            }
            _ => r.skip_value(0)?,
        }
        Some(())
    })?;
    r.whitespace();
    (r.at == r.bytes.len()).then_some(())?;
    text
}

#[derive(Clone, Copy)]
enum Field {
    Choices,
    Error,
    Usage,
    Object,
    Index,
    Delta,
    Finish,
    Content,
    Role,
}

/// The fields met so far in one object: a field twice is left to the general path.
#[derive(Default)]
struct Seen(u16);

impl Seen {
    fn once(&mut self, field: Field) -> Option<()> {
        let bit = 1 << field as u16;
        (self.0 & bit == 0).then(|| self.0 |= bit)
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.whitespace();
        self.bytes.get(self.at).copied()
    }

    #[inline]
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// `{ "key": value, ... }`, calling `field` with each key and the reader at its value. Keys
    /// with escapes are left to the general path.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &[u8]) -> Option<()>) -> Option<()> {
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

    /// `choices`: one choice, index 0, a delta with `content` (and maybe `role`), no finish.
    fn choices(&mut self, data: &'a str) -> Option<Cow<'a, str>> {
        self.eat(b'[')?;
        let mut content = None;
        let mut seen = Seen::default();
        self.object(|r, key| {
            match key {
                b"index" => {
                    seen.once(Field::Index)?;
                    r.eat(b'0')?;
                    // `0` alone: `01`, `0.0` and `0e0` are someone else's business.
                    if let Some(b'0'..=b'9' | b'.' | b'e' | b'E') = r.bytes.get(r.at) {
                        return None;
                    }
                }
                b"finish_reason" => {
                    seen.once(Field::Finish)?;
                    r.null()?;
                }
                b"delta" => {
                    seen.once(Field::Delta)?;
                    let mut delta = Seen::default();
                    r.object(|r, key| match key {
                        b"content" => {
                            delta.once(Field::Content)?;
                            content = Some(r.string(data)?);
                            Some(())
                        }
                        b"role" => {
                            delta.once(Field::Role)?;
                            r.skip_value(2)
                        }
                        _ => None,
                    })?;
                }
                _ => r.skip_value(1)?,
            }
            Some(())
        })?;
        self.eat(b']')?;
        content
    }

    #[inline]
    fn null(&mut self) -> Option<()> {
        self.peek()?;
        self.bytes[self.at..].starts_with(b"null").then(|| self.at += 4)
    }

    /// A string value: borrowed when it has no escapes, else decoded by serde_json.
    fn string(&mut self, data: &'a str) -> Option<Cow<'a, str>> {
        self.peek()?;
        let start = self.at;
        let escaped = self.skip_string()?;
        let end = self.at;
        if escaped {
            serde_json::from_str::<String>(&data[start..end]).ok().map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(&data[start + 1..end - 1]))
        }
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
                    self.escape()?;
                }
                _ => return None,
            }
        }
    }

    /// The rest of an escape, after its backslash.
    fn escape(&mut self) -> Option<()> {
        match self.bytes.get(self.at)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
            b'u' => {
                let hex = self.bytes.get(self.at + 1..self.at + 5)?;
                hex.iter().all(u8::is_ascii_hexdigit).then_some(())?;
                // Surrogates are left to the general path, which checks they come in pairs.
                if matches!(hex[0], b'd' | b'D') && matches!(hex[1], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F') {
                    return None;
                }
                self.at += 5;
            }
            _ => return None,
        }
        Some(())
    }

    /// Past one JSON value of any kind.
    fn skip_value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.skip_string().map(drop),
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
            _ => self.number(),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.bytes[self.at..].starts_with(word).then(|| self.at += word.len())
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)?`. An exponent, or 300 digits, is left to the general
    /// path: serde_json refuses a number out of `f64`'s range when it builds a value, and skips
    /// it when it does not.
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

/// Where in `bytes` the string ends or needs a look: the first `"`, `\\` or control character.
/// Eight bytes at a time (the has-zero-byte trick: a flag can be wrong only after the first true
/// one, and only the first is used). memchr2 could not check for control characters, and its
/// set-up per call cost more than it saved on a chunk's short strings (callgrind).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::{OpenAiDecoder, ProviderEvent};
    use crate::framing::{FrameDecoder, Framing};

    #[test]
    fn only_plain_text_chunks_are_read() {
        let plain = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"Hi \"there\""},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        assert_eq!(plain_text_chunk(plain).as_deref(), Some("Hi \"there\""));
        assert_eq!(
            plain_text_chunk(r#"{"choices":[{"delta":{"role":"assistant","content":""}}]}"#).as_deref(),
            Some("")
        );
        for other in [
            r#"{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1}}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x","reasoning_content":null}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":null}}]}"#,
            r#"{"choices":[{"index":1,"delta":{"content":"x"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x"}},{"index":1,"delta":{"content":"y"}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1}}"#,
            r#"{"error":{"message":"boom"},"choices":[{"index":0,"delta":{"content":"x"}}]}"#,
            r#"{"object":"error","choices":[{"index":0,"delta":{"content":"x"}}]}"#,
        ] {
            assert_eq!(plain_text_chunk(other), None, "{other}");
        }
    }

    #[test]
    fn string_stop_finds_the_first_quote_backslash_or_control_character() {
        for len in 0..40 {
            for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                for at in 0..len {
                    let mut bytes: Vec<u8> = (0..len).map(|i| [b'a', 0xc3, 0xa9, b' ', 0x7f, 0x20][i % 6]).collect();
                    bytes[at] = stop;
                    if at + 1 < len {
                        bytes[at + 1] = b'"';
                    }
                    assert_eq!(string_stop(&bytes), Some(at), "{bytes:?}");
                }
            }
            let plain: Vec<u8> = (0..len).map(|i| [b'a', 0xc3, 0xa9, b' ', 0x7f, 0x20, 0xff][i % 7]).collect();
            assert_eq!(string_stop(&plain), None);
        }
    }

    /// What the general path makes of one chunk.
    fn general(data: &str) -> Vec<ProviderEvent> {
        let mut out = Vec::new();
        OpenAiDecoder::default().decode_chunk(data, &mut out);
        out
    }

    /// Wherever this reader answers, the general path gives the same text and nothing else.
    fn agrees(data: &str) {
        if let Some(text) = plain_text_chunk(data) {
            let expected = if text.is_empty() { vec![] } else { vec![ProviderEvent::Text(text.into_owned())] };
            assert_eq!(general(data), expected, "{data:?}");
        }
    }

    #[test]
    fn agrees_with_the_general_path_on_every_recorded_chunk() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut read = 0;
        for dir in [root.join("tests/fixtures/openai"), root.join("../shared/fixtures/real/openai")] {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                eprintln!("skipped {}: not here", dir.display());
                continue;
            };
            for entry in entries.flatten() {
                let Ok(bytes) = std::fs::read(entry.path()) else { continue };
                let mut frames = Vec::new();
                let mut decoder = FrameDecoder::new(Framing::Sse, usize::MAX);
                let _ = decoder.push(&bytes, &mut frames);
                decoder.finish(&mut frames);
                for frame in &frames {
                    agrees(frame.data.trim());
                    read += 1;
                }
            }
        }
        assert!(read > 50, "only {read} chunks read");
    }

    /// Every one-byte deletion and substitution of plain chunks: whatever this reader accepts, the
    /// general path reads the same.
    #[test]
    fn agrees_with_the_general_path_on_every_one_byte_edit() {
        let chunks = [
            r#"{"id":"c","object":"chat.completion.chunk","created":17,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a\"b\u00e9"},"logprobs":{"content":[1.5,-2,true,false,null,{}]},"finish_reason":null}],"usage":null}"#,
            r#" { "choices" : [ { "delta" : { "content" : "x y" } , "index" : 0 } ] , "error" : null } "#,
        ];
        let replacements =
            ["", "\"", "\\", "{", "}", "[", "]", ",", ":", "0", "1", "-", "e", ".", "n", " ", "\u{1}", "é", "\\ud800"];
        let mut accepted = 0;
        for chunk in chunks {
            assert!(plain_text_chunk(chunk).is_some(), "{chunk}");
            for (at, c) in chunk.char_indices() {
                for with in replacements {
                    let edited = format!("{}{with}{}", &chunk[..at], &chunk[at + c.len_utf8()..]);
                    agrees(&edited);
                    accepted += usize::from(plain_text_chunk(&edited).is_some());
                }
            }
        }
        // Edits inside skipped values and text keep the chunk plain: the check above had work to do.
        assert!(accepted > 100, "only {accepted} edits accepted");
    }
}
