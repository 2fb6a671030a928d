//! The JSON text reader: JSON text (RFC 8259) checked, each value handed out as the text it
//! stands as and strings decoded; objects read into [`Object`]s with their keys in order, an
//! array's items, one whole value. Its errors are [`JsonError`]s.

use super::object::{Field, Object};
use crate::json::escaped;

/// Why JSON text was refused, and where (a byte offset).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonError {
    pub(crate) what: &'static str,
    pub(crate) at: usize,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

/// How deep values may nest (serde_json's own limit): deeper is refused, so that nothing that
/// walks a value (metadata merged key by key) can be driven into a stack overflow.
const MAX_DEPTH: usize = 128;

/// A reader of JSON text (RFC 8259) that hands out each value's text as it stands, and strings
/// decoded. Hand-written on purpose: serde_json's `RawValue` path did the same job, but its typed
/// visitors link serde's "invalid type" messages and with them float formatting into the module
/// (about 12 KB raw of the full module, measured with twiggy); this reader is a fraction of that.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn fail<T>(&self, what: &'static str) -> Result<T, JsonError> {
        Err(JsonError { what, at: self.at })
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_space();
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    /// The whole text is one value of the kind `open` begins (`{` or `[`): its items, each read by
    /// `item`, then nothing but white space.
    fn whole<T>(
        text: &'a str,
        open: u8,
        mut item: impl FnMut(&mut Reader<'a>) -> Result<T, JsonError>,
    ) -> Result<Vec<T>, JsonError> {
        let mut reader = Reader { text, at: 0 };
        let close = if open == b'{' { b'}' } else { b']' };
        if !reader.eat(open) {
            return reader.fail(if open == b'{' { "not a JSON object" } else { "not a JSON array" });
        }
        let mut items = Vec::new();
        if !reader.eat(close) {
            loop {
                reader.skip_space();
                items.push(item(&mut reader)?);
                if reader.eat(close) {
                    break;
                }
                if !reader.eat(b',') {
                    return reader.fail("expected `,` or the end");
                }
            }
        }
        reader.skip_space();
        if reader.at != text.len() {
            return reader.fail("text after the value");
        }
        Ok(items)
    }

    /// One value's text, checked.
    fn value(&mut self) -> Result<&'a str, JsonError> {
        self.skip_space();
        let start = self.at;
        // The open arrays and objects, innermost last: `true` for an object.
        let mut open: Vec<bool> = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                Some(b'{' | b'[') if open.len() == MAX_DEPTH => return self.fail("nested too deeply"),
                Some(b'{') => {
                    self.at += 1;
                    if self.eat(b'}') {
                        // An empty object is a whole value.
                    } else {
                        open.push(true);
                        self.key()?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.at += 1;
                    if !self.eat(b']') {
                        open.push(false);
                        continue;
                    }
                }
                Some(b'"') => self.string(None)?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b't') => self.literal("true")?,
                Some(b'f') => self.literal("false")?,
                Some(b'n') => self.literal("null")?,
                Some(_) => return self.fail("not a JSON value"),
                None => return self.fail("the text ends inside a value"),
            }
            // A value ended: close what it ends, or go on to the next item.
            loop {
                let Some(&object) = open.last() else { return Ok(&self.text[start..self.at]) };
                if self.eat(if object { b'}' } else { b']' }) {
                    open.pop();
                } else if self.eat(b',') {
                    if object {
                        self.key()?;
                    }
                    break;
                } else {
                    return self.fail("expected `,` or the end");
                }
            }
        }
    }

    /// `"key":`, the key decoded.
    fn key(&mut self) -> Result<String, JsonError> {
        self.skip_space();
        let mut key = String::new();
        if self.peek() != Some(b'"') {
            return self.fail("expected a key");
        }
        self.string(Some(&mut key))?;
        if !self.eat(b':') {
            return self.fail("expected `:`");
        }
        Ok(key)
    }

    /// A string, decoded into `out` when given. A lone surrogate (`"\ud800"`, which JS reads)
    /// becomes U+FFFD.
    fn string(&mut self, mut out: Option<&mut String>) -> Result<(), JsonError> {
        self.at += 1;
        loop {
            let rest = &self.text.as_bytes()[self.at..];
            let plain = rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            let Some(plain) = plain else { return self.fail("the text ends inside a string") };
            if let Some(out) = out.as_deref_mut() {
                out.push_str(&self.text[self.at..self.at + plain]);
            }
            self.at += plain;
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    let decoded = self.escape()?;
                    if let Some(out) = out.as_deref_mut() {
                        out.push(decoded);
                    }
                }
                _ => return self.fail("a control character in a string"),
            }
        }
    }

    /// The escape at `\\`.
    fn escape(&mut self) -> Result<char, JsonError> {
        let kind = self.text.as_bytes().get(self.at + 1).copied();
        self.at += 2;
        Ok(match kind {
            Some(b'u') => {
                let high = self.hex4()?;
                if (0xD800..0xDC00).contains(&high) && self.text[self.at..].starts_with("\\u") {
                    let before = self.at;
                    self.at += 2;
                    let low = self.hex4()?;
                    if (0xDC00..0xE000).contains(&low) {
                        let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                        return Ok(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    }
                    self.at = before;
                }
                char::from_u32(high).unwrap_or('\u{FFFD}')
            }
            _ => match kind.and_then(escaped) {
                Some(letter) => letter,
                None => return self.fail("an unknown escape in a string"),
            },
        })
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self.text.get(self.at..self.at + 4).filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        let Some(digits) = digits else { return self.fail("a bad \\u escape in a string") };
        self.at += 4;
        Ok(u32::from_str_radix(digits, 16).unwrap_or(0xFFFD))
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    fn number(&mut self) -> Result<(), JsonError> {
        let bytes = self.text.as_bytes();
        let digits = |at: usize| bytes[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        let mut at = self.at + usize::from(bytes[self.at] == b'-');
        let whole = digits(at);
        if whole == 0 || (whole > 1 && bytes[at] == b'0') {
            return self.fail("a bad number");
        }
        at += whole;
        if bytes.get(at) == Some(&b'.') {
            let fraction = digits(at + 1);
            if fraction == 0 {
                return self.fail("a bad number");
            }
            at += 1 + fraction;
        }
        if matches!(bytes.get(at), Some(b'e' | b'E')) {
            at += 1 + usize::from(matches!(bytes.get(at + 1), Some(b'+' | b'-')));
            let exponent = digits(at);
            if exponent == 0 {
                return self.fail("a bad number");
            }
            at += exponent;
        }
        self.at = at;
        Ok(())
    }

    fn literal(&mut self, word: &str) -> Result<(), JsonError> {
        if !self.text[self.at..].starts_with(word) {
            return self.fail("not a JSON value");
        }
        self.at += word.len();
        Ok(())
    }
}

impl Object {
    /// Reads a JSON object; a key given twice keeps its first place and its last value, as
    /// `JSON.parse` does.
    pub(crate) fn parse(json: &str) -> Result<Object, JsonError> {
        let fields = Reader::whole(json, b'{', |reader| {
            let key = reader.key()?;
            reader.skip_space();
            let value = if reader.peek() == Some(b'"') {
                let mut text = String::new();
                reader.string(Some(&mut text))?;
                Field::Text(text)
            } else {
                Field::Json(reader.value()?.into())
            };
            Ok((key, value))
        })?;
        let mut object = Object::default();
        for (key, value) in fields {
            object.set(&key, value);
        }
        Ok(object)
    }
}

/// The items of a JSON array, each as its JSON text.
pub(crate) fn array_items(json: &str) -> Result<Vec<&str>, JsonError> {
    Reader::whole(json, b'[', Reader::value)
}

/// `json` when it is one JSON value, trimmed.
pub(crate) fn json_value(json: &str) -> Option<&str> {
    let mut reader = Reader { text: json, at: 0 };
    let value = reader.value().ok()?;
    reader.skip_space();
    (reader.at == json.len()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::{json_value, Field, Object};

    /// The reader agrees with serde_json on what is JSON, over texts mangled byte by byte.
    #[test]
    fn the_reader_accepts_what_serde_json_accepts() {
        let texts = [
            r#"{"a":[1,-2.5e+3,0.1,true,false,null,"x\"y\\u00e9\n"],"b":{},"c":[],"d":{"e":[{"f":""}]}}"#,
            r#"[ 1 , { "k" : "v" } , [ ] ]"#,
            r#""text""#,
            "-0",
            "1E5",
        ];
        let mut next = crate::json::random(0x1234_5678_9abc_def0);
        let mut verdicts = [0; 2];
        for mangled in crate::json::mangled(&texts, 2000, b"{}[]\",:0-.e \\tnu1", &mut next) {
            if mangled.contains("\\u") {
                continue; // Lone surrogates: JS reads them, serde_json does not.
            }
            let serde = serde_json::from_str::<serde_json::Value>(&mangled).is_ok();
            assert_eq!(json_value(&mangled).is_some(), serde, "{mangled:?}");
            verdicts[usize::from(serde)] += 1;
        }
        assert!(verdicts[0] > 1000 && verdicts[1] > 100, "both kinds were tried: {verdicts:?}");
    }

    #[test]
    fn an_object_keeps_its_keys_in_order_and_a_repeated_key_in_its_first_place() {
        let object = Object::parse(r#" {"z":1,"a":"x\ty","m":{"q":2,"b":[]},"a":"again"} "#).unwrap();
        assert_eq!(object.to_json(), r#"{"z":1,"a":"again","m":{"q":2,"b":[]}}"#);
        assert_eq!(object.get("a"), &Field::Text("again".into()));
        assert_eq!(Object::parse(r#"{"s":"\ud83d\ude00 \ud800"}"#).unwrap().str("s"), Some("😀 \u{FFFD}"));
        assert!(Object::parse("[1]").is_err() && Object::parse(r#"{"a":1} x"#).is_err());
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(json_value(&deep).is_none(), "nested too deeply");
    }
}
