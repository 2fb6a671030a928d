//! How each clean event of a turn moves the state: [`StateMachine::apply`], and what it needs.

use super::parts::parts_of_answer;
use std::sync::Arc;

use super::types::Answer;
use super::{
    ChatError, ChatMessage, ChatState, Field, MessagePart, OpenRun, Patch, PatchValue, Phase, StateMachine, Step,
    Streamed, ToolProgressState, ToolState,
};
use crate::clean::TextLeft;
use crate::event::{CompletePayload, Segment, SharedText, StreamEvent};
use crate::json::{to_value, Shared};

const KEY: super::StateKeys = ChatState::KEY;

impl StateMachine {
    /// Moves the state along by one event of the turn.
    pub fn apply(&mut self, event: &StreamEvent) -> Vec<Patch> {
        let mut patches = Vec::new();
        self.apply_into(event, &mut patches);
        patches
    }

    /// [`StateMachine::step`] of `step`'s events, their patches added to its patches (a session's
    /// push refills the lists of the step before: see [`crate::chat::ChatSession::push_into`]).
    /// With `left`, the response's cleaner left `complete`'s text to the state
    /// ([`crate::clean::Cleaner::leave_text_to_reader`]): that `complete` gets its text made of
    /// `streaming_text`, the text deltas joined, moved into it (not copied).
    pub(crate) fn step_into(&mut self, step: &mut Step, left: &mut Option<TextLeft>) {
        for event in step.events.iter_mut() {
            if let StreamEvent::Complete { payload } = event {
                if let Some(left) = left.take() {
                    let joined = std::mem::take(&mut self.state.streaming_text);
                    (payload.message, payload.text, payload.segments) = left.resolve(joined, &payload.tool_history);
                    self.text_lent = true;
                }
            }
            self.apply_into(event, &mut step.patches);
        }
    }

    /// [`StateMachine::apply`], its patches added to `patches`: a step's events share one list
    /// (a list for each event, then one for the step, were an allocation and a copy more per
    /// read of a live answer).
    pub(super) fn apply_into(&mut self, event: &StreamEvent, patches: &mut Vec<Patch>) {
        match event {
            StreamEvent::TextDelta { text } => {
                if self.state.status_text.is_some() {
                    self.set(patches, Field::StatusText(None));
                }
                self.append_text(text, patches);
                self.enter(patches, Phase::Streaming);
            }
            StreamEvent::ThinkingDelta { text } => {
                // The last reasoning part's text grows in `thinking_text` alone, as answer text does.
                let from = self.state.thinking_text.len();
                self.state.thinking_text.push_str(text);
                if self.open.reasoning.is_some() {
                    patches.push(Patch::AppendThinking { text: text.clone() });
                } else {
                    patches.push(Patch::StartThinking { text: text.clone() });
                    self.close_part_run();
                    self.state.streaming_parts.push(MessagePart::Reasoning { text: String::new() });
                    self.open.reasoning = Some(from);
                }
                self.enter(patches, Phase::Streaming);
            }
            // The state shows a tool's input when the call is whole (`tool_call`).
            #[cfg(feature = "model-tool-calls")]
            StreamEvent::ToolInputDelta { .. } => {}
            _ => self.apply_other(event, patches),
        }
    }

