//! `a2a_call_run`'s loop (feature `driver`): one step of a client machine over the
//! reference driver's transport, so a binding runs any call natively with one foreign call
//! per step instead of driving `poll_transmit` / `handle_*` over the raw exchange layer.
//!
//! The loop is the driver's own ([`a2a::driver::Client::call`], its stream iterator): each
//! request the machine hands out is performed on the transport (a non-streaming request,
//! a card fetch and a stream's get-task fallback whole; a stream's request opened, its body
//! then read chunk by chunk, each read bounded by the machine's next deadline), what
//! happened is fed back, and the loop sleeps until the machine's next deadline when nothing
//! is in flight. It returns once an event the caller must see is queued (`ABORT` events are
//! acted on here and never queued). A stream's open body stays in the call between runs.

use std::time::{Duration, Instant};

use a2a::client::{RequestId, TransportFailure};
use a2a::driver::{AbortHandle, Client, HttpRequest, HttpResponse, ReadEnd};
use a2a::outcome::{ErrorName, Outcome};
use a2a::time::Millis;

use crate::machine::{Machine, a2a_call, machine_event, next_transmit};
use crate::result::a2a_result;

/// The caller's clock continued by this run's monotonic clock.
struct Clock {
    start: Instant,
    start_ms: u64,
}

impl Clock {
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

/// One input about the request in flight (built and consumed at once: boxing the outcome
/// would buy nothing).
#[allow(clippy::large_enum_variant)]
enum Input<'a> {
    Whole(HttpResponse),
    Head(u16, Vec<(String, String)>),
    Body(&'a [u8]),
    End,
    Failure(Outcome),
}

/// Feeds `input` about request `id` (the one in flight: the machine cannot refuse it, so
/// its answer is ignored, as the driver does) at `now`.
fn feed(m: &mut Machine, id: RequestId, input: Input<'_>, now: Millis) -> Result<(), a2a_result> {
    macro_rules! each {
        ($m:expr, $($s:expr)?) => {{
            let _ = match input {
                Input::Whole(r) => $m
                    .handle_head($($s,)? id, r.status, r.headers, now)
                    .and_then(|()| $m.handle_body($($s,)? id, &r.body, now))
                    .and_then(|()| $m.handle_end($($s,)? id, now)),
                Input::Head(status, headers) => $m.handle_head($($s,)? id, status, headers, now),
                Input::Body(bytes) => $m.handle_body($($s,)? id, bytes, now),
                Input::End => $m.handle_end($($s,)? id, now),
                Input::Failure(o) => {
                    $m.handle_failure($($s,)? id, TransportFailure::from_outcome(o), now)
                }
            };
        }};
    }
    match m {
        Machine::Card(m) => each!(m,),
        Machine::Unary(cell, m) => {
            let s = &mut *cell.lock()?;
            each!(m, s)
        }
        Machine::Stream(cell, m) => {
            let s = &mut *cell.lock()?;
            each!(m, s)
        }
    }
    Ok(())
}

fn handle_timeout(m: &mut Machine, now: Millis) -> Result<(), a2a_result> {
    match m {
        Machine::Card(m) => m.handle_timeout(now),
        Machine::Unary(cell, m) => m.handle_timeout(&mut *cell.lock()?, now),
        Machine::Stream(cell, m) => m.handle_timeout(&mut *cell.lock()?, now),
    }
    Ok(())
}

fn cancel(m: &mut Machine, now: Millis) -> Result<(), a2a_result> {
    match m {
        Machine::Card(m) => m.cancel(now),
        Machine::Unary(cell, m) => m.cancel(&mut *cell.lock()?, now),
        Machine::Stream(cell, m) => m.cancel(&mut *cell.lock()?, now),
    }
    Ok(())
}

fn poll_timeout(m: &Machine) -> Option<Millis> {
    match m {
        Machine::Card(m) => m.poll_timeout(),
        Machine::Unary(_, m) => m.poll_timeout(),
        Machine::Stream(_, m) => m.poll_timeout(),
    }
}

/// The moment to give the machine an input that happened now: never at or past the
/// deadline it waits for (the I/O kept that deadline itself; the clocks may differ by a
/// rounding).
fn in_time(m: &Machine, clock: &Clock) -> Millis {
    let now = clock.now();
    match poll_timeout(m) {
        Some(d) if now >= d => d.saturating_sub(Millis(1)),
        _ => now,
    }
}

fn aborted(abort: Option<&AbortHandle>) -> bool {
    abort.is_some_and(AbortHandle::is_aborted)
}

/// Runs `c` on `transport` until an event the caller must see is queued (see the module
/// docs and `a2a_call_run`'s); writes the time reached to `now_out`.
pub(crate) fn run(
    c: &mut a2a_call,
    transport: &Client,
    abort: Option<&AbortHandle>,
    now_ms: u64,
    now_out: &mut u64,
) -> a2a_result {
    let clock = Clock {
        start: Instant::now(),
        start_ms: now_ms,
    };
    if let (Some(a), Some((_, body))) = (abort, c.in_flight.body.as_ref()) {
        // A body opened in an earlier run: this run's switch must reach its socket too.
        a.link(&body.abort_handle());
    }
    let code = loop {
        while let Some(e) = machine_event(&mut c.machine) {
            match e.abort_id() {
                Some(id) => c.in_flight.drop_request(id),
                None => c.held.push_back(e),
            }
        }
        if !c.held.is_empty() {
            break a2a_result::A2A_OK;
        }
        let r = if aborted(abort) {
            // Queues FINISHED with the cancel outcome (and an ABORT for the body held).
            cancel(&mut c.machine, clock.now())
        } else {
            step(c, transport, abort, &clock)
        };
        if let Err(code) = r {
            break code;
        }
    };
    *now_out = clock.now().0;
    code
}

/// One turn: performs the request due, or reads once from the open body, or sleeps until
/// the machine's next deadline.
fn step(
    c: &mut a2a_call,
    transport: &Client,
    abort: Option<&AbortHandle>,
    clock: &Clock,
) -> Result<(), a2a_result> {
    let now = clock.now();
    if let Some(t) = next_transmit(c, now)? {
        let times = (t.id, t.connect_by, t.deadline);
        let request = HttpRequest::from(t.request.clone());
        return perform(c, transport, abort, clock, times, &request);
    }
    if c.in_flight.body.is_some() {
        return read(c, abort, clock);
    }
    match poll_timeout(&c.machine) {
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
            handle_timeout(&mut c.machine, clock.now().max(at))
        }
        // An unfinished machine with nothing to send, read or wait for would spin: end the
        // call instead (as the driver does; not reached in practice).
        None => cancel(&mut c.machine, clock.now()),
    }
}

