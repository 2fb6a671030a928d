//! The simulated provider invents no wire format: every frame it sends has a kind (`type`, or the SSE
//! `event:` name) that the real recordings of that provider have, and only fields that real frames of
//! that kind have. The recordings are the repository's (`tests/fixtures/recorded/`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{post_json, Proxy};
use serde_json::{json, Value};

fn recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/recorded")
}

/// One frame: its kind and its JSON. SSE frames are split on blank lines (LF or CRLF), NDJSON on lines.
fn frames(provider: &str, bytes: &str) -> Vec<(String, Value)> {
    let text = bytes.replace("\r\n", "\n");
    if provider == "ollama" {
        return text.lines().filter(|l| !l.trim().is_empty()).map(|l| kind_of(provider, None, l)).collect();
    }
    let mut out = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut event = None;
        let mut data = String::new();
        for line in block.lines() {
            if let Some(name) = line.strip_prefix("event:") {
                event = Some(name.trim().to_string());
            } else if let Some(d) = line.strip_prefix("data:") {
                data.push_str(d.trim_start());
            }
        }
        if data == "[DONE]" {
            out.push(("[DONE]".into(), Value::Null));
        } else if !data.is_empty() {
            let (kind, value) = kind_of(provider, event.clone(), &data);
            if let Some(event) = event {
                assert_eq!(event, kind, "{provider}: the event name is the data's type");
            }
            out.push((kind, value));
        }
    }
    out
}

fn kind_of(provider: &str, event: Option<String>, data: &str) -> (String, Value) {
    let value: Value =
        serde_json::from_str(data).unwrap_or_else(|e| panic!("{provider}: frame is not JSON ({e}): {data}"));
    let kind = match value.get("type").and_then(Value::as_str) {
        Some(kind) => kind.to_string(),
        None if value.get("error").is_some() => "error".into(),
        None => event.unwrap_or_else(|| "chunk".into()),
    };
    (kind, value)
}

/// Every field path in `value`: `a.b`, array elements as `[]`. Tool arguments are the tool's own fields,
/// so paths stop at `args`/`arguments`.
fn paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let path = format!("{prefix}.{key}");
                out.insert(path.clone());
                if key != "args" && key != "arguments" {
                    paths(child, &path, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| paths(item, &format!("{prefix}[]"), out)),
        _ => {}
    }
}

/// Fields the simulator sends on the providers' documentation's word that no recording here shows
/// (thinking blocks, Ollama's thinking and tool calls, mid-stream errors).
const DOCUMENTED_NOT_RECORDED: &[(&str, &str, &str)] = &[
    ("anthropic", "content_block_start", ".content_block.thinking"),
    ("anthropic", "content_block_start", ".content_block.signature"),
    ("anthropic", "content_block_delta", ".delta.thinking"),
    ("anthropic", "content_block_delta", ".delta.signature"),
    ("anthropic", "error", ".type"),
    ("anthropic", "error", ".error"),
    ("anthropic", "error", ".error.type"),
    ("anthropic", "error", ".error.message"),
    ("openai", "error", ".error"),
    ("openai", "error", ".error.message"),
    ("openai", "error", ".error.type"),
    ("openai", "error", ".error.param"),
    ("openai", "error", ".error.code"),
    ("gemini", "error", ".error"),
    ("gemini", "error", ".error.code"),
    ("gemini", "error", ".error.message"),
    ("gemini", "error", ".error.status"),
    ("ollama", "chunk", ".message.thinking"),
    ("ollama", "chunk", ".message.tool_calls"),
    ("ollama", "chunk", ".message.tool_calls[].function"),
    ("ollama", "chunk", ".message.tool_calls[].function.name"),
    ("ollama", "chunk", ".message.tool_calls[].function.arguments"),
    ("ollama", "error", ".error"),
];

fn requests(route: &str) -> Vec<Value> {
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    let prompts = ["Hello", "Please think", "Use get_weather", "Hello sim:error"];
    prompts
        .iter()
        .map(|prompt| match route {
            "openai-responses" => {
                json!({"input": prompt, "tools": [{"type": "function", "name": "get_weather", "parameters": schema}]})
            }
            "anthropic" => json!({"messages": [{"role": "user", "content": prompt}],
                "tools": [{"name": "get_weather", "input_schema": schema}]}),
            "gemini" => json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}],
                "tools": [{"functionDeclarations": [{"name": "get_weather", "parameters": schema}]}]}),
            _ => json!({"messages": [{"role": "user", "content": prompt}],
                "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": schema}}]}),
        })
        .collect()
}

#[tokio::test]
async fn simulated_frames_have_only_the_kinds_and_fields_of_real_ones() {
    let root = recordings();
    let proxy = Proxy::start(&[], &[]);
    let mut problems = Vec::new();
    for provider in ["openai", "openai-responses", "anthropic", "gemini", "ollama"] {
        let mut real: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for entry in std::fs::read_dir(root.join(provider)).unwrap() {
            let path = entry.unwrap().path();
            if !matches!(path.extension().and_then(|e| e.to_str()), Some("sse" | "ndjson")) {
                continue;
            }
            let text = std::fs::read_to_string(path).unwrap();
            for (kind, value) in frames(provider, &text) {
                paths(&value, "", real.entry(kind).or_default());
            }
        }
        for (p, kind, path) in DOCUMENTED_NOT_RECORDED {
            if *p == provider {
                real.entry(kind.to_string()).or_default().insert(path.to_string());
            }
        }
        for body in requests(provider) {
            let response =
                post_json(proxy.endpoint(&format!("/api/chat/{provider}")), body.to_string()).send().await.unwrap();
            let text = response.text().await.unwrap();
            if provider == "gemini" {
                assert!(
                    text.ends_with("\r\n\r\n") && !text.replace("\r\n", "").contains('\n'),
                    "Gemini frames end in CRLF"
                );
            }
            let sent_frames = frames(provider, &text);
            assert!(sent_frames.len() > 2, "{provider}: {text}");
            for (kind, value) in sent_frames {
                let Some(known) = real.get(&kind) else {
                    problems.push(format!("{provider}: frame kind {kind:?} is in no recording"));
                    continue;
                };
                let mut sent = BTreeSet::new();
                paths(&value, "", &mut sent);
                for path in sent.difference(known) {
                    problems.push(format!("{provider} {kind}: field {path} is in no recording"));
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
