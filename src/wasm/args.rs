//! Reading what JS passes in. Every exported function takes its arguments as `JsValue` and reads
//! them here, so that a value of the wrong type is a `TypeError` naming the parameter: handing a
//! number to a `&str` parameter of wasm-bindgen's glue traps the module instead, and a trap
//! leaves it unusable for every chat on the page.

use std::cell::RefCell;

use js_sys::Uint8Array;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::ErrorCode;
use crate::event::StreamEvent;

/// The error code JS names for a response that broke off or never came (`NETWORK_ERROR`, or the
/// code `httpError` gave); a name chatstream does not know is `NETWORK_ERROR`, what breaking off
/// is.
pub(crate) fn error_code(name: &str) -> ErrorCode {
    ErrorCode::from_name(name).unwrap_or(ErrorCode::NetworkError)
}

/// A `TypeError` with this message.
pub(crate) fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// What a value is, in a message: `typeof`, with `null` and arrays told apart, or the number.
fn kind(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if value.as_f64().is_some() {
        let number: &js_sys::Number = value.unchecked_ref();
        number.to_string_with_radix(10).map(String::from).unwrap_or_default()
    } else if js_sys::Array::is_array(value) {
        "an array".into()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    }
}

/// A text argument; `null` and `undefined` are the empty text (a stored assistant message that
/// only called tools has `content: null`).
pub(crate) fn text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    if value.is_null() || value.is_undefined() {
        return Ok(String::new());
    }
    value.as_string().ok_or_else(|| type_error(&format!("{what} must be a string, got {}", kind(value))))
}

/// An options object, read key by key (`Reflect.get`) rather than through JSON and a
/// serde-derived deserializer: that derived code, one per options type, weighed more than the
/// readers here. `null` and `undefined` are "not given", for the object and for each option.
pub(crate) struct Options<'a> {
    object: &'a JsValue,
    what: &'a str,
    /// The options it may have, once [`Options::only`] has checked them, and the same as JS strings.
    known: &'static [&'static str],
    known_js: Option<js_sys::Array>,
    /// Which of `known` a plain object has as its own keys (bit `i` for `known[i]`), once
    /// [`Options::only`] has read them: an option not among them is not looked up. Each look-up
    /// is a few calls into JS, and looking up every option of a `ChatStream` was most of
    /// creating one (a short answer read whole pays it per answer).
    own: Option<u32>,
}

