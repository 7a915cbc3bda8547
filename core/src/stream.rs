//! Track one streaming call (`message/stream`, `SendStreamingMessage`, resubscribe) to its end,
//! sans-IO.
//!
//! ```text
//! caller                         StreamTracker
//!   │ decoded SSE event ─────────► on_event(now, type, data, id) ─► Some(StreamItem)
//!   │ keep-alive comment ────────► on_comment(now)
//!   │ any bytes read ────────────► on_bytes(now)
//!   │ before each read ◄───────── next_deadline()   (idle timeout; comments count)
//!   │ deadline passed ───────────► on_timeout(now) ─► Some(transport outcome)
//!   │ end of body ───────────────► finish() ─► StreamEnd { completed | interrupted |
//!   │                                                      truncated | error | timed out }
//!   │ not text/event-stream ─────► on_non_sse_body(&response) ─► Outcome
//! ```
//!
//! The interaction is over (see [`StreamTracker::is_over`]) on 0.3 `final: true`; on a
//! terminal state in either version; on an interrupted state (input-required,
//! auth-required) in 1.0; on a Message; or on an error event. A body that closes before
//! that is *truncated*: the task is still running on the server, and the end outcome
//! carries its id and last state with advice `resubscribe` (never resend the message, which
//! would start a second task).
//!
//! Per event the tracker parses the event's JSON once (borrowed) and updates its own state
//! in place, reusing its string buffers: it allocates nothing per event beyond the item it
//! returns.
//!
//! The tracker is implemented in the classifier (`classify/stream.rs`), which runs whole
//! event-stream bodies through it; this module is its public home.

pub use crate::classify::stream::{
    StreamEnd, StreamEndKind, StreamItem, StreamItemKind, StreamTracker, track_whole_body,
};
