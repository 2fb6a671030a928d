//! The browser suite: the wasm build in headless Chromium (`./build.sh test` runs it).
//! Every fixture goes through the pipeline compiled to wasm, under the same splits as natively.
#![cfg(target_arch = "wasm32")]

mod common;

use chatstream::event::StreamEvent;
use chatstream::stream::{ChatStream, StreamOptions};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const FIXTURES: &[(&str, &[u8], &str)] = chatstream_embed_fixtures::embed_fixtures!("tests/fixtures");

/// Resolves on the next macrotask, so the page (and the test runner polling it) stays responsive.
async fn yield_to_browser() {
    #[wasm_bindgen::prelude::wasm_bindgen(
        inline_js = "export function nextTask() { return new Promise(r => setTimeout(r, 0)); }"
    )]
    extern "C" {
        #[wasm_bindgen(js_name = nextTask)]
        fn next_task() -> js_sys::Promise;
    }
    wasm_bindgen_futures::JsFuture::from(next_task()).await.unwrap();
}

/// Natively every fixture is also split at every byte; here that quadratic pass is left out,
/// the rest (one piece, a byte at a time, random splits) runs, a fixture per macrotask.
#[wasm_bindgen_test]
async fn every_fixture_one_piece_bytewise_and_random_splits() {
    let seed = js_sys::Date::now() as u64;
    let mut failures = Vec::new();
    for (name, input, spec) in FIXTURES {
        yield_to_browser().await;
        let fixture = common::Fixture {
            name: (*name).to_owned(),
            input: input.to_vec(),
            spec: serde_json::from_str(spec).unwrap(),
        };
        if let Err(e) = fixture.check_splits(seed, false) {
            failures.push(e);
        }
    }
    assert!(!FIXTURES.is_empty(), "no fixtures were embedded");
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        FIXTURES.len(),
        failures.join("\n\n")
    );
}

#[wasm_bindgen_test]
fn a_split_utf8_character_decodes_in_the_browser() {
    let mut stream = ChatStream::new(StreamOptions::default());
    let mut events = Vec::new();
    let body = "data: {\"type\":\"text_delta\",\"text\":\"é€\"}\n\n".as_bytes();
    let cut = body.iter().position(|&b| b >= 0x80).unwrap() + 1;
    stream.push(&body[..cut], &mut events);
    stream.push(&body[cut..], &mut events);
    assert_eq!(events, [StreamEvent::TextDelta { text: "é€".into() }]);
}

/// The module's `AiSdkChat` as the package's JS calls it: one recorded answer of the AI SDK's test
/// backend read through it ends with the messages the AI SDK's own chat had (recorded beside it).
#[cfg(feature = "ai-sdk")]
#[wasm_bindgen_test]
fn the_ai_sdk_chat_class_reads_an_answer_as_the_ai_sdk_does() {
    use chatstream::wasm::ai_sdk::JsAiSdkChat;
    use js_sys::Reflect;
    use wasm_bindgen::{JsCast, JsValue};

    let recording: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/ai-sdk-chat/conversation.recording")).unwrap();
    let steps = recording["conversation"]["steps"].as_array().unwrap();
    let text = |kind: &str, key: &str| steps.iter().find(|s| s["type"] == kind).unwrap()[key].as_str().unwrap();
    let get = |object: &JsValue, key: &str| Reflect::get(object, &key.into()).unwrap();
    let code = |error: JsValue| get(&error, "code").as_string();

    let chat = JsAiSdkChat::new("chat-1".into(), JsValue::NULL).unwrap();
    let body = chat
        .send_message(text("sendMessage", "message").into(), r#"{"app":"replay"}"#.into(), JsValue::UNDEFINED)
        .unwrap();
    assert_eq!(body, text("response", "body"));
    let busy = chat.send_message(text("sendMessage", "message").into(), JsValue::NULL, JsValue::UNDEFINED).unwrap_err();
    assert_eq!(code(busy), Some("CONFLICT".into()));

    let answer = js_sys::Uint8Array::from(text("response", "read").as_bytes());
    let update = chat.push(&answer).unwrap();
    assert_eq!(get(&update, "index").as_f64(), Some(1.0));
    assert!(get(&update, "message").as_string().is_some_and(|m| m.contains("Hello! How can I help you today?")));
    let update = chat.finish().unwrap();
    let finish = get(&update, "finish");
    assert_eq!(get(&finish, "finishReason").as_string(), Some("stop".into()));
    assert_eq!(get(&finish, "isError").as_bool(), Some(false));
    assert_eq!(chat.messages().unwrap(), text("messages", "json"));

    let refused = JsAiSdkChat::new("c".into(), r#"[{"id":"x","role":"user","content":"hi"}]"#.into()).err().unwrap();
    assert!(refused.is_instance_of::<js_sys::TypeError>());
    assert_eq!(code(refused), Some("VALIDATION_ERROR".into()));
    assert!(chat.push(&JsValue::from(42)).unwrap_err().is_instance_of::<js_sys::TypeError>());
    assert_eq!(
        js_sys::Object::keys(chat.cancel().unwrap().unchecked_ref::<js_sys::Object>()).length(),
        0,
        "nothing to stop"
    );
}
