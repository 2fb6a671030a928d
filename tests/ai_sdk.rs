//! The AI SDK backend mode (`chatstream::ai_sdk::AiSdkChat`) against the AI SDK's own chat.
//!
//! `tests/fixtures/ai-sdk-chat/conversation.recording` is what the chat behind `useChat` did, recorded
//! by `record.mjs` beside it: the request bodies it sent, the response bodies it read, its
//! messages after each step (JSON.stringify's text), its onFinish, onToolCall and onData
//! calls. The replay does the same steps and must produce the same text, key order included,
//! whatever the response bodies' chunking.
#![cfg(feature = "ai-sdk")]

mod common;

use chatstream::ai_sdk::{AiSdkChat, Update};
use chatstream::error::ErrorCode;
use common::{cut, random_cuts, seed, Rng};
use serde_json::Value;

fn fixture() -> Value {
    let path = common::fixtures_dir().join("ai-sdk-chat/conversation.recording");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn new_chat(messages: &str) -> AiSdkChat {
    let mut n = 0;
    AiSdkChat::new(
        "chat-1",
        messages,
        Box::new(move || {
            n += 1;
            format!("made-{n}")
        }),
    )
    .unwrap()
}

/// How a response body is cut into pushes.
#[derive(Clone, Copy, Debug)]
enum Split {
    OnePiece,
    ByteAtATime,
    Random(u64),
}

impl Split {
    fn cuts(self, len: usize, run: u64) -> Vec<usize> {
        match self {
            Split::OnePiece => Vec::new(),
            Split::ByteAtATime => (1..len).collect(),
            Split::Random(seed) => {
                let points: Vec<usize> = (0..=len).collect();
                random_cuts(&mut Rng(seed ^ run.wrapping_mul(0x9E37_79B9)), &points, 24)
            }
        }
    }
}

/// What the replay saw of the calls onToolCall, onData, onFinish and onError get.
#[derive(Default)]
struct Seen {
    tool_calls: Vec<String>,
    data: Vec<String>,
    finishes: Vec<Value>,
    errors: Vec<String>,
    codes: Vec<ErrorCode>,
    /// The message of the last update that had one, as onFinish's `message` would be.
    last_message_id: Option<String>,
}

impl Seen {
    fn take(&mut self, update: Update) {
        if let Some(json) = &update.tool_calls {
            self.tool_calls.extend(split_array(json));
        }
        if let Some(json) = &update.data {
            self.data.extend(split_array(json));
        }
        if let Some(message) = &update.message {
            let message: Value = serde_json::from_str(message).unwrap();
            self.last_message_id = message["id"].as_str().map(str::to_owned);
        }
        if let Some(error) = &update.error {
            self.errors.push(error.message.clone());
            self.codes.push(error.code);
        }
        if let Some(finish) = update.finish {
            self.finishes.push(serde_json::json!({
                "messageId": self.last_message_id,
                "isAbort": finish.is_abort,
                "isDisconnect": finish.is_disconnect,
                "isError": finish.is_error,
                "finishReason": finish.finish_reason,
            }));
        }
    }
}

/// What a JSON array holds, as its text without the brackets: arrays compared as the text of
/// their items joined with commas keep each item's key order.
fn split_array(json: &str) -> Option<String> {
    assert!(serde_json::from_str::<Vec<Value>>(json).is_ok(), "{json}");
    Some(json[1..json.len() - 1].to_owned())
}

/// A request the next recorded response answers: it returns the request body.
type Request = Box<dyn FnOnce(&mut AiSdkChat) -> String>;

/// What the AI SDK's chat reported: onFinish's and onError's calls.
#[derive(Default)]
struct Reported {
    finishes: Vec<Value>,
    errors: Vec<String>,
}

/// Replays recorded steps on a chat holding `initial` under `split`; panics at the first
/// difference in the messages, onToolCall's or onData's calls. What onFinish and onError got,
/// for the caller to compare: the replay's and the AI SDK's.
fn replay_steps(initial: &str, steps: &[Value], split: Split) -> (Seen, Reported) {
    let mut chat = new_chat(initial);
    let mut seen = Seen::default();
    let (mut expected_calls, mut expected_data, mut reported) = (Vec::new(), Vec::new(), Reported::default());
    let mut next_request: Option<Request> = None;
    let body = r#"{"app":"replay"}"#;
    for (at, step) in steps.iter().enumerate() {
        let context = format!("step {at} ({}) under {split:?}", step["type"]);
        let text = |key: &str| step[key].as_str().map(str::to_owned);
        match step["type"].as_str().unwrap() {
            "sendMessage" => {
                let message = text("message").unwrap();
                next_request = Some(Box::new(move |chat| chat.send_message(&message, body, None).unwrap()));
            }
            "regenerate" => {
                let id = text("messageId");
                next_request = Some(Box::new(move |chat| chat.regenerate(id.as_deref(), body, None).unwrap()));
            }
            "addToolOutput" if step["whileReading"] == true => {}
            "addToolOutput" => {
                let update = chat.add_tool_output(&text("toolCallId").unwrap(), text("output").as_deref(), None);
                seen.take(update.unwrap());
            }
            "addToolApprovalResponse" => {
                let reason = text("reason");
                let update = chat.add_tool_approval_response(
                    &text("id").unwrap(),
                    step["approved"].as_bool().unwrap(),
                    reason.as_deref(),
                );
                seen.take(update.unwrap());
            }
            "response" => {
                let request =
                    next_request.take().unwrap_or_else(|| Box::new(|chat| chat.continue_turn(body, None).unwrap()));
                assert_eq!(request(&mut chat), text("body").unwrap(), "the request body at {context}");
                let read = text("read").unwrap();
                // A tool output the page gave while the answer was read: right after its call's chunk.
                let output = steps[at..].iter().find(|s| s["whileReading"] == true && s["type"] == "addToolOutput");
                let pause = output.and_then(|o| {
                    let call = format!(r#""type":"tool-input-available","toolCallId":{}"#, o["toolCallId"]);
                    read.find(&call).and_then(|start| read[start..].find("\n\n").map(|end| start + end + 2))
                });
                let (first, rest) = read.split_at(pause.unwrap_or(read.len()));
                for (n, piece) in [first, rest].into_iter().enumerate() {
                    for bytes in cut(piece.as_bytes(), piece.len(), &split.cuts(piece.len(), (at * 2 + n) as u64)) {
                        seen.take(chat.push(bytes));
                    }
                    if n == 0 {
                        if let Some(output) = output.filter(|_| pause.is_some()) {
                            let id = output["toolCallId"].as_str().unwrap();
                            seen.take(chat.add_tool_output(id, output["output"].as_str(), None).unwrap());
                        }
                    }
                }
                let stopped = steps.get(at + 1..).is_some_and(|after| {
                    after.iter().take_while(|s| s["type"] != "response").any(|s| s["type"] == "stop")
                });
                seen.take(if stopped { chat.cancel() } else { chat.finish() });
            }
            "toolCall" => expected_calls.push(text("toolCall").unwrap()),
            "data" => expected_data.push(text("part").unwrap()),
            "finish" => {
                let mut finish = step.clone();
                finish.as_object_mut().unwrap().remove("type");
                reported.finishes.push(finish);
            }
            "error" => reported.errors.push(text("message").unwrap()),
            "messages" => {
                assert_eq!(chat.messages_json(), text("json").unwrap(), "the messages at {context}");
                assert_eq!(seen.tool_calls.join(","), expected_calls.join(","), "onToolCall's calls by {context}");
                assert_eq!(seen.data.join(","), expected_data.join(","), "onData's parts by {context}");
            }
            "stop" => {}
            other => panic!("unknown step {other}"),
        }
    }
    (seen, reported)
}

/// Replays a recorded conversation: everything the same as the AI SDK's, onFinish and errors too.
fn replay(recorded: &Value, split: Split) {
    let steps = recorded["steps"].as_array().unwrap();
    let (seen, reported) = replay_steps(recorded["initialMessages"].as_str().unwrap(), steps, split);
    assert_eq!(seen.finishes, reported.finishes, "onFinish's reports under {split:?}");
    assert_eq!(seen.errors, reported.errors, "the errors under {split:?}");
}

#[test]
fn a_conversation_ends_as_the_ai_sdks_chat_ended_it() {
    let fixture = fixture();
    replay(&fixture["conversation"], Split::OnePiece);
}

#[test]
fn saved_messages_load_and_the_conversation_goes_on_as_the_ai_sdks() {
    let fixture = fixture();
    let reloaded = &fixture["reloaded"];
    let chat = new_chat(reloaded["initialMessages"].as_str().unwrap());
    assert_eq!(chat.messages_json(), reloaded["initialMessages"].as_str().unwrap(), "loaded and saved without loss");
    replay(reloaded, Split::OnePiece);
}

#[test]
fn every_split_of_the_recorded_answers_gives_the_same_messages() {
    let fixture = fixture();
    let seed = seed();
    for split in [Split::ByteAtATime, Split::Random(seed), Split::Random(seed.wrapping_add(1))] {
        replay(&fixture["conversation"], split);
        replay(&fixture["reloaded"], split);
    }
}

#[test]
fn a_request_while_an_answer_is_read_is_a_conflict() {
    let mut chat = new_chat("[]");
    chat.send_message(r#"{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"}]}"#, "{}", None).unwrap();
    let again = chat.send_message(r#"{"id":"u2","role":"user","parts":[{"type":"text","text":"hi"}]}"#, "{}", None);
    assert_eq!(again.unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(chat.set_messages("[]").unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(chat.continue_turn("{}", None).unwrap_err().code, ErrorCode::Conflict);
}

fn streams() -> Value {
    let path = common::fixtures_dir().join("ai-sdk-chat/streams.recording");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Replays one recorded single answer under every split.
fn replay_stream(name: &str, check: impl Fn(&Seen, &Reported, Split)) {
    let streams = streams();
    let steps = streams[name].as_array().unwrap_or_else(|| panic!("no stream {name}"));
    let seed = seed();
    for split in [Split::OnePiece, Split::ByteAtATime, Split::Random(seed)] {
        let (seen, reported) = replay_steps("[]", steps, split);
        check(&seen, &reported, split);
    }
}

#[test]
fn every_chunk_kind_is_applied_as_the_ai_sdk_applies_it() {
    for name in ["every-part", "reset-step"] {
        replay_stream(name, |seen, reported, split| {
            assert_eq!(seen.finishes, reported.finishes, "{name} under {split:?}");
            assert!(seen.errors.is_empty() && reported.errors.is_empty(), "{name} under {split:?}");
        });
    }
}

#[test]
fn an_answer_cut_in_a_tool_input_keeps_the_input_so_far_and_is_an_error() {
    replay_stream("cut-in-tool-input", |seen, reported, split| {
        // The AI SDK reads a body without `finish` as complete; here it is a cut stream.
        assert_eq!(reported.finishes[0]["isError"], false);
        assert_eq!(seen.finishes[0]["isError"], true, "{split:?}");
        assert_eq!(seen.finishes[0]["isDisconnect"], true, "{split:?}");
        assert_eq!(seen.codes, [ErrorCode::NetworkError], "{split:?}");
    });
}

#[test]
fn a_chunk_that_breaks_the_protocol_ends_the_answer_and_keeps_what_came() {
    for name in ["delta-without-start", "unknown-chunk-type", "not-json", "output-for-unknown-call"] {
        replay_stream(name, |seen, reported, split| {
            assert_eq!(seen.finishes, reported.finishes, "{name} under {split:?}");
            assert_eq!(seen.codes, [ErrorCode::ServiceUnavailable], "{name} under {split:?}");
            assert!(seen.errors[0].starts_with("Failed to parse response: "), "{name}: {}", seen.errors[0]);
        });
    }
}

#[test]
fn an_error_chunk_ends_the_answer_with_its_text() {
    replay_stream("error-chunk", |seen, reported, split| {
        assert_eq!(seen.finishes, reported.finishes, "{split:?}");
        assert_eq!(seen.errors, reported.errors, "{split:?}");
        assert_eq!(seen.codes, [ErrorCode::RateLimited], "{split:?}");
    });
}

fn refusal(messages: &str) -> String {
    match AiSdkChat::new("chat-1", messages, Box::new(String::new)) {
        Ok(_) => panic!("accepted: {messages}"),
        Err(error) => {
            assert_eq!(error.code, ErrorCode::ValidationError, "{messages}");
            error.message
        }
    }
}

#[test]
fn a_message_that_is_not_a_ui_message_is_refused_naming_it() {
    let ok = r#"{"id":"ok","role":"user","parts":[{"type":"text","text":"hi"}]}"#;
    let cases = [
        (
            r#"{"id":"a","role":"user","parts":[{"type":"foo"}]}"#,
            r#"messages[1] (id "a"): parts[0]: unknown part type "foo""#,
        ),
        // The agent protocol's shape: text in `content`, no parts. Sent as an empty turn, it would lose context.
        (r#"{"id":"b","role":"user","content":"hi"}"#, r#"messages[1] (id "b"): it has no parts"#),
        (r#"{"id":"c","role":"user","parts":[]}"#, r#"messages[1] (id "c"): it has no parts"#),
        (
            r#"{"id":"d","role":"tool","parts":[{"type":"text","text":"x"}]}"#,
            r#"messages[1] (id "d"): role "tool" is not one of"#,
        ),
        (
            r#"{"id":"e","role":"user","parts":[{"type":"text"}]}"#,
            r#"messages[1] (id "e"): parts[0]: a "text" part needs `text` as a string"#,
        ),
        (
            r#"{"id":"f","role":"assistant","parts":[{"type":"tool-x","toolCallId":"1","state":"done"}]}"#,
            r#"messages[1] (id "f"): parts[0]: tool state "done" is not one of the AI SDK's"#,
        ),
        (
            r#"{"id":"g","role":"assistant","parts":[{"type":"tool-x","toolCallId":"1","state":"approval-requested"}]}"#,
            r#"messages[1] (id "g"): parts[0]: a tool part in state "approval-requested" needs `approval` with an `id`"#,
        ),
        (
            r#"{"id":"h","role":"assistant","parts":[{"type":"dynamic-tool","toolCallId":"1","state":"input-available"}]}"#,
            r#"messages[1] (id "h"): parts[0]: a "dynamic-tool" part needs `toolName` as a string"#,
        ),
        (r#"{"role":"user","parts":[{"type":"text","text":"x"}]}"#, "messages[1]: its id is missing or not a string"),
        (r#""hello""#, "messages[1]: not a message object"),
    ];
    for (message, expected) in cases {
        let refused = refusal(&format!("[{ok},{message}]"));
        assert!(refused.starts_with(expected), "{message}: {refused}");
    }
    assert!(refusal(r#"{"id":"a"}"#).starts_with("messages must be a JSON array of UI messages"));
    assert!(refusal("[{").starts_with("messages must be a JSON array of UI messages"));
}

#[test]
fn every_part_kind_loads_and_saves_as_it_came_keys_in_their_order() {
    // Compact JSON text as JSON.stringify writes it: what a page saved from useChat. Keys in orders
    // of their own, unknown keys, nested values.
    let messages = concat!(
        r#"[{"id":"u1","role":"user","metadata":{"z":1,"a":{"y":2,"b":3}},"parts":[{"type":"text","text":"Hi é \"quoted\""},"#,
        r#"{"type":"file","mediaType":"image/png","filename":"a.png","url":"data:image/png;base64,AA=="}],"extra":[3,2,1]},"#,
        r#"{"role":"assistant","id":"a1","parts":[{"type":"step-start"},"#,
        r#"{"type":"reasoning","id":"r1","text":"Hmm","providerMetadata":{"x":{"sig":"s"}},"state":"done"},"#,
        r#"{"type":"text","text":"Hello","state":"done","custom":true},"#,
        r#"{"type":"source-url","sourceId":"s1","url":"https://a.example","title":"A"},"#,
        r#"{"type":"source-document","sourceId":"s2","mediaType":"application/pdf","title":"Doc","filename":"d.pdf"},"#,
        r#"{"type":"data-weather","id":"w1","data":{"temp":21,"city":"Paris","at":null}},"#,
        r#"{"type":"tool-getWeather","toolCallId":"c1","state":"output-available","input":{"unit":"c","city":"Paris"},"output":{"temperature":21,"unit":"celsius","conditions":"sunny"}},"#,
        r#"{"type":"tool-ask","toolCallId":"c2","state":"input-available","input":{}},"#,
        r#"{"type":"tool-fail","toolCallId":"c3","state":"output-error","input":{"q":1},"errorText":"boom"},"#,
        r#"{"type":"tool-del","toolCallId":"c4","state":"approval-requested","input":{"p":"/x"},"approval":{"id":"ap1"}},"#,
        r#"{"type":"tool-del","toolCallId":"c5","state":"output-denied","input":{"p":"/y"},"approval":{"id":"ap2","approved":false,"reason":"no"}},"#,
        r#"{"type":"dynamic-tool","toolName":"search","toolCallId":"c6","state":"input-streaming","input":{"q":"ru"},"rawInput":"{\"q\":\"ru"},"#,
        r#"{"type":"custom","kind":"acme.note"},{"type":"reasoning-file","mediaType":"image/png","url":"u"},"#,
        r#"{"type":"steering-message","id":"s","parts":[{"type":"text","text":"also"}]}]},"#,
        r#"{"id":"s1","role":"system","parts":[{"type":"text","text":"Be brief."}]}]"#
    );
    let chat = new_chat(messages);
    assert_eq!(chat.messages_json(), messages);
    // And what JSON.stringify(JSON.parse(text)) gives is the same text (no number or escape that JS
    // would write otherwise), so the comparison above is the one a page makes.
    let reparsed: Value = serde_json::from_str(messages).unwrap();
    assert_eq!(reparsed, serde_json::from_str::<Value>(&chat.messages_json()).unwrap());
}

fn conversation() -> &'static str {
    concat!(
        r#"[{"id":"u1","role":"user","parts":[{"type":"text","text":"one"}]},"#,
        r#"{"id":"a1","role":"assistant","parts":[{"type":"text","text":"1"}]},"#,
        r#"{"id":"u2","role":"user","parts":[{"type":"text","text":"two"}]},"#,
        r#"{"id":"a2","role":"assistant","parts":[{"type":"text","text":"2"}]}]"#
    )
}

/// The ids of the messages a request body sends, and its trigger and messageId.
fn sent(body: &str) -> (Vec<String>, String, Option<String>) {
    let body: Value = serde_json::from_str(body).unwrap();
    let ids = body["messages"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap().to_owned()).collect();
    (ids, body["trigger"].as_str().unwrap().to_owned(), body["messageId"].as_str().map(str::to_owned))
}

#[test]
fn regenerate_slices_as_the_ai_sdk_does() {
    // The AI SDK's rule (AbstractChat.regenerate): an assistant message goes with what follows it; a
    // user message stays, what follows it goes; no id: the last message.
    let cases: [(Option<&str>, &[&str]); 4] =
        [(Some("a1"), &["u1"]), (Some("u2"), &["u1", "a1", "u2"]), (Some("u1"), &["u1"]), (None, &["u1", "a1", "u2"])];
    for (id, kept) in cases {
        let mut chat = new_chat(conversation());
        let (ids, trigger, message_id) = sent(&chat.regenerate(id, "{}", None).unwrap());
        assert_eq!(
            (ids, trigger.as_str(), message_id.as_deref()),
            (kept.iter().map(|s| s.to_string()).collect(), "regenerate-message", id)
        );
    }
    let mut chat = new_chat(conversation());
    let unknown = chat.regenerate(Some("nope"), "{}", None).unwrap_err();
    assert_eq!((unknown.code, unknown.message.contains("\"nope\"")), (ErrorCode::ValidationError, true));
    assert_eq!(new_chat("[]").regenerate(None, "{}", None).unwrap_err().code, ErrorCode::ValidationError);
}

#[test]
fn a_message_sent_with_an_id_the_chat_holds_replaces_it_and_what_follows() {
    let mut chat = new_chat(conversation());
    let edit = r#"{"id":"u2","role":"user","parts":[{"type":"text","text":"two, again"}]}"#;
    let body = chat.send_message(edit, r#"{"messages":"the app's","temperature":0.5}"#, None).unwrap();
    // DefaultChatTransport's body: { ...body, id, messages, trigger, messageId }: a key of the app's
    // body that the chat sets keeps its place.
    assert!(body.starts_with(r#"{"messages":[{"id":"u1""#), "{body}");
    assert!(
        body.ends_with(r#"}]}]"temperature":0.5,"id":"chat-1","trigger":"submit-message","messageId":"u2"}"#) || {
            let (ids, trigger, message_id) = sent(&body);
            ids == ["u1", "a1", "u2"] && trigger == "submit-message" && message_id.as_deref() == Some("u2")
        },
        "{body}"
    );
    let (ids, _, message_id) = sent(&body);
    assert_eq!((ids, message_id.as_deref()), (vec!["u1".to_owned(), "a1".into(), "u2".into()], Some("u2")));
    assert!(chat.messages_json().contains("two, again"));
    assert_eq!(chat.send_message(edit, "[1]", None).unwrap_err().code, ErrorCode::Conflict, "still reading");
    chat.cancel();
    assert_eq!(
        chat.send_message(edit, "[1]", None).unwrap_err().code,
        ErrorCode::ValidationError,
        "a body that is not an object"
    );
}

#[test]
fn with_no_answer_in_flight_the_reading_calls_do_nothing() {
    let mut chat = new_chat(conversation());
    assert_eq!(chat.cancel(), Update::default(), "stop when idle is no error");
    assert_eq!(chat.push(b"data: {\"type\":\"text-start\",\"id\":\"t\"}\n\n"), Update::default());
    assert_eq!(chat.finish(), Update::default());
    assert_eq!(chat.fail(ErrorCode::NetworkError, "x"), Update::default());
    assert_eq!(chat.messages_json(), conversation());
}

#[test]
fn tool_outputs_and_approval_answers_for_unknown_ids_are_refused() {
    let mut chat = new_chat(conversation());
    let output = chat.add_tool_output("nope", Some("1"), None).unwrap_err();
    assert_eq!((output.code, output.message.contains("\"nope\"")), (ErrorCode::ValidationError, true));
    let answer = chat.add_tool_approval_response("nope", true, None).unwrap_err();
    assert_eq!((answer.code, answer.message.contains("\"nope\"")), (ErrorCode::ValidationError, true));
    assert_eq!(chat.messages_json(), conversation());
}

/// The response bodies of every recorded answer.
fn recorded_bodies() -> Vec<String> {
    let mut bodies = Vec::new();
    let mut collect = |steps: &Value| {
        for step in steps.as_array().unwrap() {
            if step["type"] == "response" {
                bodies.push(step["read"].as_str().unwrap().to_owned());
            }
        }
    };
    let fixture = fixture();
    collect(&fixture["conversation"]["steps"]);
    collect(&fixture["reloaded"]["steps"]);
    for steps in streams().as_object().unwrap().values() {
        collect(steps);
    }
    bodies
}

/// An answer to a fresh chat, pushed in `pieces`, then ended; what it left.
fn answer(pieces: &[&[u8]], stop: bool) -> (String, Vec<Update>) {
    let mut chat = new_chat(r#"[{"id":"u0","role":"user","parts":[{"type":"text","text":"hi"}]}]"#);
    chat.continue_turn("{}", None).unwrap();
    let mut updates: Vec<Update> = pieces.iter().map(|piece| chat.push(piece)).collect();
    updates.push(if stop { chat.cancel() } else { chat.finish() });
    (chat.messages_json(), updates)
}

#[test]
fn mangled_answers_never_panic_and_never_lose_what_came_before() {
    let seed = seed();
    let mut rng = Rng(seed);
    for body in recorded_bodies() {
        let frames: Vec<&str> = body.split_inclusive("\n\n").collect();
        for _ in 0..40 {
            let at = rng.below(frames.len());
            let frame = frames[at];
            let json_end = frame.trim_end().len();
            let how = rng.below(4);
            let mangled: String = match how {
                // Cut inside the JSON (after `data: {`): never JSON, always an error at this frame.
                0 => format!("{}\n\n", &frame[..(7 + rng.below(json_end.saturating_sub(7))).min(json_end)]),
                // One byte changed anywhere.
                1 => {
                    let mut bytes = frame.as_bytes().to_vec();
                    let i = rng.below(bytes.len());
                    bytes[i] = rng.below(256) as u8;
                    String::from_utf8_lossy(&bytes).into_owned()
                }
                // A frame given twice, or left out.
                2 => frame.repeat(2),
                _ => String::new(),
            };
            let input = [frames[..at].concat(), mangled.clone(), frames[at + 1..].concat()].concat();
            let cuts = random_cuts(&mut rng, &(0..=input.len()).collect::<Vec<_>>(), 12);
            let (messages, updates) = answer(&cut(input.as_bytes(), input.len(), &cuts), false);
            let context = format!("frame {at} of a recorded answer mangled as {mangled:?} (CHATSTREAM_SEED={seed})");
            // What is saved loads again.
            AiSdkChat::new("c", &messages, Box::new(String::new)).unwrap_or_else(|e| panic!("{context}: {e:?}"));
            assert_eq!(updates.iter().filter(|u| u.finish.is_some()).count(), 1, "one finish: {context}");
            for update in &updates {
                if let Some(message) = &update.message {
                    serde_json::from_str::<Value>(message).unwrap_or_else(|e| panic!("{context}: {e}"));
                }
            }
            if how == 0 && frame.starts_with("data: {") {
                // Everything before the broken chunk is kept: as if the page had stopped right there
                // (or as the answer was, when an error chunk before it had ended it).
                let before = frames[..at].concat();
                let (kept, ended) = answer(&[before.as_bytes()], true);
                assert_eq!(messages, kept, "{context}");
                if ended.iter().all(|u| u.error.is_none()) {
                    let error = updates.iter().find_map(|u| u.error.clone()).expect(&context);
                    assert_eq!(error.code, ErrorCode::ServiceUnavailable, "{context}");
                }
            }
        }
    }
}

#[test]
fn an_answer_that_fails_before_any_chunk_reports_its_empty_message_and_adds_none() {
    let mut chat = new_chat(conversation());
    let question = r#"{"id":"u3","role":"user","parts":[{"type":"text","text":"three"}]}"#;
    chat.send_message(question, "{}", Some("from-generate-id")).unwrap();
    let asked = chat.messages_json();
    assert_eq!(asked, format!("{},{question}]", conversation().strip_suffix(']').unwrap()));
    let update = chat.fail(ErrorCode::NetworkError, "Failed to fetch");
    // The AI SDK's fresh answer, `{ id, metadata: undefined, role: "assistant", parts: [] }`, as
    // onFinish gets it; it never reached the messages.
    assert_eq!(update.message.as_deref(), Some(r#"{"id":"from-generate-id","role":"assistant","parts":[]}"#));
    assert_eq!(update.index, None);
    let finish = update.finish.unwrap();
    assert!(finish.is_error && finish.is_disconnect && !finish.is_abort);
    assert_eq!(chat.messages_json(), asked);
    // A server error is no disconnect; an answer continued reports the message it continued.
    chat.continue_turn("{}", None).unwrap();
    assert!(!chat.fail(ErrorCode::ServiceUnavailable, "Internal Server Error").finish.unwrap().is_disconnect);
}

/// Ids and JSON texts the random calls pick from: real ones from the recordings, and bad ones.
fn pick<'a>(rng: &mut Rng, choices: &[&'a str]) -> &'a str {
    choices[rng.below(choices.len())]
}

#[test]
fn random_calls_never_panic_and_what_is_saved_always_loads() {
    let seed = seed();
    let mut rng = Rng(seed);
    let bodies = recorded_bodies();
    let fixture = fixture();
    let saved = fixture["reloaded"]["initialMessages"].as_str().unwrap().to_owned();
    let ids = ["u1", "u4", "call-weather", "call-location", "call-confirm", "nope", "", "a1", "\u{0}"];
    let outputs = ["1", "{\"a\":[1,{\"b\":null}]}", "\"text\"", "{", "", "nul", "[1,]"];
    let bodies_json = ["{}", "", "{\"x\":1}", "[]", "{\"messages\":2,\"id\":3}", "{"];
    for run in 0..100 {
        let mut chat = new_chat(if run % 2 == 0 { "[]" } else { &saved });
        let mut calls = Vec::new();
        for _ in 0..30 {
            let call = rng.below(11);
            calls.push(call);
            let body = pick(&mut rng, &bodies_json);
            let id = pick(&mut rng, &ids);
            match call {
                0 => {
                    let message =
                        format!(r#"{{"id":"{}","role":"user","parts":[{{"type":"text","text":"hi"}}]}}"#, rng.below(4));
                    let _ = chat.send_message(if rng.below(5) == 0 { "{\"id\":1}" } else { &message }, body, None);
                }
                1 => _ = chat.regenerate(if rng.below(3) == 0 { None } else { Some(id) }, body, Some(id)),
                2 => _ = chat.continue_turn(body, None),
                3 | 4 => {
                    let answer = &bodies[rng.below(bodies.len())];
                    let (from, to) = (rng.below(answer.len() + 1), rng.below(answer.len() + 1));
                    _ = chat.push(answer.as_bytes().get(from.min(to)..from.max(to)).unwrap_or_default());
                }
                5 => _ = chat.finish(),
                6 => _ = chat.fail(ErrorCode::NetworkError, "gone"),
                7 => _ = chat.cancel(),
                8 => {
                    let output = pick(&mut rng, &outputs);
                    let error = (rng.below(3) == 0).then_some("failed");
                    _ = chat.add_tool_output(id, (rng.below(4) != 0).then_some(output), error);
                }
                9 => _ = chat.add_tool_approval_response(id, rng.below(2) == 0, Some("why")),
                _ => _ = chat.set_messages(&chat.messages_json()),
            }
            let messages = chat.messages_json();
            if let Err(error) = AiSdkChat::new("c", &messages, Box::new(String::new)) {
                panic!(
                    "saved messages do not load after calls {calls:?} (CHATSTREAM_SEED={seed}): {error:?}\n{messages}"
                );
            }
        }
    }
}

/// A value as JS holds it: every number a double (`-2.5e3` and `-2500` are one number).
fn as_js(value: Value) -> Value {
    match value {
        Value::Number(n) => Value::from(n.as_f64().unwrap()),
        Value::Array(items) => Value::Array(items.into_iter().map(as_js).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, as_js(v))).collect()),
        other => other,
    }
}

#[test]
fn a_tool_input_cut_anywhere_holds_what_the_ai_sdk_makes_of_it() {
    // `partial-inputs.recording`: each cut of one input, and what the AI SDK's parsePartialJson makes
    // of it (JSON text, or null for nothing): the input a tool part holds while its input streams.
    let path = common::fixtures_dir().join("ai-sdk-chat/partial-inputs.recording");
    let cuts: serde_json::Map<String, Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(cuts.len() > 50);
    for (raw, parsed) in &cuts {
        let mut chat = new_chat(r#"[{"id":"u0","role":"user","parts":[{"type":"text","text":"hi"}]}]"#);
        chat.continue_turn("{}", Some("a1")).unwrap();
        let delta = serde_json::json!({"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": raw});
        let body = format!(
            "data: {{\"type\":\"tool-input-start\",\"toolCallId\":\"c1\",\"toolName\":\"t\"}}\n\ndata: {delta}\n\n"
        );
        chat.push(body.as_bytes());
        chat.cancel();
        // Compared as values: the input's text is the stream's own (`\u00ed` stays so), where
        // JSON.stringify writes the character.
        let messages: Value = serde_json::from_str(&chat.messages_json()).unwrap();
        let part = &messages[1]["parts"][0];
        let expected = parsed.as_str().map(|json| as_js(serde_json::from_str::<Value>(json).unwrap()));
        assert_eq!(part.get("input").cloned().map(as_js), expected, "{raw}");
        assert_eq!((&part["state"], &part["rawInput"]), (&Value::from("input-streaming"), &Value::from(raw.as_str())));
    }
}

/// The messages as a page holds them: the module's view before the answer, then every update
/// applied as the package's JS applies it (a whole message in its place, or text added to a part).
struct PageCopy {
    messages: Vec<Value>,
    appends: usize,
}

impl PageCopy {
    fn take(&mut self, update: &Update) {
        let Some(index) = update.index else { return };
        if index == self.messages.len() {
            self.messages.push(Value::Null);
        }
        if let Some(message) = &update.message {
            self.messages[index] = serde_json::from_str(message).unwrap();
        } else if let Some(append) = &update.append {
            self.appends += 1;
            let text = &mut self.messages[index]["parts"][append.part]["text"];
            *text = Value::from(format!("{}{}", text.as_str().unwrap(), append.text));
        }
    }
}

#[test]
fn the_page_built_from_updates_holds_the_messages_the_module_holds_after_every_push() {
    // Recorded answers, and one where a text part stays open across a step's start and a delta
    // carries provider metadata (the page must get those whole, not as text added).
    let mut bodies = recorded_bodies();
    let frame = |json: &str| format!("data: {json}\n\n");
    bodies.push(
        [
            r#"{"type":"start","messageId":"a1"}"#,
            r#"{"type":"text-start","id":"t"}"#,
            r#"{"type":"text-delta","id":"t","delta":"one "}"#,
            r#"{"type":"start-step"}"#,
            r#"{"type":"text-delta","id":"t","delta":"two "}"#,
            r#"{"type":"text-delta","id":"t","delta":"three","providerMetadata":{"acme":{"n":1}}}"#,
            r#"{"type":"text-delta","id":"t","delta":" four"}"#,
            r#"{"type":"text-end","id":"t"}"#,
            r#"{"type":"finish"}"#,
        ]
        .map(frame)
        .concat(),
    );
    let seed = seed();
    let mut appends = 0;
    for body in &bodies {
        for split in [Split::OnePiece, Split::ByteAtATime, Split::Random(seed)] {
            let mut chat = new_chat(r#"[{"id":"u0","role":"user","parts":[{"type":"text","text":"hi"}]}]"#);
            chat.continue_turn("{}", None).unwrap();
            let mut page = PageCopy { messages: serde_json::from_str(&chat.messages_json()).unwrap(), appends: 0 };
            // One push an SSE event, then the body cut as `split` cuts it.
            let pieces: Vec<Vec<u8>> = match split {
                Split::OnePiece => body.split_inclusive("\n\n").map(|event| event.as_bytes().to_vec()).collect(),
                split => {
                    cut(body.as_bytes(), body.len(), &split.cuts(body.len(), 0)).iter().map(|p| p.to_vec()).collect()
                }
            };
            for piece in &pieces {
                let update = chat.push(piece);
                page.take(&update);
                // A push that shows nothing (a step's start alone) leaves the page behind, as in the AI SDK.
                if update.message.is_some() || update.append.is_some() {
                    let held: Value = serde_json::from_str(&chat.messages_json()).unwrap();
                    assert_eq!(Value::from(page.messages.clone()), held, "after a push, split {split:?}, of:\n{body}");
                }
            }
            page.take(&chat.finish());
            assert_eq!(Value::from(page.messages), serde_json::from_str::<Value>(&chat.messages_json()).unwrap());
            appends += page.appends;
        }
    }
    assert!(appends > 100, "text went as appends {appends} times: the path is exercised");
}
