//! Resilience: the retry policy, the circuit breaker, idempotency key and message id
//! derivation, and the model-facing text of an outcome.
//!
//! Nothing here reads a clock or a random source: `now_ms` is the caller's monotonic clock
//! and jitter comes in as caller-supplied random bits.

use std::ffi::c_char;

use a2a::resilience::{
    BreakerConfig, BreakerState, CallKind, CircuitBreaker, ConfigError, GiveUpReason, IdRule,
    KeyError, MODEL_INSTRUCTION, RetryAction, RetryConfig, RetryPolicy, counts_toward_breaker,
    derive_idempotency_key, derive_message_id, model_prefix, model_text,
};
use a2a::time::Millis;

use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::outcome::a2a_outcome;
use crate::panic::{defaults, ffi_panic_boundary};
use crate::result::a2a_result;
use crate::view::{a2a_bytes, a2a_str, input_bytes, try_input, try_str};

/// What kind of call a retry policy guards.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_call_kind {
    /// A read (get task, get card): always safe to repeat.
    Read = 1,
    /// An operation whose repetition is harmless (cancel).
    Idempotent = 2,
    /// A side-effecting call sent with an idempotency key (safe to repeat with the same key).
    WithIdempotencyKey = 3,
    /// A side-effecting call without a key: never resent when the outcome is unknown.
    SideEffecting = 4,
}

/// What the caller should do after an attempt.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_retry_action_kind {
    /// Not an action: returned only in an `a2a_retry_action` never written.
    Invalid = 0,
    /// The call succeeded or reached a final answer: stop.
    Done = 1,
    /// Resend the same request after `delay_ms` (same messageId and idempotency key).
    RetryAfter = 2,
    /// Resubscribe to `task_id` after `delay_ms` (never resend the message).
    Resubscribe = 3,
    /// Poll `task_id` with get-task after `delay_ms`.
    Poll = 4,
    /// Start a new task after `delay_ms` (new messageId and key); `generation` counts them.
    StartNewTask = 5,
    /// Stop: `give_up` says why.
    GiveUp = 6,
}

/// Why a retry policy gave up.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_give_up_reason {
    /// Not a give-up (the action is not `A2A_RETRY_ACTION_KIND_GIVE_UP`).
    None = 0,
    /// The request cannot succeed as sent.
    NotRetryable = 1,
    /// Credentials are missing or refused.
    Reauthenticate = 2,
    /// Protocol version mismatch.
    FixVersion = 3,
    /// The remote marked the error not retryable.
    RemoteSaysNotRetryable = 4,
    /// Outcome unknown and no idempotency key: not resent.
    UnknownOutcomeWithoutKey = 5,
    /// The task ended and starting a new task is not enabled.
    TaskEnded = 6,
    /// The task ended; no new task without an idempotency key.
    NewTaskWithoutKey = 7,
    /// The circuit breaker is open.
    CircuitOpen = 8,
    /// Retry attempts exhausted.
    AttemptsExhausted = 9,
    /// Resubscribe/poll attempts exhausted.
    FollowUpsExhausted = 10,
    /// New task attempts exhausted.
    NewTasksExhausted = 11,
    /// No time left before the deadline for another attempt.
    DeadlineExhausted = 12,
    /// Retry-After leaves no time before the deadline.
    RetryAfterBeyondDeadline = 13,
    /// Retry-After is longer than the configured maximum.
    RetryAfterTooLong = 14,
    /// The policy had already finished.
    Finished = 15,
    /// A reason newer than this header (see `give_up_text`).
    Other = 99,
}

/// What to do with an id on the next request.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_id_rule {
    /// No next request (done or gave up).
    None = 0,
    /// Send the same value again.
    Keep = 1,
    /// Send a new value.
    New = 2,
    /// The next request does not carry this id.
    NotSent = 3,
}

/// The state of a circuit breaker.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_breaker_state {
    /// Not a state: the zero value, never reported for a breaker.
    Invalid = 0,
    /// Calls pass; failures are counted.
    Closed = 1,
    /// Calls are refused until the cool-down passes.
    Open = 2,
    /// A limited number of trial calls decide whether to close.
    HalfOpen = 3,
}

defaults! {
    a2a_breaker_state => a2a_breaker_state::Invalid,
}

/// The configuration of a retry policy (milliseconds on the caller's clock). Get the
/// defaults with `a2a_retry_config_default`, then change fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_retry_config {
    /// An `a2a_call_kind`.
    pub kind: u32,
    /// Sends of the request, the first included (at least 1).
    pub max_attempts: u32,
    /// Resubscribe and poll calls after the sends.
    pub max_follow_ups: u32,
    /// New tasks the policy may start after a terminal task (0: never).
    pub max_new_tasks: u32,
    /// The backoff ceiling of the first retry.
    pub base_delay_ms: u64,
    /// The cap on any backoff delay.
    pub max_delay_ms: u64,
    /// Whether `Retry-After` is a floor for the delay.
    pub honour_retry_after: bool,
    /// The longest `Retry-After` the policy will wait for.
    pub max_retry_after_ms: u64,
    /// Whether `deadline_ms` applies.
    pub has_deadline: bool,
    /// The overall deadline on the caller's clock.
    pub deadline_ms: u64,
    /// The expected duration of one attempt (a floor for the policy's estimate).
    pub attempt_estimate_ms: u64,
    /// Whether the task can be resubscribed to; when false, resubscribe becomes poll.
    pub streaming: bool,
}

