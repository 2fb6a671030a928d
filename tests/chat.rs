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

/// A backend chat sent to one of chatstream-proxy's provider routes would get an empty answer: the
/// route is named, whatever the prefix, trailing slash, query or fragment; other paths are sent.
#[test]
fn a_backend_chat_sent_to_a_provider_route_is_refused_naming_it() {
    let refused = [
        ("/api/chat/openai", "openai"),
        ("https://host/v1/api/chat/anthropic/?stream=1", "anthropic"),
        ("/api/chat/api/chat/openai-responses#top", "openai-responses"),
        ("/api/chat/compat", "compat"),
    ];
    for (endpoint, route) in refused {
        let step = chat().send("hi", Value::Null, endpoint).unwrap_err();
        let [StreamEvent::Error { code, message, .. }] = step.events.as_slice() else { panic!("{endpoint}: {step:?}") };
        assert_eq!(*code, ErrorCode::ValidationError, "{endpoint}");
        let expected = format!(
            "{endpoint} is chatstream-proxy's {route} route: set provider: \"{route}\" (and a model) to talk to it"
        );
        assert_eq!(message, &expected);
    }
    for endpoint in ["/api/chat/stream", "/api/chat/openaix", "/api/chat/openai/more", "/openai", "/api/chat/"] {
        assert!(chat().send("hi", Value::Null, endpoint).is_ok(), "{endpoint}");
    }
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
    let request: Value = serde_json::from_str(&request).expect("the request is JSON text");
    assert_eq!(request["message"], "two");
    let state = chat.state_machine().state();
    let contents: Vec<&str> = state.messages.iter().map(|m| m.content.as_str()).collect();
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

/// How a response ends in [`a_session_makes_the_answer_a_stream_and_a_state_machine_make`].
#[derive(Clone, Copy, Debug)]
enum End {
    Finish,
    Cancel,
    Fail,
}

/// A session leaves the text of its response's `complete` to its state, which made it of the text
/// deltas it joined (one copy of a long answer while it streams): the events, patches and messages
/// are those a stream that keeps its text and a state machine fed its events make, whatever the
/// text's edges, markers, tools and chunks, and however the response ends.
#[test]
fn a_session_makes_the_answer_a_stream_and_a_state_machine_make() {
    let text = |t: &str| format!("data: {}\n\n", serde_json::json!({"type": "text_delta", "text": t}));
    let tool_start = |id: &str| {
        format!(
            "data: {{\"type\":\"tool_start\",\"tool\":\"search\",\"input\":{{\"q\":1}},\"tool_use_id\":\"{id}\"}}\n\n"
        )
    };
    let tool_complete =
        |i: u32| format!("data: {{\"type\":\"tool_complete\",\"tool\":\"search\",\"index\":{i},\"output\":[1]}}\n\n");
    let complete = "data: {\"type\":\"complete\",\"payload\":{}}\n\n".to_owned();
    let bodies: Vec<Vec<String>> = vec![
        vec![text("Hello"), text(" wörld"), complete.clone()],
        vec![text("  \n "), text("  Hi there  "), text(" \n"), complete.clone()],
        vec![text("  [[tool:0]]  Found "), text("it.  "), complete.clone()],
        vec![
            text("Looking "),
            tool_start("a"),
            tool_complete(0),
            text(" [[tool:0]]"),
            text(" done \n"),
            complete.clone(),
        ],
        vec![
            text(" Before "),
            tool_start("a"),
            tool_complete(0),
            text("  after "),
            tool_start("b"),
            text(" x "),
            complete.clone(),
        ],
        vec![text("Searching  "), text("[[tool:0]]  "), text("\n"), complete.clone()],
        vec![text("a <think>hm</think> b [[tool:3]] c"), text(" SUGGESTED_VALUES: [\"x\"]"), complete.clone()],
        vec![
            text("Hello"),
            "data: {\"type\":\"complete\",\"payload\":{\"message\":\"Other [[tool:0]] text\"}}\n\n".into(),
        ],
        vec![text("   ")],
        vec![text("cut "), text("off  ")],
        vec![],
    ];
    for body in &bodies {
        let bytes = body.concat().into_bytes();
        for size in [bytes.len().max(1), 7, 1] {
            for end in [End::Finish, End::Cancel, End::Fail] {
                let what = format!("{body:?} in {size}-byte chunks, {end:?}");
                let mut session = chat();
                session.send("hi", Value::Null, ENDPOINT).unwrap();
                let mut stream = chatstream::stream::ChatStream::new(StreamOptions::default());
                let mut machine = StateMachine::default();
                machine.begin("hi", Value::Null).unwrap();
                let (mut got, mut expected) = (Vec::new(), Vec::new());
                for chunk in bytes.chunks(size) {
                    got.push(session.push(chunk));
                    let mut events = Vec::new();
                    stream.push(chunk, &mut events);
                    expected.push(machine.step(events));
                }
                let mut events = Vec::new();
                match end {
                    End::Finish => {
                        got.push(session.finish().0);
                        stream.finish(&mut events);
                    }
                    End::Cancel => {
                        got.push(session.cancel());
                        stream.cancel(&mut events);
                    }
                    End::Fail => {
                        got.push(session.fail(ErrorCode::NetworkError, "gone").0);
                        stream.fail(ErrorCode::NetworkError, "gone", &mut events);
                    }
                }
                let mut last = machine.step(events);
                last.patches.extend(machine.stream_closed());
                expected.push(last);
                assert_eq!(got, expected, "{what}");
                assert_eq!(*session.state_machine().state(), *machine.state(), "{what}");
            }
        }
    }
}

#[cfg(feature = "provider")]
mod provider_mode {
    use chatstream::agent::AgentConfig;
    use chatstream::event::CompletePayload;
    use chatstream::request::{Profile, Provider, ToolDef};
    use chatstream::state::ChatMessage;
    use serde_json::json;

    use super::*;

    fn chat() -> ChatSession {
        let config = AgentConfig {
            provider: Provider::OpenAi,
            profile: Profile { model: "m".into(), ..Profile::default() },
            tools: vec![ToolDef {
                name: "get_weather".into(),
                description: "Weather".into(),
                input_schema: json!({"type": "object"}),
                needs_approval: false,
            }],
            max_iterations: 5,
        };
        ChatSession::with_provider(StateMachine::default(), StreamOptions::default(), config)
    }

    /// A Chat Completions chunk with `delta` that does not end the answer.
    fn part(chat: &mut ChatSession, delta: Value) {
        let chunk = json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
        chat.push(format!("data: {chunk}\n\n").as_bytes());
    }

    /// The turn's `complete` payloads among `events`, and whether `cancelled` comes right after the last.
    fn completes(events: &[StreamEvent]) -> (Vec<&CompletePayload>, bool) {
        let payloads = events
            .iter()
            .filter_map(|e| if let StreamEvent::Complete { payload } = e { Some(payload) } else { None })
            .collect();
        let ends_cancelled = matches!(events, [.., StreamEvent::Complete { .. }, StreamEvent::Cancelled]);
        (payloads, ends_cancelled)
    }

    fn contents(chat: &ChatSession) -> Vec<String> {
        chat.state_machine().state().messages.iter().map(|m| format!("{}: {}", m.role, m.content)).collect()
    }

    /// A Chat Completions answer saying `text`.
    fn answer(chat: &mut ChatSession, text: &str) {
        let chunk = json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
        chat.push(format!("data: {chunk}\n\ndata: [DONE]\n\n").as_bytes());
        assert_eq!(chat.finish().1, After::Done);
    }

    /// The conversation a request (JSON text) sends, as `role: content` lines.
    fn sent(request: &str) -> Vec<String> {
        let request: Value = serde_json::from_str(request).expect("the request is JSON text");
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

    /// As in backend mode, a stopped answer keeps what arrived: one `complete` with it, then
    /// `cancelled`, and the message stays.
    #[test]
    fn a_stopped_first_answer_keeps_its_text_and_thinking_and_asking_again_replaces_it() {
        let mut chat = chat();
        chat.send("one", Value::Null, "/api/chat/openai").unwrap();
        part(&mut chat, json!({"role": "assistant", "reasoning_content": "Pondering"}));
        part(&mut chat, json!({"content": "Hel"}));
        let step = chat.cancel();

        let (payloads, ends_cancelled) = completes(&step.events);
        assert!(ends_cancelled, "complete, then cancelled: {:?}", step.events);
        assert_eq!(payloads.len(), 1, "{:?}", step.events);
        assert_eq!(payloads[0].message, "Hel");
        assert_eq!(payloads[0].thinking.as_deref(), Some("Pondering"));
        assert_eq!(contents(&chat), ["user: one", "assistant: Hel"]);
        let kept = &chat.state_machine().state().messages[1];
        assert_eq!(kept.thinking.as_deref(), Some("Pondering"));
        assert!(!chat.state_machine().state().is_loading);

        // Asking again replaces the stopped answer, for the model too.
        let (request, _) = chat.regenerate("/api/chat/openai").unwrap();
        assert_eq!(sent(&request), ["user: one"], "without the stopped answer");
        answer(&mut chat, "Hello");
        assert_eq!(contents(&chat), ["user: one", "assistant: Hello"]);
        let (request, _) = chat.send("two", Value::Null, "/api/chat/openai").unwrap();
        assert_eq!(sent(&request), ["user: one", "assistant: Hello", "user: two"]);
    }

    /// Stopped in the round after a tool ran: the earlier round, the tool's result and the
    /// partial text of the stopped round are all kept.
    #[test]
    fn a_stopped_later_round_keeps_the_tool_and_the_partial_text() {
        let mut chat = chat();
        chat.send("Weather in Paris?", Value::Null, "/api/chat/openai").unwrap();
        let call = json!({"tool_calls": [{"index": 0, "id": "call_p", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]});
        part(&mut chat, json!({"role": "assistant", "content": "Looking."}));
        let chunk = json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": call, "finish_reason": "tool_calls"}]});
        chat.push(format!("data: {chunk}\n\ndata: [DONE]\n\n").as_bytes());
        let (_, After::RunTools(calls)) = chat.finish() else { panic!("the tool is to run") };
        chat.tool_done(&calls[0], json!({"temp": 21}), false);
        chat.next_request().expect("the second round");
        part(&mut chat, json!({"role": "assistant", "content": "It is warm"}));
        let step = chat.cancel();

        let (payloads, ends_cancelled) = completes(&step.events);
        assert!(ends_cancelled, "complete, then cancelled: {:?}", step.events);
        assert_eq!(payloads.len(), 1, "{:?}", step.events);
        assert_eq!(payloads[0].text, "Looking.\n\nIt is warm");
        assert_eq!(payloads[0].tool_history.len(), 1);
        assert_eq!(payloads[0].tool_history[0].output, json!({"temp": 21}).into());
        let messages = &chat.state_machine().state().messages;
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[1].content, "Looking.[[tool:0]]\n\nIt is warm", "the tool's marker where it ran");
        assert_eq!(messages[1].tool_history[0].output, json!({"temp": 21}).into());
    }

    /// The answer's `complete` came but the response is still open: stopping keeps the answer
    /// and ends the turn with `cancelled`, not with an error.
    #[test]
    fn stopping_after_the_answer_completed_keeps_it() {
        let mut chat = chat();
        chat.send("one", Value::Null, "/api/chat/openai").unwrap();
        let chunk = json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]});
        chat.push(format!("data: {chunk}\n\n").as_bytes());
        let step = chat.cancel();

        let (payloads, ends_cancelled) = completes(&step.events);
        assert!(ends_cancelled, "complete, then cancelled: {:?}", step.events);
        assert_eq!(payloads.len(), 1, "{:?}", step.events);
        assert_eq!(payloads[0].message, "Hi");
        assert!(!step.events.iter().any(|e| matches!(e, StreamEvent::Error { .. })), "{:?}", step.events);
        assert_eq!(contents(&chat), ["user: one", "assistant: Hi"]);
        assert_eq!(error_code(&chat.cancel()), Some(ErrorCode::Conflict), "the turn is over");
    }
}
