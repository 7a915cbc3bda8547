//! The one I/O loop over the core's client machines ([`crate::client::CardFetch`],
//! [`crate::client::UnaryCall`], [`crate::client::StreamCall`]): the driver's calls, streams
//! and card resolution run on it, and so does the C ABI's `a2a_call_run`.
//!
//! Each request the machine hands out is performed on a [`Client`]'s transport (a
//! non-streaming request, a card fetch and a stream's get-task fallback whole; a stream's
//! request opened, its body then read chunk by chunk, each read bounded by the machine's
//! next deadline), what happened is fed back, and the loop sleeps until the machine's next
//! deadline when nothing is in flight. [`run`] returns once an event the caller must see is
//! queued (`Abort` events are acted on here and never queued). A stream's open body stays
//! in the caller's [`InFlight`] between runs. Time comes in as a value (`now`), continued
//! by the run's own monotonic clock; an [`AbortHandle`] from another thread cancels the
//! call.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::raw::{RawStream, ReadEnd};
use super::{AbortHandle, Client, HttpRequest};
use crate::client::{
    CardFetch, ClientState, HttpResponse, InputError, RequestId, StreamCall, Transmit,
    TransportFailure, UnaryCall,
};
use crate::outcome::{ErrorName, Outcome};
use crate::time::Millis;

/// One input about the request in flight, as the loop hands it to a machine.
#[derive(Debug)]
pub enum Input<'a> {
    /// A response read whole: its head, body and end at once.
    Whole(HttpResponse),
    /// An event stream's response head: the status and the headers.
    Head(u16, Vec<(String, String)>),
    /// Body bytes, in any split.
    Body(&'a [u8]),
    /// The body ended cleanly.
    End,
    /// The transport failed; the outcome says how, and whether bytes were written.
    Failure(Outcome),
}

/// Feeds an [`Input`] to a machine: `$m` the machine, `$s` its state (none for a card fetch).
macro_rules! feed {
    ($input:expr, $m:expr, $id:expr, $now:expr $(, $s:expr)?) => {
        match $input {
            Input::Whole(r) => $m
                .handle_head($($s,)? $id, r.status, r.headers, $now)
                .and_then(|()| $m.handle_body($($s,)? $id, &r.body, $now))
                .and_then(|()| $m.handle_end($($s,)? $id, $now)),
            Input::Head(status, headers) => $m.handle_head($($s,)? $id, status, headers, $now),
            Input::Body(bytes) => $m.handle_body($($s,)? $id, bytes, $now),
            Input::End => $m.handle_end($($s,)? $id, $now),
            Input::Failure(o) => {
                $m.handle_failure($($s,)? $id, TransportFailure::from_outcome(o), $now)
            }
        }
    };
}

impl Input<'_> {
    /// Feeds this input about request `id` to a non-streaming call at `now`.
    ///
    /// # Errors
    /// The machine's refusal ([`InputError`]).
    pub fn to_unary(
        self,
        m: &mut UnaryCall,
        state: &mut ClientState,
        id: RequestId,
        now: Millis,
    ) -> Result<(), InputError> {
        match self {
            // The body read whole is handed over, not copied.
            Input::Whole(r) => m
                .handle_head(state, id, r.status, r.headers, now)
                .and_then(|()| m.handle_body_vec(state, id, r.body, now))
                .and_then(|()| m.handle_end(state, id, now)),
            other => feed!(other, m, id, now, state),
        }
    }

    /// Feeds this input about request `id` to a streaming call at `now`.
    ///
    /// # Errors
    /// The machine's refusal ([`InputError`]).
    pub fn to_stream(
        self,
        m: &mut StreamCall,
        state: &mut ClientState,
        id: RequestId,
        now: Millis,
    ) -> Result<(), InputError> {
        feed!(self, m, id, now, state)
    }

    /// Feeds this input about request `id` to a card fetch at `now`.
    ///
    /// # Errors
    /// The machine's refusal ([`InputError`]).
    pub fn to_card(self, m: &mut CardFetch, id: RequestId, now: Millis) -> Result<(), InputError> {
        feed!(self, m, id, now)
    }
}

