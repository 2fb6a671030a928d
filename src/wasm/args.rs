//! Reading what JS passes in. Every exported function takes its arguments as `JsValue` and reads
//! them here, so that a value of the wrong type is a `TypeError` naming the parameter: handing a
//! number to a `&str` parameter of wasm-bindgen's glue traps the module instead, and a trap
//! leaves it unusable for every chat on the page.

use js_sys::{ArrayBuffer, Uint8Array};
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A `TypeError` with this message.
pub(crate) fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// What a value is, in a message: `typeof`, with `null` and arrays told apart.
fn kind(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
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

/// An options object read through JSON; `null` and `undefined` are the defaults.
pub(crate) fn options<T: DeserializeOwned + Default>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    if value.is_null() || value.is_undefined() {
        return Ok(T::default());
    }
    if !value.is_object() || js_sys::Array::is_array(value) || value.is_function() {
        return Err(type_error(&format!("{what} must be an object, got {}", kind(value))));
    }
    json(value, what)
}

/// An array argument read through JSON; `null` and `undefined` are the empty array.
pub(crate) fn list<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<Vec<T>, JsValue> {
    if value.is_null() || value.is_undefined() {
        return Ok(Vec::new());
    }
    if !js_sys::Array::is_array(value) {
        return Err(type_error(&format!("{what} must be an array, got {}", kind(value))));
    }
    json(value, what)
}

/// Any plain JS value read through JSON (`JSON.stringify`, then serde); `undefined` is `null`.
/// A value JSON cannot carry (a cycle, a BigInt) throws the engine's own `TypeError`.
pub(crate) fn json<T: DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    let text = if value.is_undefined() { "null".into() } else { String::from(js_sys::JSON::stringify(value)?) };
    serde_json::from_str(&text).map_err(|e| type_error(&format!("{what}: {e}")))
}

/// The bytes of a chunk, into `out` (cleared first): a string (as UTF-8), an `ArrayBuffer` or
/// `SharedArrayBuffer`, or any view of one (`Uint8Array` and the other typed arrays, `DataView`,
/// `Buffer`). `false` when `chunk` is none of these.
pub(crate) fn bytes(chunk: &JsValue, out: &mut Vec<u8>) -> bool {
    out.clear();
    if let Some(text) = chunk.as_string() {
        out.extend_from_slice(text.as_bytes());
        return true;
    }
    let view = if let Some(array) = chunk.dyn_ref::<Uint8Array>() {
        array.clone()
    } else if ArrayBuffer::is_view(chunk) {
        let view: &ArrayBufferView = chunk.unchecked_ref();
        Uint8Array::new_with_byte_offset_and_length(&view.buffer(), view.byte_offset(), view.byte_length())
    } else if chunk.is_instance_of::<ArrayBuffer>() || chunk.is_instance_of::<js_sys::SharedArrayBuffer>() {
        Uint8Array::new(chunk)
    } else {
        return false;
    };
    out.resize(view.length() as usize, 0);
    view.copy_to(out);
    true
}

#[wasm_bindgen]
extern "C" {
    /// A typed array or `DataView`.
    type ArrayBufferView;
    #[wasm_bindgen(method, getter)]
    fn buffer(this: &ArrayBufferView) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = byteOffset)]
    fn byte_offset(this: &ArrayBufferView) -> u32;
    #[wasm_bindgen(method, getter, js_name = byteLength)]
    fn byte_length(this: &ArrayBufferView) -> u32;
}