/// The next step of a retry policy, from `a2a_retry_policy_next`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_retry_action {
    /// What to do.
    pub kind: a2a_retry_action_kind,
    /// Whether `delay_ms` applies (every kind but done and give-up).
    pub has_delay: bool,
    /// How long to wait before the next request.
    pub delay_ms: u64,
    /// Resubscribe and poll: the task id. Points into the policy: valid until the next
    /// mutating call on it.
    pub task_id: a2a_str,
    /// Start-new-task: the new task's generation (1 for the first new task).
    pub generation: u32,
    /// Give-up: why.
    pub give_up: a2a_give_up_reason,
    /// Give-up: a static English sentence saying why (absent otherwise).
    pub give_up_text: a2a_str,
    /// What to do with the messageId on the next request.
    pub message_id: a2a_id_rule,
    /// What to do with the idempotency key on the next request.
    pub idempotency_key: a2a_id_rule,
    /// What to do with the JSON-RPC id on the next request.
    pub jsonrpc_id: a2a_id_rule,
}

/// The configuration of a circuit breaker. Get the defaults with
/// `a2a_breaker_config_default`, then change fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_breaker_config {
    /// Open at this many counted failures in the window; 0 disables the count rule.
    pub failure_threshold: u32,
    /// Open at this percentage (1..=100) of counted failures; 0 disables the rate rule.
    pub failure_rate_percent: u8,
    /// The rate rule applies once the window holds this many calls.
    pub min_calls: u32,
    /// The length of the sliding window.
    pub window_ms: u64,
    /// Buckets the window is divided into (1..=1000).
    pub buckets: u16,
    /// How long the breaker stays open before trial calls.
    pub cool_down_ms: u64,
    /// Trial calls in the half-open state; that many successes close it.
    pub half_open_trials: u32,
}

/// A point-in-time view of a breaker, for metrics and logs.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_breaker_snapshot {
    /// The state at `now_ms`.
    pub state: a2a_breaker_state,
    /// Calls recorded in the current window (closed state only).
    pub calls_in_window: u32,
    /// Counted failures in the current window (closed state only).
    pub failures_in_window: u32,
    /// Whether `half_open_at_ms` applies (open state only).
    pub has_half_open_at: bool,
    /// When an open breaker lets trial calls through.
    pub half_open_at_ms: u64,
    /// Trial calls allowed and not yet reported.
    pub trials_in_flight: u32,
    /// Trial calls that succeeded in the current half-open period.
    pub trial_successes: u32,
    /// Times the breaker has opened since it was created.
    pub times_opened: u64,
    /// Calls refused since the breaker was created.
    pub refused: u64,
}

pub(crate) fn config_code(e: &ConfigError) -> a2a_result {
    match e {
        ConfigError::ZeroMaxAttempts => a2a_result::A2A_CONFIG_ZERO_MAX_ATTEMPTS,
        ConfigError::BaseDelayAboveCap => a2a_result::A2A_CONFIG_BASE_DELAY_ABOVE_CAP,
        ConfigError::NoOpeningRule => a2a_result::A2A_CONFIG_NO_OPENING_RULE,
        ConfigError::RateOutOfRange(_) => a2a_result::A2A_CONFIG_RATE_OUT_OF_RANGE,
        ConfigError::ZeroWindow => a2a_result::A2A_CONFIG_ZERO_WINDOW,
        ConfigError::BucketsOutOfRange(_) => a2a_result::A2A_CONFIG_BUCKETS_OUT_OF_RANGE,
        ConfigError::ZeroHalfOpenTrials => a2a_result::A2A_CONFIG_ZERO_HALF_OPEN_TRIALS,
        _ => a2a_result::A2A_CONFIG_INVALID,
    }
}

fn call_kind(n: u32) -> Option<CallKind> {
    Some(match n {
        1 => CallKind::Read,
        2 => CallKind::Idempotent,
        3 => CallKind::WithIdempotencyKey,
        4 => CallKind::SideEffecting,
        _ => return None,
    })
}

fn call_kind_c(k: CallKind) -> u32 {
    (match k {
        CallKind::Read => a2a_call_kind::Read,
        CallKind::Idempotent => a2a_call_kind::Idempotent,
        CallKind::WithIdempotencyKey => a2a_call_kind::WithIdempotencyKey,
        CallKind::SideEffecting => a2a_call_kind::SideEffecting,
    }) as u32
}

