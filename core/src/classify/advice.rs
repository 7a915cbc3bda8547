//! Retry advice, one rule per row kind of `bindings/fixtures/outcomes.json`.

use crate::outcome::{ErrorName, RemoteHint, RetryAdvice};

use super::CallContext;

// A task state's advice is the state's own rule, `TaskState::advice` (`crate::outcome`), so
// that `Outcome::task` applies it.

/// A malformed 2xx body: the server did something, so a send's outcome is unknown; a read
/// would read the same thing again.
pub(crate) fn malformed(ctx: &CallContext<'_>) -> RetryAdvice {
    if ctx.side_effecting() {
        RetryAdvice::UnknownOutcome
    } else {
        RetryAdvice::Never
    }
}

/// A 5xx-like failure whose effect is unknown: `unknown_outcome` on a send, `backoff` on a read.
fn server_side(ctx: &CallContext<'_>) -> RetryAdvice {
    if ctx.side_effecting() {
        RetryAdvice::UnknownOutcome
    } else {
        RetryAdvice::Backoff
    }
}

/// The http channel: the status decides, and for a side-effecting call (a send) whether the
/// status proves that the request was not processed.
///
/// | status | read | send |
/// |---|---|---|
/// | 3xx, 404, 413, other 4xx | `never` | `never` |
/// | 401, 403 | `reauthenticate` | `reauthenticate` |
/// | 429 | `backoff` | `backoff`: a rate limiter refuses before the agent sees the request |
/// | 503 with `Retry-After` | `backoff` | `backoff`: the server says it is not taking requests now |
/// | 503 without `Retry-After` | `backoff` | `unknown_outcome`: a proxy's or an overloaded app's 503 does not say whether the agent ran |
/// | 502, 504 | `backoff` | `unknown_outcome`: a gateway answered; the upstream may have done the work |
/// | 408, 500 and other 5xx | `backoff` | `unknown_outcome` |
///
/// A driver resends a send after `backoff` as is, and after `unknown_outcome` only with an
/// idempotency key (always the same messageId and key): a gateway error can never book twice.
pub(crate) fn http(ctx: &CallContext<'_>, name: ErrorName) -> RetryAdvice {
    match name {
        ErrorName::Redirect | ErrorName::NotFound | ErrorName::PayloadTooLarge => {
            RetryAdvice::Never
        }
        ErrorName::Unauthenticated | ErrorName::Forbidden => RetryAdvice::Reauthenticate,
        ErrorName::RateLimited => RetryAdvice::Backoff,
        ErrorName::Unavailable if ctx.retry_after => RetryAdvice::Backoff,
        _ if ctx.status == 408 || ctx.status >= 500 => server_side(ctx),
        _ => RetryAdvice::Never,
    }
}

/// What a protocol error means for the caller.
pub(crate) struct ProtocolFacts<'m> {
    pub name: ErrorName,
    pub message: Option<&'m str>,
    pub version_hint: bool,
    pub remote_hint: Option<&'m RemoteHint>,
}

/// The protocol channel: by error name, refined by a version hint, the "terminal state"
/// wording servers use for messages to finished tasks, and the remote's own hint.
pub(crate) fn protocol(ctx: &CallContext<'_>, f: &ProtocolFacts<'_>) -> RetryAdvice {
    if f.version_hint {
        return RetryAdvice::FixVersion;
    }
    let terminal_task = f.message.is_some_and(mentions_terminal_state);
    let base = match f.name {
        ErrorName::VersionNotSupported => RetryAdvice::FixVersion,
        ErrorName::Internal | ErrorName::InvalidAgentResponse => server_side(ctx),
        ErrorName::UnsupportedOperation | ErrorName::InvalidParams if terminal_task => {
            if ctx
                .method
                .is_some_and(|m| m.kind.is_streaming() && !m.kind.is_unsafe_to_repeat())
            {
                // Subscribing to a finished task: read its final state instead.
                RetryAdvice::Poll
            } else {
                RetryAdvice::NewTask
            }
        }
        ErrorName::Other if ctx.side_effecting() => RetryAdvice::UnknownOutcome,
        _ => RetryAdvice::Never,
    };
    match f.remote_hint.and_then(|h| h.retryable) {
        Some(false) if base != RetryAdvice::FixVersion => RetryAdvice::Never,
        Some(true) if base == RetryAdvice::Never => RetryAdvice::Backoff,
        _ => base,
    }
}

/// "Task … is in terminal state: …" (Python), "… is in a terminal state (5) …" (JS).
fn mentions_terminal_state(message: &str) -> bool {
    message
        .as_bytes()
        .windows(b"terminal state".len())
        .any(|w| w.eq_ignore_ascii_case(b"terminal state"))
}
