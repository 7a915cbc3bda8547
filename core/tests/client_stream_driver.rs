//! The stream machine ([`a2a_core::client::StreamCall`]) agrees with the reference driver's
//! streams on every stream row of `bindings/fixtures/outcomes.json`: a loopback server
//! answers the driver with the row's body (its JSON-RPC id replaced by the one the driver
//! sent), and the machine is fed the same bytes, in random chunks, with the same id. The
//! items, how the stream ended and the outcome must be the same; the one documented
//! difference is `http_status`, which the machine fills as the classifier does.
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

/// The outcome as JSON without `http_status` (the one documented difference).
fn comparable(o: &Outcome) -> Value {
    let mut v: Value = serde_json::from_str(&o.to_json()).unwrap();
    v.as_object_mut().unwrap().remove("http_status");
    v
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
                if k != "http_status" {
                    prop_assert_eq!(&got[k], v, "{}: {}", row.name, k);
                }
            }
        }
    }
}
