//! The turns of a chat whose backend is an AI SDK route: the request bodies (`DefaultChatTransport`'s
//! `{ ...body, id, messages, trigger, messageId }`), which message an answer writes (a new one, or
//! the last assistant message continued after tool outputs and approval answers), the
//! regenerate slicing, tool outputs and approval answers, and reading the answer: SSE framing,
//! then each chunk through the reducer (`chunks`).

use super::chunks::{ChunkError, MessageWriter};
use super::json_reader::json_value;
use super::message::{is_tool_part, write_all, UiMessage};
use super::object::{into_string, quoted, Field, Object};
use crate::error::ErrorCode;
use crate::framing::{Decoded, SseDecoder};
use crate::state::ChatError;

/// A chat over an AI SDK backend: its UI messages and the answer being read, without I/O.
///
/// ```
/// use chatstream::ai_sdk::AiSdkChat;
/// let mut chat = AiSdkChat::new("chat-1", "[]", Box::new(|| "answer-1".to_owned())).unwrap();
/// let message = r#"{"id":"u1","role":"user","parts":[{"type":"text","text":"Hi"}]}"#;
/// let body = chat.send_message(message, "{}", None).unwrap();
/// assert!(body.starts_with(r#"{"id":"chat-1","messages":[{"id":"u1""#));
/// chat.push(b"data: {\"type\":\"start\",\"messageId\":\"a1\"}\n\ndata: {\"type\":\"text-start\",\"id\":\"t\"}\n\n");
/// chat.push(b"data: {\"type\":\"text-delta\",\"id\":\"t\",\"delta\":\"Hello\"}\n\n");
/// chat.push(b"data: {\"type\":\"text-end\",\"id\":\"t\"}\n\ndata: {\"type\":\"finish\"}\n\ndata: [DONE]\n\n");
/// let update = chat.finish();
/// assert!(update.finish.is_some_and(|f| !f.is_error));
/// assert!(chat.messages_json().ends_with(
///     r#"{"id":"a1","role":"assistant","parts":[{"type":"text","text":"Hello","state":"done"}]}]"#
/// ));
/// ```
pub struct AiSdkChat {
    id: String,
    messages: Vec<UiMessage>,
    reading: Option<Reading>,
    ids: Box<dyn FnMut() -> String>,
}

/// An answer being read.
struct Reading {
    frames: SseDecoder,
    writer: MessageWriter,
    /// The earlier assistant message the answer continues, when it is not the last one (its
    /// place is where the answer goes, if the stream renames it).
    continues_earlier: Option<String>,
    /// The message has been written into the messages (the AI SDK writes it on the first chunk
    /// that shows something).
    written: bool,
    /// A `finish` chunk came.
    finished: bool,
    /// The message changed since the page was last given it whole, in a way the AI SDK does not
    /// show at once: the next change goes whole, not as an append.
    unshown: bool,
}

/// What a call changed, for the page.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Update {
    /// The assistant message being written, as JSON text, when it changed, and always with
    /// `finish` (onFinish's `message`).
    pub message: Option<String>,
    /// The message's place in the messages (a new answer is appended); none when it never showed
    /// (an answer that ended before any chunk).
    pub index: Option<usize>,
    /// In place of `message`, when a push did nothing but add text to one part of the message the
    /// page already shows (a live answer's usual read): the page adds it to its copy, where a whole
    /// message each time would cost the answer's length on every delta.
    pub append: Option<Append>,
    /// The data parts that came (transient ones too), as a JSON array, for `onData`.
    pub data: Option<String>,
    /// The tool calls the page is to run (their `tool-input-available` chunks), as a JSON array.
    pub tool_calls: Option<String>,
    /// The error that ended the answer; the message so far is kept.
    pub error: Option<ChatError>,
    /// The answer is over (once per answer).
    pub finish: Option<Finish>,
}

/// Text added to the end of a text or reasoning part's `text`.
#[derive(Debug, Clone, PartialEq)]
pub struct Append {
    /// The part's place in the message's `parts`.
    pub part: usize,
    /// The text added.
    pub text: String,
}

/// How an answer ended (the AI SDK's `onFinish` flags).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Finish {
    /// The `finish` chunk's `finishReason`, when one came.
    pub finish_reason: Option<String>,
    /// Stopped by the page.
    pub is_abort: bool,
    /// The connection broke off.
    pub is_disconnect: bool,
    /// Ended by an error.
    pub is_error: bool,
}

