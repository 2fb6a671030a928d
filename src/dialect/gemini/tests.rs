//! The Gemini decoder's tests: every event and error shape.

use super::*;
use crate::dialect::scan::scan;
use serde_json::json;

fn decode(frames: &[&str]) -> Vec<ProviderEvent> {
    crate::dialect::test_support::decode::<GeminiDecoder>(frames)
}

fn parts(parts: Value) -> String {
    json!({ "candidates": [{ "content": { "role": "model", "parts": parts } }], "responseId": "r1" }).to_string()
}

fn finish(reason: &str) -> String {
    json!({ "candidates": [{ "content": { "parts": [{ "text": "" }] }, "finishReason": reason }] }).to_string()
}

fn end_call(id: &str, name: &str, input: Value) -> ProviderEvent {
    ProviderEvent::ToolCallEnd { id: id.into(), name: Some(name.into()), input: Some(input) }
}

fn finish_event(reason: &str) -> ProviderEvent {
    ProviderEvent::Finish { reason: reason.into() }
}

#[test]
fn text_and_thought_parts() {
    let events = decode(&[
        &parts(json!([{ "text": "Considering.", "thought": true }])),
        &parts(json!([{ "text": "Blue", "thought": false }, { "text": "" }])),
        &parts(json!([{ "text": " sky." }])),
        &finish("STOP"),
    ]);
    assert_eq!(
        events,
        [
            ProviderEvent::Thinking("Considering.".into()),
            ProviderEvent::Text("Blue".into()),
            ProviderEvent::Text(" sky.".into()),
            finish_event("stop"),
            ProviderEvent::End,
        ]
    );
}

#[test]
fn a_body_that_ends_without_a_finish_reason_adds_no_end() {
    assert_eq!(decode(&[&parts(json!([{ "text": "Half" }]))]), [ProviderEvent::Text("Half".into())]);
}

#[test]
fn whole_function_calls_get_stable_ids_and_stop_means_tool_calls() {
    let events = decode(&[
        &parts(json!([
            { "functionCall": { "name": "weather", "args": { "city": "Paris" } }, "thoughtSignature": "sig" },
            { "functionCall": { "name": "time" } },
            { "functionCall": { "id": "given", "name": "date", "args": {} } },
        ])),
        &finish("STOP"),
    ]);
    assert_eq!(
        events,
        [
            end_call("r1-0", "weather", json!({ "city": "Paris" })),
            ProviderEvent::Attach {
                key: "thought_signatures".into(),
                value: json!({ "signature": "sig", "tool_use_id": "r1-0" }),
            },
            end_call("r1-1", "time", json!({})),
            end_call("given", "date", json!({})),
            finish_event("tool_calls"),
            ProviderEvent::End,
        ]
    );
}

#[test]
fn without_a_response_id_calls_are_numbered() {
    let chunk = json!({ "candidates": [{ "content": { "parts": [{ "functionCall": { "name": "now" } }] } }] });
    assert_eq!(decode(&[&chunk.to_string()]), [end_call("call_0", "now", json!({}))]);
}

