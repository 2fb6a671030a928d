//! Baseline: characters, tools, payload fields, terminal events.

use chatstream::clean::{CleanOptions, Cleaner};
use chatstream::dialect::ProviderEvent;
use chatstream::error::ErrorCode;
use chatstream::event::{Segment, StreamEvent, StreamEvents, ToolArguments, ToolRecord, Usage};
use serde_json::{json, Map, Value};

use crate::helpers::{clean, complete, errors, kinds, text, text_deltas, thinking_deltas};

#[test]
fn unwanted_characters_never_reach_text_or_thinking() {
    let events = clean([
        ProviderEvent::Thinking("Let me\u{2404} think\u{0}.".into()),
        text("Hel\u{2404}lo▌ \u{1b}world\r\n\tok\u{2404}"),
        ProviderEvent::End,
    ]);
    assert_eq!(thinking_deltas(&events), ["Let me think."]);
    assert_eq!(text_deltas(&events), ["Hello world\n\tok"]);
    let payload = complete(&events);
    assert_eq!(payload.text, "Hello world\n\tok");
    assert_eq!(payload.message, "Hello world\n\tok");
    assert_eq!(payload.thinking.as_deref(), Some("Let me think."));
    assert_eq!(payload.segments, [Segment::Text { text: "Hello world\n\tok".into() }]);
    assert!(errors(&events).is_empty());
}

#[test]
fn empty_deltas_are_not_emitted_and_no_thinking_is_null() {
    let events = clean([text(""), text("\u{2404}"), text("▌"), text("Hi"), ProviderEvent::End]);
    assert_eq!(kinds(&events), ["text_delta", "complete"]);
    assert_eq!(complete(&events).thinking, None);
}

