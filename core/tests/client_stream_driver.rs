//! The reference driver's streams run on the stream machine ([`a2a_core::client::StreamCall`]);
//! this checks that its I/O loop hands the machine what came over the socket and nothing
//! else, by comparing it with the machine fed the same bytes directly. On every stream row of
//! `bindings/fixtures/outcomes.json`, a loopback server answers the driver with the row's
//! body (its JSON-RPC id replaced by the one the driver sent), and the machine is fed the
//! same bytes, in random chunks, with the same id: the items, how the stream ended and the
//! outcome (`http_status` included) must be the same, and the row's expectation met. A
//! scripted agent then checks that recovery (resubscribe after a drop, the allowance, the
//! get-task fallback) is the same through the socket, request for request.
#![cfg(all(feature = "driver", feature = "client"))]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use a2a_core::client::{self, StreamCall, StreamConfig, StreamEvent};
use a2a_core::driver;
use a2a_core::envelope::RpcId;
use a2a_core::model::params::{Call, SendMessageParams, TaskIdParams};
use a2a_core::model::{Message, Part, Role};
use a2a_core::outcome::Outcome;
use a2a_core::stream::StreamItem;
use a2a_core::time::Millis;
use a2a_core::version::{Binding, ProtocolVersion};
use proptest::prelude::*;
use serde_json::Value;

const OUTCOMES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/outcomes.json"
));

struct Row {
    name: String,
    version: ProtocolVersion,
    binding: Binding,
    subscribe: bool,
    request_id: Option<String>,
    content_type: String,
    body: String,
    /// The table's expected outcome keys.
    expect: Value,
}

fn rows() -> Vec<Row> {
    let table: Value = serde_json::from_str(OUTCOMES).expect("outcomes.json");
    let mut rows = Vec::new();
    for row in table["rows"].as_array().expect("rows") {
        let input = &row["input"];
        let ct = input["content_type"].as_str().unwrap_or("");
        let (Some(body), true) = (input["body"].as_str(), input["status"] == 200) else {
            continue;
        };
        if !ct.starts_with("text/event-stream") {
            continue;
        }
        let method = input["method"].as_str().unwrap_or("");
        rows.push(Row {
            name: row["id"].as_str().unwrap().to_owned(),
            version: ProtocolVersion::parse(input["version"].as_str().unwrap()).unwrap(),
            binding: Binding::parse(input["binding"].as_str().unwrap()).unwrap(),
            subscribe: method.contains("resubscribe") || method.contains("Subscribe"),
            request_id: input["request_id"].as_str().map(str::to_owned),
            content_type: ct.to_owned(),
            body: body.to_owned(),
            expect: row["expect"].clone(),
        });
    }
    rows
}

/// The row's body answering request id `id` instead of the row's own.
fn with_id(row: &Row, id: Option<&str>) -> String {
    let (Some(old), Some(new)) = (&row.request_id, id) else {
        return row.body.clone();
    };
    let new = format!("\"id\": \"{new}\"");
    let mut body = row.body.clone();
    for pat in [
        format!("\"id\": {old},"),
        format!("\"id\":{old},"),
        format!("\"id\": \"{old}\","),
        format!("\"id\":\"{old}\","),
    ] {
        body = body.replace(&pat, &format!("{new},"));
    }
    for pat in [
        format!("\"id\": {old}}}"),
        format!("\"id\":{old}}}"),
        format!("\"id\": \"{old}\"}}"),
        format!("\"id\":\"{old}\"}}"),
    ] {
        body = body.replace(&pat, &format!("{new}}}"));
    }
    body
}

/// Serves one request on `listener` with `row`'s body; returns the JSON-RPC id it answered
/// and the body served.
fn serve_once(listener: &TcpListener, row: &Row) -> (Option<String>, String) {
    let (mut s, _) = listener.accept().expect("the driver connects");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let (head_end, length) = loop {
        let n = s.read(&mut chunk).expect("request bytes");
        assert!(n > 0, "request cut");
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..at]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse::<usize>().unwrap());
            break (at + 4, length);
        }
    };
    while buf.len() < head_end + length {
        let n = s.read(&mut chunk).expect("request body");
        assert!(n > 0, "request body cut");
        buf.extend_from_slice(&chunk[..n]);
    }
    let sent: Value = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or_default();
    let id = sent["id"].as_str().map(str::to_owned);
    let body = with_id(row, id.as_deref());
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        row.content_type,
        body.len(),
        body
    );
    s.write_all(response.as_bytes()).expect("response written");
    (id, body)
}

