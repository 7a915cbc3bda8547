//! The fault server's scenarios, selected by the first path segment. The table describes them
//! in 0.3; with `--protocol 1.0` each answers the same in 1.0 (the module docs of [`super`]).
//!
//! | scenario | behaviour |
//! |---|---|
//! | `ok` (or any unknown name) | a well-behaved 0.3 JSON-RPC agent: send → completed task echoing the text (a text starting with `fail` → FAILED with an ADK error_id; `fail-leak…` adds ADK's debug exception detail, `…-hint` the stable hint `[retryable=false; contact=payments-oncall]`; `cancel-admission` → CANCELED with this project's admission marker, `cancel-remote` → CANCELED without a marker), stream → submitted, working, artifact, completed (`final`), get → completed, cancel → canceled, resubscribe → artifact + completed |
//! | `hang` | the card is served; every JSON-RPC call is read and never answered (held open until the client closes, at most 120 s) |
//! | `status-<code>` | every JSON-RPC call answers HTTP `<code>` with a `text/plain` body (503 adds `Retry-After: 1`) |
//! | `status-<code>-bare` | as `status-<code>`, never with `Retry-After` (a proxy's 503) |
//! | `status-<code>-rpc` | HTTP `<code>` with a JSON-RPC error body (-32603, the request's id) |
//! | `status-<code>-ra` | as `status-<code>`, always with `Retry-After: 1` (a 502 or 504 that says when to come back) |
//! | `rpc-error` | every JSON-RPC call answers HTTP 200 with a JSON-RPC error (-32603, the request's id) |
//! | `html200` | every JSON-RPC call answers HTTP 200 with an HTML page labelled `text/html` (a captive portal or a misrouted proxy) |
//! | `card-drift` | the card names `http://localhost:<port>/card-drift-target/a2a` (another origin than the one it was fetched from); `card-drift-target` answers as `ok`, so a client that follows the card shows up there |
//! | `v1-only` | speaks 1.0 whatever `--protocol` says (see the module docs of [`super`]): the card lists only a 1.0 JSON-RPC interface (`supportedInterfaces`), 1.0 calls are answered as `ok` in 1.0, a 0.3 method (or a 1.0 one without `A2A-Version: 1.0`) gets -32009 (version not supported) |
//! | `v03-only` | as `ok` in 0.3 whatever `--protocol` says (a 0.3 card; a 1.0 method name gets -32601, as a 0.3-only server answers): named apart so that a conformance run counts it alone, and its card stays in the pure 0.3 form when the conformance kit has the others list `supportedInterfaces` too |
//! | `html502` | HTTP 502 with an nginx-style HTML page |
//! | `redirect` | every JSON-RPC call answers `302` to `/redirect-target/a2a` (the card's interface URL redirects) |
//! | `redirect-target` | counts requests and answers 404: a client that follows redirects shows up here |
//! | `card-302` | the card request itself answers `302` to `/redirect-target/.well-known/agent-card.json` |
//! | `card-otherhost` | the card names `https://agent.other.example/a2a` |
//! | `card-localhost` | the card names `http://localhost:<port>/card-localhost/a2a` |
//! | `card-private` | the card names `http://10.1.2.3/a2a` |
//! | `secured` | the card asks for a bearer token (`securitySchemes`); calls without `Authorization` get 401 |
//! | `stream-drop` | stream: submitted, working, first artifact chunk, then the connection is cut (no terminating chunk); resubscribe sends the last chunk and completed |
//! | `stream-finished` | stream: submitted, working, then cut; resubscribe answers -32001 TaskNotFound (the task finished meanwhile); get answers the completed task |
//! | `stream-noresub-<n>` | stream: submitted, working, then cut; resubscribe answers -32004 UnsupportedOperation; get answers the task `working` for the first `<n>` gets, then completed (`done`): a client that waits must fall back to polling |
//! | `stream-truncated` | stream: submitted, working, first artifact chunk, then the stream ends cleanly (terminating chunk) before any terminal state; resubscribe and get as `stream-drop` |
//! | `final-drop` | stream: the normal sequence through the final `completed` event, then the connection is cut without the terminating chunk (a proxy or server closing hard after the last event) |
//! | `stall` | stream: submitted, working, then silence (no keep-alives) until the client closes |
//! | `keepalive-<every_ms>-<for_ms>` | stream: submitted, then only `: keep-alive` comments every `every_ms` for `for_ms`, then artifact + completed |
//! | `flow-<every_ms>-<for_ms>` | stream: submitted, then a working status update every `every_ms` for `for_ms`, then artifact + completed |
//! | `bigevent-<bytes>` | stream: submitted, working, an artifact chunk whose text is `<bytes>` long (one `data:` line), a second chunk `tail`, completed: a client with a smaller event limit must say it dropped one |
//! | `bigmulti-<bytes>` | as `bigevent-<bytes>`, but the big chunk carries its text in parts of 100 characters and its JSON is split over many short `data:` lines (at the commas): the event, not any line, is over the limit |
//! | `burst-<n>` | stream: submitted, `n` artifact chunks and completed, all in one TCP write (a buffering proxy) |
//! | `gzip` | stream: the normal sequence sent with `Content-Encoding: gzip` although identity was asked |
//! | `brotli` | stream: bytes labelled `Content-Encoding: br` (an encoding the driver does not decode) |
//! | `multiline` | stream: each event's JSON split over several `data:` lines, CRLF line ends, comments between events |
//! | `big-<bytes>` | send: a completed task whose artifact text is `<bytes>` long |
//! | `working` | get answers a task still in state `working` |
//! | `drop-second` | the first request on each connection is answered normally; a later request on the same (kept-alive) connection is read, counted and then the connection is closed without an answer |
//! | `idle1` | normal answers; the connection is closed after 1 s idle instead of 5 s |
//! | `badutf8` | send: a completed task whose artifact text holds a byte that is not UTF-8 |
//! | `badbytes` | send: a completed task whose artifact has a file part whose bytes are not base64 |
//! | `mirror` | send: a completed task whose artifact carries the user's parts and message metadata back as sent |
//! | `evilname` | send: a completed task whose file parts are named `../../escaped.txt`, `/tmp/abs.txt`, `..\\..\\win.txt`, and one has no name |
//! | `parts` | send: a completed task whose artifact carries every part kind (the echoed text, data, file bytes, file URI) |
//! | `badevent` | stream: submitted, working, an artifact update whose file bytes are not base64, the echo artifact, completed |
//! | `idem-drop` | send: the first request with a new `Idempotency-Key` (or, without one, messageId) is processed (task created), then the connection is cut before any answer; a repeat with the same key gets that task, completed |
//! | `hostile` | remote text built to fool a terminal (`HOSTILE_TEXT`: a forged `REMOTE_COMPLETED` line, CR, ESC sequences, C1 controls, U+2028/U+2029, a bidi override) in the card's name and description, a FAILED status text, an artifact's text and data; send `files`: a completed task whose file parts are named `good-1.txt`, a 300-character name, `link.txt`, `exists.txt`, `fifo.txt`, `good-2.txt`, then a text part `after the files`; send `error`: a JSON-RPC error with that text as message; stream: working, the text as an artifact chunk, FAILED with it |
//! | `silent-resub-<n>` | stream: submitted, working, then silence (no keep-alives) until the client closes; each of the first `n` resubscribes opens an event stream and stays silent the same way (a Go SDK server sends nothing on a resubscribe until the task changes); the next resubscribe sends the last artifact chunk and completed |
//! | `late-resub-<ms>` | stream: submitted, working, then silence until the client closes; a resubscribe is answered after `<ms>` with nothing sent before (not even the response head: a Go SDK server writes it with the first event), then the last artifact chunk and completed |

