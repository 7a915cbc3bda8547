//! The reserved-header rule on every way the driver lets a caller set a header (issue 21):
//! interceptors, per-call headers and raw exchanges. A refused header fails the call with a
//! `transport`/`InvalidRequest` outcome naming it, before anything is sent: a loopback
//! listener sees no connection at all. What a caller may set (credentials, tracing,
//! routing keys, extensions) still reaches the wire, body intact.
#![cfg(feature = "driver")]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use a2a_core::driver::{
    CallOptions, Client, ClientConfig, HttpRequest, RequestContext, StreamEvent, Target,
};
use a2a_core::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use a2a_core::version::{Binding, ProtocolVersion};

fn config() -> ClientConfig {
    ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(5),
        ..ClientConfig::default()
    }
}

/// A loopback listener that answers nothing: the test asks it afterwards whether anyone
/// connected.
struct Silent {
    listener: TcpListener,
    url: String,
}

impl Silent {
    fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/a2a", listener.local_addr().unwrap());
        Silent { listener, url }
    }

    /// Whether a connection reached the listener (the kernel queues it even unaccepted).
    fn was_connected(&self) -> bool {
        self.listener.accept().is_ok()
    }
}

fn client_for(url: &str, version: ProtocolVersion) -> Client {
    Client::with_target(Target::new(url, version, Binding::JsonRpc), config())
}

fn assert_refused(o: &Outcome, header: &str) {
    assert_eq!(o.channel, Channel::Transport, "{o:?}");
    assert_eq!(o.error, Some(ErrorName::InvalidRequest), "{o:?}");
    assert_eq!(o.request_sent, Some(RequestSent::No), "{o:?}");
    assert_eq!(o.retry, RetryAdvice::Never, "{o:?}");
    let m = o.message.as_deref().unwrap_or("");
    assert!(m.contains(&format!("{header:?}")), "names {header}: {m}");
    assert!(m.starts_with("request not sent"), "{m}");
}

#[test]
fn an_interceptor_cannot_set_framing_or_protocol_headers() {
    let cases = [
        ("Content-Length", "0"),
        ("Host", "other.example"),
        ("A2A-Version", "0.3"),
        ("Transfer-Encoding", "chunked"),
        ("Connection", "close"),
        ("content-type", "text/plain"),
        ("Expect", "100-continue"),
    ];
    for (name, value) in cases {
        let silent = Silent::start();
        let c = client_for(&silent.url, ProtocolVersion::V1_0);
        c.add_interceptor(move |_: &RequestContext<'_>, req: &mut HttpRequest| {
            req.set_header("Authorization", "Bearer t");
            req.set_header(name, value);
        });
        let r = c.send_text("hello", &CallOptions::default());
        assert_refused(&r.outcome, name);
        assert!(r.response.is_none());
        assert!(!silent.was_connected(), "{name}: a request went out");
        // Streams go through the same check.
        let end = c
            .stream_text("hello", &CallOptions::default())
            .take(10)
            .find_map(|e| match e {
                StreamEvent::End(f) => Some(f),
                _ => None,
            })
            .expect("an end");
        assert_eq!(end.kind, None);
        assert_refused(&end.outcome, name);
        assert!(!silent.was_connected(), "{name}: a stream went out");
    }
}

#[test]
fn a_header_pushed_past_set_header_is_caught_too() {
    let silent = Silent::start();
    let c = client_for(&silent.url, ProtocolVersion::V0_3);
    c.add_interceptor(|_: &RequestContext<'_>, req: &mut HttpRequest| {
        req.headers
            .push(("content-length".to_owned(), "0".to_owned()));
    });
    let r = c.get_task("t-1", &CallOptions::default());
    assert_refused(&r.outcome, "content-length");
    assert!(!silent.was_connected());
}

