//! The agent decoder through the whole pipeline: split at fuzzer-chosen points, the same
//! events as in one piece, and no panic.
#![no_main]
use chatstream::dialect::Dialect;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| chatstream_fuzz::split_invariance(Some(Dialect::from_name("agent").unwrap()), data));
