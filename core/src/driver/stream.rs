//! Streaming calls: the body is read chunk by chunk (each read bounded by the tracker's
//! idle deadline), fed to the core's SSE decoder, whose events and keep-alives drive the
//! core's stream tracker; the iterator yields typed items and ends with the tracker's
//! end-of-stream outcome.
//!
//! ```text
//! open ──► read_chunk(deadline = tracker.next_deadline())
//!            │ bytes ──► decoder ──► events ──► tracker.on_event ──► Item
//!            │                   └─► comments ──► tracker.on_comment
//!            │ clean end / cut ──► tracker.finish()
//!            │ deadline passed ──► tracker.on_timeout(now)
//!            ▼
//!          end: completed | interrupted | error | not a stream ──► End
//!               truncated | timed out, task id known, resubscribes left
//!                 ──► Resubscribing ──► open(resubscribe) ──► (loop)
//!                       answered TaskNotFound / UnsupportedOperation
//!                         ──► get task once ──► End
//! ```
//!
//! The message is never sent again: recovery resubscribes to the task the first stream
//! created, or reads it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::Client;
use super::call::{CallOptions, Prepared, fill_correlation, send_params, user_message};
use super::correlation::{Correlation, new_traceparent};
use super::raw::{RawStream, ReadEnd};
use crate::answer::Assembler;
use crate::classify::ResponseInfo;
use crate::client::unreadable;
use crate::model::params::{Call, TaskIdParams};
use crate::model::{Json, Part, SendResponse};
use crate::outcome::{Channel, ErrorName, Outcome, RetryAdvice, TaskState};
use crate::sse::{Config as SseConfig, Decoder, Item};
use crate::stream::{StreamEnd, StreamEndKind, StreamItem, StreamItemKind, StreamTracker};
use crate::time::Millis;

/// What a stream yields.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// One typed item (task, message, status update, artifact update, error).
    Item(StreamItem),
    /// The stream was cut or went idle with the task still running; the driver is
    /// resubscribing to `task_id` (attempt `attempt`, counting from 1). Never a resend.
    Resubscribing {
        /// The task resubscribed to.
        task_id: String,
        /// 1 for the first resubscribe.
        attempt: u32,
    },
    /// The last event: how the call ended.
    End(StreamFinal),
}

/// How a streaming call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamFinal {
    /// How the last stream ended; `None` when no stream was opened (the request failed:
    /// the outcome is a `transport` one).
    pub kind: Option<StreamEndKind>,
    /// The call's outcome.
    pub outcome: Outcome,
    /// The ids to log on both sides (task id and context id as seen on the stream).
    pub correlation: Correlation,
    /// Resubscribes made.
    pub resubscribes: u32,
    /// Whether the final outcome came from the one get-task fallback (the task had
    /// finished when the driver came back for it).
    pub fetched_by_get: bool,
    /// The get-task response body, when [`StreamFinal::fetched_by_get`].
    pub task_body: Option<Vec<u8>>,
    /// Events dropped because they exceeded [`super::ClientConfig::max_event_bytes`] (each
    /// was also reported as a [`StreamItemKind::Malformed`] item when it happened). Nonzero
    /// means the items seen are incomplete even if the call completed: read the task
    /// (`get`) for its full result; never resend the message.
    pub dropped_events: u32,
    /// Events that arrived whole but could not be read (not JSON, no known shape, content
    /// such as file bytes that does not decode); each was also reported as a
    /// [`StreamItemKind::Malformed`] item saying what and where. Nonzero means the answer is
    /// incomplete, as for `dropped_events`.
    pub unreadable_events: u32,
    /// The answer put together from the stream's events ([`crate::answer::Assembler`]): the
    /// final task with its artifacts assembled (`append`), or the message; from the get-task
    /// fallback's body when [`StreamFinal::fetched_by_get`].
    pub answer: Option<SendResponse<'static>>,
}

impl StreamFinal {
    /// Whether content was lost: an event dropped over the size limit or unreadable.
    pub fn lost_content(&self) -> bool {
        self.dropped_events > 0 || self.unreadable_events > 0
    }

