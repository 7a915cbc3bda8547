//! A circuit breaker for one remote agent (sans-IO: time comes in as `now`).
//!
//! ```text
//!            counted failures in the window reach the count or the rate
//!   Closed ───────────────────────────────────────────────────────────▶ Open
//!     ▲                                                                  │
//!     │ `half_open_trials` trial calls succeed        cool-down passes   │
//!     │                                                                  ▼
//!     └──────────────────────────────── HalfOpen ◀───────────────────────┘
//!                                         │  a trial call fails
//!                                         └──────────────────────────▶ Open (a new cool-down)
//! ```
//!
//! Call order, for every call to the agent:
//! 1. [`CircuitBreaker::allow`]`(now)`. When it says no, do not send: use
//!    [`CircuitBreaker::refusal`]`(now)` as the call's outcome (transport channel,
//!    [`ErrorName::CircuitOpen`], `request_sent = no`), so a dead agent fails fast.
//! 2. When it says yes, make the call, then report its outcome with
//!    [`CircuitBreaker::record`]`(&outcome, now)`, or [`CircuitBreaker::release`]`(now)` when
//!    the call was not made after all. In the half-open state every allowed call holds one of
//!    the limited trial permits until it is reported, so report every allowed call.
//!
//! Which outcomes count as failures is [`counts_toward_breaker`], the `breaker` column of
//! `bindings/fixtures/outcomes.json`: a remote that answers with a protocol error, a FAILED task
//! or a 429 is up, and must not be cut off.
//!
//! # The window
//! Calls and counted failures are kept in a ring of `buckets` fixed-width time buckets covering
//! `window` (width `ceil(window / buckets)`), so memory is bounded whatever the call rate. The
//! current bucket is partly filled, so the window actually looks back between
//! `window - width` and `window` milliseconds. The breaker opens when, after a counted failure,
//! the failures in the window reach `failure_threshold` (when non-zero), or when the window
//! holds at least `min_calls` calls and at least `failure_rate_percent` percent of them are
//! counted failures (when non-zero). Opening and closing clear the window.

use super::ConfigError;
use crate::outcome::{Channel, ErrorName, Outcome, RequestSent};
use crate::time::Millis;

/// The largest number of window buckets a breaker may be configured with.
pub const MAX_BUCKETS: u16 = 1000;

/// Whether `outcome` counts toward opening a circuit breaker (the `breaker` column of the
/// outcome table).
///
/// True for the transport channel (except [`ErrorName::CircuitOpen`], the breaker's own
/// refusal, [`ErrorName::CardResolution`], and the local refusals [`ErrorName::Proxy`] (the
/// proxy, not the agent, said no), [`ErrorName::AddressRefused`] and
/// [`ErrorName::CapabilityNotDeclared`]), for HTTP 5xx and for HTTP 408. False for
/// everything else: protocol errors and task states (the remote is up), 429 (the remote is up
/// and asks us to slow down), other 4xx, malformed bodies and successes.
pub fn counts_toward_breaker(outcome: &Outcome) -> bool {
    match outcome.channel {
        Channel::Transport => !matches!(
            outcome.error,
            Some(
                ErrorName::CircuitOpen
                    | ErrorName::CardResolution
                    | ErrorName::Proxy
                    | ErrorName::AddressRefused
                    | ErrorName::CapabilityNotDeclared
            )
        ),
        Channel::Http => matches!(outcome.http_status, Some(408 | 500..=599)),
        Channel::Protocol | Channel::Task | Channel::Message | Channel::Malformed => false,
    }
}

/// The configuration of a [`CircuitBreaker`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerConfig {
    /// Open when this many counted failures are in the window; 0 disables the count rule.
    pub failure_threshold: u32,
    /// Open when at least this percentage (1..=100) of the calls in the window are counted
    /// failures; 0 disables the rate rule.
    pub failure_rate_percent: u8,
    /// The rate rule applies only once the window holds at least this many calls.
    pub min_calls: u32,
    /// The length of the sliding window.
    pub window: Millis,
    /// The number of buckets the window is divided into (1..=[`MAX_BUCKETS`]).
    pub buckets: u16,
    /// How long the breaker stays open before it lets trial calls through.
    pub cool_down: Millis,
    /// How many trial calls the half-open state lets through; that many successes close it.
    pub half_open_trials: u32,
}

