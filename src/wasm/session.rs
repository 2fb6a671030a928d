//! The module's `ChatSession` (`JsChatSession` here, over [`ChatSession`]): the chat's state and
//! turns behind the package's JS `ChatSession`, which does the I/O (requests, bodies, timers,
//! tools) and keeps the snapshots. Every call is synchronous and returns what changed:
//! `{ events, patches }`.

use std::cell::{Cell, RefCell, RefMut};
use std::sync::Arc;

use js_sys::{Function, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::args::{self, Chunk, Options};
use super::stream::JsStreamOptions;
use super::{to_js, Busy, HandOver, Input, Op, PatchKind, PoisonGuard};
use crate::chat::{After, ChatSession, Step};
use crate::error::ErrorCode;
use crate::event::{CompletePayload, Segment, SharedText, StreamEvent};
use crate::json::JsonOut;
use crate::state::{counting_ids, ChatMessage, ChatState, MessagePart, Patch, PatchValue, StateMachine};

/// The options the core reads (the JS side keeps the request's, the timers' and the callbacks').
const SESSION_OPTIONS: &[&str] = &[
    "generateId",
    "dialect",
    "inlineThinking",
    "thinkingTags",
    "startsInThinking",
    "payloadMarkers",
    // Provider mode (talking to a provider directly, tools run in the browser):
    #[cfg(feature = "provider")]
    "provider",
    #[cfg(feature = "provider")]
    "model",
    #[cfg(feature = "provider")]
    "system",
    #[cfg(feature = "provider")]
    "temperature",
    #[cfg(feature = "provider")]
    "maxTokens",
    #[cfg(feature = "provider")]
    "thinking",
    #[cfg(feature = "provider")]
    "thinkingBudget",
    #[cfg(feature = "provider")]
    "contextTokens",
    #[cfg(feature = "provider")]
    "tools",
    #[cfg(feature = "provider")]
    "maxIterations",
];

/// A chat's state and turns, without I/O.
#[wasm_bindgen(js_name = ChatSession)]
pub struct JsChatSession {
    chat: RefCell<ChatSession>,
    busy: Cell<Busy>,
    /// Where the package's `push` copies a chunk before calling `__push`.
    input: Input,
    /// What the last call that left its step in the module's memory (`__push`, `__end`) handed
    /// over: JS reads its long strings where it holds them, so it stays until the next call.
    left: RefCell<Left>,
    /// The text deltas handed out since the last `complete` (or the turn's start): their length
    /// in bytes and in UTF-16 units, not their text, which the package's ChatSession joins
    /// (session.js), as a `ChatStream` counts its own (stream.rs).
    text_handed_out: Cell<(usize, u32)>,
}

/// A step left in the module's memory ([`JsChatSession::leave`]), and what comes after it: at the
/// end of a response (provider mode), the tool calls to run.
#[derive(Default)]
struct Left {
    step: Step,
    after: Option<After>,
    /// Whether the step's `complete` has as its text the text deltas handed out, joined, which
    /// the package's ChatSession holds already (session.js): that text then crosses as those
    /// deltas ([`HandOver::counted_events`]). A long answer is not decoded again at its end.
    text_joined: bool,
    /// With `text_joined`, for a long text: the finished message, to cross with the fields that
    /// hold that text empty (JS fills them in from `complete`'s).
    lean_message: Option<LeanMessage>,
}

/// The finished message's patch with the message's fields that hold the text empty.
struct LeanMessage {
    /// Its place among the step's patches.
    at: usize,
    patch: Patch,
    /// Which of the message's fields get the text: `[at, content, n, ...segments, ...parts]`, its
    /// patch's place, 1 for its `content`, then the indexes of its `n` text segments and of its
    /// text parts that do (patches are objects: JS tells this list from them).
    fields: Vec<u32>,
}

/// `__end`'s operations: the response ended; it broke off (`complete` with what arrived, then the
/// error); the request got no response to read (the error); stop the turn in flight (with none, a
/// CONFLICT error event); clear the error shown. The package's JS passes them as numbers
/// (session.js, `#end`).
const END_FINISH: u32 = 0;
const END_FAIL: u32 = 1;
const END_REFUSE: u32 = 2;
const END_CANCEL: u32 = 3;
const END_CLEAR_ERROR: u32 = 4;
/// Not an end: the step left, handed over again with its texts whole ([`JsChatSession::end`]).
const END_AGAIN: u32 = 5;

/// A step's lists longer than this are not kept for the next push: a push's step is a few items,
/// and a rare large one should not pin its room for the session's lifetime.
const KEEP_ITEMS: usize = 64;

impl Left {
    /// Its step's events, its patches, then the tool calls to run as a third list, in
    /// the module's memory ([`HandOver::into_memory`]): one hand-over, in which a text event and
    /// the `appendText` patch that follows it share one JS string, and a long answer held by the
    /// `complete` event and by the finished message crosses once. Returns the layout's length
    /// (0: nothing changed).
    fn hand_over(&self, counted: &Cell<(usize, u32)>) -> u32 {
        let mut hand = HandOver::default();
        step_into(&mut hand, &self.step, counted, self.text_joined, self.lean_message.as_ref());
        match &self.after {
            #[cfg(feature = "provider")]
            Some(After::RunTools(calls)) => {
                hand.end_list();
                calls.iter().for_each(|call| hand.value(call));
            }
            _ => {}
        }
        hand.into_memory()
    }

    /// Empty, its step's lists keeping their room for the next push ([`ChatSession::push_into`]).
    fn clear(&mut self) {
        if self.step.events.capacity() > KEEP_ITEMS || self.step.patches.capacity() > KEEP_ITEMS {
            self.step = Step::default();
        }
        self.step.events.clear();
        self.step.patches.clear();
        self.after = None;
        self.text_joined = false;
        self.lean_message = None;
    }

    /// Whether the step's `complete` has the text deltas joined as its text, `handed_out` bytes of
    /// them handed out before this step (`made_of_deltas`: the cleaner made the text of them):
    /// then [`Left::text_joined`], and [`Left::lean_message`] with the finished message's fields
    /// that hold that text (the same copy: the state gives the message the payload's) emptied in
    /// a copy of it.
    fn find_joined(&mut self, handed_out: usize, made_of_deltas: bool) {
        if !made_of_deltas {
            return;
        }
        let mut bytes = handed_out;
        let payload = self.step.events.iter().find_map(|event| match event {
            StreamEvent::TextDelta { text } => {
                bytes = bytes.wrapping_add(text.len());
                None
            }
            StreamEvent::Complete { payload } => Some(payload),
            _ => None,
        });
        let Some(payload) = payload.filter(|payload| payload.text.len() == bytes) else { return };
        self.text_joined = true;
        // A shorter text crosses in the message's JSON text, decoded with it: a copy of the
        // message and the list of its fields would cost more than they save.
        if payload.text.len() < JsonOut::ASIDE_FROM {
            return;
        }
        // The finished message: pushed in the step of its `complete`.
        self.lean_message = self.step.patches.iter().enumerate().find_map(|(at, patch)| match patch {
            Patch::Push { key, value: PatchValue::Message(message) } if *key == ChatState::KEY.messages => {
                let (lean, fields) = without_text(message, payload, at);
                let patch = Patch::Push { key: ChatState::KEY.messages, value: PatchValue::Message(Arc::new(lean)) };
                Some(LeanMessage { at, patch, fields })
            }
            _ => None,
        });
    }
}

/// `message` (of the patch at `at`) with its fields that are `payload`'s text (the same copy: the
/// state gives the message the payload's) empty, and which they were ([`LeanMessage::fields`]).
/// Indexes are 32 bits, as wasm32's are.
fn without_text(message: &ChatMessage, payload: &CompletePayload, at: usize) -> (ChatMessage, Vec<u32>) {
    let taken = |text: &mut SharedText| {
        let same = std::ptr::eq(text.as_str(), payload.text.as_str());
        if same {
            *text = SharedText::default();
        }
        same
    };
    let mut lean = message.clone();
    let mut fields = vec![at as u32, u32::from(taken(&mut lean.content)), 0];
    for (i, segment) in lean.segments.iter_mut().enumerate() {
        if let Segment::Text { text } = segment {
            if taken(text) {
                fields.push(i as u32);
                fields[2] += 1;
            }
        }
    }
    for (i, part) in lean.parts.iter_mut().enumerate() {
        if let MessagePart::Text { text } = part {
            if taken(text) {
                fields.push(i as u32);
            }
        }
    }
    (lean, fields)
}

/// The package entry whose module this is, when it is one of those built without provider mode
/// (build.sh builds each with these features).
#[cfg(not(feature = "provider"))]
const BUILT_FOR: &str = if cfg!(feature = "dialects") {
    "chatstream/streaming"
} else if cfg!(all(feature = "dialect-agent", not(feature = "dialect-openai"))) {
    "chatstream/agent"
} else if cfg!(all(feature = "dialect-openai", not(feature = "dialect-agent"))) {
    "chatstream/openai"
} else {
    "this build of chatstream"
};

#[wasm_bindgen(js_class = ChatSession)]
impl JsChatSession {
    /// A chat with these options (`generateId` may be a function).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsChatSession, JsValue> {
        // Options that name at most the dialect (`{ dialect }`, `{}`, none), as the package's JS
        // hands them over for nearly every session (the request's options and the callbacks stay
        // in JS): no `generateId`, no provider, read by one call into JS.
        //
        // One place below makes the chat for both readings: a copy of its making on each path
        // was weight for nothing.
        let (ids, stream_options, options) = match super::stream::dialect_alone_options(&options) {
            Some(stream_options) => (random_ids(), stream_options, None),
            None => {
                let ids = message_ids(&options)?;
                let options = Options::given(&options, "ChatSession options")?;
                #[cfg(not(feature = "provider"))]
                if options.as_ref().is_some_and(|o| o.has("provider")) {
                    return Err(args::type_error(&format!(
                        "ChatSession options: provider mode is not in {BUILT_FOR}: import ChatSession from \"chatstream\""
                    )));
                }
                let options = options.map(|o| o.only(SESSION_OPTIONS)).transpose()?;
                let stream_options = match &options {
                    Some(options) => JsStreamOptions::from_options(options)?,
                    None => JsStreamOptions::default(),
                }
                .into_core()?;
                (ids, stream_options, options)
            }
        };
        let machine = StateMachine::with_ids(ids);
        #[cfg(feature = "provider")]
        let chat = match options.as_ref().map(provider::config).transpose()?.flatten() {
            Some(config) => ChatSession::with_provider(machine, stream_options, config),
            None => ChatSession::new(machine, stream_options),
        };
        #[cfg(not(feature = "provider"))]
        let chat = {
            let _ = options; // read by provider mode alone
            ChatSession::new(machine, stream_options)
        };
        Ok(JsChatSession::from_chat(chat))
    }

    /// The whole state, as a plain object.
    pub fn state(&self) -> Result<JsValue, JsError> {
        self.with_chat(|chat| to_js(&*chat.state_machine().state()))?
    }

    /// Starts a turn for `message` (with the page's `context`), sent to `endpoint`:
    /// `{ request, events, patches }`, the request's body as JSON text (sent as it is), with no
    /// `request` when it is refused.
    pub fn send(&self, message: JsValue, context: JsValue, endpoint: &str) -> Result<JsValue, JsValue> {
        let message = args::text(&message, "ChatSession.send: message")?;
        // No context (as the package's JS sends it when the app gives none) is not stringified in JS and parsed here.
        let context: Value =
            if context.is_null() { Value::Null } else { args::json(&context, "ChatSession.send: context")? };
        self.start(|chat| chat.send(&message, context, endpoint))
    }

    /// Starts a turn asking the last user message again, in place of its answer.
    pub fn regenerate(&self, endpoint: &str) -> Result<JsValue, JsValue> {
        self.start(|chat| chat.regenerate(endpoint))
    }

    /// The response's headers arrived: its `Content-Type`, and every header as an object.
    #[wasm_bindgen(js_name = useResponse)]
    pub fn use_response(&self, content_type: Option<String>, headers: JsValue) -> Result<(), JsValue> {
        let headers = args::string_map(&headers, "headers")?;
        let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        self.with_chat(|chat| chat.use_response_headers(content_type.as_deref(), pairs))?;
        Ok(())
    }

    /// More of the response (a string or bytes in any form).
    pub fn push(&self, chunk: &JsValue) -> Result<JsValue, JsValue> {
        let mut bytes = Vec::new();
        let chunk = args::bytes(chunk, &mut bytes);
        let step = self.with_chat(|chat| match chunk {
            Chunk::Read => chat.push(&bytes),
            Chunk::NotBytes => chat.skipped_chunk(StreamEvent::skipped_chunk()),
            Chunk::Unreadable(reason) => chat.skipped_chunk(args::unreadable_chunk(&reason)),
        })?;
        Ok(self.step_to_js(step))
    }

    /// The address of `len` bytes where the package's `push` copies a chunk for `__push` ([`Input`]).
    #[wasm_bindgen(js_name = __input)]
    pub fn input(&self, len: u32) -> Result<u32, JsError> {
        self.with_chat(|_| self.input.reserve(len))
    }

    /// `push` of the first `len` bytes at [`JsChatSession::input`]'s address, its step left in
    /// the module's memory ([`HandOver::into_memory`]): its layout's length, 0 for no change.
    #[wasm_bindgen(js_name = __push)]
    pub fn push_input(&self, len: u32) -> Result<u32, JsError> {
        // (A callback the chat calls may call the session again: the guard refuses that call
        // before it touches the chat, the input or what was left, which this call holds.)
        let made_of_deltas = self.with_chat(|chat| {
            chat.push_into(&self.input.bytes(len), &mut self.left.borrow_mut().step);
            chat.text_is_deltas_joined()
        })?;
        let mut left = self.left.borrow_mut();
        if left.step.events.is_empty() && left.step.patches.is_empty() {
            return Ok(0);
        }
        left.find_joined(self.text_handed_out.get().0, made_of_deltas);
        Ok(left.hand_over(&self.text_handed_out))
    }

    /// `finish`, `fail`, `refuse`, `cancel` or `clearError`, by `op` ([`END_FINISH`] and on):
    /// its step left in the module's memory as `__push` leaves its own (after `finish` and
    /// `fail`, when the tools the answer called are to run next, their calls as a third list):
    /// its layout's length. One export for the five: wasm-bindgen writes glue for each exported
    /// method (its borrow checks, arguments and throw path), in the module and in its JS.
    ///
    /// [`END_AGAIN`] ends nothing: it hands over the step left (by `__push` or `__end`) again,
    /// with `complete`'s text and the finished message's whole. The package's JS asks for it
    /// when it could not read the step with the text deltas joined (they were not of the length
    /// counted here), which only a bug makes happen: the module has taken the step, so JS must
    /// still get it (session.js, `#fromMemory`). The count of the deltas handed out comes out
    /// right: a step crosses joined only with a `complete`, where the count starts again.
    #[wasm_bindgen(js_name = __end)]
    pub fn end(&self, op: u32, code: &str, message: &str) -> Result<u32, JsError> {
        if op == END_AGAIN {
            let _guard = PoisonGuard::enter(&self.busy, "ChatSession")?;
            let mut left = self.left.borrow_mut();
            left.text_joined = false;
            left.lean_message = None;
            return Ok(left.hand_over(&self.text_handed_out));
        }
        let left = self.with_chat(|chat| {
            let (step, after) = match op {
                END_FINISH => chat.finish(),
                END_FAIL => chat.fail(args::error_code(code), message),
                END_REFUSE => (chat.refuse(args::error_code(code), message), After::Done),
                END_CANCEL => (chat.cancel(), After::Done),
                END_CLEAR_ERROR => (Step { events: Vec::new(), patches: chat.clear_error() }, After::Done),
                _ => return None,
            };
            Some((Left { step, after: Some(after), ..Left::default() }, chat.text_is_deltas_joined()))
        })?;
        let (left, made_of_deltas) = left.ok_or_else(|| JsError::new("ChatSession.__end: no such operation"))?;
        Ok(self.leave(left, made_of_deltas))
    }

    /// Replaces the conversation (an array of messages); the patches.
    #[wasm_bindgen(js_name = setMessages)]
    pub fn set_messages(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let messages = args::list(&messages, "ChatSession.setMessages: messages", ChatMessage::from_value)?;
        let patches = self.with_chat(|chat| chat.set_messages(messages))?.map_err(chat_error)?;
        Ok(patches_to_js(&patches))
    }

    /// `messages` as JSON text, to save.
    #[wasm_bindgen(js_name = saveMessages)]
    pub fn save_messages(&self) -> Result<js_sys::JsString, JsError> {
        self.with_chat(|chat| chat.saved_messages(|messages, _| super::json_in_pieces(messages)))
    }

    /// Replaces the whole state with saved messages (JSON text from `saveMessages`); the patches.
    #[wasm_bindgen(js_name = loadMessages)]
    pub fn load_messages(&self, json: JsValue) -> Result<JsValue, JsValue> {
        let json = args::text(&json, "ChatSession.loadMessages: json")?;
        let patches = self.with_chat(|chat| chat.load_messages(&json))?.map_err(chat_error)?;
        Ok(patches_to_js(&patches))
    }
}

