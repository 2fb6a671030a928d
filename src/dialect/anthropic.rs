//! The Anthropic Messages API stream (docs.anthropic.com, "Streaming Messages").
//!
//! "Each stream uses the following event flow: `message_start`; a series of content blocks, each of
//! which has a `content_block_start`, one or more `content_block_delta` events, and a
//! `content_block_stop`; one or more `message_delta` events; a final `message_stop`. There may be
//! `ping` events dispersed throughout, and occasional `error` events." The event's JSON carries its
//! own `type`, so the SSE `event` field is only a fallback.
//!
//! What does not fit the text / thinking / tool events goes to `complete.payload`:
//! - `citations`: each citation as sent (`citations_delta`, or a text block that starts with them);
//! - `thinking_blocks`: each thinking block in the shape a follow-up request must send back
//!   (`{"type":"thinking","thinking","signature"}`, `{"type":"redacted_thinking","data"}`): the API
//!   rejects a tool-use turn whose thinking blocks come back altered;
//! - `stop_details`: `message_delta`'s explanation of a stop (the category of a refusal).
//!
//! Server tools (`server_tool_use`, `mcp_tool_use`) run on Anthropic's side, not in the browser:
//! they become [`ProviderEvent::ToolRun`] once their input is complete, and the `*_tool_result`
//! block that follows becomes [`ProviderEvent::ToolResult`].
//!
//! ```
//! use chatstream::dialect::{AnthropicDecoder, DialectDecoder, ProviderEvent, ProviderEvents};
//! use chatstream::framing::FrameRef;
//! let mut decoder = AnthropicDecoder::default();
//! let mut out = ProviderEvents::default();
//! let delta = r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#;
//! decoder.decode(FrameRef::data(delta), &mut out);
//! assert_eq!(out.as_slice(), [ProviderEvent::Text("Hi".into())]);
//! ```

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{json, Value};

use super::scan::{scan, Reader, Seen, Shape, Taken};
use super::{text, DialectDecoder, ProviderEvent, ProviderEvents};
use crate::error::ErrorCode;
use crate::event::{FinishReason, Usage};
use crate::framing::FrameRef;

/// Reads the Anthropic Messages stream.
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
pub struct AnthropicDecoder {
    /// The id of the message being streamed, between its `message_start` and `message_stop`.
    open_message: Option<String>,
    /// Content blocks by their `index`, from `content_block_start` to `content_block_stop`.
    blocks: Blocks,
    /// Input tokens (cache reads and writes included) from `message_start`, for the total.
    input_tokens: Option<u64>,
    /// The shape of the last text delta.
    text_deltas: Shape<(u64, TextKind), 4>,
}

/// The content blocks by their `index`. The one that started last is kept apart from the others:
/// nearly every delta is for it (a message's blocks stream one after another), found by comparing
/// its index, where hashing the index (SipHash) for every delta cost 1.8% of a live push of a
/// tool-argument delta (callgrind on Node, tool-stream: 15,795 -> 15,503 instructions an event).
#[derive(Debug, Default)]
#[cfg_attr(test, derive(PartialEq))]
struct Blocks {
    last: Option<(u64, Block)>,
    /// The others, in no order; never one with `last`'s index.
    others: Vec<(u64, Block)>,
    /// Where each of `others` is, by its index's decimal text: a `HashMap<String, usize>` is the
    /// map every other stage uses, and a map of blocks by `u64` was another copy of the map's code
    /// in the module. A map, not a search: a hostile stream may leave thousands of blocks open.
    places: HashMap<String, usize>,
}

impl Blocks {
    /// Starts the block at `index`, in place of one that had it.
    fn insert(&mut self, index: u64, block: Block) {
        if let Some((last, old)) = self.last.replace((index, block)) {
            if last != index {
                self.remove_other(last);
                self.places.insert(itoa::Buffer::new().format(last).to_owned(), self.others.len());
                self.others.push((last, old));
            }
        }
        self.remove_other(index);
    }

