//! The unary machine driven by hand: request shape, retries, deadlines, limits, hooks,
//! breaker, cancel; the card machine.
#![allow(clippy::result_large_err)]

use std::borrow::Cow;

use super::request::set_header;
use super::*;
use crate::envelope::{HttpMethod, RpcId};
use crate::model::params::{GetTaskParams, ListTasksParams, SendMessageParams, TaskIdParams};
use crate::model::{Message, Part, Role};
use crate::outcome::{CancelOrigin, Channel, ErrorName, RequestSent, RetryAdvice, TaskState};
use crate::resilience::BreakerConfig;

const URL: &str = "https://agent.example/a2a";

fn state(config: ClientConfig) -> ClientState {
    let target = Target::new(URL, ProtocolVersion::V0_3, Binding::JsonRpc);
    ClientState::new(target, config, 42).expect("valid config")
}

fn send(text: &str) -> Call<'static> {
    let m = Message::new(
        Cow::Borrowed("msg-1"),
        Role::User,
        vec![Part::text(text.to_owned())],
    );
    Call::SendMessage(SendMessageParams::new(m))
}

/// The JSON-RPC id the request carries.
fn rpc_id(t: &Transmit) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&t.request.body).expect("JSON body");
    v["id"].clone()
}

fn task_body(id: &serde_json::Value, state: &str) -> Vec<u8> {
    serde_json::json!({"jsonrpc":"2.0","id":id,"result":{"kind":"task","id":"t-1",
        "contextId":"c-1","status":{"state":state}}})
    .to_string()
    .into_bytes()
}

fn json_head() -> Vec<(String, String)> {
    vec![("Content-Type".to_owned(), "application/json".to_owned())]
}

/// Head, the body in one chunk, end.
fn respond(
    m: &mut UnaryCall,
    st: &mut ClientState,
    t: &Transmit,
    status: u16,
    headers: Vec<(String, String)>,
    body: &[u8],
    now: Millis,
) {
    m.handle_head(st, t.id, status, headers, now).unwrap();
    m.handle_body(st, t.id, body, now).unwrap();
    m.handle_end(st, t.id, now).unwrap();
}

fn events(m: &mut UnaryCall) -> Vec<Event> {
    std::iter::from_fn(|| m.poll_event()).collect()
}

fn finished(m: &mut UnaryCall) -> CallResult {
    match events(m).pop() {
        Some(Event::Finished(r)) => *r,
        other => panic!("expected Finished last, got {other:?}"),
    }
}

#[test]
fn a_send_hands_out_one_request_and_finishes_with_the_answer() {
    let mut st = state(ClientConfig::default());
    let opts = CallOptions {
        rpc_id: Some(RpcId::Number(7)),
        ..CallOptions::default()
    };
    let mut m = UnaryCall::new(&mut st, send("hi"), opts, Millis(1_000));
    let t = m.poll_transmit(&mut st, Millis(1_000)).expect("a request");
    assert!(
        m.poll_transmit(&mut st, Millis(1_000)).is_none(),
        "one at a time"
    );
    assert_eq!(t.request.method, HttpMethod::Post);
    assert_eq!(t.request.url, URL);
    assert_eq!(rpc_id(&t), serde_json::json!(7));
    assert!(t.request.header("traceparent").is_some());
    assert_eq!(t.deadline, Millis(46_000));
    assert_eq!(t.connect_by, Millis(4_000));
    assert_eq!(m.poll_timeout(), Some(Millis(46_000)));
    respond(
        &mut m,
        &mut st,
        &t,
        200,
        json_head(),
        &task_body(&rpc_id(&t), "completed"),
        Millis(1_250),
    );
    assert!(m.is_finished());
    assert_eq!(m.poll_timeout(), None);
    let r = finished(&mut m);
    assert_eq!(r.outcome.channel, Channel::Task);
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert!(r.answer.is_some(), "a task answer");
    assert_eq!(r.correlation.attempts, 1);
    assert_eq!(r.correlation.elapsed, Millis(250));
    assert_eq!(r.correlation.task_id.as_deref(), Some("t-1"));
    assert_eq!(r.correlation.message_id.as_deref(), Some("msg-1"));
    assert_eq!(r.correlation.jsonrpc_id.as_deref(), Some("7"));
    assert_eq!(r.response.expect("kept").status, 200);
    assert_eq!(
        st.tally()
            .count("agent.example", "SendMessage", Channel::Task, "completed"),
        1
    );
}

