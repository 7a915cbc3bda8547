//! `a2a-testkit fault-server`: a loopback A2A test server that misbehaves on demand.
//!
//! Real servers do not hang, redirect, stall or cut streams when a test asks them to; this
//! one does, so the driver (and every binding) can prove how it copes. It speaks protocol
//! 0.3 over JSON-RPC (the shapes of `docs/wire.md` §8.1), or with `--protocol 1.0` protocol
//! 1.0 over JSON-RPC (see below), std-only, one thread per connection.
//!
//! # Contract
//! `a2a-testkit fault-server [--port N] [--protocol 0.3|1.0] [--exit-on-eof] [--max-connections N] [--head-timeout-ms MS]` binds `127.0.0.1:N` (0 = any free port) and
//! prints two lines on standard output, then serves until killed (or, with `--exit-on-eof`,
//! until its standard input closes):
//! ```text
//! FULL http://127.0.0.1:<p2>     a listener whose accept queue is full: connects time out
//! READY http://127.0.0.1:<p>
//! ```
//! Every scenario lives under its own path prefix `/<scenario>/`; its agent card is at
//! `/<scenario>/.well-known/agent-card.json` (and `agent.json`) and names the JSON-RPC
//! interface `http://127.0.0.1:<p>/<scenario>/a2a` unless the scenario says otherwise.
//! A message whose text starts with `fail` yields a FAILED task with an ADK-style error_id
//! in every scenario that answers normally. See [`scenario`] for the list.
//!
//! With `--protocol 1.0` every scenario but `v03-only` speaks A2A 1.0 (as `v1-only` always
//! does): its card lists one JSON-RPC interface at protocol version 1.0 (the core's
//! `server::CardBuilder`); a call is read with the core's `server::parse_jsonrpc`, which
//! settles the version from the method name and `A2A-Version` (a 0.3 method, or a 1.0 method
//! without `A2A-Version: 1.0`, is refused with its 1.0 error); the scenario's answers and
//! events are the same as in 0.3, written in 1.0 by the core's `server::result_response`
//! and `server::event_frame`, its JSON-RPC errors by `server::jsonrpc_error_body`. What the
//! transport does (hang, status codes, redirects, HTML, cuts, silence, gzip, keep-alive
//! comments, bytes that are not UTF-8) does not depend on the version and happens before the
//! request is read as A2A, as a proxy's would. A scenario whose content cannot be written in
//! 1.0 (the file parts whose bytes are not base64) answers -32603 saying why.
//!
//! `GET /_counters` returns `{"scenarios":{"<name>":{counters}},"seen":[...]}`: per scenario
//! `requests`, `connections`, `cards`, `cards_with_authorization`, `messages` (message/send + message/stream), `sends`,
//! `streams`, `resubscribes`, `gets`, `cancels`, `other`; `seen` lists every JSON-RPC call
//! with `scenario`, `method`, `id` (the JSON-RPC id as JSON), `message_id`,
//! `idempotency_key`, `traceparent`, `accept_encoding`, `a2a_version` and `authorization` (whether the header was present;
//! its value is never recorded). `GET /_counters/<scenario>` returns one scenario's
//! counters with its own `seen` list.
//!
//! Connections are kept alive between requests and closed after 5 s idle (like uvicorn and
//! express), after 1 s in the `idle1` scenario.
//!
//! Requests are read with the core's `http1::RequestReader` (through the loopback plumbing it
//! shares with `a2a demo`): an ambiguous or malformed request (both `Transfer-Encoding` and
//! `Content-Length`, two lengths, `Content-Length: +5`, ...) is answered with its status (400,
//! 413, 417, 431, 501) and `connection: close`, is not counted, and nothing after it on that
//! connection is served. A request head must arrive within 10 s of its first byte
//! (`--head-timeout-ms`), else `408`; at most 512 connections are served at once
//! (`--max-connections`), the next ones get `503` with `retry-after: 1` and are closed.

mod gzip;
// The loopback HTTP/1.1 plumbing the `a2a demo` agent also serves with: one copy, kept with
// the shipped binary that needs it.
#[path = "../../../core/src/bin/a2a/loopback_http.rs"]
pub(crate) mod http;
mod scenario;

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2a_core::version::ProtocolVersion;
use serde_json::{Value, json};

use crate::args::{Args, EXIT_USAGE};

/// Counters kept per scenario.
#[derive(Default, Clone)]
struct Counters {
    requests: u64,
    connections: u64,
    cards: u64,
    /// Card requests that carried an `Authorization` header (credentials must never go there).
    cards_with_authorization: u64,
    messages: u64,
    sends: u64,
    streams: u64,
    resubscribes: u64,
    gets: u64,
    cancels: u64,
    other: u64,
}

