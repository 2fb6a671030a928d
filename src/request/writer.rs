//! A request body's JSON text, written front to back by the builders.
//!
//! The bodies were `serde_json::Value` trees built field by field: each field an allocation, a
//! map insertion and its drop, about 12 KB of the wasm module for the six formats. Written as
//! text, each field is a key and a leaf appended to one buffer. The leaves (strings, numbers,
//! [`Value`]s) are written by the crate's JSON writer (crate::json).

use serde_json::Value;

use crate::json::{write_into, ToJson};

/// The text written so far. A comma goes before a key or an item whenever the text does not end
/// in `{`, `[` or `:`, so the builders write fields and items without counting them.
///
/// The builders call the writer at a hundred places: its common steps are kept out of line, each
/// place a call rather than a copy (0.7 KB gzip of the module).
#[derive(Debug, Default)]
pub(super) struct Writer {
    text: Vec<u8>,
}

impl Writer {
    fn separate(&mut self) {
        if !matches!(self.text.last(), None | Some(b'{' | b'[' | b':')) {
            self.text.push(b',');
        }
    }

    /// Opens an object (`b'{'`) or an array (`b'['`).
    #[inline(never)]
    pub(super) fn open(&mut self, bracket: u8) -> &mut Self {
        self.separate();
        self.text.push(bracket);
        self
    }

    /// Closes what [`Writer::open`] opened (`b'}'` or `b']'`).
    #[inline(never)]
    pub(super) fn close(&mut self, bracket: u8) {
        self.text.push(bracket);
    }

    /// The next field's key: its value follows.
    #[inline(never)]
    pub(super) fn key(&mut self, key: &str) -> &mut Self {
        self.string(key);
        self.text.push(b':');
        self
    }

    fn leaf<T: ToJson + ?Sized>(&mut self, value: &T) {
        self.separate();
        write_into(&mut self.text, value);
    }

    #[inline(never)]
    pub(super) fn string(&mut self, text: &str) {
        self.leaf(text);
    }

    pub(super) fn value(&mut self, value: &Value) {
        self.leaf(value);
    }

    #[inline(never)]
    pub(super) fn bool(&mut self, value: bool) {
        self.leaf(&value);
    }

    #[inline(never)]
    pub(super) fn int(&mut self, value: u32) {
        self.leaf(&u64::from(value));
    }

    /// `"key":"text"`.
    #[inline(never)]
    pub(super) fn field(&mut self, key: &str, text: &str) {
        self.key(key).string(text);
    }

    /// `"key":text` when there is a text.
    pub(super) fn field_some(&mut self, key: &str, text: Option<&str>) {
        if let Some(text) = text {
            self.field(key, text);
        }
    }

    /// `"key":n` when there is a number.
    pub(super) fn int_some(&mut self, key: &str, value: Option<u32>) {
        if let Some(value) = value {
            self.key(key).int(value);
        }
    }

    /// `"key":x` when there is a number.
    pub(super) fn float_some(&mut self, key: &str, value: Option<f64>) {
        if let Some(value) = value {
            self.key(key).leaf(&value);
        }
    }

    /// `{"key":"text"}`.
    #[inline(never)]
    pub(super) fn object_of(&mut self, key: &str, text: &str) {
        self.open(b'{').field(key, text);
        self.close(b'}');
    }

    /// The body as a value, read back from its text. The parts were parsed within the depth
    /// limit, but the body holds them some levels deeper (a message holding a tool call
    /// holding its input), hence no limit. The text is the crate's own output, so it reads back;
    /// were it not to, the body would be `null`, which no provider takes.
    ///
    /// The read back makes a build run about a third more instructions than the tree did (an
    /// 87 KB conversation, native); once per request, never per delta. The callers write the
    /// value out as text again: handing them this text instead would save both.
    pub(super) fn into_value(self) -> Value {
        let text = std::str::from_utf8(&self.text).unwrap_or("null");
        crate::json::parse_unbounded(text).unwrap_or(Value::Null)
    }
}