#[test]
fn a_503_with_retry_after_then_a_200_is_two_requests_after_the_delay() {
    let mut st = state(ClientConfig {
        send_retries: 2,
        ..ClientConfig::default()
    });
    let opts = CallOptions {
        idempotency_key: Some("key-1".to_owned()),
        ..CallOptions::default()
    };
    let mut m = UnaryCall::new(&mut st, send("hi"), opts, Millis(0));
    let first = m.poll_transmit(&mut st, Millis(0)).unwrap();
    let mut head = json_head();
    head.push(("Retry-After".to_owned(), "2".to_owned()));
    respond(
        &mut m,
        &mut st,
        &first,
        503,
        head,
        b"{\"error\":\"busy\"}",
        Millis(100),
    );
    let evs = events(&mut m);
    let [
        Event::Retrying {
            attempt,
            delay,
            outcome,
        },
    ] = evs.as_slice()
    else {
        panic!("one Retrying event, got {evs:?}")
    };
    assert_eq!(*attempt, 2);
    assert!(*delay >= Millis(2_000), "Retry-After is a floor: {delay:?}");
    assert_eq!(outcome.http_status, Some(503));
    let due = Millis(100).saturating_add(*delay);
    assert_eq!(m.poll_timeout(), Some(due));
    assert!(
        m.poll_transmit(&mut st, Millis(due.0 - 1)).is_none(),
        "not before the delay"
    );
    m.handle_timeout(&mut st, due);
    let second = m.poll_transmit(&mut st, due).expect("the retry");
    assert_ne!(second.id, first.id);
    assert_eq!(second.id.attempt(), 2);
    assert_ne!(rpc_id(&second), rpc_id(&first), "a new JSON-RPC id");
    assert_eq!(second.request.header("Idempotency-Key"), Some("key-1"));
    assert_eq!(
        second.request.header("traceparent"),
        first.request.header("traceparent")
    );
    let msg = |t: &Transmit| {
        let v: serde_json::Value = serde_json::from_slice(&t.request.body).unwrap();
        v["params"]["message"]["messageId"].clone()
    };
    assert_eq!(msg(&second), msg(&first), "the same messageId");
    respond(
        &mut m,
        &mut st,
        &second,
        200,
        json_head(),
        &task_body(&rpc_id(&second), "completed"),
        due,
    );
    let r = finished(&mut m);
    assert!(r.outcome.is_success(), "{:?}", r.outcome);
    assert_eq!(r.correlation.attempts, 2);
}

#[test]
fn a_timeout_after_writing_without_a_key_is_not_resent() {
    let mut st = state(ClientConfig {
        send_retries: 3,
        ..ClientConfig::default()
    });
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_timeout(&mut st, Millis(44_999));
    assert!(events(&mut m).is_empty(), "early: nothing happens");
    m.handle_timeout(&mut st, t.deadline);
    assert!(m.poll_transmit(&mut st, t.deadline).is_none(), "no resend");
    let evs = events(&mut m);
    assert!(matches!(evs.first(), Some(Event::Abort(id)) if *id == t.id));
    let Some(Event::Finished(r)) = evs.last() else {
        panic!("{evs:?}")
    };
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::Unknown));
    assert_eq!(r.outcome.retry, RetryAdvice::UnknownOutcome);
    assert_eq!(r.correlation.attempts, 1);
    // A late chunk of the abandoned request changes nothing.
    assert_eq!(
        m.handle_body(&mut st, t.id, b"x", Millis(50_000)),
        Err(InputError::Finished)
    );
}

