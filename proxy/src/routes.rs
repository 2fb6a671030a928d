//! The router: the chat routes (each forwarded or simulated), the static demo files, the access log,
//! and what every route goes through first (the `Host` and `Origin` checks, CORS, `nosniff`).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Extension, Router};
use bytes::Bytes;
use futures_util::StreamExt;
use percent_encoding::percent_decode_str;
use serde_json::Value;
use tokio::time::Instant;
use tower_http::cors::CorsLayer;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::access::{is_json, same_site, shown, Allowed};
use crate::config::Config;
use crate::limits::{guard, RateLimiter, Watch};
use crate::provider::Provider;
use crate::redact::Redactor;
use crate::resume::{AnswerStore, STREAM_ID};
use crate::resume_redis::RedisMirror;
use crate::server::CloseConnection;
use crate::simulate::{paced, simulate, Simulated};
use crate::static_files::{self, Roots};
use crate::upstream::{self, proxy_error, stream_headers, Forward};

struct AppState {
    config: Config,
    client: reqwest::Client,
    limiter: RateLimiter,
    redactor: Redactor,
    answers: AnswerStore,
}

/// `address` is where the proxy listens (with the real port when `--port 0`): the `Host` it answers to.
pub fn router(config: Config, address: SocketAddr, mirror: Option<RedisMirror>) -> Router {
    let allowed = Allowed::new(address, &config.allowed_hosts, config.cors_origin.as_deref());
    let roots = Roots::new(config.www.clone(), config.pkg.clone());
    let cors = config.cors_origin.as_deref().and_then(|origin| HeaderValue::from_str(origin).ok()).map(|origin| {
        CorsLayer::new()
            .allow_origin(origin)
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            .allow_headers([header::CONTENT_TYPE, header::AUTHORIZATION])
            .expose_headers([STREAM_ID])
    });
    let state = Arc::new(AppState {
        client: upstream::client(&config.limits),
        limiter: RateLimiter::new(config.limits.requests_per_minute),
        redactor: Redactor::new(config.keys.0.iter().map(|(_, key)| key.as_str())),
        answers: AnswerStore::new(config.resume, config.limits.total + config.limits.idle, mirror),
        config,
    });
    let api = Router::new()
        .route("/api/chat/{provider}", post(provider_chat))
        .route_layer(middleware::from_fn_with_state(state.clone(), chat_gate))
        .route("/api/chat/{provider}/streams/{id}", get(resume).delete(stop))
        .route("/api/providers", get(providers))
        .route("/api/{*rest}", any(|| async { StatusCode::NOT_FOUND }))
        .with_state(state);
    let files = Router::new().fallback(static_files::serve).with_state(roots);
    let mut app = api.merge(files);
    if let Some(cors) = cors {
        app = app.layer(cors);
    }
    app.layer(middleware::from_fn_with_state(allowed, same_site))
        .layer(SetResponseHeaderLayer::overriding(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")))
        .layer(middleware::from_fn(access_log))
}

/// What a chat request must pass before its body is read, each refusal in the route's provider error
/// format: a body declared as JSON (else 415; see [`crate::access`]), and the client's rate (else 429).
///
/// The provider is decided here, once, from the percent-decoded path (the form the router matched), and
/// handed to the handler: every spelling of a route meets the same checks.
async fn chat_gate(
    State(state): State<Arc<AppState>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    let decoded = percent_decode_str(request.uri().path()).decode_utf8().ok();
    // An unknown provider is the handler's 404.
    let Some(provider) = decoded.and_then(|path| Provider::from_path(&path)) else { return next.run(request).await };
    if !is_json(request.headers()) {
        let sent = match request.headers().get(header::CONTENT_TYPE) {
            Some(value) => format!("sent as {}", shown(value.to_str().unwrap_or_default())),
            None => "sent without one".to_string(),
        };
        let message =
            format!("The request body must be JSON, sent as Content-Type: application/json; this one was {sent}.");
        return refused(provider, StatusCode::UNSUPPORTED_MEDIA_TYPE, &message);
    }
    if let Err(retry_after) = state.limiter.check(client.ip()) {
        let message = format!(
            "Too many requests from this client, over the proxy's --rate-limit of {} a minute; retry later.",
            state.config.limits.requests_per_minute
        );
        let mut response = refused(provider, StatusCode::TOO_MANY_REQUESTS, &message);
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
        return response;
    }
    request.extensions_mut().insert(provider);
    next.run(request).await
}

/// A request the proxy refuses itself, in the route's error format, and in the log: the message names what
/// was refused and what would allow it.
fn refused(provider: Provider, status: StatusCode, message: &str) -> Response {
    tracing::warn!("{}: {message}", provider.name());
    proxy_error(provider, status, message)
}

/// `POST /api/chat/{provider}`, the agent's `stream` included, for the provider [`chat_gate`] decided.
async fn provider_chat(
    State(state): State<Arc<AppState>>,
    provider: Option<Extension<Provider>>,
    close: Option<Extension<CloseConnection>>,
    request: Request,
) -> Response {
    match provider {
        Some(Extension(provider)) => {
            let close = close.map(|c| c.0);
            let response = chat(&state, provider, close.clone(), request).await;
            state.answers.keep(provider, response, close)
        }
        None => unknown_provider(),
    }
}

fn unknown_provider() -> Response {
    (StatusCode::NOT_FOUND, axum::Json(serde_json::json!({"error": {"message": "Unknown provider."}}))).into_response()
}

/// `GET /api/chat/{provider}/streams/{id}?from=<bytes received>`: a kept answer, from that byte on.
/// (`Path` percent-decodes, so every spelling of a route is the same route; `Host` and `Origin` were
/// checked for every path.)
async fn resume(
    State(state): State<Arc<AppState>>,
    Path((route, id)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
    close: Option<Extension<CloseConnection>>,
) -> Response {
    let Some(provider) = Provider::from_path(&format!("/api/chat/{route}")) else { return unknown_provider() };
    state.answers.resume(provider, &id, query.get("from").map(String::as_str), close.map(|c| c.0)).await
}

/// `DELETE /api/chat/{provider}/streams/{id}`: stops the answer: its upstream is dropped at once.
async fn stop(State(state): State<Arc<AppState>>, Path((route, id)): Path<(String, String)>) -> Response {
    let Some(provider) = Provider::from_path(&format!("/api/chat/{route}")) else { return unknown_provider() };
    state.answers.stop(provider, &id).await
}

/// Which routes reach a real upstream and which the simulated provider answers (for the demo's
/// picker). Names only: never a key or an upstream URL.
async fn providers(State(state): State<Arc<AppState>>) -> Response {
    let u = &state.config.upstreams;
    let routes = [
        ("openai", u.openai.is_some()),
        ("openai-responses", u.openai_responses.is_some()),
        ("anthropic", u.anthropic.is_some()),
        ("gemini", u.gemini.is_some()),
        ("ollama", u.ollama.is_some()),
        ("compat", u.compat.is_some()),
        ("stream", u.agent.is_some()),
    ];
    let listed: serde_json::Map<String, Value> = routes
        .into_iter()
        .map(|(name, real)| (name.to_owned(), Value::from(if real { "configured" } else { "simulated" })))
        .collect();
    axum::Json(Value::Object(listed)).into_response()
}

/// The most of a body over the limit that is read and thrown away so that its client reads the 413.
const DRAIN_BYTES: u64 = 100 << 20;

/// The body, within the body limit (413) and the header timeout, counted from the headers (408).
///
/// A body over the limit is read on and thrown away (up to [`DRAIN_BYTES`], within the header timeout
/// again) before the 413 goes out, and the connection is closed after it. A browser's `fetch`, like
/// Node's, reads no answer while it is still sending: a connection closed under it is a network error,
/// with no status and no message.
async fn read_body(state: &AppState, provider: Provider, request: Request) -> Result<Bytes, Response> {
    let limit = state.config.limits.body_bytes;
    let declared = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let mut body = request.into_body().into_data_stream();
    let mut read = Vec::new();
    let within_limit = async {
        if declared.is_some_and(|length| length > limit as u64) {
            return Ok(false);
        }
        while let Some(chunk) = body.next().await {
            let chunk = chunk?;
            if read.len() + chunk.len() > limit {
                return Ok(false);
            }
            read.extend_from_slice(&chunk);
        }
        Ok::<_, axum::Error>(true)
    };
    match tokio::time::timeout(state.config.connections.header, within_limit).await {
        Ok(Ok(true)) => Ok(Bytes::from(read)),
        Ok(Ok(false)) => {
            let drain = async {
                let mut drained = 0;
                while let Some(Ok(chunk)) = body.next().await {
                    drained += chunk.len() as u64;
                    if drained > DRAIN_BYTES {
                        break;
                    }
                }
            };
            let _ = tokio::time::timeout(state.config.connections.header, drain).await;
            let message = "The request body is larger than the proxy's limit (--body-limit).";
            let mut response = refused(provider, StatusCode::PAYLOAD_TOO_LARGE, message);
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
        Ok(Err(_)) => Err(proxy_error(provider, StatusCode::BAD_REQUEST, "The request body could not be read.")),
        Err(_) => Err(proxy_error(provider, StatusCode::REQUEST_TIMEOUT, "The request body did not arrive in time.")),
    }
}

async fn chat(state: &AppState, provider: Provider, close: Option<CloseConnection>, request: Request) -> Response {
    let body = match read_body(state, provider, request).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let json: Value = match serde_json::from_slice(&body) {
        Ok(json @ Value::Object(_)) => json,
        _ => return proxy_error(provider, StatusCode::BAD_REQUEST, "The request body is not a JSON object."),
    };
    let upstreams = &state.config.upstreams;
    let via = Forward { client: &state.client, limits: &state.config.limits, redactor: &state.redactor, close };
    let configured = match provider {
        Provider::OpenAi => upstreams.openai.as_ref(),
        Provider::OpenAiResponses => upstreams.openai_responses.as_ref(),
        Provider::Anthropic => upstreams.anthropic.as_ref(),
        Provider::Ollama => upstreams.ollama.as_ref(),
        Provider::Compat => upstreams.compat.as_ref(),
        Provider::Agent => upstreams.agent.as_ref(),
        Provider::Gemini => {
            let Some(gemini) = upstreams.gemini.as_ref() else { return simulated(state, provider, &json, via.close) };
            // Gemini names the model in the URL; the request names it in `model`, which Gemini's body lacks.
            let mut json = json;
            let model = match json.as_object_mut().and_then(|o| o.remove("model")) {
                Some(Value::String(model)) => model.trim_start_matches("models/").to_string(),
                None => gemini.default_model.clone(),
                Some(_) => return proxy_error(provider, StatusCode::BAD_REQUEST, "`model` must be a string."),
            };
            if model.is_empty() || !model.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
                return proxy_error(provider, StatusCode::BAD_REQUEST, "`model` is not a Gemini model name.");
            }
            let url = format!("{}/models/{model}:streamGenerateContent?alt=sse", gemini.base_url);
            let body = Bytes::from(json.to_string());
            return upstream::forward(via, provider, &gemini.key, &url, body).await;
        }
    };
    match configured {
        // The body goes upstream as the browser sent it, byte for byte.
        Some(upstream) => upstream::forward(via, provider, upstream, &upstream.url, body).await,
        None => simulated(state, provider, &json, via.close),
    }
}

fn simulated(state: &AppState, provider: Provider, json: &Value, close: Option<CloseConnection>) -> Response {
    match simulate(provider, json) {
        Simulated::Status { status, body } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut response = (status, axum::Json(body)).into_response();
            if status == StatusCode::TOO_MANY_REQUESTS {
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            response
        }
        Simulated::Stream { frames, stall } => {
            let limits = &state.config.limits;
            let paced = paced(frames, stall, state.config.sim_delay).map(Ok::<_, std::convert::Infallible>);
            let deadline = Instant::now() + limits.total;
            let watch = Watch { provider, idle: limits.idle, deadline, redactor: Redactor::default(), close };
            let mut response = Response::new(guard(watch, paced));
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(provider.content_type()));
            stream_headers(response.headers_mut());
            response
        }
    }
}

/// One line per request: method, path (never the query or body: they may hold prompts), status, bytes sent,
/// time to first body byte and total time — written when the body ends or the client goes away.
async fn access_log(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    let status = response.status().as_u16();
    let (parts, body) = response.into_parts();
    // hyper stops reading a body once it has sent Content-Length bytes: that counts as the end too.
    let length = parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse().ok());
    let log = AccessLog {
        method: method.to_string(),
        path,
        status,
        started,
        first_byte: None,
        bytes: 0,
        length,
        ended: false,
    };
    let counted = futures_util::stream::unfold((body.into_data_stream(), log), |(mut body, mut log)| async move {
        match body.next().await {
            Some(Ok(chunk)) => {
                log.first_byte.get_or_insert_with(|| log.started.elapsed());
                log.bytes += chunk.len() as u64;
                Some((Ok::<_, axum::Error>(chunk), (body, log)))
            }
            Some(Err(err)) => Some((Err(err), (body, log))),
            None => {
                log.ended = true;
                drop(log); // writes the line now, with the outcome
                None
            }
        }
    });
    Response::from_parts(parts, Body::from_stream(counted))
}

struct AccessLog {
    method: String,
    path: String,
    status: u16,
    started: Instant,
    first_byte: Option<Duration>,
    bytes: u64,
    length: Option<u64>,
    ended: bool,
}

impl Drop for AccessLog {
    fn drop(&mut self) {
        tracing::info!(
            method = %self.method,
            path = %self.path,
            status = self.status,
            bytes = self.bytes,
            first_byte_ms = self.first_byte.map(|d| d.as_millis() as u64),
            duration_ms = self.started.elapsed().as_millis() as u64,
            outcome = if self.ended || self.length == Some(self.bytes) { "complete" } else { "client went away" },
        );
    }
}
