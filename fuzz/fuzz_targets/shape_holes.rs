//! The shape target's checks on text deltas whose holes the fuzzer fills: the first byte picks
//! a dialect's template (`dialect::fuzzing::TEMPLATES`), the rest is split at 0x00 bytes into
//! the learned frame's two values and the other frame's two (`"x"` where missing).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| chatstream_fuzz::shape_holes(data));