/// How the loop performs the request a machine just handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// Read whole: a non-streaming call, a card fetch, a stream's get-task fallback.
    Whole,
    /// Opened, then its body read chunk by chunk (a stream's request or resubscribe).
    Stream {
        /// The stream's total deadline: a timeout at it is that deadline passing.
        total: Option<Millis>,
    },
}

/// What an event means to the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventRole {
    /// Close request `id`'s connection (never queued for the caller).
    Abort(RequestId),
    /// The call's last event (queued; the body held, if any, is closed).
    Finished,
    /// Anything else the caller sees (an item, a retry, a resubscribe).
    Other,
}

/// A client machine as [`run`] drives it: the machine's functions with the client state
/// they need reached by the implementation (a lock), each able to fail with `Error` (a
/// state that cannot be reached).
pub trait RunMachine {
    /// The machine's event.
    type Event;
    /// Why the state could not be reached; ends the run.
    type Error;
    /// The next request due at `now`, if any.
    ///
    /// # Errors
    /// The state could not be reached.
    fn poll_transmit(&mut self, now: Millis) -> Result<Option<Transmit>, Self::Error>;
    /// How the request [`RunMachine::poll_transmit`] just handed out is performed.
    fn exchange(&self) -> Exchange;
    /// Feeds `input` about request `id`, the one in flight (the machine cannot refuse it).
    ///
    /// # Errors
    /// The state could not be reached.
    fn handle(&mut self, id: RequestId, input: Input<'_>, now: Millis) -> Result<(), Self::Error>;
    /// Time reached `now`.
    ///
    /// # Errors
    /// The state could not be reached.
    fn handle_timeout(&mut self, now: Millis) -> Result<(), Self::Error>;
    /// Cancels the call at `now`.
    ///
    /// # Errors
    /// The state could not be reached.
    fn cancel(&mut self, now: Millis) -> Result<(), Self::Error>;
    /// The machine's next deadline.
    fn poll_timeout(&self) -> Option<Millis>;
    /// The machine's next event.
    fn poll_event(&mut self) -> Option<Self::Event>;
    /// What `event` means to the loop.
    fn role(event: &Self::Event) -> EventRole;
}

/// What a call keeps between runs: a stream's open response body and the request it
/// answers. Dropping it closes the connection.
#[derive(Default)]
pub struct InFlight {
    body: Option<(RequestId, RawStream)>,
}

impl std::fmt::Debug for InFlight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InFlight")
            .field("body", &self.body.as_ref().map(|(id, _)| id))
            .finish()
    }
}

impl InFlight {
    /// Drops (closes) the body of request `id`, if it is the one held.
    pub fn drop_request(&mut self, id: RequestId) {
        if self.body.as_ref().is_some_and(|(b, _)| *b == id) {
            self.body = None;
        }
    }

    /// Drops (closes) the body held, if any.
    pub fn clear(&mut self) {
        self.body = None;
    }
}

/// The caller's clock continued by this run's monotonic clock.
pub(crate) struct Clock {
    start: Instant,
    start_ms: u64,
}

impl Clock {
    /// A clock reading `now` at this instant.
    pub(crate) fn new(now: Millis) -> Clock {
        Clock {
            start: Instant::now(),
            start_ms: now.0,
        }
    }

    fn now(&self) -> Millis {
        let elapsed = self.start.elapsed().as_millis().min(u128::from(u64::MAX)) as u64;
        Millis(self.start_ms.saturating_add(elapsed))
    }

    /// The instant a machine deadline stands for (one already passed: now).
    fn instant(&self, at: Millis) -> Instant {
        let ahead = Duration::from_millis(at.0.saturating_sub(self.start_ms));
        self.start
            .checked_add(ahead)
            .unwrap_or_else(|| self.start + Duration::from_secs(86_400 * 365))
    }
}

