//! Partial JSON repair: the best value a tool's input streamed so far allows, as the AI SDK's
//! `parsePartialJson` gives it.

use super::json_reader::json_value;
use super::object::Field;

/// The best value a tool's input so far allows (the AI SDK's `parsePartialJson`): the text as
/// it is when it parses, else the text closed (an open string and the open arrays and objects
/// closed, a literal cut short completed, a number cut short cut back to its last digit, a
/// dangling key, comma or colon dropped); `undefined` when neither parses.
pub(crate) fn partial_json(text: &str) -> Field {
    if let Some(value) = json_value(text) {
        return Field::Json(value.into());
    }
    json_value(&close_json(text)).map_or(Field::Undefined, |value| Field::Json(value.into()))
}

/// `text` with what is open closed, for [`partial_json`].
fn close_json(text: &str) -> String {
    let mut open = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    // Where the text stays valid once closed: before a dangling key, comma, colon or a part
    // of a literal.
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else {
            match c {
                '"' => in_string = true,
                '{' => open.push('}'),
                '[' => open.push(']'),
                '}' | ']' => _ = open.pop(),
                _ => {}
            }
        }
        out.push(c);
    }
    if in_string {
        if escaped {
            out.pop();
        }
        // A `\u` escape cut short: one that begins in the last five bytes (looked for byte by
        // byte: `rfind("\\u")` links the two-way string searcher into the module).
        let tail = out.len().saturating_sub(5);
        if let Some(at) = out.as_bytes()[tail..].windows(2).rposition(|w| w == b"\\u") {
            out.truncate(tail + at);
        }
        out.push('"');
    } else {
        let token_start =
            out.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')).len();
        let token = out[token_start..].to_owned();
        if let Some(word) = ["true", "false", "null"].iter().find(|w| !token.is_empty() && w.starts_with(&token)) {
            out.push_str(&word[token.len()..]);
        } else if token.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
            out.truncate(
                token_start + token.trim_end_matches(|c: char| matches!(c, '+' | '-' | '.' | 'e' | 'E')).len(),
            );
        }
    }
    loop {
        let trimmed = out.trim_end();
        let cut = if trimmed.ends_with(',') || trimmed.ends_with(':') {
            trimmed.len() - 1
        } else if let Some(key) = dangling_key(trimmed, open.last() == Some(&'}')) {
            key
        } else {
            break;
        };
        out.truncate(cut);
    }
    open.iter().rev().for_each(|c| out.push(*c));
    out
}

/// Where a key with no colon after it begins, when the text ends with one inside an object.
fn dangling_key(text: &str, in_object: bool) -> Option<usize> {
    if !in_object || !text.ends_with('"') {
        return None;
    }
    let start = text[..text.len() - 1].rfind('"')?;
    let before = text[..start].trim_end();
    (before.ends_with('{') || before.ends_with(',')).then_some(start)
}
