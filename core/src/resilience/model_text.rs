//! One deterministic line per non-success outcome, for the orchestrating model.
//!
//! A FAILED task that reaches the parent model only as an `errorMessage` field is easily read
//! as a success. [`model_text`] turns every outcome that is not a success into one line that
//! starts with a fixed prefix (the `model_prefix` column of `bindings/fixtures/outcomes.json`):
//!
//! | outcome | line |
//! |---|---|
//! | task `failed` | `REMOTE_FAILED <agent>: <status text> (error_id: <id>)` |
//! | task `failed` with `leaked_detail` | `REMOTE_FAILED <agent>: the task failed (error_id: <id>)` (the leaked exception detail is never repeated) |
//! | task `rejected` | `REMOTE_REJECTED <agent>: the task was rejected: <status text>` |
//! | task `canceled` | `REMOTE_CANCELED <agent>: the task was canceled: <status text>` |
//! | task `input-required` | `REMOTE_NEEDS_INPUT <agent>: <status text> (task_id: <id>)` |
//! | task `auth-required` | `REMOTE_NEEDS_AUTH <agent>: <status text> (task_id: <id>)` |
//! | task `submitted`, `working`, `unknown` | `REMOTE_IN_PROGRESS <agent>: the task is still <state> (task_id: <id>)` |
//! | transport, `request_sent = no` | `REMOTE_UNAVAILABLE <agent>: the request was not sent (<what happened>)` |
//! | transport, otherwise | `REMOTE_UNKNOWN <agent>: the request may or may not have been received (<what happened>); the outcome is unknown` |
//! | protocol | `REMOTE_PROTOCOL_ERROR <agent>: <ErrorName> (code <n>): <remote message>` |
//! | http | `REMOTE_HTTP_ERROR <agent>: HTTP <status> <ErrorName>` (the name left out for the generic `Http`; `; retry after <n> s` when given) |
//! | malformed | `REMOTE_MALFORMED <agent>: the response could not be read as an A2A response` |
//! | protocol, http or malformed with advice `unknown_outcome` (a send answered 502, 504, 500, a 503 without `Retry-After`, an internal error, an unreadable 2xx) | `REMOTE_UNKNOWN <agent>: ` + the line above without its prefix + `; the outcome is unknown` |
//! | completed task, message | no line (`None`) |
//!
//! When the remote's own hint says `retryable=false` (`[retryable=false; contact=...]` in an
//! error message or a FAILED status text), the line ends with `; the remote asks not to retry`.
//!
//! Parts in `<...>` that are missing are left out with their punctuation (a failed task without
//! a status message reads `the task failed`). The line never carries detail beyond what the
//! remote sent: transport errors are described by a fixed phrase per [`ErrorName`], never by
//! the local error message (which may hold OS or library detail), and the body excerpts and
//! version hints are left out. Every remote-sourced part and the agent name are sanitized:
//! control characters (newlines, tabs, C1 controls, U+2028/U+2029) and bidirectional
//! formatting characters (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069) become spaces, runs of
//! whitespace collapse, and each part is cut at [`MAX_PART_CHARS`] characters (the agent name at
//! [`MAX_AGENT_CHARS`]) with `...` appended.
//!
//! # A recommended instruction for the parent model
//! Put this sentence ([`MODEL_INSTRUCTION`]) in the orchestrating model's instructions:
//!
//! > A line that starts with `REMOTE_` reports a call to another agent that did not simply
//! > succeed. `REMOTE_FAILED`, `REMOTE_REJECTED`, `REMOTE_CANCELED`, `REMOTE_PROTOCOL_ERROR`,
//! > `REMOTE_HTTP_ERROR`, `REMOTE_MALFORMED` and `REMOTE_UNAVAILABLE` mean the work was not done;
//! > `REMOTE_UNKNOWN` means nobody knows yet whether it was done, so never tell the user it
//! > succeeded or that it failed, say it is unconfirmed, and do not send the same request again
//! > yourself, because it could then be done twice; `REMOTE_IN_PROGRESS` means it is not
//! > finished; `REMOTE_NEEDS_INPUT` and `REMOTE_NEEDS_AUTH` mean the agent is waiting for
//! > information or credentials you must ask for. When a line says the remote asks not to retry,
//! > do not send that request again. Never describe any `REMOTE_` line as a success, and quote an
//! > `error_id` to the user exactly as written.

use crate::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};

