//! Counts a fixed set of outcomes with `a2a_core::tally::Tally` and prints the Prometheus
//! text exposition. `tests/python/test_prometheus.py` parses the output with the Python
//! `prometheus_client` parser and checks values and escaped labels.
//!
//! The outcomes come from real bodies (classified here), so the example also shows the point
//! of the tally: every call below is HTTP 200, yet only two succeeded.

use a2a_core::classify::{Asked, ResponseInfo, classify};
use a2a_core::outcome::{ErrorName, Outcome, RequestSent};
use a2a_core::tally::Tally;

fn rpc(method: &'static str, body: &'static str) -> Outcome {
    let asked = Asked {
        method: Some(method),
        ..Asked::default()
    };
    classify(&ResponseInfo::new(200, body.as_bytes()).asked(asked))
}

fn main() {
    let mut t = Tally::new();
    let not_found = rpc(
        "tasks/get",
        r#"{"jsonrpc":"2.0","id":10,"error":{"code":-32001,"data":null,"message":"Task not found"}}"#,
    );
    let failed = rpc(
        "message/send",
        r#"{"jsonrpc":"2.0","id":8,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"failed","message":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"Agent execution failed. (error_id: 9198d9e2da1d)"}]}}}}"#,
    );
    let done = rpc(
        "message/send",
        r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"}}}"#,
    );
    let other = rpc(
        "message/send",
        r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32050,"message":"Quota"}}"#,
    );
    for _ in 0..3 {
        t.record("planner", "tasks/get", &not_found);
    }
    t.record("planner", "message/send", &failed);
    t.record("planner", "message/send", &done);
    t.record("planner", "message/send", &done);
    t.record("planner", "message/send", &other);
    // Label values that must be escaped: quote, backslash, newline.
    t.record(
        "weird \"agent\"\\with\nnewline",
        "POST /v1/message:send",
        &Outcome::transport(ErrorName::Timeout, RequestSent::Unknown, "call timeout"),
    );
    print!("{}", t.render_prometheus());
}
