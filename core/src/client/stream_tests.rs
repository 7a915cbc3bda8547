//! The stream machine driven by hand: items as they arrive, the idle, head and total
//! deadlines, resubscribe after a drop (never a resend), the get-task fallback; and property
//! tests over the shared fixtures in any chunking and over random host steps.

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::envelope::RpcId;
use crate::model::params::{SendMessageParams, TaskIdParams};
use crate::model::{Message, Part, Role};
use crate::outcome::{Channel, ErrorName, RetryAdvice, TaskState};
use crate::stream::{StreamEndKind, StreamItemKind};

const URL: &str = "https://agent.example/a2a";
const IDLE: Millis = Millis(10_000);

fn state(config: ClientConfig) -> ClientState {
    let target = Target::new(URL, ProtocolVersion::V0_3, Binding::JsonRpc);
    ClientState::new(target, config, 7).expect("valid config")
}

fn streaming(text: &str) -> Call<'static> {
    let m = Message::new(
        Cow::Borrowed("msg-1"),
        Role::User,
        vec![Part::text(text.to_owned())],
    );
    Call::SendStreamingMessage(SendMessageParams::new(m))
}

fn config(resubscribes: u32) -> StreamConfig {
    StreamConfig {
        idle_timeout: IDLE,
        resubscribe_attempts: resubscribes,
        ..StreamConfig::default()
    }
}

fn body_json(t: &Transmit) -> Value {
    serde_json::from_slice(&t.request.body).expect("JSON-RPC body")
}

fn sse_head() -> Vec<(String, String)> {
    vec![("Content-Type".to_owned(), "text/event-stream".to_owned())]
}

/// One SSE event answering request `t` with `result` (0.3 shapes).
fn event(t: &Transmit, result: Value) -> Vec<u8> {
    let id = body_json(t)["id"].clone();
    format!(
        "data: {}\n\n",
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    )
    .into_bytes()
}

fn task(state: &str) -> Value {
    json!({"kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": state}})
}

fn status(state: &str, last: bool) -> Value {
    json!({"kind": "status-update", "taskId": "t-1", "contextId": "c-1",
        "status": {"state": state}, "final": last})
}

fn events(m: &mut StreamCall) -> Vec<StreamEvent> {
    std::iter::from_fn(|| m.poll_event()).collect()
}

fn finished(evs: &[StreamEvent]) -> StreamResult {
    match evs.last() {
        Some(StreamEvent::Finished(r)) => (**r).clone(),
        other => panic!("expected Finished last, got {other:?}"),
    }
}

fn items(evs: &[StreamEvent]) -> Vec<&crate::stream::StreamItem> {
    evs.iter()
        .filter_map(|e| match e {
            StreamEvent::Item(i) => Some(&**i),
            _ => None,
        })
        .collect()
}

/// Opens a stream for `t` at `now` and feeds the submitted task.
fn open_with_task(m: &mut StreamCall, st: &mut ClientState, t: &Transmit, now: Millis) {
    m.handle_head(st, t.id, 200, sse_head(), now).unwrap();
    m.handle_body(st, t.id, &event(t, task("submitted")), now)
        .unwrap();
}

#[test]
fn items_come_out_as_they_arrive_and_the_end_carries_the_answer() {
    let mut st = state(ClientConfig::default());
    let opts = CallOptions {
        rpc_id: Some(RpcId::Number(3)),
        ..CallOptions::default()
    };
    let mut m = StreamCall::new(&mut st, streaming("hi"), opts, config(0), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).expect("the request");
    assert_eq!(body_json(&t)["method"], "message/stream");
    assert_eq!(body_json(&t)["id"], 3);
    assert_eq!(m.poll_timeout(), Some(Millis(45_000)), "the head deadline");
    open_with_task(&mut m, &mut st, &t, Millis(100));
    let first = events(&mut m);
    assert_eq!(items(&first).len(), 1, "the task arrived before the end");
    assert_eq!(items(&first)[0].kind, StreamItemKind::Task);
    assert!(items(&first)[0].event.is_some(), "the model is attached");
    let done = event(&t, status("completed", true));
    // Split mid-event: nothing until the blank line.
    m.handle_body(&mut st, t.id, &done[..10], Millis(200))
        .unwrap();
    assert!(events(&mut m).is_empty());
    m.handle_body(&mut st, t.id, &done[10..], Millis(300))
        .unwrap();
    let evs = events(&mut m);
    assert!(
        matches!(evs[1], StreamEvent::Abort(id) if id == t.id),
        "{evs:?}"
    );
    let r = finished(&evs);
    assert_eq!(r.kind, Some(StreamEndKind::Completed));
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert_eq!(r.resubscribes, 0);
    assert_eq!(r.correlation.task_id.as_deref(), Some("t-1"));
    assert_eq!(r.correlation.jsonrpc_id.as_deref(), Some("3"));
    assert_eq!(r.correlation.attempts, 1);
    assert_eq!(r.correlation.elapsed, Millis(300));
    assert!(r.answer.is_some(), "the assembled task");
    assert_eq!(r.exit_code(), 0);
    assert!(m.poll_transmit(&mut st, Millis(300)).is_none());
    assert_eq!(m.poll_timeout(), None);
    assert_eq!(
        st.tally().count(
            "agent.example",
            "SendStreamingMessage",
            Channel::Task,
            "completed"
        ),
        1
    );
}

