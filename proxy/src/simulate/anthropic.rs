//! Anthropic Messages (field order as in tests/fixtures/recorded/anthropic/tool-stream.sse, text.sse).

use async_stream::stream;
use futures_util::Stream;

use super::plan::{json_pieces, Answer, Ending};
use super::request::Echo;
use crate::ordered::Json;
use crate::provider::sse;

pub fn frames(echo: Echo, answer: Answer) -> impl Stream<Item = String> + Send {
    stream! {
        let event = |data: Json| sse(data.get("type").and_then(Json::as_str), &data);
        let id = format!("msg_sim_{}", echo.turn);
        yield event(ordered!({"type": "message_start", "message": {
            "id": (id.as_str()), "type": "message", "role": "assistant", "content": [],
            "model": (echo.model.as_str()), "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}));
        let mut index = 0;
        if !answer.thinking.is_empty() {
            // Extended thinking: a `thinking` block of thinking_delta, closed by a signature_delta.
            yield event(ordered!({"type": "content_block_start", "index": index,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""}}));
            for piece in &answer.thinking {
                yield event(ordered!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "thinking_delta", "thinking": (piece.as_str())}}));
            }
            yield event(ordered!({"type": "content_block_delta", "index": index,
                "delta": {"type": "signature_delta", "signature": "c2ltdWxhdGVkLXNpZ25hdHVyZQ=="}}));
            yield event(ordered!({"type": "content_block_stop", "index": index}));
            index += 1;
        }
        yield event(ordered!({"type": "content_block_start", "index": index,
            "content_block": {"type": "text", "text": ""}}));
        yield event(ordered!({"type": "ping"}));
        for piece in &answer.text {
            yield event(ordered!({"type": "content_block_delta", "index": index,
                "delta": {"type": "text_delta", "text": (piece.as_str())}}));
        }
        match &answer.ending {
            Ending::Complete => {
                yield event(ordered!({"type": "content_block_stop", "index": index}));
                if let Some(call) = &answer.tool_call {
                    index += 1;
                    yield event(ordered!({"type": "content_block_start", "index": index,
                        "content_block": {"type": "tool_use", "id": (call.id.as_str()),
                            "name": (call.name.as_str()), "input": {}}}));
                    for piece in json_pieces(&call.arguments) {
                        yield event(ordered!({"type": "content_block_delta", "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": piece}}));
                    }
                    yield event(ordered!({"type": "content_block_stop", "index": index}));
                }
                let stop = if answer.tool_call.is_some() { "tool_use" } else { "end_turn" };
                yield event(ordered!({"type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 20}}));
                yield event(ordered!({"type": "message_stop"}));
            }
            Ending::Error(message) => {
                yield event(ordered!({"type": "error",
                    "error": {"type": "overloaded_error", "message": (message.as_str())}}));
            }
            Ending::Cut => {}
        }
    }
}
