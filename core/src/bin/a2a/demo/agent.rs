//! The demo's embedded A2A agent, built on the core's server side
//! ([`a2a_core::server`]): it parses requests with `parse_jsonrpc`, answers with
//! `result_response`/`handler_error`, streams with `event_frame`, fails tasks with
//! `failed_update` (an ADK-style error_id it logs beside the real cause) and counts what it
//! served in its own tally. JSON-RPC, protocol 1.0 and 0.3, on 127.0.0.1.
//!
//! It answers by the first word of the message text: `echo <x>` (or anything else) →
//! completed task with `<x>`; `fail` → FAILED with a fresh error_id; `slow` → never answers
//! (holds the connection); on a stream, `count <n>` → n artifact chunks, `drop` → the first
//! chunk, then the connection is cut (resubscribe sends the rest).

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::model::params::Call;
use a2a_core::model::{
    Artifact, Part, SendResponse, StreamEvent, Task, TaskArtifactUpdateEvent, TaskState,
    TaskStatus, TaskStatusUpdateEvent,
};
use a2a_core::server::{
    A2aError, CardBuilder, CardSkill, ErrorId, HostPolicy, IncomingRequest, Reply, ServerOptions,
    event_frame, failed_update, handler_error, parse_jsonrpc, result_response,
};
use a2a_core::tally::Tally;
use a2a_core::version::{Binding, ProtocolVersion};

use crate::loopback_http::{self as http, Request, Sse};

/// The running agent.
pub struct Agent {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    state: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    /// Lines the agent logged (the operator's view).
    log: Mutex<Vec<String>>,
    /// Task id → final state and text.
    tasks: Mutex<HashMap<String, (TaskState, String)>>,
    /// What the agent served, counted the server's way.
    tally: Mutex<Tally>,
    next: Mutex<u64>,
}

fn random_bytes() -> [u8; 6] {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    let b = h.finish().to_le_bytes();
    [b[0], b[1], b[2], b[3], b[4], b[5]]
}

impl Agent {
    /// Starts the agent on a free loopback port.
    pub fn start() -> io::Result<Agent> {
        Agent::start_on(0)
    }

    /// Starts the agent on 127.0.0.1:`port` (0: a free port). Loopback only, always.
    pub fn start_on(port: u16) -> io::Result<Agent> {
        Agent::start_with(port, None)
    }

