//! The retry policy: fed each attempt's outcome, it says what to do next (sans-IO).
//!
//! Call order:
//! 1. At the start of the first attempt: [`RetryPolicy::new`]`(config, now)`.
//! 2. After each attempt (a send, a resubscribe or a poll):
//!    [`RetryPolicy::next`]`(&outcome, now, random)` with fresh random bits (any `u64`; the
//!    policy uses them only for jitter). Act on the [`RetryAction`]; for actions with a delay,
//!    start the next attempt `delay` after `now` (optionally tell the policy when it really
//!    started with [`RetryPolicy::begin_attempt`]).
//! 3. Stop at [`RetryAction::Done`] or [`RetryAction::GiveUp`]. After that, `next` always
//!    answers `GiveUp(Finished)`.
//!
//! # What the caller keeps and changes
//! [`RetryAction::ids`] says it per action:
//!
//! | action | messageId | `Idempotency-Key` | JSON-RPC id | what is sent |
//! |---|---|---|---|---|
//! | `RetryAfter(delay)` | keep | keep | new | the same message again |
//! | `Resubscribe { task_id }` | not sent | not sent | new | resubscribe to `task_id` (stream) |
//! | `Poll { task_id }` | not sent | not sent | new | get-task for `task_id` |
//! | `StartNewTask { generation }` | new | new | new | the message again, without the ended task's id (same contextId) |
//!
//! A resend keeps the messageId and the key so that the server can recognise the repeat; the
//! JSON-RPC id is per HTTP request and must be new, or an answer to the first attempt could be
//! taken for an answer to the second. A new task is a new operation: derive the new messageId
//! and key by appending `generation` as one more part (see [`super::idempotency`]), because the
//! server would otherwise answer the new task with the failed one; and leave out the ended
//! task's id, because a terminal task accepts no more messages (A2A 1.0 §3.1.1 answers
//! `UnsupportedOperationError`; the Python SDK answers `InvalidParams`).
//!
//! # From advice to action
//!
//! | `outcome.retry` | action |
//! |---|---|
//! | `none` | `Done` (success, or an interrupted task waiting for the caller: check `outcome`) |
//! | `never` | `GiveUp(NotRetryable)` |
//! | `reauthenticate` | `GiveUp(Reauthenticate)` |
//! | `fix_version` | `GiveUp(FixVersion)` |
//! | `backoff` | `RetryAfter`; `GiveUp(CircuitOpen)` for the breaker's own refusal; `GiveUp(RemoteSaysNotRetryable)` when the remote's hint says `retryable=false` |
//! | `unknown_outcome` | `RetryAfter` when [`CallKind::may_repeat`]; otherwise `GiveUp(UnknownOutcomeWithoutKey)`, whose text is exactly "outcome unknown; not retried without an idempotency key" |
//! | `resubscribe` | `Resubscribe` (or `Poll` when `config.streaming` is false); without a task id, as `unknown_outcome` |
//! | `poll` | `Poll`; without a task id, as `unknown_outcome` |
//!
//! The task id is the outcome's, or else the last one the policy saw in an earlier outcome of
//! this call, or else the one the caller gave with [`RetryPolicy::set_task_id`] (a caller that
//! polls or resubscribes to a known task should set it: an error in that call's response, such
//! as a stream that fails after its snapshot, may not repeat the id). Starting a new task
//! forgets it.
//! | `new_task` | `StartNewTask` when `config.max_new_tasks` allows and [`CallKind::may_repeat`]; otherwise `GiveUp(TaskEnded)` or `GiveUp(NewTaskWithoutKey)` |
//!
//! Every action with a delay is then checked against the limits, in this order: the attempt
//! counters (`max_attempts` for sends, new tasks included; `max_follow_ups` for resubscribe and
//! poll; `max_new_tasks`), `Retry-After` against `max_retry_after`, and the deadline.
//!
//! # Delays
//! Exponential backoff with full jitter: the `n`-th retry of a kind (n = 0, 1, ...) waits a
//! uniformly drawn `delay` in `[0, min(max_delay, base_delay * 2^n)]`, drawn from the caller's
//! random bits as `(random * (ceiling + 1)) >> 64`. Resends and follow-ups have separate `n`.
//! When `honour_retry_after` is set and the outcome carries `Retry-After`, that is a floor:
//! `delay = max(Retry-After, jittered backoff)`; a `Retry-After` above `max_retry_after` gives
//! up instead of waiting. So without `Retry-After` a delay never exceeds `max_delay`.
//!
//! # The deadline
//! `config.deadline` is the caller's overall budget, on the caller's clock. A delayed action is
//! scheduled only when `now + delay + estimate <= deadline`, where `estimate` is the largest of
//! 1 ms, `config.attempt_estimate` and the longest attempt observed so far (from
//! [`RetryPolicy::new`] or the scheduled start to the next call of `next`). The jitter ceiling
//! is shrunk to fit; when even a zero delay (or `Retry-After`) does not fit, the policy gives up
//! with `DeadlineExhausted` (or `RetryAfterBeyondDeadline`). The guarantee is only as good as
//! the estimate: a caller that knows its per-attempt timeout should pass it as
//! `attempt_estimate` (and cap each attempt's own timeout at [`RetryPolicy::remaining`]);
//! otherwise the policy learns from the attempts it has seen, which can be short (a refused
//! connection) before a long one (a timeout).

