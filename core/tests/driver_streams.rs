//! Streaming calls through the driver against the fault server: typed items, idle timeout
//! through the core's tracker, no total timeout, resubscribe instead of resend, the one
//! get-task fallback, bursts, gzip and split events.
#![cfg(feature = "driver")]

mod common;

use std::time::{Duration, Instant};

use a2a_core::driver::{CallOptions, Client, ClientConfig, StreamEvent, StreamFinal};
use a2a_core::outcome::{Channel, ErrorName, RequestSent, RetryAdvice, TaskState};
use a2a_core::stream::{StreamEndKind, StreamItem, StreamItemKind};
use common::{FaultServer, assert_between, timing_lock};

fn config() -> ClientConfig {
    ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(10),
        stream_idle_timeout: Duration::from_secs(5),
        ..ClientConfig::default()
    }
}

fn client_with(fs: &FaultServer, scenario: &str, config: ClientConfig) -> Client {
    Client::new(&fs.agent(scenario), config).expect("card resolves")
}

/// Runs a stream to its end (bounded: at most 10 000 events).
fn collect(c: &Client, text: &str) -> (Vec<StreamItem>, Vec<(String, u32)>, StreamFinal) {
    let mut items = Vec::new();
    let mut resubs = Vec::new();
    for ev in c.stream_text(text, &CallOptions::default()).take(10_000) {
        match ev {
            StreamEvent::Item(i) => items.push(i),
            StreamEvent::Resubscribing { task_id, attempt } => resubs.push((task_id, attempt)),
            StreamEvent::End(f) => return (items, resubs, f),
        }
    }
    panic!("stream ended without an End event");
}

#[test]
fn a_stream_yields_typed_items_and_ends_completed() {
    let fs = FaultServer::start();
    let c = client_with(&fs, "ok", config());
    let (items, resubs, end) = collect(&c, "hello");
    let kinds: Vec<StreamItemKind> = items.iter().map(|i| i.kind).collect();
    assert_eq!(
        kinds,
        [
            StreamItemKind::Task,
            StreamItemKind::StatusUpdate,
            StreamItemKind::ArtifactUpdate,
            StreamItemKind::StatusUpdate
        ]
    );
    assert!(items[3].ends_stream);
    assert!(resubs.is_empty());
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
    assert_eq!(end.outcome.state, Some(TaskState::Completed));
    let k = &end.correlation;
    assert_eq!(k.method, "SendStreamingMessage");
    assert!(k.task_id.as_deref().unwrap().starts_with("task-"));
    assert!(k.context_id.is_some());
    let seen = &fs.counters("ok")["seen"][0];
    assert_eq!(seen["method"], "message/stream");
    assert_eq!(seen["accept_encoding"], "identity");
    assert_eq!(seen["id"].as_str(), k.jsonrpc_id.as_deref());
    assert_eq!(seen["message_id"].as_str(), k.message_id.as_deref());
    assert_eq!(seen["traceparent"].as_str(), Some(k.traceparent.as_str()));
    assert_eq!(
        c.tally().count(
            "fault ok",
            "SendStreamingMessage",
            Channel::Task,
            "completed"
        ),
        1
    );
}

#[test]
fn a_dropped_stream_is_truncated_with_resubscribe_advice_by_default() {
    let fs = FaultServer::start();
    let c = client_with(&fs, "stream-drop", config());
    let (items, resubs, end) = collect(&c, "go");
    assert_eq!(items.len(), 3);
    assert!(resubs.is_empty(), "resubscribing is off by default");
    assert_eq!(end.kind, Some(StreamEndKind::Truncated));
    assert_eq!(end.outcome.retry, RetryAdvice::Resubscribe);
    assert!(end.outcome.task_id.as_deref().unwrap().starts_with("task-"));
    let k = fs.counters("stream-drop");
    assert_eq!(k["messages"], 1);
    assert_eq!(k["resubscribes"], 0);
}

#[test]
fn a_dropped_stream_is_resumed_by_resubscribing_never_by_resending() {
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "stream-drop",
        ClientConfig {
            stream_resubscribe_attempts: 2,
            ..config()
        },
    );
    let (items, resubs, end) = collect(&c, "go");
    assert_eq!(resubs.len(), 1);
    assert_eq!(
        Some(resubs[0].0.as_str()),
        end.correlation.task_id.as_deref()
    );
    assert_eq!(resubs[0].1, 1);
    let texts: Vec<String> = items
        .iter()
        .filter(|i| i.kind == StreamItemKind::ArtifactUpdate)
        .map(|i| i.artifact_id.clone().unwrap_or_default())
        .collect();
    assert_eq!(texts.len(), 2, "first chunk before the drop, last after");
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
    assert_eq!(end.outcome.state, Some(TaskState::Completed));
    assert_eq!(end.resubscribes, 1);
    assert!(!end.fetched_by_get);
    let k = fs.counters("stream-drop");
    assert_eq!(k["messages"], 1, "the message was sent exactly once");
    assert_eq!(k["resubscribes"], 1);
    let seen = k["seen"].as_array().unwrap();
    assert_eq!(seen[1]["method"], "tasks/resubscribe");
    assert_eq!(seen[0]["traceparent"], seen[1]["traceparent"]);
}