#[test]
fn a_drop_after_the_task_id_resubscribes_once_and_never_resends() {
    let mut st = state(ClientConfig::default());
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(2),
        Millis(0),
    );
    let t1 = m.poll_transmit(&mut st, Millis(0)).unwrap();
    open_with_task(&mut m, &mut st, &t1, Millis(10));
    m.handle_end(&mut st, t1.id, Millis(20)).unwrap();
    let evs = events(&mut m);
    let Some(StreamEvent::Resubscribing {
        task_id,
        attempt,
        outcome,
    }) = evs.last()
    else {
        panic!("expected Resubscribing, got {evs:?}")
    };
    assert_eq!((task_id.as_str(), *attempt), ("t-1", 1));
    assert_eq!(outcome.retry, RetryAdvice::Resubscribe);
    let t2 = m
        .poll_transmit(&mut st, Millis(20))
        .expect("the resubscribe");
    assert!(t2.id > t1.id);
    let b = body_json(&t2);
    assert_eq!(b["method"], "tasks/resubscribe");
    assert_eq!(b["params"]["id"], "t-1");
    assert!(b["params"].get("message").is_none(), "no message resent");
    assert_eq!(
        t2.request.header("traceparent"),
        t1.request.header("traceparent")
    );
    assert_eq!(
        m.handle_end(&mut st, t1.id, Millis(21)),
        Err(InputError::Stale)
    );
    m.handle_head(&mut st, t2.id, 200, sse_head(), Millis(30))
        .unwrap();
    m.handle_body(
        &mut st,
        t2.id,
        &event(&t2, status("completed", true)),
        Millis(40),
    )
    .unwrap();
    let r = finished(&events(&mut m));
    assert_eq!(r.kind, Some(StreamEndKind::Completed));
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert_eq!(r.resubscribes, 1);
    assert_eq!(r.correlation.attempts, 2);
    assert!(m.poll_transmit(&mut st, Millis(40)).is_none());
}

#[test]
fn an_idle_stream_is_aborted_and_resubscribed() {
    let mut st = state(ClientConfig::default());
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(1),
        Millis(0),
    );
    let t1 = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_head(&mut st, t1.id, 200, sse_head(), Millis(2_000))
        .unwrap();
    assert_eq!(
        m.poll_timeout(),
        Some(Millis(2_000).saturating_add(IDLE)),
        "the idle clock starts at the head"
    );
    m.handle_body(&mut st, t1.id, &event(&t1, task("working")), Millis(3_000))
        .unwrap();
    let at = m.poll_timeout().unwrap();
    assert_eq!(at, Millis(3_000).saturating_add(IDLE));
    m.handle_timeout(&mut st, at.saturating_sub(Millis(1)));
    assert_eq!(
        items(&events(&mut m)).len(),
        1,
        "early: nothing but the item"
    );
    m.handle_timeout(&mut st, at);
    let evs = events(&mut m);
    assert!(
        matches!(evs[0], StreamEvent::Abort(id) if id == t1.id),
        "{evs:?}"
    );
    assert!(
        matches!(&evs[1], StreamEvent::Resubscribing { task_id, .. } if task_id == "t-1"),
        "{evs:?}"
    );
    let t2 = m.poll_transmit(&mut st, at).expect("the resubscribe");
    assert_eq!(body_json(&t2)["method"], "tasks/resubscribe");
}

#[test]
fn keep_alive_comments_move_the_idle_deadline() {
    let mut st = state(ClientConfig::default());
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(0),
        Millis(0),
    );
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    open_with_task(&mut m, &mut st, &t, Millis(0));
    let mut now = Millis(0);
    for _ in 0..5 {
        now = now.saturating_add(Millis(9_000));
        m.handle_timeout(&mut st, now);
        m.handle_body(&mut st, t.id, b": ping\n\n", now).unwrap();
        assert_eq!(m.poll_timeout(), Some(now.saturating_add(IDLE)));
    }
    assert!(!m.is_finished(), "45 s of pings, never 10 s of silence");
    m.handle_timeout(&mut st, now.saturating_add(IDLE));
    let r = finished(&events(&mut m));
    assert_eq!(r.kind, Some(StreamEndKind::TimedOut));
    assert_eq!(
        r.outcome.retry,
        RetryAdvice::Resubscribe,
        "none allowed: advice"
    );
}

#[test]
fn a_resubscribe_whose_head_never_arrives_ends_with_the_task_and_resubscribe_advice() {
    let mut st = state(ClientConfig::default());
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(1),
        Millis(0),
    );
    let t1 = m.poll_transmit(&mut st, Millis(0)).unwrap();
    open_with_task(&mut m, &mut st, &t1, Millis(0));
    m.handle_end(&mut st, t1.id, Millis(5)).unwrap();
    let t2 = m.poll_transmit(&mut st, Millis(5)).expect("resubscribe");
    assert_eq!(t2.deadline, Millis(45_005));
    assert_eq!(m.poll_timeout(), Some(t2.deadline));
    m.handle_timeout(&mut st, t2.deadline);
    let evs = events(&mut m);
    assert!(
        evs.iter()
            .any(|e| matches!(e, StreamEvent::Abort(id) if *id == t2.id))
    );
    let r = finished(&evs);
    assert_eq!(r.kind, None);
    assert_eq!(r.outcome.channel, Channel::Transport);
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(r.outcome.task_id.as_deref(), Some("t-1"));
    assert_eq!(r.outcome.retry, RetryAdvice::Resubscribe);
    assert_eq!(r.resubscribes, 1);
}

