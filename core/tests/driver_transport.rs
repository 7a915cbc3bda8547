//! The driver's HTTP layer against the fault server: timeouts, redirects, statuses, limits,
//! connection reuse and raw stream reads. Outcomes are checked field by field; elapsed
//! times within generous bounds (these are correctness tests, not benchmarks).
#![cfg(feature = "driver")]

mod common;

use std::time::{Duration, Instant};

use a2a_core::driver::{AbortHandle, Client, ClientConfig, HttpRequest, ReadEnd};
use a2a_core::outcome::{Channel, ErrorName, RequestSent, RetryAdvice};
use common::{FaultServer, assert_between, rpc_message, timing_lock};

fn config() -> ClientConfig {
    ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(10),
        ..ClientConfig::default()
    }
}

fn post(url: &str, body: Vec<u8>) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        url: url.into(),
        headers: vec![("content-type".into(), "application/json".into())],
        body,
    }
}

fn send_body(text: &str) -> Vec<u8> {
    rpc_message("message/send", "1", "m-1", text)
}

#[test]
fn connect_refused_is_not_sent() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let client = Client::raw(config());
    let t = Instant::now();
    let err = client
        .exchange(
            &post(&format!("http://127.0.0.1:{port}/a2a"), send_body("x")),
            None,
        )
        .unwrap_err();
    assert_eq!(err.channel, Channel::Transport);
    assert_eq!(err.error, Some(ErrorName::ConnectFailed));
    assert_eq!(err.request_sent, Some(RequestSent::No));
    assert_eq!(err.retry, RetryAdvice::Backoff);
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn full_accept_queue_hits_the_connect_timeout() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let client = Client::raw(ClientConfig {
        connect_timeout: Duration::from_secs(1),
        ..config()
    });
    let t = Instant::now();
    let err = client
        .exchange(&post(&format!("{}/a2a", fs.full), send_body("x")), None)
        .unwrap_err();
    assert_between(
        t.elapsed(),
        Duration::from_millis(900),
        Duration::from_secs(4),
        "connect timeout",
    );
    assert_eq!(err.error, Some(ErrorName::Timeout));
    assert_eq!(err.request_sent, Some(RequestSent::No));
    assert!(
        err.message
            .as_deref()
            .unwrap_or("")
            .contains("connect timeout")
    );
}

/// A call to the fault server's `hang` scenario with `call_timeout`: it must end as a
/// timeout, the request possibly received, after between `min` and `max`.
fn hung_call_times_out(call_timeout: Duration, min: Duration, max: Duration) {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let client = Client::raw(ClientConfig {
        call_timeout,
        ..config()
    });
    let t = Instant::now();
    let err = client
        .exchange(&post(&fs.a2a("hang"), send_body("x")), None)
        .unwrap_err();
    assert_between(t.elapsed(), min, max, "call timeout");
    assert_eq!(err.error, Some(ErrorName::Timeout));
    assert_eq!(err.request_sent, Some(RequestSent::Unknown));
    assert_eq!(err.retry, RetryAdvice::UnknownOutcome);
    assert_eq!(fs.counters("hang")["sends"], 1);
}

#[test]
fn hung_call_is_cut_at_the_call_timeout_and_may_have_been_received() {
    hung_call_times_out(
        Duration::from_secs(1),
        Duration::from_millis(900),
        Duration::from_secs(4),
    );
}

/// Reads wait in whole seconds while more than two are left (one `setsockopt` per
/// connection instead of one per read); a read woken by that rounding waits for the rest, so
/// the deadline fires when it is due, neither at the rounded second nor later.
#[test]
fn a_call_timeout_of_a_fraction_of_a_second_over_two_fires_when_due() {
    hung_call_times_out(
        Duration::from_millis(2_700),
        Duration::from_millis(2_650),
        Duration::from_secs(6),
    );
}

#[test]
fn the_callers_budget_wins_when_shorter() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let client = Client::raw(config()); // 10 s configured
    let t = Instant::now();
    let err = client
        .exchange(
            &post(&fs.a2a("hang"), send_body("x")),
            Some(Duration::from_millis(600)),
        )
        .unwrap_err();
    assert_between(
        t.elapsed(),
        Duration::from_millis(500),
        Duration::from_secs(3),
        "budget",
    );
    assert_eq!(err.error, Some(ErrorName::Timeout));
}

#[test]
fn redirects_are_returned_never_followed() {
    let fs = FaultServer::start();
    let client = Client::raw(config());
    let r = client
        .exchange(&post(&fs.a2a("redirect"), send_body("x")), None)
        .unwrap();
    assert_eq!(r.status, 302);
    assert!(
        r.header("location")
            .unwrap()
            .ends_with("/redirect-target/a2a")
    );
    assert_eq!(fs.counters("redirect-target")["requests"], 0);
    assert_eq!(fs.counters("redirect")["sends"], 1);
}