#[test]
fn a_task_finished_meanwhile_is_read_once_with_get() {
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "stream-finished",
        ClientConfig {
            stream_resubscribe_attempts: 3,
            ..config()
        },
    );
    let (_items, resubs, end) = collect(&c, "go");
    assert_eq!(resubs.len(), 1);
    assert!(end.fetched_by_get);
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
    assert_eq!(end.outcome.state, Some(TaskState::Completed));
    assert!(
        String::from_utf8_lossy(end.task_body.as_deref().unwrap()).contains("done"),
        "the task's final artifacts come back"
    );
    let k = fs.counters("stream-finished");
    assert_eq!(k["messages"], 1);
    assert_eq!(k["resubscribes"], 1);
    assert_eq!(k["gets"], 1, "get-task once, no loop");
}

#[test]
fn a_stalled_stream_is_cut_at_the_idle_timeout() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "stall",
        ClientConfig {
            stream_idle_timeout: Duration::from_secs(1),
            ..config()
        },
    );
    let t = Instant::now();
    let (items, _, end) = collect(&c, "go");
    assert_between(
        t.elapsed(),
        Duration::from_millis(900),
        Duration::from_secs(4),
        "idle",
    );
    assert_eq!(items.len(), 2);
    assert_eq!(end.kind, Some(StreamEndKind::TimedOut));
    assert_eq!(end.outcome.channel, Channel::Transport);
    assert_eq!(end.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(end.outcome.request_sent, Some(RequestSent::Unknown));
    assert_eq!(end.outcome.retry, RetryAdvice::Resubscribe);
    assert!(end.outcome.task_id.is_some());
}

#[test]
fn a_per_call_idle_timeout_overrides_the_clients() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(&fs, "stall", config()); // 5 s configured
    let t = Instant::now();
    let end = c
        .stream_text(
            "go",
            &CallOptions {
                idle_timeout: Some(Duration::from_millis(700)),
                ..CallOptions::default()
            },
        )
        .take(100)
        .find_map(|e| match e {
            StreamEvent::End(f) => Some(f),
            _ => None,
        })
        .unwrap();
    assert_between(
        t.elapsed(),
        Duration::from_millis(600),
        Duration::from_secs(3),
        "idle",
    );
    assert_eq!(end.kind, Some(StreamEndKind::TimedOut));
}

#[test]
fn a_stalled_stream_is_recovered_by_resubscribing() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "stall",
        ClientConfig {
            stream_idle_timeout: Duration::from_secs(1),
            stream_resubscribe_attempts: 1,
            ..config()
        },
    );
    let (_, resubs, end) = collect(&c, "go");
    assert_eq!(resubs.len(), 1);
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
    let k = fs.counters("stall");
    assert_eq!(k["messages"], 1);
    assert_eq!(k["resubscribes"], 1);
}

/// A silent fault-server scenario's client: 700 ms idle timeout, `resubscribes` allowed.
fn silent_client(fs: &FaultServer, scenario: &str, resubscribes: u32) -> Client {
    client_with(
        fs,
        scenario,
        ClientConfig {
            stream_idle_timeout: Duration::from_millis(700),
            stream_resubscribe_attempts: resubscribes,
            ..config()
        },
    )
}

#[test]
fn a_resubscribe_that_stays_silent_is_resubscribed_again_to_the_same_task() {
    // Issue 21 (the Go SDK server): the stream goes idle, the resubscribe's stream opens
    // and stays silent past the idle timeout too; it must keep the task id and use the
    // resubscribes left, not end as `Timeout` of no task with `backoff`.
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = silent_client(&fs, "silent-resub-2", 3);
    let (_, resubs, end) = collect(&c, "go");
    let task = end.correlation.task_id.clone().expect("task id");
    assert_eq!(
        resubs,
        [(task.clone(), 1), (task.clone(), 2), (task.clone(), 3)]
    );
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
    assert_eq!(end.outcome.state, Some(TaskState::Completed));
    assert_eq!(end.outcome.task_id.as_deref(), Some(task.as_str()));
    assert_eq!(end.resubscribes, 3);
    let k = fs.counters("silent-resub-2");
    assert_eq!(k["messages"], 1, "never resent");
    assert_eq!(k["resubscribes"], 3);
    for seen in k["seen"].as_array().unwrap().iter().skip(1) {
        assert_eq!(seen["method"], "tasks/resubscribe");
    }
}

