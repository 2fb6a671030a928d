//! The error messages the package's JS side needs while it reads responses: a response with an
//! error status, a request that failed before any response, a response silent too long.

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error;

/// `{ code, message }` for a response whose status is not 2xx, with its body's text.
#[wasm_bindgen(js_name = httpError)]
pub fn http_error(status: u16, body: &str) -> JsValue {
    // A JSON body read with the AI SDK backend mode's reader where the module has it: the AI SDK
    // entry's module then links no serde_json (error::http_error_read).
    #[cfg(feature = "ai-sdk")]
    let (code, message) = error::http_error_read(status, body, crate::ai_sdk::error_body_message);
    #[cfg(not(feature = "ai-sdk"))]
    let (code, message) = error::http_error(status, body);
    let object = Object::new();
    let _ = Reflect::set(&object, &"code".into(), &code.as_str().into());
    let _ = Reflect::set(&object, &"message".into(), &message.into());
    object.into()
}

/// The message for a request that failed before any response (the error's `name` and `message`).
#[wasm_bindgen(js_name = connectionFailed)]
pub fn connection_failed(name: &str, message: &str) -> String {
    error::connection_failed(name, message)
}

/// The message for a response silent for `ms` milliseconds.
#[wasm_bindgen(js_name = timedOut)]
pub fn timed_out(ms: f64) -> String {
    error::timed_out(ms.max(0.0) as u64)
}
