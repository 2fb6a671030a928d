//! Framing throughput, and the evidence that its cost is linear whatever the chunking.
//!
//! `cargo bench --bench framing`. Every benchmark reports bytes per second over the same input
//! size within a group, so the two `one_line` results compare per-byte cost directly: fed one
//! byte at a time, an 8 MB line should cost a small constant factor (the per-call overhead) more
//! per byte than fed at once, not a factor that grows with the line's length.

use std::hint::black_box;

use chatstream::framing::{Frame, LineDecoder, SseDecoder};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// An OpenAI chat-completions stream of `chunks` content deltas, as the API sends it.
fn openai_stream(chunks: usize) -> Vec<u8> {
    let words =
        ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".\n\n", " Ünïcödé", " 日本"];
    let mut body = String::new();
    for i in 0..chunks {
        let word = words[i % words.len()].replace('\n', "\\n");
        body.push_str(&format!(
            "data: {{\"id\":\"chatcmpl-AbC123\",\"object\":\"chat.completion.chunk\",\"created\":1731000000,\
             \"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_45c6de4934\",\"choices\":[{{\"index\":0,\
             \"delta\":{{\"content\":\"{word}\"}},\"logprobs\":null,\"finish_reason\":null}}]}}\n\n"
        ));
    }
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}

fn sse_in_chunks(input: &[u8], chunk_size: usize) -> usize {
    let mut sse = SseDecoder::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut count = 0;
    for chunk in input.chunks(chunk_size) {
        sse.push(chunk, &mut frames).unwrap();
        count += frames.len();
        frames.clear();
    }
    sse.finish(&mut frames);
    count + frames.len()
}

fn openai_throughput(c: &mut Criterion) {
    let input = openai_stream(2000);
    let mut group = c.benchmark_group("sse_openai_stream");
    group.throughput(Throughput::Bytes(input.len() as u64));
    // A TCP segment's payload, a typical fetch() chunk, and the whole body at once.
    for chunk_size in [1400, 16 * 1024, input.len()] {
        group.bench_with_input(BenchmarkId::new("chunk_bytes", chunk_size), &chunk_size, |b, &size| {
            b.iter(|| sse_in_chunks(black_box(&input), size))
        });
    }
    group.finish();
}

/// One `data` line of `len` bytes of mixed ASCII and multi-byte text, ended by a blank line.
fn one_line(len: usize) -> Vec<u8> {
    let text = "abcdefgé".repeat(len / 9);
    format!("data: {text}\n\n").into_bytes()
}

fn one_line_cost(c: &mut Criterion) {
    let input = one_line(8 * 1024 * 1024);
    let mut group = c.benchmark_group("sse_one_8mb_line");
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.sample_size(10);
    group.bench_function("at_once", |b| b.iter(|| sse_in_chunks(black_box(&input), input.len())));
    group.bench_function("one_byte_at_a_time", |b| b.iter(|| sse_in_chunks(black_box(&input), 1)));
    group.finish();

    // The same line shorter: bytes per second that stay level as the line grows mean linear cost.
    let mut group = c.benchmark_group("sse_one_line_one_byte_at_a_time");
    group.sample_size(10);
    for len in [64 * 1024, 1024 * 1024] {
        let input = one_line(len);
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_with_input(BenchmarkId::new("line_bytes", len), &input, |b, input| {
            b.iter(|| sse_in_chunks(black_box(input), 1))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("lines_one_8mb_line");
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.sample_size(10);
    for chunk_size in [input.len(), 1] {
        group.bench_with_input(BenchmarkId::new("chunk_bytes", chunk_size), &chunk_size, |b, &size| {
            b.iter(|| {
                let mut lines = LineDecoder::new();
                let mut frames = Vec::new();
                for chunk in black_box(&input).chunks(size) {
                    lines.push(chunk, &mut frames).unwrap();
                }
                lines.finish(&mut frames);
                frames.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, openai_throughput, one_line_cost);
criterion_main!(benches);
