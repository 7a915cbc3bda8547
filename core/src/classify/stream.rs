//! The stream tracker (public as [`crate::stream`]): the classifier applied event by event.
//! It lives inside `classify` because each needs the other: the tracker reads every event
//! with the classifier's body reader, and [`classify`] runs a whole
//! `text/event-stream` body through the tracker.

use super::{Asked, CallContext, MethodInfo, ResponseInfo, classify, method_info, scan};
use crate::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use crate::sse::{Decoder, Item, LimitError};
use crate::time::Millis;
use crate::version::{Binding, ProtocolVersion};

/// What a stream event carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamItemKind {
    /// A Task snapshot.
    Task,
    /// A direct Message (ends the stream).
    Message,
    /// A status update (0.3 `status-update`, 1.0 `statusUpdate`).
    StatusUpdate,
    /// An artifact update (0.3 `artifact-update`, 1.0 `artifactUpdate`).
    ArtifactUpdate,
    /// A protocol error inside the stream (`event: error`, or a `data:` error object).
    Error,
    /// An event whose data fits no shape (or answers another request id).
    Malformed,
}

impl StreamItemKind {
    /// Every kind, in declaration order.
    pub const ALL: [StreamItemKind; 6] = [
        StreamItemKind::Task,
        StreamItemKind::Message,
        StreamItemKind::StatusUpdate,
        StreamItemKind::ArtifactUpdate,
        StreamItemKind::Error,
        StreamItemKind::Malformed,
    ];

    /// The lowercase name used in JSON output (`task`, `status-update`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            StreamItemKind::Task => "task",
            StreamItemKind::Message => "message",
            StreamItemKind::StatusUpdate => "status-update",
            StreamItemKind::ArtifactUpdate => "artifact-update",
            StreamItemKind::Error => "error",
            StreamItemKind::Malformed => "malformed",
        }
    }
}

/// One typed item of a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamItem {
    /// What the event carried.
    pub kind: StreamItemKind,
    /// The event classified like a whole response (task channel with state for tasks and
    /// status updates, message, protocol for errors, malformed).
    pub outcome: Outcome,
    /// 0.3 `final` of a status update, when present.
    pub final_flag: Option<bool>,
    /// Artifact updates: the artifact id.
    pub artifact_id: Option<String>,
    /// Artifact updates: `append` (false when absent).
    pub append: bool,
    /// Artifact updates: `lastChunk` (false when absent).
    pub last_chunk: bool,
    /// Whether this item ends the interaction.
    pub ends_stream: bool,
    /// The event as the normalized model ([`crate::answer::read_event`]). The tracker
    /// leaves it `None` (it reads only what the outcome needs); the driver fills it.
    #[cfg(feature = "model")]
    pub event: Option<Box<crate::model::StreamEvent<'static>>>,
}

/// How a stream ended.
///
/// Exhaustive on purpose: every way a stream ends is handled by the machine and numbered in the
/// C ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamEndKind {
    /// A terminal state or a Message was seen (the task itself may have failed).
    Completed,
    /// An interrupted state (input-required, auth-required) ended the turn.
    Interrupted,
    /// The body ended before a terminal state: the task may still be running.
    Truncated,
    /// A protocol error arrived in the stream (or instead of it).
    Error,
    /// The idle timeout expired.
    TimedOut,
    /// The response was not an event stream (an up-front error as `application/json`).
    NotAStream,
}

impl StreamEndKind {
    /// The lowercase name (`completed`, `interrupted`, `truncated`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            StreamEndKind::Completed => "completed",
            StreamEndKind::Interrupted => "interrupted",
            StreamEndKind::Truncated => "truncated",
            StreamEndKind::Error => "error",
            StreamEndKind::TimedOut => "timed_out",
            StreamEndKind::NotAStream => "not_a_stream",
        }
    }
}

/// The end of a stream: how it ended and the outcome of the whole call.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamEnd {
    /// How it ended.
    pub kind: StreamEndKind,
    /// The call's outcome: the last task state (task channel), the message, the error, or a
    /// transport outcome for truncation and timeout (with task id and last state).
    pub outcome: Outcome,
}

