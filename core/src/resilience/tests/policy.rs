//! Table tests: every kind of outcome through the retry policy.

use super::{http, protocol, task, transport, with_hint_not_retryable};
use crate::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use crate::resilience::policy::{backoff_ceiling, full_jitter};
use crate::resilience::{
    CallKind, ConfigError, GiveUpReason, IdRule, RetryAction, RetryConfig, RetryPolicy,
};
use crate::time::Millis;

const MAX_RANDOM: u64 = u64::MAX;

fn config(kind: CallKind) -> RetryConfig {
    RetryConfig {
        kind,
        ..RetryConfig::default()
    }
}

/// The first action for `outcome` when the first attempt took 10 ms and ended at `now`.
fn first(config: RetryConfig, outcome: &Outcome, now: u64, random: u64) -> RetryAction {
    let mut p = RetryPolicy::new(config, Millis(now - 10)).expect("valid config");
    p.next(outcome, Millis(now), random)
}

fn give_up(r: GiveUpReason) -> RetryAction {
    RetryAction::GiveUp(r)
}

struct Case {
    name: &'static str,
    outcome: Outcome,
    config: RetryConfig,
    expect: RetryAction,
}

fn case(name: &'static str, outcome: Outcome, config: RetryConfig, expect: RetryAction) -> Case {
    Case {
        name,
        outcome,
        config,
        expect,
    }
}

