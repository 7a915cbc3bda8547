//! The reference agent, built on the core's server side ([`a2a_core::server`]): it reads
//! requests with `parse_jsonrpc` and `parse_rest` (JSON-RPC at `/a2a`, HTTP+JSON under
//! `/rest`, protocol 1.0 and 0.3 on both), answers with `result_response`/`handler_error`,
//! streams with `event_frame`, fails tasks with `failed_update` (an ADK-style error_id it
//! logs beside the real cause) and counts what it served in its own tally. Its tasks live
//! in the [`super::store`]: history (cut to `historyLength`), CancelTask, ListTasks with
//! filters and pages, SubscribeToTask replaying a task's events and following it live, and
//! multi-turn by `taskId`. With a bearer token configured, the card declares the scheme and
//! every A2A call without it is answered 401 (the card stays public). Push notifications
//! are not declared, so every push-config call is PushNotificationNotSupported (-32003).
//!
//! What a message does is scripted by its first word ([`super::WORDS`]).

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use a2a_core::envelope::Method;
use a2a_core::model::params::{Call, ListTasksParams};
use a2a_core::model::{
    Artifact, Message, Part, Role, SendResponse, StreamEvent, TaskArtifactUpdateEvent, TaskState,
    TaskStatus, TaskStatusUpdateEvent,
};
use a2a_core::outcome::ErrorName;
use a2a_core::server::{
    A2aError, CardBuilder, CardSkill, ErrorId, HostPolicy, IncomingRequest, Reply, ServerOptions,
    error_frame, event_frame, failed_update, handler_error, parse_jsonrpc, parse_rest,
    parse_timestamp, result_response,
};
use a2a_core::tally::Tally;
use a2a_core::version::{Binding, ProtocolVersion};

use super::store::{self, ListQuery, Refusal, Store};
use crate::loopback_http::{self as http, Request, Sse};

/// How the agent runs.
#[derive(Clone, Default)]
pub struct AgentOptions {
    /// 127.0.0.1 port (0: a free one).
    pub port: u16,
    /// When set, every A2A call needs `Authorization: Bearer <token>`, and the card says so.
    pub bearer_token: Option<String>,
    /// When set, the served card (each form) is signed with this key and kid
    /// (`--sign-card PEM [--card-kid ID]`).
    pub signer: Option<Arc<CardSigner>>,
}

/// The running agent.
pub struct Agent {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    state: Arc<Shared>,
}

struct Shared {
    /// Lines the agent logged (the operator's view).
    log: Mutex<Vec<String>>,
    /// The tasks.
    store: Store,
    /// What the agent served, counted the server's way.
    tally: Mutex<Tally>,
    /// The agent card, as served to 1.0 clients and to others (see [`cards`]).
    card: Cards,
    /// Hands long-running tasks to the worker that finishes them.
    worker: Mutex<mpsc::Sender<Job>>,
    /// The bearer token every A2A call must carry, if any.
    bearer_token: Option<String>,
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
    /// Starts the agent on a free loopback port, without authentication.
    pub fn start() -> io::Result<Agent> {
        Agent::start_with(&AgentOptions::default())
    }

