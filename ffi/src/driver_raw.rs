//! Running client machines on the reference driver's transport (feature `driver`):
//! `a2a_call_run` performs each request a machine call hands out on an `a2a_transport`
//! (`driver.rs`), one foreign call per step (the loop is the driver's, `a2a::driver::run`;
//! `machine_run.rs` runs it on an `a2a_call`), so a binding
//! uses the native transport without driving the machine's inputs itself; `a2a_abort` is
//! the switch another thread triggers to end a blocked run.
//!
//! What the driver guarantees here: connect timeouts, redirects never followed (a 3xx is a
//! response), every status a response (4xx/5xx bodies included), bounded bodies, identity
//! encoding asked on streams, and every wait bounded by the machine's deadlines.
//!
//! Threading: `a2a_abort_trigger` is the only function that may be called while another
//! thread is inside a run with the same switch; it makes a blocked connect, read or sleep
//! return promptly, and the call ends with the cancel outcome.

use a2a::driver::AbortHandle;

use crate::driver::a2a_transport;
use crate::handle::{self, Handle, try_mut, try_out, try_ref, try_shared};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;

/// A thread-safe abort switch for `a2a_call_run`: `a2a_abort_trigger` from any thread ends
/// a blocked run (its connection is shut down) and cancels the call.
///
/// Methods: `a2a_abort_new`, `a2a_abort_trigger`, `a2a_abort_free`.
///
/// Threading: thread-safe (`trigger` may race with itself and with the run it was given
/// to); only `a2a_abort_free` must not race with anything: free it after the runs that
/// were given it have returned.
pub struct a2a_abort {
    inner: AbortHandle,
}

impl Handle for a2a_abort {}

/// A new, untriggered abort switch for one call. `out`: a new handle the caller owns
/// (free with `a2a_abort_free`).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_abort_new(out: *mut *mut a2a_abort) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_abort { inner: AbortHandle::new() }));
        a2a_result::A2A_OK
    }
}

/// Triggers the switch: a run it was given to that is blocked in a read or a sleep in
/// another thread returns promptly and its call ends with the cancel outcome; a run that
/// starts with it cancels at once without sending. During the TCP connect itself the abort
/// takes effect when the connect returns (at the latest at the connect timeout). A switch
/// once triggered stays triggered; triggering twice does nothing. MAY be called from any
/// thread, concurrently with the run. NULL is a no-op.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_abort_trigger(abort: *const a2a_abort) {
    ffi_panic_boundary! {
        let a = try_ref!(abort);
        a.inner.abort();
    }
}

/// Frees an abort switch. NULL is a no-op; must not be called twice, nor while another
/// thread may still trigger it.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_abort_free(abort: *mut a2a_abort) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(abort) }
    }
}

/// Runs client machine `call` over the native transport `transport` until the caller has
/// something to read: performs every request the machine hands out (card fetch, sends,
/// retries, resubscribes, a stream's get-task fallback) with the driver, feeds it the
/// response head, each body chunk as it arrives (a stream's items one by one), the end or
/// the transport failure (with whether request bytes were written), and sleeps until the
/// machine's next deadline when nothing is in flight (a retry's delay), then tells it the
/// time. Returns `A2A_OK` as soon as at least one event is queued for
/// `a2a_call_poll_event`: `ITEM`, `RETRYING`, `RESUBSCRIBING` or `FINISHED`. Drain them,
/// then call it again until the `FINISHED` event; it returns at once while events are
/// queued. One foreign call per step replaces the `poll_transmit` / `handle_*` /
/// `poll_timeout` loop of `ffi/README.md` (*The client machine*).
///
/// - `call`: any machine (`a2a_call_new_card_fetch`, `a2a_call_new`, `a2a_call_new_text`),
///   driven by this function only: do not mix it with `a2a_call_poll_transmit` or the
///   `a2a_call_handle_*` inputs (`a2a_call_poll_event`, `a2a_call_poll_timeout` and
///   `a2a_call_cancel` between runs are fine).
/// - `transport`: a transport from `a2a_transport_new`: its connection pool, TLS roots, client certificate, proxy and DNS
///   rules apply; each request is connected by the machine's `connect_by` or within the
///   transport's connect timeout, whichever is shorter, and is bounded by the machine's
///   deadline only (the transport's call timeout does not apply: the machine's config says
///   how long a call may take); the transport's response body limit applies besides the
///   machine's. Borrowed for the duration of the call; thread-safe, so several calls may run on
///   one transport at once.
/// - `abort`: NULL, or a switch (`a2a_abort_new`) that another thread may trigger with
///   `a2a_abort_trigger` at any time: a run blocked in a connect (at the latest at the
///   connect timeout), a read or a sleep returns promptly and the call is canceled
///   (`a2a_call_cancel`): its `FINISHED` event carries the cancel outcome
///   (`transport`/`Reset`, "canceled by the caller"; `request_sent` `unknown` once a
///   request went out), never a success; a call that had queued its `FINISHED` before the
///   abort keeps it. A switch once triggered stays triggered: a later run with it cancels at
///   once. Borrowed for the duration of the call; the same or another switch may be passed
///   to each run.
/// - `now_ms`: the caller's monotonic clock in ms, on the scale the call was created with
///   (never earlier than the previous run's `*now_out_ms`). The loop continues it with its
///   own monotonic clock; `now_out_ms` (may be NULL) receives the time it returned at on
///   the caller's scale (`now_ms` plus the time spent), written whenever the run started:
///   on `A2A_OK`, and on `A2A_PANIC` from a state an earlier panic poisoned.
///
/// Deadlines: every wait is bounded by a deadline the machine gave (the request's deadline
/// for a connect, send and whole response or a stream's head; a stream's idle or total
/// deadline for each read; a retry's delay for a sleep), so a run never blocks past them
/// and never spins. `ABORT` events are acted on here (the request's connection is closed)
/// and are never handed to the caller. A stream's open response stays in `call` between
/// runs (`a2a_call_free` closes it; so does an `a2a_call_cancel` whose `ABORT` the caller
/// then polls). BLOCKS the calling thread.
///
/// Threading: `call` as every `a2a_call` function (a second function on it meanwhile gets
/// `A2A_IN_USE`; `a2a_call_free` waits for the run: trigger `abort` first to end it
/// promptly).
///
/// Errors: `A2A_NULL_PARAMETER` (`call` or `transport` NULL), `A2A_CALL_FINISHED` (the
/// `FINISHED` event was already polled), `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_run(
    call: *mut crate::machine::a2a_call,
    transport: *const a2a_transport,
    abort: *const a2a_abort,
    now_ms: u64,
    now_out_ms: *mut u64,
) -> a2a_result {
    ffi_panic_boundary! {
        if transport.is_null() {
            return a2a_result::A2A_NULL_PARAMETER;
        }
        let c = try_mut!(call);
        let t = try_shared!(transport);
        if c.finished {
            return a2a_result::A2A_CALL_FINISHED;
        }
        // SAFETY: the header requires `abort` to be NULL or a live abort switch.
        let abort = (!abort.is_null()).then(|| &unsafe { &*abort }.inner);
        let mut now = now_ms;
        let code = crate::machine_run::run(c, &t.inner, abort, now_ms, &mut now);
        if !now_out_ms.is_null() {
            // SAFETY: non-NULL; the header requires a writable u64.
            unsafe { now_out_ms.write(now) };
        }
        code
    }
}