/// Every channel, advice and call kind, with random bits 0 (so the jittered delay is 0 unless
/// `Retry-After` sets a floor).
#[test]
fn every_outcome_through_the_policy() {
    use CallKind::*;
    use GiveUpReason as G;
    let new_tasks = |kind| RetryConfig {
        max_new_tasks: 2,
        ..config(kind)
    };
    let no_stream = RetryConfig {
        streaming: false,
        ..config(Read)
    };
    let cases = vec![
        // --- successes and interrupted tasks: advice none ---
        case(
            "message",
            Outcome::empty(Channel::Message),
            config(SideEffecting),
            RetryAction::Done,
        ),
        case(
            "task completed",
            task(TaskState::Completed, RetryAdvice::None, Some("t1")),
            config(SideEffecting),
            RetryAction::Done,
        ),
        case(
            "task input-required",
            task(TaskState::InputRequired, RetryAdvice::None, Some("t1")),
            config(SideEffecting),
            RetryAction::Done,
        ),
        // --- task states with other advice ---
        case(
            "task auth-required",
            task(
                TaskState::AuthRequired,
                RetryAdvice::Reauthenticate,
                Some("t1"),
            ),
            config(WithIdempotencyKey),
            give_up(G::Reauthenticate),
        ),
        case(
            "task failed, new tasks not enabled",
            task(TaskState::Failed, RetryAdvice::NewTask, Some("t1")),
            config(WithIdempotencyKey),
            give_up(G::TaskEnded),
        ),
        case(
            "task failed, keyed, new tasks enabled",
            task(TaskState::Failed, RetryAdvice::NewTask, Some("t1")),
            new_tasks(WithIdempotencyKey),
            RetryAction::StartNewTask {
                delay: Millis(0),
                generation: 1,
            },
        ),
        case(
            "task failed, idempotent, new tasks enabled",
            task(TaskState::Failed, RetryAdvice::NewTask, Some("t1")),
            new_tasks(Idempotent),
            RetryAction::StartNewTask {
                delay: Millis(0),
                generation: 1,
            },
        ),
        case(
            "task failed, unkeyed side effect, new tasks enabled",
            task(TaskState::Failed, RetryAdvice::NewTask, Some("t1")),
            new_tasks(SideEffecting),
            give_up(G::NewTaskWithoutKey),
        ),
        case(
            "task rejected, advice never",
            task(TaskState::Rejected, RetryAdvice::Never, Some("t1")),
            new_tasks(WithIdempotencyKey),
            give_up(G::NotRetryable),
        ),
        case(
            "task canceled, advice never",
            task(TaskState::Canceled, RetryAdvice::Never, Some("t1")),
            config(Read),
            give_up(G::NotRetryable),
        ),
        case(
            "task working, advice poll",
            task(TaskState::Working, RetryAdvice::Poll, Some("t1")),
            config(SideEffecting),
            RetryAction::Poll {
                task_id: "t1".into(),
                delay: Millis(0),
            },
        ),
        case(
            "task submitted, advice poll, no task id, unkeyed",
            task(TaskState::Submitted, RetryAdvice::Poll, None),
            config(SideEffecting),
            give_up(G::UnknownOutcomeWithoutKey),
        ),
        case(
            "stream truncated, task id known",
            task(TaskState::Working, RetryAdvice::Resubscribe, Some("t9")),
            config(SideEffecting),
            RetryAction::Resubscribe {
                task_id: "t9".into(),
                delay: Millis(0),
            },
        ),
        case(
            "stream truncated, agent cannot stream: poll instead",
            task(TaskState::Working, RetryAdvice::Resubscribe, Some("t9")),
            no_stream,
            RetryAction::Poll {
                task_id: "t9".into(),
                delay: Millis(0),
            },
        ),
        case(
            "stream truncated, empty task id, keyed: resend",
            task(TaskState::Working, RetryAdvice::Resubscribe, Some("")),
            config(WithIdempotencyKey),
            RetryAction::RetryAfter(Millis(0)),
        ),
        case(
            "stream truncated, no task id, unkeyed",
            task(TaskState::Unknown, RetryAdvice::Resubscribe, None),
            config(SideEffecting),
            give_up(G::UnknownOutcomeWithoutKey),
        ),
        // --- protocol channel ---
        case(
            "protocol TaskNotFound",
            protocol(
                ErrorName::TaskNotFound,
                -32001,
                RetryAdvice::Never,
                "no task",
            ),
            config(Read),
            give_up(G::NotRetryable),
        ),
        case(
            "protocol InvalidParams",
            protocol(ErrorName::InvalidParams, -32602, RetryAdvice::Never, "bad"),
            config(Idempotent),
            give_up(G::NotRetryable),
        ),
        case(
            "protocol MethodNotFound (version mismatch)",
            protocol(
                ErrorName::MethodNotFound,
                -32601,
                RetryAdvice::FixVersion,
                "x",
            ),
            config(Read),
            give_up(G::FixVersion),
        ),
        case(
            "protocol VersionNotSupported",
            protocol(
                ErrorName::VersionNotSupported,
                -32009,
                RetryAdvice::FixVersion,
                "x",
            ),
            config(WithIdempotencyKey),
            give_up(G::FixVersion),
        ),
        case(
            "protocol Internal on a send, unkeyed",
            protocol(
                ErrorName::Internal,
                -32603,
                RetryAdvice::UnknownOutcome,
                "x",
            ),
            config(SideEffecting),
            give_up(G::UnknownOutcomeWithoutKey),
        ),
        case(
            "protocol Internal on a send, keyed",
            protocol(
                ErrorName::Internal,
                -32603,
                RetryAdvice::UnknownOutcome,
                "x",
            ),
            config(WithIdempotencyKey),
            RetryAction::RetryAfter(Millis(0)),
        ),
        case(
            "protocol backoff, remote says retryable=false",
            with_hint_not_retryable(protocol(
                ErrorName::Other,
                -32050,
                RetryAdvice::Backoff,
                "quota [retryable=false]",
            )),
            config(Read),
            give_up(G::RemoteSaysNotRetryable),
        ),
        // --- http channel ---
        case(
            "http 401",
            http(
                401,
                ErrorName::Unauthenticated,
                RetryAdvice::Reauthenticate,
                None,
            ),
            config(Read),
            give_up(G::Reauthenticate),
        ),
        case(
            "http 403",
            http(403, ErrorName::Forbidden, RetryAdvice::Reauthenticate, None),
            config(Read),
            give_up(G::Reauthenticate),
        ),
        case(
            "http 404 wrong URL",
            http(404, ErrorName::NotFound, RetryAdvice::Never, None),
            config(Read),
            give_up(G::NotRetryable),
        ),
        case(
            "http 413",
            http(413, ErrorName::PayloadTooLarge, RetryAdvice::Never, None),
            config(Read),
            give_up(G::NotRetryable),
        ),
        case(
            "http 3xx redirect",
            http(302, ErrorName::Redirect, RetryAdvice::Never, None),
            config(Read),
            give_up(G::NotRetryable),
        ),
        case(
            "http 503 without Retry-After, even unkeyed",
            http(503, ErrorName::Unavailable, RetryAdvice::Backoff, None),
            config(SideEffecting),
            RetryAction::RetryAfter(Millis(0)),
        ),
        case(
            "http 503 with Retry-After 3 is a floor",
            http(503, ErrorName::Unavailable, RetryAdvice::Backoff, Some(3)),
            config(Read),
            RetryAction::RetryAfter(Millis(3_000)),
        ),
        case(
            "http 429 with Retry-After 120 > max 60",
            http(429, ErrorName::RateLimited, RetryAdvice::Backoff, Some(120)),
            config(Read),
            give_up(G::RetryAfterTooLong),
        ),
        case(
            "http 429 with Retry-After ignored by config",
            http(429, ErrorName::RateLimited, RetryAdvice::Backoff, Some(120)),
            RetryConfig {
                honour_retry_after: false,
                ..config(Read)
            },
            RetryAction::RetryAfter(Millis(0)),
        ),
        case(
            "http 500 on a send, unkeyed",
            http(500, ErrorName::Http, RetryAdvice::UnknownOutcome, None),
            config(SideEffecting),
            give_up(G::UnknownOutcomeWithoutKey),
        ),
        case(
            "http 408 on a read",
            http(408, ErrorName::Http, RetryAdvice::Backoff, None),
            config(Read),
            RetryAction::RetryAfter(Millis(0)),
        ),
        // --- transport channel ---
        case(
            "connect refused: never sent, safe to resend unkeyed",
            transport(ErrorName::ConnectFailed, RequestSent::No),
            config(SideEffecting),
            RetryAction::RetryAfter(Millis(0)),
        ),
        case(
            "dns failure",
            transport(ErrorName::Dns, RequestSent::No),
            config(SideEffecting),
            RetryAction::RetryAfter(Millis(0)),
        ),
        case(
            "timeout after sending, unkeyed send",
            transport(ErrorName::Timeout, RequestSent::Unknown),
            config(SideEffecting),
            give_up(G::UnknownOutcomeWithoutKey),
        ),
        case(
            "reset after sending, keyed send",
            transport(ErrorName::Reset, RequestSent::Unknown),
            config(WithIdempotencyKey),
            RetryAction::RetryAfter(Millis(0)),
        ),
        case(
            "timeout on an idempotent call",
            transport(ErrorName::Timeout, RequestSent::Unknown),
            config(Idempotent),
            RetryAction::RetryAfter(Millis(0)),
        ),
        case(
            "timeout on a read",
            transport(ErrorName::Timeout, RequestSent::Unknown),
            config(Read),
            RetryAction::RetryAfter(Millis(0)),
        ),
        case(
            "circuit open",
            transport(ErrorName::CircuitOpen, RequestSent::No),
            config(Read),
            give_up(G::CircuitOpen),
        ),
        // --- malformed ---
        case(
            "malformed on a send, unkeyed",
            Outcome::malformed("unreadable result", RetryAdvice::UnknownOutcome)
                .with_http_status(200),
            config(SideEffecting),
            give_up(G::UnknownOutcomeWithoutKey),
        ),
        case(
            "malformed, advice never",
            Outcome::malformed("unreadable result", RetryAdvice::Never),
            config(Read),
            give_up(G::NotRetryable),
        ),
        // --- limits ---
        case(
            "max_attempts 1: never resend",
            transport(ErrorName::ConnectFailed, RequestSent::No),
            RetryConfig {
                max_attempts: 1,
                ..config(Read)
            },
            give_up(G::AttemptsExhausted),
        ),
        case(
            "max_follow_ups 0",
            task(TaskState::Working, RetryAdvice::Poll, Some("t1")),
            RetryConfig {
                max_follow_ups: 0,
                ..config(Read)
            },
            give_up(G::FollowUpsExhausted),
        ),
    ];
    for c in cases {
        assert_eq!(
            first(c.config, &c.outcome, 10, 0),
            c.expect,
            "case: {}",
            c.name
        );
    }
}

