//! The client machine through its C functions, driven by an in-memory agent: a send, a
//! stream split at every byte, a timeout, a retry, a cancel, a card fetch, misuse.

mod common;

use common::{headers, machine_config, set_interface, view_string};
use std::ptr::{null, null_mut};

use a2a_core::header::a2a_header;
use a2a_core::machine::*;
use a2a_core::machine_config::*;
use a2a_core::outcome::{a2a_outcome_get_info, a2a_outcome_info};
use a2a_core::result::a2a_result;
use a2a_core::stream::a2a_stream_item_kind;
use a2a_core::view::a2a_bytes;
use a2a_core::vocab::{a2a_binding, a2a_protocol_version};

fn b(v: a2a_bytes) -> Vec<u8> {
    if v.ptr.is_null() {
        return Vec::new();
    }
    unsafe { std::slice::from_raw_parts(v.ptr, v.len) }.to_vec()
}

/// A request copied out of a transmit.
struct Req {
    id: u32,
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: serde_json::Value,
    deadline: u64,
}

/// A 0.3 JSON-RPC client state for an in-memory agent.
fn state(f: impl FnOnce(*mut a2a_client_config_builder)) -> *mut a2a_client_state {
    let cfg = machine_config(f);
    let url = "http://agent.test/a2a";
    let mut st = null_mut();
    assert_eq!(
        a2a_client_state_new(cfg, url.as_ptr().cast(), url.len(), 1, 1, 7, &mut st),
        a2a_result::A2A_OK
    );
    a2a_machine_config_free(cfg);
    st
}

fn transmit(call: *mut a2a_call, now: u64) -> Option<Req> {
    let mut t = std::mem::MaybeUninit::<a2a_transmit>::uninit();
    match a2a_call_poll_transmit(call, now, t.as_mut_ptr()) {
        a2a_result::A2A_NONE => None,
        a2a_result::A2A_OK => {
            let t = unsafe { t.assume_init() };
            let hs = unsafe { std::slice::from_raw_parts(t.headers, t.headers_len) };
            let headers = hs
                .iter()
                .map(|h| {
                    let n = unsafe { std::slice::from_raw_parts(h.name.cast::<u8>(), h.name_len) };
                    let v =
                        unsafe { std::slice::from_raw_parts(h.value.cast::<u8>(), h.value_len) };
                    (
                        String::from_utf8(n.to_vec()).unwrap(),
                        String::from_utf8(v.to_vec()).unwrap(),
                    )
                })
                .collect();
            let body = b(t.body);
            Some(Req {
                id: t.request_id,
                method: view_string(t.method).unwrap(),
                url: view_string(t.url).unwrap(),
                headers,
                body: if body.is_empty() {
                    serde_json::Value::Null
                } else {
                    serde_json::from_slice(&body).unwrap()
                },
                deadline: t.deadline_ms,
            })
        }
        other => panic!("poll_transmit: {other:?}"),
    }
}

fn head(call: *mut a2a_call, id: u32, status: u16, content_type: &str, now: u64) -> a2a_result {
    let (n, v) = ("Content-Type", content_type);
    let h = a2a_header {
        name: n.as_ptr().cast(),
        name_len: n.len(),
        value: v.as_ptr().cast(),
        value_len: v.len(),
    };
    a2a_call_handle_head(call, id, status, &h, 1, now)
}

/// Every event until none is left, each visited before the next poll (its views die then).
fn each_event(call: *mut a2a_call, mut f: impl FnMut(&a2a_event)) -> usize {
    for n in 0..1000 {
        let mut e = std::mem::MaybeUninit::<a2a_event>::uninit();
        match a2a_call_poll_event(call, e.as_mut_ptr()) {
            a2a_result::A2A_NONE => return n,
            a2a_result::A2A_OK => f(&unsafe { e.assume_init() }),
            other => panic!("poll_event: {other:?}"),
        }
    }
    panic!("unbounded events")
}

/// Every event until none is left; only the last one's views stay valid (a poll that
/// finds nothing changes nothing).
fn events(call: *mut a2a_call) -> Vec<a2a_event> {
    let mut out = Vec::new();
    each_event(call, |e| out.push(*e));
    out
}

fn info(e: &a2a_event) -> a2a_outcome_info {
    let mut i = std::mem::MaybeUninit::<a2a_outcome_info>::uninit();
    assert_eq!(
        a2a_outcome_get_info(e.outcome, i.as_mut_ptr()),
        a2a_result::A2A_OK
    );
    unsafe { i.assume_init() }
}

fn task_reply(id: &serde_json::Value, state: &str, text: &str) -> Vec<u8> {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {
        "kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": state},
        "artifacts": [{"artifactId": "a-1", "parts": [{"kind": "text", "text": text}]}]}})
    .to_string()
    .into_bytes()
}

fn send_text(st: *mut a2a_client_state, streaming: bool, text: &str) -> *mut a2a_call {
    send_text_key(st, streaming, text, "")
}

fn send_text_key(
    st: *mut a2a_client_state,
    streaming: bool,
    text: &str,
    key: &str,
) -> *mut a2a_call {
    let settings = a2a_call_settings_new();
    assert_eq!(
        a2a_call_settings_set_text(
            settings,
            a2a_call_text_option::IdempotencyKey as u32,
            key.as_ptr().cast(),
            key.len()
        ),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_call_settings_set_text(
            settings,
            a2a_call_text_option::MessageId as u32,
            b"m-1".as_ptr().cast(),
            3
        ),
        a2a_result::A2A_OK
    );
    let mut call = null_mut();
    assert_eq!(
        a2a_call_new_text(
            st,
            streaming,
            text.as_ptr().cast(),
            text.len(),
            settings,
            1000,
            &mut call
        ),
        a2a_result::A2A_OK
    );
    a2a_call_settings_free(settings);
    call
}

