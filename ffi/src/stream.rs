//! The stream tracker: follows one streaming call to its end, with time in milliseconds on
//! the caller's clock and the idle deadline handed back.

use a2a::stream::{StreamEndKind, StreamItemKind, StreamTracker};
use a2a::time::Millis;

use crate::classify::{a2a_asked, a2a_response, asked_from, response_from};
use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::outcome::a2a_outcome;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_str, try_bytes, try_input};
use crate::vocab::a2a_task_state;

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

/// One typed item of a stream, from `a2a_stream_tracker_on_event`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_stream_item {
    /// What the event carried.
    pub kind: a2a_stream_item_kind,
    /// The event classified like a whole response. BORROWED from the tracker: valid until
    /// the next mutating call on it; never free it (copy what you need, or read it with
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
    /// Whether this item ends the interaction (stop reading, then call `_finish`).
    pub ends_stream: bool,
}

/// Turns a core item into its C struct; the outcome and artifact id are stored in the
/// caller's slots (which the struct's pointers then borrow).
pub(crate) fn item_c(
    item: a2a::stream::StreamItem,
    outcome_slot: &mut Option<a2a_outcome>,
    artifact_slot: &mut Option<String>,
) -> a2a_stream_item {
    let kind = item_kind(item.kind);
    *artifact_slot = item.artifact_id;
    // The previous item's text buffer is reused: one allocation per stream, not per item.
    let mut text = outcome_slot
        .take()
        .and_then(|o| o.result)
        .unwrap_or_default();
    let result = item.event.as_deref().map(|ev| {
        text.clear();
        a2a::answer::write_event_json(&mut text, ev);
        text
    });
    let outcome: &a2a_outcome = outcome_slot.insert(a2a_outcome {
        inner: item.outcome,
        result,
    });
    a2a_stream_item {
        kind,
        outcome: outcome as *const a2a_outcome,
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

/// Tracks one streaming call (`message/stream`, `SendStreamingMessage`, resubscribe) to its
/// end. Feed it the decoded SSE events; it types each one, watches the idle deadline and
/// says how the stream ended.
///
/// Methods: `a2a_stream_tracker_new`, `a2a_stream_tracker_free`,
/// `a2a_stream_tracker_on_bytes`, `a2a_stream_tracker_on_comment`,
/// `a2a_stream_tracker_on_event`, `a2a_stream_tracker_next_deadline`,
/// `a2a_stream_tracker_on_timeout`, `a2a_stream_tracker_on_non_sse_body`,
/// `a2a_stream_tracker_finish`, `a2a_stream_tracker_is_over`,
/// `a2a_stream_tracker_task_id`, `a2a_stream_tracker_last_state`,
/// `a2a_stream_tracker_events`.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_stream_tracker {
    inner: StreamTracker,
    /// The outcome of the last item (what `a2a_stream_item.outcome` points to).
    item_outcome: Option<a2a_outcome>,
    item_artifact: Option<String>,
}

impl Handle for a2a_stream_tracker {}

/// A tracker for a call asked as `*asked` (NULL: nothing known), with an idle timeout in
/// milliseconds (0: none), started at `now_ms` on the caller's monotonic clock.
///
/// `asked` is read during the call only (the tracker copies what it keeps). `out`: receives
/// a new handle the caller owns (free with `a2a_stream_tracker_free`); written on success.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_new(
    asked: *const a2a_asked,
    idle_timeout_ms: u64,
    now_ms: u64,
    out: *mut *mut a2a_stream_tracker,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let asked = if asked.is_null() {
            Default::default()
        } else {
            // SAFETY: non-NULL; the header requires a readable a2a_asked with valid inputs.
            try_input!(unsafe { asked_from(&*asked) })
        };
        let idle = (idle_timeout_ms > 0).then_some(Millis(idle_timeout_ms));
        out.set(handle::into_raw(a2a_stream_tracker {
            inner: StreamTracker::new(asked, idle, Millis(now_ms)),
            item_outcome: None,
            item_artifact: None,
        }));
        a2a_result::A2A_OK
    }
}

/// Frees a tracker. NULL is a no-op; must not be called twice. Borrowed item outcomes
/// become invalid.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_free(tracker: *mut a2a_stream_tracker) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(tracker) }
    }
}

/// Bytes arrived at `now_ms` (any bytes prove the connection alive; pushes the deadline).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_on_bytes(
    tracker: *mut a2a_stream_tracker,
    now_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        try_mut!(tracker).inner.on_bytes(Millis(now_ms));
        a2a_result::A2A_OK
    }
}