impl Update {
    fn set_message(&mut self, message: Option<(usize, String)>) {
        if let Some((index, message)) = message {
            self.message = Some(message);
            self.index = Some(index);
        }
    }
}

fn validation(message: String) -> ChatError {
    ChatError { code: ErrorCode::ValidationError, message }
}

fn conflict(what: &str) -> ChatError {
    ChatError { code: ErrorCode::Conflict, message: format!("{what}: an answer is being read; stop it first") }
}

impl AiSdkChat {
    /// A chat `id` holding `messages` (JSON text of UI messages); `ids` makes the ids of answers
    /// whose stream names none.
    pub fn new(id: &str, messages: &str, ids: Box<dyn FnMut() -> String>) -> Result<AiSdkChat, ChatError> {
        let messages = UiMessage::parse_all(messages).map_err(validation)?;
        Ok(AiSdkChat { id: id.to_owned(), messages, reading: None, ids })
    }

    /// Whether an answer is being read.
    pub fn is_reading(&self) -> bool {
        self.reading.is_some()
    }

    /// The messages as they are now (the answer being written in its place), as JSON text.
    pub fn messages_json(&self) -> String {
        let mut out = Vec::new();
        let written = self.reading.as_ref().filter(|r| r.written).map(|r| (self.place(r), &r.writer.message));
        let view = self.messages.iter().enumerate().map(|(i, m)| match written {
            Some((at, writing)) if at == i => writing,
            _ => m,
        });
        match written {
            Some((at, writing)) if at == self.messages.len() => write_all(view.chain([writing]), &mut out),
            _ => write_all(view, &mut out),
        }
        into_string(out)
    }

    /// Replaces the messages (JSON text of UI messages), checked as on load.
    pub fn set_messages(&mut self, messages: &str) -> Result<(), ChatError> {
        if self.reading.is_some() {
            return Err(conflict("setMessages"));
        }
        self.messages = UiMessage::parse_all(messages).map_err(validation)?;
        Ok(())
    }

    /// Sends a user message (JSON text of a UI message) with the app's `body` (a JSON object's
    /// text): the request body. `response_id` is the answer's id until its stream names one (the
    /// app's `generateId`; `None`: one made up); the same for the other requests. A message whose id is in the chat replaces that message and those
    /// after it (an edit), and the request names it as `messageId`.
    pub fn send_message(&mut self, message: &str, body: &str, response_id: Option<&str>) -> Result<String, ChatError> {
        if self.reading.is_some() {
            return Err(conflict("sendMessage"));
        }
        let body = request_body(body)?;
        let message = UiMessage::parse(message).map_err(|e| validation(format!("sendMessage: message: {e}")))?;
        let edited = self.messages.iter().position(|m| m.id() == message.id());
        let message_id = edited.map(|at| {
            self.messages.truncate(at);
            message.id().to_owned()
        });
        self.messages.push(message);
        Ok(self.start("submit-message", message_id, body, response_id))
    }

    /// Asks again for the answer `message_id` (the last message when `None`): an assistant
    /// message goes with what follows it; a user message stays and what follows it goes.
    pub fn regenerate(
        &mut self,
        message_id: Option<&str>,
        body: &str,
        response_id: Option<&str>,
    ) -> Result<String, ChatError> {
        if self.reading.is_some() {
            return Err(conflict("regenerate"));
        }
        let body = request_body(body)?;
        let at = match message_id {
            Some(id) => self.messages.iter().position(|m| m.id() == id),
            None => self.messages.len().checked_sub(1),
        };
        let Some(at) = at else {
            return Err(validation(match message_id {
                Some(id) => format!("regenerate: no message with id {}", quoted(id)),
                None => "regenerate: there is no message to regenerate".into(),
            }));
        };
        let keep = if self.messages[at].role() == "assistant" { at } else { at + 1 };
        self.messages.truncate(keep);
        Ok(self.start("regenerate-message", message_id.map(str::to_owned), body, response_id))
    }