#[test]
fn a_send_answers_with_the_task_text_and_correlation() {
    let st = state(|_| {});
    let call = send_text(st, false, "hello");
    a2a_client_state_free(st); // the call keeps the state alive
    let r = transmit(call, 1000).expect("a request");
    assert_eq!(r.method, "POST");
    assert_eq!(r.url, "http://agent.test/a2a");
    assert_eq!(r.body["method"], "message/send");
    assert_eq!(r.body["params"]["message"]["messageId"], "m-1");
    assert!(
        r.headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("traceparent"))
    );
    assert_eq!(r.deadline, 1000 + 45_000);
    assert!(transmit(call, 1000).is_none(), "one request at a time");
    assert_eq!(
        head(call, r.id, 200, "application/json", 1010),
        a2a_result::A2A_OK
    );
    for chunk in task_reply(&r.body["id"], "completed", "hi there").chunks(7) {
        assert_eq!(
            a2a_call_handle_body(call, r.id, chunk.as_ptr(), chunk.len(), 1011),
            a2a_result::A2A_OK
        );
    }
    assert_eq!(a2a_call_handle_end(call, r.id, 1020), a2a_result::A2A_OK);
    let ev = events(call);
    assert_eq!(ev.len(), 1);
    let e = &ev[0];
    assert_eq!(e.kind, a2a_event_kind::Finished);
    assert_eq!(e.exit_code, 0);
    let answer: serde_json::Value =
        serde_json::from_str(&view_string(e.answer_json).unwrap()).unwrap();
    assert_eq!(answer["text"], "hi there");
    assert_eq!(view_string(e.answer_text).as_deref(), Some("hi there"));
    assert_eq!(view_string(info(e).result_json), view_string(e.answer_json));
    assert_eq!(
        view_string(e.correlation.message_id).as_deref(),
        Some("m-1")
    );
    assert_eq!(view_string(e.correlation.task_id).as_deref(), Some("t-1"));
    assert_eq!(e.correlation.attempts, 1);
    assert!(e.has_response);
    assert_eq!(e.response_status, 200);
    // Use after finish: refused, nothing changes.
    assert_eq!(
        a2a_call_handle_end(call, r.id, 1030),
        a2a_result::A2A_CALL_FINISHED
    );
    assert!(events(call).is_empty());
    let mut t = 0;
    assert!(!a2a_call_poll_timeout(call, &mut t));
    a2a_call_free(call);
}

fn sse(id: &serde_json::Value, results: &[serde_json::Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in results {
        let ev = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": r});
        out.extend_from_slice(format!("data: {ev}\n\n").as_bytes());
    }
    out
}

fn stream_events(id: &serde_json::Value) -> Vec<u8> {
    sse(
        id,
        &[
            serde_json::json!({"kind": "status-update", "taskId": "t-1", "contextId": "c-1",
                "status": {"state": "working"}, "final": false}),
            serde_json::json!({"kind": "artifact-update", "taskId": "t-1", "contextId": "c-1",
                "artifact": {"artifactId": "a-1", "parts": [{"kind": "text", "text": "hel"}]}}),
            serde_json::json!({"kind": "artifact-update", "taskId": "t-1", "contextId": "c-1", "append": true,
                "lastChunk": true, "artifact": {"artifactId": "a-1", "parts": [{"kind": "text", "text": "lo"}]}}),
            serde_json::json!({"kind": "status-update", "taskId": "t-1", "contextId": "c-1",
                "status": {"state": "completed"}, "final": true}),
        ],
    )
}

#[test]
fn a_stream_split_at_every_byte_gives_each_item_and_the_assembled_answer() {
    let st = state(|_| {});
    let call = send_text(st, true, "stream please");
    let r = transmit(call, 1000).unwrap();
    assert_eq!(r.body["method"], "message/stream");
    assert_eq!(
        head(call, r.id, 200, "text/event-stream", 1001),
        a2a_result::A2A_OK
    );
    let body = stream_events(&r.body["id"]);
    let mut items = Vec::new();
    let mut finished = None;
    for (i, byte) in body.iter().enumerate() {
        let rc = a2a_call_handle_body(call, r.id, byte, 1, 1002 + i as u64);
        if finished.is_some() {
            assert_eq!(rc, a2a_result::A2A_CALL_FINISHED);
            continue;
        }
        assert_eq!(rc, a2a_result::A2A_OK, "byte {i}");
        each_event(call, |e| match e.kind {
            a2a_event_kind::Item => items.push((e.item.kind, view_string(e.answer_json))),
            a2a_event_kind::Finished => {
                finished = Some((
                    e.exit_code,
                    view_string(e.answer_json),
                    e.has_end_kind,
                    e.end_kind,
                ))
            }
            a2a_event_kind::Abort => assert_eq!(e.request_id, r.id),
            k => panic!("unexpected {k:?}"),
        });
    }
    assert_eq!(items.len(), 4);
    assert_eq!(items[0].0, a2a_stream_item_kind::StatusUpdate);
    assert_eq!(items[1].0, a2a_stream_item_kind::ArtifactUpdate);
    assert!(items[1].1.as_deref().unwrap().contains("\"hel\""));
    let (code, answer, has_end, _) = finished.expect("finished");
    assert_eq!(code, 0);
    assert!(has_end);
    let answer: serde_json::Value = serde_json::from_str(&answer.unwrap()).unwrap();
    // The appended chunk's part joins the artifact's parts (text parts join with "\n").
    assert_eq!(answer["text"], "hel\nlo");
    a2a_call_free(call);
    a2a_client_state_free(st);
}

#[test]
fn a_silent_agent_times_out_at_the_deadline_handed_out() {
    let st = state(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::CallTimeoutMs as u32, 500),
            a2a_result::A2A_OK
        );
    });
    let call = send_text(st, false, "hello");
    let r = transmit(call, 1000).unwrap();
    let mut at = 0;
    assert!(a2a_call_poll_timeout(call, &mut at));
    assert_eq!(at, 1500);
    assert_eq!(a2a_call_handle_timeout(call, 1499), a2a_result::A2A_OK);
    assert!(events(call).is_empty(), "not yet");
    assert_eq!(a2a_call_handle_timeout(call, at), a2a_result::A2A_OK);
    let ev = events(call);
    assert_eq!(ev[0].kind, a2a_event_kind::Abort);
    assert_eq!(ev[0].request_id, r.id);
    let fin = ev.last().unwrap();
    assert_eq!(fin.kind, a2a_event_kind::Finished);
    assert_eq!(fin.exit_code, 3);
    assert_eq!(info(fin).error_name, 203, "timeout");
    // A late head about the abandoned request is refused.
    assert_eq!(
        head(call, r.id, 200, "application/json", 1600),
        a2a_result::A2A_CALL_FINISHED
    );
    a2a_call_free(call);
    a2a_client_state_free(st);
}

