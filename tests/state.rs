//! The chat state machine: the `useGeneralChat` transitions, and the patches that
//! describe each change (applied to a JSON copy of the state, they must reproduce it).

use chatstream::error::ErrorCode;
use chatstream::event::{CompletePayload, Segment, StreamEvent, ToolRecord};
use chatstream::json::to_json;
use chatstream::state::{ChatMessage, Patch, PatchValue, Phase, StateMachine, ToolState};
use serde_json::{json, Value};

/// Applies patches to a JSON snapshot the way the JS wrapper does.
fn apply_patches(snapshot: &mut Value, patches: &[Patch]) {
    for patch in patches {
        match patch {
            Patch::Set { key, value } => snapshot[*key] = value.to_value(),
            Patch::Append { key, text } => {
                let joined = format!("{}{}", snapshot[*key].as_str().unwrap_or(""), text);
                snapshot[*key] = json!(joined);
            }
            Patch::Push { key, value } => snapshot[*key].as_array_mut().unwrap().push(value.to_value()),
            Patch::SetAt { key, at, value } => snapshot[*key][*at] = value.to_value(),
            Patch::AppendToLast { key, text } => append_to_last(&mut snapshot[*key], text),
            Patch::AppendText { text } => {
                let joined = format!("{}{}", snapshot["streamingText"].as_str().unwrap(), text);
                snapshot["streamingText"] = json!(joined);
                append_to_last(&mut snapshot["streamingSegments"], text);
                append_to_last(&mut snapshot["streamingParts"], text);
            }
            Patch::AppendThinking { text } => {
                let joined = format!("{}{}", snapshot["thinkingText"].as_str().unwrap(), text);
                snapshot["thinkingText"] = json!(joined);
                append_to_last(&mut snapshot["streamingParts"], text);
            }
            Patch::StartThinking { text } => {
                let joined = format!("{}{}", snapshot["thinkingText"].as_str().unwrap(), text);
                snapshot["thinkingText"] = json!(joined);
                snapshot["streamingParts"].as_array_mut().unwrap().push(json!({ "type": "reasoning", "text": text }));
            }
            Patch::StartTextPart { text } => {
                let joined = format!("{}{}", snapshot["streamingText"].as_str().unwrap(), text);
                snapshot["streamingText"] = json!(joined);
                append_to_last(&mut snapshot["streamingSegments"], text);
                snapshot["streamingParts"].as_array_mut().unwrap().push(json!({ "type": "text", "text": text }));
            }
            Patch::PushInto { key, list, value } => {
                snapshot[*key][*list].as_array_mut().unwrap().push(value.to_value())
            }
            Patch::Reset { value } => *snapshot = value.to_value(),
        }
    }
}

fn append_to_last(list: &mut Value, text: &str) {
    let last = list.as_array_mut().unwrap().last_mut().unwrap();
    let joined = format!("{}{}", last["text"].as_str().unwrap(), text);
    last["text"] = json!(joined);
}

/// Drives a state machine and a patched JSON copy side by side, checking they agree after every step.
struct Mirror {
    machine: StateMachine,
    snapshot: Value,
}

impl Mirror {
    fn new() -> Mirror {
        let machine = StateMachine::default();
        let snapshot = serde_json::to_value(machine.state()).unwrap();
        Mirror { machine, snapshot }
    }
    fn begin(&mut self, message: &str) {
        let (_, patches) = self.machine.begin(message, Value::Null).expect("valid message");
        self.check(&patches);
    }
    fn apply(&mut self, event: StreamEvent) {
        let patches = self.machine.apply(&event);
        self.check(&patches);
    }
    /// Several events in one step (one read): their patches.
    fn step(&mut self, events: Vec<StreamEvent>) -> Vec<Patch> {
        let patches = self.machine.step(events).patches;
        self.check(&patches);
        patches
    }
    fn check(&mut self, patches: &[Patch]) {
        apply_patches(&mut self.snapshot, patches);
        let state = self.machine.state();
        assert_eq!(self.snapshot, serde_json::to_value(&*state).unwrap(), "patches disagree with the state");
        // What the JS side gets is written by chatstream::json: the same text as serde's.
        assert_eq!(to_json(&*state), serde_json::to_string(&*state).unwrap());
        for patch in patches {
            assert_eq!(to_json(patch), serde_json::to_string(patch).unwrap());
        }
    }
    fn state(&self) -> std::borrow::Cow<'_, chatstream::state::ChatState> {
        self.machine.state()
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
        input: json!({"q": "CRISPR"}).into(),
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
        input: json!({"q": "CRISPR"}).into(),
        output: json!("5 articles").into(),
        is_error: false,
    });
    assert_eq!(m.state().active_tool_progress, None);
    assert_eq!(m.state().status_text, None);
    assert!(matches!(&m.state().streaming_segments[1], Segment::Tool { output, .. } if **output == "5 articles"));

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
fn an_empty_message_is_a_validation_error_and_sends_nothing() {
    let mut machine = StateMachine::default();
    let err = machine.begin("   \n", Value::Null).unwrap_err();
    assert_eq!(err.code, ErrorCode::ValidationError);
    assert_eq!(err.message, "Message cannot be empty");
    assert!(machine.state().messages.is_empty());
    assert!(!machine.state().is_loading);
    machine.fail(err.code, &err.message);
    assert_eq!(machine.state().error.as_ref().unwrap().code, ErrorCode::ValidationError);
    assert!(machine.state().messages.is_empty(), "showing the error adds no message");
}