#[test]
fn streamed_tool_call_start_deltas_end() {
    let events = clean([
        ProviderEvent::ToolCallStart { id: "call_1".into(), name: "search".into() },
        ProviderEvent::ToolCallDelta { id: "call_1".into(), delta: r#"{"query": "CRI"#.into() },
        ProviderEvent::ToolCallDelta { id: "call_1".into(), delta: r#"SPR", "limit"#.into() },
        ProviderEvent::ToolCallDelta { id: "call_1".into(), delta: r#"": 5}"#.into() },
        ProviderEvent::ToolCallEnd { id: "call_1".into(), name: None, input: None },
        ProviderEvent::Finish { reason: "tool_calls".into() },
        ProviderEvent::End,
    ]);
    let delta = |delta: &str, partial: Value| StreamEvent::ToolInputDelta {
        tool_use_id: "call_1".into(),
        delta: delta.into(),
        partial_input: partial,
        arguments: ToolArguments::default(),
    };
    assert_eq!(
        events[..5],
        [
            StreamEvent::ToolStart {
                tool_use_id: "call_1".into(),
                tool: "search".into(),
                index: 0,
                input: json!({}).into()
            },
            delta(r#"{"query": "CRI"#, json!({"query": "CRI"})),
            delta(r#"SPR", "limit"#, json!({"query": "CRISPR"})),
            delta(r#"": 5}"#, json!({"query": "CRISPR", "limit": 5})),
            StreamEvent::ToolCall {
                tool_use_id: "call_1".into(),
                tool: "search".into(),
                index: 0,
                input: json!({"query": "CRISPR", "limit": 5}).into(),
                incomplete: false,
                arguments: None,
            },
        ]
    );
    let payload = complete(&events);
    assert_eq!(payload.finish_reason.map(|r| r.as_str()), Some("tool_calls"));
    assert_eq!(
        payload.tool_history,
        [ToolRecord {
            tool_name: "search".into(),
            tool_use_id: "call_1".into(),
            input: json!({"query": "CRISPR", "limit": 5}).into(),
            output: Value::Null.into(),
            is_error: false,
        }]
    );
    // The tool ran where it started, with no text: the message is its marker alone.
    assert_eq!(payload.message, "[[tool:0]]");
    assert_eq!(payload.text, "");
    assert!(matches!(&payload.segments[..], [Segment::Tool { index: 0, .. }]));
}

#[test]
fn tool_indexes_follow_start_order_and_inputs_given_whole_are_used() {
    let events = clean([
        text("Checking both."),
        ProviderEvent::ToolCallEnd {
            id: "a".into(),
            name: Some("weather".into()),
            input: Some(json!({"city": "Oslo"})),
        },
        ProviderEvent::ToolCallStart { id: "b".into(), name: "time".into() },
        ProviderEvent::ToolCallEnd { id: "b".into(), name: None, input: None },
        ProviderEvent::End,
    ]);
    assert_eq!(kinds(&events), ["text_delta", "tool_start", "tool_call", "tool_start", "tool_call", "complete"]);
    assert!(
        matches!(&events[1], StreamEvent::ToolStart { index: 0, tool, input, .. } if tool == "weather" && *input == json!({}).into())
    );
    assert!(
        matches!(&events[2], StreamEvent::ToolCall { index: 0, input, .. } if *input == json!({"city": "Oslo"}).into())
    );
    assert!(matches!(&events[4], StreamEvent::ToolCall { index: 1, input, .. } if *input == json!({}).into()));
    assert_eq!(complete(&events).message, "Checking both.[[tool:0]][[tool:1]]");
}

#[test]
fn arguments_that_never_parse_are_kept_as_a_string_with_a_diagnostic() {
    let events = clean([
        ProviderEvent::ToolCallStart { id: "c".into(), name: "f".into() },
        ProviderEvent::ToolCallDelta { id: "c".into(), delta: "{\"a\": 1,,}".into() },
        ProviderEvent::ToolCallEnd { id: "c".into(), name: None, input: None },
        text("after"),
        ProviderEvent::End,
    ]);
    assert!(events
        .iter()
        .any(|e| matches!(e, StreamEvent::ToolCall { input, .. } if *input == json!("{\"a\": 1,,}").into())));
    let errs = errors(&events);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].0, ErrorCode::ServiceUnavailable);
    assert!(errs[0].1.contains("not valid JSON"), "{}", errs[0].1);
    // Not fatal: the text after it streams and the message completes.
    assert_eq!(text_deltas(&events), ["after"]);
    assert_eq!(complete(&events).finish_reason, None);
}

/// The agent protocol: tool_start, tool_progress, tool_complete, then `[[tool:N]]` in text.
fn agent_turn() -> Vec<ProviderEvent> {
    vec![
        ProviderEvent::Status("Thinking...".into()),
        text("Let me search for that...\n\n"),
        ProviderEvent::ToolRun {
            id: Some("toolu_abc123".into()),
            name: "search_articles".into(),
            input: json!({"query": "CRISPR"}),
        },
        ProviderEvent::ToolProgress {
            id: None,
            name: "search_articles".into(),
            stage: Some("searching".into()),
            message: Some("Found 15 articles...".into()),
            progress: Some(0.5),
            data: Value::Null,
        },
        ProviderEvent::ToolResult {
            id: None,
            name: Some("search_articles".into()),
            index: Some(0),
            output: json!("Found 5 articles: ..."),
            is_error: false,
        },
        text("[[tool:0]]"),
        text("\n\nI found 5 relevant articles."),
        ProviderEvent::End,
    ]
}

#[test]
fn agent_tools_run_by_the_backend() {
    let events = clean(agent_turn());
    assert_eq!(
        kinds(&events),
        ["status", "text_delta", "tool_start", "tool_progress", "tool_complete", "text_delta", "complete"]
    );
    assert_eq!(
        events[2],
        StreamEvent::ToolStart {
            tool_use_id: "toolu_abc123".into(),
            tool: "search_articles".into(),
            index: 0,
            input: json!({"query": "CRISPR"}).into(),
        }
    );
    assert_eq!(
        events[4],
        StreamEvent::ToolComplete {
            tool_use_id: "toolu_abc123".into(),
            tool: "search_articles".into(),
            index: 0,
            input: json!({"query": "CRISPR"}).into(),
            output: json!("Found 5 articles: ...").into(),
            is_error: false,
        }
    );
    // No `tool_call`: the backend ran it, the browser must not.
    assert!(!kinds(&events).contains(&"tool_call".to_owned()));
    let payload = complete(&events);
    assert_eq!(payload.message, "Let me search for that...\n\n[[tool:0]]\n\nI found 5 relevant articles.");
    assert_eq!(payload.text, "Let me search for that...\n\n\n\nI found 5 relevant articles.");
    assert_eq!(text_deltas(&events).concat(), payload.text);
    assert_eq!(
        payload.segments,
        [
            Segment::Text { text: "Let me search for that...".into() },
            Segment::Tool {
                index: 0,
                tool_use_id: Some("toolu_abc123".into()),
                tool: Some("search_articles".into()),
                input: json!({"query": "CRISPR"}).into(),
                output: json!("Found 5 articles: ...").into(),
                is_error: false,
            },
            Segment::Text { text: "I found 5 relevant articles.".into() },
        ]
    );
    assert_eq!(payload.tool_history.len(), 1);
    assert_eq!(payload.tool_history[0].output, json!("Found 5 articles: ...").into());
}

#[test]
fn results_match_by_id_then_index_then_oldest_unfinished() {
    let run = |name: &str, id: Option<&str>| ProviderEvent::ToolRun {
        id: id.map(Into::into),
        name: name.into(),
        input: json!({}),
    };
    let result = |id: Option<&str>, index: Option<u32>, out: &str| ProviderEvent::ToolResult {
        id: id.map(Into::into),
        name: None,
        index,
        output: json!(out),
        is_error: false,
    };
    let events = clean([
        run("a", Some("id_a")),
        run("b", None),
        run("c", Some("id_c")),
        run("d", None),
        result(Some("id_c"), None, "C"),
        result(None, Some(1), "B"),
        result(None, None, "A"),
        result(None, None, "D"),
        // Matches nothing: a tool of its own.
        result(Some("id_x"), None, "X"),
        ProviderEvent::End,
    ]);
    let outputs: Vec<(u32, String, Value)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolComplete { index, tool_use_id, output, .. } => {
                Some((*index, tool_use_id.clone(), Value::clone(output)))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        outputs,
        [
            (2, "id_c".into(), json!("C")),
            (1, "tool_1".into(), json!("B")),
            (0, "id_a".into(), json!("A")),
            (3, "tool_3".into(), json!("D")),
            (4, "id_x".into(), json!("X")),
        ]
    );
    let history: Vec<&Value> = complete(&events).tool_history.iter().map(|r| &*r.output).collect();
    assert_eq!(history, [&json!("A"), &json!("B"), &json!("C"), &json!("D"), &json!("X")]);
}

#[test]
fn a_tool_run_for_a_started_call_is_not_started_twice() {
    let events = clean([
        ProviderEvent::ToolCallStart { id: "t1".into(), name: "f".into() },
        ProviderEvent::ToolRun { id: Some("t1".into()), name: "f".into(), input: json!({"x": 1}) },
        ProviderEvent::End,
    ]);
    assert_eq!(kinds(&events).iter().filter(|k| *k == "tool_start").count(), 1);
}

#[test]
fn status_usage_finish_attach_and_backend_fields_reach_the_payload() {
    let mut fields = Map::new();
    fields.insert("conversation_id".into(), json!(789));
    fields.insert("diagnostics".into(), json!({"model": "claude"}));
    fields.insert("suggested_values".into(), json!([{"label": "Yes", "value": "yes"}]));
    let events = clean([
        ProviderEvent::Usage(Usage { input_tokens: Some(10), output_tokens: Some(1), ..Usage::default() }),
        text("Hi"),
        ProviderEvent::Attach { key: "sources".into(), value: json!({"url": "a"}) },
        ProviderEvent::Attach { key: "sources".into(), value: json!({"url": "b"}) },
        ProviderEvent::Usage(Usage { output_tokens: Some(7), total_tokens: Some(17), ..Usage::default() }),
        ProviderEvent::Finish { reason: "stop".into() },
        ProviderEvent::Payload(fields),
        ProviderEvent::End,
    ]);
    let payload = complete(&events);
    assert_eq!(
        payload.usage,
        Some(Usage {
            input_tokens: Some(10),
            output_tokens: Some(7),
            total_tokens: Some(17),
            reasoning_tokens: None,
            cached_input_tokens: None
        })
    );
    assert_eq!(payload.finish_reason.map(|r| r.as_str()), Some("stop"));
    assert_eq!(payload.extra["sources"], json!([{"url": "a"}, {"url": "b"}]));
    assert_eq!(payload.extra["conversation_id"], json!(789));
    assert_eq!(payload.extra["diagnostics"], json!({"model": "claude"}));
    assert_eq!(payload.suggested_values, Some(json!([{"label": "Yes", "value": "yes"}])));
    // Serialized, the extra fields sit beside the known ones, each once.
    let value = serde_json::to_value(payload).unwrap();
    assert_eq!(value["conversation_id"], json!(789));
    assert_eq!(value["text"], json!("Hi"));
}

#[test]
fn a_backend_message_is_authoritative_and_cleaned_the_same_way() {
    let mut fields = Map::new();
    fields.insert(
        "message".into(),
        json!("Let me search for that...\n\n[[tool:0]]\n\nI found 5.\u{2404}\nSUGGESTED_VALUES: [\"more\"]"),
    );
    let mut events = agent_turn();
    events.insert(events.len() - 1, ProviderEvent::Payload(fields));
    let events = clean(events);
    let payload = complete(&events);
    assert_eq!(payload.message, "Let me search for that...\n\n[[tool:0]]\n\nI found 5.");
    assert_eq!(payload.text, "Let me search for that...\n\n\n\nI found 5.");
    assert_eq!(payload.segments.len(), 3);
    assert_eq!(payload.suggested_values, Some(json!(["more"])));
}

#[test]
fn backend_tool_history_is_used_with_gaps_filled_from_the_stream() {
    let mut fields = Map::new();
    fields.insert(
        "tool_history".into(),
        json!([{"tool_name": "search_articles", "input": {"query": "CRISPR"}, "output": "Found 5 articles: ..."}]),
    );
    let mut events = agent_turn();
    events.insert(events.len() - 1, ProviderEvent::Payload(fields));
    let events = clean(events);
    assert_eq!(
        complete(&events).tool_history,
        [ToolRecord {
            tool_name: "search_articles".into(),
            tool_use_id: "toolu_abc123".into(),
            input: json!({"query": "CRISPR"}).into(),
            output: json!("Found 5 articles: ...").into(),
            is_error: false,
        }]
    );
}

#[test]
fn a_fatal_error_completes_with_the_partial_content_then_reports() {
    let events = clean([
        text("Partial answer"),
        ProviderEvent::Error { code: ErrorCode::RateLimited, message: "Rate limited, try again".into(), fatal: true },
        text("ignored"),
        ProviderEvent::End,
    ]);
    assert_eq!(kinds(&events), ["text_delta", "complete", "error"]);
    let payload = complete(&events);
    assert_eq!(payload.text, "Partial answer");
    assert_eq!(payload.finish_reason.map(|r| r.as_str()), Some("error"));
    assert_eq!(errors(&events), [(ErrorCode::RateLimited, "Rate limited, try again", None)]);
}

#[test]
fn a_fatal_error_keeps_a_finish_reason_already_given() {
    let events = clean([
        ProviderEvent::Finish { reason: "content_filter".into() },
        ProviderEvent::Error { code: ErrorCode::ServiceUnavailable, message: "blocked".into(), fatal: true },
    ]);
    assert_eq!(complete(&events).finish_reason.map(|r| r.as_str()), Some("content_filter"));
}

#[test]
fn a_non_fatal_error_is_reported_at_once_and_the_stream_goes_on() {
    let events = clean([text("One"), ProviderEvent::unreadable("bad frame"), text(" two"), ProviderEvent::End]);
    assert_eq!(kinds(&events), ["text_delta", "error", "text_delta", "complete"]);
    assert_eq!(complete(&events).text, "One two");
}

#[test]
fn a_stream_that_stops_without_its_end_completes_then_reports_a_network_error() {
    let events = clean([text("Half a sen")]);
    assert_eq!(kinds(&events), ["text_delta", "complete", "error"]);
    assert_eq!(complete(&events).text, "Half a sen");
    assert_eq!(errors(&events), [(ErrorCode::NetworkError, "stream ended before completion", None)]);
}

#[test]
fn cancel_completes_with_the_partial_content_then_cancelled_and_only_once() {
    let mut cleaner = Cleaner::new(CleanOptions::default());
    let mut events = Vec::new();
    cleaner.push(text("Partial [[to"), &mut StreamEvents::new(&mut events));
    cleaner.cancel(&mut StreamEvents::new(&mut events));
    assert!(cleaner.is_complete());
    // The held tail was not a marker after all: it goes out, and is part of the text.
    assert_eq!(kinds(&events), ["text_delta", "text_delta", "complete", "cancelled"]);
    assert_eq!(text_deltas(&events), ["Partial", " [[to"]);
    assert_eq!(complete(&events).text, "Partial [[to");

    let mut more = Vec::new();
    cleaner.cancel(&mut StreamEvents::new(&mut more));
    cleaner.push(text("late"), &mut StreamEvents::new(&mut more));
    cleaner.finish(&mut StreamEvents::new(&mut more));
    assert_eq!(more.len(), 1);
    assert!(matches!(&more[0], StreamEvent::Error { code: ErrorCode::Conflict, .. }));
}

#[test]
fn cancel_after_a_normal_end_is_a_conflict_only() {
    let mut cleaner = Cleaner::new(CleanOptions::default());
    let mut events = Vec::new();
    cleaner.push(text("Done"), &mut StreamEvents::new(&mut events));
    cleaner.push(ProviderEvent::End, &mut StreamEvents::new(&mut events));
    let before = events.len();
    cleaner.cancel(&mut StreamEvents::new(&mut events));
    assert_eq!(kinds(&events[before..]), ["error"]);
    assert!(matches!(&events[before], StreamEvent::Error { code: ErrorCode::Conflict, .. }));
}

#[test]
fn a_backend_cancel_is_like_cancel() {
    let events = clean([text("So far"), ProviderEvent::Cancelled, text("more")]);
    assert_eq!(kinds(&events), ["text_delta", "complete", "cancelled"]);
    assert_eq!(complete(&events).text, "So far");
}

#[test]
fn events_after_complete_are_ignored() {
    let events = clean([
        text("A"),
        ProviderEvent::End,
        text("B"),
        ProviderEvent::ToolCallStart { id: "x".into(), name: "y".into() },
        ProviderEvent::End,
        ProviderEvent::Error { code: ErrorCode::NetworkError, message: "late".into(), fatal: true },
    ]);
    assert_eq!(kinds(&events), ["text_delta", "complete"]);
}

#[test]
fn thinking_from_two_sources_is_two_passages() {
    let events = clean([
        ProviderEvent::Thinking("pondering".into()),
        text("<think>secret</think>The answer."),
        ProviderEvent::Thinking("more".into()),
        ProviderEvent::End,
    ]);
    assert_eq!(thinking_deltas(&events).concat(), "pondering\n\nsecret\n\nmore");
    assert_eq!(complete(&events).thinking.as_deref(), Some("pondering\n\nsecret\n\nmore"));
    assert_eq!(text_deltas(&events).concat(), "The answer.");
}