/// Runs `m` on `transport` until an event the caller must see is queued in `events`
/// (at once when one is queued already): performs each request the machine hands out,
/// feeds back what happened, reads an open stream body (kept in `flight` between runs)
/// and sleeps until the machine's next deadline. `Abort` events close the body they name
/// and are not queued. A triggered `abort` cancels the call (its `Finished` event carries
/// the cancel outcome). `now`: the caller's time on the machine's scale; receives the time
/// the run returned at, also on an error. Do not run a machine whose `Finished` event was
/// taken. BLOCKS the calling thread, every wait bounded by a deadline of the machine's.
///
/// # Errors
/// The machine's state could not be reached ([`RunMachine::Error`]).
pub fn run<M: RunMachine>(
    m: &mut M,
    flight: &mut InFlight,
    events: &mut VecDeque<M::Event>,
    transport: &Client,
    abort: Option<&AbortHandle>,
    now: &mut Millis,
) -> Result<(), M::Error> {
    let clock = Clock::new(*now);
    if let (Some(a), Some((_, body))) = (abort, flight.body.as_ref()) {
        // A body opened in an earlier run: this run's switch must reach its socket too.
        a.link(&body.abort_handle());
    }
    let r = loop {
        drain(m, flight, events);
        if !events.is_empty() {
            break Ok(());
        }
        let r = if aborted(abort) {
            // Queues `Finished` with the cancel outcome (and an `Abort` for the body held).
            m.cancel(clock.now())
        } else {
            step(m, flight, transport, abort, &clock)
        };
        if let Err(e) = r {
            break Err(e);
        }
    };
    *now = clock.now();
    r
}

/// Moves the machine's events to `events`, acting on `Abort`s (not queued).
pub(crate) fn drain<M: RunMachine>(
    m: &mut M,
    flight: &mut InFlight,
    events: &mut VecDeque<M::Event>,
) {
    while let Some(e) = m.poll_event() {
        match M::role(&e) {
            EventRole::Abort(id) => flight.drop_request(id),
            EventRole::Finished => {
                // Closes the connection (a body cut short is never pooled).
                flight.clear();
                events.push_back(e);
            }
            EventRole::Other => events.push_back(e),
        }
    }
}

fn aborted(abort: Option<&AbortHandle>) -> bool {
    abort.is_some_and(AbortHandle::is_aborted)
}

/// One turn: performs the request due, or reads once from the open body, or sleeps until
/// the machine's next deadline. Leaves the machine's events queued in it.
///
/// # Errors
/// The machine's state could not be reached.
pub(crate) fn step<M: RunMachine>(
    m: &mut M,
    flight: &mut InFlight,
    transport: &Client,
    abort: Option<&AbortHandle>,
    clock: &Clock,
) -> Result<(), M::Error> {
    if let Some(t) = m.poll_transmit(clock.now())? {
        return perform(m, flight, transport, abort, clock, t);
    }
    if flight.body.is_some() {
        return read(m, flight, abort, clock);
    }
    match m.poll_timeout() {
        Some(at) => {
            let wake = clock.instant(at);
            let cut = match abort {
                Some(a) => a.sleep_until(wake),
                None => {
                    std::thread::sleep(wake.saturating_duration_since(Instant::now()));
                    false
                }
            };
            if cut {
                return Ok(());
            }
            m.handle_timeout(clock.now().max(at))
        }
        // An unfinished machine with nothing to send, read or wait for would spin: end the
        // call instead (not reached in practice).
        None => m.cancel(clock.now()),
    }
}

/// The moment to give the machine an input that happened now: never at or past the
/// deadline it waits for (the I/O kept that deadline itself; the clocks may differ by a
/// rounding).
fn in_time<M: RunMachine>(m: &M, clock: &Clock) -> Millis {
    let now = clock.now();
    match m.poll_timeout() {
        Some(d) if now >= d => d.saturating_sub(Millis(1)),
        _ => now,
    }
}

