//! Text rules, each under every split of its text into deltas.
//!
//! The tables are data: `tests/clean/rules/<table>.json`, each an object with an `about` line
//! (what the table checks, what each field means), the `options` it runs with, if any, and its
//! `cases`.

use std::path::Path;

use chatstream::clean::{parse_llm_response, CleanOptions, PayloadMarker};
use chatstream::dialect::ProviderEvent;
use serde::Deserialize;
use serde_json::Value;

use crate::helpers::{clean_with, complete, errors, splits, text, text_deltas, thinking_deltas};

/// One rule file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    about: String,
    /// The options every case runs with, unless the case has its own.
    #[serde(default)]
    options: Options,
    cases: Vec<Case>,
}

/// The cleaning options a table or a case changes; what is absent keeps its default.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Options {
    /// Registered besides the default ones (`SCHEMA_PROPOSAL:`).
    #[serde(default)]
    payload_markers: Vec<Marker>,
    /// Replace the default tags (`think`, `thinking`).
    thinking_tags: Option<Vec<String>>,
    inline_thinking: Option<bool>,
    starts_in_thinking: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Marker {
    marker: String,
    #[serde(rename = "type")]
    type_name: String,
}

impl Options {
    fn clean_options(&self) -> CleanOptions {
        let mut options = CleanOptions::default();
        options.payload_markers.to_mut().extend(
            self.payload_markers
                .iter()
                .map(|m| PayloadMarker { marker: m.marker.clone().into(), type_name: m.type_name.clone().into() }),
        );
        if let Some(tags) = &self.thinking_tags {
            options.thinking_tags = tags.iter().map(|tag| tag.clone().into()).collect();
        }
        if let Some(on) = self.inline_thinking {
            options.inline_thinking = on;
        }
        if let Some(on) = self.starts_in_thinking {
            options.starts_in_thinking = on;
        }
        options
    }
}

/// A null or absent payload field or thinking is `None`; absent diagnostics, none expected.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    input: String,
    /// `complete.payload.text`, and the text deltas joined.
    text: String,
    message: String,
    thinking: Option<String>,
    suggested_values: Option<Value>,
    suggested_actions: Option<Value>,
    custom_payload: Option<Value>,
    /// Non-fatal diagnostics expected, by `field`.
    #[serde(default)]
    diagnostics: Vec<String>,
    /// Replaces the table's options for this case.
    options: Option<Options>,
}

/// Runs every case of `tests/clean/rules/<file>`.
pub fn check_table(file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clean/rules").join(file);
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let table: Table = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!table.about.trim().is_empty(), "{file}: no \"about\"");
    assert!(!table.cases.is_empty(), "{file}: no cases");
    for case in &table.cases {
        check_case(case, &case.options.as_ref().unwrap_or(&table.options).clean_options());
    }
}

/// Runs `case` under every split, checking the joined deltas, the payload and the diagnostics.
fn check_case(case: &Case, options: &CleanOptions) {
    for pieces in splits(&case.input) {
        let events = clean_with(options.clone(), pieces.iter().map(|p| text(p)).chain([ProviderEvent::End]));
        let how = format!("{}: split {pieces:?}", case.name);
        let payload = complete(&events);
        assert_eq!(text_deltas(&events).concat(), case.text, "{how}: text deltas");
        assert_eq!(payload.text, case.text, "{how}: text");
        assert_eq!(payload.message, case.message, "{how}: message");
        assert_eq!(payload.thinking, case.thinking, "{how}: thinking");
        assert_eq!(thinking_deltas(&events).concat(), case.thinking.as_deref().unwrap_or(""), "{how}: thinking deltas");
        assert_eq!(payload.suggested_values, case.suggested_values, "{how}: suggested_values");
        assert_eq!(payload.suggested_actions, case.suggested_actions, "{how}: suggested_actions");
        assert_eq!(payload.custom_payload, case.custom_payload, "{how}: custom_payload");
        let fields: Vec<&str> = errors(&events).iter().map(|e| e.2.unwrap_or("-")).collect();
        assert_eq!(fields, case.diagnostics, "{how}: diagnostics");
        assert!(!text_deltas(&events).contains(&""), "{how}: an empty delta");
    }
    // The stored-message helper reads the whole text the same way.
    let parsed = parse_llm_response(&case.input, options);
    assert_eq!(parsed.text, case.text, "{}: parse_llm_response text", case.name);
    assert_eq!(parsed.message, case.message, "{}: parse_llm_response message", case.name);
    assert_eq!(parsed.thinking, case.thinking, "{}: parse_llm_response thinking", case.name);
    assert_eq!(parsed.suggested_values, case.suggested_values, "{}: parse_llm_response values", case.name);
    assert_eq!(parsed.custom_payload, case.custom_payload, "{}: parse_llm_response custom", case.name);
    assert_eq!(parsed.diagnostics.len(), case.diagnostics.len(), "{}: parse_llm_response diagnostics", case.name);
}

#[test]
fn tool_markers_are_stripped_wherever_they_are_split() {
    check_table("tool-markers.json");
}

#[test]
fn text_that_only_begins_like_a_marker_is_released_unchanged() {
    check_table("marker-lookalikes.json");
}

#[test]
fn inline_thinking_tags_become_thinking() {
    check_table("inline-thinking.json");
}

#[test]
fn output_that_starts_inside_thinking_when_configured() {
    check_table("starts-in-thinking.json");
}

#[test]
fn thinking_tags_are_configurable() {
    check_table("thinking-tags.json");
}

#[test]
fn payload_markers_are_pulled_out_with_their_json() {
    check_table("payload-markers.json");
}

#[test]
fn registered_payload_markers_fill_custom_payload() {
    check_table("registered-payload-markers.json");
}

#[test]
fn malformed_or_unterminated_payloads_are_released_as_text_with_a_diagnostic() {
    check_table("malformed-payloads.json");
}

#[test]
fn everything_together() {
    check_table("everything-together.json");
}