#[test]
fn silent_resubscribes_past_the_allowed_ones_end_with_the_task_and_resubscribe_advice() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = silent_client(&fs, "silent-resub-9", 2);
    let (_, resubs, end) = collect(&c, "go");
    let task = end.correlation.task_id.clone().expect("task id");
    assert_eq!(resubs, [(task.clone(), 1), (task.clone(), 2)]);
    assert_eq!(end.kind, Some(StreamEndKind::TimedOut));
    assert_eq!(end.outcome.channel, Channel::Transport);
    assert_eq!(end.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(end.outcome.request_sent, Some(RequestSent::Unknown));
    assert_eq!(end.outcome.task_id.as_deref(), Some(task.as_str()));
    assert_eq!(end.outcome.retry, RetryAdvice::Resubscribe);
    assert_eq!(fs.counters("silent-resub-9")["resubscribes"], 2);

    // The caller's own resubscribe to a task knows that task as well.
    let end = c
        .resubscribe("task-77", &CallOptions::default())
        .take(100)
        .find_map(|e| match e {
            StreamEvent::End(f) => Some(f),
            _ => None,
        })
        .unwrap();
    assert_eq!(end.kind, Some(StreamEndKind::TimedOut));
    assert_eq!(end.outcome.task_id.as_deref(), Some("task-77"));
    assert_eq!(end.outcome.retry, RetryAdvice::Resubscribe);
}

#[test]
fn a_resubscribe_whose_head_comes_late_is_read_not_declared_idle() {
    // Issue 21 (the Go SDK server writes the response head with the first event): the wait
    // for the head is bounded by the call budget and does not count as stream silence.
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "late-resub-1500",
        ClientConfig {
            stream_idle_timeout: Duration::from_millis(500),
            stream_resubscribe_attempts: 3,
            ..config()
        },
    );
    let (_, resubs, end) = collect(&c, "go");
    assert_eq!(
        end.kind,
        Some(StreamEndKind::Completed),
        "{:?}",
        end.outcome
    );
    assert_eq!(end.outcome.state, Some(TaskState::Completed));
    assert_eq!(resubs.len(), 1, "{resubs:?}");
    assert_eq!(fs.counters("late-resub-1500")["resubscribes"], 1);
}

#[test]
fn resubscribes_whose_head_never_comes_end_with_the_task_and_resubscribe_advice() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "late-resub-5000",
        ClientConfig {
            stream_idle_timeout: Duration::from_millis(500),
            stream_resubscribe_attempts: 2,
            ..config()
        },
    );
    let opts = CallOptions {
        timeout: Some(Duration::from_millis(800)),
        ..CallOptions::default()
    };
    let mut resubs = Vec::new();
    let end = c
        .stream_text("go", &opts)
        .take(100)
        .find_map(|e| match e {
            StreamEvent::Resubscribing { task_id, .. } => {
                resubs.push(task_id);
                None
            }
            StreamEvent::End(f) => Some(f),
            StreamEvent::Item(_) => None,
        })
        .unwrap();
    let task = end.correlation.task_id.clone().expect("task id");
    assert_eq!(resubs, [task.clone(), task.clone()]);
    assert_eq!(end.kind, None, "the last resubscribe never opened");
    assert_eq!(
        end.outcome.error,
        Some(ErrorName::Timeout),
        "{:?}",
        end.outcome
    );
    assert_eq!(end.outcome.task_id.as_deref(), Some(task.as_str()));
    assert_eq!(end.outcome.retry, RetryAdvice::Resubscribe);
    assert_eq!(
        fs.counters("late-resub-5000")["messages"],
        1,
        "never resent"
    );
}

#[test]
fn keep_alives_for_three_idle_timeouts_keep_the_stream() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "keepalive-250-3000",
        ClientConfig {
            stream_idle_timeout: Duration::from_secs(1),
            ..config()
        },
    );
    let t = Instant::now();
    let (items, _, end) = collect(&c, "go");
    assert!(t.elapsed() >= Duration::from_millis(2900));
    assert_eq!(
        end.kind,
        Some(StreamEndKind::Completed),
        "{:?}",
        end.outcome
    );
    assert_eq!(items.last().unwrap().kind, StreamItemKind::StatusUpdate);
}

