//! The client state machine ([`a2a_core::client`]) against the shared fixtures: every row of
//! `bindings/fixtures/outcomes.json` and every result of `answers.json`, fed to a
//! [`UnaryCall`] as a response head and the body in random chunks with early timeouts in
//! between, ends with the outcome and answer the classifier and the answer reader give for
//! the whole body; and where the machine asked exactly what the row asked, with the row's
//! expected outcome.
#![cfg(feature = "client")]

use std::borrow::Cow;

use a2a_core::answer::{read_result, to_json};
use a2a_core::classify::{Asked, ResponseInfo, classify};
use a2a_core::client::{
    Call, CallOptions, CallResult, ClientConfig, ClientState, Event, Target, Transmit,
    TransportFailure, UnaryCall,
};
use a2a_core::envelope::RpcId;
use a2a_core::model::params::{GetTaskParams, SendMessageParams, TaskIdParams};
use a2a_core::model::{Message, Part, Role};
use a2a_core::outcome::{CancelOrigin, Channel, ErrorName, Outcome, TaskState};
use a2a_core::time::Millis;
use a2a_core::version::{Binding, ProtocolVersion};
use proptest::prelude::*;
use serde_json::Value;

const OUTCOMES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/outcomes.json"
));
const ANSWERS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/answers.json"
));
const URL: &str = "https://agent.example/a2a";

/// One response to feed: what the call is, what comes back.
#[derive(Debug, Clone)]
struct Case {
    name: String,
    version: ProtocolVersion,
    binding: Binding,
    /// The row's method (wire name or `VERB /path`), when it gave one.
    method: Option<String>,
    request_id: Option<String>,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    now_unix_seconds: Option<u64>,
    /// The row's expected outcome keys (outcomes.json) or answer (answers.json).
    expect: Value,
}

fn b64(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .expect("fixture base64")
}

fn outcome_cases() -> (Vec<Case>, Vec<Value>) {
    let table: Value = serde_json::from_str(OUTCOMES).expect("outcomes.json");
    let mut cases = Vec::new();
    let mut transport = Vec::new();
    for row in table["rows"].as_array().expect("rows") {
        let input = &row["input"];
        if input.get("transport").is_some() {
            transport.push(row.clone());
            continue;
        }
        let s = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_owned);
        let body = match (input.get("body"), input.get("body_base64")) {
            (Some(Value::String(b)), _) => b.as_bytes().to_vec(),
            (_, Some(Value::String(b))) => b64(b),
            _ => {
                let r = &input["body_repeat"];
                let t = |k: &str| r[k].as_str().expect("body_repeat").as_bytes().to_vec();
                let mut b = t("head");
                b.extend(t("fill").repeat(r["count"].as_u64().unwrap() as usize));
                b.extend(t("tail"));
                b
            }
        };
        let mut headers = Vec::new();
        if let Some(ct) = s("content_type") {
            headers.push(("Content-Type".to_owned(), ct));
        }
        if let Some(Value::Object(h)) = input.get("headers") {
            for (k, v) in h {
                headers.push((k.clone(), v.as_str().unwrap().to_owned()));
            }
        }
        cases.push(Case {
            name: row["id"].as_str().unwrap().to_owned(),
            version: s("version").map_or(ProtocolVersion::V1_0, |v| {
                ProtocolVersion::parse(&v).unwrap()
            }),
            binding: s("binding").map_or(Binding::JsonRpc, |b| Binding::parse(&b).unwrap()),
            method: s("method"),
            request_id: s("request_id"),
            status: input["status"].as_u64().unwrap() as u16,
            headers,
            body,
            now_unix_seconds: input.get("now_unix_seconds").and_then(Value::as_u64),
            expect: row["expect"].clone(),
        });
    }
    (cases, transport)
}

fn answer_cases() -> Vec<Case> {
    let doc: Value = serde_json::from_str(ANSWERS).expect("answers.json");
    doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|c| {
            let version = ProtocolVersion::parse(c["version"].as_str().unwrap()).unwrap();
            let binding = Binding::parse(c["binding"].as_str().unwrap()).unwrap();
            let request_id = c["body"].get("id").map(|id| match id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            Case {
                name: c["name"].as_str().unwrap().to_owned(),
                version,
                binding,
                method: None,
                request_id,
                status: 200,
                headers: vec![("content-type".to_owned(), "application/json".to_owned())],
                body: serde_json::to_vec(&c["body"]).unwrap(),
                now_unix_seconds: None,
                expect: c["expect"].clone(),
            }
        })
        .collect()
}