#[test]
fn more_drops_than_allowed_end_truncated_with_resubscribe_advice() {
    let mut st = state(ClientConfig::default());
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(1),
        Millis(0),
    );
    let t1 = m.poll_transmit(&mut st, Millis(0)).unwrap();
    open_with_task(&mut m, &mut st, &t1, Millis(0));
    let cut = TransportFailure::new(ErrorName::Reset, true, "connection reset");
    m.handle_failure(&mut st, t1.id, cut.clone(), Millis(1))
        .unwrap();
    let t2 = m.poll_transmit(&mut st, Millis(1)).expect("resubscribe");
    m.handle_head(&mut st, t2.id, 200, sse_head(), Millis(2))
        .unwrap();
    m.handle_failure(&mut st, t2.id, cut, Millis(3)).unwrap();
    let r = finished(&events(&mut m));
    assert_eq!(r.kind, Some(StreamEndKind::Truncated));
    assert_eq!(r.outcome.channel, Channel::Transport);
    assert_eq!(r.outcome.task_id.as_deref(), Some("t-1"));
    assert_eq!(r.outcome.retry, RetryAdvice::Resubscribe);
    assert_eq!(r.resubscribes, 1);
    assert!(
        m.poll_transmit(&mut st, Millis(3)).is_none(),
        "two requests in all"
    );
}

#[test]
fn a_drop_before_any_task_id_is_the_transport_failure_not_a_resubscribe() {
    let mut st = state(ClientConfig::default());
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(3),
        Millis(0),
    );
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_head(&mut st, t.id, 200, sse_head(), Millis(1))
        .unwrap();
    let cut = TransportFailure::new(ErrorName::Reset, false, "connection reset");
    m.handle_failure(&mut st, t.id, cut, Millis(2)).unwrap();
    let r = finished(&events(&mut m));
    assert_eq!(r.kind, Some(StreamEndKind::Truncated));
    assert_eq!(r.outcome.error, Some(ErrorName::Reset));
    assert_eq!(
        r.outcome.request_sent,
        Some(crate::outcome::RequestSent::Unknown),
        "after a head the request was written"
    );
    assert_eq!(r.outcome.retry, RetryAdvice::UnknownOutcome);
    assert_eq!(r.resubscribes, 0);
}

#[test]
fn the_total_deadline_wins_over_the_idle_deadline_and_never_resubscribes() {
    let mut st = state(ClientConfig {
        max_time: Some(Millis(5_000)),
        ..ClientConfig::default()
    });
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(3),
        Millis(1_000),
    );
    assert_eq!(m.total_deadline(), Some(Millis(6_000)));
    let t = m.poll_transmit(&mut st, Millis(1_000)).unwrap();
    assert_eq!(t.deadline, Millis(6_000), "the head deadline is capped");
    open_with_task(&mut m, &mut st, &t, Millis(2_000));
    assert_eq!(m.poll_timeout(), Some(Millis(6_000)));
    m.handle_timeout(&mut st, Millis(6_000));
    let evs = events(&mut m);
    assert!(
        !evs.iter()
            .any(|e| matches!(e, StreamEvent::Resubscribing { .. }))
    );
    let r = finished(&evs);
    assert_eq!(r.kind, Some(StreamEndKind::TimedOut));
    assert!(
        r.outcome
            .message
            .as_deref()
            .is_some_and(|s| s.contains("total deadline")),
        "{:?}",
        r.outcome
    );
    assert_eq!(r.outcome.task_id.as_deref(), Some("t-1"));
    assert!(m.poll_transmit(&mut st, Millis(6_000)).is_none());
}

#[test]
fn bytes_handed_after_the_idle_deadline_count_but_not_after_the_total_one() {
    // A host whose caller was away past the idle deadline hands the bytes that waited:
    // they move the deadline on (the server was not idle). Past the total deadline, the
    // same input is late and ends the stream as timed out.
    let mut st = state(ClientConfig {
        max_time: Some(Millis(60_000)),
        ..ClientConfig::default()
    });
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(0),
        Millis(0),
    );
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    open_with_task(&mut m, &mut st, &t, Millis(0));
    events(&mut m);
    let idle_at = m.poll_timeout().unwrap();
    assert_eq!(idle_at, IDLE);
    let later = idle_at.saturating_add(Millis(5_000));
    m.handle_body(&mut st, t.id, &event(&t, task("working")), later)
        .unwrap();
    let evs = events(&mut m);
    assert_eq!(items(&evs).len(), 1, "{evs:?}");
    assert!(!m.is_finished());
    assert_eq!(m.poll_timeout(), Some(later.saturating_add(IDLE)));
    m.handle_body(&mut st, t.id, &event(&t, task("working")), Millis(60_000))
        .unwrap();
    let evs = events(&mut m);
    assert!(items(&evs).is_empty(), "{evs:?}");
    assert_eq!(finished(&evs).kind, Some(StreamEndKind::TimedOut));
}