use super::ConfigError;
use crate::outcome::{ErrorName, Outcome, RetryAdvice};
use crate::time::Millis;

/// Whether repeating a call is safe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallKind {
    /// A read (get task, agent card, resubscribe): repeating it has no effect.
    Read,
    /// A side-effecting call the caller marked idempotent (repeating it has no further effect).
    Idempotent,
    /// A side-effecting call sent with an `Idempotency-Key` and a stable messageId.
    WithIdempotencyKey,
    /// A side-effecting call with no protection against a second execution.
    SideEffecting,
}

impl CallKind {
    /// Whether the call may be repeated when its outcome is unknown: all but
    /// [`CallKind::SideEffecting`].
    pub fn may_repeat(self) -> bool {
        !matches!(self, CallKind::SideEffecting)
    }

    /// `"read"`, `"idempotent"`, `"with_idempotency_key"` or `"side_effecting"`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallKind::Read => "read",
            CallKind::Idempotent => "idempotent",
            CallKind::WithIdempotencyKey => "with_idempotency_key",
            CallKind::SideEffecting => "side_effecting",
        }
    }

    /// Parses a word written by [`CallKind::as_str`].
    pub fn parse(text: &str) -> Option<CallKind> {
        Some(match text {
            "read" => CallKind::Read,
            "idempotent" => CallKind::Idempotent,
            "with_idempotency_key" => CallKind::WithIdempotencyKey,
            "side_effecting" => CallKind::SideEffecting,
            _ => return None,
        })
    }
}

/// The configuration of a [`RetryPolicy`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryConfig {
    /// What kind of call this is.
    pub kind: CallKind,
    /// Sends of the request, the first included (at least 1; 1 means never resend).
    pub max_attempts: u32,
    /// Resubscribe and poll calls after the sends.
    pub max_follow_ups: u32,
    /// New tasks the policy may start after a terminal task (0: never).
    pub max_new_tasks: u32,
    /// The backoff ceiling of the first retry.
    pub base_delay: Millis,
    /// The cap on any backoff delay.
    pub max_delay: Millis,
    /// Whether `Retry-After` is a floor for the delay.
    pub honour_retry_after: bool,
    /// The longest `Retry-After` the policy will wait for; longer ones give up.
    pub max_retry_after: Millis,
    /// The overall deadline on the caller's clock, if any.
    pub deadline: Option<Millis>,
    /// The expected duration of one attempt (a floor for the policy's estimate).
    pub attempt_estimate: Millis,
    /// Whether the task can be resubscribed to (a streaming call to an agent that streams);
    /// when false, `resubscribe` advice becomes `Poll`.
    pub streaming: bool,
}

impl Default for RetryConfig {
    /// A read; 3 attempts, 10 follow-ups, no new tasks; backoff 200 ms doubling to a 10 s cap;
    /// `Retry-After` honoured up to 60 s; no deadline; the estimate learnt from attempts.
    fn default() -> Self {
        RetryConfig {
            kind: CallKind::Read,
            max_attempts: 3,
            max_follow_ups: 10,
            max_new_tasks: 0,
            base_delay: Millis(200),
            max_delay: Millis(10_000),
            honour_retry_after: true,
            max_retry_after: Millis(60_000),
            deadline: None,
            attempt_estimate: Millis(0),
            streaming: true,
        }
    }
}