impl<'a> Options<'a> {
    /// `None` for `null` or `undefined` (every option at its default).
    pub(crate) fn given(value: &'a JsValue, what: &'a str) -> Result<Option<Options<'a>>, JsValue> {
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        Options::any(value, what).map(Some)
    }

    /// An object whose keys are not checked (a tool, which carries more than is read here).
    pub(crate) fn any(value: &'a JsValue, what: &'a str) -> Result<Options<'a>, JsValue> {
        if !value.is_object() || js_sys::Array::is_array(value) || value.is_function() {
            return Err(type_error(&format!("{what} must be an object, got {}", kind(value))));
        }
        Ok(Options { object: value, what, known: &[], known_js: None, own: None })
    }

    /// Refuses a key that is not in `known` (a misspelt option must not pass silently).
    ///
    /// The keys are checked by one function in JS, against `known` as JS strings made once: each
    /// key read into the module, and each option looked up by a key made from Rust text, was a
    /// string crossing, and those were a third of creating a `ChatStream`.
    pub(crate) fn only(mut self, known: &'static [&'static str]) -> Result<Options<'a>, JsValue> {
        self.known = known;
        let known_js = js_keys(known);
        let own = own_known_keys(self.object, &known_js);
        self.known_js = Some(known_js);
        if let Some(key) = own.as_string() {
            let (what, known) = (self.what, known.join("`, `"));
            return Err(type_error(&format!("{what}: unknown field `{key}`, expected one of `{known}`")));
        }
        match own.as_f64() {
            // A bit for each known key: more than 31 do not fit (none of the option types has
            // that many), and then every option is looked up, as for an object that is not plain.
            Some(bits) if bits >= 0.0 && known.len() <= 31 => self.own = Some(bits as u32),
            Some(_) => {}
            None => return Err(unreadable(self.what, &own)),
        }
        Ok(self)
    }

    /// The option's value; `None` when it is `null` or `undefined`.
    fn get(&self, key: &str) -> Option<JsValue> {
        let index = self.known.iter().position(|k| *k == key);
        if let Some(own) = self.own {
            // A plain object's key that is not known is not its own, or it is `null` or `undefined`.
            let i = index?;
            if own & (1 << i) == 0 {
                return None;
            }
        }
        let key = match (index, &self.known_js) {
            (Some(i), Some(known_js)) => known_js.get(i as u32),
            _ => JsValue::from_str(key),
        };
        let value = js_sys::Reflect::get(self.object, &key).ok()?;
        (!value.is_null() && !value.is_undefined()).then_some(value)
    }

    #[cfg(not(feature = "provider"))]
    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// How the items of the array `key` are named in messages.
    pub(crate) fn items_name(&self, key: &str) -> String {
        format!("{}: {key}[]", self.what)
    }

    /// The error for `key` when it is missing.
    pub(crate) fn required(&self, key: &str) -> JsValue {
        type_error(&format!("{}: {key} is required", self.what))
    }

    fn wrong(&self, key: &str, expected: &str, value: &JsValue) -> JsValue {
        type_error(&format!("{}: {key} must be {expected}, got {}", self.what, kind(value)))
    }

    pub(crate) fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        self.get(key).map(|v| v.as_string().ok_or_else(|| self.wrong(key, "a string", &v))).transpose()
    }

    pub(crate) fn bool(&self, key: &str) -> Result<Option<bool>, JsValue> {
        self.get(key).map(|v| v.as_bool().ok_or_else(|| self.wrong(key, "a boolean", &v))).transpose()
    }

    /// A finite number.
    #[cfg(feature = "provider")]
    pub(crate) fn number(&self, key: &str) -> Result<Option<f64>, JsValue> {
        let finite = |v: &JsValue| v.as_f64().filter(|n| n.is_finite());
        self.get(key).map(|v| finite(&v).ok_or_else(|| self.wrong(key, "a number", &v))).transpose()
    }

    /// A whole number from 0 to `u32::MAX`.
    pub(crate) fn count(&self, key: &str) -> Result<Option<u32>, JsValue> {
        let whole = |v: &JsValue| v.as_f64().filter(|n| n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(n));
        let expected = "a whole number from 0 to 4294967295";
        self.get(key).map(|v| whole(&v).map(|n| n as u32).ok_or_else(|| self.wrong(key, expected, &v))).transpose()
    }

    /// An array's items, copied in JS into an array of our own: reading a Proxy's items runs its
    /// traps, and one that throws must throw there, not through the module.
    pub(crate) fn items(&self, key: &str) -> Result<Option<js_sys::Array>, JsValue> {
        let Some(value) = self.get(key) else { return Ok(None) };
        if !js_sys::Array::is_array(&value) {
            return Err(self.wrong(key, "an array", &value));
        }
        copy_of_array(&value).map(Some).map_err(|error| unreadable(&format!("{}: {key}", self.what), &error))
    }

    pub(crate) fn strings(&self, key: &str) -> Result<Option<Vec<String>>, JsValue> {
        let Some(items) = self.items(key)? else { return Ok(None) };
        let text = |v: JsValue| v.as_string().ok_or_else(|| self.wrong(key, "an array of strings", &v));
        items.iter().map(text).collect::<Result<_, _>>().map(Some)
    }

    /// An object of strings (`headers`).
    pub(crate) fn string_map(&self, key: &str) -> Result<Vec<(String, String)>, JsValue> {
        self.get(key).map_or(Ok(Vec::new()), |v| string_map(&v, &format!("{}: {key}", self.what)))
    }

    /// Any plain JS value, through JSON (a tool's schema).
    #[cfg(feature = "provider")]
    pub(crate) fn json(&self, key: &str) -> Result<Option<Value>, JsValue> {
        self.get(key).map(|v| json(&v, &format!("{}: {key}", self.what))).transpose()
    }
}

