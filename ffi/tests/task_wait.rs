//! Waiting for a task through the C functions (`a2a_task_wait_*`), each poll a machine call
//! answered in memory: working, working, completed; an interrupted state stops; TaskNotFound
//! ends; the deadline gives up with a typed outcome. Also the send's `returnImmediately`.

use std::ptr::{null, null_mut};

use a2a_core::header::a2a_header;
use a2a_core::machine::*;
use a2a_core::machine_config::*;
use a2a_core::outcome::{a2a_outcome, a2a_outcome_free, a2a_outcome_get_info, a2a_outcome_info};
use a2a_core::result::a2a_result;
use a2a_core::task_wait::*;
use a2a_core::view::a2a_str;

fn s(v: a2a_str) -> Option<String> {
    if v.ptr.is_null() {
        return None;
    }
    let b = unsafe { std::slice::from_raw_parts(v.ptr.cast::<u8>(), v.len) };
    Some(String::from_utf8(b.to_vec()).unwrap())
}

/// A client state for an in-memory agent speaking `version` over JSON-RPC.
fn state(version: u32) -> *mut a2a_client_state {
    let builder = a2a_client_config_builder_new();
    assert_eq!(
        a2a_client_config_builder_set(builder, a2a_client_option::AllowHttp as u32, 1),
        a2a_result::A2A_OK
    );
    let mut cfg = null_mut();
    assert_eq!(
        a2a_client_config_builder_build(builder, &mut cfg),
        a2a_result::A2A_OK
    );
    a2a_client_config_builder_free(builder);
    let url = "http://agent.test/a2a";
    let mut st = null_mut();
    assert_eq!(
        a2a_client_state_new(cfg, url.as_ptr().cast(), url.len(), version, 1, 7, &mut st),
        a2a_result::A2A_OK
    );
    a2a_machine_config_free(cfg);
    st
}

/// The next request of `call`: its id, JSON body and deadline.
fn transmit(call: *mut a2a_call, now: u64) -> (u32, serde_json::Value, u64) {
    let mut t = std::mem::MaybeUninit::<a2a_transmit>::uninit();
    assert_eq!(
        a2a_call_poll_transmit(call, now, t.as_mut_ptr()),
        a2a_result::A2A_OK
    );
    let t = unsafe { t.assume_init() };
    let body = unsafe { std::slice::from_raw_parts(t.body.ptr, t.body.len) };
    (
        t.request_id,
        serde_json::from_slice(body).unwrap(),
        t.deadline_ms,
    )
}

/// Answers request `id` of `call` with a JSON-RPC `body` at `now`.
fn answer(call: *mut a2a_call, id: u32, body: &[u8], now: u64) {
    let (n, v) = ("Content-Type", "application/json");
    let h = a2a_header {
        name: n.as_ptr().cast(),
        name_len: n.len(),
        value: v.as_ptr().cast(),
        value_len: v.len(),
    };
    assert_eq!(
        a2a_call_handle_head(call, id, 200, &h, 1, now),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_call_handle_body(call, id, body.as_ptr(), body.len(), now),
        a2a_result::A2A_OK
    );
    assert_eq!(a2a_call_handle_end(call, id, now), a2a_result::A2A_OK);
}

/// The FINISHED event of a call that was answered.
fn finished(call: *mut a2a_call) -> a2a_event {
    for _ in 0..100 {
        let mut e = std::mem::MaybeUninit::<a2a_event>::uninit();
        match a2a_call_poll_event(call, e.as_mut_ptr()) {
            a2a_result::A2A_OK => {
                let e = unsafe { e.assume_init() };
                if e.kind == a2a_event_kind::Finished {
                    return e;
                }
            }
            other => panic!("no FINISHED event: {other:?}"),
        }
    }
    panic!("unbounded events")
}

fn info(o: *const a2a_outcome) -> a2a_outcome_info {
    let mut i = std::mem::MaybeUninit::<a2a_outcome_info>::uninit();
    assert_eq!(a2a_outcome_get_info(o, i.as_mut_ptr()), a2a_result::A2A_OK);
    unsafe { i.assume_init() }
}

fn task_result(state: &str) -> serde_json::Value {
    serde_json::json!({"kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": state}})
}

fn new_wait(max_time_ms: u64, now: u64) -> *mut a2a_task_wait {
    let mut w = null_mut();
    assert_eq!(
        a2a_task_wait_new(
            b"t-1".as_ptr().cast(),
            3,
            2,
            100,
            400,
            max_time_ms,
            now,
            &mut w
        ),
        a2a_result::A2A_OK
    );
    w
}

