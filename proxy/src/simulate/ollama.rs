//! Ollama's /api/chat NDJSON (field order as in tests/fixtures/recorded/ollama/simple-stream.ndjson).

use async_stream::stream;
use futures_util::Stream;

use super::plan::{Answer, Ending};
use super::request::Echo;
use crate::ordered::Json;

pub fn frames(echo: Echo, answer: Answer) -> impl Stream<Item = String> + Send {
    stream! {
        let line = |message: Json, done: bool| {
            let mut data = ordered!({"model": (echo.model.as_str()), "created_at": "2026-01-01T00:00:00Z",
                "message": message, "done": done});
            if done {
                data.insert(None, "done_reason", "stop");
                data.insert(None, "total_duration", 1_000_000);
                data.insert(None, "prompt_eval_count", 10);
                data.insert(None, "eval_count", 20);
            }
            format!("{data}\n")
        };
        for piece in &answer.thinking {
            yield line(ordered!({"role": "assistant", "content": "", "thinking": (piece.as_str())}), false);
        }
        for piece in &answer.text {
            yield line(ordered!({"role": "assistant", "content": (piece.as_str())}), false);
        }
        match &answer.ending {
            Ending::Complete => {
                if let Some(call) = &answer.tool_call {
                    let function = ordered!({"name": (call.name.as_str()), "arguments": (call.arguments.clone())});
                    yield line(
                        ordered!({"role": "assistant", "content": "", "tool_calls": [{"function": function}]}),
                        false,
                    );
                }
                yield line(ordered!({"role": "assistant", "content": ""}), true);
            }
            Ending::Error(message) => {
                yield format!("{}\n", ordered!({"error": (message.as_str())}));
            }
            Ending::Cut => {}
        }
    }
}
