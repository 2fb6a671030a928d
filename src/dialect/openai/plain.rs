//! The text of a plain OpenAI text chunk, read with the checking scanner ([`super::super::scan`]).
//!
//! Nearly every chunk of a long answer has one shape: one choice, index 0, a delta with
//! `content` (and maybe `role`), no finish, no usage, no error. `Some(text)` exactly when the
//! general path would read the chunk as that text and nothing else; `None` for anything else.

use std::borrow::Cow;

use crate::dialect::scan::{Reader, Seen, Taken};

/// The text of `data` if it is a plain text chunk; `None` for any other chunk.
#[cfg(test)]
pub(super) fn plain_text_chunk(data: &str) -> Option<Cow<'_, str>> {
    crate::dialect::scan::scan(data, plain).and_then(|((), [text])| text)
}

/// A plain text chunk, its text taken; `None` for any other chunk.
pub(in crate::dialect) fn plain<'a>(r: &mut Reader<'a>) -> Option<((), Taken<'a, 1>)> {
    let mut text = None;
    let mut seen = Seen::default();
    r.object(|r, key| {
        match key {
            b"choices" => {
                seen.once(0)?;
                text = Some(choices(r)?);
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
    Some(((), [Some(text?)]))
}

/// `choices`: one choice, index 0, a delta with `content` (and maybe `role`), no finish.
fn choices<'a>(r: &mut Reader<'a>) -> Option<Cow<'a, str>> {
    r.eat(b'[')?;
    let mut content = None;
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
                r.object(|r, key| match key {
                    b"content" => {
                        delta.once(0)?;
                        content = Some(r.take(0)?);
                        Some(())
                    }
                    b"role" => {
                        delta.once(1)?;
                        r.skip_value(2)
                    }
                    _ => None,
                })?;
            }
            _ => r.skip_value(1)?,
        }
        Some(())
    })?;
    r.eat(b']')?;
    content
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::test_support::{distinct, edits_read, recorded_frames};
    use crate::dialect::{OpenAiDecoder, ProviderEvent};

    #[test]
    fn a_learned_shape_reads_chunks_as_the_fast_path_does() {
        let frames = recorded_frames("openai");
        let read = crate::dialect::scan::shapes_agree(&distinct(&frames), plain);
        assert!(read > 100, "the shape read only {read} chunks");
    }

    #[test]
    fn only_plain_text_chunks_are_read() {
        let plain = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"Hi \"there\""},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        assert_eq!(plain_text_chunk(plain).as_deref(), Some("Hi \"there\""));
        assert_eq!(
            plain_text_chunk(r#"{"choices":[{"delta":{"role":"assistant","content":""}}]}"#).as_deref(),
            Some("")
        );
        for other in [
            r#"{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1}}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x","reasoning_content":null}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":null}}]}"#,
            r#"{"choices":[{"index":1,"delta":{"content":"x"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"x"}},{"index":1,"delta":{"content":"y"}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1}}"#,
            r#"{"error":{"message":"boom"},"choices":[{"index":0,"delta":{"content":"x"}}]}"#,
            r#"{"object":"error","choices":[{"index":0,"delta":{"content":"x"}}]}"#,
        ] {
            assert_eq!(plain_text_chunk(other), None, "{other}");
        }
    }

    /// What the general path makes of one chunk.
    fn general(data: &str) -> Vec<ProviderEvent> {
        let mut out = Vec::new();
        OpenAiDecoder::default().decode_chunk(data, &mut out);
        out
    }

    /// Wherever this reader answers, the general path gives the same text and nothing else.
    fn agrees(data: &str) {
        if let Some(text) = plain_text_chunk(data) {
            let expected = if text.is_empty() { vec![] } else { vec![ProviderEvent::Text(text.into_owned())] };
            assert_eq!(general(data), expected, "{data:?}");
        }
    }

    #[test]
    fn agrees_with_the_general_path_on_every_recorded_chunk() {
        let frames = recorded_frames("openai");
        assert!(frames.len() > 50, "only {} chunks read", frames.len());
        frames.iter().for_each(|frame| agrees(frame.trim()));
    }

    /// Whatever this reader accepts among the one-byte edits of plain chunks, the general path
    /// reads the same.
    #[test]
    fn agrees_with_the_general_path_on_every_one_byte_edit() {
        let chunks = [
            r#"{"id":"c","object":"chat.completion.chunk","created":17,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a\"b\u00e9"},"logprobs":{"content":[1.5,-2,true,false,null,{}]},"finish_reason":null}],"usage":null}"#,
            r#" { "choices" : [ { "delta" : { "content" : "x y" } , "index" : 0 } ] , "error" : null } "#,
        ];
        let agrees = |chunk: &str| {
            agrees(chunk);
            plain_text_chunk(chunk).is_some()
        };
        let read = edits_read(&chunks, agrees);
        // Edits inside skipped values and text keep the chunk plain: the check had work to do.
        assert!(read > 100, "only {read} edits were read");
    }
}
