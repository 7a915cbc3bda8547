//! `a2a-bench-server`: the loopback A2A server the client-overhead harness measures every
//! client against (`scripts/bench/clients.py`). It answers at once, so that what is measured
//! is the client.
//!
//! Plain blocking std TCP on 127.0.0.1, one thread per connection, HTTP/1.1 keep-alive.
//! Requests are read, and connections accepted, by the loopback plumbing `a2a demo` and the
//! fault server use (`core/src/bin/a2a/loopback_http.rs`, included): the core's
//! `http1::RequestReader` (an ambiguous or malformed request is answered with its status and
//! `connection: close`), a 10 s deadline for a request head, 120 s idle keep-alive, and at
//! most `--max-connections` (default 1024) connections at once, the next ones answered 503.
//! Every JSON-RPC request is read with the core's server side (`server::parse_jsonrpc`: the
//! envelope, the version from the method name and `A2A-Version`, the typed params) and
//! answered with its builders (`result_response`, `event_frame`, `STREAM_HEADERS`,
//! `CardBuilder`), in the version the request spoke (0.3 or 1.0). By the first word of the
//! message text:
//! - `message/send` (any text): a COMPLETED task as the Go SDK's server returns one (task
//!   and context ids, status with a timestamp, one artifact `echo` whose text is the
//!   message's text, the user message as history);
//! - stream `stream <n>`: `n` events: the task snapshot (SUBMITTED), a WORKING status
//!   update, `n - 3` artifact updates (`chunk-<i>`, text `chunk <i>`), the COMPLETED status
//!   update (0.3: `final: true`), each event with an `id:` line as the Go SDK server writes
//!   them; the events are written in HTTP chunks of about 16 KiB (several events per write).
//!   The events after the snapshot are built with the core once per version and length and
//!   replayed with the request's ids spliced in ([`Template`]), so that the server's CPU per
//!   event stays far below the fastest client's;
//! - stream `hold`: the task snapshot, then nothing until the client closes the connection
//!   (bounded: 10 minutes): the idle streams of the memory figure.
//!
//! `GET /.well-known/agent-card.json` (also `agent.json`, the 0.3 draft's name) is the card:
//! JSON-RPC at 0.3 first, then 1.0, both at the base URL. `GET /stats` gives the server's
//! own CPU time per kind of work, each connection thread's CPU clock read around every
//! request, and how many sends were answered in 1.0:
//! `{"sends","sends_v1","send_cpu_ns","streams","events","stream_cpu_ns","process_cpu_ns"}`.
//!
//! Prints `READY http://127.0.0.1:<port>` once it accepts connections; exits when its
//! standard input closes (so a killed harness never leaves it behind). `--port N` (0: any),
//! `--max-connections N`.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::io::{self, BufRead, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2a_bench_clients::{process_cpu_ns, thread_cpu_ns};
use a2a_core::envelope::RpcId;
use a2a_core::model::params::Call;
use a2a_core::model::{
    Artifact, Message, Part, SendResponse, StreamEvent, Task, TaskArtifactUpdateEvent, TaskState,
    TaskStatus, TaskStatusUpdateEvent,
};
use a2a_core::outcome::ErrorName;
use a2a_core::server::{
    self, A2aError, CardBuilder, HostPolicy, IncomingRequest, Reply, Response, STREAM_HEADERS,
    ServerOptions,
};
use a2a_core::version::{Binding, ProtocolVersion};

// The loopback HTTP/1.1 plumbing of `a2a demo` and the fault server, shared rather than
// copied: the request reader, its deadlines and the accept loop. Not every item is used here.
#[allow(dead_code)]
#[path = "../../../../../core/src/bin/a2a/loopback_http.rs"]
mod loopback_http;

use loopback_http::{ConnLimits, Request};

/// Largest request body accepted.
const MAX_BODY: u64 = 4 * 1024 * 1024;
/// Connections served at once by default (the memory figure holds 100 idle streams per
/// client; `--max-connections` raises it).
const MAX_CONNECTIONS: usize = 1024;
/// Stream events are gathered into writes of about this size.
const WRITE_BATCH: usize = 16 * 1024;
/// How long a `hold` stream stays open at most.
const HOLD_LIMIT: Duration = Duration::from_secs(600);
/// A fixed status timestamp (the answer is fixed; the Go SDK's carries the time).
const TIMESTAMP: &str = "2026-12-01T00:00:00.000000Z";

