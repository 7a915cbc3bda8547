//! The machine of one streaming call ([`StreamCall`]): `SendStreamingMessage` (0.3
//! `message/stream`) or `SubscribeToTask` (0.3 `tasks/resubscribe`). See the module docs of
//! [`crate::client`] for the call order, which is the unary machine's.
//!
//! ```text
//!  new ──► Ready ──poll_transmit──► Head ──handle_head──┬─ 2xx text/event-stream ──► Events
//!            ▲                        │                 └─ otherwise ──► Whole ──handle_end──► end
//!            │                        │ failure / head deadline
//!            │                        ▼
//!            │                 resubscribe failed? ── allowed again ──┐
//!            │                                                        │
//!  Events: handle_body ──► SSE decoder ──► tracker ──► Item events    │
//!          comments (keep-alives) ──► idle deadline moves on          │
//!          over (final, terminal, interrupted, message, error) ──► end│
//!          handle_end / handle_failure (cut) / idle deadline ──┐      │
//!                                                              ▼      │
//!            task id known, resubscribes left, total not passed ──► Resubscribing ─┘
//!            otherwise ──► Finished
//!  a resubscribe answered TaskNotFound / UnsupportedOperation ──► GetTask once ──► Finished
//! ```
//!
//! The message is sent exactly once: the machine gives the `SendStreamingMessage` away with
//! the first request and keeps no copy, so recovery can only resubscribe to the task the
//! stream created, or read it. The reference driver's streams (`driver/stream.rs`) are a
//! blocking loop over this machine.

use std::collections::VecDeque;

use super::call::{CallOptions, Correlation, Event as UnaryEvent, UnaryCall};
use super::common::{Built, Outgoing, build_request, total_deadline, total_deadline_outcome};
use super::read::unreadable;
use super::request::{RequestId, Transmit, TransportFailure, invalid};
use super::{Call, ClientState};
use crate::answer::Assembler;
use crate::classify::{Asked, ResponseInfo, is_event_stream};
use crate::envelope::Method;
use crate::model::SendResponse;
use crate::model::params::{GetTaskParams, TaskIdParams};
use crate::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use crate::sse::{Config as SseConfig, Decoder, Item};
use crate::stream::{StreamEnd, StreamEndKind, StreamItem, StreamItemKind, StreamTracker};
use crate::time::Millis;

/// What a stream decides by, beside the [`super::ClientConfig`] (the reference driver's
/// `stream_idle_timeout`, `stream_resubscribe_attempts` and `max_event_bytes`, with its
/// defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamConfig {
    /// The longest silence (no bytes, events or keep-alive comments) before the stream is
    /// given up as idle (60 s; the Python SDK pings every 15 s).
    pub idle_timeout: Millis,
    /// After a drop or an idle timeout with the task id known: how many times to
    /// resubscribe (never resending the message). 0 (the default) never does.
    pub resubscribe_attempts: u32,
    /// The largest SSE event accepted, in bytes; a larger one is dropped, reported as a
    /// `malformed` item and counted in [`StreamResult::dropped_events`], and the stream goes
    /// on.
    pub max_event_bytes: usize,
}

impl Default for StreamConfig {
    /// The driver's defaults: 60 s idle, no resubscribe, [`crate::sse::DEFAULT_MAX_EVENT`].
    fn default() -> Self {
        StreamConfig {
            idle_timeout: Millis(60_000),
            resubscribe_attempts: 0,
            max_event_bytes: crate::sse::DEFAULT_MAX_EVENT,
        }
    }
}

/// What a stream machine reports, in order, through [`StreamCall::poll_event`].
///
/// Exhaustive on purpose: a host acts on every event (a new one would be ignored and the stream
/// would hang), so a new kind is a deliberate breaking change.
#[derive(Debug, Clone)]
pub enum StreamEvent {
    /// Stop request `0` now (drop its connection): its stream is over or given up (idle,
    /// total deadline, canceled). Later inputs about it are refused as
    /// [`super::InputError::Stale`].
    Abort(RequestId),
    /// One typed item (task, message, status update, artifact update, error, or a
    /// `malformed` one for an event that was dropped or could not be read), as it arrived.
    Item(Box<StreamItem>),
    /// The stream was cut or went idle with the task still running; the machine
    /// resubscribes to `task_id` (a new request from [`StreamCall::poll_transmit`]). Never a
    /// resend.
    Resubscribing {
        /// The task resubscribed to.
        task_id: String,
        /// 1 for the first resubscribe.
        attempt: u32,
        /// How the last connection ended.
        outcome: Box<Outcome>,
    },
    /// The call is over; always the last event.
    Finished(Box<StreamResult>),
}

/// How a streaming call ended: the driver's `StreamFinal`.
#[derive(Debug, Clone)]
pub struct StreamResult {
    /// How the last stream ended; `None` when no stream was opened (the request failed or
    /// was not sent: the outcome is a `transport` one).
    pub kind: Option<StreamEndKind>,
    /// The call's outcome.
    pub outcome: Outcome,
    /// The ids to log on both sides.
    pub correlation: Correlation,
    /// Resubscribes made.
    pub resubscribes: u32,
    /// Whether the outcome came from the one get-task fallback (a resubscribe was refused
    /// because the task had finished or is gone).
    pub fetched_by_get: bool,
    /// The get-task response body, when [`StreamResult::fetched_by_get`].
    pub task_body: Option<Vec<u8>>,
    /// Events dropped over [`StreamConfig::max_event_bytes`] (each also reported as a
    /// `malformed` item). Nonzero means the items are incomplete: read the task.
    pub dropped_events: u32,
    /// Events that arrived whole but could not be read (each also reported as a
    /// `malformed` item saying what and where). Nonzero means the answer is incomplete.
    pub unreadable_events: u32,
    /// The answer put together from the events ([`crate::answer::Assembler`]), or from the
    /// get-task fallback's body.
    pub answer: Option<SendResponse<'static>>,
}

