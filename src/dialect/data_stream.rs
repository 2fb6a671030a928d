//! Placeholder: the data_stream decoder is being written.

use super::{DialectDecoder, ProviderEvent};
use crate::framing::Frame;

#[derive(Debug, Default)]
pub struct DataStreamDecoder {}

impl DialectDecoder for DataStreamDecoder {
    fn decode(&mut self, _frame: &Frame, _out: &mut Vec<ProviderEvent>) {
        todo!("DataStreamDecoder")
    }
}