#[test]
fn a_reset_after_writing_with_a_key_is_resent() {
    let mut st = state(ClientConfig {
        send_retries: 1,
        ..ClientConfig::default()
    });
    let opts = CallOptions {
        idempotency_key: Some("k".to_owned()),
        ..CallOptions::default()
    };
    let mut m = UnaryCall::new(&mut st, send("hi"), opts, Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_failure(
        &mut st,
        t.id,
        TransportFailure::new(ErrorName::Reset, true, "connection reset"),
        Millis(10),
    )
    .unwrap();
    assert!(matches!(
        events(&mut m).as_slice(),
        [Event::Retrying { attempt: 2, .. }]
    ));
    let due = m.poll_timeout().expect("retry scheduled");
    assert!(
        m.poll_transmit(&mut st, due).is_some(),
        "resent with the key"
    );
}

#[test]
fn the_callers_budget_wins_when_shorter_than_the_call_timeout() {
    let mut st = state(ClientConfig::default());
    let opts = CallOptions {
        budget: Some(Millis(1_000)),
        ..CallOptions::default()
    };
    let mut m = UnaryCall::new(&mut st, send("hi"), opts, Millis(500));
    assert_eq!(m.deadline(), Millis(1_500));
    let t = m.poll_transmit(&mut st, Millis(500)).unwrap();
    assert_eq!(t.deadline, Millis(1_500));
    assert_eq!(
        t.connect_by,
        Millis(1_500),
        "connect within the call deadline"
    );
    m.handle_timeout(&mut st, Millis(1_500));
    let r = finished(&mut m);
    assert_eq!(
        r.outcome.message.as_deref(),
        Some("call timeout after 1000 ms")
    );
}

#[test]
fn the_total_deadline_cuts_the_call_and_says_so() {
    let mut st = state(ClientConfig {
        max_time: Some(Millis(800)),
        ..ClientConfig::default()
    });
    let opts = CallOptions {
        deadline: Some(Millis(600)),
        ..CallOptions::default()
    };
    let mut m = UnaryCall::new(&mut st, send("hi"), opts, Millis(0));
    assert_eq!(m.deadline(), Millis(600), "the earlier total deadline");
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_head(&mut st, t.id, 200, json_head(), Millis(10))
        .unwrap();
    let r = {
        m.handle_timeout(&mut st, Millis(600));
        finished(&mut m)
    };
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    assert!(
        r.outcome
            .message
            .as_deref()
            .is_some_and(|s| s.starts_with("total deadline expired")),
        "{:?}",
        r.outcome.message
    );
}

#[test]
fn a_body_that_never_ends_times_out_at_the_deadline_handed_out() {
    let mut st = state(ClientConfig::default());
    let opts = CallOptions {
        budget: Some(Millis(2_000)),
        ..CallOptions::default()
    };
    let mut m = UnaryCall::new(&mut st, send("hi"), opts, Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_head(&mut st, t.id, 200, json_head(), Millis(5))
        .unwrap();
    let mut now = Millis(5);
    while now < Millis(1_990) {
        m.handle_body(&mut st, t.id, b" ", now).unwrap();
        m.handle_timeout(&mut st, now);
        assert!(!m.is_finished(), "still reading at {now:?}");
        now = now.saturating_add(Millis(100));
    }
    assert_eq!(m.poll_timeout(), Some(t.deadline));
    // A chunk at the deadline is too late: the attempt times out.
    m.handle_body(&mut st, t.id, b" ", t.deadline).unwrap();
    let evs = events(&mut m);
    assert!(matches!(evs.first(), Some(Event::Abort(_))), "{evs:?}");
    let Some(Event::Finished(r)) = evs.last() else {
        panic!("{evs:?}")
    };
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(r.correlation.elapsed, Millis(2_000));
}

#[test]
fn a_body_over_the_limit_is_refused_and_aborted() {
    let mut st = state(ClientConfig {
        max_response_bytes: 10,
        ..ClientConfig::default()
    });
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_head(&mut st, t.id, 200, json_head(), Millis(1))
        .unwrap();
    m.handle_body(&mut st, t.id, b"0123456789", Millis(1))
        .unwrap();
    m.handle_body(&mut st, t.id, b"!", Millis(1)).unwrap();
    let evs = events(&mut m);
    assert!(matches!(evs.first(), Some(Event::Abort(id)) if *id == t.id));
    let Some(Event::Finished(r)) = evs.last() else {
        panic!("{evs:?}")
    };
    assert_eq!(r.outcome.error, Some(ErrorName::ResponseTooLarge));
    assert_eq!(r.outcome.retry, RetryAdvice::Never);
}

#[test]
fn inputs_out_of_order_are_typed_errors_that_change_nothing() {
    let mut st = state(ClientConfig::default());
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    assert_eq!(
        m.handle_body(&mut st, t.id, b"{}", Millis(1)),
        Err(InputError::NoHead)
    );
    assert_eq!(
        m.handle_end(&mut st, t.id, Millis(1)),
        Err(InputError::NoHead)
    );
    let other = RequestId(9);
    assert_eq!(
        m.handle_head(&mut st, other, 200, vec![], Millis(1)),
        Err(InputError::Stale)
    );
    m.handle_head(&mut st, t.id, 200, json_head(), Millis(1))
        .unwrap();
    assert_eq!(
        m.handle_head(&mut st, t.id, 200, json_head(), Millis(1)),
        Err(InputError::HeadTwice)
    );
    assert!(events(&mut m).is_empty());
}

#[test]
fn header_hooks_add_headers_and_a_reserved_one_is_refused_before_sending() {
    let mut st = state(ClientConfig::default());
    st.add_header_hook(
        |ctx: &RequestContext<'_>, add: &mut Vec<(String, String)>| {
            assert_eq!(ctx.target.url, URL);
            add.push(("Authorization".to_owned(), "Bearer t".to_owned()));
        },
    );
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    assert_eq!(t.request.header("authorization"), Some("Bearer t"));

    st.add_header_hook(|_: &RequestContext<'_>, add: &mut Vec<(String, String)>| {
        add.push(("Content-Type".to_owned(), "text/plain".to_owned()));
    });
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    assert!(m.poll_transmit(&mut st, Millis(0)).is_none(), "not sent");
    let r = finished(&mut m);
    assert_eq!(r.outcome.error, Some(ErrorName::InvalidRequest));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::No));
    assert!(
        r.outcome
            .message
            .as_deref()
            .is_some_and(|s| s.contains("Content-Type")),
        "{:?}",
        r.outcome.message
    );
}

