//! The module's `AiSdkChat` (`JsAiSdkChat` here, over [`AiSdkChat`]): the AI SDK backend mode's
//! messages and turns, behind the package's JS `AiSdkChat`, which does the I/O. Messages, bodies
//! and values cross as JSON text: one copy each way, keys in their order.

use std::cell::{Cell, RefCell};

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use super::args::{self, Chunk};
use super::{Busy, PoisonGuard};
use crate::ai_sdk::{AiSdkChat, Update};
use crate::error::ErrorCode;
use crate::state::{counting_ids, ChatError};

/// A chat over an AI SDK backend, without I/O.
#[wasm_bindgen(js_name = AiSdkChat)]
pub struct JsAiSdkChat {
    chat: RefCell<AiSdkChat>,
    busy: Cell<Busy>,
}

#[wasm_bindgen(js_class = AiSdkChat)]
impl JsAiSdkChat {
    /// A chat `chatId` holding `messages`, JSON text of UI messages.
    #[wasm_bindgen(constructor)]
    pub fn new(chat_id: JsValue, messages: JsValue) -> Result<JsAiSdkChat, JsValue> {
        let chat_id = args::text(&chat_id, "AiSdkChat: chatId")?;
        let messages = json_text(&messages, "AiSdkChat: messages", "[]")?;
        // Ids of answers whose stream names none: a random prefix keeps them unique across the
        // chats of a page and their saved messages.
        let prefix = format!("{:x}-", (js_sys::Math::random() * 4_294_967_296.0) as u64);
        let chat = AiSdkChat::new(&chat_id, &messages, Box::new(counting_ids(&prefix))).map_err(thrown)?;
        Ok(JsAiSdkChat { chat: RefCell::new(chat), busy: Cell::new(false) })
    }

    /// The messages as they are now, JSON text.
    pub fn messages(&self) -> Result<String, JsError> {
        self.with_chat(|chat| chat.messages_json())
    }

    /// Replaces the messages (JSON text of UI messages).
    #[wasm_bindgen(js_name = setMessages)]
    pub fn set_messages(&self, messages: JsValue) -> Result<(), JsValue> {
        let messages = json_text(&messages, "AiSdkChat.setMessages: messages", "[]")?;
        self.with_chat(|chat| chat.set_messages(&messages))?.map_err(thrown)
    }

    /// Sends a user message (JSON text of a UI message) with the app's body (JSON text of an
    /// object): the request body, JSON text. `responseId`: the answer's id until its stream names
    /// one (the app's `generateId()`; undefined: one made up); the same for the other requests.
    #[wasm_bindgen(js_name = sendMessage)]
    pub fn send_message(&self, message: JsValue, body: JsValue, response_id: JsValue) -> Result<String, JsValue> {
        let message = args::text(&message, "AiSdkChat.sendMessage: message")?;
        let body = json_text(&body, "AiSdkChat.sendMessage: body", "{}")?;
        let id = optional_text(&response_id, "AiSdkChat.sendMessage: responseId")?;
        self.with_chat(|chat| chat.send_message(&message, &body, id.as_deref()))?.map_err(thrown)
    }

    /// Asks again for the answer `messageId` (the last message when undefined): the request body.
    pub fn regenerate(&self, message_id: JsValue, body: JsValue, response_id: JsValue) -> Result<String, JsValue> {
        let message_id = optional_text(&message_id, "AiSdkChat.regenerate: messageId")?;
        let body = json_text(&body, "AiSdkChat.regenerate: body", "{}")?;
        let id = optional_text(&response_id, "AiSdkChat.regenerate: responseId")?;
        self.with_chat(|chat| chat.regenerate(message_id.as_deref(), &body, id.as_deref()))?.map_err(thrown)
    }

    /// Sends the conversation again after tool outputs or approval answers: the request body.
    #[wasm_bindgen(js_name = continueTurn)]
    pub fn continue_turn(&self, body: JsValue, response_id: JsValue) -> Result<String, JsValue> {
        let body = json_text(&body, "AiSdkChat.continueTurn: body", "{}")?;
        let id = optional_text(&response_id, "AiSdkChat.continueTurn: responseId")?;
        self.with_chat(|chat| chat.continue_turn(&body, id.as_deref()))?.map_err(thrown)
    }

    /// More of the answer's body (a string or bytes in any form).
    pub fn push(&self, chunk: &JsValue) -> Result<JsValue, JsValue> {
        let mut bytes = Vec::new();
        match args::bytes(chunk, &mut bytes) {
            Chunk::Read => {}
            Chunk::NotBytes => return Err(args::type_error("AiSdkChat.push: chunk must be a string or bytes")),
            Chunk::Unreadable(reason) => {
                return Err(args::type_error(&format!("AiSdkChat.push: the chunk's bytes cannot be read ({reason})")))
            }
        }
        Ok(update_to_js(self.with_chat(|chat| chat.push(&bytes))?))
    }

    /// The body ended.
    pub fn finish(&self) -> Result<JsValue, JsValue> {
        Ok(update_to_js(self.with_chat(AiSdkChat::finish)?))
    }