#[test]
fn error_statuses_are_responses_with_their_bodies() {
    let fs = FaultServer::start();
    let client = Client::raw(config());
    for code in [401u16, 403, 413, 502, 503] {
        let r = client
            .exchange(
                &post(&fs.a2a(&format!("status-{code}")), send_body("x")),
                None,
            )
            .unwrap();
        assert_eq!(r.status, code);
        assert_eq!(r.content_type(), Some("text/plain"));
        let r = client
            .exchange(
                &post(&fs.a2a(&format!("status-{code}-rpc")), send_body("x")),
                None,
            )
            .unwrap();
        assert_eq!(r.status, code);
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["error"]["code"], -32603);
        assert_eq!(v["id"], "1");
        if code == 503 {
            assert_eq!(r.header("retry-after"), Some("1"));
        }
    }
    let r = client
        .exchange(&post(&fs.a2a("html502"), send_body("x")), None)
        .unwrap();
    assert_eq!(r.status, 502);
    assert!(String::from_utf8_lossy(&r.body).contains("<h1>502 Bad Gateway</h1>"));
}

#[test]
fn bodies_over_the_limit_are_refused() {
    let fs = FaultServer::start();
    let client = Client::raw(ClientConfig {
        max_response_bytes: 4096,
        ..config()
    });
    let r = client
        .exchange(&post(&fs.a2a("big-1000"), send_body("x")), None)
        .unwrap();
    assert_eq!(r.status, 200);
    let err = client
        .exchange(&post(&fs.a2a("big-100000"), send_body("x")), None)
        .unwrap_err();
    assert_eq!(err.error, Some(ErrorName::ResponseTooLarge));
    assert_eq!(err.request_sent, Some(RequestSent::Unknown));
    assert_eq!(err.retry, RetryAdvice::Never);
}

#[test]
fn plain_http_is_refused_unless_allowed() {
    let fs = FaultServer::start();
    let client = Client::raw(ClientConfig {
        allow_http: false,
        ..config()
    });
    let err = client
        .exchange(&post(&fs.a2a("ok"), send_body("x")), None)
        .unwrap_err();
    assert_eq!(err.channel, Channel::Transport);
    assert_eq!(err.request_sent, Some(RequestSent::No));
    assert_eq!(fs.counters("ok")["requests"], 0);
}

#[test]
fn connections_are_reused_while_fresh() {
    let fs = FaultServer::start();
    let client = Client::raw(config());
    for _ in 0..3 {
        let r = client
            .exchange(&post(&fs.a2a("ok"), send_body("x")), None)
            .unwrap();
        assert_eq!(r.status, 200);
    }
    let c = fs.counters("ok");
    assert_eq!(c["sends"], 3);
    assert_eq!(c["connections"], 1);
}

#[test]
fn a_connection_the_server_closed_is_not_reused_and_nothing_is_replayed() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let client = Client::raw(config());
    // idle1 closes idle connections after 1 s; the second send comes 2 s later.
    let first = client
        .exchange(&post(&fs.a2a("idle1"), send_body("one")), None)
        .unwrap();
    assert_eq!(first.status, 200);
    std::thread::sleep(Duration::from_secs(2));
    let second = client
        .exchange(&post(&fs.a2a("idle1"), send_body("two")), None)
        .unwrap();
    assert_eq!(second.status, 200);
    let c = fs.counters("idle1");
    assert_eq!(c["sends"], 2, "each send reached the server exactly once");
    assert_eq!(c["connections"], 2);
}

#[test]
fn pooled_connections_retire_before_the_servers_keep_alive() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    // The `ok` scenario keeps connections 5 s; the pool retires them after 1 s.
    let client = Client::raw(ClientConfig {
        pool_idle_timeout: Duration::from_secs(1),
        ..config()
    });
    client
        .exchange(&post(&fs.a2a("ok"), send_body("one")), None)
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    client
        .exchange(&post(&fs.a2a("ok"), send_body("two")), None)
        .unwrap();
    let c = fs.counters("ok");
    assert_eq!(c["sends"], 2);
    assert_eq!(c["connections"], 2);
}

fn stream_req(url: &str) -> HttpRequest {
    let mut r = post(url, rpc_message("message/stream", "s1", "m-s", "hello"));
    r.set_header("accept", "text/event-stream");
    r
}