#[test]
fn an_open_breaker_refuses_without_a_request() {
    let mut st = state(ClientConfig {
        breaker: Some(BreakerConfig {
            failure_threshold: 1,
            ..BreakerConfig::default()
        }),
        ..ClientConfig::default()
    });
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_failure(
        &mut st,
        t.id,
        TransportFailure::new(ErrorName::ConnectFailed, false, "refused"),
        Millis(1),
    )
    .unwrap();
    assert_eq!(
        finished(&mut m).outcome.error,
        Some(ErrorName::ConnectFailed)
    );
    assert_eq!(
        st.breaker_state(Millis(2)),
        Some(crate::resilience::BreakerState::Open)
    );
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(2));
    assert!(m.poll_transmit(&mut st, Millis(2)).is_none());
    assert_eq!(finished(&mut m).outcome.error, Some(ErrorName::CircuitOpen));
}

#[test]
fn a_cancel_this_client_sent_is_requested_and_the_caller_can_abandon_a_call() {
    let mut st = state(ClientConfig::default());
    let call = Call::CancelTask(TaskIdParams::new("t-1"));
    let mut m = UnaryCall::new(&mut st, call, CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    respond(
        &mut m,
        &mut st,
        &t,
        200,
        json_head(),
        &task_body(&rpc_id(&t), "canceled"),
        Millis(1),
    );
    let r = finished(&mut m);
    assert_eq!(r.outcome.cancel_origin, Some(CancelOrigin::Requested));

    // A get of another canceled task: remote.
    let call = Call::GetTask(GetTaskParams {
        id: Cow::Borrowed("t-2"),
        history_length: None,
        metadata: None,
    });
    let mut m = UnaryCall::new(&mut st, call, CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    let body = serde_json::json!({"jsonrpc":"2.0","id":rpc_id(&t),"result":{"kind":"task",
        "id":"t-2","contextId":"c","status":{"state":"canceled"}}})
    .to_string();
    respond(
        &mut m,
        &mut st,
        &t,
        200,
        json_head(),
        body.as_bytes(),
        Millis(1),
    );
    assert_eq!(
        finished(&mut m).outcome.cancel_origin,
        Some(CancelOrigin::Remote)
    );

    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.cancel(&mut st, Millis(3));
    let evs = events(&mut m);
    assert!(matches!(evs.first(), Some(Event::Abort(id)) if *id == t.id));
    let Some(Event::Finished(r)) = evs.last() else {
        panic!("{evs:?}")
    };
    assert_eq!(r.outcome.error, Some(ErrorName::Reset));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::Unknown));
    m.cancel(&mut st, Millis(4));
    assert!(
        events(&mut m).is_empty(),
        "cancel after the end does nothing"
    );
}

#[test]
fn list_tasks_goes_through_the_generic_call_on_http_json() {
    let target = Target::new(
        "https://agent.example/api",
        ProtocolVersion::V1_0,
        Binding::HttpJson,
    );
    let mut st = ClientState::new(target, ClientConfig::default(), 1).unwrap();
    let call = Call::ListTasks(ListTasksParams::default());
    let mut m = UnaryCall::new(&mut st, call, CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    assert_eq!(t.request.method, HttpMethod::Get);
    assert!(
        t.request.url.starts_with("https://agent.example/api/tasks"),
        "{}",
        t.request.url
    );
    respond(
        &mut m,
        &mut st,
        &t,
        200,
        vec![("content-type".to_owned(), "application/json".to_owned())],
        br#"{"tasks":[],"nextPageToken":"","pageSize":0,"totalSize":0}"#,
        Millis(1),
    );
    let r = finished(&mut m);
    assert!(r.outcome.is_success(), "{:?}", r.outcome);
    assert!(r.answer.is_none(), "a list is read from the response body");
    assert!(r.response.is_some());
}

// ---------------------------------------------------------------------------------------
// Card resolution.

const CARD_03: &str = r#"{"name":"Echo","url":"https://agent.example/a2a",
    "preferredTransport":"JSONRPC","protocolVersion":"0.3.0",
    "securitySchemes":{"tok":{"type":"http","scheme":"bearer"}},"security":[{"tok":[]}]}"#;