#[test]
fn a_loop_body_slower_than_the_idle_timeout_reads_what_came_meanwhile() {
    // Events every 100 ms for 1.5 s, a 400 ms idle timeout, and a caller that spends 700 ms
    // on the first item: when it comes back the idle deadline has passed, but the server
    // was never silent, and its events wait unread. They are read, not cut as idle.
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "flow-100-1500",
        ClientConfig {
            stream_idle_timeout: Duration::from_millis(400),
            ..config()
        },
    );
    let mut items = 0;
    let mut slept = false;
    let mut end = None;
    for ev in c.stream_text("go", &CallOptions::default()).take(10_000) {
        match ev {
            StreamEvent::Item(_) => {
                items += 1;
                if !slept {
                    slept = true;
                    std::thread::sleep(Duration::from_millis(700));
                }
            }
            StreamEvent::Resubscribing { .. } => panic!("resubscribed: the stream was cut"),
            StreamEvent::End(f) => {
                end = Some(f);
                break;
            }
        }
    }
    let end = end.expect("the stream ends");
    assert_eq!(
        end.kind,
        Some(StreamEndKind::Completed),
        "{:?}",
        end.outcome
    );
    assert!(items >= 10, "{items} items");
}

#[test]
fn a_loop_body_slower_than_the_idle_timeout_reads_what_its_transport_already_holds() {
    // The server's events come 50 ms apart for 200 ms, each its own HTTP chunk, then
    // nothing (the connection stays open); the caller spends 350 ms on every item against a
    // 200 ms idle timeout. The events that came while it was away are read from the socket
    // together and wait in the transport's buffers, not on the socket: each is read, and the
    // stream completes.
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "flow-50-200",
        ClientConfig {
            stream_idle_timeout: Duration::from_millis(200),
            ..config()
        },
    );
    let mut items = 0;
    let mut end = None;
    for ev in c.stream_text("go", &CallOptions::default()).take(100) {
        match ev {
            StreamEvent::Item(_) => {
                items += 1;
                std::thread::sleep(Duration::from_millis(350));
            }
            StreamEvent::Resubscribing { .. } => panic!("resubscribed: the stream was cut"),
            StreamEvent::End(f) => {
                end = Some(f);
                break;
            }
        }
    }
    let end = end.expect("the stream ends");
    assert_eq!(
        end.kind,
        Some(StreamEndKind::Completed),
        "{:?}",
        end.outcome
    );
    assert!(items >= 5, "{items} items");
}

#[test]
fn a_loop_body_slower_than_the_idle_timeout_on_a_silent_server_still_times_out() {
    // The same slow caller on a server that went silent: nothing waits, so the idle
    // deadline that passed while the caller was away ends the stream at once.
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "stall",
        ClientConfig {
            stream_idle_timeout: Duration::from_millis(300),
            ..config()
        },
    );
    let mut stream = c.stream_text("go", &CallOptions::default());
    let first = stream.next();
    assert!(matches!(first, Some(StreamEvent::Item(_))), "{first:?}");
    std::thread::sleep(Duration::from_millis(1500));
    let t = Instant::now();
    let end = stream
        .take(100)
        .find_map(|e| match e {
            StreamEvent::End(f) => Some(f),
            _ => None,
        })
        .expect("the stream ends");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(end.kind, Some(StreamEndKind::TimedOut));
    assert_eq!(end.outcome.error, Some(ErrorName::Timeout));
}

#[test]
fn a_stream_outlives_the_call_timeout_while_events_flow() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "flow-200-3000",
        ClientConfig {
            call_timeout: Duration::from_secs(1),
            stream_idle_timeout: Duration::from_secs(1),
            ..config()
        },
    );
    let t = Instant::now();
    let (items, _, end) = collect(&c, "go");
    assert!(t.elapsed() >= Duration::from_millis(2900));
    assert!(items.len() >= 10, "{} items", items.len());
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
}

#[test]
fn a_burst_of_events_is_parsed_in_order() {
    let fs = FaultServer::start();
    let c = client_with(&fs, "burst-200", config());
    let (items, _, end) = collect(&c, "go");
    assert_eq!(items.len(), 202);
    let artifacts: Vec<&StreamItem> = items
        .iter()
        .filter(|i| i.kind == StreamItemKind::ArtifactUpdate)
        .collect();
    assert_eq!(artifacts.len(), 200);
    assert!(!artifacts[0].append);
    assert!(artifacts[1..].iter().all(|a| a.append));
    assert!(artifacts[199].last_chunk);
    assert!(artifacts[..199].iter().all(|a| !a.last_chunk));
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
}

#[test]
fn a_gzipped_stream_is_decoded() {
    let fs = FaultServer::start();
    let c = client_with(&fs, "gzip", config());
    let (items, _, end) = collect(&c, "zipped");
    assert_eq!(items.len(), 4);
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
}

#[test]
fn events_split_over_data_lines_with_crlf_and_comments_are_whole() {
    let fs = FaultServer::start();
    let c = client_with(&fs, "multiline", config());
    let (items, _, end) = collect(&c, "split");
    assert_eq!(items.len(), 4);
    assert!(items.iter().all(|i| i.kind != StreamItemKind::Malformed));
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
}