#[test]
fn vertex_partial_args_build_the_input() {
    let events = decode(&[
        &parts(json!([{ "functionCall": { "name": "cook", "willContinue": true } }])),
        &parts(json!([{ "functionCall": { "partialArgs": [
            { "jsonPath": "$.recipe.items[0].name", "stringValue": "Lasa", "willContinue": true }
        ], "willContinue": true } }])),
        &parts(json!([{ "functionCall": { "partialArgs": [
            { "jsonPath": "$.recipe.items[0].name", "stringValue": "gna", "willContinue": true }
        ], "willContinue": true } }])),
        &parts(json!([{ "functionCall": { "partialArgs": [
            { "jsonPath": "$.recipe.items[0].name", "stringValue": "" }
        ], "willContinue": true } }])),
        &parts(json!([{ "functionCall": { "willContinue": true } }])),
        &parts(json!([{ "functionCall": { "partialArgs": [
            { "jsonPath": "$.recipe.items[1]['unit price']", "numberValue": 2.5 },
            { "jsonPath": "$.recipe.items[1].count", "numberValue": 3 },
            { "jsonPath": "$.recipe.vegan", "boolValue": false },
            { "jsonPath": "$.recipe.note", "nullValue": "NULL_VALUE" }
        ], "willContinue": true } }])),
        &parts(json!([{ "functionCall": {} }])),
        &finish("STOP"),
    ]);
    let input = json!({ "recipe": {
        "items": [{ "name": "Lasagna" }, { "unit price": 2.5, "count": 3 }],
        "vegan": false,
        "note": null
    } });
    assert_eq!(
        events,
        [
            ProviderEvent::ToolCallStart { id: "r1-0".into(), name: "cook".into() },
            end_call("r1-0", "cook", input),
            finish_event("tool_calls"),
            ProviderEvent::End,
        ]
    );
}

#[test]
fn a_streaming_call_ends_with_its_last_piece_a_new_call_or_the_finish() {
    let events = decode(&[
        // The last piece of arguments carries no willContinue: the call is complete.
        &parts(json!([{ "functionCall": { "name": "a", "willContinue": true } }])),
        &parts(json!([{ "functionCall": { "partialArgs": [{ "jsonPath": "$.n", "numberValue": 1 }] } }])),
        // A named part while a call streams closes that call first.
        &parts(json!([{ "functionCall": { "name": "b", "willContinue": true } }])),
        &parts(json!([{ "functionCall": { "name": "c", "willContinue": true } }])),
        &finish("STOP"),
    ]);
    assert_eq!(
        events,
        [
            ProviderEvent::ToolCallStart { id: "r1-0".into(), name: "a".into() },
            end_call("r1-0", "a", json!({ "n": 1 })),
            ProviderEvent::ToolCallStart { id: "r1-1".into(), name: "b".into() },
            end_call("r1-1", "b", json!({})),
            ProviderEvent::ToolCallStart { id: "r1-2".into(), name: "c".into() },
            end_call("r1-2", "c", json!({})),
            finish_event("tool_calls"),
            ProviderEvent::End,
        ]
    );
}

#[test]
fn an_unreadable_json_path_is_reported_and_the_call_goes_on() {
    let events = decode(&[
        &parts(json!([{ "functionCall": { "name": "a", "willContinue": true } }])),
        &parts(json!([{ "functionCall": { "partialArgs": [
            { "jsonPath": "items[0", "stringValue": "x" },
            { "jsonPath": "$.list[4000000000]", "stringValue": "far" },
            { "jsonPath": "$.ok", "stringValue": "y" }
        ] } }])),
    ]);
    assert!(matches!(&events[1], ProviderEvent::Error { fatal: false, message, .. } if message.contains("items[0")));
    assert!(matches!(&events[2], ProviderEvent::Error { fatal: false, message, .. } if message.contains("4000000000")));
    // The path was read up to the index that skips ahead; what it made before stays, empty.
    assert_eq!(events[3], end_call("r1-0", "a", json!({ "list": [], "ok": "y" })));
}

#[test]
fn a_path_deeper_than_the_cap_is_refused() {
    let deep = format!("${}", ".a".repeat(MAX_PATH_DEPTH + 1));
    let events = decode(&[
        &parts(json!([{ "functionCall": { "name": "a", "willContinue": true } }])),
        &parts(json!([{ "functionCall": { "partialArgs": [{ "jsonPath": deep, "boolValue": true }] } }])),
    ]);
    assert!(matches!(&events[1], ProviderEvent::Error { fatal: false, message, .. } if message.contains("deeper")));
    let ProviderEvent::ToolCallEnd { input: Some(input), .. } = &events[2] else { panic!("{events:?}") };
    assert!(serde_json::to_string(input).is_ok_and(|s| serde_json::from_str::<Value>(&s).is_ok()));
}

