//! The model-facing line for every kind of outcome.

use super::{http, protocol, task, transport};
use crate::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use crate::resilience::model_text::{MAX_AGENT_CHARS, MAX_PART_CHARS, MODEL_INSTRUCTION};
use crate::resilience::{model_prefix, model_text};

fn with_text(mut o: Outcome, text: &str) -> Outcome {
    o.text = Some(text.to_owned());
    o
}

#[test]
fn every_channel_and_state() {
    let mut failed = with_text(
        task(TaskState::Failed, RetryAdvice::NewTask, Some("t-1")),
        "Booking failed. error_id: 3f9c0a7b12de",
    );
    failed.error_id = Some("3f9c0a7b12de".into());
    let cases: Vec<(Outcome, Option<&str>)> = vec![
        (Outcome::empty(Channel::Message), None),
        (
            task(TaskState::Completed, RetryAdvice::None, Some("t")),
            None,
        ),
        (
            failed,
            Some(
                "REMOTE_FAILED booking: Booking failed. error_id: 3f9c0a7b12de (error_id: 3f9c0a7b12de)",
            ),
        ),
        (
            task(TaskState::Failed, RetryAdvice::NewTask, Some("t")),
            Some("REMOTE_FAILED booking: the task failed"),
        ),
        (
            {
                // ADK's own status text already ends with the id in the same form.
                let mut adk = with_text(
                    task(TaskState::Failed, RetryAdvice::NewTask, Some("t")),
                    "Agent execution failed. (error_id: ced9b82969a8)",
                );
                adk.error_id = Some("ced9b82969a8".into());
                adk
            },
            Some("REMOTE_FAILED booking: Agent execution failed. (error_id: ced9b82969a8)"),
        ),
        (
            with_text(
                task(TaskState::Rejected, RetryAdvice::Never, Some("t")),
                "no flights on that date",
            ),
            Some("REMOTE_REJECTED booking: the task was rejected: no flights on that date"),
        ),
        (
            task(TaskState::Canceled, RetryAdvice::Never, Some("t")),
            Some("REMOTE_CANCELED booking: the task was canceled"),
        ),
        (
            with_text(
                task(TaskState::InputRequired, RetryAdvice::None, Some("t-7")),
                "Which date?",
            ),
            Some("REMOTE_NEEDS_INPUT booking: Which date? (task_id: t-7)"),
        ),
        (
            task(TaskState::AuthRequired, RetryAdvice::Reauthenticate, None),
            Some("REMOTE_NEEDS_AUTH booking: the agent needs credentials"),
        ),
        (
            task(TaskState::Working, RetryAdvice::Poll, Some("t-2")),
            Some("REMOTE_IN_PROGRESS booking: the task is still working (task_id: t-2)"),
        ),
        (
            task(TaskState::Submitted, RetryAdvice::Poll, Some("t-2")),
            Some("REMOTE_IN_PROGRESS booking: the task is still submitted (task_id: t-2)"),
        ),
        (
            transport(ErrorName::ConnectFailed, RequestSent::No),
            Some(
                "REMOTE_UNAVAILABLE booking: the request was not sent (the connection could not be established)",
            ),
        ),
        (
            transport(ErrorName::CircuitOpen, RequestSent::No),
            Some("REMOTE_UNAVAILABLE booking: the request was not sent (circuit breaker open)"),
        ),
        (
            transport(ErrorName::CardResolution, RequestSent::No),
            Some(
                "REMOTE_UNAVAILABLE booking: the request was not sent (the agent card could not be resolved)",
            ),
        ),
        (
            transport(ErrorName::Timeout, RequestSent::Unknown),
            Some(
                "REMOTE_UNKNOWN booking: the request may or may not have been received (timed out); the outcome is unknown",
            ),
        ),
        (
            protocol(
                ErrorName::TaskNotFound,
                -32001,
                RetryAdvice::Never,
                "Task not found",
            ),
            Some("REMOTE_PROTOCOL_ERROR booking: TaskNotFound (code -32001): Task not found"),
        ),
        (
            http(503, ErrorName::Unavailable, RetryAdvice::Backoff, Some(3)),
            Some("REMOTE_HTTP_ERROR booking: HTTP 503 Unavailable; retry after 3 s"),
        ),
        (
            http(
                401,
                ErrorName::Unauthenticated,
                RetryAdvice::Reauthenticate,
                None,
            ),
            Some("REMOTE_HTTP_ERROR booking: HTTP 401 Unauthenticated"),
        ),
        (
            http(500, ErrorName::Http, RetryAdvice::Backoff, None),
            Some("REMOTE_HTTP_ERROR booking: HTTP 500"),
        ),
        (
            Outcome::malformed("result id 7 does not match request id 1", RetryAdvice::None),
            Some("REMOTE_MALFORMED booking: the response could not be read as an A2A response"),
        ),
    ];
    for (o, expect) in cases {
        let line = model_text("booking", &o);
        assert_eq!(line.as_deref(), expect, "{o:?}");
        let prefix = model_prefix(&o);
        assert_eq!(
            prefix,
            expect.map(|e| e.split(' ').next().expect("a prefix")),
            "{o:?}"
        );
    }
}

