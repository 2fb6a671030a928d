//! The chat state machine: the `useGeneralChat` transitions, and the patches that
//! describe each change (applied to a JSON copy of the state, they must reproduce it).

use chatstream::error::ErrorCode;
use chatstream::event::{CompletePayload, Segment, StreamEvent};
use chatstream::session::{Patch, Phase, Session};
use serde_json::{json, Value};

/// Applies patches to a JSON snapshot the way the JS wrapper does.
fn apply_patches(snapshot: &mut Value, patches: &[Patch]) {
    for patch in patches {
        match patch {
            Patch::Set { key, value } => snapshot[*key] = value.clone(),
            Patch::Append { key, text } => {
                let joined = format!("{}{}", snapshot[*key].as_str().unwrap_or(""), text);
                snapshot[*key] = json!(joined);
            }
            Patch::PushMessage { value } => snapshot["messages"].as_array_mut().unwrap().push(value.clone()),
            Patch::SetLastMessage { value } => {
                *snapshot["messages"].as_array_mut().unwrap().last_mut().unwrap() = value.clone()
            }
            Patch::PushSegment { value } => snapshot["streamingSegments"].as_array_mut().unwrap().push(value.clone()),
            Patch::AppendText { text } => {
                let joined = format!("{}{}", snapshot["streamingText"].as_str().unwrap(), text);
                snapshot["streamingText"] = json!(joined);
                let last = snapshot["streamingSegments"].as_array_mut().unwrap().last_mut().unwrap();
                let joined = format!("{}{}", last["text"].as_str().unwrap(), text);
                last["text"] = json!(joined);
            }
            Patch::SetSegment { at, value } => snapshot["streamingSegments"][*at] = value.clone(),
            Patch::PushToolUpdate { value } => {
                snapshot["activeToolProgress"]["updates"].as_array_mut().unwrap().push(value.clone())
            }
            Patch::Reset { value } => *snapshot = value.clone(),
        }
    }
}

/// Drives a session and a patched JSON copy side by side, checking they agree after every step.
struct Mirror {
    session: Session,
    snapshot: Value,
}

impl Mirror {
    fn new() -> Mirror {
        let session = Session::default();
        let snapshot = serde_json::to_value(session.state()).unwrap();
        Mirror { session, snapshot }
    }
    fn begin(&mut self, message: &str) {
        let (_, patches) = self.session.begin(message, Value::Null).expect("valid message");
        self.check(&patches);
    }
    fn apply(&mut self, event: StreamEvent) {
        let patches = self.session.apply(&event);
        self.check(&patches);
    }
    fn check(&mut self, patches: &[Patch]) {
        apply_patches(&mut self.snapshot, patches);
        assert_eq!(
            self.snapshot,
            serde_json::to_value(self.session.state()).unwrap(),
            "patches disagree with the state"
        );
    }
    fn state(&self) -> &chatstream::session::ChatState {
        self.session.state()
    }
}

fn complete(message: &str) -> StreamEvent {
    StreamEvent::Complete {
        payload: CompletePayload { message: message.into(), text: message.into(), ..Default::default() },
    }
}

#[test]
fn a_turn_moves_through_the_chat_states() {
    let mut m = Mirror::new();
    m.begin("Search CRISPR");
    assert!(m.state().is_loading);
    assert_eq!(m.state().phase, Phase::Waiting);
    assert_eq!(m.state().messages.len(), 1);

    m.apply(StreamEvent::Status { message: "Thinking...".into() });
    assert_eq!(m.state().status_text.as_deref(), Some("Thinking..."));

    m.apply(StreamEvent::TextDelta { text: "Let me ".into() });
    m.apply(StreamEvent::TextDelta { text: "search.".into() });
    assert_eq!(m.state().status_text, None, "text clears the status");
    assert_eq!(m.state().streaming_text, "Let me search.");
    assert_eq!(m.state().phase, Phase::Streaming);

    m.apply(StreamEvent::ToolStart {
        tool_use_id: "t1".into(),
        tool: "search".into(),
        index: 0,
        input: json!({"q": "CRISPR"}),
    });
    assert_eq!(m.state().status_text.as_deref(), Some("Running search..."));
    assert_eq!(m.state().active_tool_progress.as_ref().unwrap().tool_name, "search");
    assert_eq!(m.state().phase, Phase::Tool);

    let progress = StreamEvent::ToolProgress {
        tool_use_id: Some("t1".into()),
        tool: "search".into(),
        stage: Some("searching".into()),
        message: Some("Found 15".into()),
        progress: Some(0.5),
        data: Value::Null,
    };
    m.apply(progress);
    assert_eq!(m.state().active_tool_progress.as_ref().unwrap().updates.len(), 1);

    m.apply(StreamEvent::ToolComplete {
        tool_use_id: "t1".into(),
        tool: "search".into(),
        index: 0,
        input: json!({"q": "CRISPR"}),
        output: json!("5 articles"),
        is_error: false,
    });
    assert_eq!(m.state().active_tool_progress, None);
    assert_eq!(m.state().status_text, None);
    assert!(matches!(&m.state().streaming_segments[1], Segment::Tool { output, .. } if output == "5 articles"));

    m.apply(StreamEvent::ThinkingDelta { text: "hmm".into() });
    assert_eq!(m.state().thinking_text, "hmm");
    m.apply(StreamEvent::TextDelta { text: "Found 5.".into() });
    assert_eq!(m.state().streaming_segments.len(), 3, "text after a tool starts a new segment");

    m.apply(complete("Let me search.[[tool:0]]Found 5."));
    let state = m.state();
    assert!(!state.is_loading);
    assert_eq!(state.phase, Phase::Idle);
    assert_eq!(state.streaming_text, "");
    assert_eq!(state.thinking_text, "");
    assert!(state.streaming_segments.is_empty());
    assert_eq!(state.messages.len(), 2);
    assert_eq!(state.messages[1].role, "assistant");
    assert_eq!(state.messages[1].content, "Let me search.[[tool:0]]Found 5.");
}

