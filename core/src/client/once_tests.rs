//! Each body parsed once: the machine's response read (`read::read_response`) and its
//! stream item read agree with the two-pass path they replace (the classifier's scan, then
//! the answer's reader) on every shared fixture and on random mutations of them, and a
//! counter of passes over the bytes shows one pass per body and per stream event.

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::read::{Response, read_response, unreadable};
use super::*;
use crate::answer::{read_result, to_json, to_json_string};
use crate::classify::{Asked, ResponseInfo, classify};
use crate::envelope::Method;
use crate::model::params::SendMessageParams;
use crate::model::{Message, Part, Role, SendResponse};
use crate::outcome::{Channel, Outcome};
use crate::stream::StreamItemKind;
use crate::tape::passes;

const OUTCOMES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/outcomes.json"
));
const ANSWERS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/answers.json"
));

/// One response to read: what was asked and what came back.
#[derive(Debug, Clone)]
struct Case {
    name: String,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    version: Option<ProtocolVersion>,
    binding: Option<Binding>,
    method: Option<String>,
    request_id: Option<String>,
}

impl Case {
    fn asked(&self) -> Asked<'_> {
        Asked {
            version: self.version,
            binding: self.binding,
            method: self.method.as_deref(),
            request_id: self.request_id.as_deref(),
        }
    }
    fn version(&self) -> ProtocolVersion {
        self.version.unwrap_or(ProtocolVersion::V1_0)
    }
    fn binding(&self) -> Binding {
        self.binding.unwrap_or(Binding::JsonRpc)
    }
}

fn text<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// Every response of `outcomes.json` (rows with a body) and every result of `answers.json`
/// (read once per test binary: the property test picks from them on every case).
fn cases() -> &'static [Case] {
    static CASES: std::sync::OnceLock<Vec<Case>> = std::sync::OnceLock::new();
    CASES.get_or_init(load_cases)
}

fn load_cases() -> Vec<Case> {
    let mut out = Vec::new();
    let doc: Value = serde_json::from_str(OUTCOMES).expect("outcomes.json");
    for row in doc["rows"].as_array().expect("rows") {
        let i = &row["input"];
        let body = match (text(i, "body"), text(i, "body_base64")) {
            (Some(b), _) => b.as_bytes().to_vec(),
            (None, Some(b)) => crate::answer::file_bytes(&Part::from_content(
                crate::model::PartContent::Bytes(Cow::Borrowed(b)),
            ))
            .expect("a file part")
            .expect("valid base64"),
            _ => continue,
        };
        let mut headers = Vec::new();
        if let Some(ct) = text(i, "content_type") {
            headers.push(("Content-Type".to_owned(), ct.to_owned()));
        }
        if let Some(h) = i.get("headers").and_then(Value::as_object) {
            for (k, v) in h {
                headers.push((k.clone(), v.as_str().unwrap_or_default().to_owned()));
            }
        }
        out.push(Case {
            name: row["id"].as_str().unwrap_or("?").to_owned(),
            status: i["status"].as_u64().expect("status") as u16,
            headers,
            body,
            version: text(i, "version").and_then(|v| ProtocolVersion::parse(v).ok()),
            binding: text(i, "binding").and_then(Binding::parse),
            method: text(i, "method").map(str::to_owned),
            request_id: text(i, "request_id").map(str::to_owned),
        });
    }
    let doc: Value = serde_json::from_str(ANSWERS).expect("answers.json");
    for (list, key) in [("results", "body"), ("unreadable", "body_text")] {
        for row in doc[list].as_array().expect("answers") {
            let body = match &row[key] {
                Value::String(s) => s.clone().into_bytes(),
                v => v.to_string().into_bytes(),
            };
            let version = ProtocolVersion::parse(text(row, "version").expect("version")).ok();
            let binding = Binding::parse(text(row, "binding").expect("binding"));
            let rpc = binding == Some(Binding::JsonRpc);
            out.push(Case {
                name: row["name"].as_str().unwrap_or("?").to_owned(),
                status: 200,
                headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
                body,
                version,
                binding,
                method: Some(
                    if rpc {
                        "SendMessage"
                    } else {
                        "POST /message:send"
                    }
                    .to_owned(),
                ),
                request_id: rpc.then(|| "1".to_owned()),
            });
        }
    }
    out
}