use std::io::{self, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use std::borrow::Cow;

use a2a_core::envelope::{Method, RpcId};
use a2a_core::model::{self, SendResponse, StreamEvent, Task, WireForm};
use a2a_core::outcome::ErrorName;
use a2a_core::server::{
    A2aError, CardBuilder, CardSkill, IncomingRequest, PROTOCOL_ERRORS, Reply, ServerOptions,
    code_of, event_frame, handler_error, jsonrpc_error_body, parse_jsonrpc, result_response,
};
use a2a_core::version::{Binding, ProtocolVersion};
use serde_json::{Value, json};

use super::http::{self, Request, Sse};
use super::{Server, gzip};

/// What to do with the connection after a response.
pub enum After {
    /// Read the next request (HTTP keep-alive).
    KeepOpen,
    /// Close it.
    Close,
}

/// The scenario named by a request path (`/<scenario>/...`); `""` for the root.
pub fn name_of(path: &str) -> &str {
    let p = path.split('?').next().unwrap_or("");
    p.trim_start_matches('/').split('/').next().unwrap_or("")
}

/// Parses `<prefix><a>-<b>` into two numbers.
fn two_numbers(name: &str, prefix: &str) -> Option<(u64, u64)> {
    let rest = name.strip_prefix(prefix)?;
    let (a, b) = rest.split_once('-')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

const ERROR_ID: &str = "0f1e2d3c4b5a";

/// Handles one request.
pub fn handle(
    server: &Server,
    stream: &mut TcpStream,
    req: &Request,
    name: &str,
    nth: u64,
) -> io::Result<After> {
    let path = req.path.split('?').next().unwrap_or("");
    if path == "/_counters" || path.starts_with("/_counters/") {
        let only = path.strip_prefix("/_counters/").filter(|s| !s.is_empty());
        let body = server.counters_json(only).to_string();
        let close = req
            .header("connection")
            .is_some_and(|c| c.eq_ignore_ascii_case("close"));
        http::respond(
            stream,
            200,
            "application/json",
            &[],
            body.as_bytes(),
            !close,
        )?;
        return Ok(if close { After::Close } else { After::KeepOpen });
    }
    if name == "redirect-target" {
        http::respond(
            stream,
            404,
            "text/plain",
            &[],
            b"redirect target: not found\n",
            true,
        )?;
        return Ok(After::KeepOpen);
    }
    let rest = path
        .trim_start_matches('/')
        .split_once('/')
        .map(|(_, r)| r)
        .unwrap_or("");
    if rest == ".well-known/agent-card.json" || rest == ".well-known/agent.json" {
        let auth = req.header("authorization").is_some();
        server.with_counters(name, |c| {
            c.cards += 1;
            if auth {
                c.cards_with_authorization += 1;
            }
        });
        return card(server, stream, name);
    }
    if req.method != "POST" {
        http::respond(stream, 404, "text/plain", &[], b"not found\n", true)?;
        return Ok(After::KeepOpen);
    }
    rpc(server, stream, req, name, nth)
}

/// Serves the scenario's agent card (protocol 0.3, or 1.0 when the scenario speaks it).
fn card(server: &Server, stream: &mut TcpStream, name: &str) -> io::Result<After> {
    let port = server.base.rsplit(':').next().unwrap_or("0");
    let url = match name {
        "card-302" => {
            let loc = format!(
                "{}/redirect-target/.well-known/agent-card.json",
                server.base
            );
            http::respond(stream, 302, "text/plain", &[("location", loc)], b"", true)?;
            return Ok(After::KeepOpen);
        }
        "card-otherhost" => "https://agent.other.example/a2a".to_owned(),
        "card-localhost" => format!("http://localhost:{port}/card-localhost/a2a"),
        "card-private" => "http://10.1.2.3/a2a".to_owned(),
        "card-drift" => format!("http://localhost:{port}/card-drift-target/a2a"),
        _ => format!("{}/{name}/a2a", server.base),
    };
    if speaks_v1(server, name) {
        return v1_card(stream, name, &url);
    }
    let mut card = json!({
        "protocolVersion": "0.3.0",
        "name": format!("fault {name}"),
        "description": "a2a-core fault-injecting test agent",
        "url": url,
        "preferredTransport": "JSONRPC",
        "version": "1.0.0",
        "capabilities": {"streaming": true, "pushNotifications": false},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "fault", "name": "Fault", "description": "misbehaves on demand", "tags": ["test"]}],
    });
    if server.dual_cards && name != "v03-only" {
        card["supportedInterfaces"] =
            json!([{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]);
    }
    if name == "hostile" {
        card["name"] = json!(format!("fault hostile {HOSTILE_TEXT}"));
        card["description"] = json!(HOSTILE_TEXT);
    }
    if name == "secured" {
        card["securitySchemes"] = json!({"bearer": {"type": "http", "scheme": "bearer"}});
        card["security"] = json!([{"bearer": []}]);
    }
    http::respond(
        stream,
        200,
        "application/json",
        &[],
        card.to_string().as_bytes(),
        true,
    )?;
    Ok(After::KeepOpen)
}

/// The parts of a JSON-RPC request the scenarios look at.
struct Call {
    id: Value,
    method: String,
    params: Value,
    /// Whether the scenario speaks 1.0 (`speaks_v1`): its errors are written in 1.0.
    v1: bool,
    /// The request as the core read it (1.0 only): results are written in 1.0 for its method.
    req: Option<IncomingRequest<'static>>,
}

impl Call {
    fn text(&self) -> String {
        self.params["message"]["parts"]
            .as_array()
            .and_then(|parts| parts.iter().find_map(|p| p["text"].as_str()))
            .unwrap_or("")
            .to_owned()
    }
    fn message_id(&self) -> Option<&str> {
        self.params["message"]["messageId"].as_str()
    }
    fn task_id(&self) -> String {
        self.params["id"]
            .as_str()
            .or_else(|| self.params["taskId"].as_str())
            .unwrap_or("task-unknown")
            .to_owned()
    }
}

/// Whether scenario `name` speaks 1.0: `v1-only` always, `v03-only` never, the others when
/// the server was started with `--protocol 1.0`.
fn speaks_v1(server: &Server, name: &str) -> bool {
    name == "v1-only" || (server.protocol == ProtocolVersion::V1_0 && name != "v03-only")
}

/// The JSON-RPC response carrying `result`, a value in the 0.3 JSON-RPC shapes the scenarios
/// build; for a 1.0 call it is read into the core's model and written in 1.0 for the call's
/// method by the core's server builders.
fn result(call: &Call, result: Value) -> String {
    match &call.req {
        None => json!({"jsonrpc": "2.0", "id": call.id, "result": result}).to_string(),
        Some(req) => v1_result(req, &result).unwrap_or_else(|why| {
            let e = A2aError::with_message(
                ErrorName::Internal,
                format!("fault server: cannot write this scenario's answer in 1.0: {why}"),
            );
            String::from_utf8_lossy(&handler_error(req, &e).body).into_owned()
        }),
    }
}

/// A 0.3-shaped `result` written in 1.0: a send's task or message, a get's or cancel's task,
/// or one stream event (the JSON of the core's SSE frame, which the scenario frames itself:
/// some split, compress or batch their events).
fn v1_result(req: &IncomingRequest<'_>, result: &Value) -> Result<String, String> {
    let bytes = serde_json::to_vec(result).map_err(|e| e.to_string())?;
    let read = |e: a2a_core::model::ModelError| e.to_string();
    let body = match req.method {
        Method::SendMessage => {
            let r: SendResponse<'_> =
                model::from_slice(&bytes, WireForm::JsonRpcV0_3).map_err(read)?;
            result_response(req, Reply::Send(&r)).map_err(read)?.body
        }
        Method::GetTask | Method::CancelTask => {
            let t: Task<'_> = model::from_slice(&bytes, WireForm::JsonRpcV0_3).map_err(read)?;
            result_response(req, Reply::Task(&t)).map_err(read)?.body
        }
        _ => {
            let e: StreamEvent<'_> =
                model::from_slice(&bytes, WireForm::JsonRpcV0_3).map_err(read)?;
            let frame = event_frame(req, &e).map_err(read)?.bytes;
            // One `data:` line (compact JSON has no line break) and the blank line.
            let text = String::from_utf8(frame).map_err(|e| e.to_string())?;
            return text
                .strip_prefix("data: ")
                .and_then(|t| t.strip_suffix("\n\n"))
                .filter(|t| !t.contains('\n'))
                .map(str::to_owned)
                .ok_or_else(|| format!("the core's frame is not one data line: {text:?}"));
        }
    };
    String::from_utf8(body).map_err(|e| e.to_string())
}

/// A JSON-RPC error response for `call`: in 1.0 with the core's ErrorInfo details
/// (`server::jsonrpc_error_body`), the name found from the code when it is a protocol error.
fn error(call: &Call, code: i64, message: &str) -> String {
    if !call.v1 {
        return error_body(&call.id, code, message);
    }
    let e = match PROTOCOL_ERRORS.iter().find(|n| code_of(**n) == Some(code)) {
        Some(name) => A2aError::with_message(*name, message),
        None => A2aError::other(code, message),
    };
    let id = match &call.id {
        Value::String(s) => Some(RpcId::String(s.clone())),
        Value::Number(n) => n.as_i64().map(RpcId::Number),
        _ => None,
    };
    String::from_utf8_lossy(&jsonrpc_error_body(ProtocolVersion::V1_0, id.as_ref(), &e))
        .into_owned()
}

/// A 0.3 JSON-RPC error response.
fn error_body(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

fn status(state: &str) -> Value {
    json!({"state": state, "timestamp": "2026-11-30T00:00:00.000Z"})
}

fn agent_message(text: &str) -> Value {
    json!({"kind": "message", "role": "agent", "messageId": "m-agent",
           "parts": [{"kind": "text", "text": text}]})
}

fn task(id: &str, ctx: &str, state: &str, artifact: Option<&str>) -> Value {
    let mut t = json!({"kind": "task", "id": id, "contextId": ctx, "status": status(state)});
    if let Some(text) = artifact {
        t["artifacts"] = json!([{"artifactId": "a-1", "name": "echo",
                                 "parts": [{"kind": "text", "text": text}]}]);
    }
    t
}

/// Gives `t` the history `hist-1`, `hist-2`, `hist-3` (user, agent, user), trimmed to the
/// last `n` messages when the request asked for `historyLength` (`n`), as the SDK servers do.
fn with_history(mut t: Value, n: Option<u64>) -> Value {
    let all: Vec<Value> = (1..=3)
        .map(|i| {
            let role = if i == 2 { "agent" } else { "user" };
            json!({"kind": "message", "role": role, "messageId": format!("m-hist-{i}"),
                   "parts": [{"kind": "text", "text": format!("hist-{i}")}]})
        })
        .collect();
    let keep = n.map_or(all.len(), |n| all.len().min(n as usize));
    t["history"] = Value::Array(all[all.len() - keep..].to_vec());
    t
}

/// The FAILED status text for a send text starting with `fail`: `fail-leak` adds ADK's
/// debug detail (`: <ExceptionClass>: <message>`), `fail-hint` the seeds' stable hint, and
/// `fail-leak-hint` both.
fn failure_text(text: &str) -> String {
    let mut t = format!("Agent execution failed. (error_id: {ERROR_ID})");
    if text.starts_with("fail-leak") {
        t.push_str(": java.lang.IllegalStateException: card 4111111111111111 declined by upstream");
    }
    if text.ends_with("-hint") {
        t.push_str(" [retryable=false; contact=payments-oncall]");
    }
    t
}

fn failed_task_text(id: &str, ctx: &str, text: &str) -> Value {
    let mut t = task(id, ctx, "failed", None);
    t["status"]["message"] = agent_message(&failure_text(text));
    t
}

/// A CANCELED task: `cancel-admission` with this project's server marker (the text prefix
/// of `server::admission_canceled`), `cancel-remote` with no marker (an ADK agent's
/// before-execute check).
fn canceled_task(id: &str, ctx: &str, text: &str) -> Value {
    let mut t = task(id, ctx, "canceled", None);
    let msg = if text == "cancel-admission" {
        "Refused before running: queue full"
    } else {
        "The task was canceled."
    };
    t["status"]["message"] = agent_message(msg);
    t
}

fn status_update(id: &str, ctx: &str, state: &str, last: bool) -> Value {
    json!({"kind": "status-update", "taskId": id, "contextId": ctx, "status": status(state), "final": last})
}

fn artifact_update(id: &str, ctx: &str, text: &str, append: bool, last: bool) -> Value {
    json!({"kind": "artifact-update", "taskId": id, "contextId": ctx,
           "artifact": {"artifactId": "a-1", "parts": [{"kind": "text", "text": text}]},
           "append": append, "lastChunk": last})
}

fn respond_json(stream: &mut TcpStream, body: &str) -> io::Result<After> {
    http::respond(stream, 200, "application/json", &[], body.as_bytes(), true)?;
    Ok(After::KeepOpen)
}

/// Handles a JSON-RPC call.
fn rpc(
    server: &Server,
    stream: &mut TcpStream,
    req: &Request,
    name: &str,
    nth: u64,
) -> io::Result<After> {
    let parsed: Option<Value> = serde_json::from_slice(&req.body).ok();
    let Some(v) = parsed else {
        return respond_json(
            stream,
            &error_body(&Value::Null, -32700, "Invalid JSON payload"),
        );
    };
    let mut call = Call {
        id: v.get("id").cloned().unwrap_or(Value::Null),
        method: v["method"].as_str().unwrap_or("").to_owned(),
        params: v.get("params").cloned().unwrap_or(Value::Null),
        v1: speaks_v1(server, name),
        req: None,
    };
    let idem = req.header("idempotency-key").map(str::to_owned);
    server.record_seen(json!({
        "scenario": name,
        "method": call.method,
        "id": call.id,
        "message_id": call.message_id(),
        "idempotency_key": idem,
        "traceparent": req.header("traceparent"),
        "authorization": req.header("authorization").is_some(),
        "accept_encoding": req.header("accept-encoding"),
        "a2a_version": req.header("a2a-version"),
    }));
    server.with_counters(name, |c| match call.method.as_str() {
        // 0.3 method names, and their 1.0 names (counted alike: the `v1-only` scenario).
        "message/send" | "SendMessage" => {
            c.messages += 1;
            c.sends += 1;
        }
        "message/stream" | "SendStreamingMessage" => {
            c.messages += 1;
            c.streams += 1;
        }
        "tasks/resubscribe" | "SubscribeToTask" => c.resubscribes += 1,
        "tasks/get" | "GetTask" => c.gets += 1,
        "tasks/cancel" | "CancelTask" => c.cancels += 1,
        _ => c.other += 1,
    });

    // Scenarios that answer every call the same way.
    if name == "drop-second" && nth >= 2 {
        // A request on a reused connection is read, then the connection is closed without
        // an answer: a client that replays POSTs on stale connections sends it again.
        return Ok(After::Close);
    }
    match name {
        "hang" => {
            http::hold_until_peer_closes(stream, Duration::from_secs(120));
            return Ok(After::Close);
        }
        "html502" => {
            let page = b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
            http::respond(stream, 502, "text/html", &[], page, true)?;
            return Ok(After::KeepOpen);
        }
        "rpc-error" => {
            return respond_json(
                stream,
                &error(&call, -32603, "fault server: internal error"),
            );
        }
        "html200" => {
            let page = b"<html><head><title>Sign in</title></head><body><h1>Sign in to continue</h1></body></html>\r\n";
            http::respond(stream, 200, "text/html", &[], page, true)?;
            return Ok(After::KeepOpen);
        }
        "redirect" => {
            let loc = format!("{}/redirect-target/a2a", server.base);
            http::respond(stream, 302, "text/plain", &[("location", loc)], b"", true)?;
            return Ok(After::KeepOpen);
        }
        "secured" if req.header("authorization").is_none() => {
            http::respond(
                stream,
                401,
                "text/plain",
                &[("www-authenticate", "Bearer".to_owned())],
                b"missing bearer token\n",
                true,
            )?;
            return Ok(After::KeepOpen);
        }
        _ => {}
    }
    if let Some(spec) = name.strip_prefix("status-") {
        let (code, rpc_body) = match spec.strip_suffix("-rpc") {
            Some(c) => (c, true),
            None => (spec, false),
        };
        let (code, bare) = match code.strip_suffix("-bare") {
            Some(c) => (c, true),
            None => (code, false),
        };
        let (code, always_ra) = match code.strip_suffix("-ra") {
            Some(c) => (c, true),
            None => (code, false),
        };
        let code: u16 = code.parse().unwrap_or(500);
        let mut extra = Vec::new();
        if always_ra || (code == 503 && !bare) {
            extra.push(("retry-after", "1".to_owned()));
        }
        if rpc_body {
            let body = error(&call, -32603, &format!("fault server answered {code}"));
            http::respond(
                stream,
                code,
                "application/json",
                &extra,
                body.as_bytes(),
                true,
            )?;
        } else {
            let body = format!("{code} {}\n", http::reason(code));
            http::respond(stream, code, "text/plain", &extra, body.as_bytes(), true)?;
        }
        return Ok(After::KeepOpen);
    }

    // What the transport did is done; now the call is read as A2A. In 1.0 the core reads it
    // (version from the method name and `A2A-Version`, params checked) and the scenario
    // answers the 0.3 method of the same meaning, in 1.0.
    let method = if call.v1 {
        let headers: Vec<(&str, &str)> = req
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let only_v1 = ServerOptions {
            v0_3: false,
            v1_0: true,
            host: None,
        };
        match parse_jsonrpc(&headers, &req.body, &only_v1) {
            Err(refused) => {
                let r = refused.response();
                http::respond(stream, r.status, "application/json", &[], &r.body, true)?;
                return Ok(After::KeepOpen);
            }
            Ok(incoming) => {
                let m = incoming.method.jsonrpc_name(ProtocolVersion::V0_3);
                call.req = Some(owned_request(incoming));
                m.unwrap_or("").to_owned()
            }
        }
    } else {
        call.method.clone()
    };
    let call = &call;
    match method.as_str() {
        "message/send" => send(server, stream, req, name, call, idem),
        "message/stream" => message_stream(server, stream, name, call),
        "tasks/resubscribe" => resubscribe(server, stream, name, call),
        "tasks/get" => {
            let id = call.task_id();
            let ctx = id.replace("task", "ctx");
            if name == "working" {
                return respond_json(stream, &result(call, task(&id, &ctx, "working", None)));
            }
            if let Some(n) = name
                .strip_prefix("stream-noresub-")
                .and_then(|n| n.parse::<u64>().ok())
                && server.with_counters(name, |c| c.gets) <= n
            {
                return respond_json(stream, &result(call, task(&id, &ctx, "working", None)));
            }
            if name == "history" {
                // Honours `historyLength` (the history trimmed to its last N messages).
                let n = call.params["historyLength"].as_u64();
                let t = with_history(task(&id, &ctx, "completed", Some("done")), n);
                return respond_json(stream, &result(call, t));
            }
            let text = if name == "stream-drop" || name == "stream-truncated" {
                "part one, part two"
            } else {
                "done"
            };
            respond_json(
                stream,
                &result(call, task(&id, &ctx, "completed", Some(text))),
            )
        }
        "tasks/cancel" => {
            let id = call.task_id();
            let ctx = id.replace("task", "ctx");
            respond_json(stream, &result(call, task(&id, &ctx, "canceled", None)))
        }
        m if m.starts_with("tasks/pushNotificationConfig/") => respond_json(
            stream,
            &error(call, -32003, "Push Notification is not supported"),
        ),
        "agent/getAuthenticatedExtendedCard" => respond_json(
            stream,
            &error(
                call,
                -32007,
                "Authenticated Extended Card is not configured",
            ),
        ),
        _ => respond_json(stream, &error(call, -32601, "Method not found")),
    }
}

/// `incoming` with nothing borrowed from the request body (kept in the `Call`).
fn owned_request(incoming: IncomingRequest<'_>) -> IncomingRequest<'static> {
    IncomingRequest {
        version: incoming.version,
        binding: incoming.binding,
        method: incoming.method,
        id: incoming.id,
        call: incoming.call.into_owned(),
        tenant: incoming.tenant.map(|t| Cow::Owned(t.into_owned())),
        extensions: incoming.extensions,
        traceparent: incoming.traceparent,
        idempotency_key: incoming.idempotency_key,
    }
}

fn send(
    server: &Server,
    stream: &mut TcpStream,
    req: &Request,
    name: &str,
    call: &Call,
    idem: Option<String>,
) -> io::Result<After> {
    let _ = req;
    let (id, ctx) = server.new_task_id();
    let text = call.text();
    if name == "idem-drop" {
        let key = idem
            .or_else(|| call.message_id().map(str::to_owned))
            .unwrap_or_default();
        return match server.process_once(&key, &id) {
            None => Ok(After::Close), // processed; the answer is never written
            Some(done) => {
                let ctx = done.replace("task", "ctx");
                respond_json(
                    stream,
                    &result(call, task(&done, &ctx, "completed", Some(&text))),
                )
            }
        };
    }
    if let Some(n) = name
        .strip_prefix("big-")
        .and_then(|n| n.parse::<usize>().ok())
    {
        let big = "x".repeat(n);
        return respond_json(
            stream,
            &result(call, task(&id, &ctx, "completed", Some(&big))),
        );
    }
    if name == "badutf8" {
        // An artifact whose text holds a byte that is not UTF-8: the answer cannot be read.
        let body = result(call, task(&id, &ctx, "completed", Some("BAD")));
        let mut bytes = body.into_bytes();
        if let Some(at) = bytes.windows(3).position(|w| w == b"BAD") {
            bytes[at + 1] = 0xFF;
        }
        http::respond(stream, 200, "application/json", &[], &bytes, true)?;
        return Ok(After::KeepOpen);
    }
    if name == "badbytes" {
        let mut t = task(&id, &ctx, "completed", Some(&text));
        t["artifacts"][0]["parts"]
            .as_array_mut()
            .expect("parts")
            .push(json!({"kind": "file", "file": {"bytes": "not base64!", "name": "x.bin"}}));
        return respond_json(stream, &result(call, t));
    }
    if name == "history" {
        // Honours `configuration.historyLength` (the history trimmed to its last N messages).
        let n = call.params["configuration"]["historyLength"].as_u64();
        let t = with_history(task(&id, &ctx, "completed", Some(&text)), n);
        return respond_json(stream, &result(call, t));
    }
    if name == "mirror" {
        // The user's parts and message metadata back, as they came (0.3 JSON-RPC shapes).
        let mut t = task(&id, &ctx, "completed", Some(""));
        t["artifacts"][0]["parts"] = call.params["message"]["parts"].clone();
        t["artifacts"][0]["metadata"] = call.params["message"]["metadata"].clone();
        return respond_json(stream, &result(call, t));
    }
    if name == "evilname" {
        // File names that try to leave an output directory, and one without a name.
        let mut t = task(&id, &ctx, "completed", Some(""));
        t["artifacts"][0]["parts"] = json!([
            {"kind": "file", "file": {"bytes": "MQ==", "name": "../../escaped.txt"}},
            {"kind": "file", "file": {"bytes": "Mg==", "name": "/tmp/abs.txt"}},
            {"kind": "file", "file": {"bytes": "Mw==", "name": "..\\..\\win.txt"}},
            {"kind": "file", "file": {"bytes": "NA==", "mimeType": "image/png"}}
        ]);
        return respond_json(stream, &result(call, t));
    }
    if name == "parts" {
        // Every part kind in one answer (the echo text first).
        let mut t = task(&id, &ctx, "completed", Some(&text));
        t["artifacts"][0]["parts"] = json!([
            {"kind": "text", "text": text},
            {"kind": "data", "data": {"answer": 42, "list": [1, 2]}},
            {"kind": "file", "file": {"bytes": "aGVsbG8gZmlsZQo=", "mimeType": "text/plain", "name": "hello.txt"}},
            {"kind": "file", "file": {"uri": "https://files.example/r.pdf", "mimeType": "application/pdf"}}
        ]);
        return respond_json(stream, &result(call, t));
    }
    if name == "hostile" {
        return hostile_send(stream, call, &id, &ctx, &text);
    }
    let body = if text.starts_with("fail") {
        failed_task_text(&id, &ctx, &text)
    } else if text.starts_with("cancel-") {
        canceled_task(&id, &ctx, &text)
    } else {
        task(&id, &ctx, "completed", Some(&text))
    };
    respond_json(stream, &result(call, body))
}

fn message_stream(
    server: &Server,
    stream: &mut TcpStream,
    name: &str,
    call: &Call,
) -> io::Result<After> {
    let (id, ctx) = server.new_task_id();
    let text = call.text();
    let ev = |v: Value| result(call, v);
    let submitted = ev(task(&id, &ctx, "submitted", None));
    let working = ev(status_update(&id, &ctx, "working", false));
    let completed = ev(status_update(&id, &ctx, "completed", true));

    if name == "gzip" {
        let mut body = String::new();
        for e in [
            &submitted,
            &working,
            &ev(artifact_update(&id, &ctx, &text, false, true)),
            &completed,
        ] {
            body.push_str(&format!("data: {e}\n\n"));
        }
        let gz = gzip::gzip_stored(body.as_bytes());
        http::respond(
            stream,
            200,
            "text/event-stream",
            &[
                ("content-encoding", "gzip".to_owned()),
                ("cache-control", "no-store".to_owned()),
            ],
            &gz,
            true,
        )?;
        return Ok(After::KeepOpen);
    }
    if name == "brotli" {
        // Bytes labelled `br` (not real brotli): a client that does not decode them must not
        // pass them on as events.
        let body = b"\x1b\x2f\x00\xf8\x25\x62\x2e\x9b\x01 not an event stream in clear";
        http::respond(
            stream,
            200,
            "text/event-stream",
            &[("content-encoding", "br".to_owned())],
            body,
            true,
        )?;
        return Ok(After::KeepOpen);
    }
    if name == "multiline" {
        let mut sse = Sse::start(stream)?;
        for e in [
            &submitted,
            &working,
            &ev(artifact_update(&id, &ctx, &text, false, true)),
            &completed,
        ] {
            // Split the JSON at its commas: every piece is a `data:` line; the decoder joins
            // them with LF, which JSON treats as whitespace between tokens.
            let mut block = String::from(": split event follows\r\n");
            for piece in e.split_inclusive(',') {
                block.push_str("data: ");
                block.push_str(piece);
                block.push_str("\r\n");
            }
            block.push_str("\r\n");
            sse.raw(block.as_bytes())?;
        }
        sse.finish()?;
        return Ok(After::KeepOpen);
    }
    if let Some(n) = name
        .strip_prefix("bigevent-")
        .and_then(|n| n.parse::<usize>().ok())
    {
        let mut sse = Sse::start(stream)?;
        sse.event(&submitted)?;
        sse.event(&working)?;
        let big = "x".repeat(n);
        sse.event(&ev(artifact_update(&id, &ctx, &big, false, false)))?;
        sse.event(&ev(artifact_update(&id, &ctx, "tail", true, true)))?;
        sse.event(&completed)?;
        sse.finish()?;
        return Ok(After::KeepOpen);
    }
    if let Some(n) = name
        .strip_prefix("bigmulti-")
        .and_then(|n| n.parse::<usize>().ok())
    {
        let mut sse = Sse::start(stream)?;
        sse.event(&submitted)?;
        sse.event(&working)?;
        let mut big = artifact_update(&id, &ctx, "", false, false);
        let parts: Vec<Value> = (0..n.div_ceil(100))
            .map(|i| json!({"kind": "text", "text": "x".repeat(100.min(n - i * 100))}))
            .collect();
        big["artifact"]["parts"] = Value::Array(parts);
        let mut block = String::new();
        for piece in ev(big).split_inclusive(',') {
            block.push_str("data: ");
            block.push_str(piece);
            block.push('\n');
        }
        block.push('\n');
        sse.raw(block.as_bytes())?;
        sse.event(&ev(artifact_update(&id, &ctx, "tail", true, true)))?;
        sse.event(&completed)?;
        sse.finish()?;
        return Ok(After::KeepOpen);
    }
    if let Some(n) = name
        .strip_prefix("burst-")
        .and_then(|n| n.parse::<usize>().ok())
    {
        let mut sse = Sse::start(stream)?;
        let mut all = format!("data: {submitted}\n\n");
        for i in 0..n {
            let chunk = ev(artifact_update(
                &id,
                &ctx,
                &format!("chunk {i};"),
                i > 0,
                i + 1 == n,
            ));
            all.push_str(&format!("data: {chunk}\n\n"));
        }
        all.push_str(&format!("data: {completed}\n\n"));
        sse.raw(all.as_bytes())?;
        sse.finish()?;
        return Ok(After::KeepOpen);
    }

    if name == "badchunk" || name == "badchunk-gzip" {
        // Three whole events, then a chunk-size line that is not hex, all in one TCP write;
        // the connection is then cut. The events were fully received: they must be read.
        // `badchunk-gzip`: the events are one gzip member (its trailer never comes) in one
        // chunk, with `Content-Encoding: gzip`.
        let mut events = Vec::new();
        for e in [
            &submitted,
            &working,
            &ev(artifact_update(&id, &ctx, &text, false, true)),
        ] {
            events.push(format!("data: {e}\n\n").into_bytes());
        }
        let mut all = Vec::new();
        if name == "badchunk-gzip" {
            stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                  content-encoding: gzip\r\ntransfer-encoding: chunked\r\n\r\n",
            )?;
            let gz = gzip::gzip_stored(&events.concat());
            all.extend_from_slice(&Sse::chunk(&gz[..gz.len() - 8]));
        } else {
            for e in &events {
                all.extend_from_slice(&Sse::chunk(e));
            }
        }
        all.extend_from_slice(b"zz-not-hex\r\ndata: lost\n\n\r\n");
        let mut sse = if name == "badchunk-gzip" {
            Sse::resume(stream)
        } else {
            Sse::start(stream)?
        };
        sse.unframed(&all)?;
        sse.drop_connection();
        return Ok(After::Close);
    }
    let mut sse = Sse::start(stream)?;
    sse.event(&submitted)?;
    if name == "hostile" {
        sse.event(&working)?;
        sse.event(&ev(artifact_update(&id, &ctx, HOSTILE_TEXT, false, true)))?;
        let mut fin = status_update(&id, &ctx, "failed", true);
        fin["status"]["message"] = agent_message(HOSTILE_TEXT);
        sse.event(&ev(fin))?;
        sse.finish()?;
        return Ok(After::KeepOpen);
    }
    if name == "badevent" {
        // One artifact update whose file bytes are not base64, between readable events.
        sse.event(&working)?;
        let mut bad = artifact_update(&id, &ctx, "", false, false);
        bad["artifact"]["artifactId"] = json!("a-bad");
        bad["artifact"]["parts"] = json!([{"kind": "file", "file": {"bytes": "not base64!"}}]);
        sse.event(&ev(bad))?;
        sse.event(&ev(artifact_update(&id, &ctx, &text, false, true)))?;
        sse.event(&completed)?;
        sse.finish()?;
        return Ok(After::KeepOpen);
    }
    match name {
        "stream-drop" => {
            sse.event(&working)?;
            sse.event(&ev(artifact_update(&id, &ctx, "part one, ", false, false)))?;
            sse.drop_connection();
            return Ok(After::Close);
        }
        "stream-truncated" => {
            sse.event(&working)?;
            sse.event(&ev(artifact_update(&id, &ctx, "part one, ", false, false)))?;
            sse.finish()?;
            return Ok(After::KeepOpen);
        }
        n if n == "stream-finished" || n.starts_with("stream-noresub-") => {
            sse.event(&working)?;
            sse.drop_connection();
            return Ok(After::Close);
        }
        "final-drop" => {
            sse.event(&working)?;
            sse.event(&ev(artifact_update(&id, &ctx, &text, false, true)))?;
            sse.event(&completed)?;
            sse.drop_connection();
            return Ok(After::Close);
        }
        "stall" => {
            sse.event(&working)?;
            sse.stall(Duration::from_secs(120));
            return Ok(After::Close);
        }
        n if n.starts_with("silent-resub-") || n.starts_with("late-resub-") => {
            sse.event(&working)?;
            sse.stall(Duration::from_secs(120));
            return Ok(After::Close);
        }
        _ => {}
    }
    if let Some((every, total)) = two_numbers(name, "keepalive-") {
        let end = Instant::now() + Duration::from_millis(total);
        while Instant::now() < end {
            std::thread::sleep(Duration::from_millis(every.max(1)));
            sse.comment("keep-alive")?;
        }
    } else if let Some((every, total)) = two_numbers(name, "flow-") {
        let end = Instant::now() + Duration::from_millis(total);
        while Instant::now() < end {
            std::thread::sleep(Duration::from_millis(every.max(1)));
            sse.event(&working)?;
        }
    } else {
        sse.event(&working)?;
    }
    if text.starts_with("fail") {
        let mut fin = status_update(&id, &ctx, "failed", true);
        fin["status"]["message"] = agent_message(&failure_text(&text));
        sse.event(&ev(fin))?;
    } else {
        sse.event(&ev(artifact_update(&id, &ctx, &text, false, true)))?;
        sse.event(&completed)?;
    }
    sse.finish()?;
    Ok(After::KeepOpen)
}

fn resubscribe(
    server: &Server,
    stream: &mut TcpStream,
    name: &str,
    call: &Call,
) -> io::Result<After> {
    let id = call.task_id();
    let ctx = id.replace("task", "ctx");
    if name == "stream-finished" {
        return respond_json(stream, &error(call, -32001, "Task not found"));
    }
    if name.starts_with("stream-noresub-") {
        return respond_json(
            stream,
            &error(call, -32004, "This operation is not supported"),
        );
    }
    if let Some(ms) = name
        .strip_prefix("late-resub-")
        .and_then(|n| n.parse::<u64>().ok())
    {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let mut sse = Sse::start(stream)?;
    if let Some(silent) = name
        .strip_prefix("silent-resub-")
        .and_then(|n| n.parse::<u64>().ok())
        && server.with_counters(name, |c| c.resubscribes) <= silent
    {
        // The stream is open (headers sent) but no event comes: the task has not changed.
        sse.stall(Duration::from_secs(120));
        return Ok(After::Close);
    }
    let text = if name == "stream-drop" || name == "stream-truncated" {
        "part two"
    } else {
        "done"
    };
    sse.event(&result(call, artifact_update(&id, &ctx, text, true, true)))?;
    sse.event(&result(call, status_update(&id, &ctx, "completed", true)))?;
    sse.finish()?;
    Ok(After::KeepOpen)
}

/// A 1.0 card (the core's `CardBuilder`): one JSON-RPC interface at protocol version 1.0 at
/// `url`, and no 0.3 field; `hostile` and `secured` as in 0.3 (security in the 1.0 form).
fn v1_card(stream: &mut TcpStream, name: &str, url: &str) -> io::Result<After> {
    let (title, description) = if name == "hostile" {
        (
            format!("fault hostile {HOSTILE_TEXT}"),
            HOSTILE_TEXT.to_owned(),
        )
    } else {
        (
            format!("fault {name}"),
            "a2a-core fault-injecting test agent (A2A 1.0)".to_owned(),
        )
    };
    let built = CardBuilder::new(&title, &description, "1.0.0")
        .interface(url, ProtocolVersion::V1_0, Binding::JsonRpc)
        .streaming(true)
        .skill(CardSkill::new(
            "fault",
            "Fault",
            "misbehaves on demand",
            &["test"],
        ))
        .to_value();
    let mut card = match built {
        Ok(c) => c,
        Err(e) => {
            let body = format!("fault server: cannot build the 1.0 card: {e}\n");
            http::respond(stream, 500, "text/plain", &[], body.as_bytes(), true)?;
            return Ok(After::KeepOpen);
        }
    };
    if name == "secured" {
        card["securitySchemes"] =
            json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}});
        card["securityRequirements"] = json!([{"schemes": {"bearer": {"list": []}}}]);
    }
    http::respond(
        stream,
        200,
        "application/json",
        &[],
        card.to_string().as_bytes(),
        true,
    )?;
    Ok(After::KeepOpen)
}