    /// The call's exit status: the outcome's, except that a stream that lost content and
    /// would otherwise report success exits 3 (the outcome still reports the last state).
    pub fn exit_code(&self) -> i32 {
        match self.outcome.exit_code() {
            0 if self.lost_content() => 3,
            code => code,
        }
    }
}

/// An open stream being read.
struct Open {
    raw: RawStream,
    decoder: Decoder,
    tracker: StreamTracker,
    prepared: Prepared,
    /// Whether this connection is a resubscribe (its failure may fall back to get-task).
    resubscribe: bool,
}

/// A streaming call in progress: an iterator of [`StreamEvent`]s ending with
/// [`StreamEvent::End`]. Every read is bounded by the idle timeout; there is no total
/// timeout unless [`super::ClientConfig::max_time`] or [`CallOptions::deadline`] sets one.
/// Dropping it closes the connection.
pub struct StreamCall {
    client: Client,
    opts: CallOptions,
    open: Option<Open>,
    pending: VecDeque<StreamEvent>,
    correlation: Correlation,
    started: Instant,
    /// The total deadline (max_time, `CallOptions::deadline`), if any.
    total: Option<Instant>,
    idle: Duration,
    resubscribes: u32,
    /// Events dropped over the size limit, across every connection of this call.
    dropped_events: u32,
    /// Events that could not be read, across every connection of this call.
    unreadable_events: u32,
    /// The answer being put together.
    assembler: Assembler,
    finished: bool,
}

impl std::fmt::Debug for StreamCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamCall")
            .field("correlation", &self.correlation)
            .field("resubscribes", &self.resubscribes)
            .field("finished", &self.finished)
            .finish()
    }
}

impl Client {
    /// Starts a streaming call: `SendStreamingMessage` (0.3 `message/stream`) or
    /// `SubscribeToTask` (0.3 `tasks/resubscribe`). Other calls end at once with an
    /// `InvalidRequest` outcome.
    ///
    /// Opening is eager: before this returns, a deferred card is resolved, the request is
    /// sent and the response head awaited (bounded by the call budget: `opts.timeout` or the
    /// call timeout, the shorter), and a response that is not an event stream is read whole.
    /// A failure there is not an error of this function: it is the stream's
    /// [`StreamEvent::End`], handed out by the first `next()`.
    pub fn stream_call(&self, call: &Call<'_>, opts: &CallOptions) -> StreamCall {
        let mut s = StreamCall::new(self, opts);
        if let Call::SendStreamingMessage(p) = call {
            s.correlation.message_id = Some(p.message.message_id.to_string());
            s.correlation.context_id = p.message.context_id.as_deref().map(str::to_owned);
            s.correlation.task_id = p.message.task_id.as_deref().map(str::to_owned);
        }
        if let Call::SubscribeToTask(p) = call {
            s.correlation.task_id = Some(p.id.to_string());
        }
        s.correlation.method = call.method().name().to_owned();
        s.start(call, false);
        s
    }

    /// Sends a user text message as a stream (`message/stream`, `SendStreamingMessage`).
    pub fn stream_text(&self, text: &str, opts: &CallOptions) -> StreamCall {
        self.stream_parts(vec![Part::text(text)], None, opts)
    }

    /// Sends a user message of any parts (at least one) with optional message metadata as
    /// a stream; as [`Client::send_parts`].
    pub fn stream_parts(
        &self,
        parts: Vec<Part<'_>>,
        metadata: Option<Json<'_>>,
        opts: &CallOptions,
    ) -> StreamCall {
        let message = user_message(parts, metadata, opts);
        self.stream_call(
            &Call::SendStreamingMessage(send_params(message, opts)),
            opts,
        )
    }

    /// Streams a task's events again (`tasks/resubscribe`, `SubscribeToTask`).
    pub fn resubscribe(&self, task_id: &str, opts: &CallOptions) -> StreamCall {
        self.stream_call(&Call::SubscribeToTask(TaskIdParams::new(task_id)), opts)
    }
}

