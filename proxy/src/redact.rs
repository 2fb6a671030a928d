//! Keeps the configured keys out of what upstreams send back: some providers echo the key in a 401 body
//! or a header such as `WWW-Authenticate`.
//!
//! Only a whole key is redacted, never a part of one. The client controls text that upstreams echo (the
//! `model` in OpenAI's "The model `X` does not exist", a prompt the model repeats); a redactor that marked
//! fragments would answer, for every guess sent that way, whether it is a piece of the key, and give the
//! key away a character at a time. Marking only the whole key answers a guess of the whole key, which
//! nobody can make for a secret. Found, exactly (never case-folded, which would also answer guesses):
//! - the key with each character as itself, percent-encoded (`%2D`, `%2d`) or JSON-escaped (`\u002d`,
//!   and `\/` for `/`), in any mix: how it reads inside a URL or a JSON string;
//! - the key in base64 wherever it starts in the encoded text, as in a Basic `Authorization` value
//!   (`base64(user:key)`), with the base64 characters around it that carry its first and last bytes.
//!
//! Keys shorter than [`MIN_KEY`] bytes are not redacted at all: such a key is a placeholder (vLLM's
//! `EMPTY`), not a secret, and redacting it would rewrite ordinary words.
//!
//! On a stream, a key may arrive split across chunks. A chunk that ends in a run of bytes that could be
//! part of an encoded key (letters, digits, the punctuation of keys and encodings) keeps the end of that
//! run back (at most the longest encoded key) until the next chunk or the end of the stream. What is kept
//! back depends on the kinds of characters only, not on the key, so its timing tells nothing either. Any
//! other chunk without a key passes at once, unchanged and uncopied.

use std::ops::Range;
use std::sync::Arc;

use base64::Engine;
use bytes::Bytes;
use memchr::memmem;

/// The shortest key that is redacted: 16 bytes of even hex digits are 2^64 guesses of the whole key.
pub const MIN_KEY: usize = 16;
pub const MARK: &[u8] = b"[REDACTED]";
/// The bytes an encoded form of a key takes per byte of the key, at most (`\u002d`).
const LONGEST_ESCAPE: usize = 6;
/// Base64 characters around a key's base64 that may carry its first or last bytes (one group of four).
const BASE64_EDGE: usize = 4;

#[derive(Clone, Default)]
pub struct Redactor(Option<Arc<Matcher>>);

struct Matcher {
    /// The keys, [`MIN_KEY`] bytes or longer.
    keys: Vec<Vec<u8>>,
    /// For each key and each of the three places it can start in a base64 group, the base64 of the key's
    /// bytes that fill whole groups there.
    base64: Vec<memmem::Finder<'static>>,
    /// Bytes that can appear in an encoded key: what a stream keeps back at the end of a chunk.
    in_key: [bool; 256],
    /// The longest encoded key, in bytes: the most a stream keeps back.
    longest: usize,
}

impl Redactor {
    /// A redactor for `keys`; those shorter than [`MIN_KEY`] bytes are left out.
    pub fn new<'a>(keys: impl IntoIterator<Item = &'a str>) -> Redactor {
        let keys: Vec<Vec<u8>> =
            keys.into_iter().filter(|k| k.len() >= MIN_KEY).map(|k| k.as_bytes().to_vec()).collect();
        if keys.is_empty() {
            return Redactor(None);
        }
        let mut base64 = Vec::new();
        for key in &keys {
            for skip in 0..3 {
                let whole_groups = (key.len() - skip) / 3 * 3;
                let encoded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&key[skip..skip + whole_groups]);
                base64.push(memmem::Finder::new(encoded.as_bytes()).into_owned());
            }
        }
        let mut in_key = [false; 256];
        for byte in (0..=255u8).filter(|b| b.is_ascii_alphanumeric() || b"%\\/+=-_.~".contains(b)) {
            in_key[byte as usize] = true;
        }
        for &byte in keys.iter().flatten() {
            in_key[byte as usize] = true;
        }
        let longest = keys.iter().map(|k| k.len() * LONGEST_ESCAPE).max().unwrap_or(0);
        Redactor(Some(Arc::new(Matcher { keys, base64, in_key, longest })))
    }

    /// `bytes` with each key in it replaced by [`MARK`]; `None` when there is none.
    pub fn redact(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let found = self.0.as_ref()?.find(bytes);
        (!found.is_empty()).then(|| marked(bytes, &found))
    }

    pub fn stream(&self) -> StreamRedactor {
        StreamRedactor { redactor: self.clone(), held: Vec::new() }
    }
}