/// The call a row's method stands for (a send for anything else: the classifier reads the
/// body the same way whatever the call, and the oracle is given the machine's own request).
fn call_for(method: Option<&str>) -> Call<'static> {
    let m = method.unwrap_or("");
    if m.contains("tasks/get")
        || m == "GetTask"
        || (m.starts_with("GET /") && m.contains("/tasks/"))
    {
        return Call::GetTask(GetTaskParams {
            id: Cow::Borrowed("t-1"),
            history_length: None,
            metadata: None,
        });
    }
    if m.contains("cancel") || m == "CancelTask" {
        return Call::CancelTask(TaskIdParams::new("t-1"));
    }
    let msg = Message::new(Cow::Borrowed("m-1"), Role::User, vec![Part::text("hi")]);
    Call::SendMessage(SendMessageParams::new(msg))
}

fn rpc_id(text: &str) -> RpcId {
    text.parse::<i64>()
        .map_or_else(|_| RpcId::String(text.to_owned()), RpcId::Number)
}

/// What the machine asked, read back from the request it handed out.
fn asked_of(t: &Transmit, target: &Target) -> (String, Option<String>) {
    if target.binding == Binding::JsonRpc {
        let v: Value = serde_json::from_slice(&t.request.body).expect("JSON-RPC body");
        let id = match &v["id"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        (v["method"].as_str().unwrap().to_owned(), Some(id))
    } else {
        let path = &t.request.url[target.url.len()..];
        (format!("{} {path}", t.request.method.as_str()), None)
    }
}

/// The classifier and the answer reader on the whole body, as the driver runs them.
fn oracle(
    case: &Case,
    call: &Call<'_>,
    method: &str,
    request_id: Option<&str>,
) -> (Outcome, Option<Value>) {
    let asked = Asked {
        version: Some(case.version),
        binding: Some(case.binding),
        method: Some(method),
        request_id,
    };
    let mut info = ResponseInfo::new(case.status, &case.body).asked(asked);
    for (n, v) in &case.headers {
        info = info.header(n, v);
    }
    let mut o = classify(&info);
    let mut answer = None;
    let answers = matches!(
        call,
        Call::SendMessage(_) | Call::GetTask(_) | Call::CancelTask(_)
    ) && matches!(o.channel, Channel::Task | Channel::Message);
    if answers {
        match read_result(&case.body, case.version, case.binding) {
            Ok(r) => answer = Some(to_json(&r)),
            Err(e) => {
                let mut m = Outcome::empty(Channel::Malformed);
                m.http_status = o.http_status;
                m.message = Some(format!("the agent's answer could not be read: {e}"));
                m.task_id.clone_from(&o.task_id);
                m.context_id.clone_from(&o.context_id);
                m.state = o.state;
                m.version = o.version;
                m.binding = o.binding;
                m.retry = if m.task_id.is_some() {
                    a2a_core::outcome::RetryAdvice::Poll
                } else {
                    a2a_core::outcome::RetryAdvice::Never
                };
                o = m;
            }
        }
    }
    if o.state == Some(TaskState::Canceled) && o.cancel_origin.is_none() {
        let ours = matches!(call, Call::CancelTask(p) if o.task_id.as_deref() == Some(&*p.id));
        o.cancel_origin = Some(if ours {
            CancelOrigin::Requested
        } else {
            CancelOrigin::Remote
        });
    }
    (o, answer)
}

/// How a response is fed: chunk sizes (cycled) and, between chunks, early timeouts.
#[derive(Debug, Clone)]
struct Feed {
    sizes: Vec<usize>,
    ticks: Vec<bool>,
}

fn feed() -> impl Strategy<Value = Feed> {
    (
        prop::collection::vec(1usize..97, 1..12),
        prop::collection::vec(any::<bool>(), 1..12),
    )
        .prop_map(|(sizes, ticks)| Feed { sizes, ticks })
}

fn run(case: &Case, feed: &Feed) -> (CallResult, Outcome, Option<Value>, String, Option<String>) {
    let mut target = Target::new(URL, case.version, case.binding);
    target.agent_name = "agent".to_owned();
    let config = ClientConfig {
        // The table has bodies just over 16 MiB for the classifier's own limits.
        max_response_bytes: 64 * 1024 * 1024,
        ..ClientConfig::default()
    };
    let mut st = ClientState::new(target.clone(), config, 9).unwrap();
    let call = call_for(case.method.as_deref());
    let opts = CallOptions {
        rpc_id: case.request_id.as_deref().map(rpc_id),
        ..CallOptions::default()
    };
    let mut m = UnaryCall::new(&mut st, call.clone(), opts, Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).expect("a request");
    let (method, request_id) = asked_of(&t, &target);
    let mut now = Millis(1);
    m.handle_head(&mut st, t.id, case.status, case.headers.clone(), now)
        .unwrap();
    let mut rest = &case.body[..];
    let mut i = 0;
    while !rest.is_empty() {
        // Large bodies (the 16 MiB rows) in proportionally larger chunks: a bounded
        // number of inputs per case.
        let scale = (case.body.len() / 65_536).max(1);
        let n = (feed.sizes[i % feed.sizes.len()] * scale).min(rest.len());
        m.handle_body(&mut st, t.id, &rest[..n], now).unwrap();
        rest = &rest[n..];
        if feed.ticks[i % feed.ticks.len()] {
            now = now.saturating_add(Millis(1));
            m.handle_timeout(&mut st, now);
        }
        i += 1;
    }
    m.handle_end(&mut st, t.id, now).unwrap();
    let evs: Vec<Event> = std::iter::from_fn(|| m.poll_event()).collect();
    let [Event::Finished(r)] = evs.as_slice() else {
        panic!("{}: one Finished event, got {evs:?}", case.name)
    };
    let info_case = Case {
        now_unix_seconds: None,
        ..case.clone()
    };
    let (o, a) = oracle(&info_case, &call, &method, request_id.as_deref());
    ((**r).clone(), o, a, method, request_id)
}

/// Whether the machine asked what the row asked (so the row's expectation applies).
fn asked_like_the_row(case: &Case, method: &str, request_id: Option<&str>) -> bool {
    case.method.as_deref() == Some(method)
        && case.request_id.as_deref() == request_id
        && case.now_unix_seconds.is_none()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn every_outcome_row_in_any_chunking_agrees_with_the_classifier(f in feed()) {
        let (cases, _) = outcome_cases();
        prop_assert!(cases.len() >= 200);
        // The two 16 MiB rows are fed once, by the test below.
        for case in cases.iter().filter(|c| c.body.len() <= LARGE) {
            let (r, o, answer, method, request_id) = run(case, &f);
            prop_assert_eq!(r.outcome.to_json(), o.to_json(), "{}", case.name);
            prop_assert_eq!(r.answer.as_ref().map(to_json), answer, "{}", case.name);
            prop_assert_eq!(r.response.as_ref().map(|x| &x.body), Some(&case.body));
            if asked_like_the_row(case, &method, request_id.as_deref()) {
                let got: Value = serde_json::from_str(&r.outcome.to_json()).unwrap();
                for (k, want) in case.expect.as_object().unwrap() {
                    if k == "cancel_origin" && want.is_null() {
                        // The classifier leaves it unset; the machine settles it from
                        // the cancels this client sent, as the driver does.
                        continue;
                    }
                    prop_assert_eq!(got.get(k), Some(want), "{}: {}", case.name, k);
                }
            }
        }
    }

    #[test]
    fn every_answer_in_any_chunking_is_the_canonical_one(f in feed()) {
        let cases = answer_cases();
        prop_assert!(cases.len() >= 9);
        for case in &cases {
            let (r, o, answer, _, _) = run(case, &f);
            prop_assert!(r.outcome.is_success(), "{}: {:?}", case.name, r.outcome);
            prop_assert_eq!(r.outcome.to_json(), o.to_json(), "{}", case.name);
            prop_assert_eq!(r.answer.as_ref().map(to_json), answer, "{}", case.name);
            let canonical = r.answer.as_ref().map(to_json);
            prop_assert_eq!(canonical.as_ref(), Some(&case.expect), "{}", case.name);
        }
    }
}

/// The rows that are transport failures, reported by a host: the machine's outcome is the
/// table's (`request_sent` from whether bytes were written).
#[test]
fn every_transport_row_reported_by_a_host_is_the_tables_outcome() {
    let (_, rows) = outcome_cases();
    assert!(rows.len() >= 10);
    for row in rows {
        let t = &row["input"]["transport"];
        let error = ErrorName::parse(t["error"].as_str().unwrap()).unwrap();
        let written = t["request_sent"].as_str() == Some("unknown");
        let target = Target::new(URL, ProtocolVersion::V1_0, Binding::JsonRpc);
        let mut st = ClientState::new(target, ClientConfig::default(), 3).unwrap();
        let mut m = UnaryCall::new(&mut st, call_for(None), CallOptions::default(), Millis(0));
        let tx = m.poll_transmit(&mut st, Millis(0)).unwrap();
        let failure = TransportFailure::new(error, written, t["message"].as_str().unwrap());
        m.handle_failure(&mut st, tx.id, failure, Millis(1))
            .unwrap();
        let Some(Event::Finished(r)) = m.poll_event() else {
            panic!("{}: finished", row["id"])
        };
        let got: Value = serde_json::from_str(&r.outcome.to_json()).unwrap();
        for (k, want) in row["expect"].as_object().unwrap() {
            if matches!(k.as_str(), "version" | "binding") {
                continue; // the machine names the target's interface
            }
            assert_eq!(got.get(k), Some(want), "{}: {k}", row["id"]);
        }
        assert_eq!(r.outcome.version, Some(ProtocolVersion::V1_0));
    }
}

/// Bodies above this are left out of the property (fed once below, in large chunks).
const LARGE: usize = 1024 * 1024;

/// Every row once, the large ones included, in one fixed chunking; and the property above is
/// not vacuous: a good share of the rows asked exactly what the machine asked, so their
/// expected outcomes were checked too.
#[test]
fn many_rows_are_checked_against_their_expected_outcome() {
    let (cases, _) = outcome_cases();
    assert!(cases.iter().any(|c| c.body.len() > LARGE));
    let f = Feed {
        sizes: vec![7],
        ticks: vec![true],
    };
    let matched = cases
        .iter()
        .filter(|c| {
            let (r, o, _, method, id) = run(c, &f);
            assert_eq!(r.outcome.to_json(), o.to_json(), "{}", c.name);
            asked_like_the_row(c, &method, id.as_deref())
        })
        .count();
    assert!(
        matched >= 120,
        "only {matched} rows matched the machine's request"
    );
}

/// A transport outcome's advice matches what may have arrived: `unknown` is never
/// `backoff`, `no` is never `unknown_outcome`.
fn advice_fits(o: &Outcome) -> bool {
    use a2a_core::outcome::{RequestSent, RetryAdvice};
    match (o.channel, o.request_sent) {
        (Channel::Transport, Some(RequestSent::Unknown)) => o.retry != RetryAdvice::Backoff,
        (Channel::Transport, Some(RequestSent::No)) => o.retry != RetryAdvice::UnknownOutcome,
        _ => true,
    }
}

/// One step a host may take, in any order (the machine must refuse what does not fit).
#[derive(Debug, Clone)]
enum Op {
    Transmit,
    /// A head with one of: 200 task, 503 with Retry-After, 502, 429 without Retry-After.
    Head(u8),
    Body(u8),
    End,
    Fail {
        written: bool,
    },
    /// Time passes (ms), then `handle_timeout`.
    Tick(u16),
    Cancel,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Transmit),
        3 => (0u8..4).prop_map(Op::Head),
        3 => any::<u8>().prop_map(Op::Body),
        3 => Just(Op::End),
        1 => any::<bool>().prop_map(|written| Op::Fail { written }),
        3 => any::<u16>().prop_map(Op::Tick),
        1 => Just(Op::Cancel),
    ]
}