impl Default for BreakerConfig {
    /// 5 counted failures, or 50% of at least 10 calls, within 30 s (10 buckets) open the
    /// breaker for 15 s; then 1 trial call decides.
    fn default() -> Self {
        BreakerConfig {
            failure_threshold: 5,
            failure_rate_percent: 50,
            min_calls: 10,
            window: Millis(30_000),
            buckets: 10,
            cool_down: Millis(15_000),
            half_open_trials: 1,
        }
    }
}

impl BreakerConfig {
    /// Checks the configuration.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first field that is out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.failure_threshold == 0 && self.failure_rate_percent == 0 {
            return Err(ConfigError::NoOpeningRule);
        }
        if self.failure_rate_percent > 100 {
            return Err(ConfigError::RateOutOfRange(self.failure_rate_percent));
        }
        if self.window.0 == 0 {
            return Err(ConfigError::ZeroWindow);
        }
        if self.buckets == 0 || self.buckets > MAX_BUCKETS {
            return Err(ConfigError::BucketsOutOfRange(self.buckets));
        }
        if self.half_open_trials == 0 {
            return Err(ConfigError::ZeroHalfOpenTrials);
        }
        Ok(())
    }
}

/// The observable state of a breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BreakerState {
    /// Calls go out; outcomes are counted in the window.
    Closed,
    /// Calls are refused until the cool-down ends.
    Open,
    /// A limited number of trial calls go out; their outcomes decide.
    HalfOpen,
}

impl BreakerState {
    /// `"closed"`, `"open"` or `"half_open"` (for metrics labels and JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half_open",
        }
    }
}

/// A point-in-time view of a breaker, for metrics and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerSnapshot {
    /// The state at `now` (an open breaker whose cool-down has passed reads as half-open).
    pub state: BreakerState,
    /// Calls recorded in the current window (closed state only; 0 otherwise).
    pub calls_in_window: u32,
    /// Counted failures recorded in the current window (closed state only; 0 otherwise).
    pub failures_in_window: u32,
    /// When an open breaker lets trial calls through; `None` unless open.
    pub half_open_at: Option<Millis>,
    /// Trial calls allowed and not yet reported (half-open only).
    pub trials_in_flight: u32,
    /// Trial calls that succeeded in the current half-open period.
    pub trial_successes: u32,
    /// How many times the breaker has opened since it was created.
    pub times_opened: u64,
    /// How many calls [`CircuitBreaker::allow`] has refused since the breaker was created.
    pub refused: u64,
}

/// How an outcome affects the breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    Failure,
    Success,
    /// Not a call that reached (or failed to reach) the agent: only returns a trial permit.
    Neutral,
}