#[derive(Default)]
struct Stats {
    sends: AtomicU64,
    /// Sends answered in protocol 1.0 (the rest were 0.3).
    sends_v1: AtomicU64,
    send_cpu_ns: AtomicU64,
    streams: AtomicU64,
    events: AtomicU64,
    stream_cpu_ns: AtomicU64,
    tasks: AtomicU64,
}

struct Server {
    card: Vec<u8>,
    stats: Stats,
    /// Stream templates by (version, number of events).
    templates: Mutex<HashMap<(ProtocolVersion, u64), Arc<Template>>>,
}

fn main() {
    let mut port = 0u16;
    let mut max_connections = MAX_CONNECTIONS;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => {
                port = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .expect("--port takes a number")
            }
            "--max-connections" => {
                max_connections = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .filter(|&n| n > 0)
                    .expect("--max-connections takes a number above 0")
            }
            other => {
                eprintln!(
                    "a2a-bench-server: unknown argument {other:?} (usage: [--port N] [--max-connections N])"
                );
                std::process::exit(2);
            }
        }
    }
    let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind 127.0.0.1");
    let base = format!("http://{}", listener.local_addr().expect("local address"));
    let card = CardBuilder::new(
        "a2a-bench",
        "Answers at once, for client benchmarks",
        "1.0.0",
    )
    .interface(&base, ProtocolVersion::V0_3, Binding::JsonRpc)
    .interface(&base, ProtocolVersion::V1_0, Binding::JsonRpc)
    .streaming(true)
    .to_json()
    .expect("the card is valid")
    .into_bytes();
    let server = Arc::new(Server {
        card,
        stats: Stats::default(),
        templates: Mutex::new(HashMap::new()),
    });
    println!("READY {base}");
    io::stdout().flush().expect("stdout");
    std::thread::spawn(|| {
        // Exit when the harness goes away (its pipe closes).
        let mut sink = String::new();
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        while lock.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
            sink.clear();
        }
        std::process::exit(0);
    });
    loopback_http::accept::serve_forever(
        listener,
        loopback_http::accept::AcceptOptions {
            max_connections,
            ..loopback_http::accept::AcceptOptions::named("a2a-bench-server")
        },
        move |conn| {
            let _ = serve_connection(&server, conn);
        },
    );
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

/// What a request was, for the CPU accounting.
enum Work {
    Send(ProtocolVersion),
    Stream(u64),
    Other,
}

/// How long a connection may idle between requests, and the request limits.
fn conn_limits() -> ConnLimits {
    let mut limits = ConnLimits {
        // A harness may pause between its phases on a pooled connection.
        idle: Duration::from_secs(120),
        ..ConnLimits::default()
    };
    limits.request.max_body_bytes = MAX_BODY;
    limits
}

fn serve_connection(server: &Server, mut conn: TcpStream) -> io::Result<()> {
    let limits = conn_limits();
    loopback_http::prepare(&conn, &limits);
    let mut buf = Vec::with_capacity(16 * 1024);
    let mut out = Vec::with_capacity(WRITE_BATCH + 4096);
    // Loopback: answer only for this address (and JSON bodies), as a real agent must; every
    // client of the harness passes the check. Built once per connection, outside the
    // measured per-request CPU.
    let policy = HostPolicy::new(conn.local_addr()?).map_err(io::Error::other)?;
    loop {
        // The thread's CPU clock around the whole iteration: reading (a blocked read costs
        // no CPU), parsing, answering, writing.
        let cpu0 = thread_cpu_ns();
        // A refused request is answered (with `connection: close`) by the reader.
        let Some(req) = loopback_http::read_request(&mut conn, &mut buf, &limits) else {
            return Ok(());
        };
        let work = handle(server, &mut conn, &req, &policy, &mut out)?;
        let cpu = thread_cpu_ns().saturating_sub(cpu0);
        let s = &server.stats;
        match work {
            Work::Send(version) => {
                s.sends.fetch_add(1, Ordering::Relaxed);
                if version == ProtocolVersion::V1_0 {
                    s.sends_v1.fetch_add(1, Ordering::Relaxed);
                }
                s.send_cpu_ns.fetch_add(cpu, Ordering::Relaxed);
            }
            Work::Stream(events) => {
                s.streams.fetch_add(1, Ordering::Relaxed);
                s.events.fetch_add(events, Ordering::Relaxed);
                s.stream_cpu_ns.fetch_add(cpu, Ordering::Relaxed);
            }
            Work::Other => {}
        }
        if !req.keep_alive {
            return Ok(());
        }
    }
}

