//! Streaming calls as a loop over the core's [`machine::StreamCall`]: the machine decides
//! (build, hooks, credentials, breaker, SSE decoding, the stream tracker, idle and total
//! deadlines, resubscribe-never-resend, the one get-task fallback, the answer, the tally);
//! the driver performs each request it hands out, feeds it the response head, the body as
//! it arrives (each read bounded by the machine's next deadline), the end or the failure,
//! and tells it when a deadline passed. The iterator yields the machine's items and
//! notices as the driver's [`StreamEvent`]s and ends with [`StreamEvent::End`].
//!
//! ```text
//! poll_transmit ──► open (send, await the head) ──► handle_head
//!      ▲               │ 2xx text/event-stream: read_chunk(deadline = poll_timeout)
//!      │               │     bytes ──► handle_body   end ──► handle_end
//!      │               │     deadline passed ──► handle_timeout   cut ──► handle_failure
//!      │               │ anything else: read whole ──► handle_head, handle_body, handle_end
//!      │               ▼
//!      └── Resubscribing (a new request) ◄── poll_event ──► Item / Abort (drop the body) / End
//! ```

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::call::{CallOptions, correlation_of, no_state, send_params, unsent, user_message};
use super::correlation::Correlation;
use super::raw::{RawStream, ReadEnd};
use super::{AbortHandle, Client, HttpRequest};
use crate::client::{self as machine, RequestId, Transmit, TransportFailure};
use crate::model::params::{Call, TaskIdParams};
use crate::model::{Json, Part, SendResponse};
use crate::outcome::{ErrorName, Outcome};
use crate::stream::{StreamEndKind, StreamItem};
use crate::time::Millis;

/// What a stream yields.
///
/// Exhaustive on purpose: a caller handles every event of a stream (the C ABI numbers them).
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
    /// was also reported as a [`crate::stream::StreamItemKind::Malformed`] item when it
    /// happened). Nonzero means the items seen are incomplete even if the call completed:
    /// read the task (`get`) for its full result; never resend the message.
    pub dropped_events: u32,
    /// Events that arrived whole but could not be read (not JSON, no known shape, content
    /// such as file bytes that does not decode); each was also reported as a
    /// [`crate::stream::StreamItemKind::Malformed`] item saying what and where. Nonzero
    /// means the answer is incomplete, as for `dropped_events`.
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

    /// The driver's end of a machine's result.
    fn of(r: machine::StreamResult, started: Instant) -> StreamFinal {
        StreamFinal {
            kind: r.kind,
            outcome: r.outcome,
            correlation: correlation_of(r.correlation, started),
            resubscribes: r.resubscribes,
            fetched_by_get: r.fetched_by_get,
            task_body: r.task_body,
            dropped_events: r.dropped_events,
            unreadable_events: r.unreadable_events,
            answer: r.answer,
        }
    }
}

/// A streaming call in progress: an iterator of [`StreamEvent`]s ending with
/// [`StreamEvent::End`]. Every read is bounded by the idle timeout; there is no total
/// timeout unless [`super::ClientConfig::max_time`] or [`CallOptions::deadline`] sets one
/// (the machine's total deadline: a value of this call, never of the thread). Dropping it
/// closes the connection and cancels the machine (which returns a breaker trial permit).
pub struct StreamCall {
    client: Client,
    /// `None` when the call never reached the machine (no target, an unusable breaker
    /// configuration): its end is queued at once.
    machine: Option<machine::StreamCall>,
    /// The event-stream body being read, and the request it answers.
    body: Option<(RequestId, RawStream)>,
    pending: VecDeque<StreamEvent>,
    /// The correlation record as of the last event handed out.
    correlation: Correlation,
    started: Instant,
}