    /// [`StateMachine::apply`] of the events other than text and thinking deltas. Out of line: the
    /// engine's optimizing compiler compiles a function that runs often (`apply`, once per delta of
    /// a long answer) whole, and these arms, which run a few times a turn, made it hold megabytes
    /// while it compiled `apply` (bench-js/memory.js).
    #[inline(never)]
    fn apply_other(&mut self, event: &StreamEvent, patches: &mut Vec<Patch>) {
        match event {
            StreamEvent::Status { message } => self.set(patches, Field::StatusText(Some(message.clone()))),
            StreamEvent::ToolStart { tool_use_id, tool, index, input } => {
                self.set(patches, Field::StatusText(Some(format!("Running {tool}..."))));
                let progress = ToolProgressState { tool_name: tool.clone(), updates: Vec::new() };
                self.set(patches, Field::ActiveToolProgress(Some(progress)));
                let segment = Segment::Tool {
                    index: *index,
                    tool_use_id: Some(tool_use_id.clone()),
                    tool: Some(tool.clone()),
                    input: input.clone(),
                    output: Shared::default(),
                    is_error: false,
                };
                self.push_segment(segment, patches);
                // A backend that runs the tool itself starts it with its input; a model's call
                // starts empty and its input streams.
                let streaming = input.as_object().is_some_and(|o| o.is_empty());
                let state = if streaming { ToolState::InputStreaming } else { ToolState::InputAvailable };
                let part = MessagePart::Tool {
                    tool_use_id: tool_use_id.clone(),
                    tool: tool.clone(),
                    index: *index,
                    state,
                    input: input.clone(),
                    output: Shared::default(),
                    is_error: false,
                };
                self.push_part(part, patches);
                self.enter(patches, Phase::Tool);
            }
            #[cfg(feature = "model-tool-calls")]
            StreamEvent::ToolCall { tool_use_id, input, .. } => {
                // The arguments are final: the card shows them.
                if let Some(at) = self.tool_segment(tool_use_id) {
                    if let Segment::Tool { input: shown, .. } = &mut self.state.streaming_segments[at] {
                        *shown = input.clone();
                    }
                    let value = PatchValue::Segment(self.state.streaming_segments[at].clone());
                    set_item(patches, KEY.streaming_segments, at, self.state.streaming_segments.len(), value);
                }
                self.set_tool_part(tool_use_id, patches, |state, shown| {
                    *state = ToolState::InputAvailable;
                    *shown = input.clone();
                });
            }
            StreamEvent::ToolProgress { .. } => {
                if let Some(progress) = self.state.active_tool_progress.as_mut() {
                    let value = to_value(event);
                    progress.updates.push(value.clone());
                    let (key, list) = (KEY.active_tool_progress, ToolProgressState::KEY.updates);
                    patches.push(Patch::PushInto { key, list, value: value.into() });
                }
            }
            StreamEvent::ToolComplete { tool_use_id, tool, index, input, output, is_error } => {
                self.set(patches, Field::ActiveToolProgress(None));
                self.set(patches, Field::StatusText(None));
                self.tool_finished(event, patches);
                let finished = Segment::Tool {
                    index: *index,
                    tool_use_id: Some(tool_use_id.clone()),
                    tool: Some(tool.clone()),
                    input: input.clone(),
                    output: output.clone(),
                    is_error: *is_error,
                };
                match self.tool_segment(tool_use_id) {
                    Some(at) => {
                        let value = PatchValue::Segment(finished.clone());
                        self.state.streaming_segments[at] = finished;
                        set_item(patches, KEY.streaming_segments, at, self.state.streaming_segments.len(), value);
                    }
                    None => self.push_segment(finished, patches),
                }
                self.enter(patches, Phase::Streaming);
            }
            StreamEvent::Data { data } => self.push_part(MessagePart::Data { data: data.clone() }, patches),
            StreamEvent::Complete { payload } => {
                // A turn that produced nothing (failed or stopped before any output) adds no
                // empty bubble: the user's message stays last, ready to retry.
                // The runs of text still open take the payload's copy of their text when it is theirs.
                let known: Vec<&SharedText> = std::iter::once(&payload.text)
                    .chain(payload.segments.iter().filter_map(|s| match s {
                        Segment::Text { text } => Some(text),
                        Segment::Tool { .. } => None,
                    }))
                    .collect();
                // A text moved into the payload ([`StateMachine::step_into`]) is what the runs are cut from.
                let lent = std::mem::take(&mut self.text_lent).then_some(payload.text.as_str());
                let streamed = self.take_streaming(patches, &known, lent);
                let message = self.finished_message(payload, streamed);
                if !message.is_empty() {
                    let message = Arc::new(message);
                    patches.push(Patch::Push { key: KEY.messages, value: PatchValue::Message(message.clone()) });
                    self.state.messages.push(message);
                }
                if let Some(id) = payload.extra.get("conversation_id").filter(|v| !v.is_null()) {
                    self.state.conversation_id = Some(id.clone());
                    patches.push(Patch::Set { key: KEY.conversation_id, value: id.clone().into() });
                }
                self.end_turn(patches);
            }
            StreamEvent::Error { code, message, .. } => {
                // An error before `complete` may be one unreadable frame in a stream that goes on,
                // so the turn ends when the stream does (`stream_closed`), not here.
                self.set(patches, Field::Error(Some(ChatError { code: *code, message: message.clone() })));
                self.set(patches, Field::StatusText(None));
                self.set(patches, Field::ActiveToolProgress(None));
            }
            StreamEvent::Cancelled => {
                // The `complete` before this carried the partial answer: mark it as stopped.
                let at = self.state.messages.len().saturating_sub(1);
                if let Some(last) = self.state.messages.last_mut().filter(|m| m.role == "assistant" && !m.cancelled) {
                    Arc::make_mut(last).cancelled = true;
                    let value = PatchValue::Message(last.clone());
                    set_item(patches, KEY.messages, at, self.state.messages.len(), value);
                }
                self.end_turn(patches);
            }
            // `apply` handles these.
            StreamEvent::TextDelta { .. } | StreamEvent::ThinkingDelta { .. } => {}
            #[cfg(feature = "model-tool-calls")]
            StreamEvent::ToolInputDelta { .. } => {}
        }
    }

