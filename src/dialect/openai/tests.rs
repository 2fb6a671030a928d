//! The Chat Completions decoder's tests: every chunk, reasoning, tool-call and error shape.

use super::*;
use crate::dialect::test_support::{delta, end, finish, start, text, thinking};

fn decode(frames: &[&str]) -> Vec<ProviderEvent> {
    crate::dialect::test_support::decode::<OpenAiDecoder>(frames)
}

#[test]
fn content_finish_usage_done() {
    let events = decode(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}],"usage":null}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}],"usage":null}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":0}}}"#,
        "[DONE]",
        r#"{"choices":[{"index":0,"delta":{"content":"after the end"}}]}"#,
    ]);
    let usage = Usage {
        input_tokens: Some(5),
        output_tokens: Some(2),
        reasoning_tokens: Some(0),
        cached_input_tokens: Some(1),
        total_tokens: Some(7),
    };
    assert_eq!(events, [text("Hello"), finish("stop"), ProviderEvent::Usage(usage), ProviderEvent::End]);
}

#[test]
fn usage_chunk_with_choices_null_or_absent() {
    let usage = Usage { input_tokens: Some(3), output_tokens: Some(4), total_tokens: Some(7), ..Usage::default() };
    for chunk in [
        r#"{"choices":null,"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}"#,
        r#"{"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}"#,
    ] {
        assert_eq!(decode(&[chunk]), [ProviderEvent::Usage(usage.clone())], "{chunk}");
    }
}

#[test]
fn refusal_is_text_and_finishes_as_refusal() {
    let events = decode(&[
        r#"{"choices":[{"index":0,"delta":{"content":null,"refusal":"I can't help"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"refusal":" with that."}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    assert_eq!(events, [text("I can't help"), text(" with that."), finish("refusal"), ProviderEvent::End]);
}

#[test]
fn reasoning_fields() {
    let events = decode(&[
        r#"{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"deepseek"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"reasoning":"groq"}}]}"#,
        // OpenRouter: the same text twice; read once.
        r#"{"choices":[{"index":0,"delta":{"reasoning":"router","reasoning_details":[{"type":"reasoning.text","text":"router"}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.summary","summary":"sum"},{"type":"reasoning.encrypted","data":"xx"},{"type":"reasoning.text","text":"txt"}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"answer"}}]}"#,
    ]);
    assert_eq!(
        events,
        [thinking("deepseek"), thinking("groq"), thinking("router"), thinking("sumtxt"), text("answer")]
    );
}

#[test]
fn mistral_content_arrays() {
    let events = decode(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Hmm"}]}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"4"},{"type":"image_url","image_url":"x"}]}}]}"#,
    ]);
    assert_eq!(events, [thinking("Hmm"), text("4")]);
}

#[test]
fn tool_calls_accumulate_by_index_starting_at_one() {
    let events = decode(&[
        r#"{"choices":[{"index":0,"delta":{"content":"Reading"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"toolu_1","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"pa"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"toolu_2","function":{"name":"ls","arguments":"{}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"th\":1}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        "[DONE]",
    ]);
    assert_eq!(
        events,
        [
            text("Reading"),
            start("toolu_1", "read_file"),
            delta("toolu_1", "{\"pa"),
            start("toolu_2", "ls"),
            delta("toolu_2", "{}"),
            delta("toolu_1", "th\":1}"),
            end("toolu_1"),
            end("toolu_2"),
            finish("tool_calls"),
            ProviderEvent::End,
        ]
    );
}

#[test]
fn whole_call_with_finish_reason_on_the_same_chunk_and_repeated() {
    let events = decode(&[
        r#"{"choices":[{"index":0,"finish_reason":"tool_calls","delta":{"role":"assistant","tool_calls":[{"id":"call_a","index":0,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"finish_reason":"tool_calls","delta":{"content":""}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#,
        "[DONE]",
    ]);
    let usage = Usage { input_tokens: Some(1), output_tokens: Some(2), total_tokens: Some(3), ..Usage::default() };
    assert_eq!(
        events,
        [
            start("call_a", "get_weather"),
            delta("call_a", "{\"city\":\"Paris\"}"),
            end("call_a"),
            finish("tool_calls"),
            ProviderEvent::Usage(usage),
            ProviderEvent::End,
        ]
    );
}

#[test]
fn mistral_calls_without_index_and_open_calls_closed_at_done() {
    let events = decode(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"one","arguments":"{}"}},{"id":"b","function":{"name":"two","arguments":"{\"x\":1}"}}]}}]}"#,
        "[DONE]",
    ]);
    assert_eq!(
        events,
        [
            start("a", "one"),
            delta("a", "{}"),
            start("b", "two"),
            delta("b", "{\"x\":1}"),
            end("a"),
            end("b"),
            ProviderEvent::End
        ]
    );
}