#[test]
fn finish_reasons() {
    for (wire, reason) in [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("LANGUAGE", "other"),
    ] {
        assert_eq!(decode(&[&finish(wire)]), [finish_event(reason), ProviderEvent::End], "{wire}");
    }
}

#[test]
fn a_finish_message_is_kept_in_the_payload() {
    let chunk = r#"{"candidates":[{"content":{"parts":[]},"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: print(x"}]}"#;
    let message = json!("Malformed function call: print(x");
    assert_eq!(
        decode(&[chunk]),
        [
            finish_event("error"),
            ProviderEvent::Payload(Map::from_iter([("finish_message".to_owned(), message)])),
            ProviderEvent::End,
        ]
    );
}

#[test]
fn a_blocked_prompt_is_a_content_filter_stop_and_an_error() {
    let events = decode(&[
        r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}}"#,
    ]);
    assert_eq!(
        events,
        [
            finish_event("content_filter"),
            ProviderEvent::Error {
                code: ErrorCode::ValidationError,
                message: "The prompt was blocked by the provider (PROHIBITED_CONTENT)".into(),
                fatal: true,
            },
        ]
    );
}

#[test]
fn error_envelopes_before_and_during_the_stream() {
    let quota = r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#;
    let error = |code, message: &str| ProviderEvent::Error { code, message: message.into(), fatal: true };
    assert_eq!(decode(&[quota]), [error(ErrorCode::RateLimited, "Rate limited, try again")]);

    let overloaded = r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#;
    let events = decode(&[&parts(json!([{ "text": "Hi" }])), overloaded, &finish("STOP")]);
    assert_eq!(
        events,
        [ProviderEvent::Text("Hi".into()), error(ErrorCode::ServiceUnavailable, "The model is overloaded.")]
    );

    let bad_key = r#"[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}]"#;
    assert_eq!(decode(&[bad_key]), [error(ErrorCode::Unauthorized, "Invalid API key")]);
}

#[test]
fn usage_counts_thinking_as_output() {
    let chunk = r#"{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":29,"totalTokenCount":294,"thoughtsTokenCount":256,"cachedContentTokenCount":4}}"#;
    let vertex_placeholder =
        r#"{"candidates":[{"content":{"parts":[{"text":"y"}]}}],"usageMetadata":{"trafficType":"ON_DEMAND"}}"#;
    let events = decode(&[vertex_placeholder, chunk]);
    let usage = Usage {
        input_tokens: Some(9),
        output_tokens: Some(285),
        reasoning_tokens: Some(256),
        cached_input_tokens: Some(4),
        total_tokens: Some(294),
    };
    assert_eq!(
        events,
        [
            ProviderEvent::Text("y".into()),
            ProviderEvent::Text("x".into()),
            finish_event("stop"),
            ProviderEvent::Usage(usage),
            ProviderEvent::End,
        ]
    );
}

#[test]
fn usage_counts_at_the_largest_number_add_up_to_it_rather_than_wrap() {
    let chunk = r#"{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":18446744073709551615,"toolUsePromptTokenCount":3,"candidatesTokenCount":18446744073709551615,"thoughtsTokenCount":5}}"#;
    let events = decode(&[chunk]);
    let Some(ProviderEvent::Usage(usage)) = events.iter().find(|e| matches!(e, ProviderEvent::Usage(_))) else {
        panic!("{events:?}")
    };
    assert_eq!((usage.input_tokens, usage.output_tokens), (Some(u64::MAX), Some(u64::MAX)));
}

#[test]
fn an_unreadable_frame_is_not_fatal() {
    let events = decode(&["{\"candidates\": [", &finish("STOP")]);
    assert!(matches!(&events[0], ProviderEvent::Error { fatal: false, .. }));
    assert_eq!(events[1..], [finish_event("stop"), ProviderEvent::End]);
}