fn give_up_c(r: GiveUpReason) -> a2a_give_up_reason {
    match r {
        GiveUpReason::NotRetryable => a2a_give_up_reason::NotRetryable,
        GiveUpReason::Reauthenticate => a2a_give_up_reason::Reauthenticate,
        GiveUpReason::FixVersion => a2a_give_up_reason::FixVersion,
        GiveUpReason::RemoteSaysNotRetryable => a2a_give_up_reason::RemoteSaysNotRetryable,
        GiveUpReason::UnknownOutcomeWithoutKey => a2a_give_up_reason::UnknownOutcomeWithoutKey,
        GiveUpReason::TaskEnded => a2a_give_up_reason::TaskEnded,
        GiveUpReason::NewTaskWithoutKey => a2a_give_up_reason::NewTaskWithoutKey,
        GiveUpReason::CircuitOpen => a2a_give_up_reason::CircuitOpen,
        GiveUpReason::AttemptsExhausted => a2a_give_up_reason::AttemptsExhausted,
        GiveUpReason::FollowUpsExhausted => a2a_give_up_reason::FollowUpsExhausted,
        GiveUpReason::NewTasksExhausted => a2a_give_up_reason::NewTasksExhausted,
        GiveUpReason::DeadlineExhausted => a2a_give_up_reason::DeadlineExhausted,
        GiveUpReason::RetryAfterBeyondDeadline => a2a_give_up_reason::RetryAfterBeyondDeadline,
        GiveUpReason::RetryAfterTooLong => a2a_give_up_reason::RetryAfterTooLong,
        GiveUpReason::Finished => a2a_give_up_reason::Finished,
        _ => a2a_give_up_reason::Other,
    }
}

fn id_rule_c(r: IdRule) -> a2a_id_rule {
    match r {
        IdRule::Keep => a2a_id_rule::Keep,
        IdRule::New => a2a_id_rule::New,
        IdRule::NotSent => a2a_id_rule::NotSent,
    }
}

fn breaker_state_c(s: BreakerState) -> a2a_breaker_state {
    match s {
        BreakerState::Closed => a2a_breaker_state::Closed,
        BreakerState::Open => a2a_breaker_state::Open,
        BreakerState::HalfOpen => a2a_breaker_state::HalfOpen,
    }
}

fn retry_config_c(c: &RetryConfig) -> a2a_retry_config {
    a2a_retry_config {
        kind: call_kind_c(c.kind),
        max_attempts: c.max_attempts,
        max_follow_ups: c.max_follow_ups,
        max_new_tasks: c.max_new_tasks,
        base_delay_ms: c.base_delay.0,
        max_delay_ms: c.max_delay.0,
        honour_retry_after: c.honour_retry_after,
        max_retry_after_ms: c.max_retry_after.0,
        has_deadline: c.deadline.is_some(),
        deadline_ms: c.deadline.map_or(0, |d| d.0),
        attempt_estimate_ms: c.attempt_estimate.0,
        streaming: c.streaming,
    }
}

fn retry_config_core(c: &a2a_retry_config) -> Option<RetryConfig> {
    Some(RetryConfig {
        kind: call_kind(c.kind)?,
        max_attempts: c.max_attempts,
        max_follow_ups: c.max_follow_ups,
        max_new_tasks: c.max_new_tasks,
        base_delay: Millis(c.base_delay_ms),
        max_delay: Millis(c.max_delay_ms),
        honour_retry_after: c.honour_retry_after,
        max_retry_after: Millis(c.max_retry_after_ms),
        deadline: c.has_deadline.then_some(Millis(c.deadline_ms)),
        attempt_estimate: Millis(c.attempt_estimate_ms),
        streaming: c.streaming,
    })
}

pub(crate) fn breaker_config_c(c: &BreakerConfig) -> a2a_breaker_config {
    a2a_breaker_config {
        failure_threshold: c.failure_threshold,
        failure_rate_percent: c.failure_rate_percent,
        min_calls: c.min_calls,
        window_ms: c.window.0,
        buckets: c.buckets,
        cool_down_ms: c.cool_down.0,
        half_open_trials: c.half_open_trials,
    }
}

pub(crate) fn breaker_config_core(c: &a2a_breaker_config) -> BreakerConfig {
    BreakerConfig {
        failure_threshold: c.failure_threshold,
        failure_rate_percent: c.failure_rate_percent,
        min_calls: c.min_calls,
        window: Millis(c.window_ms),
        buckets: c.buckets,
        cool_down: Millis(c.cool_down_ms),
        half_open_trials: c.half_open_trials,
    }
}

/// Writes the default retry configuration (a read; 3 attempts, 10 follow-ups, no new
/// tasks; backoff 200 ms doubling to 10 s; Retry-After honoured up to 60 s; no deadline) to
/// `*out`.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_config_default(out: *mut a2a_retry_config) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(retry_config_c(&RetryConfig::default()));
        a2a_result::A2A_OK
    }
}

/// A retry policy for one logical call. Feed it every attempt's outcome with
/// `a2a_retry_policy_next`; it answers what to do next.
///
/// Methods: `a2a_retry_policy_new`, `a2a_retry_policy_free`,
/// `a2a_retry_policy_begin_attempt`, `a2a_retry_policy_set_task_id`,
/// `a2a_retry_policy_task_id`, `a2a_retry_policy_attempts`, `a2a_retry_policy_follow_ups`,
/// `a2a_retry_policy_new_tasks`, `a2a_retry_policy_estimate`,
/// `a2a_retry_policy_remaining`, `a2a_retry_policy_is_finished`, `a2a_retry_policy_next`.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_retry_policy {
    inner: RetryPolicy,
    /// The task id of the last action (what `a2a_retry_action.task_id` points to).
    action_task: String,
}

