//! What the tests share: running the cleaner over provider events and picking out what it emitted.

use chatstream::clean::{CleanOptions, Cleaner};
use chatstream::dialect::ProviderEvent;
use chatstream::error::ErrorCode;
use chatstream::event::{CompletePayload, StreamEvent, StreamEvents};

use crate::common;

pub fn text(s: &str) -> ProviderEvent {
    ProviderEvent::Text(s.into())
}

pub fn clean_with(options: CleanOptions, events: impl IntoIterator<Item = ProviderEvent>) -> Vec<StreamEvent> {
    let mut cleaner = Cleaner::new(options);
    let mut out = Vec::new();
    for event in events {
        cleaner.push(event, &mut StreamEvents::new(&mut out));
    }
    cleaner.finish(&mut StreamEvents::new(&mut out));
    out
}

pub fn clean(events: impl IntoIterator<Item = ProviderEvent>) -> Vec<StreamEvent> {
    clean_with(CleanOptions::default(), events)
}

/// The payload of the one `complete` (panics unless there is exactly one).
pub fn complete(events: &[StreamEvent]) -> &CompletePayload {
    let found: Vec<&CompletePayload> = events
        .iter()
        .filter_map(|e| if let StreamEvent::Complete { payload } = e { Some(payload) } else { None })
        .collect();
    assert_eq!(found.len(), 1, "exactly one complete in {events:#?}");
    found[0]
}

pub fn text_deltas(events: &[StreamEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| if let StreamEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
        .collect()
}

pub fn thinking_deltas(events: &[StreamEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| if let StreamEvent::ThinkingDelta { text } = e { Some(text.as_str()) } else { None })
        .collect()
}

pub fn errors(events: &[StreamEvent]) -> Vec<(ErrorCode, &str, Option<&str>)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Error { code, message, field } => Some((*code, message.as_str(), field.as_deref())),
            _ => None,
        })
        .collect()
}

pub fn kinds(events: &[StreamEvent]) -> Vec<String> {
    events.iter().map(|e| serde_json::to_value(e).unwrap()["type"].as_str().unwrap().to_owned()).collect()
}

/// Ways to cut `s` into deltas: whole, every one cut, every two cuts (short texts), one char each.
pub fn splits(s: &str) -> Vec<Vec<&str>> {
    let bounds = common::char_bounds(s);
    let mut cuts = vec![Vec::new()];
    cuts.extend(bounds.iter().map(|&a| vec![a]));
    if bounds.len() <= 60 {
        for (i, &a) in bounds.iter().enumerate() {
            cuts.extend(bounds[i + 1..].iter().map(|&b| vec![a, b]));
        }
    }
    cuts.push(bounds);
    cuts.iter().map(|cuts| common::cut(s, s.len(), cuts)).collect()
}
