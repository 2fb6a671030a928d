//! The fixtures of the dialects a build without the model's tool calls reads (the agent module's
//! build: `cargo test --no-default-features --features dialect-agent --test without_model_tool_calls`),
//! through every split: leaving the model's tool calls out changes none of their events, the
//! tools a backend runs (`tool_start`, `tool_progress`, `tool_complete`) included.
#![cfg(all(feature = "events", not(feature = "model-tool-calls")))]

mod common;

use chatstream::dialect::Dialect;

#[test]
fn fixtures_of_the_dialects_built_in() {
    let mut fixtures = common::load_fixtures(&common::fixtures_dir());
    fixtures.retain(|f| f.spec["dialect"].as_str().and_then(Dialect::from_name).is_some_and(Dialect::is_built_in));
    let with_tools =
        fixtures.iter().filter(|f| String::from_utf8_lossy(&f.input).contains("\"tool_complete\"")).count();
    assert!(with_tools >= 3, "{} fixtures, {with_tools} with a tool", fixtures.len());
    common::check_all(&fixtures);
}
