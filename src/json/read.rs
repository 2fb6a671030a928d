//! JSON text (RFC 8259) read into a [`Value`], in place of serde_json's reader: that one is
//! generic over serde's visitors, and with them came serde's "invalid type" messages and the float
//! formatting they print into every module that reads JSON.
//!
//! It reads as serde_json's `from_str::<Value>` does, to the error: the same texts accepted and
//! refused (a lone surrogate in a `\u` escape too), the same depth limit, a key given twice keeps
//! its last value, numbers read into the same [`Number`] (an integer that fits a `u64` or an `i64`
//! as one, `-0` and every other number as the same `f64` serde_json's arithmetic (without its
//! `float_roundtrip` feature, so not always the nearest) gives, a number beyond `f64`'s range refused) and errors worded alike, at the same line and column (the
//! differential test below holds the two to each other).

use std::fmt;
use std::sync::OnceLock;

use serde_json::{Map, Number, Value};

/// Why a text is not JSON, and where: serde_json's wording and place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    what: &'static str,
    line: usize,
    column: usize,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {} column {}", self.what, self.line, self.column)
    }
}

impl std::error::Error for ReadError {}

/// How deep values may nest, as serde_json counts (it refuses the 128th level): nothing that walks
/// a value read from a stream recursively can then be driven into a stack overflow.
const MAX_DEPTH: usize = 128;

/// The one JSON value `text` holds.
pub fn parse(text: &str) -> Result<Value, ReadError> {
    read(text, MAX_DEPTH)
}

/// [`parse`] without the depth limit, for text the crate wrote itself from values read within it
/// (a state holds messages holding parts holding a tool's input, some levels deeper). The reader
/// keeps what is open on the heap, so depth costs no stack.
pub(crate) fn parse_unbounded(text: &str) -> Result<Value, ReadError> {
    read(text, usize::MAX)
}