impl RetryConfig {
    /// Checks the configuration.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first field that is out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_attempts == 0 {
            return Err(ConfigError::ZeroMaxAttempts);
        }
        if self.base_delay > self.max_delay {
            return Err(ConfigError::BaseDelayAboveCap);
        }
        Ok(())
    }
}

/// Why the policy stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GiveUpReason {
    /// Advice `never`: the request is wrong; retrying cannot help.
    NotRetryable,
    /// Advice `reauthenticate`.
    Reauthenticate,
    /// Advice `fix_version`.
    FixVersion,
    /// The remote's own hint says `retryable=false`.
    RemoteSaysNotRetryable,
    /// The outcome is unknown and the call is side-effecting without an idempotency key.
    UnknownOutcomeWithoutKey,
    /// The task ended and `max_new_tasks` is 0.
    TaskEnded,
    /// The task ended; a new side-effecting task is not started without an idempotency key.
    NewTaskWithoutKey,
    /// The local circuit breaker refused the call.
    CircuitOpen,
    /// `max_attempts` sends were made.
    AttemptsExhausted,
    /// `max_follow_ups` resubscribe/poll calls were made.
    FollowUpsExhausted,
    /// `max_new_tasks` new tasks were started.
    NewTasksExhausted,
    /// Another attempt could not finish before the deadline.
    DeadlineExhausted,
    /// `Retry-After` asks for a wait that leaves no time before the deadline.
    RetryAfterBeyondDeadline,
    /// `Retry-After` is longer than `max_retry_after`.
    RetryAfterTooLong,
    /// `next` was called after the policy had finished.
    Finished,
}

impl GiveUpReason {
    /// A fixed one-line explanation.
    pub fn as_str(self) -> &'static str {
        match self {
            GiveUpReason::NotRetryable => "the request cannot succeed as sent; not retried",
            GiveUpReason::Reauthenticate => {
                "credentials are missing or refused; reauthenticate before retrying"
            }
            GiveUpReason::FixVersion => "protocol version mismatch; not retried",
            GiveUpReason::RemoteSaysNotRetryable => "the remote marked the error not retryable",
            GiveUpReason::UnknownOutcomeWithoutKey => {
                "outcome unknown; not retried without an idempotency key"
            }
            GiveUpReason::TaskEnded => "the task ended; starting a new task is not enabled",
            GiveUpReason::NewTaskWithoutKey => {
                "the task ended; a new task is not started without an idempotency key"
            }
            GiveUpReason::CircuitOpen => "circuit breaker open; not retried",
            GiveUpReason::AttemptsExhausted => "retry attempts exhausted",
            GiveUpReason::FollowUpsExhausted => "resubscribe/poll attempts exhausted",
            GiveUpReason::NewTasksExhausted => "new task attempts exhausted",
            GiveUpReason::DeadlineExhausted => {
                "no time left before the deadline for another attempt"
            }
            GiveUpReason::RetryAfterBeyondDeadline => {
                "Retry-After leaves no time before the deadline"
            }
            GiveUpReason::RetryAfterTooLong => "Retry-After is longer than the configured maximum",
            GiveUpReason::Finished => "the retry policy had already finished",
        }
    }

    /// A stable snake_case code (for JSON, metrics and the C ABI).
    pub fn code(self) -> &'static str {
        match self {
            GiveUpReason::NotRetryable => "not_retryable",
            GiveUpReason::Reauthenticate => "reauthenticate",
            GiveUpReason::FixVersion => "fix_version",
            GiveUpReason::RemoteSaysNotRetryable => "remote_not_retryable",
            GiveUpReason::UnknownOutcomeWithoutKey => "unknown_outcome_without_key",
            GiveUpReason::TaskEnded => "task_ended",
            GiveUpReason::NewTaskWithoutKey => "new_task_without_key",
            GiveUpReason::CircuitOpen => "circuit_open",
            GiveUpReason::AttemptsExhausted => "attempts_exhausted",
            GiveUpReason::FollowUpsExhausted => "follow_ups_exhausted",
            GiveUpReason::NewTasksExhausted => "new_tasks_exhausted",
            GiveUpReason::DeadlineExhausted => "deadline_exhausted",
            GiveUpReason::RetryAfterBeyondDeadline => "retry_after_beyond_deadline",
            GiveUpReason::RetryAfterTooLong => "retry_after_too_long",
            GiveUpReason::Finished => "finished",
        }
    }
}