    fn get_mut(&mut self, index: u64) -> Option<&mut Block> {
        match &mut self.last {
            Some((last, block)) if *last == index => Some(block),
            _ => {
                let at = *self.places.get(itoa::Buffer::new().format(index))?;
                self.others.get_mut(at).map(|(_, block)| block)
            }
        }
    }

    fn remove(&mut self, index: u64) -> Option<Block> {
        match self.last.take() {
            Some((last, block)) if last == index => Some(block),
            last => {
                self.last = last;
                self.remove_other(index)
            }
        }
    }

    /// Takes the block at `index` out of `others`; the last of them takes its place.
    fn remove_other(&mut self, index: u64) -> Option<Block> {
        let at = self.places.remove(itoa::Buffer::new().format(index))?;
        if at >= self.others.len() {
            return None;
        }
        let (_, block) = self.others.swap_remove(at);
        if let Some((moved, _)) = self.others.get(at) {
            self.places.insert(itoa::Buffer::new().format(*moved).to_owned(), at);
        }
        Some(block)
    }
}

#[derive(Debug, PartialEq)]
enum Block {
    Text,
    Thinking {
        thinking: String,
        signature: String,
    },
    /// A client tool: the browser runs it. `streamed` once a non-empty `input_json_delta` arrived.
    ToolUse {
        id: String,
        name: String,
        start_input: Value,
        streamed: bool,
    },
    /// A tool Anthropic runs itself; its input is held until the block stops.
    ServerTool {
        id: String,
        name: String,
        start_input: Value,
        json: String,
    },
    Other,
}

impl DialectDecoder for AnthropicDecoder {
    fn decode(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        // A frame its SSE event names as another kind is not tried as a text delta: trying was a
        // tenth of decoding a short answer's frames (callgrind, natively). Its `type` still
        // decides: a delta under another event name is read by the general path.
        if frame.event.map_or(true, |event| event == "content_block_delta") {
            if let Some(((index, kind), mut texts)) = self.text_deltas.read(frame.data, text_delta) {
                let text = texts[kind as usize].take().unwrap_or_default();
                return self.block_text(Some(index), kind, text, out);
            }
        }
        self.decode_not_text(frame, out);
    }
}

impl AnthropicDecoder {
    /// Every frame but a text delta: those around the content by the checking scanner, the rest as a
    /// `Value`. Kept out of `decode`, which runs for every delta: inlined there, they made it a
    /// function so large that the engine's optimizing compiler, when a long answer made it hot,
    /// held megabytes while compiling it (`bench-js/memory.js`); these frames come a few times an
    /// answer and are never hot.
    #[inline(never)]
    fn decode_not_text(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        if let Some((envelope, [id, stop_reason])) = scan(frame.data, envelope) {
            return match envelope {
                Envelope::Nothing => {}
                Envelope::MessageStart(usage) => self.message_start(id.as_deref().unwrap_or_default(), usage, out),
                Envelope::MessageDelta { stop_details, usage } => {
                    self.message_delta(stop_reason.as_deref(), stop_details, usage, out)
                }
                Envelope::BlockStop(index) => self.block_stop(index, out),
                Envelope::MessageStop => out.push(ProviderEvent::End),
            };
        }
        self.decode_value(frame, out);
    }

    /// Any frame, read as a `Value` (the general path).
    pub(super) fn decode_value(&mut self, frame: FrameRef<'_>, out: &mut ProviderEvents) {
        let value: Value = match crate::json::parse(frame.data) {
            Ok(value) => value,
            Err(err) => return out.push(ProviderEvent::unreadable(err)),
        };
        let kind = value.get("type").and_then(Value::as_str).or(frame.event).unwrap_or("");
        let index = value.get("index").and_then(Value::as_u64);
        match kind {
            "message_start" => {
                let message = &value["message"];
                let id = message.get("id").and_then(Value::as_str).unwrap_or("");
                self.message_start(id, read_usage(&message["usage"]), out)
            }
            "content_block_start" => self.block_start(index, &value["content_block"], out),
            "content_block_delta" => self.block_delta(index, &value["delta"], out),
            "content_block_stop" => self.block_stop(index, out),
            "message_delta" => {
                let delta = &value["delta"];
                let details = delta.get("stop_details").filter(|d| !d.is_null()).cloned();
                let usage = value.get("usage").filter(|u| u.is_object()).map(read_usage);
                self.message_delta(delta.get("stop_reason").and_then(Value::as_str), details, usage, out)
            }
            "message_stop" => out.push(ProviderEvent::End),
            "error" => out.push(error_event(&value["error"])),
            // `ping`, and event types added after this was written ("handle unknown event types gracefully").
            _ => {}
        }
    }

