//! Tests of the resilience layer: table tests, a simulated clock, property tests and the
//! shared fixtures.

mod breaker;
mod fixtures;
mod model_text;
mod policy;
mod properties;

use crate::outcome::{ErrorName, Outcome, RemoteHint, RequestSent, RetryAdvice, TaskState};

/// A task outcome in `state` with `advice`.
pub(super) fn task(state: TaskState, advice: RetryAdvice, task_id: Option<&str>) -> Outcome {
    Outcome::task(state)
        .with_retry(advice)
        .with_task_id(task_id.map(str::to_owned))
}

/// A protocol error outcome.
pub(super) fn protocol(error: ErrorName, code: i64, advice: RetryAdvice, message: &str) -> Outcome {
    Outcome::protocol(error, Some(code), advice)
        .with_message(message.to_owned())
        .with_http_status(200)
}

/// An http outcome.
pub(super) fn http(
    status: u16,
    error: ErrorName,
    advice: RetryAdvice,
    retry_after: Option<u64>,
) -> Outcome {
    Outcome::http(status, error, advice).with_retry_after_secs(retry_after)
}

/// A transport outcome.
pub(super) fn transport(error: ErrorName, sent: RequestSent) -> Outcome {
    Outcome::transport(error, sent, "local detail: errno 111 at 10.0.0.7:443")
}

/// A protocol outcome whose remote hint says `retryable=false`.
pub(super) fn with_hint_not_retryable(mut o: Outcome) -> Outcome {
    o.remote_hint = Some(RemoteHint {
        retryable: Some(false),
        pairs: vec![("retryable".into(), "false".into())],
    });
    o
}
