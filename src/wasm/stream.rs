//! `ChatStream` for JS: push bytes or text, get clean events.

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;

use super::args::{self, Chunk, Options};
use super::{events_to_js, Busy, HandOver, Input, PoisonGuard};
use crate::clean::{CleanOptions, PayloadMarker};
use crate::dialect::Dialect;
use crate::event::StreamEvent;
use crate::framing::DEFAULT_MAX_FRAME_BYTES;
use crate::stream::{ChatStream, StreamOptions};

/// The options a JS caller may pass (`ChatStreamOptions` in the TypeScript declarations).
#[derive(Debug, Clone, Default)]
pub(crate) struct JsStreamOptions {
    pub dialect: Option<String>,
    pub content_type: Option<String>,
    pub headers: Vec<(String, String)>,
    pub max_frame_bytes: Option<u32>,
    pub inline_thinking: Option<bool>,
    pub thinking_tags: Option<Vec<String>>,
    pub starts_in_thinking: Option<bool>,
    pub payload_markers: Vec<PayloadMarker>,
}

/// The keys of `ChatStreamOptions`; `idleTimeoutMs` is `streamEvents`' (read in JS), accepted here.
const STREAM_OPTIONS: [&str; 9] = [
    "dialect",
    "contentType",
    "headers",
    "maxFrameBytes",
    "inlineThinking",
    "thinkingTags",
    "startsInThinking",
    "payloadMarkers",
    "idleTimeoutMs",
];

/// `payloadMarkers`: `[{ marker, type }]`.
pub(crate) fn payload_markers(options: &Options) -> Result<Vec<PayloadMarker>, JsValue> {
    let Some(items) = options.items("payloadMarkers")? else { return Ok(Vec::new()) };
    let mut markers = Vec::with_capacity(items.length() as usize);
    let what = options.items_name("payloadMarkers");
    for item in items.iter() {
        let entry = Options::any(&item, &what)?.only(&["marker", "type"])?;
        let marker = entry.string("marker")?.ok_or_else(|| entry.required("marker"))?;
        let type_name = entry.string("type")?.ok_or_else(|| entry.required("type"))?;
        markers.push(PayloadMarker { marker: marker.into(), type_name: type_name.into() });
    }
    Ok(markers)
}

impl JsStreamOptions {
    /// Reads `ChatStreamOptions` (`what` names them in errors).
    pub(crate) fn read(value: &JsValue, what: &str) -> Result<JsStreamOptions, JsValue> {
        match Options::given(value, what)? {
            Some(options) => JsStreamOptions::from_options(&options.only(&STREAM_OPTIONS)?),
            None => Ok(JsStreamOptions::default()),
        }
    }

    /// The stream's options among `options` (a session's are the cleaning ones and `dialect`).
    pub(crate) fn from_options(options: &Options) -> Result<JsStreamOptions, JsValue> {
        // Field by field into one value: built in a struct literal, each `?` dropped the fields
        // read before it, a drop of its own per field.
        let mut read = JsStreamOptions::default();
        read.dialect = options.string("dialect")?;
        read.content_type = options.string("contentType")?;
        read.headers = options.string_map("headers")?;
        read.max_frame_bytes = options.count("maxFrameBytes")?;
        read.inline_thinking = options.bool("inlineThinking")?;
        read.thinking_tags = options.strings("thinkingTags")?;
        read.starts_in_thinking = options.bool("startsInThinking")?;
        read.payload_markers = payload_markers(options)?;
        Ok(read)
    }

    pub(crate) fn into_core(self) -> Result<StreamOptions, JsError> {
        let dialect = match self.dialect.as_deref() {
            None | Some("auto") => None,
            Some(name) => Some(Dialect::from_name(name).ok_or_else(|| {
                let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
                JsError::new(&format!(
                    "unknown dialect {}: use \"auto\" or one of {}",
                    crate::json::to_json(name),
                    known.join(", ")
                ))
            })?),
        };
        Ok(self.with_dialect(dialect))
    }

