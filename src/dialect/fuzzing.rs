//! Entry points for the differential fuzz target (fuzz/fuzz_targets/shape.rs) and the tests
//! that share its checks. Only in test builds and in builds with `--cfg fuzzing` (which cargo
//! fuzz sets): [`super::scan`]'s shape cache and the decoders' fast paths are private, and the
//! fuzz crate sees only the public API.

use super::scan::checks::shape_agrees;
#[cfg(test)]
use super::scan::checks::shapes_agree as replays_agree;
pub use super::scan::checks::{set_shape_mode, take_paths, ShapeMode};
#[cfg(test)]
use super::test_support::same_as_general;
use super::{agent, anthropic, gemini, ollama, openai, openai_responses, ui_message_stream};
#[cfg(test)]
use super::{
    AgentDecoder, AnthropicDecoder, DialectDecoder, GeminiDecoder, OllamaDecoder, OpenAiDecoder,
    OpenAiResponsesDecoder, UiMessageStreamDecoder,
};
use super::{Decoder, Dialect, ProviderEvents};
use crate::framing::FrameRef;

/// A decoder's fast path: the frames it reads go around the decoder's general path, which must
/// read them the same.
struct FastPath {
    /// The dialect whose decoder has it.
    dialect: Dialect,
    /// [`shape_agrees`] with the fast path's scanner; `None` where the fast path learns no shape.
    shape_agrees: Option<fn(&str, &str) -> bool>,
    /// Whether the fast path reads a frame's data; where it does, asserts that the decoder given
    /// it ends with the events and the state its general path gives.
    #[cfg(test)]
    general_agrees: fn(&str) -> bool,
    /// `scan::checks::shapes_agree` with the fast path's scanner, where it learns shapes.
    #[cfg(test)]
    replays_agree: Option<fn(&[&str]) -> usize>,
    /// Frames it reads, whose one-byte edits are held to the general path too.
    #[cfg(test)]
    edited: &'static [&'static str],
    /// At least how many frames of the dialect's fixtures and recordings it reads.
    #[cfg(test)]
    recorded: usize,
}