    /// A repeated `message_start` for the same message is a harmless resend; a different message
    /// while one is open would mix two answers into one, so the stream is refused there.
    fn message_start(&mut self, id: &str, usage: Usage, out: &mut ProviderEvents) {
        match &self.open_message {
            Some(open) if *open == id => return,
            Some(open) => {
                return out.push(ProviderEvent::Error {
                    code: ErrorCode::ServiceUnavailable,
                    message: format!(
                        "Failed to parse response: message {id} started while message {open} was still streaming"
                    ),
                    fatal: true,
                });
            }
            None => self.open_message = Some(id.to_owned()),
        }
        self.input_tokens = usage.input_tokens;
        if usage.input_tokens.is_some() {
            // `output_tokens` here is a placeholder count; `message_delta` reports the real one.
            out.push(ProviderEvent::Usage(Usage { output_tokens: None, ..usage }));
        }
    }

    fn block_start(&mut self, index: Option<u64>, block: &Value, out: &mut ProviderEvents) {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let text = |key: &str| text(block, key).unwrap_or_default();
        let state = match kind {
            "text" => {
                let text = text("text");
                if !text.is_empty() {
                    out.push(ProviderEvent::Text(text));
                }
                for citation in block.get("citations").and_then(Value::as_array).into_iter().flatten() {
                    out.push(ProviderEvent::attach("citations", citation.clone()));
                }
                Block::Text
            }
            "thinking" => {
                let thinking = text("thinking");
                if !thinking.is_empty() {
                    out.push(ProviderEvent::Thinking(thinking.clone()));
                }
                Block::Thinking { thinking, signature: text("signature") }
            }
            "redacted_thinking" => {
                out.push(ProviderEvent::attach(
                    "thinking_blocks",
                    json!({ "type": "redacted_thinking", "data": block["data"] }),
                ));
                Block::Other
            }
            "tool_use" => {
                let (id, name) = (text("id"), text("name"));
                out.push(ProviderEvent::ToolCallStart { id: id.clone(), name: name.clone() });
                Block::ToolUse { id, name, start_input: block["input"].clone(), streamed: false }
            }
            "server_tool_use" | "mcp_tool_use" => Block::ServerTool {
                id: text("id"),
                name: text("name"),
                start_input: block["input"].clone(),
                json: String::new(),
            },
            // `web_search_tool_result`, `web_fetch_tool_result`, `code_execution_tool_result`,
            // `mcp_tool_result`, …: whole results of server tools.
            _ if kind.ends_with("_tool_result") => {
                out.push(server_tool_result(block));
                Block::Other
            }
            _ => Block::Other,
        };
        if let Some(index) = index {
            self.blocks.insert(index, state);
        }
    }

    fn block_delta(&mut self, index: Option<u64>, delta: &Value, out: &mut ProviderEvents) {
        let kind = delta.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "citations_delta" {
            return out.push(ProviderEvent::attach("citations", delta["citation"].clone()));
        }
        let Some(&(_, key, kind)) = TEXT_KINDS.iter().find(|(name, ..)| *name == kind) else { return };
        self.block_text(index, kind, delta.get(key).and_then(Value::as_str).unwrap_or("").into(), out);
    }

