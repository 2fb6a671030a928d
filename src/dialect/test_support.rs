//! What the decoders' tests share: a decode helper that runs frames through a decoder as a
//! stream does, builders for the events they expect, and the agreement checks of the fast paths
//! (each fast path must give the events and state its general path gives).

use serde_json::Value;

use super::scan::{Reader, Taken};
use super::{Decoder, DialectDecoder, ProviderEvent, ProviderEvents};
use crate::event::FinishReason;
use crate::framing::{Frame, FrameDecoder, FrameRef, Framing};

/// The events of `frames` (each one frame's data) through a fresh decoder of type `D`, then its
/// finish, under the rule every dialect shares (nothing is read after the message is over).
pub(crate) fn decode<D: DialectDecoder + Default + 'static>(frames: &[&str]) -> Vec<ProviderEvent> {
    decode_frames::<D>(&frames.iter().map(|data| Frame::data(*data)).collect::<Vec<_>>())
}

/// [`decode`] for whole frames (with an `event` field).
pub(crate) fn decode_frames<D: DialectDecoder + Default + 'static>(frames: &[Frame]) -> Vec<ProviderEvent> {
    let mut decoder = Decoder::of(Box::<D>::default());
    let mut out = Vec::new();
    for frame in frames {
        // Each frame's events apart, so that a test sees what each frame gave.
        let mut events = ProviderEvents::default();
        decoder.decode(frame.as_ref(), &mut events);
        out.extend(events.into_vec());
    }
    let mut events = ProviderEvents::default();
    decoder.finish(&mut events);
    out.extend(events.into_vec());
    out
}

pub(crate) fn text(t: &str) -> ProviderEvent {
    ProviderEvent::Text(t.into())
}

pub(crate) fn thinking(t: &str) -> ProviderEvent {
    ProviderEvent::Thinking(t.into())
}

/// `Finish` with the contract's word for the reason (`"stop"`, `"tool_calls"`, …).
pub(crate) fn finish(reason: &str) -> ProviderEvent {
    ProviderEvent::Finish { reason: FinishReason::from_name(reason) }
}

#[cfg(feature = "model-tool-calls")]
pub(crate) fn start(id: &str, name: &str) -> ProviderEvent {
    ProviderEvent::ToolCallStart { id: id.into(), name: name.into() }
}

#[cfg(feature = "model-tool-calls")]
pub(crate) fn delta(id: &str, delta: &str) -> ProviderEvent {
    ProviderEvent::ToolCallDelta { id: id.into(), delta: delta.into() }
}

#[cfg(feature = "model-tool-calls")]
/// `ToolCallEnd` with the arguments to be parsed from the deltas.
pub(crate) fn end(id: &str) -> ProviderEvent {
    ProviderEvent::ToolCallEnd { id: id.into(), name: None, input: None }
}

pub(crate) fn payload(key: &str, value: Value) -> ProviderEvent {
    ProviderEvent::payload(key, value)
}

/// Every deletion and substitution of one character in `frame`, with characters that
/// matter to JSON.
pub(crate) fn one_byte_edits(frame: &str) -> impl Iterator<Item = String> + '_ {
    const WITH: [&str; 19] =
        ["", "\"", "\\", "{", "}", "[", "]", ",", ":", "0", "1", "-", "e", ".", "n", " ", "\u{1}", "é", "\\ud800"];
    frame.char_indices().flat_map(move |(at, c)| {
        WITH.iter().map(move |with| format!("{}{with}{}", &frame[..at], &frame[at + c.len_utf8()..]))
    })
}

/// Whether a decoder's fast path, `scan`, reads `scanned` (`data` as the decoder hands it to the
/// fast path). Where it does, asserts that a decoder made by `make` and given `data` (so taking
/// the fast path) ends with the same events and the same state as another given it by
/// `general`, the decoder's general path.
pub(crate) fn same_as_general<D: DialectDecoder + PartialEq + std::fmt::Debug, T, const N: usize>(
    data: &str,
    scanned: &str,
    scan: for<'a> fn(&mut Reader<'a>) -> Option<(T, Taken<'a, N>)>,
    make: impl Fn() -> D,
    general: impl FnOnce(&mut D, &mut ProviderEvents),
) -> bool {
    if super::scan::scan(scanned, scan).is_none() {
        return false;
    }
    let (mut fast, mut slow) = (make(), make());
    let (mut fast_out, mut slow_out) = (ProviderEvents::default(), ProviderEvents::default());
    fast.decode(FrameRef::data(data), &mut fast_out);
    general(&mut slow, &mut slow_out);
    assert_eq!(fast_out, slow_out, "{data:?}");
    assert_eq!(fast, slow, "{data:?}");
    true
}

/// Checks every one-byte edit of `frames` with `agrees` (which asserts that a fast path and
/// its general path agree on a frame, and says whether the fast path read it); each frame
/// itself must be read. Returns how many edits were read: enough of them shows the check had
/// work to do.
pub(crate) fn edits_read(frames: &[&str], agrees: impl Fn(&str) -> bool) -> usize {
    let mut read = 0;
    for frame in frames {
        assert!(agrees(frame), "the fast path does not read {frame}");
        read += one_byte_edits(frame).filter(|edited| agrees(edited)).count();
    }
    read
}

/// `frames` trimmed, each once.
pub(crate) fn distinct(frames: &[String]) -> Vec<&str> {
    let mut distinct: Vec<&str> = frames.iter().map(|f| f.trim()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct
}

/// The data of every SSE frame of `dialect`'s fixtures, our own and the recorded streams.
pub(crate) fn recorded_frames(dialect: &str) -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut frames = Vec::new();
    let own = root.join("tests/fixtures").join(dialect);
    let recorded = root.join("tests/fixtures/recorded").join(dialect);
    // Every dialect has fixtures of its own; not every one has recordings.
    for dir in std::iter::once(own).chain(recorded.is_dir().then_some(recorded)) {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let Ok(bytes) = std::fs::read(entry.path()) else { continue };
            let mut decoder = FrameDecoder::new(Framing::Sse, usize::MAX);
            let mut read = Vec::new();
            let _ = decoder.push(&bytes, &mut read);
            decoder.finish(&mut read);
            frames.extend(read.into_iter().map(|frame| frame.data));
        }
    }
    frames
}