    /// Starts the agent on 127.0.0.1 as `options` say. Loopback only, always.
    pub fn start_with(options: &AgentOptions) -> io::Result<Agent> {
        let listener = TcpListener::bind(("127.0.0.1", options.port))?;
        let base = format!("http://{}", listener.local_addr()?);
        let (jobs, queue) = mpsc::channel();
        let state = Arc::new(Shared {
            log: Mutex::new(Vec::new()),
            store: Store::default(),
            tally: Mutex::new(Tally::default()),
            card: cards(
                &base,
                options.bearer_token.is_some(),
                options.signer.as_deref(),
            )?,
            bearer_token: options.bearer_token.clone(),
            worker: Mutex::new(jobs),
        });
        let shared = Arc::clone(&state);
        let working = Arc::clone(&state);
        std::thread::Builder::new()
            .name("demo-worker".to_owned())
            .spawn(move || work(&working, &queue))?;
        // The accept loop survives a failed thread spawn and caps the connections it serves
        // (see `loopback_http::accept`).
        std::thread::Builder::new()
            .name("demo-accept".to_owned())
            .spawn(move || {
                http::accept::serve_forever(
                    listener,
                    http::accept::AcceptOptions::named("a2a demo"),
                    move |stream| serve(&shared, stream),
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

/// `card` with a signature over its canonical form when `signer` is given (A2A 1.0 §8.4),
/// else unchanged.
fn signed(card: String, signer: Option<&CardSigner>) -> io::Result<String> {
    match signer {
        #[cfg(feature = "trust")]
        Some((key, kid)) => a2a_core::trust::card_sig::sign_card(
            card.as_bytes(),
            key,
            kid,
            None,
            &a2a_core::trust::SystemRandom::new(),
        )
        .map_err(|e| io::Error::other(e.to_string())),
        #[cfg(not(feature = "trust"))]
        Some(never) => match *never {},
        None => Ok(card),
    }
}

/// The key and kid the demo card is signed with (`a2a demo --serve --sign-card PEM`).
#[cfg(feature = "trust")]
pub type CardSigner = (a2a_core::trust::jws::SigningKey, String);
/// Without the `trust` feature there is nothing to sign with.
#[cfg(not(feature = "trust"))]
pub type CardSigner = std::convert::Infallible;

/// The name of the security scheme the card declares when a token is configured.
const SCHEME: &str = "bearer";
/// The name of the OAuth2 client-credentials scheme declared beside it.
const OAUTH2_SCHEME: &str = "oauth2";
/// Where the agent's token endpoint listens (OAuth2 client credentials, RFC 6749 §4.4).
const TOKEN_PATH: &str = "/oauth2/token";
/// The client id the token endpoint knows; its secret is the bearer token itself.
pub const OAUTH2_CLIENT_ID: &str = "demo";

/// The card in two forms that differ only in how the security scheme is written: 1.0's
/// `SecurityScheme` is a oneof (`{"httpAuthSecurityScheme": {...}}`) and 0.3's a tagged
/// object (`{"type": "http", "scheme": "bearer"}`); one object cannot be both. The 1.0 form
/// is the default (the spec's card, and what a card fetch without a header gets); a request
/// with `A2A-Version: 0.x` gets the 0.3 form. Both carry 1.0's `securityRequirements` and
/// 0.3's `security`.
struct Cards {
    v1_0: String,
    v0_3: String,
    /// The extended card (GetExtendedAgentCard), offered only to authenticated callers: the
    /// 1.0 card with one more skill. `None` without a bearer token.
    extended: Option<Box<serde_json::value::RawValue>>,
}

fn cards(base: &str, bearer: bool, signer: Option<&CardSigner>) -> io::Result<Cards> {
    // Both versions' fields (1.0 supportedInterfaces; 0.3 url, preferredTransport,
    // protocolVersion), so 0.3 clients such as the official Go SDK can pick an interface.
    // JSON-RPC first: it is the preferred interface. HTTP+JSON is served at the root, where
    // clients that join routes as absolute paths (`urljoin(base, "/tasks")`) find it.
    let mut skill = CardSkill::new(
        "demo",
        "Demo",
        "Answers by the first word of a message: `echo <text>` completes with <text>, `fail` \
         fails with an ADK-style error_id, `slow` never answers (a timeout), `input` and \
         `auth` stop in INPUT_REQUIRED / AUTH_REQUIRED until a follow-up message to the \
         task, `reject` rejects; anything else is worked on in the background for a while \
         (the task is WORKING) and then echoed. Streams: `count <n>` sends n artifact \
         chunks, `drop` cuts the stream after the first chunk (resubscribe sends the rest).",
        &["demo"],
    );
    skill.examples = vec!["echo hello".to_owned(), "fail".to_owned()];
    let mut builder = CardBuilder::new("demo-agent", "a2a-core's reference agent", "1.0.0");
    for (url, binding) in [
        (format!("{base}/a2a"), Binding::JsonRpc),
        (base.to_owned(), Binding::HttpJson),
    ] {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            builder = builder.interface(&url, version, binding);
        }
    }
    let mut card = builder
        .streaming(true)
        .push_notifications(false)
        .skill(skill)
        .to_value()
        .expect("the demo card is valid");
    if !bearer {
        let text = signed(card.to_string(), signer)?;
        return Ok(Cards {
            v1_0: text.clone(),
            v0_3: text,
            extended: None,
        });
    }
    // Two alternatives: the token itself (bearer), or an OAuth2 client-credentials flow
    // whose token endpoint is the agent's own and issues that same token.
    let token_url = format!("{base}{TOKEN_PATH}");
    card["securityRequirements"] = serde_json::json!([
        {"schemes": {SCHEME: {"list": []}}},
        {"schemes": {OAUTH2_SCHEME: {"list": []}}},
    ]);
    // Authenticated callers may ask for the extended card (1.0 capability, 0.3 flag).
    card["capabilities"]["extendedAgentCard"] = serde_json::json!(true);
    card["supportsAuthenticatedExtendedCard"] = serde_json::json!(true);
    card["security"] = serde_json::json!([{ SCHEME: [] }, { OAUTH2_SCHEME: [] }]);
    let mut v1_0 = card.clone();
    let flows = serde_json::json!({"clientCredentials": {"tokenUrl": token_url, "scopes": {}}});
    v1_0["securitySchemes"] = serde_json::json!({
        SCHEME: {"httpAuthSecurityScheme": {"scheme": "bearer"}},
        OAUTH2_SCHEME: {"oauth2SecurityScheme": {"flows": flows}},
    });
    card["securitySchemes"] = serde_json::json!({
        SCHEME: {"type": "http", "scheme": "bearer"},
        OAUTH2_SCHEME: {"type": "oauth2", "flows": flows},
    });
    let mut extended = v1_0.clone();
    if let Some(skills) = extended["skills"].as_array_mut() {
        skills.push(serde_json::json!({
            "id": "tally",
            "name": "Tally",
            "description": "For authenticated callers: what the agent served, counted per method and outcome (printed on SIGTERM).",
            "tags": ["operations"],
        }));
    }
    Ok(Cards {
        v1_0: signed(v1_0.to_string(), signer)?,
        v0_3: signed(card.to_string(), signer)?,
        extended: serde_json::value::to_raw_value(&extended).ok(),
    })
}

/// How long a client may use the card without asking again (A2A 1.0 §8.6.2: servers
/// SHOULD send caching headers); its `ETag` lets a stale copy be revalidated with a `304`.
const CARD_MAX_AGE_SECS: u32 = 300;

/// Answers a card request: the card with `Cache-Control`, an `ETag` and `Vary:
/// A2A-Version` (the form depends on it), or `304 Not Modified` when the client's
/// `If-None-Match` names the current one.
fn respond_card(stream: &mut TcpStream, req: &http::Request, card: &str) -> io::Result<()> {
    let etag = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        card.hash(&mut h);
        format!("\"{:016x}-{}\"", h.finish(), card.len())
    };
    let headers = [
        (
            "cache-control",
            format!("public, max-age={CARD_MAX_AGE_SECS}"),
        ),
        ("etag", etag.clone()),
        ("vary", "A2A-Version".to_owned()),
    ];
    let matches = req.header("if-none-match").is_some_and(|v| {
        v.split(',').any(|t| {
            let t = t.trim();
            t == "*" || t.trim_start_matches("W/") == etag
        })
    });
    if matches {
        return http::respond(stream, 304, "application/json", &headers, b"", true);
    }
    http::respond(
        stream,
        200,
        "application/json",
        &headers,
        card.as_bytes(),
        true,
    )
}

fn serve(shared: &Shared, mut stream: TcpStream) {
    let limits = http::ConnLimits::default();
    http::prepare(&stream, &limits);
    let mut buf = Vec::new();
    loop {
        // Refused requests are answered (with `connection: close`) inside `read_request`.
        let Some(req) = http::read_request(&mut stream, &mut buf, &limits) else {
            return;
        };
        let _ = stream.set_read_timeout(None);
        let path = req.path.split('?').next().unwrap_or("");
        let keep = if path.ends_with("/.well-known/agent-card.json") && req.method == "GET" {
            let card = if req
                .header("a2a-version")
                .is_some_and(|v| v.trim().starts_with("0."))
            {
                &shared.card.v0_3
            } else {
                &shared.card.v1_0
            };
            respond_card(&mut stream, &req, card).is_ok()
        } else if path == TOKEN_PATH && shared.bearer_token.is_some() {
            issue_token(shared, &mut stream, &req).is_ok()
        } else if let Some(challenge) = unauthorized(shared, &req) {
            refuse_unauthenticated(&mut stream, &challenge).is_ok()
        } else if path == "/a2a" {
            if req.method == "POST" {
                handle(shared, &mut stream, &req, Binding::JsonRpc).unwrap_or(false)
            } else {
                let allow = [("allow", "POST".to_owned())];
                http::respond(&mut stream, 405, "text/plain", &allow, b"POST only\n", true).is_ok()
            }
        } else {
            // Every other path is the HTTP+JSON interface (unknown routes: 404 from the core).
            handle(shared, &mut stream, &req, Binding::HttpJson).unwrap_or(false)
        };
        if !keep || !req.keep_alive {
            let _ = stream.shutdown(std::net::Shutdown::Both);
            return;
        }
    }
}

/// The `WWW-Authenticate` challenge to answer when the request lacks the configured bearer
/// token (RFC 6750 §3: no error code when no credentials were sent, `invalid_token` when
/// the wrong ones were), or `None` when it may pass.
fn unauthorized(shared: &Shared, req: &Request) -> Option<String> {
    let token = shared.bearer_token.as_deref()?;
    let realm = "Bearer realm=\"a2a-core reference agent\"";
    let Some(value) = req.header("authorization") else {
        return Some(realm.to_owned());
    };
    let sent = value
        .split_once(' ')
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim());
    // Constant-time comparison is not needed on loopback; equal length and bytes is enough.
    if sent == Some(token) {
        None
    } else {
        Some(format!(
            "{realm}, error=\"invalid_token\", error_description=\"the bearer token is not valid\""
        ))
    }
}

/// The token endpoint (OAuth2 client credentials, RFC 6749 §4.4): client `demo` with the
/// bearer token as its secret (HTTP Basic or form fields) gets that token for an hour.
fn issue_token(shared: &Shared, stream: &mut TcpStream, req: &Request) -> io::Result<()> {
    let token = shared.bearer_token.as_deref().unwrap_or_default();
    let reply = |stream: &mut TcpStream, status: u16, body: serde_json::Value| {
        let no_store = [("cache-control", "no-store".to_owned())];
        http::respond(
            stream,
            status,
            "application/json",
            &no_store,
            body.to_string().as_bytes(),
            true,
        )
    };
    if req.method != "POST" {
        return reply(stream, 405, serde_json::json!({"error": "invalid_request"}));
    }
    let form = form_fields(&req.body);
    let field = |name: &str| {
        form.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if field("grant_type") != Some("client_credentials") {
        return reply(
            stream,
            400,
            serde_json::json!({"error": "unsupported_grant_type"}),
        );
    }
    let basic = req
        .header("authorization")
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("basic"))
        .and_then(|(_, b64)| {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .ok()
        })
        .and_then(|raw| String::from_utf8(raw).ok())
        .and_then(|pair| {
            let (id, secret) = pair.split_once(':')?;
            Some((form_decode(id), form_decode(secret)))
        });
    let (id, secret) = match basic {
        Some(pair) => pair,
        None => (
            field("client_id").unwrap_or_default().to_owned(),
            field("client_secret").unwrap_or_default().to_owned(),
        ),
    };
    if id != OAUTH2_CLIENT_ID || secret != token {
        return reply(stream, 401, serde_json::json!({"error": "invalid_client"}));
    }
    reply(
        stream,
        200,
        serde_json::json!({"access_token": token, "token_type": "Bearer", "expires_in": 3600}),
    )
}

/// The fields of an `application/x-www-form-urlencoded` body.
fn form_fields(body: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(body)
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (form_decode(k), form_decode(v))
        })
        .collect()
}