#[test]
fn the_fast_path_leaves_every_other_response_to_the_general_path() {
    for other in [
        r#"{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"STOP","finishMessage":"m"}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":null}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"STOP","finishReason":"STOP"}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"x","functionCall":{"name":"f","args":{}}}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"x","thoughtSignature":null}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"x"},{"text":"y"}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"x"}]}},{"content":{"parts":[{"text":"y"}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"x","thought":"yes"}]}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"x"}]}}],"usageMetadata":{"promptTokenCount":1,"promptTokenCount":2}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"x"}]}}],"promptFeedback":{"blockReason":"SAFETY"}}"#,
        r#"{"error":{"code":429,"message":"slow down"},"candidates":[{"content":{"parts":[{"text":"x"}]}}]}"#,
        r#"[{"candidates":[{"content":{"parts":[{"text":"x"}]}}]}]"#,
        r#"{"usageMetadata":{"promptTokenCount":1}}"#,
    ] {
        assert!(scan(other, plain::plain).is_none(), "{other}");
    }
}

/// The Vertex recording's function calls (tests/fixtures/recorded/gemini/vertex-no-args-tool-call.sse):
/// a whole call with no `args` beside its signature, then a call streamed in pieces (its name, a
/// string in two pieces, `{}`). Every frame is read by the fast path, into the tool calls its
/// `.json` lists: `read_theme` with `{}`, `read_screen` with `{"id":"A"}`.
#[test]
fn vertex_calls_in_pieces_take_the_fast_path() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/recorded/gemini/vertex-no-args-tool-call.sse");
    let sse = std::fs::read_to_string(path).expect("the recording");
    let frames: Vec<&str> = sse.lines().filter_map(|line| line.strip_prefix("data: ")).skip(1).take(5).collect();
    for frame in &frames {
        assert!(scan(frame, plain::plain).is_some(), "{frame}");
    }
    let events = decode(&frames);
    let id = |n| format!("_vr4aYiWEJnYodAPkujX0QM-{n}");
    let ProviderEvent::Attach { key, value } = &events[1] else { panic!("{events:?}") };
    assert_eq!((key.as_str(), &value["tool_use_id"]), ("thought_signatures", &json!(id(0))));
    assert!(value["signature"].as_str().is_some_and(|s| s.starts_with("AY89a18a8/Loc2wl")));
    assert_eq!(
        [&events[..1], &events[2..]].concat(),
        [
            end_call(&id(0), "read_theme", json!({})),
            ProviderEvent::ToolCallStart { id: id(1), name: "read_screen".into() },
            end_call(&id(1), "read_screen", json!({ "id": "A" })),
        ]
    );
}

/// Whole calls one a response, as the fast path reads them (each call parsed alone, its `args`
/// moved into the event): nested arguments arrive whole, a call with no `args` gets `{}`, and the
/// ids count on past one digit (`<responseId>-10`, the module's rule). Each response is also read
/// by the general path (inside an array of responses), which must agree.
#[test]
fn whole_calls_on_the_fast_path_keep_their_arguments_and_number_past_nine() {
    let response = |n: usize| {
        let call = if n % 2 == 0 {
            json!({ "name": "lookup", "args": { "q": ["a", { "n": n }], "deep": { "x": null } } })
        } else {
            json!({ "name": "lookup" })
        };
        json!({ "candidates": [{ "content": { "role": "model", "parts": [{ "functionCall": call }] } }], "responseId": "resp" })
            .to_string()
    };
    let responses: Vec<String> = (0..11).map(response).collect();
    for frame in &responses {
        assert!(scan(frame, plain::plain).is_some(), "{frame}");
    }
    let expected: Vec<ProviderEvent> = (0..11)
        .map(|n| {
            let input = if n % 2 == 0 { json!({ "q": ["a", { "n": n }], "deep": { "x": null } }) } else { json!({}) };
            end_call(&format!("resp-{n}"), "lookup", input)
        })
        .collect();
    let frames: Vec<&str> = responses.iter().map(String::as_str).collect();
    assert_eq!(decode(&frames), expected);
    let general: Vec<String> = responses.iter().map(|r| format!("[{r}]")).collect();
    assert_eq!(decode(&general.iter().map(String::as_str).collect::<Vec<_>>()), expected);
}

