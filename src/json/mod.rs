//! The JSON text of the values chatstream hands out (events, chat state, patches, saved
//! messages, requests), for the JS bindings and the session's patches.
//!
//! Each type's declaration (`wire!`) gives it both this writer and `serde::Serialize`, for Rust
//! callers: the same keys in the same order, the same fields left out (the fixture tests hold the
//! two texts to each other). serde's code is one serializer per type for each serde_json
//! serializer it meets (`to_string`, `to_value`), which weighs in the wasm module; here each type
//! is a few lines on one shared path (`&dyn ToJson`). The leaves (strings, numbers, [`Value`]s)
//! are written here too, as serde_json writes them: its serializer would be one more generic
//! path in the module. JSON text is read by [`read`]'s reader, for the same reason.
//!
//! ```
//! use chatstream::event::StreamEvent;
//! use chatstream::json::to_json;
//! let event = StreamEvent::TextDelta { text: "Hi \"you\"\n".into() };
//! assert_eq!(to_json(&event), r#"{"type":"text_delta","text":"Hi \"you\"\n"}"#);
//! assert_eq!(to_json(&event), serde_json::to_string(&event).unwrap());
//! ```

use std::sync::Arc;

use serde_json::{Map, Number, Value};

mod read;

pub(crate) use read::{escape, escaped, parse, parse_unbounded};
// The AI SDK reader's tests mangle texts as this reader's do.
#[cfg(all(test, feature = "ai-sdk"))]
pub(crate) use read::{mangled, random};

/// A JSON value that may be long (a tool call's input, a tool's output): the events, the records,
/// the messages and the patches that hold it share one copy, and a clone copies a pointer. A
/// 20 MB input cloned into each was held nine times at once.
pub type Shared = Arc<Value>;

/// A value that writes itself as JSON text.
pub trait ToJson {
    /// Appends the value's JSON text to `out` (which may keep its long strings, by reference,
    /// to hand over on their own).
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>);
}

/// The JSON text of `value`.
pub fn to_json<T: ToJson + ?Sized>(value: &T) -> String {
    to_json_within(value, 0)
}

/// [`to_json`], written into a buffer of `capacity` bytes to start with: a text about that long
/// (saved messages that hold a long answer) is written without its buffer doubling past it, which
/// would grow the module's memory, never to shrink, by twice the text.
pub fn to_json_within<T: ToJson + ?Sized>(value: &T, capacity: usize) -> String {
    let mut out = JsonOut { text: Vec::with_capacity(capacity), aside: None };
    value.write_json(&mut out);
    out.take_text()
}

/// `value` as a [`Value`], read back from its text (the parser is there anyway; these values
/// are made per message, per tool call or per state change, never per text delta).
pub fn to_value<T: ToJson + ?Sized>(value: &T) -> Value {
    // The parts were read within the depth limit, but a whole holds them some levels deeper (a
    // state holds messages holding parts holding a tool's input).
    parse_unbounded(&to_json(value)).unwrap_or(Value::Null)
}

/// Where JSON text is written. It may set long strings aside: each is then written as
/// `"<mark><n>"`, `n` its place in [`JsonOut::aside`], and equal strings share one place. The
/// JS bindings hand such strings to JS as strings of their own, so that a long answer or tool
/// input is neither escaped into the text nor parsed back out of it, and its copies (a
/// message's `content`, its text part, the `complete` payload's `text`) become one JS string.
/// The strings set aside are the values' own, borrowed: a long one is not copied to be set aside.
#[derive(Debug, Default)]
pub struct JsonOut<'v> {
    text: Vec<u8>,
    aside: Option<Aside<'v>>,
}

#[derive(Debug)]
struct Aside<'v> {
    /// Printable ASCII that needs no escaping.
    mark: String,
    strings: Vec<AsideString<'v>>,
    /// How many strings the text written so far set aside.
    written: usize,
    /// The shared value being written, if any: the strings set aside meanwhile lie in it.
    within: Option<&'v Shared>,
}

/// A string set aside, and the shared value it lies in (a tool's input or output), if any: while
/// that value lives, the string stays at its address unchanged, so the JS bindings can hand it to
/// JS once however many hand-overs hold it.
#[derive(Debug, Clone, Copy)]
pub struct AsideString<'v> {
    /// The string.
    pub text: &'v str,
    /// The shared value it lies in.
    pub within: Option<&'v Shared>,
}