/// Every decoder's fast path.
const FAST_PATHS: [FastPath; 11] = [
    FastPath {
        dialect: Dialect::OpenAi,
        shape_agrees: Some(|learned, other| shape_agrees(learned, other, openai::plain::plain)),
        #[cfg(test)]
        general_agrees: |data| {
            same_as_general(data, data.trim(), openai::plain::plain, OpenAiDecoder::default, |d, out| {
                d.decode_chunk(data.trim(), out)
            })
        },
        #[cfg(test)]
        replays_agree: Some(|frames| replays_agree(frames, openai::plain::plain)),
        #[cfg(test)]
        edited: &[
            r#"{"id":"c","object":"chat.completion.chunk","created":17,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a\"b\u00e9"},"logprobs":{"content":[1.5,-2,true,false,null,{}]},"finish_reason":null}],"usage":null}"#,
            r#" { "choices" : [ { "delta" : { "content" : "x y" } , "index" : 0 } ] , "error" : null } "#,
            r#"{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"a\u00e9","reasoning":"b"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"b","content":"c","refusal":null}}]}"#,
            r#"{"id":"a4","object":"chat.completion.chunk","created":17,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"a\"b\u00e9"}]}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning":"r","content":[{"type":"text","text":"2 + 2","x":[1,{}]}]},"finish_reason":null}]}"#,
            r#" { "choices" : [ { "delta" : { "content" : [ { "thinking" : [ { "text" : null , "type" : "text" } ] , "type" : "thinking" } ] } } ] } "#,
            r#"{"choices":[{"index":0,"delta":{"content":"a\ud83d\ude00b\u00e9"},"finish_reason":null}]}"#,
        ],
        #[cfg(test)]
        recorded: 50,
    },
    FastPath {
        dialect: Dialect::OpenAi,
        shape_agrees: Some(|learned, other| shape_agrees(learned, other, openai::tools::chunk)),
        #[cfg(test)]
        general_agrees: |data| {
            // The call at index 0 started.
            let open = || {
                after::<OpenAiDecoder>(&[
                    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"f","arguments":""}}]}}]}"#,
                ])
            };
            same_as_general(data, data.trim(), openai::tools::chunk, open, |d, out| d.decode_chunk(data.trim(), out))
        },
        #[cfg(test)]
        replays_agree: Some(|frames| replays_agree(frames, openai::tools::chunk)),
        #[cfg(test)]
        edited: &[
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\u00e9"}}]},"logprobs":null,"finish_reason":null}],"usage":null}"#,
            r#"{"id":"b","choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"id":"g","function":{"name":"weather","arguments":"{\"x\": 1}"}}]},"finish_reason":"tool_calls","logprobs":null}],"usage":{"prompt_tokens":124,"total_tokens":146,"completion_tokens":22,"prompt_tokens_details":{"cached_tokens":3},"completion_tokens_details":null}}"#,
            r#" { "choices" : [ { "delta" : { "role" : "assistant" , "reasoning_content" : "hm" , "tool_calls" : [ { "index" : 1 , "id" : "a" , "type" : "function" , "function" : { "name" : "f" , "arguments" : "" } } , { "index" : 0 , "id" : null , "function" : null } ] } } ] } "#,
        ],
        #[cfg(test)]
        recorded: 50,
    },
    FastPath {
        dialect: Dialect::Anthropic,
        shape_agrees: Some(|learned, other| shape_agrees(learned, other, anthropic::text_delta)),
        #[cfg(test)]
        general_agrees: |data| {
            // A text block (0), a thinking block (1) and a tool call (2) open.
            let open = || {
                after::<AnthropicDecoder>(&[
                    r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"output_tokens":1}}}"#,
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
                    r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}"#,
                    r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#,
                ])
            };
            same_as_general(data, data, anthropic::text_delta, open, |d, out| d.decode_value(FrameRef::data(data), out))
        },
        #[cfg(test)]
        replays_agree: Some(|frames| replays_agree(frames, anthropic::text_delta)),
        #[cfg(test)]
        edited: &[
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"b\u00e9"}}"#,
            r#" {"index": 1, "delta": {"thinking": "hm", "type": "thinking_delta", "extra": [1.5, {"x": null}]}, "type": "content_block_delta"} "#,
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"q\": 1"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"c2ln"}}"#,
        ],
        #[cfg(test)]
        recorded: 50,
    },
    FastPath {
        dialect: Dialect::Anthropic,
        shape_agrees: None,
        #[cfg(test)]
        general_agrees: |data| {
            // A message and a thinking block (1) open, or nothing yet.
            let open = || {
                after::<AnthropicDecoder>(&[
                    r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"output_tokens":1}}}"#,
                    r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"a"}}"#,
                ])
            };
            same_as_general(data, data, anthropic::envelope, open, |d, out| d.decode_value(FrameRef::data(data), out))
                && same_as_general(data, data, anthropic::envelope, AnthropicDecoder::default, |d, out| {
                    d.decode_value(FrameRef::data(data), out)
                })
        },
        #[cfg(test)]
        replays_agree: None,
        #[cfg(test)]
        edited: &[
            r#"{"type":"message_start","message":{"model":"m","id":"msg_1","type":"message","content":[],"stop_reason":null,"usage":{"input_tokens":18,"cache_creation_input_tokens":0,"cache_read_input_tokens":2,"cache_creation":{"ephemeral_5m_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","category":"cyber","explanation":"a \"b\" \u00e9"}},"usage":{"input_tokens":18,"output_tokens":5}}"#,
            r#" { "index" : 1 , "type" : "content_block_stop" } "#,
            r#"{"type":"message_delta","delta":{"stop_reason":null,"stop_details":null},"usage":null}"#,
            r#"{"type":"ping"}"#,
        ],
        #[cfg(test)]
        recorded: 50,
    },
    FastPath {
        dialect: Dialect::Agent,
        shape_agrees: Some(|learned, other| shape_agrees(learned, other, agent::text_delta)),
        #[cfg(test)]
        general_agrees: |data| {
            same_as_general(data, data.trim(), agent::text_delta, AgentDecoder::default, |d, out| {
                d.decode_value(data.trim(), out)
            })
        },
        #[cfg(test)]
        replays_agree: Some(|frames| replays_agree(frames, agent::text_delta)),
        #[cfg(test)]
        edited: &[
            r#"{"type":"text_delta","text":"a\"b\u00e9 [[tool:0]]"}"#,
            r#" { "text" : "hm" , "extra" : [1.5, {"x": null}, true], "type" : "thinking_delta" } "#,
        ],
        #[cfg(test)]
        recorded: 10,
    },
    FastPath {
        dialect: Dialect::Ollama,
        shape_agrees: Some(|learned, other| shape_agrees(learned, other, ollama::text_line)),
        #[cfg(test)]
        general_agrees: |data| {
            same_as_general(data, data, ollama::text_line, OllamaDecoder::default, |d, out| d.decode_value(data, out))
        },
        #[cfg(test)]
        replays_agree: Some(|frames| replays_agree(frames, ollama::text_line)),
        #[cfg(test)]
        edited: &[
            r#"{"model":"gemma3:4b","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"a\"b\u00e9"},"done":false}"#,
            r#" { "message" : { "thinking" : "hm" , "content" : "" } , "error" : null, "x": [1.5, {}] } "#,
        ],
        #[cfg(test)]
        recorded: 5,
    },
    FastPath {
        dialect: Dialect::OpenAiResponses,
        shape_agrees: Some(|learned, other| shape_agrees(learned, other, openai_responses::delta_event)),
        #[cfg(test)]
        general_agrees: |data| {
            // The function call of item `fc_1` open, its arguments not begun.
            let open = || {
                after::<OpenAiResponsesDecoder>(&[
                    r#"{"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","arguments":"","call_id":"call_1","name":"f"}}"#,
                ])
            };
            same_as_general(data, data.trim(), openai_responses::delta_event, open, |d, out| {
                d.decode_value(FrameRef::data(data), data.trim(), out)
            })
        },
        #[cfg(test)]
        replays_agree: Some(|frames| replays_agree(frames, openai_responses::delta_event)),
        #[cfg(test)]
        edited: &[
            r#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"a\"b\u00e9","sequence_number":7,"logprobs":[]}"#,
            r#" { "delta" : "hm" , "type" : "response.reasoning_summary_text.delta", "summary_index": 0 } "#,
            r#"{"type":"response.function_call_arguments.delta","delta":"{\"city\":\"Par","item_id":"fc_1","output_index":1,"sequence_number":5}"#,
            r#"{"type":"response.function_call_arguments.delta","delta":"\ud83d\ude00\"}","item_id":"fc_1","output_index":1,"sequence_number":6}"#,
        ],
        #[cfg(test)]
        recorded: 5,
    },
    FastPath {
        dialect: Dialect::OpenAiResponses,
        shape_agrees: None,
        #[cfg(test)]
        general_agrees: |data| {
            same_as_general(
                data,
                data.trim(),
                openai_responses::passing_event,
                OpenAiResponsesDecoder::default,
                |d, out| d.decode_value(FrameRef::data(data), data.trim(), out),
            )
        },
        #[cfg(test)]
        replays_agree: None,
        #[cfg(test)]
        edited: &[
            r#"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":17,"status":"in_progress","error":null,"temperature":1.0,"output":[],"tools":[{"type":"function","strict":true,"parameters":{"a":[1,-2.5,true,false]}}],"usage":null,"metadata":{}}}"#,
            r#"{"type":"response.failed","sequence_number":3,"response":{"id":"resp_1","status":"failed","error":{"code":"insufficient_quota","message":"You exceeded \"it\" \u00e9"},"usage":null}}"#,
            r#" { "response" : { "error" : null } , "type" : "response.failed" } "#,
        ],
        #[cfg(test)]
        recorded: 20,
    },
    FastPath {
        dialect: Dialect::UiMessageStream,
        shape_agrees: Some(|learned, other| shape_agrees(learned, other, ui_message_stream::text_delta)),
        #[cfg(test)]
        general_agrees: |data| {
            // The text part `t` and the reasoning part `r` open.
            let open = || {
                after::<UiMessageStreamDecoder>(&[
                    r#"{"type":"text-start","id":"t"}"#,
                    r#"{"type":"reasoning-start","id":"r"}"#,
                ])
            };
            same_as_general(data, data.trim(), ui_message_stream::text_delta, open, |d, out| {
                d.decode_value(data.trim(), out)
            })
        },
        #[cfg(test)]
        replays_agree: Some(|frames| replays_agree(frames, ui_message_stream::text_delta)),
        #[cfg(test)]
        edited: &[
            r#"{"type":"text-delta","id":"t","delta":"a\"b\u00e9"}"#,
            r#" { "delta" : "hm" , "providerMetadata" : {"x": [1.5, null, true]}, "id" : "r", "type" : "reasoning-delta" } "#,
            r#"{"type":"text-delta","id":"new","delta":"x"}"#,
        ],
        #[cfg(test)]
        recorded: 5,
    },
    FastPath {
        dialect: Dialect::Gemini,
        shape_agrees: Some(|learned, other| shape_agrees(learned, other, gemini::plain::plain)),
        #[cfg(test)]
        general_agrees: |data| {
            same_as_general(data, data, gemini::plain::plain, GeminiDecoder::default, |d, out| {
                d.decode_value(data, out)
            })
        },
        #[cfg(test)]
        replays_agree: Some(|frames| replays_agree(frames, gemini::plain::plain)),
        #[cfg(test)]
        edited: &[
            r#"{"candidates":[{"content":{"parts":[{"text":"a\"b\u00e9 ü"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":5,"totalTokenCount":19,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}],"thoughtsTokenCount":5},"modelVersion":"gemini-3-pro-preview","responseId":"bH6L"}"#,
            r#" { "candidates" : [ { "content" : { "role" : "model" , "parts" : [ { "thought" : true , "text" : "x y" } ] } } ] } "#,
            r#"{"candidates":[{"content":{"parts":[{"text":""}]},"safetyRatings":[{"probability":"NEGLIGIBLE"}]}],"usageMetadata":{"toolUsePromptTokenCount":2,"cachedContentTokenCount":1,"promptTokenCount":3}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"."}],"role":"model"},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":9},"responseId":"r"}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":[1,"x\"y"],"b":null},"id":"c1"},"thoughtSignature":"s"}]},"finishReason":"STOP"}],"responseId":"r"}"#,
            r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"read_theme"},"thoughtSignature":"AY8+/9=="}]}}],"usageMetadata":{"trafficType":"PROVISIONED_THROUGHPUT"},"modelVersion":"gemini-3-flash-preview","createTime":"2026-05-04T20:01:02.264968Z","responseId":"_vr4"}"#,
        ],
        #[cfg(test)]
        recorded: 45,
    },
    FastPath {
        dialect: Dialect::Gemini,
        shape_agrees: None,
        #[cfg(test)]
        general_agrees: |data| {
            // A Vertex call streaming its arguments, `$.id` left open.
            let open = || {
                after::<GeminiDecoder>(&[
                    r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}],"responseId":"r"}"#,
                    r#"{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.id","stringValue":"A","willContinue":true}],"willContinue":true}}]}}]}"#,
                ])
            };
            same_as_general(data, data, gemini::plain::plain, open, |d, out| d.decode_value(data, out))
        },
        #[cfg(test)]
        replays_agree: None,
        #[cfg(test)]
        edited: &[
            r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.id","stringValue":"B\u00e9","willContinue":true}],"willContinue":true}}]}}],"usageMetadata":{"trafficType":"PROVISIONED_THROUGHPUT"},"modelVersion":"gemini-3-flash-preview","createTime":"2026-05-04T20:01:02.264968Z","responseId":"_vr4"}"#,
            r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.n[0]","numberValue":-1.5},{"jsonPath":"$.b","boolValue":true},{"jsonPath":"$.z","nullValue":"NULL_VALUE"}]}}]}}]}"#,
            r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]}}],"usageMetadata":{"trafficType":"PROVISIONED_THROUGHPUT"},"modelVersion":"gemini-3-flash-preview","createTime":"2026-05-04T20:01:02.264968Z","responseId":"_vr4"}"#,
            r#"{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"read_screen","willContinue":true},"thoughtSignature":"c2ln"}]}}],"usageMetadata":{"trafficType":"PROVISIONED_THROUGHPUT"},"responseId":"_vr4"}"#,
        ],
        #[cfg(test)]
        recorded: 45,
    },
];

