//! Resumable answers: a client cut mid-answer resumes it byte for byte, the upstream reads on within the
//! grace period and is dropped after it or on a stop, unknown ids are a 404 in the route's format, other
//! origins cannot resume, and the memory bounds hold.

mod common;

use std::time::Duration;

use axum::body::Bytes;
use common::{body_text, client, frame, post_json, upstream, Answer, FakeUpstream, Proxy};
use futures_util::StreamExt;

const KEY: &str = "sk-test-CANARY-5c1d9e";

fn proxy(upstream: &FakeUpstream, args: &[&str]) -> Proxy {
    let base = format!("{}/v1", upstream.base);
    Proxy::start(args, &[("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", &base)])
}

/// Reads from `body` until `want` bytes in all have come (a chunk may hold several frames).
async fn read_bytes(
    body: &mut (impl futures_util::Stream<Item = reqwest::Result<Bytes>> + Unpin),
    want: usize,
) -> Vec<u8> {
    let mut read = Vec::new();
    while read.len() < want {
        let chunk = tokio::time::timeout(Duration::from_secs(20), body.next()).await.expect("no hang");
        read.extend_from_slice(&chunk.expect("more bytes").unwrap());
    }
    read
}

async fn start_answer(proxy: &Proxy) -> (String, impl futures_util::Stream<Item = reqwest::Result<Bytes>> + Unpin) {
    let response = post_json(proxy.endpoint("/api/chat/openai"), r#"{"stream":true}"#).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let id = response.headers().get("x-stream-id").expect("the stream id header").to_str().unwrap().to_string();
    (id, response.bytes_stream())
}

async fn hears_drop(answer: &mut Answer, what: &str) {
    tokio::time::timeout(Duration::from_secs(20), answer.dropped.recv()).await.unwrap_or_else(|_| panic!("{what}"));
}

#[tokio::test]
async fn a_client_cut_mid_answer_resumes_byte_exact_while_the_upstream_reads_on() {
    let (upstream, mut answers) = upstream(1).await;
    let proxy = proxy(&upstream, &[]);
    let answer = &mut answers[0];
    let frames: Vec<Bytes> = ["Once", " upon", " a time", ", a stream", " was cut", "."].map(frame).into();
    let whole: Vec<u8> = frames.concat();
    let (id, mut body) = start_answer(&proxy).await;
    answer.send.send(frames[0].clone()).unwrap();
    answer.send.send(frames[1].clone()).unwrap();
    let mut received = read_bytes(&mut body, frames[0].len() + frames[1].len()).await;
    // The connection is cut: the client reads no more.
    drop(body);
    // The upstream goes on answering after the cut, and the resumed client gets those bytes live.
    answer.send.send(frames[2].clone()).unwrap();
    let resumed = client().get(proxy.endpoint(&format!("/api/chat/openai/streams/{id}?from={}", received.len())));
    let resumed = resumed.send().await.unwrap();
    assert_eq!(resumed.status(), 200);
    assert_eq!(resumed.headers()["content-type"], "text/event-stream");
    let mut rest = resumed.bytes_stream();
    let live = read_bytes(&mut rest, frames[2].len()).await;
    assert_eq!(live, frames[2]);
    received.extend_from_slice(&live);
    assert!(answer.dropped.try_recv().is_err(), "the upstream was cancelled within the grace period");
    for frame in &frames[3..] {
        answer.send.send(frame.clone()).unwrap();
    }
    // The upstream ends its answer.
    drop(answers.remove(0).send);
    while let Some(chunk) = tokio::time::timeout(Duration::from_secs(20), rest.next()).await.expect("no hang") {
        received.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(String::from_utf8(received).unwrap(), String::from_utf8(whole).unwrap());
}

#[tokio::test]
async fn a_finished_answer_is_served_until_its_grace_period_ends() {
    let (upstream, mut answers) = upstream(1).await;
    let proxy = proxy(&upstream, &["--resume-grace-ms", "500"]);
    let Answer { send, .. } = answers.remove(0);
    let (id, _body) = {
        let response = post_json(proxy.endpoint("/api/chat/openai"), "{}").send().await.unwrap();
        let id = response.headers()["x-stream-id"].to_str().unwrap().to_string();
        send.send(frame("all")).unwrap();
        send.send(frame(" of it")).unwrap();
        drop(send);
        (id, body_text(response).await)
    };
    let url = proxy.endpoint(&format!("/api/chat/openai/streams/{id}"));
    let whole = [frame("all"), frame(" of it")].concat();
    assert_eq!(body_text(client().get(&url).send().await.unwrap()).await.as_bytes(), whole);
    let from_10 = client().get(format!("{url}?from=10")).send().await.unwrap();
    assert_eq!(body_text(from_10).await.as_bytes(), &whole[10..]);
    let past_end = client().get(format!("{url}?from={}", whole.len() + 1)).send().await.unwrap();
    assert_eq!(past_end.status(), 416);
    let not_a_number = client().get(format!("{url}?from=-1")).send().await.unwrap();
    assert_eq!(not_a_number.status(), 400);
    // Nobody reads it any more: after the grace period it is gone. Each look is a reader too and starts
    // the grace period again, so the looks are further apart than it (no timing asserted).
    let mut status = 200;
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(1000)).await;
        status = client().get(&url).send().await.unwrap().status().as_u16();
        if status == 404 {
            break;
        }
    }
    assert_eq!(status, 404);
}

