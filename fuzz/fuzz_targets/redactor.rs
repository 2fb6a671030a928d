//! The proxy's key redactor over random keys (0-64 bytes) and texts cut at fuzzer-chosen points: no panic,
//! the same output as in one piece, and no key of 16 bytes or more left in it.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| chatstream_fuzz::redaction(data));