    /// Starts the agent on 127.0.0.1:`port`, its card signed with `signer` (key, kid) when
    /// given.
    pub fn start_with(port: u16, signer: Option<&CardSigner>) -> io::Result<Agent> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let base = format!("http://{}", listener.local_addr()?);
        let state = Arc::new(Shared::default());
        let shared = Arc::clone(&state);
        let card = card(&base, signer)?;
        // The accept loop survives a failed thread spawn and caps the connections it serves
        // (see `loopback_http::accept`).
        std::thread::Builder::new()
            .name("demo-accept".to_owned())
            .spawn(move || {
                http::accept::serve_forever(
                    listener,
                    http::accept::AcceptOptions::named("a2a demo"),
                    move |stream| serve(&shared, &card, stream),
                );
            })?;
        Ok(Agent { base, state })
    }

    /// The lines the agent logged so far.
    pub fn log(&self) -> Vec<String> {
        self.state
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The agent's own tally (what it served).
    pub fn tally(&self) -> Tally {
        self.state
            .tally
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// The key and kid the demo card is signed with (`a2a demo --serve --sign-card PEM`).
#[cfg(feature = "trust")]
pub type CardSigner = (a2a_core::trust::jws::SigningKey, String);
/// Without the `trust` feature there is nothing to sign with.
#[cfg(not(feature = "trust"))]
pub type CardSigner = std::convert::Infallible;

fn card(base: &str, signer: Option<&CardSigner>) -> io::Result<String> {
    // Both versions' fields (1.0 supportedInterfaces; 0.3 url, preferredTransport,
    // protocolVersion), so 0.3 clients such as the official Go SDK can pick an interface.
    let mut skill = CardSkill::new(
        "demo",
        "Demo",
        "Answers by the first word of a send: `echo <text>` completes with <text>, `fail` fails \
         with an ADK-style error_id, `slow` never answers (a timeout); anything else is echoed. \
         Streams: `count <n>` sends n artifact chunks, `drop` cuts the stream after the first \
         chunk (resubscribe sends the rest).",
        &["demo"],
    );
    skill.examples = vec!["echo hello".to_owned(), "fail".to_owned()];
    let card = CardBuilder::new("demo-agent", "a2a-core's embedded demo agent", "1.0.0")
        .interface(
            &format!("{base}/a2a"),
            ProtocolVersion::V1_0,
            Binding::JsonRpc,
        )
        .interface(
            &format!("{base}/a2a"),
            ProtocolVersion::V0_3,
            Binding::JsonRpc,
        )
        .streaming(true)
        .skill(skill);
    let signed = match signer {
        #[cfg(feature = "trust")]
        Some((key, kid)) => {
            card.to_signed_json(key, kid, None, &a2a_core::trust::SystemRandom::new())
        }
        #[cfg(not(feature = "trust"))]
        Some(never) => match *never {},
        None => card.to_json(),
    };
    signed.map_err(io::Error::other)
}

fn serve(shared: &Shared, card: &str, mut stream: TcpStream) {
    let limits = http::ConnLimits::default();
    http::prepare(&stream, &limits);
    let mut buf = Vec::new();
    loop {
        // Refused requests are answered (with `connection: close`) inside `read_request`.
        let Some(req) = http::read_request(&mut stream, &mut buf, &limits) else {
            return;
        };
        let _ = stream.set_read_timeout(None);
        let keep = if req.path.ends_with("/.well-known/agent-card.json") {
            http::respond(
                &mut stream,
                200,
                "application/json",
                &[],
                card.as_bytes(),
                true,
            )
            .is_ok()
        } else if req.method == "POST" && req.path == "/a2a" {
            handle(shared, &mut stream, &req).unwrap_or(false)
        } else {
            http::respond(&mut stream, 404, "text/plain", &[], b"not found\n", true).is_ok()
        };
        if !keep || !req.keep_alive {
            let _ = stream.shutdown(std::net::Shutdown::Both);
            return;
        }
    }
}

fn count(shared: &Shared, served: &a2a_core::server::Served) {
    shared.tally.lock().unwrap_or_else(|e| e.into_inner()).add(
        "demo-agent",
        served.method_label(),
        served.channel,
        &served.code,
        1,
    );
}

fn new_ids(shared: &Shared) -> (String, String) {
    let mut n = shared.next.lock().unwrap_or_else(|e| e.into_inner());
    *n += 1;
    (format!("t-{n}"), format!("c-{n}"))
}

fn text_task<'a>(id: &str, ctx: &str, state: TaskState, text: Option<&str>) -> Task<'a> {
    Task {
        id: Cow::Owned(id.to_owned()),
        context_id: Cow::Owned(ctx.to_owned()),
        status: TaskStatus::new(state),
        artifacts: text.map(|t| vec![artifact(t)]).unwrap_or_default(),
        history: Vec::new(),
        metadata: None,
    }
}

fn artifact<'a>(text: &str) -> Artifact<'a> {
    Artifact {
        artifact_id: Cow::Borrowed("answer"),
        name: Some(Cow::Borrowed("answer")),
        description: None,
        parts: vec![Part::text(text.to_owned())],
        metadata: None,
        extensions: Vec::new(),
    }
}

/// Writes a complete response; returns whether to keep the connection.
fn send(
    stream: &mut TcpStream,
    shared: &Shared,
    r: &a2a_core::server::Response,
) -> io::Result<bool> {
    count(shared, &r.served);
    let ct = r
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .map_or("application/json", |(_, v)| v.as_str());
    http::respond(stream, r.status, ct, &[], &r.body, true)?;
    Ok(true)
}

fn handle(shared: &Shared, stream: &mut TcpStream, req: &Request) -> io::Result<bool> {
    let headers: Vec<(&str, &str)> = req
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    // The agent listens on loopback: it answers only for its own address (a web page that
    // rebinds its name to 127.0.0.1 still sends its own name as Host) and only JSON bodies
    // (a page's cross-origin text/plain POST needs no preflight). See docs/serving.md.
    let policy = HostPolicy::new(stream.local_addr()?).map_err(io::Error::other)?;
    let opts = ServerOptions {
        host: Some(&policy),
        ..ServerOptions::default()
    };
    let incoming = match parse_jsonrpc(&headers, &req.body, &opts) {
        Ok(r) => r,
        Err(e) => return send(stream, shared, &e.response()),
    };
    match &incoming.call {
        Call::SendMessage(p) => {
            let text = first_text(&p.message.parts);
            let (word, rest) = text.split_once(' ').unwrap_or((&text, ""));
            let (id, ctx) = new_ids(shared);
            match word {
                "slow" => {
                    log(shared, format!("[agent] {id}: working on a slow request…"));
                    http::hold_until_peer_closes(stream, Duration::from_secs(30));
                    Ok(false)
                }
                "fail" => {
                    let (update, error_id) = failed_update(
                        id.clone(),
                        ctx.clone(),
                        format!("m-{id}"),
                        ErrorId::from_random(random_bytes()),
                        None,
                        None,
                    );
                    log(
                        shared,
                        format!(
                            "[agent] ERROR task {id}: ConnectionRefusedError: inventory database unreachable (error_id: {error_id})"
                        ),
                    );
                    remember(shared, &id, TaskState::Failed, "");
                    let task = Task {
                        status: update.status,
                        ..text_task(&id, &ctx, TaskState::Failed, None)
                    };
                    let r = result_response(&incoming, Reply::Send(&SendResponse::Task(task)))
                        .map_err(io::Error::other)?;
                    send(stream, shared, &r)
                }
                _ => {
                    let answer = if word == "echo" { rest } else { text.as_str() };
                    remember(shared, &id, TaskState::Completed, answer);
                    let task = text_task(&id, &ctx, TaskState::Completed, Some(answer));
                    let r = result_response(&incoming, Reply::Send(&SendResponse::Task(task)))
                        .map_err(io::Error::other)?;
                    send(stream, shared, &r)
                }
            }
        }
        Call::GetTask(p) => {
            let known = shared
                .tasks
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(p.id.as_ref())
                .cloned();
            match known {
                Some((state, text)) => {
                    let ctx = p.id.replace("t-", "c-");
                    let task = text_task(
                        &p.id,
                        &ctx,
                        state,
                        Some(&text).filter(|t| !t.is_empty()).map(|t| t.as_str()),
                    );
                    let r =
                        result_response(&incoming, Reply::Task(&task)).map_err(io::Error::other)?;
                    send(stream, shared, &r)
                }
                None => send(
                    stream,
                    shared,
                    &handler_error(&incoming, &A2aError::task_not_found(&p.id)),
                ),
            }
        }
        Call::SendStreamingMessage(p) => {
            let text = first_text(&p.message.parts);
            let (id, ctx) = new_ids(shared);
            stream_task(shared, stream, &incoming, &id, &ctx, &text)
        }
        Call::SubscribeToTask(p) => {
            let id = p.id.to_string();
            let ctx = id.replace("t-", "c-");
            let mut sse = Sse::start(stream)?;
            let rest = "and the rest, after the cut.";
            frame(
                shared,
                &mut sse,
                &incoming,
                &chunk_event(&id, &ctx, rest, true, true),
            )?;
            frame(
                shared,
                &mut sse,
                &incoming,
                &status_event(&id, &ctx, TaskState::Completed, true),
            )?;
            remember(shared, &id, TaskState::Completed, rest);
            sse.finish()?;
            Ok(true)
        }
        _ => send(
            stream,
            shared,
            &handler_error(
                &incoming,
                &A2aError::new(a2a_core::outcome::ErrorName::UnsupportedOperation),
            ),
        ),
    }
}

fn first_text(parts: &[Part<'_>]) -> String {
    parts
        .iter()
        .find_map(|p| match &p.content {
            a2a_core::model::PartContent::Text(t) => Some(t.to_string()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The most log lines kept (`a2a demo --serve` runs for as long as it is left running).
const MAX_LOG_LINES: usize = 1000;
/// The most tasks remembered for get and resubscribe; past it the oldest half is forgotten
/// (bounded memory for a long-running `--serve`).
const MAX_TASKS: usize = 10_000;

fn log(shared: &Shared, line: String) {
    let mut l = shared.log.lock().unwrap_or_else(|e| e.into_inner());
    if l.len() >= MAX_LOG_LINES {
        l.drain(..MAX_LOG_LINES / 2);
    }
    l.push(line);
}

fn remember(shared: &Shared, id: &str, state: TaskState, text: &str) {
    let mut t = shared.tasks.lock().unwrap_or_else(|e| e.into_inner());
    if t.len() >= MAX_TASKS {
        // Task ids are `t-<n>`: keep the newer half.
        let mut ids: Vec<(u64, String)> = t
            .keys()
            .map(|k| {
                (
                    k.rsplit('-')
                        .next()
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0),
                    k.clone(),
                )
            })
            .collect();
        ids.sort_unstable();
        for (_, k) in ids.iter().take(MAX_TASKS / 2) {
            t.remove(k);
        }
    }
    t.insert(id.to_owned(), (state, text.to_owned()));
}

fn status_event<'a>(id: &str, ctx: &str, state: TaskState, last: bool) -> StreamEvent<'a> {
    StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
        task_id: Cow::Owned(id.to_owned()),
        context_id: Cow::Owned(ctx.to_owned()),
        status: TaskStatus::new(state),
        is_final: last,
        metadata: None,
    })
}

fn chunk_event<'a>(id: &str, ctx: &str, text: &str, append: bool, last: bool) -> StreamEvent<'a> {
    StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: Cow::Owned(id.to_owned()),
        context_id: Cow::Owned(ctx.to_owned()),
        artifact: artifact(text),
        append,
        last_chunk: last,
        metadata: None,
    })
}

fn frame(
    shared: &Shared,
    sse: &mut Sse<'_>,
    req: &IncomingRequest<'_>,
    ev: &StreamEvent<'_>,
) -> io::Result<()> {
    let f = event_frame(req, ev).map_err(io::Error::other)?;
    if ev.state().is_some_and(|s| s.is_terminal()) {
        count(shared, &f.served);
    }
    sse.raw(&f.bytes)
}

fn stream_task(
    shared: &Shared,
    stream: &mut TcpStream,
    req: &IncomingRequest<'_>,
    id: &str,
    ctx: &str,
    text: &str,
) -> io::Result<bool> {
    let (word, rest) = text.split_once(' ').unwrap_or((text, ""));
    let mut sse = Sse::start(stream)?;
    frame(
        shared,
        &mut sse,
        req,
        &StreamEvent::Task(text_task(id, ctx, TaskState::Submitted, None)),
    )?;
    frame(
        shared,
        &mut sse,
        req,
        &status_event(id, ctx, TaskState::Working, false),
    )?;
    if word == "drop" {
        frame(
            shared,
            &mut sse,
            req,
            &chunk_event(id, ctx, "The first half arrives, ", false, false),
        )?;
        log(
            shared,
            format!("[agent] {id}: connection cut mid-stream (the task keeps running)"),
        );
        sse.drop_connection();
        return Ok(false);
    }
    let n: usize = rest.trim().parse().unwrap_or(3).clamp(1, 50);
    for i in 0..n {
        std::thread::sleep(Duration::from_millis(120));
        let piece = format!("chunk {} of {n}. ", i + 1);
        frame(
            shared,
            &mut sse,
            req,
            &chunk_event(id, ctx, &piece, i > 0, i + 1 == n),
        )?;
    }
    frame(
        shared,
        &mut sse,
        req,
        &status_event(id, ctx, TaskState::Completed, true),
    )?;
    remember(shared, id, TaskState::Completed, "streamed");
    sse.finish()?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// One raw request to the agent; returns the status line and the body.
    fn exchange(agent: &Agent, host: &str, content_type: &str) -> (String, String) {
        let addr = agent.base.trim_start_matches("http://");
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t-x"}}"#;
        write!(
            s,
            "POST /a2a HTTP/1.1\r\nHost: {host}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        // Read one Content-Length framed response (the agent keeps the connection open);
        // every read is bounded by the timeout.
        let mut out = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let text = String::from_utf8_lossy(&out).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: "))
                    .and_then(|n| n.trim().parse().ok())
                    .expect("a content-length");
                if body.len() >= len {
                    let status = head.lines().next().unwrap_or("").to_owned();
                    return (status, body[..len].to_owned());
                }
            }
            let n = s
                .read(&mut chunk)
                .expect("the agent answers within the timeout");
            assert!(n > 0, "the agent closed before answering: {text}");
            out.extend_from_slice(&chunk[..n]);
        }
    }

    /// Issue 21: the demo agent, on loopback, refuses a foreign Host (DNS rebinding) and a
    /// body not declared JSON (a page's "simple" cross-origin POST), and still answers its
    /// own address.
    #[test]
    fn the_demo_agent_refuses_foreign_hosts_and_non_json_bodies() {
        let agent = Agent::start().unwrap();
        let own = agent.base.trim_start_matches("http://").to_owned();
        let (status, body) = exchange(&agent, &own, "application/json");
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        assert!(body.contains("-32001"), "an unknown task: {body}");
        let port = own.rsplit(':').next().unwrap();
        let (status, _) = exchange(&agent, &format!("localhost:{port}"), "application/json");
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        let (status, body) = exchange(
            &agent,
            &format!("attacker.example:{port}"),
            "application/json",
        );
        assert!(status.starts_with("HTTP/1.1 421"), "{status}");
        assert!(body.contains("-32600"), "{body}");
        let (status, body) = exchange(&agent, &own, "text/plain");
        assert!(status.starts_with("HTTP/1.1 415"), "{status}");
        assert!(body.contains("-32005"), "{body}");
    }
}