impl<'v> AsideString<'v> {
    /// How many of the strings set aside last a new one is compared with: thousands of long
    /// strings alike up to their last byte (a hostile stream's tool input) would otherwise cost the
    /// square of their count in comparisons. Equal strings are met near each other (an answer's
    /// text, its message and its one segment; a value repeated in a list).
    const LOOKBACK: usize = 16;

    /// `text`'s place among `strings`: an equal one's among the last few, or a new one's.
    pub fn place(strings: &mut Vec<AsideString<'v>>, text: &'v str, within: Option<&'v Shared>) -> usize {
        let from = strings.len().saturating_sub(Self::LOOKBACK);
        // The same string (a message's text shares the answer's) is found without comparing its
        // bytes: an answer of megabytes was compared byte by byte several times at its end.
        match strings[from..].iter().position(|s| std::ptr::eq(s.text, text) || s.text == text) {
            Some(at) => from + at,
            None => {
                strings.push(AsideString { text, within });
                strings.len() - 1
            }
        }
    }
}

impl<'v> JsonOut<'v> {
    /// Strings from this length on are set aside.
    pub const ASIDE_FROM: usize = 1024;

    /// A writer that sets long strings aside, written as `"<mark><n>"`, after `strings` (set aside
    /// already: a string equal to one of them is written as its place).
    pub fn setting_aside(mark: String, strings: Vec<AsideString<'v>>) -> JsonOut<'v> {
        JsonOut { text: Vec::new(), aside: Some(Aside { mark, strings, written: 0, within: None }) }
    }

    /// The text written so far (UTF-8: serde_json's output and ASCII punctuation), and how many
    /// strings it set aside; the writer starts a new text, keeping the strings set aside.
    pub fn take_text(&mut self) -> String {
        self.take_text_counted().0
    }

    /// [`JsonOut::take_text`], with how many strings that text set aside.
    pub fn take_text_counted(&mut self) -> (String, usize) {
        let written = self.aside.as_mut().map_or(0, |aside| std::mem::take(&mut aside.written));
        (String::from_utf8(std::mem::take(&mut self.text)).unwrap_or_default(), written)
    }

    /// The strings set aside so far, by place.
    pub fn aside(&self) -> &[AsideString<'v>] {
        self.aside.as_ref().map_or(&[], |aside| &aside.strings)
    }

    fn push(&mut self, byte: u8) {
        self.text.push(byte);
    }

    fn extend(&mut self, bytes: &[u8]) {
        self.text.extend_from_slice(bytes);
    }

    fn string(&mut self, text: &'v str) {
        match self.aside.as_mut() {
            Some(aside) if text.len() >= Self::ASIDE_FROM => {
                let at = AsideString::place(&mut aside.strings, text, aside.within);
                aside.written += 1;
                self.text.push(b'"');
                self.text.extend_from_slice(aside.mark.as_bytes());
                write_u64(&mut self.text, at as u64);
                self.text.push(b'"');
            }
            _ => write_str(&mut self.text, text),
        }
    }
}

/// A string's JSON text, escaped as serde_json and `JSON.stringify` escape it: `"`, `\\` and
/// control characters, the common ones by letter, the others as `\u00xx`; the runs between copied
/// as they are (the keys, the tags, nearly every id and text have nothing to escape).
///
/// Hand-written on purpose: serde_json writes a string in pieces through `io::Write`, and the keys
/// and strings of a stream's `complete` event were a tenth of a stream made and finished.
pub(crate) fn write_str(out: &mut Vec<u8>, text: &str) {
    let mut rest = text.as_bytes();
    out.reserve(rest.len() + 2);
    out.push(b'"');
    while let Some(at) = escape_at(rest) {
        out.extend_from_slice(&rest[..at]);
        let byte = rest[at];
        rest = &rest[at + 1..];
        let letter = match byte {
            b'"' | b'\\' => byte,
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x08 => b'b',
            0x0c => b'f',
            _ => {
                let hex = |digit: u8| b"0123456789abcdef"[usize::from(digit)];
                out.extend_from_slice(&[b'\\', b'u', b'0', b'0', hex(byte >> 4), hex(byte & 0xf)]);
                continue;
            }
        };
        out.extend_from_slice(&[b'\\', letter]);
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

fn write_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A number as serde_json writes it: an integer in full, a float as its shortest round-trip text
/// (zmij, serde_json's own float writer), and a float JSON cannot hold (infinite, NaN) as `null`.
fn write_number(out: &mut Vec<u8>, n: &Number) {
    if let Some(n) = n.as_u64() {
        write_u64(out, n);
    } else if let Some(n) = n.as_i64() {
        out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    } else if let Some(f) = n.as_f64() {
        write_f64(out, f);
    }
}

fn write_f64(out: &mut Vec<u8>, f: f64) {
    match f.is_finite() {
        true => out.extend_from_slice(zmij::Buffer::new().format_finite(f).as_bytes()),
        false => out.extend_from_slice(b"null"),
    }
}

/// Appends `value`'s JSON text to `text`, no string set aside.
#[cfg(feature = "provider")]
pub(crate) fn write_into<T: ToJson + ?Sized>(text: &mut Vec<u8>, value: &T) {
    let mut out = JsonOut { text: std::mem::take(text), aside: None };
    value.write_json(&mut out);
    *text = out.text;
}

/// The first byte of `bytes` JSON escapes: a control character (below 0x20), `"` or `\` (as
/// serde_json does: nothing else, not even U+007F). The writer looks for one before copying a
/// string as it is; the reader copies a string's content up to one. Eight bytes at a time: a byte
/// below `n` shows in `x - n * ONES & !x & HIGH`, a byte equal to `c` as one below 1 in
/// `x ^ c * ONES`; a borrow may mark bytes after the first found, never one before it, so the
/// lowest mark is the first.
fn escape_at(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let x = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
        let marks = below(x, 0x20) | below(x ^ (ONES * u64::from(b'"')), 1) | below(x ^ (ONES * u64::from(b'\\')), 1);
        if marks != 0 {
            return Some(at + marks.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    chunks.remainder().iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\').map(|n| at + n)
}

/// Writes `{"key":value,…}`: `Object::new(out).field("key", &value).end()`.
pub(crate) struct Object<'o, 'v> {
    out: &'o mut JsonOut<'v>,
    first: bool,
}

impl<'o, 'v> Object<'o, 'v> {
    pub(crate) fn new(out: &'o mut JsonOut<'v>) -> Object<'o, 'v> {
        out.push(b'{');
        Object { out, first: true }
    }

    /// An object whose first field, `tag`, names its kind (`#[serde(tag = "type")]`).
    pub(crate) fn tagged(out: &'o mut JsonOut<'v>, tag: &str, kind: &str) -> Object<'o, 'v> {
        let mut object = Object::new(out);
        object.key(tag);
        write_str(&mut object.out.text, kind);
        object
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        write_str(&mut self.out.text, key);
        self.out.push(b':');
    }

    pub(crate) fn field(&mut self, key: &str, value: &'v dyn ToJson) -> &mut Self {
        self.key(key);
        value.write_json(self.out);
        self
    }

    /// The field when `keep` (`#[serde(skip_serializing_if = …)]`).
    pub(crate) fn field_if(&mut self, keep: bool, key: &str, value: &'v dyn ToJson) -> &mut Self {
        if keep {
            self.field(key, value);
        }
        self
    }

    /// Every entry of `map` as a field of this object (`#[serde(flatten)]`).
    pub(crate) fn flatten(&mut self, map: &'v Map<String, Value>) -> &mut Self {
        for (key, value) in map {
            self.field(key, value);
        }
        self
    }

    pub(crate) fn end(&mut self) {
        self.out.push(b'}');
    }
}

impl ToJson for str {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        out.string(self);
    }
}

impl ToJson for String {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        out.string(self);
    }
}

impl ToJson for bool {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        out.extend(if *self { b"true" } else { b"false" });
    }
}

impl ToJson for u32 {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        write_u64(&mut out.text, u64::from(*self));
    }
}

impl ToJson for u64 {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        write_u64(&mut out.text, *self);
    }
}

