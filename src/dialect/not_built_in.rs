//! The decoder of a dialect this build leaves out (see [`Dialect::is_built_in`]), named in the
//! options: its first frame ends the message with an error that names the dialect and the ones the
//! build reads, rather than text read wrongly.

use super::{Dialect, DialectDecoder, ProviderEvent, ProviderEvents};
use crate::error::ErrorCode;
use crate::framing::FrameRef;

pub(super) struct NotBuiltIn(pub(super) Dialect);

impl DialectDecoder for NotBuiltIn {
    fn decode(&mut self, _frame: FrameRef<'_>, out: &mut ProviderEvents) {
        let message = format!(
            "Failed to parse response: a {} stream, and this build of chatstream reads only {}",
            self.0,
            Dialect::built_in_names()
        );
        out.push(ProviderEvent::Error { code: ErrorCode::ServiceUnavailable, message, fatal: true });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_frame_ends_the_message_with_an_error_naming_the_dialect() {
        let mut decoder = super::super::Decoder::of(Box::new(NotBuiltIn(Dialect::Gemini)));
        let mut out = ProviderEvents::default();
        decoder.decode(FrameRef::data(r#"{"candidates":[]}"#), &mut out);
        decoder.decode(FrameRef::data(r#"{"candidates":[]}"#), &mut out);
        let [ProviderEvent::Error { code: ErrorCode::ServiceUnavailable, message, fatal: true }] = out.as_slice()
        else {
            panic!("one fatal error, then nothing: {out:?}")
        };
        assert!(
            message.starts_with("Failed to parse response: a gemini stream, and this build of chatstream reads only ")
        );
    }
}