#[test]
fn a_503_is_retried_with_the_same_message_id_after_the_delay() {
    let st = state(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::SendRetries as u32, 1),
            a2a_result::A2A_OK
        );
    });
    // A 503 may have run the request: it is resent only with an idempotency key.
    let call = send_text_key(st, false, "hello", "key-1");
    let first = transmit(call, 1000).unwrap();
    assert_eq!(
        head(call, first.id, 503, "text/plain", 1001),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_call_handle_end(call, first.id, 1002),
        a2a_result::A2A_OK
    );
    let ev = events(call);
    assert_eq!(ev.len(), 1);
    assert_eq!(ev[0].kind, a2a_event_kind::Retrying);
    assert_eq!(ev[0].attempt, 2);
    assert_eq!(info(&ev[0]).http_status, 503);
    assert!(transmit(call, 1002).is_none(), "not before the delay");
    let mut at = 0;
    assert!(a2a_call_poll_timeout(call, &mut at));
    assert!(at > 1002);
    assert_eq!(a2a_call_handle_timeout(call, at), a2a_result::A2A_OK);
    let second = transmit(call, at).expect("the retry");
    assert_eq!(second.id, 2);
    assert_eq!(second.body["params"]["message"]["messageId"], "m-1");
    assert_ne!(second.body["id"], first.body["id"]);
    // The first request is stale now.
    assert_eq!(
        head(call, first.id, 200, "application/json", at),
        a2a_result::A2A_CALL_STALE
    );
    assert_eq!(
        head(call, second.id, 200, "application/json", at),
        a2a_result::A2A_OK
    );
    let body = task_reply(&second.body["id"], "completed", "ok");
    assert_eq!(
        a2a_call_handle_body(call, second.id, body.as_ptr(), body.len(), at),
        a2a_result::A2A_OK
    );
    assert_eq!(a2a_call_handle_end(call, second.id, at), a2a_result::A2A_OK);
    let ev = events(call);
    let fin = ev.last().unwrap();
    assert_eq!(fin.kind, a2a_event_kind::Finished);
    assert_eq!(fin.exit_code, 0);
    assert_eq!(fin.correlation.attempts, 2);
    a2a_call_free(call);
    a2a_client_state_free(st);
}

#[test]
fn cancel_aborts_the_request_and_finishes() {
    let st = state(|_| {});
    let call = send_text(st, true, "hello");
    let r = transmit(call, 1000).unwrap();
    assert_eq!(a2a_call_cancel(call, 1001), a2a_result::A2A_OK);
    let ev = events(call);
    assert_eq!(ev[0].kind, a2a_event_kind::Abort);
    assert_eq!(ev[0].request_id, r.id);
    assert_eq!(ev.last().unwrap().kind, a2a_event_kind::Finished);
    assert_ne!(ev.last().unwrap().exit_code, 0);
    assert_eq!(a2a_call_cancel(call, 1002), a2a_result::A2A_OK);
    assert!(events(call).is_empty());
    a2a_call_free(call);
    a2a_client_state_free(st);
}

#[test]
fn a_card_fetch_resolves_into_a_client_state() {
    let cfg = machine_config(|_| {});
    let url = "http://agent.test/";
    let mut fetch = null_mut();
    assert_eq!(
        a2a_call_new_card_fetch(cfg, url.as_ptr().cast(), url.len(), &mut fetch),
        a2a_result::A2A_OK
    );
    let mut st = null_mut();
    assert_eq!(
        a2a_client_state_from_card(cfg, fetch, 1, &mut st),
        a2a_result::A2A_CALL_WRONG_KIND
    );
    let r = transmit(fetch, 0).unwrap();
    assert_eq!(r.method, "GET");
    assert_eq!(r.url, "http://agent.test/.well-known/agent-card.json");
    let card = serde_json::json!({"name": "echo", "description": "d", "version": "1",
        "protocolVersion": "0.3.0", "url": "http://agent.test/a2a", "preferredTransport": "JSONRPC",
        "capabilities": {"streaming": true}, "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
        "skills": []})
    .to_string();
    assert_eq!(
        head(fetch, r.id, 200, "application/json", 1),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_call_handle_body(fetch, r.id, card.as_ptr(), card.len(), 1),
        a2a_result::A2A_OK
    );
    assert_eq!(a2a_call_handle_end(fetch, r.id, 2), a2a_result::A2A_OK);
    let ev = events(fetch);
    let fin = ev.last().unwrap();
    assert_eq!(fin.kind, a2a_event_kind::Finished);
    assert!(fin.outcome.is_null());
    assert_eq!(fin.exit_code, 0);
    assert_eq!(
        view_string(fin.interface_url).as_deref(),
        Some("http://agent.test/a2a")
    );
    assert_eq!(
        a2a_client_state_from_card(cfg, fetch, 1, &mut st),
        a2a_result::A2A_OK
    );
    a2a_call_free(fetch);
    let call = send_text(st, false, "hi");
    let r = transmit(call, 1000).unwrap();
    assert_eq!(r.url, "http://agent.test/a2a");
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_machine_config_free(cfg);
}

