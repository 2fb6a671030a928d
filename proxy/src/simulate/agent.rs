//! The agent protocol of `/api/chat/stream` (docs/agent-protocol.md: status, text_delta, tool_start,
//! tool_progress, tool_complete, complete, error).

use async_stream::stream;
use futures_util::Stream;

use super::plan::{Answer, Ending};
use super::request::Echo;
use crate::ordered::Json;
use crate::provider::{agent_error, sse};

pub fn frames(echo: Echo, answer: Answer) -> impl Stream<Item = String> + Send {
    stream! {
        let event = |data: Json| sse(None, &data);
        yield event(ordered!({"type": "status", "message": "Thinking..."}));
        for piece in &answer.thinking {
            yield event(ordered!({"type": "thinking_delta", "text": (piece.as_str())}));
        }
        for piece in &answer.text {
            yield event(ordered!({"type": "text_delta", "text": (piece.as_str())}));
        }
        let mut tool_history = Vec::new();
        if let Some(tool) = &answer.agent_tool {
            let (name, input) = (tool.name.as_str(), tool.arguments.clone());
            yield event(ordered!({"type": "tool_start", "tool": name, "input": (input.clone()),
                "tool_use_id": (tool.id.as_str())}));
            for (stage, message, progress) in
                [("searching", "Searching articles...", 0.5), ("ranking", "Found 3 articles", 0.9)]
            {
                yield event(ordered!({"type": "tool_progress", "tool": name, "stage": stage, "message": message,
                    "progress": progress, "data": null}));
            }
            yield event(ordered!({"type": "tool_complete", "tool": name, "index": 0}));
            tool_history.push(ordered!({"tool_name": name, "input": input,
                "output": "Found 3 articles: Simulated article one; Simulated article two; Simulated article three."}));
        }
        for piece in &answer.after_tool {
            yield event(ordered!({"type": "text_delta", "text": (piece.as_str())}));
        }
        match &answer.ending {
            Ending::Complete => {
                let tool_history = Json::Array(tool_history);
                yield event(ordered!({"type": "complete", "payload": {
                    "message": (answer.full_text()),
                    "suggested_values": [{"label": "Tell me more", "value": "Tell me more about the first article"},
                                         {"label": "Search again", "value": "Search for something else"}],
                    "suggested_actions": [{"label": "Close Chat", "action": "close_chat", "handler": "client",
                                           "style": "secondary"}],
                    "custom_payload": {"type": "tool_history", "data": (tool_history.clone())},
                    "tool_history": tool_history,
                    "conversation_id": (echo.conversation_id.clone()),
                }}));
            }
            Ending::Error(message) => yield event(agent_error(503, message)),
            Ending::Cut => {}
        }
    }
}