/// Whether a timeout reported at the I/O's end is the machine's own deadline `at` passing.
fn at_deadline(o: &Outcome, clock: &Clock, at: Millis) -> bool {
    o.error == Some(ErrorName::Timeout)
        && Instant::now() + Duration::from_millis(5) >= clock.instant(at)
}

/// Performs request `id` (connected by `connect_by`, over by `deadline`) on the transport
/// and feeds what happened.
fn perform(
    c: &mut a2a_call,
    transport: &Client,
    abort: Option<&AbortHandle>,
    clock: &Clock,
    (id, connect_by, deadline): (RequestId, Millis, Millis),
    request: &HttpRequest,
) -> Result<(), a2a_result> {
    // A fresh handle per request (it records whether this request wrote bytes), reached by
    // the caller's switch.
    let own = AbortHandle::new();
    if let Some(a) = abort {
        a.link(&own);
    }
    // At least a millisecond each: a zero timeout may mean none to the socket layer.
    let budget = clock
        .instant(deadline)
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1));
    let connect = clock
        .instant(connect_by)
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1));
    let total = match &c.machine {
        Machine::Stream(_, m) if !m.is_fetching() => Some(m.total_deadline()),
        _ => None,
    };
    let Some(total) = total else {
        // Read whole: a non-streaming call, a card fetch, a stream's get-task fallback.
        let result = transport.exchange_for_machine(request, budget, connect, &own);
        if aborted(abort) {
            return Ok(());
        }
        let at = in_time(&c.machine, clock);
        return match result {
            Ok(r) => feed(&mut c.machine, id, Input::Whole(r), at),
            // The machine's deadline passed: it says whose (call or total) and aborts.
            Err(o) if at_deadline(&o, clock, deadline) => {
                handle_timeout(&mut c.machine, clock.now().max(deadline))
            }
            Err(o) => feed(&mut c.machine, id, Input::Failure(o), at),
        };
    };
    let opened = transport.open_stream_for_machine(request, budget, connect, &own);
    if aborted(abort) {
        return Ok(());
    }
    let at = in_time(&c.machine, clock);
    match opened {
        // A timeout at the total deadline is that deadline passing: the machine ends the
        // call with the max-time outcome and never resubscribes (as the driver).
        Err(o) if total.is_some_and(|t| at_deadline(&o, clock, t)) => {
            let now = clock.now().max(total.unwrap_or(Millis(0)));
            handle_timeout(&mut c.machine, now)
        }
        Err(o) => feed(&mut c.machine, id, Input::Failure(o), at),
        Ok(Err(whole)) => feed(&mut c.machine, id, Input::Whole(whole), at),
        Ok(Ok(body)) => {
            let headers = body.headers.clone();
            feed(&mut c.machine, id, Input::Head(body.status, headers), at)?;
            c.in_flight.body = Some((id, body));
            Ok(())
        }
    }
}

/// Reads once from the open body, bounded by the machine's next deadline (idle or total),
/// and feeds what came.
fn read(c: &mut a2a_call, abort: Option<&AbortHandle>, clock: &Clock) -> Result<(), a2a_result> {
    let deadline = poll_timeout(&c.machine);
    let Some((id, body)) = c.in_flight.body.as_mut() else {
        return Ok(());
    };
    let id = *id;
    let read = body.read_chunk(deadline.map(|d| clock.instant(d)));
    if aborted(abort) {
        // The loop cancels the call; the ABORT it queues drops the body.
        return Ok(());
    }
    let at = in_time(&c.machine, clock);
    let over = match read {
        // Bytes in any split: the machine's decoder takes them as they come.
        Ok(Some(bytes)) => {
            feed(&mut c.machine, id, Input::Body(bytes), at)?;
            false
        }
        Ok(None) => {
            feed(&mut c.machine, id, Input::End, at)?;
            true
        }
        Err(ReadEnd::Idle) => {
            handle_timeout(
                &mut c.machine,
                clock.now().max(deadline.unwrap_or(Millis(0))),
            )?;
            true
        }
        Err(ReadEnd::Failed(o)) => {
            feed(&mut c.machine, id, Input::Failure(o), at)?;
            true
        }
    };
    if over {
        c.in_flight.body = None;
    }
    Ok(())
}