thread_local! {
    /// Each list of known keys [`Options::only`] was given, by address and length, as a JS array
    /// of strings.
    static KNOWN_KEYS: RefCell<Vec<((usize, usize), js_sys::Array)>> = const { RefCell::new(Vec::new()) };
}

/// `known` as a JS array of strings: made on its first use, then kept.
fn js_keys(known: &'static [&'static str]) -> js_sys::Array {
    // The length too: two lists may start at one address (one a prefix of the other).
    let id = (known.as_ptr() as usize, known.len());
    KNOWN_KEYS.with_borrow_mut(|lists| match lists.iter().find(|(i, _)| *i == id) {
        Some((_, keys)) => keys.clone(),
        None => {
            let keys: js_sys::Array = known.iter().map(|k| JsValue::from_str(k)).collect();
            lists.push((id, keys.clone()));
            keys
        }
    })
}

/// An object of strings (a response's headers); `null` and `undefined` are none.
pub(crate) fn string_map(value: &JsValue, what: &str) -> Result<Vec<(String, String)>, JsValue> {
    if value.is_null() || value.is_undefined() {
        return Ok(Vec::new());
    }
    Options::any(value, what)?;
    let entries = entries_of(value).map_err(|error| unreadable(what, &error))?;
    let mut pairs = Vec::with_capacity(entries.length() as usize);
    for entry in entries.iter() {
        let entry: js_sys::Array = entry.unchecked_into();
        let (name, text) = (entry.get(0), entry.get(1));
        let Some(text) = text.as_string() else {
            let name = name.as_string().unwrap_or_default();
            return Err(type_error(&format!("{what}: {name} must be a string, got {}", kind(&text))));
        };
        pairs.push((name.as_string().unwrap_or_default(), text));
    }
    Ok(pairs)
}

/// An array argument read through JSON, each item by `item`; `null` and `undefined` are the
/// empty array.
pub(crate) fn list<T>(value: &JsValue, what: &str, item: fn(&Value) -> Result<T, String>) -> Result<Vec<T>, JsValue> {
    if value.is_null() || value.is_undefined() {
        return Ok(Vec::new());
    }
    if !js_sys::Array::is_array(value) {
        return Err(type_error(&format!("{what} must be an array, got {}", kind(value))));
    }
    crate::json::list(&json(value, what)?, item).map_err(|e| type_error(&format!("{what}{e}")))
}

/// Any plain JS value read through JSON (`JSON.stringify`, then json::parse); `undefined` is
/// `null`. A value JSON cannot carry (a cycle, a BigInt) throws the engine's own `TypeError`.
pub(crate) fn json(value: &JsValue, what: &str) -> Result<Value, JsValue> {
    let text = if value.is_undefined() { "null".into() } else { String::from(js_sys::JSON::stringify(value)?) };
    crate::json::parse(&text).map_err(|e| type_error(&format!("{what}: {e}")))
}

/// An exception's message, or "it threw" for a thrown value that is not an `Error`.
fn reason(error: &JsValue) -> String {
    reason_of(error).unwrap_or_else(|_| "it threw".into())
}

/// The `TypeError` for `what`, an object that threw as it was looked at (a Proxy's traps).
fn unreadable(what: &str, error: &JsValue) -> JsValue {
    type_error(&format!("{what}: could not be read ({})", reason(error)))
}

/// What [`bytes`] found in a chunk.
pub(crate) enum Chunk {
    /// Text or bytes, now in `out`.
    Read,
    /// Neither text nor bytes.
    NotBytes,
    /// Bytes that cannot be read, and the engine's reason: their buffer was transferred away
    /// (`postMessage(…, [buffer])`, `structuredClone(…, { transfer })`), which detaches it.
    Unreadable(String),
}