    /// Answer text: appended to `streamingText`, and to the last text segment and text part, or
    /// starting new ones. A new segment or part (after a tool) drops its leading whitespace, as
    /// the final message's segments do, so nothing jumps when the answer completes. The last text
    /// segment's and part's texts grow in `streamingText` alone ([`OpenRun`]).
    pub(super) fn append_text(&mut self, text: &str, patches: &mut Vec<Patch>) {
        let fresh = text.trim_start();
        // Where a new segment or part starts in `streaming_text`: past the whitespace it drops.
        let fresh_at = self.state.streaming_text.len() + (text.len() - fresh.len());
        self.state.streaming_text.push_str(text);
        let segment_continues = self.open.segment.is_some();
        let part_continues = self.open.part.is_some();
        if segment_continues && part_continues {
            patches.push(Patch::AppendText { text: text.to_owned() });
            return;
        }
        // After thinking, as an answer that goes back and forth between the two does at every turn.
        if segment_continues && !fresh.is_empty() && fresh.len() == text.len() {
            patches.push(Patch::StartTextPart { text: text.to_owned() });
            self.close_part_run();
            self.state.streaming_parts.push(MessagePart::Text { text: SharedText::default() });
            self.open.part = Some(fresh_at);
            return;
        }
        patches.push(Patch::Append { key: KEY.streaming_text, text: text.to_owned() });
        if segment_continues {
            patches.push(Patch::AppendToLast { key: KEY.streaming_segments, text: text.to_owned() });
        } else if !fresh.is_empty() {
            self.close_segment_run();
            let value = PatchValue::Segment(Segment::Text { text: fresh.into() });
            patches.push(Patch::Push { key: KEY.streaming_segments, value });
            self.state.streaming_segments.push(Segment::Text { text: SharedText::default() });
            self.open.segment = Some(fresh_at);
        }
        if part_continues {
            patches.push(Patch::AppendToLast { key: KEY.streaming_parts, text: text.to_owned() });
        } else if !fresh.is_empty() {
            self.close_part_run();
            let value = PatchValue::Part(MessagePart::Text { text: fresh.into() });
            patches.push(Patch::Push { key: KEY.streaming_parts, value });
            self.state.streaming_parts.push(MessagePart::Text { text: SharedText::default() });
            self.open.part = Some(fresh_at);
        }
    }

    pub(super) fn push_part(&mut self, part: MessagePart, patches: &mut Vec<Patch>) {
        self.close_part_run();
        if let MessagePart::Tool { tool_use_id, .. } = &part {
            self.tool_parts.entry(tool_use_id.clone()).or_insert(self.state.streaming_parts.len());
        }
        patches.push(Patch::Push { key: KEY.streaming_parts, value: PatchValue::Part(part.clone()) });
        self.state.streaming_parts.push(part);
    }

