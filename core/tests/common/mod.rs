//! Shared helpers for the driver tests: the fault server as a child process, its counters,
//! and a lock that runs timing-sensitive tests one at a time.
//!
//! The fault server is `a2a-testkit fault-server`, a binary of the unpublished `testkit/`
//! workspace member. Cargo hands a test only the binaries of its own package
//! (`CARGO_BIN_EXE_*`), so [`testkit_bin`] finds it the way the CI scripts do:
//! `$A2A_TESTKIT_BIN`, else beside this package's `a2a` binary (same target directory and
//! profile). `cargo test --workspace` builds it; for this package alone run
//! `cargo build -p a2a-testkit` first.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Timing tests take this lock so they do not compete for the two cores.
static TIMING: Mutex<()> = Mutex::new(());

/// Serializes timing-sensitive tests.
pub fn timing_lock() -> MutexGuard<'static, ()> {
    TIMING.lock().unwrap_or_else(|e| e.into_inner())
}

/// The `a2a-testkit` binary: `$A2A_TESTKIT_BIN` if set, else the one built beside `a2a`.
pub fn testkit_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("A2A_TESTKIT_BIN").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let beside = std::path::Path::new(env!("CARGO_BIN_EXE_a2a"))
        .with_file_name(format!("a2a-testkit{}", std::env::consts::EXE_SUFFIX));
    assert!(
        beside.is_file(),
        "the fault server {} is not built: run `cargo build -p a2a-testkit` \
         (`cargo test --workspace` builds it) or set A2A_TESTKIT_BIN",
        beside.display()
    );
    beside
}

/// A running `a2a-testkit fault-server`, killed on drop.
pub struct FaultServer {
    child: Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// The full-backlog listener's URL.
    pub full: String,
}

impl FaultServer {
    /// Starts the server and waits (at most 20 s) for its READY line.
    pub fn start() -> FaultServer {
        let mut child = Command::new(testkit_bin())
            .args(["fault-server", "--port", "0", "--exit-on-eof"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn a2a-testkit fault-server");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let mut full = String::new();
            while let Some(Ok(line)) = lines.next() {
                if let Some(u) = line.strip_prefix("FULL ") {
                    full = u.to_owned();
                }
                if let Some(u) = line.strip_prefix("READY ") {
                    let _ = tx.send((u.to_owned(), full.clone()));
                    break;
                }
            }
        });
        let (base, full) = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("fault server printed READY within 20 s");
        FaultServer { child, base, full }
    }

    /// The URL of a scenario's JSON-RPC interface.
    pub fn a2a(&self, scenario: &str) -> String {
        format!("{}/{scenario}/a2a", self.base)
    }

    /// The base URL of a scenario (its card is under it).
    pub fn agent(&self, scenario: &str) -> String {
        format!("{}/{scenario}", self.base)
    }

    /// One scenario's counters (`GET /_counters/<scenario>`), read with a plain socket so
    /// the driver under test is not involved.
    pub fn counters(&self, scenario: &str) -> serde_json::Value {
        let addr = self.base.trim_start_matches("http://");
        let mut s = TcpStream::connect(addr).expect("connect to fault server");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET /_counters/{scenario} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let body = text.split_once("\r\n\r\n").expect("head and body").1;
        serde_json::from_str(body).expect("counters are JSON")
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A JSON-RPC 0.3 `message/send` (or `message/stream`) request body.
pub fn rpc_message(method: &str, id: &str, message_id: &str, text: &str) -> Vec<u8> {
    serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": method,
        "params": {"message": {"kind": "message", "messageId": message_id, "role": "user",
                               "parts": [{"kind": "text", "text": text}]}}
    })
    .to_string()
    .into_bytes()
}

/// Asserts `elapsed` lies in `[low, high]`.
pub fn assert_between(elapsed: Duration, low: Duration, high: Duration, what: &str) {
    assert!(
        elapsed >= low && elapsed <= high,
        "{what}: took {elapsed:?}, expected between {low:?} and {high:?}"
    );
}

/// Now, for elapsed-time checks.
pub fn now() -> Instant {
    Instant::now()
}

/// `a2a demo --serve` with `extra` options, as a child process: its base URL from the
/// `READY <url>` line. Killed (and waited for, at most 5 s) on drop.
pub struct Demo {
    child: Child,
    /// The agent's base URL.
    pub url: String,
}

impl Demo {
    /// Starts the agent and waits for its READY line.
    pub fn start(extra: &[&str]) -> Demo {
        let mut child = Command::new(env!("CARGO_BIN_EXE_a2a"))
            .args(["demo", "--serve"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn a2a demo --serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("READY line");
        let url = line
            .trim()
            .strip_prefix("READY ")
            .expect("READY <url>")
            .to_owned();
        Demo { child, url }
    }

    /// Stops the agent now (a SIGKILL; see `driver_cli` for the SIGTERM exit).
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Reads one HTTP/1.1 request from `conn`: its head (lowercased, for matching) and its
/// `Content-Length` body. `None` when the peer closes or the read fails first; a request
/// over 1 MiB is a test failure.
pub fn read_request(conn: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = conn.read(&mut chunk).ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
        assert!(buf.len() < 1 << 20, "request too large");
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |v| v.trim().parse().unwrap_or(0));
        if buf.len() >= end + 4 + len {
            return Some((head, buf[end + 4..end + 4 + len].to_vec()));
        }
    }
}