/// The bytes of a chunk, into `out` (cleared first): a string (as UTF-8), an `ArrayBuffer` or
/// `SharedArrayBuffer`, or any view of one (`Uint8Array` and the other typed arrays, `DataView`,
/// `Buffer`).
pub(crate) fn bytes(chunk: &JsValue, out: &mut Vec<u8>) -> Chunk {
    out.clear();
    if let Some(text) = chunk.as_string() {
        out.extend_from_slice(text.as_bytes());
        return Chunk::Read;
    }
    let view = match byte_view(chunk) {
        Ok(view) if view.is_undefined() => return Chunk::NotBytes,
        Ok(view) => view.unchecked_into::<Uint8Array>(),
        Err(error) => return Chunk::Unreadable(reason(&error)),
    };
    // A view made just now: nothing has run since that could detach its buffer.
    out.resize(view.length() as usize, 0);
    view.copy_to(out);
    Chunk::Read
}

/// The error event for a chunk whose bytes cannot be read: it is skipped, and the stream goes on.
pub(crate) fn unreadable_chunk(reason: &str) -> StreamEvent {
    let message = format!("Failed to read response: a chunk of the body could not be read ({reason}); it was skipped");
    StreamEvent::error(ErrorCode::ServiceUnavailable, message)
}

// In JS behind `catch`, because a detached buffer throws wherever it is touched (a `DataView`'s
// getters, `new Uint8Array(buffer)`, copying out of a view), and an exception thrown through the
// module would leave the object mid-call: unusable, still borrowed.
#[wasm_bindgen(inline_js = r#"
export function byteView(chunk) {
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const shared = typeof SharedArrayBuffer === "function" && chunk instanceof SharedArrayBuffer;
  return chunk instanceof ArrayBuffer || shared ? new Uint8Array(chunk) : undefined;
}
export function reasonOf(error) {
  return error instanceof Error ? String(error.message) : "it threw";
}
// Which of `known` a plain object has as its own keys, as bits; the first other key whose value
// is not null or undefined, as a string (a getter that throws reads as undefined); -2 when it is
// not plain (it may inherit options); the exception when the object throws as it is looked at
// (a Proxy's traps): caught here, since an exception thrown through the module leaves it mid-call.
export function ownKnownKeys(object, known) {
  try {
    let own = 0;
    for (const key of Object.keys(object)) {
      const i = known.indexOf(key);
      if (i >= 0) own |= 1 << i;
      else if (valueOrUndefined(object, key) != null) return key;
    }
    const proto = Object.getPrototypeOf(object);
    return proto === null || Object.getPrototypeOf(proto) === null ? own : -2;
  } catch (error) {
    return error instanceof Error ? error : new Error("it threw");
  }
}
export function entriesOf(object) {
  return Object.entries(object);
}
export function copyOfArray(array) {
  return Array.prototype.slice.call(array);
}
function valueOrUndefined(object, key) {
  try {
    return Reflect.get(object, key);
  } catch {
    return undefined;
  }
}
"#)]
extern "C" {
    /// A new `Uint8Array` over a chunk's bytes; `undefined` when it has none; `Err` when they
    /// cannot be read.
    #[wasm_bindgen(js_name = byteView, catch)]
    fn byte_view(chunk: &JsValue) -> Result<JsValue, JsValue>;
    /// An exception's message.
    #[wasm_bindgen(js_name = reasonOf, catch)]
    fn reason_of(error: &JsValue) -> Result<String, JsValue>;
    /// Which of `known` an options object has (see [`Options::only`]).
    #[wasm_bindgen(js_name = ownKnownKeys)]
    fn own_known_keys(object: &JsValue, known: &js_sys::Array) -> JsValue;
    /// `Object.entries`; `Err` when the object throws (a Proxy's traps).
    #[wasm_bindgen(js_name = entriesOf, catch)]
    fn entries_of(object: &JsValue) -> Result<js_sys::Array, JsValue>;
    /// `array.slice()` for any array, a Proxy's too; `Err` when it throws.
    #[wasm_bindgen(js_name = copyOfArray, catch)]
    fn copy_of_array(array: &JsValue) -> Result<js_sys::Array, JsValue>;
}