impl StreamCall {
    fn new(client: &Client, opts: &CallOptions) -> StreamCall {
        let traceparent = opts.traceparent.clone().unwrap_or_else(new_traceparent);
        StreamCall {
            client: client.clone(),
            opts: CallOptions {
                traceparent: Some(traceparent.clone()),
                ..opts.clone()
            },
            open: None,
            pending: VecDeque::new(),
            correlation: Correlation {
                traceparent,
                idempotency_key: opts.idempotency_key.clone(),
                attempts: 1,
                ..Correlation::default()
            },
            started: Instant::now(),
            total: client.total_from(Instant::now(), opts),
            idle: opts
                .idle_timeout
                .unwrap_or(client.inner.config.stream_idle_timeout),
            resubscribes: 0,
            dropped_events: 0,
            unreadable_events: 0,
            assembler: Assembler::new(),
            finished: false,
        }
    }

    /// The correlation record so far (complete in [`StreamFinal`]).
    pub fn correlation(&self) -> &Correlation {
        &self.correlation
    }

    /// Sends `call` and installs the stream, or ends the call.
    fn start(&mut self, call: &Call<'_>, resubscribe: bool) {
        let _within = super::within(self.total);
        let traceparent = self.correlation.traceparent.clone();
        let prepared = match self.client.prepare(call, &self.opts, &traceparent) {
            Ok(p) => p,
            Err(o) => return self.finish(None, o),
        };
        self.correlation.agent = prepared.target.agent_name.clone();
        if !resubscribe {
            self.correlation.jsonrpc_id = prepared.rpc_id.clone();
        }
        if let Err(o) = self.client.breaker_allows() {
            self.client.record(prepared.method, &o);
            return self.finish(None, o);
        }
        // The task a resubscribe asks for: its stream belongs to it before any event (a Go
        // SDK server sends none until the task changes, not even the response head).
        let subscribed = match call {
            Call::SubscribeToTask(p) => Some(p.id.to_string()),
            _ => None,
        };
        let opened = self.client.open_stream(&prepared.http, self.opts.timeout);
        // The idle clock starts when the response head has arrived: the wait for it is
        // bounded by the call budget, and must not count as silence of the stream (a late
        // head would otherwise be declared idle at once, its events unread).
        let mut tracker = StreamTracker::new(
            prepared.asked(),
            Some(Millis(self.idle.as_millis() as u64)),
            self.client.now(),
        );
        if let Some(task_id) = &subscribed {
            // A silent resubscribe stream that goes idle is resubscribed again, and the
            // last one ends with the task's id and `resubscribe` advice.
            tracker = tracker.with_task_id(task_id);
        }
        match opened {
            Err(mut o) => {
                o.version = Some(prepared.target.version);
                o.binding = Some(prepared.target.binding);
                if let Some(task_id) = subscribed {
                    // The task is still there: a failed resubscribe (its head never came
                    // within the budget, the connection failed) is reported for that task,
                    // to be resubscribed again or read, never as a call of no known task.
                    o.task_id = Some(task_id);
                    if matches!(o.retry, RetryAdvice::Backoff | RetryAdvice::UnknownOutcome) {
                        o.retry = RetryAdvice::Resubscribe;
                    }
                }
                self.client.record(prepared.method, &o);
                self.client.breaker_record(&o);
                self.after_failure(o, resubscribe);
            }
            Ok(Err(whole)) => {
                let mut info = ResponseInfo::new(whole.status, &whole.body);
                for (n, v) in &whole.headers {
                    info = info.header(n, v);
                }
                let o = tracker.on_non_sse_body(&info);
                self.client.record(prepared.method, &o);
                self.client.breaker_record(&o);
                if resubscribe && finished_meanwhile(&o) {
                    return self.fall_back_to_get();
                }
                self.finish(Some(StreamEndKind::NotAStream), o);
            }
            Ok(Ok(raw)) => {
                let limit = self.client.inner.config.max_event_bytes;
                self.open = Some(Open {
                    raw,
                    // The line limit leaves room for the `data: ` prefix, so that a one-line
                    // event is measured by its data like any other.
                    decoder: Decoder::with_config(
                        SseConfig::new()
                            .with_max_event(limit)
                            .with_max_line(limit.saturating_add(64)),
                    ),
                    tracker,
                    prepared,
                    resubscribe,
                });
            }
        }
    }