    /// Sends the conversation again after tool outputs or approval answers: the answer continues
    /// the assistant message they belong to (the latest one with an answered approval, else the
    /// last message), as the AI SDK's automatic send does.
    pub fn continue_turn(&mut self, body: &str, response_id: Option<&str>) -> Result<String, ChatError> {
        if self.reading.is_some() {
            return Err(conflict("continueTurn"));
        }
        let body = request_body(body)?;
        let answered = self.messages.iter().rev().find(|m| {
            m.role() == "assistant"
                && m.parts.iter().any(|p| is_tool_part(p) && p.str("state") == Some("approval-responded"))
        });
        let message_id = answered.or(self.messages.last()).map(|m| m.id().to_owned());
        Ok(self.start("submit-message", message_id, body, response_id))
    }

    /// Begins reading an answer to the messages as they are; the request body. `response_id`: the
    /// new answer's id until the stream gives one (the app's `generateId`), else one made up.
    fn start(
        &mut self,
        trigger: &str,
        message_id: Option<String>,
        mut body: Object,
        response_id: Option<&str>,
    ) -> String {
        let id = response_id.map_or_else(|| self.fresh_id(), str::to_owned);
        let len = self.messages.len();
        let at = match (&message_id, trigger) {
            (Some(id), "submit-message") => self.messages.iter().position(|m| m.id() == id),
            _ => len.checked_sub(1),
        }
        .or(len.checked_sub(1));
        let responding_to = at.and_then(|at| self.messages.get(at));
        let continued = responding_to.filter(|m| trigger != "regenerate-message" && m.role() == "assistant");
        let continues_earlier = continued.filter(|_| at.is_some_and(|at| at + 1 < len)).map(|m| m.id().to_owned());
        let writer = MessageWriter::new(continued.cloned(), id);

        let mut messages = Vec::new();
        write_all(self.messages.iter(), &mut messages);
        body.set("id", self.id.as_str());
        body.set("messages", Field::Json(into_string(messages).into()));
        body.set("trigger", trigger);
        body.set("messageId", message_id.map_or(Field::Undefined, Field::Text));
        self.reading = Some(Reading {
            frames: SseDecoder::new(),
            writer,
            continues_earlier,
            written: false,
            finished: false,
            unshown: false,
        });
        body.to_json()
    }

    /// An id for a new answer, none of the messages' ids.
    fn fresh_id(&mut self) -> String {
        let mut id = (self.ids)();
        // A generator that repeats itself gets a few more tries, then is taken at its word.
        for _ in 0..16 {
            if !self.messages.iter().any(|m| m.id() == id) {
                break;
            }
            id = (self.ids)();
        }
        id
    }

    /// Where the answer goes in the messages (`messages.len()`: appended), as the AI SDK's
    /// `write()` decides: the message with its id, else the earlier message it continues.
    fn place(&self, reading: &Reading) -> usize {
        let by_id = |id: &str| self.messages.iter().rposition(|m| m.id() == id);
        by_id(reading.writer.message.id())
            .or_else(|| reading.continues_earlier.as_deref().and_then(by_id))
            .unwrap_or(self.messages.len())
    }

