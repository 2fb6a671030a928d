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

#[cfg(feature = "provider")]
mod provider_mode {
    use chatstream::agent::AgentConfig;
    use chatstream::request::{Profile, Provider};
    use chatstream::state::ChatMessage;
    use serde_json::json;

    use super::*;

    fn chat() -> ChatSession {
        let config = AgentConfig {
            provider: Provider::OpenAi,
            profile: Profile { model: "m".into(), ..Profile::default() },
            tools: Vec::new(),
            max_iterations: 5,
        };
        ChatSession::with_provider(StateMachine::default(), StreamOptions::default(), config)
    }

    /// A Chat Completions answer saying `text`.
    fn answer(chat: &mut ChatSession, text: &str) {
        let chunk = json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
        chat.push(format!("data: {chunk}\n\ndata: [DONE]\n\n").as_bytes());
        assert_eq!(chat.finish().1, After::Done);
    }

    /// The conversation a request sends, as `role: content` lines.
    fn sent(request: &Value) -> Vec<String> {
        let messages = request["messages"].as_array().expect("Chat Completions messages");
        messages
            .iter()
            .map(|m| format!("{}: {}", m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
            .collect()
    }

    #[test]
    fn asking_again_sends_the_conversation_as_it_was_before_the_last_turn() {
        let mut chat = chat();
        chat.send("one", Value::Null, "/api/chat/openai").unwrap();
        answer(&mut chat, "A");
        let (request, _) = chat.send("two", Value::Null, "/api/chat/openai").unwrap();
        assert_eq!(sent(&request), ["user: one", "assistant: A", "user: two"]);
        answer(&mut chat, "B");

        let (request, _) = chat.regenerate("/api/chat/openai").unwrap();
        assert_eq!(sent(&request), ["user: one", "assistant: A", "user: two"], "without the answer asked again");
        answer(&mut chat, "B2");
        let (request, _) = chat.send("three", Value::Null, "/api/chat/openai").unwrap();
        assert_eq!(sent(&request), ["user: one", "assistant: A", "user: two", "assistant: B2", "user: three"]);
    }

    #[test]
    fn after_the_messages_are_replaced_the_conversation_is_theirs() {
        let mut chat = chat();
        chat.send("old", Value::Null, "/api/chat/openai").unwrap();
        answer(&mut chat, "gone");
        let messages = [("user", "x"), ("assistant", "y"), ("user", "z"), ("assistant", "w")]
            .map(|(role, content)| ChatMessage { role: role.into(), ..ChatMessage::user(String::new(), content) });
        chat.set_messages(messages.to_vec()).unwrap();

        let (request, _) = chat.regenerate("/api/chat/openai").unwrap();
        assert_eq!(sent(&request), ["user: x", "assistant: y", "user: z"]);
        answer(&mut chat, "w2");
        let (request, _) = chat.send("next", Value::Null, "/api/chat/openai").unwrap();
        assert_eq!(sent(&request), ["user: x", "assistant: y", "user: z", "assistant: w2", "user: next"]);
    }
}
