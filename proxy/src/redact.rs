//! Keeps the configured keys out of what upstreams send back: some providers echo the key, or part of
//! it, in a 401 body or a header such as `WWW-Authenticate`.
//!
//! Key material is any run of bytes covered by an 8-byte window of a key (the whole key when it is
//! shorter), compared ASCII-case-insensitively: that finds the whole key, any prefix or substring of 8
//! bytes or more, and nothing shorter (a 7-byte fragment cannot be told from ordinary text). Each run is
//! replaced by one [`MARK`]. On a stream, a chunk that ends in what could be the start of a window keeps
//! those bytes (at most 7) back until the next chunk shows whether a key continues there; any other
//! chunk passes at once and, when it holds no key material, unchanged and uncopied.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use aho_corasick::AhoCorasick;
use bytes::Bytes;

const WINDOW: usize = 8;
pub const MARK: &[u8] = b"[REDACTED]";

#[derive(Clone, Default)]
pub struct Redactor(Option<Arc<Matcher>>);

struct Matcher {
    windows: AhoCorasick,
    /// Every proper prefix of a window, lowercase: a chunk ending in one may end inside a key.
    starts: HashSet<Vec<u8>>,
}

impl Redactor {
    pub fn new(keys: &[String]) -> Redactor {
        let mut windows = HashSet::new();
        for key in keys.iter().map(|k| k.as_bytes()).filter(|k| !k.is_empty()) {
            windows.extend(key.windows(WINDOW.min(key.len())).map(|w| w.to_ascii_lowercase()));
        }
        if windows.is_empty() {
            return Redactor(None);
        }
        let starts = windows.iter().flat_map(|w| (1..w.len()).map(|n| w[..n].to_vec())).collect();
        let windows = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&windows)
            .expect("a few hundred short patterns build");
        Redactor(Some(Arc::new(Matcher { windows, starts })))
    }

    /// `bytes` with each run of key material replaced by [`MARK`]; `None` when there is none.
    pub fn redact(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        let runs = self.0.as_ref()?.runs(bytes);
        if runs.is_empty() {
            return None;
        }
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        for run in runs {
            out.extend_from_slice(&bytes[at..run.start]);
            out.extend_from_slice(MARK);
            at = run.end;
        }
        out.extend_from_slice(&bytes[at..]);
        Some(out)
    }

    pub fn stream(&self) -> StreamRedactor {
        StreamRedactor { matcher: self.0.clone(), held: Vec::new(), run_tail: Vec::new() }
    }
}

impl Matcher {
    /// The runs of `bytes` covered by windows, merged, in order.
    fn runs(&self, bytes: &[u8]) -> Vec<Range<usize>> {
        let mut found: Vec<Range<usize>> = self.windows.find_overlapping_iter(bytes).map(|m| m.range()).collect();
        found.sort_unstable_by_key(|r| r.start);
        let mut runs: Vec<Range<usize>> = Vec::new();
        for range in found {
            match runs.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => runs.push(range),
            }
        }
        runs
    }

    /// Where the bytes to keep back start: the longest tail of `bytes` after `from`, and after every run,
    /// that could begin a window (`bytes.len()` when none).
    fn hold_from(&self, bytes: &[u8], from: usize, runs: &[Range<usize>]) -> usize {
        let earliest = from.max(bytes.len().saturating_sub(WINDOW - 1)).max(runs.last().map_or(0, |r| r.end));
        let tail = bytes[earliest.min(bytes.len())..].to_ascii_lowercase();
        let held = (0..tail.len()).find(|&s| self.starts.contains(&tail[s..])).unwrap_or(tail.len());
        bytes.len() - tail.len() + held
    }
}

/// The redactor for one stream.
pub struct StreamRedactor {
    matcher: Option<Arc<Matcher>>,
    /// Bytes kept back: they may begin a key that the next chunk completes.
    held: Vec<u8>,
    /// When the output so far ends in a [`MARK`]: the last bytes (at most 7) of the key material it
    /// stands for, so that a key continuing in the next chunk is found and joins the same mark.
    run_tail: Vec<u8>,
}

