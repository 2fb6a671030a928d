//! The whole pipeline with auto-detection: split at fuzzer-chosen points, the same events as in
//! one piece, and no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| chatstream_fuzz::split_invariance(None, data));
