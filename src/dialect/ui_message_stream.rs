//! The Vercel AI SDK UI message stream, v5 and later (`x-vercel-ai-ui-message-stream: v1`):
//! SSE `data: {json}` chunks ending with `data: [DONE]`. Chunk types and fields follow the SDK's
//! `uiMessageChunkSchema` (packages/ai/src/ui-message-stream/ui-message-chunks.ts):
//!
//! - `start` (`messageId`, `messageMetadata`), `message-metadata`, and `finish` (`finishReason`,
//!   `messageMetadata`). The SDK merges metadata deeply; so does this decoder, and the merged
//!   object goes to `complete.payload.metadata`, the id to `message_id`.
//! - `text-start` / `text-delta` (`delta`) / `text-end` by `id`, the same for `reasoning-*`.
//! - `tool-input-start` (`toolCallId`, `toolName`), `tool-input-delta` (`inputTextDelta`),
//!   `tool-input-available` (`input`), `tool-input-error` (`input`, `errorText`), then the results
//!   of calls the server ran: `tool-output-available` (`output`; `preliminary` outputs are
//!   progress), `tool-output-error` (`errorText`), `tool-output-denied`, and
//!   `tool-approval-request` (`approvalId`, `toolCallId`), attached to `approvals`.
//! - `source-url`, `source-document` (attached to `sources`), `file` (to `files`), `data-*`
//!   (to `data`, transient ones too, marked `"transient": true` as sent).
//! - `start-step`, `finish-step` (text and reasoning ids close, as in the SDK's reader),
//!   `abort` (the request was cancelled), `error` (`errorText`: the server gave up).
//!
//! `finish` is terminal, and `[DONE]` when no `finish` came. An older variant says
//! `message-start`, `textId` and `tool-input-delta`'s `delta`; both spellings are read.
//!
//! A delta for an id that never started (or already ended) breaks the protocol: it gives one
//! non-fatal error per id, and its text is kept, since dropping what the user was meant to
//! read helps nobody. Unknown chunk types and fields are skipped, as the SDK adds some.
//!
//! ```
//! use chatstream::dialect::{DialectDecoder, ProviderEvent, ProviderEvents, UiMessageStreamDecoder};
//! use chatstream::framing::FrameRef;
//! let mut decoder = UiMessageStreamDecoder::default();
//! let mut out = ProviderEvents::default();
//! decoder.decode(FrameRef::data(r#"{"type":"text-start","id":"t1"}"#), &mut out);
//! decoder.decode(FrameRef::data(r#"{"type":"text-delta","id":"t1","delta":"Hi"}"#), &mut out);
//! assert_eq!(out.as_slice(), [ProviderEvent::Text("Hi".into())]);
//! ```

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::scan::{Reader, Shape, Taken};
use super::{text, DialectDecoder, ProviderEvent, ProviderEvents, TextEvent, ToolNames};
use crate::error::ErrorCode;
use crate::event::FinishReason;
use crate::framing::FrameRef;

/// Reads the AI SDK UI message stream.
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub struct UiMessageStreamDecoder {
    /// The parts started and not yet ended: by id, which kinds ([`TEXT`], [`REASONING`]) are
    /// open. A `usize` of bits rather than two sets: `HashMap<String, usize>` is the map the
    /// other stages use, so its code is in the module once (a set of strings was another copy).
    open: HashMap<String, usize>,
    /// Tool names by `toolCallId`: output chunks carry only the id.
    tool_names: ToolNames,
    /// `messageMetadata` merged over `start`, `message-metadata` and `finish`.
    metadata: Map<String, Value>,
    /// The shape of the last text delta.
    text_deltas: Shape<&'static str, 3>,
}

