//! Tests of the resilience layer: table tests, a simulated clock, property tests and the
//! shared fixtures.

mod breaker;
mod fixtures;
mod model_text;
mod policy;
mod properties;

use crate::outcome::{
    Channel, ErrorName, Outcome, RemoteHint, RequestSent, RetryAdvice, TaskState,
};

/// A task outcome in `state` with `advice`.
pub(super) fn task(state: TaskState, advice: RetryAdvice, task_id: Option<&str>) -> Outcome {
    Outcome {
        state: Some(state),
        terminal: state.is_terminal(),
        task_id: task_id.map(str::to_owned),
        retry: advice,
        ..Outcome::empty(Channel::Task)
    }
}

/// A protocol error outcome.
pub(super) fn protocol(error: ErrorName, code: i64, advice: RetryAdvice, message: &str) -> Outcome {
    Outcome {
        code: Some(code),
        error: Some(error),
        message: Some(message.to_owned()),
        retry: advice,
        http_status: Some(200),
        ..Outcome::empty(Channel::Protocol)
    }
}

/// An http outcome.
pub(super) fn http(
    status: u16,
    error: ErrorName,
    advice: RetryAdvice,
    retry_after: Option<u64>,
) -> Outcome {
    Outcome {
        http_status: Some(status),
        error: Some(error),
        retry: advice,
        retry_after_secs: retry_after,
        ..Outcome::empty(Channel::Http)
    }
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
