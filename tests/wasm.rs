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

// --- The JS surface over real `Response` objects -------------------------------------------

mod surface {
    use chatstream::wasm::events::stream_events;
    use chatstream::wasm::session::SessionDriver;
    use js_sys::{Array, Reflect};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::*;

    #[wasm_bindgen(inline_js = r#"
        const enc = new TextEncoder();
        // A Response whose body sends `chunks`, then ends, stays open (`mode` "hang") or fails ("fail").
        export function chunked(chunks, mode) {
            let i = 0;
            return new Response(new ReadableStream({
                pull(c) {
                    if (i < chunks.length) return c.enqueue(enc.encode(chunks[i++]));
                    if (mode === "fail") return c.error(new TypeError("network down"));
                    if (mode === "hang") return new Promise(() => {});
                    c.close();
                },
            }), { headers: { "content-type": "text/event-stream" } });
        }
        export function statusResponse(status, body) { return new Response(body, { status }); }
        export function abortController() { return new AbortController(); }
        export function options(signal) { return { signal }; }
        export function fetchReturning(response) {
            const calls = [];
            const fetch = async (url, init) => { calls.push(JSON.parse(init.body)); return response; };
            return { fetch, calls };
        }
    "#)]
    extern "C" {
        fn chunked(chunks: Array, mode: &str) -> JsValue;
        #[wasm_bindgen(js_name = statusResponse)]
        fn status_response(status: u16, body: &str) -> JsValue;
        #[wasm_bindgen(js_name = abortController)]
        fn abort_controller() -> web_sys::AbortController;
        fn options(signal: &web_sys::AbortSignal) -> JsValue;
        #[wasm_bindgen(js_name = fetchReturning)]
        fn fetch_returning(response: &JsValue) -> JsValue;
    }

    fn chunks(parts: &[&str]) -> Array {
        parts.iter().map(|p| JsValue::from_str(p)).collect()
    }

    fn field(value: &JsValue, key: &str) -> JsValue {
        Reflect::get(value, &key.into()).unwrap()
    }

    fn kind(event: &JsValue) -> String {
        field(event, "type").as_string().unwrap()
    }

    /// Iterates an `EventStream` to its end; `on_event` may act on each event as it arrives.
    async fn drain(stream: &chatstream::wasm::events::EventStream, mut on_event: impl FnMut(&JsValue)) -> Vec<JsValue> {
        let mut events = Vec::new();
        loop {
            let result = JsFuture::from(stream.next()).await.unwrap();
            if field(&result, "done").is_truthy() {
                return events;
            }
            let event = field(&result, "value");
            on_event(&event);
            events.push(event);
        }
    }

    const HI: &str = "data: {\"type\":\"text_delta\",\"text\":\"Hi\"}\n\n";
    const DONE: &str = "data: {\"type\":\"complete\",\"payload\":{\"message\":\"Hi\"}}\n\n";

    #[wasm_bindgen_test]
    async fn a_chunked_response_gives_its_events() {
        let (a, b) = HI.split_at(17);
        let stream = stream_events(chunked(chunks(&[a, b, DONE]), "end"), JsValue::UNDEFINED).unwrap();
        let events = drain(&stream, |_| {}).await;
        let kinds: Vec<String> = events.iter().map(kind).collect();
        assert_eq!(kinds, ["text_delta", "complete"]);
        assert_eq!(field(&events[0], "text"), "Hi");
    }

    #[wasm_bindgen_test]
    async fn an_abort_signal_gives_complete_with_the_partial_text_then_cancelled() {
        let controller = abort_controller();
        let stream = stream_events(chunked(chunks(&[HI]), "hang"), options(&controller.signal())).unwrap();
        let events = drain(&stream, |event| {
            if kind(event) == "text_delta" {
                controller.abort();
            }
        })
        .await;
        let kinds: Vec<String> = events.iter().map(kind).collect();
        assert_eq!(kinds, ["text_delta", "complete", "cancelled"]);
        assert_eq!(field(&field(&events[1], "payload"), "text"), "Hi");
    }

    #[wasm_bindgen_test]
    async fn a_network_error_mid_stream_keeps_the_partial_text() {
        let stream = stream_events(chunked(chunks(&[HI]), "fail"), JsValue::UNDEFINED).unwrap();
        let events = drain(&stream, |_| {}).await;
        let kinds: Vec<String> = events.iter().map(kind).collect();
        assert_eq!(kinds, ["text_delta", "complete", "error"]);
        assert_eq!(field(&events[2], "code"), "NETWORK_ERROR");
    }

    #[wasm_bindgen_test]
    async fn http_401_is_unauthorized() {
        let stream = stream_events(status_response(401, "{}"), JsValue::UNDEFINED).unwrap();
        let events = drain(&stream, |_| {}).await;
        assert_eq!(events.len(), 1);
        assert_eq!(field(&events[0], "code"), "UNAUTHORIZED");
        assert_eq!(field(&events[0], "message"), "Invalid API key");
    }

    #[wasm_bindgen_test]
    async fn a_session_turn_moves_the_state_and_ends_idle() {
        let fake = fetch_returning(&chunked(chunks(&[HI, DONE]), "end"));
        let options = js_sys::Object::new();
        Reflect::set(&options, &"fetch".into(), &field(&fake, "fetch")).unwrap();
        let session = SessionDriver::new(options.into()).unwrap();
        let stream = session.send("hello".into(), JsValue::NULL).unwrap();
        let state = session.state().unwrap();
        assert_eq!(field(&state, "isLoading"), true);
        assert_eq!(field(&state, "phase"), "waiting");
        drain(&stream, |_| {}).await;
        let state = session.state().unwrap();
        assert_eq!(field(&state, "isLoading"), false);
        let messages: Array = field(&state, "messages").into();
        assert_eq!(messages.length(), 2);
        assert_eq!(field(&messages.get(1), "content"), "Hi");
        let calls: Array = field(&fake, "calls").into();
        assert_eq!(field(&calls.get(0), "message"), "hello");
    }

    #[wasm_bindgen_test]
    fn cancel_with_nothing_in_flight_is_a_conflict() {
        let session = SessionDriver::new(JsValue::UNDEFINED).unwrap();
        let result = session.cancel().unwrap();
        assert_eq!(field(&result, "code"), "CONFLICT");
    }
}