impl std::fmt::Display for GiveUpReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the caller does with an id on the next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdRule {
    /// Send the same value as the previous attempt.
    Keep,
    /// Send a new value.
    New,
    /// The next request does not carry it.
    NotSent,
}

impl IdRule {
    /// `"keep"`, `"new"` or `"not_sent"`.
    pub fn as_str(self) -> &'static str {
        match self {
            IdRule::Keep => "keep",
            IdRule::New => "new",
            IdRule::NotSent => "not_sent",
        }
    }
}

/// The ids of the next request, per [`RetryAction`] (see the table in the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NextIds {
    /// The A2A `messageId`.
    pub message_id: IdRule,
    /// The `Idempotency-Key` header.
    pub idempotency_key: IdRule,
    /// The JSON-RPC `id` (always new).
    pub jsonrpc_id: IdRule,
}

/// The next step, from [`RetryPolicy::next`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryAction {
    /// Nothing more to do: hand the outcome on (it is a success, or a task waiting for input).
    Done,
    /// Send the same message again after the delay: same messageId and `Idempotency-Key`, a new
    /// JSON-RPC id.
    RetryAfter(Millis),
    /// Resubscribe to the task after `delay`; do not resend the message.
    Resubscribe {
        /// The task to resubscribe to.
        task_id: String,
        /// How long to wait first.
        delay: Millis,
    },
    /// Get the task after `delay`; do not resend the message.
    Poll {
        /// The task to poll.
        task_id: String,
        /// How long to wait first.
        delay: Millis,
    },
    /// Send the message again as a new task after `delay`: new messageId and key (derived with
    /// `generation` as an extra part), no task id, a new JSON-RPC id.
    StartNewTask {
        /// How long to wait first.
        delay: Millis,
        /// 1 for the first new task, 2 for the second, ...
        generation: u32,
    },
    /// Stop and hand the outcome on.
    GiveUp(GiveUpReason),
}

impl RetryAction {
    /// The delay before the next request, for actions that make one.
    pub fn delay(&self) -> Option<Millis> {
        match self {
            RetryAction::RetryAfter(d) => Some(*d),
            RetryAction::Resubscribe { delay, .. }
            | RetryAction::Poll { delay, .. }
            | RetryAction::StartNewTask { delay, .. } => Some(*delay),
            RetryAction::Done | RetryAction::GiveUp(_) => None,
        }
    }

    /// Which ids the next request keeps or changes; `None` when there is no next request.
    pub fn ids(&self) -> Option<NextIds> {
        let (message_id, idempotency_key) = match self {
            RetryAction::RetryAfter(_) => (IdRule::Keep, IdRule::Keep),
            RetryAction::Resubscribe { .. } | RetryAction::Poll { .. } => {
                (IdRule::NotSent, IdRule::NotSent)
            }
            RetryAction::StartNewTask { .. } => (IdRule::New, IdRule::New),
            RetryAction::Done | RetryAction::GiveUp(_) => return None,
        };
        Some(NextIds {
            message_id,
            idempotency_key,
            jsonrpc_id: IdRule::New,
        })
    }

    /// `"done"`, `"retry_after"`, `"resubscribe"`, `"poll"`, `"start_new_task"` or `"give_up"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            RetryAction::Done => "done",
            RetryAction::RetryAfter(_) => "retry_after",
            RetryAction::Resubscribe { .. } => "resubscribe",
            RetryAction::Poll { .. } => "poll",
            RetryAction::StartNewTask { .. } => "start_new_task",
            RetryAction::GiveUp(_) => "give_up",
        }
    }
}

/// The kind of the next request, for counting and backoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Resend,
    FollowUp,
    NewTask,
}

/// A retry policy for one logical call. See the module docs.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    config: RetryConfig,
    /// Sends made so far, the first included.
    sends: u32,
    follow_ups: u32,
    new_tasks: u32,
    /// Resends since the last new task (the backoff exponent for resends).
    resends: u32,
    /// When the current attempt started (or was scheduled to start).
    attempt_started: Millis,
    longest_attempt: Millis,
    finished: bool,
    /// The task this call is about, when known (see the module docs).
    task_id: Option<String>,
}

