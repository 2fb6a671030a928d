//! Entry points for the differential fuzz target (fuzz/fuzz_targets/shape.rs) and the tests
//! that share its checks. Only in test builds and in builds with `--cfg fuzzing` (which cargo
//! fuzz sets): [`super::scan`]'s shape cache and the decoders' fast paths are private, and the
//! fuzz crate sees only the public API.

use super::scan::checks::shape_agrees;
pub use super::scan::checks::{set_shape_mode, take_paths, ShapeMode};
use super::{Decoder, Dialect, ProviderEvent};
use crate::framing::FrameRef;

/// For each decoder's fast path: a shape learned from `learned` replays `other` as the fast
/// path itself reads `other`, or declines it. Panics where they disagree; returns how many
/// fast paths replayed `other`.
pub fn shapes_agree(learned: &str, other: &str) -> usize {
    [
        shape_agrees(learned, other, super::openai::plain::plain),
        shape_agrees(learned, other, super::anthropic::text_delta),
        shape_agrees(learned, other, super::agent::text_delta),
        shape_agrees(learned, other, super::ollama::text_line),
        shape_agrees(learned, other, super::openai_responses::text_delta),
        shape_agrees(learned, other, super::ui_message_stream::text_delta),
    ]
    .into_iter()
    .filter(|replayed| *replayed)
    .count()
}

/// The dialects whose decoders learn shapes.
pub const WITH_SHAPES: [Dialect; 6] = [
    Dialect::OpenAi,
    Dialect::Anthropic,
    Dialect::Agent,
    Dialect::Ollama,
    Dialect::OpenAiResponses,
    Dialect::UiMessageStream,
];