/// The recommended instruction for the orchestrating model (the module docs quote it).
pub const MODEL_INSTRUCTION: &str = "A line that starts with REMOTE_ reports a call to another agent that did not simply succeed. REMOTE_FAILED, REMOTE_REJECTED, REMOTE_CANCELED, REMOTE_PROTOCOL_ERROR, REMOTE_HTTP_ERROR, REMOTE_MALFORMED and REMOTE_UNAVAILABLE mean the work was not done; REMOTE_UNKNOWN means nobody knows yet whether it was done, so never tell the user it succeeded or that it failed, say it is unconfirmed, and do not send the same request again yourself, because it could then be done twice; REMOTE_IN_PROGRESS means it is not finished; REMOTE_NEEDS_INPUT and REMOTE_NEEDS_AUTH mean the agent is waiting for information or credentials you must ask for. When a line says the remote asks not to retry, do not send that request again. Never describe any REMOTE_ line as a success, and quote an error_id to the user exactly as written.";

/// The longest remote-sourced part of a line, in characters, before it is cut.
pub const MAX_PART_CHARS: usize = 300;
/// The longest agent name in a line, in characters, before it is cut.
pub const MAX_AGENT_CHARS: usize = 80;

/// The fixed prefix of the model-facing line for `outcome`, or `None` for a success.
pub fn model_prefix(outcome: &Outcome) -> Option<&'static str> {
    Some(match outcome.channel {
        Channel::Message => return None,
        Channel::Task => match outcome.state {
            Some(TaskState::Completed) => return None,
            Some(TaskState::Failed) => "REMOTE_FAILED",
            Some(TaskState::Rejected) => "REMOTE_REJECTED",
            Some(TaskState::Canceled) => "REMOTE_CANCELED",
            Some(TaskState::InputRequired) => "REMOTE_NEEDS_INPUT",
            Some(TaskState::AuthRequired) => "REMOTE_NEEDS_AUTH",
            Some(TaskState::Submitted | TaskState::Working | TaskState::Unknown) | None => {
                "REMOTE_IN_PROGRESS"
            }
        },
        Channel::Transport => match outcome.request_sent {
            Some(RequestSent::No) => "REMOTE_UNAVAILABLE",
            Some(RequestSent::Unknown) | None => "REMOTE_UNKNOWN",
        },
        // An answer that does not say whether a send was processed (a gateway's 502/504, an
        // internal error, an unreadable 2xx): the outcome is unknown, whatever the channel.
        _ if outcome.retry == RetryAdvice::UnknownOutcome => "REMOTE_UNKNOWN",
        Channel::Protocol => "REMOTE_PROTOCOL_ERROR",
        Channel::Http => "REMOTE_HTTP_ERROR",
        Channel::Malformed => "REMOTE_MALFORMED",
    })
}

/// The model-facing line for `outcome` from the agent named `agent`, or `None` for a success.
#[allow(
    clippy::too_many_lines,
    reason = "one arm per error name: the wording table for models, read as a table"
)]
pub fn model_text(agent: &str, outcome: &Outcome) -> Option<String> {
    let prefix = model_prefix(outcome)?;
    let mut line = String::with_capacity(128);
    line.push_str(prefix);
    line.push(' ');
    push_clean(&mut line, agent, MAX_AGENT_CHARS);
    if agent.trim().is_empty() {
        line.push_str("(unnamed agent)");
    }
    line.push_str(": ");
    let text = remote_text(outcome);
    match outcome.channel {
        Channel::Message => unreachable!("a message is a success"),
        Channel::Task => {
            let state = outcome.state.unwrap_or(TaskState::Unknown);
            match state {
                TaskState::Completed => unreachable!("a completed task is a success"),
                TaskState::Failed => {
                    match text {
                        // Leaked exception detail never reaches the model: only the error id.
                        Some(t) if !outcome.leaked_detail => {
                            push_clean(&mut line, t, MAX_PART_CHARS)
                        }
                        _ => line.push_str("the task failed"),
                    }
                    push_id(&mut line, "error_id", outcome.error_id.as_deref());
                }
                TaskState::Rejected | TaskState::Canceled => {
                    line.push_str("the task was ");
                    line.push_str(state.as_str());
                    if let Some(t) = text {
                        line.push_str(": ");
                        push_clean(&mut line, t, MAX_PART_CHARS);
                    }
                    push_id(&mut line, "error_id", outcome.error_id.as_deref());
                }
                TaskState::InputRequired | TaskState::AuthRequired => {
                    match text {
                        Some(t) => push_clean(&mut line, t, MAX_PART_CHARS),
                        None if state == TaskState::InputRequired => {
                            line.push_str("the agent needs more input")
                        }
                        None => line.push_str("the agent needs credentials"),
                    }
                    push_id(&mut line, "task_id", outcome.task_id.as_deref());
                }
                TaskState::Submitted | TaskState::Working | TaskState::Unknown => {
                    line.push_str("the task is still ");
                    line.push_str(match state {
                        TaskState::Unknown => "running (state unknown)",
                        s => s.as_str(),
                    });
                    push_id(&mut line, "task_id", outcome.task_id.as_deref());
                }
            }
        }
        Channel::Transport => {
            let what = transport_phrase(outcome.error);
            if outcome.request_sent == Some(RequestSent::No) {
                line.push_str("the request was not sent (");
                line.push_str(what);
                line.push(')');
            } else {
                line.push_str("the request may or may not have been received (");
                line.push_str(what);
                line.push_str("); the outcome is unknown");
            }
        }
        Channel::Protocol => {
            line.push_str(outcome.error.unwrap_or(ErrorName::Other).as_str());
            if let Some(code) = outcome.code {
                line.push_str(" (code ");
                line.push_str(&code.to_string());
                line.push(')');
            }
            if let Some(t) = text {
                line.push_str(": ");
                push_clean(&mut line, t, MAX_PART_CHARS);
            }
        }
        Channel::Http => {
            line.push_str("HTTP");
            if let Some(status) = outcome.http_status {
                line.push(' ');
                line.push_str(&status.to_string());
            }
            if let Some(name) = outcome.error.filter(|e| *e != ErrorName::Http) {
                line.push(' ');
                line.push_str(name.as_str());
            }
            if let Some(secs) = outcome.retry_after_secs {
                line.push_str("; retry after ");
                line.push_str(&secs.to_string());
                line.push_str(" s");
            }
        }
        Channel::Malformed => {
            line.push_str("the response could not be read as an A2A response");
        }
    }
    if outcome.channel != Channel::Transport && outcome.retry == RetryAdvice::UnknownOutcome {
        line.push_str("; the outcome is unknown");
    }
    if outcome
        .remote_hint
        .as_ref()
        .is_some_and(|h| h.retryable == Some(false))
    {
        line.push_str("; the remote asks not to retry");
    }
    Some(line)
}

