//! The text and reasoning of a plain OpenAI chunk, read with the checking scanner
//! ([`super::super::scan`]).
//!
//! Nearly every chunk of a long answer has one shape: one choice, index 0, a delta with
//! `content` and, from reasoning models, `reasoning_content` (DeepSeek, vLLM) or `reasoning`
//! (Groq, OpenRouter), each a string or `null` (and maybe `role`, or a `null` `refusal`); no
//! finish, no usage, no error. Mistral's `content` may instead be an array of at most one part,
//! a text part or a thinking part. `Some` exactly when the general path would read the chunk as
//! that text and reasoning and nothing else; `None` for anything else.

use std::borrow::Cow;

use crate::dialect::scan::{Reader, Seen, Taken};

/// Where [`plain`] puts each string it takes.
pub(super) const CONTENT: usize = 0;
pub(super) const REASONING_CONTENT: usize = 1;
pub(super) const REASONING: usize = 2;
/// The text of a thinking part of Mistral's `content` array (a text part's goes to [`CONTENT`]).
pub(super) const THINKING_PART: usize = 3;

/// The strings of `data` (by [`CONTENT`], [`REASONING_CONTENT`], [`REASONING`],
/// [`THINKING_PART`]) if it is a plain chunk; `None` for any other chunk.
#[cfg(test)]
pub(super) fn plain_chunk(data: &str) -> Option<Taken<'_, 4>> {
    crate::dialect::scan::scan(data, plain).map(|((), taken)| taken)
}

/// A plain chunk, its strings taken; `None` for any other chunk.
pub(in crate::dialect) fn plain<'a>(r: &mut Reader<'a>) -> Option<((), Taken<'a, 4>)> {
    let mut taken = [const { None }; 4];
    // Beside the text, a `role` only.
    let mut role = Seen::default();
    let mut plain_delta = |r: &mut Reader<'a>, key: &[u8], taken: &mut Taken<'a, 4>| match key {
        b"content" => content_parts(r, taken),
        b"role" => {
            role.once(0)?;
            r.skip_value(2)
        }
        _ => None,
    };
    chunk(
        r,
        |r| choice(r, |r| delta(r, &mut taken, &mut plain_delta)).filter(Option::is_none).map(drop),
        Reader::null,
    )?;
    Some(((), taken))
}

/// A chunk's top level, which every fast path of Chat Completions reads alike: `choices` by
/// `choices`, `usage` by `usage`; a non-null `error`, an `object` of `"error"` or one of these
/// fields twice refused, the other fields skipped. `None` without `choices`.
pub(super) fn chunk<'a>(
    r: &mut Reader<'a>,
    mut choices: impl FnMut(&mut Reader<'a>) -> Option<()>,
    mut usage: impl FnMut(&mut Reader<'a>) -> Option<()>,
) -> Option<()> {
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"choices" => {
                seen.once(0)?;
                choices(r)?;
            }
            b"error" => {
                seen.once(1)?;
                r.null()?;
            }
            b"usage" => {
                seen.once(2)?;
                usage(r)?;
            }
            b"object" => {
                seen.once(3)?;
                if r.string()? == "error" {
                    return None;
                }
            }
            _ => r.skip_value(0)?,
        }
        Some(())
    })?;
    seen.once(0).is_none().then_some(())
}

/// `choices`: one choice, index 0, its delta read by `delta`; its `finish_reason`, `None` for
/// `null`.
pub(super) fn choice<'a>(
    r: &mut Reader<'a>,
    mut delta: impl FnMut(&mut Reader<'a>) -> Option<()>,
) -> Option<Option<Cow<'a, str>>> {
    r.eat(b'[')?;
    let mut finish = None;
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"index" => {
                seen.once(0)?;
                // `0` alone: `0.0`, `-0` and `0e0` are the general path's business.
                (r.u64()? == 0).then_some(())?;
            }
            b"finish_reason" => {
                seen.once(1)?;
                if r.peek()? == b'n' {
                    r.null()?;
                } else {
                    finish = Some(r.string()?);
                }
            }
            b"delta" => {
                seen.once(2)?;
                delta(r)?;
            }
            _ => r.skip_value(1)?,
        }
        Some(())
    })?;
    r.eat(b']')?;
    Some(finish)
}

/// A delta's text, which every fast path reads alike: `content`, `reasoning_content` and
/// `reasoning`, each a string (taken in its slot) or `null`, and a `null` `refusal` (OpenAI's
/// first chunk says so; a refusal's text is the general path's). Other fields, and a `content`
/// that is an array, go to `other`.
pub(super) fn delta<'a, const N: usize>(
    r: &mut Reader<'a>,
    taken: &mut Taken<'a, N>,
    mut other: impl FnMut(&mut Reader<'a>, &[u8], &mut Taken<'a, N>) -> Option<()>,
) -> Option<()> {
    let mut seen = Seen::default();
    r.object(|r, key| {
        let slot = match key {
            b"content" => CONTENT,
            b"reasoning_content" => REASONING_CONTENT,
            b"reasoning" => REASONING,
            b"refusal" => {
                seen.once(3)?;
                return r.null();
            }
            _ => return other(r, key, taken),
        };
        seen.once(slot as u32)?;
        if slot == CONTENT && r.peek()? == b'[' {
            return other(r, key, taken);
        }
        string_or_null(r, slot, taken)
    })
}