fn write_plain(
    conn: &mut TcpStream,
    out: &mut Vec<u8>,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
) -> io::Result<()> {
    out.clear();
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        405 => "Method Not Allowed",
        415 => "Unsupported Media Type",
        421 => "Misdirected Request",
        _ => "Status",
    };
    write!(out, "HTTP/1.1 {status} {reason}\r\n")?;
    for (n, v) in headers {
        write!(out, "{n}: {v}\r\n")?;
    }
    write!(out, "content-length: {}\r\n\r\n", body.len())?;
    out.extend_from_slice(body);
    conn.write_all(out)
}

fn write_response(conn: &mut TcpStream, out: &mut Vec<u8>, r: &Response) -> io::Result<()> {
    write_plain(conn, out, r.status, &r.headers, &r.body)
}

fn handle(
    server: &Server,
    conn: &mut TcpStream,
    req: &Request,
    policy: &HostPolicy,
    out: &mut Vec<u8>,
) -> io::Result<Work> {
    let path = req.path.split('?').next().unwrap_or("");
    match (req.method.as_str(), path) {
        ("GET", "/.well-known/agent-card.json" | "/.well-known/agent.json") => {
            let h = [("Content-Type".to_owned(), "application/json".to_owned())];
            write_plain(conn, out, 200, &h, &server.card)?;
            Ok(Work::Other)
        }
        ("GET", "/stats") => {
            let s = &server.stats;
            let body = serde_json::json!({
                "sends": s.sends.load(Ordering::Relaxed),
                "sends_v1": s.sends_v1.load(Ordering::Relaxed),
                "send_cpu_ns": s.send_cpu_ns.load(Ordering::Relaxed),
                "streams": s.streams.load(Ordering::Relaxed),
                "events": s.events.load(Ordering::Relaxed),
                "stream_cpu_ns": s.stream_cpu_ns.load(Ordering::Relaxed),
                "process_cpu_ns": process_cpu_ns(),
            })
            .to_string();
            let h = [("Content-Type".to_owned(), "application/json".to_owned())];
            write_plain(conn, out, 200, &h, body.as_bytes())?;
            Ok(Work::Other)
        }
        ("POST", "/") => {
            let headers: Vec<(&str, &str)> = req
                .headers
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect();
            let opts = ServerOptions {
                host: Some(policy),
                ..ServerOptions::default()
            };
            match server::parse_jsonrpc(&headers, &req.body, &opts) {
                Err(refused) => {
                    write_response(conn, out, &refused.response())?;
                    Ok(Work::Other)
                }
                Ok(call) => answer(server, conn, &call, out),
            }
        }
        _ => {
            let h = [("Content-Type".to_owned(), "text/plain".to_owned())];
            write_plain(conn, out, 404, &h, b"Not Found")?;
            Ok(Work::Other)
        }
    }
}

fn status(state: TaskState) -> TaskStatus<'static> {
    TaskStatus {
        state,
        message: None,
        timestamp: Some(TIMESTAMP.into()),
    }
}

fn answer(
    server: &Server,
    conn: &mut TcpStream,
    req: &IncomingRequest<'_>,
    out: &mut Vec<u8>,
) -> io::Result<Work> {
    let n = server.stats.tasks.fetch_add(1, Ordering::Relaxed);
    let task_id = format!("bench-task-{n:08}");
    let context_id = format!("bench-ctx-{n:08}");
    match &req.call {
        Call::SendMessage(p) => {
            let text = p.message.text().unwrap_or_default();
            let mut user = p.message.clone();
            user.task_id = Some(task_id.as_str().into());
            user.context_id = Some(context_id.as_str().into());
            let task = Task {
                id: task_id.as_str().into(),
                context_id: context_id.as_str().into(),
                status: status(TaskState::Completed),
                artifacts: vec![Artifact {
                    artifact_id: "echo".into(),
                    name: Some("echo".into()),
                    description: None,
                    parts: vec![Part::text(text)],
                    metadata: None,
                    extensions: Vec::new(),
                }],
                history: vec![user],
                metadata: None,
            };
            let r = server::result_response(req, Reply::Send(&SendResponse::Task(task)))
                .map_err(|e| bad(&e.to_string()))?;
            write_response(conn, out, &r)?;
            Ok(Work::Send(req.version))
        }
        Call::SendStreamingMessage(p) => {
            let text = p.message.text().unwrap_or_default();
            let mut words = text.split_whitespace();
            let (hold, n) = match (words.next(), words.next().and_then(|w| w.parse().ok())) {
                (Some("hold"), _) => (true, 1),
                (Some("stream"), Some(n)) => (false, u64::max(n, 3)),
                _ => (false, 4),
            };
            let mut user = p.message.clone();
            user.task_id = Some(task_id.as_str().into());
            user.context_id = Some(context_id.as_str().into());
            stream(server, conn, req, out, &task_id, &context_id, user, hold, n)?;
            Ok(Work::Stream(n))
        }
        _ => {
            let e = A2aError::with_message(
                ErrorName::UnsupportedOperation,
                "the bench server answers send and stream only",
            );
            write_response(conn, out, &server::handler_error(req, &e))?;
            Ok(Work::Other)
        }
    }
}