#[test]
fn a_call_without_id_is_numbered_by_its_index() {
    let events = decode(&[r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"function":{"name":"f"}}]}}]}"#]);
    assert_eq!(events, [start("call_3", "f")]);
}

#[test]
fn error_shapes() {
    let cases = [
        (
            r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
            ErrorCode::RateLimited,
            "Rate limited, try again",
        ),
        (
            r#"{"error":{"message":"The server had an error","type":"server_error","code":null}}"#,
            ErrorCode::ServiceUnavailable,
            "The server had an error",
        ),
        (r#"{"error":{"code":502,"message":"Upstream failed"}}"#, ErrorCode::ServiceUnavailable, "Upstream failed"),
        (
            r#"{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}"#,
            ErrorCode::ValidationError,
            "max_tokens is too large",
        ),
        (
            r#"{"error":{"message":"Too long","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
            ErrorCode::ValidationError,
            "Too long",
        ),
        (r#"{"error":"model overloaded"}"#, ErrorCode::ServiceUnavailable, "model overloaded"),
        (
            r#"{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}"#,
            ErrorCode::Unauthorized,
            "Invalid API key",
        ),
    ];
    for (frame, code, message) in cases {
        let events = decode(&[r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#, frame, "[DONE]"]);
        assert_eq!(
            events,
            [text("Hi"), ProviderEvent::Error { code, message: message.into(), fatal: true }],
            "{frame}"
        );
    }
}

#[test]
fn unreadable_frame_is_reported_and_the_stream_goes_on() {
    let events = decode(&["{not json", "[1,2]", r#"{"choices":[{"index":0,"delta":{"content":"ok"}}]}"#]);
    for event in &events[..2] {
        assert!(matches!(event, ProviderEvent::Error { code: ErrorCode::ServiceUnavailable, fatal: false, .. }));
    }
    assert_eq!(events[2..], [text("ok")]);
}

#[test]
fn other_choices_and_unknown_fields_are_ignored() {
    let events = decode(&[
        r#"{"choices":[{"index":1,"delta":{"content":"second"}},{"index":0,"delta":{"content":"first","audio":{}}}],"x_groq":{}}"#,
        r#"{"choices":[],"prompt_filter_results":[{"prompt_index":0}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"insufficient_system_resource"}]}"#,
    ]);
    assert_eq!(events, [text("first"), finish("other")]);
}

#[test]
fn truncated_stream_has_no_end() {
    let events = decode(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a"}}]}}]}"#,
    ]);
    assert_eq!(events, [start("c", "f"), delta("c", "{\"a")]);
}

/// A stream of tool calls as real servers vary them: escapes and non-ASCII text in names and
/// arguments, a surrogate pair, `null` fields, several calls in one chunk (and more than the fast
/// path reads), a call without index, text between, a finish with usage. The events are the ones
/// the contract gives; the fast path reads every chunk it should, and the stream reads alike
/// with shapes, without them and without any fast path.
#[test]
fn tool_call_chunks_read_alike_on_the_fast_and_the_general_path() {
    let frames = [
        r#"{"id":"a1","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_w\u00e9ather","arguments":""}}]},"finish_reason":null}],"usage":null}"#,
        r#"{"id":"a2","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Z\u00fcrich \ud83d\ude00"}}]}}]}"#,
        r#"{"id":"a3","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\", \"emoji\": \"😀\"}"}}]}}]}"#,
        r#"{"id":"a4","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","function":{"name":"ls","arguments":"{}"}},{"index":2,"id":"call_3","function":{"name":"cat","arguments":null}}]}}]}"#,
        r#"{"id":"a5","choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":null,"function":{"name":null,"arguments":"{\"path\":\"a\\b\"}"}}]}}]}"#,
        r#"{"id":"a6","choices":[{"index":0,"delta":{"content":"line\nnext \"q\""}}]}"#,
        r#"{"id":"a7","choices":[{"index":0,"delta":{"tool_calls":[{"id":"m1","function":{"name":"x","arguments":"{}"}}]}}]}"#,
        r#"{"id":"a8","choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"id":"c3","function":{"name":"a"}},{"index":4,"id":"c4","function":{"name":"a"}},{"index":5,"id":"c5","function":{"name":"a"}},{"index":6,"id":"c6","function":{"name":"a"}},{"index":7,"id":"c7","function":{"name":"a"}}]}}]}"#,
        r#"{"id":"a9","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12,"completion_tokens_details":{"reasoning_tokens":2}}}"#,
        "[DONE]",
    ];
    let usage = Usage {
        input_tokens: Some(5),
        output_tokens: Some(7),
        reasoning_tokens: Some(2),
        total_tokens: Some(12),
        ..Usage::default()
    };
    let mut expected = vec![
        start("call_1", "get_wéather"),
        delta("call_1", "{\"city\": \"Zürich 😀"),
        delta("call_1", "\", \"emoji\": \"😀\"}"),
        start("call_2", "ls"),
        delta("call_2", "{}"),
        start("call_3", "cat"),
        delta("call_3", "{\"path\":\"a\\b\"}"),
        text("line\nnext \"q\""),
        start("m1", "x"),
        delta("m1", "{}"),
    ];
    expected.extend(["c3", "c4", "c5", "c6", "c7"].map(|id| start(id, "a")));
    expected.extend(["call_1", "call_2", "call_3", "m1", "c3", "c4", "c5", "c6", "c7"].map(end));
    expected.extend([finish("tool_calls"), ProviderEvent::Usage(usage), ProviderEvent::End]);
    assert_eq!(decode(&frames), expected);

    // The five calls (a8) are the general path's; the rest, the surrogate pair (a2) too, the fast path's.
    let read: Vec<bool> = frames[..9].iter().map(|f| crate::dialect::scan::scan(f, tools::chunk).is_some()).collect();
    assert_eq!(read, [true, true, true, true, true, true, true, false, true]);
    let frames = frames.map(FrameRef::data);
    crate::dialect::fuzzing::modes_agree(crate::dialect::Dialect::OpenAi, &frames);
    // Each chunk after each other one: the shape learned from one is tried on the next.
    for a in &frames {
        for b in &frames {
            crate::dialect::fuzzing::modes_agree(crate::dialect::Dialect::OpenAi, &[*a, *b, *b, *a]);
        }
    }
}

/// Thinking and text parts in turn (a Mistral reasoning model's chunks) are each replayed by the
/// shape learned from the first of its kind, not learned again at every turn.
#[test]
fn mistral_thinking_and_text_in_turn_each_replay_their_own_shape() {
    let chunk = |part: &str| {
        format!(
            r#"{{"id":"a","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":[{part}]}},"finish_reason":null}}]}}"#
        )
    };
    let think = |t: &str| chunk(&format!(r#"{{"type":"thinking","thinking":[{{"type":"text","text":"{t}"}}]}}"#));
    let say = |t: &str| chunk(&format!(r#"{{"type":"text","text":"{t}"}}"#));
    let frames = [think("Hm"), say("4"), think("sure"), say(" is"), think("yes"), say(" it")];
    crate::dialect::fuzzing::take_paths();
    let events = decode(&frames.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(crate::dialect::fuzzing::take_paths(), [4, 2], "replayed, scanned");
    assert_eq!(events, [thinking("Hm"), text("4"), thinking("sure"), text(" is"), thinking("yes"), text(" it")]);
}