#[test]
fn stalled_stream_is_cut_at_the_idle_deadline() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let client = Client::raw(config());
    let mut s = client
        .open_stream(&stream_req(&fs.a2a("stall")), None)
        .unwrap()
        .unwrap();
    let idle = Duration::from_secs(1);
    let mut got = Vec::new();
    let mut last = Instant::now();
    let end = loop {
        match s.read_chunk(Some(last + idle)) {
            Ok(Some(b)) => {
                got.extend_from_slice(b);
                last = Instant::now();
            }
            Ok(None) => panic!("a stalled stream does not end by itself"),
            Err(e) => break e,
        }
    };
    assert_eq!(end, ReadEnd::Idle);
    assert_between(
        last.elapsed(),
        Duration::from_millis(900),
        Duration::from_secs(4),
        "idle cut",
    );
    assert!(String::from_utf8_lossy(&got).contains("\"working\""));
}

/// Aborts `handle` from another thread after `after`; returns when it was aborted.
fn abort_later(handle: AbortHandle, after: Duration) -> std::thread::JoinHandle<Instant> {
    std::thread::spawn(move || {
        std::thread::sleep(after);
        handle.abort();
        Instant::now()
    })
}

#[test]
fn a_read_blocked_on_a_stalled_stream_is_aborted_from_another_thread() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let client = Client::raw(config());
    let mut s = client
        .open_stream(&stream_req(&fs.a2a("stall")), None)
        .unwrap()
        .unwrap();
    // Read what the server sends before it stalls (no deadline: only the abort can end
    // the blocked read).
    let mut got = Vec::new();
    while !String::from_utf8_lossy(&got).contains("\"working\"") {
        match s.read_chunk(Some(Instant::now() + Duration::from_secs(5))) {
            Ok(Some(b)) => got.extend_from_slice(b),
            other => panic!("the stall scenario sends a working event first: {other:?}"),
        }
    }
    let handle = s.abort_handle();
    assert!(!handle.is_aborted());
    let aborter = abort_later(handle.clone(), Duration::from_millis(300));
    let end = s.read_chunk(None).map(|c| c.map(<[u8]>::to_vec));
    let returned = Instant::now();
    let aborted_at = aborter.join().unwrap();
    let ReadEnd::Failed(o) = end.unwrap_err() else {
        panic!("an aborted read is a failure, not an idle cut")
    };
    assert_eq!(o.channel, Channel::Transport);
    assert_eq!(o.error, Some(ErrorName::Reset));
    assert_eq!(o.request_sent, Some(RequestSent::Unknown));
    assert_eq!(o.retry, RetryAdvice::UnknownOutcome);
    assert!(o.message.as_deref().unwrap_or("").contains("aborted"));
    assert!(handle.is_aborted());
    eprintln!(
        "stream read returned {:?} after the abort",
        returned.saturating_duration_since(aborted_at)
    );
    assert_between(
        returned.saturating_duration_since(aborted_at),
        Duration::ZERO,
        Duration::from_millis(500),
        "blocked read returns after the abort",
    );
    // The stream stays ended; aborting again is harmless.
    handle.abort();
    assert_eq!(s.read_chunk(None), Ok(None));
}

#[test]
fn an_exchange_waiting_for_a_hung_server_is_aborted_from_another_thread() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let client = Client::raw(config()); // 10 s call timeout
    let abort = AbortHandle::new();
    let aborter = abort_later(abort.clone(), Duration::from_millis(300));
    let t = Instant::now();
    let err = client
        .exchange_abortable(&post(&fs.a2a("hang"), send_body("x")), None, &abort)
        .unwrap_err();
    let returned = Instant::now();
    let aborted_at = aborter.join().unwrap();
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    eprintln!(
        "exchange returned {:?} after the abort",
        returned.saturating_duration_since(aborted_at)
    );
    assert_between(
        returned.saturating_duration_since(aborted_at),
        Duration::ZERO,
        Duration::from_millis(500),
        "blocked exchange returns after the abort",
    );
    assert_eq!(err.error, Some(ErrorName::Reset));
    assert_eq!(err.request_sent, Some(RequestSent::Unknown));
    assert_eq!(fs.counters("hang")["sends"], 1);
}

#[test]
fn an_abort_before_the_call_sends_nothing() {
    let fs = FaultServer::start();
    let client = Client::raw(config());
    let abort = AbortHandle::new();
    abort.abort();
    let err = client
        .exchange_abortable(&post(&fs.a2a("hang"), send_body("x")), None, &abort)
        .unwrap_err();
    assert_eq!(err.error, Some(ErrorName::Reset));
    assert_eq!(err.request_sent, Some(RequestSent::No));
    assert_eq!(err.retry, RetryAdvice::Backoff);
    assert_eq!(fs.counters("hang")["sends"], 0);
    let err = client
        .open_stream_abortable(&stream_req(&fs.a2a("stall")), None, &abort)
        .unwrap_err();
    assert_eq!(err.request_sent, Some(RequestSent::No));
}