impl StreamResult {
    /// Whether content was lost: an event dropped over the size limit or unreadable.
    pub fn lost_content(&self) -> bool {
        self.dropped_events > 0 || self.unreadable_events > 0
    }

    /// The call's exit status: the outcome's, except that a stream that lost content and
    /// would otherwise report success exits 3.
    pub fn exit_code(&self) -> i32 {
        match self.outcome.exit_code() {
            0 if self.lost_content() => 3,
            code => code,
        }
    }
}

/// Where the call is.
#[derive(Debug)]
enum Phase {
    /// The next request is due (the first, or a resubscribe to `subscribe`).
    Ready,
    /// A request is out; its head is awaited until `deadline`.
    Head {
        id: RequestId,
        deadline: Millis,
        sent: Sent,
    },
    /// The response is not an event stream: its whole body is read until `deadline`.
    Whole {
        id: RequestId,
        deadline: Millis,
        sent: Sent,
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// An event stream is being read.
    Events {
        id: RequestId,
        /// The response's status (a 2xx), on the end outcome as the classifier puts it.
        status: u16,
        sent: Sent,
        decoder: Box<Decoder>,
        tracker: Box<StreamTracker>,
        /// The head said `Content-Encoding: gzip` and fewer than two body bytes were seen:
        /// the bytes seen so far, to tell a body the host decoded from one it handed over
        /// still compressed (see [`gzip_magic`]).
        sniff_gzip: Option<Vec<u8>>,
    },
    /// The one get-task fallback; `outer` is the id its request was handed out under.
    Fetch {
        call: Box<UnaryCall>,
        outer: Option<RequestId>,
    },
    /// [`StreamEvent::Finished`] was queued.
    Done,
}

/// What was sent on the request in flight.
#[derive(Debug)]
struct Sent {
    /// A resubscribe the machine made (its refusal may fall back to get-task).
    resubscribe: bool,
    /// The task the request subscribes to (a `SubscribeToTask`).
    subscribed: Option<String>,
    wire_method: std::borrow::Cow<'static, str>,
    /// The request's JSON-RPC id, for the tracker made at the head (none once the events
    /// are read).
    rpc_id: Option<String>,
}

/// The state machine of one streaming call. See [`crate::client`] for the call order and
/// what it decides.
///
/// A host loop, with an in-memory agent that streams a task and its completion (echoing the
/// JSON-RPC id), cut into small chunks:
///
/// ```
/// use a2a_core::client::{CallOptions, ClientConfig, ClientState, StreamCall, StreamConfig, StreamEvent, Target};
/// use a2a_core::envelope::text_message;
/// use a2a_core::model::params::{Call, SendMessageParams};
/// use a2a_core::outcome::TaskState;
/// use a2a_core::time::Millis;
/// use a2a_core::version::{Binding, ProtocolVersion};
///
/// let target = Target::new("https://agent.example/a2a", ProtocolVersion::V0_3, Binding::JsonRpc);
/// let mut state = ClientState::new(target, ClientConfig::default(), 0x5eed).unwrap();
/// let Call::SendMessage(p) = text_message("msg-1", "hello") else { unreachable!() };
/// let call = Call::SendStreamingMessage(p);
/// let now = Millis(0);
/// let mut m = StreamCall::new(&mut state, call, CallOptions::default(), StreamConfig::default(), now);
/// let t = m.poll_transmit(&mut state, now).expect("the request");
/// let sent: serde_json::Value = serde_json::from_slice(&t.request.body).unwrap();
/// let mut body = String::new();
/// for result in [
///     serde_json::json!({"kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": "working"}}),
///     serde_json::json!({"kind": "status-update", "taskId": "t-1", "contextId": "c-1",
///         "status": {"state": "completed"}, "final": true}),
/// ] {
///     let ev = serde_json::json!({"jsonrpc": "2.0", "id": sent["id"], "result": result});
///     body.push_str(&format!("data: {ev}\n\n"));
/// }
/// let head = vec![("content-type".to_owned(), "text/event-stream".to_owned())];
/// m.handle_head(&mut state, t.id, 200, head, now).unwrap();
/// let mut items = 0;
/// let result = 'call: loop {
///     for chunk in body.as_bytes().chunks(32) {
///         let _ = m.handle_body(&mut state, t.id, chunk, now); // stale once the stream is over
///         while let Some(e) = m.poll_event() {
///             match e {
///                 StreamEvent::Item(_) => items += 1, // show it as it arrives
///                 StreamEvent::Finished(r) => break 'call r,
///                 _ => {} // Abort: drop the connection; Resubscribing: log it
///             }
///         }
///     }
///     unreachable!("the final event ends the stream");
/// };
/// assert_eq!(items, 2);
/// assert_eq!(result.outcome.state, Some(TaskState::Completed));
/// assert!(result.answer.is_some());
/// ```
#[derive(Debug)]
pub struct StreamCall {
    /// The first call, given away with the first request (never sent twice). Boxed: an
    /// open stream holds none, and the 368 bytes inline were over a quarter of the call
    /// (issue 28: memory per idle stream).
    first: Option<Box<Call<'static>>>,
    method: Method,
    /// The task to resubscribe to next, once the first request is gone.
    subscribe: Option<String>,
    // The traceparent and idempotency key sent are the correlation's (one copy each: an
    // open stream holds the call for its life, issue 28).
    headers: Vec<(String, String)>,
    /// Cookies the stream's responses set (`Set-Cookie`: a load balancer's affinity),
    /// sent back on each resubscribe so it reaches the same replica.
    affinity: super::affinity::Cookies,
    first_rpc_id: Option<crate::envelope::RpcId>,
    stream: StreamConfig,
    started: Millis,
    /// The caller's budget as given (for the get-task fallback).
    budget_given: Option<Millis>,
    /// The head budget: the shorter of the call timeout and the caller's budget.
    budget: Millis,
    total: Option<Millis>,
    requests: u32,
    resubscribes: u32,
    dropped_events: u32,
    unreadable_events: u32,
    assembler: Assembler,
    phase: Phase,
    correlation: Correlation,
    events: VecDeque<StreamEvent>,
}

impl StreamCall {
    /// A streaming call of `call` starting at `now` (the total deadline counts from it).
    /// Nothing is sent until [`StreamCall::poll_transmit`]. A call that is not a streaming
    /// method ends at once with a `transport`/`InvalidRequest` outcome (use [`UnaryCall`]).
    pub fn new(
        state: &mut ClientState,
        call: Call<'static>,
        options: CallOptions,
        stream: StreamConfig,
        now: Millis,
    ) -> StreamCall {
        let method = call.method();
        let config = state.config;
        let traceparent = options
            .traceparent
            .clone()
            .unwrap_or_else(|| state.random.traceparent());
        let mut correlation = Correlation {
            agent: state.target.agent_name.clone(),
            method: method.name().to_owned(),
            traceparent,
            idempotency_key: options.idempotency_key,
            ..Correlation::default()
        };
        if let Call::SendStreamingMessage(p) = &call {
            correlation.message_id = Some(p.message.message_id.to_string());
            correlation.context_id = p.message.context_id.as_deref().map(str::to_owned);
            correlation.task_id = p.message.task_id.as_deref().map(str::to_owned);
        }
        if let Call::SubscribeToTask(p) = &call {
            correlation.task_id = Some(p.id.to_string());
        }
        let budget = options
            .budget
            .map_or(config.call_timeout, |b| b.min(config.call_timeout));
        let mut m = StreamCall {
            first: None,
            method,
            subscribe: None,
            headers: options.headers,
            affinity: super::affinity::Cookies::default(),
            first_rpc_id: options.rpc_id,
            stream,
            started: now,
            budget_given: options.budget,
            budget,
            total: total_deadline(&config, options.deadline, now),
            requests: 0,
            resubscribes: 0,
            dropped_events: 0,
            unreadable_events: 0,
            assembler: Assembler::new(),
            phase: Phase::Ready,
            correlation,
            // One slot: the host polls after each input, and an idle stream's input brings
            // one event (a first push into an empty queue would make room for four, kept
            // for the stream's life: 120 bytes of every open stream; issue 28). A burst
            // grows it as usual.
            events: VecDeque::with_capacity(1),
        };
        if matches!(
            method,
            Method::SendStreamingMessage | Method::SubscribeToTask
        ) {
            m.first = Some(Box::new(call));
        } else {
            let mut o = invalid(format!(
                "{} is not a streaming method: use UnaryCall",
                method.name()
            ));
            o = m.with_interface(state, o);
            m.finish(state, None, o, now);
        }
        m
    }