/// Resolves `card` through a card fetch with `cfg`: the finished event's interface URL and
/// exit code.
fn resolve(cfg: *mut a2a_machine_config, card: &serde_json::Value) -> (Option<String>, i32) {
    let url = "http://agent.test/";
    let mut fetch = null_mut();
    assert_eq!(
        a2a_call_new_card_fetch(cfg, url.as_ptr().cast(), url.len(), &mut fetch),
        a2a_result::A2A_OK
    );
    let r = transmit(fetch, 0).unwrap();
    let body = card.to_string();
    assert_eq!(
        head(fetch, r.id, 200, "application/json", 1),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_call_handle_body(fetch, r.id, body.as_ptr(), body.len(), 1),
        a2a_result::A2A_OK
    );
    assert_eq!(a2a_call_handle_end(fetch, r.id, 2), a2a_result::A2A_OK);
    let ev = events(fetch);
    let fin = ev.last().unwrap();
    assert_eq!(fin.kind, a2a_event_kind::Finished);
    let got = (view_string(fin.interface_url), fin.exit_code);
    a2a_call_free(fetch);
    got
}

#[test]
fn the_interface_setter_insists_on_a_version_and_binding() {
    // 1.0 over JSON-RPC and HTTP+JSON, 0.3 over JSON-RPC (the 0.3 fields), card order 0.3 first.
    let card = serde_json::json!({"name": "echo", "description": "d", "version": "1",
        "protocolVersion": "0.3.0", "url": "http://agent.test/v03", "preferredTransport": "JSONRPC",
        "supportedInterfaces": [
            {"url": "http://agent.test/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": "http://agent.test/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://agent.test/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true}, "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"], "skills": []});
    let v03 = a2a_protocol_version::V0_3 as u32;
    let http_json = a2a_binding::HttpJson as u32;
    for (version, binding, want) in [
        (0, 0, "http://agent.test/v1"),
        (v03, 0, "http://agent.test/v03"),
        (0, http_json, "http://agent.test/rest"),
    ] {
        let cfg = machine_config(|b| {
            assert_eq!(set_interface(b, version, binding), a2a_result::A2A_OK);
        });
        assert_eq!(
            resolve(cfg, &card),
            (Some(want.to_owned()), 0),
            "{version} {binding}"
        );
        a2a_machine_config_free(cfg);
    }
    // Nothing offered matches: refused, with the fetch's outcome saying why.
    let cfg = machine_config(|b| {
        assert_eq!(set_interface(b, v03, http_json), a2a_result::A2A_OK);
    });
    let (url, code) = resolve(cfg, &card);
    assert_eq!(url, None);
    assert_ne!(code, 0);
    a2a_machine_config_free(cfg);
    // Neither 0 nor a member.
    let b = a2a_client_config_builder_new();
    assert_eq!(set_interface(b, 9, 0), a2a_result::A2A_INVALID_ARGUMENT);
    assert_eq!(set_interface(b, 0, 9), a2a_result::A2A_INVALID_ARGUMENT);
    assert_eq!(
        set_interface(null_mut(), 0, 0),
        a2a_result::A2A_NULL_PARAMETER
    );
    a2a_client_config_builder_free(b);
}

#[test]
fn misuse_is_refused() {
    assert!(a2a_call_poll_event(null_mut(), null_mut()) == a2a_result::A2A_NULL_PARAMETER);
    assert_eq!(
        a2a_call_handle_timeout(null_mut(), 0),
        a2a_result::A2A_NULL_PARAMETER
    );
    let mut out = null_mut();
    assert_eq!(
        a2a_call_new_text(null(), false, null(), 0, null(), 0, &mut out),
        a2a_result::A2A_NULL_PARAMETER
    );
    let st = state(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::CallTimeoutMs as u32, 0),
            a2a_result::A2A_INVALID_ARGUMENT
        );
    });
    assert_eq!(
        a2a_call_new(st, 999, null(), 0, null(), 0, &mut out),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert_eq!(
        a2a_call_new(st, 3, b"{not json".as_ptr(), 9, null(), 0, &mut out),
        a2a_result::A2A_REQUEST_PARAMS
    );
    let call = send_text(st, false, "hello");
    // Inputs before any transmit: no such request.
    assert_eq!(a2a_call_handle_end(call, 1, 0), a2a_result::A2A_CALL_STALE);
    let r = transmit(call, 1000).unwrap();
    assert_eq!(
        a2a_call_handle_body(call, r.id, b"x".as_ptr(), 1, 1001),
        a2a_result::A2A_CALL_NO_HEAD
    );
    assert_eq!(
        a2a_call_handle_body(call, r.id, null(), 1, 1001),
        a2a_result::A2A_NULL_PARAMETER
    );
    assert_eq!(
        head(call, r.id, 99, "text/plain", 1001),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert_eq!(
        head(call, r.id, 200, "application/json", 1001),
        a2a_result::A2A_OK
    );
    assert_eq!(
        head(call, r.id, 200, "application/json", 1001),
        a2a_result::A2A_CALL_HEAD_TWICE
    );
    assert_eq!(
        a2a_call_handle_failure(call, r.id, 1, true, null(), 0, 1002),
        a2a_result::A2A_INVALID_ARGUMENT,
        "not a transport error name"
    );
    assert_eq!(
        a2a_call_handle_failure(call, r.id, 204, true, null(), 0, 1002),
        a2a_result::A2A_OK
    );
    let fin = *events(call).last().unwrap();
    assert_eq!(fin.kind, a2a_event_kind::Finished);
    assert_eq!(info(&fin).error_name, 204);
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_call_free(null_mut());
    a2a_client_state_free(null_mut());
}

#[test]
fn get_task_through_method_and_params_json() {
    let st = state(|_| {});
    let settings = a2a_call_settings_new();
    let key = "idem-1";
    assert_eq!(
        a2a_call_settings_set_text(
            settings,
            a2a_call_text_option::IdempotencyKey as u32,
            key.as_ptr().cast(),
            key.len()
        ),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_call_settings_add_header(
            settings,
            b"X-Trace".as_ptr().cast(),
            7,
            b"1".as_ptr().cast(),
            1
        ),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_call_settings_set_text(
            settings,
            a2a_call_text_option::Traceparent as u32,
            b"nope".as_ptr().cast(),
            4
        ),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    let params = br#"{"id":"t-1"}"#;
    let mut call = null_mut();
    assert_eq!(
        a2a_call_new(st, 3, params.as_ptr(), params.len(), settings, 5, &mut call),
        a2a_result::A2A_OK
    );
    a2a_call_settings_free(settings);
    let r = transmit(call, 5).unwrap();
    assert_eq!(r.body["method"], "tasks/get");
    assert_eq!(r.body["params"]["id"], "t-1");
    assert!(r.headers.iter().any(|(n, v)| n == "X-Trace" && v == "1"));
    assert!(
        r.headers
            .iter()
            .any(|(n, v)| n.eq_ignore_ascii_case("idempotency-key") && v == key)
    );
    a2a_call_free(call);
    a2a_client_state_free(st);
}

/// What the machine asked, read back from a transmit: the JSON-RPC method and id, or
/// `VERB /path` for HTTP+JSON.
fn asked(r: &Req, base: &str, jsonrpc: bool) -> (String, Option<String>) {
    if jsonrpc {
        let id = match &r.body["id"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        (r.body["method"].as_str().unwrap().to_owned(), Some(id))
    } else {
        (format!("{} {}", r.method, &r.url[base.len()..]), None)
    }
}

#[test]
fn shared_outcome_rows_through_the_c_machine_fed_byte_by_byte() {
    use a2a_core::vocab::{a2a_vocab, a2a_vocab_name};
    let name_in = |vocab: a2a_vocab, value: u32| view_string(a2a_vocab_name(vocab as u32, value));
    let table: serde_json::Value =
        serde_json::from_str(include_str!("../../bindings/fixtures/outcomes.json")).unwrap();
    let base = "https://agent.example/a2a";
    let builder = a2a_client_config_builder_new();
    assert_eq!(
        a2a_client_config_builder_set(
            builder,
            a2a_client_option::MaxResponseBytes as u32,
            64 << 20
        ),
        a2a_result::A2A_OK
    );
    let mut cfg = null_mut();
    assert_eq!(
        a2a_client_config_builder_build(builder, &mut cfg),
        a2a_result::A2A_OK
    );
    a2a_client_config_builder_free(builder);
    let (mut checked, mut rows) = (0, 0);
    for row in table["rows"].as_array().unwrap() {
        let input = &row["input"];
        let (Some(body), None) = (input["body"].as_str(), input.get("now_unix_seconds")) else {
            continue; // transport rows, base64 / repeated bodies, HTTP-date rows
        };
        if body.len() > 4096 {
            continue;
        }
        rows += 1;
        let text = |k: &str| input[k].as_str().unwrap_or("");
        let version = if text("version") == "0.3" { 1 } else { 2 };
        let jsonrpc = text("binding") != "http+json";
        let method = text("method");
        let (m, params): (u32, &str) = if method.contains("tasks/get")
            || method == "GetTask"
            || (method.starts_with("GET /") && method.contains("/tasks/"))
        {
            (3, r#"{"id":"t-1"}"#)
        } else if method.contains("cancel") || method == "CancelTask" {
            (5, r#"{"id":"t-1"}"#)
        } else {
            (
                1,
                r#"{"message":{"role":"user","messageId":"m-1","parts":[{"text":"hi"}]}}"#,
            )
        };
        let mut st = null_mut();
        assert_eq!(
            a2a_client_state_new(
                cfg,
                base.as_ptr().cast(),
                base.len(),
                version,
                if jsonrpc { 1 } else { 2 },
                9,
                &mut st
            ),
            a2a_result::A2A_OK
        );
        let settings = a2a_call_settings_new();
        let rid = text("request_id");
        let rc = match rid.parse::<i64>() {
            Ok(n) => a2a_call_settings_set(settings, a2a_call_option::RpcIdNumber as u32, n as u64),
            Err(_) if rid.is_empty() => a2a_result::A2A_OK,
            Err(_) => a2a_call_settings_set_text(
                settings,
                a2a_call_text_option::RpcId as u32,
                rid.as_ptr().cast(),
                rid.len(),
            ),
        };
        assert_eq!(rc, a2a_result::A2A_OK);
        let mut call = null_mut();
        assert_eq!(
            a2a_call_new(st, m, params.as_ptr(), params.len(), settings, 0, &mut call),
            a2a_result::A2A_OK
        );
        a2a_call_settings_free(settings);
        let r = transmit(call, 0).unwrap();
        let (asked_method, asked_id) = asked(&r, base, jsonrpc);
        let ct = text("content_type");
        let mut hs = vec![("Content-Type".to_owned(), ct.to_owned())];
        if let Some(serde_json::Value::Object(h)) = input.get("headers") {
            hs.extend(
                h.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned())),
            );
        }
        let cs = headers(&hs);
        let status = input["status"].as_u64().unwrap() as u16;
        assert_eq!(
            a2a_call_handle_head(call, r.id, status, cs.as_ptr(), cs.len(), 1),
            a2a_result::A2A_OK
        );
        for byte in body.as_bytes() {
            assert_eq!(
                a2a_call_handle_body(call, r.id, byte, 1, 1),
                a2a_result::A2A_OK
            );
        }
        assert_eq!(a2a_call_handle_end(call, r.id, 1), a2a_result::A2A_OK);
        let mut seen = 0;
        each_event(call, |e| {
            seen += 1;
            assert_eq!(e.kind, a2a_event_kind::Finished, "{}", row["id"]);
            if method != asked_method || (jsonrpc && Some(rid.to_owned()) != asked_id) {
                return; // the row asked another call: its expectation does not apply
            }
            checked += 1;
            let i = info(e);
            let name = row["id"].as_str().unwrap();
            let want = &row["expect"];
            assert_eq!(
                name_in(a2a_vocab::Channel, i.channel as u32).as_deref(),
                want["channel"].as_str(),
                "{name}"
            );
            assert_eq!(
                name_in(a2a_vocab::Retry, i.retry as u32).as_deref(),
                want["retry"].as_str(),
                "{name}"
            );
            if let Some(h) = want["http_status"].as_u64() {
                assert_eq!(
                    (i.has_http_status, u64::from(i.http_status)),
                    (true, h),
                    "{name}"
                );
            }
            if let Some(c) = want["code"].as_i64() {
                assert_eq!((i.has_code, i.code), (true, c), "{name}");
            }
            let err = i
                .has_error_name
                .then(|| name_in(a2a_vocab::ErrorName, i.error_name).unwrap());
            assert_eq!(err.as_deref(), want["error"].as_str(), "{name}");
            let state = i
                .has_state
                .then(|| name_in(a2a_vocab::TaskState, i.state).unwrap());
            assert_eq!(state.as_deref(), want["state"].as_str(), "{name}");
            assert_eq!(
                Some(i64::from(e.exit_code)),
                row["exit_code"].as_i64(),
                "{name}"
            );
        });
        assert_eq!(seen, 1, "{}", row["id"]);
        a2a_call_free(call);
        a2a_client_state_free(st);
    }
    a2a_machine_config_free(cfg);
    eprintln!("{checked} of {rows} outcome rows asked what the machine asked and matched");
    assert!(checked >= 100, "only {checked} rows checked");
}

unsafe extern "C" fn token_hook(
    ud: *mut std::ffi::c_void,
    method: *const std::ffi::c_char,
    len: usize,
    setter: *mut a2a_core::hook::a2a_header_setter,
) {
    // SAFETY: the test passes a live Vec; the method view is valid for the callback.
    let (seen, m) = unsafe {
        (
            &mut *(ud as *mut Vec<String>),
            std::slice::from_raw_parts(method.cast::<u8>(), len),
        )
    };
    seen.push(String::from_utf8(m.to_vec()).unwrap());
    let value = format!("Bearer t{}", seen.len());
    assert_eq!(
        a2a_core::hook::a2a_header_setter_set(
            setter,
            b"Authorization".as_ptr().cast(),
            13,
            value.as_ptr().cast(),
            value.len()
        ),
        a2a_result::A2A_OK
    );
}

unsafe extern "C" fn host_hook(
    _: *mut std::ffi::c_void,
    _: *const std::ffi::c_char,
    _: usize,
    setter: *mut a2a_core::hook::a2a_header_setter,
) {
    assert_eq!(
        a2a_core::hook::a2a_header_setter_set(
            setter,
            b"Content-Length".as_ptr().cast(),
            14,
            b"0".as_ptr().cast(),
            1
        ),
        a2a_result::A2A_REQUEST_RESERVED_HEADER
    );
}

#[test]
fn header_hooks_run_for_every_attempt_and_a_reserved_header_refuses_the_call_unsent() {
    let st = state(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::SendRetries as u32, 1),
            a2a_result::A2A_OK
        );
    });
    let mut seen: Vec<String> = Vec::new();
    assert_eq!(
        a2a_client_state_add_header_hook(
            st,
            Some(token_hook),
            (&mut seen as *mut Vec<String>).cast()
        ),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_client_state_add_header_hook(st, None, null_mut()),
        a2a_result::A2A_NULL_PARAMETER
    );
    let call = send_text_key(st, false, "hello", "key-1");
    let first = transmit(call, 1000).unwrap();
    let auth = |r: &Req| {
        r.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("authorization"))
            .map(|(_, v)| v.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(auth(&first), ["Bearer t1"]);
    // A 503 is retried: the hook runs again for the second attempt (a fresh token).
    assert_eq!(
        head(call, first.id, 503, "text/plain", 1001),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_call_handle_end(call, first.id, 1002),
        a2a_result::A2A_OK
    );
    let _ = events(call);
    let mut at = 0;
    assert!(a2a_call_poll_timeout(call, &mut at));
    assert_eq!(a2a_call_handle_timeout(call, at), a2a_result::A2A_OK);
    let second = transmit(call, at).expect("the retry");
    assert_eq!(auth(&second), ["Bearer t2"]);
    assert_eq!(seen, ["SendMessage", "SendMessage"]);
    a2a_call_free(call);

    // A hook that sets a reserved header: nothing is handed out, the call finishes as
    // transport/InvalidRequest, request_sent = no.
    assert_eq!(
        a2a_client_state_add_header_hook(st, Some(host_hook), null_mut()),
        a2a_result::A2A_OK
    );
    let call = send_text(st, false, "hello");
    assert!(transmit(call, 5000).is_none(), "refused before sending");
    let ev = events(call);
    let fin = ev.last().expect("finished");
    assert_eq!(fin.kind, a2a_event_kind::Finished);
    let i = info(fin);
    assert_eq!(i.error_name, 2, "InvalidRequest");
    assert_eq!(i.request_sent, 1, "request_sent = no");
    assert!(view_string(i.message).unwrap().contains("Content-Length"));
    a2a_call_free(call);
    a2a_client_state_free(st);
}

#[test]
fn a_per_call_stream_idle_timeout_replaces_the_states() {
    let st = state(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::StreamIdleTimeoutMs as u32, 60_000),
            a2a_result::A2A_OK
        );
    });
    let settings = a2a_call_settings_new();
    assert_eq!(
        a2a_call_settings_set(settings, a2a_call_option::StreamIdleTimeoutMs as u32, 250),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_call_settings_set(null_mut(), a2a_call_option::StreamIdleTimeoutMs as u32, 1),
        a2a_result::A2A_NULL_PARAMETER
    );
    let text = "stream please";
    let mut call = null_mut();
    assert_eq!(
        a2a_call_new_text(
            st,
            true,
            text.as_ptr().cast(),
            text.len(),
            settings,
            1000,
            &mut call
        ),
        a2a_result::A2A_OK
    );
    a2a_call_settings_free(settings);
    let r = transmit(call, 1000).unwrap();
    assert_eq!(
        head(call, r.id, 200, "text/event-stream", 1010),
        a2a_result::A2A_OK
    );
    let _ = events(call);
    let mut at = 0;
    assert!(a2a_call_poll_timeout(call, &mut at));
    assert_eq!(at, 1260, "idle deadline from the head, per call");
    assert_eq!(a2a_call_handle_timeout(call, at), a2a_result::A2A_OK);
    let ev = events(call);
    let fin = ev.last().expect("finished");
    assert_eq!(fin.kind, a2a_event_kind::Finished);
    assert_eq!(info(fin).error_name, 203, "timeout");
    a2a_call_free(call);
    a2a_client_state_free(st);
}