    /// The body broke off: `code` (`NETWORK_ERROR`, or what `httpError` gave) and a message.
    pub fn fail(&self, code: JsValue, message: JsValue) -> Result<JsValue, JsValue> {
        let code = args::error_code(&args::text(&code, "AiSdkChat.fail: code")?);
        let message = args::text(&message, "AiSdkChat.fail: message")?;
        Ok(update_to_js(self.with_chat(|chat| chat.fail(code, &message))?))
    }

    /// Stops reading: the answer so far stays.
    pub fn cancel(&self) -> Result<JsValue, JsValue> {
        Ok(update_to_js(self.with_chat(AiSdkChat::cancel)?))
    }

    /// The output (JSON text) or error text of the tool call `toolCallId`.
    #[wasm_bindgen(js_name = addToolOutput)]
    pub fn add_tool_output(
        &self,
        tool_call_id: JsValue,
        output: JsValue,
        error_text: JsValue,
    ) -> Result<JsValue, JsValue> {
        let id = args::text(&tool_call_id, "AiSdkChat.addToolOutput: toolCallId")?;
        let output = optional_text(&output, "AiSdkChat.addToolOutput: output")?;
        let error_text = optional_text(&error_text, "AiSdkChat.addToolOutput: errorText")?;
        let update = self.with_chat(|chat| chat.add_tool_output(&id, output.as_deref(), error_text.as_deref()))?;
        update.map(update_to_js).map_err(thrown)
    }

    /// The user's answer to the approval request `approvalId`.
    #[wasm_bindgen(js_name = addToolApprovalResponse)]
    pub fn add_tool_approval_response(
        &self,
        approval_id: JsValue,
        approved: JsValue,
        reason: JsValue,
    ) -> Result<JsValue, JsValue> {
        let id = args::text(&approval_id, "AiSdkChat.addToolApprovalResponse: approvalId")?;
        let Some(approved) = approved.as_bool() else {
            return Err(args::type_error("AiSdkChat.addToolApprovalResponse: approved must be a boolean"));
        };
        let reason = optional_text(&reason, "AiSdkChat.addToolApprovalResponse: reason")?;
        let update = self.with_chat(|chat| chat.add_tool_approval_response(&id, approved, reason.as_deref()))?;
        update.map(update_to_js).map_err(thrown)
    }
}

impl JsAiSdkChat {
    /// Runs `call` on the chat, never on one a panic left half-updated nor from inside another
    /// call ([`PoisonGuard`]).
    fn with_chat<R>(&self, call: impl FnOnce(&mut AiSdkChat) -> R) -> Result<R, JsError> {
        let _guard = PoisonGuard::enter(&self.busy, "AiSdkChat")?;
        Ok(call(&mut self.chat.borrow_mut()))
    }
}

/// JSON text the page hands in; `null` and `undefined` are `empty`.
fn json_text(value: &JsValue, what: &str, empty: &str) -> Result<String, JsValue> {
    let text = args::text(value, what)?;
    Ok(if text.is_empty() { empty.to_owned() } else { text })
}

/// A string, or `None` for `null` and `undefined`.
fn optional_text(value: &JsValue, what: &str) -> Result<Option<String>, JsValue> {
    if value.is_null() || value.is_undefined() {
        return Ok(None);
    }
    args::text(value, what).map(Some)
}

/// A refused call: a `TypeError` for bad input (`VALIDATION_ERROR`), else an `Error`, with the
/// code as `code`.
fn thrown(error: ChatError) -> JsValue {
    let thrown: js_sys::Error = match error.code {
        ErrorCode::ValidationError => js_sys::TypeError::new(&error.message).into(),
        _ => js_sys::Error::new(&error.message),
    };
    // Setting a field on a new Error cannot fail.
    let _ = Reflect::set(&thrown, &"code".into(), &error.code.as_str().into());
    thrown.into()
}

/// `{ message?, index?, appendPart?, appendText?, data?, toolCalls?, error?: { code, message },
/// finish?: { finishReason?, isAbort, isDisconnect, isError } }`.
fn update_to_js(update: Update) -> JsValue {
    let object = Object::new();
    // Setting fields on a new plain object cannot fail.
    let set = |target: &Object, key: &str, value: JsValue| {
        let _ = Reflect::set(target, &key.into(), &value);
    };
    if let Some(message) = update.message {
        set(&object, "message", message.into());
    }
    if let Some(index) = update.index {
        set(&object, "index", (index as f64).into());
    }
    if let Some(append) = update.append {
        set(&object, "appendPart", (append.part as f64).into());
        set(&object, "appendText", append.text.into());
    }
    if let Some(data) = update.data {
        set(&object, "data", data.into());
    }
    if let Some(calls) = update.tool_calls {
        set(&object, "toolCalls", calls.into());
    }
    if let Some(error) = update.error {
        let value = Object::new();
        set(&value, "code", error.code.as_str().into());
        set(&value, "message", error.message.into());
        set(&object, "error", value.into());
    }
    if let Some(finish) = update.finish {
        let value = Object::new();
        if let Some(reason) = finish.finish_reason {
            set(&value, "finishReason", reason.into());
        }
        set(&value, "isAbort", finish.is_abort.into());
        set(&value, "isDisconnect", finish.is_disconnect.into());
        set(&value, "isError", finish.is_error.into());
        set(&object, "finish", value.into());
    }
    object.into()
}
