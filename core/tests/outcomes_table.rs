//! Runs every row of `bindings/fixtures/outcomes.json` (the single outcome table) through
//! `classify` / `Outcome::transport` and checks the expected keys, the hint substrings and
//! the CLI exit code. The model-prefix and breaker columns are checked against the schema's
//! rules here too, so a typo in the table cannot wait for the resilience layer to find it.

use a2a_core::classify::{Asked, ResponseInfo, classify};
use a2a_core::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use a2a_core::resilience::{CallKind, RetryAction, RetryConfig, RetryPolicy};
use a2a_core::time::Millis;
use a2a_core::version::{Binding, ProtocolVersion};
use serde_json::Value;

const TABLE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/outcomes.json"
));

fn b64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64 {c}"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c) << (18 - 6 * i);
        }
        let k = chunk.len() - 1;
        for i in 0..k {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

fn run(row: &Value) -> Outcome {
    let input = &row["input"];
    if let Some(t) = input.get("transport") {
        let err = ErrorName::parse(t["error"].as_str().unwrap()).expect("error name");
        let sent = match t["request_sent"].as_str().unwrap() {
            "no" => RequestSent::No,
            "unknown" => RequestSent::Unknown,
            other => panic!("request_sent {other}"),
        };
        return Outcome::transport(err, sent, t["message"].as_str().unwrap());
    }
    let body: Vec<u8> = match (input.get("body"), input.get("body_base64")) {
        (Some(Value::String(b)), _) => b.as_bytes().to_vec(),
        (_, Some(Value::String(b))) => b64(b),
        _ => body_repeat(&input["body_repeat"]),
    };
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let asked = Asked {
        version: s("version").map(|v| ProtocolVersion::parse(v).unwrap()),
        binding: s("binding").map(|b| Binding::parse(b).unwrap()),
        method: s("method"),
        request_id: s("request_id"),
    };
    let mut info = ResponseInfo::new(input["status"].as_u64().unwrap() as u16, &body).asked(asked);
    info.content_type = s("content_type");
    if let Some(Value::Object(h)) = input.get("headers") {
        for (k, v) in h {
            info = info.header(k, v.as_str().unwrap());
        }
    }
    info.now_unix_seconds = input.get("now_unix_seconds").map(|n| n.as_u64().unwrap());
    classify(&info)
}

/// A `body_repeat` input: `head`, then `fill` `count` times, then `tail`.
fn body_repeat(r: &Value) -> Vec<u8> {
    let text = |k: &str| r[k].as_str().unwrap_or_else(|| panic!("body_repeat.{k}"));
    let count = usize::try_from(r["count"].as_u64().expect("body_repeat.count")).unwrap();
    let mut body = text("head").as_bytes().to_vec();
    body.extend(text("fill").as_bytes().repeat(count));
    body.extend_from_slice(text("tail").as_bytes());
    body
}

/// The model-facing prefix by the rules of docs/outcomes.md §5.
fn prefix(o: &Outcome) -> Option<&'static str> {
    if o.channel != Channel::Transport && o.retry == RetryAdvice::UnknownOutcome {
        return Some("REMOTE_UNKNOWN");
    }
    match o.channel {
        Channel::Transport => Some(match o.request_sent {
            Some(RequestSent::No) => "REMOTE_UNAVAILABLE",
            _ => "REMOTE_UNKNOWN",
        }),
        Channel::Http => Some("REMOTE_HTTP_ERROR"),
        Channel::Malformed => Some("REMOTE_MALFORMED"),
        Channel::Protocol => Some("REMOTE_PROTOCOL_ERROR"),
        Channel::Message => None,
        Channel::Task => match o.state.unwrap() {
            TaskState::Completed => None,
            TaskState::Failed => Some("REMOTE_FAILED"),
            TaskState::Canceled => Some("REMOTE_CANCELED"),
            TaskState::Rejected => Some("REMOTE_REJECTED"),
            TaskState::InputRequired => Some("REMOTE_NEEDS_INPUT"),
            TaskState::AuthRequired => Some("REMOTE_NEEDS_AUTH"),
            _ => Some("REMOTE_IN_PROGRESS"),
        },
    }
}

/// Whether a send retry policy of `kind` (the driver's: 3 attempts, no deadline) resends the
/// same message after `o`.
fn resends(o: &Outcome, kind: CallKind) -> bool {
    let config = RetryConfig {
        kind,
        max_attempts: 3,
        max_follow_ups: 0,
        streaming: false,
        ..RetryConfig::default()
    };
    let mut p = RetryPolicy::new(config, Millis(0)).unwrap();
    matches!(p.next(o, Millis(1), 0), RetryAction::RetryAfter(_))
}