/// A Vertex call whose first piece has both its name and `args` (and `willContinue`): the pieces
/// that follow set values beside what `args` held, on the fast path as on the general path.
#[test]
fn a_streamed_call_keeps_the_args_of_its_first_piece() {
    let first = parts(json!([{ "functionCall": { "name": "f", "args": { "a": 1 }, "willContinue": true } }]));
    let piece = parts(json!([{ "functionCall": { "partialArgs": [{ "jsonPath": "$.b", "stringValue": "x" }] } }]));
    let last = parts(json!([{ "functionCall": {} }]));
    for frame in [&first, &piece, &last] {
        assert!(scan(frame, plain::plain).is_some(), "{frame}");
    }
    assert_eq!(
        decode(&[&first, &piece, &last]),
        [
            ProviderEvent::ToolCallStart { id: "r1-0".into(), name: "f".into() },
            end_call("r1-0", "f", json!({ "a": 1, "b": "x" })),
        ]
    );
}

/// Each frame read by the fast path (its call's fields taken one by one) and, inside an array of
/// responses, by the general path: both must give `expected`.
fn fast_and_general(frames: &[&str], expected: &[ProviderEvent]) {
    for frame in frames {
        assert!(scan(frame, plain::plain).is_some(), "{frame}");
    }
    assert_eq!(decode(frames), expected);
    let general: Vec<String> = frames.iter().map(|f| format!("[{f}]")).collect();
    assert_eq!(decode(&general.iter().map(String::as_str).collect::<Vec<_>>()), expected);
}

/// A call's fields in any order, among fields nobody reads (nested, with strings holding
/// brackets), its name and id unescaped, its `args` kept whole with their escapes decoded.
#[test]
fn a_calls_fields_are_read_in_any_order_past_unknown_ones() {
    let first = r#"{"responseId":"r","candidates":[{"content":{"parts":[{"thoughtSignature":"s","functionCall":{"future":{"deep":[1,{"x":"}]"}]},"args":{"q":"a\"b\u00e9","n":[1.5,null,true]},"willContinue":false,"name":"f\"n\u00e9","later":null}}]}}]}"#;
    let second = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c\u0031","name":"g"}}]}}]}"#;
    let third = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"h","args":{}}}]}}]}"#;
    fast_and_general(
        &[first, second, third],
        &[
            end_call("r-0", "f\"né", json!({ "q": "a\"bé", "n": [1.5, null, true] })),
            ProviderEvent::Attach {
                key: "thought_signatures".into(),
                value: json!({ "signature": "s", "tool_use_id": "r-0" }),
            },
            end_call("c1", "g", json!({})),
            end_call("r-2", "h", json!({})),
        ],
    );
}

/// `null` where a call's field is expected: a null `name` continues the call streaming, a null
/// `willContinue` ends it, a null `id` is no id, null `args` are the input, null `partialArgs`
/// set nothing. The fast path reads the `args` and `partialArgs` nulls; it leaves the others to
/// the general path, which must read them all the same way.
#[test]
fn nulls_in_a_call_are_read_as_the_general_path_reads_them() {
    let open = parts(json!([{ "functionCall": { "name": "f", "willContinue": true } }]));
    let piece = parts(json!([{ "functionCall": {
        "name": null,
        "partialArgs": [{ "jsonPath": "$.a", "stringValue": "x" }],
        "willContinue": true
    } }]));
    let last = parts(json!([{ "functionCall": { "args": { "ignored": 1 }, "willContinue": null } }]));
    let null_args = parts(json!([{ "functionCall": { "name": "g", "id": null, "args": null, "partialArgs": null } }]));
    let given = parts(json!([{ "functionCall": { "name": "h", "args": null, "partialArgs": null } }]));
    assert!(scan(&given, plain::plain).is_some());
    let expected = [
        ProviderEvent::ToolCallStart { id: "r1-0".into(), name: "f".into() },
        end_call("r1-0", "f", json!({ "a": "x" })),
        end_call("r1-1", "g", Value::Null),
        end_call("r1-2", "h", Value::Null),
    ];
    let frames = [&open, &piece, &last, &null_args, &given].map(String::as_str);
    assert_eq!(decode(&frames), expected);
    let general: Vec<String> = frames.iter().map(|f| format!("[{f}]")).collect();
    assert_eq!(decode(&general.iter().map(String::as_str).collect::<Vec<_>>()), expected);
}

