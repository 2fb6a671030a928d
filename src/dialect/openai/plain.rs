//! The text and reasoning of a plain OpenAI chunk, read with the checking scanner
//! ([`super::super::scan`]).
//!
//! Nearly every chunk of a long answer has one shape: one choice, index 0, a delta with
//! `content` and, from reasoning models, `reasoning_content` (DeepSeek, vLLM) or `reasoning`
//! (Groq, OpenRouter), each a string or `null` (and maybe `role`, or a `null` `refusal`); no
//! finish, no usage, no error. `Some` exactly when the general path would read the chunk as that
//! text and reasoning and nothing else; `None` for anything else.

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
    let mut taken = None;
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"choices" => {
                seen.once(0)?;
                taken = Some(choices(r)?);
            }
            b"error" | b"usage" => {
                seen.once(if key == b"error" { 1 } else { 2 })?;
                r.null()?;
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
    Some(((), taken?))
}

/// `choices`: one choice, index 0, a plain delta, no finish.
fn choices<'a>(r: &mut Reader<'a>) -> Option<Taken<'a, 3>> {
    r.eat(b'[')?;
    let mut taken = [const { None }; 3];
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
                r.null()?;
            }
            b"delta" => {
                seen.once(2)?;
                let mut delta = Seen::default();
                r.object(|r, key| {
                    let slot = match key {
                        b"content" => CONTENT,
                        b"reasoning_content" => REASONING_CONTENT,
                        b"reasoning" => REASONING,
                        b"role" => {
                            delta.once(3)?;
                            return r.skip_value(2);
                        }
                        // OpenAI's first chunk says `"refusal": null`; a refusal's text is the general path's.
                        b"refusal" => {
                            delta.once(4)?;
                            return r.null();
                        }
                        _ => return None,
                    };
                    delta.once(slot as u32)?;
                    if r.peek()? == b'n' {
                        return r.null();
                    }
                    taken[slot] = Some(r.take(slot)?);
                    Some(())
                })?;
            }
            _ => r.skip_value(1)?,
        }
        Some(())
    })?;
    r.eat(b']')?;
    Some(taken)
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
