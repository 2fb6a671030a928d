//! A turn's HTTP request: a JSON POST to the session's endpoint. `headers` and `body` (extra
//! fields merged into the request body) may be functions, sync or async, called for each
//! request, so that a refreshed auth token is used.

use js_sys::{Function, Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use super::args;

/// Where and how a session's requests go.
#[derive(Clone)]
pub(crate) struct RequestOptions {
    pub endpoint: String,
    /// An object, or a function returning one (or a promise of one).
    headers: JsValue,
    /// Extra body fields: an object, or a function returning one (or a promise of one).
    body: JsValue,
    credentials: Option<String>,
    fetch: Option<Function>,
}

impl RequestOptions {
    /// The request options among a session's options; `endpoint` when none is given.
    pub(crate) fn new(options: &JsValue, endpoint: String) -> Result<RequestOptions, JsValue> {
        let mut request = RequestOptions {
            endpoint,
            headers: JsValue::UNDEFINED,
            body: JsValue::UNDEFINED,
            credentials: None,
            fetch: None,
        };
        request.update(options)?;
        Ok(request)
    }

    /// Takes the request options `options` names (`endpoint`, `headers`, `body`, `credentials`,
    /// `fetch`), leaving the others as they are.
    pub(crate) fn update(&mut self, options: &JsValue) -> Result<(), JsValue> {
        if !options.is_object() {
            return Ok(());
        }
        let field = |key: &str| Reflect::get(options, &key.into()).unwrap_or(JsValue::UNDEFINED);
        let (endpoint, headers, body) = (field("endpoint"), field("headers"), field("body"));
        let (credentials, fetch) = (field("credentials"), field("fetch"));
        if !endpoint.is_undefined() {
            self.endpoint = args::text(&endpoint, "ChatSession options: endpoint")?;
        }
        if !headers.is_undefined() {
            self.headers = object_or_function(headers, "headers")?;
        }
        if !body.is_undefined() {
            self.body = object_or_function(body, "body")?;
        }
        if !credentials.is_undefined() {
            self.credentials = Some(args::text(&credentials, "ChatSession options: credentials")?);
        }
        if !fetch.is_undefined() {
            self.fetch =
                Some(fetch.dyn_into().map_err(|_| args::type_error("ChatSession options: fetch must be a function"))?);
        }
        Ok(())
    }

    /// POSTs `body` as JSON, with the headers and extra body fields as they are now; returns a
    /// promise of the response.
    pub(crate) fn post(&self, body: Value, signal: &AbortSignal) -> JsValue {
        let (request, signal) = (self.clone(), signal.clone());
        wasm_bindgen_futures::future_to_promise(async move { request.send(body, &signal).await }).into()
    }

    async fn send(self, mut body: Value, signal: &AbortSignal) -> Result<JsValue, JsValue> {
        let headers = Object::new();
        let _ = Reflect::set(&headers, &"content-type".into(), &"application/json".into());
        let _ = Reflect::set(&headers, &"accept".into(), &"text/event-stream".into());
        let given = evaluate(&self.headers).await?;
        if given.is_object() {
            Object::assign(&headers, given.unchecked_ref());
        }
        let extra = evaluate(&self.body).await?;
        if let (Value::Object(fields), Value::Object(more)) = (&mut body, args::json(&extra, "ChatSession body")?) {
            fields.extend(more);
        }
        let init = Object::new();
        let _ = Reflect::set(&init, &"method".into(), &"POST".into());
        let _ = Reflect::set(&init, &"headers".into(), &headers);
        let _ = Reflect::set(&init, &"body".into(), &body.to_string().into());
        let _ = Reflect::set(&init, &"signal".into(), signal);
        if let Some(credentials) = &self.credentials {
            let _ = Reflect::set(&init, &"credentials".into(), &credentials.into());
        }
        let global = js_sys::global();
        let fetch = match self.fetch {
            Some(fetch) => fetch,
            None => Reflect::get(&global, &"fetch".into())?
                .dyn_into::<Function>()
                .map_err(|_| js_sys::Error::new("fetch is not available here"))?,
        };
        let response = fetch.call2(&global, &self.endpoint.as_str().into(), &init)?;
        JsFuture::from(Promise::resolve(&response)).await
    }
}

fn object_or_function(value: JsValue, what: &str) -> Result<JsValue, JsValue> {
    if value.is_null() || value.is_function() || (value.is_object() && !js_sys::Array::is_array(&value)) {
        Ok(value)
    } else {
        Err(args::type_error(&format!("ChatSession options: {what} must be an object or a function")))
    }
}

/// The value of an option that may be a function (sync or async).
async fn evaluate(option: &JsValue) -> Result<JsValue, JsValue> {
    let Some(function) = option.dyn_ref::<Function>() else { return Ok(option.clone()) };
    JsFuture::from(Promise::resolve(&function.call0(&JsValue::UNDEFINED)?)).await
}
