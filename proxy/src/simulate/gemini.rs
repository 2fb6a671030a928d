//! Gemini's streamGenerateContent?alt=sse, lines ended with CRLF as Gemini ends them (field order as in
//! tests/fixtures/recorded/gemini/text.sse, thinking-stream-crlf.sse).

use async_stream::stream;
use futures_util::Stream;

use super::plan::{Answer, Ending};
use super::request::Echo;
use crate::ordered::Json;

pub fn frames(echo: Echo, answer: Answer) -> impl Stream<Item = String> + Send {
    stream! {
        let frame = |data: Json| format!("data: {data}\r\n\r\n");
        let response_id = format!("sim-{}", echo.turn);
        let chunk = |part: Json, finish: Option<&str>| {
            let mut candidate = ordered!({"content": {"parts": [part], "role": "model"}});
            if let Some(finish) = finish {
                candidate.insert(None, "finishReason", finish);
            }
            candidate.insert(None, "index", 0);
            frame(ordered!({"candidates": [candidate],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 20, "totalTokenCount": 30},
                "modelVersion": (echo.model.as_str()), "responseId": (response_id.as_str())}))
        };
        for piece in &answer.thinking {
            yield chunk(ordered!({"text": (piece.as_str()), "thought": true}), None);
        }
        for piece in &answer.text {
            yield chunk(ordered!({"text": (piece.as_str())}), None);
        }
        match &answer.ending {
            Ending::Complete => {
                // Gemini sends a function call whole, in one part (tests/fixtures/recorded/gemini/tool-call.sse).
                if let Some(call) = &answer.tool_call {
                    let function_call = ordered!({"name": (call.name.as_str()), "args": (call.arguments.clone())});
                    yield chunk(ordered!({"functionCall": function_call}), None);
                }
                yield chunk(ordered!({"text": ""}), Some("STOP"));
            }
            Ending::Error(message) => {
                yield frame(ordered!({"error": {"code": 503, "message": (message.as_str()), "status": "UNAVAILABLE"}}));
            }
            Ending::Cut => {}
        }
    }
}