impl JsChatSession {
    /// The module's session over `chat`.
    fn from_chat(chat: ChatSession) -> JsChatSession {
        let left = RefCell::default();
        let text_handed_out = Cell::new((0, 0));
        JsChatSession {
            chat: RefCell::new(chat),
            busy: Cell::new(false),
            input: Input::default(),
            left,
            text_handed_out,
        }
    }

    /// Runs `call` on the chat: every exported method reaches the chat through here, so that
    /// none runs on a chat a panic left half-updated or while another call is running
    /// ([`PoisonGuard`]).
    fn with_chat<R>(&self, call: impl FnOnce(&mut ChatSession) -> R) -> Result<R, JsError> {
        let (_guard, mut chat) = self.enter()?;
        Ok(call(&mut chat))
    }

    /// What every call does before it runs (kept out of line: inlined into each exported method's
    /// `with_chat`, clearing the last step was written once per method in the module).
    #[inline(never)]
    fn enter(&self) -> Result<(PoisonGuard<'_>, RefMut<'_, ChatSession>), JsError> {
        let guard = PoisonGuard::enter(&self.busy, "ChatSession")?;
        // What the last call left for JS was read when that call returned.
        self.left.borrow_mut().clear();
        Ok((guard, self.chat.borrow_mut()))
    }

