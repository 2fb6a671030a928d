//! Best-effort JSON of a tool call's arguments while they stream.
//!
//! "`partial_input` is the best JSON value the arguments so far allow (partial strings
//! kept, dangling keys dropped), computed incrementally: the work for one tool call is linear in
//! its argument length". So this is a push parser (RFC 8259 grammar) that keeps its stack of open
//! arrays and objects between pieces and never reads a character twice. [`PartialJson::value`]
//! closes a copy of that stack: an unfinished string keeps what it has, an unfinished number or
//! `true`/`false`/`null` counts as far as it goes, a key with no value yet is left out.
//! Once the text stops being JSON, the value stays what it was before. So it does past
//! [`MAX_DEPTH`] levels of nesting: values are cloned, serialized and dropped recursively, and
//! a hostile stream must not be able to exhaust the stack with `[[[[…`.

use serde_json::{Map, Value};

/// The most levels of nesting read: as many as the crate's reader (json::parse) accepts, so that
/// whatever `partial_input` shows, the whole arguments can become. Deeper arguments are not JSON
/// this crate accepts (the tool call reports them unparsable and passes them on as a string).
pub(crate) const MAX_DEPTH: usize = 127;

#[derive(Debug, Default)]
pub(crate) struct PartialJson {
    stack: Vec<Open>,
    token: Token,
    expect: Expect,
    /// The finished top-level value.
    done: Option<Value>,
    failed: bool,
    /// At most how many bytes of text are still to come, when the whole text is known
    /// ([`PartialJson::of_length`]): a long string then grows once to what it can hold, not by
    /// doubling (a 20 MB string read that way held up to 48 MB while it moved to a larger copy,
    /// and the module's memory never shrinks).
    left: Option<usize>,
    /// Bytes pushed so far, and where in them the string being read began (its opening quote):
    /// which string it is ([`OpenString::from`]).
    pushed: usize,
    string_from: usize,
    /// The string whose bytes up to some point JS holds already ([`PartialJson::knowing`]).
    known: Option<Known>,
    /// Characters handled, for the linear-cost test.
    #[cfg(test)]
    steps: usize,
}

#[derive(Debug, Clone)]
enum Open {
    Array(Vec<Value>),
    /// The object so far, and the key whose value is being read.
    Object(Map<String, Value>, Option<String>),
}

#[derive(Debug, Default)]
enum Token {
    #[default]
    None,
    Str(Str),
    Number(String),
    /// A prefix of `true`, `false` or `null`.
    Literal(String),
}

#[derive(Debug, Default)]
struct Str {
    text: String,
    is_key: bool,
    /// How many more of its first bytes are left out of `text` (JS holds them already), and how
    /// many were: `text` holds what follows them.
    leave_out: usize,
    left_out: usize,
    escape: Escape,
    /// A high surrogate from `\uD8xx`, waiting for its low half.
    high_surrogate: Option<u32>,
}

#[derive(Debug, Default, PartialEq)]
enum Escape {
    #[default]
    None,
    Backslash,
    /// `\u` and the hex digits so far.
    Unicode(String),
}

/// A string of the text whose first `bytes` bytes (unescaped) are known already, and whether
/// leaving them out failed: then the text is not the one they were known of, and the value holds
/// the string cut short.
#[derive(Debug)]
struct Known {
    from: usize,
    bytes: usize,
    failed: bool,
}

/// The string a partial value ends inside, taken out of it ([`PartialJson::into_value_open`]).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // read by the WebAssembly bindings and tests
#[derive(Debug, PartialEq)]
pub(crate) struct OpenString {
    /// Where it begins in the text (its opening quote), in bytes: the same string for every end
    /// of the same text inside it.
    pub from: usize,
    /// Its place in the value, from the top.
    pub path: Vec<Step>,
    /// How many of its first bytes `text` leaves out, known already ([`PartialJson::knowing`]).
    pub known: usize,
    /// The string from `known` on.
    pub text: String,
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // read by the WebAssembly bindings and tests
#[derive(Debug, PartialEq)]
pub(crate) enum Step {
    Index(usize),
    Key(String),
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum Expect {
    #[default]
    Value,
    /// After `[`.
    ValueOrClose,
    /// After `{`.
    KeyOrClose,
    /// After `,` in an object.
    Key,
    Colon,
    CommaOrClose,
    /// After the top-level value: only whitespace.
    End,
}

/// A string this long that must grow is given room for all the text still to come at once.
const LONG_STRING: usize = 64 * 1024;

impl PartialJson {
    /// A parser for a text of `length` bytes at most, pushed in one or more pieces.
    pub(crate) fn of_length(length: usize) -> PartialJson {
        PartialJson { left: Some(length), ..PartialJson::default() }
    }

