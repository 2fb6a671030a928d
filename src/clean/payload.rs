//! Payload markers (`SUGGESTED_VALUES:`, `SUGGESTED_ACTIONS:`, registered custom ones) and the
//! balanced-bracket scan that finds where their JSON ends.
//!
//! An agent backend pulls `SUGGESTED_VALUES: [...]`,
//! `SUGGESTED_ACTIONS: [...]` and each page's `parse_marker` (`SCHEMA_PROPOSAL: {...}`) out of the
//! model's text; a custom one becomes `custom_payload: {type, data}`. Here the same happens while
//! the text streams, so the JSON's end must be found without a parser: brackets are counted
//! outside strings, and a string's brackets and escaped quotes do not count.

use serde_json::{Map, Value};

use super::CleanOptions;

/// Where a payload lands in `complete.payload`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PayloadKind {
    SuggestedValues,
    SuggestedActions,
    /// A registered marker: `custom_payload: {type, data}` with this type name.
    Custom(String),
}

impl PayloadKind {
    /// The `complete.payload` field it fills (also the `field` of its diagnostics).
    pub(crate) fn field(&self) -> &'static str {
        match self {
            PayloadKind::SuggestedValues => "suggested_values",
            PayloadKind::SuggestedActions => "suggested_actions",
            PayloadKind::Custom(_) => "custom_payload",
        }
    }

    /// The value stored in that field for the parsed JSON.
    pub(crate) fn wrap(&self, data: Value) -> Value {
        match self {
            PayloadKind::Custom(type_name) => {
                // Built by hand: `json!` expands to a serializer run over each field.
                let mut wrapped = Map::new();
                wrapped.insert("type".to_owned(), Value::String(type_name.clone()));
                wrapped.insert("data".to_owned(), data);
                Value::Object(wrapped)
            }
            _ => data,
        }
    }
}

/// The markers to look for, built-in ones first.
pub(crate) fn payload_markers(options: &CleanOptions) -> Vec<(String, PayloadKind)> {
    let mut markers = vec![
        ("SUGGESTED_VALUES:".to_owned(), PayloadKind::SuggestedValues),
        ("SUGGESTED_ACTIONS:".to_owned(), PayloadKind::SuggestedActions),
    ];
    for custom in options.payload_markers.iter() {
        if !custom.marker.is_empty() {
            markers.push((custom.marker.to_string(), PayloadKind::Custom(custom.type_name.to_string())));
        }
    }
    markers
}

/// Most bytes of JSON held for one payload before it is given up as malformed and released.
pub(crate) const MAX_PAYLOAD_BYTES: usize = 256 * 1024;

/// Most whitespace allowed between a marker and its JSON.
pub(crate) const MAX_GAP_BYTES: usize = 64;

/// Finds the end of one JSON array or object fed in pieces, keeping its text.
///
/// Brackets of either kind are counted together; a mismatched pair still closes the value and
/// the JSON reader then refuses it, so malformed JSON is never mistaken for a longer payload.
#[derive(Debug, Default)]
pub(crate) struct BalancedJson {
    pub(crate) raw: String,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl BalancedJson {
    /// Appends as much of `s` as belongs to the value. `Some(n)`: the value closed after the first
    /// `n` bytes of `s`; `None`: all of `s` was taken and the value is still open.
    pub(crate) fn feed(&mut self, s: &str) -> Option<usize> {
        for (i, b) in s.bytes().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'[' | b'{' => self.depth += 1,
                b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.raw.push_str(&s[..=i]);
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        self.raw.push_str(s);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_inside_strings_and_escapes_do_not_count() {
        let mut json = BalancedJson::default();
        let s = r#"[{"label": "a]}\"]", "v": [1, [2]]}] tail"#;
        let end = json.feed(s).unwrap();
        assert_eq!(&s[end..], " tail");
        assert!(serde_json::from_str::<Value>(&json.raw).is_ok());
    }

    #[test]
    fn split_anywhere_gives_the_same_end() {
        let s = r#"{"a": "x\\", "b": ["}", "\""]}!"#;
        // Every cut inside the value (the last byte closes it).
        for cut in 1..s.len() - 1 {
            let mut json = BalancedJson::default();
            assert_eq!(json.feed(&s[..cut]), None, "cut {cut}");
            let end = json.feed(&s[cut..]).unwrap();
            assert_eq!(&s[cut + end..], "!");
            assert_eq!(json.raw, &s[..s.len() - 1]);
        }
    }
}