    /// The core's options, with `dialect` read already.
    fn with_dialect(self, dialect: Option<Dialect>) -> StreamOptions {
        // The JS side computes `partial_input` when it is read (see `partial_input.rs`).
        let clean = CleanOptions { partial_input: false, ..self.clean_options() };
        // Every field set here: `..StreamOptions::default()` would build default cleaning
        // options only to drop them, and a short answer read whole pays a stream's making.
        StreamOptions {
            dialect,
            content_type: self.content_type,
            headers: self.headers,
            max_frame_bytes: self.max_frame_bytes.map_or(DEFAULT_MAX_FRAME_BYTES, |max| max as usize),
            clean,
        }
    }

    /// The cleaning part of the options (also all that `parseLlmResponse` reads).
    pub(crate) fn clean_options(&self) -> CleanOptions {
        let mut clean = CleanOptions::default();
        if let Some(on) = self.starts_in_thinking {
            clean.starts_in_thinking = on;
        }
        if let Some(on) = self.inline_thinking {
            clean.inline_thinking = on;
        }
        if let Some(tags) = &self.thinking_tags {
            clean.thinking_tags = tags.iter().map(|tag| tag.clone().into()).collect();
        }
        if !self.payload_markers.is_empty() {
            clean.payload_markers.to_mut().extend(self.payload_markers.iter().cloned());
        }
        clean
    }
}

thread_local! {
    /// The dialects' names as JS strings, in the order of [`Dialect::ALL`], for `dialectAlone`.
    static DIALECT_NAMES: JsValue = Dialect::ALL.iter().map(|d| JsValue::from_str(d.name())).collect::<js_sys::Array>().into();
}

#[wasm_bindgen(inline_js = r#"
// Where `options` names no option but `dialect`, as the general reading (JsStreamOptions::read)
// would read it: the dialect's place in `names`, `names.length` for "auto" (also for no options,
// no keys, and a dialect null or undefined); -1 for anything else, which that reading reads (or
// refuses) itself: other options, an object that is not plain (it may inherit options), a
// dialect that is not one of `names` (its error is that reading's), or an object that throws as
// it is looked at (a Proxy's traps). When it declines after reading `dialect`, that reading reads
// it again: a getter or a Proxy's `get` trap runs twice.
export function dialectAlone(options, names) {
  if (options === undefined || options === null) return names.length;
  if (typeof options !== "object" || Array.isArray(options)) return -1;
  try {
    const keys = Object.keys(options);
    const proto = Object.getPrototypeOf(options);
    if (proto !== null && Object.getPrototypeOf(proto) !== null) return -1;
    if (keys.length === 0) return names.length;
    if (keys.length !== 1 || keys[0] !== "dialect") return -1;
    const dialect = options.dialect;
    if (dialect === undefined || dialect === null || dialect === "auto") return names.length;
    return names.indexOf(dialect);
  } catch {
    return -1;
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = dialectAlone)]
    fn dialect_alone(options: &JsValue, names: &JsValue) -> i32;
}

/// The core's options from `options` that name at most the dialect, read by one call into JS
/// (`dialectAlone`); `None` when they need the general reading. A `ChatSession`'s made with
/// `{ dialect }` read option by option were most of the module's part of making one (and of a
/// `ChatStream`'s, below).
pub(super) fn dialect_alone_options(options: &JsValue) -> Option<StreamOptions> {
    let at = usize::try_from(DIALECT_NAMES.with(|names| dialect_alone(options, names))).ok()?;
    Some(JsStreamOptions::default().with_dialect(Dialect::ALL.get(at).copied()))
}

/// An incremental reader of one chat stream: `push` bytes or text as they arrive, get the
/// clean events they complete.
///
/// The methods that return events leave them in the module's memory ([`HandOver::into_memory`])
/// and return how many words their layout has; the package's `ChatStream` (`api.js`) builds the
/// events from there.
#[wasm_bindgen(js_name = ChatStream)]
pub struct JsChatStream {
    stream: RefCell<ChatStream>,
    busy: Cell<Busy>,
    events: RefCell<Vec<StreamEvent>>,
    bytes: RefCell<Vec<u8>>,
    /// The text deltas handed out since the stream began: their length in bytes and in UTF-16
    /// units (not their text, which the package's `ChatStream` joins, api.js). See
    /// [`HandOver::counted_events`].
    text_handed_out: Cell<(usize, u32)>,
}