#[test]
fn unknown_outcome_give_up_text_is_exact() {
    let a = first(
        config(CallKind::SideEffecting),
        &transport(ErrorName::Timeout, RequestSent::Unknown),
        10,
        7,
    );
    let RetryAction::GiveUp(reason) = a else {
        panic!("expected give up, got {a:?}")
    };
    assert_eq!(
        reason.to_string(),
        "outcome unknown; not retried without an idempotency key"
    );
    assert_eq!(reason.code(), "unknown_outcome_without_key");
}

#[test]
fn deadline_exhausted_when_no_attempt_fits() {
    let c = RetryConfig {
        deadline: Some(Millis(10_000)),
        attempt_estimate: Millis(3_000),
        ..config(CallKind::Read)
    };
    let o = transport(ErrorName::ConnectFailed, RequestSent::No);
    // 7_000 + 0 + 3_000 = 10_000: exactly fits, delay shrunk to 0.
    assert_eq!(
        first(c, &o, 7_000, MAX_RANDOM),
        RetryAction::RetryAfter(Millis(0))
    );
    // One millisecond later it does not.
    assert_eq!(
        first(c, &o, 7_001, 0),
        give_up(GiveUpReason::DeadlineExhausted)
    );
    // Past the deadline.
    assert_eq!(
        first(c, &o, 20_000, 0),
        give_up(GiveUpReason::DeadlineExhausted)
    );
    // Jitter ceiling is shrunk to the budget: 5_000 left - 3_000 estimate = 2_000 < 10_000 cap.
    let c2 = RetryConfig {
        base_delay: Millis(10_000),
        ..c
    };
    assert_eq!(
        first(c2, &o, 5_000, MAX_RANDOM),
        RetryAction::RetryAfter(Millis(2_000))
    );
}

