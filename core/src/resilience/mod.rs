//! Acting on an outcome: what to do next, when to stop calling a dead agent, how to make a
//! retry recognisable, and what the orchestrating model should read.
//!
//! Like the rest of the crate this does no I/O and reads no clock: time comes in as `now`
//! ([`Millis`](crate::time::Millis)), randomness for jitter comes in as caller-supplied bits,
//! and the answers are values the caller acts on.
//!
//! - [`policy`]: [`RetryPolicy`], fed each attempt's [`Outcome`](crate::outcome::Outcome),
//!   answers a [`RetryAction`]: `Done`, `RetryAfter(delay)`, `Resubscribe`, `Poll`,
//!   `StartNewTask` or `GiveUp(reason)`. Its docs hold the advice-to-action table and the ids
//!   each action keeps or changes.
//! - [`breaker`]: [`CircuitBreaker`], one per remote agent, and [`counts_toward_breaker`].
//! - [`idempotency`]: [`derive_idempotency_key`] and [`derive_message_id`], fixed functions of
//!   the caller's stable inputs (SHA-256 from [`sha256`]).
//! - [`model_text`](mod@model_text): [`model_text()`] and [`model_prefix`], one deterministic line per
//!   non-success outcome, and the recommended instruction sentence for the parent model.
//!
//! A typical call site, per call to agent `A`:
//!
//! ```
//! use a2a_core::outcome::{ErrorName, Outcome, RequestSent};
//! use a2a_core::resilience::{
//!     BreakerConfig, CallKind, CircuitBreaker, RetryAction, RetryConfig, RetryPolicy,
//!     derive_idempotency_key, model_text,
//! };
//! use a2a_core::time::Millis;
//!
//! let key = derive_idempotency_key(&["conversation-42", "book", r#"{"seat":"12A"}"#]).unwrap();
//! let mut breaker = CircuitBreaker::new("booking", BreakerConfig::default()).unwrap();
//! let config = RetryConfig {
//!     kind: CallKind::WithIdempotencyKey,
//!     deadline: Some(Millis(30_000)),
//!     attempt_estimate: Millis(5_000),
//!     ..RetryConfig::default()
//! };
//! let mut now = Millis(0);
//! let mut policy = RetryPolicy::new(config, now).unwrap();
//! let final_outcome = loop {
//!     let outcome = if breaker.allow(now) {
//!         // Send the request with `Idempotency-Key: {key}` here; this one timed out.
//!         now = now.saturating_add(Millis(5_000));
//!         let o = Outcome::transport(ErrorName::Timeout, RequestSent::Unknown, "read timeout");
//!         breaker.record(&o, now);
//!         o
//!     } else {
//!         breaker.refusal(now)
//!     };
//!     match policy.next(&outcome, now, 0x9e37_79b9_7f4a_7c15) {
//!         RetryAction::RetryAfter(delay) => now = now.saturating_add(delay),
//!         _ => break outcome,
//!     }
//! };
//! assert_eq!(policy.attempts(), 3);
//! let line = model_text("booking", &final_outcome).unwrap();
//! assert!(line.starts_with("REMOTE_UNKNOWN booking: the request may or may not have been received"));
//! # let _ = key;
//! ```

pub mod breaker;
pub mod idempotency;
pub mod model_text;
pub mod policy;
pub mod sha256;

pub use breaker::{
    BreakerConfig, BreakerSnapshot, BreakerState, CircuitBreaker, counts_toward_breaker,
};
pub use idempotency::{KeyError, derive_idempotency_key, derive_message_id};
pub use model_text::{MODEL_INSTRUCTION, model_prefix, model_text};
pub use policy::{CallKind, GiveUpReason, IdRule, NextIds, RetryAction, RetryConfig, RetryPolicy};

/// A retry or breaker configuration value out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// `max_attempts` is 0; the first attempt counts, so the minimum is 1.
    #[error("max_attempts must be at least 1 (the first attempt counts)")]
    ZeroMaxAttempts,
    /// `base_delay` is larger than `max_delay`.
    #[error("base_delay must not exceed max_delay")]
    BaseDelayAboveCap,
    /// Both `failure_threshold` and `failure_rate_percent` are 0: the breaker could never open.
    #[error("failure_threshold and failure_rate_percent are both 0: the breaker could never open")]
    NoOpeningRule,
    /// `failure_rate_percent` is above 100.
    #[error("failure_rate_percent {0} is above 100")]
    RateOutOfRange(u8),
    /// `window` is 0 ms.
    #[error("window must be at least 1 ms")]
    ZeroWindow,
    /// `buckets` is 0 or above [`breaker::MAX_BUCKETS`].
    #[error("buckets {0} is outside 1..=1000")]
    BucketsOutOfRange(u16),
    /// `half_open_trials` is 0: a half-open breaker could never close.
    #[error("half_open_trials must be at least 1")]
    ZeroHalfOpenTrials,
}

#[cfg(test)]
mod tests;