#[test]
fn typed_options_refuse_what_the_old_setters_refused_and_unknown_numbers() {
    use a2a_client_option as O;
    let set = |b, o: O, v: u64| a2a_client_config_builder_set(b, o as u32, v);
    let bad = a2a_result::A2A_INVALID_ARGUMENT;
    let ok = a2a_result::A2A_OK;
    let b = a2a_client_config_builder_new();
    for o in [
        O::CallTimeoutMs,
        O::ConnectTimeoutMs,
        O::MaxResponseBytes,
        O::StreamIdleTimeoutMs,
        O::MaxEventBytes,
        O::CardTimeoutMs,
        O::PoolIdleTimeoutMs,
    ] {
        assert_eq!(set(b, o, 0), bad, "{o:?} 0");
        assert_eq!(set(b, o, 1000), ok, "{o:?} 1000");
    }
    assert_eq!(set(b, O::MaxTimeMs, 0), ok, "0: no total limit");
    for o in [
        O::ClientCertificate,
        O::IgnoreCapabilities,
        O::AllowHttp,
        O::PreferCardOrder,
        O::ProxyDisabled,
    ] {
        assert_eq!(set(b, o, 0), ok, "{o:?} false");
        assert_eq!(set(b, o, 1), ok, "{o:?} true");
        assert_eq!(set(b, o, 2), bad, "{o:?} 2 is no flag");
        assert_eq!(set(b, o, u64::MAX), bad, "{o:?} MAX is no flag");
    }
    for o in [O::SendRetries, O::StreamResubscribes] {
        assert_eq!(set(b, o, u64::from(u32::MAX)), ok, "{o:?} UINT32_MAX");
        assert_eq!(
            set(b, o, u64::from(u32::MAX) + 1),
            bad,
            "{o:?} past UINT32_MAX"
        );
    }
    for o in [O::MinProtocol, O::InterfaceVersion, O::InterfaceBinding] {
        assert_eq!(set(b, o, 0), ok, "{o:?} any");
        assert_eq!(set(b, o, 1), ok, "{o:?} a member");
        assert_eq!(set(b, o, 9), bad, "{o:?} 9");
        // A member's number in the low 32 bits is still refused: no truncation.
        assert_eq!(set(b, o, (1 << 32) | 1), bad, "{o:?} truncated");
    }
    for unknown in [0, 19, u32::MAX] {
        assert_eq!(
            a2a_client_config_builder_set(b, unknown, 1),
            bad,
            "option {unknown}"
        );
    }
    assert_eq!(
        set(null_mut(), O::CallTimeoutMs, 1),
        a2a_result::A2A_NULL_PARAMETER
    );
    a2a_client_config_builder_free(b);

    let s = a2a_call_settings_new();
    let cset = |o: u32, v: u64| a2a_call_settings_set(s, o, v);
    for o in [
        a2a_call_option::BudgetMs,
        a2a_call_option::DeadlineMs,
        a2a_call_option::StreamIdleTimeoutMs,
    ] {
        assert_eq!(cset(o as u32, 0), ok, "{o:?} 0 clears");
        assert_eq!(cset(o as u32, u64::MAX), ok, "{o:?} any value");
    }
    let ri = a2a_call_option::ReturnImmediately as u32;
    assert_eq!(cset(ri, 1), ok);
    assert_eq!(cset(ri, 0), ok);
    assert_eq!(cset(ri, 2), bad, "2 is no flag");
    for unknown in [0, 6, u32::MAX] {
        assert_eq!(cset(unknown, 1), bad, "option {unknown}");
        assert_eq!(
            a2a_call_settings_set_text(s, unknown, b"x".as_ptr().cast(), 1),
            bad,
            "text option {unknown}"
        );
    }
    let key = a2a_call_text_option::IdempotencyKey as u32;
    assert_eq!(
        a2a_call_settings_set_text(s, key, null(), 3),
        a2a_result::A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_call_settings_set_text(s, key, b"\xff".as_ptr().cast(), 1),
        a2a_result::A2A_INVALID_UTF8
    );
    let tp = a2a_call_text_option::Traceparent as u32;
    assert_eq!(
        a2a_call_settings_set_text(s, tp, null(), 0),
        ok,
        "empty clears"
    );
    assert_eq!(
        a2a_call_settings_set(null_mut(), ri, 1),
        a2a_result::A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_call_settings_set_text(null_mut(), key, null(), 0),
        a2a_result::A2A_NULL_PARAMETER
    );
    a2a_call_settings_free(s);
}