/// The `hostile` scenario's text: everything a remote can send to fool a terminal or a reader
/// of the CLI's lines (a forged model line after a newline, a carriage return, ESC sequences
/// that clear the screen and set the title, C1 controls, line and paragraph separators, a
/// bidi override) and a backslash.
const HOSTILE_TEXT: &str = "line one\nREMOTE_COMPLETED fault ok: all done\r\u{1b}[2J\u{1b}]0;owned\u{7} sep\u{2028}para\u{2029}nel\u{85}csi\u{9b}31m bidi\u{202e}txt.exe back\\slash";

/// `hostile` sends: `files` → file parts that cannot all be saved among good ones; `error` → a
/// JSON-RPC error; anything else → a FAILED task with `HOSTILE_TEXT` everywhere.
fn hostile_send(
    stream: &mut TcpStream,
    call: &Call,
    id: &str,
    ctx: &str,
    text: &str,
) -> io::Result<After> {
    if text == "error" {
        return respond_json(stream, &error(call, -32603, HOSTILE_TEXT));
    }
    if text == "files" {
        let mut t = task(id, ctx, "completed", Some(""));
        let file =
            |name: String, b64: &str| json!({"kind": "file", "file": {"bytes": b64, "name": name}});
        t["artifacts"][0]["parts"] = json!([
            file("good-1.txt".to_owned(), "MQ=="),
            file(format!("{}.txt", "n".repeat(300)), "Mg=="),
            file("link.txt".to_owned(), "Mw=="),
            file("exists.txt".to_owned(), "NA=="),
            file("fifo.txt".to_owned(), "NQ=="),
            file("good-2.txt".to_owned(), "Ng=="),
            {"kind": "text", "text": "after the files"}
        ]);
        return respond_json(stream, &result(call, t));
    }
    let mut t = task(id, ctx, "failed", Some(HOSTILE_TEXT));
    t["artifacts"][0]["parts"]
        .as_array_mut()
        .expect("parts")
        .push(json!({"kind": "data", "data": {"note": HOSTILE_TEXT}}));
    t["status"]["message"] = agent_message(HOSTILE_TEXT);
    respond_json(stream, &result(call, t))
}