    /// A delta that carries text: `text_delta`, `thinking_delta`, `signature_delta` or
    /// `input_json_delta`.
    fn block_text(&mut self, index: Option<u64>, kind: TextKind, text: Cow<'_, str>, out: &mut ProviderEvents) {
        if kind == TextKind::Text {
            // Text never needs its block's state, so text for a block that did not start is kept.
            return out.text(text);
        }
        let block = index.and_then(|i| self.blocks.get_mut(i));
        match kind {
            TextKind::Text => {}
            TextKind::Thinking => {
                if let Some(Block::Thinking { thinking, .. }) = block {
                    thinking.push_str(&text);
                }
                out.thinking(text);
            }
            TextKind::Signature => {
                if let Some(Block::Thinking { signature, .. }) = block {
                    signature.push_str(&text);
                }
            }
            TextKind::InputJson => match block {
                Some(Block::ToolUse { id, streamed, .. }) => {
                    if !text.is_empty() {
                        *streamed = true;
                        out.tool_call_delta(id, text);
                    }
                }
                Some(Block::ServerTool { json, .. }) => json.push_str(&text),
                _ => out.push(ProviderEvent::unreadable(format!(
                    "input_json_delta for content block {}, which is not a started tool call",
                    index.map_or("(none)".to_owned(), |i| i.to_string())
                ))),
            },
        }
    }

    fn block_stop(&mut self, index: Option<u64>, out: &mut ProviderEvents) {
        let Some(block) = index.and_then(|i| self.blocks.remove(i)) else { return };
        match block {
            Block::Thinking { thinking, signature } => {
                out.push(ProviderEvent::attach(
                    "thinking_blocks",
                    json!({ "type": "thinking", "thinking": thinking, "signature": signature }),
                ));
            }
            // When no argument text streamed, the input the block started with is the whole input
            // (`{}` for a tool without parameters).
            Block::ToolUse { id, name, start_input, streamed } => out.push(ProviderEvent::ToolCallEnd {
                id,
                name: Some(name),
                input: (!streamed).then(|| if start_input.is_null() { json!({}) } else { start_input }),
            }),
            Block::ServerTool { id, name, start_input, json } => {
                let input = if json.trim().is_empty() {
                    start_input
                } else {
                    // Input that is not JSON is still shown rather than dropped.
                    crate::json::parse(&json).unwrap_or(Value::String(json))
                };
                out.push(ProviderEvent::ToolRun { id: Some(id), name, input });
            }
            Block::Text | Block::Other => {}
        }
    }

    /// `message_delta`: its `delta`'s `stop_reason` and `stop_details` (not `null`), and its
    /// `usage` (an object).
    fn message_delta(
        &mut self,
        stop_reason: Option<&str>,
        stop_details: Option<Value>,
        usage: Option<Usage>,
        out: &mut ProviderEvents,
    ) {
        if let Some(reason) = stop_reason {
            out.push(ProviderEvent::Finish { reason: finish_reason(reason) });
        }
        if let Some(details) = stop_details {
            out.push(ProviderEvent::payload("stop_details", details));
        }
        if let Some(mut usage) = usage {
            // `message_delta` counts are cumulative; input appears here only in newer API versions.
            if usage.input_tokens.is_some() {
                self.input_tokens = usage.input_tokens;
            }
            usage.total_tokens = self.input_tokens.zip(usage.output_tokens).map(|(i, o)| i.saturating_add(o));
            out.push(ProviderEvent::Usage(usage));
        }
    }
}

/// `stop_reason` → the contract's finish reasons. `pause_turn` (a long server-tool turn paused,
/// to be resumed by sending it back) has no equivalent and is `other`.
fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "tool_use" => FinishReason::ToolCalls,
        "refusal" => FinishReason::Refusal,
        _ => FinishReason::Other,
    }
}

