//! Placeholder: the anthropic decoder is being written.

use super::{DialectDecoder, ProviderEvent};
use crate::framing::Frame;

#[derive(Debug, Default)]
pub struct AnthropicDecoder {}

impl DialectDecoder for AnthropicDecoder {
    fn decode(&mut self, _frame: &Frame, _out: &mut Vec<ProviderEvent>) {
        todo!("AnthropicDecoder")
    }
}
