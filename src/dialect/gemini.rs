//! Placeholder: the gemini decoder is being written.

use super::{DialectDecoder, ProviderEvent};
use crate::framing::Frame;

#[derive(Debug, Default)]
pub struct GeminiDecoder {}

impl DialectDecoder for GeminiDecoder {
    fn decode(&mut self, _frame: &Frame, _out: &mut Vec<ProviderEvent>) {
        todo!("GeminiDecoder")
    }
}
