//! Placeholder: the openai decoder is being written.

use super::{DialectDecoder, ProviderEvent};
use crate::framing::Frame;

#[derive(Debug, Default)]
pub struct OpenAiDecoder {}

impl DialectDecoder for OpenAiDecoder {
    fn decode(&mut self, _frame: &Frame, _out: &mut Vec<ProviderEvent>) {
        todo!("OpenAiDecoder")
    }
}