#[test]
fn a_refused_option_changes_nothing() {
    // Plain http allowed, then a refused flag value: still allowed (the card resolves).
    let card = serde_json::json!({"name": "echo", "description": "d", "version": "1",
        "supportedInterfaces": [
            {"url": "http://agent.test/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"], "skills": []});
    let cfg = machine_config(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::AllowHttp as u32, 2),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        assert_eq!(
            a2a_client_config_builder_set(b, 99, 0),
            a2a_result::A2A_INVALID_ARGUMENT
        );
    });
    assert_eq!(
        resolve(cfg, &card),
        (Some("http://agent.test/v1".to_owned()), 0)
    );
    a2a_machine_config_free(cfg);
}

#[test]
fn numeric_and_string_rpc_ids_and_clearing() {
    let st = state(|_| {});
    let params = br#"{"id":"t-1"}"#;
    let sent_id = |settings| {
        let mut call = null_mut();
        assert_eq!(
            a2a_call_new(st, 3, params.as_ptr(), params.len(), settings, 5, &mut call),
            a2a_result::A2A_OK
        );
        let id = transmit(call, 5).unwrap().body["id"].clone();
        a2a_call_free(call);
        id
    };
    let settings = a2a_call_settings_new();
    assert_eq!(
        a2a_call_settings_set(settings, a2a_call_option::RpcIdNumber as u32, -5i64 as u64),
        a2a_result::A2A_OK
    );
    assert_eq!(sent_id(settings), serde_json::json!(-5));
    let rid = a2a_call_text_option::RpcId as u32;
    assert_eq!(
        a2a_call_settings_set_text(settings, rid, b"rq-5".as_ptr().cast(), 4),
        a2a_result::A2A_OK
    );
    assert_eq!(sent_id(settings), serde_json::json!("rq-5"));
    assert_eq!(
        a2a_call_settings_set_text(settings, rid, null(), 0),
        a2a_result::A2A_OK
    );
    let drawn = sent_id(settings);
    assert_ne!(
        drawn,
        serde_json::json!("rq-5"),
        "cleared: drawn from the seed"
    );
    assert!(!drawn.is_null());
    a2a_call_settings_free(settings);
    a2a_client_state_free(st);
}