impl Counters {
    fn to_json(&self) -> Value {
        json!({
            "requests": self.requests, "connections": self.connections, "cards": self.cards,
            "cards_with_authorization": self.cards_with_authorization,
            "messages": self.messages, "sends": self.sends, "streams": self.streams,
            "resubscribes": self.resubscribes, "gets": self.gets, "cancels": self.cancels,
            "other": self.other,
        })
    }
}

/// What the server remembers across requests.
#[derive(Default)]
struct State {
    counters: BTreeMap<String, Counters>,
    seen: Vec<Value>,
    /// Idempotency key (or messageId) → task id, for `idem-drop`.
    processed: HashMap<String, String>,
    next_task: u64,
}

/// The shared server.
pub struct Server {
    /// `http://127.0.0.1:<port>`.
    base: String,
    /// The full-backlog listener's URL (connects to it time out).
    full: String,
    /// Whether cards also list their interface in the 1.0 form (`supportedInterfaces`, at
    /// protocol version 0.3), as a 1.x SDK server in 0.3 compatibility publishes it: the
    /// conformance kit's cards (see `conformance`), so that clients that read only the 1.0
    /// form find the interface; `v03-only` keeps the pure 0.3 form.
    pub(crate) dual_cards: bool,
    /// The version every scenario but `v1-only` (always 1.0) and `v03-only` (always 0.3)
    /// speaks.
    pub(crate) protocol: ProtocolVersion,
    /// When the server started: `seen` entries carry `at_ms`, milliseconds since then.
    started: Instant,
    state: Mutex<State>,
}

impl Server {
    fn with_counters<R>(&self, scenario: &str, f: impl FnOnce(&mut Counters) -> R) -> R {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f(st.counters.entry(scenario.to_owned()).or_default())
    }

    fn record_seen(&self, mut entry: Value) {
        entry["at_ms"] = json!(self.started.elapsed().as_millis() as u64);
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.seen.push(entry);
    }

    fn new_task_id(&self) -> (String, String) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.next_task += 1;
        (
            format!("task-{}", st.next_task),
            format!("ctx-{}", st.next_task),
        )
    }

    /// Remembers `key` as processed into `task`; returns the task already stored for it.
    fn process_once(&self, key: &str, task: &str) -> Option<String> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match st.processed.get(key) {
            Some(t) => Some(t.clone()),
            None => {
                st.processed.insert(key.to_owned(), task.to_owned());
                None
            }
        }
    }

    /// The base URL, `http://127.0.0.1:<port>`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The full-backlog listener's URL (connects to it time out).
    pub fn full_url(&self) -> &str {
        &self.full
    }

    /// One scenario's counters with its `seen` list (as `GET /_counters/<scenario>`).
    pub fn scenario_json(&self, name: &str) -> Value {
        self.counters_json(Some(name))
    }

    fn counters_json(&self, only: Option<&str>) -> Value {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match only {
            Some(name) => {
                let c = st.counters.get(name).cloned().unwrap_or_default();
                let seen: Vec<&Value> = st.seen.iter().filter(|s| s["scenario"] == name).collect();
                let mut v = c.to_json();
                v["seen"] = json!(seen);
                v
            }
            None => {
                let scenarios: serde_json::Map<String, Value> = st
                    .counters
                    .iter()
                    .map(|(k, c)| (k.clone(), c.to_json()))
                    .collect();
                json!({"scenarios": scenarios, "seen": st.seen})
            }
        }
    }
}

/// The command line, for usage errors.
const USAGE: &str = "a2a-testkit fault-server [--port N] [--protocol 0.3|1.0] [--exit-on-eof] [--max-connections N] [--head-timeout-ms MS]";

/// How the server guards itself (the connection cap and the request deadlines).
#[derive(Debug, Clone, Copy)]
struct Options {
    max_connections: usize,
    dual_cards: bool,
    protocol: ProtocolVersion,
    limits: http::ConnLimits,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            // The driver, C and binding tests share one server and hold some connections
            // open on purpose (slow and stall scenarios): room for all of them.
            max_connections: 512,
            dual_cards: false,
            protocol: ProtocolVersion::V0_3,
            limits: http::ConnLimits::default(),
        }
    }
}

/// Runs `a2a-testkit fault-server`.
pub fn run(mut args: Args) -> i32 {
    let parsed = (|| -> Result<(u16, bool, Options), String> {
        let port = args.parsed::<u16>("--port")?.unwrap_or(0);
        let exit_on_eof = args.flag("--exit-on-eof");
        let mut options = Options::default();
        if let Some(p) = args.value("--protocol")? {
            options.protocol = parse_protocol(&p)?;
        }
        if let Some(n) = args.parsed::<usize>("--max-connections")? {
            if n == 0 {
                return Err("--max-connections must be at least 1".to_owned());
            }
            options.max_connections = n;
        }
        if let Some(ms) = args.parsed::<u64>("--head-timeout-ms")? {
            options.limits.head_timeout = Duration::from_millis(ms.max(1));
        }
        Ok((port, exit_on_eof, options))
    })();
    let (port, exit_on_eof, options) = match parsed.and_then(|p| args.finish().map(|_| p)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("a2a-testkit fault-server: {e}\nusage: {USAGE}");
            return EXIT_USAGE;
        }
    };
    let running = match start(port, options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("a2a-testkit fault-server: {e}");
            return 1;
        }
    };
    println!("FULL {}", running.server.full);
    println!("READY {}", running.server.base);
    if exit_on_eof {
        let stdin = std::io::stdin();
        let mut line = String::new();
        while matches!(stdin.lock().read_line(&mut line), Ok(n) if n > 0) {
            line.clear();
        }
        return 0;
    }
    loop {
        std::thread::park();
    }
}