#[test]
fn an_error_instead_of_a_stream_is_classified() {
    let fs = FaultServer::start();
    let c = client_with(&fs, "status-503-rpc", config());
    let (items, _, end) = collect(&c, "go");
    assert!(items.is_empty());
    assert_eq!(end.kind, Some(StreamEndKind::NotAStream));
    assert_eq!(end.outcome.channel, Channel::Protocol);
    let c = client_with(&fs, "redirect", config());
    let (_, _, end) = collect(&c, "go");
    assert_eq!(end.outcome.error, Some(ErrorName::Redirect));
    assert_eq!(fs.counters("redirect-target")["requests"], 0);
}

#[test]
fn a_stream_that_never_answers_is_cut_at_the_call_timeout() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "hang",
        ClientConfig {
            call_timeout: Duration::from_secs(1),
            ..config()
        },
    );
    let t = Instant::now();
    let (_, _, end) = collect(&c, "go");
    assert_between(
        t.elapsed(),
        Duration::from_millis(900),
        Duration::from_secs(4),
        "head",
    );
    assert_eq!(end.kind, None);
    assert_eq!(end.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(end.outcome.request_sent, Some(RequestSent::Unknown));
}

#[test]
fn resubscribe_by_task_id() {
    let fs = FaultServer::start();
    let c = client_with(&fs, "ok", config());
    let events: Vec<StreamEvent> = c
        .resubscribe("task-5", &CallOptions::default())
        .take(100)
        .collect();
    let Some(StreamEvent::End(end)) = events.last() else {
        panic!("no end");
    };
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
    assert_eq!(end.correlation.method, "SubscribeToTask");
    assert_eq!(end.correlation.task_id.as_deref(), Some("task-5"));
    assert_eq!(fs.counters("ok")["resubscribes"], 1);
}

#[test]
fn a_stream_outlives_its_client_handle_and_moves_across_threads() {
    fn assert_send_static<T: Send + 'static>() {}
    fn assert_sync<T: Sync>() {}
    assert_send_static::<a2a_core::driver::StreamCall>();
    assert_send_static::<Client>();
    assert_sync::<Client>();
    let fs = FaultServer::start();
    let c = client_with(&fs, "burst-5", config());
    let s = c.stream_text("go", &CallOptions::default());
    drop(c);
    let events: Vec<StreamEvent> = std::thread::spawn(move || s.take(100).collect())
        .join()
        .unwrap();
    assert_eq!(events.len(), 8, "task, 5 chunks, completed, end");
    assert!(
        matches!(events.last(), Some(StreamEvent::End(f)) if f.kind == Some(StreamEndKind::Completed))
    );
}

#[test]
fn a_body_in_an_encoding_the_driver_cannot_decode_is_refused_not_parsed() {
    let fs = FaultServer::start();
    let c = client_with(&fs, "brotli", config());
    let (items, _, end) = collect(&c, "go");
    assert!(items.is_empty(), "no garbage items: {items:?}");
    assert_eq!(end.kind, None);
    assert_eq!(end.outcome.channel, Channel::Malformed);
    assert_eq!(end.outcome.http_status, Some(200));
    assert!(end.outcome.message.as_deref().unwrap().contains("\"br\""));
}

#[test]
fn an_abandoned_stream_returns_the_breakers_trial_permit() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "stream-drop",
        ClientConfig {
            breaker: Some(a2a_core::resilience::BreakerConfig {
                failure_threshold: 1,
                failure_rate_percent: 0,
                half_open_trials: 1,
                cool_down: a2a_core::time::Millis(200),
                ..Default::default()
            }),
            ..config()
        },
    );
    // A cut stream is a counted failure: the breaker opens.
    let (_, _, end) = collect(&c, "x");
    assert_eq!(end.kind, Some(StreamEndKind::Truncated));
    assert_eq!(
        c.breaker_state(),
        Some(a2a_core::resilience::BreakerState::Open)
    );
    std::thread::sleep(Duration::from_millis(300));
    // Half-open: the single trial permit goes to this stream, which the caller abandons.
    let mut s = c.stream_text("x", &CallOptions::default());
    assert!(matches!(s.next(), Some(StreamEvent::Item(_))));
    drop(s);
    // The permit came back: the next call is allowed (not refused as CircuitOpen).
    let r = c.send_text("x", &CallOptions::default());
    assert_ne!(
        r.outcome.error,
        Some(ErrorName::CircuitOpen),
        "{:?}",
        r.outcome
    );
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
}

