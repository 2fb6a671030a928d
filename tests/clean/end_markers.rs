//! End markers (␄) and unwanted characters.

use chatstream::clean::{CleanOptions, Cleaner};
use chatstream::dialect::ProviderEvent;
use chatstream::event::{Segment, StreamEvent, StreamEvents};
use serde_json::json;

use crate::helpers::{clean, complete, errors, kinds, splits, text, text_deltas, thinking_deltas};

/// Every way the end marker (␄) can arrive: anywhere in the text, alone, at the very end.
const END_MARKED: &str = "\u{2404}Hello\u{2404}, wor\u{2404}\u{2404}ld.\u{2404}\n\nBye\u{2404}";

#[test]
fn text_deltas_have_no_end_markers() {
    for pieces in splits(END_MARKED) {
        let events = clean(pieces.iter().map(|p| text(p)).chain([text("\u{2404}"), ProviderEvent::End]));
        for delta in text_deltas(&events) {
            assert!(!delta.contains('\u{2404}'), "{pieces:?}: {delta:?}");
        }
        assert_eq!(text_deltas(&events).concat(), "Hello, world.\n\nBye", "{pieces:?}");
    }
}

#[test]
fn thinking_deltas_have_no_end_markers() {
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
fn complete_has_clean_final_text() {
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
fn complete_has_clean_thinking() {
    let events = clean([
        ProviderEvent::Thinking("\n First\u{2404}, ".into()),
        ProviderEvent::Thinking("second\u{0}.▌\u{2404}\n".into()),
        text("<think> and inline\u{2404}</think>Answer"),
        ProviderEvent::End,
    ]);
    let payload = complete(&events);
    // The provider's thinking and the inline thinking are two passages.
    assert_eq!(payload.thinking.as_deref(), Some("First, second.\n\nand inline"));
    assert_eq!(thinking_deltas(&events).concat(), "First, second.\n\nand inline");
    assert_eq!(payload.text, "Answer");
}

#[test]
fn cancel_emits_complete_with_partial_content() {
    let mut cleaner = Cleaner::new(CleanOptions::default());
    let mut events = Vec::new();
    for event in [
        ProviderEvent::Thinking("Considering.".into()),
        text("The answer is"),
        ProviderEvent::ToolCallStart { id: "call_9".into(), name: "lookup".into() },
        ProviderEvent::ToolCallDelta { id: "call_9".into(), delta: r#"{"term": "CRIS"#.into() },
        text(" SUGGESTED_VALUES: [\"a\""),
    ] {
        cleaner.push(event, &mut StreamEvents::new(&mut events));
    }
    cleaner.cancel(&mut StreamEvents::new(&mut events));
    assert_eq!(&kinds(&events)[events.len() - 2..], ["complete", "cancelled"]);
    let payload = complete(&events);
    assert_eq!(payload.thinking.as_deref(), Some("Considering."));
    // The unterminated payload is part of the partial text, not lost.
    assert_eq!(payload.text, "The answer is SUGGESTED_VALUES: [\"a\"");
    assert_eq!(payload.tool_history.len(), 1);
    assert_eq!(payload.tool_history[0].input, json!({"term": "CRIS"}).into());
    assert_eq!(payload.message, "The answer is[[tool:0]] SUGGESTED_VALUES: [\"a\"");
    // No tool_call for arguments that were cut off.
    assert!(!kinds(&events).contains(&"tool_call".to_owned()));
}

#[test]
fn tool_errors_dont_stop_the_stream() {
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
        matches!(&payload.segments[1], Segment::Tool { index: 0, is_error: true, output, .. } if *output == json!("Error: timed out").into())
    );
}