impl Handle for a2a_retry_policy {}

/// A retry policy with `*config`, its first attempt starting at `now_ms`. `config` is read
/// during the call only. `out`: a new handle the caller owns (free with
/// `a2a_retry_policy_free`); written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (`kind`), `A2A_CONFIG_*` (a field
/// out of range).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_new(
    config: *const a2a_retry_config,
    now_ms: u64,
    out: *mut *mut a2a_retry_policy,
) -> a2a_result {
    ffi_panic_boundary! {
        let config = try_ref!(config);
        let out = try_out!(out);
        let Some(config) = retry_config_core(config) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        match RetryPolicy::new(config, Millis(now_ms)) {
            Ok(p) => {
                out.set(handle::into_raw(a2a_retry_policy { inner: p, action_task: String::new() }));
                a2a_result::A2A_OK
            }
            Err(e) => config_code(&e),
        }
    }
}

/// Frees a retry policy. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_free(policy: *mut a2a_retry_policy) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(policy) }
    }
}

/// Marks the start of an attempt at `now_ms` (the policy learns how long attempts take).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_begin_attempt(
    policy: *mut a2a_retry_policy,
    now_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        try_mut!(policy).inner.begin_attempt(Millis(now_ms));
        a2a_result::A2A_OK
    }
}

/// Records the task id the call created (for resubscribe and poll). UTF-8, copied.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_set_task_id(
    policy: *mut a2a_retry_policy,
    task_id: *const c_char,
    task_id_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let p = try_mut!(policy);
        let task_id = try_str!(task_id, task_id_len);
        p.inner.set_task_id(task_id);
        a2a_result::A2A_OK
    }
}

/// The task id known to the policy; absent `(NULL, 0)` when none. Valid until the next
/// mutating call on the policy.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_task_id(policy: *const a2a_retry_policy) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(try_ref!(policy).inner.task_id())
    }
}

/// Sends of the request so far (0 when `policy` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_attempts(policy: *const a2a_retry_policy) -> u32 {
    ffi_panic_boundary! {
        try_ref!(policy).inner.attempts()
    }
}

/// Resubscribe and poll calls so far (0 when `policy` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_follow_ups(policy: *const a2a_retry_policy) -> u32 {
    ffi_panic_boundary! {
        try_ref!(policy).inner.follow_ups()
    }
}

/// New tasks started so far (0 when `policy` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_new_tasks(policy: *const a2a_retry_policy) -> u32 {
    ffi_panic_boundary! {
        try_ref!(policy).inner.new_tasks()
    }
}

/// The policy's estimate of one attempt's duration in ms (0 when `policy` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_estimate(policy: *const a2a_retry_policy) -> u64 {
    ffi_panic_boundary! {
        try_ref!(policy).inner.estimate().0
    }
}

/// Time left before the deadline at `now_ms`. Returns true and writes `*out`, or false
/// (leaving it untouched) when there is no deadline or an argument is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_remaining(
    policy: *const a2a_retry_policy,
    now_ms: u64,
    out: *mut u64,
) -> bool {
    ffi_panic_boundary! {
        let out = try_out!(out);
        match try_ref!(policy).inner.remaining(Millis(now_ms)) {
            Some(m) => { out.set(m.0); true }
            None => false,
        }
    }
}

/// Whether the policy has answered done or give-up (false when `policy` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_is_finished(policy: *const a2a_retry_policy) -> bool {
    ffi_panic_boundary! {
        try_ref!(policy).inner.is_finished()
    }
}

/// Feeds the outcome of the attempt that just ended (at `now_ms`) and writes what to do
/// next to `*out`. `random`: caller-supplied random bits for backoff jitter (the library has
/// no random source). `outcome` is read during the call only. `out.task_id` points into the
/// policy: valid until the next mutating call on it.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_policy_next(
    policy: *mut a2a_retry_policy,
    outcome: *const a2a_outcome,
    now_ms: u64,
    random: u64,
    out: *mut a2a_retry_action,
) -> a2a_result {
    ffi_panic_boundary! {
        let p = try_mut!(policy);
        let o = try_ref!(outcome);
        let out = try_out!(out);
        let action = p.inner.next(&o.inner, Millis(now_ms), random);
        let ids = action.ids();
        let delay = action.delay();
        let mut a = a2a_retry_action {
            kind: a2a_retry_action_kind::Done,
            has_delay: delay.is_some(),
            delay_ms: delay.map_or(0, |d| d.0),
            task_id: a2a_str::NONE,
            generation: 0,
            give_up: a2a_give_up_reason::None,
            give_up_text: a2a_str::NONE,
            message_id: ids.map_or(a2a_id_rule::None, |i| id_rule_c(i.message_id)),
            idempotency_key: ids.map_or(a2a_id_rule::None, |i| id_rule_c(i.idempotency_key)),
            jsonrpc_id: ids.map_or(a2a_id_rule::None, |i| id_rule_c(i.jsonrpc_id)),
        };
        p.action_task.clear();
        match action {
            RetryAction::Done => {}
            RetryAction::RetryAfter(_) => a.kind = a2a_retry_action_kind::RetryAfter,
            RetryAction::Resubscribe { task_id, .. } => {
                a.kind = a2a_retry_action_kind::Resubscribe;
                p.action_task = task_id;
            }
            RetryAction::Poll { task_id, .. } => {
                a.kind = a2a_retry_action_kind::Poll;
                p.action_task = task_id;
            }
            RetryAction::StartNewTask { generation, .. } => {
                a.kind = a2a_retry_action_kind::StartNewTask;
                a.generation = generation;
            }
            RetryAction::GiveUp(r) => {
                a.kind = a2a_retry_action_kind::GiveUp;
                a.give_up = give_up_c(r);
                a.give_up_text = a2a_str::from_static(r.as_str());
            }
        }
        if matches!(a.kind, a2a_retry_action_kind::Resubscribe | a2a_retry_action_kind::Poll) {
            a.task_id = a2a_str::from_str(&p.action_task);
        }
        out.set(a);
        a2a_result::A2A_OK
    }
}