    /// The total deadline, when there is one (max_time or the caller's deadline).
    pub fn total_deadline(&self) -> Option<Millis> {
        self.total
    }

    /// Whether [`StreamEvent::Finished`] has been queued (it may not have been polled yet).
    pub fn is_finished(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    /// Whether the machine is in its one get-task fallback: the request it hands out (or
    /// has out) is a plain `GetTask`, answered by one JSON body rather than an event stream
    /// (a host that reads streams and whole bodies differently reads this one whole).
    pub fn is_fetching(&self) -> bool {
        matches!(self.phase, Phase::Fetch { .. })
    }

    /// The correlation record so far (complete in [`StreamResult::correlation`]).
    pub fn correlation(&self) -> &Correlation {
        &self.correlation
    }

    /// The next request to perform, when one is due at `now`: the stream's request, a
    /// resubscribe, or the get-task fallback; `None` otherwise (a request that could not be
    /// sent ends the call without a [`Transmit`]: look at [`StreamCall::poll_event`]).
    #[must_use]
    #[allow(
        clippy::too_many_lines,
        reason = "the stream machine's one transmit decision over its phases (fetch, open, resubscribe, get-task fallback), kept together so every phase's wake-up rule is read in one place"
    )]
    pub fn poll_transmit(&mut self, state: &mut ClientState, now: Millis) -> Option<Transmit> {
        if let Phase::Fetch { call, outer } = &mut self.phase {
            let mut t = call.poll_transmit(state, now);
            if let Some(t) = t.as_mut() {
                self.requests += 1;
                let id = RequestId(self.requests);
                *outer = Some(id);
                t.id = id;
            }
            self.drain_fetch(state, now);
            return t;
        }
        if !matches!(self.phase, Phase::Ready) {
            return None;
        }
        let resubscribe = self.first.is_none();
        if !resubscribe {
            self.correlation.attempts = 1;
        }
        if self.total.is_some_and(|t| now >= t) {
            let mut o = total_deadline_outcome().with_task_id(self.subscribe.clone());
            o = self.with_interface(state, o);
            state
                .tally
                .record(&state.target.agent_name, self.method_now().name(), &o);
            self.finish(state, None, o, now);
            return None;
        }
        let call = match self.first.take() {
            Some(c) => *c,
            None => {
                let task = self
                    .subscribe
                    .clone()
                    .expect("Ready after the first: a task");
                Call::SubscribeToTask(TaskIdParams::new(task))
            }
        };
        let subscribed = match &call {
            Call::SubscribeToTask(p) => Some(p.id.to_string()),
            _ => None,
        };
        let method = call.method();
        self.requests += 1;
        let id = RequestId(self.requests);
        let rpc_id = if resubscribe {
            None
        } else {
            self.first_rpc_id.take()
        };
        let replayed;
        let headers = if resubscribe && !self.affinity.is_empty() {
            replayed = self.affinity.add_to(&self.headers, &state.target.url);
            &replayed
        } else {
            &self.headers
        };
        let built = build_request(
            state,
            Outgoing {
                call: &call,
                traceparent: &self.correlation.traceparent,
                traceparent_drawn: false,
                idempotency_key: self.correlation.idempotency_key.as_deref(),
                headers,
                rpc_id,
                attempt: id.0,
            },
        );
        drop(call);
        let Built {
            request,
            wire_method,
            rpc_id,
        } = match built {
            Ok(b) => b,
            Err(mut o) => {
                o = self.with_interface(state, o);
                self.finish(state, None, o, now);
                return None;
            }
        };
        if let Some(b) = state.breaker.as_mut()
            && !b.allow(now)
        {
            let mut o = b.refusal(now);
            o = self.with_interface(state, o);
            state
                .tally
                .record(&state.target.agent_name, method.name(), &o);
            self.finish(state, None, o, now);
            return None;
        }
        if !resubscribe {
            self.correlation.jsonrpc_id.clone_from(&rpc_id);
        }
        let deadline = self.capped(now.saturating_add(self.budget));
        self.phase = Phase::Head {
            id,
            deadline,
            sent: Sent {
                resubscribe,
                subscribed,
                wire_method,
                rpc_id,
            },
        };
        Some(Transmit {
            id,
            request,
            connect_by: now
                .saturating_add(state.config.connect_timeout)
                .min(deadline),
            deadline,
        })
    }