fn card_events(m: &mut CardFetch) -> Vec<CardEvent> {
    std::iter::from_fn(|| m.poll_event()).collect()
}

fn resolved(m: &mut CardFetch) -> Result<ResolvedCard, ResolveError> {
    match card_events(m).pop() {
        Some(CardEvent::Resolved(r)) => *r,
        other => panic!("expected Resolved last, got {other:?}"),
    }
}

fn card_respond(
    m: &mut CardFetch,
    t: &Transmit,
    status: u16,
    headers: &[(&str, &str)],
    body: &str,
) {
    let h = headers
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
    m.handle_head(t.id, status, h, Millis(1)).unwrap();
    m.handle_body(t.id, body.as_bytes(), Millis(1)).unwrap();
    m.handle_end(t.id, Millis(1)).unwrap();
}

#[test]
fn a_card_resolves_to_the_target_and_its_credentials_gate_the_calls() {
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    let t = m.poll_transmit(Millis(0)).expect("the card fetch");
    assert_eq!(t.request.method, HttpMethod::Get);
    assert_eq!(
        t.request.url,
        "https://agent.example/.well-known/agent-card.json"
    );
    assert_eq!(
        t.request.headers,
        vec![("accept".to_owned(), "application/json".to_owned())],
        "no credentials, nothing but Accept"
    );
    assert_eq!(t.deadline, Millis(30_000));
    card_respond(
        &mut m,
        &t,
        200,
        &[("content-type", "application/json")],
        CARD_03,
    );
    let r = resolved(&mut m).expect("resolved");
    assert_eq!(r.target.url, "https://agent.example/a2a");
    assert_eq!(r.target.version, ProtocolVersion::V0_3);
    assert_eq!(r.target.agent_name, "Echo");
    assert_eq!(r.card_json, CARD_03);

    // The card asks for a bearer token: a call without one is not sent.
    let mut st = ClientState::new(r.target.clone(), ClientConfig::default(), 5).unwrap();
    let mut call = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    assert!(call.poll_transmit(&mut st, Millis(0)).is_none());
    let o = finished(&mut call).outcome;
    assert_eq!(o.error, Some(ErrorName::Unauthenticated));
    assert_eq!(o.retry, RetryAdvice::Reauthenticate);
    // With a hook that adds it, the call goes out.
    st.add_header_hook(|_: &RequestContext<'_>, add: &mut Vec<(String, String)>| {
        add.push(("Authorization".to_owned(), "Bearer t".to_owned()));
    });
    let mut call = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    assert!(call.poll_transmit(&mut st, Millis(0)).is_some());
}

