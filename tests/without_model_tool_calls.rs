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

/// A conversation saved by a build with the model's tool calls (or given by the page) holds tool
/// parts in every state such a call goes through: this build, which never streams one, reads them,
/// keeps them through a turn of its own and writes them back as they were.
#[test]
fn saved_tool_calls_of_a_model_are_read_kept_and_written_back() {
    use chatstream::event::{CompletePayload, Segment, StreamEvent};
    use chatstream::state::{ChatMessage, MessagePart, StateMachine, ToolState};
    use serde_json::{json, Value};

    let call = |id: &str, state: &str, input: Value, output: Value| {
        json!({"type": "tool", "tool_use_id": id, "tool": "weather", "index": 0, "state": state,
               "input": input, "output": output, "is_error": false})
    };
    let parts = json!([
        {"type": "text", "text": "Let me look."},
        call("a", "input-streaming", json!({"city": "Pa"}), Value::Null),
        call("b", "input-available", json!({"city": "Paris"}), Value::Null),
        call("c", "approval-requested", json!({"city": "Rome"}), Value::Null),
        call("d", "output-denied", json!({"city": "Oslo"}), Value::Null),
        call("e", "output-available", json!({"city": "Bern"}), json!({"temp": 3})),
    ]);
    let saved = json!([
        {"id": "u1", "role": "user", "content": "Weather?"},
        {"id": "a1", "role": "assistant", "content": "Let me look.", "parts": parts},
    ]);
    let tool = |id: &str, state: ToolState, input: Value, output: Value| MessagePart::Tool {
        tool_use_id: id.into(),
        tool: "weather".into(),
        index: 0,
        state,
        input: input.into(),
        output: output.into(),
        is_error: false,
    };
    let expected = vec![
        MessagePart::Text { text: "Let me look.".into() },
        tool("a", ToolState::InputStreaming, json!({"city": "Pa"}), Value::Null),
        tool("b", ToolState::InputAvailable, json!({"city": "Paris"}), Value::Null),
        tool("c", ToolState::ApprovalRequested, json!({"city": "Rome"}), Value::Null),
        tool("d", ToolState::OutputDenied, json!({"city": "Oslo"}), Value::Null),
        tool("e", ToolState::OutputAvailable, json!({"city": "Bern"}), json!({"temp": 3})),
    ];

    let mut machine = StateMachine::default();
    machine.load_messages(&saved.to_string()).unwrap();
    assert_eq!(machine.state().messages[1].parts, expected, "read");

    // A turn of this build's own after them.
    machine.begin("And tomorrow?", Value::Null).unwrap();
    let said = "Sunny.";
    let segments = vec![Segment::Text { text: said.into() }];
    let payload = CompletePayload { message: said.into(), text: said.into(), segments, ..Default::default() };
    machine.step(vec![StreamEvent::TextDelta { text: said.into() }, StreamEvent::Complete { payload }]);
    assert_eq!(machine.state().messages.len(), 4);
    assert_eq!(machine.state().messages[1].parts, expected, "kept through a turn");

    let written: Value = serde_json::from_str(&machine.messages_json()).unwrap();
    assert_eq!(written[1]["parts"], parts, "written back as they were");
    let mut again = StateMachine::default();
    again.load_messages(&machine.messages_json()).unwrap();
    assert_eq!(again.state().messages[1].parts, expected, "read back");

    // The page's own messages (`setMessages`), read as the bindings read them.
    let given = saved.as_array().unwrap().iter().map(|m| ChatMessage::from_value(m).unwrap()).collect();
    let mut given_to = StateMachine::default();
    given_to.set_messages(given);
    assert_eq!(given_to.state().messages[1].parts, expected, "given by the page");
}
