//! The shared fixtures in `bindings/fixtures/`: idempotency golden vectors and the outcome
//! table's `model_prefix` and `breaker` columns.

use crate::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use crate::resilience::{
    CallKind, GiveUpReason, KeyError, RetryAction, RetryConfig, RetryPolicy, counts_toward_breaker,
    derive_idempotency_key, derive_message_id, model_prefix,
};
use crate::time::Millis;
use serde_json::Value;
use std::path::PathBuf;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../bindings/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn hex_to_bytes(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "odd-length hex {hex:?}");
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digit"))
        .collect()
}

#[test]
fn idempotency_golden_vectors() {
    let doc = fixture("idempotency.json");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 10, "too few cases: {}", cases.len());
    for case in cases {
        let id = case["id"].as_str().expect("id");
        let parts: Vec<Vec<u8>> = if let Some(parts) = case.get("parts") {
            parts
                .as_array()
                .expect("parts array")
                .iter()
                .map(|p| p.as_str().expect("string part").as_bytes().to_vec())
                .collect()
        } else {
            case["parts_hex"]
                .as_array()
                .expect("parts or parts_hex")
                .iter()
                .map(|p| hex_to_bytes(p.as_str().expect("hex part")))
                .collect()
        };
        assert_eq!(
            derive_idempotency_key(&parts).unwrap(),
            case["idempotency_key"].as_str().expect("idempotency_key"),
            "case {id}"
        );
        assert_eq!(
            derive_message_id(&parts).unwrap(),
            case["message_id"].as_str().expect("message_id"),
            "case {id}"
        );
    }
    for parts in doc["empty_input"]["parts"].as_array().expect("empty_input") {
        let parts: Vec<&str> = parts
            .as_array()
            .expect("array")
            .iter()
            .map(|p| p.as_str().expect("string"))
            .collect();
        assert_eq!(derive_idempotency_key(&parts), Err(KeyError::EmptyInput));
        assert_eq!(derive_message_id(&parts), Err(KeyError::EmptyInput));
    }
}

/// The outcome a row describes, built from the row itself (not from the classifier): the
/// channel, state, error and retry advice from `expect`, the status from `input` or `expect`, and for
/// transport rows the driver's error and `request_sent`.
fn outcome_of_row(row: &Value) -> Outcome {
    let id = row["id"].as_str().unwrap_or("?");
    let expect = &row["expect"];
    let input = &row["input"];
    let transport = input.get("transport");
    let channel = match expect
        .get("channel")
        .and_then(Value::as_str)
        .or(transport.map(|_| "transport"))
    {
        Some("transport") => Channel::Transport,
        Some("http") => Channel::Http,
        Some("protocol") => Channel::Protocol,
        Some("task") => Channel::Task,
        Some("message") => Channel::Message,
        Some("malformed") => Channel::Malformed,
        other => panic!("row {id}: no usable channel in expect ({other:?})"),
    };
    let mut o = Outcome::empty(channel);
    o.http_status = expect
        .get("http_status")
        .and_then(Value::as_u64)
        .or_else(|| input.get("status").and_then(Value::as_u64))
        .map(|s| u16::try_from(s).expect("status fits u16"));
    let error = expect.get("error").and_then(Value::as_str).or_else(|| {
        transport
            .and_then(|t| t.get("error"))
            .and_then(Value::as_str)
    });
    o.error = error.map(|e| ErrorName::parse(e).unwrap_or_else(|| panic!("row {id}: error {e}")));
    o.state = expect
        .get("state")
        .and_then(Value::as_str)
        .map(TaskState::parse);
    if let Some(r) = expect.get("retry").and_then(Value::as_str) {
        o.retry = RetryAdvice::parse(r).unwrap_or_else(|| panic!("row {id}: retry {r}"));
    }
    if let Some(t) = transport {
        o.request_sent = match t.get("request_sent").and_then(Value::as_str) {
            Some("no") => Some(RequestSent::No),
            Some("unknown") => Some(RequestSent::Unknown),
            other => panic!("row {id}: request_sent {other:?}"),
        };
    }
    o
}