/// Writes the default breaker configuration (5 counted failures, or 50% of at least 10
/// calls, within 30 s in 10 buckets open it for 15 s; then 1 trial call decides) to `*out`.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_config_default(out: *mut a2a_breaker_config) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(breaker_config_c(&BreakerConfig::default()));
        a2a_result::A2A_OK
    }
}

/// A circuit breaker for one remote agent.
///
/// Methods: `a2a_breaker_new`, `a2a_breaker_free`, `a2a_breaker_agent`,
/// `a2a_breaker_allow`, `a2a_breaker_refusal`, `a2a_breaker_record`,
/// `a2a_breaker_release`, `a2a_breaker_snapshot_at` (its `state` is the state now),
/// `a2a_breaker_reset`.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_breaker {
    inner: CircuitBreaker,
}

impl Handle for a2a_breaker {}

/// A breaker for `agent` (UTF-8, copied) with `*config` (read during the call only).
/// `out`: a new handle the caller owns (free with `a2a_breaker_free`); written on success.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_CONFIG_*`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_new(
    agent: *const c_char,
    agent_len: usize,
    config: *const a2a_breaker_config,
    out: *mut *mut a2a_breaker,
) -> a2a_result {
    ffi_panic_boundary! {
        let config = try_ref!(config);
        let out = try_out!(out);
        let agent = try_str!(agent, agent_len);
        match CircuitBreaker::new(agent, breaker_config_core(config)) {
            Ok(b) => {
                out.set(handle::into_raw(a2a_breaker { inner: b }));
                a2a_result::A2A_OK
            }
            Err(e) => config_code(&e),
        }
    }
}

/// Frees a breaker. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_free(breaker: *mut a2a_breaker) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(breaker) }
    }
}

/// The agent name given at creation; valid until the breaker is freed. Absent when
/// `breaker` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_agent(breaker: *const a2a_breaker) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_str(try_ref!(breaker).inner.agent())
    }
}

/// Whether a call may go out at `now_ms` (in half-open state this takes a trial permit:
/// report the call with `a2a_breaker_record`, or `a2a_breaker_release` if it was never
/// made). False when `breaker` is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_allow(breaker: *mut a2a_breaker, now_ms: u64) -> bool {
    ffi_panic_boundary! {
        try_mut!(breaker).inner.allow(Millis(now_ms))
    }
}

/// The transport outcome (CircuitOpen, request not sent) to report for a refused call.
/// `out`: a new outcome the caller owns; written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_refusal(
    breaker: *const a2a_breaker,
    now_ms: u64,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_ref!(breaker);
        let out = try_out!(out);
        out.set(a2a_outcome::into_raw(b.inner.refusal(Millis(now_ms))));
        a2a_result::A2A_OK
    }
}

/// Records the outcome of a call that `a2a_breaker_allow` let through (read during the call
/// only).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_record(
    breaker: *mut a2a_breaker,
    outcome: *const a2a_outcome,
    now_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(breaker);
        let o = try_ref!(outcome);
        b.inner.record(&o.inner, Millis(now_ms));
        a2a_result::A2A_OK
    }
}

/// Returns a trial permit taken by `a2a_breaker_allow` for a call that was never made.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_release(breaker: *mut a2a_breaker, now_ms: u64) -> a2a_result {
    ffi_panic_boundary! {
        try_mut!(breaker).inner.release(Millis(now_ms));
        a2a_result::A2A_OK
    }
}

/// Writes a snapshot of the breaker at `now_ms` to `*out`.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_snapshot_at(
    breaker: *const a2a_breaker,
    now_ms: u64,
    out: *mut a2a_breaker_snapshot,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_ref!(breaker);
        let out = try_out!(out);
        let s = b.inner.snapshot(Millis(now_ms));
        out.set(a2a_breaker_snapshot {
            state: breaker_state_c(s.state),
            calls_in_window: s.calls_in_window,
            failures_in_window: s.failures_in_window,
            has_half_open_at: s.half_open_at.is_some(),
            half_open_at_ms: s.half_open_at.map_or(0, |m| m.0),
            trials_in_flight: s.trials_in_flight,
            trial_successes: s.trial_successes,
            times_opened: s.times_opened,
            refused: s.refused,
        });
        a2a_result::A2A_OK
    }
}

