//! Property tests: random text with markers inserted at random places.

use chatstream::clean::{CleanOptions, Cleaner};
use chatstream::dialect::ProviderEvent;
use chatstream::event::{StreamEvents, Usage};
use serde_json::{json, Map, Value};

use crate::common::{self, Rng};
use crate::helpers::{clean, complete, errors, text, text_deltas, thinking_deltas};

/// Filler words, chosen to look like the start of markers without being one.
pub const FILLER: &[&str] = &[
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
    let mut cuts = common::random_cuts(rng, &common::char_bounds(s), 30);
    cuts.dedup();
    common::cut(s, s.len(), &cuts)
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
            cleaner.push(text(piece), &mut StreamEvents::new(&mut events));
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
        cleaner.push(text(s), &mut StreamEvents::new(&mut events));
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
