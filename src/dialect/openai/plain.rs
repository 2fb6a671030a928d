//! The text and reasoning of a plain OpenAI chunk, read with the checking scanner
//! ([`super::super::scan`]).
//!
//! Nearly every chunk of a long answer has one shape: one choice, index 0, a delta with
//! `content` and, from reasoning models, `reasoning_content` (DeepSeek, vLLM) or `reasoning`
//! (Groq, OpenRouter), each a string or `null` (and maybe `role`, or a `null` `refusal`); no
//! finish, no usage, no error. `Some` exactly when the general path would read the chunk as that
//! text and reasoning and nothing else; `None` for anything else.

use std::borrow::Cow;

use crate::dialect::scan::{Reader, Seen, Taken};

/// Where [`plain`] puts each string it takes.
pub(super) const CONTENT: usize = 0;
pub(super) const REASONING_CONTENT: usize = 1;
pub(super) const REASONING: usize = 2;

/// The strings of `data` (by [`CONTENT`], [`REASONING_CONTENT`], [`REASONING`]) if it is a
/// plain chunk; `None` for any other chunk.
#[cfg(test)]
pub(super) fn plain_chunk(data: &str) -> Option<Taken<'_, 3>> {
    crate::dialect::scan::scan(data, plain).map(|((), taken)| taken)
}

/// A plain chunk, its strings taken; `None` for any other chunk.
pub(in crate::dialect) fn plain<'a>(r: &mut Reader<'a>) -> Option<((), Taken<'a, 3>)> {
    let mut taken = [const { None }; 3];
    // Beside the text, a `role` only.
    let mut role = Seen::default();
    let mut plain_delta = |r: &mut Reader<'a>, key: &[u8], _: &mut Taken<'a, 3>| {
        (key == b"role").then_some(())?;
        role.once(0)?;
        r.skip_value(2)
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
/// first chunk says so; a refusal's text is the general path's). Other fields go to `other`.
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
        string_or_null(r, slot, taken)
    })
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
}