/// Surrogate pairs in a call's name and in its `args` (escaped, and as UTF-8): what the fast path
/// does not decode itself goes to the general path, and each gives the characters.
#[test]
fn surrogate_pairs_in_a_call_reach_its_name_and_input() {
    let escaped = r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f\ud83d\ude00","args":{"s":"\ud83d\ude00"}}}]}}],"responseId":"r"}"#;
    let raw =
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"g😀","args":{"s\ud83d\ude00":"😀"}}}]}}]}"#;
    assert_eq!(
        decode(&[escaped, raw]),
        [end_call("r-0", "f😀", json!({ "s": "😀" })), end_call("r-1", "g😀", json!({ "s😀": "😀" }))]
    );
}

/// A CRLF body of a call (escapes, unknown fields) and its finish, cut at every byte across two
/// pushes: every cut reads as the whole body does.
#[test]
fn a_call_cut_at_every_byte_reads_as_the_whole_body() {
    use crate::event::StreamEvent;
    use crate::stream::{ChatStream, StreamOptions};
    let body = concat!(
        r#"data: {"candidates":[{"content":{"parts":[{"functionCall":{"x":[{}],"args":{"q":"\"}é"},"name":"f\u00e9"},"thoughtSignature":"s"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":9,"thoughtsTokenCount":4},"responseId":"r"}"#,
        "\r\n\r\n",
        r#"data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"responseId":"r"}"#,
        "\r\n\r\n",
    )
    .as_bytes();
    let read = |pieces: &[&[u8]]| {
        let mut stream =
            ChatStream::new(StreamOptions { dialect: Some(super::super::Dialect::Gemini), ..StreamOptions::default() });
        let mut events = Vec::new();
        for piece in pieces {
            stream.push(piece, &mut events);
        }
        stream.finish(&mut events);
        events
    };
    let whole = read(&[body]);
    assert!(
        whole.iter().any(
            |e| matches!(e, StreamEvent::ToolCall { tool_use_id, tool, .. } if tool_use_id == "r-0" && tool == "fé")
        ),
        "{whole:?}"
    );
    for cut in 1..body.len() {
        assert_eq!(read(&[&body[..cut], &body[cut..]]), whole, "cut at {cut}");
    }
}

/// Consecutive responses differ in their text and their running counts: the shape learned from
/// the first reads the others (the counts are holes of it, not bytes of its layout), and each
/// gives its own text and usage.
#[test]
fn responses_with_new_text_and_counts_replay_the_learned_shape() {
    let response = |text: &str, candidates: u32, total: u32| {
        format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"text":"{text}"}}],"role":"model"}},"index":0}}],"usageMetadata":{{"promptTokenCount":9,"candidatesTokenCount":{candidates},"totalTokenCount":{total},"promptTokensDetails":[{{"modality":"TEXT","tokenCount":9}}],"thoughtsTokenCount":185}},"modelVersion":"gemini-3-pro-preview","responseId":"bH6L"}}"#
        )
    };
    let frames = [response("There", 5, 199), response(" are", 23, 217), response(" 3", 1024, 1218)];
    crate::dialect::fuzzing::take_paths();
    let events = decode(&frames.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(crate::dialect::fuzzing::take_paths(), [2, 1], "replayed, scanned");
    let usage = |candidates: u64, total: u64| {
        ProviderEvent::Usage(Usage {
            input_tokens: Some(9),
            output_tokens: Some(candidates + 185),
            reasoning_tokens: Some(185),
            cached_input_tokens: None,
            total_tokens: Some(total),
        })
    };
    assert_eq!(
        events,
        [
            ProviderEvent::Text("There".into()),
            usage(5, 199),
            ProviderEvent::Text(" are".into()),
            usage(23, 217),
            ProviderEvent::Text(" 3".into()),
            usage(1024, 1218),
        ]
    );
}