#[test]
fn retry_after_larger_than_the_remaining_budget() {
    let c = RetryConfig {
        deadline: Some(Millis(30_000)),
        attempt_estimate: Millis(5_000),
        ..config(CallKind::Read)
    };
    // At 10 s: 20 s left, 15 s budget after the estimate.
    let fits = http(503, ErrorName::Unavailable, RetryAdvice::Backoff, Some(15));
    assert_eq!(
        first(c, &fits, 10_000, 0),
        RetryAction::RetryAfter(Millis(15_000))
    );
    let too_late = http(503, ErrorName::Unavailable, RetryAdvice::Backoff, Some(16));
    assert_eq!(
        first(c, &too_late, 10_000, 0),
        give_up(GiveUpReason::RetryAfterBeyondDeadline)
    );
}

#[test]
fn estimate_is_learnt_from_observed_attempts() {
    let c = RetryConfig {
        deadline: Some(Millis(15_000)),
        ..config(CallKind::Read)
    };
    let mut p = RetryPolicy::new(c, Millis(0)).unwrap();
    // The first attempt took 8 s: only 7 s are left, less than one more attempt.
    let o = transport(ErrorName::Timeout, RequestSent::Unknown);
    assert_eq!(
        p.estimate(),
        Millis(1),
        "nothing observed yet: the 1 ms floor"
    );
    assert_eq!(
        p.next(&o, Millis(8_000), 0),
        give_up(GiveUpReason::DeadlineExhausted)
    );
    assert_eq!(p.estimate(), Millis(8_000));

    // A short first attempt leaves room.
    let mut p = RetryPolicy::new(c, Millis(0)).unwrap();
    assert_eq!(
        p.next(&o, Millis(1_000), 0),
        RetryAction::RetryAfter(Millis(0))
    );
    assert_eq!(p.estimate(), Millis(1_000));
    // The second attempt, started at 1_000 as scheduled, took 6 s: 8 s left >= 6 s.
    assert_eq!(
        p.next(&o, Millis(7_000), 0),
        RetryAction::RetryAfter(Millis(0))
    );
    assert_eq!(p.estimate(), Millis(6_000));
    assert_eq!(p.remaining(Millis(7_000)), Some(Millis(8_000)));
}

#[test]
fn begin_attempt_corrects_the_start() {
    let c = RetryConfig {
        deadline: Some(Millis(100_000)),
        ..config(CallKind::Read)
    };
    let mut p = RetryPolicy::new(c, Millis(0)).unwrap();
    let o = transport(ErrorName::Reset, RequestSent::Unknown);
    assert!(matches!(
        p.next(&o, Millis(100), 0),
        RetryAction::RetryAfter(_)
    ));
    // The caller started late, at 5_000; the attempt took 2_000, not 6_900.
    p.begin_attempt(Millis(5_000));
    assert!(matches!(
        p.next(&o, Millis(7_000), 0),
        RetryAction::RetryAfter(_)
    ));
    assert_eq!(p.estimate(), Millis(2_000));
}

