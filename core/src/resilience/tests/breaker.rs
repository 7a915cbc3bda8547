//! The circuit breaker on a simulated clock.

use super::{http, protocol, task, transport};
use crate::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use crate::resilience::{
    BreakerConfig, BreakerState, CircuitBreaker, ConfigError, counts_toward_breaker,
};
use crate::time::Millis;

fn fail() -> Outcome {
    transport(ErrorName::Timeout, RequestSent::Unknown)
}

fn ok() -> Outcome {
    Outcome::empty(Channel::Message)
}

fn count_config(threshold: u32) -> BreakerConfig {
    BreakerConfig {
        failure_threshold: threshold,
        failure_rate_percent: 0,
        min_calls: 0,
        window: Millis(10_000),
        buckets: 10,
        cool_down: Millis(5_000),
        half_open_trials: 1,
    }
}

/// One call at `now`: allowed, then recorded.
fn call(b: &mut CircuitBreaker, now: u64, outcome: &Outcome) {
    assert!(b.allow(Millis(now)), "call at {now} should be allowed");
    b.record(outcome, Millis(now));
}

#[test]
fn count_based_opening_cool_down_and_half_open_success() {
    let mut b = CircuitBreaker::new("planner", count_config(3)).unwrap();
    call(&mut b, 0, &fail());
    call(&mut b, 100, &ok());
    call(&mut b, 200, &fail());
    let s = b.snapshot(Millis(200));
    assert_eq!(s.state, BreakerState::Closed);
    assert_eq!((s.calls_in_window, s.failures_in_window), (3, 2));
    call(&mut b, 300, &fail());
    assert_eq!(b.state(Millis(300)), BreakerState::Open);
    let s = b.snapshot(Millis(300));
    assert_eq!(s.half_open_at, Some(Millis(5_300)));
    assert_eq!(s.times_opened, 1);
    assert_eq!((s.calls_in_window, s.failures_in_window), (0, 0));

    // Open: refused, with a transport outcome naming the breaker.
    assert!(!b.allow(Millis(301)));
    let refusal = b.refusal(Millis(301));
    assert_eq!(refusal.channel, Channel::Transport);
    assert_eq!(refusal.error, Some(ErrorName::CircuitOpen));
    assert_eq!(refusal.request_sent, Some(RequestSent::No));
    assert_eq!(
        refusal.message.as_deref(),
        Some(
            "circuit breaker open for planner: 3 of 4 calls in the last 10000 ms failed; half-open in 4999 ms"
        )
    );
    assert!(!counts_toward_breaker(&refusal));
    assert!(!b.allow(Millis(5_299)));
    assert_eq!(b.snapshot(Millis(5_299)).refused, 2);

    // Cool-down over: half-open, one trial.
    assert_eq!(b.state(Millis(5_300)), BreakerState::HalfOpen);
    assert!(b.allow(Millis(5_300)));
    assert!(!b.allow(Millis(5_301)), "only one trial call");
    assert!(
        b.refusal(Millis(5_301))
            .message
            .unwrap()
            .starts_with("circuit breaker open for planner: half-open")
    );
    let s = b.snapshot(Millis(5_301));
    assert_eq!((s.state, s.trials_in_flight), (BreakerState::HalfOpen, 1));
    b.record(&ok(), Millis(5_400));
    assert_eq!(b.state(Millis(5_400)), BreakerState::Closed);
    assert!(b.allow(Millis(5_401)));
}

#[test]
fn half_open_failure_reopens_for_a_new_cool_down() {
    let mut b = CircuitBreaker::new("a", count_config(1)).unwrap();
    call(&mut b, 0, &fail());
    assert_eq!(b.state(Millis(0)), BreakerState::Open);
    assert!(b.allow(Millis(5_000)));
    b.record(
        &http(503, ErrorName::Unavailable, RetryAdvice::Backoff, None),
        Millis(6_000),
    );
    let s = b.snapshot(Millis(6_000));
    assert_eq!(s.state, BreakerState::Open);
    assert_eq!(s.half_open_at, Some(Millis(11_000)));
    assert_eq!(s.times_opened, 2);
    assert!(!b.allow(Millis(10_999)));
    assert!(b.allow(Millis(11_000)));
}

#[test]
fn several_trials_must_all_succeed() {
    let config = BreakerConfig {
        half_open_trials: 2,
        ..count_config(1)
    };
    let mut b = CircuitBreaker::new("a", config).unwrap();
    call(&mut b, 0, &fail());
    assert!(b.allow(Millis(5_000)));
    assert!(b.allow(Millis(5_000)));
    assert!(!b.allow(Millis(5_000)));
    b.record(&ok(), Millis(5_100));
    assert_eq!(b.state(Millis(5_100)), BreakerState::HalfOpen);
    // One trial done, one in flight: still no third call.
    assert!(!b.allow(Millis(5_100)));
    b.record(&ok(), Millis(5_200));
    assert_eq!(b.state(Millis(5_200)), BreakerState::Closed);
}

