//! The reference driver's cost per call: sequential `message/send` calls through
//! [`a2a_core::driver::Client`] against a loopback server (a thread in this process) that
//! answers each JSON-RPC 0.3 request at once with a completed task, on keep-alive
//! connections: what the client spends per send when the server costs next to nothing.
//!
//! `cargo bench -p a2a-benches --bench driver` runs it under criterion. With
//! `A2A_DRIVER_SENDS=N` it instead makes N sends and exits, for instruction counts:
//! `valgrind --tool=callgrind --separate-threads=yes target/release/deps/driver-* `
//! (the client is the main thread and the threads it starts; the server has its own).
//! Every send asserts its outcome (a completed task echoing the request's id).
//!
//! With `A2A_DRIVER_STREAM_EVENTS=N` (and optionally `A2A_DRIVER_STREAMS=M`, default 1) it
//! instead reads M whole streams of N events each (a working status, appended artifact
//! chunks, a final completed status) and exits, for instruction counts per stream event;
//! `A2A_DRIVER_RENDER=1` also writes each item's (and with `A2A_DRIVER_SENDS`, each
//! answer's) canonical JSON, as the C ABI does.
//!
//! With `A2A_DRIVER_IDLE_STREAMS=N` it opens N streams that stay idle after their first
//! event (the server in a child process) and prints the client's RSS growth per stream.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use a2a_core::driver::{CallOptions, Client, ClientConfig, Target};
use a2a_core::outcome::{Channel, TaskState};
use a2a_core::version::{Binding, ProtocolVersion};
use criterion::{Criterion, criterion_group};

/// Starts the server; its `http://127.0.0.1:PORT/` URL.
fn server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            std::thread::spawn(move || serve(conn));
        }
    });
    url
}

/// Answers requests on one connection until the client closes it.
fn serve(conn: TcpStream) {
    conn.set_nodelay(true).expect("nodelay");
    let mut out = conn.try_clone().expect("clone");
    let mut input = BufReader::new(conn);
    let mut line = String::new();
    let mut body = Vec::new();
    loop {
        // The request head: only Content-Length matters.
        let mut length = 0usize;
        loop {
            line.clear();
            match input.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" {
                break;
            }
            if let Some((n, v)) = line.split_once(':')
                && n.eq_ignore_ascii_case("content-length")
            {
                length = v.trim().parse().expect("content-length");
            }
        }
        body.resize(length, 0);
        if input.read_exact(&mut body).is_err() {
            return;
        }
        let request: serde_json::Value = serde_json::from_slice(&body).expect("JSON request");
        let id = &request["id"];
        if request["method"] == "message/stream"
            && let Some(n) = std::env::var("A2A_DRIVER_STREAM_EVENTS")
                .ok()
                .and_then(|n| n.parse::<usize>().ok())
        {
            if out.write_all(&stream_reply(id, n)).is_err() {
                return;
            }
            continue;
        }
        if request["method"] == "message/stream" {
            // One working status, then the stream stays open (an idle stream).
            let event = format!(
                r#"data: {{"jsonrpc":"2.0","id":{id},"result":{{"contextId":"ctx-1","final":false,"kind":"status-update","status":{{"state":"working"}},"taskId":"task-1"}}}}"#
            ) + "\n\n";
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{event}\r\n",
                event.len()
            );
            if out.write_all(reply.as_bytes()).is_err() {
                return;
            }
            // Until the client closes the connection.
            let mut rest = Vec::new();
            let _ = input.read_to_end(&mut rest);
            return;
        }
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"artifacts":[{{"artifactId":"a-1","parts":[{{"kind":"text","text":"hello"}}]}}],"contextId":"ctx-1","id":"task-1","kind":"task","status":{{"state":"completed","timestamp":"2026-01-01T00:00:00Z"}}}}}}"#
        );
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\nContent-Length: {}\r\n\r\n",
            answer.len()
        );
        let mut reply = head.into_bytes();
        reply.extend_from_slice(answer.as_bytes());
        if out.write_all(&reply).is_err() {
            return;
        }
    }
}

/// A whole stream of `n` events answering request `id` (chunked, then the connection stays
/// open for the next request): a working status, `n - 2` appended artifact chunks, and a
/// final completed status.
fn stream_reply(id: &serde_json::Value, n: usize) -> Vec<u8> {
    let mut reply =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    let mut chunk = |event: String| {
        let event = format!("data: {event}\n\n");
        reply.extend_from_slice(format!("{:x}\r\n{event}\r\n", event.len()).as_bytes());
    };
    chunk(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"contextId":"ctx-1","final":false,"kind":"status-update","status":{{"state":"working"}},"taskId":"task-1"}}}}"#
    ));
    for i in 0..n.saturating_sub(2) {
        chunk(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"append":{},"artifact":{{"artifactId":"a-1","parts":[{{"kind":"text","text":"chunk {i}"}}]}},"contextId":"ctx-1","kind":"artifact-update","lastChunk":false,"taskId":"task-1"}}}}"#,
            i > 0
        ));
    }
    chunk(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"contextId":"ctx-1","final":true,"kind":"status-update","status":{{"state":"completed","timestamp":"2026-01-01T00:00:00Z"}},"taskId":"task-1"}}}}"#
    ));
    reply.extend_from_slice(b"0\r\n\r\n");
    reply
}

