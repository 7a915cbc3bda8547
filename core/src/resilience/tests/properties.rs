//! Property tests: the policy never schedules past the deadline, backoff never exceeds the cap,
//! the breaker never lets more than the configured trial calls through, and text stays one
//! bounded line.

use crate::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use crate::resilience::model_text::{MAX_AGENT_CHARS, MAX_PART_CHARS};
use crate::resilience::policy::{backoff_ceiling, full_jitter};
use crate::resilience::{
    BreakerConfig, BreakerState, CallKind, CircuitBreaker, RetryAction, RetryConfig, RetryPolicy,
    model_text,
};
use crate::time::Millis;
use proptest::prelude::*;

const ADVICE: [RetryAdvice; 9] = [
    RetryAdvice::None,
    RetryAdvice::Never,
    RetryAdvice::NewTask,
    RetryAdvice::Resubscribe,
    RetryAdvice::Poll,
    RetryAdvice::Backoff,
    RetryAdvice::UnknownOutcome,
    RetryAdvice::Reauthenticate,
    RetryAdvice::FixVersion,
];

const KINDS: [CallKind; 4] = [
    CallKind::Read,
    CallKind::Idempotent,
    CallKind::WithIdempotencyKey,
    CallKind::SideEffecting,
];

const CHANNELS: [Channel; 6] = [
    Channel::Transport,
    Channel::Http,
    Channel::Protocol,
    Channel::Task,
    Channel::Message,
    Channel::Malformed,
];

/// One attempt: its outcome's shape, how long it took, the random bits for the decision.
#[derive(Debug, Clone)]
struct Attempt {
    advice: usize,
    channel: usize,
    task_id: bool,
    retry_after: Option<u64>,
    duration: u64,
    random: u64,
}

fn attempt() -> impl Strategy<Value = Attempt> {
    (
        0..ADVICE.len(),
        0..CHANNELS.len(),
        any::<bool>(),
        proptest::option::of(0u64..200),
        0u64..20_000,
        any::<u64>(),
    )
        .prop_map(
            |(advice, channel, task_id, retry_after, duration, random)| Attempt {
                advice,
                channel,
                task_id,
                retry_after,
                duration,
                random,
            },
        )
}

fn outcome_of(a: &Attempt) -> Outcome {
    let mut o = Outcome::empty(CHANNELS[a.channel]);
    o.retry = ADVICE[a.advice];
    o.retry_after_secs = a.retry_after;
    o.task_id = a.task_id.then(|| "task-1".to_owned());
    if o.channel == Channel::Transport {
        o.error = Some(ErrorName::Timeout);
        o.request_sent = Some(RequestSent::Unknown);
    }
    if o.channel == Channel::Task {
        o.state = Some(TaskState::Working);
    }
    o
}