/// Tracks one streaming call. See the module docs for the call order.
#[derive(Debug, Clone)]
pub struct StreamTracker {
    version: Option<ProtocolVersion>,
    binding: Option<Binding>,
    method: Option<String>,
    method_info: Option<MethodInfo>,
    request_id: Option<String>,
    idle_timeout: Option<Millis>,
    last_activity: Millis,
    events: u64,
    task_id: Option<String>,
    context_id: Option<String>,
    text: Option<String>,
    last_state: Option<TaskState>,
    seen_version: Option<ProtocolVersion>,
    seen_binding: Option<Binding>,
    message_seen: bool,
    over: bool,
    // Boxed: set only once the stream errs or ends, and ~300 bytes each inline in every
    // open stream's tracker (issue 28: memory per idle stream).
    error: Option<Box<Outcome>>,
    end: Option<Box<StreamEnd>>,
}

impl StreamTracker {
    /// A tracker for a call asked as `asked`, with an idle timeout (no bytes, events or
    /// comments for that long) or `None` for none, started at `now`.
    pub fn new(asked: Asked<'_>, idle_timeout: Option<Millis>, now: Millis) -> StreamTracker {
        StreamTracker {
            version: asked.version,
            binding: asked.binding,
            method: asked.method.map(str::to_owned),
            method_info: asked.method.and_then(method_info),
            request_id: asked.request_id.map(str::to_owned),
            idle_timeout,
            last_activity: now,
            events: 0,
            task_id: None,
            context_id: None,
            text: None,
            last_state: None,
            seen_version: None,
            seen_binding: None,
            message_seen: false,
            over: false,
            error: None,
            end: None,
        }
    }

    /// The tracker of a stream that belongs to a known task before any event names it: a
    /// resubscribe (`SubscribeToTask`, 0.3 `tasks/resubscribe`) asks for `task_id`. Servers
    /// may send nothing on such a stream until the task changes (the Go SDK's does), so a
    /// stream that is cut or goes idle before its first event still ends with the task's id
    /// and advice `resubscribe`, never as a call of unknown task. An event naming a task
    /// replaces it, as on any stream.
    pub fn with_task_id(mut self, task_id: &str) -> StreamTracker {
        set(&mut self.task_id, Some(task_id));
        self
    }