    /// More of the answer's body. An unreadable chunk, one that breaks the protocol, or an
    /// `error` chunk ends the answer with an error, the message so far kept (what follows is not
    /// read, as with the AI SDK).
    pub fn push(&mut self, bytes: &[u8]) -> Update {
        let Some(reading) = self.reading.as_mut() else { return Update::default() };
        let (mut wrote, mut data, mut tool_calls, mut error) = (false, Vec::new(), Vec::new(), None);
        // Whether every change was text added to one part: that part's place and its text's length before.
        let (mut appended_only, mut unshown): (Option<Option<(usize, usize)>>, _) = (None, reading.unshown);
        let Reading { frames, writer, finished, .. } = reading;
        frames.push_each(bytes, |decoded| {
            if error.is_some() {
                return;
            }
            let frame = match decoded {
                Decoded::Frame(frame) => frame,
                Decoded::TooLarge => {
                    let limit = crate::framing::DEFAULT_MAX_FRAME_BYTES;
                    error = Some(unreadable(&format!("a chunk exceeded the {limit}-byte limit")));
                    return;
                }
                _ => return,
            };
            let text = frame.data.trim();
            if text.is_empty() || text == "[DONE]" {
                return;
            }
            let applied = Object::parse(text)
                .map_err(|e| ChunkError(format!("a chunk that is not a JSON object ({e})")))
                .and_then(|chunk| writer.apply(chunk));
            match applied {
                Ok(applied) => {
                    wrote |= applied.wrote;
                    unshown |= applied.unshown;
                    if applied.wrote {
                        appended_only = match (appended_only, applied.appended) {
                            (None, appended) => Some(appended),
                            (Some(Some((part, from))), Some((next, _))) if part == next => Some(Some((part, from))),
                            _ => Some(None),
                        };
                    }
                    data.extend(applied.data);
                    tool_calls.extend(applied.tool_call);
                    *finished |= applied.finish;
                    if let Some(text) = applied.error_text {
                        let code = ErrorCode::from_message(&text);
                        error = Some(ChatError { code, message: text });
                    }
                }
                Err(ChunkError(reason)) => error = Some(unreadable(&reason)),
            }
        });
        // Text added to a message the page shows as it is here goes as that text alone.
        let append = appended_only.flatten().filter(|_| reading.written && !unshown).and_then(|(part, from)| {
            let text = writer.message.parts.get(part)?.str("text")?.get(from..)?;
            Some(Append { part, text: text.to_owned() })
        });
        reading.written |= wrote;
        // A whole message (sent when something was written and is not an append) shows what was not shown yet.
        reading.unshown = unshown && !wrote;
        let mut update = Update {
            data: (!data.is_empty()).then(|| json_array(&data)),
            tool_calls: (!tool_calls.is_empty()).then(|| json_array(&tool_calls)),
            ..Update::default()
        };
        match append {
            Some(append) => {
                update.index = self.reading.as_ref().map(|reading| self.place(reading));
                update.append = Some(append);
            }
            None if wrote => update.set_message(self.written_message()),
            None => {}
        }
        if let Some(error) = error {
            self.end(&mut update, Finish { is_error: true, ..Finish::default() }, Some(error));
        }
        update
    }

    /// The body ended. Without a `finish` chunk the answer was cut short: an error
    /// (`NETWORK_ERROR`), the message so far kept.
    pub fn finish(&mut self) -> Update {
        let mut update = Update::default();
        let Some(reading) = self.reading.as_mut() else { return update };
        reading.frames.finish(&mut Vec::new());
        if reading.finished {
            self.end(&mut update, Finish::default(), None);
        } else {
            let error = ChatError {
                code: ErrorCode::NetworkError,
                message: "Connection failed: the answer ended before its \"finish\" chunk".into(),
            };
            self.end(&mut update, Finish { is_error: true, is_disconnect: true, ..Finish::default() }, Some(error));
        }
        update
    }

    /// The body broke off (`code`: what the page saw); the message so far is kept.
    pub fn fail(&mut self, code: ErrorCode, message: &str) -> Update {
        let mut update = Update::default();
        if self.reading.is_some() {
            let finish = Finish { is_error: true, is_disconnect: code == ErrorCode::NetworkError, ..Finish::default() };
            self.end(&mut update, finish, Some(ChatError { code, message: message.to_owned() }));
        }
        update
    }

    /// Stops reading (the page's `stop()`): the answer so far stays. Nothing to stop: nothing.
    pub fn cancel(&mut self) -> Update {
        let mut update = Update::default();
        if self.reading.is_some() {
            self.end(&mut update, Finish { is_abort: true, ..Finish::default() }, None);
        }
        update
    }

    /// The answer being written and its place, once written.
    fn written_message(&self) -> Option<(usize, String)> {
        let reading = self.reading.as_ref().filter(|r| r.written)?;
        Some((self.place(reading), reading.writer.message.to_json()))
    }

    /// Ends the answer: its message takes its place in the messages (once it showed), and goes
    /// with the update.
    fn end(&mut self, update: &mut Update, mut finish: Finish, error: Option<ChatError>) {
        let Some(reading) = self.reading.take() else { return };
        update.message = Some(reading.writer.message.to_json());
        update.append = None;
        update.index = None;
        if reading.written {
            let at = self.place(&reading);
            update.index = Some(at);
            match self.messages.get_mut(at) {
                Some(slot) => *slot = reading.writer.message,
                None => self.messages.push(reading.writer.message),
            }
        }
        finish.finish_reason = reading.writer.finish_reason;
        update.error = error;
        update.finish = Some(finish);
    }

