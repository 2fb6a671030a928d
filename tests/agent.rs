//! The agent loop's state (no I/O): two iterations of real Chat Completions streams read through
//! ChatStream, tools reported back, and what the UI and the next request get.

use chatstream::agent::{AgentConfig, AgentTurn, PendingCall};
use chatstream::dialect::Dialect;
use chatstream::error::ErrorCode;
use chatstream::event::{Segment, StreamEvent};
use chatstream::request::{Profile, Provider, ToolDef, Turn};
use chatstream::stream::{ChatStream, StreamOptions};
use serde_json::{json, Value};

fn config(max_iterations: u32) -> AgentConfig {
    AgentConfig {
        provider: Provider::OpenAi,
        profile: Profile { model: "gpt-test".into(), ..Profile::default() },
        tools: vec![ToolDef {
            name: "get_weather".into(),
            description: "Weather".into(),
            input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
            needs_approval: false,
        }],
        max_iterations,
    }
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let chunk =
        json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {chunk}\n\n")
}

/// A response that says `text` and calls get_weather for `city`.
fn calling(text: &str, id: &str, city: &str) -> String {
    let call = json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
        "function": {"name": "get_weather", "arguments": json!({"city": city}).to_string()}}]});
    let usage = json!({"object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
    chunk(json!({"role": "assistant", "content": text}), None)
        + &chunk(call, Some("tool_calls"))
        + &format!("data: {usage}\n\ndata: [DONE]\n\n")
}

fn answering(text: &str) -> String {
    let usage = json!({"object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27}});
    chunk(json!({"content": text}), None)
        + &chunk(json!({}), Some("stop"))
        + &format!("data: {usage}\n\ndata: [DONE]\n\n")
}

/// Reads `body` as the turn's current response; returns what the UI saw and the tools to run next (`None`: the turn is over).
fn read(turn: &mut AgentTurn, body: &str, ui: &mut Vec<StreamEvent>) -> Option<Vec<PendingCall>> {
    let mut stream = ChatStream::new(StreamOptions { dialect: Some(Dialect::OpenAi), ..StreamOptions::default() });
    let mut events = Vec::new();
    stream.push(body.as_bytes(), &mut events);
    stream.finish(&mut events);
    for event in events {
        turn.on_event(event, ui);
    }
    turn.stream_ended(ui)
}

fn complete(ui: &[StreamEvent]) -> &chatstream::event::CompletePayload {
    let completes: Vec<_> = ui
        .iter()
        .filter_map(|e| if let StreamEvent::Complete { payload } = e { Some(payload) } else { None })
        .collect();
    assert_eq!(completes.len(), 1, "exactly one complete for the turn: {ui:?}");
    completes[0]
}

#[test]
fn two_tool_calls_then_an_answer_make_one_turn() {
    let (mut turn, first) = AgentTurn::start(config(5), Vec::new(), "Weather in Paris and Rome?").unwrap();
    assert_eq!(first["messages"][0], json!({"role": "user", "content": "Weather in Paris and Rome?"}));
    let mut ui = Vec::new();

    let Some(calls) = read(&mut turn, &calls_paris(), &mut ui) else { panic!("tools expected") };
    assert_eq!(
        calls,
        [PendingCall {
            index: 0,
            id: "call_p".into(),
            name: "get_weather".into(),
            input: json!({"city": "Paris"}).into()
        }]
    );
    turn.tool_done(&calls[0], json!({"temp_c": 18}), false, &mut ui);
    let second = turn.next_request().unwrap();
    assert_eq!(second["messages"][1]["tool_calls"][0]["id"], "call_p");
    assert_eq!(second["messages"][2], json!({"role": "tool", "tool_call_id": "call_p", "content": "{\"temp_c\":18}"}));
    assert!(second.get("tool_choice").is_none(), "more calls are allowed");

    // The second response's call is index 0 in its own stream; in the turn it is tool 1.
    let Some(calls) = read(&mut turn, &calling("Now Rome.", "call_r", "Rome"), &mut ui) else { panic!() };
    assert_eq!(calls[0].index, 1);
    turn.tool_done(&calls[0], json!("rainy"), false, &mut ui);
    turn.next_request().unwrap();
    assert_eq!(read(&mut turn, &answering("Paris 18 °C, Rome rainy."), &mut ui), None);

    let starts: Vec<u32> = ui
        .iter()
        .filter_map(|e| if let StreamEvent::ToolStart { index, .. } = e { Some(*index) } else { None })
        .collect();
    assert_eq!(starts, [0, 1]);
    let text: String = ui
        .iter()
        .filter_map(|e| if let StreamEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
        .collect();
    assert_eq!(text, "Checking Paris.\n\nNow Rome.\n\nParis 18 °C, Rome rainy.");
    let payload = complete(&ui);
    assert_eq!(payload.message, "Checking Paris.[[tool:0]]\n\nNow Rome.[[tool:1]]\n\nParis 18 °C, Rome rainy.");
    assert_eq!(payload.text, "Checking Paris.\n\nNow Rome.\n\nParis 18 °C, Rome rainy.");
    let history: Vec<(&str, &Value, bool)> =
        payload.tool_history.iter().map(|r| (r.tool_use_id.as_str(), &*r.output, r.is_error)).collect();
    assert_eq!(history, [("call_p", &json!({"temp_c": 18}), false), ("call_r", &json!("rainy"), false)]);
    let tools: Vec<(u32, Value)> = payload
        .segments
        .iter()
        .filter_map(|s| {
            if let Segment::Tool { index, output, .. } = s {
                Some((*index, Value::clone(output)))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(tools, [(0, json!({"temp_c": 18})), (1, json!("rainy"))]);
    let usage = payload.usage.as_ref().unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (Some(40), Some(17), Some(57)));
    assert_eq!(payload.extra["iterations"], 3);
    // The conversation for the next turn: user, call, result, call, result, answer.
    let roles: Vec<&str> = turn
        .conversation()
        .iter()
        .map(|t| match t {
            Turn::User { .. } => "user",
            Turn::Assistant { tool_calls, .. } if !tool_calls.is_empty() => "call",
            Turn::Assistant { .. } => "answer",
            Turn::Tool { .. } => "result",
        })
        .collect();
    assert_eq!(roles, ["user", "call", "result", "call", "result", "answer"]);
}

fn calls_paris() -> String {
    calling("Checking Paris.", "call_p", "Paris")
}

#[test]
fn after_max_iterations_the_request_forbids_tools() {
    let (mut turn, _) = AgentTurn::start(config(1), Vec::new(), "Weather?").unwrap();
    let mut ui = Vec::new();
    let Some(calls) = read(&mut turn, &calls_paris(), &mut ui) else { panic!() };
    turn.tool_done(&calls[0], json!(1), false, &mut ui);
    let next = turn.next_request().unwrap();
    assert_eq!(next["tool_choice"], "none");
    assert!(next["tools"].is_array(), "still declared: the conversation refers to them");
}

/// A tool error does not stop the stream; the model gets it as an error result.
#[test]
fn tool_errors_dont_stop_the_stream() {
    let (mut turn, _) = AgentTurn::start(config(5), Vec::new(), "Weather?").unwrap();
    let mut ui = Vec::new();
    let Some(calls) = read(&mut turn, &calls_paris(), &mut ui) else { panic!() };
    turn.tool_done(&calls[0], json!({"code": "SERVICE_UNAVAILABLE", "message": "timed out"}), true, &mut ui);
    let next = turn.next_request().unwrap();
    assert_eq!(next["messages"][2]["role"], "tool");
    assert_eq!(read(&mut turn, &answering("The weather service is down."), &mut ui), None);
    assert!(ui.iter().any(|e| matches!(e, StreamEvent::ToolComplete { is_error: true, .. })));
    assert!(!ui.iter().any(|e| matches!(e, StreamEvent::Error { .. })));
    let payload = complete(&ui);
    assert!(payload.tool_history[0].is_error);
    assert_eq!(payload.text, "Checking Paris.\n\nThe weather service is down.");
}

#[test]
fn cancel_during_a_tool_gives_the_partial_turn_then_cancelled() {
    let (mut turn, _) = AgentTurn::start(config(5), Vec::new(), "Weather?").unwrap();
    let mut ui = Vec::new();
    let Some(_) = read(&mut turn, &calls_paris(), &mut ui) else { panic!() };
    turn.cancel(&mut ui);
    assert!(matches!(ui.last(), Some(StreamEvent::Cancelled)));
    assert_eq!(complete(&ui).text, "Checking Paris.");
    assert!(turn.is_done());
}

#[test]
fn a_failed_second_response_ends_with_the_merged_complete_then_its_error() {
    let (mut turn, _) = AgentTurn::start(config(5), Vec::new(), "Weather?").unwrap();
    let mut ui = Vec::new();
    let Some(calls) = read(&mut turn, &calls_paris(), &mut ui) else { panic!() };
    turn.tool_done(&calls[0], json!(1), false, &mut ui);
    turn.next_request().unwrap();
    let cut = chunk(json!({"content": "It is"}), None); // no finish, no [DONE]
    assert_eq!(read(&mut turn, &cut, &mut ui), None);
    let n = ui.len();
    assert!(matches!(&ui[n - 2], StreamEvent::Complete { payload } if payload.text == "Checking Paris.\n\nIt is"));
    assert!(matches!(&ui[n - 1], StreamEvent::Error { code: ErrorCode::NetworkError, .. }), "{:?}", ui[n - 1]);
}

#[test]
fn an_http_failure_before_any_response_is_only_an_error() {
    let (mut turn, _) = AgentTurn::start(config(5), Vec::new(), "Weather?").unwrap();
    let mut ui = Vec::new();
    turn.fail(ErrorCode::Unauthorized, "Invalid API key", &mut ui);
    assert_eq!(ui, [StreamEvent::error(ErrorCode::Unauthorized, "Invalid API key")]);
}

#[test]
fn a_turn_that_cannot_be_built_is_a_validation_error() {
    let nameless = AgentConfig { profile: Profile::default(), ..config(5) };
    let err = AgentTurn::start(nameless, Vec::new(), "hi").unwrap_err();
    assert_eq!((err.code, err.field), (ErrorCode::ValidationError, "model"));
}

/// An answer cut by the token limit in the middle of a call runs none of its calls: the turn
/// ends with the cut answer, and the card says why the tool did not run.
#[test]
fn a_call_cut_by_the_token_limit_is_never_run() {
    let (mut turn, _) = AgentTurn::start(config(5), Vec::new(), "weather?").unwrap();
    let call = json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\": \"Os"}}]});
    let body = chunk(json!({"role": "assistant", "content": "Checking."}), None)
        + &chunk(call, None)
        + &chunk(json!({}), Some("length"))
        + "data: [DONE]\n\n";
    let mut ui = Vec::new();
    assert_eq!(read(&mut turn, &body, &mut ui), None);
    assert!(!ui.iter().any(|e| matches!(e, StreamEvent::Error { .. })), "no error: {ui:?}");
    assert!(ui.iter().any(
        |e| matches!(e, StreamEvent::ToolCall { incomplete: true, input, .. } if *input == json!({"city": "Os"}).into())
    ));
    let payload = complete(&ui);
    assert_eq!(payload.finish_reason.map(|r| r.as_str()), Some("length"));
    assert!(payload.tool_history[0].is_error);
    assert_eq!(payload.tool_history[0].output["message"], chatstream::agent::CUT_BY_LENGTH);
    assert!(turn.is_done());
}
