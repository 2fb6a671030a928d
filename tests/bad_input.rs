//! The catalogue of bad input (tests/bad_input/catalogue.json): each case, under one piece, a byte
//! at a time and random splits, gives exactly one `complete` that keeps what arrived before the
//! bad part, exactly the error codes the catalogue names (none, where the input is tolerated) and,
//! where it lists them, exactly its events; never a panic.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use chatstream::dialect::Dialect;
use chatstream::event::StreamEvent;
use chatstream::stream::StreamOptions;
use serde_json::Value;

struct Case {
    name: String,
    input: Vec<u8>,
    options: StreamOptions,
    spec: Value,
}

fn load() -> Vec<Case> {
    let path = common::fixtures_dir().join("../bad_input/catalogue.json");
    let catalogue: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    catalogue["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|spec| {
            let name = spec["name"].as_str().unwrap().to_owned();
            let input = if let Some(text) = spec["input"].as_str() {
                text.as_bytes().to_vec()
            } else if let Some(hex) = spec["input_hex"].as_str() {
                (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
            } else {
                let r = &spec["input_repeat"];
                let times = r["times"].as_u64().unwrap() as usize;
                format!(
                    "{}{}{}",
                    r["prefix"].as_str().unwrap(),
                    r["unit"].as_str().unwrap().repeat(times),
                    r["suffix"].as_str().unwrap()
                )
                .into_bytes()
            };
            let mut options = StreamOptions::default();
            if let Some(d) = spec["dialect"].as_str() {
                options.dialect = Some(Dialect::from_name(d).unwrap_or_else(|| panic!("{name}: dialect {d}")));
            }
            if let Some(max) = spec["max_frame_bytes"].as_u64() {
                options.max_frame_bytes = max as usize;
            }
            Case { name, input, options, spec: spec.clone() }
        })
        .collect()
}

/// `Err` says how the events break the case's expectations.
fn check(case: &Case, events: &[StreamEvent]) -> Result<(), String> {
    let completes: Vec<&chatstream::event::CompletePayload> = events
        .iter()
        .filter_map(|e| if let StreamEvent::Complete { payload } = e { Some(payload) } else { None })
        .collect();
    if completes.len() != 1 {
        return Err(format!("{} completes", completes.len()));
    }
    let codes: Vec<String> = events
        .iter()
        .filter_map(|e| if let StreamEvent::Error { code, .. } = e { Some(code.as_str().to_owned()) } else { None })
        .collect();
    let spec = &case.spec;
    let Some(expected) = spec["errors"].as_array() else {
        return Err("the case names no expected errors".into());
    };
    let expected: Vec<&str> = expected.iter().map(|c| c.as_str().unwrap()).collect();
    if codes != expected {
        return Err(format!("error codes {codes:?}, expected {expected:?}"));
    }
    if !spec["events"].is_null() {
        let actual = Value::Array(common::canonical(events));
        common::subset(&spec["events"], &actual, "events").map_err(|e| format!("{e}\nactual: {actual}"))?;
    }
    let text = &completes[0].text;
    if let Some(kept) = spec["kept"].as_str() {
        if !text.contains(kept) {
            return Err(format!("{kept:?} was lost: the text is {text:?}"));
        }
    }
    if let Some(never) = spec["not_in_text"].as_str() {
        let streamed: String = events
            .iter()
            .filter_map(|e| if let StreamEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
            .collect();
        if streamed.contains(never) || text.contains(never) {
            return Err(format!("{never:?} reached the text: {streamed:?}"));
        }
    }
    Ok(())
}

#[test]
fn every_bad_input_is_reported_or_tolerated_and_nothing_before_it_is_lost() {
    let cases = load();
    assert!(cases.len() >= 40, "the catalogue has {} cases", cases.len());
    let seed = common::seed();
    let mut failures = Vec::new();
    for case in &cases {
        for (how, cuts) in common::splits(case.input.len(), seed, false, 16, 8) {
            let outcome = catch_unwind(AssertUnwindSafe(|| common::run(&case.options, &case.input, &cuts).0));
            let result = match outcome {
                Ok(events) => check(case, &events),
                Err(_) => Err("panicked".into()),
            };
            if let Err(why) = result {
                failures.push(format!("{}: {how}: {why}", case.name));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