    /// Gives the tool call `tool_call_id` its output (JSON text) or, with `error_text`, its
    /// error, wherever it is: in the messages, and in the answer being written.
    pub fn add_tool_output(
        &mut self,
        tool_call_id: &str,
        output: Option<&str>,
        error_text: Option<&str>,
    ) -> Result<Update, ChatError> {
        let output = match output.map(|o| (o, json_value(o))) {
            None => Field::Undefined,
            Some((_, Some(json))) => Field::Json(json.into()),
            Some((output, None)) => {
                return Err(validation(format!("addToolOutput: output is not JSON text: {output:.80}")))
            }
        };
        let matches = |p: &Object| is_tool_part(p) && p.str("toolCallId") == Some(tool_call_id);
        let change = |part: &mut Object| {
            let approval = part.remove("approval");
            if approval.as_ref().and_then(|a| a.as_object()).is_some_and(|a| a.get("approved").as_bool() == Some(true))
            {
                part.set("approval", approval.unwrap_or_default());
            }
            let input = part.get("input").clone();
            match error_text {
                Some(error_text) => {
                    part.set("state", "output-error");
                    part.set("input", input);
                    part.set("output", Field::Undefined);
                    part.set("errorText", error_text);
                }
                None => {
                    part.set("state", "output-available");
                    part.set("input", input);
                    part.set("output", output.clone());
                    part.set("errorText", Field::Undefined);
                }
            }
        };
        self.change_parts(matches, change)
            .ok_or_else(|| validation(format!("addToolOutput: no tool call with toolCallId {}", quoted(tool_call_id))))
    }

    /// Answers the approval request `approval_id`.
    pub fn add_tool_approval_response(
        &mut self,
        approval_id: &str,
        approved: bool,
        reason: Option<&str>,
    ) -> Result<Update, ChatError> {
        let matches = |p: &Object| {
            is_tool_part(p)
                && p.str("state") == Some("approval-requested")
                && p.get("approval").as_object().is_some_and(|a| a.str("id") == Some(approval_id))
        };
        let change = |part: &mut Object| {
            let mut approval = part.get("approval").as_object().unwrap_or_default();
            approval.set("id", approval_id);
            approval.set("approved", Field::bool(approved));
            approval.set("reason", reason.map_or(Field::Undefined, Field::from));
            part.set("state", "approval-responded");
            part.set("approval", Field::object(&approval));
        };
        self.change_parts(matches, change).ok_or_else(|| {
            validation(format!(
                "addToolApprovalResponse: no approval request with id {} awaits an answer",
                quoted(approval_id)
            ))
        })
    }

    /// Applies `change` to the parts `matches` picks: in the first message holding one, and in the
    /// answer being written. The changed message for the page; `None` when no part matched.
    fn change_parts(&mut self, matches: impl Fn(&Object) -> bool, change: impl Fn(&mut Object)) -> Option<Update> {
        let mut update = Update::default();
        let mut found = false;
        if let Some(at) = self.messages.iter().position(|m| m.parts.iter().any(&matches)) {
            self.messages[at].parts.iter_mut().filter(|p| matches(p)).for_each(&change);
            update.set_message(Some((at, self.messages[at].to_json())));
            found = true;
        }
        if let Some(reading) = self.reading.as_mut() {
            if reading.writer.message.parts.iter().any(&matches) {
                reading.writer.message.parts.iter_mut().filter(|p| matches(p)).for_each(&change);
                found = true;
                if let Some(written) = self.written_message() {
                    update.set_message(Some(written));
                }
            }
        }
        found.then_some(update)
    }
}

/// The error for a chunk that cannot be read or breaks the protocol.
fn unreadable(reason: &str) -> ChatError {
    ChatError { code: ErrorCode::ServiceUnavailable, message: format!("Failed to parse response: {reason}") }
}

/// The app's body: a JSON object ("{}" for none).
fn request_body(body: &str) -> Result<Object, ChatError> {
    let body = if body.trim().is_empty() { "{}" } else { body };
    Object::parse(body).map_err(|e| validation(format!("body must be a JSON object ({e})")))
}

fn json_array(items: &[Object]) -> String {
    let mut out = vec![b'['];
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        item.write_json(&mut out);
    }
    out.push(b']');
    into_string(out)
}