/// Decodes one form-encoded component (`+` is a space, `%XX` a byte; a `%` not followed
/// by two hex digits stays as it is).
fn form_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'+', _, _) => out.push(b' '),
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 2;
            }
            (c, _, _) => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn refuse_unauthenticated(stream: &mut TcpStream, challenge: &str) -> io::Result<()> {
    let body = serde_json::json!({
        "error": {
            "code": 401,
            "status": "UNAUTHENTICATED",
            "message": "this agent requires Authorization: Bearer <token> (see the card's securitySchemes)",
        }
    })
    .to_string();
    http::respond(
        stream,
        401,
        "application/json",
        &[("www-authenticate", challenge.to_owned())],
        body.as_bytes(),
        true,
    )
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

fn artifact<'a>(id: &str, text: &str) -> Artifact<'a> {
    Artifact {
        artifact_id: Cow::Owned(id.to_owned()),
        name: Some(Cow::Owned(id.to_owned())),
        description: None,
        parts: vec![Part::text(text.to_owned())],
        metadata: None,
        extensions: Vec::new(),
    }
}

/// An agent message in task `id` of context `ctx`.
fn agent_says(id: &str, ctx: &str, text: &str) -> Message<'static> {
    let mut m = Message::new(
        format!(
            "m-{id}-{}",
            u64::from_le_bytes({
                let b = random_bytes();
                [b[0], b[1], b[2], b[3], b[4], b[5], 0, 0]
            })
        ),
        Role::Agent,
        vec![Part::text(text.to_owned())],
    );
    m.task_id = Some(Cow::Owned(id.to_owned()));
    m.context_id = Some(Cow::Owned(ctx.to_owned()));
    m
}

