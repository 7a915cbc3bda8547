//! Issue 21: the loopback servers (`a2a demo --serve` and `a2a-testkit fault-server`, which
//! share `core/src/bin/a2a/loopback_http.rs`) read requests as RFC 9112 says and survive
//! clients that try to exhaust them. Every test talks raw HTTP/1.1 on a loopback TcpStream:
//! - request smuggling (both `Content-Length` and `Transfer-Encoding`, two lengths, `+5`,
//!   `abc`): refused with 400 and `connection: close`, and the second SendMessage hidden in
//!   the body is never run (the demo's own tally, the fault server's counters);
//! - a chunked body and `Expect: 100-continue` are served;
//! - a head dribbled slower than the head deadline is cut with 408;
//! - connections over the cap get 503 while the earlier ones are still served.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{rpc_message, testkit_bin};

/// Longest any single wait of these tests lasts.
const WAIT: Duration = Duration::from_secs(15);

/// A server child process, killed on drop.
struct Server {
    child: Child,
    /// `127.0.0.1:<port>`.
    addr: String,
}

impl Server {
    fn spawn(mut cmd: Command) -> Server {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("READY http://") {
                    let _ = tx.send(url.to_owned());
                }
            }
        });
        let addr = rx.recv_timeout(WAIT).expect("READY within the wait");
        Server { child, addr }
    }

    fn demo() -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_a2a"));
        cmd.args(["demo", "--serve"]);
        Server::spawn(cmd)
    }

    fn fault(extra: &[&str]) -> Server {
        let mut cmd = Command::new(testkit_bin());
        cmd.args(["fault-server", "--port", "0", "--exit-on-eof"])
            .args(extra);
        Server::spawn(cmd)
    }

    /// Sends `wire` on a new connection and reads until the server closes it (or the wait
    /// passes: then what was read so far).
    fn exchange(&self, wire: &[u8]) -> String {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(WAIT)).unwrap();
        s.write_all(wire).unwrap();
        read_to_close(&mut s)
    }

    /// A POST of `body` to `path` with `headers` (each ending in CRLF) and `Host`.
    fn post(&self, path: &str, headers: &str, body: &[u8]) -> Vec<u8> {
        let mut wire = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\n{headers}\r\n",
            self.addr
        )
        .into_bytes();
        wire.extend_from_slice(body);
        wire
    }

    /// Stops a demo agent with SIGTERM and returns what it printed on standard error.
    fn terminate(mut self) -> String {
        let killed = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let deadline = Instant::now() + WAIT;
        while self.child.try_wait().unwrap().is_none() {
            assert!(
                Instant::now() < deadline,
                "the server did not stop on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut err = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        err
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads until end of file, a reset or the read timeout.
fn read_to_close(s: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&out).into_owned(),
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
}

/// The status codes of every response in `text` (bodies here never hold `HTTP/1.1 `).
fn statuses(text: &str) -> Vec<u16> {
    text.match_indices("HTTP/1.1 ")
        .filter_map(|(i, m)| text.get(i + m.len()..i + m.len() + 3)?.parse().ok())
        .collect()
}

/// The sum of the counters in a tally's Prometheus lines.
fn tally_total(stderr: &str) -> u64 {
    stderr
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("a2a_outcomes_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// Request bodies that hide a second SendMessage behind an ambiguous length, each as
/// (what, headers, body). A server that reads the length the wrong way runs `smuggled`
/// as a request of its own.
fn attacks(addr: &str, path: &str) -> Vec<(&'static str, String, Vec<u8>)> {
    let first = rpc_message("message/send", "1", "m-first", "echo first");
    let hidden = rpc_message("message/send", "2", "m-smuggled", "echo smuggled");
    let mut smuggled = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        hidden.len()
    )
    .into_bytes();
    smuggled.extend_from_slice(&hidden);
    let both = [&first[..], &smuggled[..]].concat();
    let (n1, n2) = (first.len(), both.len());
    vec![
        (
            "Content-Length then Transfer-Encoding",
            format!("Content-Length: {n1}\r\nTransfer-Encoding: chunked\r\n"),
            both.clone(),
        ),
        (
            "Transfer-Encoding then Content-Length",
            format!("Transfer-Encoding: chunked\r\nContent-Length: {n1}\r\n"),
            both.clone(),
        ),
        (
            "two different lengths",
            format!("Content-Length: {n1}\r\nContent-Length: {n2}\r\n"),
            both.clone(),
        ),
        (
            "a list of two lengths",
            format!("Content-Length: {n1}, {n2}\r\n"),
            both.clone(),
        ),
        (
            "a signed length",
            format!("Content-Length: +{n1}\r\n"),
            both.clone(),
        ),
        (
            "a length that is not a number",
            "Content-Length: abc\r\n".to_owned(),
            smuggled.clone(),
        ),
        (
            "a transfer coding that does not end in chunked",
            "Transfer-Encoding: chunked, identity\r\n".to_owned(),
            smuggled.clone(),
        ),
    ]
}

/// Asserts `text` is exactly one refusal with `status` and `connection: close`.
fn assert_refused(text: &str, status: u16, what: &str) {
    assert_eq!(statuses(text), [status], "{what}: {text}");
    let head = text.split("\r\n\r\n").next().unwrap_or("");
    assert!(head.contains("\r\nconnection: close"), "{what}: {text}");
}

#[test]
fn the_demo_agent_refuses_smuggled_requests_and_never_runs_them() {
    let demo = Server::demo();
    for (what, headers, body) in attacks(&demo.addr, "/a2a") {
        let headers = format!("Content-Type: application/json\r\n{headers}");
        let answer = demo.exchange(&demo.post("/a2a", &headers, &body));
        assert_refused(&answer, 400, what);
        assert!(!answer.contains("smuggled"), "{what}: {answer}");
    }
    // The server still serves, once per request: a chunked send is read whole.
    let body = rpc_message("message/send", "3", "m-legit", "echo legit");
    let mut chunked = format!("{:x}\r\n", 10).into_bytes();
    chunked.extend_from_slice(&body[..10]);
    chunked.extend_from_slice(format!("\r\n{:x};ext=1\r\n", body.len() - 10).as_bytes());
    chunked.extend_from_slice(&body[10..]);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    let wire = demo.post(
        "/a2a",
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n",
        &chunked,
    );
    let answer = demo.exchange(&wire);
    assert_eq!(statuses(&answer), [200], "{answer}");
    assert!(answer.contains("legit"), "{answer}");
    let stderr = demo.terminate();
    assert_eq!(
        tally_total(&stderr),
        1,
        "only the one legitimate request was served: {stderr}"
    );
}

#[test]
fn the_demo_agent_answers_100_continue_before_the_body() {
    let demo = Server::demo();
    let body = rpc_message("message/send", "1", "m-1", "echo after continue");
    let head = demo.post(
        "/a2a",
        &format!(
            "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        ),
        b"",
    );
    let mut s = TcpStream::connect(&demo.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(&head).unwrap();
    let mut interim = [0u8; 25];
    s.read_exact(&mut interim)
        .expect("an interim response before the body is sent");
    assert_eq!(&interim, b"HTTP/1.1 100 Continue\r\n\r\n");
    s.write_all(&body).unwrap();
    let answer = read_to_close(&mut s);
    assert_eq!(statuses(&answer), [200], "{answer}");
    assert!(answer.contains("after continue"), "{answer}");
    // An expectation the server does not know is refused.
    let answer = demo.exchange(&demo.post("/a2a", "Expect: 200-ok\r\nContent-Length: 0\r\n", b""));
    assert_refused(&answer, 417, "unknown expectation");
}

#[test]
fn the_fault_server_refuses_smuggled_requests_and_counts_only_real_ones() {
    let fs = Server::fault(&[]);
    for (what, headers, body) in attacks(&fs.addr, "/ok/a2a") {
        let headers = format!("Content-Type: application/json\r\n{headers}");
        let answer = fs.exchange(&fs.post("/ok/a2a", &headers, &body));
        assert_refused(&answer, 400, what);
    }
    let counters = |fs: &Server| -> serde_json::Value {
        let text = fs.exchange(
            format!(
                "GET /_counters/ok HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                fs.addr
            )
            .as_bytes(),
        );
        serde_json::from_str(text.split_once("\r\n\r\n").expect("a body").1).expect("JSON")
    };
    let c = counters(&fs);
    assert_eq!(c["sends"], 0, "no attack reached a scenario: {c}");
    assert_eq!(c["requests"], 0, "{c}");
    let body = rpc_message("message/send", "9", "m-legit", "hello");
    let wire = fs.post(
        "/ok/a2a",
        &format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        ),
        &body,
    );
    let answer = fs.exchange(&wire);
    assert_eq!(statuses(&answer), [200], "{answer}");
    assert_eq!(counters(&fs)["sends"], 1);
    // A body over the limit is refused from its declared length alone.
    let answer = fs.exchange(&fs.post("/ok/a2a", "Content-Length: 999999999999\r\n", b""));
    assert_refused(&answer, 413, "a huge body");
}

/// A slowloris client: one byte of the head at a time, each well within any per-read
/// timeout, so only a deadline for the whole head stops it.
#[test]
fn a_head_dribbled_slower_than_the_deadline_is_cut_with_408() {
    let fs = Server::fault(&["--head-timeout-ms", "400"]);
    let head = format!(
        "GET /ok/.well-known/agent-card.json HTTP/1.1\r\nHost: {}\r\nX-Padding: {}\r\n\r\n",
        fs.addr,
        "p".repeat(40)
    );
    let mut s = TcpStream::connect(&fs.addr).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    let mut writer = s.try_clone().unwrap();
    let sent = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&sent);
    let bytes = head.clone().into_bytes();
    // 100 bytes at 50 ms each: 5 s for the whole head, far past the 0.4 s deadline.
    let dribbler = std::thread::spawn(move || {
        for b in bytes {
            if writer.write_all(&[b]).is_err() {
                return;
            }
            counted.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let answer = read_to_close(&mut s);
    let sent_when_answered = sent.load(Ordering::SeqCst);
    assert_refused(&answer, 408, "a dribbled head");
    assert!(
        sent_when_answered < head.len(),
        "the server answered before the head was complete ({sent_when_answered} of {} bytes)",
        head.len()
    );
    drop(s);
    dribbler.join().unwrap();
}

#[test]
fn connections_over_the_cap_get_503_while_the_earlier_ones_are_served() {
    let fs = Server::fault(&["--max-connections", "2"]);
    let card = format!(
        "GET /ok/.well-known/agent-card.json HTTP/1.1\r\nHost: {}\r\n\r\n",
        fs.addr
    );
    // Two connections, each served by a thread waiting for its first request.
    let mut held: Vec<TcpStream> = (0..2)
        .map(|_| TcpStream::connect(&fs.addr).unwrap())
        .collect();
    // Connections are accepted in order, so these two hold both places by the time the
    // third is accepted.
    let answer = fs.exchange(card.as_bytes());
    assert_refused(&answer, 503, "a third connection");
    assert!(answer.contains("\r\nretry-after: 1\r\n"), "{answer}");
    for s in &mut held {
        s.set_read_timeout(Some(WAIT)).unwrap();
        s.write_all(card.as_bytes()).unwrap();
        let mut got = Vec::new();
        let mut chunk = [0u8; 4096];
        // Up to the end of the card's JSON body (the connection stays open: keep-alive).
        while !got.ends_with(b"}") {
            let n = s.read(&mut chunk).expect("the held connection is answered");
            assert!(n > 0, "the held connection was closed");
            got.extend_from_slice(&chunk[..n]);
        }
        assert_eq!(statuses(&String::from_utf8_lossy(&got)), [200]);
    }
}

/// A real thread limit: `RLIMIT_NPROC` for an otherwise unused uid leaves the demo agent its
/// main thread, its accept thread and one connection thread. While a first connection holds
/// that thread, a second cannot get one: it must be dropped, and once the first ends a third
/// must be served. (Before, `std::thread::spawn` panicked, the accept thread died with the
/// listener, and the third connection was refused.)
///
/// Needs root (to run the agent as uid 65534 with `setpriv` and `prlimit`) and no other
/// process of that uid, so it is not run by default:
/// `cargo test -p a2a-core --test http_server_framing -- --ignored`.
#[test]
#[ignore = "needs root, setpriv and prlimit (util-linux), and uid 65534 otherwise unused"]
fn a_failed_thread_spawn_drops_that_connection_and_the_agent_keeps_accepting() {
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .args([
            "prlimit",
            "--nproc=3",
            env!("CARGO_BIN_EXE_a2a"),
            "demo",
            "--serve",
        ]);
    let demo = Server::spawn(cmd);
    let card = format!(
        "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        demo.addr
    );
    let held = TcpStream::connect(&demo.addr).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let second = demo.exchange(card.as_bytes());
    assert!(
        statuses(&second).is_empty(),
        "no thread was left for it: {second}"
    );
    drop(held);
    // The held connection's thread ends when it sees the close; bounded retries until then.
    let deadline = Instant::now() + WAIT;
    loop {
        let third = demo.exchange(card.as_bytes());
        if statuses(&third) == [200] {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the agent stopped accepting: {third}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let stderr = demo.terminate();
    assert!(
        stderr.contains("cannot start a thread for a connection"),
        "{stderr}"
    );
}