/// A call's `args` are handed over as JSON text, which a replay would not take: a response with
/// them is not learned, and the next call, of the same shape, gets its own arguments.
#[test]
fn calls_with_other_arguments_each_keep_their_own() {
    let call = |args: &str| {
        format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"functionCall":{{"name":"f","args":{args}}}}}]}}}}],"responseId":"r"}}"#
        )
    };
    let frames = [call(r#"{"a":"x"}"#), call(r#"{"a":"y"}"#)];
    let events = decode(&frames.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(events, [end_call("r-0", "f", json!({ "a": "x" })), end_call("r-1", "f", json!({ "a": "y" }))]);
}

/// A count that is not a whole number a `u64` holds (a fraction, even `1.0`, a negative, one past
/// the largest) is no count on the general path. The fast path takes counts as text and leaves
/// such a response to the general path, also after learning a shape from whole counts.
#[test]
fn counts_that_are_not_whole_numbers_read_as_the_general_path_reads_them() {
    let response = |count: &str| {
        format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"text":"x"}}]}}}}],"usageMetadata":{{"promptTokenCount":{count},"totalTokenCount":7}}}}"#
        )
    };
    let usage = |input| ProviderEvent::Usage(Usage { input_tokens: input, total_tokens: Some(7), ..Usage::default() });
    for count in ["1.0", "1.5", "-1", "-0", "18446744073709551616"] {
        let frames = [response("3"), response(count)];
        let events = decode(&frames.iter().map(String::as_str).collect::<Vec<_>>());
        let x = || ProviderEvent::Text("x".into());
        assert_eq!(events, [x(), usage(Some(3)), x(), usage(None)], "{count}");
    }
}

/// Responses of a few shapes in turn (thinking, text, a thought signature alone) are each
/// replayed by the shape learned from the first of its kind, not learned again at every turn. A
/// response with a finish reason is the last of its stream: it is not learned, and the place it
/// was scanned in is the one the next such response takes, so that it evicts no other shape.
#[test]
fn responses_of_shapes_in_turn_each_replay_their_own() {
    let thinking = r#"{"candidates":[{"content":{"parts":[{"text":"Hm.","thought":true}]}}],"responseId":"r"}"#;
    let text = r#"{"candidates":[{"content":{"parts":[{"text":"Blue."}]}}],"responseId":"r"}"#;
    let signature =
        r#"{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"c2ln"}]}}],"responseId":"r"}"#;
    let last = r#"{"candidates":[{"content":{"parts":[{"text":"!"}]},"finishReason":"STOP"}],"responseId":"r"}"#;
    crate::dialect::fuzzing::take_paths();
    let events = decode(&[thinking, text, signature, last, text, last, signature, thinking]);
    // Scanned: the first of each shape, both last responses, and the thinking whose shape the
    // first last response took the place of.
    assert_eq!(crate::dialect::fuzzing::take_paths(), [2, 6], "replayed, scanned");
    let hm = || ProviderEvent::Thinking("Hm.".into());
    let blue = || ProviderEvent::Text("Blue.".into());
    let sig = || ProviderEvent::Attach { key: "thought_signatures".into(), value: json!({ "signature": "c2ln" }) };
    let bang = || ProviderEvent::Text("!".into());
    let stop = || finish_event("stop");
    assert_eq!(events, [hm(), blue(), sig(), bang(), stop(), blue(), bang(), stop(), sig(), hm(), ProviderEvent::End]);
}