/// One poll of `w` on `st` at `now`, answered with the JSON-RPC `reply(id)` (its `result`
/// or `error` member) `latency` ms later; the step read then, and the request's deadline.
fn poll(
    w: *mut a2a_task_wait,
    st: *const a2a_client_state,
    now: u64,
    latency: u64,
    reply: serde_json::Value,
) -> (a2a_wait_step, u64) {
    let mut call = null_mut();
    assert_eq!(
        a2a_task_wait_poll(w, st, null(), now, &mut call),
        a2a_result::A2A_OK
    );
    let (id, body, deadline) = transmit(call, now);
    assert_eq!(body["method"], "tasks/get");
    assert_eq!(body["params"]["id"], "t-1");
    assert_eq!(body["params"]["historyLength"], 2);
    let mut doc = serde_json::json!({"jsonrpc": "2.0", "id": body["id"]});
    for (k, v) in reply.as_object().unwrap() {
        doc[k] = v.clone();
    }
    let done = now + latency;
    answer(call, id, doc.to_string().as_bytes(), done);
    let ev = finished(call);
    let mut step = std::mem::MaybeUninit::<a2a_wait_step>::uninit();
    assert_eq!(
        a2a_task_wait_read(w, ev.outcome, done, step.as_mut_ptr()),
        a2a_result::A2A_OK
    );
    a2a_call_free(call);
    (unsafe { step.assume_init() }, deadline)
}

#[test]
fn polls_working_working_completed_at_the_planned_times() {
    let st = state(1);
    let w = new_wait(60_000, 1_000);
    let mut now = 1_000;
    let mut gaps = Vec::new();
    for _ in 0..2 {
        let (step, deadline) = poll(
            w,
            st,
            now,
            10,
            serde_json::json!({"result": task_result("working")}),
        );
        assert!(
            deadline <= 61_000,
            "each poll is bounded by the wait's deadline"
        );
        assert_eq!(step.kind, a2a_wait_step_kind::PollAt);
        assert!(step.outcome.is_null());
        gaps.push(step.poll_at_ms - (now + 10));
        now = step.poll_at_ms;
    }
    assert_eq!(gaps, [100, 150], "the first interval, then 1.5 times it");
    let (step, _) = poll(
        w,
        st,
        now,
        10,
        serde_json::json!({"result": task_result("completed")}),
    );
    assert_eq!(step.kind, a2a_wait_step_kind::Done);
    assert!(step.outcome.is_null());
    a2a_task_wait_free(w);
    a2a_client_state_free(st);
}

#[test]
fn input_required_stops_the_wait() {
    let st = state(1);
    let w = new_wait(60_000, 0);
    let (step, _) = poll(
        w,
        st,
        0,
        5,
        serde_json::json!({"result": task_result("input-required")}),
    );
    assert_eq!(step.kind, a2a_wait_step_kind::Done);
    a2a_task_wait_free(w);
    a2a_client_state_free(st);
}

#[test]
fn task_not_found_ends_the_wait_with_that_poll() {
    let st = state(1);
    let w = new_wait(60_000, 0);
    let (step, _) = poll(
        w,
        st,
        0,
        5,
        serde_json::json!({"error": {"code": -32001, "message": "Task not found"}}),
    );
    assert_eq!(step.kind, a2a_wait_step_kind::Done);
    a2a_task_wait_free(w);
    a2a_client_state_free(st);
}

#[test]
fn the_deadline_gives_up_with_a_timeout_naming_the_task_and_its_state() {
    let st = state(1);
    let w = new_wait(1_000, 0);
    let mut now = 0;
    let mut polls = 0;
    let gave_up = loop {
        let (step, deadline) = poll(
            w,
            st,
            now,
            10,
            serde_json::json!({"result": task_result("working")}),
        );
        assert!(deadline <= 1_000);
        polls += 1;
        assert!(polls < 30, "bounded");
        match step.kind {
            a2a_wait_step_kind::PollAt => now = step.poll_at_ms,
            a2a_wait_step_kind::GaveUp => break step.outcome,
            a2a_wait_step_kind::Done => panic!("done while working"),
        }
    };
    assert!(!gave_up.is_null());
    let i = info(gave_up);
    assert_eq!(i.channel as u32, 1, "transport");
    assert!(i.has_error_name);
    assert_eq!(i.error_name, 203, "Timeout");
    assert_eq!(s(i.task_id).as_deref(), Some("t-1"));
    assert!(i.has_state);
    assert_eq!(i.state, 2, "working");
    assert_eq!(i.retry as u32, 5, "poll");
    assert!(s(i.message).unwrap().contains("still working"));
    assert!(
        s(i.result_json).unwrap().contains("\"t-1\""),
        "the last poll's answer is kept"
    );
    assert_eq!(i.exit_code, 3);
    a2a_outcome_free(gave_up);
    a2a_task_wait_free(w);
    a2a_client_state_free(st);
}