/// An array or an object being read: its items so far, or its fields and the key whose value
/// comes next.
enum Open {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

const EOF_LIST: &str = "EOF while parsing a list";
const EOF_OBJECT: &str = "EOF while parsing an object";
const EOF_STRING: &str = "EOF while parsing a string";
const EOF_VALUE: &str = "EOF while parsing a value";
const INVALID_NUMBER: &str = "invalid number";
const OUT_OF_RANGE: &str = "number out of range";
const LONE_SURROGATE: &str = "lone leading surrogate in hex escape";
const UNEXPECTED_END_OF_HEX: &str = "unexpected end of hex escape";
const INVALID_ESCAPE: &str = "invalid escape";
const TRAILING_COMMA: &str = "trailing comma";
const KEY_MUST_BE_A_STRING: &str = "key must be a string";

fn read(text: &str, max_depth: usize) -> Result<Value, ReadError> {
    let mut reader = Reader { text, at: 0 };
    let mut open: Vec<Open> = Vec::new();
    loop {
        let mut value = match reader.space() {
            None => return Err(reader.peek_error(EOF_VALUE)),
            Some(b'[' | b'{') if open.len() + 1 >= max_depth => {
                return Err(reader.peek_error("recursion limit exceeded"))
            }
            Some(b'[') => {
                reader.at += 1;
                match reader.space() {
                    None => return Err(reader.peek_error(EOF_LIST)),
                    Some(b']') => {
                        reader.at += 1;
                        Value::Array(Vec::new())
                    }
                    Some(_) => {
                        open.push(Open::Array(Vec::new()));
                        continue;
                    }
                }
            }
            Some(b'{') => {
                reader.at += 1;
                match reader.space() {
                    None => return Err(reader.peek_error(EOF_OBJECT)),
                    Some(b'}') => {
                        reader.at += 1;
                        Value::Object(Map::new())
                    }
                    Some(b'"') => {
                        open.push(Open::Object(Map::new(), reader.key()?));
                        continue;
                    }
                    Some(_) => return Err(reader.peek_error(KEY_MUST_BE_A_STRING)),
                }
            }
            Some(b'"') => {
                reader.at += 1;
                Value::String(reader.string()?)
            }
            Some(b'n') => reader.ident("null", Value::Null)?,
            Some(b't') => reader.ident("true", Value::Bool(true))?,
            Some(b'f') => reader.ident("false", Value::Bool(false))?,
            Some(b'-') => {
                reader.at += 1;
                reader.number(false)?
            }
            Some(b'0'..=b'9') => reader.number(true)?,
            Some(_) => return Err(reader.peek_error("expected value")),
        };
        // A value is whole: it goes into what holds it, and ends each it closes.
        loop {
            let Some(holder) = open.last_mut() else {
                if reader.space().is_some() {
                    return Err(reader.peek_error("trailing characters"));
                }
                return Ok(value);
            };
            // What closes the holder, and the errors where neither that nor a comma follows.
            let (close, not_comma, ended) = match holder {
                Open::Array(items) => {
                    items.push(value);
                    (b']', "expected `,` or `]`", EOF_LIST)
                }
                Open::Object(fields, key) => {
                    fields.insert(std::mem::take(key), value);
                    (b'}', "expected `,` or `}`", EOF_OBJECT)
                }
            };
            match reader.space() {
                None => return Err(reader.peek_error(ended)),
                Some(b',') => {
                    reader.at += 1;
                    match (reader.space(), holder) {
                        (None, _) => return Err(reader.peek_error(EOF_VALUE)),
                        (Some(b), _) if b == close => return Err(reader.peek_error(TRAILING_COMMA)),
                        (Some(_), Open::Array(_)) => break,
                        (Some(b'"'), Open::Object(_, key)) => {
                            *key = reader.key()?;
                            break;
                        }
                        (Some(_), Open::Object(..)) => return Err(reader.peek_error(KEY_MUST_BE_A_STRING)),
                    }
                }
                Some(b) if b == close => {
                    reader.at += 1;
                    value = match open.pop() {
                        Some(Open::Array(items)) => Value::Array(items),
                        Some(Open::Object(fields, _)) => Value::Object(fields),
                        None => Value::Null,
                    };
                }
                Some(_) => return Err(reader.peek_error(not_comma)),
            }
        }
    }
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    /// An error at the byte last read, as serde_json places it.
    #[cold]
    fn error(&self, what: &'static str) -> ReadError {
        self.error_at(what, self.at)
    }

    /// An error at the byte looked at (one past the last read).
    #[cold]
    fn peek_error(&self, what: &'static str) -> ReadError {
        self.error_at(what, self.text.len().min(self.at + 1))
    }

    #[cold]
    fn error_at(&self, what: &'static str, at: usize) -> ReadError {
        let before = &self.text.as_bytes()[..at];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
        let line = 1 + before[..line_start].iter().filter(|&&b| b == b'\n').count();
        ReadError { what, line, column: at - line_start }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek();
        self.at += usize::from(byte.is_some());
        byte
    }

    /// Skips white space; the byte after it.
    fn space(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
        self.peek()
    }

    /// `"key":`, at its `"`.
    fn key(&mut self) -> Result<String, ReadError> {
        self.at += 1;
        let key = self.string()?;
        match self.space() {
            Some(b':') => {
                self.at += 1;
                Ok(key)
            }
            Some(_) => Err(self.peek_error("expected `:`")),
            None => Err(self.peek_error(EOF_OBJECT)),
        }
    }

    /// `null`, `true` or `false`, at its first letter.
    fn ident(&mut self, word: &str, value: Value) -> Result<Value, ReadError> {
        self.at += 1;
        for &expected in &word.as_bytes()[1..] {
            match self.next() {
                None => return Err(self.error(EOF_VALUE)),
                Some(byte) if byte != expected => return Err(self.error("expected ident")),
                Some(_) => {}
            }
        }
        Ok(value)
    }

    /// A string's content, after its opening `"`.
    fn string(&mut self) -> Result<String, ReadError> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let run = super::escape_at(&bytes[start..]).unwrap_or(bytes.len() - start);
        // Most strings (keys, short values) have no escape: copied once, at their length. Pushed
        // into an empty String they went through its growth path, and with it reading a frame
        // whole took about a sixth more time than serde_json's reader (native, recorded frames).
        if bytes.get(start + run) == Some(&b'"') {
            self.at = start + run + 1;
            return Ok(self.text[start..start + run].to_owned());
        }
        self.at = start + run;
        let mut out = self.text[start..self.at].to_owned();
        loop {
            match self.next() {
                None => return Err(self.error(EOF_STRING)),
                Some(b'"') => {
                    // After an escape the runs were appended to a buffer that doubled as it grew:
                    // a long string (a tool's code, a saved answer) would keep up to twice its
                    // length for as long as the value lives.
                    if out.capacity() - out.len() > 64 {
                        out.shrink_to_fit();
                    }
                    return Ok(out);
                }
                Some(b'\\') => out.push(self.escape()?),
                Some(_) => return Err(self.error("control character (\\u0000-\\u001F) found while parsing a string")),
            }
            let start = self.at;
            self.at += super::escape_at(&bytes[start..]).unwrap_or(bytes.len() - start);
            out.push_str(&self.text[start..self.at]);
        }
    }

