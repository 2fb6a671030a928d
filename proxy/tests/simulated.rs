//! Every simulated-provider format read back through the `chatstream` pipeline (natively): a test of the
//! simulator's wire formats and of the decoders at once. The expected texts are the simulator's documented
//! answers (src/simulate.rs), written out here by hand.

mod common;

use chatstream::dialect::Dialect;
use chatstream::error::ErrorCode;
use chatstream::event::StreamEvent;
use chatstream::stream::{ChatStream, StreamOptions};
use common::{post_json, Proxy};
use futures_util::StreamExt;
use serde_json::{json, Value};

/// The routes with a simulated provider, and the dialect each speaks.
const ROUTES: [(&str, Dialect); 6] = [
    ("openai", Dialect::OpenAi),
    ("openai-responses", Dialect::OpenAiResponses),
    ("anthropic", Dialect::Anthropic),
    ("gemini", Dialect::Gemini),
    ("ollama", Dialect::Ollama),
    ("compat", Dialect::OpenAi),
];

fn weather_schema() -> Value {
    json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
}

/// A one-message request in the route's own format, offering `get_weather`.
fn request(route: &str, prompt: &str) -> Value {
    match route {
        "openai-responses" => json!({"model": "m", "stream": true, "input": [{"role": "user", "content": prompt}],
            "tools": [{"type": "function", "name": "get_weather", "parameters": weather_schema()}]}),
        "anthropic" => {
            json!({"model": "m", "stream": true, "max_tokens": 100, "messages": [{"role": "user", "content": prompt}],
            "tools": [{"name": "get_weather", "input_schema": weather_schema()}]})
        }
        "gemini" => json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}],
            "tools": [{"functionDeclarations": [{"name": "get_weather", "parameters": weather_schema()}]}]}),
        _ => json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": prompt}],
            "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": weather_schema()}}]}),
    }
}

/// A conversation that ends with get_weather's result, "18C and sunny", in the route's own format.
fn request_with_tool_result(route: &str) -> Value {
    let prompt = "What is the weather? Use get_weather.";
    match route {
        "openai-responses" => json!({"input": [
            {"role": "user", "content": prompt},
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "18C and sunny"}]}),
        "anthropic" => json!({"messages": [
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C and sunny"}]}]}),
        "gemini" => json!({"contents": [
            {"role": "user", "parts": [{"text": prompt}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"result": "18C and sunny"}}}]}]}),
        "ollama" => json!({"messages": [
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
            {"role": "tool", "tool_name": "get_weather", "content": "18C and sunny"}]}),
        _ => json!({"messages": [
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18C and sunny"}]}),
    }
}

struct ReadBack {
    status: u16,
    dialect: Option<Dialect>,
    events: Vec<StreamEvent>,
}

impl ReadBack {
    fn text(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| if let StreamEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
            .collect()
    }

    fn thinking(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| if let StreamEvent::ThinkingDelta { text } = e { Some(text.as_str()) } else { None })
            .collect()
    }

    fn errors(&self) -> Vec<ErrorCode> {
        self.events
            .iter()
            .filter_map(|e| if let StreamEvent::Error { code, .. } = e { Some(*code) } else { None })
            .collect()
    }

    fn completes(&self) -> usize {
        self.events.iter().filter(|e| matches!(e, StreamEvent::Complete { .. })).count()
    }
}

/// Posts `body` and feeds the response, chunk by chunk as it arrived, to a ChatStream that detects the
/// dialect from the content type and the first frames. A decoder that panics (one not written yet) is
/// reported as that route's failure instead of stopping the other routes' checks.
async fn read_back(proxy: &Proxy, path: &str, body: &Value) -> Result<ReadBack, String> {
    let response = post_json(proxy.endpoint(path), body.to_string()).send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string());
    let mut chunks = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(chunk) =
        tokio::time::timeout(std::time::Duration::from_secs(20), body.next()).await.expect("no hang")
    {
        chunks.push(chunk.unwrap());
    }
    std::panic::catch_unwind(move || {
        let mut stream = ChatStream::new(StreamOptions { content_type, ..StreamOptions::default() });
        let mut events = Vec::new();
        for chunk in &chunks {
            stream.push(chunk, &mut events);
        }
        stream.finish(&mut events);
        ReadBack { status, dialect: stream.dialect(), events }
    })
    .map_err(|panic| {
        let message =
            panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
        format!("{path}: the pipeline panicked: {}", message.unwrap_or_default())
    })
}

fn plain_answer(route: &str, said: &str) -> String {
    format!(
        "You said: \"{said}\". This is the simulated {route} provider answering offline, so here is a short, \
         deterministic reply. Set the provider's key to talk to the real one."
    )
}