/// A fault server serving on its own threads; it stops when the process exits.
pub struct Running {
    /// The server, for its URLs and counters.
    pub server: Arc<Server>,
    /// The full-backlog listener and the connections that fill it, kept alive.
    _full: (TcpListener, Vec<TcpStream>),
}

/// Starts a fault server on `127.0.0.1:<port>` (0: any free port) in this process.
fn start(port: u16, options: Options) -> Result<Running, String> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot bind 127.0.0.1:{port}: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("bound listener has no address: {e}"))?;
    let (full_url, full_listener, fillers) =
        full_backlog().map_err(|e| format!("cannot build the full-backlog listener: {e}"))?;
    let server = Arc::new(Server {
        base: format!("http://{addr}"),
        full: full_url,
        dual_cards: options.dual_cards,
        protocol: options.protocol,
        started: Instant::now(),
        state: Mutex::new(State::default()),
    });
    let served = Arc::clone(&server);
    std::thread::spawn(move || {
        http::accept::serve_forever(
            listener,
            http::accept::AcceptOptions {
                max_connections: options.max_connections,
                ..http::accept::AcceptOptions::named("a2a-testkit fault-server")
            },
            move |stream| serve_connection(&served, stream, options.limits),
        )
    });
    Ok(Running {
        server,
        _full: (full_listener, fillers),
    })
}

/// Starts a fault server for the conformance kit on any free loopback port: the default
/// options, with 0.3 cards in both forms (`Server::dual_cards`), speaking `protocol`.
pub fn start_for_conformance(protocol: ProtocolVersion) -> Result<Running, String> {
    start(
        0,
        Options {
            dual_cards: true,
            protocol,
            ..Options::default()
        },
    )
}

/// Reads a `--protocol` value: `0.3` or `1.0`.
pub fn parse_protocol(text: &str) -> Result<ProtocolVersion, String> {
    match text {
        "0.3" => Ok(ProtocolVersion::V0_3),
        "1.0" => Ok(ProtocolVersion::V1_0),
        other => Err(format!("--protocol must be 0.3 or 1.0, not {other:?}")),
    }
}

/// A listener on 127.0.0.1 whose accept queue is filled by connections nobody accepts, so
/// that a further connect times out (Linux drops SYNs to a listener with a full queue).
///
/// Returns its URL and the objects that must stay alive for it to stay full.
fn full_backlog() -> std::io::Result<(String, TcpListener, Vec<TcpStream>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let mut fillers = Vec::new();
    // std listens with a backlog of 128; the bound keeps this finite whatever the OS does.
    for _ in 0..4096 {
        match TcpStream::connect_timeout(&addr, Duration::from_millis(150)) {
            Ok(s) => fillers.push(s),
            Err(_) => return Ok((format!("http://{addr}"), listener, fillers)),
        }
    }
    Err(std::io::Error::other(
        "the accept queue never filled (4096 connections accepted by the kernel)",
    ))
}

/// Serves requests on one connection until it closes, goes idle or a scenario cuts it.
fn serve_connection(server: &Server, mut stream: TcpStream, mut limits: http::ConnLimits) {
    http::prepare(&stream, &limits);
    let mut buf = Vec::new();
    let mut first = true;
    let mut nth = 0u64;
    loop {
        // A refused request is answered (with `connection: close`) inside `read_request`,
        // and nothing after it on this connection is read.
        let Some(req) = http::read_request(&mut stream, &mut buf, &limits) else {
            return;
        };
        let name = scenario::name_of(&req.path).to_owned();
        if !name.starts_with('_') {
            server.with_counters(&name, |c| {
                c.requests += 1;
                if first {
                    c.connections += 1;
                }
            });
            first = false;
        }
        let _ = stream.set_read_timeout(None);
        nth += 1;
        match scenario::handle(server, &mut stream, &req, &name, nth) {
            Ok(scenario::After::KeepOpen) if req.keep_alive => {}
            Ok(scenario::After::KeepOpen | scenario::After::Close) | Err(_) => {
                let _ = stream.shutdown(std::net::Shutdown::Both);
                return;
            }
        }
        limits.idle = if name == "idle1" {
            Duration::from_secs(1)
        } else {
            Duration::from_secs(5)
        };
    }
}