    fn ctx(&self) -> CallContext<'_> {
        CallContext {
            status: 200,
            asked: Asked {
                version: self.version,
                binding: self.binding,
                method: self.method.as_deref(),
                request_id: self.request_id.as_deref(),
            },
            method: self.method_info,
            content_type: None,
            retry_after: false,
        }
    }

    /// Bytes arrived (any bytes: they prove the connection is alive).
    pub fn on_bytes(&mut self, now: Millis) {
        self.last_activity = self.last_activity.max(now);
    }

    /// A comment line arrived (`: ping`): activity, nothing else.
    pub fn on_comment(&mut self, now: Millis) {
        self.on_bytes(now);
    }

    /// When the caller must call [`StreamTracker::on_timeout`] at the latest, or `None`
    /// (no idle timeout, or the stream has ended).
    pub fn next_deadline(&self) -> Option<Millis> {
        if self.end.is_some() || self.over {
            return None;
        }
        self.idle_timeout
            .map(|t| self.last_activity.saturating_add(t))
    }

    /// Whether the interaction is over (the caller may stop reading and close).
    pub fn is_over(&self) -> bool {
        self.over || self.end.is_some()
    }

    /// The task id seen so far.
    pub fn task_id(&self) -> Option<&str> {
        self.task_id.as_deref()
    }

    /// The last task state seen so far.
    pub fn last_state(&self) -> Option<TaskState> {
        self.last_state
    }

    /// Events that produced an item so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// A decoded event: its type (`b""` when it had no `event:` field), its data and its id.
    /// Returns `None` for an event with empty data (nothing to classify).
    pub fn on_event(
        &mut self,
        now: Millis,
        event_type: &[u8],
        data: &[u8],
        id: Option<&[u8]>,
    ) -> Option<StreamItem> {
        self.on_event_tape(now, event_type, data, id, None)
    }

    /// [`StreamTracker::on_event`] reading the data from its tape when the caller made one
    /// (the client machine, which reads the event's model from the same tape: one pass over
    /// each event's data).
    pub(crate) fn on_event_tape(
        &mut self,
        now: Millis,
        event_type: &[u8],
        data: &[u8],
        _id: Option<&[u8]>,
        tape: Option<&crate::tape::Tape<'_>>,
    ) -> Option<StreamItem> {
        self.on_bytes(now);
        if data.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        self.events += 1;
        let item = self.read_event(event_type, data, tape);
        if item.ends_stream {
            self.over = true;
        }
        Some(item)
    }

    fn read_event(
        &mut self,
        event_type: &[u8],
        data: &[u8],
        tape: Option<&crate::tape::Tape<'_>>,
    ) -> StreamItem {
        let ctx = self.ctx();
        let is_error_event = event_type == b"error";
        // The shape (544 bytes) is read by reference where it lands: each move through an
        // `Option` or `Result` was a copy of it, per event.
        let from_tape = tape.filter(|t| t.is_object()).map(|t| {
            // The union object read from the tokens directly where the model reader is built
            // (serde at the token for what it does not know), as the unary classifier does.
            #[cfg(feature = "model")]
            let shape = scan::body_shape_from_tape(t, 0);
            #[cfg(not(feature = "model"))]
            let shape = t.read::<scan::BodyShape<'_>>();
            shape
        });
        let scanned;
        let obj = if let Some(Ok(o)) = &from_tape {
            o
        } else {
            scanned = scan::scan(data);
            match &scanned {
                Ok(o) => o,
                Err(_) if is_error_event => {
                    return self.error_item(error_event_without_error(&ctx, data));
                }
                Err(e) => {
                    let o = super::http_malformed(&ctx, e, data).with_task_id(self.task_id.clone());
                    return item(StreamItemKind::Malformed, o);
                }
            }
        };
        if let Some(o) = super::protocol_error_of(&ctx, obj) {
            if o.channel == Channel::Malformed {
                return item(StreamItemKind::Malformed, o);
            }
            return self.error_item(o);
        }
        if is_error_event {
            let o = error_event_without_error(&ctx, data);
            return self.error_item(o);
        }
        match super::read_payload(&ctx, obj, data) {
            Err(o) => item(StreamItemKind::Malformed, *o),
            Ok(p) => self.payload_item(p),
        }
    }

    fn error_item(&mut self, o: Outcome) -> StreamItem {
        let mut o = o.with_http_status(200);
        if self.task_id.is_some() {
            let retry = match o.retry {
                // The task exists: read its state instead of resending.
                RetryAdvice::UnknownOutcome => RetryAdvice::Poll,
                r => r,
            };
            o = o
                .with_task_id(self.task_id.clone())
                .with_context_id(self.context_id.clone())
                .with_retry(retry);
        }
        self.error = Some(Box::new(o.clone()));
        StreamItem {
            ends_stream: true,
            ..item(StreamItemKind::Error, o)
        }
    }

    fn payload_item(&mut self, p: super::Payload) -> StreamItem {
        use super::PayloadKind as K;
        let kind = match p.kind {
            K::Task => StreamItemKind::Task,
            K::StatusUpdate => StreamItemKind::StatusUpdate,
            K::ArtifactUpdate => StreamItemKind::ArtifactUpdate,
            K::Message | K::OtherResult => StreamItemKind::Message,
        };
        let o = &p.outcome;
        if o.version.is_some() {
            self.seen_version = o.version;
        }
        if o.binding.is_some() {
            self.seen_binding = o.binding;
        }
        if kind != StreamItemKind::Message {
            set(&mut self.task_id, o.task_id.as_deref());
        }
        if o.context_id.is_some() {
            set(&mut self.context_id, o.context_id.as_deref());
        }
        let mut ends = false;
        match kind {
            StreamItemKind::Message => {
                self.message_seen = true;
                set(&mut self.text, o.text.as_deref());
                ends = true;
            }
            StreamItemKind::Task | StreamItemKind::StatusUpdate => {
                let state = o.state.unwrap_or(TaskState::Unknown);
                self.last_state = Some(state);
                set(&mut self.text, o.text.as_deref());
                let v03 = o.version.or(self.version) == Some(ProtocolVersion::V0_3);
                ends = state.is_terminal()
                    || p.final_ == Some(true)
                    || (!v03 && state.is_interrupted());
            }
            _ => {}
        }
        let (artifact_id, append, last_chunk) = p.artifact.unwrap_or((None, false, false));
        StreamItem {
            kind,
            outcome: p.outcome,
            final_flag: p.final_,
            artifact_id,
            append,
            last_chunk,
            ends_stream: ends,
            #[cfg(feature = "model")]
            event: None,
        }
    }

    /// The idle deadline passed: returns the transport outcome (advice `resubscribe` when
    /// the task id is known), or `None` when `now` is before the deadline or there is none.
    pub fn on_timeout(&mut self, now: Millis) -> Option<Outcome> {
        let deadline = self.next_deadline()?;
        if now < deadline {
            return None;
        }
        let idle = self.idle_timeout.unwrap_or_default().0;
        let o = self.unfinished(Outcome::transport(
            ErrorName::Timeout,
            RequestSent::Unknown,
            format!("stream idle timeout: no bytes for {idle} ms"),
        ));
        self.end = Some(Box::new(StreamEnd {
            kind: StreamEndKind::TimedOut,
            outcome: o.clone(),
        }));
        Some(o)
    }

    /// The response was not `text/event-stream` (an up-front error before the first event):
    /// classifies it as a whole response and ends the tracker.
    pub fn on_non_sse_body(&mut self, response: &ResponseInfo<'_>) -> Outcome {
        let asked = Asked {
            version: self.version,
            binding: self.binding,
            method: self.method.as_deref(),
            request_id: self.request_id.as_deref(),
        };
        let o = classify(&ResponseInfo {
            content_type: response
                .content_type
                .filter(|c| !super::is_event_stream(Some(c))),
            asked,
            ..*response
        });
        self.end = Some(Box::new(StreamEnd {
            kind: StreamEndKind::NotAStream,
            outcome: o.clone(),
        }));
        o
    }

    /// The body ended: how the stream ended and the call's outcome. Calling it again
    /// returns the same end.
    pub fn finish(&mut self) -> StreamEnd {
        if let Some(end) = &self.end {
            return (**end).clone();
        }
        let end = if let Some(e) = &self.error {
            StreamEnd {
                kind: StreamEndKind::Error,
                outcome: (**e).clone(),
            }
        } else if self.message_seen {
            let o = Outcome::message()
                .with_text(self.text.clone())
                .with_context_id(self.context_id.clone())
                .with_task_id(self.task_id.clone())
                .with_version(self.seen_version.or(self.version))
                .with_binding(self.seen_binding.or(self.binding));
            StreamEnd {
                kind: StreamEndKind::Completed,
                outcome: o,
            }
        } else if let Some(state) = self
            .last_state
            .filter(|s| s.is_terminal() || s.is_interrupted())
        {
            StreamEnd {
                kind: if state.is_terminal() {
                    StreamEndKind::Completed
                } else {
                    StreamEndKind::Interrupted
                },
                outcome: self.task_outcome(state),
            }
        } else {
            let what = match self.last_state {
                Some(s) => format!(
                    "stream closed before a terminal state (last state {})",
                    s.as_str()
                ),
                None if self.events == 0 => "stream closed before any event".to_owned(),
                None => "stream closed before any task state".to_owned(),
            };
            let o = self.unfinished(Outcome::transport(
                ErrorName::Reset,
                RequestSent::Unknown,
                what,
            ));
            StreamEnd {
                kind: StreamEndKind::Truncated,
                outcome: o,
            }
        };
        self.end = Some(Box::new(end.clone()));
        end
    }

    fn task_outcome(&self, state: TaskState) -> Outcome {
        let o = Outcome::task(state)
            .with_task_id(self.task_id.clone())
            .with_context_id(self.context_id.clone())
            .with_version(self.seen_version.or(self.version))
            .with_binding(self.seen_binding.or(self.binding));
        crate::classify::with_status_text(o, self.text.clone())
    }

    /// The outcome of an event the SSE decoder dropped over a limit: `malformed`, naming
    /// the limit; advice `poll` when the task id is known (the task holds what the event
    /// carried), else `never` (the same request would produce the same event).
    fn dropped_event(&self, limit: &LimitError) -> Outcome {
        let retry = if self.task_id.is_some() {
            RetryAdvice::Poll
        } else {
            RetryAdvice::Never
        };
        let message = format!(
            "SSE event dropped: {limit}{}",
            if self.task_id.is_some() {
                "; read the task for its full result"
            } else {
                ""
            }
        );
        Outcome::malformed(message, retry)
            .with_http_status(200)
            .with_task_id(self.task_id.clone())
            .with_context_id(self.context_id.clone())
            .with_last_state(self.last_state)
            .with_version(self.seen_version.or(self.version))
            .with_binding(self.seen_binding.or(self.binding))
    }

    /// Task id, context id, last state and advice on a transport outcome of an unfinished
    /// stream: `resubscribe` when the task id is known.
    fn unfinished(&self, o: Outcome) -> Outcome {
        let retry = if self.task_id.is_some() {
            RetryAdvice::Resubscribe
        } else if self
            .method_info
            .is_none_or(|m| m.kind.is_unsafe_to_repeat())
        {
            RetryAdvice::UnknownOutcome
        } else {
            RetryAdvice::Backoff
        };
        o.with_task_id(self.task_id.clone())
            .with_context_id(self.context_id.clone())
            .with_last_state(self.last_state)
            .with_version(self.seen_version.or(self.version))
            .with_binding(self.seen_binding.or(self.binding))
            .with_retry(retry)
    }
}

