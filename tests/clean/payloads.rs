//! Payload precedence and the stored-message helpers.

use chatstream::clean::{parse_llm_response, resolve_tool_markers, CleanOptions, Cleaner};
use chatstream::dialect::ProviderEvent;
use chatstream::error::ErrorCode;
use chatstream::event::{Segment, StreamEvent, StreamEvents, ToolRecord};
use serde_json::{json, Map, Value};

use crate::common::{self, Rng};
use crate::helpers::{clean, clean_with, complete, errors, kinds, text, text_deltas};
use crate::properties::FILLER;
use crate::text_rules::check_table;

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
        input: json!({"query": "CRISPR"}).into(),
        output: json!("Found 5 articles: ...").into(),
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
        input: json!({"query": "CRISPR"}).into(),
        output: json!("Found 5 articles: ...").into(),
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
                input: Value::Null.into(),
                output: Value::Null.into(),
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
fn a_payload_inside_one_that_never_closes_is_still_found() {
    let answer = "Pick. SUGGESTED_VALUES: [\"a\", \"b\"\nSUGGESTED_ACTIONS: [{\"label\": \"Go\"}] Done.";
    let parsed = parse_llm_response(answer, &CleanOptions::default());
    assert_eq!(parsed.suggested_actions, Some(json!([{"label": "Go"}])));
    assert_eq!(parsed.suggested_values, None);
    assert_eq!(parsed.text, "Pick. SUGGESTED_VALUES: [\"a\", \"b\"\n Done.");
    assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
}

#[test]
fn a_payload_too_long_to_hold_is_released_before_the_end() {
    let mut cleaner = Cleaner::new(CleanOptions::default());
    let mut events = Vec::new();
    let mut raw = String::from("Values: SUGGESTED_VALUES: [");
    cleaner.push(text(&raw), &mut StreamEvents::new(&mut events));
    let mut released_at = None;
    for i in 0..150_000 {
        cleaner.push(text("1,"), &mut StreamEvents::new(&mut events));
        raw.push_str("1,");
        if released_at.is_none() && !errors(&events).is_empty() {
            released_at = Some(i);
        }
    }
    // Released once the JSON passed 256 KiB (about 131,000 pieces of 2 bytes), not at the end.
    let released_at = released_at.expect("released before the end");
    assert!((130_000..135_000).contains(&released_at), "released after {released_at} pieces");
    assert_eq!(errors(&events)[0].2, Some("suggested_values"));
    cleaner.push(ProviderEvent::End, &mut StreamEvents::new(&mut events));
    assert_eq!(complete(&events).text, raw);
    assert_eq!(text_deltas(&events).concat(), raw);
}

#[test]
fn a_registered_marker_may_start_like_a_tag() {
    check_table("tag-like-marker.json");
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
    assert!(events.iter().any(
        |e| matches!(e, StreamEvent::ToolCall { input, .. } if *input == <Value as Clone>::clone(&whole).clone().into())
    ));
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
            cleaner.push(event, &mut StreamEvents::new(&mut events));
        }
        let was_complete = cleaner.is_complete();
        let cancelled = rng.below(2) == 0;
        let before_end = events.len();
        if cancelled {
            cleaner.cancel(&mut StreamEvents::new(&mut events));
        } else {
            cleaner.finish(&mut StreamEvents::new(&mut events));
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