    /// The parser, told that JS holds the first `bytes` bytes of the string that begins at `from`
    /// in the text (its opening quote) already: they are left out of that string, which the value
    /// must not hold then ([`PartialJson::into_value_open`] takes it out, with how many bytes it left
    /// out). A read of a long string that grew by a megabyte builds that megabyte, not all of it
    /// again. When the text is not the one those bytes were known of (the string ends, or is
    /// shorter, or they end inside a character), [`PartialJson::knew_wrongly`] says so.
    pub(crate) fn knowing(self, from: usize, bytes: usize) -> PartialJson {
        PartialJson { known: (bytes > 0).then_some(Known { from, bytes, failed: false }), ..self }
    }

    /// Whether the bytes given as known ([`PartialJson::knowing`]) were not those of this text:
    /// the value is then not to be used.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // read by the WebAssembly bindings and tests
    pub(crate) fn knew_wrongly(&self) -> bool {
        match (&self.known, &self.token) {
            (Some(known), _) if known.failed => true,
            // The string ends before the bytes known.
            (Some(_), Token::Str(s)) => s.leave_out > 0,
            _ => false,
        }
    }

    pub(crate) fn push(&mut self, text: &str) {
        let mut rest = text;
        while !self.failed {
            // A run of plain characters inside a string goes in whole.
            if let Token::Str(s) = &mut self.token {
                if s.escape == Escape::None {
                    let run = rest.bytes().position(|b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(rest.len());
                    if run > 0 {
                        #[cfg(test)]
                        {
                            self.steps += rest[..run].chars().count();
                        }
                        flush_surrogate(s);
                        // Left out before it is added: a run is up to a block of the text.
                        let mut plain = &rest[..run];
                        let held = s.leave_out_held();
                        let n = s.leave_out.min(plain.len());
                        if !(held && plain.is_char_boundary(n)) {
                            self.knew_wrongly_here();
                            break;
                        }
                        if n > 0 {
                            (s.leave_out, s.left_out, plain) = (s.leave_out - n, s.left_out + n, &plain[n..]);
                        }
                        if s.text.len() >= LONG_STRING && s.text.capacity() - s.text.len() < plain.len() {
                            // Unescaping never lengthens: the string can hold no more than what is left.
                            if let Some(left) = self.left {
                                s.text.reserve_exact(left.saturating_sub(text.len() - rest.len()).max(plain.len()));
                            }
                        }
                        s.text.push_str(plain);
                        rest = &rest[run..];
                    }
                }
            }
            let mut chars = rest.chars();
            let Some(c) = chars.next() else { break };
            let in_string = matches!(self.token, Token::Str(_));
            self.step(c);
            if !in_string && matches!(self.token, Token::Str(_)) {
                self.string_from = self.pushed + (text.len() - rest.len());
                if let (Token::Str(s), Some(known)) = (&mut self.token, &self.known) {
                    if known.from == self.string_from && !s.is_key {
                        s.leave_out = known.bytes;
                    }
                }
            } else if let Token::Str(s) = &mut self.token {
                if s.leave_out > 0 && !s.leave_out_held() {
                    self.knew_wrongly_here();
                }
            }
            rest = chars.as_str();
        }
        self.pushed += text.len();
        if let Some(left) = &mut self.left {
            *left = left.saturating_sub(text.len());
        }
    }

    /// The text is not the one the bytes given as known were of: the value is not to be used
    /// (and no more is read).
    fn knew_wrongly_here(&mut self) {
        if let Some(known) = &mut self.known {
            known.failed = true;
        }
        self.failed = true;
    }

    /// The best value so far; `None` before any value has begun.
    pub(crate) fn value(&self) -> Option<Value> {
        if let Some(done) = &self.done {
            return Some(done.clone());
        }
        close(token_value(&self.token), self.stack.iter().rev().cloned())
    }

    /// [`PartialJson::value`] of a parser read for the last time: what it holds is moved into
    /// the value, not copied (the string of a long input being read is as long as the input).
    pub(crate) fn into_value(self) -> Option<Value> {
        if self.done.is_some() {
            return self.done;
        }
        let inner = match self.token {
            Token::Str(s) if !s.is_key => Some(Value::String(s.text)),
            token => token_value(&token),
        };
        close(inner, self.stack.into_iter().rev())
    }

    /// [`PartialJson::into_value`], with the string being read taken out when the value holds it
    /// and it is `long` bytes at least: the value holds `""` in its place. Read again at a later
    /// end of the same text, that string only grows (its text is only ever appended to), so JS
    /// can build it from what it read before and the bytes that came since.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // read by the WebAssembly bindings and tests
    pub(crate) fn into_value_open(mut self, long: usize) -> (Option<Value>, Option<OpenString>) {
        // Most reads end in no long string: their path (its keys copied) is not worth building.
        // Built for every read, it cost a view that reads every delta's partial_input about a
        // tenth more an event (Node, anthropic/tool-stream.sse: 5.5 µs an event, 4.9 so).
        // A string with bytes left out is taken out however long: the value cannot hold it.
        let taken = |s: &Str| !s.is_key && (s.left_out > 0 || s.text.len() >= long);
        if !matches!(&self.token, Token::Str(s) if self.done.is_none() && taken(s)) {
            return (self.into_value(), None);
        }
        // A value without its key is left out: so is the string.
        let path: Option<Vec<Step>> = self
            .stack
            .iter()
            .map(|open| match open {
                Open::Array(items) => Some(Step::Index(items.len())),
                Open::Object(_, key) => key.clone().map(Step::Key),
            })
            .collect();
        let Some(path) = path else { return (self.into_value(), None) };
        let open = match &mut self.token {
            Token::Str(s) if self.done.is_none() && taken(s) => {
                Some(OpenString { from: self.string_from, path, known: s.left_out, text: std::mem::take(&mut s.text) })
            }
            _ => None,
        };
        (self.into_value(), open)
    }

    fn step(&mut self, c: char) {
        #[cfg(test)]
        {
            self.steps += 1;
        }
        match &mut self.token {
            Token::Str(s) => {
                if let Some(finished) = string_char(s, c) {
                    let Str { mut text, is_key, left_out, .. } = std::mem::take(s);
                    self.token = Token::None;
                    if left_out > 0 {
                        // The string ends: the value would hold it cut short.
                        return self.knew_wrongly_here();
                    }
                    // A long string (key or value) given room for the rest of the text keeps only
                    // its own: every long key of an object kept that room, so an object of long
                    // keys held memory growing with the square of its length.
                    if finished.is_ok() && text.capacity() - text.len() > LONG_STRING {
                        text.shrink_to_fit();
                    }
                    match finished {
                        Ok(()) if is_key => {
                            self.set_key(text);
                            self.expect = Expect::Colon;
                        }
                        Ok(()) => self.value_done(Value::String(text)),
                        Err(()) => self.failed = true,
                    }
                }
                return;
            }
            Token::Number(n) => {
                if matches!(c, '0'..='9' | '.' | 'e' | 'E' | '+' | '-') {
                    n.push(c);
                    return;
                }
                let n = std::mem::take(n);
                self.token = Token::None;
                match number(&n) {
                    Some(number) => self.value_done(number),
                    None => {
                        self.failed = true;
                        return;
                    }
                }
            }
            Token::Literal(l) => {
                if c.is_ascii_alphabetic() {
                    l.push(c);
                    match literal(l, false) {
                        Some(value) => {
                            self.token = Token::None;
                            self.value_done(value);
                        }
                        None if literal(l, true).is_none() => self.failed = true,
                        None => {}
                    }
                    return;
                }
                // `tru` followed by something else.
                self.failed = true;
                return;
            }
            Token::None => {}
        }
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            return;
        }
        match (self.expect, c) {
            (Expect::Value | Expect::ValueOrClose, '{' | '[') if self.stack.len() == MAX_DEPTH => self.failed = true,
            (Expect::Value | Expect::ValueOrClose, '{') => {
                self.stack.push(Open::Object(Map::new(), None));
                self.expect = Expect::KeyOrClose;
            }
            (Expect::Value | Expect::ValueOrClose, '[') => {
                self.stack.push(Open::Array(Vec::new()));
                self.expect = Expect::ValueOrClose;
            }
            (Expect::Value | Expect::ValueOrClose, '"') => self.token = Token::Str(Str::default()),
            (Expect::Value | Expect::ValueOrClose, '-' | '0'..='9') => self.token = Token::Number(c.to_string()),
            (Expect::Value | Expect::ValueOrClose, 't' | 'f' | 'n') => self.token = Token::Literal(c.to_string()),
            (Expect::KeyOrClose | Expect::Key, '"') => {
                self.token = Token::Str(Str { is_key: true, ..Str::default() });
            }
            (Expect::Colon, ':') => self.expect = Expect::Value,
            (Expect::CommaOrClose, ',') => {
                self.expect = match self.stack.last() {
                    Some(Open::Object(..)) => Expect::Key,
                    _ => Expect::Value,
                };
            }
            (Expect::ValueOrClose | Expect::CommaOrClose, ']') if matches!(self.stack.last(), Some(Open::Array(_))) => {
                self.close()
            }
            (Expect::KeyOrClose | Expect::CommaOrClose, '}') if matches!(self.stack.last(), Some(Open::Object(..))) => {
                self.close()
            }
            _ => self.failed = true,
        }
    }

