//! Placeholder: the ui_message_stream decoder is being written.

use super::{DialectDecoder, ProviderEvent};
use crate::framing::Frame;

#[derive(Debug, Default)]
pub struct UiMessageStreamDecoder {}

impl DialectDecoder for UiMessageStreamDecoder {
    fn decode(&mut self, _frame: &Frame, _out: &mut Vec<ProviderEvent>) {
        todo!("UiMessageStreamDecoder")
    }
}
