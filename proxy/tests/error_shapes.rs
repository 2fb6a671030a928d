//! The errors the proxy answers itself on a chat route (a body not declared JSON, over the body limit,
//! over the rate) come in that route's provider format, as the provider's own would.

mod common;

use common::{client, post_json, Proxy};
use serde_json::Value;

const ROUTES: [&str; 7] = ["openai", "openai-responses", "anthropic", "gemini", "ollama", "compat", "stream"];

/// Checks `body` has the documented error shape of `route` for `status`, and returns its message.
fn message_in_route_format(route: &str, status: u16, body: &str) -> String {
    let body: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{route} {status}: not JSON ({e}): {body}"));
    let message = match route {
        "openai" | "openai-responses" | "compat" => {
            assert!(body["error"]["type"].is_string() && body["error"]["code"].is_string(), "{route}: {body}");
            &body["error"]["message"]
        }
        "anthropic" => {
            assert_eq!(body["type"], "error", "{route}: {body}");
            assert!(body["error"]["type"].is_string(), "{route}: {body}");
            &body["error"]["message"]
        }
        "gemini" => {
            assert_eq!(body["error"]["code"], status, "{route}: {body}");
            assert!(body["error"]["status"].is_string(), "{route}: {body}");
            &body["error"]["message"]
        }
        "ollama" => &body["error"],
        _ => {
            assert_eq!(body["type"], "error", "{route}: {body}");
            assert!(body["code"].is_string(), "{route}: {body}");
            &body["message"]
        }
    };
    message.as_str().unwrap_or_else(|| panic!("{route}: no message: {body}")).to_string()
}

#[tokio::test]
async fn refusals_415_413_and_429_come_in_each_routes_format() {
    let proxy = Proxy::start(&["--body-limit", "100", "--rate-limit", "0"], &[]);
    for route in ROUTES {
        let url = proxy.endpoint(&format!("/api/chat/{route}"));
        let response = client().post(&url).header("content-type", "text/plain").body("{}").send().await.unwrap();
        assert_eq!(response.status(), 415, "{route}");
        let message = message_in_route_format(route, 415, &response.text().await.unwrap());
        assert!(message.contains("sent as \"text/plain\""), "{route}: {message}");

        let response = post_json(&url, format!("{{\"model\":\"{}\"}}", "x".repeat(200))).send().await.unwrap();
        assert_eq!(response.status(), 413, "{route}");
        let message = message_in_route_format(route, 413, &response.text().await.unwrap());
        assert!(message.contains("--body-limit"), "{route}: {message}");
    }
    // One request a minute: the first is served, every later one refused.
    let proxy = Proxy::start(&["--rate-limit", "1"], &[]);
    assert_eq!(post_json(proxy.endpoint("/api/chat/openai"), "{}").send().await.unwrap().status(), 200);
    for route in ROUTES {
        let response = post_json(proxy.endpoint(&format!("/api/chat/{route}")), "{}").send().await.unwrap();
        assert_eq!(response.status(), 429, "{route}");
        assert!(response.headers().contains_key("retry-after"), "{route}");
        let message = message_in_route_format(route, 429, &response.text().await.unwrap());
        assert!(message.contains("--rate-limit of 1 a minute"), "{route}: {message}");
    }
    // Each refusal is in the log too, with what would allow it.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(proxy.output().matches("--rate-limit of 1 a minute").count(), ROUTES.len(), "{}", proxy.output());
}

#[tokio::test]
async fn simulated_fields_that_would_be_repeated_are_bounded() {
    let proxy = Proxy::start(&[], &[]);
    for route in ROUTES {
        let body = serde_json::json!({"model": "m".repeat(300), "conversation_id": "c".repeat(300), "message": "hi",
            "messages": [{"role": "user", "content": "hi"}]});
        let response = post_json(proxy.endpoint(&format!("/api/chat/{route}")), body.to_string()).send().await.unwrap();
        assert_eq!(response.status(), 400, "{route}");
        let message = message_in_route_format(route, 400, &response.text().await.unwrap());
        assert!(message.contains("longer than the simulated provider accepts"), "{route}: {message}");
    }
}