#[test]
fn a_transport_failure_keeps_the_user_message_and_changes_nothing_else() {
    let mut m = Mirror::new();
    m.begin("Hello");
    let patches = m.machine.fail(ErrorCode::Unauthorized, "Invalid API key");
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
fn the_request_carries_the_agent_protocol_shape_and_the_history() {
    let mut machine = StateMachine::default();
    machine.begin("first", Value::Null).unwrap();
    let mut payload = CompletePayload { message: "answer".into(), ..Default::default() };
    payload.extra.insert("conversation_id".into(), json!(789));
    machine.apply(&StreamEvent::Complete { payload });
    let (request, _) = machine.begin("second", json!({"current_page": "reports"})).unwrap();
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

/// A machine whose conversation is one finished turn, and that conversation saved.
fn a_saved_answer() -> (StateMachine, String) {
    let mut machine = StateMachine::default();
    machine.begin("hi", Value::Null).unwrap();
    machine.apply(&complete("hello"));
    let saved = machine.messages_json();
    (machine, saved)
}

#[test]
fn messages_save_and_load_as_json() {
    let (machine, saved) = a_saved_answer();
    let mut restored = Mirror::new();
    restored.begin("a turn in the way");
    restored.apply(complete("to be replaced"));
    let patches = restored.machine.load_messages(&saved).unwrap();
    restored.check(&patches);
    assert_eq!(restored.state().messages, machine.state().messages);
    let mut restored = restored.machine;
    assert_eq!(restored.load_messages("{not json").unwrap_err().code, ErrorCode::ValidationError);
}

#[test]
fn saved_messages_loaded_while_text_streams_replace_the_answer_in_the_making() {
    let (machine, saved) = a_saved_answer();
    let mut restored = Mirror::new();
    restored.begin("a turn in the way");
    restored.apply(StreamEvent::TextDelta { text: "an answer cut short".into() });
    restored.apply(StreamEvent::ThinkingDelta { text: "a thought cut short".into() });
    let patches = restored.machine.load_messages(&saved).unwrap();
    restored.check(&patches);
    assert_eq!(restored.state().messages, machine.state().messages);
    assert_eq!(restored.state().streaming_text, "");
    restored.apply(StreamEvent::TextDelta { text: "new".into() });
    assert_eq!(restored.state().streaming_segments, vec![Segment::Text { text: "new".into() }]);
}

#[test]
fn a_saved_answer_leaves_out_the_parts_its_text_makes_again_and_loads_back_whole() {
    let mut machine = StateMachine::default();
    let text = |t: &str| StreamEvent::TextDelta { text: t.into() };
    // A turn: `events` stream, then the answer `said` completes.
    let mut turn = |prompt: &str, mut events: Vec<StreamEvent>, said: &str| {
        machine.begin(prompt, Value::Null).unwrap();
        let segments = vec![Segment::Text { text: said.into() }];
        let payload = CompletePayload { message: said.into(), text: said.into(), segments, ..Default::default() };
        events.push(StreamEvent::Complete { payload });
        machine.step(events);
    };
    turn("hi", vec![text("Hel"), text("lo")], "Hello");
    // Data parts are not in the text: that answer keeps its parts.
    turn(
        "and data",
        vec![text("Here"), StreamEvent::Data { data: json!({"type": "data-chart", "data": [1]}) }],
        "Here",
    );
    let messages = machine.state().messages.clone();
    assert_eq!(messages.len(), 4);

    let saved = machine.messages_json();
    assert_eq!(machine.state().messages, messages, "saving changes nothing");
    let written: Value = serde_json::from_str(&saved).unwrap();
    let parts: Vec<usize> = (0..4).map(|i| written[i]["parts"].as_array().map_or(99, Vec::len)).collect();
    assert_eq!(parts, [0, 0, 0, 2], "only the answer with data writes its parts");
    assert_eq!(written[1]["content"], "Hello");
    assert_eq!(written[1].get("segments"), None, "a plain answer's segments are its content: its text is written once");

    let mut restored = StateMachine::default();
    restored.load_messages(&saved).unwrap();
    assert_eq!(restored.state().messages, messages, "read back whole");
    // As the format wrote them before: every message with its parts.
    let mut restored = StateMachine::default();
    restored.load_messages(&to_json(&messages)).unwrap();
    assert_eq!(restored.state().messages, messages, "a message saved with its parts reads back whole");
}

#[test]
fn a_saved_answer_leaves_out_the_segments_its_content_makes_again_and_loads_back_whole() {
    let mut machine = StateMachine::default();
    let history = json!([{"tool_name": "search", "tool_use_id": "t1", "input": {"q": "x"}, "output": "5 hits"}]);
    let stored = json!([
        {"role": "user", "content": "  padded question  "},
        // A plain answer, its text edged with whitespace: its one segment is the text trimmed.
        {"role": "assistant", "content": "  Hello there.\n", "segments": [{"type": "text", "text": "Hello there."}]},
        // Tools at their markers: the segments are what the content and the history make.
        {"role": "assistant", "content": "Looking.[[tool:0]]Found 5.", "tool_history": history,
         "segments": [{"type": "text", "text": "Looking."},
                      {"type": "tool", "index": 0, "tool_use_id": "t1", "tool": "search", "input": {"q": "x"}, "output": "5 hits", "is_error": false},
                      {"type": "text", "text": "Found 5."}]},
        // A backend's answer without segments: it gets those its content makes.
        {"role": "assistant", "content": "No segments.[[tool:0]]", "tool_history": history},
        // Segments that say otherwise than the content: written as they are.
        {"role": "assistant", "content": "Short.", "segments": [{"type": "text", "text": "Longer, as the backend put it."}]},
        // A marker that makes an empty card, and text with a single bracket.
        {"role": "assistant", "content": "[[tool:3]] then [a] and [[", "segments": [
            {"type": "tool", "index": 3, "input": null, "output": null, "is_error": false},
            {"type": "text", "text": "then [a] and [["}]}
    ]);
    let stored = stored.as_array().unwrap().iter().map(|m| ChatMessage::from_value(m).unwrap()).collect();
    machine.set_messages(stored);
    let messages = machine.state().messages.clone();

    let saved = machine.messages_json();
    assert_eq!(machine.state().messages, messages, "saving changes nothing");
    let written: Value = serde_json::from_str(&saved).unwrap();
    let segments: Vec<bool> = (0..6).map(|i| written[i].get("segments").is_some()).collect();
    assert_eq!(
        segments,
        [false, false, false, false, true, false],
        "only segments the content does not make are written"
    );
    let parts: Vec<usize> = (0..6).map(|i| written[i]["parts"].as_array().map_or(99, Vec::len)).collect();
    assert_eq!(parts, [0, 0, 0, 0, 0, 0]);
    assert_eq!(
        serde_json::to_value(&messages[3].segments).unwrap(),
        json!([{"type": "text", "text": "No segments."},
               {"type": "tool", "index": 0, "tool_use_id": "t1", "tool": "search", "input": {"q": "x"}, "output": "5 hits", "is_error": false}]),
        "the answer given without segments has those its content makes"
    );

    let mut restored = StateMachine::default();
    restored.load_messages(&saved).unwrap();
    assert_eq!(restored.state().messages, messages, "read back whole");
    // As the format wrote them before: segments always written.
    let mut restored = StateMachine::default();
    restored.load_messages(&to_json(&messages)).unwrap();
    assert_eq!(restored.state().messages, messages, "a message saved with its segments reads back whole");
}

/// `messages` read back both ways: given to `set_messages` as parsed JSON, and loaded as saved.
fn read_both_ways(saved: &str) -> [Vec<std::sync::Arc<ChatMessage>>; 2] {
    let parsed: Value = serde_json::from_str(saved).unwrap();
    let messages = parsed.as_array().unwrap().iter().map(|m| ChatMessage::from_value(m).unwrap()).collect();
    let mut given = StateMachine::default();
    given.set_messages(messages);
    let mut loaded = StateMachine::default();
    loaded.load_messages(saved).unwrap();
    [given.state().messages.clone(), loaded.state().messages.clone()]
}

#[test]
fn a_saved_plain_answer_given_to_set_messages_reads_back_as_load_messages_reads_it() {
    let mut machine = StateMachine::default();
    machine.begin("hi", Value::Null).unwrap();
    let segments = vec![Segment::Text { text: "Hello".into() }];
    let payload = CompletePayload { message: "Hello".into(), text: "Hello".into(), segments, ..Default::default() };
    machine.apply(&StreamEvent::Complete { payload });
    let saved = machine.messages_json();
    assert!(!saved.contains("segments"), "the plain answer's segments are left out: {saved}");
    let [given, loaded] = read_both_ways(&saved);
    assert_eq!(given[1].segments, vec![Segment::Text { text: "Hello".into() }], "given, it has its segments again");
    assert_eq!(given, loaded);
    assert_eq!(loaded, machine.state().messages, "both read back the messages saved");
}

#[test]
fn an_answer_with_tools_saved_without_parts_or_segments_reads_to_one_result_both_ways() {
    // As the format wrote it before segments were left out only when the content makes them:
    // a backend's answer without segments written with empty parts.
    let saved = r#"[
        {"id": "u1", "role": "user", "content": "Find CRISPR", "parts": []},
        {"id": "a1", "role": "assistant", "content": "Searching.\n\n[[tool:0]]\n\nFound 5.", "parts": [],
         "tool_history": [{"tool_name": "search", "tool_use_id": "t1", "input": {"q": "CRISPR"}, "output": "5 hits"}]}
    ]"#;
    let [given, loaded] = read_both_ways(saved);
    assert_eq!(given, loaded);
    let tool = json!({"type": "tool", "index": 0, "tool_use_id": "t1", "tool": "search", "input": {"q": "CRISPR"},
                      "output": "5 hits", "is_error": false});
    assert_eq!(
        serde_json::to_value(&loaded[1].segments).unwrap(),
        json!([{"type": "text", "text": "Searching."}, tool, {"type": "text", "text": "Found 5."}])
    );
    assert_eq!(
        serde_json::to_value(&loaded[1].parts).unwrap(),
        json!([{"type": "text", "text": "Searching."},
               {"type": "tool", "tool_use_id": "t1", "tool": "search", "index": 0, "state": "output-available",
                "input": {"q": "CRISPR"}, "output": "5 hits", "is_error": false},
               {"type": "text", "text": "Found 5."}])
    );
    assert_eq!(serde_json::to_value(&loaded[0].parts).unwrap(), json!([{"type": "text", "text": "Find CRISPR"}]));
    assert!(loaded[0].segments.is_empty(), "a user message has no segments");
}

#[test]
fn an_answer_whose_tool_calls_are_in_its_parts_only_gets_their_tool_cards_as_segments() {
    // A UI message of the AI SDK's shape: no content, no segments, the tool call a part between texts.
    let saved = r#"[
        {"id": "a1", "role": "assistant", "parts": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool", "tool_use_id": "t1", "tool": "weather", "index": 0, "state": "output-available",
             "input": {"city": "Oslo"}, "output": "sunny", "is_error": false},
            {"type": "text", "text": "It is sunny."},
            {"type": "text", "text": "Enjoy."}]}
    ]"#;
    let [given, loaded] = read_both_ways(saved);
    assert_eq!(given, loaded);
    assert_eq!(
        serde_json::to_value(&loaded[0].segments).unwrap(),
        json!([{"type": "text", "text": "Let me check."},
               {"type": "tool", "index": 0, "tool_use_id": "t1", "tool": "weather", "input": {"city": "Oslo"},
                "output": "sunny", "is_error": false},
               {"type": "text", "text": "It is sunny.\n\nEnjoy."}])
    );
    // Saved and read back, it is the same message.
    let mut machine = StateMachine::default();
    machine.load_messages(saved).unwrap();
    let [again, _] = read_both_ways(&machine.messages_json());
    assert_eq!(again, loaded);
}

