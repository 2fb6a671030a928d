//! Linear cost on adversarial shapes: each shape at several sizes, reported in bytes per
//! second, so a flat throughput across sizes is linear cost and a falling one is not.
//!
//! `cargo bench --bench adversarial`; one shape: `cargo bench --bench adversarial -- marker_like`.
//! Every input goes through the whole ChatStream in 4 KB pushes; the hostile answers (doubled
//! 1x/2x/4x/8x) go through a chat turn, so the session's state is in the measure too.

use std::hint::black_box;

use chatstream::chat::ChatSession;
use chatstream::state::{counting_ids, StateMachine};
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

/// About `n` bytes of text deltas, each `text`.
fn deltas_of(text: &str, n: usize) -> String {
    let one = agent_delta(text);
    one.repeat(n / one.len())
}

/// Events of one character each.
fn tiny_events(n: usize) -> String {
    deltas_of("a", n)
}

/// Text that keeps almost forming a marker: `[[to`, `[[tool:`, `SUGGESTED_VALU`, `<thin`.
fn marker_like(n: usize) -> String {
    deltas_of("[[to [[tool: SUGGESTED_VALU <thin [[tool:1x ", n)
}

/// An answer repeating a payload marker whose JSON never closes: each marker opens inside the
/// JSON of the one before.
fn unclosed_payloads(n: usize) -> String {
    deltas_of("SUGGESTED_VALUES: [", n)
}

/// Payload markers with no JSON after them, each one an error if reported per occurrence.
fn markers_without_json(n: usize) -> String {
    deltas_of("SUGGESTED_VALUES: none ", n)
}

/// `piece(0)`, `piece(1)`, … until they make `n` bytes.
fn numbered(n: usize, piece: impl Fn(usize) -> String) -> String {
    let mut stream = String::new();
    for i in 0.. {
        if stream.len() >= n {
            break;
        }
        stream += &piece(i);
    }
    stream
}

/// One OpenAI tool call per chunk, each with its own index and id.
fn openai_tool_calls(n: usize) -> String {
    let calls = numbered(n, |i| {
        let call = serde_json::json!({"index": i, "id": format!("call_{i}"), "type": "function",
            "function": {"name": "lookup", "arguments": "{\"q\": 1}"}});
        format!("data: {}\n\n", serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))
    });
    calls + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
}

/// Tools an agent backend ran, each started and completed by id.
fn agent_tools(n: usize) -> String {
    numbered(n, |i| {
        let id = format!("toolu_{i}");
        let start = serde_json::json!({"type": "tool_start", "tool": "lookup", "input": {}, "tool_use_id": id});
        let done = serde_json::json!({"type": "tool_complete", "tool": "lookup", "tool_use_id": id, "output": "ok"});
        format!("data: {start}\n\ndata: {done}\n\n")
    })
}

/// Results an agent backend sends naming only their tool (no id, no index, no start): each is
/// matched to the oldest unfinished call of its name, else becomes a tool of its own.
fn agent_results_by_name(n: usize) -> String {
    numbered(n, |i| {
        let tool = if i % 2 == 0 { "lookup" } else { "search" };
        format!("data: {}\n\n", serde_json::json!({"type": "tool_complete", "tool": tool, "output": i}))
    })
}

/// One chat turn reading `input` in 4 KB pushes.
fn run_turn(input: &[u8]) -> usize {
    let mut chat = ChatSession::new(StateMachine::with_ids(counting_ids("m")), StreamOptions::default());
    let started = chat.send("go", serde_json::Value::Null, "/api/chat/stream");
    let mut steps = usize::from(started.is_ok());
    for chunk in input.chunks(4096) {
        steps += chat.push(chunk).events.len();
    }
    steps + chat.finish().0.events.len()
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

/// A hostile answer's name, its stream at a given size, and its base size.
type HostileShape = (&'static str, fn(usize) -> String, usize);

/// Hostile answers, each doubled from its base size: the time per byte must stay flat.
fn hostile_answers(c: &mut Criterion) {
    let shapes: [HostileShape; 5] = [
        ("unclosed_payloads", unclosed_payloads, 50_000),
        ("markers_without_json", markers_without_json, 200_000),
        ("openai_tool_calls", openai_tool_calls, 1_000_000),
        ("agent_tools", agent_tools, 1_000_000),
        ("agent_results_by_name", agent_results_by_name, 1_000_000),
    ];
    for (name, make, base) in shapes {
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        for times in [1, 2, 4, 8] {
            let input = make(base * times);
            group.throughput(Throughput::Bytes(input.len() as u64));
            group.bench_with_input(BenchmarkId::from_parameter(format!("{times}x")), input.as_bytes(), |b, input| {
                b.iter(|| black_box(run_turn(input)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, shapes, hostile_answers);
criterion_main!(benches);
