//! Keys kept out of answers without the redaction telling anything about them: an attacker who can get
//! text echoed back (a model name in an error) learns nothing from what is redacted, a key is redacted
//! whole in every encoding an upstream may echo it in, and a key too short to be a secret (vLLM's
//! `EMPTY`) is left alone, whatever the chunking.

mod common;

use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use common::{body_text, chunks, post_json, FakeUpstream, Proxy};
use futures_util::StreamExt;
use serde_json::{json, Value};

/// An OpenRouter-shaped key: a public prefix, then 64 hex digits.
const KEY: &str = "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";
const PUBLIC_PREFIX: &str = "sk-or-v1-";
const ALPHABET: &str = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";

/// OpenAI's answer to an unknown model: the client's `model` echoed in the error message.
async fn unknown_model(body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap_or_default();
    let model = request["model"].as_str().unwrap_or_default();
    let message = format!("The model `{model}` does not exist or you do not have access to it.");
    (StatusCode::NOT_FOUND, axum::Json(json!({"error": {"message": message, "code": "model_not_found"}})))
        .into_response()
}

fn proxy_with_key(upstream: &FakeUpstream) -> Proxy {
    let base = format!("{}/v1", upstream.base);
    Proxy::start(&["--rate-limit", "0"], &[("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", &base)])
}

/// The `model` the upstream echoed, as the client reads it.
async fn echoed_model(proxy: &Proxy, model: &str) -> String {
    let body = json!({"model": model, "messages": [{"role": "user", "content": "hi"}]}).to_string();
    let response = post_json(proxy.endpoint("/api/chat/openai"), body).send().await.unwrap();
    assert_eq!(response.status(), 404);
    let answer: Value = serde_json::from_str(&body_text(response).await).unwrap();
    let message = answer["error"]["message"].as_str().unwrap().to_string();
    message.strip_prefix("The model `").unwrap().split('`').next().unwrap().to_string()
}

/// The attack: 64 guesses per request for the next character, each guess `window` (the known characters
/// it is built on) and one candidate; the candidate whose guess comes back redacted is taken as right.
async fn recover(proxy: &Proxy, window: impl Fn(&str) -> &str) -> String {
    let mut known = PUBLIC_PREFIX.to_string();
    while known.len() < KEY.len() {
        let guesses: Vec<String> = ALPHABET.chars().map(|c| format!("{}{c}", window(&known))).collect();
        let sent = guesses.join(" ");
        let echoed = echoed_model(proxy, &sent).await;
        let pieces: Vec<&str> = echoed.split(' ').collect();
        assert_eq!(pieces.len(), guesses.len(), "an answer the attack cannot read: {echoed}");
        let Some(next) = guesses.iter().zip(&pieces).position(|(guess, piece)| guess != piece) else { break };
        known.push(ALPHABET.as_bytes()[next] as char);
    }
    known[PUBLIC_PREFIX.len()..].to_string()
}

#[tokio::test]
async fn guesses_echoed_back_tell_nothing_about_the_key() {
    let upstream = FakeUpstream::start(Router::new().route("/v1/chat/completions", post(unknown_model))).await;
    let proxy = proxy_with_key(&upstream);
    // The last 7 known characters and a candidate: an 8-character window of the key.
    let recovered = recover(&proxy, |known| &known[known.len() - 7..]).await;
    assert_eq!(recovered, "", "the attack recovered key characters");
    // Everything known and a candidate: a prefix of the key.
    let recovered = recover(&proxy, |known| known).await;
    assert_eq!(recovered, "", "the attack recovered key characters");
    // Case varied: the key's own characters in the other case are not the key either.
    let shouted = KEY.to_ascii_uppercase();
    assert_eq!(echoed_model(&proxy, &shouted).await, shouted);
}