impl RetryPolicy {
    /// A policy for a call whose first attempt starts at `now`.
    ///
    /// # Errors
    /// The [`ConfigError`] of [`RetryConfig::validate`].
    pub fn new(config: RetryConfig, now: Millis) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(RetryPolicy {
            config,
            sends: 1,
            follow_ups: 0,
            new_tasks: 0,
            resends: 0,
            attempt_started: now,
            longest_attempt: Millis::ZERO,
            finished: false,
            task_id: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &RetryConfig {
        &self.config
    }

    /// Tells the policy that the next attempt really started at `now` (optional; by default
    /// it assumes the attempt started when the last action's delay ended).
    pub fn begin_attempt(&mut self, now: Millis) {
        self.attempt_started = now;
    }

    /// Tells the policy which task this call is about (for example the task a get-task or a
    /// resubscribe call names), for outcomes that do not carry the id themselves.
    pub fn set_task_id(&mut self, task_id: impl Into<String>) {
        let id = task_id.into();
        self.task_id = (!id.is_empty()).then_some(id);
    }

    /// The task id the policy will poll or resubscribe to, when known.
    pub fn task_id(&self) -> Option<&str> {
        self.task_id.as_deref()
    }

    /// Sends made so far, the first included.
    pub fn attempts(&self) -> u32 {
        self.sends
    }

    /// Resubscribe and poll calls scheduled so far.
    pub fn follow_ups(&self) -> u32 {
        self.follow_ups
    }

    /// New tasks scheduled so far.
    pub fn new_tasks(&self) -> u32 {
        self.new_tasks
    }

    /// The policy's current estimate of one attempt's duration: the larger of
    /// `config.attempt_estimate`, the longest attempt observed, and 1 ms.
    pub fn estimate(&self) -> Millis {
        self.config
            .attempt_estimate
            .max(self.longest_attempt)
            .max(Millis(1))
    }

    /// Time left before the deadline at `now` (`None` without a deadline): a caller should
    /// not let an attempt run longer than this.
    pub fn remaining(&self, now: Millis) -> Option<Millis> {
        self.config.deadline.map(|d| d.saturating_sub(now))
    }

    /// Whether `next` has answered `Done` or `GiveUp`.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The next step after an attempt that ended at `now` with `outcome`; `random` supplies the
    /// jitter (any value; use fresh random bits each call).
    pub fn next(&mut self, outcome: &Outcome, now: Millis, random: u64) -> RetryAction {
        if self.finished {
            return RetryAction::GiveUp(GiveUpReason::Finished);
        }
        self.longest_attempt = self
            .longest_attempt
            .max(now.saturating_sub(self.attempt_started));
        if let Some(id) = outcome.task_id.as_deref().filter(|t| !t.is_empty())
            && self.task_id.as_deref() != Some(id)
        {
            self.task_id = Some(id.to_owned());
        }
        let action = self.decide(outcome, now, random);
        match &action {
            RetryAction::Done | RetryAction::GiveUp(_) => self.finished = true,
            RetryAction::StartNewTask { delay, .. } => {
                self.task_id = None;
                self.attempt_started = now.saturating_add(*delay);
            }
            _ => {
                let delay = action.delay().unwrap_or(Millis::ZERO);
                self.attempt_started = now.saturating_add(delay);
            }
        }
        action
    }

    fn decide(&mut self, outcome: &Outcome, now: Millis, random: u64) -> RetryAction {
        let task_id = self.task_id.clone();
        match outcome.retry {
            RetryAdvice::None => RetryAction::Done,
            RetryAdvice::Never => RetryAction::GiveUp(GiveUpReason::NotRetryable),
            RetryAdvice::Reauthenticate => RetryAction::GiveUp(GiveUpReason::Reauthenticate),
            RetryAdvice::FixVersion => RetryAction::GiveUp(GiveUpReason::FixVersion),
            RetryAdvice::Backoff => {
                if outcome.error == Some(ErrorName::CircuitOpen) {
                    return RetryAction::GiveUp(GiveUpReason::CircuitOpen);
                }
                if outcome.remote_hint.as_ref().and_then(|h| h.retryable) == Some(false) {
                    return RetryAction::GiveUp(GiveUpReason::RemoteSaysNotRetryable);
                }
                self.schedule(Step::Resend, outcome, now, random)
            }
            RetryAdvice::UnknownOutcome => self.resend_unknown(outcome, now, random),
            RetryAdvice::Resubscribe | RetryAdvice::Poll => match task_id {
                Some(id) => {
                    let resubscribe =
                        outcome.retry == RetryAdvice::Resubscribe && self.config.streaming;
                    match self.schedule(Step::FollowUp, outcome, now, random) {
                        RetryAction::RetryAfter(delay) if resubscribe => {
                            RetryAction::Resubscribe { task_id: id, delay }
                        }
                        RetryAction::RetryAfter(delay) => RetryAction::Poll { task_id: id, delay },
                        other => other,
                    }
                }
                // No task id came back: the message may or may not have created a task.
                None => self.resend_unknown(outcome, now, random),
            },
            RetryAdvice::NewTask => {
                if self.config.max_new_tasks == 0 {
                    return RetryAction::GiveUp(GiveUpReason::TaskEnded);
                }
                if !self.config.kind.may_repeat() {
                    return RetryAction::GiveUp(GiveUpReason::NewTaskWithoutKey);
                }
                match self.schedule(Step::NewTask, outcome, now, random) {
                    RetryAction::RetryAfter(delay) => RetryAction::StartNewTask {
                        delay,
                        generation: self.new_tasks,
                    },
                    other => other,
                }
            }
        }
    }

    fn resend_unknown(&mut self, outcome: &Outcome, now: Millis, random: u64) -> RetryAction {
        if !self.config.kind.may_repeat() {
            return RetryAction::GiveUp(GiveUpReason::UnknownOutcomeWithoutKey);
        }
        self.schedule(Step::Resend, outcome, now, random)
    }

    /// Checks the limits and draws the delay; answers `RetryAfter(delay)` (re-wrapped by the
    /// caller for follow-ups and new tasks) or `GiveUp`. Counters move only on success.
    fn schedule(&mut self, step: Step, outcome: &Outcome, now: Millis, random: u64) -> RetryAction {
        let c = self.config;
        let exponent = match step {
            Step::Resend => {
                if self.sends >= c.max_attempts {
                    return RetryAction::GiveUp(GiveUpReason::AttemptsExhausted);
                }
                self.resends
            }
            Step::NewTask => {
                if self.new_tasks >= c.max_new_tasks {
                    return RetryAction::GiveUp(GiveUpReason::NewTasksExhausted);
                }
                if self.sends >= c.max_attempts {
                    return RetryAction::GiveUp(GiveUpReason::AttemptsExhausted);
                }
                self.new_tasks
            }
            Step::FollowUp => {
                if self.follow_ups >= c.max_follow_ups {
                    return RetryAction::GiveUp(GiveUpReason::FollowUpsExhausted);
                }
                self.follow_ups
            }
        };
        let floor = match outcome.retry_after_secs {
            Some(secs) if c.honour_retry_after => {
                let floor = Millis::from_secs(secs);
                if floor > c.max_retry_after {
                    return RetryAction::GiveUp(GiveUpReason::RetryAfterTooLong);
                }
                Some(floor)
            }
            _ => None,
        };
        let mut ceiling = backoff_ceiling(c.base_delay, c.max_delay, exponent);
        if let Some(deadline) = c.deadline {
            let left = deadline.saturating_sub(now);
            let estimate = self.estimate();
            if now > deadline || left < estimate {
                return RetryAction::GiveUp(GiveUpReason::DeadlineExhausted);
            }
            let budget = left.saturating_sub(estimate);
            if floor.is_some_and(|f| f > budget) {
                return RetryAction::GiveUp(GiveUpReason::RetryAfterBeyondDeadline);
            }
            ceiling = ceiling.min(budget);
        }
        let jittered = full_jitter(ceiling, random);
        let delay = floor.map_or(jittered, |f| f.max(jittered));
        match step {
            Step::Resend => {
                self.sends += 1;
                self.resends = self.resends.saturating_add(1);
            }
            Step::NewTask => {
                self.sends += 1;
                self.new_tasks += 1;
                self.resends = 0;
            }
            Step::FollowUp => self.follow_ups += 1,
        }
        RetryAction::RetryAfter(delay)
    }
}

/// `min(cap, base * 2^exponent)`, without overflow.
pub fn backoff_ceiling(base: Millis, cap: Millis, exponent: u32) -> Millis {
    let factor = 1u64.checked_shl(exponent.min(63)).unwrap_or(u64::MAX);
    Millis(base.0.saturating_mul(factor).min(cap.0))
}

/// A delay drawn uniformly from `[0, ceiling]` by the high bits of `random`:
/// `(random * (ceiling + 1)) >> 64`.
pub fn full_jitter(ceiling: Millis, random: u64) -> Millis {
    let span = u128::from(ceiling.0) + 1;
    Millis(((u128::from(random) * span) >> 64) as u64)
}