    /// When the machine wants [`StreamCall::handle_timeout`] called: the head deadline of
    /// the request in flight, the deadline of a whole (non-stream) body, or the idle
    /// deadline of an open stream (keep-alives and bytes move it on); never after the total
    /// deadline. `None` when a request is due or the call is over.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        match &self.phase {
            Phase::Head { deadline, .. } | Phase::Whole { deadline, .. } => Some(*deadline),
            Phase::Events { tracker, .. } => match (tracker.next_deadline(), self.total) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            Phase::Fetch { call, .. } => call.poll_timeout(),
            Phase::Ready | Phase::Done => None,
        }
    }

    /// The next event, in order; `None` when there is none now.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<StreamEvent> {
        self.events.pop_front()
    }

    /// The response head of request `id`: a 2xx `text/event-stream` opens the stream (the
    /// idle clock starts now); any other response is read whole and classified at its end.
    ///
    /// # Errors
    /// [`super::InputError`] when `id` is not in flight or its head was already given.
    pub fn handle_head(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        status: u16,
        headers: Vec<(String, String)>,
        now: Millis,
    ) -> Result<(), super::InputError> {
        if let Some(r) = self.forward(state, id, now, |c, st, i| {
            c.handle_head(st, i, status, headers.clone(), now)
        }) {
            return r;
        }
        self.current(id)?;
        if !matches!(self.phase, Phase::Head { .. }) {
            return Err(super::InputError::HeadTwice);
        }
        if self.late(state, now, Lateness::Input) {
            return Ok(());
        }
        let Phase::Head { sent, .. } = std::mem::replace(&mut self.phase, Phase::Ready) else {
            unreachable!("checked above")
        };
        self.affinity.note(&headers);
        let content_type = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.as_str());
        if (200..300).contains(&status) && is_event_stream(content_type) {
            let asked = self.asked(state, &sent);
            let mut tracker = StreamTracker::new(asked, Some(self.stream.idle_timeout), now);
            if let Some(task_id) = &sent.subscribed {
                // A silent resubscribe stream that goes idle is resubscribed again, and the
                // last one ends with the task's id and `resubscribe` advice.
                tracker = tracker.with_task_id(task_id);
            }
            let limit = self.stream.max_event_bytes;
            // The line limit leaves room for the `data: ` prefix, so that a one-line event
            // is measured by its data like any other.
            let decoder = Decoder::with_config(
                SseConfig::new()
                    .with_max_event(limit)
                    .with_max_line(limit.saturating_add(64)),
            );
            let gzip = headers.iter().any(|(n, v)| {
                n.eq_ignore_ascii_case("content-encoding")
                    && matches!(v.trim().to_ascii_lowercase().as_str(), "gzip" | "x-gzip")
            });
            self.phase = Phase::Events {
                id,
                status,
                // The request's JSON-RPC id was for the tracker, which keeps its own copy
                // (the correlation has the first request's): not kept for the stream's life.
                sent: Sent {
                    rpc_id: None,
                    ..sent
                },
                decoder: Box::new(decoder),
                tracker: Box::new(tracker),
                sniff_gzip: gzip.then(Vec::new),
            };
        } else {
            // Read whole, bounded by a fresh head budget (the driver's rule).
            self.phase = Phase::Whole {
                id,
                deadline: self.capped(now.saturating_add(self.budget)),
                sent,
                status,
                headers,
                body: Vec::new(),
            };
        }
        Ok(())
    }

    /// A chunk of request `id`'s body (any size, any split). On a stream each complete
    /// event becomes an [`StreamEvent::Item`] now; when the interaction is over
    /// ([`StreamTracker::is_over`]) the call finishes and [`StreamEvent::Abort`] asks the
    /// host to drop the connection.
    ///
    /// # Errors
    /// [`super::InputError`] when `id` is not in flight or no head was given.
    #[allow(
        clippy::too_many_lines,
        reason = "feeds one body chunk through the decoder and the tracker and turns what comes out into events; one loop over the decoder's output"
    )]
    pub fn handle_body(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        chunk: &[u8],
        now: Millis,
    ) -> Result<(), super::InputError> {
        if let Some(r) = self.forward(state, id, now, |c, st, i| c.handle_body(st, i, chunk, now)) {
            return r;
        }
        self.current(id)?;
        if matches!(self.phase, Phase::Head { .. }) {
            return Err(super::InputError::NoHead);
        }
        if self.late(state, now, Lateness::Input) {
            return Ok(());
        }
        let limit = state.config.max_response_bytes;
        let mut over = None;
        match &mut self.phase {
            Phase::Whole { body, .. } => {
                if (body.len() as u64).saturating_add(chunk.len() as u64) > limit {
                    let o = Outcome::transport(
                        ErrorName::ResponseTooLarge,
                        RequestSent::Unknown,
                        format!("response body larger than the {limit}-byte limit"),
                    )
                    .with_retry(RetryAdvice::Never);
                    self.events.push_back(StreamEvent::Abort(id));
                    self.open_failed(state, o, now);
                    return Ok(());
                }
                body.extend_from_slice(chunk);
            }
            Phase::Events {
                decoder,
                tracker,
                sniff_gzip,
                ..
            } => {
                if let Some(seen) = sniff_gzip {
                    seen.extend(chunk.iter().take(2 - seen.len()));
                    if gzip_magic(seen) {
                        let o = Outcome::malformed(
                            "the event stream's body is still gzip-compressed (Content-Encoding: gzip): the HTTP host handed it over without decoding it; refused instead of reading compressed bytes as events",
                            RetryAdvice::Never,
                        );
                        let end = StreamEnd {
                            kind: StreamEndKind::Error,
                            outcome: o,
                        };
                        self.events.push_back(StreamEvent::Abort(id));
                        self.conclude(state, end, now);
                        return Ok(());
                    }
                    if seen.len() == 2 {
                        *sniff_gzip = None;
                    }
                }
                tracker.on_bytes(now);
                let version = state.target.version;
                let binding = state.target.binding;
                let mut feed = decoder.feed(chunk);
                // Stop at the event that ends the interaction: what follows it in the same
                // chunk is never read, exactly as when it arrives in a later chunk (the call
                // has finished and asked for the connection to be dropped).
                while !tracker.is_over() {
                    match feed.next_item() {
                        Ok(Some(Item::Event(ev))) => {
                            let eid = (!ev.id.is_empty()).then_some(ev.id);
                            // One pass over the data: the tracker and the model read it.
                            let tape = crate::tape::Tape::parse_in(ev.data, &mut state.tape_buf);
                            if let Some(mut item) = tracker.on_event_tape(
                                now,
                                ev.event_type,
                                ev.data,
                                eid,
                                tape.as_ref(),
                            ) {
                                state.settle_cancel_origin(&mut item.outcome);
                                note_ids(&mut self.correlation, &item.outcome);
                                read_item(
                                    &mut item,
                                    ev.data,
                                    tape.as_ref(),
                                    version,
                                    binding,
                                    &mut self.assembler,
                                );
                                if item.kind == StreamItemKind::Malformed {
                                    self.unreadable_events =
                                        self.unreadable_events.saturating_add(1);
                                }
                                self.events.push_back(StreamEvent::Item(Box::new(item)));
                            }
                            if let Some(t) = tape {
                                t.recycle(&mut state.tape_buf);
                            }
                        }
                        Ok(Some(Item::Comment(_))) => tracker.on_comment(now),
                        Ok(Some(Item::Retry(_))) => {}
                        Ok(None) => break,
                        // The decoder dropped an event over its limit and goes on with the
                        // next one; the caller learns of it now, never silently.
                        Err(_limit) => {
                            self.dropped_events = self.dropped_events.saturating_add(1);
                            let item = dropped_item(
                                self.stream.max_event_bytes,
                                tracker,
                                self.correlation.context_id.as_deref(),
                                version,
                                binding,
                            );
                            self.events.push_back(StreamEvent::Item(Box::new(item)));
                        }
                    }
                }
                if tracker.is_over() {
                    over = Some(tracker.finish());
                }
            }
            _ => unreachable!("checked by current()"),
        }
        if let Some(end) = over {
            self.events.push_back(StreamEvent::Abort(id));
            self.conclude(state, end, now);
        }
        Ok(())
    }

    /// The end of request `id`'s body: a stream that ends before the interaction is over
    /// is *truncated* (resubscribed to when allowed); a whole body is classified.
    ///
    /// # Errors
    /// [`super::InputError`] when `id` is not in flight or no head was given.
    pub fn handle_end(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        now: Millis,
    ) -> Result<(), super::InputError> {
        if let Some(r) = self.forward(state, id, now, |c, st, i| c.handle_end(st, i, now)) {
            return r;
        }
        self.current(id)?;
        if matches!(self.phase, Phase::Head { .. }) {
            return Err(super::InputError::NoHead);
        }
        if self.late(state, now, Lateness::Input) {
            return Ok(());
        }
        if let Phase::Events {
            decoder, tracker, ..
        } = &mut self.phase
        {
            // The WHATWG rule drops an unterminated last block, as a stream cut mid-event.
            let _ = decoder.finish();
            let end = tracker.finish();
            self.conclude(state, end, now);
            return Ok(());
        }
        match std::mem::replace(&mut self.phase, Phase::Ready) {
            Phase::Whole {
                sent,
                status,
                headers,
                body,
                ..
            } => {
                let asked = self.asked(state, &sent);
                let mut tracker = StreamTracker::new(asked, None, now);
                if let Some(t) = &sent.subscribed {
                    tracker = tracker.with_task_id(t);
                }
                let mut info = ResponseInfo::new(status, &body);
                for (n, v) in &headers {
                    info = info.header(n, v);
                }
                let mut o = tracker.on_non_sse_body(&info);
                o = self.with_interface(state, o);
                self.report(state, &o, now);
                if sent.resubscribe && finished_meanwhile(&o) {
                    self.fall_back_to_get(state, now);
                    return Ok(());
                }
                self.finish(state, Some(StreamEndKind::NotAStream), o, now);
            }
            _ => unreachable!("checked by current()"),
        }
        Ok(())
    }

    /// The transport of request `id` failed: before or during the head or a whole body it
    /// is the request's failure (a failed resubscribe is tried again when allowed); on an
    /// open stream it is a cut (truncated), resubscribed to when the task id is known.
    ///
    /// # Errors
    /// [`super::InputError`] when `id` is not in flight.
    pub fn handle_failure(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        failure: TransportFailure,
        now: Millis,
    ) -> Result<(), super::InputError> {
        if let Some(r) = self.forward(state, id, now, |c, st, i| {
            c.handle_failure(st, i, failure.clone(), now)
        }) {
            return r;
        }
        self.current(id)?;
        if self.late(state, now, Lateness::Input) {
            return Ok(());
        }
        let mut o = failure.outcome;
        if !matches!(self.phase, Phase::Head { .. }) && o.request_sent == Some(RequestSent::No) {
            // A head arrived: the request was written whatever the failure says.
            let retry = match o.retry {
                RetryAdvice::Backoff => RetryAdvice::UnknownOutcome,
                r => r,
            };
            o = o.with_request_sent(RequestSent::Unknown).with_retry(retry);
        }
        if let Phase::Events { tracker, .. } = &mut self.phase {
            let mut end = tracker.finish();
            if end.kind == StreamEndKind::Truncated && tracker.task_id().is_none() {
                // Cut before any task id: nothing to resubscribe to; the transport failure
                // says what happened.
                end.outcome = o
                    .with_version(end.outcome.version)
                    .with_binding(end.outcome.binding);
            } else if end.kind == StreamEndKind::Truncated
                && let (Some(said), Some(cause)) = (&end.outcome.message, &o.message)
            {
                // Say why the connection ended.
                let message = format!("{said}: {cause}");
                end.outcome = end.outcome.with_message(message);
            }
            self.conclude(state, end, now);
            return Ok(());
        }
        self.open_failed(state, o, now);
        Ok(())
    }

    /// Time has reached `now`: a head or whole body past its deadline fails (a failed
    /// resubscribe is tried again when allowed), an idle stream ends as timed out
    /// (resubscribed to when allowed), and the total deadline ends the call, never
    /// resubscribing. Each given-up request is aborted ([`StreamEvent::Abort`]). Calling it
    /// early does nothing.
    pub fn handle_timeout(&mut self, state: &mut ClientState, now: Millis) {
        if let Phase::Fetch { call, .. } = &mut self.phase {
            call.handle_timeout(state, now);
            self.drain_fetch(state, now);
            return;
        }
        self.late(state, now, Lateness::Timeout);
    }

    /// The caller abandons the call: a request in flight is aborted and its breaker permit
    /// returned, and the call finishes as `transport`/`Reset` (`request_sent = unknown`
    /// once a request went out). Does nothing once the call is over.
    pub fn cancel(&mut self, state: &mut ClientState, now: Millis) {
        let task = self.task_now();
        // The get-task fallback counts its own cancel in the tally.
        let mut counted = false;
        let sent = match std::mem::replace(&mut self.phase, Phase::Ready) {
            Phase::Done => {
                self.phase = Phase::Done;
                return;
            }
            Phase::Head { id, .. } | Phase::Whole { id, .. } | Phase::Events { id, .. } => {
                self.events.push_back(StreamEvent::Abort(id));
                if let Some(b) = state.breaker.as_mut() {
                    b.release(now);
                }
                RequestSent::Unknown
            }
            Phase::Fetch { mut call, outer } => {
                call.cancel(state, now);
                while let Some(e) = call.poll_event() {
                    if let (UnaryEvent::Abort(_), Some(o)) = (e, outer) {
                        self.events.push_back(StreamEvent::Abort(o));
                    }
                }
                counted = true;
                RequestSent::Unknown
            }
            Phase::Ready if self.requests > 0 => RequestSent::Unknown,
            Phase::Ready => RequestSent::No,
        };
        let mut o =
            Outcome::transport(ErrorName::Reset, sent, "canceled by the caller").with_task_id(task);
        o = self.with_interface(state, o);
        if !counted {
            state
                .tally
                .record(&state.target.agent_name, self.method_now().name(), &o);
        }
        self.finish(state, None, o, now);
    }

    /// Routes an input about the get-task fallback's request to it; `None` when the
    /// machine is not in the fallback.
    fn forward(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        now: Millis,
        f: impl FnOnce(&mut UnaryCall, &mut ClientState, RequestId) -> Result<(), super::InputError>,
    ) -> Option<Result<(), super::InputError>> {
        let Phase::Fetch { call, outer } = &mut self.phase else {
            return None;
        };
        if *outer != Some(id) {
            return Some(Err(super::InputError::Stale));
        }
        // The fallback's UnaryCall makes exactly one attempt: its request is its first.
        let r = f(call, state, RequestId(1));
        self.drain_fetch(state, now);
        Some(r)
    }

    /// Passes on the fallback's events; its end is the stream's.
    fn drain_fetch(&mut self, state: &mut ClientState, now: Millis) {
        let Phase::Fetch { call, outer } = &mut self.phase else {
            return;
        };
        let outer = *outer;
        let mut result = None;
        while let Some(e) = call.poll_event() {
            match e {
                UnaryEvent::Abort(_) => {
                    if let Some(o) = outer {
                        self.events.push_back(StreamEvent::Abort(o));
                    }
                }
                UnaryEvent::Retrying { .. } => {}
                UnaryEvent::Finished(r) => result = Some(r),
            }
        }
        let Some(r) = result else { return };
        self.correlation.attempts = self.correlation.attempts.saturating_add(1);
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
        let body = r.response.map(|resp| resp.body);
        self.finish_with(state, kind, r.outcome, now, true, body);
    }

    /// Checks that `id` is the request in flight.
    fn current(&self, id: RequestId) -> Result<(), super::InputError> {
        match &self.phase {
            Phase::Head { id: cur, .. }
            | Phase::Whole { id: cur, .. }
            | Phase::Events { id: cur, .. }
                if *cur == id =>
            {
                Ok(())
            }
            Phase::Done => Err(super::InputError::Finished),
            _ => Err(super::InputError::Stale),
        }
    }

    /// Ends the request in flight when `now` is at or past its deadline; whether it did.
    fn late(&mut self, state: &mut ClientState, now: Millis, why: Lateness) -> bool {
        let (id, deadline) = match &self.phase {
            Phase::Head { id, deadline, .. } | Phase::Whole { id, deadline, .. } => {
                (*id, *deadline)
            }
            // An input on an open stream is late only at the total deadline: bytes handed
            // after the idle deadline show the server was not idle (they waited unread while
            // the host was away, e.g. in a caller's loop body slower than the idle timeout).
            Phase::Events { id, .. } => match why {
                Lateness::Timeout => match self.poll_timeout() {
                    Some(d) => (*id, d),
                    None => return false,
                },
                Lateness::Input => match self.total {
                    Some(t) => (*id, t),
                    None => return false,
                },
            },
            _ => return false,
        };
        if now < deadline {
            return false;
        }
        self.events.push_back(StreamEvent::Abort(id));
        if self.total.is_some_and(|t| now >= t) {
            // The total deadline, not the idle one: end here, never resubscribe.
            let kind =
                matches!(self.phase, Phase::Events { .. }).then_some(StreamEndKind::TimedOut);
            let mut o = total_deadline_outcome().with_task_id(self.task_now());
            o = self.with_interface(state, o);
            state
                .tally
                .record(&state.target.agent_name, self.method_now().name(), &o);
            if let Some(b) = state.breaker.as_mut() {
                b.release(now);
            }
            self.finish(state, kind, o, now);
            return true;
        }
        if let Phase::Events { tracker, .. } = &mut self.phase {
            let _ = tracker.on_timeout(now);
            let end = tracker.finish();
            self.conclude(state, end, now);
            return true;
        }
        // The driver's words for a head that does not come within the budget.
        let what = if matches!(self.phase, Phase::Head { .. }) {
            "no response head"
        } else {
            "response body not complete"
        };
        let o = Outcome::transport(
            ErrorName::Timeout,
            RequestSent::Unknown,
            format!("{what} within {} ms (the call budget)", self.budget.0),
        )
        .with_retry(RetryAdvice::UnknownOutcome);
        self.open_failed(state, o, now);
        true
    }

    /// The request in flight failed before a stream opened (head or whole body): counted,
    /// then a failed resubscribe is tried again when allowed, else the call ends.
    fn open_failed(&mut self, state: &mut ClientState, o: Outcome, now: Millis) {
        let mut o = o;
        let resubscribe = match std::mem::replace(&mut self.phase, Phase::Ready) {
            Phase::Head { sent, .. } | Phase::Whole { sent, .. } => {
                if let Some(task_id) = sent.subscribed {
                    // The task is still there: a failed resubscribe is reported for that
                    // task, to be resubscribed again or read, never as a call of no task.
                    let retry = match o.retry {
                        RetryAdvice::Backoff | RetryAdvice::UnknownOutcome => {
                            RetryAdvice::Resubscribe
                        }
                        r => r,
                    };
                    o = o.with_task_id(task_id).with_retry(retry);
                }
                sent.resubscribe
            }
            _ => false,
        };
        o = self.with_interface(state, o);
        self.report(state, &o, now);
        if resubscribe
            && let Some(task_id) = self.correlation.task_id.clone()
            && self.may_resubscribe(now)
        {
            return self.resubscribe_to(task_id, o);
        }
        self.finish(state, None, o, now);
    }

    /// One connection's stream ended: counted, then recovered or finished.
    fn conclude(&mut self, state: &mut ClientState, end: StreamEnd, now: Millis) {
        let Phase::Events {
            sent,
            tracker,
            status,
            ..
        } = std::mem::replace(&mut self.phase, Phase::Ready)
        else {
            unreachable!("conclude is called on an open stream")
        };
        let StreamEnd { kind, outcome } = end;
        let status = outcome.http_status.unwrap_or(status);
        let mut outcome = outcome.with_http_status(status);
        outcome = self.with_interface(state, outcome);
        self.report(state, &outcome, now);
        if sent.resubscribe && kind == StreamEndKind::Error && finished_meanwhile(&outcome) {
            // The resubscribe stream itself said the task is gone: read it once.
            return self.fall_back_to_get(state, now);
        }
        if matches!(kind, StreamEndKind::Truncated | StreamEndKind::TimedOut) {
            let task = tracker
                .task_id()
                .map(str::to_owned)
                .or_else(|| outcome.task_id.clone());
            if let Some(task_id) = task
                && self.may_resubscribe(now)
            {
                return self.resubscribe_to(task_id, outcome);
            }
        }
        self.finish(state, Some(kind), outcome, now);
    }

    /// Whether another resubscribe is allowed at `now`.
    fn may_resubscribe(&self, now: Millis) -> bool {
        self.resubscribes < self.stream.resubscribe_attempts && self.total.is_none_or(|t| now < t)
    }

    /// Queues [`StreamEvent::Resubscribing`]; the request follows from `poll_transmit`.
    fn resubscribe_to(&mut self, task_id: String, outcome: Outcome) {
        self.resubscribes += 1;
        self.correlation.attempts = self.correlation.attempts.saturating_add(1);
        self.correlation.task_id = Some(task_id.clone());
        self.events.push_back(StreamEvent::Resubscribing {
            task_id: task_id.clone(),
            attempt: self.resubscribes,
            outcome: Box::new(outcome),
        });
        self.subscribe = Some(task_id);
        self.phase = Phase::Ready;
    }

    /// The task finished (or is gone) while the machine was away: read it once.
    fn fall_back_to_get(&mut self, state: &mut ClientState, now: Millis) {
        let Some(task_id) = self.correlation.task_id.clone() else {
            let mut o = Outcome::transport(
                ErrorName::Reset,
                RequestSent::Unknown,
                "stream ended and the task id is unknown",
            );
            o = self.with_interface(state, o);
            return self.finish(state, None, o, now);
        };
        let opts = CallOptions {
            budget: self.budget_given,
            deadline: self.total,
            traceparent: Some(self.correlation.traceparent.clone()),
            headers: self.headers.clone(),
            ..CallOptions::default()
        };
        let get = Call::GetTask(GetTaskParams {
            id: task_id.into(),
            history_length: None,
            metadata: None,
        });
        let call = UnaryCall::new(state, get, opts, now);
        self.phase = Phase::Fetch {
            call: Box::new(call),
            outer: None,
        };
    }

    /// Counts an outcome of a request in the tally and reports it to the breaker.
    fn report(&self, state: &mut ClientState, o: &Outcome, now: Millis) {
        state
            .tally
            .record(&state.target.agent_name, self.method_now().name(), o);
        if let Some(b) = state.breaker.as_mut() {
            b.record(o, now);
        }
    }

    /// The method of the request in flight (or the next one).
    fn method_now(&self) -> Method {
        if self.first.is_none() && self.subscribe.is_some() {
            Method::SubscribeToTask
        } else {
            self.method
        }
    }

    /// The task id known so far: the open stream's, or the correlation's.
    fn task_now(&self) -> Option<String> {
        if let Phase::Events { tracker, .. } = &self.phase
            && let Some(t) = tracker.task_id()
        {
            return Some(t.to_owned());
        }
        self.correlation.task_id.clone()
    }

    /// What the classifier must know about the request `sent`.
    fn asked<'a>(&self, state: &ClientState, sent: &'a Sent) -> Asked<'a> {
        Asked {
            version: Some(state.target.version),
            binding: Some(state.target.binding),
            method: Some(&sent.wire_method),
            request_id: sent.rpc_id.as_deref(),
        }
    }

    /// `at`, never after the total deadline.
    fn capped(&self, at: Millis) -> Millis {
        self.total.map_or(at, |t| t.min(at))
    }

    /// The target's version and binding on an outcome that has none.
    fn with_interface(&self, state: &ClientState, o: Outcome) -> Outcome {
        let version = o.version.or(Some(state.target.version));
        let binding = o.binding.or(Some(state.target.binding));
        o.with_version(version).with_binding(binding)
    }

    fn finish(
        &mut self,
        state: &ClientState,
        kind: Option<StreamEndKind>,
        o: Outcome,
        now: Millis,
    ) {
        self.finish_with(state, kind, o, now, false, None);
    }

    /// Queues [`StreamEvent::Finished`].
    fn finish_with(
        &mut self,
        state: &ClientState,
        kind: Option<StreamEndKind>,
        mut outcome: Outcome,
        now: Millis,
        fetched_by_get: bool,
        task_body: Option<Vec<u8>>,
    ) {
        state.settle_cancel_origin(&mut outcome);
        let c = &mut self.correlation;
        if outcome.task_id.is_some() {
            c.task_id.clone_from(&outcome.task_id);
        }
        if outcome.context_id.is_some() {
            c.context_id.clone_from(&outcome.context_id);
        }
        if outcome.error_id.is_some() {
            c.error_id.clone_from(&outcome.error_id);
        }
        c.elapsed = now.saturating_sub(self.started);
        self.phase = Phase::Done;
        self.events
            .push_back(StreamEvent::Finished(Box::new(StreamResult {
                kind,
                outcome,
                correlation: self.correlation.clone(),
                resubscribes: self.resubscribes,
                fetched_by_get,
                task_body,
                dropped_events: self.dropped_events,
                unreadable_events: self.unreadable_events,
                answer: std::mem::take(&mut self.assembler).finish(),
            })));
    }
}