fn status_event(id: &str, ctx: &str, status: TaskStatus<'static>) -> StreamEvent<'static> {
    StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
        task_id: Cow::Owned(id.to_owned()),
        context_id: Cow::Owned(ctx.to_owned()),
        status,
        is_final: false,
        metadata: None,
    })
}

fn state_event(id: &str, ctx: &str, state: TaskState, text: Option<&str>) -> StreamEvent<'static> {
    let mut status = TaskStatus::new(state);
    status.message = text.map(|t| Box::new(agent_says(id, ctx, t)));
    status_event(id, ctx, status)
}

fn chunk_event(id: &str, ctx: &str, text: &str, append: bool, last: bool) -> StreamEvent<'static> {
    StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: Cow::Owned(id.to_owned()),
        context_id: Cow::Owned(ctx.to_owned()),
        artifact: artifact("answer", text),
        append,
        last_chunk: last,
        metadata: None,
    })
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
    let extra: Vec<(&str, String)> = r
        .headers
        .iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case("content-type"))
        .map(|(n, v)| (n.as_str(), v.clone()))
        .collect();
    http::respond(stream, r.status, ct, &extra, &r.body, true)?;
    Ok(true)
}

fn reply(
    stream: &mut TcpStream,
    shared: &Shared,
    req: &IncomingRequest<'_>,
    answer: Result<Reply<'_, '_>, A2aError>,
) -> io::Result<bool> {
    let r = match answer {
        Ok(reply) => result_response(req, reply).map_err(io::Error::other)?,
        Err(e)
            if req.binding == Binding::JsonRpc
                && matches!(
                    req.method,
                    Method::SendStreamingMessage | Method::SubscribeToTask
                ) =>
        {
            // A streaming method answers with an event stream even when it fails at once:
            // one error event, then the end (what the official Python SDK sends; clients
            // that opened an EventSource expect one).
            let f = error_frame(req, &e);
            count(shared, &f.served);
            let mut sse = Sse::start(stream)?;
            sse.raw(&f.bytes)?;
            sse.finish()?;
            return Ok(true);
        }
        Err(e) => handler_error(req, &e),
    };
    send(stream, shared, &r)
}