    /// Reads once from the open stream and queues what it produced.
    fn step(&mut self) {
        let Some(open) = self.open.as_mut() else {
            return;
        };
        let idle_at = open
            .tracker
            .next_deadline()
            .map(|m| self.client.instant_of(m));
        let deadline = match (idle_at, self.total) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let read = open.raw.read_chunk(deadline);
        if matches!(read, Err(ReadEnd::Idle)) && self.total.is_some_and(|t| Instant::now() >= t) {
            // The total deadline, not the idle one: end here, never resubscribe.
            let p = &open.prepared;
            let mut o = super::max_time_outcome();
            o.version = Some(p.target.version);
            o.binding = Some(p.target.binding);
            o.task_id = open.tracker.task_id().map(str::to_owned);
            self.client.record(p.method, &o);
            return self.finish(Some(StreamEndKind::TimedOut), o);
        }
        let now = self.client.now();
        let end = match read {
            Ok(Some(bytes)) => {
                open.tracker.on_bytes(now);
                let mut feed = open.decoder.feed(bytes);
                loop {
                    match feed.next_item() {
                        Ok(Some(Item::Event(ev))) => {
                            let id = (!ev.id.is_empty()).then_some(ev.id);
                            if let Some(mut item) =
                                open.tracker.on_event(now, ev.event_type, ev.data, id)
                            {
                                self.client.settle_cancel_origin(&mut item.outcome);
                                note_ids(&mut self.correlation, &item.outcome);
                                read_item(&mut item, ev.data, &open.prepared, &mut self.assembler);
                                if item.kind == StreamItemKind::Malformed {
                                    self.unreadable_events =
                                        self.unreadable_events.saturating_add(1);
                                }
                                self.pending.push_back(StreamEvent::Item(item));
                            }
                        }
                        Ok(Some(Item::Comment(_))) => open.tracker.on_comment(now),
                        Ok(Some(Item::Retry(_))) => {}
                        Ok(None) => break,
                        // The decoder dropped an event over its limit and goes on with the
                        // next one; the caller learns of it now, never silently.
                        Err(_limit_error) => {
                            self.dropped_events = self.dropped_events.saturating_add(1);
                            let limit = self.client.inner.config.max_event_bytes;
                            let item = dropped_item(
                                limit,
                                &open.tracker,
                                self.correlation.context_id.as_deref(),
                                &open.prepared,
                            );
                            self.pending.push_back(StreamEvent::Item(item));
                        }
                    }
                }
                open.tracker.is_over().then(|| open.tracker.finish())
            }
            Ok(None) => {
                let _ = open.decoder.finish();
                Some(open.tracker.finish())
            }
            Err(ReadEnd::Idle) => {
                if open.tracker.on_timeout(now).is_none() {
                    // The driver's clock and the tracker's agree to the millisecond; if
                    // rounding left `now` a hair early, the deadline itself has passed.
                    let at = open.tracker.next_deadline().unwrap_or(now);
                    let _ = open.tracker.on_timeout(at);
                }
                Some(open.tracker.finish())
            }
            Err(ReadEnd::Failed(o)) => {
                let mut end = open.tracker.finish();
                if end.kind == StreamEndKind::Truncated && open.tracker.task_id().is_none() {
                    // Cut before any task id: nothing to resubscribe to; the transport
                    // failure (request_sent = unknown) says what happened.
                    end.outcome = Outcome {
                        version: end.outcome.version,
                        binding: end.outcome.binding,
                        ..o
                    };
                } else if end.kind == StreamEndKind::Truncated
                    && let (Some(said), Some(cause)) = (&end.outcome.message, &o.message)
                {
                    // Say why the connection ended (a reset, a chunk-framing error).
                    end.outcome.message = Some(format!("{said}: {cause}"));
                }
                Some(end)
            }
        };
        if let Some(end) = end {
            self.conclude(end);
        }
    }