/// For each fast path that learns shapes: a shape learned from `learned` replays `other` as the
/// fast path itself reads `other`, or declines it. Panics where they disagree; returns how many
/// fast paths replayed `other`.
pub fn shapes_agree(learned: &str, other: &str) -> usize {
    FAST_PATHS.iter().filter_map(|path| path.shape_agrees).filter(|agrees| agrees(learned, other)).count()
}

/// The dialects whose decoders learn shapes, each once.
pub fn with_shapes() -> Vec<Dialect> {
    let mut dialects: Vec<Dialect> =
        FAST_PATHS.iter().filter(|path| path.shape_agrees.is_some()).map(|path| path.dialect).collect();
    dialects.dedup();
    dialects
}

/// A decoder of type `D` after `frames`: the state a fast path's frame comes in.
#[cfg(test)]
fn after<D: DialectDecoder + Default>(frames: &[&str]) -> D {
    let mut decoder = D::default();
    for frame in frames {
        decoder.decode(FrameRef::data(frame), &mut ProviderEvents::default());
    }
    decoder
}

/// `frames` through one decoder of `dialect` as a stream does (shapes as built), then again
/// with every frame scanned afresh ([`ShapeMode::Cold`]) and again with no fast path at all
/// ([`ShapeMode::Off`]): the same events each time. Panics where they differ.
pub fn modes_agree(dialect: Dialect, frames: &[FrameRef<'_>]) {
    let run = |mode: ShapeMode| {
        let before = set_shape_mode(mode);
        let mut decoder = Decoder::new(dialect);
        let mut out = ProviderEvents::default();
        for frame in frames {
            decoder.decode(*frame, &mut out);
        }
        decoder.finish(&mut out);
        set_shape_mode(before);
        out
    };
    let warm = run(ShapeMode::Warm);
    assert_eq!(warm, run(ShapeMode::Cold), "{dialect}: warm and cold shapes differ on {frames:?}");
    assert_eq!(warm, run(ShapeMode::Off), "{dialect}: the fast paths and the general paths differ on {frames:?}");
}

/// A text delta of each dialect with shapes (and OpenAI's tool-argument delta): `{a}` where its
/// text goes, `{b}` where another value goes that its fast path skips or takes (and the general
/// path reads or ignores).
pub const TEMPLATES: [(Dialect, &str); 7] = [
    (
        Dialect::OpenAi,
        r#"{"id":{b},"object":"chat.completion.chunk","created":17,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":{a}},"logprobs":null,"finish_reason":null}],"usage":null}"#,
    ),
    (
        Dialect::OpenAi,
        r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":{b},"function":{"arguments":{a}}}]},"finish_reason":null}]}"#,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::test_support::{distinct, edits_read, recorded_frames};
    use crate::framing::{Frame, FrameDecoder};

    /// Every fixture stream (ours and the recorded ones) of a dialect with shapes: the same
    /// events warm, cold and without fast paths.
    #[test]
    fn fixture_streams_read_alike_warm_cold_and_without_fast_paths() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut streams = 0;
        for dialect in with_shapes() {
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

    /// Every fast path on its dialect's frames and on every one-byte edit of the frames its row
    /// names: where it reads one, its decoder ends with the events and the state the general
    /// path gives. It must read its row's frames, and enough of the others to show the check
    /// had work to do.
    #[test]
    fn every_fast_path_reads_frames_as_its_general_path_does() {
        for path in &FAST_PATHS {
            let frames = frames_of(path.dialect);
            let read = frames.iter().filter(|frame| (path.general_agrees)(frame)).count();
            assert!(read >= path.recorded, "{}: the fast path read {read} of {} frames", path.dialect, frames.len());
            let read = edits_read(path.edited, path.general_agrees);
            assert!(read > 100, "{}: the fast path read only {read} edits", path.dialect);
        }
    }

    /// Every fast path that learns shapes, on its dialect's frames: learned from each frame, the
    /// shape reads every frame and every one-byte edit of the learned one as the fast path does,
    /// or leaves it to the fast path; and it reads enough of them to show the check had work.
    #[test]
    fn every_learned_shape_reads_frames_as_its_fast_path_does() {
        let mut replayed: Vec<Dialect> =
            FAST_PATHS.iter().filter(|path| path.replays_agree.is_some()).map(|path| path.dialect).collect();
        replayed.dedup();
        assert_eq!(replayed, with_shapes());
        // Each on a thread of its own: every frame's edits make it long.
        std::thread::scope(|threads| {
            for path in &FAST_PATHS {
                let Some(agree) = path.replays_agree else { continue };
                threads.spawn(move || {
                    let frames = frames_of(path.dialect);
                    let read = agree(&distinct(&frames));
                    assert!(read > 100, "{}: the shape read only {read} frames", path.dialect);
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