#[test]
fn an_event_over_the_size_limit_is_reported_never_skipped_silently() {
    let fs = FaultServer::start();
    // bigevent: one 5000-byte data line; bigmulti: many short lines adding up to 5000 bytes
    // (the decoder's line limit and event limit respectively).
    for scenario in ["bigevent-5000", "bigmulti-5000"] {
        let c = client_with(
            &fs,
            scenario,
            ClientConfig {
                max_event_bytes: 1000,
                ..config()
            },
        );
        let (items, _, end) = collect(&c, "go");
        let kinds: Vec<StreamItemKind> = items.iter().map(|i| i.kind).collect();
        assert_eq!(
            kinds,
            [
                StreamItemKind::Task,
                StreamItemKind::StatusUpdate,
                StreamItemKind::Malformed,
                StreamItemKind::ArtifactUpdate,
                StreamItemKind::StatusUpdate,
            ],
            "{scenario}"
        );
        let dropped = &items[2].outcome;
        assert_eq!(dropped.channel, Channel::Malformed);
        let msg = dropped.message.as_deref().unwrap();
        assert!(
            msg.contains("dropped") && msg.contains("1000-byte"),
            "{scenario}: {msg}"
        );
        assert!(!items[2].ends_stream);
        // The task exists and holds what the event carried: read it, never resend.
        assert_eq!(dropped.task_id.as_deref(), end.outcome.task_id.as_deref());
        assert!(dropped.task_id.is_some());
        assert_eq!(dropped.retry, RetryAdvice::Poll);
        // The events after it still arrive, and the end says how many were lost.
        assert_eq!(items[3].outcome.text.as_deref(), Some("tail"));
        assert_eq!(end.kind, Some(StreamEndKind::Completed));
        assert_eq!(end.outcome.state, Some(TaskState::Completed));
        assert_eq!(end.dropped_events, 1, "{scenario}");
    }
    // Under the default limit the same streams arrive whole, nothing dropped.
    for scenario in ["bigevent-5000", "bigmulti-5000"] {
        let c = client_with(&fs, scenario, config());
        let (items, _, end) = collect(&c, "go");
        assert!(items.iter().all(|i| i.kind != StreamItemKind::Malformed));
        let big = items
            .iter()
            .find(|i| i.kind == StreamItemKind::ArtifactUpdate)
            .unwrap();
        // (the parts of bigmulti are joined with LF in the item's text)
        let text = big.outcome.text.as_deref().unwrap().replace('\n', "");
        assert_eq!(text.len(), 5000, "{scenario}");
        assert!(text.bytes().all(|b| b == b'x'));
        assert_eq!(end.dropped_events, 0);
        assert_eq!(end.kind, Some(StreamEndKind::Completed));
    }
}

#[test]
fn a_drop_after_the_final_event_is_a_completed_stream_not_a_resubscribe() {
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "final-drop",
        ClientConfig {
            stream_resubscribe_attempts: 2,
            ..config()
        },
    );
    let (items, resubs, end) = collect(&c, "all of it");
    assert!(resubs.is_empty(), "{resubs:?}");
    assert_eq!(
        end.kind,
        Some(StreamEndKind::Completed),
        "{:?}",
        end.outcome
    );
    assert_eq!(end.outcome.state, Some(TaskState::Completed));
    assert_eq!(end.resubscribes, 0);
    assert!(
        items
            .iter()
            .any(|i| i.outcome.text.as_deref() == Some("all of it"))
    );
    let k = fs.counters("final-drop");
    assert_eq!(k["streams"], 1);
    assert_eq!(k["resubscribes"], 0);
    assert_eq!(k["gets"], 0);
}

#[test]
fn opening_a_stream_sends_the_request_before_the_first_next() {
    let fs = FaultServer::start();
    let c = client_with(&fs, "ok", config());
    let mut s = c.stream_text("eager", &CallOptions::default());
    // Nothing has been read from the iterator yet; the server already has the request.
    assert_eq!(fs.counters("ok")["streams"], 1);
    assert!(matches!(s.next(), Some(StreamEvent::Item(_))));
    // A failed open is the first (and only) event: the End.
    let dead = Client::with_target(
        a2a_core::driver::Target::new(
            "http://127.0.0.1:9/a2a",
            a2a_core::version::ProtocolVersion::V0_3,
            a2a_core::version::Binding::JsonRpc,
        ),
        config(),
    );
    let mut s = dead.stream_text("x", &CallOptions::default());
    match s.next() {
        Some(StreamEvent::End(end)) => {
            assert_eq!(end.kind, None);
            assert_eq!(end.outcome.channel, Channel::Transport);
            assert_eq!(end.outcome.request_sent, Some(RequestSent::No));
        }
        other => panic!("expected the End event first, got {other:?}"),
    }
    assert!(s.next().is_none());
}