/// Closes the breaker and forgets its window (keeps the lifetime counters).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_reset(breaker: *mut a2a_breaker) -> a2a_result {
    ffi_panic_boundary! {
        try_mut!(breaker).inner.reset();
        a2a_result::A2A_OK
    }
}

/// Whether an outcome counts as a failure toward opening a breaker (false when `outcome`
/// is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_counts_toward_breaker(outcome: *const a2a_outcome) -> bool {
    ffi_panic_boundary! {
        counts_toward_breaker(&try_ref!(outcome).inner)
    }
}

/// Reads `n` input parts: an array of `a2a_bytes` (NULL when `n` is 0), each following the
/// `(ptr, len)` input rules.
///
/// # Safety
/// `parts` must point to `n` readable `a2a_bytes` whose views are readable for `'a`.
unsafe fn parts_from<'a>(parts: *const a2a_bytes, n: usize) -> Result<Vec<&'a [u8]>, a2a_result> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if parts.is_null() {
        return Err(a2a_result::A2A_NULL_PARAMETER);
    }
    if n > isize::MAX as usize / std::mem::size_of::<a2a_bytes>() {
        return Err(a2a_result::A2A_INVALID_ARGUMENT);
    }
    // SAFETY: non-NULL, size checked, readability guaranteed by the caller.
    let views = unsafe { std::slice::from_raw_parts(parts, n) };
    views
        .iter()
        // SAFETY: forwarded contract.
        .map(|v| unsafe { input_bytes(v.ptr, v.len) })
        .collect()
}

/// Copies `text` into the caller's buffer. On `A2A_INSUFFICIENT_SIZE`, `*written` is set
/// to the size needed (the one output written on an error, so the caller can retry).
fn copy_out(
    text: &str,
    buf: *mut c_char,
    buf_len: usize,
    written: crate::handle::Out<usize>,
) -> a2a_result {
    if text.len() > buf_len {
        written.set(text.len());
        return a2a_result::A2A_INSUFFICIENT_SIZE;
    }
    if buf.is_null() && !text.is_empty() {
        return a2a_result::A2A_NULL_PARAMETER;
    }
    if !text.is_empty() {
        // SAFETY: buf is non-NULL and holds buf_len >= text.len() writable bytes (header
        // contract); the regions cannot overlap (text is the library's own allocation).
        unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len()) };
    }
    written.set(text.len());
    a2a_result::A2A_OK
}

fn key_code(e: &KeyError) -> a2a_result {
    match e {
        KeyError::EmptyInput => a2a_result::A2A_KEY_EMPTY_INPUT,
        _ => a2a_result::A2A_KEY_INVALID,
    }
}

/// The version 1 idempotency key of the caller's stable inputs (`a2a-ik1-` + 32 lowercase
/// hex digits, 40 bytes): the same parts always give the same key.
///
/// `parts`/`parts_len`: an array of `a2a_bytes` views (read during the call only).
/// `buf`/`buf_len`: the caller's buffer (40 bytes suffice); the key is copied there, not
/// NUL-terminated, and `*written` set to its length. On `A2A_INSUFFICIENT_SIZE` nothing is
/// copied and `*written` is set to the size needed.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_KEY_EMPTY_INPUT` (no part, or all parts empty: every
/// call would share one key), `A2A_INSUFFICIENT_SIZE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_derive_idempotency_key(
    parts: *const a2a_bytes,
    parts_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    written: *mut usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let written = try_out!(written);
        // SAFETY: the header requires `parts` to hold `parts_len` valid views.
        let parts = try_input!(unsafe { parts_from(parts, parts_len) });
        match derive_idempotency_key(&parts) {
            Ok(key) => copy_out(&key, buf, buf_len, written),
            Err(e) => key_code(&e),
        }
    }
}

/// The version 1 messageId of the caller's stable inputs: a lowercase RFC 9562 version 8
/// UUID (36 bytes). Arguments and errors as for `a2a_derive_idempotency_key`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_derive_message_id(
    parts: *const a2a_bytes,
    parts_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    written: *mut usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let written = try_out!(written);
        // SAFETY: the header requires `parts` to hold `parts_len` valid views.
        let parts = try_input!(unsafe { parts_from(parts, parts_len) });
        match derive_message_id(&parts) {
            Ok(id) => copy_out(&id, buf, buf_len, written),
            Err(e) => key_code(&e),
        }
    }
}

/// The one deterministic line the orchestrating model should read for a non-success
/// outcome of a call to `agent` (e.g. `REMOTE_UNKNOWN booking: the request may or may not
/// have been received ...`). `agent` is UTF-8, read during the call only.
///
/// `buf`/`buf_len`/`written`: as for `a2a_derive_idempotency_key` (the line is UTF-8, not
/// NUL-terminated; its length is bounded by the library's part limits).
///
/// Returns `A2A_OK`, or `A2A_NONE` for a success outcome (no line). Errors:
/// `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INSUFFICIENT_SIZE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_model_text(
    agent: *const c_char,
    agent_len: usize,
    outcome: *const a2a_outcome,
    buf: *mut c_char,
    buf_len: usize,
    written: *mut usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let o = try_ref!(outcome);
        let written = try_out!(written);
        let agent = try_str!(agent, agent_len);
        match model_text(agent, &o.inner) {
            Some(line) => copy_out(&line, buf, buf_len, written),
            None => a2a_result::A2A_NONE,
        }
    }
}