#[test]
fn backoff_doubles_to_the_cap_with_full_jitter() {
    let c = RetryConfig {
        max_attempts: 10,
        base_delay: Millis(100),
        max_delay: Millis(1_000),
        ..config(CallKind::Read)
    };
    let o = transport(ErrorName::ConnectFailed, RequestSent::No);
    let mut p = RetryPolicy::new(c, Millis(0)).unwrap();
    let mut now = Millis(0);
    let mut delays = Vec::new();
    while let RetryAction::RetryAfter(d) = p.next(&o, now, MAX_RANDOM) {
        delays.push(d.0);
        now = now.saturating_add(d);
    }
    // 9 resends after the first attempt, each at the top of its jitter range.
    assert_eq!(delays, [100, 200, 400, 800, 1000, 1000, 1000, 1000, 1000]);
    assert_eq!(p.attempts(), 10);
    assert_eq!(
        p.next(&o, now, 0),
        give_up(GiveUpReason::Finished),
        "after giving up the policy stays finished"
    );
    assert!(p.is_finished());
    // The jitter is uniform over [0, ceiling] by the high bits.
    assert_eq!(full_jitter(Millis(1_000), 0), Millis(0));
    assert_eq!(full_jitter(Millis(1_000), u64::MAX), Millis(1_000));
    assert_eq!(full_jitter(Millis(1_000), 1 << 63), Millis(500));
    assert_eq!(full_jitter(Millis(0), u64::MAX), Millis(0));
    assert_eq!(full_jitter(Millis(u64::MAX), u64::MAX), Millis(u64::MAX));
    assert_eq!(
        backoff_ceiling(Millis(3), Millis(u64::MAX), 200),
        Millis(u64::MAX)
    );
    assert_eq!(backoff_ceiling(Millis(0), Millis(50), 5), Millis(0));
}

#[test]
fn follow_ups_and_resends_count_separately() {
    let c = RetryConfig {
        max_attempts: 2,
        max_follow_ups: 2,
        ..config(CallKind::WithIdempotencyKey)
    };
    let mut p = RetryPolicy::new(c, Millis(0)).unwrap();
    let truncated = task(TaskState::Working, RetryAdvice::Resubscribe, Some("t"));
    let timeout = transport(ErrorName::Timeout, RequestSent::Unknown);
    assert!(matches!(
        p.next(&timeout, Millis(1), 0),
        RetryAction::RetryAfter(_)
    ));
    assert!(matches!(
        p.next(&truncated, Millis(2), 0),
        RetryAction::Resubscribe { .. }
    ));
    assert!(matches!(
        p.next(&truncated, Millis(3), 0),
        RetryAction::Resubscribe { .. }
    ));
    assert_eq!(p.follow_ups(), 2);
    assert_eq!(p.attempts(), 2);
    assert_eq!(
        p.next(&truncated, Millis(4), 0),
        give_up(GiveUpReason::FollowUpsExhausted)
    );
}

#[test]
fn new_tasks_are_limited_and_numbered() {
    let c = RetryConfig {
        max_attempts: 5,
        max_new_tasks: 2,
        ..config(CallKind::WithIdempotencyKey)
    };
    let failed = task(TaskState::Failed, RetryAdvice::NewTask, Some("t"));
    let mut p = RetryPolicy::new(c, Millis(0)).unwrap();
    for generation in 1..=2 {
        assert_eq!(
            p.next(&failed, Millis(10), 0),
            RetryAction::StartNewTask {
                delay: Millis(0),
                generation
            }
        );
    }
    assert_eq!(p.new_tasks(), 2);
    assert_eq!(
        p.next(&failed, Millis(10), 0),
        give_up(GiveUpReason::NewTasksExhausted)
    );
}

#[test]
fn ids_each_action_keeps_or_changes() {
    use IdRule::*;
    let resend = RetryAction::RetryAfter(Millis(5)).ids().unwrap();
    assert_eq!(
        (resend.message_id, resend.idempotency_key, resend.jsonrpc_id),
        (Keep, Keep, New)
    );
    let poll = RetryAction::Poll {
        task_id: "t".into(),
        delay: Millis(0),
    };
    let ids = poll.ids().unwrap();
    assert_eq!(
        (ids.message_id, ids.idempotency_key, ids.jsonrpc_id),
        (NotSent, NotSent, New)
    );
    let new_task = RetryAction::StartNewTask {
        delay: Millis(1),
        generation: 1,
    };
    let ids = new_task.ids().unwrap();
    assert_eq!(
        (ids.message_id, ids.idempotency_key, ids.jsonrpc_id),
        (New, New, New)
    );
    assert_eq!(new_task.delay(), Some(Millis(1)));
    assert_eq!(RetryAction::Done.ids(), None);
    assert_eq!(RetryAction::Done.delay(), None);
    assert_eq!(give_up(GiveUpReason::Finished).ids(), None);
    assert_eq!(poll.as_str(), "poll");
    assert_eq!(RetryAction::RetryAfter(Millis(0)).as_str(), "retry_after");
}