/// `frames` through one decoder of `dialect` as a stream does (shapes as built), then again
/// with every frame scanned afresh ([`ShapeMode::Cold`]) and again with no fast path at all
/// ([`ShapeMode::Off`]): the same events each time, runs of text, thinking and one call's
/// arguments merged (a fast path appends text to the text before it, the general path adds an
/// event). Panics where they differ.
pub fn modes_agree(dialect: Dialect, frames: &[FrameRef<'_>]) {
    let run = |mode: ShapeMode| {
        let before = set_shape_mode(mode);
        let mut decoder = Decoder::new(dialect);
        let mut out = Vec::new();
        for frame in frames {
            decoder.decode(*frame, &mut out);
        }
        decoder.finish(&mut out);
        set_shape_mode(before);
        merged(out)
    };
    let warm = run(ShapeMode::Warm);
    assert_eq!(warm, run(ShapeMode::Cold), "{dialect}: warm and cold shapes differ on {frames:?}");
    assert_eq!(warm, run(ShapeMode::Off), "{dialect}: the fast paths and the general paths differ on {frames:?}");
}

/// A text delta of each dialect with shapes: `{a}` where its text goes, `{b}` where another
/// value goes that its fast path skips or takes (and the general path reads or ignores).
pub const TEMPLATES: [(Dialect, &str); 6] = [
    (
        Dialect::OpenAi,
        r#"{"id":{b},"object":"chat.completion.chunk","created":17,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":{a}},"logprobs":null,"finish_reason":null}],"usage":null}"#,
    ),
    (
        Dialect::Anthropic,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":{a},"signature":{b}}}"#,
    ),
    (Dialect::Agent, r#"{"type":"text_delta","text":{a},"seq":{b}}"#),
    (
        Dialect::Ollama,
        r#"{"model":"m","created_at":"t","message":{"role":"assistant","content":{a},"thinking":{b}},"done":false}"#,
    ),
    (Dialect::OpenAiResponses, r#"{"type":"response.output_text.delta","item_id":{b},"output_index":0,"delta":{a}}"#),
    (Dialect::UiMessageStream, r#"{"type":"text-delta","id":{b},"delta":{a}}"#),
];

/// [`TEMPLATES`]' `template` with `a` and `b` in their places.
pub fn fill(template: &str, a: &str, b: &str) -> String {
    template.replace("{a}", a).replace("{b}", b)
}

fn merged(events: Vec<ProviderEvent>) -> Vec<ProviderEvent> {
    let mut out = Vec::with_capacity(events.len());
    let mut run = None;
    for event in events {
        if let Some(event) = super::extend_run(&mut run, event) {
            out.extend(run.replace(event));
        }
    }
    out.extend(run);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::scan::checks::shapes_agree as replays_agree;
    use crate::dialect::test_support::{distinct, recorded_frames};
    use crate::framing::{Frame, FrameDecoder};

    /// Every fixture stream (ours and the recorded ones) of a dialect with shapes: the same
    /// events warm, cold and without fast paths.
    #[test]
    fn fixture_streams_read_alike_warm_cold_and_without_fast_paths() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut streams = 0;
        for dialect in WITH_SHAPES {
            for dir in [root.join(dialect.name()), root.join("recorded").join(dialect.name())] {
                for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                    let Ok(bytes) = std::fs::read(entry.path()) else { continue };
                    let mut decoder = FrameDecoder::new(dialect.framing(), usize::MAX);
                    let mut frames: Vec<Frame> = Vec::new();
                    let _ = decoder.push(&bytes, &mut frames);
                    decoder.finish(&mut frames);
                    modes_agree(dialect, &frames.iter().map(Frame::as_ref).collect::<Vec<_>>());
                    streams += 1;
                }
            }
        }
        assert!(streams > 50, "only {streams} streams");
    }

    /// The frames of `dialect`'s fixtures and recordings: SSE events' data, or NDJSON lines.
    fn frames_of(dialect: Dialect) -> Vec<String> {
        if dialect != Dialect::Ollama {
            return recorded_frames(dialect.name());
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut lines = Vec::new();
        for dir in [root.join("tests/fixtures/ollama"), root.join("tests/fixtures/recorded/ollama")] {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                lines.extend(std::fs::read_to_string(entry.path()).unwrap_or_default().lines().map(str::to_owned));
            }
        }
        lines
    }

    /// Every fast path that learns shapes, on its dialect's frames: learned from each frame, the
    /// shape reads every frame and every one-byte edit of the learned one as the fast path does,
    /// or leaves it to the fast path; and it reads enough of them to show the check had work.
    #[test]
    fn every_learned_shape_reads_frames_as_its_fast_path_does() {
        let fast_paths: [(Dialect, fn(&[&str]) -> usize); 6] = [
            (Dialect::OpenAi, |frames| replays_agree(frames, super::super::openai::plain::plain)),
            (Dialect::Anthropic, |frames| replays_agree(frames, super::super::anthropic::text_delta)),
            (Dialect::Agent, |frames| replays_agree(frames, super::super::agent::text_delta)),
            (Dialect::Ollama, |frames| replays_agree(frames, super::super::ollama::text_line)),
            (Dialect::OpenAiResponses, |frames| replays_agree(frames, super::super::openai_responses::text_delta)),
            (Dialect::UiMessageStream, |frames| replays_agree(frames, super::super::ui_message_stream::text_delta)),
        ];
        assert_eq!(fast_paths.map(|(dialect, _)| dialect), WITH_SHAPES);
        // Each on a thread of its own: every frame's edits make it long.
        std::thread::scope(|threads| {
            for (dialect, agree) in fast_paths {
                threads.spawn(move || {
                    let frames = frames_of(dialect);
                    let read = agree(&distinct(&frames));
                    assert!(read > 100, "{dialect}: the shape read only {read} frames");
                });
            }
        });
    }
}

#[cfg(test)]
mod hostile {
    use super::*;

    /// What goes where a text does: strings with escapes, backslashes and quotes at their ends,
    /// the bytes that follow the hole, multi-byte characters, and values that are not strings.
    const HOLES: [&str; 30] = [
        r#""""#,
        r#""a""#,
        r#""\"""#,
        r#""\\""#,
        r#""a\\""#,
        r#""\\\"""#,
        r#""\u0000""#,
        r#""\u00e9\u20AC""#,
        r#""\ud83d\ude00""#,
        r#""\ud83d""#,
        r#""\udc00""#,
        r#""\/\b\f\n\r\t""#,
        r#""\x""#,
        r#""\u12""#,
        r#""é€😀""#,
        r#""},"x":""#,
        r#""\"},\"x\":\"""#,
        r#""}]}""#,
        r#""a" "#,
        r#" "a""#,
        "\"\u{7f}\"",
        "\"\t\"",
        "\"a",
        "\"a\"\"",
        "0",
        "-1.5",
        "1e5",
        "null",
        "{}",
        "[\"a\"]",
    ];

    /// Each dialect's text delta learned with every hole content, then every other one read:
    /// replay agrees with the fast path's scan, and streams of them read alike warm, cold and
    /// without fast paths.
    #[test]
    fn hostile_texts_read_alike_warm_cold_and_without_fast_paths() {
        let mut replayed = 0;
        for (dialect, template) in TEMPLATES {
            let texts = HOLES.iter().map(|hole| fill(template, hole, r#""b""#));
            let others = HOLES.iter().map(|hole| fill(template, r#""a""#, hole));
            let frames: Vec<String> = texts.chain(others).collect();
            for learned in &frames {
                for other in &frames {
                    replayed += shapes_agree(learned, other);
                    modes_agree(dialect, &[learned, other, other, learned].map(|f| FrameRef::data(f)));
                }
            }
        }
        assert!(replayed > 1000, "only {replayed} replays");
    }
}