thread_local! {
    /// Where the package's `push` copies a chunk before calling `__push`: one buffer for every
    /// stream, as a push copies its chunk in and reads it in one go. A buffer of each stream's own
    /// cost each stream a call into the module and an allocation on its first push, a part of
    /// reading a short answer whole. The package copies chunks of at most `STREAM_INPUT` bytes
    /// here (api.js; a string by its worst-case UTF-8 size; larger ones go through `push`), so
    /// that a huge read is not held for the page's lifetime.
    static INPUT: Input = const { Input(RefCell::new(Vec::new())) };
}

#[wasm_bindgen(js_class = ChatStream)]
impl JsChatStream {
    /// A stream with `options` (`ChatStreamOptions` in the TypeScript declarations). Borrowed:
    /// an owned JS value cost every stream a call from the module back into JS to let it go.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &JsValue) -> Result<JsChatStream, JsValue> {
        // Options that name at most the dialect (`{ dialect }`, `{}`, none), as nearly every
        // stream is made: read by one call into JS. Read option by option, `{ dialect }` took
        // more than half of making a stream and freeing it (10,400 of 18,500 instructions on Node).
        if let Some(options) = dialect_alone_options(options) {
            return Ok(JsChatStream::from_options(options));
        }
        let options = JsStreamOptions::read(options, "ChatStream options")?;
        Ok(JsChatStream::from_options(options.into_core()?))
    }

    /// Feeds a chunk (a string, an `ArrayBuffer` or any view of one: `Uint8Array`, `DataView`, …);
    /// the events it completed are left for `api.js`.
    pub fn push(&self, chunk: &JsValue) -> Result<u32, JsValue> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatStream")?;
        let mut bytes = self.bytes.borrow_mut();
        match args::bytes(chunk, &mut bytes) {
            Chunk::Read => Ok(self.run(&mut |core, out| core.push(&bytes, out))),
            Chunk::NotBytes => {
                Err(args::type_error("ChatStream.push: chunk must be a string, an ArrayBuffer or a typed array"))
            }
            Chunk::Unreadable(reason) => Ok(self.run(&mut |_, out| out.push(args::unreadable_chunk(&reason)))),
        }
    }

    /// The address of `len` bytes in the module's memory where the package's `push` copies a
    /// chunk for `__push` ([`INPUT`], shared by every stream).
    ///
    /// It returns a `Result`, a pair of values, as `__push` does: Node 20's V8 inlines a call
    /// to an export that returns one value into the JS that calls it, and a deoptimization there
    /// stopped the process with a fatal error (`--no-turbo-inline-js-wasm-calls` avoided it).
    #[wasm_bindgen(js_name = __input)]
    pub fn input(&self, len: u32) -> Result<u32, JsError> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatStream")?;
        Ok(INPUT.with(|input| input.reserve(len)))
    }

    /// `push` of the first `len` bytes at [`JsChatStream::input`]'s address.
    #[wasm_bindgen(js_name = __push)]
    pub fn push_input(&self, len: u32) -> Result<u32, JsError> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatStream")?;
        Ok(INPUT.with(|input| self.run(&mut |core, out| core.push(&input.bytes(len), out))))
    }

    /// `finish`, `cancel` or `fail`, by `op`, its events left in the module's memory as `__push`
    /// leaves its own: 0, the body ended (the last events, always including `complete`); 1, stop
    /// (`complete` with the partial content and `cancelled`, or a CONFLICT error after the stream
    /// completed); 2, the body broke off (the connection failed, or was silent too long):
    /// `complete` with what arrived, then an error with `code` (`NETWORK_ERROR`, …) and
    /// `message`. One export for the three: wasm-bindgen writes glue for each exported method, in
    /// the module and in its JS. The package's `ChatStream` (api.js) calls it. `code` and
    /// `message` are JS values, read only by `fail` (`undefined` for the others; what is not a
    /// string reads as "", and the package's `fail` refuses it before): a string argument, even
    /// an empty one, is copied into the module, two calls into it for every stream's `finish`.
    #[wasm_bindgen(js_name = __end)]
    pub fn end(&self, op: u32, code: &JsValue, message: &JsValue) -> Result<u32, JsError> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatStream")?;
        match op {
            0 => Ok(self.run(&mut |core, out| core.finish(out))),
            1 => Ok(self.run(&mut |core, out| core.cancel(out))),
            2 => {
                let code = args::error_code(&code.as_string().unwrap_or_default());
                let message = message.as_string().unwrap_or_default();
                Ok(self.run(&mut |stream, out| stream.fail(code, &message, out)))
            }
            _ => Err(JsError::new("ChatStream.__end: no such operation")),
        }
    }

    /// The response's headers arrived, before its bytes: its `Content-Type`, and every header as
    /// an object (the AI SDK's protocol headers name the dialect).
    #[wasm_bindgen(js_name = useResponse)]
    pub fn use_response(&self, content_type: Option<String>, headers: JsValue) -> Result<(), JsValue> {
        let headers = args::string_map(&headers, "headers")?;
        let _guard = PoisonGuard::enter(&self.busy, "ChatStream")?;
        let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        self.stream.borrow_mut().use_response_headers(content_type.as_deref(), pairs);
        Ok(())
    }

    /// The error event for a chunk that is neither bytes nor text (for a reader of a stream of
    /// other values, which skips it).
    #[wasm_bindgen(js_name = skippedChunk)]
    pub fn skipped_chunk(&self) -> JsValue {
        events_to_js(&[StreamEvent::skipped_chunk()]).into()
    }

    /// The dialect in use (`undefined` until auto-detection has decided).
    #[wasm_bindgen(getter)]
    pub fn dialect(&self) -> Result<Option<String>, JsError> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatStream")?;
        Ok(self.stream.borrow().dialect().map(|d| d.name().to_owned()))
    }

    /// Whether `complete` has been emitted.
    #[wasm_bindgen(getter, js_name = isComplete)]
    pub fn is_complete(&self) -> Result<bool, JsError> {
        let _guard = PoisonGuard::enter(&self.busy, "ChatStream")?;
        Ok(self.stream.borrow().is_complete())
    }
}