fn item(kind: StreamItemKind, outcome: Outcome) -> StreamItem {
    StreamItem {
        kind,
        outcome,
        final_flag: None,
        artifact_id: None,
        append: false,
        last_chunk: false,
        ends_stream: false,
        #[cfg(feature = "model")]
        event: None,
    }
}

/// `event: error` whose data carries no error object: still an error, typed Other.
fn error_event_without_error(ctx: &CallContext<'_>, data: &[u8]) -> Outcome {
    let text = super::excerpt(data);
    let retry = if ctx.side_effecting() {
        RetryAdvice::UnknownOutcome
    } else {
        RetryAdvice::Never
    };
    Outcome::protocol(ErrorName::Other, None, retry)
        .with_message(format!("event: error without an error object: {text}"))
        .with_body_excerpt(text)
}

/// Replaces `slot` with `value`, reusing its allocation when the value changed.
fn set(slot: &mut Option<String>, value: Option<&str>) {
    let Some(v) = value else { return };
    match slot {
        Some(s) if s == v => {}
        Some(s) => {
            s.clear();
            s.push_str(v);
        }
        None => *slot = Some(v.to_owned()),
    }
}

/// Runs a complete `text/event-stream` body through a tracker (for [`classify`]): its one
/// outcome is the end-of-stream outcome, except that an event the decoder dropped over a
/// limit makes it `malformed` (content was lost: never a success), unless the stream ended
/// with an error event, which is reported as such.
pub(crate) fn classify_event_stream(info: &ResponseInfo<'_>) -> Outcome {
    let mut first_drop = None;
    let end = run_whole_body(info.asked, info.body, |item, dropped| {
        if dropped && first_drop.is_none() {
            first_drop = Some(item.outcome);
        }
    });
    match first_drop {
        Some(dropped) if end.kind != StreamEndKind::Error => dropped,
        _ => end.outcome,
    }
}