    /// Leaves `left` in the module's memory ([`Left::hand_over`]), kept until the next call
    /// (`made_of_deltas`: [`ChatSession::text_is_deltas_joined`]).
    fn leave(&self, mut left: Left, made_of_deltas: bool) -> u32 {
        left.find_joined(self.text_handed_out.get().0, made_of_deltas);
        self.left.replace(left);
        self.left.borrow().hand_over(&self.text_handed_out)
    }

    fn start(&self, start: impl FnOnce(&mut ChatSession) -> Result<(String, Step), Step>) -> Result<JsValue, JsValue> {
        let started = self.with_chat(start)?;
        Ok(match started {
            Ok((request, step)) => {
                // A new response: the package's ChatSession starts its joined text again too.
                self.text_handed_out.set((0, 0));
                let result = self.step_to_js(step);
                result.unchecked_ref::<StepObject>().set_request(&request.into());
                result
            }
            Err(refusal) => self.step_to_js(refusal),
        })
    }

    /// `{ events, patches }`: one hand-over ([`HandOver`]), in which a text event and the
    /// `appendText` patch that follows it share one JS string.
    fn step_to_js(&self, step: Step) -> JsValue {
        let mut hand = HandOver::default();
        step_into(&mut hand, &step, &self.text_handed_out, false, None);
        let lists = hand.lists();
        let result: StepObject = Object::new().unchecked_into();
        result.set_events(&lists.get(0));
        result.set_patches(&lists.get(1));
        result.into()
    }
}