#[test]
fn config_is_validated() {
    let bad = RetryConfig {
        max_attempts: 0,
        ..RetryConfig::default()
    };
    assert_eq!(
        RetryPolicy::new(bad, Millis(0)).unwrap_err(),
        ConfigError::ZeroMaxAttempts
    );
    let bad = RetryConfig {
        base_delay: Millis(11),
        max_delay: Millis(10),
        ..RetryConfig::default()
    };
    assert_eq!(
        RetryPolicy::new(bad, Millis(0)).unwrap_err(),
        ConfigError::BaseDelayAboveCap
    );
}

#[test]
fn give_up_reasons_have_distinct_codes_and_texts() {
    use GiveUpReason::*;
    let all = [
        NotRetryable,
        Reauthenticate,
        FixVersion,
        RemoteSaysNotRetryable,
        UnknownOutcomeWithoutKey,
        TaskEnded,
        NewTaskWithoutKey,
        CircuitOpen,
        AttemptsExhausted,
        FollowUpsExhausted,
        NewTasksExhausted,
        DeadlineExhausted,
        RetryAfterBeyondDeadline,
        RetryAfterTooLong,
        Finished,
    ];
    let codes: std::collections::BTreeSet<_> = all.iter().map(|r| r.code()).collect();
    let texts: std::collections::BTreeSet<_> = all.iter().map(|r| r.as_str()).collect();
    assert_eq!(codes.len(), all.len());
    assert_eq!(texts.len(), all.len());
    assert!(texts.iter().all(|t| !t.contains('\n')));
}

#[test]
fn task_id_is_remembered_set_and_forgotten() {
    // A stream truncated with the task id, then the resubscribe fails after its snapshot with an
    // error that does not repeat the id: poll the remembered task.
    let c = config(CallKind::SideEffecting);
    let mut p = RetryPolicy::new(c, Millis(0)).unwrap();
    let truncated = task(TaskState::Working, RetryAdvice::Resubscribe, Some("t-5"));
    assert_eq!(
        p.next(&truncated, Millis(10), 0),
        RetryAction::Resubscribe {
            task_id: "t-5".into(),
            delay: Millis(0)
        }
    );
    let crashed = protocol(ErrorName::Internal, -32603, RetryAdvice::Poll, "boom");
    assert_eq!(
        p.next(&crashed, Millis(20), 0),
        RetryAction::Poll {
            task_id: "t-5".into(),
            delay: Millis(0)
        }
    );
    assert_eq!(p.task_id(), Some("t-5"));

    // A resubscribe call the caller started itself: it names the task.
    let mut p = RetryPolicy::new(config(CallKind::Read), Millis(0)).unwrap();
    p.set_task_id("t-9");
    let terminal = protocol(
        ErrorName::UnsupportedOperation,
        -32004,
        RetryAdvice::Poll,
        "done",
    );
    assert_eq!(
        p.next(&terminal, Millis(5), 0),
        RetryAction::Poll {
            task_id: "t-9".into(),
            delay: Millis(0)
        }
    );

    // A new task forgets the ended one: a later poll advice without an id is an unknown outcome.
    let c = RetryConfig {
        max_new_tasks: 1,
        ..config(CallKind::WithIdempotencyKey)
    };
    let mut p = RetryPolicy::new(c, Millis(0)).unwrap();
    let failed = task(TaskState::Failed, RetryAdvice::NewTask, Some("t-1"));
    assert!(matches!(
        p.next(&failed, Millis(5), 0),
        RetryAction::StartNewTask { generation: 1, .. }
    ));
    assert_eq!(p.task_id(), None);
    let crashed_before_id = protocol(ErrorName::Internal, -32603, RetryAdvice::Poll, "boom");
    assert_eq!(
        p.next(&crashed_before_id, Millis(9), 0),
        RetryAction::RetryAfter(Millis(0))
    );
    // An empty id from the caller is no id.
    let mut p = RetryPolicy::new(config(CallKind::Read), Millis(0)).unwrap();
    p.set_task_id("");
    assert_eq!(p.task_id(), None);
}

#[test]
fn words_round_trip() {
    for kind in [
        CallKind::Read,
        CallKind::Idempotent,
        CallKind::WithIdempotencyKey,
        CallKind::SideEffecting,
    ] {
        assert_eq!(CallKind::parse(kind.as_str()), Some(kind));
    }
    assert_eq!(CallKind::parse("write"), None);
    assert_eq!(IdRule::Keep.as_str(), "keep");
    assert_eq!(IdRule::NotSent.as_str(), "not_sent");
}