#[allow(
    clippy::too_many_lines,
    reason = "the demo agent's router: one arm per A2A method and card path"
)]
fn handle(
    shared: &Shared,
    stream: &mut TcpStream,
    req: &Request,
    binding: Binding,
) -> io::Result<bool> {
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
    let parsed = match binding {
        Binding::JsonRpc => parse_jsonrpc(&headers, &req.body, &opts),
        _ => parse_rest(&req.method, &req.path, &headers, &req.body, &opts),
    };
    let incoming = match parsed {
        Ok(r) => r,
        Err(e) => return send(stream, shared, &e.response()),
    };
    let store = &shared.store;
    match &incoming.call {
        Call::SendMessage(p) => {
            let history_length = p.configuration.as_ref().and_then(|c| c.history_length);
            let message = p.message.clone().into_owned();
            let (id, ctx, text) = match begin(shared, message) {
                Ok(t) => t,
                Err(e) => return reply(stream, shared, &incoming, Err(e)),
            };
            if first_word(&text).0 == "slow" {
                log(shared, format!("[agent] {id}: working on a slow request…"));
                http::hold_until_peer_closes(stream, Duration::from_secs(30));
                return Ok(false);
            }
            for ev in script(shared, &id, &ctx, &text, false) {
                store.push(ev);
            }
            let task = store.get(&id, history_length);
            match task {
                Some(t) => reply(
                    stream,
                    shared,
                    &incoming,
                    Ok(Reply::Send(&SendResponse::Task(t))),
                ),
                None => reply(
                    stream,
                    shared,
                    &incoming,
                    Err(A2aError::task_not_found(&id)),
                ),
            }
        }
        Call::SendStreamingMessage(p) => {
            let message = p.message.clone().into_owned();
            let (id, ctx, text) = match begin(shared, message) {
                Ok(t) => t,
                Err(e) => return reply(stream, shared, &incoming, Err(e)),
            };
            stream_task(shared, stream, &incoming, &id, &ctx, &text)
        }
        Call::GetTask(p) => {
            let task = store.get(&p.id, p.history_length);
            let answer = task
                .as_ref()
                .map(Reply::Task)
                .ok_or_else(|| A2aError::task_not_found(&p.id));
            reply(stream, shared, &incoming, answer)
        }
        Call::ListTasks(p) => {
            let answer = list(store, p);
            let answer = answer.as_ref().map(Reply::Tasks).map_err(Clone::clone);
            reply(stream, shared, &incoming, answer)
        }
        Call::CancelTask(p) => {
            let ctx = store.get(&p.id, Some(0)).map(|t| t.context_id.to_string());
            let why = agent_says(
                &p.id,
                ctx.as_deref().unwrap_or(""),
                "canceled at the client's request",
            );
            let answer = match store.cancel(&p.id, why) {
                Ok(t) => Ok(t),
                Err(Refusal::NotFound) => Err(A2aError::task_not_found(&p.id)),
                Err(Refusal::State(s)) => Err(A2aError::with_message(
                    ErrorName::TaskNotCancelable,
                    format!(
                        "task {} is {}: a task in a terminal state cannot be canceled",
                        p.id,
                        s.as_str()
                    ),
                )
                .meta("taskId", p.id.to_string())),
            };
            if answer.is_ok() {
                log(shared, format!("[agent] {}: canceled", p.id));
            }
            reply(
                stream,
                shared,
                &incoming,
                answer.as_ref().map(Reply::Task).map_err(Clone::clone),
            )
        }
        Call::SubscribeToTask(p) => {
            let last_event_id = req
                .header("last-event-id")
                .and_then(|v| v.trim().parse::<usize>().ok());
            subscribe(shared, stream, &incoming, &p.id, last_event_id)
        }
        Call::CreatePushConfig(_)
        | Call::GetPushConfig(_)
        | Call::ListPushConfigs(_)
        | Call::DeletePushConfig(_) => reply(
            stream,
            shared,
            &incoming,
            Err(A2aError::with_message(
                ErrorName::PushNotificationNotSupported,
                "push notifications are not supported: this agent's card does not declare them",
            )),
        ),
        Call::GetExtendedAgentCard => {
            let answer = match shared.card.extended.as_deref() {
                // Every call past `unauthorized` is authenticated.
                Some(card) => Ok(Reply::Card(card)),
                None => Err(A2aError::with_message(
                    ErrorName::UnsupportedOperation,
                    "this agent's card does not declare an extended card",
                )),
            };
            reply(stream, shared, &incoming, answer)
        }
    }
}