impl std::fmt::Debug for StreamCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamCall")
            .field("correlation", &self.correlation)
            .field("finished", &self.finished())
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
        let started = Instant::now();
        // The stream's total deadline bounds the deferred card fetch it triggers.
        let total = self.total_from(started, opts);
        let stream = machine::StreamConfig {
            idle_timeout: super::millis_of(
                opts.idle_timeout
                    .unwrap_or(self.inner.config.stream_idle_timeout),
            ),
            resubscribe_attempts: self.inner.config.stream_resubscribe_attempts,
            max_event_bytes: self.inner.config.max_event_bytes,
        };
        let begun = self.target_within(total).and_then(|_| {
            let mut slot = self.machine();
            let m = slot.as_mut().ok_or_else(no_state)?;
            if let Some(o) = &m.breaker_error {
                m.state.record(call.method(), o);
                return Err(o.clone());
            }
            let options = self.machine_options(opts);
            let call = call.clone().into_owned();
            Ok(machine::StreamCall::new(
                &mut m.state,
                call,
                options,
                stream,
                self.now(),
            ))
        });
        let mut s = StreamCall {
            client: self.clone(),
            machine: None,
            body: None,
            pending: VecDeque::new(),
            correlation: Correlation::default(),
            started,
        };
        match begun {
            Ok(m) => {
                s.machine = Some(m);
                // Eager: send the request and await its head now.
                s.step();
            }
            Err(o) => {
                let r = unsent(call, opts, o, started);
                s.correlation = r.correlation.clone();
                s.pending.push_back(StreamEvent::End(StreamFinal {
                    kind: None,
                    outcome: r.outcome,
                    correlation: r.correlation,
                    resubscribes: 0,
                    fetched_by_get: false,
                    task_body: None,
                    dropped_events: 0,
                    unreadable_events: 0,
                    answer: None,
                }));
            }
        }
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
    /// The correlation record so far (complete in [`StreamFinal`]).
    pub fn correlation(&self) -> &Correlation {
        &self.correlation
    }

    /// Whether the machine has finished (or was never started).
    fn finished(&self) -> bool {
        self.machine
            .as_ref()
            .is_none_or(machine::StreamCall::is_finished)
    }

    /// One turn of the loop: performs the request due, or reads once from the open body,
    /// or waits for the machine's next deadline; then queues what the machine reported.
    fn step(&mut self) {
        let Some(m) = self.machine.as_mut() else {
            return;
        };
        let client = &self.client;
        if !m.is_finished() {
            let now = client.now();
            if let Some(t) = client.with_state(|s| m.poll_transmit(s, now)).flatten() {
                if m.is_fetching() {
                    fetch(client, m, t);
                } else {
                    self.body = open(client, m, t);
                }
            } else if let Some((id, raw)) = self.body.as_mut() {
                if read(client, m, *id, raw) {
                    self.body = None;
                }
            } else if let Some(at) = m.poll_timeout() {
                // Nothing to read or send: the machine waits for a deadline (none in
                // practice: every request is performed or read above).
                let wake = client.instant_of(at);
                std::thread::sleep(wake.saturating_duration_since(Instant::now()));
                let now = client.now().max(at);
                client.with_state(|s| m.handle_timeout(s, now));
            } else {
                // An unfinished machine with nothing to do and nothing to wait for would
                // spin: end the call instead.
                let now = client.now();
                client.with_state(|s| m.cancel(s, now));
            }
        }
        self.drain();
    }

    /// Queues the machine's events as the driver's; an abort drops the body it names.
    fn drain(&mut self) {
        let Some(m) = self.machine.as_mut() else {
            return;
        };
        // Whether the ids or counts may have moved (an item, a resubscribe).
        let mut moved = self.correlation.method.is_empty();
        while let Some(e) = m.poll_event() {
            moved = true;
            match e {
                machine::StreamEvent::Abort(id) => {
                    if self.body.as_ref().is_some_and(|(b, _)| *b == id) {
                        // Closes the connection (a body cut short is never pooled).
                        self.body = None;
                    }
                }
                machine::StreamEvent::Item(item) => {
                    self.pending.push_back(StreamEvent::Item(*item))
                }
                machine::StreamEvent::Resubscribing {
                    task_id, attempt, ..
                } => self
                    .pending
                    .push_back(StreamEvent::Resubscribing { task_id, attempt }),
                machine::StreamEvent::Finished(r) => {
                    self.body = None;
                    let end = StreamFinal::of(*r, self.started);
                    self.correlation = end.correlation.clone();
                    self.pending.push_back(StreamEvent::End(end));
                }
            }
        }
        if moved && !m.is_finished() {
            self.correlation = correlation_of(m.correlation().clone(), self.started);
        }
    }
}

/// The moment to give the machine an input that happened now: never at or past the
/// deadline it waits for (the I/O kept that deadline itself, and what it reports arrived
/// in time; the clocks may differ by a rounding).
fn in_time(client: &Client, m: &machine::StreamCall) -> Millis {
    let now = client.now();
    match m.poll_timeout() {
        Some(d) if now >= d => d.saturating_sub(Millis(1)),
        _ => now,
    }
}