#[test]
fn a_message_the_agent_would_refuse_is_refused_before_anything_is_sent() {
    use a2a_core::request::a2a_method;
    let st = state(|_| {});
    let new = |method: a2a_method, params: &str| {
        let mut call = null_mut();
        let r = a2a_call_new(
            st,
            method as u32,
            params.as_ptr(),
            params.len(),
            null(),
            0,
            &mut call,
        );
        a2a_call_free(call);
        r
    };
    let msg =
        |rest: &str| format!(r#"{{"message":{{"messageId":"m-1","role":"ROLE_USER",{rest}}}}}"#);
    let ok = msg(r#""parts":[{"text":"x"}],"metadata":{"k":1}"#);
    assert_eq!(new(a2a_method::SendMessage, &ok), a2a_result::A2A_OK);
    for (why, bad) in [
        ("no part", msg(r#""parts":[]"#)),
        ("bytes not base64", msg(r#""parts":[{"raw":"***"}]"#)),
        (
            "0.3 bytes not base64",
            msg(r#""parts":[{"kind":"file","file":{"bytes":"***"}}]"#),
        ),
        (
            "metadata not an object",
            msg(r#""parts":[{"text":"x"}],"metadata":[1]"#),
        ),
    ] {
        for method in [a2a_method::SendMessage, a2a_method::SendStreamingMessage] {
            assert_eq!(
                new(method, &bad),
                a2a_result::A2A_REQUEST_PARAMS,
                "{why} ({method:?})"
            );
        }
    }
    a2a_client_state_free(st);
}
