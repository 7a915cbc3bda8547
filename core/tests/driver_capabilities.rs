//! Capability checks on the reference driver and the `a2a` command: a loopback agent whose
//! card declares no capabilities gets no stream or resubscribe request; the call ends as
//! `transport`/`CapabilityNotDeclared` (exit 3), and `--ignore-capabilities` /
//! `ClientConfig::ignore_capabilities` sends it.
#![cfg(feature = "driver")]

mod common;

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use a2a_core::driver::{CallOptions, Client, ClientConfig, StreamEvent};
use a2a_core::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice};

/// A 0.3 agent on loopback: its card declares no capabilities; every POST is counted and
/// answered with a one-event stream of a completed task. Serves until dropped (bounded by
/// a minute).
struct NoCapsAgent {
    base: String,
    posts: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl NoCapsAgent {
    fn start() -> NoCapsAgent {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let posts = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s, b) = (Arc::clone(&posts), Arc::clone(&stop), base.clone());
        let thread = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !s.load(Ordering::SeqCst) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((conn, _)) => serve(conn, &b, &p),
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        NoCapsAgent {
            base,
            posts,
            stop,
            thread: Some(thread),
        }
    }

    fn posts(&self) -> usize {
        self.posts.load(Ordering::SeqCst)
    }
}

impl Drop for NoCapsAgent {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads one request (head and `Content-Length` body) and answers it; one request per
/// connection (`Connection: close`).
fn serve(mut conn: TcpStream, base: &str, posts: &AtomicUsize) {
    conn.set_nonblocking(false).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let Some((head, body)) = common::read_request(&mut conn) else {
        return;
    };
    let (kind, answer) = if head.starts_with("get ") {
        let card = format!(
            r#"{{"protocolVersion":"0.3.0","name":"nocaps","description":"d","url":"{base}/a2a",
            "preferredTransport":"JSONRPC","version":"1","capabilities":{{}},
            "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}}"#
        );
        ("application/json", card)
    } else {
        posts.fetch_add(1, Ordering::SeqCst);
        let req: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let event = serde_json::json!({"jsonrpc": "2.0", "id": req["id"], "result": {
            "kind": "task", "id": "t-1", "contextId": "c-1",
            "status": {"state": "completed"}}});
        ("text/event-stream", format!("data: {event}\n\n"))
    };
    let _ = write!(
        conn,
        "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
        answer.len()
    );
}

fn config(ignore: bool) -> ClientConfig {
    ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(5),
        ignore_capabilities: ignore,
        ..ClientConfig::default()
    }
}

fn end_of(events: impl Iterator<Item = StreamEvent>) -> Outcome {
    match events.last() {
        Some(StreamEvent::End(f)) => f.outcome,
        other => panic!("expected End last, got {other:?}"),
    }
}

fn assert_refused(o: &Outcome, method: &str) {
    assert_eq!(o.channel, Channel::Transport, "{o:?}");
    assert_eq!(o.error, Some(ErrorName::CapabilityNotDeclared), "{o:?}");
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert_eq!(o.retry, RetryAdvice::Never);
    assert_eq!(o.exit_code(), 3);
    let m = o.message.as_deref().unwrap_or_default();
    assert!(
        m.contains(method) && m.contains("capabilities.streaming"),
        "{m}"
    );
}

#[test]
fn the_driver_sends_no_stream_the_card_does_not_declare() {
    let agent = NoCapsAgent::start();
    let c = Client::new(&agent.base, config(false)).expect("card resolves");
    let opts = CallOptions::default();
    assert_refused(&end_of(c.stream_text("hi", &opts)), "message/stream");
    assert_refused(&end_of(c.resubscribe("t-1", &opts)), "tasks/resubscribe");
    // A plain send needs no capability: it goes out.
    let sent = c.send_text("hi", &opts);
    assert_ne!(sent.outcome.error, Some(ErrorName::CapabilityNotDeclared));
    assert_eq!(agent.posts(), 1, "only the send reached the agent");
    // Refusals are not the agent's failures: nothing tallied for them.
    assert!(
        c.tally()
            .entries()
            .all(|e| e.method != "SendStreamingMessage" && e.method != "SubscribeToTask"),
        "refusals are not tallied"
    );

    let c = Client::new(&agent.base, config(true)).expect("card resolves");
    let o = end_of(c.stream_text("hi", &opts));
    assert!(o.is_success(), "{o:?}");
    assert_eq!(agent.posts(), 2, "with the check off the stream went out");
}

#[test]
fn the_cli_refuses_unsent_with_exit_3_and_ignore_capabilities_sends() {
    let agent = NoCapsAgent::start();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_a2a"))
            .args(["stream", &agent.base, "hi", "--allow-http", "--json"])
            .args(extra)
            .output()
            .expect("run a2a")
    };
    let out = run(&[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("\"error\":\"CapabilityNotDeclared\""),
        "{text}"
    );
    assert!(text.contains("capabilities.streaming"), "{text}");
    assert_eq!(agent.posts(), 0, "nothing reached the agent");

    let out = run(&["--ignore-capabilities"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(agent.posts(), 1, "the stream went out");
}