#[test]
fn an_abort_after_the_call_ended_leaves_the_pooled_connection_alone() {
    let fs = FaultServer::start();
    let client = Client::raw(config());
    let abort = AbortHandle::new();
    let ok = client
        .exchange_abortable(&post(&fs.a2a("ok"), send_body("one")), None, &abort)
        .unwrap();
    assert_eq!(ok.status, 200);
    abort.abort();
    let again = client
        .exchange(&post(&fs.a2a("ok"), send_body("two")), None)
        .unwrap();
    assert_eq!(again.status, 200);
    assert_eq!(
        fs.counters("ok")["connections"],
        1,
        "the connection was reused"
    );
}

#[test]
fn keep_alives_and_flowing_events_keep_a_stream_alive_past_every_timeout() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let client = Client::raw(ClientConfig {
        call_timeout: Duration::from_secs(1),
        ..config()
    });
    for scenario in ["keepalive-200-3000", "flow-200-3000"] {
        let t = Instant::now();
        let mut s = client
            .open_stream(&stream_req(&fs.a2a(scenario)), None)
            .unwrap()
            .unwrap();
        let mut got = Vec::new();
        let mut last = Instant::now();
        while let Some(b) = s.read_chunk(Some(last + Duration::from_secs(1))).unwrap() {
            got.extend_from_slice(b);
            last = Instant::now();
        }
        assert!(t.elapsed() >= Duration::from_millis(2900), "{scenario}");
        let text = String::from_utf8_lossy(&got);
        assert!(text.contains("\"final\":true"), "{scenario}: {text}");
    }
}

#[test]
fn a_gzipped_stream_is_decoded_not_passed_on() {
    let fs = FaultServer::start();
    let client = Client::raw(config());
    let mut s = client
        .open_stream(&stream_req(&fs.a2a("gzip")), None)
        .unwrap()
        .unwrap();
    // ureq decodes the body (feature `gzip`) and drops the Content-Encoding header it
    // consumed; what matters is that the events arrive as text, not compressed bytes.
    let mut got = Vec::new();
    while let Some(b) = s
        .read_chunk(Some(Instant::now() + Duration::from_secs(5)))
        .unwrap()
    {
        got.extend_from_slice(b);
    }
    let text = String::from_utf8(got).expect("decoded text");
    assert!(text.starts_with("data: {"), "{text}");
    assert_eq!(text.matches("data: ").count(), 4);
}

#[test]
fn streams_ask_for_identity_encoding() {
    let fs = FaultServer::start();
    let client = Client::raw(config());
    // The ok scenario answers uncompressed; the request header is what the driver chose.
    let req = stream_req(&fs.a2a("ok"));
    assert_eq!(req.header("accept-encoding"), None);
    let mut s = client.open_stream(&req, None).unwrap().unwrap();
    assert!(!s.headers.iter().any(|(n, _)| n == "content-encoding"));
    let mut n = 0;
    while let Some(b) = s
        .read_chunk(Some(Instant::now() + Duration::from_secs(5)))
        .unwrap()
    {
        n += b.len();
    }
    assert!(n > 0);
    let seen = &fs.counters("ok")["seen"][0];
    assert_eq!(seen["accept_encoding"], "identity");
    // A unary call leaves compression to ureq (gzip, decoded and size-limited).
    client
        .exchange(&post(&fs.a2a("ok"), send_body("x")), None)
        .unwrap();
    assert_eq!(fs.counters("ok")["seen"][1]["accept_encoding"], "gzip");
}

#[test]
fn a_cut_stream_reports_a_reset_after_bytes_were_sent() {
    let fs = FaultServer::start();
    let client = Client::raw(config());
    let mut s = client
        .open_stream(&stream_req(&fs.a2a("stream-drop")), None)
        .unwrap()
        .unwrap();
    let mut got = Vec::new();
    let end = loop {
        match s.read_chunk(Some(Instant::now() + Duration::from_secs(5))) {
            Ok(Some(b)) => got.extend_from_slice(b),
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    match end {
        Some(ReadEnd::Failed(o)) => {
            assert_eq!(o.channel, Channel::Transport);
            assert_eq!(o.request_sent, Some(RequestSent::Unknown));
        }
        other => panic!("expected a failed read, got {other:?}"),
    }
    assert!(String::from_utf8_lossy(&got).contains("part one"));
}

#[test]
fn a_json_error_on_a_streaming_call_comes_back_whole() {
    let fs = FaultServer::start();
    let client = Client::raw(config());
    let mut req = post(
        &fs.a2a("stream-finished"),
        serde_json::json!({"jsonrpc":"2.0","id":"r1","method":"tasks/resubscribe","params":{"id":"task-9"}})
            .to_string()
            .into_bytes(),
    );
    req.set_header("accept", "text/event-stream");
    let whole = client.open_stream(&req, None).unwrap().unwrap_err();
    assert_eq!(whole.status, 200);
    let v: serde_json::Value = serde_json::from_slice(&whole.body).unwrap();
    assert_eq!(v["error"]["code"], -32001);
}