#[test]
fn a_streamed_answer_is_held_once_by_its_complete_its_message_its_segments_and_parts() {
    use chatstream::stream::{ChatStream, StreamOptions};
    let frame = |data: Value| format!("data: {data}\n\n");
    let mut body = String::new();
    for piece in ["Hello ", "there, ", "a long answer."] {
        body += &frame(json!({"choices": [{"index": 0, "delta": {"content": piece}}]}));
    }
    body += &frame(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    body += "data: [DONE]\n\n";
    let mut stream = ChatStream::new(StreamOptions::default());
    let mut events = Vec::new();
    stream.push(body.as_bytes(), &mut events);
    stream.finish(&mut events);

    let mut machine = StateMachine::default();
    machine.begin("hi", Value::Null).unwrap();
    let step = machine.step(events);
    let Some(StreamEvent::Complete { payload }) = step.events.last() else { panic!("{:?}", step.events) };
    assert_eq!(payload.text, "Hello there, a long answer.");
    let message = machine.state().messages[1].clone();
    let [Segment::Text { text: segment }] = &message.segments[..] else { panic!("{:?}", message.segments) };
    let [chatstream::state::MessagePart::Text { text: part }] = &message.parts[..] else {
        panic!("{:?}", message.parts)
    };
    for (what, text) in
        [("message", &payload.message), ("content", &message.content), ("segment", segment), ("part", part)]
    {
        assert!(text.same_copy(&payload.text), "the {what} holds its own copy of the text");
    }
}

#[test]
fn a_turn_that_produced_nothing_adds_no_empty_message() {
    let mut m = Mirror::new();
    m.begin("hello");
    m.apply(complete(""));
    m.apply(StreamEvent::error(ErrorCode::NetworkError, "Connection failed"));
    m.apply(StreamEvent::Cancelled);
    let state = m.state();
    let contents: Vec<&str> = state.messages.iter().map(|msg| msg.content.as_str()).collect();
    assert_eq!(contents, ["hello"], "the user's message stays last, ready to retry");
    assert_eq!(m.state().error.as_ref().map(|e| e.code), Some(ErrorCode::NetworkError));
}

#[test]
fn messages_have_stable_unique_ids_across_turns_saves_and_loads() {
    let mut m = Mirror::new();
    m.begin("first");
    m.apply(complete("one"));
    m.begin("second");
    m.apply(complete("two"));
    let ids: Vec<String> = m.state().messages.iter().map(|msg| msg.id.clone()).collect();
    assert_eq!(ids.len(), 4);
    assert!(ids.iter().all(|id| !id.is_empty()));
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 4, "{ids:?}");
    let mut restored = StateMachine::default();
    restored.load_messages(&m.machine.messages_json()).unwrap();
    let state = restored.state();
    let kept: Vec<&str> = state.messages.iter().map(|msg| msg.id.as_str()).collect();
    assert_eq!(kept, ids, "ids survive a save and a load");
}