    /// One connection's stream ended: count it, then recover or finish.
    fn conclude(&mut self, end: StreamEnd) {
        let Some(open) = self.open.take() else {
            return;
        };
        let p = &open.prepared;
        self.client.record(p.method, &end.outcome);
        self.client.breaker_record(&end.outcome);
        if open.resubscribe && end.kind == StreamEndKind::Error && finished_meanwhile(&end.outcome)
        {
            // The resubscribe stream itself said the task is gone: read it once.
            return self.fall_back_to_get();
        }
        if matches!(end.kind, StreamEndKind::Truncated | StreamEndKind::TimedOut) {
            let task = open
                .tracker
                .task_id()
                .map(str::to_owned)
                .or_else(|| end.outcome.task_id.clone());
            if let Some(task_id) = task
                && self.resubscribes < self.client.inner.config.stream_resubscribe_attempts
                && !self.expired()
            {
                return self.resubscribe_to(task_id);
            }
        }
        self.finish(Some(end.kind), end.outcome);
    }

    /// A request failed before a stream opened.
    fn after_failure(&mut self, o: Outcome, resubscribe: bool) {
        if resubscribe
            && let Some(task_id) = self.correlation.task_id.clone()
            && self.resubscribes < self.client.inner.config.stream_resubscribe_attempts
            && !self.expired()
        {
            return self.resubscribe_to(task_id);
        }
        self.finish(None, o);
    }

    fn resubscribe_to(&mut self, task_id: String) {
        self.resubscribes += 1;
        self.correlation.attempts += 1;
        self.correlation.task_id = Some(task_id.clone());
        self.pending.push_back(StreamEvent::Resubscribing {
            task_id: task_id.clone(),
            attempt: self.resubscribes,
        });
        let call = Call::SubscribeToTask(TaskIdParams::new(task_id));
        self.start(&call, true);
    }

    /// The task finished while the driver was away: read it once, report its state.
    fn fall_back_to_get(&mut self) {
        let Some(task_id) = self.correlation.task_id.clone() else {
            return self.finish(
                None,
                Outcome::transport(
                    ErrorName::Reset,
                    crate::outcome::RequestSent::Unknown,
                    "stream ended and the task id is unknown",
                ),
            );
        };
        let opts = CallOptions {
            traceparent: Some(self.correlation.traceparent.clone()),
            headers: self.opts.headers.clone(),
            timeout: self.opts.timeout,
            deadline: self.total,
            ..CallOptions::default()
        };
        let r = self.client.get_task(&task_id, &opts);
        self.correlation.attempts += 1;
        if let Some(a) = r.answer.clone() {
            self.assembler.replace(a);
        }
        let kind = match r.outcome.state {
            Some(s) if s.is_terminal() => Some(StreamEndKind::Completed),
            Some(s) if s.is_interrupted() => Some(StreamEndKind::Interrupted),
            Some(TaskState::Submitted | TaskState::Working) => Some(StreamEndKind::Truncated),
            _ if r.outcome.channel == Channel::Protocol => Some(StreamEndKind::Error),
            _ => None,
        };
        self.finish_with(kind, r.outcome, true, r.response.map(|resp| resp.body));
    }

    /// Whether the total deadline has passed.
    fn expired(&self) -> bool {
        self.total.is_some_and(|t| Instant::now() >= t)
    }

    fn finish(&mut self, kind: Option<StreamEndKind>, outcome: Outcome) {
        self.finish_with(kind, outcome, false, None);
    }

