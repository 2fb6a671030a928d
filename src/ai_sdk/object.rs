//! JSON objects as JS holds them: keys in the order they were first set, and a key may hold
//! `undefined` (it keeps its place and is left out of the JSON text, as `JSON.stringify` does).
//!
//! The AI SDK builds its messages as JS objects, and an app compares or stores them as JSON text,
//! so the order of keys is part of what must come out the same: an object literal's keys in their
//! order, a key assigned later at the end, a key assigned again in its place. Values the app owns
//! (tool inputs and outputs, data, metadata, provider metadata) are kept as the JSON text they came
//! in, so their keys keep their order too; strings are kept decoded, so that a text part grows by
//! its deltas without being written out again.

pub(crate) use crate::json::write_str;

/// One key's value.
#[derive(Debug, Default, PartialEq)]
pub(crate) enum Field {
    /// `undefined`: the key is there, and left out of the JSON text.
    #[default]
    Undefined,
    /// A string, decoded.
    Text(String),
    /// Any other JSON value, as its text (valid JSON: read by serde_json or written here).
    Json(Box<str>),
}

impl Field {
    /// `null` or `undefined` (what JS's `??` and `!= null` test).
    pub(crate) fn is_nullish(&self) -> bool {
        match self {
            Field::Undefined => true,
            Field::Json(json) => &**json == "null",
            Field::Text(_) => false,
        }
    }

    /// `a ?? b`.
    pub(crate) fn or(self, other: Field) -> Field {
        if self.is_nullish() {
            other
        } else {
            self
        }
    }

    /// The string, when the value is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Field::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The boolean, when the value is one.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Field::Json(json) if &**json == "true" => Some(true),
            Field::Json(json) if &**json == "false" => Some(false),
            _ => None,
        }
    }

    /// A JSON object value, read with its keys in order (`None` for anything else).
    pub(crate) fn as_object(&self) -> Option<Object> {
        match self {
            Field::Json(json) if json.starts_with('{') => Object::parse(json).ok(),
            _ => None,
        }
    }

    /// `true` or `false`.
    pub(crate) fn bool(value: bool) -> Field {
        Field::Json(if value { "true" } else { "false" }.into())
    }

    /// An object value.
    pub(crate) fn object(object: &Object) -> Field {
        let mut out = Vec::new();
        object.write_json(&mut out);
        Field::Json(into_string(out).into())
    }

    /// Appends the value's JSON text (nothing for `undefined`: the caller leaves the key out).
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Field::Undefined => {}
            Field::Text(text) => write_str(out, text),
            Field::Json(json) => out.extend_from_slice(json.as_bytes()),
        }
    }
}

// The reducer reads, clones and sets fields at a hundred places: the small helpers below are kept
// out of line (`#[inline(never)]`), so that each place is a call rather than a copy of the loop or
// the allocation (0.6 KB gzip of the AI SDK entry's module, measured; no slower in its benchmark).
impl Clone for Field {
    #[inline(never)]
    fn clone(&self) -> Field {
        match self {
            Field::Undefined => Field::Undefined,
            Field::Text(text) => Field::Text(text.clone()),
            Field::Json(json) => Field::Json(json.clone()),
        }
    }
}

impl From<&str> for Field {
    #[inline(never)]
    fn from(text: &str) -> Field {
        Field::Text(text.to_owned())
    }
}

impl From<String> for Field {
    fn from(text: String) -> Field {
        Field::Text(text)
    }
}

/// A JSON object with its keys in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Object {
    fields: Vec<(String, Field)>,
}

impl Object {
    /// An object literal: these keys in this order.
    pub(crate) fn literal<const N: usize>(fields: [(&str, Field); N]) -> Object {
        let mut object = Object { fields: Vec::with_capacity(N) };
        for (key, value) in fields {
            object.push_field(key, value);
        }
        object
    }

    #[inline(never)]
    fn push_field(&mut self, key: &str, value: Field) {
        self.fields.push((key.to_owned(), value));
    }

    /// The value of `key` (`undefined` when it is not there).
    #[inline(never)]
    pub(crate) fn get(&self, key: &str) -> &Field {
        self.fields.iter().find(|(k, _)| k == key).map_or(&Field::Undefined, |(_, value)| value)
    }

    /// The string at `key`, when it is one.
    pub(crate) fn str(&self, key: &str) -> Option<&str> {
        self.get(key).as_str()
    }