#[test]
fn a_resubscribe_refused_as_task_not_found_reads_the_task_once() {
    let mut st = state(ClientConfig::default());
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(1),
        Millis(0),
    );
    let t1 = m.poll_transmit(&mut st, Millis(0)).unwrap();
    assert!(!m.is_fetching(), "a stream's request is read as a stream");
    open_with_task(&mut m, &mut st, &t1, Millis(0));
    assert_eq!(m.correlation().task_id.as_deref(), Some("t-1"));
    m.handle_end(&mut st, t1.id, Millis(1)).unwrap();
    let t2 = m.poll_transmit(&mut st, Millis(1)).unwrap();
    assert!(!m.is_fetching(), "a resubscribe is read as a stream");
    assert_eq!(m.correlation().attempts, 2);
    let refusal = json!({"jsonrpc": "2.0", "id": body_json(&t2)["id"],
        "error": {"code": -32001, "message": "Task not found"}});
    let json_head = vec![("Content-Type".to_owned(), "application/json".to_owned())];
    m.handle_head(&mut st, t2.id, 200, json_head.clone(), Millis(2))
        .unwrap();
    m.handle_body(&mut st, t2.id, refusal.to_string().as_bytes(), Millis(2))
        .unwrap();
    m.handle_end(&mut st, t2.id, Millis(2)).unwrap();
    assert!(!m.is_finished());
    let t3 = m.poll_transmit(&mut st, Millis(3)).expect("the get-task");
    assert!(m.is_fetching(), "the get-task is a plain call, read whole");
    assert!(t3.id > t2.id);
    assert_eq!(body_json(&t3)["method"], "tasks/get");
    assert_eq!(body_json(&t3)["params"]["id"], "t-1");
    let got = json!({"jsonrpc": "2.0", "id": body_json(&t3)["id"], "result": task("completed")});
    m.handle_head(&mut st, t3.id, 200, json_head, Millis(4))
        .unwrap();
    m.handle_body(&mut st, t3.id, got.to_string().as_bytes(), Millis(4))
        .unwrap();
    m.handle_end(&mut st, t3.id, Millis(5)).unwrap();
    let r = finished(&events(&mut m));
    assert!(r.fetched_by_get);
    assert_eq!(r.kind, Some(StreamEndKind::Completed));
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert!(r.task_body.is_some() && r.answer.is_some());
    assert_eq!(r.correlation.attempts, 3);
    assert!(!m.is_fetching());
    assert!(m.poll_transmit(&mut st, Millis(5)).is_none());
}

#[test]
fn a_non_streaming_method_is_refused_without_a_request() {
    let mut st = state(ClientConfig::default());
    let call = Call::CancelTask(TaskIdParams::new("t-1"));
    let mut m = StreamCall::new(&mut st, call, CallOptions::default(), config(0), Millis(0));
    assert!(m.is_finished());
    assert!(m.poll_transmit(&mut st, Millis(0)).is_none());
    let r = finished(&events(&mut m));
    assert_eq!(r.outcome.error, Some(ErrorName::InvalidRequest));
}

#[test]
fn an_up_front_error_body_is_not_a_stream() {
    let mut st = state(ClientConfig::default());
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(2),
        Millis(0),
    );
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    m.handle_head(&mut st, t.id, 503, vec![], Millis(1))
        .unwrap();
    m.handle_body(&mut st, t.id, b"busy", Millis(1)).unwrap();
    m.handle_end(&mut st, t.id, Millis(1)).unwrap();
    let r = finished(&events(&mut m));
    assert_eq!(r.kind, Some(StreamEndKind::NotAStream));
    assert_eq!(r.outcome.http_status, Some(503));
    assert_eq!(r.resubscribes, 0);
}

#[test]
fn an_event_over_the_size_limit_is_reported_counted_and_the_stream_goes_on() {
    let mut st = state(ClientConfig::default());
    let small = StreamConfig {
        max_event_bytes: 200,
        ..config(0)
    };
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        small,
        Millis(0),
    );
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    open_with_task(&mut m, &mut st, &t, Millis(0));
    let big = json!({"kind": "artifact-update", "taskId": "t-1", "contextId": "c-1",
        "artifact": {"artifactId": "a-1", "parts": [{"kind": "text", "text": "x".repeat(500)}]}});
    m.handle_body(&mut st, t.id, &event(&t, big), Millis(1))
        .unwrap();
    m.handle_body(
        &mut st,
        t.id,
        &event(&t, status("completed", true)),
        Millis(2),
    )
    .unwrap();
    let evs = events(&mut m);
    let kinds: Vec<StreamItemKind> = items(&evs).iter().map(|i| i.kind).collect();
    assert_eq!(
        kinds,
        [
            StreamItemKind::Task,
            StreamItemKind::Malformed,
            StreamItemKind::StatusUpdate
        ]
    );
    let r = finished(&evs);
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert_eq!((r.dropped_events, r.unreadable_events), (1, 0));
    assert_eq!(r.exit_code(), 3, "content was lost");
}

#[test]
fn a_canceled_stream_is_aborted_returns_its_breaker_permit_and_refuses_late_input() {
    let mut st = state(ClientConfig {
        breaker: Some(crate::resilience::BreakerConfig::default()),
        ..ClientConfig::default()
    });
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions::default(),
        config(2),
        Millis(0),
    );
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    open_with_task(&mut m, &mut st, &t, Millis(1));
    m.cancel(&mut st, Millis(2));
    let evs = events(&mut m);
    assert!(
        matches!(evs[1], StreamEvent::Abort(id) if id == t.id),
        "{evs:?}"
    );
    let r = finished(&evs);
    assert_eq!(r.outcome.error, Some(ErrorName::Reset));
    assert_eq!(r.outcome.task_id.as_deref(), Some("t-1"));
    assert_eq!(
        m.handle_body(&mut st, t.id, b": ping\n\n", Millis(3)),
        Err(InputError::Finished)
    );
    m.cancel(&mut st, Millis(4));
    assert!(events(&mut m).is_empty(), "one Finished only");
    assert_eq!(
        st.tally().count(
            "agent.example",
            "SendStreamingMessage",
            Channel::Transport,
            "Reset"
        ),
        1
    );
}