fn effect_of(outcome: &Outcome) -> Effect {
    if counts_toward_breaker(outcome) {
        Effect::Failure
    } else if outcome.channel == Channel::Transport {
        // The breaker's own refusal and card resolution say nothing about the agent.
        Effect::Neutral
    } else {
        Effect::Success
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inner {
    Closed,
    Open {
        until: Millis,
    },
    /// INVARIANT: `in_flight + succeeded <= half_open_trials`.
    HalfOpen {
        in_flight: u32,
        succeeded: u32,
    },
}

/// One ring slot: the calls and failures of one `width`-millisecond interval.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// `now / width` of the interval, or `u64::MAX` when unused.
    epoch: u64,
    calls: u32,
    failures: u32,
}

const EMPTY_BUCKET: Bucket = Bucket {
    epoch: u64::MAX,
    calls: 0,
    failures: 0,
};

/// Why the breaker last opened: for the refusal message.
#[derive(Debug, Clone, Copy, Default)]
struct Trip {
    failures: u32,
    calls: u32,
}

/// A circuit breaker for one remote agent. See the module docs for the call order.
#[derive(Debug, Clone)]
pub struct CircuitBreaker {
    agent: String,
    config: BreakerConfig,
    inner: Inner,
    /// INVARIANT: `buckets.len() == config.buckets`; allocated once.
    buckets: Vec<Bucket>,
    width: u64,
    last_trip: Trip,
    times_opened: u64,
    refused: u64,
}

impl CircuitBreaker {
    /// A closed breaker for the agent named `agent` (the name appears in refusal messages).
    ///
    /// # Errors
    /// The [`ConfigError`] of [`BreakerConfig::validate`].
    pub fn new(agent: impl Into<String>, config: BreakerConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let n = u64::from(config.buckets);
        Ok(CircuitBreaker {
            agent: agent.into(),
            config,
            inner: Inner::Closed,
            buckets: vec![EMPTY_BUCKET; usize::from(config.buckets)],
            width: config.window.0.div_ceil(n).max(1),
            last_trip: Trip::default(),
            times_opened: 0,
            refused: 0,
        })
    }

    /// The agent name given to [`CircuitBreaker::new`].
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// The configuration.
    pub fn config(&self) -> &BreakerConfig {
        &self.config
    }

    /// Whether a call may go out at `now`. A `true` in the half-open state takes one trial
    /// permit, returned by [`CircuitBreaker::record`] or [`CircuitBreaker::release`].
    pub fn allow(&mut self, now: Millis) -> bool {
        if let Inner::Open { until } = self.inner {
            if now < until {
                self.refused = self.refused.saturating_add(1);
                return false;
            }
            self.inner = Inner::HalfOpen {
                in_flight: 0,
                succeeded: 0,
            };
        }
        match &mut self.inner {
            Inner::Closed => true,
            Inner::HalfOpen {
                in_flight,
                succeeded,
            } => {
                if *in_flight + *succeeded < self.config.half_open_trials {
                    *in_flight += 1;
                    true
                } else {
                    self.refused = self.refused.saturating_add(1);
                    false
                }
            }
            Inner::Open { .. } => unreachable!("an expired open state was made half-open above"),
        }
    }

    /// The outcome to hand back, instead of making the call, when [`CircuitBreaker::allow`]
    /// said no: transport channel, [`ErrorName::CircuitOpen`], `request_sent = no`, and a
    /// message starting `circuit breaker open for <agent>`.
    pub fn refusal(&self, now: Millis) -> Outcome {
        let message = match self.inner {
            Inner::Open { until } if now < until => format!(
                "circuit breaker open for {}: {} of {} calls in the last {} ms failed; half-open in {} ms",
                self.agent,
                self.last_trip.failures,
                self.last_trip.calls,
                self.config.window.0,
                until.saturating_sub(now).0
            ),
            Inner::Open { .. } | Inner::HalfOpen { .. } => format!(
                "circuit breaker open for {}: half-open, trial calls in progress",
                self.agent
            ),
            Inner::Closed => format!("circuit breaker open for {}: closed now", self.agent),
        };
        Outcome::transport(ErrorName::CircuitOpen, RequestSent::No, message)
    }

    /// Reports the outcome of a call that [`CircuitBreaker::allow`] let through.
    pub fn record(&mut self, outcome: &Outcome, now: Millis) {
        self.record_effect(effect_of(outcome), now);
    }

    /// Reports a call by its breaker effect alone: `counted_failure` as decided by
    /// [`counts_toward_breaker`] (for callers that hold no [`Outcome`]).
    pub fn record_result(&mut self, counted_failure: bool, now: Millis) {
        let effect = if counted_failure {
            Effect::Failure
        } else {
            Effect::Success
        };
        self.record_effect(effect, now);
    }

    /// Returns the trial permit of an allowed call that was not made.
    pub fn release(&mut self, now: Millis) {
        self.record_effect(Effect::Neutral, now);
    }

    fn record_effect(&mut self, effect: Effect, now: Millis) {
        match &mut self.inner {
            Inner::Closed => {
                if effect == Effect::Neutral {
                    return;
                }
                let failure = effect == Effect::Failure;
                self.add_to_window(now, failure);
                if failure {
                    let (calls, failures) = self.totals(now);
                    if self.trips(calls, failures) {
                        self.last_trip = Trip { failures, calls };
                        self.open(now);
                    }
                }
            }
            // A late report of a call allowed before the breaker opened: the breaker has
            // already decided, nothing to count.
            Inner::Open { .. } => {}
            Inner::HalfOpen {
                in_flight,
                succeeded,
            } => {
                // Only trial calls are counted here; a report with no trial in flight is a late
                // report from before the breaker opened.
                if *in_flight == 0 {
                    return;
                }
                *in_flight -= 1;
                match effect {
                    Effect::Neutral => {}
                    Effect::Success => {
                        *succeeded += 1;
                        if *succeeded >= self.config.half_open_trials {
                            self.inner = Inner::Closed;
                            self.clear_window();
                        }
                    }
                    Effect::Failure => {
                        self.last_trip = Trip {
                            failures: 1,
                            calls: 1,
                        };
                        self.open(now);
                    }
                }
            }
        }
    }

    /// The state at `now`.
    pub fn state(&self, now: Millis) -> BreakerState {
        match self.inner {
            Inner::Closed => BreakerState::Closed,
            Inner::Open { until } if now < until => BreakerState::Open,
            Inner::Open { .. } | Inner::HalfOpen { .. } => BreakerState::HalfOpen,
        }
    }

    /// Everything observable about the breaker at `now`.
    pub fn snapshot(&self, now: Millis) -> BreakerSnapshot {
        let (calls, failures) = match self.inner {
            Inner::Closed => self.totals(now),
            _ => (0, 0),
        };
        let (half_open_at, trials_in_flight, trial_successes) = match self.inner {
            Inner::Open { until } if now < until => (Some(until), 0, 0),
            Inner::HalfOpen {
                in_flight,
                succeeded,
            } => (None, in_flight, succeeded),
            _ => (None, 0, 0),
        };
        BreakerSnapshot {
            state: self.state(now),
            calls_in_window: calls,
            failures_in_window: failures,
            half_open_at,
            trials_in_flight,
            trial_successes,
            times_opened: self.times_opened,
            refused: self.refused,
        }
    }

    /// Forces the breaker closed with an empty window (an operator's reset).
    pub fn reset(&mut self) {
        self.inner = Inner::Closed;
        self.clear_window();
    }

    fn trips(&self, calls: u32, failures: u32) -> bool {
        let c = &self.config;
        let by_count = c.failure_threshold > 0 && failures >= c.failure_threshold;
        let by_rate = c.failure_rate_percent > 0
            && calls >= c.min_calls.max(1)
            && u64::from(failures) * 100 >= u64::from(c.failure_rate_percent) * u64::from(calls);
        by_count || by_rate
    }

    fn open(&mut self, now: Millis) {
        self.inner = Inner::Open {
            until: now.saturating_add(self.config.cool_down),
        };
        self.times_opened = self.times_opened.saturating_add(1);
        self.clear_window();
    }

    fn clear_window(&mut self) {
        self.buckets.fill(EMPTY_BUCKET);
    }

    fn add_to_window(&mut self, now: Millis, failure: bool) {
        let epoch = now.0 / self.width;
        let slot = (epoch % self.buckets.len() as u64) as usize;
        let b = &mut self.buckets[slot];
        if b.epoch != epoch {
            *b = Bucket {
                epoch,
                calls: 0,
                failures: 0,
            };
        }
        b.calls = b.calls.saturating_add(1);
        if failure {
            b.failures = b.failures.saturating_add(1);
        }
    }

    /// `(calls, failures)` over the buckets still inside the window at `now`.
    fn totals(&self, now: Millis) -> (u32, u32) {
        let epoch = now.0 / self.width;
        let n = self.buckets.len() as u64;
        self.buckets
            .iter()
            .filter(|b| b.epoch <= epoch && epoch - b.epoch < n)
            .fold((0u32, 0u32), |(c, f), b| {
                (c.saturating_add(b.calls), f.saturating_add(b.failures))
            })
    }
}
