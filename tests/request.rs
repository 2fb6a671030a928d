//! Request builders: one provider-neutral conversation written in each provider's format. The
//! expected bodies are written from the providers' API references (Chat Completions, Responses,
//! Messages, Gemini generateContent, Ollama /api/chat), not from the builder's output.

use chatstream::error::ErrorCode;
use chatstream::request::context::{self, estimate};
use chatstream::request::{build, Profile, Provider, ToolCall, ToolDef, ToolResult, Turn};
use serde_json::{json, Value};

fn weather_tool() -> ToolDef {
    ToolDef {
        name: "get_weather".into(),
        description: "Current weather".into(),
        input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        needs_approval: false,
    }
}

/// A user question, a tool call, its result, and a follow-up.
fn conversation() -> Vec<Turn> {
    vec![
        Turn::User { content: "Weather in Paris?".into() },
        Turn::Assistant {
            content: "Checking.".into(),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "get_weather".into(),
                input: json!({"city": "Paris"}),
            }],
        },
        Turn::Tool {
            results: vec![ToolResult {
                tool_use_id: "call_1".into(),
                name: "get_weather".into(),
                output: json!({"temp_c": 18}),
                is_error: false,
            }],
        },
        Turn::Assistant { content: "18 °C.".into(), tool_calls: vec![] },
        Turn::User { content: "And tomorrow?".into() },
    ]
}

/// The conversation with the tool's result replaced by `output`.
fn with_result(output: Value, is_error: bool) -> Vec<Turn> {
    let mut turns = conversation();
    turns[2] = Turn::Tool {
        results: vec![ToolResult { tool_use_id: "call_1".into(), name: "get_weather".into(), output, is_error }],
    };
    turns
}

fn profile() -> Profile {
    Profile {
        model: "m".into(),
        system: Some("Be brief.".into()),
        temperature: Some(0.5),
        max_tokens: Some(500),
        ..Profile::default()
    }
}

fn body(provider: Provider) -> Value {
    build(provider, &profile(), &conversation(), &[weather_tool()], false).expect("valid request")
}

#[test]
fn openai_chat_completions() {
    assert_eq!(
        body(Provider::OpenAi),
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": "Checking.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp_c\":18}"},
                {"role": "assistant", "content": "18 °C."},
                {"role": "user", "content": "And tomorrow?"}
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "temperature": 0.5,
            "max_completion_tokens": 500,
            "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
        })
    );
}

#[test]
fn compat_servers_get_max_tokens_and_no_reasoning_effort() {
    let thinking = Profile { thinking: true, ..profile() };
    let compat = build(Provider::Compat, &thinking, &conversation(), &[], false).unwrap();
    assert_eq!(compat["max_tokens"], 500);
    assert!(compat.get("max_completion_tokens").is_none());
    assert!(compat.get("reasoning_effort").is_none());
    let openai = build(Provider::OpenAi, &thinking, &conversation(), &[], false).unwrap();
    assert_eq!(openai["reasoning_effort"], "medium", "the default 10,000-token budget");
    assert!(openai.get("tools").is_none(), "no tools offered, none declared");
}

#[test]
fn openai_responses() {
    assert_eq!(
        body(Provider::OpenAiResponses),
        json!({
            "model": "m",
            "instructions": "Be brief.",
            "input": [
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": "Checking."},
                {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "{\"temp_c\":18}"},
                {"role": "assistant", "content": "18 °C."},
                {"role": "user", "content": "And tomorrow?"}
            ],
            "stream": true,
            "store": false,
            "temperature": 0.5,
            "max_output_tokens": 500,
            "tools": [{"type": "function", "name": "get_weather", "description": "Current weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]
        })
    );
}

#[test]
fn anthropic_messages() {
    assert_eq!(
        body(Provider::Anthropic),
        json!({
            "model": "m",
            "system": "Be brief.",
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}
                ]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "{\"temp_c\":18}"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "18 °C."}]},
                {"role": "user", "content": "And tomorrow?"}
            ],
            "temperature": 0.5,
            "max_tokens": 500,
            "stream": true,
            "tools": [{"name": "get_weather", "description": "Current weather",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]
        })
    );
}

#[test]
fn anthropic_thinking_drops_temperature_and_raises_max_tokens_above_the_budget() {
    let p = Profile { thinking: true, thinking_budget: Some(4000), ..profile() };
    let body = build(Provider::Anthropic, &p, &conversation(), &[], false).unwrap();
    assert_eq!(body["thinking"], json!({"type": "enabled", "budget_tokens": 4000}));
    assert!(body.get("temperature").is_none());
    assert!(body["max_tokens"].as_u64().unwrap() > 4000);
    let no_max = Profile { max_tokens: None, ..profile() };
    assert_eq!(build(Provider::Anthropic, &no_max, &conversation(), &[], false).unwrap()["max_tokens"], 8192);
    // The largest budget a page can ask for: max_tokens stays at least the budget rather than wrapping to a small number.
    let most = Profile { thinking: true, thinking_budget: Some(u32::MAX), ..profile() };
    let body = build(Provider::Anthropic, &most, &conversation(), &[], false).unwrap();
    assert_eq!(body["thinking"]["budget_tokens"], u64::from(u32::MAX));
    assert!(body["max_tokens"].as_u64().unwrap() >= u64::from(u32::MAX), "{}", body["max_tokens"]);
}

