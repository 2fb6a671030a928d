//! The Anthropic decoder's tests: every event and error shape, and the fast path and its shapes against the general path.

use serde_json::Map;

use super::*;
use crate::dialect::test_support::text;

fn decode(frames: &[&str]) -> Vec<ProviderEvent> {
    crate::dialect::test_support::decode::<AnthropicDecoder>(frames)
}

const START: &str = r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"cache_read_input_tokens":5,"cache_creation_input_tokens":2,"output_tokens":1}}}"#;
const STOP: &str = r#"{"type":"message_stop"}"#;

#[test]
fn text_blocks_usage_and_stop() {
    let events = decode(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type": "ping"}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}"#,
        STOP,
    ]);
    let input = Usage { input_tokens: Some(17), cached_input_tokens: Some(5), ..Usage::default() };
    let output = Usage { output_tokens: Some(7), total_tokens: Some(24), ..Usage::default() };
    assert_eq!(
        events,
        [
            ProviderEvent::Usage(input),
            text("Hel"),
            text("lo"),
            ProviderEvent::Finish { reason: "stop".into() },
            ProviderEvent::Usage(output),
            ProviderEvent::End,
        ]
    );
}

#[test]
fn counts_at_the_largest_add_up_to_the_largest_not_a_wrapped_small_number() {
    let max = u64::MAX;
    let events = decode(&[
        &format!(
            r#"{{"type":"message_start","message":{{"id":"m","usage":{{"input_tokens":{max},"cache_read_input_tokens":5,"cache_creation_input_tokens":{max}}}}}}}"#
        ),
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}"#,
    ]);
    let input = Usage { input_tokens: Some(max), cached_input_tokens: Some(5), ..Usage::default() };
    let output = Usage { output_tokens: Some(7), total_tokens: Some(max), ..Usage::default() };
    assert_eq!(
        events,
        [ProviderEvent::Usage(input), ProviderEvent::Finish { reason: "stop".into() }, ProviderEvent::Usage(output)]
    );
}

#[test]
fn json_padded_with_spaces_and_the_event_field_as_fallback() {
    let mut decoder = AnthropicDecoder::default();
    let mut out = ProviderEvents::default();
    let frame = FrameRef { event: Some("message_stop"), data: "   {  }  ", id: None };
    decoder.decode(FrameRef::data(r#"  { "type" : "content_block_delta" , "index" : 0 , "delta" : { "type" : "text_delta" , "text" : "a" } }  "#), &mut out);
    decoder.decode(frame, &mut out);
    assert_eq!(out.as_slice(), [text("a"), ProviderEvent::End]);
}

/// A text delta whose SSE event names another kind skips the fast path, not the delta: its
/// `type` decides, as the general path reads it.
#[test]
fn a_text_delta_under_another_event_name_is_still_a_text_delta() {
    let mut decoder = AnthropicDecoder::default();
    let mut out = ProviderEvents::default();
    let delta = r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}"#;
    decoder.decode(FrameRef { event: Some("ping"), data: delta, id: None }, &mut out);
    decoder.decode(FrameRef { event: Some("content_block_delta"), data: delta, id: None }, &mut out);
    assert_eq!(out.as_slice(), [text("aa")]);
}

#[test]
fn a_duplicate_message_start_is_ignored_and_a_different_one_is_an_error() {
    let events = decode(&[START, START, STOP]);
    assert_eq!(events.iter().filter(|e| matches!(e, ProviderEvent::Usage(_))).count(), 1);
    assert_eq!(events.last(), Some(&ProviderEvent::End));

    let other = r#"{"type":"message_start","message":{"id":"msg_2","usage":{"input_tokens":3}}}"#;
    let after = r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#;
    let events = decode(&[START, other, after, STOP]);
    match &events[1..] {
        [ProviderEvent::Error { code: ErrorCode::ServiceUnavailable, message, fatal: true }] => {
            assert!(message.contains("msg_2") && message.contains("msg_1"), "{message}");
        }
        rest => panic!("{rest:?}"),
    }
}

#[test]
fn tool_use_streams_its_input() {
    let events = decode(&[
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \"Paris\"}"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}"#,
    ]);
    let id = || "toolu_1".to_owned();
    assert_eq!(
        events[..4],
        [
            ProviderEvent::ToolCallStart { id: id(), name: "get_weather".into() },
            ProviderEvent::ToolCallDelta { id: id(), delta: "{\"city\":".into() },
            ProviderEvent::ToolCallDelta { id: id(), delta: " \"Paris\"}".into() },
            ProviderEvent::ToolCallEnd { id: id(), name: Some("get_weather".into()), input: None },
        ]
    );
    assert_eq!(events[4], ProviderEvent::Finish { reason: "tool_calls".into() });
}

#[test]
fn tool_use_whose_start_carries_the_input() {
    let events = decode(&[
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"add","input":{"a":1,"b":2}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"u","name":"now"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
    ]);
    assert_eq!(
        events,
        [
            ProviderEvent::ToolCallStart { id: "t".into(), name: "add".into() },
            ProviderEvent::ToolCallEnd { id: "t".into(), name: Some("add".into()), input: Some(json!({"a":1,"b":2})) },
            ProviderEvent::ToolCallStart { id: "u".into(), name: "now".into() },
            ProviderEvent::ToolCallEnd { id: "u".into(), name: Some("now".into()), input: Some(json!({})) },
        ]
    );
}