#[test]
fn a_head_that_never_comes_on_the_first_request_is_not_resubscribed() {
    let mut st = state(ClientConfig::default());
    let opts = CallOptions {
        budget: Some(Millis(2_000)),
        ..CallOptions::default()
    };
    let mut m = StreamCall::new(&mut st, streaming("hi"), opts, config(3), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).unwrap();
    assert_eq!(t.deadline, Millis(2_000), "the caller's budget is shorter");
    m.handle_head(&mut st, t.id, 200, sse_head(), Millis(2_000))
        .unwrap();
    let evs = events(&mut m);
    assert!(matches!(evs[0], StreamEvent::Abort(id) if id == t.id));
    let r = finished(&evs);
    assert_eq!(r.kind, None);
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(r.outcome.retry, RetryAdvice::UnknownOutcome, "never resend");
    assert_eq!(r.resubscribes, 0);
}

// ---- property tests -------------------------------------------------------------------

const OUTCOMES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/outcomes.json"
));
const SSE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../bindings/fixtures/sse.json"
));

/// One stream to feed: the interface, the call and its JSON-RPC id, the body, and what
/// the row expects of the outcome (outcomes.json) or how many items (sse.json: one per
/// event whose data is not all whitespace, which the tracker skips).
struct StreamCase {
    name: String,
    version: ProtocolVersion,
    binding: Binding,
    subscribe: bool,
    rpc_id: Option<RpcId>,
    body: Vec<u8>,
    expect: Option<Value>,
    items: Option<usize>,
}

fn stream_cases() -> Vec<StreamCase> {
    let mut cases = Vec::new();
    let table: Value = serde_json::from_str(OUTCOMES).expect("outcomes.json");
    for row in table["rows"].as_array().expect("rows") {
        let input = &row["input"];
        let ct = input["content_type"].as_str().unwrap_or("");
        let Some(body) = input["body"].as_str() else {
            continue;
        };
        if !ct.starts_with("text/event-stream") || input["status"] != 200 {
            continue;
        }
        let method = input["method"].as_str().unwrap_or("");
        let rpc_id = input["request_id"].as_str().map(|s| match s.parse() {
            Ok(n) => RpcId::Number(n),
            Err(_) => RpcId::String(s.to_owned()),
        });
        cases.push(StreamCase {
            name: row["id"].as_str().unwrap().to_owned(),
            version: ProtocolVersion::parse(input["version"].as_str().unwrap()).unwrap(),
            binding: Binding::parse(input["binding"].as_str().unwrap()).unwrap(),
            subscribe: method.contains("resubscribe") || method.contains("Subscribe"),
            rpc_id,
            body: body.as_bytes().to_vec(),
            expect: Some(row["expect"].clone()),
            items: None,
        });
    }
    let sse: Value = serde_json::from_str(SSE).expect("sse.json");
    for c in sse["cases"].as_array().expect("cases") {
        let (Some(input), Some(opts)) = (c["input"].as_str(), c["options"].as_object()) else {
            continue;
        };
        if !opts.is_empty() {
            continue;
        }
        let with_data = c["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["data"].as_str().is_some_and(|d| !d.trim().is_empty()))
            .count();
        cases.push(StreamCase {
            name: c["name"].as_str().unwrap().to_owned(),
            version: ProtocolVersion::V1_0,
            binding: Binding::JsonRpc,
            subscribe: false,
            rpc_id: Some(RpcId::Number(1)),
            body: input.as_bytes().to_vec(),
            expect: None,
            items: Some(with_data),
        });
    }
    cases
}

/// Feeds `case` cut at `cuts` (offsets, any order) and ends the body; the items and the
/// result.
fn feed(case: &StreamCase, cuts: &[usize]) -> (Vec<crate::stream::StreamItem>, StreamResult) {
    let target = Target::new(URL, case.version, case.binding);
    let mut st = ClientState::new(target, ClientConfig::default(), 3).unwrap();
    let call = if case.subscribe {
        Call::SubscribeToTask(TaskIdParams::new("t-sub"))
    } else {
        streaming("hi")
    };
    let opts = CallOptions {
        rpc_id: case.rpc_id.clone(),
        ..CallOptions::default()
    };
    let mut m = StreamCall::new(&mut st, call, opts, config(0), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).expect("a request");
    m.handle_head(&mut st, t.id, 200, sse_head(), Millis(0))
        .unwrap();
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (case.body.len() + 1)).collect();
    at.push(0);
    at.push(case.body.len());
    at.sort_unstable();
    at.dedup();
    for w in at.windows(2) {
        // The stream may be over before the body is (the rest is then stale).
        let _ = m.handle_body(&mut st, t.id, &case.body[w[0]..w[1]], Millis(1));
    }
    let _ = m.handle_end(&mut st, t.id, Millis(2));
    let evs = events(&mut m);
    let items = items(&evs).into_iter().cloned().collect();
    (items, finished(&evs))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any chunking of every shared stream gives the same items and the same end as the
    /// whole body; the end agrees with the outcome table, and the item count with the SSE
    /// fixtures.
    #[test]
    fn any_chunking_gives_the_same_items_and_end(cuts in prop::collection::vec(any::<usize>(), 0..12)) {
        let cases = stream_cases();
        prop_assert!(cases.len() >= 60, "{} cases", cases.len());
        for case in &cases {
            let (whole_items, whole) = feed(case, &[]);
            let (items, r) = feed(case, &cuts);
            prop_assert_eq!(&items, &whole_items, "{}", case.name);
            prop_assert_eq!(r.outcome.to_json(), whole.outcome.to_json(), "{}", case.name);
            prop_assert_eq!(r.kind, whole.kind, "{}", case.name);
            if let Some(expect) = &case.expect {
                let got: Value = serde_json::from_str(&r.outcome.to_json()).unwrap();
                for (k, v) in expect.as_object().unwrap() {
                    prop_assert_eq!(&got[k], v, "{}: {}", case.name, k);
                }
            }
            if let Some(n) = case.items {
                prop_assert_eq!(items.len(), n, "{}", case.name);
            }
        }
    }
}

