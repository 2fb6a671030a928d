//! The OpenAI Responses API (field order as in
//! tests/fixtures/recorded/openai-responses/reasoning-encrypted-content.sse,
//! multi-tool-ordering.sse, error-insufficient-quota.sse).

use async_stream::stream;
use futures_util::Stream;

use super::plan::{json_pieces, Answer, Ending, CREATED};
use super::request::Echo;
use crate::ordered::Json;
use crate::provider::sse;

pub fn frames(echo: Echo, answer: Answer) -> impl Stream<Item = String> + Send {
    stream! {
        let id = format!("resp_sim_{}", echo.turn);
        let mut sequence = 0u64;
        // Every event: its type, then its sequence number, then its own fields; `event:` repeats the type.
        let mut numbered = |mut data: Json| {
            data.insert(Some(1), "sequence_number", sequence);
            sequence += 1;
            let kind = data.get("type").and_then(Json::as_str).unwrap_or_default().to_string();
            sse(Some(&kind), &data)
        };
        let response = |status: &str, output: Vec<Json>, error: Json| {
            let usage = if status == "completed" {
                ordered!({"input_tokens": 10, "output_tokens": 20, "total_tokens": 30})
            } else {
                ordered!(null)
            };
            ordered!({"id": (id.as_str()), "object": "response", "created_at": CREATED, "status": status,
                "error": error, "incomplete_details": null, "model": (echo.model.as_str()),
                "output": (Json::Array(output)), "usage": usage})
        };
        yield numbered(ordered!({"type": "response.created",
            "response": (response("in_progress", vec![], ordered!(null)))}));
        yield numbered(ordered!({"type": "response.in_progress",
            "response": (response("in_progress", vec![], ordered!(null)))}));
        let mut output = Vec::new();
        if !answer.thinking.is_empty() {
            let item_id = format!("rs_sim_{}", echo.turn);
            let item_id = item_id.as_str();
            let index = output.len();
            let summary = answer.thinking.concat();
            yield numbered(ordered!({"type": "response.output_item.added", "output_index": index,
                "item": {"id": item_id, "type": "reasoning", "summary": []}}));
            yield numbered(ordered!({"type": "response.reasoning_summary_part.added", "item_id": item_id,
                "output_index": index, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}));
            for piece in &answer.thinking {
                yield numbered(ordered!({"type": "response.reasoning_summary_text.delta", "item_id": item_id,
                    "output_index": index, "summary_index": 0, "delta": (piece.as_str())}));
            }
            yield numbered(ordered!({"type": "response.reasoning_summary_text.done", "item_id": item_id,
                "output_index": index, "summary_index": 0, "text": (summary.as_str())}));
            yield numbered(ordered!({"type": "response.reasoning_summary_part.done", "item_id": item_id,
                "output_index": index, "summary_index": 0,
                "part": {"type": "summary_text", "text": (summary.as_str())}}));
            let item = ordered!({"id": item_id, "type": "reasoning",
                "summary": [{"type": "summary_text", "text": (summary.as_str())}]});
            yield numbered(ordered!({"type": "response.output_item.done", "output_index": index,
                "item": (item.clone())}));
            output.push(item);
        }
        let item_id = format!("msg_sim_{}", echo.turn);
        let item_id = item_id.as_str();
        let index = output.len();
        yield numbered(ordered!({"type": "response.output_item.added", "output_index": index,
            "item": {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}}));
        yield numbered(ordered!({"type": "response.content_part.added", "item_id": item_id, "output_index": index,
            "content_index": 0, "part": {"type": "output_text", "annotations": [], "text": ""}}));
        for piece in &answer.text {
            yield numbered(ordered!({"type": "response.output_text.delta", "item_id": item_id,
                "output_index": index, "content_index": 0, "delta": (piece.as_str())}));
        }
        match &answer.ending {
            Ending::Complete => {
                let text = answer.text.concat();
                let part = ordered!({"type": "output_text", "annotations": [], "text": (text.as_str())});
                yield numbered(ordered!({"type": "response.output_text.done", "item_id": item_id,
                    "output_index": index, "content_index": 0, "text": (text.as_str())}));
                yield numbered(ordered!({"type": "response.content_part.done", "item_id": item_id,
                    "output_index": index, "content_index": 0, "part": (part.clone())}));
                let item = ordered!({"id": item_id, "type": "message", "status": "completed", "content": [part],
                    "role": "assistant"});
                yield numbered(ordered!({"type": "response.output_item.done", "output_index": index,
                    "item": (item.clone())}));
                output.push(item);
                if let Some(call) = &answer.tool_call {
                    let index = output.len();
                    let item_id = format!("fc_sim_{}", echo.turn);
                    let item_id = item_id.as_str();
                    let arguments = call.arguments.to_string();
                    let (call_id, name) = (call.id.as_str(), call.name.as_str());
                    yield numbered(ordered!({"type": "response.output_item.added", "output_index": index,
                        "item": {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": "",
                            "call_id": call_id, "name": name}}));
                    for piece in json_pieces(&call.arguments) {
                        yield numbered(ordered!({"type": "response.function_call_arguments.delta",
                            "item_id": item_id, "output_index": index, "delta": piece}));
                    }
                    yield numbered(ordered!({"type": "response.function_call_arguments.done", "item_id": item_id,
                        "output_index": index, "arguments": (arguments.as_str())}));
                    let item = ordered!({"id": item_id, "type": "function_call", "status": "completed",
                        "arguments": (arguments.as_str()), "call_id": call_id, "name": name});
                    yield numbered(ordered!({"type": "response.output_item.done", "output_index": index,
                        "item": (item.clone())}));
                    output.push(item);
                }
                yield numbered(ordered!({"type": "response.completed",
                    "response": (response("completed", output, ordered!(null)))}));
            }
            Ending::Error(message) => {
                // As recorded: an `error` event, then `response.failed`.
                let message = message.as_str();
                yield numbered(ordered!({"type": "error",
                    "error": {"type": "server_error", "code": "server_error", "message": message, "param": null}}));
                let error = ordered!({"code": "server_error", "message": message});
                yield numbered(ordered!({"type": "response.failed",
                    "response": (response("failed", output, error))}));
            }
            Ending::Cut => {}
        }
    }
}
