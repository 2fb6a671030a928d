//! Stage 3: [`ProviderEvent`]s → clean [`StreamEvent`]s. (Being written.)

use crate::dialect::ProviderEvent;
use crate::event::StreamEvent;

/// A registered payload marker: `SCHEMA_PROPOSAL:` followed by JSON becomes
/// `custom_payload: { type: "schema_proposal", data }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadMarker {
    pub marker: String,
    pub type_name: String,
}

/// What the cleaner strips and recognises.
#[derive(Debug, Clone)]
pub struct CleanOptions {
    /// Turn inline `<think>…</think>` text into thinking.
    pub inline_thinking: bool,
    /// Tag names treated as inline thinking.
    pub thinking_tags: Vec<String>,
    /// Custom payload markers, besides `SUGGESTED_VALUES:` and `SUGGESTED_ACTIONS:`.
    pub payload_markers: Vec<PayloadMarker>,
}

impl Default for CleanOptions {
    fn default() -> Self {
        CleanOptions {
            inline_thinking: true,
            thinking_tags: vec!["think".into(), "thinking".into()],
            payload_markers: vec![PayloadMarker {
                marker: "SCHEMA_PROPOSAL:".into(),
                type_name: "schema_proposal".into(),
            }],
        }
    }
}

#[derive(Debug)]
pub struct Cleaner {
    _options: CleanOptions,
}

impl Cleaner {
    pub fn new(options: CleanOptions) -> Cleaner {
        Cleaner { _options: options }
    }

    /// Cleans one provider event, appending the clean events it releases to `out`.
    pub fn push(&mut self, _event: ProviderEvent, _out: &mut Vec<StreamEvent>) {
        todo!("Cleaner::push")
    }

    /// The input ended. Without a terminal event first, this emits `complete` with what arrived
    /// and then an `error` (NETWORK_ERROR, "stream ended before completion").
    pub fn finish(&mut self, _out: &mut Vec<StreamEvent>) {
        todo!("Cleaner::finish")
    }

    /// The reader cancelled: `complete` with the partial content, then `cancelled`; after a
    /// `complete`, an `error` CONFLICT and nothing else.
    pub fn cancel(&mut self, _out: &mut Vec<StreamEvent>) {
        todo!("Cleaner::cancel")
    }

    /// Whether `complete` has been emitted.
    pub fn is_complete(&self) -> bool {
        todo!()
    }
}