fn head(kind: u8) -> (u16, Vec<(String, String)>) {
    let json = ("content-type".to_owned(), "application/json".to_owned());
    match kind {
        0 => (200, vec![json]),
        1 => (503, vec![json, ("retry-after".to_owned(), "1".to_owned())]),
        2 => (502, vec![]),
        _ => (429, vec![json]),
    }
}

/// The body that goes with the last head: a completed task echoing the request's id.
fn body_for(status: u16, id: &str) -> Vec<u8> {
    if status == 200 {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","result":{{"kind":"task","id":"t-1","contextId":"c-1","status":{{"state":"completed"}}}}}}"#
        )
        .into_bytes()
    } else {
        b"busy".to_vec()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any sequence of host steps keeps the contract: no panic; requests within the retry
    /// allowance, each with its deadlines inside the call's; no resend after an unknown
    /// outcome without a key; exactly one Finished, last; and a call left alone finishes
    /// by its deadlines alone.
    #[test]
    fn any_host_sequence_keeps_the_contract(
        ops in prop::collection::vec(op(), 0..40),
        with_key in any::<bool>(),
        retries in 0u32..3,
        budget in 1u64..20_000,
    ) {
        let target = Target::new(URL, ProtocolVersion::V1_0, Binding::JsonRpc);
        let config = ClientConfig { send_retries: retries, ..ClientConfig::default() };
        let mut st = ClientState::new(target, config, 11).unwrap();
        let opts = CallOptions {
            budget: Some(Millis(budget)),
            idempotency_key: with_key.then(|| "key-1".to_owned()),
            ..CallOptions::default()
        };
        let start = Millis(1_000);
        let mut m = UnaryCall::new(&mut st, call_for(None), opts, start);
        prop_assert_eq!(m.deadline(), Millis(1_000 + budget));
        let mut now = start;
        let mut sent: Vec<Transmit> = Vec::new();
        let mut last_status = 200;
        let mut finished = 0;
        let check_events = |m: &mut UnaryCall, finished: &mut u32| -> Result<(), TestCaseError> {
            while let Some(e) = m.poll_event() {
                prop_assert_eq!(*finished, 0, "an event after Finished");
                match e {
                    Event::Finished(r) => {
                        prop_assert!(advice_fits(&r.outcome), "{:?}", r.outcome);
                        *finished += 1;
                    }
                    Event::Retrying { outcome, .. } => {
                        prop_assert!(advice_fits(&outcome), "{:?}", outcome);
                        prop_assert!(
                            with_key || outcome.retry != a2a_core::outcome::RetryAdvice::UnknownOutcome,
                            "resend after an unknown outcome without a key: {:?}", outcome
                        );
                    }
                    Event::Abort(_) => {}
                }
            }
            Ok(())
        };
        for op in ops {
            let current = sent.last().map(|t| t.id);
            match op {
                Op::Transmit => {
                    if let Some(t) = m.poll_transmit(&mut st, now) {
                        prop_assert!(t.deadline == m.deadline() && t.connect_by <= t.deadline);
                        prop_assert!(sent.last().is_none_or(|p| p.id < t.id));
                        sent.push(t);
                    }
                }
                Op::Head(k) => if let Some(id) = current {
                    let (status, headers) = head(k);
                    last_status = status;
                    let _ = m.handle_head(&mut st, id, status, headers, now);
                },
                Op::Body(n) => if let Some(t) = sent.last() {
                    let (_, id) = asked_of(t, &Target::new(URL, ProtocolVersion::V1_0, Binding::JsonRpc));
                    let body = body_for(last_status, id.as_deref().unwrap_or(""));
                    let cut = usize::from(n).min(body.len());
                    let _ = m.handle_body(&mut st, t.id, &body[..cut], now);
                    let _ = m.handle_body(&mut st, t.id, &body[cut..], now);
                },
                Op::End => if let Some(id) = current {
                    let _ = m.handle_end(&mut st, id, now);
                },
                Op::Fail { written } => if let Some(id) = current {
                    let f = TransportFailure::new(ErrorName::Reset, written, "reset");
                    let _ = m.handle_failure(&mut st, id, f, now);
                },
                Op::Tick(ms) => {
                    now = now.saturating_add(Millis(u64::from(ms)));
                    m.handle_timeout(&mut st, now);
                }
                Op::Cancel => m.cancel(&mut st, now),
            }
            check_events(&mut m, &mut finished)?;
            prop_assert!(sent.len() as u32 <= retries + 1, "{} requests", sent.len());
        }
        // Left alone, the call ends by its own deadlines.
        for _ in 0..(retries + 3) * 2 {
            if m.is_finished() {
                break;
            }
            let _ = m.poll_transmit(&mut st, now).map(|t| sent.push(t));
            if let Some(at) = m.poll_timeout() {
                now = now.max(at);
            }
            m.handle_timeout(&mut st, now);
            let _ = m.poll_transmit(&mut st, now).map(|t| sent.push(t));
            check_events(&mut m, &mut finished)?;
        }
        check_events(&mut m, &mut finished)?;
        prop_assert!(m.is_finished(), "the call did not end");
        prop_assert_eq!(finished, 1);
        prop_assert!(sent.len() as u32 <= retries + 1);
        prop_assert!(m.poll_transmit(&mut st, now).is_none());
        prop_assert_eq!(m.poll_timeout(), None);
    }
}