/// One step a host may take, in any order (the machine must refuse what does not fit).
#[derive(Debug, Clone)]
enum Op {
    Transmit,
    /// 0: SSE head, 1: JSON TaskNotFound head, 2: 503.
    Head(u8),
    /// 0: the task, 1: working, 2: completed final, 3: a ping, 4: half an event.
    Body(u8),
    End,
    Fail,
    /// Time passes (ms), then `handle_timeout`.
    Tick(u16),
    /// Time jumps to the machine's next deadline, then `handle_timeout`.
    Wake,
    Cancel,
    /// A whole exchange on the current request: an event-stream head, the task, the end
    /// (a drop after the task id); or, for a `tasks/get`, the completed task.
    Drop,
    /// A whole exchange on the current request: a JSON `TaskNotFound` answer.
    Refuse,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Transmit),
        3 => (0u8..3).prop_map(Op::Head),
        5 => (0u8..5).prop_map(Op::Body),
        2 => Just(Op::End),
        1 => Just(Op::Fail),
        3 => any::<u16>().prop_map(Op::Tick),
        2 => Just(Op::Wake),
        1 => Just(Op::Cancel),
        2 => Just(Op::Drop),
        2 => Just(Op::Refuse),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any sequence of host steps keeps the contract: no panic; the message is sent once and
    /// only as the first request; every other request is a resubscribe to the same task
    /// (within the allowance) or one get-task; a deadline handed out is never in the past of
    /// the last input nor after the total deadline, and on one open stream never moves
    /// earlier; exactly one Finished, last; and a call left alone ends by its deadlines.
    #[test]
    fn any_host_sequence_keeps_the_stream_contract(
        ops in prop::collection::vec(op(), 0..48),
        allowed in 0u32..3,
        max_time in prop::option::of(1u64..200_000),
    ) {
        let mut st = state(ClientConfig { max_time: max_time.map(Millis), ..ClientConfig::default() });
        let start = Millis(1_000);
        let mut m = StreamCall::new(&mut st, streaming("hi"), CallOptions::default(), config(allowed), start);
        let total = m.total_deadline();
        let mut now = start;
        let mut sent: Vec<Transmit> = Vec::new();
        let mut finished = 0u32;
        let check = |m: &mut StreamCall, finished: &mut u32, now: Millis| -> Result<(), TestCaseError> {
            while let Some(e) = m.poll_event() {
                prop_assert_eq!(*finished, 0, "an event after Finished");
                if let StreamEvent::Finished(_) = e {
                    *finished += 1;
                }
            }
            if let Some(d) = m.poll_timeout() {
                prop_assert!(d > now, "deadline {:?} not after now {:?}", d, now);
                prop_assert!(total.is_none_or(|t| d <= t), "after the total deadline");
            }
            Ok(())
        };
        let mut idle_order: Option<(RequestId, Millis)> = None;
        let mut json_head = false;
        let body_of = |t: &Transmit, k: u8| -> Vec<u8> {
            match k {
                0 => event(t, task("working")),
                1 => event(t, status("working", false)),
                2 => event(t, status("completed", true)),
                3 => b": ping\n\n".to_vec(),
                _ => {
                    let e = event(t, task("working"));
                    e[..e.len() / 2].to_vec()
                }
            }
        };
        for op in ops {
            let current = sent.last().map(|t| t.id);
            let mut opened_stream = None;
            match op.clone() {
                Op::Transmit => {
                    if let Some(t) = m.poll_transmit(&mut st, now) {
                        prop_assert!(t.connect_by <= t.deadline);
                        prop_assert!(total.is_none_or(|x| t.deadline <= x));
                        sent.push(t);
                    }
                }
                Op::Head(k) => if let Some(id) = current {
                    let (status, ct) = match k {
                        0 => (200, "text/event-stream"),
                        1 => (200, "application/json"),
                        _ => (503, "text/plain"),
                    };
                    let h = vec![("Content-Type".to_owned(), ct.to_owned())];
                    if m.handle_head(&mut st, id, status, h, now).is_ok() {
                        json_head = k == 1;
                        if k == 0 {
                            opened_stream = Some(id);
                        }
                    }
                },
                Op::Body(k) => if let Some(t) = sent.last() {
                    let req = body_json(t);
                    let b = if req["method"] == "tasks/get" {
                        json!({"jsonrpc": "2.0", "id": req["id"], "result": task("completed")})
                            .to_string()
                            .into_bytes()
                    } else if json_head {
                        // A refused resubscribe (or send): the get-task fallback's trigger.
                        json!({"jsonrpc": "2.0", "id": req["id"],
                            "error": {"code": -32001, "message": "Task not found"}})
                        .to_string()
                        .into_bytes()
                    } else {
                        body_of(t, k)
                    };
                    let _ = m.handle_body(&mut st, t.id, &b, now);
                },
                Op::End => if let Some(id) = current {
                    let _ = m.handle_end(&mut st, id, now);
                },
                Op::Fail => if let Some(id) = current {
                    let f = TransportFailure::new(ErrorName::Reset, true, "reset");
                    let _ = m.handle_failure(&mut st, id, f, now);
                },
                Op::Tick(ms) => {
                    now = now.saturating_add(Millis(u64::from(ms)));
                    m.handle_timeout(&mut st, now);
                }
                Op::Wake => if let Some(at) = m.poll_timeout() {
                    now = now.max(at);
                    m.handle_timeout(&mut st, now);
                },
                Op::Cancel => m.cancel(&mut st, now),
                Op::Drop | Op::Refuse => if let Some(t) = sent.last() {
                    let req = body_json(t);
                    let (ct, b) = if req["method"] == "tasks/get" {
                        ("application/json", json!({"jsonrpc": "2.0", "id": req["id"],
                            "result": task("completed")}).to_string().into_bytes())
                    } else if matches!(op, Op::Drop) {
                        ("text/event-stream", event(t, task("working")))
                    } else {
                        ("application/json", json!({"jsonrpc": "2.0", "id": req["id"],
                            "error": {"code": -32001, "message": "Task not found"}})
                        .to_string().into_bytes())
                    };
                    let h = vec![("Content-Type".to_owned(), ct.to_owned())];
                    if m.handle_head(&mut st, t.id, 200, h, now).is_ok() {
                        let _ = m.handle_body(&mut st, t.id, &b, now);
                        let _ = m.handle_end(&mut st, t.id, now);
                    }
                },
            }
            // On one open stream the idle deadline never moves earlier.
            match (opened_stream, m.poll_timeout(), sent.last()) {
                (Some(id), Some(d), _) => idle_order = Some((id, d)),
                (None, Some(d), Some(cur)) => {
                    if let Some((id, prev)) = idle_order
                        && id == cur.id
                    {
                        prop_assert!(d >= prev, "idle deadline went back: {:?} < {:?}", d, prev);
                        idle_order = Some((id, d));
                    }
                }
                _ => {}
            }
            check(&mut m, &mut finished, now)?;
        }
        // Left alone, the call ends by its own deadlines.
        for _ in 0..(allowed + 3) * 3 {
            if m.is_finished() {
                break;
            }
            if let Some(t) = m.poll_transmit(&mut st, now) {
                sent.push(t);
            }
            if let Some(at) = m.poll_timeout() {
                now = now.max(at);
            }
            m.handle_timeout(&mut st, now);
            check(&mut m, &mut finished, now)?;
        }
        check(&mut m, &mut finished, now)?;
        prop_assert!(m.is_finished(), "the call did not end");
        prop_assert_eq!(finished, 1);
        prop_assert!(m.poll_transmit(&mut st, now).is_none());
        prop_assert_eq!(m.poll_timeout(), None);
        // The message went out once, first; the rest resubscribe to the one task, or get it.
        let methods: Vec<Value> = sent.iter().map(|t| body_json(t)["method"].clone()).collect();
        prop_assert!(methods.first().is_none_or(|m| m == "message/stream"));
        prop_assert_eq!(methods.iter().filter(|m| *m == "message/stream").count(), sent.len().min(1));
        let resubs = methods.iter().filter(|m| *m == "tasks/resubscribe").count() as u32;
        prop_assert!(resubs <= allowed, "{} resubscribes, {} allowed", resubs, allowed);
        prop_assert!(methods.iter().filter(|m| *m == "tasks/get").count() <= 1);
        for t in sent.iter().skip(1) {
            prop_assert_eq!(&body_json(t)["params"]["id"], "t-1");
        }
    }
}

