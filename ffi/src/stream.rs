//! A stream's typed items as C structs: what the client machine's `A2A_EVENT_KIND_ITEM` and the
//! reference driver's stream events carry. (The standalone tracker handle is gone: the
//! machine tracks every stream; see `CHANGELOG.md`.)

use a2a::stream::{StreamEndKind, StreamItemKind};

use crate::outcome::a2a_outcome;
use crate::view::a2a_str;

/// What a stream event carried.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_stream_item_kind {
    /// A Task snapshot.
    Task = 1,
    /// A direct Message (ends the stream).
    Message = 2,
    /// A status update.
    StatusUpdate = 3,
    /// An artifact update.
    ArtifactUpdate = 4,
    /// A protocol error inside the stream.
    Error = 5,
    /// An event whose data fits no shape (or answers another request id).
    Malformed = 6,
}

/// How a stream ended.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_stream_end_kind {
    /// A terminal state or a Message was seen (the task itself may have failed).
    Completed = 1,
    /// An interrupted state (input-required, auth-required) ended the turn.
    Interrupted = 2,
    /// The body ended before a terminal state: the task may still be running (resubscribe).
    Truncated = 3,
    /// A protocol error arrived in the stream (or instead of it).
    Error = 4,
    /// The idle timeout expired.
    TimedOut = 5,
    /// The response was not an event stream.
    NotAStream = 6,
}

fn item_kind(k: StreamItemKind) -> a2a_stream_item_kind {
    match k {
        StreamItemKind::Task => a2a_stream_item_kind::Task,
        StreamItemKind::Message => a2a_stream_item_kind::Message,
        StreamItemKind::StatusUpdate => a2a_stream_item_kind::StatusUpdate,
        StreamItemKind::ArtifactUpdate => a2a_stream_item_kind::ArtifactUpdate,
        StreamItemKind::Error => a2a_stream_item_kind::Error,
        StreamItemKind::Malformed => a2a_stream_item_kind::Malformed,
        // A kind this C ABI does not know yet reads as one it cannot use.
        _ => a2a_stream_item_kind::Malformed,
    }
}

pub(crate) fn end_kind(k: StreamEndKind) -> a2a_stream_end_kind {
    match k {
        StreamEndKind::Completed => a2a_stream_end_kind::Completed,
        StreamEndKind::Interrupted => a2a_stream_end_kind::Interrupted,
        StreamEndKind::Truncated => a2a_stream_end_kind::Truncated,
        StreamEndKind::Error => a2a_stream_end_kind::Error,
        StreamEndKind::TimedOut => a2a_stream_end_kind::TimedOut,
        StreamEndKind::NotAStream => a2a_stream_end_kind::NotAStream,
    }
}

/// One typed item of a stream (an `a2a_event` of kind `A2A_EVENT_KIND_ITEM`, or a driver stream
/// event).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_stream_item {
    /// What the event carried.
    pub kind: a2a_stream_item_kind,
    /// The event classified like a whole response. BORROWED from the handle that returned
    /// the item: valid until the next mutating call on it; never free it (copy what you need, or read it with
    /// `a2a_outcome_get_info` before the next call).
    pub outcome: *const a2a_outcome,
    /// Whether the 0.3 `final` flag was present (status updates).
    pub has_final: bool,
    /// The 0.3 `final` flag when `has_final`.
    pub final_flag: bool,
    /// Artifact updates: the artifact id (absent view otherwise); valid like `outcome`.
    pub artifact_id: a2a_str,
    /// Artifact updates: `append`.
    pub append: bool,
    /// Artifact updates: `lastChunk`.
    pub last_chunk: bool,
    /// Whether this item ends the interaction (stop reading, the end arrives as its own event).
    pub ends_stream: bool,
}

/// Stores `outcome` (with its rendered answer) in `slot`, reusing the slot's box; a pointer
/// to it, valid until the slot is next written or emptied.
pub(crate) fn keep_outcome(
    slot: &mut Option<Box<a2a_outcome>>,
    outcome: a2a::outcome::Outcome,
    result: Option<String>,
) -> *const a2a_outcome {
    let o = a2a_outcome {
        inner: outcome,
        result,
    };
    let o: &a2a_outcome = match slot {
        Some(b) => {
            **b = o;
            b
        }
        None => slot.insert(Box::new(o)),
    };
    o as *const a2a_outcome
}

/// Turns a core item into its C struct; the outcome and artifact id are stored in the
/// caller's slots (which the struct's pointers then borrow).
pub(crate) fn item_c(
    item: a2a::stream::StreamItem,
    outcome_slot: &mut Option<Box<a2a_outcome>>,
    artifact_slot: &mut Option<String>,
) -> a2a_stream_item {
    let kind = item_kind(item.kind);
    *artifact_slot = item.artifact_id;
    // The previous item's box and text buffer are reused: while a body chunk's items are
    // polled, one allocation of each, not one per item.
    let mut text = outcome_slot
        .as_mut()
        .and_then(|o| o.result.take())
        .unwrap_or_default();
    let result = item.event.as_deref().map(|ev| {
        text.clear();
        a2a::answer::write_event_json(&mut text, ev);
        text
    });
    let outcome = keep_outcome(outcome_slot, item.outcome, result);
    a2a_stream_item {
        kind,
        outcome,
        has_final: item.final_flag.is_some(),
        final_flag: item.final_flag.unwrap_or(false),
        artifact_id: a2a_str::from_opt(artifact_slot.as_deref()),
        append: item.append,
        last_chunk: item.last_chunk,
        ends_stream: item.ends_stream,
    }
}

/// An item with no content (only ever returned beside a different event kind).
#[cfg_attr(not(feature = "driver"), allow(dead_code))]
pub(crate) fn empty_item() -> a2a_stream_item {
    a2a_stream_item {
        kind: a2a_stream_item_kind::Malformed,
        outcome: std::ptr::null(),
        has_final: false,
        final_flag: false,
        artifact_id: a2a_str::NONE,
        append: false,
        last_chunk: false,
        ends_stream: false,
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn every_core_item_kind_has_a_c_kind_of_its_own() {
        use a2a::stream::StreamItemKind;
        for k in StreamItemKind::ALL {
            let c = super::item_kind(k);
            assert!(
                k == StreamItemKind::Malformed || c != super::a2a_stream_item_kind::Malformed,
                "{k:?}"
            );
        }
    }
}