#[test]
fn transport_text_has_no_local_detail() {
    let o = Outcome::transport(
        ErrorName::Reset,
        RequestSent::Unknown,
        "Connection reset by peer (os error 104) at /home/me/secret.rs:12",
    );
    let line = model_text("x", &o).unwrap();
    assert!(!line.contains("os error"), "{line}");
    assert!(!line.contains("secret"), "{line}");
    assert!(line.contains("the outcome is unknown"));
    // A transport outcome that does not say whether the request left is unknown, not unavailable.
    let o = o.with_request_sent(None);
    assert_eq!(model_prefix(&o), Some("REMOTE_UNKNOWN"));
}

#[test]
fn sanitized_to_one_bounded_line() {
    let hostile = "line one\r\nline two\tthree\u{2028}four\u{0007}\u{0085}five   six\u{1b}[31m";
    let o = with_text(
        task(TaskState::Failed, RetryAdvice::NewTask, Some("t")),
        hostile,
    );
    let line = model_text("bad\nagent\u{2029}name", &o).unwrap();
    assert_eq!(
        line,
        "REMOTE_FAILED bad agent name: line one line two three four five six [31m"
    );
    // Bidirectional formatting characters would reorder the rest of the line on a terminal
    // that honours them (`txt.exe` shown as `exe.txt`): spaces too.
    let o = with_text(
        task(TaskState::Failed, RetryAdvice::NewTask, Some("t")),
        "report\u{202e}txt.exe\u{2066}x\u{2069}\u{200f}y\u{61c}",
    );
    assert_eq!(
        model_text("agent\u{202d}", &o).unwrap(),
        "REMOTE_FAILED agent: report txt.exe x y"
    );
    let long = "é".repeat(MAX_PART_CHARS * 3);
    let mut o = with_text(
        task(TaskState::Failed, RetryAdvice::NewTask, Some("t")),
        &long,
    );
    o.error_id = Some("0123456789ab".into());
    let long_agent = "a".repeat(500);
    let line = model_text(&long_agent, &o).unwrap();
    assert!(!line.chars().any(|c| c.is_control()));
    let expected = format!(
        "REMOTE_FAILED {}...: {}... (error_id: 0123456789ab)",
        "a".repeat(MAX_AGENT_CHARS),
        "é".repeat(MAX_PART_CHARS)
    );
    assert_eq!(line, expected);
    // Whitespace-only text counts as missing; an empty agent name is replaced.
    let o = with_text(
        task(TaskState::Failed, RetryAdvice::NewTask, Some("t")),
        " \n\t ",
    );
    assert_eq!(
        model_text("", &o).unwrap(),
        "REMOTE_FAILED (unnamed agent): the task failed"
    );
}

#[test]
fn deterministic() {
    let o = protocol(ErrorName::Other, -32099, RetryAdvice::Never, "custom");
    assert_eq!(model_text("a", &o), model_text("a", &o));
    assert_eq!(
        model_text("a", &o).unwrap(),
        "REMOTE_PROTOCOL_ERROR a: Other (code -32099): custom"
    );
}

#[test]
fn instruction_names_every_prefix() {
    for prefix in [
        "REMOTE_FAILED",
        "REMOTE_UNAVAILABLE",
        "REMOTE_UNKNOWN",
        "REMOTE_REJECTED",
        "REMOTE_CANCELED",
        "REMOTE_NEEDS_INPUT",
        "REMOTE_NEEDS_AUTH",
        "REMOTE_PROTOCOL_ERROR",
        "REMOTE_HTTP_ERROR",
        "REMOTE_MALFORMED",
        "REMOTE_IN_PROGRESS",
    ] {
        assert!(MODEL_INSTRUCTION.contains(prefix), "{prefix}");
    }
    assert!(!MODEL_INSTRUCTION.contains('\n'));
    // The module docs quote the same sentence.
    let doc = include_str!("../model_text.rs");
    let quoted: String = doc
        .lines()
        .filter_map(|l| l.strip_prefix("//! > "))
        .collect::<Vec<_>>()
        .join(" ")
        .replace('`', "");
    assert_eq!(quoted, MODEL_INSTRUCTION);
}
