//! A chat's turns (`chat::ChatSession`): a turn is in flight from its request until its response
//! ends, and nothing starts a second one or replaces the messages meanwhile.

use chatstream::chat::{After, ChatSession};
use chatstream::error::ErrorCode;
use chatstream::event::StreamEvent;
use chatstream::state::StateMachine;
use chatstream::stream::StreamOptions;
use serde_json::Value;

const ENDPOINT: &str = "/api/chat/stream";

fn chat() -> ChatSession {
    ChatSession::new(StateMachine::default(), StreamOptions::default())
}

fn error_code(step: &chatstream::chat::Step) -> Option<ErrorCode> {
    match step.events.as_slice() {
        [StreamEvent::Error { code, .. }] => Some(*code),
        _ => None,
    }
}

#[test]
fn a_second_send_while_answering_is_refused() {
    let mut chat = chat();
    chat.send("one", Value::Null, ENDPOINT).unwrap();
    let refused = chat.send("two", Value::Null, ENDPOINT).unwrap_err();
    assert_eq!(error_code(&refused), Some(ErrorCode::Conflict));
    assert_eq!(chat.state_machine().state().messages.len(), 1);
}

#[test]
fn regenerate_and_replacing_the_messages_are_refused_while_answering() {
    let mut chat = chat();
    assert_eq!(error_code(&chat.regenerate(ENDPOINT).unwrap_err()), Some(ErrorCode::ValidationError));
    chat.send("one", Value::Null, ENDPOINT).unwrap();
    assert_eq!(error_code(&chat.regenerate(ENDPOINT).unwrap_err()), Some(ErrorCode::Conflict));
    assert_eq!(chat.set_messages(Vec::new()).unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(chat.load_messages("[]").unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(chat.state_machine().state().messages.len(), 1);
}

/// The answer's `complete` ends `isLoading`, but the response is still open: its remaining bytes
/// and its end belong to this turn, so a second turn would read them as its own.
#[test]
fn the_turn_is_in_flight_until_its_response_ends_not_until_its_complete() {
    let mut chat = chat();
    chat.send("one", Value::Null, ENDPOINT).unwrap();
    chat.push(b"data: {\"type\":\"text_delta\",\"text\":\"Hello\"}\n\ndata: {\"type\":\"complete\",\"payload\":{\"message\":\"Hello\"}}\n\n");
    assert!(!chat.state_machine().state().is_loading, "the complete arrived");

    let refused = chat.send("two", Value::Null, ENDPOINT).unwrap_err();
    assert_eq!(error_code(&refused), Some(ErrorCode::Conflict));
    assert_eq!(chat.set_messages(Vec::new()).unwrap_err().code, ErrorCode::Conflict);

    chat.push(b": the backend's last comment\n\n");
    let (_, after) = chat.finish();
    assert_eq!(after, After::Done);
    let (request, _) = chat.send("two", Value::Null, ENDPOINT).expect("the response ended");
    assert_eq!(request["message"], "two");
    let contents: Vec<&str> = chat.state_machine().state().messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents, ["one", "Hello", "two"]);
}

#[test]
fn cancel_with_nothing_in_flight_is_a_conflict_and_changes_nothing() {
    let mut chat = chat();
    let step = chat.cancel();
    assert_eq!(error_code(&step), Some(ErrorCode::Conflict));
    assert!(step.patches.is_empty());

    chat.send("one", Value::Null, ENDPOINT).unwrap();
    chat.push(b"data: {\"type\":\"text_delta\",\"text\":\"Hel\"}\n\n");
    let step = chat.cancel();
    assert!(matches!(step.events.last(), Some(StreamEvent::Cancelled)), "{:?}", step.events);
    assert_eq!(error_code(&chat.cancel()), Some(ErrorCode::Conflict), "the turn is over");
}