/// A refused call, thrown with its code as `code` (the JS side throws it on as a ChatstreamError);
/// refused input is a `TypeError`, as a bad argument is.
fn chat_error(error: crate::state::ChatError) -> JsValue {
    let thrown: js_sys::Error = match error.code {
        ErrorCode::ValidationError => js_sys::TypeError::new(&error.message).into(),
        _ => js_sys::Error::new(&error.message),
    };
    // Setting a field on a new Error cannot fail.
    let _ = Reflect::set(&thrown, &"code".into(), &error.code.as_str().into());
    thrown.into()
}

/// Message ids: the app's `generateId`, or a random prefix (so that ids stay unique across the
/// sessions of a page and their saved conversations) and a count.
fn message_ids(options: &JsValue) -> Result<Box<dyn FnMut() -> String>, JsValue> {
    let generate = if options.is_object() { Reflect::get(options, &"generateId".into())? } else { JsValue::UNDEFINED };
    if generate.is_undefined() {
        return Ok(random_ids());
    }
    let generate: Function =
        generate.dyn_into().map_err(|_| args::type_error("ChatSession options: generateId must be a function"))?;
    let mut fallback = counting_ids("m");
    Ok(Box::new(move || {
        generate.call0(&JsValue::UNDEFINED).ok().and_then(|id| id.as_string()).unwrap_or_else(&mut fallback)
    }))
}