/// An upstream that echoes the key it was sent, in each encoding an answer may carry it in.
async fn leaky(headers: HeaderMap) -> Response {
    let key = headers["authorization"].to_str().unwrap().strip_prefix("Bearer ").unwrap().to_string();
    let percent: String = key.bytes().map(|b| format!("%{b:02X}")).collect();
    let percent_some: String = key.chars().map(|c| if c == '-' { "%2d".to_string() } else { c.to_string() }).collect();
    let escaped: String = key.bytes().map(|b| format!("\\u{:04x}", b)).collect();
    let escaped_some: String =
        key.chars().map(|c| if c == 'o' { "\\u006F".to_string() } else { c.to_string() }).collect();
    use base64::Engine;
    let basic = |user: &str| base64::engine::general_purpose::STANDARD.encode(format!("{user}:{key}"));
    let body = format!(
        "{{\"error\":{{\"message\":\"1 {key} 2 {percent} 3 {percent_some} 4 {escaped} 5 {escaped_some} \
         6 Basic {} 7 Basic {} 8 Basic {} 9\"}}}}",
        basic("u"),
        basic("us"),
        basic("use"),
    );
    (StatusCode::UNAUTHORIZED, [("content-type", "application/json")], body).into_response()
}

#[tokio::test]
async fn an_echoed_key_is_redacted_whole_in_each_encoding() {
    let upstream = FakeUpstream::start(Router::new().route("/v1/chat/completions", post(leaky))).await;
    let proxy = proxy_with_key(&upstream);
    let response = post_json(proxy.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
    assert_eq!(response.status(), 401);
    let body = body_text(response).await;
    // Of the Basic values, what is left encodes the user name (`use` is `dXNl`).
    let marks = "1 [REDACTED] 2 [REDACTED] 3 [REDACTED] 4 [REDACTED] 5 [REDACTED] \
                 6 Basic [REDACTED] 7 Basic [REDACTED] 8 Basic dXNl[REDACTED] 9";
    assert_eq!(body, format!("{{\"error\":{{\"message\":\"{marks}\"}}}}"));
}

/// An OpenAI-compatible upstream that streams `answer` in two chunks, split where the request's `split`
/// says.
async fn split_answer(body: Bytes) -> Response {
    let split = serde_json::from_slice::<Value>(&body).unwrap()["split"].as_u64().unwrap() as usize;
    let (a, b) = SHORT_KEY_ANSWER.split_at(split);
    let chunks = futures_util::stream::iter([a, b]).then(|chunk| async move {
        tokio::time::sleep(Duration::from_millis(2)).await;
        Ok::<_, std::io::Error>(Bytes::from_static(chunk.as_bytes()))
    });
    ([("content-type", "text/event-stream")], axum::body::Body::from_stream(chunks)).into_response()
}

const SHORT_KEY_ANSWER: &str = "data: {\"choices\":[{\"delta\":{\"content\":\"The list is Empty.\"}}]}\n\n\
    data: {\"choices\":[{\"delta\":{\"content\":\"EMPTY, empty: EMPTYEMPTY\"}}]}\n\ndata: [DONE]\n\n";

#[tokio::test]
async fn a_key_too_short_to_be_secret_is_not_redacted_and_no_chunking_breaks_the_stream() {
    let upstream = FakeUpstream::start(Router::new().route("/v1/chat/completions", post(split_answer))).await;
    let base = format!("{}/v1", upstream.base);
    let proxy = Proxy::start(&["--rate-limit", "0"], &[("COMPAT_API_KEY", "EMPTY"), ("COMPAT_BASE_URL", &base)]);
    for split in 0..=SHORT_KEY_ANSWER.len() {
        let request = json!({"split": split}).to_string();
        let response = post_json(proxy.endpoint("/api/chat/compat"), request).send().await.unwrap();
        assert_eq!(response.status(), 200, "split at {split}");
        let got = String::from_utf8(chunks(response).await.concat()).unwrap();
        assert_eq!(got, SHORT_KEY_ANSWER, "split at {split}");
    }
    let log = proxy.output();
    assert!(log.contains("COMPAT_API_KEY is too short to be a secret"), "{log}");
}