#[test]
fn the_end_hands_over_the_assembled_answer_and_counts_unreadable_events() {
    use a2a_core::model::SendResponse;
    let fs = common::FaultServer::start();
    let cfg = a2a_core::driver::ClientConfig {
        allow_http: true,
        ..a2a_core::driver::ClientConfig::default()
    };
    let c = a2a_core::driver::Client::new(&fs.agent("burst-3"), cfg.clone()).unwrap();
    let mut items_with_event = 0;
    let mut end = None;
    for ev in c.stream_text("x", &a2a_core::driver::CallOptions::default()) {
        match ev {
            a2a_core::driver::StreamEvent::Item(i) => {
                items_with_event += usize::from(i.event.is_some())
            }
            a2a_core::driver::StreamEvent::End(e) => end = Some(e),
            _ => {}
        }
    }
    let end = end.unwrap();
    assert_eq!(items_with_event, 5);
    assert_eq!(end.exit_code(), 0);
    let Some(SendResponse::Task(t)) = &end.answer else {
        panic!("a task")
    };
    assert_eq!(t.artifacts.len(), 1);
    assert_eq!(t.artifacts[0].parts.len(), 3);

    let c = a2a_core::driver::Client::new(&fs.agent("badevent"), cfg).unwrap();
    let end = c
        .stream_text("hello", &a2a_core::driver::CallOptions::default())
        .find_map(|e| match e {
            a2a_core::driver::StreamEvent::End(e) => Some(e),
            _ => None,
        })
        .unwrap();
    assert_eq!(end.unreadable_events, 1);
    assert!(end.lost_content());
    assert_eq!(
        end.outcome.exit_code(),
        0,
        "the outcome still reports the completed state"
    );
    assert_eq!(end.exit_code(), 3);
}

#[test]
fn events_before_a_bad_chunk_size_in_the_same_read_are_delivered() {
    // The fault server writes three whole events and then a chunk-size line that is not
    // hex in one TCP write, and cuts the connection. The events were fully received: each
    // is delivered; the framing error then ends the stream as a cut one (the task is still
    // working), which loses the rest of the answer: exit 3, never success.
    let fs = FaultServer::start();
    let c = client_with(&fs, "badchunk", config());
    let (items, resubs, end) = collect(&c, "before the break");
    let kinds: Vec<_> = items.iter().map(|i| i.kind).collect();
    assert_eq!(
        kinds,
        [
            StreamItemKind::Task,
            StreamItemKind::StatusUpdate,
            StreamItemKind::ArtifactUpdate
        ],
        "{items:?}"
    );
    assert_eq!(items[2].outcome.text.as_deref(), Some("before the break"));
    let Some(a2a_core::model::SendResponse::Task(t)) = &end.answer else {
        panic!("the answer so far: {:?}", end.answer)
    };
    assert_eq!(t.artifacts.len(), 1, "the artifact event arrived");
    assert!(resubs.is_empty());
    assert_eq!(end.kind, Some(StreamEndKind::Truncated));
    assert_eq!(end.outcome.state, Some(TaskState::Working));
    assert_eq!(end.outcome.retry, RetryAdvice::Resubscribe);
    assert_eq!(end.outcome.channel, Channel::Transport);
    let said = end.outcome.message.as_deref().unwrap_or_default();
    assert!(
        said.contains("last state working") && said.contains("chunk length"),
        "{said}"
    );
    assert_eq!(end.exit_code(), 3, "{:?}", end.outcome);
    assert_eq!(fs.counters("badchunk")["messages"], 1);
}

#[test]
fn gzipped_events_before_a_bad_chunk_size_are_delivered() {
    // The same break inside a gzip-encoded stream: ureq still decodes the gzip member (cut
    // before its trailer), and the events it holds are delivered before the framing error.
    let fs = FaultServer::start();
    let c = client_with(&fs, "badchunk-gzip", config());
    let (items, _, end) = collect(&c, "zipped, then broken");
    let kinds: Vec<_> = items.iter().map(|i| i.kind).collect();
    assert_eq!(
        kinds,
        [
            StreamItemKind::Task,
            StreamItemKind::StatusUpdate,
            StreamItemKind::ArtifactUpdate
        ],
        "{items:?}"
    );
    assert_eq!(
        items[2].outcome.text.as_deref(),
        Some("zipped, then broken")
    );
    assert_eq!(end.kind, Some(StreamEndKind::Truncated));
    assert_eq!(end.exit_code(), 3, "{:?}", end.outcome);
}

fn quick_wait() -> a2a_core::client::WaitConfig {
    a2a_core::client::WaitConfig {
        first_interval: a2a_core::time::Millis(50),
        max_interval: a2a_core::time::Millis(100),
        max_time: a2a_core::time::Millis(10_000),
    }
}