fn list(
    store: &Store,
    p: &ListTasksParams<'_>,
) -> Result<a2a_core::model::ListTasksResponse<'static>, A2aError> {
    let q = ListQuery {
        context_id: p
            .context_id
            .as_deref()
            .filter(|c| !c.is_empty())
            .map(str::to_owned),
        status: p.status,
        // The core validated it; a time before 1970 or after 2262 simply matches everything
        // or nothing.
        status_after_ms: p
            .status_timestamp_after
            .as_deref()
            .and_then(parse_timestamp),
        page_size: p.page_size.unwrap_or(store::DEFAULT_PAGE_SIZE),
        page_token: p.page_token.as_deref().map(str::to_owned),
        history_length: p.history_length,
        include_artifacts: p.include_artifacts.unwrap_or(false),
    };
    store.list(&q).map_err(|why| {
        A2aError::with_message(
            ErrorName::InvalidParams,
            format!("Invalid params: pageToken {why}"),
        )
        .violation("pageToken", why)
    })
}

/// Starts the work of a message: a follow-up to a task waiting for input continues it, any
/// other message starts a task. Returns (task id, context id, the text to act on).
fn begin(shared: &Shared, message: Message<'static>) -> Result<(String, String, String), A2aError> {
    let text = first_text(&message.parts);
    let store = &shared.store;
    match message
        .task_id
        .as_deref()
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
    {
        Some(id) => {
            if let Some(ctx) = message.context_id.as_deref().filter(|c| !c.is_empty()) {
                let task_ctx = store.get(&id, Some(0)).map(|t| t.context_id.to_string());
                if task_ctx.as_deref().is_some_and(|t| t != ctx) {
                    return Err(A2aError::with_message(
                        ErrorName::InvalidParams,
                        format!("Invalid params: message.contextId {ctx:?} is not the context of task {id}"),
                    )
                    .violation("message.contextId", "is not the task's context"));
                }
            }
            let waiting = matches!(
                store.state(&id),
                Some(TaskState::InputRequired | TaskState::AuthRequired)
            );
            match store.add_message(&id, message) {
                Ok(ctx) => {
                    // The answer to a task waiting for input or authorization is echoed and
                    // completes it, unless it is one of the words; more input to a working
                    // task joins its history and the task goes on working.
                    let text = if waiting && !is_word(first_word(&text).0) {
                        format!("echo {text}")
                    } else {
                        text
                    };
                    Ok((id, ctx, text))
                }
                Err(Refusal::NotFound) => Err(A2aError::task_not_found(&id)),
                Err(Refusal::State(s)) => Err(A2aError::with_message(
                    ErrorName::UnsupportedOperation,
                    format!(
                        "task {id} is {}: a task in a terminal state accepts no more messages",
                        s.as_str()
                    ),
                )
                .meta("taskId", id.clone())),
            }
        }
        None => {
            let (id, ctx) = store.create(message);
            Ok((id, ctx, text))
        }
    }
}

fn first_word(text: &str) -> (&str, &str) {
    text.split_once(' ').unwrap_or((text, ""))
}

fn is_word(w: &str) -> bool {
    matches!(
        w,
        "echo" | "fail" | "slow" | "count" | "drop" | "input" | "auth" | "reject"
    )
}