    fn set_key(&mut self, key: String) {
        if let Some(Open::Object(_, pending)) = self.stack.last_mut() {
            *pending = Some(key);
        }
    }

    fn close(&mut self) {
        let value = match self.stack.pop() {
            Some(Open::Array(items)) => Value::Array(items),
            Some(Open::Object(map, _)) => Value::Object(map),
            None => return,
        };
        self.value_done(value);
    }

    /// A value finished: it goes into the innermost open container, or is the whole document.
    fn value_done(&mut self, value: Value) {
        match self.stack.last_mut() {
            None => {
                self.done = Some(value);
                self.expect = Expect::End;
            }
            Some(Open::Array(items)) => {
                items.push(value);
                self.expect = Expect::CommaOrClose;
            }
            Some(Open::Object(map, key)) => {
                if let Some(key) = key.take() {
                    map.insert(key, value);
                }
                self.expect = Expect::CommaOrClose;
            }
        }
    }
}

/// One character inside a string: `Some(Ok)` when it closed the string, `Some(Err)` when the
/// string is invalid, `None` to go on.
fn string_char(s: &mut Str, c: char) -> Option<Result<(), ()>> {
    match &mut s.escape {
        Escape::None => match c {
            '"' => {
                flush_surrogate(s);
                return Some(Ok(()));
            }
            '\\' => s.escape = Escape::Backslash,
            c if (c as u32) < 0x20 => return Some(Err(())),
            c => {
                flush_surrogate(s);
                s.text.push(c);
            }
        },
        Escape::Backslash => {
            let plain = match c {
                '"' => '"',
                '\\' => '\\',
                '/' => '/',
                'b' => '\u{8}',
                'f' => '\u{c}',
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                'u' => {
                    s.escape = Escape::Unicode(String::new());
                    return None;
                }
                _ => return Some(Err(())),
            };
            flush_surrogate(s);
            s.text.push(plain);
            s.escape = Escape::None;
        }
        Escape::Unicode(hex) => {
            if !c.is_ascii_hexdigit() {
                return Some(Err(()));
            }
            hex.push(c);
            if hex.len() == 4 {
                let code = u32::from_str_radix(hex, 16).expect("four hex digits");
                s.escape = Escape::None;
                match (s.high_surrogate.take(), code) {
                    (Some(high), 0xDC00..=0xDFFF) => {
                        let combined = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00);
                        s.text.push(char::from_u32(combined).unwrap_or('\u{FFFD}'));
                    }
                    (high, 0xD800..=0xDBFF) => {
                        if high.is_some() {
                            s.text.push('\u{FFFD}');
                        }
                        s.high_surrogate = Some(code);
                    }
                    (high, code) => {
                        if high.is_some() {
                            s.text.push('\u{FFFD}');
                        }
                        s.text.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    }
                }
            }
        }
    }
    None
}

impl Str {
    /// While bytes are still to be left out, `text` holds only what was just added: left out as
    /// far as they go. False when they end inside a character.
    fn leave_out_held(&mut self) -> bool {
        let n = self.leave_out.min(self.text.len());
        if n == 0 {
            return true;
        }
        if !self.text.is_char_boundary(n) {
            return false;
        }
        // A character or two: a new string costs less module than `drain`.
        self.text = self.text[n..].to_owned();
        (self.leave_out, self.left_out) = (self.leave_out - n, self.left_out + n);
        true
    }
}

/// A lone high surrogate followed by anything but its low half stands for U+FFFD.
fn flush_surrogate(s: &mut Str) {
    if s.high_surrogate.take().is_some() {
        s.text.push('\u{FFFD}');
    }
}

/// `true`/`false`/`null` for a whole literal, or (with `prefix`) for any non-empty prefix of one.
/// The value of the token being read, as far as it goes.
fn token_value(token: &Token) -> Option<Value> {
    match token {
        Token::None => None,
        Token::Str(s) if s.is_key => None,
        Token::Str(s) => Some(Value::String(s.text.clone())),
        Token::Number(n) => number_prefix(n),
        Token::Literal(l) => literal(l, true),
    }
}

/// `inner` inside the arrays and objects still open, innermost first.
fn close(mut inner: Option<Value>, open: impl Iterator<Item = Open>) -> Option<Value> {
    for open in open {
        inner = Some(match open {
            Open::Array(mut items) => {
                items.extend(inner);
                Value::Array(items)
            }
            Open::Object(mut map, key) => {
                if let (Some(key), Some(value)) = (key, inner) {
                    map.insert(key, value);
                }
                Value::Object(map)
            }
        });
    }
    inner
}

fn literal(text: &str, prefix: bool) -> Option<Value> {
    let words = [("true", Value::Bool(true)), ("false", Value::Bool(false)), ("null", Value::Null)];
    words.into_iter().find(|(word, _)| if prefix { word.starts_with(text) } else { *word == text }).map(|(_, v)| v)
}

/// The number an unfinished number token stands for so far (`12.` → 12, `-` → none).
fn number_prefix(text: &str) -> Option<Value> {
    number(text.trim_end_matches(['.', 'e', 'E', '+', '-']))
}

/// A number token's value, read as the crate's reader reads a whole text's numbers.
fn number(text: &str) -> Option<Value> {
    match crate::json::parse(text) {
        Ok(number @ Value::Number(_)) => Some(number),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn partial(text: &str) -> Option<Value> {
        let mut p = PartialJson::default();
        p.push(text);
        p.value()
    }

    /// A parser read for the last time gives what it would give read again: at every prefix of a
    /// text with each kind of token (and a key cut short), and past the end of the JSON.
    #[test]
    fn into_value_is_the_value() {
        let text = r#"{"a": [1, -2.5e3, "x\u00e9🙂", true, null, {"k": "v"}], "b": {"c": "long"}, "d": false} x"#;
        for (end, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let mut p = PartialJson::default();
            p.push(&text[..end]);
            let value = p.value();
            assert_eq!(p.into_value(), value, "after {:?}", &text[..end]);
        }
    }

    #[test]
    fn prefixes_give_the_best_value() {
        let cases: &[(&str, Option<Value>)] = &[
            ("", None),
            ("  ", None),
            ("{", Some(json!({}))),
            (r#"{"qu"#, Some(json!({}))),
            (r#"{"query""#, Some(json!({}))),
            (r#"{"query":"#, Some(json!({}))),
            (r#"{"query": "CRI"#, Some(json!({"query": "CRI"}))),
            (r#"{"query": "CRISPR", "limit": 1"#, Some(json!({"query": "CRISPR", "limit": 1}))),
            (r#"{"query": "CRISPR", "limit": 1"#, Some(json!({"query": "CRISPR", "limit": 1}))),
            (r#"{"a": 12."#, Some(json!({"a": 12}))),
            (r#"{"a": -"#, Some(json!({}))),
            (r#"{"a": 1e"#, Some(json!({"a": 1}))),
            (r#"{"a": tr"#, Some(json!({"a": true}))),
            (r#"{"a": nul"#, Some(json!({"a": null}))),
            (r#"{"a": [1, [2, "x"#, Some(json!({"a": [1, [2, "x"]]}))),
            (r#"{"a": "line\"#, Some(json!({"a": "line"}))),
            (r#"{"a": "line\n"#, Some(json!({"a": "line\n"}))),
            (r#"{"a": "\u00e"#, Some(json!({"a": ""}))),
            (r#"{"a": "\u00e9\ud83d\ude00"}"#, Some(json!({"a": "é😀"}))),
            (r#"{"a": {"b": {}}, "c": []}"#, Some(json!({"a": {"b": {}}, "c": []}))),
            (r#""just a str"#, Some(json!("just a str"))),
            // Not JSON from the `x` on: the value stays what it was.
            (r#"{"a": 1, x"#, Some(json!({"a": 1}))),
            (r#"{"a": trux}"#, Some(json!({}))),
            (r#"{"a": 1}}"#, Some(json!({"a": 1}))),
        ];
        for (text, expected) in cases {
            assert_eq!(&partial(text), expected, "{text:?}");
        }
    }

    #[test]
    fn every_split_gives_the_same_values_as_one_piece() {
        let text = r#"{"q": "a \"b\" é😀", "n": [1, -2.5e3, true, null], "o": {"k": "v"}}"#;
        let whole = partial(text);
        assert_eq!(whole, Some(serde_json::from_str(text).unwrap()));
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        for &cut in &cuts {
            let mut p = PartialJson::default();
            p.push(&text[..cut]);
            assert_eq!(p.value(), partial(&text[..cut]), "cut {cut}");
            p.push(&text[cut..]);
            assert_eq!(p.value(), whole, "cut {cut}");
        }
    }

    /// Strings go in by runs of plain characters: at every cut of a text of long runs between
    /// escapes, surrogate pairs and a lone surrogate, the value is
    /// what a parser fed one character at a time gives, and the whole is serde_json's value.
    #[test]
    fn runs_read_as_single_characters_do() {
        let long = "x".repeat(70_000);
        let text = format!(r#"{{"a": "{long}\n\"é🙂 \ud83d\ude00 y", "b": ["\ud800z", "{long}"], "c": "tab\t"}}"#);
        // serde_json refuses the lone surrogate, which stands for U+FFFD here.
        let expected = json!({"a": format!("{long}\n\"é🙂 😀 y"), "b": ["\u{FFFD}z", long], "c": "tab\t"});
        assert_eq!(partial(&text), Some(expected));
        // The reference: the per-character step alone, never the run path `push` takes.
        let by_characters = |end: usize| {
            let mut p = PartialJson::default();
            for c in text[..end].chars() {
                if p.failed {
                    break;
                }
                p.step(c);
            }
            p.value()
        };
        for end in (0..text.len()).filter(|&end| text.is_char_boundary(end)).step_by(997).chain([text.len()]) {
            let cut = (0..=end / 2).rev().find(|&cut| text.is_char_boundary(cut)).unwrap_or(0);
            let mut p = PartialJson::of_length(end);
            p.push(&text[..cut]);
            p.push(&text[cut..end]);
            assert_eq!(p.value(), by_characters(end), "end {end}");
        }
    }

    /// A long string read from a text of known length is held in as many bytes as the text has
    /// left, not in a buffer grown by doubling (here 524,288 bytes for 300,000).
    #[test]
    fn a_long_string_grows_once() {
        let text = format!(r#"{{"a": "{}"#, "x".repeat(300_000));
        let mut p = PartialJson::of_length(text.len());
        for piece in text.as_bytes().chunks(1024) {
            p.push(std::str::from_utf8(piece).unwrap());
        }
        let Some(Value::Object(map)) = p.into_value() else { panic!("an object") };
        let Some(Value::String(a)) = map.get("a") else { panic!("a string") };
        assert_eq!(a.len(), 300_000);
        assert!(a.capacity() <= text.len(), "capacity {} for a text of {}", a.capacity(), text.len());
    }

    /// Long keys, each with escapes (read a character at a time) past the point where a string is
    /// given room for the rest of the text, are each held in their own length, give or take the
    /// long-string allowance: not in room for the rest of the text each.
    #[test]
    fn long_keys_keep_only_their_own_room() {
        let key = |k: usize| format!("{k:06}{}", format!("{}\\n", "x".repeat(999)).repeat(140));
        // The last key's value is left unfinished: the object stays open, its key pending.
        let text = format!("{{{}", (0..8).map(|k| format!(r#""{}":1"#, key(k))).collect::<Vec<_>>().join(","));
        let mut p = PartialJson::of_length(text.len());
        for piece in text.as_bytes().chunks(64 * 1024) {
            p.push(std::str::from_utf8(piece).unwrap());
        }
        let Some(Open::Object(map, Some(last))) = p.stack.pop() else { panic!("an open object, a key pending") };
        assert_eq!(map.len(), 7);
        for key in map.keys().chain([&last]) {
            assert!(key.len() > LONG_STRING, "key of {} bytes", key.len());
            assert!(
                key.capacity() <= key.len() + LONG_STRING,
                "capacity {} for a key of {}",
                key.capacity(),
                key.len()
            );
        }
    }

    #[test]
    fn nesting_stops_at_the_depth_limit() {
        let within = format!("{}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(partial(&within), Some(serde_json::from_str(&within).unwrap()));
        let beyond = format!("[{within}]");
        assert!(serde_json::from_str::<Value>(&beyond).is_err(), "serde_json reads one level more");
        // The value stays what the text allowed before the level too many: empty arrays.
        let before = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(partial(&beyond), Some(serde_json::from_str(&before).unwrap()));
        // One level more: the value stays what it was before the level that broke the limit.
        let deep = "{\"a\":".repeat(10_000);
        let value = partial(&deep).unwrap();
        let mut depth = 0;
        let mut inner = &value;
        while let Some(next) = inner.get("a") {
            depth += 1;
            inner = next;
        }
        assert_eq!(depth, MAX_DEPTH - 1);
    }

    /// 4,000 one-character deltas must not re-parse 4,000 prefixes. The parser counts
    /// the characters it handles; re-parsing prefixes would make that ~8 million.
    #[test]
    fn parsing_work_is_linear_in_the_argument_length() {
        let text = format!(r#"{{"text": "{}", "list": [{}]}}"#, "x".repeat(2000), vec!["1"; 1100].join(","));
        let mut p = PartialJson::default();
        for c in text.chars() {
            p.push(&c.to_string());
            let _ = p.value();
        }
        assert_eq!(p.value(), Some(serde_json::from_str(&text).unwrap()));
        assert!(text.len() > 3900);
        assert!(p.steps <= text.chars().count(), "{} steps for {} chars", p.steps, text.len());
    }

    /// The string a partial value ends inside, taken out: put back at its place, the value is
    /// the whole partial value; at every later end inside the same string (the same `from`), it
    /// only grew, whatever escape, surrogate pair or lone surrogate an end falls in; and it is
    /// found at every depth, in arrays and objects, under a key `__proto__` too, pushed in pieces.
    #[test]
    fn the_open_string_is_taken_out_where_it_is_and_only_grows() {
        let text = r#"{"a": [1, "x\u00e9🙂 \ud83d\ude00 \ud800 y \"q\" \\ \n", {"__proto__": "long ✓ \ud83d\ude00 text"}], "k": "v"}"#;
        let mut last: Option<OpenString> = None;
        for (end, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let mut p = PartialJson::of_length(end);
            let half = (0..=end / 2).rev().find(|&i| text.is_char_boundary(i)).unwrap();
            let (left, right) = text[..end].split_at(half);
            p.push(left);
            p.push(right);
            let whole = {
                let mut q = PartialJson::default();
                q.push(&text[..end]);
                q.value()
            };
            let (mut value, open) = p.into_value_open(1);
            if let Some(open) = &open {
                assert_eq!(text.as_bytes()[open.from], b'"', "after {:?}", &text[..end]);
                let mut at = value.as_mut().unwrap();
                for step in &open.path {
                    at = match step {
                        Step::Index(i) => &mut at[*i],
                        Step::Key(key) => &mut at[key.as_str()],
                    };
                }
                assert_eq!(*at, json!(""));
                *at = Value::String(open.text.clone());
                if let Some(last) = last.as_ref().filter(|last| last.from == open.from) {
                    assert!(open.text.starts_with(&last.text), "after {:?}", &text[..end]);
                }
            }
            assert_eq!(value, whole, "after {:?}", &text[..end]);
            last = open.or(last);
        }
        let taken = |text: &str| {
            let mut p = PartialJson::default();
            p.push(text);
            p.into_value_open(1).1.map(|open| (open.from, open.path, open.text))
        };
        assert_eq!(
            taken(r#"{"a": [1, "x\u00e9🙂 \ud83d"#),
            Some((10, vec![Step::Key("a".into()), Step::Index(1)], "xé🙂 ".into()))
        );
        assert_eq!(taken(r#""top"#), Some((0, vec![], "top".into())));
        // A key being read, a string that ended, a whole value, a string shorter than asked for: none.
        assert_eq!(taken(r#"{"ke"#), None);
        assert_eq!(taken(r#"{"k": "v""#), None);
        assert_eq!(taken(r#"["x", "y"]"#), None);
        let mut p = PartialJson::default();
        p.push(r#"{"k": "abc"#);
        assert_eq!(p.into_value_open(4).1, None);
    }

    /// Read again at a later end with the bytes of the open string read before given as known, a
    /// string gives only what follows them, and with them the same as read whole: at every end
    /// after every other one, whatever escape, surrogate pair or character the known bytes end
    /// at. When they are not this text's (the string ended since, it is shorter, they end inside
    /// a character), the parser says so; before the string begins, they change nothing.
    #[test]
    fn bytes_known_are_left_out_of_the_open_string() {
        let text = r#"{"a": [1, "x\u00e9🙂 \ud83d\ude00 \ud800 y \"q\" \\ \n", {"__proto__": "long ✓ \ud83d\ude00 text"}], "k": "v"}"#;
        let read = |end: usize, known: Option<(usize, usize)>| {
            let mut p = PartialJson::of_length(end);
            if let Some((from, bytes)) = known {
                p = p.knowing(from, bytes);
            }
            let half = (0..=end / 2).rev().find(|&i| text.is_char_boundary(i)).unwrap();
            p.push(&text[..half]);
            p.push(&text[half..end]);
            p
        };
        let ends: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let mut left_out = 0;
        for &before in &ends {
            let Some(last) = read(before, None).into_value_open(1).1 else { continue };
            for &end in &ends {
                let (whole, open) = read(end, None).into_value_open(1);
                let p = read(end, Some((last.from, last.text.len())));
                let same =
                    open.as_ref().is_some_and(|open| open.from == last.from && open.text.starts_with(&last.text));
                // Before the string begins, nothing is left out.
                assert_eq!(p.knew_wrongly(), end > last.from && !same, "{:?} after {:?}", last.text, &text[..end]);
                if !same && end <= last.from {
                    assert_eq!(p.into_value_open(1), (whole, open), "after {:?}", &text[..end]);
                } else if same {
                    let (value, known) = p.into_value_open(1);
                    let (open, known) = (open.unwrap(), known.unwrap());
                    assert_eq!((known.known, value), (last.text.len(), whole), "after {:?}", &text[..end]);
                    assert_eq!(known.text, open.text[last.text.len()..], "after {:?}", &text[..end]);
                    left_out += known.known;
                }
            }
        }
        assert!(left_out > 1000);
        // Bytes known that end inside a character, or go past the string.
        let text = r#"{"a": "é🙂 and more"#;
        for (bytes, wrongly) in
            [(1, true), (2, false), (3, true), (5, true), (6, false), (7, false), (15, false), (16, true)]
        {
            let mut p = PartialJson::default().knowing(6, bytes);
            p.push(text);
            assert_eq!(p.knew_wrongly(), wrongly, "{bytes} bytes known");
        }
    }
}