    /// An escape's character, after its `\`.
    fn escape(&mut self) -> Result<char, ReadError> {
        escape(self.text.as_bytes(), &mut self.at).map_err(|what| self.error(what))
    }

    fn digit(&self) -> Option<u8> {
        self.peek().filter(u8::is_ascii_digit).map(|b| b - b'0')
    }

    /// A number, after its `-` if negative.
    fn number(&mut self, positive: bool) -> Result<Value, ReadError> {
        let significand = match self.next() {
            None => return Err(self.error(EOF_VALUE)),
            Some(b'0') if self.digit().is_some() => return Err(self.peek_error(INVALID_NUMBER)),
            Some(b'0') => 0,
            Some(first @ b'1'..=b'9') => {
                let mut significand = u64::from(first - b'0');
                while let Some(digit) = self.digit() {
                    match significand.checked_mul(10).and_then(|n| n.checked_add(u64::from(digit))) {
                        Some(n) => significand = n,
                        // Past u64: the digits beyond count only as powers of ten, as serde_json
                        // reads them.
                        None => return self.long_integer(positive, significand).map(float),
                    }
                    self.at += 1;
                }
                significand
            }
            Some(_) => return Err(self.error(INVALID_NUMBER)),
        };
        Ok(match self.peek() {
            Some(b'.') => float(self.fraction(positive, significand, 0)?),
            Some(b'e' | b'E') => float(self.exponent(positive, significand, 0)?),
            _ if positive => Value::Number(significand.into()),
            // `-0` and what is below i64::MIN are floats, as in serde_json.
            _ => match (significand as i64).wrapping_neg() {
                negative if negative < 0 => Value::Number(negative.into()),
                _ => float(-(significand as f64)),
            },
        })
    }

    /// The rest of an integer past u64, its digits dropped and counted.
    #[cold]
    fn long_integer(&mut self, positive: bool, significand: u64) -> Result<f64, ReadError> {
        let mut exponent = 0;
        while self.digit().is_some() {
            self.at += 1;
            exponent += 1;
        }
        match self.peek() {
            Some(b'.') => self.fraction(positive, significand, exponent),
            Some(b'e' | b'E') => self.exponent(positive, significand, exponent),
            _ => self.scaled(positive, significand, exponent),
        }
    }

    /// At a number's `.`.
    fn fraction(&mut self, positive: bool, mut significand: u64, exponent: i32) -> Result<f64, ReadError> {
        self.at += 1;
        let mut exponent = exponent;
        let mut digits = 0;
        while let Some(digit) = self.digit() {
            match significand.checked_mul(10).and_then(|n| n.checked_add(u64::from(digit))) {
                Some(n) => significand = n,
                None => {
                    // Past u64: the further digits are dropped.
                    while self.digit().is_some() {
                        self.at += 1;
                    }
                    digits = 1;
                    break;
                }
            }
            self.at += 1;
            exponent -= 1;
            digits += 1;
        }
        if digits == 0 {
            let what = if self.peek().is_some() { INVALID_NUMBER } else { EOF_VALUE };
            return Err(self.peek_error(what));
        }
        match self.peek() {
            Some(b'e' | b'E') => self.exponent(positive, significand, exponent),
            _ => self.scaled(positive, significand, exponent),
        }
    }