/// The events a message's text makes its task go through (after `submitted`). `streaming`
/// spaces artifact chunks out, as a real agent producing them would.
#[allow(
    clippy::too_many_lines,
    reason = "the demo task's script: the events each kind of message goes through, in order"
)]
fn script(
    shared: &Shared,
    id: &str,
    ctx: &str,
    text: &str,
    streaming: bool,
) -> Vec<StreamEvent<'static>> {
    let (word, rest) = first_word(text);
    let working = state_event(id, ctx, TaskState::Working, None);
    match word {
        "echo" => vec![
            working,
            chunk_event(id, ctx, rest, false, true),
            state_event(id, ctx, TaskState::Completed, None),
        ],
        "fail" => {
            let (update, error_id) = failed_update(
                id.to_owned(),
                ctx.to_owned(),
                format!("m-{id}-failed"),
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
            vec![working, StreamEvent::StatusUpdate(update.into_owned())]
        }
        "reject" => vec![state_event(
            id,
            ctx,
            TaskState::Rejected,
            Some("this agent rejects the task, as asked"),
        )],
        "input" => vec![
            working,
            state_event(
                id,
                ctx,
                TaskState::InputRequired,
                Some("What should I echo? Send it to this task (taskId)."),
            ),
        ],
        "auth" => vec![
            working,
            state_event(
                id,
                ctx,
                TaskState::AuthRequired,
                Some(
                    "Authorization is needed to go on; once granted, send any message to this task (taskId).",
                ),
            ),
        ],
        "count" => {
            let n: usize = rest.trim().parse().unwrap_or(3).clamp(1, 50);
            let mut out = vec![working];
            for i in 0..n {
                if streaming {
                    out.push(StreamEvent::Message(Message::new(
                        "pause",
                        Role::Agent,
                        Vec::new(),
                    )));
                }
                out.push(chunk_event(
                    id,
                    ctx,
                    &format!("chunk {} of {n}. ", i + 1),
                    i > 0,
                    i + 1 == n,
                ));
            }
            out.push(state_event(id, ctx, TaskState::Completed, None));
            out
        }
        "drop" if !streaming => vec![
            working,
            chunk_event(id, ctx, "The first half arrives, ", false, false),
            chunk_event(id, ctx, "and the rest, after the cut.", true, true),
            state_event(id, ctx, TaskState::Completed, None),
        ],
        _ => {
            // A long-running task: WORKING now, finished by the worker later (unless a
            // follow-up or a cancel settles it first).
            let job = Job {
                id: id.to_owned(),
                ctx: ctx.to_owned(),
                text: text.to_owned(),
                due: Instant::now() + LONG_RUNNING,
            };
            let _ = shared
                .worker
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .send(job);
            vec![working]
        }
    }
}

/// How long a long-running task (any text that is not a word) stays WORKING.
const LONG_RUNNING: Duration = Duration::from_secs(10);

/// A long-running task to finish when `due`.
struct Job {
    id: String,
    ctx: String,
    text: String,
    due: Instant,
}