impl DialectDecoder for UiMessageStreamDecoder {
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        let data = frame.data.trim();
        if data.is_empty() {
            return;
        }
        if data == "[DONE]" {
            return out.push(ProviderEvent::End);
        }
        if let Some((kind, [Some(id), Some(delta), _])) = self.text_deltas.read(data, text_delta) {
            let (part, push): (_, TextEvent) = match kind {
                "text-delta" => (TEXT, |out, text| out.text(text)),
                _ => (REASONING, |out, text| out.thinking(text)),
            };
            opened(&mut self.open, &id, part, kind, out);
            return push(out, &delta);
        }
        self.decode_value(data, out);
    }
}

impl UiMessageStreamDecoder {
    /// Any chunk, read as a `Value` (the general path).
    pub(super) fn decode_value(&mut self, data: &str, out: &mut ProviderEvents) {
        let chunk: Value = match crate::json::parse(data) {
            Ok(chunk) => chunk,
            Err(err) => return out.push(ProviderEvent::unreadable(err)),
        };
        let Some(kind) = chunk.get("type").and_then(Value::as_str) else {
            return out.push(ProviderEvent::unreadable("a UI message chunk without a \"type\""));
        };
        let text = |key: &str| text(&chunk, key);
        let tool_id = || text("toolCallId").unwrap_or_default();
        match kind {
            "start" | "message-start" => {
                if let Some(id) = text("messageId") {
                    out.push(ProviderEvent::payload("message_id", Value::String(id)));
                }
                self.merge_metadata(&chunk, out);
            }
            "message-metadata" => self.merge_metadata(&chunk, out),
            "text-start" => start(&mut self.open, part_id(&chunk), TEXT),
            "text-end" => end(&mut self.open, &part_id(&chunk), TEXT),
            "text-delta" => {
                opened(&mut self.open, &part_id(&chunk), TEXT, kind, out);
                out.extend(text("delta").filter(|d| !d.is_empty()).map(ProviderEvent::Text));
            }
            "reasoning-start" => start(&mut self.open, part_id(&chunk), REASONING),
            "reasoning-end" => end(&mut self.open, &part_id(&chunk), REASONING),
            "reasoning-delta" => {
                opened(&mut self.open, &part_id(&chunk), REASONING, kind, out);
                out.extend(text("delta").filter(|d| !d.is_empty()).map(ProviderEvent::Thinking));
            }
            "tool-input-start" => {
                let (id, name) = (tool_id(), text("toolName").unwrap_or_default());
                self.tool_names.set(&id, name.clone());
                out.push(ProviderEvent::ToolCallStart { id, name });
            }
            "tool-input-delta" => {
                let id = tool_id();
                if self.tool_names.get(&id).is_none() {
                    self.tool_names.set(&id, String::new());
                    out.push(not_started(kind, &id));
                }
                let delta = text("inputTextDelta").or_else(|| text("delta")).unwrap_or_default();
                out.push(ProviderEvent::ToolCallDelta { id, delta });
            }
            "tool-input-available" | "tool-input-error" => {
                let id = tool_id();
                let name = text("toolName");
                if let Some(name) = &name {
                    self.tool_names.set(&id, name.clone());
                }
                let input = chunk.get("input").cloned().unwrap_or(Value::Null);
                out.push(ProviderEvent::ToolCallEnd { id: id.clone(), name, input: Some(input) });
                if kind == "tool-input-error" {
                    out.push(self.result(id, json!(text("errorText")), true));
                }
            }
            "tool-output-available" if chunk.get("preliminary") == Some(&Value::Bool(true)) => {
                let id = tool_id();
                out.push(ProviderEvent::ToolProgress {
                    name: self.tool_names.get(&id).unwrap_or_default().to_owned(),
                    id: Some(id),
                    stage: None,
                    message: None,
                    progress: None,
                    data: chunk.get("output").cloned().unwrap_or(Value::Null),
                });
            }
            "tool-output-available" => {
                out.push(self.result(tool_id(), chunk.get("output").cloned().unwrap_or(Value::Null), false))
            }
            "tool-output-error" => out.push(self.result(tool_id(), json!(text("errorText")), true)),
            // The user (or the app) refused to run the call: it has no output.
            "tool-output-denied" => out.push(self.result(tool_id(), json!("The tool call was denied."), true)),
            "tool-approval-request" => out.push(ProviderEvent::attach("approvals", without_type(&chunk))),
            "source-url" | "source-document" => out.push(ProviderEvent::attach("sources", chunk.clone())),
            "file" => out.push(ProviderEvent::attach("files", without_type(&chunk))),
            _ if kind.starts_with("data-") => out.push(ProviderEvent::Data(chunk.clone())),
            // The SDK's reader forgets the open text and reasoning parts at a step's end.
            "finish-step" => {
                self.open.clear();
            }
            "finish" => {
                self.merge_metadata(&chunk, out);
                if let Some(reason) = chunk.get("finishReason").and_then(Value::as_str) {
                    out.push(ProviderEvent::Finish { reason: FinishReason::from_ai_sdk(reason) });
                }
                out.push(ProviderEvent::End);
            }
            "abort" => out.push(ProviderEvent::Cancelled),
            "error" => {
                // Some services send `{"type":"error","error":"…"}`.
                let message = text("errorText").or_else(|| text("error"));
                let code = ErrorCode::from_message(message.as_deref().unwrap_or_default());
                out.push(ProviderEvent::provider_error(code, message.as_deref()));
            }
            _ => {}
        }
    }
}