/// A random prefix and a count: ids unique across the sessions of a page and their saved conversations.
fn random_ids() -> Box<dyn FnMut() -> String> {
    let prefix = format!("{:x}-", (js_sys::Math::random() * 4_294_967_296.0) as u64);
    Box::new(counting_ids(&prefix))
}

/// The patches as JS objects (see [`JsChatSession::step_to_js`]).
fn patches_to_js(patches: &[Patch]) -> JsValue {
    let mut hand = HandOver::default();
    patches_into(&mut hand, patches);
    hand.list().into()
}

/// A step's events, then its patches, as two lists, its text deltas counted on `counted`
/// ([`JsChatSession::text_handed_out`]). With `text_joined`, `complete`'s text crosses as the
/// text deltas joined, and with `lean_message` the finished message's too ([`Left::text_joined`]).
fn step_into<'a>(
    hand: &mut HandOver<'a>,
    step: &'a Step,
    counted: &Cell<(usize, u32)>,
    text_joined: bool,
    lean_message: Option<&'a LeanMessage>,
) {
    hand.counted_events(&step.events, counted, |_, _| text_joined);
    hand.end_list();
    match lean_message {
        Some(lean) => {
            hand.value(&lean.fields);
            patches_into(hand, &step.patches[..lean.at]);
            patches_into(hand, std::slice::from_ref(&lean.patch));
            patches_into(hand, &step.patches[lean.at + 1..]);
        }
        None => patches_into(hand, &step.patches),
    }
}