fn without_tools(provider: Provider, profile: &Profile) -> Value {
    build(provider, profile, &conversation(), &[], false).unwrap()
}

#[test]
fn thinking_in_the_other_formats() {
    let p = Profile { thinking: true, thinking_budget: Some(20_000), temperature: None, max_tokens: None, ..profile() };
    assert_eq!(without_tools(Provider::OpenAi, &p)["reasoning_effort"], "high");
    assert_eq!(without_tools(Provider::OpenAiResponses, &p)["reasoning"], json!({"effort": "high", "summary": "auto"}));
    assert_eq!(
        without_tools(Provider::Gemini, &p)["generationConfig"],
        json!({"thinkingConfig": {"includeThoughts": true, "thinkingBudget": 20000}})
    );
    let ollama = without_tools(Provider::Ollama, &p);
    assert_eq!(ollama["think"], true);
    assert!(ollama.get("options").is_none(), "no temperature and no token limit: no options");
    let plain = Profile { temperature: None, max_tokens: None, ..profile() };
    assert!(without_tools(Provider::Gemini, &plain).get("generationConfig").is_none(), "nothing to configure");
}

#[test]
fn an_anthropic_error_result_is_marked_and_text_is_escaped() {
    let turns = with_result(json!("no \"Paris\"\n\u{1}"), true);
    let body = build(Provider::Anthropic, &profile(), &turns, &[], false).unwrap();
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": "no \"Paris\"\n\u{1}", "is_error": true}
        ]})
    );
}

#[test]
fn gemini_contents() {
    assert_eq!(
        body(Provider::Gemini),
        json!({
            "model": "m",
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                {"role": "model", "parts": [{"text": "Checking."}, {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp_c": 18}}}]},
                {"role": "model", "parts": [{"text": "18 °C."}]},
                {"role": "user", "parts": [{"text": "And tomorrow?"}]}
            ],
            "generationConfig": {"temperature": 0.5, "maxOutputTokens": 500},
            "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Current weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}]
        })
    );
}

#[test]
fn gemini_wraps_outputs_that_are_not_objects() {
    let turns = with_result(json!("sunny"), false);
    let body = build(Provider::Gemini, &profile(), &turns, &[], false).unwrap();
    assert_eq!(body["contents"][2]["parts"][0]["functionResponse"]["response"], json!({"result": "sunny"}));
    let turns = with_result(json!("boom"), true);
    let body = build(Provider::Gemini, &profile(), &turns, &[], false).unwrap();
    assert_eq!(body["contents"][2]["parts"][0]["functionResponse"]["response"], json!({"error": "boom"}));
}

#[test]
fn ollama_chat() {
    assert_eq!(
        body(Provider::Ollama),
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": "Checking.", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
                {"role": "tool", "tool_name": "get_weather", "content": "{\"temp_c\":18}"},
                {"role": "assistant", "content": "18 °C."},
                {"role": "user", "content": "And tomorrow?"}
            ],
            "stream": true,
            "options": {"temperature": 0.5, "num_predict": 500},
            "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
        })
    );
}

#[test]
fn the_last_iteration_forbids_tool_calls_in_each_format() {
    let no_more = |p| build(p, &profile(), &conversation(), &[weather_tool()], true).unwrap();
    assert_eq!(no_more(Provider::OpenAi)["tool_choice"], "none");
    assert_eq!(no_more(Provider::Compat)["tool_choice"], "none");
    assert_eq!(no_more(Provider::OpenAiResponses)["tool_choice"], "none");
    assert_eq!(no_more(Provider::Anthropic)["tool_choice"], json!({"type": "none"}));
    assert_eq!(no_more(Provider::Gemini)["toolConfig"], json!({"functionCallingConfig": {"mode": "NONE"}}));
    assert!(no_more(Provider::Ollama).get("tools").is_none(), "Ollama cannot forbid calls: no tools are sent");
}

#[test]
fn validation_refuses_what_cannot_be_sent() {
    let check = |profile: &Profile, turns: &[Turn], tools: &[ToolDef]| {
        build(Provider::OpenAi, profile, turns, tools, false).map(|_| ()).map_err(|e| (e.code, e.field))
    };
    let user = |s: &str| vec![Turn::User { content: s.into() }];
    let nameless = Profile { model: " ".into(), ..profile() };
    assert_eq!(check(&nameless, &user("hi"), &[]), Err((ErrorCode::ValidationError, "model")));
    assert_eq!(check(&profile(), &user("  "), &[]), Err((ErrorCode::ValidationError, "message")));
    assert_eq!(check(&profile(), &[], &[]), Err((ErrorCode::ValidationError, "message")));
    let hot = Profile { temperature: Some(3.0), ..profile() };
    assert_eq!(check(&hot, &user("hi"), &[]), Err((ErrorCode::ValidationError, "temperature")));
    let bad_name = ToolDef { name: "get weather".into(), ..weather_tool() };
    assert_eq!(check(&profile(), &user("hi"), &[bad_name]), Err((ErrorCode::ValidationError, "tools")));
    assert_eq!(
        check(&profile(), &user("hi"), &[weather_tool(), weather_tool()]),
        Err((ErrorCode::ValidationError, "tools"))
    );
    let bad_schema = ToolDef { input_schema: json!("object"), ..weather_tool() };
    assert_eq!(check(&profile(), &user("hi"), &[bad_schema]), Err((ErrorCode::ValidationError, "tools")));
    assert_eq!(check(&profile(), &user("hi"), &[weather_tool()]), Ok(()));
}