#[test]
fn released_and_neutral_trials_return_their_permit() {
    let mut b = CircuitBreaker::new("a", count_config(1)).unwrap();
    call(&mut b, 0, &fail());
    assert!(b.allow(Millis(5_000)));
    b.release(Millis(5_001));
    assert_eq!(b.state(Millis(5_001)), BreakerState::HalfOpen);
    assert!(b.allow(Millis(5_002)));
    // Card resolution says nothing about the agent: the permit comes back.
    b.record(
        &transport(ErrorName::CardResolution, RequestSent::No),
        Millis(5_003),
    );
    assert_eq!(b.snapshot(Millis(5_003)).trials_in_flight, 0);
    assert!(b.allow(Millis(5_004)));
    b.record_result(false, Millis(5_005));
    assert_eq!(b.state(Millis(5_005)), BreakerState::Closed);
}

#[test]
fn rate_based_opening_needs_min_calls() {
    let config = BreakerConfig {
        failure_threshold: 0,
        failure_rate_percent: 50,
        min_calls: 4,
        ..count_config(0)
    };
    let mut b = CircuitBreaker::new("a", config).unwrap();
    call(&mut b, 0, &fail());
    call(&mut b, 10, &fail());
    // 2 of 2 failed, but fewer than 4 calls.
    assert_eq!(b.state(Millis(10)), BreakerState::Closed);
    call(&mut b, 20, &ok());
    call(&mut b, 30, &ok());
    // 2 of 4: a success never opens the breaker, even at the rate.
    assert_eq!(b.state(Millis(30)), BreakerState::Closed);
    call(&mut b, 40, &ok());
    // 2 of 5 = 40%.
    call(&mut b, 50, &fail());
    // 3 of 6 = 50%: opens.
    assert_eq!(b.state(Millis(50)), BreakerState::Open);
}

#[test]
fn rate_below_threshold_stays_closed() {
    let config = BreakerConfig {
        failure_threshold: 0,
        failure_rate_percent: 60,
        min_calls: 5,
        ..count_config(0)
    };
    let mut b = CircuitBreaker::new("a", config).unwrap();
    for i in 0..100u64 {
        // Every other call fails, starting with a success: at most 50% < 60%.
        let o = if i % 2 == 1 { fail() } else { ok() };
        call(&mut b, i * 10, &o);
    }
    assert_eq!(b.state(Millis(1_000)), BreakerState::Closed);
}

#[test]
fn window_slides_and_old_failures_expire() {
    // Window 10 s in 10 buckets of 1 s.
    let mut b = CircuitBreaker::new("a", count_config(3)).unwrap();
    call(&mut b, 0, &fail());
    call(&mut b, 5_000, &fail());
    // At 12 s the failure at 0 s has left the window.
    call(&mut b, 12_000, &fail());
    assert_eq!(b.state(Millis(12_000)), BreakerState::Closed);
    assert_eq!(b.snapshot(Millis(12_000)).failures_in_window, 2);
    call(&mut b, 13_000, &fail());
    assert_eq!(b.state(Millis(13_000)), BreakerState::Open);
    // Counts read later than the window report nothing.
    let mut b = CircuitBreaker::new("a", count_config(3)).unwrap();
    call(&mut b, 0, &fail());
    assert_eq!(b.snapshot(Millis(100_000)).failures_in_window, 0);
    // A ring slot reused after a full turn does not carry old counts.
    call(&mut b, 10_000, &fail());
    assert_eq!(b.snapshot(Millis(10_000)).failures_in_window, 1);
}

#[test]
fn outcomes_of_a_live_remote_never_open_it() {
    let mut b = CircuitBreaker::new("a", count_config(1)).unwrap();
    let live = [
        protocol(ErrorName::TaskNotFound, -32001, RetryAdvice::Never, "no"),
        protocol(
            ErrorName::Internal,
            -32603,
            RetryAdvice::UnknownOutcome,
            "boom",
        ),
        task(TaskState::Failed, RetryAdvice::NewTask, Some("t")),
        task(TaskState::Rejected, RetryAdvice::Never, Some("t")),
        http(429, ErrorName::RateLimited, RetryAdvice::Backoff, Some(1)),
        http(404, ErrorName::NotFound, RetryAdvice::Never, None),
        http(
            401,
            ErrorName::Unauthenticated,
            RetryAdvice::Reauthenticate,
            None,
        ),
        Outcome::empty(Channel::Malformed),
        transport(ErrorName::CircuitOpen, RequestSent::No),
        transport(ErrorName::CardResolution, RequestSent::No),
    ];
    for (i, o) in live.iter().enumerate() {
        call(&mut b, i as u64, o);
    }
    assert_eq!(b.state(Millis(100)), BreakerState::Closed);
    assert_eq!(b.snapshot(Millis(100)).failures_in_window, 0);
}