/// The text the remote sent for this outcome: the status/message text for tasks, the error
/// message for protocol errors; never for other channels (their messages are local).
fn remote_text(outcome: &Outcome) -> Option<&str> {
    let t = match outcome.channel {
        Channel::Task => outcome.text.as_deref(),
        Channel::Protocol => outcome.message.as_deref(),
        _ => None,
    }?;
    (!t.trim().is_empty()).then_some(t)
}

/// A fixed description of what a transport error was, with no local detail.
fn transport_phrase(error: Option<ErrorName>) -> &'static str {
    match error {
        Some(ErrorName::ConnectFailed) => "the connection could not be established",
        Some(ErrorName::Dns) => "the host name did not resolve",
        Some(ErrorName::Timeout) => "timed out",
        Some(ErrorName::Reset) => "the connection was closed before a complete response",
        Some(ErrorName::CircuitOpen) => "circuit breaker open",
        Some(ErrorName::CardResolution) => "the agent card could not be resolved",
        Some(ErrorName::ResponseTooLarge) => "the response was too large",
        Some(ErrorName::Tls) => "TLS failed",
        Some(ErrorName::Proxy) => "the proxy refused the tunnel",
        Some(ErrorName::AddressRefused) => "the host resolved to an address refused for this agent",
        Some(ErrorName::CapabilityNotDeclared) => {
            "the agent's card does not declare the capability this call needs"
        }
        _ => "transport error",
    }
}

/// Appends ` (label: id)` unless the line already carries exactly that `(label: id)` (an ADK
/// status text ends with its own `(error_id: …)`; saying it twice only adds noise).
fn push_id(line: &mut String, label: &str, id: Option<&str>) {
    let already = |i: &str| line.contains(&format!("({label}: {i})"));
    if let Some(id) = id.filter(|i| !i.trim().is_empty() && !already(i)) {
        line.push_str(" (");
        line.push_str(label);
        line.push_str(": ");
        push_clean(line, id, MAX_PART_CHARS);
        line.push(')');
    }
}

/// Whether `c` must not appear in a one-line text: a control, a line or paragraph
/// separator, or a bidirectional formatting character (which would reorder the rest of the
/// line on a terminal that honours it).
fn is_line_breaking(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{85}'
                | '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Appends `text` with control characters turned into spaces, whitespace runs collapsed,
/// leading/trailing whitespace dropped, and at most `max` characters kept (then `...`).
fn push_clean(line: &mut String, text: &str, max: usize) {
    let mut kept = 0usize;
    let mut pending_space = false;
    for c in text.chars() {
        let c = if is_line_breaking(c) { ' ' } else { c };
        if c.is_whitespace() {
            pending_space = kept > 0;
            continue;
        }
        let needed = usize::from(pending_space) + 1;
        if kept + needed > max {
            line.push_str("...");
            return;
        }
        if pending_space {
            line.push(' ');
            pending_space = false;
        }
        line.push(c);
        kept += needed;
    }
}