/// Reads one whole stream of `n` events, asserting each item and the end; with `render`,
/// also writes each item's canonical JSON, as the C ABI does for every item.
fn stream(client: &Client, opts: &CallOptions, n: usize, render: bool) {
    let mut s = client.stream_text("hi", opts);
    let mut items = 0usize;
    let mut text = 0usize;
    loop {
        match s.next() {
            Some(a2a_core::driver::StreamEvent::Item(item)) => {
                assert_ne!(
                    item.outcome.channel,
                    Channel::Malformed,
                    "{}",
                    item.outcome.to_json()
                );
                if render {
                    let ev = item.event.as_deref().expect("the item's event");
                    text += a2a_core::answer::event_to_json_string(ev).len();
                }
                items += 1;
            }
            Some(a2a_core::driver::StreamEvent::End(end)) => {
                assert_eq!(end.outcome.state, Some(TaskState::Completed));
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(items, n);
    assert!(!render || text > 0);
}

fn client(url: &str) -> Client {
    let config = ClientConfig {
        allow_http: true,
        call_timeout: Duration::from_secs(10),
        ..ClientConfig::default()
    };
    Client::with_target(
        Target::new(url, ProtocolVersion::V0_3, Binding::JsonRpc),
        config,
    )
}

/// One send, asserting the answer; with `render`, also writes the answer's canonical JSON,
/// as the C ABI does for every send.
fn send(client: &Client, opts: &CallOptions, render: bool) {
    let r = client.send_text("hi", opts);
    assert_eq!(r.outcome.channel, Channel::Task, "{}", r.outcome.to_json());
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert_eq!(r.outcome.task_id.as_deref(), Some("task-1"));
    if render {
        let answer = r.answer.as_ref().expect("the answer");
        assert!(!a2a_core::answer::to_json_string(answer).is_empty());
    }
}

fn bench_sends(c: &mut Criterion) {
    let url = server();
    let client = client(&url);
    let opts = CallOptions::default();
    send(&client, &opts, false);
    c.bench_function("driver/send_loopback", |b| {
        b.iter(|| send(&client, &opts, false))
    });
}

criterion_group!(benches, bench_sends);

/// The resident set size of this process, in KiB (Linux `/proc/self/status`).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// Opens `n` streams that stay idle after their first event (the server runs in a child
/// process, so only the client's memory counts) and prints the RSS growth per stream.
fn idle_streams(n: usize) {
    let mut child = std::process::Command::new(std::env::current_exe().expect("exe"))
        .env("A2A_DRIVER_SERVE", "1")
        .env_remove("A2A_DRIVER_IDLE_STREAMS")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("server process");
    let mut url = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut url)
        .expect("server URL");
    let client = client(url.trim());
    let opts = CallOptions::default();
    let first = |s: &mut a2a_core::driver::StreamCall| match s.next() {
        Some(a2a_core::driver::StreamEvent::Item(item)) => {
            assert_eq!(item.outcome.state, Some(TaskState::Working));
        }
        other => panic!("expected a first item, got {other:?}"),
    };
    // Warm up: one stream opened, read and dropped.
    let mut s = client.stream_text("hi", &opts);
    first(&mut s);
    drop(s);
    let before = rss_kib();
    let mut open = Vec::with_capacity(n);
    for _ in 0..n {
        let mut s = client.stream_text("hi", &opts);
        first(&mut s);
        open.push(s);
    }
    let after = rss_kib();
    println!(
        "{n} idle streams: RSS {before} KiB -> {after} KiB, {:.1} KiB per stream",
        (after.saturating_sub(before)) as f64 / n as f64
    );
    drop(open);
    drop(child.stdin.take());
    let _ = child.kill();
    let _ = child.wait();
}

fn main() {
    if std::env::var_os("A2A_DRIVER_SERVE").is_some() {
        println!("{}", server());
        // Until the parent closes stdin.
        let mut rest = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut rest);
        return;
    }
    if let Ok(n) = std::env::var("A2A_DRIVER_IDLE_STREAMS") {
        idle_streams(n.parse().expect("A2A_DRIVER_IDLE_STREAMS is a count"));
        return;
    }
    if let Ok(n) = std::env::var("A2A_DRIVER_STREAM_EVENTS") {
        let n: usize = n.parse().expect("A2A_DRIVER_STREAM_EVENTS is a count");
        assert!(n >= 2, "a stream has at least its first and last event");
        let streams: u32 = std::env::var("A2A_DRIVER_STREAMS")
            .map_or(1, |s| s.parse().expect("A2A_DRIVER_STREAMS is a count"));
        let render = std::env::var_os("A2A_DRIVER_RENDER").is_some();
        let url = server();
        let client = client(&url);
        let opts = CallOptions::default();
        for _ in 0..streams {
            stream(&client, &opts, n, render);
        }
        println!("{streams} streams of {n} events");
        return;
    }
    if let Ok(n) = std::env::var("A2A_DRIVER_SENDS") {
        let n: u32 = n.parse().expect("A2A_DRIVER_SENDS is a count");
        let url = server();
        let client = client(&url);
        let opts = CallOptions::default();
        let render = std::env::var_os("A2A_DRIVER_RENDER").is_some();
        for _ in 0..n {
            send(&client, &opts, render);
        }
        println!("{n} sends");
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
