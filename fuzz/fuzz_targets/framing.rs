//! Each framing (SSE; lines, for NDJSON and AI SDK v4): split at fuzzer-chosen points, the same frames and
//! ending as in one piece, and no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| chatstream_fuzz::framing_invariance(data));
