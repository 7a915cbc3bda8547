//! Memory an open idle stream keeps on the reference driver (issue 28: at most 32 KiB of
//! resident memory per open idle stream), measured with a counting global allocator: the
//! heap bytes still allocated after `STREAMS` streams were opened on loopback and read to
//! their first event, divided by `STREAMS`. Also: what the smaller transport buffers must
//! still carry (a large response head, a long request header line, events larger than any
//! buffer).
//!
//! Its own test binary; counting is limited to the measuring thread (the in-test server's
//! threads and the other tests' are not counted).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};
use std::time::Duration;

use a2a_core::driver::{CallOptions, Client, ClientConfig, StreamCall, StreamEvent, Target};
use a2a_core::outcome::{ErrorName, RequestSent, TaskState};
use a2a_core::version::{Binding, ProtocolVersion};

struct Counting;

/// Bytes allocated minus bytes freed by the measuring thread.
static LIVE: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn count(delta: isize) {
    if MEASURING.try_with(Cell::get).unwrap_or(false) {
        LIVE.fetch_add(delta, Relaxed);
    }
}

fn signed(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counter is atomic.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(signed(layout.size()));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(signed(layout.size()));
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-signed(layout.size()));
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(signed(new_size) - signed(layout.size()));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// How the in-test server answers `message/stream`.
#[derive(Clone, Copy)]
enum Reply {
    /// A working status, then nothing until the client closes (an idle stream).
    Hold,
    /// A response head with a header of `usize` bytes, then `Hold`'s body.
    BigHead(usize),
    /// A working status, `usize`-byte artifact texts in 3 events, a completed status.
    BigEvents(usize),
}

/// Starts a loopback server answering every `message/stream` with `reply`; its URL. Each
/// connection's thread ends when the client closes it, or after 60 s of silence.
fn server(reply: Reply) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            std::thread::spawn(move || serve(conn, reply));
        }
    });
    url
}

fn serve(mut conn: TcpStream, reply: Reply) {
    conn.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("read timeout");
    let Some((head, body)) = common::read_request(&mut conn) else {
        return;
    };
    let request: serde_json::Value = serde_json::from_slice(&body).expect("JSON request");
    let id = &request["id"];
    let status = |state: &str, last: bool| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"contextId":"ctx-1","final":{last},"kind":"status-update","status":{{"state":"{state}"}},"taskId":"task-1"}}}}"#
        )
    };
    let mut events = vec![status("working", false)];
    let mut extra = String::new();
    match reply {
        Reply::Hold => {}
        Reply::BigHead(n) => extra = format!("X-Big: {}\r\n", "h".repeat(n)),
        Reply::BigEvents(n) => {
            // The request's long header line arrived whole.
            assert!(head.contains(&format!("x-long: {}", "v".repeat(7000))));
            for i in 0..3 {
                events.push(format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"append":{},"artifact":{{"artifactId":"a-1","parts":[{{"kind":"text","text":"{}"}}]}},"contextId":"ctx-1","kind":"artifact-update","lastChunk":false,"taskId":"task-1"}}}}"#,
                    i > 0,
                    "e".repeat(n)
                ));
            }
            events.push(status("completed", true));
        }
    }
    let mut out = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n{extra}Transfer-Encoding: chunked\r\n\r\n"
    );
    for e in events {
        let e = format!("data: {e}\n\n");
        out.push_str(&format!("{:x}\r\n{e}\r\n", e.len()));
    }
    if let Reply::BigEvents(_) = reply {
        out.push_str("0\r\n\r\n");
    }
    if conn.write_all(out.as_bytes()).is_err() {
        return;
    }
    // Until the client closes the connection (bounded by the read timeout).
    let mut rest = Vec::new();
    let _ = conn.read_to_end(&mut rest);
}

fn client(url: &str) -> Client {
    let config = ClientConfig {
        allow_http: true,
        call_timeout: Duration::from_secs(10),
        stream_idle_timeout: Duration::from_secs(60),
        max_event_bytes: 1 << 20,
        ..ClientConfig::default()
    };
    Client::with_target(
        Target::new(url, ProtocolVersion::V0_3, Binding::JsonRpc),
        config,
    )
}

/// Reads the stream's first event: the working status.
fn first(s: &mut StreamCall) {
    match s.next() {
        Some(StreamEvent::Item(item)) => {
            assert_eq!(item.outcome.state, Some(TaskState::Working));
        }
        other => panic!("expected a first item, got {other:?}"),
    }
}