impl ToJson for usize {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        write_u64(&mut out.text, *self as u64);
    }
}

impl ToJson for f64 {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        write_f64(&mut out.text, *self);
    }
}

/// Walked here, not written by serde_json whole, so that the long strings inside (a tool's
/// input, its output) can be set aside too.
impl ToJson for Value {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        match self {
            Value::String(text) => out.string(text),
            Value::Array(items) => items.write_json(out),
            Value::Object(map) => {
                let mut object = Object::new(out);
                object.flatten(map);
                object.end();
            }
            Value::Null => out.extend(b"null"),
            Value::Bool(b) => b.write_json(out),
            Value::Number(n) => write_number(&mut out.text, n),
        }
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        match self {
            Some(value) => value.write_json(out),
            None => out.extend(b"null"),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        out.push(b'[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            item.write_json(out);
        }
        out.push(b']');
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        self.as_slice().write_json(out);
    }
}

impl ToJson for Shared {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        let outer = out.aside.as_mut().map(|aside| aside.within.replace(self));
        (**self).write_json(out);
        if let (Some(aside), Some(outer)) = (out.aside.as_mut(), outer) {
            aside.within = outer;
        }
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json<'v>(&'v self, out: &mut JsonOut<'v>) {
        (**self).write_json(out);
    }
}