/// `appendText` and `appendThinking`, the one patch of nearly every push, cross as text, and so do
/// `startThinking` and `startTextPart` (a part's start: every push of an answer that goes back and
/// forth between thinking and text); `set`, `push` and `setAt` field by field
/// ([`HandOver::keyed_patch`]); the others as values (writing a patch as JSON and reading it back
/// was most of a thinking push).
fn patches_into<'a>(hand: &mut HandOver<'a>, patches: &'a [Patch]) {
    for patch in patches {
        match patch {
            Patch::AppendText { text } => hand.text(Op::AppendText, text),
            Patch::AppendThinking { text } => hand.text(Op::AppendThinking, text),
            Patch::StartThinking { text } => hand.text(Op::StartThinking, text),
            Patch::StartTextPart { text } => hand.text(Op::StartTextPart, text),
            Patch::Set { key, value } => hand.keyed_patch(PatchKind::Set, key, 0, value),
            Patch::Push { key, value } => hand.keyed_patch(PatchKind::Push, key, 0, value),
            Patch::SetAt { key, at, value } => hand.keyed_patch(PatchKind::SetAt, key, *at, value),
            _ => hand.value(patch),
        }
    }
}

#[wasm_bindgen]
extern "C" {
    /// `{ events, patches, request? }`, the request as JSON text.
    #[wasm_bindgen(extends = Object)]
    type StepObject;
    #[wasm_bindgen(method, setter)]
    fn set_events(this: &StepObject, events: &JsValue);
    #[wasm_bindgen(method, setter)]
    fn set_patches(this: &StepObject, patches: &JsValue);
    #[wasm_bindgen(method, setter)]
    fn set_request(this: &StepObject, request: &JsValue);
}

