//! Waiting for a task to settle over the C ABI: the core's sans-IO planner
//! ([`a2a::client::TaskWait`]) as one handle, `a2a_task_wait`. The host makes each poll as
//! an ordinary `a2a_call` on its `a2a_client_state` (`a2a_task_wait_poll`), drives it as
//! any other call, hands the finished poll's outcome back (`a2a_task_wait_read`) and sleeps
//! until the time the step names. The pacing, the stop rules and the deadline are the
//! core's; a binding only sleeps.

use std::ffi::c_char;

use a2a::client::{TaskWait, WaitConfig, WaitStep};
use a2a::time::Millis;

use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::machine::{a2a_call, a2a_client_state};
use crate::machine_config::a2a_call_settings;
use crate::outcome::a2a_outcome;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::try_str;

/// The plan of waiting for one task (see `ffi/README.md`, *Waiting for a task*): which
/// call to make next (`a2a_task_wait_poll`) and what each finished poll means
/// (`a2a_task_wait_read`).
///
/// Methods: `a2a_task_wait_new`, `a2a_task_wait_poll`, `a2a_task_wait_read`,
/// `a2a_task_wait_free`.
///
/// Threading: `Send`, not thread-safe (a second call while one runs is refused with
/// `A2A_IN_USE`).
pub struct a2a_task_wait {
    plan: TaskWait,
}

impl Handle for a2a_task_wait {}

/// What the host does after a poll (`a2a_wait_step.kind`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_wait_step_kind {
    /// Make the next poll (`a2a_task_wait_poll`) at `poll_at_ms` on the host's clock.
    PollAt = 1,
    /// The wait is over and the poll just read is its result: the task reached a terminal
    /// or interrupted state (input-required, auth-required), or the poll failed in a way
    /// another poll would not change (TaskNotFound, a 4xx, refused credentials).
    Done = 2,
    /// The wait's deadline came first: `outcome` is `transport`/`Timeout` naming the task
    /// and its last state (advice `poll`).
    GaveUp = 3,
}

/// One step of a wait, from `a2a_task_wait_read`. Fields are only ever appended.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_wait_step {
    /// An `a2a_wait_step_kind`.
    pub kind: a2a_wait_step_kind,
    /// `POLL_AT`: when to start the next poll, on the host's clock (the scale of `now_ms`).
    pub poll_at_ms: u64,
    /// `GAVE_UP`: a new outcome OWNED by the caller (free with `a2a_outcome_free`); its
    /// `result_json` is the last poll's answer. NULL for the other kinds.
    pub outcome: *mut a2a_outcome,
}

/// Starts a wait for task `task_id` (UTF-8, copied) at `now_ms` on the host's monotonic
/// clock: each poll is a `GetTask` asking for `history_length` history messages (negative:
/// the agent's default). Pacing, in milliseconds, 0 meaning the default: the first poll
/// goes out at once, the second `first_interval_ms` later (500), each delay 1.5 times the
/// one before up to `max_interval_ms` (5000), no poll after `max_time_ms` from `now_ms`
/// (600000). `out`: receives a new wait the caller owns (free with `a2a_task_wait_free`);
/// written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (empty task
/// id, or `first_interval_ms` above `max_interval_ms` once defaults are applied).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_task_wait_new(
    task_id: *const c_char,
    task_id_len: usize,
    history_length: i32,
    first_interval_ms: u64,
    max_interval_ms: u64,
    max_time_ms: u64,
    now_ms: u64,
    out: *mut *mut a2a_task_wait,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let task_id = try_str!(task_id, task_id_len);
        if task_id.is_empty() {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        let d = WaitConfig::default();
        let or = |ms: u64, default: Millis| if ms == 0 { default } else { Millis(ms) };
        let config = WaitConfig {
            first_interval: or(first_interval_ms, d.first_interval),
            max_interval: or(max_interval_ms, d.max_interval),
            max_time: or(max_time_ms, d.max_time),
        };
        if config.first_interval > config.max_interval {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        let history = (history_length >= 0).then_some(history_length);
        let plan = TaskWait::new(task_id, history, config, Millis(now_ms));
        out.set(handle::into_raw(a2a_task_wait { plan }));
        a2a_result::A2A_OK
    }
}

/// Starts the next poll of `wait` on `state` at `now_ms`: a `GetTask` call (the
/// non-streaming machine: call timeout, retries, breaker and header hooks as any call) with
/// `settings` (NULL: none; copied), its deadline the earlier of the settings' and the
/// wait's. Drive it as any call until its `FINISHED` event, then pass that event's outcome
/// to `a2a_task_wait_read`. `wait` and `settings` are only read. `out`: receives a new call
/// the caller owns (free with `a2a_call_free`; a call keeps `state` alive); written on
/// success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_task_wait_poll(
    wait: *const a2a_task_wait,
    state: *const a2a_client_state,
    settings: *const a2a_call_settings,
    now_ms: u64,
    out: *mut *mut a2a_call,
) -> a2a_result {
    ffi_panic_boundary! {
        let w = try_ref!(wait);
        let out = try_out!(out);
        let deadline = w.plan.deadline();
        let call = crate::machine::start_on_state(state, w.plan.poll_call(), settings, now_ms, |s| {
            s.options.deadline = Some(s.options.deadline.map_or(deadline, |d| d.min(deadline)));
        });
        out.set(handle::into_raw(crate::view::try_input!(call)));
        a2a_result::A2A_OK
    }
}

/// Reads the outcome of a finished poll (`outcome`: the poll's `FINISHED` event's, only
/// read; it may be freed afterwards) at `now_ms` and writes what comes next to `*out` (see
/// `a2a_wait_step`; a `GAVE_UP` step's outcome is the caller's to free). After `DONE` or
/// `GAVE_UP` the wait is over: free it.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_task_wait_read(
    wait: *mut a2a_task_wait,
    outcome: *const a2a_outcome,
    now_ms: u64,
    out: *mut a2a_wait_step,
) -> a2a_result {
    ffi_panic_boundary! {
        let w = try_mut!(wait);
        let o = try_ref!(outcome);
        let out = try_out!(out);
        let mut step = a2a_wait_step {
            kind: a2a_wait_step_kind::Done,
            poll_at_ms: 0,
            outcome: std::ptr::null_mut(),
        };
        match w.plan.read(&o.inner, Millis(now_ms)) {
            WaitStep::PollAt(at) => {
                step.kind = a2a_wait_step_kind::PollAt;
                step.poll_at_ms = at.0;
            }
            WaitStep::Done => {}
            WaitStep::GaveUp(gave_up) => {
                step.kind = a2a_wait_step_kind::GaveUp;
                step.outcome = a2a_outcome::into_raw_with(*gave_up, o.result.clone());
            }
        }
        out.set(step);
        a2a_result::A2A_OK
    }
}

/// Frees a wait. NULL is a no-op; must not be called twice. Calls made by
/// `a2a_task_wait_poll` are the caller's and stay usable.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_task_wait_free(wait: *mut a2a_task_wait) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(wait) }
    }
}