#[test]
fn ch_nt1_an_empty_message_is_a_validation_error_and_sends_nothing() {
    let mut session = Session::default();
    let err = session.begin("   \n", Value::Null).unwrap_err();
    assert_eq!(err.code, ErrorCode::ValidationError);
    assert_eq!(err.message, "Message cannot be empty");
    assert!(session.state().messages.is_empty());
    assert!(!session.state().is_loading);
    session.fail(err.code, &err.message);
    assert_eq!(session.state().error.as_ref().unwrap().code, ErrorCode::ValidationError);
    assert!(session.state().messages.is_empty(), "showing the error adds no message");
}

#[test]
fn a_transport_failure_keeps_the_user_message_and_changes_nothing_else() {
    let mut m = Mirror::new();
    m.begin("Hello");
    let patches = m.session.fail(ErrorCode::Unauthorized, "Invalid API key");
    m.check(&patches);
    let state = m.state();
    assert_eq!(state.messages.len(), 1);
    assert_eq!(state.messages[0].content, "Hello");
    assert_eq!(state.error.as_ref().unwrap().code, ErrorCode::Unauthorized);
    assert!(!state.is_loading);
    assert_eq!(state.phase, Phase::Idle);
}

#[test]
fn a_cancelled_turn_keeps_the_partial_answer_marked_as_stopped() {
    let mut m = Mirror::new();
    m.begin("Tell me a story");
    m.apply(StreamEvent::TextDelta { text: "Once upon".into() });
    m.apply(complete("Once upon"));
    m.apply(StreamEvent::Cancelled);
    let state = m.state();
    assert_eq!(state.messages[1].content, "Once upon");
    assert!(state.messages[1].cancelled);
    assert!(!state.is_loading);
}

#[test]
fn a_second_send_while_answering_is_refused() {
    let mut session = Session::default();
    session.begin("one", Value::Null).unwrap();
    assert_eq!(session.begin("two", Value::Null).unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(session.state().messages.len(), 1);
}

#[test]
fn the_request_carries_the_agent_protocol_shape_and_the_history() {
    let mut session = Session::default();
    session.begin("first", Value::Null).unwrap();
    let mut payload = CompletePayload { message: "answer".into(), ..Default::default() };
    payload.extra.insert("conversation_id".into(), json!(789));
    session.apply(&StreamEvent::Complete { payload });
    let (request, _) = session.begin("second", json!({"current_page": "reports"})).unwrap();
    let body = serde_json::to_value(&request).unwrap();
    assert_eq!(
        body,
        json!({
            "message": "second",
            "context": {"current_page": "reports"},
            "interaction_type": "text_input",
            "conversation_id": 789,
            "conversation_history": [{"role": "user", "content": "first"}, {"role": "assistant", "content": "answer"}]
        })
    );
}

#[test]
fn messages_save_and_load_as_json() {
    let mut session = Session::default();
    session.begin("hi", Value::Null).unwrap();
    session.apply(&complete("hello"));
    let saved = session.messages_json();
    let mut restored = Mirror::new();
    restored.begin("a turn in the way");
    restored.apply(complete("to be replaced"));
    let patches = restored.session.load_messages(&saved).unwrap();
    restored.check(&patches);
    assert_eq!(restored.state().messages, session.state().messages);
    let mut restored = restored.session;
    assert_eq!(restored.load_messages("{not json").unwrap_err().code, ErrorCode::ValidationError);
}

#[test]
fn a_turn_that_produced_nothing_adds_no_empty_message() {
    let mut m = Mirror::new();
    m.begin("hello");
    m.apply(complete(""));
    m.apply(StreamEvent::error(ErrorCode::NetworkError, "Connection failed"));
    m.apply(StreamEvent::Cancelled);
    let contents: Vec<&str> = m.state().messages.iter().map(|msg| msg.content.as_str()).collect();
    assert_eq!(contents, ["hello"], "the user's message stays last, ready to retry");
    assert_eq!(m.state().error.as_ref().map(|e| e.code), Some(ErrorCode::NetworkError));
}
