//! The cleaner: text (markers, thinking tags, payloads) cut into provider text events at
//! fuzzer-chosen points gives the same clean output as one event, and no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| chatstream_fuzz::cleaner_invariance(data));