#[test]
fn late_reports_while_open_are_ignored() {
    let mut b = CircuitBreaker::new("a", count_config(2)).unwrap();
    assert!(b.allow(Millis(0)));
    assert!(b.allow(Millis(0)));
    assert!(b.allow(Millis(0)));
    b.record(&fail(), Millis(10));
    b.record(&fail(), Millis(20));
    assert_eq!(b.state(Millis(20)), BreakerState::Open);
    // The third call's result arrives while open: no effect.
    b.record(&ok(), Millis(30));
    assert_eq!(b.state(Millis(30)), BreakerState::Open);
    // And a stale report in half-open with no trial in flight changes nothing.
    assert_eq!(b.state(Millis(5_020)), BreakerState::HalfOpen);
    assert!(b.allow(Millis(5_020)));
    b.release(Millis(5_020));
    b.record(&fail(), Millis(5_021));
    assert_eq!(b.state(Millis(5_021)), BreakerState::HalfOpen);
    assert_eq!(b.snapshot(Millis(5_021)).times_opened, 1);
    assert!(b.allow(Millis(5_022)));
    b.record(&ok(), Millis(5_023));
    assert_eq!(b.state(Millis(5_023)), BreakerState::Closed);
}

#[test]
fn counts_toward_breaker_table() {
    let cases: Vec<(Outcome, bool)> = vec![
        (transport(ErrorName::ConnectFailed, RequestSent::No), true),
        (transport(ErrorName::Dns, RequestSent::No), true),
        (transport(ErrorName::Timeout, RequestSent::Unknown), true),
        (transport(ErrorName::Reset, RequestSent::Unknown), true),
        (transport(ErrorName::Tls, RequestSent::No), true),
        (
            transport(ErrorName::ResponseTooLarge, RequestSent::Unknown),
            true,
        ),
        (transport(ErrorName::CircuitOpen, RequestSent::No), false),
        (transport(ErrorName::CardResolution, RequestSent::No), false),
        (http(500, ErrorName::Http, RetryAdvice::Backoff, None), true),
        (
            http(502, ErrorName::BadGateway, RetryAdvice::Backoff, None),
            true,
        ),
        (
            http(503, ErrorName::Unavailable, RetryAdvice::Backoff, None),
            true,
        ),
        (
            http(504, ErrorName::GatewayTimeout, RetryAdvice::Backoff, None),
            true,
        ),
        (http(408, ErrorName::Http, RetryAdvice::Backoff, None), true),
        (
            http(429, ErrorName::RateLimited, RetryAdvice::Backoff, None),
            false,
        ),
        (
            http(
                401,
                ErrorName::Unauthenticated,
                RetryAdvice::Reauthenticate,
                None,
            ),
            false,
        ),
        (
            http(404, ErrorName::NotFound, RetryAdvice::Never, None),
            false,
        ),
        (
            http(302, ErrorName::Redirect, RetryAdvice::Never, None),
            false,
        ),
        (
            protocol(ErrorName::Internal, -32603, RetryAdvice::Backoff, "x"),
            false,
        ),
        (task(TaskState::Failed, RetryAdvice::NewTask, None), false),
        (task(TaskState::Completed, RetryAdvice::None, None), false),
        (Outcome::empty(Channel::Malformed), false),
        (Outcome::empty(Channel::Message), false),
    ];
    for (o, expect) in cases {
        assert_eq!(counts_toward_breaker(&o), expect, "{o:?}");
    }
}

#[test]
fn config_is_validated() {
    let base = count_config(3);
    let check = |c: BreakerConfig| CircuitBreaker::new("a", c).map(|_| ()).unwrap_err();
    assert_eq!(
        check(BreakerConfig {
            failure_threshold: 0,
            ..base
        }),
        ConfigError::NoOpeningRule
    );
    assert_eq!(
        check(BreakerConfig {
            failure_rate_percent: 101,
            ..base
        }),
        ConfigError::RateOutOfRange(101)
    );
    assert_eq!(
        check(BreakerConfig {
            window: Millis(0),
            ..base
        }),
        ConfigError::ZeroWindow
    );
    assert_eq!(
        check(BreakerConfig { buckets: 0, ..base }),
        ConfigError::BucketsOutOfRange(0)
    );
    assert_eq!(
        check(BreakerConfig {
            buckets: 1001,
            ..base
        }),
        ConfigError::BucketsOutOfRange(1001)
    );
    assert_eq!(
        check(BreakerConfig {
            half_open_trials: 0,
            ..base
        }),
        ConfigError::ZeroHalfOpenTrials
    );
    assert!(CircuitBreaker::new("a", BreakerConfig::default()).is_ok());
    let mut b = CircuitBreaker::new("a", count_config(1)).unwrap();
    call(&mut b, 0, &fail());
    b.reset();
    assert_eq!(b.state(Millis(1)), BreakerState::Closed);
    assert_eq!(b.agent(), "a");
    assert_eq!(BreakerState::HalfOpen.as_str(), "half_open");
}
