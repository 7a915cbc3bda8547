//! `a2a_call_run`'s machine (feature `driver`): an `a2a_call` as the reference driver's
//! loop ([`a2a::driver::run()`]) drives it, so a binding runs any call natively with one
//! foreign call per step. The loop is the driver's own (its calls, streams and card
//! resolution run on it); here are only the call's side of it: the requests handed out
//! through the call's own bookkeeping (`issue_transmit`: the card cache, the ids issued),
//! the inputs given to whichever machine the call holds under its state's lock, and the
//! events kept for `a2a_call_poll_event`.

use a2a::client::{CardEvent, Event, RequestId, StreamEvent, Transmit};
use a2a::driver::{AbortHandle, Client, EventRole, Exchange, Input, RunMachine};
use a2a::time::Millis;

use crate::machine::{AnyEvent, Machine, a2a_call, issue_transmit, machine_event};
use crate::result::a2a_result;

/// The call a run drives (its open body and held events are the run's own meanwhile), and
/// the transport it runs on (whose rebinding check a card fetch arms).
struct Run<'a>(&'a mut a2a_call, &'a Client);

impl RunMachine for Run<'_> {
    type Event = AnyEvent;
    type Error = a2a_result;

    fn poll_transmit(&mut self, now: Millis) -> Result<Option<Transmit>, a2a_result> {
        let t = issue_transmit(self.0, now)?;
        if let (Some(t), Machine::Card(_)) = (&t, &self.0.machine)
            && self.0.rebinding_armed.is_none()
        {
            // The card host's answers decide whether its interface host is checked (DNS
            // rebinding, `a2a::driver`'s `dns`): recorded from the fetch's first request.
            self.1.begin_rebinding_check(&t.request.url);
            self.0.rebinding_armed = Some(t.request.url.clone());
        }
        Ok(t)
    }

    fn exchange(&self) -> Exchange {
        match &self.0.machine {
            Machine::Stream(_, m) if !m.is_fetching() => Exchange::Stream {
                total: m.total_deadline(),
            },
            _ => Exchange::Whole,
        }
    }

    fn handle(&mut self, id: RequestId, input: Input<'_>, now: Millis) -> Result<(), a2a_result> {
        // The request is the one in flight: the machine cannot refuse it, so its answer is
        // ignored (as the driver does).
        let _ = match &mut self.0.machine {
            Machine::Card(m) => input.to_card(m, id, now),
            Machine::Unary(cell, m) => input.to_unary(m, &mut *cell.lock()?, id, now),
            Machine::Stream(cell, m) => input.to_stream(m, &mut *cell.lock()?, id, now),
        };
        Ok(())
    }

    fn handle_timeout(&mut self, now: Millis) -> Result<(), a2a_result> {
        match &mut self.0.machine {
            Machine::Card(m) => m.handle_timeout(now),
            Machine::Unary(cell, m) => m.handle_timeout(&mut *cell.lock()?, now),
            Machine::Stream(cell, m) => m.handle_timeout(&mut *cell.lock()?, now),
        }
        Ok(())
    }

    fn cancel(&mut self, now: Millis) -> Result<(), a2a_result> {
        match &mut self.0.machine {
            Machine::Card(m) => m.cancel(now),
            Machine::Unary(cell, m) => m.cancel(&mut *cell.lock()?, now),
            Machine::Stream(cell, m) => m.cancel(&mut *cell.lock()?, now),
        }
        Ok(())
    }

    fn poll_timeout(&self) -> Option<Millis> {
        match &self.0.machine {
            Machine::Card(m) => m.poll_timeout(),
            Machine::Unary(_, m) => m.poll_timeout(),
            Machine::Stream(_, m) => m.poll_timeout(),
        }
    }

    fn poll_event(&mut self) -> Option<AnyEvent> {
        let ev = machine_event(&mut self.0.machine);
        if let Some(AnyEvent::Card(CardEvent::Resolved(r))) = &ev {
            let armed = self.0.rebinding_armed.take();
            match (r.as_ref(), armed) {
                (Ok(resolved), armed) => {
                    // A card served fresh from the cache made no request: what its host's
                    // lookup found when it was fetched (kept beside it) stands in.
                    let sent = armed.is_some();
                    let cached_internal = !sent
                        && self.0.card_cache.as_ref().is_some_and(|c| {
                            c.lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .host_internal(&resolved.card_url)
                        });
                    self.0.card_host_internal =
                        self.1
                            .finish_rebinding_check(resolved, sent, cached_internal);
                }
                (Err(_), Some(url)) => self.1.abandon_rebinding_check(&url),
                (Err(_), None) => {}
            }
        }
        ev
    }

    fn role(event: &AnyEvent) -> EventRole {
        if let Some(id) = event.abort_id() {
            return EventRole::Abort(id);
        }
        match event {
            AnyEvent::Card(CardEvent::Resolved(_))
            | AnyEvent::Unary(Event::Finished(_))
            | AnyEvent::Stream(StreamEvent::Finished(_)) => EventRole::Finished,
            _ => EventRole::Other,
        }
    }
}

/// Runs `c` on `transport` until an event the caller must see is held (see
/// `a2a_call_run`'s docs); writes the time reached to `now_out`.
pub(crate) fn run(
    c: &mut a2a_call,
    transport: &Client,
    abort: Option<&AbortHandle>,
    now_ms: u64,
    now_out: &mut u64,
) -> a2a_result {
    // The loop keeps the open body and the events apart from the machine it drives.
    let mut flight = c.in_flight.take().unwrap_or_default();
    let mut held = std::mem::take(&mut c.held);
    let mut now = Millis(now_ms);
    let r = a2a::driver::run(
        &mut Run(c, transport),
        &mut flight,
        &mut held,
        transport,
        abort,
        &mut now,
    );
    c.in_flight = Some(flight);
    c.held = held;
    *now_out = now.0;
    match r {
        Ok(()) => a2a_result::A2A_OK,
        Err(code) => code,
    }
}
