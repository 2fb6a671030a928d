//! Newline-delimited record decoder (NDJSON, AI SDK v4 lines). (Implementation in progress.)

use super::{Ending, Frame, FramingError, DEFAULT_MAX_FRAME_BYTES};

#[derive(Debug)]
pub struct LineDecoder {
    limit: usize,
}

impl Default for LineDecoder {
    fn default() -> Self {
        LineDecoder::with_limit(DEFAULT_MAX_FRAME_BYTES)
    }
}

impl LineDecoder {
    pub fn new() -> LineDecoder {
        LineDecoder::default()
    }
    pub fn with_limit(limit: usize) -> LineDecoder {
        LineDecoder { limit }
    }
    pub fn push(&mut self, _chunk: &[u8], _out: &mut Vec<Frame>) -> Result<(), FramingError> {
        let _ = self.limit;
        todo!("LineDecoder::push")
    }
    pub fn finish(&mut self, _out: &mut Vec<Frame>) -> Ending {
        todo!("LineDecoder::finish")
    }
}