/// The worker: finishes each long-running task when it is due, echoing its text, if it is
/// still WORKING then. Jobs come in due order (they all run [`LONG_RUNNING`]), so one thread
/// and one sleep at a time serve them all.
fn work(shared: &Shared, queue: &mpsc::Receiver<Job>) {
    while let Ok(job) = queue.recv() {
        std::thread::sleep(job.due.saturating_duration_since(Instant::now()));
        if shared.store.state(&job.id) == Some(TaskState::Working) {
            shared
                .store
                .push(chunk_event(&job.id, &job.ctx, &job.text, false, true));
            shared
                .store
                .push(state_event(&job.id, &job.ctx, TaskState::Completed, None));
        }
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

fn log(shared: &Shared, line: String) {
    let mut l = shared.log.lock().unwrap_or_else(|e| e.into_inner());
    if l.len() >= MAX_LOG_LINES {
        l.drain(..MAX_LOG_LINES / 2);
    }
    l.push(line);
}

/// Writes event number `n` (1-based, its SSE `id`, what `Last-Event-ID` sends back) of a
/// task's log; counts the one that ends the stream.
fn frame(
    shared: &Shared,
    sse: &mut Sse<'_>,
    req: &IncomingRequest<'_>,
    n: usize,
    ev: &StreamEvent<'_>,
) -> io::Result<()> {
    let f = event_frame(req, ev).map_err(io::Error::other)?;
    if ev.state().is_some_and(store::ends_stream) {
        count(shared, &f.served);
    }
    let mut bytes = format!("id: {n}\n").into_bytes();
    bytes.extend_from_slice(&f.bytes);
    sse.raw(&bytes)
}

/// How long a subscriber is followed without any event before a keep-alive comment, and the
/// longest a subscription is held open at all.
const QUIET: Duration = Duration::from_secs(15);
const MAX_FOLLOW: Duration = Duration::from_secs(600);

/// Writes task `id`'s events from index `from` on, then follows it live until the stream
/// ends (a terminal or interrupted state) or [`MAX_FOLLOW`] passes.
fn follow(
    shared: &Shared,
    sse: &mut Sse<'_>,
    req: &IncomingRequest<'_>,
    id: &str,
    mut from: usize,
) -> io::Result<()> {
    let started = Instant::now();
    while started.elapsed() < MAX_FOLLOW {
        let Some(events) = shared.store.events_from(id, from) else {
            return Ok(());
        };
        if events.is_empty() {
            shared.store.wait_past(id, from, QUIET);
            if shared
                .store
                .events_from(id, from)
                .is_some_and(|e| e.is_empty())
            {
                sse.raw(b": keep-alive\n\n")?;
            }
            continue;
        }
        if write_events(shared, sse, req, &events, &mut from)? {
            return Ok(());
        }
    }
    Ok(())
}

/// Writes `events` as the frames after number `written` (moving it on); whether one of them
/// ends the stream (the rest is not written).
fn write_events(
    shared: &Shared,
    sse: &mut Sse<'_>,
    req: &IncomingRequest<'_>,
    events: &[StreamEvent],
    written: &mut usize,
) -> io::Result<bool> {
    for ev in events {
        *written += 1;
        frame(shared, sse, req, *written, ev)?;
        if ev.state().is_some_and(store::ends_stream) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn stream_task(
    shared: &Shared,
    stream: &mut TcpStream,
    req: &IncomingRequest<'_>,
    id: &str,
    ctx: &str,
    text: &str,
) -> io::Result<bool> {
    let store = &shared.store;
    // A follow-up continues from the task's current end; a new task is streamed whole.
    let from = store.events_from(id, 0).map_or(0, |e| e.len());
    let from = if from <= 1 { 0 } else { from };
    let mut sse = Sse::start(stream)?;
    if from > 0 {
        // A continued task's stream starts with the task as it is now.
        if let Some(t) = store.get(id, None) {
            let f = event_frame(req, &StreamEvent::Task(t)).map_err(io::Error::other)?;
            sse.raw(&f.bytes)?;
        }
    }
    let mut written = from;
    if word_is(text, "drop") {
        store.push(state_event(id, ctx, TaskState::Working, None));
        store.push(chunk_event(
            id,
            ctx,
            "The first half arrives, ",
            false,
            false,
        ));
        for ev in store.events_from(id, written).unwrap_or_default() {
            written += 1;
            frame(shared, &mut sse, req, written, &ev)?;
        }
        store.hold(
            id,
            vec![
                chunk_event(id, ctx, "and the rest, after the cut.", true, true),
                state_event(id, ctx, TaskState::Completed, None),
            ],
        );
        log(
            shared,
            format!("[agent] {id}: connection cut mid-stream (the task keeps running)"),
        );
        sse.drop_connection();
        return Ok(false);
    }
    for ev in script(shared, id, ctx, text, true) {
        if matches!(ev, StreamEvent::Message(_)) {
            // A pause between chunks: what the task produced so far goes out first, as a
            // real agent streams its work (before, every event waited for the last pause).
            let events = store.events_from(id, written).unwrap_or_default();
            if write_events(shared, &mut sse, req, &events, &mut written)? {
                // Ended meanwhile (a cancel from another connection).
                sse.finish()?;
                return Ok(true);
            }
            std::thread::sleep(Duration::from_millis(120));
            continue;
        }
        store.push(ev);
    }
    // The rest of the script's events, then whatever else happens until the stream ends (a
    // long-running task is followed until the worker or a cancel settles it).
    follow(shared, &mut sse, req, id, written)?;
    sse.finish()?;
    Ok(true)
}

fn word_is(text: &str, word: &str) -> bool {
    first_word(text).0 == word
}

/// SubscribeToTask: an unknown task is TaskNotFound, a task in a terminal state is
/// UnsupportedOperation (the spec: nothing more will happen to it); otherwise its events
/// are replayed from the start (or after `Last-Event-ID`) and followed live.
fn subscribe(
    shared: &Shared,
    stream: &mut TcpStream,
    req: &IncomingRequest<'_>,
    id: &str,
    last_event_id: Option<usize>,
) -> io::Result<bool> {
    let store = &shared.store;
    match store.state(id) {
        None => return reply(stream, shared, req, Err(A2aError::task_not_found(id))),
        Some(s) if s.is_terminal() => {
            return reply(
                stream,
                shared,
                req,
                Err(A2aError::with_message(
                    ErrorName::UnsupportedOperation,
                    format!(
                        "task {id} is {}: a task in a terminal state has no more events",
                        s.as_str()
                    ),
                )
                .meta("taskId", id.to_owned())),
            );
        }
        Some(_) => {}
    }
    let mut sse = Sse::start(stream)?;
    let pending = store.release_pending(id);
    if !pending.is_empty() {
        // The `drop` script's second half: produced once someone is listening again.
        let producer = pending;
        for ev in producer {
            store.push(ev);
        }
    }
    follow(shared, &mut sse, req, id, last_event_id.unwrap_or(0))?;
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
