//! The router: the chat routes (each forwarded or simulated), the static demo files, the access log.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::Value;
use tokio::time::Instant;
use tower_http::cors::CorsLayer;
use tower_http::services::ServeDir;

use crate::config::Config;
use crate::limits::{guard, rate_limit, RateLimiter};
use crate::provider::Provider;
use crate::simulate::{paced, simulate, Simulated};
use crate::upstream::{self, proxy_error, stream_headers};

struct AppState {
    config: Config,
    client: reqwest::Client,
}

pub fn router(config: Config) -> Router {
    let client = upstream::client(&config.limits);
    let limiter = RateLimiter::new(config.limits.requests_per_minute);
    let chat = Router::new()
        .route("/api/chat/stream", post(agent))
        .route("/api/chat/{provider}", post(provider_chat))
        .route_layer(DefaultBodyLimit::max(config.limits.body_bytes))
        .route_layer(middleware::from_fn_with_state(limiter, rate_limit))
        .route("/api/providers", get(providers))
        .route("/api/{*rest}", any(|| async { StatusCode::NOT_FOUND }));
    let files =
        Router::new().nest_service("/pkg", ServeDir::new(&config.pkg)).fallback_service(ServeDir::new(&config.www));
    let cors = config.cors_origin.as_deref().and_then(|origin| HeaderValue::from_str(origin).ok()).map(|origin| {
        CorsLayer::new()
            .allow_origin(origin)
            .allow_methods([Method::GET, Method::POST])
            .allow_headers([header::CONTENT_TYPE])
    });
    let state = Arc::new(AppState { config, client });
    let app = chat.with_state(state).merge(files).layer(middleware::from_fn(access_log));
    match cors {
        Some(cors) => app.layer(cors),
        None => app,
    }
}

async fn provider_chat(State(state): State<Arc<AppState>>, Path(name): Path<String>, body: Bytes) -> Response {
    match Provider::from_route(&name) {
        Some(provider) => chat(&state, provider, body).await,
        None => (StatusCode::NOT_FOUND, axum::Json(serde_json::json!({"error": {"message": "Unknown provider."}})))
            .into_response(),
    }
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

async fn agent(State(state): State<Arc<AppState>>, body: Bytes) -> Response {
    chat(&state, Provider::Agent, body).await
}

async fn chat(state: &AppState, provider: Provider, body: Bytes) -> Response {
    let json: Value = match serde_json::from_slice(&body) {
        Ok(json @ Value::Object(_)) => json,
        _ => return proxy_error(provider, StatusCode::BAD_REQUEST, "The request body is not a JSON object."),
    };
    let upstreams = &state.config.upstreams;
    let limits = &state.config.limits;
    let configured = match provider {
        Provider::OpenAi => upstreams.openai.as_ref(),
        Provider::OpenAiResponses => upstreams.openai_responses.as_ref(),
        Provider::Anthropic => upstreams.anthropic.as_ref(),
        Provider::Ollama => upstreams.ollama.as_ref(),
        Provider::Compat => upstreams.compat.as_ref(),
        Provider::Agent => upstreams.agent.as_ref(),
        Provider::Gemini => {
            let Some(gemini) = upstreams.gemini.as_ref() else { return simulated(state, provider, &json) };
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
            return upstream::forward(&state.client, limits, provider, &gemini.key, &url, body).await;
        }
    };
    match configured {
        // The body goes upstream as the browser sent it, byte for byte.
        Some(upstream) => upstream::forward(&state.client, limits, provider, upstream, &upstream.url, body).await,
        None => simulated(state, provider, &json),
    }
}

fn simulated(state: &AppState, provider: Provider, json: &Value) -> Response {
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
            let body = guard(provider, paced, limits.idle, Instant::now() + limits.total);
            let mut response = Response::new(Body::from_stream(body));
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
