//! The `a2a` command's habits, as curl and git have them: `--version`, `CMD --help` for every
//! documented subcommand, unknown options named with a pointer to the help, malformed
//! arguments (a URL that does not parse included) as usage errors with nothing sent, and a
//! closed standard output ending the command quietly with exit 141 and no further calls.
#![cfg(feature = "driver")]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::FaultServer;

const BIN: &str = env!("CARGO_BIN_EXE_a2a");

/// Every subcommand the top-level usage lists.
const COMMANDS: &[&str] = &[
    "sse",
    "classify",
    "error-id",
    "demo",
    "card",
    "send",
    "stream",
    "get",
    "cancel",
    "resubscribe",
];
const NETWORK: &[&str] = &["card", "send", "stream", "get", "cancel", "resubscribe"];

fn a2a(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run a2a")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn version_at_top_level() {
    for flag in ["--version", "-V"] {
        let out = a2a(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{flag}");
        assert_eq!(
            text(&out.stdout),
            format!("a2a {}\n", env!("CARGO_PKG_VERSION")),
            "{flag}"
        );
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
}

#[test]
fn every_subcommand_has_its_help() {
    for cmd in COMMANDS {
        for flag in ["--help", "-h"] {
            let out = a2a(&[cmd, flag]);
            assert_eq!(out.status.code(), Some(0), "{cmd} {flag}");
            let help = text(&out.stdout);
            assert!(
                help.starts_with(&format!("usage: a2a {cmd}")),
                "{cmd} {flag}: {help}"
            );
            assert!(help.contains("--help"), "{cmd}: {help}");
            assert!(out.stderr.is_empty(), "{cmd}: {}", text(&out.stderr));
        }
        // `a2a help CMD`, as git has it.
        let out = a2a(&["help", cmd]);
        assert_eq!(out.status.code(), Some(0));
        assert!(text(&out.stdout).starts_with(&format!("usage: a2a {cmd}")));
    }
    // Help wins over everything else on the line, even a missing URL.
    let out = a2a(&["send", "--help"]);
    assert!(text(&out.stdout).contains("--timeout S"));
    let out = a2a(&["classify", "--help"]);
    let help = text(&out.stdout);
    assert!(
        help.contains("--protocol 0.3|1.0") && help.contains("--version"),
        "{help}"
    );
    let out = a2a(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    for cmd in COMMANDS {
        assert!(text(&out.stdout).contains(&format!("\n  {cmd} ")), "{cmd}");
    }
}

#[test]
fn an_unknown_option_names_itself_and_points_at_the_help() {
    for cmd in COMMANDS {
        let mut args = vec![*cmd];
        if NETWORK.contains(cmd) {
            args.extend(["https://agent.example/", "x"]);
        }
        if *cmd == "classify" {
            args.extend(["--status", "200"]);
        }
        args.push("--frobnicate=3");
        let out = a2a(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("unknown option --frobnicate"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains(&format!("'a2a {cmd} --help'")),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // A mistyped option before the positionals is named, not read as the URL or TEXT.
    let out = a2a(&["send", "--tmeout", "5", "https://agent.example/"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown option --tmeout"));
    let out = a2a(&["--frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown option --frobnicate"));
    assert!(text(&out.stderr).contains("'a2a --help'"));
}

#[test]
fn classify_protocol_and_its_old_spelling_agree() {
    let run = |flag: &str| {
        let mut child = Command::new(BIN)
            .args(["classify", "--status", "200", flag, "0.3"])
            .args(["--method", "message/send", "--request-id", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32009,"message":"v"}}"#)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (out.status.code(), text(&out.stdout))
    };
    let (code, new) = run("--protocol");
    assert_eq!(run("--version"), (code, new.clone()));
    assert!(new.contains("\"channel\":\"protocol\""), "{new}");
    let out = a2a(&["classify", "--status", "200", "--protocol", "2.0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--protocol"));
}

#[test]
fn malformed_urls_are_usage_errors_and_nothing_is_sent() {
    let fs = FaultServer::start();
    let ok = fs.agent("ok");
    let bad = [
        format!("{ok} with space"),
        ok.replace("http://", "http//"),
        ok.replace("http://", "ftp://"),
        "".to_owned(),
        "not a url".to_owned(),
    ];
    for url in &bad {
        for cmd in NETWORK {
            let mut args = vec![*cmd, url.as_str(), "--allow-http"];
            if *cmd != "card" {
                args.push("x");
            }
            let out = a2a(&args);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{args:?}: {}",
                text(&out.stderr)
            );
            assert!(
                text(&out.stderr).contains("Try 'a2a"),
                "{args:?}: {}",
                text(&out.stderr)
            );
        }
        let out = a2a(&[
            "send",
            url,
            "x",
            "--no-card",
            "--protocol",
            "1.0",
            "--allow-http",
        ]);
        assert_eq!(out.status.code(), Some(2), "--no-card {url:?}");
    }
    assert_eq!(
        fs.counters("ok")["requests"],
        0,
        "nothing reached the server"
    );
    // A policy refusal stays exit 3 (the command is well formed; the library refuses it).
    let out = a2a(&["send", &ok, "x"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert_eq!(fs.counters("ok")["requests"], 0);
}

/// Waits at most `limit` for the child; kills it and fails the test past that.
fn wait_bounded(child: &mut std::process::Child, limit: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("a2a did not end within {limit:?} after its standard output was closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_closed_stdout_ends_a_stream_quietly_with_141_and_no_further_call() {
    let fs = FaultServer::start();
    // Working-state events every 20 ms for 60 s: far longer than the bound below.
    let scenario = "flow-20-60000";
    let mut child = Command::new(BIN)
        .args(["stream", &fs.agent(scenario), "x", "--allow-http", "--json"])
        .args(["--resubscribes", "3", "--retries", "3"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("\"item\""), "{first}");
    drop(stdout); // the reader goes away, as `| head -1` does
    let status = wait_bounded(&mut child, Duration::from_secs(30));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(141), "stderr: {err}");
    assert_eq!(err, "", "no message on a closed stdout");
    let c = fs.counters(scenario);
    assert_eq!(c["streams"], 1, "{c}");
    assert_eq!(c["resubscribes"], 0, "no call after the reader left: {c}");
    assert_eq!(c["sends"], 0, "{c}");
}

#[test]
fn a_closed_stdout_ends_sse_and_classify_with_141() {
    let event = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"working\"},\"final\":false}}\n\n";
    for args in [vec!["sse"], vec!["classify", "--status", "200", "--stream"]] {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        // Feeds events until the program is gone (a write then fails), at most 60 s' worth.
        let writer = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while Instant::now() < deadline {
                if input.write_all(event.as_bytes()).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "{args:?}");
        drop(stdout);
        let status = wait_bounded(&mut child, Duration::from_secs(30));
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(141), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
        writer.join().unwrap();
    }
}