/// Whether a timeout reported at the I/O's end is the machine's own deadline `at` passing.
fn at_deadline(o: &Outcome, clock: &Clock, at: Millis) -> bool {
    o.error == Some(ErrorName::Timeout)
        && Instant::now() + Duration::from_millis(5) >= clock.instant(at)
}

/// Performs request `t` on the transport and feeds what happened.
fn perform<M: RunMachine>(
    m: &mut M,
    flight: &mut InFlight,
    transport: &Client,
    abort: Option<&AbortHandle>,
    clock: &Clock,
    t: Transmit,
) -> Result<(), M::Error> {
    let Transmit {
        id,
        request,
        connect_by,
        deadline,
    } = t;
    let request = HttpRequest::from(request);
    // A fresh handle per request (it records whether this request wrote bytes), reached by
    // the caller's switch.
    let own = AbortHandle::new();
    if let Some(a) = abort {
        a.link(&own);
    }
    // At least a millisecond each: a zero timeout may mean none to the socket layer.
    let left = |at: Millis| {
        clock
            .instant(at)
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1))
    };
    let (budget, connect) = (left(deadline), left(connect_by));
    let Exchange::Stream { total } = m.exchange() else {
        let result = transport.exchange_for_machine(&request, budget, connect, &own);
        if aborted(abort) {
            return Ok(());
        }
        let at = in_time(m, clock);
        return match result {
            Ok(r) => m.handle(id, Input::Whole(r), at),
            // The machine's deadline passed: it says whose (call or total) and aborts.
            Err(o) if at_deadline(&o, clock, deadline) => {
                m.handle_timeout(clock.now().max(deadline))
            }
            Err(o) => m.handle(id, Input::Failure(o), at),
        };
    };
    let opened = transport.open_stream_for_machine(&request, budget, connect, &own);
    if aborted(abort) {
        return Ok(());
    }
    let at = in_time(m, clock);
    match opened {
        // A timeout at the total deadline is that deadline passing: the machine ends the
        // call with the max-time outcome and never resubscribes.
        Err(o) if total.is_some_and(|t| at_deadline(&o, clock, t)) => {
            m.handle_timeout(clock.now().max(total.unwrap_or(Millis(0))))
        }
        Err(o) => m.handle(id, Input::Failure(o), at),
        Ok(Err(whole)) => m.handle(id, Input::Whole(whole), at),
        Ok(Ok(body)) => {
            let headers = body.headers.clone();
            m.handle(id, Input::Head(body.status, headers), at)?;
            flight.body = Some((id, body));
            Ok(())
        }
    }
}

