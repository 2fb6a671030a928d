//! The cleaning stage, driven directly with `ProviderEvent`s.
//!
//! Text rules are table-driven and every case runs under every split of its text into deltas
//! (all one- and two-cut splits, one character per delta). Property tests use a seeded RNG whose
//! seed is printed (`CHATSTREAM_SEED=<n>` reproduces a run).

mod common;

use common::Rng;

use chatstream::clean::{parse_llm_response, resolve_tool_markers, CleanOptions, Cleaner, PayloadMarker};
use chatstream::dialect::ProviderEvent;
use chatstream::error::ErrorCode;
use chatstream::event::{CompletePayload, Segment, StreamEvent, ToolRecord, Usage};
use serde_json::{json, Map, Value};

fn text(s: &str) -> ProviderEvent {
    ProviderEvent::Text(s.into())
}

fn clean_with(options: CleanOptions, events: impl IntoIterator<Item = ProviderEvent>) -> Vec<StreamEvent> {
    let mut cleaner = Cleaner::new(options);
    let mut out = Vec::new();
    for event in events {
        cleaner.push(event, &mut out);
    }
    cleaner.finish(&mut out);
    out
}

fn clean(events: impl IntoIterator<Item = ProviderEvent>) -> Vec<StreamEvent> {
    clean_with(CleanOptions::default(), events)
}

/// The payload of the one `complete` (panics unless there is exactly one).
fn complete(events: &[StreamEvent]) -> &CompletePayload {
    let found: Vec<&CompletePayload> = events
        .iter()
        .filter_map(|e| if let StreamEvent::Complete { payload } = e { Some(payload) } else { None })
        .collect();
    assert_eq!(found.len(), 1, "exactly one complete in {events:#?}");
    found[0]
}

fn text_deltas(events: &[StreamEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| if let StreamEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
        .collect()
}

fn thinking_deltas(events: &[StreamEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| if let StreamEvent::ThinkingDelta { text } = e { Some(text.as_str()) } else { None })
        .collect()
}

fn errors(events: &[StreamEvent]) -> Vec<(ErrorCode, &str, Option<&str>)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Error { code, message, field } => Some((*code, message.as_str(), field.as_deref())),
            _ => None,
        })
        .collect()
}

fn kinds(events: &[StreamEvent]) -> Vec<String> {
    events.iter().map(|e| serde_json::to_value(e).unwrap()["type"].as_str().unwrap().to_owned()).collect()
}

/// Ways to cut `s` into deltas: whole, every one cut, every two cuts (short texts), one char each.
fn splits(s: &str) -> Vec<Vec<&str>> {
    let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).skip(1).collect();
    let mut all = vec![vec![s]];
    for &a in &bounds {
        all.push(vec![&s[..a], &s[a..]]);
    }
    if bounds.len() <= 60 {
        for (i, &a) in bounds.iter().enumerate() {
            for &b in &bounds[i + 1..] {
                all.push(vec![&s[..a], &s[a..b], &s[b..]]);
            }
        }
    }
    let mut chars = Vec::new();
    let mut start = 0;
    for &b in bounds.iter().chain(std::iter::once(&s.len())) {
        chars.push(&s[start..b]);
        start = b;
    }
    all.push(chars);
    all
}