/// Whether a call's outcome carries an answer to read: a task or message from send, get or
/// cancel (the two-pass path's rule).
fn answers(method: Method, o: &Outcome) -> bool {
    matches!(
        method,
        Method::SendMessage | Method::GetTask | Method::CancelTask
    ) && matches!(o.channel, Channel::Task | Channel::Message)
}

/// The path this branch replaces, kept here as the oracle: the classifier's scan of the
/// whole body, then the answer's reader over the body again.
fn two_pass(c: &Case) -> (Outcome, Option<SendResponse<'static>>) {
    let mut info = ResponseInfo::new(c.status, &c.body).asked(c.asked());
    for (n, v) in &c.headers {
        info = info.header(n, v);
    }
    let outcome = classify(&info);
    if !answers(Method::SendMessage, &outcome) {
        return (outcome, None);
    }
    match read_result(&c.body, c.version(), c.binding()) {
        Ok(r) => (outcome, Some(r.into_owned())),
        Err(e) => (unreadable(&outcome, &e, "the agent's answer"), None),
    }
}

fn once(c: &Case) -> (Outcome, Option<SendResponse<'static>>) {
    read_response(
        Response {
            status: c.status,
            headers: &c.headers,
            body: &c.body,
        },
        c.asked(),
        Method::SendMessage,
        c.version(),
        c.binding(),
    )
}

/// The same outcome, the same answer and the same canonical JSON both ways.
fn assert_same(c: &Case) {
    let (new_o, new_a) = once(c);
    let (old_o, old_a) = two_pass(c);
    assert_eq!(new_o, old_o, "{}: outcome", c.name);
    assert_eq!(new_a, old_a, "{}: answer", c.name);
    if let Some(a) = &new_a {
        assert_eq!(
            to_json_string(a),
            to_json(a).to_string(),
            "{}: rendering",
            c.name
        );
    }
}

#[test]
fn every_fixture_reads_as_the_two_pass_path_did() {
    let all = cases();
    assert!(all.len() > 200, "the fixtures are there: {}", all.len());
    let answered = all.iter().filter(|c| once(c).1.is_some()).count();
    assert!(answered >= 9, "answers were read: {answered}");
    for c in all {
        assert_same(c);
    }
}

#[test]
fn a_readable_body_is_parsed_once() {
    let mut counted = 0;
    for c in cases() {
        let before = passes();
        let (o, answer) = once(c);
        let after = passes();
        let (tape, serde) = (after.0 - before.0, after.1 - before.1);
        let json_object = serde_json::from_slice::<Value>(&c.body).is_ok_and(|v| v.is_object());
        let readable = o.channel != Channel::Malformed && !(300..400).contains(&c.status);
        let stream = crate::classify::is_event_stream(
            c.headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
                .map(|(_, v)| v.as_str()),
        );
        if json_object && readable && !stream {
            assert_eq!((tape, serde), (1, 0), "{}: one pass ({answer:?})", c.name);
            counted += 1;
        } else if !stream {
            // A body the tape refuses, or content that cannot be read, is read again by
            // serde_json for its exact error: never more than the two-pass path did.
            assert!(
                tape <= 1 && serde <= 4,
                "{}: {tape} + {serde} passes",
                c.name
            );
        }
    }
    assert!(counted >= 140, "bodies counted: {counted}");
}

/// Mutations that reach the interesting corners: shapes, types, numbers serde_json alone
/// reads, escapes, depth, file bytes.
const SNIPPETS: &[&str] = &[
    "null",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "\\",
    "1e999",
    "-0",
    "0.5",
    "12345678901234567890",
    "\"\\u0041\"",
    "\"\\ud800\"",
    "\"kind\":\"task\",",
    "\"kind\":\"message\",",
    "\"final\":true,",
    "\"state\":\"completed\"",
    "\"error\":{\"code\":-32001,\"message\":\"x\"},",
    "\"id\":1,",
    "\"raw\":\"aGk=\",",
    "\"raw\":\"aGk\",",
    "\"raw\":\"a*k=\",",
    "\"bytes\":\"QQ=\"",
    "\"metadata\":{\"b\":1,\"a\":2},",
    "\"data\":{\"z\":[1,2.5,\"\\n\"]},",
    " ",
    "\n\t",
    "\"result\":",
    "\"task\":",
    "\"message\":",
    "true",
    "\"\u{e9}\"",
];