#[test]
fn thinking_with_its_signature_and_redacted_thinking() {
    let events = decode(&[
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me "}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"see."}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
    ]);
    assert_eq!(
        events,
        [
            ProviderEvent::Thinking("Let me ".into()),
            ProviderEvent::Thinking("see.".into()),
            ProviderEvent::attach(
                "thinking_blocks",
                json!({"type":"thinking","thinking":"Let me see.","signature":"EqQBCgIYAhIM"})
            ),
            ProviderEvent::attach("thinking_blocks", json!({"type":"redacted_thinking","data":"EmwKAhgBEgy3"})),
        ]
    );
}

#[test]
fn citations_from_deltas_and_from_a_block_start() {
    let citation = json!({"type":"web_search_result_location","cited_text":"c","url":"https://e.x/","title":"E"});
    let delta = json!({"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":citation}});
    let start = json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Quoted","citations":[citation]}});
    let events = decode(&[&start.to_string(), &delta.to_string()]);
    assert_eq!(
        events,
        [
            text("Quoted"),
            ProviderEvent::attach("citations", citation.clone()),
            ProviderEvent::attach("citations", citation)
        ]
    );
}

#[test]
fn server_tools_run_on_the_provider_and_their_results_match_by_id() {
    let events = decode(&[
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"ru"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"st\"}"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srv_1","content":[{"type":"web_search_result","url":"https://r.s/"}]}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"web_search_tool_result","tool_use_id":"srv_2","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}}"#,
    ]);
    assert_eq!(
        events,
        [
            ProviderEvent::ToolRun {
                id: Some("srv_1".into()),
                name: "web_search".into(),
                input: json!({"query":"rust"})
            },
            ProviderEvent::ToolResult {
                id: Some("srv_1".into()),
                name: None,
                index: None,
                output: json!([{"type":"web_search_result","url":"https://r.s/"}]),
                is_error: false,
            },
            ProviderEvent::ToolResult {
                id: Some("srv_2".into()),
                name: None,
                index: None,
                output: json!({"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}),
                is_error: true,
            },
        ]
    );
}

#[test]
fn stop_reasons() {
    for (wire, reason) in [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "refusal"),
        ("pause_turn", "other"),
        ("something_new", "other"),
    ] {
        let frame = format!(r#"{{"type":"message_delta","delta":{{"stop_reason":"{wire}"}}}}"#);
        assert_eq!(decode(&[&frame]), [ProviderEvent::Finish { reason: reason.into() }], "{wire}");
    }
}

#[test]
fn a_refusal_with_no_content_keeps_its_details() {
    let events = decode(&[
        START,
        r#"{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":"refusal","category":"cyber"}},"usage":{"output_tokens":5}}"#,
        STOP,
    ]);
    assert_eq!(events[1], ProviderEvent::Finish { reason: "refusal".into() });
    let details = json!({"type":"refusal","category":"cyber"});
    assert_eq!(events[2], ProviderEvent::Payload(Map::from_iter([("stop_details".to_owned(), details)])));
    assert_eq!(events.last(), Some(&ProviderEvent::End));
}

#[test]
fn a_mid_stream_error_is_fatal_and_mapped() {
    for (kind, code, message) in [
        ("overloaded_error", ErrorCode::ServiceUnavailable, "Overloaded"),
        ("api_error", ErrorCode::ServiceUnavailable, "Overloaded"),
        // The contract's fixed messages for these two codes.
        ("rate_limit_error", ErrorCode::RateLimited, "Rate limited, try again"),
        ("authentication_error", ErrorCode::Unauthorized, "Invalid API key"),
    ] {
        let error = format!(r#"{{"type":"error","error":{{"type":"{kind}","message":"Overloaded"}}}}"#);
        let events = decode(&[START, &error, STOP]);
        assert_eq!(events[1..], [ProviderEvent::Error { code, message: message.into(), fatal: true }], "{kind}");
    }
}

#[test]
fn unreadable_frames_are_reported_and_the_stream_goes_on() {
    let events = decode(&[
        "{not json",
        r#"{"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
        r#"{"type":"brand_new_event","x":1}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"still here"}}"#,
    ]);
    assert!(
        matches!(&events[0], ProviderEvent::Error { fatal: false, message, .. } if message.starts_with("Failed to parse response"))
    );
    assert!(matches!(&events[1], ProviderEvent::Error { fatal: false, message, .. } if message.contains("block 4")));
    assert_eq!(events[2..], [text("still here")]);
}

/// The blocks, the last started kept apart, give what one map of every block gives, whatever the
/// order of starts (an index started again replaces its block), deltas and stops over a few indices.
#[test]
fn blocks_agree_with_one_map() {
    let block = |n: u64| Block::ServerTool {
        id: n.to_string(),
        name: String::new(),
        start_input: Value::Null,
        json: String::new(),
    };
    let (mut blocks, mut model) = (Blocks::default(), HashMap::new());
    let mut seed = 7u64;
    for step in 0..20_000u64 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let index = (seed >> 33) % 5;
        match (seed >> 40) % 3 {
            0 => {
                blocks.insert(index, block(step));
                model.insert(index, block(step));
            }
            1 => assert_eq!(blocks.get_mut(index), model.get_mut(&index), "step {step}: get {index}"),
            _ => assert_eq!(blocks.remove(index), model.remove(&index), "step {step}: remove {index}"),
        }
        let held = usize::from(blocks.last.is_some()) + blocks.others.len();
        assert_eq!(held, model.len(), "step {step}: as many blocks");
    }
}