/// A comment (keep-alive) arrived at `now_ms`: activity, nothing else.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_on_comment(
    tracker: *mut a2a_stream_tracker,
    now_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        try_mut!(tracker).inner.on_comment(Millis(now_ms));
        a2a_result::A2A_OK
    }
}

/// A decoded SSE event arrived at `now_ms`: its type (`(NULL, 0)` when it had no `event:`
/// field) and data, read during the call only.
///
/// Returns `A2A_OK` and writes `*out` (its `outcome` and `artifact_id` are borrowed from
/// the tracker until the next mutating call), or `A2A_NONE` for an event whose data is
/// empty or only whitespace (nothing to classify; `*out` untouched).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_on_event(
    tracker: *mut a2a_stream_tracker,
    now_ms: u64,
    event_type: *const u8,
    event_type_len: usize,
    data: *const u8,
    data_len: usize,
    out: *mut a2a_stream_item,
) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_mut!(tracker);
        let out = try_out!(out);
        let event_type = try_bytes!(event_type, event_type_len);
        let data = try_bytes!(data, data_len);
        t.item_outcome = None;
        t.item_artifact = None;
        let Some(item) = t.inner.on_event(Millis(now_ms), event_type, data, None) else {
            return a2a_result::A2A_NONE;
        };
        out.set(item_c(item, &mut t.item_outcome, &mut t.item_artifact));
        a2a_result::A2A_OK
    }
}

/// When the caller must call `a2a_stream_tracker_on_timeout` at the latest, in ms on the
/// caller's clock. Returns true and writes `*out`, or false (leaving `*out` untouched) when
/// there is no idle timeout, the stream has ended, or an argument is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_next_deadline(
    tracker: *const a2a_stream_tracker,
    out: *mut u64,
) -> bool {
    ffi_panic_boundary! {
        let out = try_out!(out);
        match try_ref!(tracker).inner.next_deadline() {
            Some(d) => { out.set(d.0); true }
            None => false,
        }
    }
}

/// The idle deadline may have passed at `now_ms`. Returns `A2A_OK` and a new transport
/// outcome in `*out` (owned by the caller: free with `a2a_outcome_free`; advice
/// `resubscribe` when the task id is known) when it has, or `A2A_NONE` when `now_ms` is
/// before the deadline or there is none.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_on_timeout(
    tracker: *mut a2a_stream_tracker,
    now_ms: u64,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_mut!(tracker);
        let out = try_out!(out);
        match t.inner.on_timeout(Millis(now_ms)) {
            Some(o) => {
                out.set(a2a_outcome::into_raw(o));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_NONE,
        }
    }
}

/// The response was not `text/event-stream` (an up-front error): classifies it as a whole
/// response and ends the tracker. `response` is read during the call only; its `asked` is
/// ignored (the tracker's own is used). `out`: a new outcome the caller owns.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_on_non_sse_body(
    tracker: *mut a2a_stream_tracker,
    response: *const a2a_response,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_mut!(tracker);
        let r = try_ref!(response);
        let out = try_out!(out);
        let mut plain = *r;
        plain.asked = a2a_asked {
            version: 0,
            binding: 0,
            method: std::ptr::null(),
            method_len: 0,
            request_id: std::ptr::null(),
            request_id_len: 0,
        };
        // SAFETY: the header requires the pointers in `response` to be valid inputs.
        let info = try_input!(unsafe { response_from(&plain) });
        out.set(a2a_outcome::into_raw(t.inner.on_non_sse_body(&info)));
        a2a_result::A2A_OK
    }
}

/// The body ended: how the stream ended (`*kind`) and the call's outcome (`*out`, a new
/// outcome the caller owns). Calling it again returns the same end. Both outputs written on
/// success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_finish(
    tracker: *mut a2a_stream_tracker,
    kind: *mut a2a_stream_end_kind,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_mut!(tracker);
        let kind = try_out!(kind);
        let out = try_out!(out);
        let end = t.inner.finish();
        kind.set(end_kind(end.kind));
        out.set(a2a_outcome::into_raw(end.outcome));
        a2a_result::A2A_OK
    }
}

/// Whether the interaction is over (stop reading and close); false when `tracker` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_is_over(tracker: *const a2a_stream_tracker) -> bool {
    ffi_panic_boundary! {
        try_ref!(tracker).inner.is_over()
    }
}

/// The task id seen so far; absent `(NULL, 0)` when none (or `tracker` is NULL). Valid
/// until the next mutating call on the tracker.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_task_id(tracker: *const a2a_stream_tracker) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(try_ref!(tracker).inner.task_id())
    }
}