#[test]
fn per_call_headers_follow_the_same_rule() {
    let silent = Silent::start();
    let c = client_for(&silent.url, ProtocolVersion::V1_0);
    for name in [
        "Connection",
        "Keep-Alive",
        "Upgrade",
        "TE",
        "Content-Length",
    ] {
        let opts = CallOptions {
            headers: vec![(name.to_owned(), "x".to_owned())],
            ..CallOptions::default()
        };
        let o = c.send_text("x", &opts).outcome;
        assert_eq!(o.error, Some(ErrorName::InvalidRequest), "{name}");
        assert_eq!(o.request_sent, Some(RequestSent::No), "{name}");
        let m = o.message.unwrap_or_default();
        assert!(m.contains(name), "{m}");
    }
    assert!(!silent.was_connected());
}

#[test]
fn a_raw_exchange_cannot_carry_framing_or_transport_headers() {
    let silent = Silent::start();
    let c = Client::raw(config());
    for (name, value) in [("Content-Length", "0"), ("Transfer-Encoding", "chunked")] {
        let req = HttpRequest {
            method: "POST".to_owned(),
            url: silent.url.clone(),
            headers: vec![(name.to_owned(), value.to_owned())],
            body: b"{\"jsonrpc\":\"2.0\"}".to_vec(),
        };
        let o = c.exchange(&req, None).expect_err(name);
        assert_refused(&o, name);
        let o = c.open_stream(&req, None).expect_err(name);
        assert_refused(&o, name);
    }
    assert!(!silent.was_connected());
}

/// Accepts one connection (bounded), reads one request whole and answers a completed 1.0
/// task; returns the request head (lower-cased) and body.
fn answer_once(listener: &TcpListener) -> (String, Vec<u8>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut s: TcpStream = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => panic!("no request arrived: {e}"),
        }
    };
    s.set_nonblocking(false).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let (head, body) = loop {
        let n = s.read(&mut chunk).expect("read the request");
        assert!(n > 0, "closed before a whole request");
        buf.extend_from_slice(&chunk[..n]);
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |v| v.trim().parse().unwrap());
        if buf.len() >= end + 4 + len {
            break (head, buf[end + 4..end + 4 + len].to_vec());
        }
        assert!(buf.len() < 1 << 20, "request too large");
    };
    let req: serde_json::Value = serde_json::from_slice(&body).expect("the body arrived whole");
    let answer = serde_json::json!({"jsonrpc": "2.0", "id": req["id"], "result": {"task": {
        "id": "task-1", "contextId": "ctx-1", "status": {"state": "TASK_STATE_COMPLETED"}}}})
    .to_string();
    write!(
        s,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
        answer.len()
    )
    .unwrap();
    (head, body)
}

#[test]
fn the_callers_headers_still_reach_the_wire_and_a_removed_version_header_is_allowed() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/a2a", listener.local_addr().unwrap());
    let c = client_for(&url, ProtocolVersion::V1_0);
    c.add_interceptor(|_: &RequestContext<'_>, req: &mut HttpRequest| {
        req.set_header("Authorization", "Bearer t0ken");
        req.set_header("A2A-Extensions", "https://ext.example/v1");
        req.set_header("X-Route", "blue");
        // The builder's own value again is no override.
        req.set_header("Content-Type", "application/json");
        // Dropping a protocol header is allowed (a2a --no-version-header).
        req.remove_header("A2A-Version");
    });
    let server = std::thread::spawn(move || answer_once(&listener));
    let opts = CallOptions {
        headers: vec![("X-A2A-Extensions".to_owned(), "urn:x".to_owned())],
        ..CallOptions::default()
    };
    let r = c.send_text("hello", &opts);
    let (head, body) = server.join().unwrap();
    assert_eq!(
        r.outcome.state,
        Some(TaskState::Completed),
        "{:?}",
        r.outcome
    );
    assert!(head.contains("\r\nauthorization: bearer t0ken"), "{head}");
    assert!(
        head.contains("\r\na2a-extensions: https://ext.example/v1"),
        "{head}"
    );
    assert!(head.contains("\r\nx-a2a-extensions: urn:x"), "{head}");
    assert!(head.contains("\r\nx-route: blue"), "{head}");
    assert!(!head.contains("a2a-version"), "{head}");
    assert_eq!(head.matches("\r\ncontent-type:").count(), 1, "{head}");
    assert!(
        head.contains(&format!("\r\ncontent-length: {}", body.len())),
        "{head}"
    );
}