/// Anthropic counts cache reads and writes apart from `input_tokens`; the contract's
/// `input_tokens` is every input token (as OpenAI's `prompt_tokens`), with cache reads also in
/// `cached_input_tokens`.
fn read_usage(usage: &Value) -> Usage {
    let mut counts = [None; 4];
    for (count, key) in counts.iter_mut().zip(COUNTS) {
        *count = usage.get(key).and_then(Value::as_u64);
    }
    usage_of(counts)
}

/// The counts of `usage` that are read, in the order [`usage_of`] takes them.
const COUNTS: [&str; 4] = ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens"];

fn usage_of([input, cached, created, output]: [Option<u64>; 4]) -> Usage {
    Usage {
        input_tokens: input.map(|n| n.saturating_add(cached.unwrap_or(0)).saturating_add(created.unwrap_or(0))),
        output_tokens: output,
        reasoning_tokens: None,
        cached_input_tokens: cached,
        total_tokens: None,
    }
}

/// A `*_tool_result` block. A failed server tool sends an object whose `type` ends in `_error`
/// as its `content` (`web_search_tool_result_error`); MCP results say `is_error`.
fn server_tool_result(block: &Value) -> ProviderEvent {
    let output = block.get("content").cloned().unwrap_or(Value::Null);
    let error_content = output.get("type").and_then(Value::as_str).is_some_and(|t| t.ends_with("_error"));
    ProviderEvent::ToolResult {
        id: block.get("tool_use_id").and_then(Value::as_str).map(str::to_owned),
        name: None,
        index: None,
        is_error: error_content || block.get("is_error").and_then(Value::as_bool) == Some(true),
        output,
    }
}

/// `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: the API ends
/// the message after it.
fn error_event(error: &Value) -> ProviderEvent {
    let kind = error.get("type").and_then(Value::as_str).unwrap_or("api_error");
    let code = ErrorCode::from_provider_kind(kind);
    ProviderEvent::provider_error(code, error.get("message").and_then(Value::as_str))
}

/// A delta that carries text. Its number is its place in [`TEXT_KINDS`], and that of its text
/// among the strings [`text_delta`] takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum TextKind {
    Text,
    Thinking,
    Signature,
    InputJson,
}

/// The deltas that carry text: their `type`, the field each keeps its text in, and its kind.
const TEXT_KINDS: [(&str, &str, TextKind); 4] = [
    ("text_delta", "text", TextKind::Text),
    ("thinking_delta", "thinking", TextKind::Thinking),
    ("signature_delta", "signature", TextKind::Signature),
    ("input_json_delta", "partial_json", TextKind::InputJson),
];

/// A `content_block_delta` that carries text, read by the checking scanner without building a
/// `Value` (nearly every frame of a long answer; see [`super::scan`]): its index and delta kind,
/// and the delta's text fields taken in [`TEXT_KINDS`]' order (a kind's text is at its number). `Some` exactly when the general
/// path would read `data` as a `content_block_delta` with an index and a delta of a text kind
/// whose text is a string; `None` for anything else.
pub(super) fn text_delta<'a>(r: &mut Reader<'a>) -> Option<((u64, TextKind), Taken<'a, 4>)> {
    let (mut seen, mut is_delta, mut index, mut delta) = (Seen::default(), false, None, None);
    r.object(|r, key| {
        match key {
            b"type" => {
                seen.once(0)?;
                // Any other frame is given up here, not read to its end.
                is_delta = r.string()? == "content_block_delta";
                is_delta.then_some(())?;
            }
            b"index" => {
                seen.once(1)?;
                index = Some(r.u64()?);
            }
            b"delta" => {
                seen.once(2)?;
                let wanted = |kind: &str| TEXT_KINDS.iter().any(|(name, ..)| *name == kind);
                let (kind, texts) =
                    r.kind_and_strings(b"type", &wanted, [b"text", b"thinking", b"signature", b"partial_json"])?;
                let &(_, _, kind) = TEXT_KINDS.iter().find(|(name, ..)| Some(*name) == kind.as_deref())?;
                texts[kind as usize].as_ref()?;
                delta = Some((kind, texts));
            }
            _ => r.skip_value(0)?,
        }
        Some(())
    })?;
    let (kind, texts) = delta.filter(|_| is_delta)?;
    Some(((index?, kind), texts))
}