    fn push_segment(&mut self, segment: Segment, patches: &mut Vec<Patch>) {
        self.close_segment_run();
        if let Segment::Tool { tool_use_id: Some(id), .. } = &segment {
            self.tool_segments.entry(id.clone()).or_insert(self.state.streaming_segments.len());
        }
        patches.push(Patch::Push { key: KEY.streaming_segments, value: PatchValue::Segment(segment.clone()) });
        self.state.streaming_segments.push(segment);
    }

    /// The last text segment's run of text ended: the segment gets its text.
    fn close_segment_run(&mut self) {
        let run = OpenRun { segment: self.open.segment.take(), ..OpenRun::default() };
        run.fill(&mut self.state);
    }

    /// The last part's run of text or thinking ended: the part gets its text.
    fn close_part_run(&mut self) {
        let run = OpenRun { part: self.open.part.take(), reasoning: self.open.reasoning.take(), ..OpenRun::default() };
        run.fill(&mut self.state);
    }

    /// Where the tool part of this call is in `streaming_parts`.
    fn tool_part(&self, id: &str) -> Option<usize> {
        self.tool_parts.get(id).copied()
    }

    /// Changes the tool part of this call (its state, its input), if there is one.
    pub(super) fn set_tool_part(
        &mut self,
        id: &str,
        patches: &mut Vec<Patch>,
        change: impl FnOnce(&mut ToolState, &mut Shared),
    ) {
        let found = self.tool_part(id).and_then(|at| match &mut self.state.streaming_parts[at] {
            MessagePart::Tool { state, input, .. } => Some((at, state, input)),
            _ => None,
        });
        if let Some((at, state, input)) = found {
            change(state, input);
            let value = PatchValue::Part(self.state.streaming_parts[at].clone());
            set_item(patches, KEY.streaming_parts, at, self.state.streaming_parts.len(), value);
        }
    }

    /// A `tool_complete`: the tool part gets its output (a denied call stays denied).
    pub(super) fn tool_finished(&mut self, event: &StreamEvent, patches: &mut Vec<Patch>) {
        let StreamEvent::ToolComplete { tool_use_id, tool, index, input, output, is_error } = event else { return };
        let at = self.tool_part(tool_use_id);
        let denied = at.is_some_and(|at| {
            matches!(self.state.streaming_parts[at], MessagePart::Tool { state: ToolState::OutputDenied, .. })
        });
        let part = MessagePart::Tool {
            tool_use_id: tool_use_id.clone(),
            tool: tool.clone(),
            index: *index,
            state: if denied { ToolState::OutputDenied } else { ToolState::of_result(*is_error) },
            input: input.clone(),
            output: output.clone(),
            is_error: *is_error,
        };
        match at {
            Some(at) => {
                let len = self.state.streaming_parts.len();
                set_item(patches, KEY.streaming_parts, at, len, PatchValue::Part(part.clone()));
                self.state.streaming_parts[at] = part;
            }
            None => self.push_part(part, patches),
        }
    }

    /// The answer a `complete` describes: its text and segments are the payload's, shared with it
    /// (a long answer's text is held once, by the payload, the message, its segments and parts).
    fn finished_message(&mut self, payload: &CompletePayload, streamed: Streamed) -> ChatMessage {
        let Streamed { thinking, parts, .. } = streamed;
        let parts = final_parts(payload, parts);
        let content = payload.message.clone();
        let segments = payload.segments.clone();
        let thinking = match &payload.thinking {
            Some(said) if *said == thinking => Some(thinking),
            said => said.clone(),
        };
        ChatMessage::assistant((self.ids)(), payload, Answer { content, thinking, segments, parts })
    }

    /// Where the tool segment of this call is in `streaming_segments`.
    pub(super) fn tool_segment(&self, tool_use_id: &str) -> Option<usize> {
        self.tool_segments.get(tool_use_id).copied()
    }
}

