//! The AI SDK backend mode (`chatstream::ai_sdk::AiSdkChat`) against the AI SDK's own chat.
//!
//! `tests/fixtures/ai-sdk-chat/conversation.json` is what the chat behind `useChat` did, recorded
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
    let path = common::fixtures_dir().join("ai-sdk-chat/conversation.json");
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
        if let Some((_, message)) = &update.message {
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

/// The items of a JSON array as their own texts, in order (keeps each item's key order).
fn split_array(json: &str) -> Vec<String> {
    let items: Vec<Box<serde_json::value::RawValue>> = serde_json::from_str(json).unwrap();
    items.iter().map(|item| item.get().to_owned()).collect()
}

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
    let mut next_request: Option<Box<dyn FnOnce(&mut AiSdkChat) -> String>> = None;
    let body = r#"{"app":"replay"}"#;
    for (at, step) in steps.iter().enumerate() {
        let context = format!("step {at} ({}) under {split:?}", step["type"]);
        let text = |key: &str| step[key].as_str().map(str::to_owned);
        match step["type"].as_str().unwrap() {
            "sendMessage" => {
                let message = text("message").unwrap();
                next_request = Some(Box::new(move |chat| chat.send_message(&message, body).unwrap()));
            }
            "regenerate" => {
                let id = text("messageId");
                next_request = Some(Box::new(move |chat| chat.regenerate(id.as_deref(), body).unwrap()));
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
                let request = next_request.take().unwrap_or_else(|| Box::new(|chat| chat.continue_turn(body).unwrap()));
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
                assert_eq!(seen.tool_calls, expected_calls, "onToolCall's calls by {context}");
                assert_eq!(seen.data, expected_data, "onData's parts by {context}");
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
    chat.send_message(r#"{"id":"u1","role":"user","parts":[{"type":"text","text":"hi"}]}"#, "{}").unwrap();
    let again = chat.send_message(r#"{"id":"u2","role":"user","parts":[{"type":"text","text":"hi"}]}"#, "{}");
    assert_eq!(again.unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(chat.set_messages("[]").unwrap_err().code, ErrorCode::Conflict);
    assert_eq!(chat.continue_turn("{}").unwrap_err().code, ErrorCode::Conflict);
}

fn streams() -> Value {
    let path = common::fixtures_dir().join("ai-sdk-chat/streams.json");
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