/// The last task state seen so far. Returns true and writes `*out`, or false (leaving it
/// untouched) when none was seen or an argument is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_last_state(
    tracker: *const a2a_stream_tracker,
    out: *mut a2a_task_state,
) -> bool {
    ffi_panic_boundary! {
        let out = try_out!(out);
        match try_ref!(tracker).inner.last_state() {
            Some(s) => { out.set(a2a_task_state::from_core(s)); true }
            None => false,
        }
    }
}

/// Events that produced an item so far (0 when `tracker` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_stream_tracker_events(tracker: *const a2a_stream_tracker) -> u64 {
    ffi_panic_boundary! {
        try_ref!(tracker).inner.events()
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

    use super::*;
    use crate::outcome::*;
    use crate::vocab::{a2a_binding, a2a_channel, a2a_protocol_version, a2a_retry};
    use std::ptr::{null, null_mut};

    fn asked() -> a2a_asked {
        let m = "message/stream";
        a2a_asked {
            version: a2a_protocol_version::V0_3 as u32,
            binding: a2a_binding::JsonRpc as u32,
            method: m.as_ptr().cast(),
            method_len: m.len(),
            request_id: b"1".as_ptr().cast(),
            request_id_len: 1,
        }
    }

    #[test]
    fn truncated_stream_advises_resubscribe_and_deadlines_move() {
        let mut t = null_mut();
        assert_eq!(
            a2a_stream_tracker_new(&asked(), 1000, 5, &mut t),
            a2a_result::A2A_OK
        );
        let mut d = 0;
        assert!(a2a_stream_tracker_next_deadline(t, &mut d));
        assert_eq!(d, 1005);
        let data = br#"{"jsonrpc":"2.0","id":"1","result":{"kind":"status-update","taskId":"t-9","contextId":"c","status":{"state":"working"},"final":false}}"#;
        let mut item = a2a_stream_item {
            kind: a2a_stream_item_kind::Malformed,
            outcome: null(),
            has_final: false,
            final_flag: true,
            artifact_id: a2a_str::NONE,
            append: false,
            last_chunk: false,
            ends_stream: true,
        };
        assert_eq!(
            a2a_stream_tracker_on_event(t, 100, null(), 0, data.as_ptr(), data.len(), &mut item),
            a2a_result::A2A_OK
        );
        assert_eq!(item.kind, a2a_stream_item_kind::StatusUpdate);
        assert!(item.has_final && !item.final_flag && !item.ends_stream);
        assert_eq!(
            crate::outcome::tests::info(item.outcome).channel,
            a2a_channel::Task
        );
        assert!(a2a_stream_tracker_next_deadline(t, &mut d));
        assert_eq!(d, 1100);
        a2a_stream_tracker_on_comment(t, 600);
        assert!(a2a_stream_tracker_next_deadline(t, &mut d));
        assert_eq!(d, 1600);
        assert_eq!(
            unsafe { a2a_stream_tracker_task_id(t).as_str() },
            Some("t-9")
        );
        assert_eq!(a2a_stream_tracker_events(t), 1);
        let mut o = null_mut();
        assert_eq!(
            a2a_stream_tracker_on_timeout(t, 1599, &mut o),
            a2a_result::A2A_NONE
        );
        let mut kind = a2a_stream_end_kind::Completed;
        assert_eq!(
            a2a_stream_tracker_finish(t, &mut kind, &mut o),
            a2a_result::A2A_OK
        );
        assert_eq!(kind, a2a_stream_end_kind::Truncated);
        assert_eq!(crate::outcome::tests::info(o).retry, a2a_retry::Resubscribe);
        a2a_outcome_free(o);
        a2a_stream_tracker_free(t);
    }

    #[test]
    fn idle_timeout_fires_once_due() {
        let mut t = null_mut();
        assert_eq!(
            a2a_stream_tracker_new(null(), 50, 0, &mut t),
            a2a_result::A2A_OK
        );
        let mut o = null_mut();
        assert_eq!(
            a2a_stream_tracker_on_timeout(t, 50, &mut o),
            a2a_result::A2A_OK
        );
        assert_eq!(
            crate::outcome::tests::info(o).channel,
            a2a_channel::Transport
        );
        a2a_outcome_free(o);
        let mut d = 0;
        assert!(!a2a_stream_tracker_next_deadline(t, &mut d));
        a2a_stream_tracker_free(t);
    }
}