/// Mistral's `content` array of at most one part, as the general path reads it: a text part
/// (`{"type":"text","text"}`, its text in [`CONTENT`]) or a thinking part
/// (`{"type":"thinking","thinking":[{"type":"text","text"}]}`, at most one inner item, its text
/// in [`THINKING_PART`]), each text a string or `null`, their other fields skipped. The part's
/// `type` is compared, so it is part of a learned shape. Anything else (several parts, another
/// type, a text part with `thinking` or a thinking part with `text`) is left to the general path.
fn content_parts<'a>(r: &mut Reader<'a>, taken: &mut Taken<'a, 4>) -> Option<()> {
    r.eat(b'[')?;
    if r.eat(b']').is_some() {
        return Some(());
    }
    let mut kind = None;
    let mut seen = Seen::default();
    r.object(|r, key| match key {
        b"type" => {
            seen.once(0)?;
            kind = Some(r.string()?);
            Some(())
        }
        b"text" => {
            seen.once(1)?;
            string_or_null(r, CONTENT, taken)
        }
        b"thinking" => {
            seen.once(2)?;
            thinking_items(r, taken)
        }
        _ => r.skip_value(4),
    })?;
    match kind.as_deref()? {
        "text" => seen.once(2)?,
        "thinking" => seen.once(1)?,
        _ => return None,
    }
    r.eat(b']')
}

/// A thinking part's `thinking`: `[]` or one item whose `text` (a string or `null`) is taken in
/// [`THINKING_PART`], its other fields skipped.
fn thinking_items<'a>(r: &mut Reader<'a>, taken: &mut Taken<'a, 4>) -> Option<()> {
    r.eat(b'[')?;
    if r.eat(b']').is_some() {
        return Some(());
    }
    let mut seen = Seen::default();
    r.object(|r, key| {
        if key != b"text" {
            return r.skip_value(6);
        }
        seen.once(0)?;
        string_or_null(r, THINKING_PART, taken)
    })?;
    r.eat(b']')
}

/// A string, taken in `slot`, or `null`.
pub(super) fn string_or_null<'a, const N: usize>(
    r: &mut Reader<'a>,
    slot: usize,
    taken: &mut Taken<'a, N>,
) -> Option<()> {
    if r.peek()? == b'n' {
        return r.null();
    }
    taken[slot] = Some(r.take(slot)?);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text a plain chunk gives, or `None` for a chunk the fast path leaves alone.
    fn text(data: &str) -> Option<String> {
        plain_chunk(data).map(|taken| taken[CONTENT].as_deref().unwrap_or_default().to_owned())
    }

    #[test]
    fn only_plain_chunks_are_read() {
        let plain = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"Hi \"there\""},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        assert_eq!(text(plain).as_deref(), Some("Hi \"there\""));
        assert_eq!(text(r#"{"choices":[{"delta":{"role":"assistant","content":""}}]}"#).as_deref(), Some(""));
        assert_eq!(
            text(r#"{"choices":[{"index":0,"delta":{"content":"x","reasoning_content":null}}]}"#).as_deref(),
            Some("x")
        );
        assert_eq!(text(r#"{"choices":[{"index":0,"delta":{"content":null}}]}"#).as_deref(), Some(""));
        for other in [
            r#"{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1}}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x","reasoning_details":[]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x","refusal":"no"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x","tool_calls":[]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning":1}}]}"#,
            r#"{"choices":[{"index":1,"delta":{"content":"x"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x"}},{"index":1,"delta":{"content":"y"}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1}}"#,
            r#"{"error":{"message":"boom"},"choices":[{"index":0,"delta":{"content":"x"}}]}"#,
            r#"{"object":"error","choices":[{"index":0,"delta":{"content":"x"}}]}"#,
        ] {
            assert!(plain_chunk(other).is_none(), "{other}");
        }
    }

    /// DeepSeek's and Groq's reasoning chunks, text or reasoning beside a `null`, take the fast path.
    #[test]
    fn reasoning_chunks_are_read() {
        let deepseek = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"deepseek-reasoner","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"We"},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        let taken = plain_chunk(deepseek).expect("read");
        assert_eq!((taken[CONTENT].as_deref(), taken[REASONING_CONTENT].as_deref()), (None, Some("We")));
        let groq = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning":" the"},"logprobs":null,"finish_reason":null}]}"#;
        assert_eq!(plain_chunk(groq).expect("read")[REASONING].as_deref(), Some(" the"));
    }

    /// Mistral's content parts (frames of its recording): one thinking or one text part takes
    /// the fast path; several parts, another type, or a part with the other kind's field do not.
    #[test]
    fn content_parts_are_read() {
        let thinking = r#"{"id":"a4e29c5b82f94d67b23e108a7c9df6e1","object":"chat.completion.chunk","created":1769088912,"model":"magistral-medium-2507","choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"The user is asking"}]}]},"finish_reason":null}]}"#;
        let taken = plain_chunk(thinking).expect("read");
        assert_eq!((taken[CONTENT].as_deref(), taken[THINKING_PART].as_deref()), (None, Some("The user is asking")));
        let text = r#"{"id":"a4e29c5b82f94d67b23e108a7c9df6e1","object":"chat.completion.chunk","created":1769088912,"model":"magistral-medium-2507","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"2 + 2 = 4"}]},"finish_reason":null}]}"#;
        let taken = plain_chunk(text).expect("read");
        assert_eq!((taken[CONTENT].as_deref(), taken[THINKING_PART].as_deref()), (Some("2 + 2 = 4"), None));
        for other in [
            r#"{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":[{"type":"image_url","text":"a"}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":[{"text":"a"}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"a","thinking":[]}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":[{"type":"thinking","text":"a","thinking":[]}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"text":"a"},{"text":"b"}]}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"text":"a","text":"b"}]}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":1}]}}]}"#,
        ] {
            assert!(plain_chunk(other).is_none(), "{other}");
        }
    }
}