/// Sends a stream's request (a first request or a resubscribe) and feeds the machine its
/// head: an event stream's body is returned to be read; any other response is read whole
/// and fed at once. A timeout at the total deadline is reported as that deadline passing,
/// so the machine ends the call with the max-time outcome and never resubscribes.
fn open(
    client: &Client,
    m: &mut machine::StreamCall,
    t: Transmit,
) -> Option<(RequestId, RawStream)> {
    let Transmit {
        id,
        request,
        deadline,
        ..
    } = t;
    let request = HttpRequest::from(request);
    let budget = client
        .instant_of(deadline)
        .saturating_duration_since(Instant::now());
    let opened = client.open(&request, budget, &AbortHandle::new());
    let at = in_time(client, m);
    client
        .with_state(|s| match opened {
            Err(o) => {
                let total = m.total_deadline();
                if o.error == Some(ErrorName::Timeout)
                    && total.is_some_and(|t| {
                        Instant::now() + Duration::from_millis(5) >= client.instant_of(t)
                    })
                {
                    let now = client.now().max(total.unwrap_or(Millis(0)));
                    m.handle_timeout(s, now);
                } else {
                    // The request is the one in flight: the input cannot be refused.
                    let _ = m.handle_failure(s, id, TransportFailure::from_outcome(o), at);
                }
                None
            }
            Ok(Err(whole)) => {
                let _ = m
                    .handle_head(s, id, whole.status, whole.headers, at)
                    .and_then(|()| m.handle_body(s, id, &whole.body, at))
                    .and_then(|()| m.handle_end(s, id, at));
                None
            }
            Ok(Ok(raw)) => {
                let headers = raw.headers.clone();
                let _ = m.handle_head(s, id, raw.status, headers, at);
                Some((id, raw))
            }
        })
        .flatten()
}

/// Reads once from an open body, bounded by the machine's next deadline (idle or total),
/// and feeds what came; whether the body is over.
fn read(client: &Client, m: &mut machine::StreamCall, id: RequestId, raw: &mut RawStream) -> bool {
    let deadline = m.poll_timeout();
    let read = raw.read_chunk(deadline.map(|d| client.instant_of(d)));
    let at = in_time(client, m);
    client
        .with_state(|s| match read {
            // Bytes in any split: the machine's decoder takes them as they come.
            Ok(Some(bytes)) => {
                let _ = m.handle_body(s, id, bytes, at);
                false
            }
            Ok(None) => {
                let _ = m.handle_end(s, id, at);
                true
            }
            Err(ReadEnd::Idle) => {
                let now = client.now().max(deadline.unwrap_or(Millis(0)));
                m.handle_timeout(s, now);
                true
            }
            Err(ReadEnd::Failed(o)) => {
                let _ = m.handle_failure(s, id, TransportFailure::from_outcome(o), at);
                true
            }
        })
        .unwrap_or(true)
}

/// Performs the get-task fallback's request whole (as a non-streaming call) and feeds it.
fn fetch(client: &Client, m: &mut machine::StreamCall, t: Transmit) {
    let Transmit {
        id,
        request,
        deadline,
        ..
    } = t;
    let request = HttpRequest::from(request);
    let timeout = client
        .instant_of(deadline)
        .saturating_duration_since(Instant::now());
    let total = m.total_deadline().map(|t| client.instant_of(t));
    let result = client.perform(&request, timeout, total, &AbortHandle::new());
    let at = in_time(client, m);
    client.with_state(|s| {
        let _ = match result {
            Ok(r) => m
                .handle_head(s, id, r.status, r.headers, at)
                .and_then(|()| m.handle_body(s, id, &r.body, at))
                .and_then(|()| m.handle_end(s, id, at)),
            Err(o) => m.handle_failure(s, id, TransportFailure::from_outcome(o), at),
        };
    });
}

impl Drop for StreamCall {
    /// A stream abandoned before its end is canceled: the machine returns the breaker's
    /// trial permit (a half-open breaker would otherwise wait forever for an outcome that
    /// never comes) and the connection closes.
    fn drop(&mut self) {
        self.body = None;
        if let Some(m) = self.machine.as_mut()
            && !m.is_finished()
        {
            let now = self.client.now();
            self.client.with_state(|s| m.cancel(s, now));
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
            if self.finished() {
                return None;
            }
            self.step();
        }
    }
}
