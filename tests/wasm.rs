//! The browser suite: the wasm build in headless Chromium (`./build.sh test` runs it).
//! Every fixture goes through the pipeline compiled to wasm, under the same splits as natively.
#![cfg(target_arch = "wasm32")]

mod common;

use chatstream::event::StreamEvent;
use chatstream::stream::{ChatStream, StreamOptions};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const FIXTURES: &[(&str, &[u8], &str)] = chatstream_embed_fixtures::embed_fixtures!("tests/fixtures");

/// Resolves on the next macrotask, so the page (and the test runner polling it) stays responsive.
async fn yield_to_browser() {
    #[wasm_bindgen::prelude::wasm_bindgen(
        inline_js = "export function nextTask() { return new Promise(r => setTimeout(r, 0)); }"
    )]
    extern "C" {
        #[wasm_bindgen(js_name = nextTask)]
        fn next_task() -> js_sys::Promise;
    }
    wasm_bindgen_futures::JsFuture::from(next_task()).await.unwrap();
}

/// Natively every fixture is also split at every byte; here that quadratic pass is left out,
/// the rest (one piece, a byte at a time, random splits) runs, a fixture per macrotask.
#[wasm_bindgen_test]
async fn every_fixture_one_piece_bytewise_and_random_splits() {
    let seed = js_sys::Date::now() as u64;
    let mut failures = Vec::new();
    for (name, input, spec) in FIXTURES {
        yield_to_browser().await;
        let fixture = common::Fixture {
            name: (*name).to_owned(),
            input: input.to_vec(),
            spec: serde_json::from_str(spec).unwrap(),
        };
        if let Err(e) = fixture.check_splits(seed, false) {
            failures.push(e);
        }
    }
    assert!(!FIXTURES.is_empty(), "no fixtures were embedded");
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        FIXTURES.len(),
        failures.join("\n\n")
    );
}

#[wasm_bindgen_test]
fn a_split_utf8_character_decodes_in_the_browser() {
    let mut stream = ChatStream::new(StreamOptions::default());
    let mut events = Vec::new();
    let body = "data: {\"type\":\"text_delta\",\"text\":\"é€\"}\n\n".as_bytes();
    let cut = body.iter().position(|&b| b >= 0x80).unwrap() + 1;
    stream.push(&body[..cut], &mut events);
    stream.push(&body[cut..], &mut events);
    assert_eq!(events, [StreamEvent::TextDelta { text: "é€".into() }]);
}
