//! The total deadline (`ClientConfig::max_time`, `--max-time`) against the fault server:
//! a stream kept alive by comments, a call that is never answered with retries on, and
//! the command line. Elapsed times are checked within generous bounds (correctness: the
//! call ended because of the deadline, not because of another timeout).
#![cfg(feature = "driver")]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use a2a_core::driver::{CallOptions, Client, ClientConfig, StreamEvent};
use a2a_core::outcome::{Channel, ErrorName, RequestSent, RetryAdvice};
use common::{FaultServer, assert_between, timing_lock};

fn config(max_time: Duration) -> ClientConfig {
    ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(20),
        stream_idle_timeout: Duration::from_secs(20),
        max_time: Some(max_time),
        proxy: Some(String::new()),
        ..ClientConfig::default()
    }
}

#[test]
fn a_stream_kept_alive_by_comments_ends_at_max_time_without_resubscribing() {
    let _t = timing_lock();
    let fs = FaultServer::start();
    let cfg = ClientConfig {
        stream_resubscribe_attempts: 3,
        ..config(Duration::from_millis(1500))
    };
    let client = Client::new(&fs.agent("keepalive-100-30000"), cfg).unwrap();
    let started = Instant::now();
    let mut end = None;
    let mut resubscribed = false;
    for ev in client.stream_text("hello", &CallOptions::default()) {
        match ev {
            StreamEvent::Resubscribing { .. } => resubscribed = true,
            StreamEvent::End(e) => end = Some(e),
            StreamEvent::Item(_) => {}
        }
    }
    let end = end.expect("the stream ends");
    assert_between(
        started.elapsed(),
        Duration::from_millis(1400),
        Duration::from_secs(10),
        "stream cut at max_time",
    );
    let o = &end.outcome;
    assert_eq!(o.channel, Channel::Transport, "{o:?}");
    assert_eq!(o.error, Some(ErrorName::Timeout));
    assert_eq!(o.request_sent, Some(RequestSent::Unknown));
    assert_eq!(o.retry, RetryAdvice::UnknownOutcome);
    assert!(
        o.message.as_deref().unwrap().contains("total deadline"),
        "{o:?}"
    );
    assert!(!resubscribed, "no resubscribe after the total deadline");
    assert_eq!(fs.counters("keepalive-100-30000")["resubscribes"], 0);
}

#[test]
fn an_unanswered_send_with_retries_is_cut_and_never_resent() {
    let _t = timing_lock();
    let fs = FaultServer::start();
    let cfg = ClientConfig {
        send_retries: 3,
        defer_card_resolution: true,
        ..config(Duration::from_millis(1200))
    };
    let client = Client::new(&fs.agent("hang"), cfg).unwrap();
    let opts = CallOptions {
        idempotency_key: Some("k-1".into()),
        ..CallOptions::default()
    };
    let started = Instant::now();
    let r = client.send_text("hello", &opts);
    assert_between(
        started.elapsed(),
        Duration::from_millis(1100),
        Duration::from_secs(10),
        "call cut at max_time",
    );
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout), "{:?}", r.outcome);
    assert_eq!(r.outcome.request_sent, Some(RequestSent::Unknown));
    assert!(
        r.outcome
            .message
            .as_deref()
            .unwrap()
            .contains("total deadline")
    );
    assert_eq!(r.correlation.attempts, 1);
    // The deferred card fetch ran inside the same deadline; one message, never resent.
    assert_eq!(fs.counters("hang")["cards"], 1);
    assert_eq!(fs.counters("hang")["messages"], 1);
}

/// Runs a stream to its end; the end and when it came.
fn run_to_end(s: a2a_core::driver::StreamCall) -> (a2a_core::driver::StreamFinal, Instant) {
    for ev in s.take(10_000) {
        if let StreamEvent::End(e) = ev {
            return (e, Instant::now());
        }
    }
    panic!("the stream ends");
}

#[test]
fn two_streams_on_one_thread_each_keep_their_own_total_deadline() {
    // The total deadline is a value of each call (the machine's), not state of the thread:
    // two streams opened and read on the same thread, with different deadlines, each end
    // at their own, and a call made on that thread in between has none.
    let _t = timing_lock();
    let fs = FaultServer::start();
    let cfg = ClientConfig {
        max_time: None,
        ..config(Duration::ZERO)
    };
    let client = Client::new(&fs.agent("keepalive-100-30000"), cfg).unwrap();
    let started = Instant::now();
    let short = CallOptions {
        deadline: Some(started + Duration::from_millis(800)),
        ..CallOptions::default()
    };
    let long = CallOptions {
        deadline: Some(started + Duration::from_millis(2500)),
        ..CallOptions::default()
    };
    // Both open (request sent, head read) before either is read.
    let a = client.stream_text("short", &short);
    let b = client.stream_text("long", &long);
    let (end_a, at_a) = run_to_end(a);
    let plain = client.get_task("task-1", &CallOptions::default());
    assert_ne!(
        plain.outcome.error,
        Some(ErrorName::Timeout),
        "a call after a stream inherits no deadline: {:?}",
        plain.outcome
    );
    let (end_b, at_b) = run_to_end(b);
    for (end, what) in [(&end_a, "short"), (&end_b, "long")] {
        let o = &end.outcome;
        assert_eq!(o.error, Some(ErrorName::Timeout), "{what}: {o:?}");
        assert!(
            o.message.as_deref().unwrap().contains("total deadline"),
            "{what}: {o:?}"
        );
    }
    assert_between(
        at_a - started,
        Duration::from_millis(700),
        Duration::from_millis(2400),
        "the short stream ends at its own deadline",
    );
    assert_between(
        at_b - started,
        Duration::from_millis(2400),
        Duration::from_secs(10),
        "the long stream ends at its own deadline, not the short one's",
    );
    assert_eq!(fs.counters("keepalive-100-30000")["resubscribes"], 0);
}

#[test]
fn without_max_time_a_stream_has_no_total_limit() {
    let _t = timing_lock();
    let fs = FaultServer::start();
    let cfg = ClientConfig {
        max_time: None,
        ..config(Duration::ZERO)
    };
    let client = Client::new(&fs.agent("keepalive-100-2000"), cfg).unwrap();
    let end = client
        .stream_text("hello", &CallOptions::default())
        .find_map(|e| match e {
            StreamEvent::End(e) => Some(e),
            _ => None,
        })
        .unwrap();
    assert_eq!(end.outcome.channel, Channel::Task, "{:?}", end.outcome);
    assert!(end.outcome.terminal);
}

#[test]
fn cli_max_time_bounds_the_whole_command() {
    let _t = timing_lock();
    let fs = FaultServer::start();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_a2a"))
        .args(["stream", &fs.agent("keepalive-100-30000"), "hello"])
        .args([
            "--allow-http",
            "--json",
            "--max-time",
            "1.5",
            "--resubscribes",
            "2",
        ])
        .output()
        .unwrap();
    assert_between(
        started.elapsed(),
        Duration::from_millis(1400),
        Duration::from_secs(15),
        "command cut at --max-time",
    );
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["error"], "Timeout", "{stdout}");
    assert_eq!(last["retry"], "unknown_outcome");
    assert_eq!(last["resubscribes"], 0, "{stdout}");
    assert_eq!(last["end"], "timed_out");
}