/// The `model_prefix` and `breaker` columns of every row of the outcome table.
///
/// The table is written on another branch; this test fails (it does not pass silently) until
/// `bindings/fixtures/outcomes.json` exists.
#[test]
fn outcome_table_model_prefix_and_breaker_columns() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bindings/fixtures/outcomes.json");
    assert!(
        path.exists(),
        "{} is missing: the outcome table (classify branch) must land for this test to run",
        path.display()
    );
    let doc = fixture("outcomes.json");
    let rows = doc["rows"].as_array().expect("rows");
    assert!(!rows.is_empty(), "the outcome table has no rows");
    let mut failures = Vec::new();
    for row in rows {
        let id = row["id"].as_str().expect("row id");
        let outcome = outcome_of_row(row);
        let want_prefix = match &row["model_prefix"] {
            Value::Null => None,
            Value::String(s) => Some(s.as_str()),
            other => panic!("row {id}: model_prefix {other:?}"),
        };
        let want_breaker = row["breaker"]
            .as_bool()
            .unwrap_or_else(|| panic!("row {id}: breaker is not a bool"));
        if model_prefix(&outcome) != want_prefix {
            failures.push(format!(
                "{id}: model_prefix {:?}, table says {want_prefix:?}",
                model_prefix(&outcome)
            ));
        }
        if counts_toward_breaker(&outcome) != want_breaker {
            failures.push(format!(
                "{id}: breaker {}, table says {want_breaker}",
                counts_toward_breaker(&outcome)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The action the advice table in the policy docs prescribes for a first attempt, with room for
/// every limit: written from the table, not from the code.
fn prescribed(o: &Outcome, kind: CallKind) -> &'static str {
    let has_task = o.task_id.as_deref().is_some_and(|t| !t.is_empty());
    let unknown = if kind.may_repeat() {
        "retry_after"
    } else {
        "give_up:unknown_outcome_without_key"
    };
    match o.retry {
        RetryAdvice::None => "done",
        RetryAdvice::Never => "give_up:not_retryable",
        RetryAdvice::Reauthenticate => "give_up:reauthenticate",
        RetryAdvice::FixVersion => "give_up:fix_version",
        RetryAdvice::Backoff if o.error == Some(ErrorName::CircuitOpen) => "give_up:circuit_open",
        RetryAdvice::Backoff => "retry_after",
        RetryAdvice::UnknownOutcome => unknown,
        RetryAdvice::Resubscribe if has_task => "resubscribe",
        RetryAdvice::Poll if has_task => "poll",
        RetryAdvice::Resubscribe | RetryAdvice::Poll => unknown,
        RetryAdvice::NewTask if kind.may_repeat() => "start_new_task",
        RetryAdvice::NewTask => "give_up:new_task_without_key",
    }
}

/// Every row of the outcome table through the retry policy, for every kind of call.
#[test]
fn outcome_table_through_the_policy() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bindings/fixtures/outcomes.json");
    assert!(
        path.exists(),
        "{} is missing: the outcome table (classify branch) must land for this test to run",
        path.display()
    );
    let doc = fixture("outcomes.json");
    let rows = doc["rows"].as_array().expect("rows");
    let mut checked = 0;
    let mut failures = Vec::new();
    for row in rows {
        let id = row["id"].as_str().expect("row id");
        if row["expect"].get("retry").is_none() {
            continue;
        }
        let outcome = outcome_of_row(row);
        for kind in [
            CallKind::Read,
            CallKind::Idempotent,
            CallKind::WithIdempotencyKey,
            CallKind::SideEffecting,
        ] {
            let config = RetryConfig {
                kind,
                max_new_tasks: 1,
                ..RetryConfig::default()
            };
            let mut policy = RetryPolicy::new(config, Millis(0)).expect("valid config");
            let action = policy.next(&outcome, Millis(10), 0);
            let got = match &action {
                RetryAction::GiveUp(r) => format!("give_up:{}", r.code()),
                other => other.as_str().to_owned(),
            };
            let want = prescribed(&outcome, kind);
            if got != want {
                failures.push(format!("{id} ({kind:?}): {got}, table says {want}"));
            }
            if let RetryAction::GiveUp(GiveUpReason::UnknownOutcomeWithoutKey) = action {
                assert_eq!(kind, CallKind::SideEffecting, "{id}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 400, "only {checked} row/kind pairs checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
