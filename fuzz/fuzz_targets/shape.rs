//! Differential: a shape learned from one frame replays another exactly as the fast path scans
//! it (or declines), and a stream of the two frames gives the same events with shapes, with
//! every frame scanned afresh, and with no fast path at all. The input is the learned frame, a
//! 0x00 byte, the other frame.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| chatstream_fuzz::shapes(data));