fn mutate(body: &[u8], ops: &[(u8, usize, usize)]) -> Vec<u8> {
    let mut b = body.to_vec();
    for &(op, at, n) in ops {
        let at = if b.is_empty() { 0 } else { at % (b.len() + 1) };
        match op % 4 {
            0 => {
                let s = SNIPPETS[n % SNIPPETS.len()].as_bytes();
                b.splice(at..at, s.iter().copied());
            }
            1 => {
                let end = (at + n % 16).min(b.len());
                b.drain(at..end);
            }
            2 => {
                if at < b.len() {
                    b[at] = SNIPPETS[n % SNIPPETS.len()].as_bytes()[0];
                }
            }
            _ => b.truncate(at),
        }
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    /// Random mutations of every fixture read the same both ways (outcome, answer and
    /// canonical JSON).
    #[test]
    fn mutated_fixtures_read_as_the_two_pass_path_did(
        pick in any::<prop::sample::Index>(),
        ops in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..5),
    ) {
        let all = cases();
        let mut c = all[pick.index(all.len())].clone();
        c.body = mutate(&c.body, &ops);
        assert_same(&c);
    }
}

// ------------------------------------------------------------------------------ streams

const SSE_URL: &str = "https://agent.example/a2a";

fn sse_state() -> ClientState {
    let target = Target::new(SSE_URL, ProtocolVersion::V0_3, Binding::JsonRpc);
    ClientState::new(target, ClientConfig::default(), 7).expect("valid config")
}

#[test]
fn each_stream_event_is_parsed_once() {
    let mut st = sse_state();
    let m = Message::new(Cow::Borrowed("msg-1"), Role::User, vec![Part::text("hi")]);
    let call = Call::SendStreamingMessage(SendMessageParams::new(m));
    let mut sc = StreamCall::new(
        &mut st,
        call,
        CallOptions::default(),
        StreamConfig::default(),
        Millis(0),
    );
    let t = sc.poll_transmit(&mut st, Millis(0)).expect("the request");
    let id: Value = serde_json::from_slice::<Value>(&t.request.body).expect("JSON")["id"].clone();
    let results = [
        json!({"kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": "submitted"}}),
        json!({"kind": "artifact-update", "taskId": "t-1", "contextId": "c-1",
            "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "one"},
                {"kind": "file", "file": {"bytes": "aGk=", "mimeType": "text/plain"}},
                {"kind": "data", "data": {"a": [1, 2.5], "b": null}}],
                "metadata": {"k": "v"}}}),
        json!({"kind": "status-update", "taskId": "t-1", "contextId": "c-1",
            "status": {"state": "completed"}, "final": true}),
    ];
    let mut body = Vec::new();
    for r in &results {
        let ev = json!({"jsonrpc": "2.0", "id": id, "result": r});
        body.extend_from_slice(format!("data: {ev}\n\n").as_bytes());
    }
    sc.handle_head(
        &mut st,
        t.id,
        200,
        vec![("Content-Type".to_owned(), "text/event-stream".to_owned())],
        Millis(1),
    )
    .unwrap();
    let before = passes();
    sc.handle_body(&mut st, t.id, &body, Millis(2)).unwrap();
    let after = passes();
    assert_eq!(
        (after.0 - before.0, after.1 - before.1),
        (3, 0),
        "one tape per event, no serde_json pass"
    );
    let evs: Vec<_> = std::iter::from_fn(|| sc.poll_event()).collect();
    let items: Vec<_> = evs
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Item(i) => Some(&**i),
            _ => None,
        })
        .collect();
    assert_eq!(items.len(), 3);
    assert_eq!(items[1].kind, StreamItemKind::ArtifactUpdate);
    assert!(
        items.iter().all(|i| i.event.is_some()),
        "every model attached"
    );
    let Some(StreamEvent::Finished(r)) = evs.last() else {
        panic!("finished: {evs:?}")
    };
    let answer = r.answer.as_ref().expect("the assembled task");
    assert_eq!(
        to_json_string(answer),
        to_json(answer).to_string(),
        "rendered as the tree renders it"
    );
    assert!(to_json_string(answer).contains(r#""metadata":{"k":"v"}"#));
}