    /// Whether `key` is there (own property), even holding `undefined`.
    #[inline(never)]
    pub(crate) fn has(&self, key: &str) -> bool {
        self.fields.iter().any(|(k, _)| k == key)
    }

    /// `object[key] = value`: in its place when the key is there, else at the end.
    pub(crate) fn set(&mut self, key: &str, value: impl Into<FieldValue>) {
        self.set_field(key, value.into().0);
    }

    #[inline(never)]
    fn set_field(&mut self, key: &str, value: Field) {
        match self.fields.iter_mut().find(|(k, _)| k == key) {
            Some((_, slot)) => *slot = value,
            None => self.push_field(key, value),
        }
    }

    /// `delete object[key]`, giving the value back.
    pub(crate) fn remove(&mut self, key: &str) -> Option<Field> {
        let at = self.fields.iter().position(|(k, _)| k == key)?;
        Some(self.fields.remove(at).1)
    }

    /// A mutable reference to the string at `key`, when it holds one.
    pub(crate) fn text_mut(&mut self, key: &str) -> Option<&mut String> {
        self.fields.iter_mut().find(|(k, _)| k == key).and_then(|(_, value)| match value {
            Field::Text(text) => Some(text),
            _ => None,
        })
    }

    /// The keys and values, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Field)> {
        self.fields.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The object with `known` keys first, in that order (those that are there), then the others in
    /// theirs: the order in which the AI SDK's chunk schema hands a parsed chunk on.
    pub(crate) fn in_schema_order(mut self, known: &[&str]) -> Object {
        let mut fields = Vec::with_capacity(self.fields.len());
        for key in known {
            if let Some(at) = self.fields.iter().position(|(k, _)| k == key) {
                fields.push(self.fields.remove(at));
            }
        }
        fields.append(&mut self.fields);
        Object { fields }
    }

    /// Appends the object's JSON text, its `undefined` keys left out.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        self.write_json_with(out, |_, _| false);
    }

    /// [`Object::write_json`], `special` writing a key's value itself when it returns `true`.
    pub(crate) fn write_json_with(&self, out: &mut Vec<u8>, mut special: impl FnMut(&str, &mut Vec<u8>) -> bool) {
        out.push(b'{');
        let mut first = true;
        for (key, value) in &self.fields {
            if matches!(value, Field::Undefined) {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            write_str(out, key);
            out.push(b':');
            if !special(key, out) {
                value.write_json(out);
            }
        }
        out.push(b'}');
    }

    /// The object's JSON text.
    pub(crate) fn to_json(&self) -> String {
        let mut out = Vec::new();
        self.write_json(&mut out);
        into_string(out)
    }
}

/// What [`Object::set`] takes: a [`Field`], or a string.
pub(crate) struct FieldValue(Field);

impl From<Field> for FieldValue {
    fn from(field: Field) -> FieldValue {
        FieldValue(field)
    }
}

impl From<&str> for FieldValue {
    fn from(text: &str) -> FieldValue {
        FieldValue(Field::from(text))
    }
}

impl From<String> for FieldValue {
    fn from(text: String) -> FieldValue {
        FieldValue(Field::Text(text))
    }
}

/// A string quoted for an error message, as JSON writes it: `"a \"b\""`. Not Rust's `{:?}`, whose
/// escaping (with the Unicode tables it reads) is about 3 KB of the AI SDK entry's module (twiggy),
/// for messages that read the same.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = Vec::new();
    write_str(&mut out, text);
    into_string(out)
}

/// The text written (valid UTF-8: strings and JSON text only go in).
pub(crate) fn into_string(out: Vec<u8>) -> String {
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::quoted;

    /// Strings come out as serde_json (and `JSON.stringify`) write them: every control character,
    /// quotes, backslashes, and text beyond ASCII.
    #[test]
    fn a_string_is_written_as_serde_json_writes_it() {
        let every_control: String = (0u8..0x20).map(char::from).collect();
        let texts = [every_control.as_str(), "", "plain", "a\"b\\c/d", "café ☕ 😀\u{7f}\u{2028}", "\\\"\n"];
        for text in texts {
            assert_eq!(quoted(text), serde_json::to_string(text).unwrap(), "{text:?}");
        }
        assert_eq!(quoted("\u{1}\t\u{1f}"), r#""\u0001\t\u001f""#);
    }
}