impl UiMessageStreamDecoder {
    fn result(&self, id: String, output: Value, is_error: bool) -> ProviderEvent {
        let name = self.tool_names.get(&id).filter(|n| !n.is_empty()).map(str::to_owned);
        ProviderEvent::ToolResult { id: Some(id), name, index: None, output, is_error }
    }

    /// Merges the chunk's `messageMetadata` into what came before (objects key by key, deeply,
    /// as the SDK's `mergeObjects`) and sends the whole merged object.
    fn merge_metadata(&mut self, chunk: &Value, out: &mut ProviderEvents) {
        let Some(Value::Object(fresh)) = chunk.get("messageMetadata") else { return };
        merge(&mut self.metadata, fresh);
        out.push(ProviderEvent::payload("metadata", Value::Object(self.metadata.clone())));
    }
}

fn merge(into: &mut Map<String, Value>, from: &Map<String, Value>) {
    for (key, value) in from {
        match (into.get_mut(key), value) {
            (Some(Value::Object(old)), Value::Object(new)) => merge(old, new),
            _ => _ = into.insert(key.clone(), value.clone()),
        }
    }
}

/// A text or reasoning part's id: `id`, or the older `textId`.
fn part_id(chunk: &Value) -> String {
    chunk.get("id").or_else(|| chunk.get("textId")).and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// The kinds of part in [`UiMessageStreamDecoder::open`], one bit each.
const TEXT: usize = 1;
const REASONING: usize = 2;

/// A part of kind `part` opens under `id`.
fn start(open: &mut HashMap<String, usize>, id: String, part: usize) {
    *open.entry(id).or_default() |= part;
}

/// A part of kind `part` ends under `id`; an id with no part open is forgotten.
fn end(open: &mut HashMap<String, usize>, id: &str, part: usize) {
    if let Some(parts) = open.get_mut(id) {
        *parts &= !part;
        if *parts == 0 {
            open.remove(id);
        }
    }
}

/// Reports a delta for a part that is not open (never started, or already ended), once: the part
/// counts as open afterwards.
fn opened(open: &mut HashMap<String, usize>, id: &str, part: usize, kind: &str, out: &mut ProviderEvents) {
    if open.get(id).is_some_and(|parts| parts & part != 0) {
        return;
    }
    out.push(not_started(kind, id));
    start(open, id.to_owned(), part);
}

/// A `text-delta` or `reasoning-delta` with a string `id` and `delta` (taken in slots 0 and 1),
/// read by the checking scanner without building a `Value` (nearly every chunk of a long answer;
/// see [`super::scan`]). `Some` exactly when the general path would read `data` as such a
/// delta; `None` for anything else (the older `textId` spelling included).
pub(super) fn text_delta<'a>(r: &mut Reader<'a>) -> Option<(&'static str, Taken<'a, 3>)> {
    const KINDS: [&str; 2] = ["text-delta", "reasoning-delta"];
    let (kind, [id, delta, text_id]) =
        r.kind_and_strings(b"type", &|kind| KINDS.contains(&kind), [b"id", b"delta", b"textId"])?;
    let kind = KINDS.into_iter().find(|k| Some(*k) == kind.as_deref())?;
    (text_id.is_none() && id.is_some() && delta.is_some()).then_some(())?;
    Some((kind, [id, delta, None]))
}