#[test]
fn a_404_falls_back_to_the_legacy_card_url_once() {
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    let t = m.poll_transmit(Millis(0)).unwrap();
    card_respond(&mut m, &t, 404, &[], "not here");
    assert!(card_events(&mut m).is_empty(), "not over yet");
    let t2 = m.poll_transmit(Millis(2)).expect("the legacy URL");
    assert_ne!(t2.id, t.id);
    assert_eq!(
        t2.request.url,
        "https://agent.example/.well-known/agent.json"
    );
    card_respond(&mut m, &t2, 404, &[], "not here either");
    match resolved(&mut m) {
        Err(ResolveError::Status {
            status: 404, url, ..
        }) => {
            assert_eq!(url, "https://agent.example/.well-known/agent.json");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_redirected_card_is_not_followed() {
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    let t = m.poll_transmit(Millis(0)).unwrap();
    card_respond(
        &mut m,
        &t,
        302,
        &[("Location", "https://evil.example/card")],
        "",
    );
    assert!(m.poll_transmit(Millis(2)).is_none(), "never followed");
    let e = resolved(&mut m).unwrap_err();
    assert!(
        matches!(&e, ResolveError::Status { status: 302, location: Some(l), .. } if l == "https://evil.example/card"),
        "{e:?}"
    );
    let o = e.to_outcome();
    assert_eq!(o.error, Some(ErrorName::CardResolution));
    assert_eq!(o.retry, RetryAdvice::Never);
    assert_eq!(o.request_sent, Some(RequestSent::No));
}

#[test]
fn a_card_pointing_at_another_host_or_plain_http_is_refused() {
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    let t = m.poll_transmit(Millis(0)).unwrap();
    let elsewhere = CARD_03.replace("https://agent.example/a2a", "https://other.example/a2a");
    card_respond(&mut m, &t, 200, &[], &elsewhere);
    assert!(matches!(resolved(&mut m), Err(ResolveError::Card { .. })));

    let mut m = CardFetch::new("http://agent.example", CardOptions::default());
    assert!(m.poll_transmit(Millis(0)).is_none(), "nothing sent");
    let e = resolved(&mut m).unwrap_err();
    assert!(
        matches!(
            &e,
            ResolveError::Card {
                error: crate::card::CardError::PlainHttp { .. },
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn a_card_fetch_that_hangs_times_out_and_is_aborted() {
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    let t = m.poll_transmit(Millis(0)).unwrap();
    assert_eq!(m.poll_timeout(), Some(t.deadline));
    m.handle_timeout(Millis(29_999));
    assert!(card_events(&mut m).is_empty());
    m.handle_timeout(t.deadline);
    let evs = card_events(&mut m);
    assert!(matches!(evs.first(), Some(CardEvent::Abort(id)) if *id == t.id));
    let Some(CardEvent::Resolved(r)) = evs.last() else {
        panic!("{evs:?}")
    };
    let Err(ResolveError::Fetch { outcome, .. }) = &**r else {
        panic!("{r:?}")
    };
    assert_eq!(outcome.error, Some(ErrorName::Timeout));
    assert_eq!(
        m.handle_end(t.id, Millis(30_001)),
        Err(InputError::Finished)
    );
}

#[test]
fn a_failure_after_the_head_counts_as_written() {
    let mut st = state(ClientConfig {
        send_retries: 2,
        ..ClientConfig::default()
    });
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_head(&mut st, t.id, 200, json_head(), Millis(1))
        .unwrap();
    // The host's stack says "not written", but a head came back: the server has it.
    let f = TransportFailure::new(ErrorName::ConnectFailed, false, "closed");
    m.handle_failure(&mut st, t.id, f, Millis(2)).unwrap();
    let r = finished(&mut m);
    assert_eq!(r.outcome.request_sent, Some(RequestSent::Unknown));
    assert!(
        m.poll_transmit(&mut st, Millis(3)).is_none(),
        "no resend without a key"
    );
}

#[test]
fn a_request_due_after_the_call_deadline_is_not_sent() {
    let mut st = state(ClientConfig::default());
    let opts = CallOptions {
        budget: Some(Millis(100)),
        ..CallOptions::default()
    };
    let mut m = UnaryCall::new(&mut st, send("hi"), opts, Millis(0));
    assert!(m.poll_transmit(&mut st, Millis(100)).is_none());
    let r = finished(&mut m);
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::No));
    assert_eq!(
        r.outcome.retry,
        RetryAdvice::Backoff,
        "advice matches request_sent"
    );
}

#[test]
fn the_machines_can_live_behind_a_lock_or_a_c_handle() {
    fn send_able<T: Send>() {}
    send_able::<ClientState>();
    send_able::<UnaryCall>();
    send_able::<CardFetch>();
}

/// Runs the listing's next page against `body`; the result and the URL requested.
fn list_page(st: &mut ClientState, pages: &TaskPages, body: &str) -> (CallResult, String) {
    let call = pages.next_call().expect("a page is due");
    let mut m = UnaryCall::new(st, call, CallOptions::default(), Millis(0));
    let t = m.poll_transmit(st, Millis(0)).unwrap();
    let head = vec![("content-type".to_owned(), "application/a2a+json".to_owned())];
    respond(&mut m, st, &t, 200, head, body.as_bytes(), Millis(1));
    (finished(&mut m), t.request.url)
}

#[test]
fn task_pages_follow_the_token_to_the_last_page() {
    let target = Target::new(
        "https://agent.example/api",
        ProtocolVersion::V1_0,
        Binding::HttpJson,
    );
    let mut st = ClientState::new(target.clone(), ClientConfig::default(), 1).unwrap();
    let mut pages = TaskPages::new(ListTasksParams::default());
    let task = |id: &str| {
        format!(r#"{{"id":"{id}","contextId":"c","status":{{"state":"TASK_STATE_COMPLETED"}}}}"#)
    };
    let (first, _) = list_page(
        &mut st,
        &pages,
        &format!(
            r#"{{"tasks":[{}],"nextPageToken":"p2","pageSize":1,"totalSize":2}}"#,
            task("t-1")
        ),
    );
    let page = pages.read_page(&first, &target).unwrap();
    assert_eq!(page.tasks.len(), 1);
    assert_eq!(page.tasks[0].id, "t-1");
    assert!(!pages.is_done());
    let (second, url) = list_page(
        &mut st,
        &pages,
        &format!(
            r#"{{"tasks":[{}],"nextPageToken":"","pageSize":1,"totalSize":2}}"#,
            task("t-2")
        ),
    );
    assert!(
        url.contains("pageToken=p2"),
        "the second request carries the token: {url}"
    );
    let page = pages.read_page(&second, &target).unwrap();
    assert_eq!(page.tasks[0].id, "t-2");
    assert!(pages.is_done());
    assert!(pages.next_call().is_none());
}

#[test]
fn task_pages_stop_on_a_repeated_token() {
    let target = Target::new(
        "https://agent.example/api",
        ProtocolVersion::V1_0,
        Binding::HttpJson,
    );
    let mut st = ClientState::new(target.clone(), ClientConfig::default(), 1).unwrap();
    let mut pages = TaskPages::new(ListTasksParams::default());
    let body = r#"{"tasks":[],"nextPageToken":"again","pageSize":0,"totalSize":9}"#;
    let (r, _) = list_page(&mut st, &pages, body);
    pages.read_page(&r, &target).unwrap();
    let (r, _) = list_page(&mut st, &pages, body);
    assert_eq!(
        pages.read_page(&r, &target).unwrap_err(),
        PageError::RepeatedToken("again".to_owned())
    );
    assert!(pages.next_call().is_none());
}

#[test]
fn a_streaming_method_read_whole_is_classified_at_the_end() {
    let mut st = state(ClientConfig::default());
    let Call::SendMessage(p) = send("hi") else {
        unreachable!()
    };
    let call = Call::SendStreamingMessage(p);
    let mut m = UnaryCall::new(&mut st, call, CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    let id = rpc_id(&t);
    let event = serde_json::json!({"jsonrpc":"2.0","id":id,"result":{"kind":"status-update",
        "taskId":"t-1","contextId":"c-1","status":{"state":"completed"},"final":true}});
    let body = format!("data: {event}\n\n");
    let head = vec![("content-type".to_owned(), "text/event-stream".to_owned())];
    respond(&mut m, &mut st, &t, 200, head, body.as_bytes(), Millis(1));
    let r = finished(&mut m);
    assert_eq!(
        r.outcome.state,
        Some(TaskState::Completed),
        "{:?}",
        r.outcome
    );
    assert!(
        r.answer.is_none(),
        "no answer from a whole stream in phase 1"
    );
}

#[test]
fn every_way_of_adding_a_header_meets_the_one_reserved_header_rule() {
    for name in ["Transfer-Encoding", "Connection", "Host", "A2A-Version"] {
        // Through a hook ...
        let mut st = state(ClientConfig::default());
        let hook_name = name.to_owned();
        st.add_header_hook(
            move |_: &RequestContext<'_>, add: &mut Vec<(String, String)>| {
                add.push((hook_name.clone(), "x".to_owned()));
            },
        );
        let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
        assert!(
            m.poll_transmit(&mut st, Millis(0)).is_none(),
            "{name}: not sent"
        );
        let o = finished(&mut m).outcome;
        let why = crate::envelope::reserved_header(name).unwrap().to_string();
        assert!(
            o.message.as_deref().is_some_and(|s| s.contains(&why)),
            "{name}: {:?}",
            o.message
        );
        // ... and as the call's own header.
        let mut st = state(ClientConfig::default());
        let opts = CallOptions {
            headers: vec![(name.to_ascii_lowercase(), "x".to_owned())],
            ..CallOptions::default()
        };
        let mut m = UnaryCall::new(&mut st, send("hi"), opts, Millis(0));
        assert!(
            m.poll_transmit(&mut st, Millis(0)).is_none(),
            "{name}: not sent"
        );
        assert_eq!(
            finished(&mut m).outcome.error,
            Some(ErrorName::InvalidRequest)
        );
    }
}

/// A hook that edits the built request (the reference driver's interceptors).
struct Edit(fn(&mut HttpRequest));

impl HeaderHook for Edit {
    fn headers(&mut self, _: &RequestContext<'_>, _: &mut Vec<(String, String)>) {}

    fn edit(&mut self, _: &RequestContext<'_>, request: &mut HttpRequest) {
        (self.0)(request)
    }
}

#[test]
fn an_edit_may_remove_a_protocol_header_but_not_add_or_change_a_reserved_one() {
    let v1 = || {
        let target = Target::new(URL, ProtocolVersion::V1_0, Binding::JsonRpc);
        ClientState::new(target, ClientConfig::default(), 42).expect("valid config")
    };
    // Removing A2A-Version and writing the envelope's own Content-Type again pass.
    let mut st = v1();
    st.add_header_hook(Edit(|r| {
        r.headers
            .retain(|(n, _)| !n.eq_ignore_ascii_case("a2a-version"));
        let ct = r.header("content-type").unwrap_or_default().to_owned();
        set_header(&mut r.headers, "Content-Type".to_owned(), ct);
        r.headers.push(("X-Route".to_owned(), "blue".to_owned()));
    }));
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).expect("sent");
    assert_eq!(t.request.header("a2a-version"), None);
    assert_eq!(t.request.header("x-route"), Some("blue"));
    // Changing a reserved header refuses the request before anything is sent.
    let mut st = v1();
    st.add_header_hook(Edit(|r| {
        set_header(
            &mut r.headers,
            "Content-Type".to_owned(),
            "text/plain".to_owned(),
        );
    }));
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    assert!(m.poll_transmit(&mut st, Millis(0)).is_none());
    let o = finished(&mut m).outcome;
    assert_eq!(o.error, Some(ErrorName::InvalidRequest));
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert!(o.message.unwrap_or_default().contains("Content-Type"));
}

#[test]
fn a_credential_an_edit_adds_satisfies_the_card() {
    use crate::card::{BearerSource, Credential, CredentialNeed, CredentialPlan};
    let mut target = Target::new(URL, ProtocolVersion::V0_3, Binding::JsonRpc);
    target.credentials = Some(CredentialPlan {
        stated: true,
        alternatives: vec![vec![CredentialNeed {
            scheme: "bearer".to_owned(),
            credential: Credential::BearerToken {
                source: BearerSource::Http,
                format: None,
            },
            scopes: Vec::new(),
        }]],
    });
    let mut st = ClientState::new(target, ClientConfig::default(), 42).expect("valid config");
    st.add_header_hook(Edit(|r| {
        r.headers
            .push(("Authorization".to_owned(), "Bearer t".to_owned()));
    }));
    let mut m = UnaryCall::new(&mut st, send("hi"), CallOptions::default(), Millis(0));
    let t = m
        .poll_transmit(&mut st, Millis(0))
        .expect("the credential is there");
    assert_eq!(t.request.header("authorization"), Some("Bearer t"));
}

#[test]
fn a_cached_card_is_used_while_fresh_then_revalidated_and_a_304_reuses_it() {
    let mut cache = CardCache::default();
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    m.use_cache(&cache, Millis(0));
    let t = m.poll_transmit(Millis(0)).expect("nothing cached: a fetch");
    card_respond(
        &mut m,
        &t,
        200,
        &[("Cache-Control", "max-age=60"), ("ETag", "\"c1\"")],
        CARD_03,
    );
    let r = resolved(&mut m).expect("resolved");
    assert!(!r.from_cache);
    cache.put(r.cache_entry.clone().expect("storable"));

    // Fresh: resolved at once, nothing sent.
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    m.use_cache(&cache, Millis(59_000));
    assert!(m.poll_transmit(Millis(59_000)).is_none());
    let r = resolved(&mut m).expect("from the cache");
    assert!(r.from_cache);
    assert_eq!(r.target.url, "https://agent.example/a2a");

    // Stale: revalidated with the ETag; a 304 reuses the body and renews freshness.
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    m.use_cache(&cache, Millis(61_000));
    let t = m.poll_transmit(Millis(61_000)).expect("revalidation");
    assert!(
        t.request
            .headers
            .contains(&("If-None-Match".to_owned(), "\"c1\"".to_owned())),
        "{:?}",
        t.request.headers
    );
    card_respond(&mut m, &t, 304, &[("Cache-Control", "max-age=10")], "");
    let r = resolved(&mut m).expect("a 304 reuses the card");
    assert!(r.from_cache);
    assert_eq!(r.card_json, CARD_03);
    // (`card_respond` answers at 1 ms on the test's clock.)
    assert_eq!(
        r.cache_entry.as_ref().unwrap().fresh_until,
        Some(Millis(10_001))
    );

    // `no-store` leaves nothing to keep; a 304 without a cached card is an HTTP error.
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    let t = m.poll_transmit(Millis(0)).unwrap();
    card_respond(&mut m, &t, 200, &[("Cache-Control", "no-store")], CARD_03);
    assert!(resolved(&mut m).expect("resolved").cache_entry.is_none());
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    let t = m.poll_transmit(Millis(0)).unwrap();
    card_respond(&mut m, &t, 304, &[], "");
    assert!(matches!(
        resolved(&mut m),
        Err(ResolveError::Status { status: 304, .. })
    ));
}