// ---------------------------------------------------------------------------------------------
// Baseline: characters, tools, payload fields, terminal events.

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
    };
    assert_eq!(
        events[..5],
        [
            StreamEvent::ToolStart { tool_use_id: "call_1".into(), tool: "search".into(), index: 0, input: json!({}) },
            delta(r#"{"query": "CRI"#, json!({"query": "CRI"})),
            delta(r#"SPR", "limit"#, json!({"query": "CRISPR"})),
            delta(r#"": 5}"#, json!({"query": "CRISPR", "limit": 5})),
            StreamEvent::ToolCall {
                tool_use_id: "call_1".into(),
                tool: "search".into(),
                index: 0,
                input: json!({"query": "CRISPR", "limit": 5}),
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
            input: json!({"query": "CRISPR", "limit": 5}),
            output: Value::Null,
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
        matches!(&events[1], StreamEvent::ToolStart { index: 0, tool, input, .. } if tool == "weather" && *input == json!({}))
    );
    assert!(matches!(&events[2], StreamEvent::ToolCall { index: 0, input, .. } if *input == json!({"city": "Oslo"})));
    assert!(matches!(&events[4], StreamEvent::ToolCall { index: 1, input, .. } if *input == json!({})));
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
    assert!(events.iter().any(|e| matches!(e, StreamEvent::ToolCall { input, .. } if *input == json!("{\"a\": 1,,}"))));
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
            input: json!({"query": "CRISPR"}),
        }
    );
    assert_eq!(
        events[4],
        StreamEvent::ToolComplete {
            tool_use_id: "toolu_abc123".into(),
            tool: "search_articles".into(),
            index: 0,
            input: json!({"query": "CRISPR"}),
            output: json!("Found 5 articles: ..."),
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
                input: json!({"query": "CRISPR"}),
                output: json!("Found 5 articles: ..."),
                is_error: false,
            },
            Segment::Text { text: "I found 5 relevant articles.".into() },
        ]
    );
    assert_eq!(payload.tool_history.len(), 1);
    assert_eq!(payload.tool_history[0].output, json!("Found 5 articles: ..."));
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
                Some((*index, tool_use_id.clone(), output.clone()))
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
    let history: Vec<&Value> = complete(&events).tool_history.iter().map(|r| &r.output).collect();
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
            input: json!({"query": "CRISPR"}),
            output: json!("Found 5 articles: ..."),
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
    cleaner.push(text("Partial [[to"), &mut events);
    cleaner.cancel(&mut events);
    assert!(cleaner.is_complete());
    // The held tail was not a marker after all: it goes out, and is part of the text.
    assert_eq!(kinds(&events), ["text_delta", "text_delta", "complete", "cancelled"]);
    assert_eq!(text_deltas(&events), ["Partial", " [[to"]);
    assert_eq!(complete(&events).text, "Partial [[to");

    let mut more = Vec::new();
    cleaner.cancel(&mut more);
    cleaner.push(text("late"), &mut more);
    cleaner.finish(&mut more);
    assert_eq!(more.len(), 1);
    assert!(matches!(&more[0], StreamEvent::Error { code: ErrorCode::Conflict, .. }));
}

#[test]
fn cancel_after_a_normal_end_is_a_conflict_only() {
    let mut cleaner = Cleaner::new(CleanOptions::default());
    let mut events = Vec::new();
    cleaner.push(text("Done"), &mut events);
    cleaner.push(ProviderEvent::End, &mut events);
    let before = events.len();
    cleaner.cancel(&mut events);
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

// ---------------------------------------------------------------------------------------------
// Text rules, each under every split of its text into deltas.

struct Case {
    name: &'static str,
    input: &'static str,
    /// `complete.payload.text`, and the text deltas joined.
    text: &'static str,
    message: &'static str,
    thinking: Option<&'static str>,
    suggested_values: Option<Value>,
    suggested_actions: Option<Value>,
    custom_payload: Option<Value>,
    /// Non-fatal diagnostics expected, by `field`.
    diagnostics: &'static [&'static str],
}

impl Case {
    fn plain(name: &'static str, input: &'static str, text: &'static str, message: &'static str) -> Case {
        Case {
            name,
            input,
            text,
            message,
            thinking: None,
            suggested_values: None,
            suggested_actions: None,
            custom_payload: None,
            diagnostics: &[],
        }
    }
}

fn options_with_query_marker() -> CleanOptions {
    let mut options = CleanOptions::default();
    options
        .payload_markers
        .push(PayloadMarker { marker: "QUERY_SUGGESTION:".into(), type_name: "query_suggestion".into() });
    options
}

/// Runs `case` under every split, checking the joined deltas, the payload and the diagnostics.
fn check_case(case: &Case, options: &CleanOptions) {
    for pieces in splits(case.input) {
        let events = clean_with(options.clone(), pieces.iter().map(|p| text(p)).chain([ProviderEvent::End]));
        let how = format!("{}: split {pieces:?}", case.name);
        let payload = complete(&events);
        assert_eq!(text_deltas(&events).concat(), case.text, "{how}: text deltas");
        assert_eq!(payload.text, case.text, "{how}: text");
        assert_eq!(payload.message, case.message, "{how}: message");
        assert_eq!(payload.thinking.as_deref(), case.thinking, "{how}: thinking");
        assert_eq!(thinking_deltas(&events).concat(), case.thinking.unwrap_or(""), "{how}: thinking deltas");
        assert_eq!(payload.suggested_values, case.suggested_values, "{how}: suggested_values");
        assert_eq!(payload.suggested_actions, case.suggested_actions, "{how}: suggested_actions");
        assert_eq!(payload.custom_payload, case.custom_payload, "{how}: custom_payload");
        let fields: Vec<&str> = errors(&events).iter().map(|e| e.2.unwrap_or("-")).collect();
        assert_eq!(fields, case.diagnostics, "{how}: diagnostics");
        assert!(!text_deltas(&events).contains(&""), "{how}: an empty delta");
    }
    // The stored-message helper reads the whole text the same way.
    let parsed = parse_llm_response(case.input, options);
    assert_eq!(parsed.text, case.text, "{}: parse_llm_response text", case.name);
    assert_eq!(parsed.message, case.message, "{}: parse_llm_response message", case.name);
    assert_eq!(parsed.thinking.as_deref(), case.thinking, "{}: parse_llm_response thinking", case.name);
    assert_eq!(parsed.suggested_values, case.suggested_values, "{}: parse_llm_response values", case.name);
    assert_eq!(parsed.custom_payload, case.custom_payload, "{}: parse_llm_response custom", case.name);
    assert_eq!(parsed.diagnostics.len(), case.diagnostics.len(), "{}: parse_llm_response diagnostics", case.name);
}

#[test]
fn tool_markers_are_stripped_wherever_they_are_split() {
    let cases = [
        Case::plain(
            "marker between paragraphs",
            "Let me search.\n\n[[tool:0]]\n\nDone.",
            "Let me search.\n\n\n\nDone.",
            "Let me search.\n\n[[tool:0]]\n\nDone.",
        ),
        Case::plain("adjacent markers", "A[[tool:1]][[tool:2]]B", "AB", "A[[tool:1]][[tool:2]]B"),
        Case::plain("many digits", "x [[tool:12]]y", "x y", "x [[tool:12]]y"),
        Case::plain("an extra bracket before", "[[[tool:0]]]", "[]", "[[[tool:0]]]"),
        Case::plain("marker at the edges", "[[tool:0]] mid [[tool:1]]", "mid", "[[tool:0]] mid [[tool:1]]"),
        Case::plain("non-ASCII around", "héllo[[tool:0]]wörld 😀", "héllowörld 😀", "héllo[[tool:0]]wörld 😀"),
        Case::plain("␄ inside a marker goes first", "a[[to\u{2404}ol:0]]b", "ab", "a[[tool:0]]b"),
    ];
    for case in &cases {
        check_case(case, &CleanOptions::default());
    }
}

#[test]
fn text_that_only_begins_like_a_marker_is_released_unchanged() {
    let cases = [
        Case::plain("prefix then other", "[[to be]] or not", "[[to be]] or not", "[[to be]] or not"),
        Case::plain("a gene name", "Edit with [[CRISPR]].", "Edit with [[CRISPR]].", "Edit with [[CRISPR]]."),
        Case::plain("nested arrays", "m = [[1, 2], [3]]", "m = [[1, 2], [3]]", "m = [[1, 2], [3]]"),
        Case::plain("no digits", "[[tool:]] x", "[[tool:]] x", "[[tool:]] x"),
        Case::plain("ten digits", "[[tool:1234567890]]", "[[tool:1234567890]]", "[[tool:1234567890]]"),
        Case::plain("one bracket short", "[[tool:3] and", "[[tool:3] and", "[[tool:3] and"),
        Case::plain("ends on a prefix", "see [[tool:4", "see [[tool:4", "see [[tool:4"),
        Case::plain("markdown link", "[link](http://x) [[", "[link](http://x) [[", "[link](http://x) [["),
        Case::plain("a lone S", "US and SUGGEST", "US and SUGGEST", "US and SUGGEST"),
        Case::plain(
            "angle brackets",
            "a < b, <b>bold</b>, <thin",
            "a < b, <b>bold</b>, <thin",
            "a < b, <b>bold</b>, <thin",
        ),
    ];
    for case in &cases {
        check_case(case, &CleanOptions::default());
    }
}

#[test]
fn inline_thinking_tags_become_thinking() {
    let think = |name, input, text: &'static str, thinking| Case { thinking, ..Case::plain(name, input, text, text) };
    let cases = [
        think("think", "<think>Plan it.</think>The answer.", "The answer.", Some("Plan it.")),
        think("thinking", "<thinking>\nDeep.\n</thinking>\n\nAnswer", "Answer", Some("Deep.")),
        think("empty", "<think></think>Answer", "Answer", None),
        think("two blocks", "<think>a</think>X<think> b</think>Y", "XY", Some("a b")),
        think("unclosed", "Hi <think>still going", "Hi", Some("still going")),
        think("other tag inside", "<think>1 < 2 <b></thinking></think>ok", "ok", Some("1 < 2 <b></thinking>")),
        think("stray closing tag is only removed", "Answer </think> more", "Answer  more", None),
        think("markers inside thinking stay thinking", "<think>[[tool:0]]</think>x", "x", Some("[[tool:0]]")),
    ];
    for case in &cases {
        check_case(case, &CleanOptions::default());
    }
}

#[test]
fn output_that_starts_inside_thinking_when_configured() {
    let options = CleanOptions { starts_in_thinking: true, ..CleanOptions::default() };
    let case = Case {
        thinking: Some("Reasoning first."),
        ..Case::plain("no opening tag", "Reasoning first.</think>\n\nThe answer.", "The answer.", "The answer.")
    };
    check_case(&case, &options);
}

#[test]
fn thinking_tags_are_configurable() {
    let options = CleanOptions { thinking_tags: vec!["reasoning".into()], ..CleanOptions::default() };
    let case = Case {
        thinking: Some("r"),
        ..Case::plain("custom name", "<reasoning>r</reasoning><think>t</think>", "<think>t</think>", "<think>t</think>")
    };
    check_case(&case, &options);

    let off = CleanOptions { inline_thinking: false, ..CleanOptions::default() };
    let case = Case::plain("off", "<think>t</think>x", "<think>t</think>x", "<think>t</think>x");
    check_case(&case, &off);
}

#[test]
fn payload_markers_are_pulled_out_with_their_json() {
    let cases = [
        Case {
            suggested_values: Some(json!([{"label": "Yes ]", "value": "y\"es}"}, {"label": "No", "value": "no"}])),
            ..Case::plain(
                "values with brackets and escapes in strings",
                r#"Pick one.
SUGGESTED_VALUES: [{"label": "Yes ]", "value": "y\"es}"}, {"label": "No", "value": "no"}]"#,
                "Pick one.",
                "Pick one.",
            )
        },
        Case {
            suggested_actions: Some(
                json!([{"label": "Apply", "action": "apply_schema", "handler": "server", "data": {"id": [1, 2]}}]),
            ),
            ..Case::plain(
                "actions with nesting, text after",
                r#"Ready. SUGGESTED_ACTIONS:[{"label": "Apply", "action": "apply_schema", "handler": "server", "data": {"id": [1, 2]}}] Go."#,
                "Ready.  Go.",
                "Ready.  Go.",
            )
        },
        Case {
            custom_payload: Some(json!({"type": "schema_proposal", "data": {"tables": ["a\\b"]}})),
            ..Case::plain(
                "default custom marker",
                "Here's my proposal: SCHEMA_PROPOSAL: {\"tables\": [\"a\\\\b\"]}",
                "Here's my proposal:",
                "Here's my proposal:",
            )
        },
        Case {
            suggested_values: Some(json!(["b"])),
            ..Case::plain(
                "a later payload replaces an earlier one",
                "SUGGESTED_VALUES: [\"a\"] x SUGGESTED_VALUES:\n[\"b\"]",
                "x",
                "x",
            )
        },
        Case {
            suggested_values: Some(json!([1])),
            ..Case::plain("beside a tool marker", "A[[tool:0]]SUGGESTED_VALUES: [1]B", "AB", "A[[tool:0]]B")
        },
    ];
    for case in &cases {
        check_case(case, &CleanOptions::default());
    }
}

#[test]
fn registered_payload_markers_fill_custom_payload() {
    let case = Case {
        custom_payload: Some(json!({"type": "query_suggestion", "data": {"query": "CRISPR [2024]"}})),
        ..Case::plain(
            "registered marker",
            "Try this. QUERY_SUGGESTION: {\"query\": \"CRISPR [2024]\"}",
            "Try this.",
            "Try this.",
        )
    };
    check_case(&case, &options_with_query_marker());
}

#[test]
fn malformed_or_unterminated_payloads_are_released_as_text_with_a_diagnostic() {
    let cases = [
        Case {
            diagnostics: &["suggested_values"],
            ..Case::plain(
                "invalid JSON",
                "A SUGGESTED_VALUES: [1, 2,, ] B",
                "A SUGGESTED_VALUES: [1, 2,, ] B",
                "A SUGGESTED_VALUES: [1, 2,, ] B",
            )
        },
        Case {
            diagnostics: &["suggested_actions"],
            ..Case::plain(
                "unterminated",
                "A SUGGESTED_ACTIONS: [{\"label\": \"x\"",
                "A SUGGESTED_ACTIONS: [{\"label\": \"x\"",
                "A SUGGESTED_ACTIONS: [{\"label\": \"x\"",
            )
        },
        Case {
            diagnostics: &["custom_payload"],
            ..Case::plain(
                "no JSON",
                "SCHEMA_PROPOSAL: none yet",
                "SCHEMA_PROPOSAL: none yet",
                "SCHEMA_PROPOSAL: none yet",
            )
        },
        Case {
            diagnostics: &["suggested_values"],
            ..Case::plain(
                "marker at the very end",
                "Done SUGGESTED_VALUES:",
                "Done SUGGESTED_VALUES:",
                "Done SUGGESTED_VALUES:",
            )
        },
        Case {
            // The released JSON is read again as text: the tool marker in it is still a marker.
            diagnostics: &["suggested_values"],
            ..Case::plain(
                "released JSON is read again",
                "SUGGESTED_VALUES: [ [[tool:0]] oops",
                "SUGGESTED_VALUES: [  oops",
                "SUGGESTED_VALUES: [ [[tool:0]] oops",
            )
        },
        Case {
            suggested_values: Some(json!(["ok"])),
            diagnostics: &["suggested_values"],
            ..Case::plain(
                "a good payload inside a broken one",
                "SUGGESTED_VALUES: [ SUGGESTED_VALUES: [\"ok\"] x",
                "SUGGESTED_VALUES: [  x",
                "SUGGESTED_VALUES: [  x",
            )
        },
    ];
    for case in &cases {
        check_case(case, &CleanOptions::default());
    }
}

#[test]
fn everything_together() {
    let case = Case {
        thinking: Some("t"),
        suggested_values: Some(json!(["x"])),
        ..Case::plain(
            "mixed",
            "<think>t</think>Hi [[tool:0]] there\u{2404} SUGGESTED_VALUES: [\"x\"]",
            "Hi  there",
            "Hi [[tool:0]] there",
        )
    };
    check_case(&case, &CleanOptions::default());
}

// ---------------------------------------------------------------------------------------------
// Property tests: random text with markers inserted at random places.

/// Filler words, chosen to look like the start of markers without being one.
const FILLER: &[&str] = &[
    "word",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\t",
    "é",
    "😀",
    "[",
    "[[",
    "[[to",
    "[[tool",
    "[[CRISPR]]",
    "[[1, 2]]",
    "]]",
    "<",
    "<thi",
    "<b>",
    "</b>",
    "S",
    "SUGG",
    "SUGGESTED_",
    "SCHEMA",
    ":",
    "{",
    "}",
    "\"",
    "\u{2404}",
    "▌",
    "\u{7}",
];
/// Thinking contents: anything but a closing tag.
const THOUGHTS: &[&str] = &["plan", " ", "\n", "[[tool:0]]", "SUGGESTED_VALUES: [1]", "<", "<b>", "é"];

fn random_json(rng: &mut Rng, depth: usize) -> Value {
    const STRINGS: &[&str] = &["a", "]", "}", "[", "{", "\"", "\\", "[[tool:1]]", "<think>", "é😀", ""];
    match rng.below(if depth > 2 { 3 } else { 5 }) {
        0 => json!(STRINGS[rng.below(STRINGS.len())]),
        1 => json!(rng.below(1000)),
        2 => json!(null),
        3 => Value::Array((0..rng.below(4)).map(|_| random_json(rng, depth + 1)).collect()),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(4) {
                map.insert(STRINGS[rng.below(STRINGS.len())].to_owned(), random_json(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

/// A random response and what cleaning it must give.
struct Generated {
    raw: String,
    text: String,
    message: String,
    thinking: String,
    suggested_values: Option<Value>,
    suggested_actions: Option<Value>,
    custom_payload: Option<Value>,
}

fn generate(rng: &mut Rng) -> Generated {
    let mut g = Generated {
        raw: String::new(),
        text: String::new(),
        message: String::new(),
        thinking: String::new(),
        suggested_values: None,
        suggested_actions: None,
        custom_payload: None,
    };
    for _ in 0..rng.below(40) {
        match rng.below(10) {
            0 => {
                let marker = format!("[[tool:{}]]", rng.below(12));
                g.raw.push_str(&marker);
                g.message.push_str(&marker);
            }
            1 => {
                let tag = ["think", "thinking"][rng.below(2)];
                let thought: String = (0..rng.below(4)).map(|_| THOUGHTS[rng.below(THOUGHTS.len())]).collect();
                g.raw.push_str(&format!("<{tag}>{thought}</{tag}>"));
                g.thinking.push_str(&thought);
            }
            2 => {
                let depth = 3 - rng.below(2);
                let value = random_json(rng, depth);
                let value = if rng.below(2) == 0 { json!([value]) } else { json!({ "k": value }) };
                let gap = [" ", "", "\n", "  "][rng.below(4)];
                let (marker, field, stored) = match rng.below(3) {
                    0 => ("SUGGESTED_VALUES:", &mut g.suggested_values, value.clone()),
                    1 => ("SUGGESTED_ACTIONS:", &mut g.suggested_actions, value.clone()),
                    _ => ("SCHEMA_PROPOSAL:", &mut g.custom_payload, json!({"type": "schema_proposal", "data": value})),
                };
                *field = Some(stored);
                g.raw.push_str(&format!("{marker}{gap}{value}"));
            }
            _ => {
                let word = FILLER[rng.below(FILLER.len())];
                g.raw.push_str(word);
                let clean: String = word.chars().filter(|c| !matches!(c, '\u{2404}' | '▌' | '\u{7}')).collect();
                g.text.push_str(&clean);
                g.message.push_str(&clean);
            }
        }
        // Keep a filler word from running into the next marker's first letters.
        if rng.below(3) == 0 {
            g.raw.push('.');
            g.text.push('.');
            g.message.push('.');
        }
    }
    g.text = g.text.trim().to_owned();
    g.message = g.message.trim().to_owned();
    g.thinking = g.thinking.trim().to_owned();
    g
}

/// Cuts `s` at random char boundaries.
fn random_pieces<'a>(rng: &mut Rng, s: &'a str) -> Vec<&'a str> {
    let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).skip(1).collect();
    let mut cuts: Vec<usize> =
        (0..rng.below(bounds.len().min(30) + 1)).map(|_| bounds[rng.below(bounds.len())]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut pieces = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([s.len()]) {
        pieces.push(&s[start..cut]);
        start = cut;
    }
    pieces
}

fn contains_tool_marker(s: &str) -> bool {
    s.match_indices("[[tool:").any(|(i, _)| {
        let rest = &s[i + 7..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && rest[digits..].starts_with("]]")
    })
}

#[test]
fn random_text_with_markers_cleans_exactly() {
    let seed = common::seed();
    eprintln!("CHATSTREAM_SEED={seed}");
    let mut rng = Rng(seed);
    for run in 0..2000 {
        let g = generate(&mut rng);
        let pieces = random_pieces(&mut rng, &g.raw);
        let events = clean(pieces.iter().map(|p| text(p)).chain([ProviderEvent::End]));
        let how = format!("run {run} (CHATSTREAM_SEED={seed}): {:?} cut as {pieces:?}", g.raw);
        let payload = complete(&events);
        assert_eq!(text_deltas(&events).concat(), g.text, "{how}: text deltas");
        assert_eq!(payload.text, g.text, "{how}: text");
        assert_eq!(payload.message, g.message, "{how}: message");
        assert_eq!(payload.thinking.as_deref().unwrap_or(""), g.thinking, "{how}: thinking");
        assert_eq!(thinking_deltas(&events).concat(), g.thinking, "{how}: thinking deltas");
        assert_eq!(payload.suggested_values, g.suggested_values, "{how}: suggested_values");
        assert_eq!(payload.suggested_actions, g.suggested_actions, "{how}: suggested_actions");
        assert_eq!(payload.custom_payload, g.custom_payload, "{how}: custom_payload");
        assert!(errors(&events).is_empty(), "{how}: {:?}", errors(&events));
        // The joined deltas equal to the text already show that no piece of a marker leaked;
        // this checks each delta on its own too.
        let whole_markers = ["<think>", "</think>", "SUGGESTED_VALUES:", "SUGGESTED_ACTIONS:", "SCHEMA_PROPOSAL:"];
        for delta in text_deltas(&events) {
            for forbidden in whole_markers.iter().chain(&["\u{2404}", "▌"]) {
                assert!(!delta.contains(forbidden), "{how}: delta {delta:?} contains {forbidden:?}");
            }
            assert!(!contains_tool_marker(delta), "{how}: delta {delta:?} contains a tool marker");
        }
    }
}

/// The hold-back rule: after every push, what has gone out is the start of what the text so far
/// means, and what is held beyond whitespace is no longer than the longest marker
/// (`SUGGESTED_ACTIONS:`, 18 bytes) unless a payload's JSON is open.
#[test]
fn only_a_possible_marker_is_held_back() {
    let seed = common::seed();
    eprintln!("CHATSTREAM_SEED={seed}");
    let mut rng = Rng(seed);
    for run in 0..300 {
        let g = generate(&mut rng);
        let pieces = random_pieces(&mut rng, &g.raw);
        let mut cleaner = Cleaner::new(CleanOptions::default());
        let mut events = Vec::new();
        let mut so_far = String::new();
        for piece in &pieces {
            cleaner.push(text(piece), &mut events);
            so_far.push_str(piece);
            let emitted = text_deltas(&events).concat();
            // What the text so far means, were it to end here.
            let whole = clean([text(&so_far), ProviderEvent::End]);
            let meant = &complete(&whole).text;
            let how = format!("run {run} (CHATSTREAM_SEED={seed}): after {so_far:?}");
            assert!(meant.starts_with(&emitted), "{how}: emitted {emitted:?}, the text means {meant:?}");
            let payload_open = !errors(&whole).is_empty();
            if !payload_open {
                let held = meant[emitted.len()..].trim_start();
                assert!(held.len() <= 18, "{how}: holding {held:?}");
            }
        }
    }
}

#[test]
fn a_marker_split_across_other_events_is_still_a_marker() {
    let events = clean([
        text("A [[to"),
        ProviderEvent::Usage(Usage::default()),
        ProviderEvent::Status("working".into()),
        text("ol:"),
        ProviderEvent::Thinking("hmm".into()),
        text("0]] B"),
        ProviderEvent::End,
    ]);
    assert_eq!(text_deltas(&events), ["A", "  B"]);
    assert_eq!(complete(&events).message, "A [[tool:0]] B");
}

#[test]
fn held_text_goes_out_in_the_push_that_decides_it() {
    let mut cleaner = Cleaner::new(CleanOptions::default());
    let mut events = Vec::new();
    let mut push = |s: &str| {
        let before = events.len();
        cleaner.push(text(s), &mut events);
        text_deltas(&events[before..]).concat()
    };
    assert_eq!(push("Hello wor"), "Hello wor");
    assert_eq!(push("ld [[to"), "ld");
    assert_eq!(push("ol:7"), "");
    assert_eq!(push("]"), "");
    assert_eq!(push("] next"), "  next");
    assert_eq!(push(" [[C"), " [[C");
    assert_eq!(push("RISPR]] <thi"), "RISPR]]");
    assert_eq!(push("s> SUGGESTED_VAL"), " <this>");
    assert_eq!(push("UES: [\"a ]\", "), "");
    assert_eq!(push("\"b\"] done"), "  done");
}

// ---------------------------------------------------------------------------------------------
// End markers (␄) and unwanted characters.

/// Every way the end marker (␄) can arrive: anywhere in the text, alone, at the very end.
const END_MARKED: &str = "\u{2404}Hello\u{2404}, wor\u{2404}\u{2404}ld.\u{2404}\n\nBye\u{2404}";

#[test]
fn ch_t1_text_deltas_have_no_end_markers() {
    for pieces in splits(END_MARKED) {
        let events = clean(pieces.iter().map(|p| text(p)).chain([text("\u{2404}"), ProviderEvent::End]));
        for delta in text_deltas(&events) {
            assert!(!delta.contains('\u{2404}'), "{pieces:?}: {delta:?}");
        }
        assert_eq!(text_deltas(&events).concat(), "Hello, world.\n\nBye", "{pieces:?}");
    }
}

#[test]
fn ch_t2_thinking_deltas_have_no_end_markers() {
    for pieces in splits(END_MARKED) {
        // Provider-native thinking, and inline thinking in the text.
        let native = pieces.iter().map(|p| ProviderEvent::Thinking((*p).into()));
        let inline = std::iter::once(text("<think>")).chain(pieces.iter().map(|p| text(p))).chain([text("</think>")]);
        for events in [clean(native.chain([ProviderEvent::End])), clean(inline.chain([ProviderEvent::End]))] {
            for delta in thinking_deltas(&events) {
                assert!(!delta.contains('\u{2404}'), "{pieces:?}: {delta:?}");
            }
            assert_eq!(thinking_deltas(&events).concat(), "Hello, world.\n\nBye", "{pieces:?}");
        }
    }
}

#[test]
fn ch_t3_complete_has_clean_final_text() {
    let raw = "\n\n\u{2404} Here are the results\u{7}...▌\n\n[[tool:0]]\n\nI found 5.\r\nSUGGESTED_VALUES: [\"more\"]\u{2404}\n ";
    for pieces in splits(raw) {
        let events = clean(pieces.iter().map(|p| text(p)).chain([ProviderEvent::End]));
        let payload = complete(&events);
        assert_eq!(payload.text, "Here are the results...\n\n\n\nI found 5.", "{pieces:?}");
        assert_eq!(payload.message, "Here are the results...\n\n[[tool:0]]\n\nI found 5.", "{pieces:?}");
        assert_eq!(payload.suggested_values, Some(json!(["more"])), "{pieces:?}");
    }
}

#[test]
fn ch_t4_complete_has_clean_thinking() {
    let events = clean([
        ProviderEvent::Thinking("\n First\u{2404}, ".into()),
        ProviderEvent::Thinking("second\u{0}.▌\u{2404}\n".into()),
        text("<think> and inline\u{2404}</think>Answer"),
        ProviderEvent::End,
    ]);
    let payload = complete(&events);
    assert_eq!(payload.thinking.as_deref(), Some("First, second.\n and inline"));
    assert_eq!(thinking_deltas(&events).concat(), "First, second.\n and inline");
    assert_eq!(payload.text, "Answer");
}

#[test]
fn ch_t5_cancel_emits_complete_with_partial_content() {
    let mut cleaner = Cleaner::new(CleanOptions::default());
    let mut events = Vec::new();
    for event in [
        ProviderEvent::Thinking("Considering.".into()),
        text("The answer is"),
        ProviderEvent::ToolCallStart { id: "call_9".into(), name: "lookup".into() },
        ProviderEvent::ToolCallDelta { id: "call_9".into(), delta: r#"{"term": "CRIS"#.into() },
        text(" SUGGESTED_VALUES: [\"a\""),
    ] {
        cleaner.push(event, &mut events);
    }
    cleaner.cancel(&mut events);
    assert_eq!(&kinds(&events)[events.len() - 2..], ["complete", "cancelled"]);
    let payload = complete(&events);
    assert_eq!(payload.thinking.as_deref(), Some("Considering."));
    // The unterminated payload is part of the partial text, not lost.
    assert_eq!(payload.text, "The answer is SUGGESTED_VALUES: [\"a\"");
    assert_eq!(payload.tool_history.len(), 1);
    assert_eq!(payload.tool_history[0].input, json!({"term": "CRIS"}));
    assert_eq!(payload.message, "The answer is[[tool:0]] SUGGESTED_VALUES: [\"a\"");
    // No tool_call for arguments that were cut off.
    assert!(!kinds(&events).contains(&"tool_call".to_owned()));
}

#[test]
fn ch_t6_tool_errors_dont_stop_the_stream() {
    let events = clean([
        text("Searching."),
        ProviderEvent::ToolRun { id: Some("t1".into()), name: "search".into(), input: json!({"q": "x"}) },
        ProviderEvent::ToolResult {
            id: Some("t1".into()),
            name: None,
            index: None,
            output: json!("Error: timed out"),
            is_error: true,
        },
        text("[[tool:0]]The search failed; trying again."),
        ProviderEvent::ToolRun { id: Some("t2".into()), name: "search".into(), input: json!({"q": "x"}) },
        ProviderEvent::ToolResult {
            id: Some("t2".into()),
            name: None,
            index: None,
            output: json!("3 hits"),
            is_error: false,
        },
        text("[[tool:1]]Found 3."),
        ProviderEvent::End,
    ]);
    assert!(errors(&events).is_empty(), "a tool error is not a stream error: {:?}", errors(&events));
    assert!(events.iter().any(|e| matches!(e, StreamEvent::ToolComplete { index: 0, is_error: true, .. })));
    let payload = complete(&events);
    assert_eq!(payload.text, "Searching.The search failed; trying again.Found 3.");
    assert_eq!(payload.tool_history.iter().map(|r| r.is_error).collect::<Vec<_>>(), [true, false]);
    assert!(
        matches!(&payload.segments[1], Segment::Tool { index: 0, is_error: true, output, .. } if *output == json!("Error: timed out"))
    );
}

// ---------------------------------------------------------------------------------------------
// Payload precedence and the stored-message helpers.

#[test]
fn tool_payloads_take_precedence_over_llm_payloads() {
    let mut fields = Map::new();
    fields.insert("custom_payload".into(), json!({"type": "pubmed_search_results", "data": {"n": 5}}));
    let events = clean([
        text("Here's my proposal: SCHEMA_PROPOSAL: {\"tables\": []} SUGGESTED_VALUES: [\"x\"]"),
        ProviderEvent::Payload(fields),
        ProviderEvent::End,
    ]);
    let payload = complete(&events);
    assert_eq!(payload.custom_payload, Some(json!({"type": "pubmed_search_results", "data": {"n": 5}})));
    // What the backend did not send still comes from the text.
    assert_eq!(payload.suggested_values, Some(json!(["x"])));
}

#[test]
fn tool_history_in_custom_payload_is_read_as_tool_history() {
    let mut fields = Map::new();
    fields.insert("message".into(), json!("Let me search for that...\n\n[[tool:0]]\n\nI found 5 relevant articles."));
    fields.insert(
        "custom_payload".into(),
        json!({"type": "tool_history", "data": [{"tool_name": "search_articles", "input": {"query": "CRISPR"}, "output": "Found 5 articles: ..."}]}),
    );
    let events = clean([ProviderEvent::Payload(fields), ProviderEvent::End]);
    let payload = complete(&events);
    assert_eq!(payload.tool_history.len(), 1);
    assert_eq!(payload.tool_history[0].tool_name, "search_articles");
    assert_eq!(payload.tool_history[0].tool_use_id, "");
    assert!(matches!(&payload.segments[1], Segment::Tool { tool: Some(t), .. } if t == "search_articles"));
}

#[test]
fn resolve_tool_markers_places_cards_from_tool_history() {
    let history = [ToolRecord {
        tool_name: "search_articles".into(),
        tool_use_id: "toolu_1".into(),
        input: json!({"query": "CRISPR"}),
        output: json!("Found 5 articles: ..."),
        is_error: false,
    }];
    let segments = resolve_tool_markers(
        "Let me search...\n\n[[tool:0]]\n\nFound them. [[tool:3]] [[CRISPR]] [[tool:0]]",
        &history,
    );
    let card = Segment::Tool {
        index: 0,
        tool_use_id: Some("toolu_1".into()),
        tool: Some("search_articles".into()),
        input: json!({"query": "CRISPR"}),
        output: json!("Found 5 articles: ..."),
        is_error: false,
    };
    assert_eq!(
        segments,
        [
            Segment::Text { text: "Let me search...".into() },
            card.clone(),
            Segment::Text { text: "Found them.".into() },
            // A marker for a tool that never ran: a card with nothing in it.
            Segment::Tool {
                index: 3,
                tool_use_id: None,
                tool: None,
                input: Value::Null,
                output: Value::Null,
                is_error: false
            },
            Segment::Text { text: "[[CRISPR]]".into() },
            card,
        ]
    );
    assert_eq!(resolve_tool_markers("", &history), []);
    assert_eq!(resolve_tool_markers("plain", &[]), [Segment::Text { text: "plain".into() }]);
}

#[test]
fn parse_llm_response_reports_malformed_payloads() {
    let parsed = parse_llm_response("Ok. SUGGESTED_ACTIONS: [{\"label\": }]", &CleanOptions::default());
    assert_eq!(parsed.text, "Ok. SUGGESTED_ACTIONS: [{\"label\": }]");
    assert_eq!(parsed.suggested_actions, None);
    assert_eq!(parsed.diagnostics.len(), 1);
    assert!(parsed.diagnostics[0].starts_with("SUGGESTED_ACTIONS: was left in the text"), "{}", parsed.diagnostics[0]);
}

#[test]
fn a_payload_too_long_to_hold_is_released_before_the_end() {
    let mut cleaner = Cleaner::new(CleanOptions::default());
    let mut events = Vec::new();
    let mut raw = String::from("Values: SUGGESTED_VALUES: [");
    cleaner.push(text(&raw), &mut events);
    let mut released_at = None;
    for i in 0..150_000 {
        cleaner.push(text("1,"), &mut events);
        raw.push_str("1,");
        if released_at.is_none() && !errors(&events).is_empty() {
            released_at = Some(i);
        }
    }
    // Released once the JSON passed 256 KiB (about 131,000 pieces of 2 bytes), not at the end.
    let released_at = released_at.expect("released before the end");
    assert!((130_000..135_000).contains(&released_at), "released after {released_at} pieces");
    assert_eq!(errors(&events)[0].2, Some("suggested_values"));
    cleaner.push(ProviderEvent::End, &mut events);
    assert_eq!(complete(&events).text, raw);
    assert_eq!(text_deltas(&events).concat(), raw);
}

#[test]
fn a_registered_marker_may_start_like_a_tag() {
    let mut options = CleanOptions::default();
    options.payload_markers.push(PayloadMarker { marker: "<CHART>".into(), type_name: "chart".into() });
    let case = Case {
        custom_payload: Some(json!({"type": "chart", "data": {"x": [1]}})),
        thinking: Some("t"),
        ..Case::plain("tag-like marker", "<think>t</think>See <CHART>{\"x\": [1]}", "See", "See")
    };
    check_case(&case, &options);
}

#[test]
fn streamed_tool_input_one_character_at_a_time() {
    let arguments = format!(r#"{{"query": "{}", "ids": [{}]}}"#, "CRISPR ".repeat(300), vec!["42"; 400].join(", "));
    let mut events = vec![ProviderEvent::ToolCallStart { id: "c".into(), name: "search".into() }];
    events.extend(arguments.chars().map(|c| ProviderEvent::ToolCallDelta { id: "c".into(), delta: c.to_string() }));
    events.extend([ProviderEvent::ToolCallEnd { id: "c".into(), name: None, input: None }, ProviderEvent::End]);
    let events = clean(events);
    let partials: Vec<&Value> = events
        .iter()
        .filter_map(
            |e| if let StreamEvent::ToolInputDelta { partial_input, .. } = e { Some(partial_input) } else { None },
        )
        .collect();
    assert_eq!(partials.len(), arguments.chars().count());
    // After `{"query": "CRISPR` the partial string is kept; after the whole text, the value.
    assert_eq!(partials[16], &json!({"query": "CRISPR"}));
    let whole: Value = serde_json::from_str(&arguments).unwrap();
    assert_eq!(partials[partials.len() - 1], &whole);
    assert!(events.iter().any(|e| matches!(e, StreamEvent::ToolCall { input, .. } if *input == whole)));
}

/// With `partial_input` off (what the JS bindings do) the deltas carry `null` and nothing else
/// changes; `clean::partial_input` gives the value a caller asks for.
#[test]
fn partial_input_off_leaves_the_field_null_and_the_rest_alone() {
    let stream = || {
        [
            ProviderEvent::ToolCallStart { id: "c".into(), name: "search".into() },
            ProviderEvent::ToolCallDelta { id: "c".into(), delta: r#"{"query": "CRI"#.into() },
            ProviderEvent::ToolCallDelta { id: "c".into(), delta: r#"SPR", "lim"#.into() },
            ProviderEvent::End,
        ]
    };
    let on = clean(stream());
    let off = clean_with(CleanOptions { partial_input: false, ..CleanOptions::default() }, stream());
    let partials = |events: &[StreamEvent]| -> Vec<Value> {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolInputDelta { partial_input, .. } => Some(partial_input.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(partials(&on), [json!({"query": "CRI"}), json!({"query": "CRISPR"})]);
    assert_eq!(partials(&off), [Value::Null, Value::Null]);
    let without_partials = |events: &[StreamEvent]| -> Vec<StreamEvent> {
        let mut events = events.to_vec();
        for e in &mut events {
            if let StreamEvent::ToolInputDelta { partial_input, .. } = e {
                *partial_input = Value::Null;
            }
        }
        events
    };
    assert_eq!(without_partials(&on), off);
    assert_eq!(chatstream::clean::partial_input(r#"{"query": "CRISPR", "lim"#), json!({"query": "CRISPR"}));
}

/// Any sequence of provider events, however odd (results before starts, deltas for unknown calls,
/// events after the end), gives exactly one `complete`, followed by at most an `error` or
/// `cancelled`, and never panics.
#[test]
fn random_event_sequences_complete_exactly_once() {
    let seed = common::seed();
    eprintln!("CHATSTREAM_SEED={seed}");
    let mut rng = Rng(seed);
    let ids = ["a", "b", "c"];
    for run in 0..3000 {
        let mut cleaner = Cleaner::new(CleanOptions::default());
        let mut events = Vec::new();
        for _ in 0..rng.below(25) {
            let id = ids[rng.below(3)].to_owned();
            let event = match rng.below(14) {
                0 => text(FILLER[rng.below(FILLER.len())]),
                1 => text("[[tool:1]]"),
                2 => ProviderEvent::Thinking("t".into()),
                3 => ProviderEvent::ToolCallStart { id, name: "f".into() },
                4 => ProviderEvent::ToolCallDelta { id, delta: ["{\"a\"", ": 1", "}", "x", ""][rng.below(5)].into() },
                5 => ProviderEvent::ToolCallEnd { id, name: None, input: None },
                6 => ProviderEvent::ToolRun {
                    id: Some(id).filter(|_| rng.below(2) == 0),
                    name: "g".into(),
                    input: json!({}),
                },
                7 => ProviderEvent::ToolResult {
                    id: Some(id).filter(|_| rng.below(2) == 0),
                    name: None,
                    index: Some(rng.below(4) as u32).filter(|_| rng.below(2) == 0),
                    output: json!("out"),
                    is_error: rng.below(2) == 0,
                },
                8 => ProviderEvent::Payload(Map::from_iter([("message".to_owned(), json!("m [[tool:0]]"))])),
                9 => ProviderEvent::Error {
                    code: ErrorCode::ServiceUnavailable,
                    message: "e".into(),
                    fatal: rng.below(2) == 0,
                },
                10 => ProviderEvent::End,
                11 => ProviderEvent::Cancelled,
                12 => text("SUGGESTED_VALUES: [1"),
                _ => ProviderEvent::Finish { reason: "stop".into() },
            };
            cleaner.push(event, &mut events);
        }
        let was_complete = cleaner.is_complete();
        let cancelled = rng.below(2) == 0;
        let before_end = events.len();
        if cancelled {
            cleaner.cancel(&mut events);
        } else {
            cleaner.finish(&mut events);
        }
        if was_complete {
            // After `complete`, cancel is a CONFLICT and finish does nothing.
            let expected: &[&str] = if cancelled { &["error"] } else { &[] };
            assert_eq!(kinds(&events[before_end..]), expected);
            if cancelled {
                assert!(matches!(events.pop(), Some(StreamEvent::Error { code: ErrorCode::Conflict, .. })));
            }
        }
        let how = format!("run {run} (CHATSTREAM_SEED={seed}): {:?}", kinds(&events));
        let at = events.iter().position(|e| matches!(e, StreamEvent::Complete { .. })).expect(&how);
        assert_eq!(events.iter().filter(|e| matches!(e, StreamEvent::Complete { .. })).count(), 1, "{how}");
        let after = &kinds(&events)[at + 1..];
        assert!(after.is_empty() || after == ["error"] || after == ["cancelled"], "{how}");
        // Every tool_complete and tool_call names a tool that started before it.
        let mut started = Vec::new();
        for event in &events {
            match event {
                StreamEvent::ToolStart { index, .. } => started.push(*index),
                StreamEvent::ToolCall { index, .. } | StreamEvent::ToolComplete { index, .. } => {
                    assert!(started.contains(index), "{how}")
                }
                _ => {}
            }
        }
        assert_eq!(complete(&events).tool_history.len(), started.len(), "{how}");
    }
}

#[test]
fn text_around_a_tool_start_that_has_a_marker_later_stays_one_segment() {
    let events = clean([
        text("Searching"),
        ProviderEvent::ToolRun { id: Some("t".into()), name: "s".into(), input: json!({}) },
        text(" now."),
        ProviderEvent::ToolResult { id: Some("t".into()), name: None, index: None, output: json!(1), is_error: false },
        text("\n[[tool:0]]\nDone."),
        ProviderEvent::End,
    ]);
    let payload = complete(&events);
    assert_eq!(payload.message, "Searching now.\n[[tool:0]]\nDone.");
    assert_eq!(payload.segments.len(), 3);
    assert_eq!(payload.segments[0], Segment::Text { text: "Searching now.".into() });
    assert_eq!(payload.segments[2], Segment::Text { text: "Done.".into() });
}
