//! Each stage after framing, natively: every dialect's decoder (frames → provider events), the
//! cleaner (provider events → clean events), and the whole ChatStream, in bytes per second.
//!
//! `cargo bench --bench pipeline`; one group: `cargo bench --bench pipeline -- dialect/anthropic`.
//! Each dialect's input is its own fixtures under tests/fixtures/<dialect>/ (every feature and
//! error shape of that dialect, as written for the tests), read back to back.

use std::hint::black_box;
use std::path::Path;

use chatstream::clean::{CleanOptions, Cleaner};
use chatstream::dialect::{Decoder, Dialect, ProviderEvent, ProviderEvents};
use chatstream::event::StreamEvents;
use chatstream::framing::{Frame, FrameDecoder, DEFAULT_MAX_FRAME_BYTES};
use chatstream::stream::{ChatStream, StreamOptions};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The inputs of one dialect's fixtures.
fn fixture_inputs(dialect: Dialect) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dialect.name());
    let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("sse" | "ndjson" | "txt")))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    inputs.sort();
    inputs
}

fn frames_of(dialect: Dialect, input: &[u8]) -> Vec<Frame> {
    let mut decoder = FrameDecoder::new(dialect.framing(), DEFAULT_MAX_FRAME_BYTES);
    let mut frames = Vec::new();
    decoder.push(input, &mut frames).unwrap();
    decoder.finish(&mut frames);
    frames
}

fn dialects(c: &mut Criterion) {
    for dialect in Dialect::ALL {
        let inputs = fixture_inputs(dialect);
        let frames: Vec<Vec<Frame>> = inputs.iter().map(|i| frames_of(dialect, i)).collect();
        let bytes: usize = inputs.iter().map(Vec::len).sum();
        let mut group = c.benchmark_group("dialect");
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(dialect.name(), |b| {
            b.iter(|| {
                let mut events = ProviderEvents::default();
                for stream in &frames {
                    let mut decoder = Decoder::new(dialect);
                    for frame in stream {
                        decoder.decode(frame.as_ref(), &mut events);
                    }
                    decoder.finish(&mut events);
                }
                black_box(events.len())
            })
        });
        group.finish();
    }
}

/// Provider events of a long answer with inline thinking, a marker and a payload, cut as models stream.
fn cleaning(c: &mut Criterion) {
    let mut text = String::from("<think>");
    for i in 0..20_000 {
        text.push_str(if i == 2_000 { "</think>" } else { " word" });
        if i % 1_000 == 999 {
            text.push_str(&format!(" [[tool:{}]] ", i / 1_000));
        }
    }
    text.push_str("\nSUGGESTED_VALUES: [{\"label\": \"More\", \"value\": \"more\"}]");
    let pieces: Vec<String> = text.as_bytes().chunks(5).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    let mut group = c.benchmark_group("clean");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("text_thinking_markers_payload", |b| {
        b.iter(|| {
            let mut cleaner = Cleaner::new(CleanOptions::default());
            let mut out = Vec::new();
            for piece in &pieces {
                cleaner.push(ProviderEvent::Text(piece.clone()), &mut StreamEvents::new(&mut out));
            }
            cleaner.push(ProviderEvent::End, &mut StreamEvents::new(&mut out));
            cleaner.finish(&mut StreamEvents::new(&mut out));
            black_box(out.len())
        })
    });
    group.finish();
}

/// The whole pipeline over a long OpenAI stream pushed in 8 KB chunks.
fn whole(c: &mut Criterion) {
    let mut body = String::new();
    for i in 0..20_000 {
        body.push_str(&format!(
            "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\
             \"choices\":[{{\"index\":0,\"delta\":{{\"content\":\" w{i}\"}},\"finish_reason\":null}}]}}\n\n"
        ));
    }
    body.push_str("data: [DONE]\n\n");
    let mut group = c.benchmark_group("chat_stream");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("openai_8k_chunks", |b| {
        b.iter(|| {
            let mut stream = ChatStream::new(StreamOptions::default());
            let mut events = Vec::new();
            for chunk in body.as_bytes().chunks(8192) {
                stream.push(chunk, &mut events);
            }
            stream.finish(&mut events);
            black_box(events.len())
        })
    });
    group.finish();
}

criterion_group!(benches, dialects, cleaning, whole);
criterion_main!(benches);
