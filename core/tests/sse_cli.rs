//! `a2a sse` end to end: the built binary, its output format, exit status and streaming.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const A2A: &str = env!("CARGO_BIN_EXE_a2a");

fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(A2A)
        .arg("sse")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn a2a");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("a2a output");
    writer.join().expect("writer thread").expect("write stdin");
    out
}

fn stdout(out: &Output) -> &str {
    std::str::from_utf8(&out.stdout).expect("UTF-8 output")
}

#[test]
fn prints_one_exact_json_object_per_event() {
    let input = b"\xEF\xBB\xBFid: 1\r\nevent: status\r\ndata: {\"a\":\"\xC3\xA9\"}\r\ndata: 2\r\n\r\n: ping\n\ndata: tab\there \"q\" \\ \xFF\n\n";
    let out = run(&[], input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout(&out),
        concat!(
            r#"{"type":"status","data":"{\"a\":\"é\"}\n2","id":"1"}"#,
            "\n",
            r#"{"type":"message","data":"tab\there \"q\" \\ �","id":"1"}"#,
            "\n"
        )
    );
    assert!(out.stderr.is_empty());
}

#[test]
fn chunking_does_not_change_the_output() {
    let input = b"data: a\r\ndata: b\r\n\r\nid: 7\rdata: c\r\r";
    let whole = run(&[], input);
    for n in ["1", "2", "3", "7"] {
        let chunked = run(&["--chunk", n], input);
        assert_eq!(stdout(&chunked), stdout(&whole), "--chunk {n}");
    }
    assert_eq!(stdout(&whole).lines().count(), 2);
}

#[test]
fn limit_errors_go_to_stderr_and_exit_1_after_all_events() {
    let out = run(
        &["--max-line", "10"],
        b"data: 1\n\ndata: 0123456789\n\ndata: 2\n\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "{\"type\":\"message\",\"data\":\"1\",\"id\":\"\"}\n{\"type\":\"message\",\"data\":\"2\",\"id\":\"\"}\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_line (10 bytes)"));
    let out = run(&["--max-event=3"], b"data: 1234\n\ndata: 2\n\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_event (3 bytes)"));
    assert_eq!(stdout(&out).lines().count(), 1);
}

#[test]
fn unterminated_block_is_discarded_or_dispatched_at_eof() {
    let out = run(&[], b"data: a\n\ndata: b");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out).lines().count(), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("discarded 7 byte(s)"));
    let out = run(&["--dispatch-at-eof"], b"data: a\n\ndata: b");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out).lines().nth(1),
        Some("{\"type\":\"message\",\"data\":\"b\",\"id\":\"\"}")
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--chunk", "0"][..],
        &["--chunk", "x"],
        &["--bogus"],
        &["--max-line"],
    ] {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn each_event_is_written_before_input_ends() {
    let mut child = Command::new(A2A)
        .arg("sse")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn a2a");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.expect("stdout line")).is_err() {
                break;
            }
        }
    });
    stdin.write_all(b"data: first\n\ndata: sec").expect("write");
    stdin.flush().expect("flush");
    // Input is still open: the first event must arrive anyway (bounded wait).
    let first = rx.recv_timeout(Duration::from_secs(20));
    let second_early = rx.recv_timeout(Duration::from_millis(200));
    stdin.write_all(b"ond\n\n").expect("write");
    drop(stdin);
    let second = rx.recv_timeout(Duration::from_secs(20));
    let status = child.wait().expect("exit");
    reader.join().expect("reader thread");
    assert_eq!(
        first.as_deref(),
        Ok("{\"type\":\"message\",\"data\":\"first\",\"id\":\"\"}")
    );
    assert!(
        second_early.is_err(),
        "the unfinished event was printed early"
    );
    assert_eq!(
        second.as_deref(),
        Ok("{\"type\":\"message\",\"data\":\"second\",\"id\":\"\"}")
    );
    assert_eq!(status.code(), Some(0));
}