/// The driver's items and end for `row`, with the id and body served.
fn through_driver(row: &Row) -> (Vec<StreamItem>, driver::StreamFinal, Option<String>, String) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let config = driver::ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(10),
        stream_idle_timeout: Duration::from_secs(10),
        ..driver::ClientConfig::default()
    };
    let c =
        driver::Client::with_target(driver::Target::new(&url, row.version, row.binding), config);
    std::thread::scope(|scope| {
        let served = scope.spawn(|| serve_once(&listener, row));
        let opts = driver::CallOptions::default();
        let stream = if row.subscribe {
            c.resubscribe("t-sub", &opts)
        } else {
            c.stream_text("hi", &opts)
        };
        let mut items = Vec::new();
        let mut end = None;
        for ev in stream.take(10_000) {
            match ev {
                driver::StreamEvent::Item(i) => items.push(i),
                driver::StreamEvent::Resubscribing { .. } => panic!("no resubscribe allowed"),
                driver::StreamEvent::End(f) => {
                    end = Some(f);
                    break;
                }
            }
        }
        let (id, body) = served.join().expect("server thread");
        (items, end.expect("an End"), id, body)
    })
}

/// The machine's items and end for the same bytes and id, cut at `cuts`.
fn through_machine(
    row: &Row,
    id: Option<&str>,
    body: &str,
    cuts: &[usize],
) -> (Vec<StreamItem>, client::StreamResult) {
    let target = client::Target::new("http://127.0.0.1/", row.version, row.binding);
    let mut st = client::ClientState::new(target, client::ClientConfig::default(), 5).unwrap();
    let call = if row.subscribe {
        Call::SubscribeToTask(TaskIdParams::new("t-sub"))
    } else {
        let m = Message::new("msg-1", Role::User, vec![Part::text("hi")]);
        Call::SendStreamingMessage(SendMessageParams::new(m))
    };
    let opts = client::CallOptions {
        rpc_id: id.map(|i| RpcId::String(i.to_owned())),
        ..client::CallOptions::default()
    };
    let mut m = StreamCall::new(&mut st, call, opts, StreamConfig::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).expect("a request");
    let head = vec![("Content-Type".to_owned(), row.content_type.clone())];
    m.handle_head(&mut st, t.id, 200, head, Millis(0)).unwrap();
    let bytes = body.as_bytes();
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    at.extend([0, bytes.len()]);
    at.sort_unstable();
    at.dedup();
    for w in at.windows(2) {
        let _ = m.handle_body(&mut st, t.id, &bytes[w[0]..w[1]], Millis(1));
    }
    let _ = m.handle_end(&mut st, t.id, Millis(2));
    let mut items = Vec::new();
    while let Some(e) = m.poll_event() {
        match e {
            StreamEvent::Item(i) => items.push(*i),
            StreamEvent::Finished(r) => return (items, *r),
            StreamEvent::Abort(_) => {}
            StreamEvent::Resubscribing { .. } => panic!("no resubscribe allowed"),
        }
    }
    panic!("no Finished");
}