/// Appends one event as the Go SDK's server writes it: an `id:` line, then the frame.
fn push_event(
    out: &mut Vec<u8>,
    req: &IncomingRequest<'_>,
    seq: u64,
    event: &StreamEvent<'_>,
) -> io::Result<()> {
    let frame = server::event_frame(req, event).map_err(|e| bad(&e.to_string()))?;
    writeln!(out, "id: {seq}")?;
    out.extend_from_slice(&frame.bytes);
    Ok(())
}

/// Writes what `out` holds past `start` as one HTTP chunk.
fn flush_chunk(conn: &mut impl Write, out: &mut Vec<u8>, start: usize) -> io::Result<()> {
    let len = out.len() - start;
    if len > 0 {
        // The chunk-size line goes into the space kept free before `start`.
        let size = format!("{len:x}\r\n");
        let from = start - size.len();
        out[from..start].copy_from_slice(size.as_bytes());
        out.extend_from_slice(b"\r\n");
        conn.write_all(&out[from..])?;
    }
    out.truncate(start);
    Ok(())
}

/// The events after the task snapshot (events 1 to n - 1) of a `stream <n>`, built once per
/// protocol version and length with the core's `event_frame`, with placeholder ids where
/// the request's JSON-RPC id, task id and context id go; [`Template::write`] replays them
/// with the real ids spliced in. Every distinct event is still the core's output: only the
/// three ids differ from one stream to the next, and splicing them costs a copy, where
/// serializing every event again would make the server, not the client, the limit of a fast
/// client's events per second.
struct Template {
    /// The event bytes, placeholders included.
    bytes: Vec<u8>,
    /// Where each placeholder starts: (offset, which: 0 rpc id, 1 task id, 2 context id).
    holes: Vec<(usize, usize)>,
    /// Where each event ends (offsets into `bytes`), to cut writes at event boundaries.
    ends: Vec<usize>,
}

/// Placeholders; none can occur in the serialized events otherwise.
const RPC_HOLE: &str = "\u{1}rpc-id\u{1}";
const TASK_HOLE: &str = "\u{1}task-id\u{1}";
const CTX_HOLE: &str = "\u{1}context-id\u{1}";

/// Streams up to this many events are kept as templates (a few MB each).
const TEMPLATE_MAX_EVENTS: u64 = 100_000;

/// Events 1 to n - 1 of a `stream <n>` for `req`, built with the core's `event_frame`, and
/// where each event ends.
fn events(
    req: &IncomingRequest<'_>,
    task_id: &str,
    context_id: &str,
    n: u64,
) -> io::Result<(Vec<u8>, Vec<usize>)> {
    let mut bytes = Vec::new();
    let mut ends = Vec::new();
    let update = |state: TaskState, is_final: bool| {
        StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            task_id: task_id.into(),
            context_id: context_id.into(),
            status: status(state),
            is_final,
            metadata: None,
        })
    };
    push_event(&mut bytes, req, 1, &update(TaskState::Working, false))?;
    ends.push(bytes.len());
    for i in 0..n - 3 {
        let event = StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: task_id.into(),
            context_id: context_id.into(),
            artifact: Artifact {
                artifact_id: format!("chunk-{i}").into(),
                name: None,
                description: None,
                parts: vec![Part::text(format!("chunk {i}"))],
                metadata: None,
                extensions: Vec::new(),
            },
            append: false,
            last_chunk: true,
            metadata: None,
        });
        push_event(&mut bytes, req, i + 2, &event)?;
        ends.push(bytes.len());
    }
    push_event(&mut bytes, req, n - 1, &update(TaskState::Completed, true))?;
    ends.push(bytes.len());
    Ok((bytes, ends))
}