impl StreamRedactor {
    pub fn push(&mut self, chunk: Bytes) -> Bytes {
        let Some(matcher) = self.matcher.clone() else { return chunk };
        if self.held.is_empty() && self.run_tail.is_empty() {
            let runs = matcher.runs(&chunk);
            if runs.is_empty() && matcher.hold_from(&chunk, 0, &runs) == chunk.len() {
                return chunk;
            }
        }
        let from = self.run_tail.len();
        let mut bytes = std::mem::take(&mut self.run_tail);
        bytes.append(&mut self.held);
        bytes.extend_from_slice(&chunk);
        let runs = matcher.runs(&bytes);
        let hold = matcher.hold_from(&bytes, from, &runs);
        let mut out = Vec::with_capacity(hold - from + MARK.len());
        let mut at = from;
        for run in runs.iter().filter(|run| run.end > from) {
            out.extend_from_slice(&bytes[at..run.start.max(at)]);
            // A run that starts in (or right after) `run_tail` continues the mark already sent.
            if from == 0 || run.start > from {
                out.extend_from_slice(MARK);
            }
            at = run.end;
        }
        out.extend_from_slice(&bytes[at..hold]);
        self.run_tail = match runs.last() {
            Some(last) if last.end == hold && hold > from => bytes[last.start.max(hold - (WINDOW - 1))..hold].to_vec(),
            _ if hold == from => bytes[..from].to_vec(),
            _ => Vec::new(),
        };
        self.held = bytes.split_off(hold);
        Bytes::from(out)
    }

    /// The bytes kept back, at the end of the stream: too few to hold a window.
    pub fn finish(&mut self) -> Bytes {
        Bytes::from(std::mem::take(&mut self.held))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-test-CANARY-5c1d9e";

    fn redactor() -> Redactor {
        Redactor::new(&[KEY.to_string(), "short".to_string()])
    }

    fn whole(text: &str) -> String {
        let redacted = redactor().redact(text.as_bytes());
        String::from_utf8(redacted.unwrap_or_else(|| text.as_bytes().to_vec())).unwrap()
    }

    fn streamed(redactor: &Redactor, chunks: &[&[u8]]) -> String {
        let mut stream = redactor.stream();
        let mut out = Vec::new();
        for chunk in chunks {
            out.extend_from_slice(&stream.push(Bytes::copy_from_slice(chunk)));
        }
        out.extend_from_slice(&stream.finish());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn keys_prefixes_and_substrings_of_eight_bytes_or_more_are_marked() {
        assert_eq!(whole(&format!("bad key {KEY}.")), "bad key [REDACTED].");
        assert_eq!(whole("prefix sk-test-C only"), "prefix [REDACTED] only");
        assert_eq!(whole("middle CANARY-5c1 here"), "middle [REDACTED] here");
        assert_eq!(whole("SK-TEST-canary-5C1D9E"), "[REDACTED]");
        assert_eq!(whole("a short key"), "a [REDACTED] key");
        assert_eq!(whole("seven: sk-test and CANARY-"), "seven: sk-test and CANARY-");
        assert_eq!(redactor().redact(b"nothing here"), None);
        assert!(Redactor::new(&[]).redact(KEY.as_bytes()).is_none());
    }

    #[test]
    fn a_key_split_anywhere_across_chunks_is_marked_as_if_whole() {
        let redactor = redactor();
        for text in
            [format!("{{\"error\":\"key {KEY} is invalid\"}}\n"), format!("{KEY}{KEY} sk-test-"), format!("x {KEY}")]
        {
            let (bytes, expected) = (text.as_bytes(), whole(&text));
            for i in 0..=bytes.len() {
                for j in i..=bytes.len() {
                    let got = streamed(&redactor, &[&bytes[..i], &bytes[i..j], &bytes[j..]]);
                    assert_eq!(got, expected, "split at {i} and {j}");
                    assert!(!got.contains("CANARY"), "{got}");
                }
            }
        }
    }

    #[test]
    fn chunks_without_key_material_pass_unchanged_and_uncopied() {
        let mut stream = redactor().stream();
        let chunk = Bytes::from_static(b"data: {\"text\":\"hello\"}\n\n");
        let out = stream.push(chunk.clone());
        assert_eq!(out.as_ptr(), chunk.as_ptr());
        // A chunk that ends where a key could begin keeps only those bytes back.
        assert_eq!(stream.push(Bytes::from_static(b"text sk-te")), "text ");
        assert_eq!(stream.push(Bytes::from_static(b"xt\n")), "sk-text\n");
    }
}