#[test]
fn messages_given_without_ids_or_parts_get_them() {
    let mut m = Mirror::new();
    let stored = json!([
        {"role": "user", "content": "Find CRISPR"},
        {"id": "kept", "role": "assistant", "content": "Searching.[[tool:0]]Found 5.",
         "tool_history": [{"tool_name": "search", "input": {"q": "CRISPR"}, "output": "5 hits"}]},
        {"role": "assistant", "content": null, "tool_history": [{"tool_name": "search", "input": {}, "output": "none"}]}
    ]);
    let stored = stored.as_array().unwrap().iter().map(|m| ChatMessage::from_value(m).unwrap()).collect();
    let patches = m.machine.set_messages(stored);
    m.check(&patches);
    let messages = &m.state().messages;
    assert!(!messages[0].id.is_empty());
    assert_eq!(messages[1].id, "kept");
    assert_ne!(messages[0].id, messages[2].id);
    assert_eq!(messages[2].content, "", "a turn that only called tools has empty text");
    let parts = serde_json::to_value(&messages[1].parts).unwrap();
    assert_eq!(
        parts,
        json!([
            {"type": "text", "text": "Searching."},
            {"type": "tool", "tool_use_id": "", "tool": "search", "index": 0, "state": "output-available",
             "input": {"q": "CRISPR"}, "output": "5 hits", "is_error": false},
            {"type": "text", "text": "Found 5."}
        ])
    );
}