/// The static prefix word of the model text for an outcome (`REMOTE_UNKNOWN`, ...); absent
/// `(NULL, 0)` for a success outcome or a NULL `outcome`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_model_prefix(outcome: *const a2a_outcome) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(model_prefix(&try_ref!(outcome).inner))
    }
}

/// The recommended instruction sentence for the orchestrating model (how to read the
/// `REMOTE_` lines of `a2a_model_text`). Static text: valid forever.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_model_instruction() -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_static(MODEL_INSTRUCTION)
    }
}

/// Every give-up reason that has a C number of its own (all but `Other`).
const GIVE_UP_REASONS: [GiveUpReason; 15] = [
    GiveUpReason::NotRetryable,
    GiveUpReason::Reauthenticate,
    GiveUpReason::FixVersion,
    GiveUpReason::RemoteSaysNotRetryable,
    GiveUpReason::UnknownOutcomeWithoutKey,
    GiveUpReason::TaskEnded,
    GiveUpReason::NewTaskWithoutKey,
    GiveUpReason::CircuitOpen,
    GiveUpReason::AttemptsExhausted,
    GiveUpReason::FollowUpsExhausted,
    GiveUpReason::NewTasksExhausted,
    GiveUpReason::DeadlineExhausted,
    GiveUpReason::RetryAfterBeyondDeadline,
    GiveUpReason::RetryAfterTooLong,
    GiveUpReason::Finished,
];

