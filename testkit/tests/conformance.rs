//! `a2a-testkit conformance` judged on small shell clients whose behaviour is known: curl
//! posting one 0.3 `message/send` (with and without failing on HTTP errors), a client that
//! resends with a new messageId, one that resends with the same messageId and key, and one
//! that never returns. Each case's verdict must come out as the case's rule says.

use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_a2a-testkit");

/// One 0.3 `message/send` with curl: messageId `$1`, the case's text and URL; `flags` are
/// extra curl options.
fn curl_send(message_id: &str, flags: &str) -> String {
    format!(
        "curl -sS --max-time 10 {flags} -H 'content-type: application/json' \
         -d \"$(printf '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":{{\"message\":{{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"{message_id}\",\"parts\":[{{\"kind\":\"text\",\"text\":\"%s\"}}]}}}}}}' {{text}})\" {{url}}/a2a"
    )
}

/// One 1.0 `SendMessage` with curl: messageId `$1`, the case's text and URL; `flags` are
/// extra curl options (the `A2A-Version` header among them, or not).
fn curl_send_v1(message_id: &str, flags: &str) -> String {
    format!(
        "curl -sS --max-time 10 {flags} -H 'content-type: application/json' \
         -d \"$(printf '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{{\"message\":{{\"role\":\"ROLE_USER\",\"messageId\":\"{message_id}\",\"parts\":[{{\"text\":\"%s\"}}]}}}}}}' {{text}})\" {{url}}/a2a"
    )
}

/// Runs the kit on `only` with `cmd`; returns the exit status and the rows by case id.
fn run(cmd: &str, only: &str, extra: &[&str]) -> (i32, Vec<Value>) {
    let dir = std::env::temp_dir().join(format!(
        "a2a-conformance-test-{}-{}",
        std::process::id(),
        only.len() + extra.len()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let json = dir.join(format!("{}.json", only.replace(',', "_")));
    let out = Command::new(BIN)
        .args([
            "conformance",
            "--client-cmd",
            cmd,
            "--name",
            "test",
            "--only",
            only,
        ])
        .arg("--json")
        .arg(&json)
        .args(extra)
        .output()
        .expect("run a2a-testkit conformance");
    let doc: Value =
        serde_json::from_slice(&std::fs::read(&json).expect("json written")).expect("json parses");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("| case | verdict |"), "{md}");
    (
        out.status.code().unwrap_or(-1),
        doc["rows"].as_array().expect("rows").clone(),
    )
}

fn verdict<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no row {id}: {rows:?}"))
}

#[test]
fn a_plain_curl_client_passes_the_baseline_and_fails_where_exit_0_hides_a_failure() {
    let (code, rows) = run(
        &curl_send("m-1", ""),
        "baseline-send,failed-error-id,send-502",
        &[],
    );
    assert_eq!(code, 0, "without --strict the run itself succeeds");
    assert_eq!(
        verdict(&rows, "baseline-send")["verdict"],
        "pass",
        "{rows:?}"
    );
    assert_eq!(verdict(&rows, "baseline-send")["messages"], 1);
    let failed = verdict(&rows, "failed-error-id");
    assert_eq!(failed["verdict"], "fail", "{failed}");
    assert!(
        failed["observed"]
            .as_str()
            .unwrap()
            .contains("exit 0 for a FAILED task"),
        "{failed}"
    );
    assert_eq!(
        verdict(&rows, "send-502")["verdict"],
        "fail",
        "curl exits 0 on a 502"
    );
}

#[test]
fn resends_are_judged_by_their_message_id_and_key() {
    // With --fail-with-body, curl exits 22 on a 502 and prints the body.
    let once = curl_send("m-1", "--fail-with-body");
    let (_, rows) = run(&once, "send-502", &[]);
    assert_eq!(verdict(&rows, "send-502")["verdict"], "pass", "{rows:?}");

    let blind = format!(
        "{} || {}",
        curl_send("m-1", "--fail-with-body"),
        curl_send("m-2", "--fail-with-body")
    );
    let (code, rows) = run(&blind, "send-502", &["--strict"]);
    let row = verdict(&rows, "send-502");
    assert_eq!(row["verdict"], "fail", "{row}");
    assert!(
        row["observed"].as_str().unwrap().contains("new messageId"),
        "{row}"
    );
    assert_eq!(row["messages"], 2);
    assert_eq!(code, 1, "--strict fails the run on a fail verdict");

    let keyed_flags = "--fail-with-body -H 'Idempotency-Key: k-1'";
    let keyed = format!(
        "{} || {}",
        curl_send("m-1", keyed_flags),
        curl_send("m-1", keyed_flags)
    );
    let (_, rows) = run(&keyed, "send-502", &[]);
    assert_eq!(verdict(&rows, "send-502")["verdict"], "pass", "{rows:?}");
    assert_eq!(verdict(&rows, "send-502")["messages"], 2);

    // After a 503 with Retry-After: 1, a resend without a key is allowed, but not at once.
    let (_, rows) = run(&blind, "send-503-retry-after", &[]);
    let row = verdict(&rows, "send-503-retry-after");
    assert_eq!(row["verdict"], "fail", "{row}");
    assert!(
        row["observed"].as_str().unwrap().contains("Retry-After"),
        "{row}"
    );
    let waited = format!(
        "{} || {{ sleep 1.2; {}; }}",
        curl_send("m-1", "--fail-with-body"),
        curl_send("m-2", "--fail-with-body")
    );
    let (_, rows) = run(&waited, "send-503-retry-after", &[]);
    assert_eq!(
        verdict(&rows, "send-503-retry-after")["verdict"],
        "pass",
        "{rows:?}"
    );
}

#[test]
fn a_client_that_never_returns_is_killed_at_the_deadline() {
    let started = std::time::Instant::now();
    let (_, rows) = run("sleep 60 # {url}", "call-hung", &["--deadline", "1"]);
    let row = verdict(&rows, "call-hung");
    assert_eq!(row["verdict"], "fail", "{row}");
    assert_eq!(row["killed_at_deadline"], true, "{row}");
    assert!(
        started.elapsed().as_secs() < 20,
        "the kit returned {:?} after the 1 s deadline",
        started.elapsed()
    );
}

#[test]
fn with_protocol_1_0_the_scenarios_speak_1_0_and_the_version_cases_keep_their_meaning() {
    let v1 = curl_send_v1("m-1", "-H 'A2A-Version: 1.0'");
    let (_, rows) = run(
        &v1,
        "baseline-send,failed-error-id,version-0.3-only-server",
        &["--protocol", "1.0"],
    );
    let base = verdict(&rows, "baseline-send");
    assert_eq!(base["verdict"], "pass", "{base}");
    assert_eq!(base["calls"][0]["method"], "SendMessage", "{base}");
    let out = base["output_tail"].as_str().unwrap();
    assert!(
        out.contains(r#""result":{"task":"#) && out.contains("TASK_STATE_COMPLETED"),
        "a 1.0 result: {out}"
    );
    let failed = verdict(&rows, "failed-error-id");
    assert!(
        failed["output_tail"]
            .as_str()
            .unwrap()
            .contains("TASK_STATE_FAILED"),
        "{failed}"
    );
    assert_eq!(failed["verdict"], "fail", "curl exits 0: {failed}");
    // The 0.3-only case stays 0.3 in a 1.0 run: the 1.0 call is not found there.
    let v03 = verdict(&rows, "version-0.3-only-server");
    assert!(
        v03["output_tail"].as_str().unwrap().contains("-32601"),
        "{v03}"
    );

    // Without `A2A-Version` a 1.0 method means 0.3: refused with -32009 (the core's rule).
    let bare = curl_send_v1("m-1", "");
    let (_, rows) = run(&bare, "baseline-send", &["--protocol", "1.0"]);
    let base = verdict(&rows, "baseline-send");
    assert!(
        base["output_tail"].as_str().unwrap().contains("-32009"),
        "{base}"
    );
    assert_eq!(base["verdict"], "fail", "exit 0 without the answer: {base}");

    // And the 0.3 run answers the same 1.0 call with -32601 (a 0.3 server), the 0.3 call with
    // the echo.
    let (_, rows) = run(
        &curl_send("m-1", ""),
        "baseline-send",
        &["--protocol", "0.3"],
    );
    assert_eq!(
        verdict(&rows, "baseline-send")["verdict"],
        "pass",
        "{rows:?}"
    );
}

#[test]
fn usage_errors() {
    for args in [
        &["conformance"][..],
        &["conformance", "--client", "nope"][..],
        &["conformance", "--client-cmd", "true"][..],
        &[
            "conformance",
            "--client-cmd",
            "x {url}",
            "--only",
            "no-such-case",
        ][..],
        &[
            "conformance",
            "--client-cmd",
            "x {url}",
            "--protocol",
            "2.0",
        ][..],
    ] {
        let out = Command::new(BIN).args(args).output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