/// What a frame read by [`envelope`] makes.
#[derive(Debug)]
pub(super) enum Envelope {
    /// `ping`, or an event type added after this was written.
    Nothing,
    /// `message_start` with its message's `usage` (its `id` is taken).
    MessageStart(Usage),
    /// `message_delta` (its `stop_reason` is taken).
    MessageDelta {
        stop_details: Option<Value>,
        usage: Option<Usage>,
    },
    BlockStop(Option<u64>),
    MessageStop,
}

/// The frames around the content (`message_start`, `message_delta`, `content_block_stop`,
/// `message_stop`, `ping`) read by the checking scanner: a `message_start` built as a `Value`,
/// only to read its id and counts, was most of the cost of a short answer read live. `Some`
/// exactly when the general path would read `data` as one of them, with the same fields; its
/// strings are `[message.id, delta.stop_reason]`. Content blocks' starts and non-text deltas,
/// and errors, are the general path's; their `type` comes first in every recorded stream, so
/// they are given up at their first field.
pub(super) fn envelope<'a>(r: &mut Reader<'a>) -> Option<(Envelope, Taken<'a, 2>)> {
    let (mut seen, mut kind, mut index) = (Seen::default(), None, None);
    let (mut message, mut delta, mut usage) = (None, None, None);
    r.object(|r, key| {
        match key {
            b"type" => {
                seen.once(0)?;
                let read = r.string()?;
                (!matches!(read.as_ref(), "content_block_start" | "content_block_delta" | "error")).then_some(())?;
                kind = Some(read);
            }
            b"index" => {
                seen.once(1)?;
                index = Some(r.u64()?);
            }
            b"message" => {
                seen.once(2)?;
                let (mut id, mut usage) = (None, None);
                r.fields(1, &["id", "usage"], &mut |r, at| {
                    match at {
                        0 => id = Some(r.string()?),
                        _ => usage = counts(r)?,
                    }
                    Some(())
                })?;
                message = Some((id, usage));
            }
            b"delta" => {
                seen.once(3)?;
                let (mut reason, mut details) = (None, None);
                r.fields(1, &["stop_reason", "stop_details"], &mut |r, at| {
                    match at {
                        0 => reason = r.or_null(Reader::string)?,
                        _ => details = r.or_null(|r| r.raw_value(2))?,
                    }
                    Some(())
                })?;
                delta = Some((reason, details));
            }
            b"usage" => {
                seen.once(4)?;
                usage = counts(r)?;
            }
            _ => r.skip_value(0)?,
        }
        Some(())
    })?;
    Some(match kind?.as_ref() {
        "message_start" => {
            let (id, counts) = message?;
            (Envelope::MessageStart(usage_of(counts.unwrap_or_default())), [Some(id.unwrap_or_default()), None])
        }
        "message_delta" => {
            let (reason, details) = delta.unwrap_or_default();
            let stop_details = match details {
                Some(raw) => Some(crate::json::parse(raw).ok()?),
                None => None,
            };
            (Envelope::MessageDelta { stop_details, usage: usage.map(usage_of) }, [None, reason])
        }
        "content_block_stop" => (Envelope::BlockStop(index), [None, None]),
        "message_stop" => (Envelope::MessageStop, [None, None]),
        _ => (Envelope::Nothing, [None, None]),
    })
}

/// A `usage` object's counts ([`COUNTS`]), `None` for `null`. Counts that are not whole numbers
/// are the general path's.
fn counts(r: &mut Reader<'_>) -> Option<Option<[Option<u64>; 4]>> {
    r.or_null(|r| {
        let mut counts = [None; 4];
        r.fields(1, &COUNTS, &mut |r, at| {
            counts[at] = r.or_null(Reader::u64)?;
            Some(())
        })?;
        Some(counts)
    })
}

#[cfg(test)]
mod tests;
