//! OpenAI chat completions, for the openai and compat routes (field order as in
//! tests/fixtures/recorded/openai/openai-text.sse, tool-call-with-finish-reason.sse).

use async_stream::stream;
use futures_util::Stream;

use super::plan::{json_pieces, Answer, Ending, CREATED};
use super::request::Echo;
use crate::ordered::Json;
use crate::provider::sse;

pub fn frames(echo: Echo, answer: Answer) -> impl Stream<Item = String> + Send {
    stream! {
        let id = format!("chatcmpl-sim-{}", echo.turn);
        let chunk = |delta: Json, finish: Json| {
            let choice = ordered!({"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish});
            sse(
                None,
                &ordered!({"id": (id.as_str()), "object": "chat.completion.chunk", "created": CREATED,
                    "model": (echo.model.as_str()), "choices": [choice]}),
            )
        };
        yield chunk(ordered!({"role": "assistant", "content": ""}), ordered!(null));
        // Reasoning as the OpenAI-compatible reasoning models stream it
        // (tests/fixtures/recorded/openai/deepseek-reasoning.sse).
        for piece in &answer.thinking {
            yield chunk(ordered!({"content": null, "reasoning_content": (piece.as_str())}), ordered!(null));
        }
        for piece in &answer.text {
            yield chunk(ordered!({"content": (piece.as_str())}), ordered!(null));
        }
        if let Some(call) = &answer.tool_call {
            let function = ordered!({"name": (call.name.as_str()), "arguments": ""});
            let tool_call = ordered!({"index": 0, "id": (call.id.as_str()), "type": "function", "function": function});
            yield chunk(ordered!({"tool_calls": [tool_call]}), ordered!(null));
            for piece in json_pieces(&call.arguments) {
                yield chunk(ordered!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}), ordered!(null));
            }
        }
        match &answer.ending {
            Ending::Complete => {
                let finish = if answer.tool_call.is_some() { "tool_calls" } else { "stop" };
                yield chunk(ordered!({}), ordered!(finish));
                yield "data: [DONE]\n\n".to_string();
            }
            Ending::Error(message) => {
                yield sse(
                    None,
                    &ordered!({"error": {"message": (message.as_str()), "type": "server_error", "param": null,
                        "code": null}}),
                );
            }
            Ending::Cut => {}
        }
    }
}