fn not_started(kind: &str, id: &str) -> ProviderEvent {
    ProviderEvent::Error {
        code: ErrorCode::ServiceUnavailable,
        message: format!(
            "Protocol error: {kind} for \"{id}\" without a {}start first",
            kind.strip_suffix("delta").unwrap_or(kind)
        ),
        fatal: false,
    }
}

fn without_type(chunk: &Value) -> Value {
    let mut value = chunk.clone();
    if let Value::Object(fields) = &mut value {
        fields.remove("type");
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::test_support::payload;

    /// The open parts kept as two sets of ids (text, reasoning) keep them, over starts, ends,
    /// deltas and step ends in a pseudo-random order: the same deltas are reported as not started.
    #[test]
    fn open_parts_are_two_sets_of_ids() {
        use std::collections::HashSet;
        let mut open = HashMap::new();
        let mut sets = [HashSet::<String>::new(), HashSet::new()];
        let mut seed = 11u32;
        for step in 0..3000 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let id = format!("p{}", (seed >> 16) % 8);
            let which = (seed >> 8) as usize % 2;
            let part = [TEXT, REASONING][which];
            match seed % 7 {
                0 | 1 => {
                    start(&mut open, id.clone(), part);
                    sets[which].insert(id.clone());
                }
                2 | 3 => {
                    end(&mut open, &id, part);
                    sets[which].remove(&id);
                }
                4 => {
                    open.clear();
                    sets.iter_mut().for_each(HashSet::clear);
                }
                _ => {
                    let mut out = ProviderEvents::default();
                    opened(&mut open, &id, part, "text-delta", &mut out);
                    let reported = !sets[which].contains(&id);
                    sets[which].insert(id.clone());
                    assert_eq!(out.as_slice().len(), usize::from(reported), "{id} at step {step}");
                }
            }
            for (which, part) in [(0, TEXT), (1, REASONING)] {
                let bit = open.get(&id).is_some_and(|parts| parts & part != 0);
                assert_eq!(bit, sets[which].contains(&id), "{id} at step {step}");
            }
            assert!(open.values().all(|parts| *parts != 0), "no id is kept with nothing open");
        }
    }

    fn decode(frames: &[&str]) -> Vec<ProviderEvent> {
        crate::dialect::test_support::decode::<UiMessageStreamDecoder>(frames)
    }

    #[test]
    fn the_text_id_variant_with_a_tool_call() {
        let events = decode(&[
            r#"{"type":"message-start","messageId":"msg-001"}"#,
            r#"{"type":"text-start","textId":"t-001"}"#,
            r#"{"type":"text-delta","textId":"t-001","delta":"Let me query the data."}"#,
            r#"{"type":"text-end","textId":"t-001"}"#,
            r#"{"type":"start-step"}"#,
            r#"{"type":"tool-input-start","toolCallId":"tc-001","toolName":"execute_python"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"tc-001","delta":"{\"code\":\"1\"}"}"#,
            r#"{"type":"tool-input-available","toolCallId":"tc-001","input":{"code":"1"}}"#,
            r#"{"type":"tool-output-available","toolCallId":"tc-001","output":{"stdout":"1","exitCode":0}}"#,
            r#"{"type":"finish-step"}"#,
            r#"{"type":"finish"}"#,
            "[DONE]",
        ]);
        assert_eq!(
            events,
            [
                payload("message_id", json!("msg-001")),
                ProviderEvent::Text("Let me query the data.".into()),
                ProviderEvent::ToolCallStart { id: "tc-001".into(), name: "execute_python".into() },
                ProviderEvent::ToolCallDelta { id: "tc-001".into(), delta: r#"{"code":"1"}"#.into() },
                ProviderEvent::ToolCallEnd { id: "tc-001".into(), name: None, input: Some(json!({"code": "1"})) },
                ProviderEvent::ToolResult {
                    id: Some("tc-001".into()),
                    name: Some("execute_python".into()),
                    index: None,
                    output: json!({"stdout": "1", "exitCode": 0}),
                    is_error: false,
                },
                ProviderEvent::End,
            ]
        );
    }

    #[test]
    fn v5_chunks_reasoning_sources_files_data_and_finish() {
        let events = decode(&[
            r#"{"type":"start","messageId":"m1","messageMetadata":{"model":"gpt-5","usage":{"in":3}}}"#,
            r#"{"type":"reasoning-start","id":"r1"}"#,
            r#"{"type":"reasoning-delta","id":"r1","delta":"hmm","providerMetadata":{"x":{}}}"#,
            r#"{"type":"reasoning-end","id":"r1"}"#,
            r#"{"type":"source-url","sourceId":"s1","url":"https://a.example","title":"A"}"#,
            r#"{"type":"file","url":"data:image/png;base64,AA==","mediaType":"image/png"}"#,
            r#"{"type":"data-weather","id":"w1","data":{"city":"Oslo"},"transient":true}"#,
            r#"{"type":"message-metadata","messageMetadata":{"usage":{"out":5}}}"#,
            r#"{"type":"finish","finishReason":"tool-calls"}"#,
            r#"{"type":"text-delta","id":"late","delta":"after the end"}"#,
        ]);
        assert_eq!(
            events,
            [
                payload("message_id", json!("m1")),
                payload("metadata", json!({"model": "gpt-5", "usage": {"in": 3}})),
                ProviderEvent::Thinking("hmm".into()),
                ProviderEvent::attach(
                    "sources",
                    json!({"type": "source-url", "sourceId": "s1", "url": "https://a.example", "title": "A"})
                ),
                ProviderEvent::attach("files", json!({"url": "data:image/png;base64,AA==", "mediaType": "image/png"})),
                ProviderEvent::Data(
                    json!({"type": "data-weather", "id": "w1", "data": {"city": "Oslo"}, "transient": true})
                ),
                payload("metadata", json!({"model": "gpt-5", "usage": {"in": 3, "out": 5}})),
                ProviderEvent::Finish { reason: "tool_calls".into() },
                ProviderEvent::End,
            ]
        );
    }

    #[test]
    fn tool_errors_denials_approvals_and_preliminary_output() {
        let events = decode(&[
            r#"{"type":"tool-input-start","toolCallId":"a","toolName":"run"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"a","inputTextDelta":"{\"x\""}"#,
            r#"{"type":"tool-input-error","toolCallId":"a","toolName":"run","input":"{\"x\"","errorText":"bad JSON"}"#,
            r#"{"type":"tool-input-available","toolCallId":"b","toolName":"pay","input":{}}"#,
            r#"{"type":"tool-approval-request","approvalId":"ap1","toolCallId":"b"}"#,
            r#"{"type":"tool-output-denied","toolCallId":"b"}"#,
            r#"{"type":"tool-input-available","toolCallId":"c","toolName":"scan","input":{},"providerExecuted":true}"#,
            r#"{"type":"tool-output-available","toolCallId":"c","output":{"done":1},"preliminary":true}"#,
            r#"{"type":"tool-output-error","toolCallId":"c","errorText":"timeout"}"#,
        ]);
        let result = |id: &str, name: &str, output: Value| ProviderEvent::ToolResult {
            id: Some(id.into()),
            name: Some(name.into()),
            index: None,
            output,
            is_error: true,
        };
        assert_eq!(
            events,
            [
                ProviderEvent::ToolCallStart { id: "a".into(), name: "run".into() },
                ProviderEvent::ToolCallDelta { id: "a".into(), delta: r#"{"x""#.into() },
                ProviderEvent::ToolCallEnd { id: "a".into(), name: Some("run".into()), input: Some(json!(r#"{"x""#)) },
                result("a", "run", json!("bad JSON")),
                ProviderEvent::ToolCallEnd { id: "b".into(), name: Some("pay".into()), input: Some(json!({})) },
                ProviderEvent::attach("approvals", json!({"approvalId": "ap1", "toolCallId": "b"})),
                result("b", "pay", json!("The tool call was denied.")),
                ProviderEvent::ToolCallEnd { id: "c".into(), name: Some("scan".into()), input: Some(json!({})) },
                ProviderEvent::ToolProgress {
                    id: Some("c".into()),
                    name: "scan".into(),
                    stage: None,
                    message: None,
                    progress: None,
                    data: json!({"done": 1}),
                },
                result("c", "scan", json!("timeout")),
            ]
        );
    }

    #[test]
    fn a_delta_for_an_id_that_never_started_is_reported_once_and_kept() {
        let events = decode(&[
            r#"{"type":"text-start","id":"t1"}"#,
            r#"{"type":"text-delta","id":"t2","delta":"A"}"#,
            r#"{"type":"text-delta","id":"t2","delta":"B"}"#,
            r#"{"type":"reasoning-delta","id":"r9","delta":"R"}"#,
            r#"{"type":"tool-input-delta","toolCallId":"x","inputTextDelta":"{}"}"#,
        ]);
        assert_eq!(events.len(), 7, "{events:?}");
        assert!(
            matches!(&events[0], ProviderEvent::Error { fatal: false, message, .. } if message.contains("text-delta") && message.contains("t2"))
        );
        assert_eq!(events[1..3], [ProviderEvent::Text("A".into()), ProviderEvent::Text("B".into())]);
        assert!(matches!(&events[3], ProviderEvent::Error { fatal: false, message, .. } if message.contains("r9")));
        assert_eq!(events[4], ProviderEvent::Thinking("R".into()));
        assert!(matches!(&events[5], ProviderEvent::Error { fatal: false, message, .. } if message.contains("\"x\"")));
        assert_eq!(events[6], ProviderEvent::ToolCallDelta { id: "x".into(), delta: "{}".into() });
        // The stream never finished: no End.
        assert!(!events.contains(&ProviderEvent::End));
    }

    #[test]
    fn errors_aborts_done_and_unreadable_chunks() {
        let events = decode(&[
            "{broken",
            r#"{"id":"no type"}"#,
            r#"{"type":"some-future-chunk","x":1}"#,
            r#"{"type":"error","errorText":"Rate limit reached"}"#,
        ]);
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(matches!(&events[0], ProviderEvent::Error { fatal: false, .. }));
        assert!(matches!(&events[1], ProviderEvent::Error { fatal: false, .. }));
        assert_eq!(
            events[2],
            ProviderEvent::Error {
                code: ErrorCode::RateLimited,
                message: "Rate limited, try again".into(),
                fatal: true
            }
        );

        let string_error = decode(&[r#"{"type":"error","error":"LLM API error: boom"}"#]);
        assert!(
            matches!(&string_error[..], [ProviderEvent::Error { fatal: true, message, .. }] if message == "LLM API error: boom")
        );
        assert_eq!(decode(&[r#"{"type":"abort","reason":"user"}"#, "[DONE]"]), [ProviderEvent::Cancelled]);
        assert_eq!(decode(&[r#"{"type":"text-start","id":"t"}"#, "[DONE]"]), [ProviderEvent::End]);
    }
}
