//! Linear cost on adversarial shapes: each shape at three sizes, reported in bytes per
//! second, so a flat throughput across sizes is linear cost and a falling one is not.
//!
//! `cargo bench --bench adversarial`; one shape: `cargo bench --bench adversarial -- marker_like`.
//! Every input goes through the whole ChatStream in 4 KB pushes.

use std::hint::black_box;

use chatstream::stream::{ChatStream, StreamOptions};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

fn agent_delta(text: &str) -> String {
    format!("data: {}\n\n", serde_json::json!({"type": "text_delta", "text": text}))
}

/// One text delta of `n` bytes: a single long SSE line.
fn long_line(n: usize) -> String {
    agent_delta(&"x".repeat(n))
}

/// A frame whose JSON nests `n / 2` arrays deep (the decoder must refuse it without recursing
/// that deep), then a normal delta.
fn deep_json(n: usize) -> String {
    format!("data: {{\"type\":\"text_delta\",\"text\":\"d\",\"x\":{}}}\n\n", "[".repeat(n / 2)) + &agent_delta("after")
}

/// Events of one character each.
fn tiny_events(n: usize) -> String {
    let one = agent_delta("a");
    one.repeat(n / one.len())
}

/// Text that keeps almost forming a marker: `[[to`, `[[tool:`, `SUGGESTED_VALU`, `<thin`.
fn marker_like(n: usize) -> String {
    let piece = agent_delta("[[to [[tool: SUGGESTED_VALU <thin [[tool:1x ");
    piece.repeat(n / piece.len())
}

fn run(input: &[u8]) -> usize {
    let mut stream = ChatStream::new(StreamOptions::default());
    let mut events = Vec::new();
    for chunk in input.chunks(4096) {
        stream.push(chunk, &mut events);
    }
    stream.finish(&mut events);
    events.len()
}

/// A shape's name and the stream of it at a given size.
type Shape = (&'static str, fn(usize) -> String);

fn shapes(c: &mut Criterion) {
    let shapes: [Shape; 4] = [
        ("long_line", long_line),
        ("deep_json", deep_json),
        ("tiny_events", tiny_events),
        ("marker_like", marker_like),
    ];
    for (name, make) in shapes {
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        for size in SIZES {
            let input = make(size);
            group.throughput(Throughput::Bytes(input.len() as u64));
            group.bench_with_input(BenchmarkId::from_parameter(size), input.as_bytes(), |b, input| {
                b.iter(|| black_box(run(input)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, shapes);
criterion_main!(benches);