/// The outcome as JSON.
fn comparable(o: &Outcome) -> Value {
    serde_json::from_str(&o.to_json()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    #[test]
    fn every_stream_row_ends_as_the_driver_ends_it(cuts in prop::collection::vec(any::<usize>(), 0..10)) {
        let rows = rows();
        prop_assert!(rows.len() >= 30, "{} rows", rows.len());
        for row in &rows {
            let (d_items, d_end, id, body) = through_driver(row);
            let (m_items, m_end) = through_machine(row, id.as_deref(), &body, &cuts);
            prop_assert_eq!(m_items.len(), d_items.len(), "{}", row.name);
            for (m, d) in m_items.iter().zip(&d_items) {
                prop_assert_eq!(m.kind, d.kind, "{}", row.name);
                prop_assert_eq!(comparable(&m.outcome), comparable(&d.outcome), "{}", row.name);
                prop_assert_eq!(&m.event, &d.event, "{}", row.name);
            }
            prop_assert_eq!(m_end.kind, d_end.kind, "{}", row.name);
            prop_assert_eq!(comparable(&m_end.outcome), comparable(&d_end.outcome), "{}", row.name);
            prop_assert_eq!(m_end.dropped_events, d_end.dropped_events, "{}", row.name);
            prop_assert_eq!(m_end.unreadable_events, d_end.unreadable_events, "{}", row.name);
            prop_assert_eq!(&m_end.answer, &d_end.answer, "{}", row.name);
            prop_assert_eq!(&m_end.correlation.task_id, &d_end.correlation.task_id, "{}", row.name);
            // The ids were matched: the end is the table's, not an answer to another request.
            let got = comparable(&m_end.outcome);
            for (k, v) in row.expect.as_object().unwrap() {
                prop_assert_eq!(&got[k], v, "{}: {}", row.name, k);
            }
        }
    }
}

// ---- recovery: the same scripted agent through the driver's socket and the machine -------

/// What the scripted agent answers to its `n`th request (0-based), given that request's
/// JSON-RPC body: content type and body.
type Script = fn(usize, &Value) -> (&'static str, String);

fn sse_event(req: &Value, result: Value) -> String {
    let ev = serde_json::json!({"jsonrpc": "2.0", "id": req["id"], "result": result});
    format!("data: {ev}\n\n")
}

fn task_result(state: &str) -> Value {
    serde_json::json!({"kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": state}})
}

fn final_status(state: &str) -> Value {
    serde_json::json!({"kind": "status-update", "taskId": "t-1", "contextId": "c-1",
        "status": {"state": state}, "final": true})
}

/// Cut after the task, then the resubscribe completes.
fn drop_then_complete(n: usize, req: &Value) -> (&'static str, String) {
    match n {
        0 => ("text/event-stream", sse_event(req, task_result("working"))),
        _ => (
            "text/event-stream",
            sse_event(req, final_status("completed")),
        ),
    }
}

/// Cut after the task, every time.
fn always_drop(_: usize, req: &Value) -> (&'static str, String) {
    ("text/event-stream", sse_event(req, task_result("working")))
}

/// Cut after the task; the resubscribe is answered TaskNotFound; the get finds it done.
fn gone_then_get(n: usize, req: &Value) -> (&'static str, String) {
    match n {
        0 => ("text/event-stream", sse_event(req, task_result("working"))),
        1 => (
            "application/json",
            serde_json::json!({"jsonrpc": "2.0", "id": req["id"],
                "error": {"code": -32001, "message": "Task not found"}})
            .to_string(),
        ),
        _ => (
            "application/json",
            serde_json::json!({"jsonrpc": "2.0", "id": req["id"], "result": task_result("completed")})
                .to_string(),
        ),
    }
}

/// Reads one HTTP/1.1 request (head and Content-Length body) from `s`: its JSON body.
fn read_request(s: &mut std::net::TcpStream) -> Value {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..at]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse::<usize>().unwrap());
            if buf.len() >= at + 4 + length {
                return serde_json::from_slice(&buf[at + 4..at + 4 + length]).unwrap_or_default();
            }
        }
        let n = s.read(&mut chunk).expect("request bytes");
        assert!(n > 0, "request cut");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// The driver against the scripted agent (`requests` connections at most): its events,
/// and the requests' bodies.
fn script_through_driver(
    script: Script,
    resubscribes: u32,
    requests: usize,
) -> (Vec<String>, driver::StreamFinal, Vec<Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let config = driver::ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(10),
        stream_idle_timeout: Duration::from_secs(10),
        stream_resubscribe_attempts: resubscribes,
        ..driver::ClientConfig::default()
    };
    let target = driver::Target::new(&url, ProtocolVersion::V0_3, Binding::JsonRpc);
    let c = driver::Client::with_target(target, config);
    std::thread::scope(|scope| {
        let served = scope.spawn(|| {
            let mut seen = Vec::new();
            for n in 0..requests {
                let (mut s, _) = listener.accept().expect("the driver connects");
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let req = read_request(&mut s);
                let (ct, body) = script(n, &req);
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                s.write_all(response.as_bytes()).expect("response written");
                seen.push(req);
            }
            seen
        });
        let mut log = Vec::new();
        let mut end = None;
        for ev in c
            .stream_text("hi", &driver::CallOptions::default())
            .take(1_000)
        {
            match ev {
                driver::StreamEvent::Item(i) => log.push(format!("item {}", i.kind.as_str())),
                driver::StreamEvent::Resubscribing { task_id, attempt } => {
                    log.push(format!("resubscribing {task_id} {attempt}"));
                }
                driver::StreamEvent::End(f) => {
                    end = Some(f);
                    break;
                }
            }
        }
        (
            log,
            end.expect("an End"),
            served.join().expect("server thread"),
        )
    })
}

