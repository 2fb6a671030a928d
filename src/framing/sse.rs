//! WHATWG Server-Sent Events decoder. (Implementation in progress.)

use super::{Ending, Frame, FramingError, DEFAULT_MAX_FRAME_BYTES};

#[derive(Debug)]
pub struct SseDecoder {
    limit: usize,
}

impl Default for SseDecoder {
    fn default() -> Self {
        SseDecoder::with_limit(DEFAULT_MAX_FRAME_BYTES)
    }
}

impl SseDecoder {
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }
    pub fn with_limit(limit: usize) -> SseDecoder {
        SseDecoder { limit }
    }
    pub fn push(&mut self, _chunk: &[u8], _out: &mut Vec<Frame>) -> Result<(), FramingError> {
        let _ = self.limit;
        todo!("SseDecoder::push")
    }
    pub fn finish(&mut self, _out: &mut Vec<Frame>) -> Ending {
        todo!("SseDecoder::finish")
    }
}