/// The item reporting an event the decoder dropped for exceeding its limit: `malformed`,
/// not ending the stream; advice `poll` when the task id is known, else `never`. (The
/// driver's words.)
fn dropped_item(
    limit: usize,
    tracker: &StreamTracker,
    context_id: Option<&str>,
    version: crate::version::ProtocolVersion,
    binding: crate::version::Binding,
) -> StreamItem {
    let retry = if tracker.task_id().is_some() {
        RetryAdvice::Poll
    } else {
        RetryAdvice::Never
    };
    let message = format!(
        "SSE event dropped: larger than the {limit}-byte event size limit (max_event_bytes); the stream goes on without it{}",
        if tracker.task_id().is_some() {
            "; read the task for its full result"
        } else {
            ""
        }
    );
    let o = Outcome::malformed(message, retry)
        .with_http_status(200)
        .with_task_id(tracker.task_id().map(str::to_owned))
        .with_context_id(context_id.map(str::to_owned))
        .with_last_state(tracker.last_state())
        .with_version(version)
        .with_binding(binding);
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

/// Reads the model of an event the tracker accepted, attaches it to the item and feeds the
/// assembler; an event whose content cannot be read becomes a `malformed` item saying what
/// and where.
fn read_item<'d>(
    item: &mut StreamItem,
    data: &'d [u8],
    tape: Option<&crate::tape::Tape<'d>>,
    version: crate::version::ProtocolVersion,
    binding: crate::version::Binding,
    assembler: &mut Assembler,
) {
    if matches!(item.kind, StreamItemKind::Error | StreamItemKind::Malformed) {
        return;
    }
    match crate::answer::read_event_once(tape, data, version, binding) {
        Ok(ev) => {
            assembler.push(&ev);
            item.event = Some(Box::new(ev.into_owned()));
        }
        Err(e) => {
            let what = format!("the {} event", item.kind.as_str());
            item.outcome = unreadable(&item.outcome, &e, &what).with_http_status(200);
            item.kind = StreamItemKind::Malformed;
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

/// Keeps the first task id and context id seen.
fn note_ids(c: &mut Correlation, o: &Outcome) {
    if c.task_id.is_none() {
        c.task_id.clone_from(&o.task_id);
    }
    if c.context_id.is_none() {
        c.context_id.clone_from(&o.context_id);
    }
}

/// Whether the first bytes of a body declared `Content-Encoding: gzip` are gzip's magic
/// number (RFC 1952 §2.3.1: 0x1f 0x8b): the host did not decode it. A decoded event stream
/// cannot start so (0x1f is a control character, 0x8b no UTF-8 lead byte). Hosts must hand
/// over decoded bodies; one that does not would otherwise have the decoder skip the
/// compressed bytes as unknown fields and perhaps lose events silently (a body of stored
/// deflate blocks shows the events' text between its headers).
/// What asks whether the request in flight is late: an input, or `handle_timeout`.
#[derive(Clone, Copy)]
enum Lateness {
    /// An input (head, body, end, failure): an open stream's idle deadline does not count.
    Input,
    /// Time passing (`handle_timeout`): every deadline counts.
    Timeout,
}

fn gzip_magic(first: &[u8]) -> bool {
    first == [0x1f, 0x8b]
}