/// `bytes` with each of the `found` ranges (sorted, disjoint) replaced by [`MARK`].
fn marked(bytes: &[u8], found: &[Range<usize>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for range in found {
        out.extend_from_slice(&bytes[at..range.start]);
        out.extend_from_slice(MARK);
        at = range.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

impl Matcher {
    /// Where keys are in `bytes`: sorted, overlapping finds merged.
    fn find(&self, bytes: &[u8]) -> Vec<Range<usize>> {
        let mut found = Vec::new();
        for key in &self.keys {
            let mut from = 0;
            while let Some(start) = next_start(key[0], &bytes[from..]).map(|at| from + at) {
                match match_at(key, &bytes[start..]) {
                    Some(len) => {
                        found.push(start..start + len);
                        from = start + len;
                    }
                    None => from = start + 1,
                }
            }
        }
        for finder in &self.base64 {
            for start in finder.find_iter(bytes) {
                let end = start + finder.needle().len();
                let before = bytes[..start].iter().rev().take(BASE64_EDGE).take_while(|b| is_base64(**b)).count();
                let after = bytes[end..].iter().take(BASE64_EDGE).take_while(|b| is_base64(**b) || **b == b'=').count();
                found.push(start - before..end + after);
            }
        }
        found.sort_unstable_by_key(|range| range.start);
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(found.len());
        for range in found {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        merged
    }

    /// Where the bytes a stream keeps back begin: the trailing run of bytes that can be in an encoded key
    /// (its last [`Matcher::longest`] bytes at most).
    fn hold_from(&self, bytes: &[u8]) -> usize {
        let run = bytes.iter().rev().take(self.longest).take_while(|b| self.in_key[**b as usize]).count();
        bytes.len() - run
    }
}

/// Where a key could begin in `bytes`: its first character, a `%` or a `\`.
fn next_start(first: u8, bytes: &[u8]) -> Option<usize> {
    memchr::memchr3(first, b'%', b'\\', bytes)
}

/// The length of the key at the start of `bytes`, each of its characters as itself, percent-encoded or
/// JSON-escaped (the longest, when a `%` or `\` in the key can be read either way).
fn match_at(key: &[u8], bytes: &[u8]) -> Option<usize> {
    // Without a `%` or `\` in the key, the first byte of each spelling tells them apart: one way to read.
    if !key.iter().any(|b| matches!(b, b'%' | b'\\')) {
        return key.iter().try_fold(0, |at, &want| Some(at + spellings(want, &bytes[at..]).next()?));
    }
    // Where the spellings of the key so far can end.
    let mut ends = vec![0];
    let mut next = Vec::new();
    for &want in key {
        next.clear();
        for &at in &ends {
            for end in spellings(want, &bytes[at..]).map(|len| at + len) {
                if !next.contains(&end) {
                    next.push(end);
                }
            }
        }
        if next.is_empty() {
            return None;
        }
        std::mem::swap(&mut ends, &mut next);
    }
    ends.into_iter().max()
}

/// The lengths of the spellings of `want` that `rest` starts with: itself, percent-encoded, JSON-escaped.
fn spellings(want: u8, rest: &[u8]) -> impl Iterator<Item = usize> {
    [
        (rest.first() == Some(&want), 1),
        (rest.len() >= 3 && rest[0] == b'%' && hex_is(&rest[1..3], want), 3),
        (rest.len() >= 6 && rest.starts_with(b"\\u00") && hex_is(&rest[4..6], want), 6),
        (want == b'/' && rest.starts_with(b"\\/"), 2),
    ]
    .into_iter()
    .filter_map(|(spelt, len)| spelt.then_some(len))
}

/// Two hex digits, in either case, that spell `byte`.
fn hex_is(digits: &[u8], byte: u8) -> bool {
    let value = |d: u8| (d as char).to_digit(16);
    matches!((value(digits[0]), value(digits[1])), (Some(high), Some(low)) if high * 16 + low == byte as u32)
}

fn is_base64(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'+' || byte == b'/'
}

/// The redactor for one stream.
pub struct StreamRedactor {
    redactor: Redactor,
    /// Bytes kept back: they may begin a key that the next chunk completes.
    held: Vec<u8>,
}

impl StreamRedactor {
    pub fn push(&mut self, chunk: Bytes) -> Bytes {
        let Some(matcher) = self.redactor.0.clone() else { return chunk };
        if self.held.is_empty() && matcher.hold_from(&chunk) == chunk.len() && matcher.find(&chunk).is_empty() {
            return chunk;
        }
        let mut bytes = std::mem::take(&mut self.held);
        bytes.extend_from_slice(&chunk);
        let mut found = matcher.find(&bytes);
        let mut hold = matcher.hold_from(&bytes);
        // A key that reaches into the bytes kept back may go on in the next chunk (a longer spelling, base64
        // around it): it is kept back whole, to be marked once.
        if let Some(first) = found.iter().position(|key| key.end > hold) {
            hold = hold.min(found[first].start);
            found.truncate(first);
        }
        self.held = bytes.split_off(hold);
        Bytes::from(marked(&bytes, &found))
    }

    /// The bytes kept back, at the end of the stream.
    pub fn finish(&mut self) -> Bytes {
        let held = std::mem::take(&mut self.held);
        Bytes::from(self.redactor.redact(&held).unwrap_or(held))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-test-CANARY-5c1d9e/x";

    fn whole(redactor: &Redactor, text: &[u8]) -> Vec<u8> {
        redactor.redact(text).unwrap_or_else(|| text.to_vec())
    }

    fn streamed(redactor: &Redactor, chunks: &[&[u8]]) -> Vec<u8> {
        let mut stream = redactor.stream();
        let mut out = Vec::new();
        for chunk in chunks {
            out.extend_from_slice(&stream.push(Bytes::copy_from_slice(chunk)));
        }
        out.extend_from_slice(&stream.finish());
        out
    }

    fn text(redactor: &Redactor, text: &str) -> String {
        String::from_utf8(whole(redactor, text.as_bytes())).unwrap()
    }

    #[test]
    fn the_whole_key_is_marked_in_each_encoding_and_nothing_less() {
        let redactor = Redactor::new([KEY]);
        assert_eq!(text(&redactor, &format!("bad key {KEY}.")), "bad key [REDACTED].");
        assert_eq!(text(&redactor, "sk%2Dtest-CANARY%2d5c1d9e%2Fx"), "[REDACTED]");
        assert_eq!(text(&redactor, "\"sk\\u002Dtest-CANARY-5c1d9e\\/x\""), "\"[REDACTED]\"");
        let basic = |user: &str| base64::engine::general_purpose::STANDARD.encode(format!("{user}:{KEY}"));
        for user in ["", "u", "us", "use", "user"] {
            let encoded = basic(user);
            let got = text(&redactor, &format!("Basic {encoded}, then"));
            // What is left of the value encodes the user name at most.
            assert!(got.starts_with("Basic ") && got.ends_with("[REDACTED], then"), "{user}: {got}");
            let left = &got["Basic ".len()..got.len() - "[REDACTED], then".len()];
            assert!(left.len() < user.len().div_ceil(3) * 4 + 1, "{user}: {got}");
        }
        for not_the_key in ["sk-test-CANARY-5c1d9e/", "k-test-CANARY-5c1d9e/x", "SK-TEST-canary-5C1D9E/X", "sk-test-C"]
        {
            assert_eq!(redactor.redact(not_the_key.as_bytes()), None, "{not_the_key}");
        }
        assert!(Redactor::new([]).redact(KEY.as_bytes()).is_none());
    }

    #[test]
    fn keys_too_short_to_be_secret_are_not_redacted() {
        let redactor = Redactor::new(["EMPTY", "fifteen-bytes-x"]);
        assert_eq!(redactor.redact(b"The list is EMPTY; fifteen-bytes-x"), None);
        assert_eq!(streamed(&redactor, &[b"EMP", b"TY"]), b"EMPTY");
    }

    /// Every key length from 0 to 64, every place to cut the text in two: no panic, the same as in one
    /// piece, and no key of [`MIN_KEY`] bytes or more left in the output.
    #[test]
    fn every_key_length_and_every_split_gives_the_answer_in_one_piece() {
        let source = "Ab3-_x.9/Zq%yK7~mW2+pL5=nR8tV0cE4hJ6gF1sD$uI@oQ\\wB";
        for length in 0..=64 {
            let key: String = source.chars().cycle().take(length).collect();
            let redactor = Redactor::new([key.as_str()]);
            let half = &key[..length / 2];
            let percent: String = key.bytes().map(|b| format!("%{b:02x}")).collect();
            let escaped: String = key.bytes().map(|b| format!("\\u{b:04X}")).collect();
            let basic = base64::engine::general_purpose::STANDARD.encode(format!("ab:{key}"));
            let text = format!("x{key}{key} {half}, {percent}\"{escaped}\" Basic {basic}=\n{key}");
            let expected = whole(&redactor, text.as_bytes());
            if length >= MIN_KEY {
                let out = String::from_utf8_lossy(&expected);
                assert!(!out.contains(&key) && !out.contains(&percent) && !out.contains(&escaped), "{out}");
                assert!(!out.contains(&basic[4..]), "{out}");
            } else {
                assert_eq!(expected, text.as_bytes());
            }
            let bytes = text.as_bytes();
            for split in 0..=bytes.len() {
                let got = streamed(&redactor, &[&bytes[..split], &bytes[split..]]);
                assert_eq!(got, expected, "key length {length}, split at {split}");
            }
            let one_by_one: Vec<&[u8]> = bytes.chunks(1).collect();
            assert_eq!(streamed(&redactor, &one_by_one), expected, "key length {length}, byte by byte");
        }
    }

    #[test]
    fn chunks_without_a_key_pass_unchanged_and_uncopied() {
        let redactor = Redactor::new([KEY]);
        let mut stream = redactor.stream();
        let chunk = Bytes::from_static(b"data: {\"text\":\"hello\"}\n\n");
        let out = stream.push(chunk.clone());
        assert_eq!(out.as_ptr(), chunk.as_ptr());
        // A chunk that ends in what could be part of a key keeps that back, key or not.
        assert_eq!(stream.push(Bytes::from_static(b"text sk-te")), "text ");
        assert_eq!(stream.push(Bytes::from_static(b"xt\n")), "sk-text\n");
        assert_eq!(stream.push(Bytes::from_static(b"word ")), "word ");
    }
}