    /// At a number's `e` or `E`.
    fn exponent(&mut self, positive: bool, significand: u64, before: i32) -> Result<f64, ReadError> {
        self.at += 1;
        let positive_exponent = self.peek() != Some(b'-');
        if let Some(b'+' | b'-') = self.peek() {
            self.at += 1;
        }
        let mut exponent = match self.next() {
            None => return Err(self.error(EOF_VALUE)),
            Some(digit @ b'0'..=b'9') => i32::from(digit - b'0'),
            Some(_) => return Err(self.error(INVALID_NUMBER)),
        };
        while let Some(digit) = self.digit() {
            self.at += 1;
            match exponent.checked_mul(10).and_then(|n| n.checked_add(i32::from(digit))) {
                Some(n) => exponent = n,
                None => {
                    // Infinite is refused; zero is zero.
                    if significand != 0 && positive_exponent {
                        return Err(self.error(OUT_OF_RANGE));
                    }
                    while self.digit().is_some() {
                        self.at += 1;
                    }
                    return Ok(if positive { 0.0 } else { -0.0 });
                }
            }
        }
        let exponent =
            if positive_exponent { before.saturating_add(exponent) } else { before.saturating_sub(exponent) };
        self.scaled(positive, significand, exponent)
    }

    /// `significand` × 10^`exponent` with serde_json's arithmetic (without its `float_roundtrip`
    /// feature), so that a number reads as the same `f64` as it did.
    fn scaled(&self, positive: bool, significand: u64, mut exponent: i32) -> Result<f64, ReadError> {
        let mut f = significand as f64;
        loop {
            match pow10().get(exponent.wrapping_abs() as usize) {
                Some(&pow) => {
                    if exponent >= 0 {
                        f *= pow;
                        if f.is_infinite() {
                            return Err(self.error(OUT_OF_RANGE));
                        }
                    } else {
                        f /= pow;
                    }
                    break;
                }
                None => {
                    if f == 0.0 {
                        break;
                    }
                    if exponent >= 0 {
                        return Err(self.error(OUT_OF_RANGE));
                    }
                    f /= 1e308;
                    exponent += 308;
                }
            }
        }
        Ok(if positive { f } else { -f })
    }
}

/// The character of the escape at `*at` in `bytes` (after its `\`), `*at` moved past it; or why
/// it is not one, `*at` where serde_json places that error. A surrogate pair (`\ud83d\ude00`, how
/// servers that escape all but ASCII write an emoji) is one character; a lone surrogate is an
/// error. The one reading of escapes for both readers: this one, and the dialects' scanner.
pub(crate) fn escape(bytes: &[u8], at: &mut usize) -> Result<char, &'static str> {
    let letter = *bytes.get(*at).ok_or(EOF_STRING)?;
    *at += 1;
    if letter != b'u' {
        return escaped(letter).ok_or(INVALID_ESCAPE);
    }
    let high = hex4(bytes, at)?;
    if !(0xD800..0xE000).contains(&high) {
        return char::from_u32(high).ok_or(INVALID_ESCAPE);
    }
    if high >= 0xDC00 {
        return Err(LONE_SURROGATE);
    }
    for expected in [b'\\', b'u'] {
        let byte = bytes.get(*at).copied().ok_or(EOF_STRING)?;
        *at += 1;
        if byte != expected {
            return Err(UNEXPECTED_END_OF_HEX);
        }
    }
    let low = hex4(bytes, at)?;
    if !(0xDC00..0xE000).contains(&low) {
        return Err(LONE_SURROGATE);
    }
    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)).ok_or(INVALID_ESCAPE)
}