#[tokio::test]
async fn plain_answers_read_back_in_every_dialect() {
    let proxy = Proxy::start(&[], &[]);
    let mut failures = Vec::new();
    for (route, dialect) in ROUTES {
        let got = match read_back(&proxy, &format!("/api/chat/{route}"), &request(route, "Hello there")).await {
            Ok(got) => got,
            Err(failure) => {
                failures.push(failure);
                continue;
            }
        };
        let expected = plain_answer(route, "Hello there");
        let ok = got.status == 200
            && got.dialect == Some(dialect)
            && got.text() == expected
            && got.errors().is_empty()
            && got.completes() == 1
            && got.events.iter().any(|e| matches!(e, StreamEvent::Complete { payload } if payload.text == expected));
        if !ok {
            failures.push(format!("{route}: dialect {:?}, events {:?}", got.dialect, got.events));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test]
async fn thinking_reads_back_in_every_dialect() {
    let proxy = Proxy::start(&[], &[]);
    let mut failures = Vec::new();
    for (route, _) in ROUTES {
        let got = match read_back(&proxy, &format!("/api/chat/{route}"), &request(route, "Please think first")).await {
            Ok(got) => got,
            Err(failure) => {
                failures.push(failure);
                continue;
            }
        };
        let thinking =
            "The user wrote \"Please think first\". A short, friendly answer will do; no tools are needed for that.";
        if got.thinking() != thinking
            || got.text() != plain_answer(route, "Please think first")
            || !got.errors().is_empty()
        {
            failures.push(format!("{route}: {:?}", got.events));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test]
async fn a_named_tool_is_called_in_every_dialect() {
    let proxy = Proxy::start(&[], &[]);
    let prompt = "Use get_weather for Paris";
    let mut failures = Vec::new();
    for (route, _) in ROUTES {
        let got = match read_back(&proxy, &format!("/api/chat/{route}"), &request(route, prompt)).await {
            Ok(got) => got,
            Err(failure) => {
                failures.push(failure);
                continue;
            }
        };
        let calls: Vec<_> = got
            .events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCall { tool, input, index, .. } => Some((tool.clone(), Value::clone(input), *index)),
                _ => None,
            })
            .collect();
        let expected = vec![("get_weather".to_string(), json!({"city": prompt}), 0)];
        if calls != expected || got.text() != "I'll call get_weather for that." || !got.errors().is_empty() {
            failures.push(format!("{route}: {:?}", got.events));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test]
async fn a_tool_result_gets_a_final_answer_in_every_dialect() {
    let proxy = Proxy::start(&[], &[]);
    let mut failures = Vec::new();
    for (route, _) in ROUTES {
        let got = match read_back(&proxy, &format!("/api/chat/{route}"), &request_with_tool_result(route)).await {
            Ok(got) => got,
            Err(failure) => {
                failures.push(failure);
                continue;
            }
        };
        // Gemini's function response is an object; the simulator quotes it as JSON.
        let result = if route == "gemini" { r#"{"result":"18C and sunny"}"# } else { "18C and sunny" };
        let expected = format!("The get_weather tool returned: {result}. That answers your question.");
        let has_call = got.events.iter().any(|e| matches!(e, StreamEvent::ToolCall { .. }));
        if got.text() != expected || has_call || !got.errors().is_empty() || got.completes() != 1 {
            failures.push(format!("{route}: {:?}", got.events));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test]
async fn faults_read_back_as_errors_after_the_partial_text() {
    // sim:stall is ended by the proxy's idle timeout, with the proxy's error frame in the dialect.
    let proxy = Proxy::start(&["--idle-timeout-ms", "200"], &[]);
    let mut failures = Vec::new();
    for fault in ["sim:error", "sim:truncate", "sim:stall"] {
        for (route, _) in ROUTES {
            let prompt = format!("Hello {fault}");
            let got = match read_back(&proxy, &format!("/api/chat/{route}"), &request(route, &prompt)).await {
                Ok(got) => got,
                Err(failure) => {
                    failures.push(failure);
                    continue;
                }
            };
            let full = plain_answer(route, &prompt);
            let text = got.text();
            // A truncated stream has no terminal event: the pipeline reports a network error.
            let code_ok = match fault {
                "sim:truncate" => got.errors() == [ErrorCode::NetworkError],
                _ => got.errors().len() == 1,
            };
            if got.status != 200 || text.is_empty() || text == full || !full.starts_with(&text) || !code_ok {
                failures.push(format!("{route} {fault}: {:?}", got.events));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test]
async fn status_faults_answer_with_the_status_and_the_providers_error_body() {
    let proxy = Proxy::start(&[], &[]);
    for (route, _) in ROUTES {
        for status in [401u16, 429, 529] {
            let response = post_json(
                proxy.endpoint(&format!("/api/chat/{route}")),
                request(route, &format!("sim:{status}")).to_string(),
            )
            .send()
            .await
            .unwrap();
            assert_eq!(response.status().as_u16(), status, "{route}");
            assert_eq!(response.headers().contains_key("retry-after"), status == 429, "{route} {status}");
            let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
            // Each provider's documented error shape.
            let message = match route {
                "anthropic" => body["error"]["message"].clone(),
                "ollama" => body["error"].clone(),
                "gemini" => {
                    assert_eq!(body["error"]["code"], status);
                    body["error"]["message"].clone()
                }
                _ => body["error"]["message"].clone(),
            };
            assert!(message.as_str().is_some_and(|m| m.starts_with("Simulated")), "{route} {status}: {body}");
        }
    }
}

#[tokio::test]
async fn the_agent_protocol_runs_a_tool_with_progress_and_suggestions() {
    let proxy = Proxy::start(&[], &[]);
    let got = read_back(&proxy, "/api/chat/stream", &json!({"message": "CRISPR papers", "conversation_id": 42}))
        .await
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert_eq!(got.dialect, Some(Dialect::Agent));
    assert!(got.errors().is_empty(), "{:?}", got.events);
    assert!(matches!(&got.events[0], StreamEvent::Status { message } if message == "Thinking..."), "{:?}", got.events);
    let start = got.events.iter().find_map(|e| match e {
        StreamEvent::ToolStart { tool, input, index, .. } => Some((tool.as_str(), Value::clone(input), *index)),
        _ => None,
    });
    assert_eq!(start, Some(("search_articles", json!({"query": "CRISPR papers"}), 0)));
    let progress = got.events.iter().filter(|e| matches!(e, StreamEvent::ToolProgress { .. })).count();
    assert_eq!(progress, 2);
    assert!(got
        .events
        .iter()
        .any(|e| matches!(e, StreamEvent::ToolComplete { tool, index: 0, .. } if tool == "search_articles")));
    // The marker is not text; it stays in the persisted message.
    let text = got.text();
    assert!(
        text.starts_with("Let me look that up.") && text.ends_with("I found 3 articles about \"CRISPR papers\"."),
        "{text:?}"
    );
    assert!(!text.contains("[["), "{text:?}");
    let payload = got
        .events
        .iter()
        .find_map(|e| if let StreamEvent::Complete { payload } = e { Some(payload.clone()) } else { None })
        .expect("complete");
    assert_eq!(payload.message, "Let me look that up.\n\n[[tool:0]]\n\nI found 3 articles about \"CRISPR papers\".");
    assert_eq!(payload.suggested_values.as_ref().and_then(|v| v.as_array()).map(Vec::len), Some(2));
    assert_eq!(payload.extra.get("conversation_id"), Some(&json!(42)));
    assert_eq!(payload.tool_history.len(), 1);
    assert_eq!(payload.thinking, None, "no thinking unless asked for");
}

#[tokio::test]
async fn the_agent_protocol_thinks_when_asked() {
    let proxy = Proxy::start(&[], &[]);
    let got = read_back(&proxy, "/api/chat/stream", &json!({"message": "think first"}))
        .await
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert!(got.errors().is_empty(), "{:?}", got.events);
    let thinking = "The user wrote \"think first\". A short, friendly answer will do; no tools are needed for that.";
    assert_eq!(got.thinking(), thinking);
    let first_text = got.events.iter().position(|e| matches!(e, StreamEvent::TextDelta { .. }));
    let last_thinking = got.events.iter().rposition(|e| matches!(e, StreamEvent::ThinkingDelta { .. }));
    assert!(last_thinking < first_text, "thinking comes before the answer: {:?}", got.events);
}

#[tokio::test]
async fn the_same_request_gets_the_same_bytes() {
    let proxy = Proxy::start(&[], &[]);
    for (route, _) in ROUTES {
        let body = request(route, "Use get_weather please, and think");
        let first = post_json(proxy.endpoint(&format!("/api/chat/{route}")), body.to_string()).send().await.unwrap();
        let first = first.bytes().await.unwrap();
        let second = post_json(proxy.endpoint(&format!("/api/chat/{route}")), body.to_string()).send().await.unwrap();
        assert_eq!(first, second.bytes().await.unwrap(), "{route}");
    }
}

#[tokio::test]
async fn simulated_frames_are_sent_whole_one_at_a_time() {
    let proxy = Proxy::start(&["--sim-delay-ms", "30"], &[]);
    let response = post_json(proxy.endpoint("/api/chat/stream"), r#"{"message":"hi"}"#).send().await.unwrap();
    let mut chunks = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(chunk) =
        tokio::time::timeout(std::time::Duration::from_secs(20), body.next()).await.expect("no hang")
    {
        chunks.push(chunk.unwrap());
    }
    // One frame per write: received in many pieces (not one buffered body), none cutting a frame.
    // (The pace itself is not asserted: that would be a wall-clock test.)
    assert!(chunks.len() >= 2, "{chunks:?}");
    assert!(chunks.iter().all(|c| c.ends_with(b"\n\n")), "{chunks:?}");
}