fn retry_config() -> impl Strategy<Value = RetryConfig> {
    (
        0..KINDS.len(),
        1u32..12,
        0u32..12,
        0u32..4,
        0u64..5_000,
        0u64..60_000,
        any::<bool>(),
        proptest::option::of(0u64..300_000),
        0u64..30_000,
        any::<bool>(),
    )
        .prop_map(
            |(
                kind,
                attempts,
                follow_ups,
                new_tasks,
                base,
                extra,
                honour,
                deadline,
                est,
                streaming,
            )| {
                RetryConfig {
                    kind: KINDS[kind],
                    max_attempts: attempts,
                    max_follow_ups: follow_ups,
                    max_new_tasks: new_tasks,
                    base_delay: Millis(base),
                    max_delay: Millis(base + extra),
                    honour_retry_after: honour,
                    max_retry_after: Millis(120_000),
                    deadline: deadline.map(Millis),
                    attempt_estimate: Millis(est),
                    streaming,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Every delayed action fits, with the policy's estimate (never below the caller's),
    /// before the deadline; without `Retry-After` no delay exceeds the cap; the counters stay
    /// within their limits; after Done/GiveUp the policy stays finished.
    #[test]
    fn policy_never_schedules_past_the_deadline_nor_above_the_cap(
        config in retry_config(),
        start in 0u64..1_000_000,
        attempts in proptest::collection::vec(attempt(), 1..40),
    ) {
        let mut policy = RetryPolicy::new(config, Millis(start)).unwrap();
        let mut now = Millis(start);
        let mut finished = false;
        for a in &attempts {
            now = now.saturating_add(Millis(a.duration));
            let outcome = outcome_of(a);
            let action = policy.next(&outcome, now, a.random);
            if finished {
                prop_assert_eq!(action, RetryAction::GiveUp(crate::resilience::GiveUpReason::Finished));
                continue;
            }
            match action.delay() {
                None => finished = true,
                Some(delay) => {
                    prop_assert!(policy.estimate() >= config.attempt_estimate);
                    if let Some(deadline) = config.deadline {
                        prop_assert!(
                            now.saturating_add(delay).saturating_add(policy.estimate()) <= deadline,
                            "now {:?} delay {:?} estimate {:?} deadline {:?}",
                            now, delay, policy.estimate(), deadline
                        );
                    }
                    let floor = a.retry_after.filter(|_| config.honour_retry_after).map(Millis::from_secs);
                    match floor {
                        None => prop_assert!(delay <= config.max_delay),
                        Some(f) => prop_assert!(delay <= config.max_delay.max(f)),
                    }
                    if matches!(action, RetryAction::RetryAfter(_) | RetryAction::StartNewTask { .. })
                        && outcome.retry == RetryAdvice::UnknownOutcome
                    {
                        prop_assert!(config.kind.may_repeat());
                    }
                    now = now.saturating_add(delay);
                }
            }
            prop_assert!(policy.attempts() <= config.max_attempts);
            prop_assert!(policy.follow_ups() <= config.max_follow_ups);
            prop_assert!(policy.new_tasks() <= config.max_new_tasks);
        }
    }

    /// `backoff_ceiling` never exceeds the cap and `full_jitter` never exceeds its ceiling.
    #[test]
    fn backoff_never_exceeds_the_cap(
        base in any::<u64>(), cap in any::<u64>(), exponent in any::<u32>(), random in any::<u64>()
    ) {
        let ceiling = backoff_ceiling(Millis(base), Millis(cap), exponent);
        prop_assert!(ceiling <= Millis(cap));
        prop_assert!(full_jitter(ceiling, random) <= ceiling);
    }

    /// In each half-open period the breaker lets through at most `half_open_trials` calls
    /// (plus one per permit handed back), and never has more than that many in flight.
    #[test]
    fn breaker_never_allows_more_than_the_half_open_trials(
        trials in 1u32..5,
        threshold in 1u32..5,
        ops in proptest::collection::vec((0u8..5, 0u64..3_000), 1..300),
    ) {
        let config = BreakerConfig {
            failure_threshold: threshold,
            failure_rate_percent: 0,
            min_calls: 0,
            window: Millis(10_000),
            buckets: 8,
            cool_down: Millis(2_000),
            half_open_trials: trials,
        };
        let mut b = CircuitBreaker::new("agent", config).unwrap();
        let mut now = Millis(0);
        // (times_opened of the period, calls allowed in it, permits released in it)
        let mut period: Option<(u64, u32, u32)> = None;
        for (op, advance) in ops {
            now = now.saturating_add(Millis(advance));
            let before = b.snapshot(now);
            match op {
                0 | 1 => {
                    let allowed = b.allow(now);
                    if before.state == BreakerState::Open {
                        prop_assert!(!allowed, "allowed while open");
                    }
                    if allowed && before.state == BreakerState::HalfOpen {
                        let p = period.get_or_insert((before.times_opened, 0, 0));
                        if p.0 != before.times_opened {
                            *p = (before.times_opened, 0, 0);
                        }
                        p.1 += 1;
                        prop_assert!(p.1 <= trials + p.2, "{} calls allowed in one half-open period", p.1);
                    }
                    if !allowed {
                        prop_assert_eq!(b.refusal(now).error, Some(ErrorName::CircuitOpen));
                    }
                }
                2 => b.record_result(true, now),
                3 => b.record_result(false, now),
                _ => {
                    if let Some(p) = period.as_mut() {
                        p.2 += 1;
                    }
                    b.release(now);
                }
            }
            let s = b.snapshot(now);
            prop_assert!(s.trials_in_flight + s.trial_successes <= trials);
            if s.state != BreakerState::HalfOpen {
                prop_assert_eq!(s.trials_in_flight, 0);
            }
        }
    }

    /// Any text, any agent name: one line, no control characters, bounded length.
    #[test]
    fn model_text_is_one_bounded_line(agent in any::<String>(), text in any::<String>(), state in 0usize..9) {
        let states = [
            TaskState::Submitted, TaskState::Working, TaskState::InputRequired,
            TaskState::AuthRequired, TaskState::Completed, TaskState::Canceled,
            TaskState::Failed, TaskState::Rejected, TaskState::Unknown,
        ];
        let o = Outcome::task(states[state])
            .with_text(text.clone())
            .with_error_id(text.clone())
            .with_task_id(text);
        match model_text(&agent, &o) {
            None => prop_assert_eq!(states[state], TaskState::Completed),
            Some(line) => {
                prop_assert!(line.starts_with("REMOTE_"));
                let one_line = !line.chars().any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'));
                prop_assert!(one_line, "not one clean line: {:?}", line);
                prop_assert!(line.chars().count() <= 100 + MAX_AGENT_CHARS + 3 + 2 * (MAX_PART_CHARS + 3));
            }
        }
    }
}