/// The system prompt is in the request, in each provider's place for it.
#[test]
fn the_system_prompt_is_in_the_request() {
    let system = |p| {
        let b = body(p);
        match p {
            Provider::OpenAi | Provider::Compat | Provider::Ollama => b["messages"][0].clone(),
            Provider::OpenAiResponses => b["instructions"].clone(),
            Provider::Anthropic => b["system"].clone(),
            Provider::Gemini => b["systemInstruction"].clone(),
        }
    };
    for p in Provider::ALL {
        assert!(system(p).to_string().contains("Be brief."), "{}: {}", p.name(), system(p));
    }
}

/// The offered tools are declared in the request.
#[test]
fn the_tools_are_declared_in_the_request() {
    for p in Provider::ALL {
        let b = body(p);
        let declared = b["tools"].to_string();
        assert!(declared.contains("get_weather") && declared.contains("\"city\""), "{}: {declared}", p.name());
    }
}

/// Each provider gets its own format, and its stream is read in its own dialect.
#[test]
fn each_provider_gets_its_own_format() {
    let shapes: Vec<(&str, Vec<&str>)> = Provider::ALL
        .iter()
        .map(|&p| {
            let b = body(p);
            let mut keys: Vec<&str> =
                ["messages", "input", "contents"].into_iter().filter(|k| b.get(*k).is_some()).collect();
            keys.push(p.dialect().name());
            (p.name(), keys)
        })
        .collect();
    assert_eq!(
        shapes,
        [
            ("openai", vec!["messages", "openai"]),
            ("openai-responses", vec!["input", "openai-responses"]),
            ("anthropic", vec!["messages", "anthropic"]),
            ("gemini", vec!["contents", "gemini"]),
            ("ollama", vec!["messages", "ollama"]),
            ("compat", vec!["messages", "openai"]),
        ]
    );
}

/// The context strategy is applied to the request.
#[test]
fn the_context_budget_is_applied_to_the_request() {
    let long = "x".repeat(4000); // about 1,000 tokens a turn
    let mut turns = Vec::new();
    for i in 0..10 {
        turns.push(Turn::User { content: format!("question {i} {long}") });
        turns.push(Turn::Assistant { content: format!("answer {i} {long}"), tool_calls: vec![] });
    }
    turns.push(Turn::User { content: "the last question".into() });
    let small = Profile { context_tokens: Some(10_000), ..profile() };
    assert!(estimate(&turns, &small) > 7_000);
    let body = build(Provider::OpenAi, &small, &turns, &[], false).unwrap();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0], json!({"role": "system", "content": "Be brief."}), "the system prompt stays");
    assert_eq!(messages.last().unwrap()["content"], "the last question", "the last user message stays");
    let kept: Vec<Turn> = context::fit(&turns, &small);
    assert!(estimate(&kept, &small) <= 7_000, "under 70% of the limit");
    assert!(kept.len() < turns.len());
    // Whole exchanges go: the first kept turn is a user turn, told what was left out.
    match &kept[0] {
        Turn::User { content } => {
            assert!(content.starts_with(&format!("[{} earlier messages omitted]", turns.len() - kept.len())))
        }
        other => panic!("{other:?}"),
    }
    // Under the budget nothing changes.
    let roomy = Profile { context_tokens: Some(1_000_000), ..profile() };
    assert_eq!(context::fit(&turns, &roomy), turns);
}

#[test]
fn a_tool_call_never_loses_its_result_when_the_context_is_cut() {
    let long = "y".repeat(8000);
    let turns = vec![
        Turn::User { content: long.clone() },
        Turn::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall { id: "c".into(), name: "t".into(), input: json!({}) }],
        },
        Turn::Tool {
            results: vec![ToolResult {
                tool_use_id: "c".into(),
                name: "t".into(),
                output: json!(long),
                is_error: false,
            }],
        },
        Turn::Assistant { content: "done".into(), tool_calls: vec![] },
        Turn::User { content: "next".into() },
    ];
    let kept = context::fit(&turns, &Profile { context_tokens: Some(3_000), ..profile() });
    assert_eq!(kept.len(), 1, "the whole first exchange went, call and result together");
    assert!(matches!(&kept[0], Turn::User { content } if content.ends_with("next")));
}