impl Template {
    fn build(req: &IncomingRequest<'_>, n: u64) -> io::Result<Template> {
        let mut r = req.clone();
        r.id = Some(RpcId::String(RPC_HOLE.to_owned()));
        let (bytes, ends) = events(&r, TASK_HOLE, CTX_HOLE, n)?;
        let mut holes = Vec::new();
        for (which, hole) in [RPC_HOLE, TASK_HOLE, CTX_HOLE].iter().enumerate() {
            // As serde_json writes it inside a JSON string.
            let written = serde_json::to_string(hole).map_err(|e| bad(&e.to_string()))?;
            let inner = &written.as_bytes()[1..written.len() - 1];
            let quoted = written.as_bytes();
            // The RPC id is a whole JSON value (quotes included); the others sit inside strings.
            let needle = if which == 0 { quoted } else { inner };
            holes.extend(memchr::memmem::find_iter(&bytes, needle).map(|at| (at, which)));
        }
        holes.sort_unstable();
        Ok(Template { bytes, holes, ends })
    }

    /// Length of placeholder `which` as it appears in `bytes`.
    fn hole_len(which: usize) -> usize {
        let written =
            serde_json::to_string([RPC_HOLE, TASK_HOLE, CTX_HOLE][which]).unwrap_or_default();
        if which == 0 {
            written.len()
        } else {
            written.len() - 2
        }
    }

    /// Writes the events with `fill` (rpc id JSON, task id, context id) in chunks of about
    /// [`WRITE_BATCH`] bytes, cut at event boundaries.
    fn write(
        &self,
        conn: &mut impl Write,
        out: &mut Vec<u8>,
        room: usize,
        batch: usize,
        fill: [&[u8]; 3],
    ) -> io::Result<()> {
        let lens = [Self::hole_len(0), Self::hole_len(1), Self::hole_len(2)];
        let mut pos = 0;
        let mut holes = self.holes.iter().peekable();
        for &end in &self.ends {
            while let Some(&&(at, which)) = holes.peek() {
                if at >= end {
                    break;
                }
                out.extend_from_slice(&self.bytes[pos..at]);
                out.extend_from_slice(fill[which]);
                pos = at + lens[which];
                holes.next();
            }
            out.extend_from_slice(&self.bytes[pos..end]);
            pos = end;
            if out.len() >= batch {
                flush_chunk(conn, out, room)?;
            }
        }
        Ok(())
    }
}

#[allow(clippy::too_many_arguments)]
fn stream(
    server: &Server,
    conn: &mut TcpStream,
    req: &IncomingRequest<'_>,
    out: &mut Vec<u8>,
    task_id: &str,
    context_id: &str,
    user: Message<'_>,
    hold: bool,
    n: u64,
) -> io::Result<()> {
    let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
    for (name, value) in STREAM_HEADERS {
        write!(head, "{name}: {value}\r\n")?;
    }
    head.extend_from_slice(b"transfer-encoding: chunked\r\n\r\n");
    conn.write_all(&head)?;
    // Room for the chunk-size line in front of every batch.
    const ROOM: usize = 16;
    out.clear();
    out.resize(ROOM, 0);
    let snapshot = StreamEvent::Task(Task {
        id: task_id.into(),
        context_id: context_id.into(),
        status: status(TaskState::Submitted),
        artifacts: Vec::new(),
        history: vec![user],
        metadata: None,
    });
    push_event(out, req, 0, &snapshot)?;
    if hold {
        flush_chunk(conn, out, ROOM)?;
        hold_open(conn);
        return Ok(());
    }
    let key = (req.version, n);
    let cached = server
        .templates
        .lock()
        .map_err(|_| bad("poisoned"))?
        .get(&key)
        .cloned();
    let template = match cached {
        Some(t) => t,
        None => {
            let t = Arc::new(Template::build(req, n)?);
            if n <= TEMPLATE_MAX_EVENTS {
                server
                    .templates
                    .lock()
                    .map_err(|_| bad("poisoned"))?
                    .insert(key, Arc::clone(&t));
            }
            t
        }
    };
    let rpc_id = serde_json::to_vec(&req.id).map_err(|e| bad(&e.to_string()))?;
    template.write(
        conn,
        out,
        ROOM,
        WRITE_BATCH,
        [&rpc_id, task_id.as_bytes(), context_id.as_bytes()],
    )?;
    flush_chunk(conn, out, ROOM)?;
    conn.write_all(b"0\r\n\r\n")?;
    Ok(())
}

