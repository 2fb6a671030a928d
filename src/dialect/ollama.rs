//! Placeholder: the ollama decoder is being written.

use super::{DialectDecoder, ProviderEvent};
use crate::framing::Frame;

#[derive(Debug, Default)]
pub struct OllamaDecoder {}

impl DialectDecoder for OllamaDecoder {
    fn decode(&mut self, _frame: &Frame, _out: &mut Vec<ProviderEvent>) {
        todo!("OllamaDecoder")
    }
}