/// `state[key][at] = value` for a list of `len` items. When the item is the step's last push onto
/// the list, and nothing after it in the step touches the list, the push carries `value` instead:
/// a tool card pushed and given its input in one read (a whole call in one frame) crosses into JS
/// and is parsed there once, not twice. The push is looked for among the last few patches only
/// (where it is in that case): a step of many other patches, such as a hostile read of thousands
/// of status lines and repeated tool results, would otherwise be walked again at every set.
fn set_item(patches: &mut Vec<Patch>, key: &'static str, at: usize, len: usize, value: PatchValue) {
    const LOOK_BACK: usize = 8;
    if at + 1 == len {
        for patch in patches.iter_mut().rev().take(LOOK_BACK) {
            match patch {
                Patch::Push { key: pushed, value: item } if *pushed == key => {
                    *item = value;
                    return;
                }
                // Another field's patch; anything else (this list's, or those that name no key) ends the look.
                Patch::Set { key: other, .. }
                | Patch::Append { key: other, .. }
                | Patch::Push { key: other, .. }
                | Patch::SetAt { key: other, .. }
                | Patch::AppendToLast { key: other, .. }
                | Patch::PushInto { key: other, .. }
                    if *other != key => {}
                _ => break,
            }
        }
    }
    patches.push(Patch::SetAt { key, at, value });
}

/// Whether `parts`, end to end, are `whole`.
fn joined_is(parts: &[&str], whole: &str) -> bool {
    let mut rest = whole.as_bytes();
    for part in parts {
        match rest.strip_prefix(part.as_bytes()) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

/// The answer's parts as they streamed, with each tool's final input and output from the
/// payload's `tool_history`. A backend that sent its own `message` decides the text: then the
/// parts are its thinking, its segments and the data that streamed.
fn final_parts(payload: &CompletePayload, mut parts: Vec<MessagePart>) -> Vec<MessagePart> {
    let texts: Vec<&str> = (parts.iter())
        .filter_map(|p| if let MessagePart::Text { text } = p { Some(text.as_str()) } else { None })
        .collect();
    // The same visible text. Usually one part that is the whole text, compared at once; else
    // character by character, whitespace left out.
    let visible = |c: &char| !c.is_whitespace();
    let same_text = match texts[..] {
        [one] if one.trim() == payload.text.trim() => true,
        // An answer that goes back and forth between thinking and text has hundreds of text parts
        // that, end to end, are the payload's text byte for byte: compared as bytes first, as the
        // walk through their characters was 2% of a live read of such an answer (Node's profile).
        _ if joined_is(&texts, &payload.text) => true,
        _ => texts.iter().flat_map(|t| t.chars()).filter(visible).eq(payload.text.chars().filter(visible)),
    };
    if !same_text {
        let mut answer =
            parts_of_answer(payload.thinking.as_deref(), &payload.segments, &payload.message, &payload.tool_history);
        answer.extend(parts.into_iter().filter(|p| matches!(p, MessagePart::Data { .. })));
        return answer;
    }
    for part in &mut parts {
        if let MessagePart::Tool { index, state, input, output, is_error, .. } = part {
            if let Some(record) = payload.tool_history.get(*index as usize) {
                *input = record.input.clone();
                *output = record.output.clone();
                *is_error = record.is_error;
                if *state != ToolState::OutputDenied && (!output.is_null() || *is_error) {
                    *state = ToolState::of_result(*is_error);
                }
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::joined_is;

    #[test]
    fn parts_joined_are_compared_byte_for_byte_and_to_the_end() {
        assert!(joined_is(&["Hel", "lo, ", "wörld"], "Hello, wörld"));
        assert!(joined_is(&["a", "", "b"], "ab"));
        assert!(joined_is(&[], ""));
        assert!(!joined_is(&["Hel", "lo"], "Hello!"), "the whole is longer");
        assert!(!joined_is(&["Hello", "!"], "Hello"), "the parts are longer");
        assert!(!joined_is(&["Hello", " there"], "Hello  there"));
        assert!(!joined_is(&["Hello ", "there"], "Hello\nthere"), "white space differs: the character walk decides");
        assert!(!joined_is(&[], "Hello"));
    }
}