#[test]
fn a_resubscribe_carries_the_affinity_cookie_the_stream_was_given() {
    let mut st = state(ClientConfig::default());
    let mut m = StreamCall::new(
        &mut st,
        streaming("hi"),
        CallOptions {
            headers: vec![("Cookie".to_owned(), "session=s1".to_owned())],
            ..CallOptions::default()
        },
        config(2),
        Millis(0),
    );
    let t1 = m.poll_transmit(&mut st, Millis(0)).unwrap();
    assert_eq!(t1.request.header("cookie"), Some("session=s1"));
    let mut head = sse_head();
    head.push((
        "Set-Cookie".to_owned(),
        "AWSALB=replica-3; Path=/; Secure; HttpOnly".to_owned(),
    ));
    m.handle_head(&mut st, t1.id, 200, head, Millis(10))
        .unwrap();
    m.handle_body(&mut st, t1.id, &event(&t1, task("submitted")), Millis(10))
        .unwrap();
    m.handle_end(&mut st, t1.id, Millis(20)).unwrap();
    let _ = events(&mut m);
    let t2 = m
        .poll_transmit(&mut st, Millis(20))
        .expect("the resubscribe");
    assert_eq!(body_json(&t2)["method"], "tasks/resubscribe");
    assert_eq!(
        t2.request.header("cookie"),
        Some("session=s1; AWSALB=replica-3"),
        "the caller's cookie, then the replica's"
    );
}