impl JsChatStream {
    pub(crate) fn from_options(options: StreamOptions) -> JsChatStream {
        JsChatStream {
            stream: RefCell::new(ChatStream::new(options)),
            busy: Cell::new(false),
            events: RefCell::new(Vec::new()),
            bytes: RefCell::new(Vec::new()),
            text_handed_out: Cell::new((0, 0)),
        }
    }

    /// Runs `step`, leaves its events in the module's memory and returns their layout's length.
    /// The events stay until the next call: JS reads their long strings where they are.
    ///
    /// `step` is a `dyn`: one body for the six steps, not one copy each (a copy was most of each
    /// export's half a kilobyte); the one indirect call a push costs is nothing beside the push.
    fn run(&self, step: &mut dyn FnMut(&mut ChatStream, &mut Vec<StreamEvent>)) -> u32 {
        let mut events = self.events.borrow_mut();
        events.clear();
        step(&mut self.stream.borrow_mut(), &mut events);
        // A read of a comment, a ping or part of a frame gives no events: nothing to hand over.
        // Such a push (an SSE comment, 100 a stream, read in Node under callgrind) cost about
        // 1,700 instructions this way against 2,350 through an empty hand-over (two readings each).
        if events.is_empty() {
            return 0;
        }
        let mut hand = HandOver::default();
        // `complete`'s text crosses as the deltas JS joined when the cleaner made it of them (a
        // backend's own message is not), checked by its length: a length that differs would be a
        // bug, and then it crosses itself.
        hand.counted_events(&events, &self.text_handed_out, |payload, bytes| {
            payload.text.len() == bytes && self.stream.borrow().text_is_deltas_joined()
        });
        hand.into_memory()
    }
}