#[tokio::test]
async fn nobody_back_within_the_grace_period_cancels_the_upstream() {
    let (upstream, mut answers) = upstream(1).await;
    let proxy = proxy(&upstream, &["--resume-grace-ms", "300"]);
    let (id, mut body) = start_answer(&proxy).await;
    answers[0].send.send(frame("Hello")).unwrap();
    read_bytes(&mut body, frame("Hello").len()).await;
    drop(body);
    // The upstream never ends by itself: only the grace period can let it go.
    hears_drop(&mut answers[0], "the upstream is dropped once the grace period passes with nobody reading").await;
    let gone = client().get(proxy.endpoint(&format!("/api/chat/openai/streams/{id}"))).send().await.unwrap();
    assert_eq!(gone.status(), 404);
}

#[tokio::test]
async fn delete_stops_the_upstream_at_once() {
    let (upstream, mut answers) = upstream(1).await;
    // The default grace period is a minute: only the stop can end the upstream within the test.
    let proxy = proxy(&upstream, &[]);
    let (id, mut body) = start_answer(&proxy).await;
    answers[0].send.send(frame("Hello")).unwrap();
    read_bytes(&mut body, frame("Hello").len()).await;
    let url = proxy.endpoint(&format!("/api/chat/openai/streams/{id}"));
    assert_eq!(client().delete(&url).send().await.unwrap().status(), 204);
    hears_drop(&mut answers[0], "DELETE drops the upstream").await;
    // The client reading it sees its end.
    assert!(tokio::time::timeout(Duration::from_secs(20), body.next()).await.expect("no hang").is_none());
    assert_eq!(client().get(&url).send().await.unwrap().status(), 404);
    assert_eq!(client().delete(&url).send().await.unwrap().status(), 404);
}

#[tokio::test]
async fn unknown_ids_are_a_404_in_the_routes_format() {
    let (upstream, mut answers) = upstream(1).await;
    let proxy = proxy(&upstream, &[]);
    let (id, _body) = start_answer(&proxy).await;
    let get = |path: String| client().get(proxy.endpoint(&path)).send();
    let openai = get("/api/chat/openai/streams/0123456789abcdef0123456789abcdef".into()).await.unwrap();
    assert_eq!(openai.status(), 404);
    let json: serde_json::Value = serde_json::from_str(&body_text(openai).await).unwrap();
    assert_eq!(json["error"]["code"], "invalid_request", "{json}");
    assert!(json["error"]["message"].as_str().unwrap().contains("No stream with this id"), "{json}");
    // An id belongs to its route: on another route it is unknown.
    let anthropic = get(format!("/api/chat/anthropic/streams/{id}")).await.unwrap();
    assert_eq!(anthropic.status(), 404);
    let json: serde_json::Value = serde_json::from_str(&body_text(anthropic).await).unwrap();
    assert_eq!((json["type"].as_str(), json["error"]["type"].as_str()), (Some("error"), Some("not_found_error")));
    let agent = get(format!("/api/chat/stream/streams/{id}")).await.unwrap();
    assert_eq!(agent.status(), 404);
    let json: serde_json::Value = serde_json::from_str(&body_text(agent).await).unwrap();
    assert_eq!(json["type"], "error", "{json}");
    assert_eq!(client().delete(proxy.endpoint("/api/chat/openai/streams/nope")).send().await.unwrap().status(), 404);
    assert_eq!(get(format!("/api/chat/nope/streams/{id}")).await.unwrap().status(), 404);
    drop(answers.remove(0).send);
}