/// Open idle streams, each read to its first event.
const STREAMS: usize = 40;

/// The most heap an open idle stream may keep. Measured 2026-12-06 (issue 28): about 7.3 KiB
/// (the 1 KiB first read buffer, the machine and the call), since the driver's TCP transport
/// gives its two 8 KiB buffers back while the stream waits (23 KiB before); it was about 120
/// KiB before the first cuts (two more 16 KiB buffers, a 32 KiB output copy, a 10 KiB scratch
/// buffer), 46 KiB with 16 KiB transport buffers that were kept, 26 KiB with a 4 KiB first
/// read buffer and 29 KiB with the driver's event queue holding unboxed events. About 2.9 KiB
/// since plain-HTTP streams are read by the driver's own fast path (`driver/plain.rs`, no
/// ureq connection state kept per stream; the 1 KiB first read buffer is most of it).
const MAX_PER_STREAM: isize = 10 * 1024;

#[test]
fn an_open_idle_stream_keeps_little_memory() {
    let url = server(Reply::Hold);
    let client = client(&url);
    let opts = CallOptions::default();
    // What a client sets up once (the pool, the connector) is not counted per stream.
    let mut s = client.stream_text("hi", &opts);
    first(&mut s);
    drop(s);
    let mut open = Vec::with_capacity(STREAMS);
    MEASURING.with(|m| m.set(true));
    let before = LIVE.load(Relaxed);
    for _ in 0..STREAMS {
        let mut s = client.stream_text("hi", &opts);
        first(&mut s);
        open.push(s);
    }
    let per_stream = (LIVE.load(Relaxed) - before) / signed(STREAMS);
    MEASURING.with(|m| m.set(false));
    eprintln!("an open idle stream keeps {per_stream} bytes of heap");
    drop(open);
    assert!(
        per_stream > 1024,
        "{per_stream} bytes per stream: the streams were not counted"
    );
    assert!(
        per_stream <= MAX_PER_STREAM,
        "an open idle stream keeps {per_stream} bytes, more than {MAX_PER_STREAM}"
    );
}

#[test]
fn a_response_head_larger_than_the_buffers_is_read() {
    let url = server(Reply::BigHead(40 * 1024));
    let client = client(&url);
    let mut s = client.stream_text("hi", &CallOptions::default());
    first(&mut s);
}

#[test]
fn a_long_request_header_line_and_events_larger_than_the_buffers_go_through() {
    let url = server(Reply::BigEvents(100 * 1024));
    let client = client(&url);
    let opts = CallOptions {
        headers: vec![("X-Long".into(), "v".repeat(7000))],
        ..CallOptions::default()
    };
    let mut texts = 0usize;
    let mut end = None;
    for ev in client.stream_text("hi", &opts) {
        match ev {
            StreamEvent::Item(item) => {
                if let Some(a2a_core::model::StreamEvent::ArtifactUpdate(a)) = item.event.as_deref()
                {
                    let text = a.artifact.parts[0].as_text().unwrap_or("");
                    assert_eq!(text.len(), 100 * 1024);
                    texts += 1;
                }
            }
            StreamEvent::End(e) => end = Some(e),
            StreamEvent::Resubscribing { .. } => panic!("resubscribed"),
        }
    }
    let end = end.expect("the stream ended");
    assert_eq!(end.outcome.state, Some(TaskState::Completed));
    assert!(!end.lost_content());
    assert_eq!(texts, 3);
}

#[test]
fn a_request_header_line_longer_than_the_output_buffer_is_refused_unsent() {
    let url = server(Reply::Hold);
    let client = client(&url);
    let opts = CallOptions {
        headers: vec![("X-Long".into(), "v".repeat(9000))],
        ..CallOptions::default()
    };
    let mut s = client.stream_text("hi", &opts);
    match s.next() {
        Some(StreamEvent::End(end)) => {
            let o = &end.outcome;
            assert_eq!(o.error, Some(ErrorName::InvalidRequest), "{}", o.to_json());
            assert_eq!(o.request_sent, Some(RequestSent::No), "{}", o.to_json());
            let message = o.message.as_deref().unwrap_or("");
            assert!(message.to_ascii_lowercase().contains("x-long"), "{message}");
        }
        other => panic!("expected the end, got {other:?}"),
    }
}
