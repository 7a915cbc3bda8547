//! The extended card replacing the public one on the reference driver and `a2a card
//! --extended`: a loopback agent whose public card declares no streaming and whose extended
//! card does (on another path): after `extended_card` the stream goes out to the extended
//! card's interface; an extended card whose interface names another host is refused and the
//! public card stays (the stream is still refused unsent).
#![cfg(feature = "driver")]

mod common;

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use a2a_core::driver::{CallOptions, Client, ClientConfig, StreamEvent};
use a2a_core::outcome::{Channel, ErrorName, Outcome};

/// A 0.3 agent on loopback. The public card (interface `/a2a`) declares no streaming; the
/// extended card declares it, on `/a2a/v2`, or on `localhost` (another host) when
/// `drift`. Every POST's path and method are recorded; a stream is answered with one
/// completed task. Serves until dropped (bounded by a minute).
struct Agent {
    base: String,
    posts: Arc<Mutex<Vec<(String, String)>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Agent {
    fn start(drift: bool) -> Agent {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let base = format!("http://127.0.0.1:{port}");
        let ext_base = if drift {
            format!("http://localhost:{port}")
        } else {
            base.clone()
        };
        let posts = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s, b) = (Arc::clone(&posts), Arc::clone(&stop), base.clone());
        let thread = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !s.load(Ordering::SeqCst) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((conn, _)) => serve(conn, &b, &ext_base, &p),
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Agent {
            base,
            posts,
            stop,
            thread: Some(thread),
        }
    }

    fn posts(&self) -> Vec<(String, String)> {
        self.posts.lock().unwrap().clone()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn card(url: &str, streaming: bool, skill: &str) -> String {
    format!(
        r#"{{"protocolVersion":"0.3.0","name":"ext","description":"d","url":"{url}",
        "preferredTransport":"JSONRPC","version":"1","capabilities":{{"streaming":{streaming}}},
        "supportsAuthenticatedExtendedCard":true,
        "defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
        "skills":[{{"id":"{skill}","name":"{skill}","description":"s","tags":[]}}]}}"#
    )
}

/// Reads one request (head and `Content-Length` body) and answers it; one request per
/// connection (`Connection: close`).
fn serve(mut conn: TcpStream, base: &str, ext_base: &str, posts: &Mutex<Vec<(String, String)>>) {
    conn.set_nonblocking(false).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let Some((head, body)) = common::read_request(&mut conn) else {
        return;
    };
    let (kind, answer) = if head.starts_with("get ") {
        (
            "application/json",
            card(&format!("{base}/a2a"), false, "public"),
        )
    } else {
        let path = head.split(' ').nth(1).unwrap_or("").to_owned();
        let req: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let method = req["method"].as_str().unwrap_or("").to_owned();
        posts.lock().unwrap().push((path, method.clone()));
        if method == "agent/getAuthenticatedExtendedCard" {
            let ext = card(&format!("{ext_base}/a2a/v2"), true, "secret");
            let r = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{ext}}}"#, req["id"]);
            ("application/json", r)
        } else {
            let event = serde_json::json!({"jsonrpc": "2.0", "id": req["id"], "result": {
                "kind": "task", "id": "t-1", "contextId": "c-1",
                "status": {"state": "completed"}}});
            ("text/event-stream", format!("data: {event}\n\n"))
        }
    };
    let _ = write!(
        conn,
        "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
        answer.len()
    );
}

fn config() -> ClientConfig {
    ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(5),
        ..ClientConfig::default()
    }
}

fn end_of(events: impl Iterator<Item = StreamEvent>) -> Outcome {
    match events.last() {
        Some(StreamEvent::End(f)) => f.outcome,
        other => panic!("expected End last, got {other:?}"),
    }
}

#[test]
fn after_the_extended_card_the_stream_it_declares_goes_to_its_interface() {
    let agent = Agent::start(false);
    let c = Client::new(&agent.base, config()).expect("card resolves");
    let opts = CallOptions::default();
    let refused = end_of(c.stream_text("hi", &opts));
    assert_eq!(refused.error, Some(ErrorName::CapabilityNotDeclared));
    let r = c.extended_card(&opts);
    assert!(r.outcome.is_success(), "{:?}", r.outcome);
    let t = c.target().unwrap();
    assert_eq!(t.url, format!("{}/a2a/v2", agent.base));
    assert!(t.capabilities.is_some_and(|k| k.streaming));
    assert!(t.card_json.as_deref().unwrap().contains("secret"));
    // Clones share the adopted card.
    let o = end_of(c.clone().stream_text("hi", &opts));
    assert!(o.is_success(), "{o:?}");
    assert_eq!(
        agent.posts(),
        vec![
            (
                "/a2a".to_owned(),
                "agent/getAuthenticatedExtendedCard".to_owned()
            ),
            ("/a2a/v2".to_owned(), "message/stream".to_owned()),
        ]
    );
}

#[test]
fn an_extended_card_on_another_host_is_refused_and_the_public_card_stays() {
    let agent = Agent::start(true);
    let c = Client::new(&agent.base, config()).expect("card resolves");
    let opts = CallOptions::default();
    let r = c.extended_card(&opts);
    assert_eq!(r.outcome.channel, Channel::Transport, "{:?}", r.outcome);
    assert_eq!(r.outcome.error, Some(ErrorName::CardResolution));
    assert_eq!(r.outcome.request_sent, None, "the agent answered");
    let m = r.outcome.message.as_deref().unwrap_or_default();
    assert!(m.contains("extended") && m.contains("localhost"), "{m}");
    let t = c.target().unwrap();
    assert_eq!(t.url, format!("{}/a2a", agent.base));
    assert!(t.card_json.as_deref().unwrap().contains("public"));
    let o = end_of(c.stream_text("hi", &opts));
    assert_eq!(o.error, Some(ErrorName::CapabilityNotDeclared), "{o:?}");
    assert_eq!(
        agent.posts().len(),
        1,
        "only the extended-card call went out"
    );
}

#[test]
fn a2a_card_extended_shows_the_adopted_card_or_refuses_a_drifting_one() {
    let agent = Agent::start(false);
    let run = |base: &str| {
        Command::new(env!("CARGO_BIN_EXE_a2a"))
            .args(["card", base, "--extended", "--allow-http", "--json"])
            .output()
            .expect("run a2a")
    };
    let out = run(&agent.base);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["extended"], true);
    assert_eq!(v["url"], format!("{}/a2a/v2", agent.base));
    assert_eq!(v["card"]["skills"][0]["id"], "secret");

    let drifting = Agent::start(true);
    let out = run(&drifting.base);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("localhost"), "{err}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("CardResolution"),
        "the --json outcome names the refusal"
    );
}

#[test]
fn a_client_for_a_bare_interface_keeps_its_target_and_the_result() {
    let agent = Agent::start(false);
    let mut target = a2a_core::driver::Target::new(
        &format!("{}/a2a", agent.base),
        a2a_core::version::ProtocolVersion::V0_3,
        a2a_core::version::Binding::JsonRpc,
    );
    target.capabilities = None;
    let c = Client::with_target(target, config());
    let r = c.extended_card(&CallOptions::default());
    assert!(r.outcome.is_success(), "{:?}", r.outcome);
    assert_eq!(c.target().unwrap().url, format!("{}/a2a", agent.base));
    assert!(c.card_url().is_none());
}