/// The machine against the same script, the host performing each request in memory.
fn script_through_machine(
    script: Script,
    resubscribes: u32,
) -> (Vec<String>, client::StreamResult, Vec<Value>) {
    let target = client::Target::new("http://127.0.0.1/", ProtocolVersion::V0_3, Binding::JsonRpc);
    let mut st = client::ClientState::new(target, client::ClientConfig::default(), 9).unwrap();
    let m = Message::new("msg-1", Role::User, vec![Part::text("hi")]);
    let call = Call::SendStreamingMessage(SendMessageParams::new(m));
    let config = StreamConfig {
        resubscribe_attempts: resubscribes,
        ..StreamConfig::default()
    };
    let mut m = StreamCall::new(
        &mut st,
        call,
        client::CallOptions::default(),
        config,
        Millis(0),
    );
    let mut log = Vec::new();
    let mut seen = Vec::new();
    for _ in 0..20 {
        if let Some(t) = m.poll_transmit(&mut st, Millis(0)) {
            let req: Value = serde_json::from_slice(&t.request.body).unwrap();
            let (ct, body) = script(seen.len(), &req);
            seen.push(req);
            let head = vec![("Content-Type".to_owned(), ct.to_owned())];
            m.handle_head(&mut st, t.id, 200, head, Millis(0)).unwrap();
            for piece in body.as_bytes().chunks(7) {
                let _ = m.handle_body(&mut st, t.id, piece, Millis(0));
            }
            let _ = m.handle_end(&mut st, t.id, Millis(0));
        }
        while let Some(e) = m.poll_event() {
            match e {
                StreamEvent::Item(i) => log.push(format!("item {}", i.kind.as_str())),
                StreamEvent::Resubscribing {
                    task_id, attempt, ..
                } => {
                    log.push(format!("resubscribing {task_id} {attempt}"));
                }
                StreamEvent::Abort(_) => {}
                StreamEvent::Finished(r) => return (log, *r, seen),
            }
        }
    }
    panic!("the machine did not finish");
}

#[test]
fn recovery_after_a_drop_is_the_drivers() {
    for (name, script, allowed, requests) in [
        ("drop then complete", drop_then_complete as Script, 2, 2),
        ("more drops than allowed", always_drop as Script, 1, 2),
        ("gone, then get", gone_then_get as Script, 1, 3),
    ] {
        let (d_log, d_end, d_seen) = script_through_driver(script, allowed, requests);
        let (m_log, m_end, m_seen) = script_through_machine(script, allowed);
        assert_eq!(m_log, d_log, "{name}");
        let methods = |seen: &[Value]| -> Vec<String> {
            seen.iter()
                .map(|r| r["method"].as_str().unwrap_or("").to_owned())
                .collect()
        };
        assert_eq!(methods(&m_seen), methods(&d_seen), "{name}");
        assert_eq!(
            methods(&m_seen)
                .iter()
                .filter(|m| *m == "message/stream")
                .count(),
            1,
            "{name}: the message is sent once"
        );
        assert_eq!(m_end.kind, d_end.kind, "{name}");
        assert_eq!(
            comparable(&m_end.outcome),
            comparable(&d_end.outcome),
            "{name}"
        );
        assert_eq!(m_end.resubscribes, d_end.resubscribes, "{name}");
        assert_eq!(m_end.fetched_by_get, d_end.fetched_by_get, "{name}");
        assert_eq!(m_end.answer, d_end.answer, "{name}");
        assert_eq!(
            m_end.correlation.attempts, d_end.correlation.attempts,
            "{name}"
        );
        assert_eq!(
            m_end.correlation.task_id, d_end.correlation.task_id,
            "{name}"
        );
    }
}