/// The four hex digits of a `\u` escape at `*at`, `*at` moved past them (to the end of `bytes`
/// when fewer are left).
fn hex4(bytes: &[u8], at: &mut usize) -> Result<u32, &'static str> {
    let Some(digits) = bytes.get(*at..*at + 4) else {
        *at = bytes.len();
        return Err(EOF_STRING);
    };
    *at += 4;
    digits.iter().try_fold(0, |code, &digit| Ok(code * 16 + char::from(digit).to_digit(16).ok_or(INVALID_ESCAPE)?))
}

/// The character a one-letter escape (`\n`, `\"`, …) stands for.
pub(crate) fn escaped(letter: u8) -> Option<char> {
    Some(match letter {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

fn float(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// 10^0 ..= 10^308, each the f64 nearest it (as the literals `1e0` … `1e308` are, which serde_json
/// keeps as a table), made on the first float read: the table of literals was 2.4 KB of every
/// module, gzip or not (`f64`s do not compress).
fn pow10() -> &'static [f64; 309] {
    static TABLE: OnceLock<[f64; 309]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [0.0; 309];
        // 5^e in 32-bit limbs, least significant first: 10^e is 5^e × 2^e.
        let mut five = vec![1u32];
        for (e, entry) in (0..).zip(&mut table) {
            *entry = nearest(&five, e);
            let mut carry = 0;
            for limb in &mut five {
                let n = u64::from(*limb) * 5 + carry;
                *limb = n as u32;
                carry = n >> 32;
            }
            if carry != 0 {
                five.push(carry as u32);
            }
        }
        table
    })
}

/// The f64 nearest `n` × 2^`shift` (`n` a whole number in 32-bit limbs, least significant first,
/// the last not 0), ties to even; `n` × 2^`shift` within f64's normal range.
fn nearest(n: &[u32], shift: i32) -> f64 {
    let last = n.last().copied().unwrap_or(1);
    let bits = n.len() * 32 - last.leading_zeros() as usize;
    let bit = |i: usize| (n[i / 32] >> (i % 32)) & 1 == 1;
    // The top 64 bits, the highest set bit at the top, and whether any below them is set.
    let low = bits.saturating_sub(64);
    let mut top = (low..bits).rev().fold(0u64, |top, i| top << 1 | u64::from(bit(i)));
    top <<= 64 - (bits - low);
    let below = (0..low).any(bit);
    let mut mantissa = top >> 11;
    let rest = top & 0x7FF;
    if rest > 0x400 || (rest == 0x400 && (below || mantissa & 1 == 1)) {
        mantissa += 1;
    }
    // n × 2^shift ≈ mantissa × 2^exponent, mantissa in [2^52, 2^53).
    let mut exponent = bits as i32 - 53 + shift;
    if mantissa == 1 << 53 {
        mantissa >>= 1;
        exponent += 1;
    }
    f64::from_bits(((exponent + 52 + 1023) as u64) << 52 | (mantissa & ((1 << 52) - 1)))
}

/// Numbers below the one asked for, the same from the same seed (xorshift): the readers' tests'
/// random inputs.
#[cfg(test)]
pub(crate) fn random(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    }
}