/// The core reason of a C `a2a_give_up_reason` number; `None` for `NONE`, `OTHER` and
/// numbers that are not members.
pub(crate) fn give_up_reason_from_u32(reason: u32) -> Option<GiveUpReason> {
    GIVE_UP_REASONS
        .into_iter()
        .find(|r| give_up_c(*r) as u32 == reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::*;
    use crate::vocab::{a2a_error_name, a2a_request_sent};
    use std::ptr::{null, null_mut};

    fn timeout() -> *mut a2a_outcome {
        let mut o = null_mut();
        assert_eq!(
            a2a_outcome_transport(
                a2a_error_name::Timeout as u32,
                a2a_request_sent::Unknown as u32,
                b"read timeout".as_ptr().cast(),
                12,
                &mut o
            ),
            a2a_result::A2A_OK
        );
        o
    }

    fn blank_action() -> a2a_retry_action {
        a2a_retry_action {
            kind: a2a_retry_action_kind::Invalid,
            has_delay: false,
            delay_ms: 0,
            task_id: a2a_str::NONE,
            generation: 0,
            give_up: a2a_give_up_reason::None,
            give_up_text: a2a_str::NONE,
            message_id: a2a_id_rule::None,
            idempotency_key: a2a_id_rule::None,
            jsonrpc_id: a2a_id_rule::None,
        }
    }

    /// The core's own doc example, driven through the C ABI: a keyed call that times out
    /// three times is retried twice and then given up.
    #[test]
    fn keyed_timeouts_retry_then_give_up() {
        let mut cfg = unsafe { std::mem::zeroed::<a2a_retry_config>() };
        assert_eq!(a2a_retry_config_default(&mut cfg), a2a_result::A2A_OK);
        assert_eq!(cfg.max_attempts, 3);
        cfg.kind = a2a_call_kind::WithIdempotencyKey as u32;
        cfg.has_deadline = true;
        cfg.deadline_ms = 30_000;
        cfg.attempt_estimate_ms = 5_000;
        let mut p = null_mut();
        assert_eq!(a2a_retry_policy_new(&cfg, 0, &mut p), a2a_result::A2A_OK);
        let o = timeout();
        let mut now = 0;
        let mut a = blank_action();
        loop {
            now += 5_000;
            assert_eq!(
                a2a_retry_policy_next(p, o, now, 0x9e37_79b9_7f4a_7c15, &mut a),
                a2a_result::A2A_OK
            );
            if a.kind != a2a_retry_action_kind::RetryAfter {
                break;
            }
            assert!(a.has_delay);
            assert_eq!(a.message_id, a2a_id_rule::Keep);
            assert_eq!(a.idempotency_key, a2a_id_rule::Keep);
            assert_eq!(a.jsonrpc_id, a2a_id_rule::New);
            now += a.delay_ms;
        }
        assert_eq!(a.kind, a2a_retry_action_kind::GiveUp);
        assert_eq!(a2a_retry_policy_attempts(p), 3);
        assert!(a2a_retry_policy_is_finished(p));
        assert_eq!(a.message_id, a2a_id_rule::None);
        let mut buf = [0u8; 512];
        let mut n = 0;
        assert_eq!(
            a2a_model_text(
                b"booking".as_ptr().cast(),
                7,
                o,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut n
            ),
            a2a_result::A2A_OK
        );
        assert!(
            buf[..n].starts_with(
                b"REMOTE_UNKNOWN booking: the request may or may not have been received"
            )
        );
        assert_eq!(
            unsafe { a2a_model_prefix(o).as_str() },
            Some("REMOTE_UNKNOWN")
        );
        a2a_outcome_free(o);
        a2a_retry_policy_free(p);
    }

    #[test]
    fn config_errors_have_codes() {
        let mut cfg = unsafe { std::mem::zeroed::<a2a_retry_config>() };
        a2a_retry_config_default(&mut cfg);
        cfg.max_attempts = 0;
        let mut p = null_mut();
        assert_eq!(
            a2a_retry_policy_new(&cfg, 0, &mut p),
            a2a_result::A2A_CONFIG_ZERO_MAX_ATTEMPTS
        );
        cfg.max_attempts = 1;
        cfg.kind = 0;
        assert_eq!(
            a2a_retry_policy_new(&cfg, 0, &mut p),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        assert!(p.is_null());
        let mut bc = unsafe { std::mem::zeroed::<a2a_breaker_config>() };
        a2a_breaker_config_default(&mut bc);
        bc.buckets = 0;
        let mut b = null_mut();
        assert_eq!(
            a2a_breaker_new(b"a".as_ptr().cast(), 1, &bc, &mut b),
            a2a_result::A2A_CONFIG_BUCKETS_OUT_OF_RANGE
        );
        assert!(b.is_null());
    }

    #[test]
    fn breaker_opens_and_refuses() {
        let mut bc = unsafe { std::mem::zeroed::<a2a_breaker_config>() };
        a2a_breaker_config_default(&mut bc);
        bc.failure_threshold = 2;
        let mut b = null_mut();
        assert_eq!(
            a2a_breaker_new(b"agent".as_ptr().cast(), 5, &bc, &mut b),
            a2a_result::A2A_OK
        );
        let o = timeout();
        assert!(a2a_counts_toward_breaker(o));
        for t in [10, 20] {
            assert!(a2a_breaker_allow(b, t));
            assert_eq!(a2a_breaker_record(b, o, t), a2a_result::A2A_OK);
        }
        let mut snap = unsafe { std::mem::zeroed::<a2a_breaker_snapshot>() };
        assert_eq!(
            a2a_breaker_snapshot_at(b, 30, &mut snap),
            a2a_result::A2A_OK
        );
        assert_eq!(snap.state, a2a_breaker_state::Open);
        assert!(!a2a_breaker_allow(b, 30));
        let mut r = null_mut();
        assert_eq!(a2a_breaker_refusal(b, 30, &mut r), a2a_result::A2A_OK);
        assert_eq!(
            crate::outcome::tests::error_name(r),
            Some(a2a_error_name::CircuitOpen)
        );
        assert_eq!(
            a2a_breaker_snapshot_at(b, 30, &mut snap),
            a2a_result::A2A_OK
        );
        assert_eq!(snap.state, a2a_breaker_state::Open);
        assert_eq!(snap.times_opened, 1);
        assert_eq!(snap.refused, 1);
        assert!(snap.has_half_open_at);
        assert_eq!(unsafe { a2a_breaker_agent(b).as_str() }, Some("agent"));
        assert_eq!(a2a_breaker_reset(b), a2a_result::A2A_OK);
        assert_eq!(
            a2a_breaker_snapshot_at(b, 31, &mut snap),
            a2a_result::A2A_OK
        );
        assert_eq!(snap.state, a2a_breaker_state::Closed);
        assert_eq!(
            a2a_breaker_snapshot_at(null(), 31, &mut snap),
            a2a_result::A2A_NULL_PARAMETER
        );
        a2a_outcome_free(r);
        a2a_outcome_free(o);
        a2a_breaker_free(b);
    }

    #[test]
    fn keys_are_stable_and_buffers_checked() {
        let parts = [
            a2a_bytes::from_slice(b"conversation-42"),
            a2a_bytes::from_slice(b"book"),
        ];
        let mut buf = [0u8; 64];
        let mut n = 0;
        assert_eq!(
            a2a_derive_idempotency_key(parts.as_ptr(), 2, buf.as_mut_ptr().cast(), 64, &mut n),
            a2a_result::A2A_OK
        );
        assert_eq!(n, 40);
        let first = buf[..n].to_vec();
        assert!(first.starts_with(b"a2a-ik1-"));
        assert_eq!(
            a2a_derive_idempotency_key(parts.as_ptr(), 2, buf.as_mut_ptr().cast(), 64, &mut n),
            a2a_result::A2A_OK
        );
        assert_eq!(&buf[..n], &first[..], "same parts, same key");
        let mut small = [0u8; 10];
        let mut need = 0;
        assert_eq!(
            a2a_derive_message_id(parts.as_ptr(), 2, small.as_mut_ptr().cast(), 10, &mut need),
            a2a_result::A2A_INSUFFICIENT_SIZE
        );
        assert_eq!(need, 36);
        assert_eq!(
            a2a_derive_idempotency_key(null(), 0, buf.as_mut_ptr().cast(), 64, &mut n),
            a2a_result::A2A_KEY_EMPTY_INPUT
        );
    }
}
