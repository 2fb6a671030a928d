//! ChatStream's batching: what one push returns.

use chatstream::event::StreamEvent;
use chatstream::stream::{ChatStream, StreamOptions};
use serde_json::json;

fn input_delta(partial: &str) -> String {
    let data = json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": partial}});
    format!("event: content_block_delta\ndata: {data}\n\n")
}

fn tool_stream() -> (String, Vec<String>) {
    let start = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n",
    );
    let pieces = ["{\"q\": \"ab", "cd\", \"n\"", ": 4}"].map(input_delta).to_vec();
    (start.to_owned(), pieces)
}

fn input_deltas(events: &[StreamEvent]) -> Vec<(String, serde_json::Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolInputDelta { delta, partial_input, .. } => Some((delta.clone(), partial_input.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn argument_pieces_in_one_push_come_out_as_one_delta_with_one_partial_input() {
    let (start, pieces) = tool_stream();
    let mut stream = ChatStream::new(StreamOptions::default());
    let mut events = Vec::new();
    stream.push(start.as_bytes(), &mut events);
    stream.push(pieces.concat().as_bytes(), &mut events);
    assert_eq!(input_deltas(&events), [("{\"q\": \"abcd\", \"n\": 4}".to_owned(), json!({"q": "abcd", "n": 4}))]);
}

#[test]
fn argument_pieces_in_separate_pushes_each_get_their_partial_input() {
    let (start, pieces) = tool_stream();
    let mut stream = ChatStream::new(StreamOptions::default());
    let mut events = Vec::new();
    stream.push(start.as_bytes(), &mut events);
    for piece in &pieces {
        stream.push(piece.as_bytes(), &mut events);
    }
    let partials: Vec<serde_json::Value> = input_deltas(&events).into_iter().map(|(_, p)| p).collect();
    assert_eq!(partials, [json!({"q": "ab"}), json!({"q": "abcd"}), json!({"q": "abcd", "n": 4})]);
}

/// No ␄ end markers in text or thinking deltas, and clean final text
/// and thinking in `complete` — with the markers arriving inside and across deltas.
#[test]
fn no_end_markers_in_deltas_or_complete() {
    let delta = |kind: &str, text: &str| format!("data: {}\n\n", json!({"type": kind, "text": text}));
    let body = [
        delta("thinking_delta", "Let me \u{2404}think"),
        delta("thinking_delta", " it over\u{2404}"),
        delta("text_delta", "The answer\u{2404}"),
        delta("text_delta", " is 4.\u{2404}\u{2404}"),
        "data: {\"type\":\"complete\",\"payload\":{}}\n\n".to_owned(),
    ]
    .concat();
    for cut in 0..=body.len() {
        let mut stream = ChatStream::new(StreamOptions::default());
        let mut events = Vec::new();
        stream.push(&body.as_bytes()[..cut], &mut events);
        stream.push(&body.as_bytes()[cut..], &mut events);
        stream.finish(&mut events);
        for event in &events {
            match event {
                StreamEvent::TextDelta { text } | StreamEvent::ThinkingDelta { text } => {
                    assert!(!text.contains('\u{2404}'), "cut {cut}: {text:?}")
                }
                StreamEvent::Complete { payload } => {
                    assert_eq!(payload.text, "The answer is 4.", "cut {cut}");
                    assert_eq!(payload.thinking.as_deref(), Some("Let me think it over"), "cut {cut}");
                }
                _ => {}
            }
        }
    }
}

/// The answer's text and `complete`'s count of invalid UTF-8, for `body` pushed in two pieces.
fn text_and_invalid_utf8(body: &[u8], cut: usize) -> (String, u64) {
    let mut stream = ChatStream::new(StreamOptions::default());
    let mut events = Vec::new();
    stream.push(&body[..cut], &mut events);
    stream.push(&body[cut..], &mut events);
    stream.finish(&mut events);
    let completes: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Complete { payload } => Some((payload.text.to_string(), payload.invalid_utf8)),
            _ => None,
        })
        .collect();
    assert_eq!(completes.len(), 1, "one complete: {events:?}");
    completes[0].clone()
}

/// Invalid UTF-8 becomes U+FFFD, as a browser's decoder makes it, and `complete` counts the
/// replacements; a valid character cut between two pushes is not one, however it is cut.
#[test]
fn invalid_utf8_is_replaced_and_counted_but_a_split_character_is_not() {
    let valid = "data: {\"type\":\"text_delta\",\"text\":\"é€😀\"}\n\ndata: {\"type\":\"complete\",\"payload\":{}}\n\n";
    let mut invalid = b"data: {\"type\":\"text_delta\",\"text\":\"a\xffb\xe2\x82c\"}\n\n".to_vec();
    invalid.extend_from_slice(b"data: {\"type\":\"complete\",\"payload\":{}}\n\n");
    for cut in 0..=valid.len() {
        assert_eq!(text_and_invalid_utf8(valid.as_bytes(), cut), ("é€😀".to_owned(), 0), "cut at {cut}");
    }
    for cut in 0..=invalid.len() {
        assert_eq!(text_and_invalid_utf8(&invalid, cut), ("a\u{fffd}b\u{fffd}c".to_owned(), 2), "cut at {cut}");
    }
}

/// The count covers the frames up to the message's end: what follows the end is not read, so
/// its invalid UTF-8 is not counted, wherever the body is cut (in one push with the end or in
/// a later one). SSE and newline-delimited JSON alike.
#[test]
fn invalid_utf8_after_the_end_is_not_counted_however_the_body_is_cut() {
    let sse = b"data: {\"type\":\"text_delta\",\"text\":\"a\xff\"}\n\ndata: {\"type\":\"complete\",\"payload\":{}}\n\ndata: \xfe\xff\n\n";
    let ndjson = b"{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"a\xff\"},\"done\":false}\n\
        {\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true}\n\xfe\xff\n";
    for body in [&sse[..], &ndjson[..]] {
        for cut in 0..=body.len() {
            assert_eq!(text_and_invalid_utf8(body, cut), ("a\u{fffd}".to_owned(), 1), "cut at {cut}");
        }
    }
}

/// A frame too large after the message's end is not read either: the events are those of the
/// body without it, whether it arrives in the push of the end or in a later one.
#[test]
fn a_frame_too_large_after_the_end_adds_nothing_however_the_body_is_cut() {
    // An OpenAI answer: its cleaner completes at `finish`, so what follows `[DONE]` could still reach it.
    let answer = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n";
    let tail = format!("data: {}\n\ndata: \u{fe}\n\n", "x".repeat(200));
    let events_of = |pieces: &[&[u8]]| {
        let mut stream = ChatStream::new(StreamOptions { max_frame_bytes: 100, ..StreamOptions::default() });
        let mut events = Vec::new();
        for piece in pieces {
            stream.push(piece, &mut events);
        }
        stream.finish(&mut events);
        events
    };
    let expected = events_of(&[answer.as_bytes()]);
    assert!(matches!(expected.last(), Some(StreamEvent::Complete { .. })), "{expected:?}");
    let body = format!("{answer}{tail}");
    for cut in 0..=body.len() {
        let got = events_of(&[&body.as_bytes()[..cut], &body.as_bytes()[cut..]]);
        assert_eq!(format!("{got:?}"), format!("{expected:?}"), "cut at {cut}");
    }
}
