//! `a2a classify` and `a2a error-id` as a user runs them: every row of the outcome table
//! through the binary (whole and, for event streams, `--stream`), exit codes, usage errors.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

const TABLE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/outcomes.json"
));
const ERROR_IDS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/error_ids.json"
));

fn a2a(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn a2a");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait a2a");
    writer.join().unwrap();
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn row_args(input: &Value) -> Vec<String> {
    let mut args = vec![
        "classify".to_owned(),
        "--status".to_owned(),
        input["status"].to_string(),
    ];
    let mut opt = |flag: &str, key: &str| {
        if let Some(v) = input.get(key).and_then(Value::as_str) {
            args.push(flag.to_owned());
            args.push(v.to_owned());
        }
    };
    opt("--content-type", "content_type");
    opt("--protocol", "version");
    opt("--binding", "binding");
    opt("--method", "method");
    opt("--request-id", "request_id");
    if let Some(Value::Object(h)) = input.get("headers") {
        for (k, v) in h {
            args.push("--header".to_owned());
            args.push(format!("{k}: {}", v.as_str().unwrap()));
        }
    }
    args
}

fn check(id: &str, row: &Value, line: &str, code: i32, failures: &mut Vec<String>) {
    let got: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            failures.push(format!("{id}: output is not JSON ({e}): {line}"));
            return;
        }
    };
    for (k, want) in row["expect"].as_object().unwrap() {
        if got.get(k) != Some(want) {
            failures.push(format!("{id}: {k}: want {want}, got {}", got[k]));
        }
    }
    if row["exit_code"].as_i64() != Some(i64::from(code)) {
        failures.push(format!("{id}: exit {code}, want {}", row["exit_code"]));
    }
}

#[test]
fn every_response_row_through_the_binary() {
    let table: Value = serde_json::from_str(TABLE).unwrap();
    let mut failures = Vec::new();
    let mut ran = 0;
    for row in table["rows"].as_array().unwrap() {
        let input = &row["input"];
        let Some(body) = input.get("body").and_then(Value::as_str) else {
            continue; // transport rows and base64 bodies
        };
        let id = row["id"].as_str().unwrap();
        let args = row_args(input);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = a2a(&argv, body.as_bytes());
        let lines: Vec<&str> = out.lines().collect();
        if lines.len() != 1 {
            failures.push(format!("{id}: {} lines, stderr {err}", lines.len()));
            continue;
        }
        check(id, row, lines[0], code, &mut failures);
        ran += 1;
        if input["content_type"]
            .as_str()
            .is_some_and(|c| c.starts_with("text/event-stream"))
        {
            let mut sargs = argv.clone();
            sargs.push("--stream");
            let (code, out, _) = a2a(&sargs, body.as_bytes());
            let last = out.lines().last().unwrap_or("");
            check(&format!("{id} --stream"), row, last, code, &mut failures);
            let end: Value = serde_json::from_str(last).unwrap_or(Value::Null);
            if !end["end"].is_string() {
                failures.push(format!("{id} --stream: last line has no \"end\": {last}"));
            }
            for item in out.lines().rev().skip(1) {
                let v: Value = serde_json::from_str(item).unwrap_or(Value::Null);
                if !v["item"].is_string() {
                    failures.push(format!("{id} --stream: item line without \"item\": {item}"));
                }
            }
        }
    }
    assert!(ran > 150, "only {ran} rows ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn stream_items_are_printed_in_order_with_their_kinds() {
    let body = concat!(
        "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"kind\":\"task\",\"id\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"submitted\"}}}\r\n\r\n",
        ": ping - 2026-11-30 00:12:27.571686+00:00\r\n\r\n",
        "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"kind\":\"artifact-update\",\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"artifact\":{\"artifactId\":\"a\",\"parts\":[{\"kind\":\"text\",\"text\":\"x\"}]}}}\r\n\r\n",
        "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"failed\",\"message\":{\"kind\":\"message\",\"messageId\":\"m\",\"role\":\"agent\",\"parts\":[{\"kind\":\"text\",\"text\":\"Agent execution failed. (error_id: 0123456789ab)\"}]}},\"final\":true}}\r\n\r\n",
    );
    let (code, out, _) = a2a(
        &[
            "classify",
            "--status",
            "200",
            "--stream",
            "--method",
            "message/stream",
            "--request-id",
            "2",
        ],
        body.as_bytes(),
    );
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = lines
        .iter()
        .map(|v| v["item"].as_str().or(v["end"].as_str()).unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["task", "artifact-update", "status-update", "completed"]
    );
    assert_eq!(lines[3]["state"], "failed");
    assert_eq!(lines[3]["error_id"], "0123456789ab");
    assert_eq!(lines[1]["text"], "x");
    assert_eq!(code, 5);
}

#[test]
fn stream_flag_with_json_content_type_classifies_the_up_front_error() {
    let body = br#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: SendStreamingMessage"}}"#;
    let (code, out, _) = a2a(
        &[
            "classify",
            "--status",
            "200",
            "--stream",
            "--content-type",
            "application/json",
            "--version",
            "1.0",
            "--method",
            "SendStreamingMessage",
            "--request-id",
            "4",
        ],
        body,
    );
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["channel"], "protocol");
    assert_eq!(v["retry"], "fix_version");
    assert_eq!(code, 4);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["classify"][..],
        &["classify", "--status", "abc"],
        &["classify", "--status", "200", "--version", "2.0"],
        &["classify", "--status", "200", "--binding", "grpc"],
        &["classify", "--status", "200", "--header", "no-colon"],
        &["classify", "--status", "200", "--bogus"],
        &["error-id", "extra"],
    ] {
        let (code, out, err) = a2a(args, b"");
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?}");
        assert!(err.contains("--help"), "{args:?}: {err}");
    }
}

#[test]
fn error_id_fixture_through_the_binary() {
    let cases: Value = serde_json::from_str(ERROR_IDS).unwrap();
    for case in cases["cases"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let (code, out, _) = a2a(&["error-id"], text.as_bytes());
        match case["expect"].as_str() {
            Some(id) => {
                assert_eq!(code, 0, "{text:?}");
                assert_eq!(out, format!("{id}\n"), "{text:?}");
            }
            None => {
                assert_eq!(code, 1, "{text:?}");
                assert!(out.is_empty(), "{text:?}");
            }
        }
    }
}

#[test]
fn test_tooling_is_not_a_command_of_the_shipped_binary() {
    // The fault server, the request matrix and the model reader live in the unpublished
    // `a2a-testkit` binary (testkit/): the `a2a` users install does not know them.
    for command in ["fault-server", "build-matrix", "model-read"] {
        let (code, out, err) = a2a(&[command, "--port", "0"], b"");
        assert_eq!(code, 2, "a2a {command}: {err}");
        assert!(out.is_empty(), "a2a {command} wrote {out:?}");
        assert!(
            err.contains(&format!("a2a: unknown command \"{command}\"")),
            "a2a {command}: {err}"
        );
    }
    let (code, usage, _) = a2a(&["--help"], b"");
    assert_eq!(code, 0);
    for hidden in ["fault-server", "build-matrix", "model-read"] {
        assert!(!usage.contains(hidden), "usage mentions {hidden}: {usage}");
    }
}