#[test]
fn a_refused_resubscribe_falls_back_to_polling_until_the_task_settles() {
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "stream-noresub-2",
        ClientConfig {
            stream_resubscribe_attempts: 3,
            ..config()
        },
    );
    let (_items, resubs, end) = collect(&c, "go");
    assert_eq!(resubs.len(), 1);
    assert!(end.fetched_by_get, "the one get after the refusal");
    assert_eq!(
        end.outcome.state,
        Some(TaskState::Working),
        "{:?}",
        end.outcome
    );
    let opts = CallOptions::default();
    let (task, _) = c
        .stream_fallback(&end, quick_wait(), &opts)
        .expect("falls back");
    assert_eq!(Some(task.as_str()), end.outcome.task_id.as_deref());
    let r = c
        .wait_after_stream(&end, quick_wait(), &opts)
        .expect("polled");
    assert_eq!(
        r.outcome.state,
        Some(TaskState::Completed),
        "{:?}",
        r.outcome
    );
    let k = fs.counters("stream-noresub-2");
    assert_eq!(k["messages"], 1, "never resent");
    assert_eq!(k["resubscribes"], 1);
    assert_eq!(k["gets"], 3, "the fallback get, then polls until completed");
}

#[test]
fn spent_resubscribes_fall_back_to_polling_and_a_settled_stream_stands() {
    let fs = FaultServer::start();
    let c = client_with(
        &fs,
        "stream-drop",
        ClientConfig {
            stream_resubscribe_attempts: 0,
            ..config()
        },
    );
    let (_items, resubs, end) = collect(&c, "go");
    assert!(resubs.is_empty());
    assert_eq!(
        end.outcome.retry,
        RetryAdvice::Resubscribe,
        "{:?}",
        end.outcome
    );
    let r = c
        .wait_after_stream(&end, quick_wait(), &CallOptions::default())
        .expect("polled");
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert_eq!(fs.counters("stream-drop")["gets"], 1);
    // A stream that completed needs no polls; nor does one whose deadline has passed.
    let c = client_with(&fs, "ok", config());
    let (_, _, end) = collect(&c, "hello");
    assert!(
        c.wait_after_stream(&end, quick_wait(), &CallOptions::default())
            .is_none()
    );
    let c = client_with(&fs, "stream-noresub-0", config());
    let (_, _, end) = collect(&c, "go");
    let past = CallOptions {
        deadline: Some(Instant::now()),
        ..CallOptions::default()
    };
    assert!(c.stream_fallback(&end, quick_wait(), &past).is_none());
    assert_eq!(fs.counters("ok")["gets"], 0);
}

#[test]
fn a2a_stream_wait_polls_after_a_stream_that_cannot_be_resumed() {
    let fs = FaultServer::start();
    let run = |scenario: &str, extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_a2a"))
            .args([
                "stream",
                &fs.agent(scenario),
                "go",
                "--allow-http",
                "--json",
            ])
            .args(extra)
            .output()
            .expect("run a2a")
    };
    // Without --wait the stream's result stands: cut, no resubscribe allowed (exit 3); with
    // resubscribes the refusal and the one get leave the task working (exit 7).
    let out = run("stream-noresub-3", &[]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = run("stream-noresub-3", &["--resubscribes", "2"]);
    assert_eq!(
        out.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // (The scenario's get counter is its own: one scenario per run.)
    for (scenario, extra) in [
        ("stream-noresub-1", &[][..]),
        ("stream-noresub-2", &["--resubscribes", "2"][..]),
    ] {
        let out = run(
            scenario,
            &[&["--wait", "--poll-interval", "0.05"][..], extra].concat(),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("\"fallback\":\"poll\""), "{stdout}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("polling it"),
            "announced on stderr"
        );
        assert_eq!(fs.counters(scenario)["messages"], 1, "never resent");
    }
}

#[test]
fn the_demo_agent_streams_its_chunks_as_it_makes_them() {
    // `a2a demo --serve`: `count 5` makes five artifact chunks 120 ms apart. The first
    // reaches the client before the last is made (the agent once held every event until
    // its script ended, so a stream arrived whole, at its end).
    let _g = timing_lock();
    let demo = common::Demo::start(&[]);
    let c = Client::new(&demo.url, config()).expect("card resolves");
    let t = Instant::now();
    let mut first_chunk = None;
    let mut end = None;
    for ev in c.stream_text("count 5", &CallOptions::default()).take(100) {
        match ev {
            StreamEvent::Item(i) if i.kind == StreamItemKind::ArtifactUpdate => {
                first_chunk.get_or_insert(t.elapsed());
            }
            StreamEvent::End(f) => {
                end = Some((f, t.elapsed()));
                break;
            }
            _ => {}
        }
    }
    let (end, at_end) = end.expect("the stream ends");
    assert_eq!(end.kind, Some(StreamEndKind::Completed));
    let first = first_chunk.expect("chunks");
    assert!(
        at_end.saturating_sub(first) >= Duration::from_millis(300),
        "first chunk at {first:?}, end at {at_end:?}"
    );
}