#[test]
fn a_message_without_content_is_read_from_its_text_parts_and_one_with_neither_is_refused() {
    // The AI SDK's UI message shape: no `content`, the text in parts.
    let ui = json!({"id": "m1", "role": "assistant", "parts": [
        {"type": "text", "text": "It is sunny.", "state": "done"},
        {"type": "reasoning", "text": "The user asked about weather."},
        {"type": "text", "text": "Anything else?"}
    ]});
    let message = ChatMessage::from_value(&ui).unwrap();
    assert_eq!(message.content, "It is sunny.\n\nAnything else?");
    let mut m = Mirror::new();
    let patches = m.machine.set_messages(vec![message]);
    m.check(&patches);
    let (request, _) = m.machine.begin("And tomorrow?", json!({})).unwrap();
    assert_eq!(
        request.conversation_history[0].content, "It is sunny.\n\nAnything else?",
        "the text reaches the backend"
    );

    for (stored, says) in [
        (json!({"id": "m2", "role": "user"}), "(id \"m2\") has no `content` and no `parts`"),
        (json!({"role": "user", "content": null, "parts": []}), "has no `content` and no `parts`"),
        (json!({"id": "s", "role": "system", "content": "Be brief."}), "role \"system\" (id \"s\") is not supported"),
        (json!({"role": "tool", "content": "42"}), "role \"tool\" is not supported"),
    ] {
        let error = ChatMessage::from_value(&stored).unwrap_err();
        assert!(error.contains(says), "{stored}: {error}");
    }
    let mut restored = StateMachine::default();
    let error =
        restored.load_messages(r#"[{"role": "user", "content": "hi"}, {"id": "x", "role": "assistant"}]"#).unwrap_err();
    assert_eq!(error.code, ErrorCode::ValidationError);
    assert!(error.message.contains("[1]: the message (id \"x\") has no `content`"), "{}", error.message);
    assert!(restored.state().messages.is_empty(), "nothing half-loaded");
}

#[test]
fn regenerate_replaces_the_last_answer_and_asks_the_same_question_again() {
    let mut m = Mirror::new();
    m.begin("first");
    m.apply(complete("one"));
    m.machine.begin("second", json!({"page": "reports"})).map(|(_, p)| m.check(&p)).unwrap();
    m.apply(complete("two"));
    let (request, patches) = m.machine.regenerate().unwrap();
    m.check(&patches);
    assert_eq!(request.message, "second");
    assert_eq!(request.context, json!({"page": "reports"}), "the same context again");
    assert_eq!(request.conversation_history.len(), 2, "the first exchange only");
    let state = m.state();
    let contents: Vec<&str> = state.messages.iter().map(|msg| msg.content.as_str()).collect();
    assert_eq!(contents, ["first", "one", "second"]);
    assert!(m.state().is_loading);
    m.apply(complete("two, again"));
    assert_eq!(m.state().messages.last().unwrap().content, "two, again");
}

#[test]
fn regenerate_after_a_failed_turn_retries_without_an_orphan_or_the_error() {
    let mut m = Mirror::new();
    m.begin("hello");
    let patches = m.machine.fail(ErrorCode::NetworkError, "Connection failed");
    m.check(&patches);
    assert!(m.state().error.is_some());
    let (request, patches) = m.machine.regenerate().unwrap();
    m.check(&patches);
    assert_eq!(request.message, "hello");
    assert!(request.conversation_history.is_empty());
    assert_eq!(m.state().messages.len(), 1, "no second copy of the user message");
    assert_eq!(m.state().error, None);
}

#[test]
fn clear_error_clears_only_the_error() {
    let mut m = Mirror::new();
    m.begin("hello");
    let patches = m.machine.fail(ErrorCode::RateLimited, "Rate limited, try again");
    m.check(&patches);
    let patches = m.machine.clear_error();
    m.check(&patches);
    assert_eq!(m.state().error, None);
    assert_eq!(m.state().messages.len(), 1);
}

#[test]
fn a_run_of_text_split_into_parts_by_data_and_reasoning_stays_one_segment_and_reads_whole_at_every_step() {
    let mut m = Mirror::new();
    m.begin("go");
    let text = |t: &str| StreamEvent::TextDelta { text: t.into() };
    m.apply(text("  Hello"));
    m.apply(text(" there"));
    m.apply(StreamEvent::Data { data: json!({"type": "data-x", "data": 1}) });
    m.apply(text(" world"));
    m.apply(StreamEvent::ThinkingDelta { text: "hmm".into() });
    m.apply(text("!"));
    let state = m.state();
    assert_eq!(state.streaming_text, "  Hello there world!");
    assert_eq!(
        serde_json::to_value(&state.streaming_segments).unwrap(),
        json!([{"type": "text", "text": "Hello there world!"}]),
        "data and reasoning parts do not split the segment"
    );
    assert_eq!(
        serde_json::to_value(&state.streaming_parts).unwrap(),
        json!([
            {"type": "text", "text": "Hello there"},
            {"type": "data", "data": {"type": "data-x", "data": 1}},
            {"type": "text", "text": "world"},
            {"type": "reasoning", "text": "hmm"},
            {"type": "text", "text": "!"}
        ])
    );
    drop(state);
    let said = "Hello there world!";
    let segments = vec![Segment::Text { text: said.into() }];
    m.apply(StreamEvent::Complete {
        payload: CompletePayload {
            message: said.into(),
            text: said.into(),
            thinking: Some("hmm".into()),
            segments,
            ..Default::default()
        },
    });
    let answer = m.state().messages[1].clone();
    assert_eq!(answer.segments, [Segment::Text { text: said.into() }]);
    let texts: Vec<String> = (answer.parts.iter())
        .filter_map(|p| serde_json::to_value(p).unwrap()["text"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(texts, ["Hello there", "world", "hmm", "!"], "the message keeps the parts as they streamed");
    assert!(m.state().streaming_segments.is_empty() && m.state().streaming_parts.is_empty());
}

#[test]
fn parts_stream_in_reading_order_and_the_message_keeps_them() {
    let mut m = Mirror::new();
    m.begin("weather?");
    m.apply(StreamEvent::ThinkingDelta { text: "Need ".into() });
    m.apply(StreamEvent::ThinkingDelta { text: "the tool.".into() });
    m.apply(StreamEvent::TextDelta { text: "Checking.".into() });
    m.apply(StreamEvent::ToolStart {
        tool_use_id: "t1".into(),
        tool: "weather".into(),
        index: 0,
        input: json!({}).into(),
    });
    m.apply(StreamEvent::ToolCall {
        tool_use_id: "t1".into(),
        tool: "weather".into(),
        index: 0,
        input: json!({"city": "Oslo"}).into(),
        incomplete: false,
        arguments: None,
    });
    m.apply(StreamEvent::ToolComplete {
        tool_use_id: "t1".into(),
        tool: "weather".into(),
        index: 0,
        input: json!({"city": "Oslo"}).into(),
        output: json!({"temp": 3}).into(),
        is_error: false,
    });
    m.apply(StreamEvent::Data { data: json!({"type": "data-chart", "data": [1, 2]}) });
    m.apply(StreamEvent::TextDelta { text: "\n\nIt is 3°C.".into() });
    let streaming = serde_json::to_value(&m.state().streaming_parts).unwrap();
    let expected = json!([
        {"type": "reasoning", "text": "Need the tool."},
        {"type": "text", "text": "Checking."},
        {"type": "tool", "tool_use_id": "t1", "tool": "weather", "index": 0, "state": "output-available",
         "input": {"city": "Oslo"}, "output": {"temp": 3}, "is_error": false},
        {"type": "data", "data": {"type": "data-chart", "data": [1, 2]}},
        {"type": "text", "text": "It is 3°C."}
    ]);
    assert_eq!(streaming, expected, "a text part after a tool starts at its first visible character");
    assert!(matches!(&m.state().streaming_segments[2], Segment::Text { text } if text == "It is 3°C."));
    let record = json!({"tool_name": "weather", "tool_use_id": "t1", "input": {"city": "Oslo"}, "output": {"temp": 3}, "is_error": false});
    m.apply(StreamEvent::Complete {
        payload: CompletePayload {
            message: "Checking.[[tool:0]]It is 3°C.".into(),
            text: "Checking.\n\nIt is 3°C.".into(),
            thinking: Some("Need the tool.".into()),
            tool_history: vec![ToolRecord::from_value(&record).unwrap()],
            ..Default::default()
        },
    });
    let kept = serde_json::to_value(&m.state().messages[1].parts).unwrap();
    assert_eq!(kept, expected, "the message keeps the parts as they streamed");
    assert!(m.state().streaming_parts.is_empty());
}

#[test]
fn a_tool_waiting_for_approval_shows_in_the_state_and_a_denial_stays_denied() {
    let mut m = Mirror::new();
    m.begin("delete it");
    m.apply(StreamEvent::ToolStart {
        tool_use_id: "t1".into(),
        tool: "delete".into(),
        index: 0,
        input: json!({}).into(),
    });
    let call = chatstream::state::PendingApproval {
        tool_use_id: "t1".into(),
        tool: "delete".into(),
        index: 0,
        input: json!({"path": "a.txt"}).into(),
    };
    let patches = m.machine.request_approval(call.clone());
    m.check(&patches);
    assert_eq!(m.state().pending_approval, Some(call));
    assert_eq!(m.state().phase, Phase::Approval);
    assert!(matches!(
        &m.state().streaming_parts[0],
        chatstream::state::MessagePart::Tool { state: ToolState::ApprovalRequested, .. }
    ));
    let patches = m.machine.approval_answered("t1", false);
    m.check(&patches);
    assert_eq!(m.state().pending_approval, None);
    m.apply(StreamEvent::ToolComplete {
        tool_use_id: "t1".into(),
        tool: "delete".into(),
        index: 0,
        input: json!({"path": "a.txt"}).into(),
        output: json!("Denied: not now").into(),
        is_error: true,
    });
    assert!(matches!(
        &m.state().streaming_parts[0],
        chatstream::state::MessagePart::Tool { state: ToolState::OutputDenied, .. }
    ));
}

#[test]
fn a_tool_input_as_deep_as_the_parser_reads_reaches_the_patches_whole() {
    // The patches' values hold the input some levels deeper than serde_json's parser reads.
    let deep: Value = serde_json::from_str(&format!("{}{}", "[".repeat(127), "]".repeat(127))).unwrap();
    let mut m = Mirror::new();
    m.begin("go");
    m.apply(StreamEvent::ToolStart { tool_use_id: "t1".into(), tool: "deep".into(), index: 0, input: deep.into() });
    m.apply(complete("[[tool:0]]"));
    assert_eq!(m.state().messages.len(), 2);
}

#[test]
fn a_finished_answer_becomes_its_message_with_the_streamed_views_cleared() {
    let mut m = Mirror::new();
    m.begin("Hi");
    m.apply(StreamEvent::ThinkingDelta { text: "Hmm.".into() });
    m.apply(StreamEvent::TextDelta { text: "Héllo".into() });
    m.apply(StreamEvent::TextDelta { text: " wörld".into() });
    let payload = CompletePayload {
        message: "Héllo wörld".into(),
        text: "Héllo wörld".into(),
        thinking: Some("Hmm.".into()),
        segments: vec![Segment::Text { text: "Héllo wörld".into() }],
        ..Default::default()
    };
    let patches = m.machine.apply(&StreamEvent::Complete { payload });
    m.check(&patches);
    let state = m.state();
    let answer = &state.messages[1];
    assert_eq!(answer.content, "Héllo wörld");
    assert_eq!(answer.thinking.as_deref(), Some("Hmm."));
    assert_eq!(answer.segments, [Segment::Text { text: "Héllo wörld".into() }]);
    assert_eq!(
        serde_json::to_value(&answer.parts).unwrap(),
        json!([{ "type": "reasoning", "text": "Hmm." }, { "type": "text", "text": "Héllo wörld" }])
    );
    assert_eq!((state.streaming_text.as_str(), state.thinking_text.as_str()), ("", ""));
    assert!(state.streaming_segments.is_empty() && state.streaming_parts.is_empty());
    // The patch that adds the answer shares the state's message rather than holding a copy.
    let pushed = patches.iter().find_map(|p| match p {
        Patch::Push { value: PatchValue::Message(message), .. } => Some(message),
        _ => None,
    });
    assert!(std::sync::Arc::ptr_eq(pushed.expect("the answer is pushed"), answer));
}

#[test]
fn a_finished_answer_whose_complete_says_otherwise_than_what_streamed_keeps_what_complete_says() {
    let mut m = Mirror::new();
    m.begin("Hi");
    m.apply(StreamEvent::TextDelta { text: "Draft".into() });
    m.apply(StreamEvent::Complete {
        payload: CompletePayload {
            message: "Final answer".into(),
            text: "Final answer".into(),
            segments: vec![Segment::Text { text: "Final answer".into() }],
            ..Default::default()
        },
    });
    let answer = &m.state().messages[1];
    assert_eq!(answer.content, "Final answer");
    assert_eq!(answer.segments, [Segment::Text { text: "Final answer".into() }]);
    assert_eq!(serde_json::to_value(&answer.parts).unwrap(), json!([{ "type": "text", "text": "Final answer" }]));
    assert_eq!(m.state().streaming_text, "");
}

#[test]
fn an_answer_going_back_and_forth_between_thinking_and_text_starts_a_part_at_each_turn_in_one_patch() {
    let mut m = Mirror::new();
    m.begin("2+2?");
    let mut patches_of = |event: StreamEvent| {
        let patches = m.machine.apply(&event);
        m.check(&patches);
        patches
    };
    let first = patches_of(StreamEvent::ThinkingDelta { text: "Basic ".into() });
    assert!(matches!(&first[0], Patch::StartThinking { text } if text == "Basic "));
    patches_of(StreamEvent::ThinkingDelta { text: "arithmetic.".into() });
    patches_of(StreamEvent::TextDelta { text: "2 + 2".into() });
    // Each later turn of the answer is one patch: a new part (the text segment goes on).
    assert_eq!(
        patches_of(StreamEvent::ThinkingDelta { text: "Check.".into() }),
        [Patch::StartThinking { text: "Check.".into() }]
    );
    assert_eq!(
        patches_of(StreamEvent::TextDelta { text: " = 4".into() }).len(),
        3,
        "leading whitespace: a part drops it"
    );
    patches_of(StreamEvent::ThinkingDelta { text: "Sure.".into() });
    assert_eq!(patches_of(StreamEvent::TextDelta { text: "!".into() }), [Patch::StartTextPart { text: "!".into() }]);
    let state = m.state();
    assert_eq!(state.streaming_text, "2 + 2 = 4!");
    assert_eq!(state.thinking_text, "Basic arithmetic.Check.Sure.");
    assert_eq!(
        serde_json::to_value(&state.streaming_parts).unwrap(),
        json!([
            {"type": "reasoning", "text": "Basic arithmetic."},
            {"type": "text", "text": "2 + 2"},
            {"type": "reasoning", "text": "Check."},
            {"type": "text", "text": "= 4"},
            {"type": "reasoning", "text": "Sure."},
            {"type": "text", "text": "!"},
        ])
    );
    assert_eq!(
        serde_json::to_value(&state.streaming_segments).unwrap(),
        json!([{"type": "text", "text": "2 + 2 = 4!"}])
    );
}

fn tool_start(id: &str, index: u32) -> StreamEvent {
    StreamEvent::ToolStart { tool_use_id: id.into(), tool: "weather".into(), index, input: json!({}).into() }
}

fn tool_call(id: &str, index: u32, city: &str) -> StreamEvent {
    let input = json!({ "city": city }).into();
    StreamEvent::ToolCall {
        tool_use_id: id.into(),
        tool: "weather".into(),
        index,
        input,
        incomplete: false,
        arguments: None,
    }
}

/// The ops of `patches` on the list `key`, in order.
fn ops_on(patches: &[Patch], key: &str) -> Vec<&'static str> {
    let ops = patches.iter().filter_map(|patch| match patch {
        Patch::Push { key: k, .. } if *k == key => Some("push"),
        Patch::SetAt { key: k, .. } if *k == key => Some("setAt"),
        Patch::Set { key: k, .. } if *k == key => Some("set"),
        _ => None,
    });
    ops.collect()
}

#[test]
fn a_tool_card_pushed_and_given_its_input_in_one_step_is_one_push_of_the_final_card() {
    let mut m = Mirror::new();
    m.begin("weather?");
    // A whole call in one frame (Gemini's): its start and its input in one read.
    let patches = m.step(vec![tool_start("t1", 0), tool_call("t1", 0, "Oslo")]);
    assert_eq!(ops_on(&patches, "streamingSegments"), ["push"]);
    assert_eq!(ops_on(&patches, "streamingParts"), ["push"]);
    let pushed = patches.iter().find_map(|p| match p {
        Patch::Push { key: "streamingParts", value } => Some(value.to_value()),
        _ => None,
    });
    let pushed = pushed.expect("a push of the card");
    assert_eq!(pushed["input"], json!({ "city": "Oslo" }), "the push carries the final input");
    assert_eq!(pushed["state"], json!("input-available"));
}

#[test]
fn an_item_set_after_a_later_push_or_in_a_later_step_is_set_in_place() {
    let mut m = Mirror::new();
    m.begin("weather?");
    // The first card is not the last pushed when its input comes: it is set where it is.
    let patches = m.step(vec![tool_start("t1", 0), tool_start("t2", 1), tool_call("t1", 0, "Oslo")]);
    assert_eq!(ops_on(&patches, "streamingSegments"), ["push", "push", "setAt"]);
    assert_eq!(ops_on(&patches, "streamingParts"), ["push", "push", "setAt"]);
    // The second's input comes in the next read: the push was in the step before.
    let patches = m.step(vec![tool_call("t2", 1, "Bergen")]);
    assert_eq!(ops_on(&patches, "streamingSegments"), ["setAt"]);
    assert_eq!(ops_on(&patches, "streamingParts"), ["setAt"]);
}

#[test]
fn thinking_after_a_pushed_card_keeps_the_set_apart_from_the_push() {
    let mut m = Mirror::new();
    m.begin("weather?");
    // Thinking between the push and the set starts a reasoning part after the card (a patch that
    // names no list): the card is set where it is.
    let thinking = StreamEvent::ThinkingDelta { text: "Hmm.".into() };
    let patches = m.step(vec![tool_start("t1", 0), thinking, tool_call("t1", 0, "Oslo")]);
    assert_eq!(ops_on(&patches, "streamingParts"), ["push", "setAt"]);
    assert!(patches.iter().any(|p| matches!(p, Patch::StartThinking { .. })));
}

#[test]
fn a_stop_that_completes_and_cancels_in_one_step_pushes_the_stopped_answer_once() {
    let mut m = Mirror::new();
    m.begin("Hi");
    m.apply(StreamEvent::TextDelta { text: "Hel".into() });
    let patches = m.step(vec![complete("Hel"), StreamEvent::Cancelled]);
    assert_eq!(ops_on(&patches, "messages"), ["push"]);
    let pushed = patches.iter().find_map(|p| match p {
        Patch::Push { key: "messages", value } => Some(value.to_value()),
        _ => None,
    });
    assert_eq!(pushed.unwrap()["cancelled"], json!(true));
}

#[test]
fn a_card_set_after_many_other_patches_in_its_step_is_set_in_place_and_a_few_still_fold() {
    let status = |n: usize| StreamEvent::Status { message: format!("step {n}") };
    // A few status lines between the push and the set: the push still carries the input.
    let mut m = Mirror::new();
    m.begin("weather?");
    let mut events = vec![tool_start("t1", 0)];
    events.extend((0..2).map(status));
    events.push(tool_call("t1", 0, "Oslo"));
    assert_eq!(ops_on(&m.step(events), "streamingParts"), ["push"]);
    // Many: the push is not looked for that far back (each set would walk the whole step again),
    // and the card is set where it is; the mirror checks the patches give the same state either way.
    let mut m = Mirror::new();
    m.begin("weather?");
    let mut events = vec![tool_start("t1", 0)];
    events.extend((0..50).map(status));
    events.push(tool_call("t1", 0, "Oslo"));
    assert_eq!(ops_on(&m.step(events), "streamingParts"), ["push", "setAt"]);
}

/// A call id that repeats in one turn (a backend that reuses ids): the events about it change
/// its first part and first card, never the later ones, and a new turn forgets the ids.
#[test]
fn a_repeated_tool_id_finds_its_first_part_and_card_until_the_turn_ends() {
    let start = |index| StreamEvent::ToolStart {
        tool_use_id: "t1".into(),
        tool: "search".into(),
        index,
        input: json!({}).into(),
    };
    let call = StreamEvent::ToolCall {
        tool_use_id: "t1".into(),
        tool: "search".into(),
        index: 0,
        input: json!({"q": "a"}).into(),
        incomplete: false,
        arguments: None,
    };
    let done = StreamEvent::ToolComplete {
        tool_use_id: "t1".into(),
        tool: "search".into(),
        index: 0,
        input: json!({"q": "a"}).into(),
        output: json!({"hits": 2}).into(),
        is_error: false,
    };
    let mut m = Mirror::new();
    m.begin("look it up");
    m.apply(start(0));
    m.apply(start(1));
    m.apply(call.clone());
    m.apply(done.clone());
    let parts = serde_json::to_value(&m.state().streaming_parts).unwrap();
    assert_eq!(parts[0]["state"], "output-available");
    assert_eq!(parts[0]["input"], json!({"q": "a"}));
    assert_eq!(parts[1]["state"], "input-streaming");
    assert_eq!(parts[1]["input"], json!({}));
    let segments = serde_json::to_value(&m.state().streaming_segments).unwrap();
    assert_eq!(segments[0]["output"], json!({"hits": 2}));
    assert_eq!(segments[1]["output"], Value::Null);

    m.apply(complete(""));
    m.begin("again");
    m.apply(call);
    m.apply(done);
    // The ids of the turn before point nowhere now: the result adds its own part and card.
    let parts = serde_json::to_value(&m.state().streaming_parts).unwrap();
    assert_eq!(parts.as_array().unwrap().len(), 1, "{parts}");
    assert_eq!(parts[0]["state"], "output-available");
    let segments = serde_json::to_value(&m.state().streaming_segments).unwrap();
    assert_eq!(segments.as_array().unwrap().len(), 1);
    assert_eq!(segments[0]["output"], json!({"hits": 2}));
}