/// Runs a complete `text/event-stream` body through a tracker, returning every item and the
/// end (for tests, captured streams and tools; streaming callers use the tracker directly).
///
/// The body is decoded by [`crate::sse::Decoder`] with its default limits
/// ([`crate::sse::DEFAULT_MAX_LINE`], [`crate::sse::DEFAULT_MAX_EVENT`]) and the WHATWG
/// end-of-stream rule (an unterminated last block is dropped). An event dropped over a
/// limit becomes a [`StreamItemKind::Malformed`] item in its place, as the driver reports
/// one; the end is the tracker's.
pub fn track_whole_body(asked: Asked<'_>, body: &[u8]) -> (Vec<StreamItem>, StreamEnd) {
    let mut items = Vec::new();
    let end = run_whole_body(asked, body, |item, _| items.push(item));
    (items, end)
}

/// Decodes `body` with the SSE decoder and feeds the tracker; calls `f` with every item and
/// whether it stands for an event the decoder dropped over a limit.
fn run_whole_body(asked: Asked<'_>, body: &[u8], mut f: impl FnMut(StreamItem, bool)) -> StreamEnd {
    let mut t = StreamTracker::new(asked, None, Millis::ZERO);
    let mut decoder = Decoder::new();
    {
        let mut feed = decoder.feed(body);
        loop {
            match feed.next_item() {
                Ok(Some(Item::Event(ev))) => {
                    let id = (!ev.id.is_empty()).then_some(ev.id);
                    if let Some(i) = t.on_event(Millis::ZERO, ev.event_type, ev.data, id) {
                        f(i, false);
                    }
                }
                Ok(Some(Item::Comment(_))) => t.on_comment(Millis::ZERO),
                Ok(Some(Item::Retry(_))) => {}
                Ok(None) => break,
                Err(limit) => f(
                    item(StreamItemKind::Malformed, t.dropped_event(&limit)),
                    true,
                ),
            }
        }
    }
    // The WHATWG rule drops an unterminated last block, as a stream that closed mid-event.
    let _ = decoder.finish();
    t.finish()
}
