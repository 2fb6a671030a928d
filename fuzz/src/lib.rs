//! What every fuzz target checks: cutting the input anywhere changes nothing.
//!
//! The first byte of the fuzzer's input says how many cuts to make (0-15); each cut then takes
//! two bytes (a position, modulo the input's length). The rest is the input. The input is cut,
//! run and compared as the fixture tests do it (`tests/common`).

use chatstream::clean::{CleanOptions, Cleaner};
use chatstream::dialect::{Dialect, ProviderEvent};
use chatstream::event::StreamEvents;
use chatstream::framing::{FrameDecoder, Framing};
use chatstream::stream::StreamOptions;

/// The fixture tests' harness: how an input is cut, run and compared.
#[path = "../../tests/common/mod.rs"]
mod common;

use common::{canonical, cut};

/// The input and the sorted cut positions in it.
fn cuts(data: &[u8]) -> (&[u8], Vec<usize>) {
    let Some((&count, rest)) = data.split_first() else { return (data, Vec::new()) };
    let count = (count % 16) as usize;
    let header = (count * 2).min(rest.len());
    let (positions, input) = rest.split_at(header);
    let mut cuts: Vec<usize> = positions
        .chunks(2)
        .map(|p| u16::from_le_bytes([p[0], *p.get(1).unwrap_or(&0)]) as usize % (input.len() + 1))
        .collect();
    cuts.sort_unstable();
    (input, cuts)
}

pub fn split_invariance(dialect: Option<Dialect>, data: &[u8]) {
    let (input, cuts) = cuts(data);
    let options = StreamOptions { dialect, ..StreamOptions::default() };
    let whole = canonical(&common::run(&options, input, &[]).0);
    let split = canonical(&common::run(&options, input, &cuts).0);
    assert_eq!(whole, split, "cut at {cuts:?}");
    let completes = whole.iter().filter(|e| e["type"] == "complete").count();
    assert_eq!(completes, 1, "exactly one complete: {whole:?}");
}

pub fn framing_invariance(data: &[u8]) {
    let Some((&which, data)) = data.split_first() else { return };
    let framing = [Framing::Sse, Framing::Lines][which as usize % 2];
    let (input, cuts) = cuts(data);
    let run = |parts: &[&[u8]]| {
        let mut decoder = FrameDecoder::new(framing, 1 << 16);
        let mut frames = Vec::new();
        let mut errors = 0;
        for part in parts {
            errors += decoder.push(part, &mut frames).is_err() as usize;
        }
        let ending = decoder.finish(&mut frames);
        (frames, errors, ending)
    };
    let whole = run(&[input]);
    let split = run(&cut(input, input.len(), &cuts));
    assert_eq!(whole, split, "cut at {cuts:?}");
}

pub fn cleaner_invariance(data: &[u8]) {
    let (input, cuts) = cuts(data);
    let text = String::from_utf8_lossy(input);
    // Cut on character boundaries: providers send whole characters.
    let mut bounds: Vec<usize> = cuts.iter().map(|&c| (0..=c.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap()).collect();
    bounds.dedup();
    let run = |parts: Vec<&str>| {
        let mut cleaner = Cleaner::new(CleanOptions::default());
        let mut out = Vec::new();
        for part in parts {
            cleaner.push(ProviderEvent::Text(part.to_owned()), &mut StreamEvents::new(&mut out));
        }
        cleaner.push(ProviderEvent::End, &mut StreamEvents::new(&mut out));
        cleaner.finish(&mut StreamEvents::new(&mut out));
        canonical(&out)
    };
    assert_eq!(run(vec![&text]), run(cut(&*text, text.len(), &bounds)), "cut at {bounds:?}");
}

/// The shape target: the input is two frames, split at the first 0x00 byte (the second is the
/// first when there is none).
pub fn shapes(data: &[u8]) {
    use chatstream::dialect::fuzzing::with_shapes;
    let (learned, other) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, data),
    };
    let (Ok(learned), Ok(other)) = (std::str::from_utf8(learned), std::str::from_utf8(other)) else { return };
    two_frames(&with_shapes(), learned, other);
}

/// The shape_holes target: see fuzz_targets/shape_holes.rs.
pub fn shape_holes(data: &[u8]) {
    use chatstream::dialect::fuzzing::{fill, TEMPLATES};
    let Some((&which, rest)) = data.split_first() else { return };
    let (dialect, template) = TEMPLATES[which as usize % TEMPLATES.len()];
    let Ok(rest) = std::str::from_utf8(rest) else { return };
    let mut values = rest.split('\0');
    let mut value = || values.next().unwrap_or(r#""x""#);
    let learned = fill(template, value(), value());
    let other = fill(template, value(), value());
    two_frames(&[dialect], &learned, &other);
}

/// Shapes learned from each frame replay the other as the fast paths scan it, and the frames
/// read alike through `dialects`' decoders warm, cold and without fast paths.
fn two_frames(dialects: &[chatstream::dialect::Dialect], learned: &str, other: &str) {
    use chatstream::dialect::fuzzing::{modes_agree, shapes_agree};
    use chatstream::framing::FrameRef;
    shapes_agree(learned, other);
    shapes_agree(other, learned);
    // Learned, replayed, replayed again, and the learned frame once more (after relearning).
    let frames = [learned, other, other, learned].map(FrameRef::data);
    for &dialect in dialects {
        modes_agree(dialect, &frames);
    }
}

/// The proxy's key redactor, built from its source (the proxy is a binary, not a library).
#[path = "../../proxy/src/redact.rs"]
#[allow(dead_code)]
mod redact;

/// The proxy's redactor over a random key and text cut anywhere: no panic, the same output as in one
/// piece, and a key of [`redact::MIN_KEY`] bytes or more never left in it. The first byte is the key's
/// length (0-64), the key follows, then the cuts and the text as for every target; the key is put in the
/// middle of the text too, so that there is one to find.
pub fn redaction(data: &[u8]) {
    let Some((&length, rest)) = data.split_first() else { return };
    let length = (length as usize % 65).min(rest.len());
    let (key, rest) = rest.split_at(length);
    let Ok(key) = std::str::from_utf8(key) else { return };
    let (input, cuts) = cuts(rest);
    let middle = input.len() / 2;
    let text = [&input[..middle], key.as_bytes(), &input[middle..]].concat();
    let redactor = redact::Redactor::new([key]);
    let whole = redactor.redact(&text).unwrap_or_else(|| text.clone());
    let mut stream = redactor.stream();
    let mut split = Vec::new();
    for piece in cut(&text[..], text.len(), &cuts) {
        split.extend_from_slice(&stream.push(bytes::Bytes::copy_from_slice(piece)));
    }
    split.extend_from_slice(&stream.finish());
    assert_eq!(whole, split, "key {key:?}, cut at {cuts:?}");
    // A key with a bracket could be made of a mark and what is around it.
    if key.len() >= redact::MIN_KEY && !key.contains(['[', ']']) {
        assert!(memchr::memmem::find(&whole, key.as_bytes()).is_none(), "key {key:?} left in {whole:?}");
    } else if key.len() < redact::MIN_KEY {
        assert_eq!(whole, text, "a short key changed the text");
    }
}