#[cfg(feature = "provider")]
mod provider {
    //! Provider mode: the options, and the steps of running the tools the JS side executes.

    use serde_json::Value;
    use wasm_bindgen::prelude::*;

    use super::{args, patches_to_js, ChatSession, JsChatSession, Options};
    use crate::agent::{AgentConfig, PendingCall, ToolFailure};
    use crate::request::{Profile, Provider, ToolDef};

    /// The loop's configuration, when `provider` is set.
    pub(super) fn config(options: &Options) -> Result<Option<AgentConfig>, JsValue> {
        let Some(name) = options.string("provider")? else { return Ok(None) };
        let provider = Provider::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = Provider::ALL.iter().map(|p| p.name()).collect();
            args::type_error(&format!(
                "ChatSession options: unknown provider {}: use one of {}",
                crate::json::to_json(&name),
                known.join(", ")
            ))
        })?;
        Ok(Some(AgentConfig {
            provider,
            profile: Profile {
                model: options.string("model")?.unwrap_or_default(),
                system: options.string("system")?,
                temperature: options.number("temperature")?,
                max_tokens: options.count("maxTokens")?,
                thinking: options.bool("thinking")?.unwrap_or(false),
                thinking_budget: options.count("thinkingBudget")?,
                context_tokens: options.count("contextTokens")?,
            },
            tools: tools(options)?,
            max_iterations: AgentConfig::max_iterations(options.count("maxIterations")?),
        }))
    }

    /// `tools`: `{ name, description, input_schema, needsApproval }` each (their `execute` stays
    /// in JS).
    fn tools(options: &Options) -> Result<Vec<ToolDef>, JsValue> {
        let Some(items) = options.items("tools")? else { return Ok(Vec::new()) };
        let mut tools = Vec::with_capacity(items.length() as usize);
        let what = options.items_name("tools");
        for item in items.iter() {
            let tool = Options::any(&item, &what)?;
            tools.push(ToolDef {
                name: tool.string("name")?.ok_or_else(|| tool.required("name"))?,
                description: tool.string("description")?.unwrap_or_default(),
                // A tool that takes no input may leave its schema out.
                input_schema: tool.json("input_schema")?.unwrap_or_else(ToolDef::no_input),
                needs_approval: tool.bool("needsApproval")?.unwrap_or(false),
            });
        }
        Ok(tools)
    }

    /// A call the module handed out in `tools`, handed back.
    fn call(value: &JsValue) -> Result<PendingCall, JsValue> {
        PendingCall::from_value(&args::json(value, "tool call")?)
            .map_err(|e| args::type_error(&format!("tool call: {e}")))
    }

    #[wasm_bindgen(js_class = ChatSession)]
    impl JsChatSession {
        /// Whether the call waits for the user's approval before it runs.
        #[wasm_bindgen(js_name = needsApproval)]
        pub fn needs_approval(&self, call: JsValue) -> Result<bool, JsValue> {
            let call = self::call(&call)?;
            Ok(self.with_chat(|chat| chat.needs_approval(&call))?)
        }

        /// `null` when the call may run; else the result the model gets instead.
        #[wasm_bindgen(js_name = checkCall)]
        pub fn check_call(&self, call: JsValue) -> Result<JsValue, JsValue> {
            let call = self::call(&call)?;
            match self.with_chat(|chat| chat.check_call(&call))? {
                Ok(()) => Ok(JsValue::NULL),
                Err(refusal) => Ok(super::to_js(&refusal)?),
            }
        }

        /// The turn pauses on the call until the user answers; the patches.
        #[wasm_bindgen(js_name = askApproval)]
        pub fn ask_approval(&self, call: JsValue) -> Result<JsValue, JsValue> {
            let call = self::call(&call)?;
            Ok(patches_to_js(&self.with_chat(|chat| chat.ask_approval(&call))?))
        }

        /// The user answered; the patches.
        #[wasm_bindgen(js_name = approvalAnswered)]
        pub fn approval_answered(&self, id: &str, approved: bool) -> Result<JsValue, JsError> {
            Ok(patches_to_js(&self.with_chat(|chat| chat.approval_answered(id, approved))?))
        }

        /// A running tool's progress report.
        #[wasm_bindgen(js_name = toolProgress)]
        pub fn tool_progress(&self, call: JsValue, update: JsValue) -> Result<JsValue, JsValue> {
            let update: Value = match update.as_string() {
                Some(text) => Value::String(text),
                None => args::json(&update, "tool progress").unwrap_or(Value::Null),
            };
            let call = self::call(&call)?;
            let step = self.with_chat(|chat| chat.tool_progress(&call, &update))?;
            Ok(self.step_to_js(step))
        }

        /// A tool finished with `output` (any JSON value; an error result with `isError`).
        #[wasm_bindgen(js_name = toolDone)]
        pub fn tool_done(&self, call: JsValue, output: JsValue, is_error: bool) -> Result<JsValue, JsValue> {
            // What JSON cannot hold (a BigInt, a cycle) goes to the model as its text.
            let output: Value = args::json(&output, "tool output").unwrap_or_else(|_| {
                Value::String(js_sys::JsString::from(output.clone()).as_string().unwrap_or_default())
            });
            let call = self::call(&call)?;
            let step = self.with_chat(|chat| chat.tool_done(&call, output, is_error))?;
            Ok(self.step_to_js(step))
        }

        /// A tool gave no result of its own: `kind` is `threw` (`detail`: the message),
        /// `timed_out` (`detail`: the limit in ms), `cancelled` or `denied` (`detail`: the reason).
        #[wasm_bindgen(js_name = toolFailed)]
        pub fn tool_failed(&self, call: JsValue, kind: &str, detail: JsValue) -> Result<JsValue, JsValue> {
            let text = || detail.as_string().unwrap_or_default();
            let failure = match kind {
                "threw" => ToolFailure::Threw(text()),
                "timed_out" => ToolFailure::TimedOut(detail.as_f64().unwrap_or_default().max(0.0) as u64),
                "denied" => ToolFailure::Denied(text()),
                _ => ToolFailure::Cancelled,
            };
            let call = self::call(&call)?;
            let step = self.with_chat(|chat| chat.tool_failed(&call, &failure))?;
            Ok(self.step_to_js(step))
        }

        /// `{ request }` for the next iteration, or the step that ends the turn.
        #[wasm_bindgen(js_name = nextRequest)]
        pub fn next_request(&self) -> Result<JsValue, JsValue> {
            let next = self.with_chat(ChatSession::next_request)?;
            Ok(match next {
                Ok(request) => {
                    let result: super::StepObject = js_sys::Object::new().unchecked_into();
                    result.set_request(&request.into());
                    result.into()
                }
                Err(step) => self.step_to_js(step),
            })
        }
    }
}