/// `each` texts made from each of `seeds` by changing, removing or inserting one to three bytes
/// (taken from `pieces`), those of them that are still UTF-8.
#[cfg(test)]
pub(crate) fn mangled(
    seeds: &[&str],
    each: usize,
    pieces: &[u8],
    next: &mut impl FnMut(usize) -> usize,
) -> Vec<String> {
    let mut texts = Vec::new();
    for text in seeds {
        for _ in 0..each {
            let mut bytes = text.as_bytes().to_vec();
            for _ in 0..1 + next(3) {
                let at = next(bytes.len().max(1)).min(bytes.len().saturating_sub(1));
                let piece = pieces[next(pieces.len())];
                match next(3) {
                    _ if bytes.is_empty() => bytes.push(piece),
                    0 => bytes[at] = piece,
                    1 => _ = bytes.remove(at),
                    _ => bytes.insert(at, piece),
                }
            }
            texts.extend(String::from_utf8(bytes));
        }
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_string_with_escapes_is_held_in_about_its_length() {
        for text in [format!("\"{}\\n\"", "abcd".repeat(300_000)), format!("\"{}\"", "ab\\n".repeat(300_000))] {
            let Ok(Value::String(string)) = parse(&text) else { panic!("a string") };
            assert!(string.capacity() <= string.len() + 64, "{} bytes held for {}", string.capacity(), string.len());
        }
    }

    /// serde_json's reading of `text`, as this reader's result would print: the value written out
    /// (so that `-0.0` and `0.0`, equal as numbers, are told apart), or the error's text.
    fn serde_reading(text: &str, limit: bool) -> Result<String, String> {
        let mut reader = serde_json::Deserializer::from_str(text);
        if !limit {
            reader.disable_recursion_limit();
        }
        let value = serde::Deserialize::deserialize(&mut reader).and_then(|value: Value| reader.end().map(|()| value));
        value.map(|value| serde_json::to_string(&value).unwrap()).map_err(|e| e.to_string())
    }

    fn reading(text: &str) -> Result<String, String> {
        parse(text).map(|value| serde_json::to_string(&value).unwrap()).map_err(|e| e.to_string())
    }

    fn agrees(text: &str) {
        assert_eq!(reading(text), serde_reading(text, true), "{text:?}");
    }

    #[test]
    fn reads_as_serde_json_reads() {
        let nested = |open: &str, close: &str, n: usize| format!("{}{}", open.repeat(n), close.repeat(n));
        let mut texts: Vec<String> = [
            // Values, white space, what surrounds them.
            "",
            " ",
            "null",
            "true",
            "false",
            " \t\r\n[ 1 ,\n 2 ] \n",
            "nul",
            "nulx",
            "tru",
            "fals",
            "truex",
            "[1] x",
            "{} {}",
            "[",
            "]",
            "{",
            "}",
            "[1",
            "[1,",
            "[1,]",
            "[1 2]",
            "[,1]",
            "[]]",
            "{\"a\"",
            "{\"a\":",
            "{\"a\":1",
            "{\"a\":1,",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{\"a\":1 \"b\":2}",
            "{1:2}",
            "{,}",
            "{\"a\":1,2}",
            "{\"a\":1}}",
            "\u{feff}1",
            "/* */1",
            "'a'",
            "NaN",
            "Infinity",
            "-Infinity",
            "+1",
            "x",
            "\n\n  ?",
            // Keys: repeated (the last value kept), `__proto__`, empty, escaped.
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"__proto__":{"x":1},"constructor":null}"#,
            r#"{"":0,"\u0061":1,"a":2}"#,
            // Strings and escapes.
            r#""""#,
            r#""plain é 😀 \u2028""#,
            r#""\"\\\/\b\f\n\r\t""#,
            r#""\u00e9\u0000\uFFFF\uffff""#,
            r#""\ud83d\ude00""#,
            r#""\uD83D\uDE00 tail""#,
            r#""\ud800""#,
            r#""\ud800x""#,
            r#""\ud800\n""#,
            r#""\ud800\u0041""#,
            r#""\ud800\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u12""#,
            r#""\ud800\"#,
            r#""\ud800\"#,
            r#""\u12"#,
            r#""\u12g4""#,
            r#""\x""#,
            r#""\"#,
            r#""abc"#,
            "\"a\u{1}b\"",
            "\"tab\there\"",
            "\"line\nbreak\"",
            "\"\u{7f}\"",
            r#"["a\u0022b", "\\"]"#,
            // Numbers.
            "0",
            "-0",
            "-0.0",
            "0.0",
            "00",
            "01",
            "-",
            "-a",
            "1.",
            "1.e5",
            ".5",
            "1e",
            "1e+",
            "1E-",
            "1e5",
            "1E+5",
            "1.5e-5",
            "-1.5E+300",
            "1e308",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "1e309",
            "1e400",
            "-1e400",
            "1e-400",
            "1e-324",
            "5e-324",
            "0e999999999999",
            "1e999999999999",
            "1e-999999999999",
            "-0e-999999999999",
            "0.1",
            "0.2",
            "0.30000000000000004",
            "3.141592653589793238462643383279",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "123456789012345678901234567890.5e-10",
            "1234567890123456789012e-400",
            "0.000000000000000000000000000000000000001234567890123456789012345",
            "1.0000000000000000000000001",
            "[1e5,2.5,-7,0]",
            "1x",
            "1.5.5",
            "1e5e5",
            "-01",
            "2.",
            "[-]",
            "[1.]",
            "1e+1x",
        ]
        .map(String::from)
        .to_vec();
        // Nesting at, below and past the depth limit, of arrays and objects.
        for n in [1, 126, 127, 128, 129, 300] {
            texts.push(nested("[", "]", n));
            texts.push(format!("{}1{}", "[".repeat(n), "]".repeat(n)));
            texts.push(nested("{\"a\":", "}", n).replacen("{\"a\":}", "{}", 1));
            texts.push(format!("{}null{}", "{\"k\":".repeat(n), "}".repeat(n)));
        }
        for text in &texts {
            agrees(text);
        }
        // Without the limit, deep nesting reads whole (serde_json recursing, this reader not).
        let deep = format!("{}[1,{{\"a\":\"b\"}}]{}", "[{\"k\":".repeat(300), "}]".repeat(300));
        let read =
            parse_unbounded(&deep).map(|value| serde_json::to_string(&value).unwrap()).map_err(|e| e.to_string());
        assert_eq!(read, serde_reading(&deep, false));
        assert!(parse(&deep).is_err());
    }

    /// Texts mangled byte by byte, and numbers of random digits and exponents: the same value or
    /// the same error.
    #[test]
    fn reads_random_text_as_serde_json_reads() {
        let seeds = [
            r#"{"a":[1,-2.5e+3,0.1,true,false,null,"x\"y\\u00e9\n\ud83d\ude00"],"b":{},"c":[],"d":{"e":[{"f":""}]}}"#,
            "[ 1 , { \"k\" : \"v\" } ,\n [ ] , 123456789012345678901, -0.0e-1 ]",
            r#""text \u0041\ud800\udc00""#,
            "-0",
            "1E5",
        ];
        let mut next = random(0x1234_5678_9abc_def0);
        let mut verdicts = [0; 2];
        for mangled in mangled(&seeds, 3000, b"{}[]\",:0-.eE+ \n\\tnul1u9d8\x01", &mut next) {
            agrees(&mangled);
            verdicts[usize::from(parse(&mangled).is_ok())] += 1;
        }
        assert!(verdicts[0] > 2000 && verdicts[1] > 500, "both kinds were tried: {verdicts:?}");
        for _ in 0..20_000 {
            let digits = |next: &mut dyn FnMut(usize) -> usize, n: usize| -> String {
                (0..n).map(|_| char::from(b'0' + next(10) as u8)).collect()
            };
            let mut number = String::new();
            if next(2) == 0 {
                number.push('-');
            }
            let count = 1 + next(25);
            let whole = digits(&mut next, count);
            number.push_str(if next(4) == 0 { "0" } else { whole.trim_start_matches('0') });
            if number.ends_with('-') || number.is_empty() {
                number.push('7');
            }
            if next(2) == 0 {
                number.push('.');
                let count = 1 + next(25);
                number.push_str(&digits(&mut next, count));
            }
            if next(2) == 0 {
                number.push(['e', 'E'][next(2)]);
                number.push_str(["", "+", "-"][next(3)]);
                number.push_str(&(next(700)).to_string());
            }
            agrees(&number);
        }
    }

    #[test]
    fn the_powers_of_ten_are_the_nearest_floats() {
        for (e, &pow) in pow10().iter().enumerate() {
            assert_eq!(pow.to_bits(), format!("1e{e}").parse::<f64>().unwrap().to_bits(), "1e{e}");
        }
    }

    #[test]
    fn an_error_names_its_line_and_column() {
        let error = parse("{\n  \"a\": [1,\n  2,]\n}").unwrap_err();
        assert_eq!(error.to_string(), "trailing comma at line 3 column 5");
    }
}
