//! `a2a card|send|stream|get|cancel|resubscribe` against the fault server: exit statuses
//! from the outcome table, human and `--json` output, credentials from the environment.
#![cfg(feature = "driver")]

mod common;

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{FaultServer, timing_lock};

fn a2a(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_a2a"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run a2a")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn exit_statuses_follow_the_outcome() {
    let fs = FaultServer::start();
    let ok = fs.agent("ok");
    let cases: Vec<(Vec<String>, i32)> = vec![
        (vec!["send".into(), ok.clone(), "hello".into()], 0),
        (vec!["send".into(), ok.clone(), "fail".into()], 5),
        (vec!["cancel".into(), ok.clone(), "task-1".into()], 6),
        (vec!["get".into(), ok.clone(), "task-1".into()], 0),
        (vec!["get".into(), fs.agent("working"), "task-1".into()], 7),
        (
            vec!["send".into(), fs.agent("status-503-rpc"), "x".into()],
            4,
        ),
        (vec!["send".into(), fs.agent("status-502"), "x".into()], 3),
        (vec!["send".into(), fs.agent("redirect"), "x".into()], 3),
        (
            vec!["send".into(), fs.agent("card-otherhost"), "x".into()],
            3,
        ),
        (vec!["send".into(), fs.agent("card-302"), "x".into()], 3),
        (vec!["stream".into(), ok.clone(), "x".into()], 0),
        (
            vec!["stream".into(), fs.agent("stream-drop"), "x".into()],
            3,
        ),
        (vec!["resubscribe".into(), ok.clone(), "task-3".into()], 0),
        (vec!["card".into(), ok.clone()], 0),
    ];
    for (args, code) in cases {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.push("--allow-http");
        let out = a2a(&a, &[]);
        assert_eq!(out.status.code(), Some(code), "{a:?}: {}", stderr(&out));
    }
    assert_eq!(fs.counters("redirect-target")["requests"], 0);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["send"],
        vec!["send", "http://127.0.0.1:1/"],
        vec!["get", "http://127.0.0.1:1/"],
        vec!["send", "http://127.0.0.1:1/", "x", "--protocol", "2.0"],
        vec!["send", "http://127.0.0.1:1/", "x", "--timeout", "-1"],
        vec!["send", "http://127.0.0.1:1/", "x", "--header", "no colon"],
        vec![
            "send",
            "http://127.0.0.1:1/",
            "x",
            "--bearer-env",
            "A2A_TEST_SURELY_UNSET_VAR",
        ],
        vec!["send", "http://127.0.0.1:1/", "x", "extra"],
    ] {
        let out = a2a(&args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn human_output_text_on_stdout_state_on_stderr() {
    let fs = FaultServer::start();
    let out = a2a(
        &["send", &fs.agent("ok"), "hello world", "--allow-http"],
        &[],
    );
    assert_eq!(stdout(&out), "hello world\n");
    assert!(stderr(&out).contains(": completed"));
    let out = a2a(
        &[
            "send",
            &fs.agent("ok"),
            "fail",
            "--allow-http",
            "--model-text",
        ],
        &[],
    );
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(err.contains("error_id: 0f1e2d3c4b5a"), "{err}");
    assert!(err.contains("REMOTE_FAILED fault ok"), "{err}");
    let out = a2a(&["stream", &fs.agent("burst-3"), "x", "--allow-http"], &[]);
    assert_eq!(stdout(&out), "chunk 0;chunk 1;chunk 2;\n");
    let out = a2a(
        &[
            "stream",
            &fs.agent("stream-drop"),
            "x",
            "--allow-http",
            "--resubscribes",
            "1",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "part one, part two\n");
    assert!(stderr(&out).contains("resubscribing to task"));
    let k = fs.counters("stream-drop");
    assert_eq!(k["messages"], 1, "the message was sent once");
    assert_eq!(k["resubscribes"], 1);
}

#[test]
fn json_output_is_the_classify_object_with_correlation() {
    let fs = FaultServer::start();
    let out = a2a(
        &["send", &fs.agent("ok"), "hi", "--allow-http", "--json"],
        &[],
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    for k in [
        "channel",
        "http_status",
        "code",
        "error",
        "reason",
        "message",
        "state",
        "terminal",
        "task_id",
        "context_id",
        "text",
        "error_id",
        "retry",
        "hint",
        "correlation",
    ] {
        assert!(keys.contains(&k), "missing {k}: {v}");
    }
    assert_eq!(v["channel"], "task");
    assert_eq!(v["state"], "completed");
    let seen = &fs.counters("ok")["seen"][0];
    assert_eq!(v["correlation"]["jsonrpc_id"], seen["id"]);
    assert_eq!(v["correlation"]["traceparent"], seen["traceparent"]);
    assert_eq!(v["correlation"]["message_id"], seen["message_id"]);

    let out = a2a(
        &["stream", &fs.agent("ok"), "hi", "--allow-http", "--json"],
        &[],
    );
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "four items and the end");
    assert_eq!(lines[0]["item"], "task");
    assert_eq!(lines[2]["item"], "artifact-update");
    assert_eq!(lines[2]["text"], "hi");
    assert_eq!(lines[4]["end"], "completed");
    assert_eq!(lines[4]["state"], "completed");
    assert!(lines[4]["correlation"]["task_id"].is_string());
}

#[test]
fn bearer_token_from_the_environment_is_sent_and_never_printed() {
    let fs = FaultServer::start();
    let secret = "s3cr3t-token-value";
    let out = a2a(&["send", &fs.agent("secured"), "x", "--allow-http"], &[]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "not sent without the credential"
    );
    assert!(
        stderr(&out).contains("requires credentials"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs.counters("secured")["messages"], 0);
    let out = a2a(
        &[
            "send",
            &fs.agent("secured"),
            "x",
            "--allow-http",
            "--bearer-env",
            "A2A_TEST_TOKEN",
            "--json",
        ],
        &[("A2A_TEST_TOKEN", secret)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains(secret) && !stderr(&out).contains(secret));
    let k = fs.counters("secured");
    assert_eq!(k["seen"][0]["authorization"], true);
    assert!(k["cards"].as_u64().unwrap() >= 2);
    assert_eq!(
        k["cards_with_authorization"], 0,
        "the card fetch never carries credentials"
    );
}

#[test]
fn a_hung_call_exits_3_at_the_timeout_with_remote_unknown() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let t = Instant::now();
    let out = a2a(
        &[
            "send",
            &fs.agent("hang"),
            "x",
            "--allow-http",
            "--timeout",
            "1",
            "--model-text",
        ],
        &[],
    );
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("REMOTE_UNKNOWN"), "{}", stderr(&out));
}

#[test]
fn the_demo_runs_every_step_as_described() {
    let _g = timing_lock();
    let t = Instant::now();
    let out = a2a(&["demo"], &[]);
    assert!(t.elapsed() < Duration::from_secs(30));
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}\n{}", stderr(&out));
    assert!(text.contains("Every step behaved as described."));
    // The error_id the client saw is the one the agent logged.
    let id_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("error_id: "))
        .expect("error_id line");
    let id = id_line.split_whitespace().nth(1).unwrap();
    assert_eq!(id.len(), 12);
    assert!(
        text.lines()
            .any(|l| l.contains("[agent] ERROR") && l.contains(id))
    );
    assert!(text.contains("a2a_outcomes_total{agent=\"demo-agent\",method=\"GetTask\",channel=\"protocol\",code=\"TaskNotFound\"} 1"));
}

#[test]
fn retries_reuse_the_idempotency_key_and_message_id() {
    let fs = FaultServer::start();
    let out = a2a(
        &[
            "send",
            &fs.agent("idem-drop"),
            "book",
            "--allow-http",
            "--retries",
            "2",
            "--idempotency-key",
            "k-cli-1",
            "--json",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["correlation"]["attempts"], 2);
    assert_eq!(v["correlation"]["idempotency_key"], "k-cli-1");
    let seen = fs.counters("idem-drop")["seen"].as_array().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0]["message_id"], seen[1]["message_id"]);
    assert_eq!(seen[0]["idempotency_key"], "k-cli-1");
    assert_eq!(seen[1]["idempotency_key"], "k-cli-1");
    assert_ne!(seen[0]["id"], seen[1]["id"]);
}