/// What follows the event that ends the interaction is never read, whether it arrives in
/// the same chunk or a later one: the same items, the same counts, the same result (found
/// by the `ffi_feed` fuzz target, where a chunk with an error event and an unreadable one
/// after it counted one more unreadable event when fed whole).
#[test]
fn events_after_the_end_in_the_same_chunk_are_not_read() {
    let run = |split: bool| {
        let mut st = state(ClientConfig::default());
        let mut m = StreamCall::new(
            &mut st,
            streaming("hi"),
            CallOptions::default(),
            config(0),
            Millis(0),
        );
        let t = m.poll_transmit(&mut st, Millis(0)).expect("the request");
        m.handle_head(&mut st, t.id, 200, sse_head(), Millis(1))
            .unwrap();
        let mut body = event(&t, task("working"));
        let end = event(&t, status("completed", true));
        let after = b"data: {not json}\n\n".to_vec();
        let mut evs = Vec::new();
        if split {
            body.extend_from_slice(&end);
            m.handle_body(&mut st, t.id, &body, Millis(2)).unwrap();
            evs.extend(events(&mut m));
            assert!(
                m.handle_body(&mut st, t.id, &after, Millis(3)).is_err(),
                "a finished call refuses more input"
            );
        } else {
            body.extend_from_slice(&end);
            body.extend_from_slice(&after);
            m.handle_body(&mut st, t.id, &body, Millis(2)).unwrap();
        }
        evs.extend(events(&mut m));
        let kinds: Vec<StreamItemKind> = items(&evs).iter().map(|i| i.kind).collect();
        let r = finished(&evs);
        (kinds, r.unreadable_events, r.kind, r.exit_code())
    };
    let whole = run(false);
    assert_eq!(
        whole.0,
        vec![StreamItemKind::Task, StreamItemKind::StatusUpdate]
    );
    assert_eq!(whole.1, 0, "the event after the end is not counted");
    assert_eq!(whole.2, Some(StreamEndKind::Completed));
    assert_eq!(whole, run(true));
}

/// A stream machine whose request's answer head says `text/event-stream` and
/// `Content-Encoding: <encoding>`.
fn stream_labelled(encoding: &str) -> (ClientState, StreamCall, Transmit) {
    let mut st = state(ClientConfig::default());
    let opts = CallOptions::default();
    let mut m = StreamCall::new(&mut st, streaming("hi"), opts, config(0), Millis(0));
    let t = m.poll_transmit(&mut st, Millis(0)).expect("the request");
    let mut head = sse_head();
    head.push(("Content-Encoding".to_owned(), encoding.to_owned()));
    m.handle_head(&mut st, t.id, 200, head, Millis(1)).unwrap();
    (st, m, t)
}

/// A body declared `Content-Encoding: gzip` that arrives still compressed (a host that did
/// not decode it) ends the call as malformed, with no item, in whatever split its first two
/// bytes come; the compressed stream is a gzip of stored deflate blocks, whose events' text
/// shows between the headers and would otherwise be read with the first event lost.
#[test]
fn a_stream_still_gzip_compressed_is_refused_not_read_as_events() {
    for split in [1, 2, 5] {
        let (mut st, mut m, t) = stream_labelled("gzip");
        let mut body = vec![
            0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff, 0x01, 0xff, 0x00, 0x00, 0xff,
        ];
        body.extend(event(&t, task("submitted")));
        body.extend(event(&t, status("completed", true)));
        m.handle_body(&mut st, t.id, &body[..split], Millis(2))
            .unwrap();
        // Refused at the magic number: what follows finds the call finished.
        let rest = m.handle_body(&mut st, t.id, &body[split..], Millis(3));
        assert!(
            rest.is_ok() || matches!(rest, Err(crate::client::InputError::Finished)),
            "{rest:?}"
        );
        let evs = events(&mut m);
        assert!(
            items(&evs).is_empty(),
            "split {split}: no event read from compressed bytes"
        );
        assert!(
            evs.iter()
                .any(|e| matches!(e, StreamEvent::Abort(id) if *id == t.id))
        );
        let r = finished(&evs);
        assert_eq!(
            r.outcome.channel,
            Channel::Malformed,
            "split {split}: {:?}",
            r.outcome
        );
        assert!(r.outcome.message.as_deref().unwrap_or("").contains("gzip"));
    }
}

/// A host that decoded the body but kept the `Content-Encoding: gzip` header (httpx does)
/// is read as usual.
#[test]
fn a_decoded_stream_whose_head_still_says_gzip_is_read() {
    let (mut st, mut m, t) = stream_labelled(" GZIP ");
    let mut body = event(&t, task("submitted"));
    body.extend(event(&t, status("completed", true)));
    m.handle_body(&mut st, t.id, &body[..1], Millis(2)).unwrap();
    m.handle_body(&mut st, t.id, &body[1..], Millis(3)).unwrap();
    let evs = events(&mut m);
    assert_eq!(items(&evs).len(), 2);
    assert_eq!(finished(&evs).outcome.state, Some(TaskState::Completed));
}