/// A JSON object of one of the crate's types being read back (saved messages, tool history,
/// usage), in place of `derive(Deserialize)`, whose code per type weighed more in the wasm module
/// than these readers. A missing or `null` field is its default (or missing, when required);
/// unknown fields are ignored.
pub(crate) struct Fields<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    pub(crate) fn of(value: &'a Value) -> Result<Fields<'a>, String> {
        value.as_object().map(|map| Fields { map }).ok_or_else(|| format!("expected an object, got {}", kind(value)))
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|value| !value.is_null())
    }

    pub(crate) fn opt_string(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(wrong(key, "a string", other)),
        }
    }

    pub(crate) fn string(&self, key: &str) -> Result<String, String> {
        self.opt_string(key)?.ok_or_else(|| missing(key))
    }

    /// `false` when missing.
    pub(crate) fn bool(&self, key: &str) -> Result<bool, String> {
        match self.get(key) {
            None => Ok(false),
            Some(value) => value.as_bool().ok_or_else(|| wrong(key, "a boolean", value)),
        }
    }

    /// A whole number from 0 to `u32::MAX`.
    pub(crate) fn index(&self, key: &str) -> Result<u32, String> {
        let value = self.get(key).ok_or_else(|| missing(key))?;
        value.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| wrong(key, "a whole number", value))
    }

    pub(crate) fn count(&self, key: &str) -> Result<Option<u64>, String> {
        self.get(key).map(|value| value.as_u64().ok_or_else(|| wrong(key, "a whole number", value))).transpose()
    }

    /// `null` when missing.
    pub(crate) fn value(&self, key: &str) -> Value {
        self.get(key).cloned().unwrap_or(Value::Null)
    }

    pub(crate) fn opt_value(&self, key: &str) -> Option<Value> {
        self.get(key).cloned()
    }

    /// The value of `key` read by `read`, when present.
    pub(crate) fn opt<T>(&self, key: &str, read: fn(&Value) -> Result<T, String>) -> Result<Option<T>, String> {
        self.get(key).map(|value| read(value).map_err(|e| under(key, ": ", e))).transpose()
    }

    /// The items of the array `key`, each read by `item`; none when missing.
    pub(crate) fn list<T>(&self, key: &str, item: fn(&Value) -> Result<T, String>) -> Result<Vec<T>, String> {
        self.get(key).map_or(Ok(Vec::new()), |value| list(value, item).map_err(|e| under(key, "", e)))
    }
}

/// The items of an array, each read by `item`. An error reads after the list's name:
/// `[2]: missing field …`, or `: expected an array, …`.
///
/// A plain loop, the messages kept out of line: this is instantiated for each type read, and
/// `collect` into a `Result` was 1.2 KB of the module per type.
pub(crate) fn list<T>(value: &Value, item: fn(&Value) -> Result<T, String>) -> Result<Vec<T>, String> {
    let items = array(value)?;
    let mut list = Vec::with_capacity(items.len());
    for (i, value) in items.iter().enumerate() {
        match item(value) {
            Ok(read) => list.push(read),
            Err(e) => return Err(item_error(i, e)),
        }
    }
    Ok(list)
}

fn array(value: &Value) -> Result<&[Value], String> {
    value.as_array().map(Vec::as_slice).ok_or_else(|| format!(": expected an array, got {}", kind(value)))
}

/// `e` of the field `key`, after `between`. Out of line: [`Fields::opt`] and [`Fields::list`] are
/// made for each type read, and a message formatted in place was a copy in each.
#[inline(never)]
fn under(key: &str, between: &str, e: String) -> String {
    format!("{key}{between}{e}")
}

#[inline(never)]
fn item_error(i: usize, e: String) -> String {
    format!("[{i}]: {e}")
}

fn missing(key: &str) -> String {
    format!("missing field `{key}`")
}

