//! The `a2a-testkit` commands as CI and the binding tests launch them: the fault server's
//! start-up contract (FULL and READY lines, counters, exit on end of input), the request
//! matrix, the model reader and usage errors. (Having an integration test also makes
//! `cargo test --workspace` build the binary that the core's driver tests run.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_a2a-testkit");

#[test]
fn fault_server_announces_its_urls_counts_and_exits_when_input_closes() {
    let mut child = Command::new(BIN)
        .args(["fault-server", "--port", "0", "--exit-on-eof"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn a2a-testkit fault-server");
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let lines: Vec<String> = BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .take(2)
            .collect();
        let _ = tx.send(lines);
    });
    let lines = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("two lines within 20 s");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("FULL http://127.0.0.1:"), "{lines:?}");
    let base = lines[1]
        .strip_prefix("READY ")
        .expect("READY line")
        .to_owned();
    let addr = base
        .strip_prefix("http://127.0.0.1:")
        .expect("loopback URL");
    assert!(addr.parse::<u16>().is_ok_and(|p| p != 0), "{base}");

    // The card of a scenario, then its counters, with a plain socket.
    let get = |path: &str| -> String {
        let host = base.trim_start_matches("http://");
        let mut s = TcpStream::connect(host).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let card = get("/ok/.well-known/agent-card.json");
    assert!(card.starts_with("HTTP/1.1 200"), "{card}");
    assert!(card.contains(&format!("{base}/ok/a2a")), "{card}");
    let counters = get("/_counters/ok");
    let body = counters.split_once("\r\n\r\n").expect("head and body").1;
    let v: serde_json::Value = serde_json::from_str(body).expect("JSON counters");
    assert_eq!(v["cards"], 1, "{v}");

    drop(child.stdin.take());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the fault server did not exit within 20 s of its input closing"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
}

#[test]
fn build_matrix_writes_one_request_per_line() {
    let out = Command::new(BIN).arg("build-matrix").output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert!(lines.len() > 20, "{} lines", lines.len());
    assert!(lines.iter().all(|l| l.is_object()));
}

#[test]
fn model_read_reads_a_task() {
    let mut child = Command::new(BIN)
        .args(["model-read", "--form", "1.0", "--type", "task"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}"#)
        .unwrap();
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["kind"], "task", "{v}");
    assert_eq!(v["state"], "completed", "{v}");
    assert_eq!(v["rewritten"]["id"], "t1", "{v}");
    assert_eq!(
        v["rewritten"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{v}"
    );
}

#[test]
fn unknown_commands_and_bad_options_are_usage_errors() {
    for args in [&["nope"][..], &[][..], &["fault-server", "--port", "x"][..]] {
        let out = Command::new(BIN).args(args).output().expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("usage: a2a-testkit"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