#[test]
fn a_shorter_settings_deadline_bounds_the_poll() {
    let st = state(1);
    let w = new_wait(60_000, 0);
    let settings = a2a_call_settings_new();
    assert_eq!(
        a2a_call_settings_set(settings, a2a_call_option::DeadlineMs as u32, 500),
        a2a_result::A2A_OK
    );
    let mut call = null_mut();
    assert_eq!(
        a2a_task_wait_poll(w, st, settings, 0, &mut call),
        a2a_result::A2A_OK
    );
    assert!(transmit(call, 0).2 <= 500);
    a2a_call_free(call);
    a2a_call_settings_free(settings);
    a2a_task_wait_free(w);
    a2a_client_state_free(st);
}

#[test]
fn misuse_is_refused() {
    let mut w = null_mut();
    assert_eq!(
        a2a_task_wait_new(null(), 0, -1, 0, 0, 0, 0, &mut w),
        a2a_result::A2A_INVALID_ARGUMENT,
        "an empty task id"
    );
    assert_eq!(
        a2a_task_wait_new(b"t".as_ptr().cast(), 1, -1, 9_000, 0, 0, 0, &mut w),
        a2a_result::A2A_INVALID_ARGUMENT,
        "a first interval above the (default) longest"
    );
    assert_eq!(
        a2a_task_wait_new(b"t".as_ptr().cast(), 1, -1, 0, 0, 0, 0, null_mut()),
        a2a_result::A2A_NULL_PARAMETER
    );
    assert!(w.is_null());
    let w = new_wait(1_000, 0);
    let mut call = null_mut();
    assert_eq!(
        a2a_task_wait_poll(w, null(), null(), 0, &mut call),
        a2a_result::A2A_NULL_PARAMETER
    );
    let mut step = std::mem::MaybeUninit::<a2a_wait_step>::uninit();
    assert_eq!(
        a2a_task_wait_read(w, null(), 0, step.as_mut_ptr()),
        a2a_result::A2A_NULL_PARAMETER
    );
    a2a_task_wait_free(w);
    a2a_task_wait_free(null_mut());
    assert_eq!(
        a2a_call_settings_set(null_mut(), a2a_call_option::ReturnImmediately as u32, 1),
        a2a_result::A2A_NULL_PARAMETER
    );
}

/// The send's params for `settings` on a state of `version`.
fn sent_params(version: u32, return_immediately: bool, via_params: bool) -> serde_json::Value {
    let st = state(version);
    let settings = a2a_call_settings_new();
    assert_eq!(
        a2a_call_settings_set(
            settings,
            a2a_call_option::ReturnImmediately as u32,
            u64::from(return_immediately)
        ),
        a2a_result::A2A_OK
    );
    let mut call = null_mut();
    let rc = if via_params {
        let params = br#"{"message":{"role":"ROLE_USER","messageId":"m-1","parts":[{"text":"hi"}]},"configuration":{"historyLength":1}}"#;
        a2a_call_new(st, 1, params.as_ptr(), params.len(), settings, 0, &mut call)
    } else {
        a2a_call_new_text(st, false, b"hi".as_ptr().cast(), 2, settings, 0, &mut call)
    };
    assert_eq!(rc, a2a_result::A2A_OK);
    let (_, body, _) = transmit(call, 0);
    a2a_call_free(call);
    a2a_call_settings_free(settings);
    a2a_client_state_free(st);
    body["params"].clone()
}

#[test]
fn return_immediately_reaches_the_send_in_each_version() {
    let p03 = sent_params(1, true, false);
    assert_eq!(p03["configuration"]["blocking"], false, "0.3: {p03}");
    let p10 = sent_params(2, true, false);
    assert_eq!(
        p10["configuration"]["returnImmediately"], true,
        "1.0: {p10}"
    );
    let kept = sent_params(2, true, true);
    assert_eq!(kept["configuration"]["returnImmediately"], true);
    assert_eq!(
        kept["configuration"]["historyLength"], 1,
        "the params' own configuration is kept"
    );
    let plain = sent_params(2, false, false);
    assert!(plain.get("configuration").is_none(), "unset: {plain}");
}