    fn finish_with(
        &mut self,
        kind: Option<StreamEndKind>,
        mut outcome: Outcome,
        fetched_by_get: bool,
        task_body: Option<Vec<u8>>,
    ) {
        self.client.settle_cancel_origin(&mut outcome);
        self.open = None;
        fill_correlation(&mut self.correlation, &outcome);
        self.correlation.elapsed = self.started.elapsed();
        self.pending.push_back(StreamEvent::End(StreamFinal {
            kind,
            outcome,
            correlation: self.correlation.clone(),
            resubscribes: self.resubscribes,
            fetched_by_get,
            task_body,
            dropped_events: self.dropped_events,
            unreadable_events: self.unreadable_events,
            answer: std::mem::take(&mut self.assembler).finish(),
        }));
        self.finished = true;
    }
}

/// The item reporting an event the decoder dropped for exceeding its limit: `malformed`,
/// not ending the stream; advice `poll` when the task id is known (the task holds what the
/// event carried), else `never` (the same request would produce the same event).
fn dropped_item(
    limit: usize,
    tracker: &StreamTracker,
    context_id: Option<&str>,
    p: &Prepared,
) -> StreamItem {
    let mut o = Outcome::empty(Channel::Malformed);
    o.http_status = Some(200);
    o.message = Some(format!(
        "SSE event dropped: larger than the {limit}-byte event size limit (max_event_bytes); the stream goes on without it{}",
        if tracker.task_id().is_some() {
            "; read the task for its full result"
        } else {
            ""
        }
    ));
    o.task_id = tracker.task_id().map(str::to_owned);
    o.context_id = context_id.map(str::to_owned);
    o.state = tracker.last_state();
    o.retry = if o.task_id.is_some() {
        RetryAdvice::Poll
    } else {
        RetryAdvice::Never
    };
    o.version = Some(p.target.version);
    o.binding = Some(p.target.binding);
    StreamItem {
        kind: StreamItemKind::Malformed,
        outcome: o,
        final_flag: None,
        artifact_id: None,
        append: false,
        last_chunk: false,
        ends_stream: false,
        event: None,
    }
}

/// Reads the model of an event the tracker accepted (task, message, status or artifact
/// update), attaches it to the item and feeds the assembler; an event whose content cannot
/// be read becomes a `malformed` item saying what and where (its state, already counted by
/// the tracker, stays in the outcome).
fn read_item(item: &mut StreamItem, data: &[u8], p: &Prepared, assembler: &mut Assembler) {
    if matches!(item.kind, StreamItemKind::Error | StreamItemKind::Malformed) {
        return;
    }
    match crate::answer::read_event(data, p.target.version, p.target.binding) {
        Ok(ev) => {
            // One owned copy of the borrowed event, and one clone of it for the assembler.
            let ev = ev.into_owned();
            assembler.push_owned(ev.clone());
            item.event = Some(Box::new(ev));
        }
        Err(e) => {
            let what = format!("the {} event", item.kind.as_str());
            let mut o = unreadable(&item.outcome, &e, &what);
            o.http_status = Some(200);
            item.kind = StreamItemKind::Malformed;
            item.outcome = o;
            item.ends_stream = false;
        }
    }
}

/// A resubscribe refused because the task is gone or finished: read it instead.
fn finished_meanwhile(o: &Outcome) -> bool {
    o.channel == Channel::Protocol
        && matches!(
            o.error,
            Some(ErrorName::TaskNotFound | ErrorName::UnsupportedOperation)
        )
}

fn note_ids(c: &mut Correlation, o: &Outcome) {
    if c.task_id.is_none() {
        c.task_id = o.task_id.clone();
    }
    if c.context_id.is_none() {
        c.context_id = o.context_id.clone();
    }
}

impl Drop for StreamCall {
    /// A stream abandoned before its end gives back the breaker's trial permit (a
    /// half-open breaker would otherwise wait forever for an outcome that never comes).
    fn drop(&mut self) {
        if self.open.is_some() {
            self.client.breaker_release();
        }
    }
}

impl Iterator for StreamCall {
    type Item = StreamEvent;

    fn next(&mut self) -> Option<StreamEvent> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Some(e);
            }
            if self.finished || self.open.is_none() {
                return None;
            }
            self.step();
        }
    }
}