/// Keeps a `hold` stream open until the client closes it (or [`HOLD_LIMIT`]).
fn hold_open(conn: &mut TcpStream) {
    let end = Instant::now() + HOLD_LIMIT;
    let _ = conn.set_read_timeout(Some(Duration::from_secs(1)));
    let mut sink = [0u8; 512];
    while Instant::now() < end {
        match conn.read(&mut sink) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replayed template is byte for byte what the core builds for the request itself, for
    /// both versions, ids that need escaping or are not ASCII, and several lengths.
    #[test]
    fn a_replayed_template_equals_the_events_built_for_the_request() {
        let mut checked = 0;
        for id in ["7", r#""x\"y\\z""#, r#""ü-ñ""#, r#""""#, "-12"] {
            for (method, headers, message) in [
                (
                    "message/stream",
                    vec![],
                    r#"{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"stream 9"}]}"#,
                ),
                (
                    "SendStreamingMessage",
                    vec![("A2A-Version", "1.0")],
                    r#"{"messageId":"m","role":"ROLE_USER","parts":[{"text":"stream 9"}]}"#,
                ),
            ] {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"message":{message}}}}}"#
                );
                let mut headers = headers.clone();
                headers.push(("Content-Type", "application/json"));
                let req =
                    server::parse_jsonrpc(&headers, body.as_bytes(), &ServerOptions::default())
                        .expect("a valid request");
                for n in [3, 4, 9, 40] {
                    let (direct, _) =
                        events(&req, "bench-task-00000007", "bench-ctx-00000007", n).unwrap();
                    let template = Template::build(&req, n).unwrap();
                    let rpc_id = serde_json::to_vec(&req.id).unwrap();
                    let mut out = vec![0u8; 16];
                    let mut sink = Vec::new();
                    template
                        .write(
                            &mut sink,
                            &mut out,
                            16,
                            usize::MAX,
                            [&rpc_id, b"bench-task-00000007", b"bench-ctx-00000007"],
                        )
                        .unwrap();
                    assert!(sink.is_empty(), "nothing flushed with an unbounded batch");
                    assert_eq!(
                        String::from_utf8_lossy(&out[16..]),
                        String::from_utf8_lossy(&direct),
                        "id {id}, {method}, {n} events"
                    );
                    assert_eq!(template.ends.len() as u64, n - 1);
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 5 * 2 * 4);
    }

    /// The chunked writes of a long stream carry every event once, cut at event ends.
    #[test]
    fn chunked_writes_carry_every_event() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"s"}]}}}"#;
        let json = [("Content-Type", "application/json")];
        let req = server::parse_jsonrpc(&json, body.as_bytes(), &ServerOptions::default()).unwrap();
        let template = Template::build(&req, 2000).unwrap();
        let mut out = vec![0u8; 16];
        let mut sink = Vec::new();
        template
            .write(&mut sink, &mut out, 16, WRITE_BATCH, [b"1", b"t", b"c"])
            .unwrap();
        flush_chunk(&mut sink, &mut out, 16).unwrap();
        // De-chunk and count the events.
        let (mut at, mut data, mut chunks) = (0, Vec::new(), 0);
        while at < sink.len() {
            let line = memchr::memmem::find(&sink[at..], b"\r\n").unwrap();
            let size =
                usize::from_str_radix(std::str::from_utf8(&sink[at..at + line]).unwrap(), 16)
                    .unwrap();
            at += line + 2;
            data.extend_from_slice(&sink[at..at + size]);
            assert!(
                sink[at..at + size].ends_with(b"\n\n"),
                "a chunk ends at an event's end"
            );
            at += size + 2;
            chunks += 1;
        }
        assert!(chunks > 1, "a 2000-event stream takes several writes");
        assert_eq!(memchr::memmem::find_iter(&data, b"\n\n").count(), 1999);
        assert!(String::from_utf8_lossy(&data).contains(r#""text":"chunk 1996""#));
    }
}
