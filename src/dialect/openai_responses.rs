//! Placeholder: the openai_responses decoder is being written.

use super::{DialectDecoder, ProviderEvent};
use crate::framing::Frame;

#[derive(Debug, Default)]
pub struct OpenAiResponsesDecoder {}

impl DialectDecoder for OpenAiResponsesDecoder {
    fn decode(&mut self, _frame: &Frame, _out: &mut Vec<ProviderEvent>) {
        todo!("OpenAiResponsesDecoder")
    }
}
