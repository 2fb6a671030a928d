//! Placeholder: the agent decoder is being written.

use super::{DialectDecoder, ProviderEvent};
use crate::framing::Frame;

#[derive(Debug, Default)]
pub struct AgentDecoder {}

impl DialectDecoder for AgentDecoder {
    fn decode(&mut self, _frame: &Frame, _out: &mut Vec<ProviderEvent>) {
        todo!("AgentDecoder")
    }
}