fn wrong(key: &str, expected: &str, value: &Value) -> String {
    format!("`{key}` must be {expected}, got {}", kind(value))
}

/// What a value is, in a message.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_string_set_aside_is_found_among_the_last_few_only() {
        // Long strings alike up to their last byte, as a hostile tool input may hold thousands.
        let texts: Vec<String> = (0..40).map(|n| format!("{}{n:02}", "x".repeat(JsonOut::ASIDE_FROM))).collect();
        let mut strings = Vec::new();
        for (n, text) in texts.iter().enumerate() {
            assert_eq!(AsideString::place(&mut strings, text, None), n);
        }
        // An equal string among the last 16 is found; one further back is set aside again.
        assert_eq!(AsideString::place(&mut strings, &texts[39], None), 39);
        assert_eq!(AsideString::place(&mut strings, &texts[24], None), 24);
        assert_eq!(AsideString::place(&mut strings, &texts[0], None), 40);
        assert_eq!(strings.len(), 41);
    }

    /// What the fast path copies as it is and what it escapes must together write what
    /// serde_json writes: every ASCII byte at every place of an eight-byte block and of the
    /// rest, and text that is not ASCII (é, a character outside the BMP, U+007F, U+2028).
    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let mut texts: Vec<String> = Vec::new();
        for byte in 0u8..=0x7F {
            for at in 0..19 {
                let mut text = "a".repeat(19);
                text.replace_range(at..=at, &char::from(byte).to_string());
                texts.push(text);
            }
        }
        texts.extend(["", "é", "naïve 😀 text", "\u{7f}", "\u{2028}", "tab\there", "😀😀\"", "\\"].map(String::from));
        for text in texts {
            let mut out = Vec::new();
            write_str(&mut out, &text);
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&text).unwrap(), "{text:?}");
        }
    }

    /// Numbers, in values and alone, come out as serde_json writes them: integers at the ends of
    /// their range, floats short and long, tiny and huge, `-0.0`, and floats JSON cannot hold.
    #[test]
    fn numbers_are_written_as_serde_json_writes_them() {
        let floats = [0.0, -0.0, 0.1, -2.5, 1.0, 1e15, 1e16, 1e21, 1e22, 1e300, f64::MAX, f64::MIN_POSITIVE, 5e-324];
        let floats = floats.into_iter().chain([1.5e-7, 123_456.789, f64::NAN, f64::INFINITY, -f64::INFINITY]);
        for f in floats {
            assert_eq!(to_json(&f), serde_json::to_string(&f).unwrap(), "{f:?}");
            let value = serde_json::json!([f, { "n": f }]);
            assert_eq!(to_json(&value), serde_json::to_string(&value).unwrap(), "{f:?}");
        }
        let integers =
            serde_json::json!([0, 1, -1, u64::MAX, i64::MIN, i64::MAX, u64::from(u32::MAX), null, true, false]);
        assert_eq!(to_json(&integers), serde_json::to_string(&integers).unwrap());
        for n in [0, 7, u64::MAX] {
            assert_eq!(to_json(&n), n.to_string());
        }
    }

    #[test]
    fn a_list_reads_each_item_and_names_the_first_it_cannot() {
        let number = |value: &Value| value.as_u64().ok_or_else(|| "not a number".to_owned());
        assert_eq!(list(&serde_json::json!([1, 2, 3]), number), Ok(vec![1, 2, 3]));
        assert_eq!(list(&serde_json::json!([]), number), Ok(vec![]));
        assert_eq!(list(&serde_json::json!([1, "x", null]), number), Err("[1]: not a number".to_owned()));
        assert_eq!(list(&serde_json::json!({"a": 1}), number), Err(": expected an array, got an object".to_owned()));
    }

    #[test]
    fn escaping_is_found_in_the_block_and_in_the_rest() {
        assert_eq!(escape_at(b"plain text, eight+ bytes/\x7f"), None);
        assert_eq!(escape_at(b"0123456\"89"), Some(7));
        assert_eq!(escape_at(b"01234567\\"), Some(8));
        assert_eq!(escape_at(b"\x1f1234567"), Some(0));
        assert_eq!(escape_at(b"\x20\x21\x23\x5b\x5d\xff\x80\xc3"), None);
        // The first of several in one block, with borrows from it marking bytes after it.
        assert_eq!(escape_at(b"ab\x00\x01\"\\cd"), Some(2));
        assert_eq!(escape_at(b"abcde\\\x1f\""), Some(5));
    }
}