fn breaker(o: &Outcome) -> bool {
    match o.channel {
        Channel::Transport => !matches!(
            o.error,
            Some(
                ErrorName::CircuitOpen
                    | ErrorName::CardResolution
                    | ErrorName::Proxy
                    | ErrorName::AddressRefused
                    | ErrorName::CapabilityNotDeclared
            )
        ),
        Channel::Http => matches!(o.http_status, Some(408 | 500 | 502 | 503 | 504)),
        _ => false,
    }
}

#[test]
fn every_row_of_the_outcome_table() {
    let table: Value = serde_json::from_str(TABLE).expect("outcomes.json parses");
    let rows = table["rows"].as_array().expect("rows");
    assert!(rows.len() >= 150, "table shrank to {} rows", rows.len());
    let mut failures = Vec::new();
    let mut ids = std::collections::HashSet::new();
    for row in rows {
        let id = row["id"].as_str().expect("id");
        assert!(ids.insert(id), "duplicate id {id}");
        assert!(
            row["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{id}: no source"
        );
        let o = run(row);
        let got: Value = serde_json::from_str(&o.to_json()).expect("to_json parses");
        for (k, want) in row["expect"].as_object().expect("expect") {
            if got.get(k) != Some(want) {
                failures.push(format!("{id}: {k}: want {want}, got {}", got[k]));
            }
        }
        if let Some(parts) = row.get("hint_contains").and_then(Value::as_array) {
            let hint = o.hint.as_deref().unwrap_or("");
            for p in parts {
                if !hint.contains(p.as_str().unwrap()) {
                    failures.push(format!("{id}: hint {hint:?} lacks {p}"));
                }
            }
        }
        if let Some(p) = row.get("message_contains").and_then(Value::as_str) {
            let m = o.message.as_deref().unwrap_or("");
            if !m.contains(p) {
                failures.push(format!("{id}: message {m:?} lacks {p:?}"));
            }
        }
        if let Some(want) = row.get("retry_after_secs")
            && *want != serde_json::json!(o.retry_after_secs)
        {
            failures.push(format!(
                "{id}: retry_after_secs want {want}, got {:?}",
                o.retry_after_secs
            ));
        }
        if row["exit_code"].as_i64() != Some(i64::from(o.exit_code())) {
            failures.push(format!(
                "{id}: exit code want {}, got {}",
                row["exit_code"],
                o.exit_code()
            ));
        }
        if row["model_prefix"].as_str() != prefix(&o) {
            failures.push(format!(
                "{id}: model_prefix want {}, rule says {:?}",
                row["model_prefix"],
                prefix(&o)
            ));
        }
        if let Some(r) = row.get("resend") {
            for (col, kind) in [
                ("without_key", CallKind::SideEffecting),
                ("with_key", CallKind::WithIdempotencyKey),
            ] {
                if r[col].as_bool() != Some(resends(&o, kind)) {
                    failures.push(format!("{id}: resend {col} want {}", r[col]));
                }
            }
        }
        if row["breaker"].as_bool() != Some(breaker(&o)) {
            failures.push(format!(
                "{id}: breaker want {}, rule says {}",
                row["breaker"],
                breaker(&o)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn table_covers_every_protocol_name_state_and_http_name() {
    let table: Value = serde_json::from_str(TABLE).unwrap();
    let rows = table["rows"].as_array().unwrap();
    let seen = |key: &str, v: &str| rows.iter().any(|r| r["expect"][key] == v);
    for n in ErrorName::ALL {
        assert!(seen("error", n.as_str()), "no row for error {}", n.as_str());
    }
    for s in [
        "submitted",
        "working",
        "input-required",
        "auth-required",
        "completed",
        "canceled",
        "failed",
        "rejected",
        "unknown",
    ] {
        assert!(seen("state", s), "no row for state {s}");
    }
    for c in [
        "transport",
        "http",
        "protocol",
        "task",
        "message",
        "malformed",
    ] {
        assert!(seen("channel", c), "no row for channel {c}");
    }
    for a in [
        "none",
        "never",
        "new_task",
        "resubscribe",
        "poll",
        "backoff",
        "unknown_outcome",
        "reauthenticate",
        "fix_version",
    ] {
        assert!(seen("retry", a), "no row with advice {a}");
    }
}
