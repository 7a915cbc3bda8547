//! Streaming calls: the core's [`machine::StreamCall`] run by the driver's loop
//! ([`super::run()`]). The machine decides (build, hooks, credentials, breaker, SSE
//! decoding, the stream tracker, idle and total deadlines, resubscribe-never-resend, the
//! one get-task fallback, the answer, the tally); the loop performs each request it hands
//! out, feeds it the response head, the body as it arrives (each read bounded by the
//! machine's next deadline), the end or the failure, and tells it when a deadline passed.
//! The iterator yields the machine's items and notices as the driver's [`StreamEvent`]s
//! and ends with [`StreamEvent::End`].
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
use std::time::Instant;

use super::Client;
use super::call::{
    CallOptions, correlation_of, no_state, refresh_correlation, send_params, unsent, user_message,
};
use super::correlation::Correlation;
use super::run::{self, Clock, EventRole, Exchange, InFlight, Input, RunMachine};
use crate::client::{self as machine, RequestId, Transmit};
use crate::model::params::{Call, TaskIdParams};
use crate::model::{Json, Part, SendResponse};
use crate::outcome::Outcome;
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

    /// The end of a stream whose request was never sent.
    fn unsent(outcome: Outcome, correlation: Correlation) -> StreamFinal {
        StreamFinal {
            kind: None,
            outcome,
            correlation,
            resubscribes: 0,
            fetched_by_get: false,
            task_body: None,
            dropped_events: 0,
            unreadable_events: 0,
            answer: None,
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
    flight: InFlight,
    /// The machine's events of the last run, before they are the driver's.
    taken: VecDeque<machine::StreamEvent>,
    /// The events not handed out yet.
    pending: VecDeque<Pending>,
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
            let call = call.to_static();
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
            flight: InFlight::default(),
            taken: VecDeque::new(),
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
                s.pending
                    .push_back(Pending::End(Box::new(StreamFinal::unsent(
                        r.outcome,
                        r.correlation,
                    ))));
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

    /// The eager start: performs the first request (sends it and awaits its head), then
    /// queues what the machine reported.
    fn step(&mut self) {
        let Some(m) = self.machine.as_mut() else {
            return;
        };
        let client = &self.client;
        let mut on = Stream { client, m };
        // A call refused at once (a capability, say) is over before any request.
        let stepped = if on.m.is_finished() {
            Ok(())
        } else {
            run::step(
                &mut on,
                &mut self.flight,
                client,
                None,
                &Clock::new(client.now()),
            )
        };
        run::drain(&mut on, &mut self.flight, &mut self.taken);
        self.queue(stepped);
    }

    /// Runs the loop until the machine reports an event, then queues what it reported.
    fn run(&mut self) {
        let Some(m) = self.machine.as_mut() else {
            return;
        };
        let client = &self.client;
        let mut on = Stream { client, m };
        let mut now = client.now();
        let ran = run::run(
            &mut on,
            &mut self.flight,
            &mut self.taken,
            client,
            None,
            &mut now,
        );
        self.queue(ran);
    }

    /// Queues the machine's events taken by the loop as the driver's (its state gone, the
    /// call ends with that outcome).
    fn queue(&mut self, ran: Result<(), Outcome>) {
        let Some(m) = self.machine.as_mut() else {
            return;
        };
        // Whether the ids or counts may have moved (an item, a resubscribe).
        let moved = self.correlation.method.is_empty() || !self.taken.is_empty();
        for e in self.taken.drain(..) {
            match e {
                // Acted on by the loop, never taken.
                machine::StreamEvent::Abort(_) => {}
                machine::StreamEvent::Item(item) => self.pending.push_back(Pending::Item(item)),
                machine::StreamEvent::Resubscribing {
                    task_id, attempt, ..
                } => self
                    .pending
                    .push_back(Pending::Resubscribing { task_id, attempt }),
                machine::StreamEvent::Finished(r) => {
                    let end = StreamFinal::of(*r, self.started);
                    self.correlation = end.correlation.clone();
                    self.pending.push_back(Pending::End(Box::new(end)));
                }
            }
        }
        if let Err(o) = ran {
            self.machine = None;
            self.flight.clear();
            let end = StreamFinal::unsent(o, self.correlation.clone());
            self.pending.push_back(Pending::End(Box::new(end)));
        } else if moved && !m.is_finished() {
            refresh_correlation(&mut self.correlation, m.correlation(), self.started);
        }
    }
}

/// A [`StreamEvent`] waiting in [`StreamCall`]'s queue, its large parts boxed: an open
/// stream keeps its queue's space while it waits, and four unboxed events were about 3 KiB of
/// the 29 per open idle stream (issue 28). An item stays in the box the machine made.
#[derive(Debug)]
enum Pending {
    Item(Box<crate::stream::StreamItem>),
    Resubscribing { task_id: String, attempt: u32 },
    End(Box<StreamFinal>),
}

impl Pending {
    fn into_event(self) -> StreamEvent {
        match self {
            Pending::Item(item) => StreamEvent::Item(*item),
            Pending::Resubscribing { task_id, attempt } => {
                StreamEvent::Resubscribing { task_id, attempt }
            }
            Pending::End(end) => StreamEvent::End(*end),
        }
    }
}

/// A streaming call's machine on its client's state, as the loop runs it.
struct Stream<'a> {
    client: &'a Client,
    m: &'a mut machine::StreamCall,
}

impl RunMachine for Stream<'_> {
    type Event = machine::StreamEvent;
    type Error = Outcome;

    fn poll_transmit(&mut self, now: Millis) -> Result<Option<Transmit>, Outcome> {
        let m = &mut *self.m;
        self.client.state(|s| m.poll_transmit(s, now))
    }

    fn exchange(&self) -> Exchange {
        if self.m.is_fetching() {
            // The get-task fallback, read whole as a non-streaming call.
            Exchange::Whole
        } else {
            Exchange::Stream {
                total: self.m.total_deadline(),
            }
        }
    }

    fn handle(&mut self, id: RequestId, input: Input<'_>, now: Millis) -> Result<(), Outcome> {
        let m = &mut *self.m;
        // The request is the one in flight: the input cannot be refused.
        self.client.state(|s| {
            let _ = input.to_stream(m, s, id, now);
        })
    }

    fn handle_timeout(&mut self, now: Millis) -> Result<(), Outcome> {
        let m = &mut *self.m;
        self.client.state(|s| m.handle_timeout(s, now))
    }

    fn cancel(&mut self, now: Millis) -> Result<(), Outcome> {
        let m = &mut *self.m;
        self.client.state(|s| m.cancel(s, now))
    }

    fn poll_timeout(&self) -> Option<Millis> {
        self.m.poll_timeout()
    }

    fn poll_event(&mut self) -> Option<machine::StreamEvent> {
        self.m.poll_event()
    }

    fn role(event: &machine::StreamEvent) -> EventRole {
        match event {
            machine::StreamEvent::Abort(id) => EventRole::Abort(*id),
            machine::StreamEvent::Finished(_) => EventRole::Finished,
            _ => EventRole::Other,
        }
    }
}

impl Drop for StreamCall {
    /// A stream abandoned before its end is canceled: the machine returns the breaker's
    /// trial permit (a half-open breaker would otherwise wait forever for an outcome that
    /// never comes) and the connection closes.
    fn drop(&mut self) {
        self.flight.clear();
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
                return Some(e.into_event());
            }
            if self.finished() {
                return None;
            }
            self.run();
        }
    }
}