/// Reads once from the open body, bounded by the machine's next deadline (idle or total),
/// and feeds what came.
fn read<M: RunMachine>(
    m: &mut M,
    flight: &mut InFlight,
    abort: Option<&AbortHandle>,
    clock: &Clock,
) -> Result<(), M::Error> {
    let deadline = m.poll_timeout();
    let Some((id, body)) = flight.body.as_mut() else {
        return Ok(());
    };
    let id = *id;
    let read = body.read_chunk(deadline.map(|d| clock.instant(d)));
    if aborted(abort) {
        // The loop cancels the call; the `Abort` it queues drops the body.
        return Ok(());
    }
    let at = in_time(m, clock);
    let over = match read {
        // Bytes in any split: the machine's decoder takes them as they come.
        Ok(Some(bytes)) => {
            m.handle(id, Input::Body(bytes), at)?;
            false
        }
        Ok(None) => {
            m.handle(id, Input::End, at)?;
            true
        }
        Err(ReadEnd::Idle) => {
            m.handle_timeout(clock.now().max(deadline.unwrap_or(Millis(0))))?;
            true
        }
        Err(ReadEnd::Failed(o)) => {
            m.handle(id, Input::Failure(o), at)?;
            true
        }
    };
    if over {
        flight.body = None;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A machine that sends nothing: it waits for `deadline`, then reports `Tick`; a
    /// cancel reports an `Abort` and `Done`; `broken` makes every input fail.
    #[derive(Default)]
    struct Fake {
        deadline: Option<Millis>,
        events: VecDeque<Ev>,
        timeouts: Vec<Millis>,
        broken: bool,
    }

    #[derive(Debug, PartialEq)]
    enum Ev {
        Abort(RequestId),
        Tick,
        Done,
    }

    impl RunMachine for Fake {
        type Event = Ev;
        type Error = &'static str;

        fn poll_transmit(&mut self, _: Millis) -> Result<Option<Transmit>, &'static str> {
            if self.broken {
                Err("no state")
            } else {
                Ok(None)
            }
        }
        fn exchange(&self) -> Exchange {
            Exchange::Whole
        }
        fn handle(&mut self, _: RequestId, _: Input<'_>, _: Millis) -> Result<(), &'static str> {
            Ok(())
        }
        fn handle_timeout(&mut self, now: Millis) -> Result<(), &'static str> {
            self.timeouts.push(now);
            if self.deadline.is_some_and(|d| now >= d) {
                self.deadline = None;
                self.events.push_back(Ev::Tick);
            }
            Ok(())
        }
        fn cancel(&mut self, _: Millis) -> Result<(), &'static str> {
            self.deadline = None;
            self.events.push_back(Ev::Abort(RequestId(1)));
            self.events.push_back(Ev::Done);
            Ok(())
        }
        fn poll_timeout(&self) -> Option<Millis> {
            self.deadline
        }
        fn poll_event(&mut self) -> Option<Ev> {
            self.events.pop_front()
        }
        fn role(e: &Ev) -> EventRole {
            match e {
                Ev::Abort(id) => EventRole::Abort(*id),
                Ev::Done => EventRole::Finished,
                Ev::Tick => EventRole::Other,
            }
        }
    }

    fn transport() -> Client {
        Client::raw(super::super::ClientConfig::default())
    }

    #[test]
    fn a_run_sleeps_until_the_machines_deadline_and_continues_the_callers_clock() {
        let mut m = Fake {
            deadline: Some(Millis(1_030)),
            ..Fake::default()
        };
        let (mut flight, mut events, mut now) =
            (InFlight::default(), VecDeque::new(), Millis(1_000));
        run(
            &mut m,
            &mut flight,
            &mut events,
            &transport(),
            None,
            &mut now,
        )
        .unwrap();
        assert_eq!(events, [Ev::Tick]);
        assert!(
            m.timeouts.iter().all(|t| *t >= Millis(1_030)),
            "{:?}",
            m.timeouts
        );
        assert!(
            now >= Millis(1_030),
            "the time reached, on the caller's scale: {now:?}"
        );
        // An event already queued: the run returns at once, nothing asked of the machine.
        m.deadline = Some(Millis(now.0 + 50));
        run(
            &mut m,
            &mut flight,
            &mut events,
            &transport(),
            None,
            &mut now,
        )
        .unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(m.timeouts.len(), 1);
    }

    #[test]
    fn a_triggered_abort_cancels_and_only_the_finish_is_queued() {
        let mut m = Fake {
            deadline: Some(Millis(50)),
            ..Fake::default()
        };
        let abort = AbortHandle::new();
        abort.abort();
        let (mut flight, mut events, mut now) = (InFlight::default(), VecDeque::new(), Millis(5));
        run(
            &mut m,
            &mut flight,
            &mut events,
            &transport(),
            Some(&abort),
            &mut now,
        )
        .unwrap();
        assert_eq!(events, [Ev::Done], "the Abort is acted on, never queued");
        assert!(m.timeouts.is_empty(), "no sleep: the switch was triggered");
    }

    #[test]
    fn a_state_that_cannot_be_reached_ends_the_run_with_the_time_written() {
        let mut m = Fake {
            broken: true,
            ..Fake::default()
        };
        let (mut flight, mut events, mut now) = (InFlight::default(), VecDeque::new(), Millis(77));
        let r = run(
            &mut m,
            &mut flight,
            &mut events,
            &transport(),
            None,
            &mut now,
        );
        assert_eq!(r, Err("no state"));
        assert!(events.is_empty());
        assert!(now >= Millis(77));
    }
}