#[tokio::test]
async fn another_origin_can_neither_resume_nor_stop_an_answer() {
    let (upstream, mut answers) = upstream(1).await;
    let proxy = proxy(&upstream, &[]);
    let (id, mut body) = start_answer(&proxy).await;
    answers[0].send.send(frame("secret")).unwrap();
    read_bytes(&mut body, frame("secret").len()).await;
    // Every spelling of the path meets the same checks.
    for path in [format!("/api/chat/openai/streams/{id}"), format!("/api/chat/%6fpenai/streams/{id}")] {
        let url = proxy.endpoint(&path);
        let foreign = client().get(&url).header("origin", "http://evil.example").send().await.unwrap();
        assert_eq!(foreign.status(), 403);
        assert!(!body_text(foreign).await.contains("secret"));
        let foreign = client().delete(&url).header("origin", "http://evil.example").send().await.unwrap();
        assert_eq!(foreign.status(), 403);
        let foreign = client().get(&url).header("host", "evil.example").send().await.unwrap();
        assert_eq!(foreign.status(), 421);
    }
    // The page's own origin resumes it, through either spelling.
    let own = format!("http://{}", proxy.address());
    let url = proxy.endpoint(&format!("/api/chat/%6fpenai/streams/{id}"));
    let resumed = client().get(&url).header("origin", &own).send().await.unwrap();
    assert_eq!(resumed.status(), 200);
    let mut resumed = resumed.bytes_stream();
    assert_eq!(read_bytes(&mut resumed, frame("secret").len()).await, frame("secret"));
    drop(answers.remove(0).send);
}

#[tokio::test]
async fn an_answer_past_its_byte_bound_reaches_its_reader_but_is_no_longer_resumable() {
    let (upstream, mut answers) = upstream(2).await;
    let one = frame("0123456789").len();
    let bound = (one * 3 / 2).to_string();
    let proxy = proxy(&upstream, &["--resume-stream-bytes", &bound]);
    let (id, mut body) = start_answer(&proxy).await;
    let url = proxy.endpoint(&format!("/api/chat/openai/streams/{id}"));
    answers[0].send.send(frame("0123456789")).unwrap();
    let mut received = read_bytes(&mut body, one).await;
    assert_eq!(client().get(&url).send().await.unwrap().status(), 200, "within its bound, it is resumable");
    answers[0].send.send(frame("abcdefghij")).unwrap();
    received.extend(read_bytes(&mut body, one).await);
    assert_eq!(client().get(&url).send().await.unwrap().status(), 404, "past its bound, it is not");
    answers[0].send.send(frame("end")).unwrap();
    drop(answers.remove(0).send);
    while let Some(chunk) = tokio::time::timeout(Duration::from_secs(20), body.next()).await.expect("no hang") {
        received.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(received, [frame("0123456789"), frame("abcdefghij"), frame("end")].concat());

    // Nobody can resume an answer past its bound: once its reader goes, the upstream goes too, grace or not.
    let (_id, mut body) = start_answer(&proxy).await;
    answers[0].send.send(frame("0123456789")).unwrap();
    answers[0].send.send(frame("abcdefghij")).unwrap();
    read_bytes(&mut body, 2 * one).await;
    drop(body);
    hears_drop(&mut answers[0], "an answer nobody can resume is dropped with its last reader").await;
}

#[tokio::test]
async fn all_kept_answers_stay_within_the_total_bound() {
    let (upstream, answers) = upstream(2).await;
    let one = frame("0123456789").len();
    let proxy = proxy(&upstream, &["--resume-total-bytes", &(one * 3 / 2).to_string()]);
    let (first, mut first_body) = start_answer(&proxy).await;
    answers[0].send.send(frame("0123456789")).unwrap();
    read_bytes(&mut first_body, one).await;
    let (second, mut second_body) = start_answer(&proxy).await;
    answers[1].send.send(frame("abcdefghij")).unwrap();
    read_bytes(&mut second_body, one).await;
    let status = |id: String| {
        let url = proxy.endpoint(&format!("/api/chat/openai/streams/{id}"));
        async move { client().get(url).send().await.unwrap().status().as_u16() }
    };
    assert_eq!(status(first).await, 200);
    assert_eq!(status(second).await, 404);
    for answer in answers {
        drop(answer.send);
    }
}
