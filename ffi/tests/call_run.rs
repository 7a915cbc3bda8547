//! `a2a_call_run`: client machines run over the driver's native transport against the
//! project's fault server (`a2a-testkit fault-server`, a child process), each scenario's
//! result compared with the Rust driver's for the same scenario.
//!
//! The fault server binary is `$A2A_TESTKIT_BIN`, else the one beside this test's target
//! directory (`cargo build -p a2a-testkit`; `cargo test --workspace` builds it).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

use a2a::driver::{CallOptions, Client, ClientConfig, StreamEvent, Target};
use a2a::version::{Binding, ProtocolVersion};
use a2a_core::driver::{a2a_transport, a2a_transport_free, a2a_transport_new};
use a2a_core::driver_raw::*;
use a2a_core::machine::*;
use a2a_core::machine_config::*;
use a2a_core::outcome::{a2a_outcome, a2a_outcome_get_info, a2a_outcome_info};
use a2a_core::result::a2a_result;
use a2a_core::vocab::a2a_vocab_name;
use common::{machine_config, view_string};

/// The `a2a-testkit` binary.
fn testkit_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("A2A_TESTKIT_BIN").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    // target/<profile>/deps/call_run-<hash> → target/<profile>/a2a-testkit
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join(format!("a2a-testkit{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.is_file(),
        "the fault server {} is not built: run `cargo build -p a2a-testkit` or set A2A_TESTKIT_BIN",
        bin.display()
    );
    bin
}

/// A running fault server, killed on drop.
struct FaultServer {
    child: Child,
    base: String,
}

impl FaultServer {
    fn start() -> FaultServer {
        let mut child = Command::new(testkit_bin())
            .args(["fault-server", "--port", "0", "--exit-on-eof"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn a2a-testkit fault-server");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(u) = line.strip_prefix("READY ") {
                    let _ = tx.send(u.to_owned());
                    break;
                }
            }
        });
        let base = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("fault server READY within 20 s");
        FaultServer { child, base }
    }

    fn a2a(&self, scenario: &str) -> String {
        format!("{}/{scenario}/a2a", self.base)
    }

    /// One scenario's counters, read with a plain socket.
    fn counters(&self, scenario: &str) -> serde_json::Value {
        let addr = self.base.trim_start_matches("http://");
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET /_counters/{scenario} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap()
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The native transport: plain http allowed, 2 s to connect.
fn transport() -> *mut a2a_transport {
    transport_with(|_| {})
}

/// The native transport made from a machine config with whatever `f` sets on its builder
/// (after plain http and a 2 s connect timeout).
fn transport_with(f: impl FnOnce(*mut a2a_client_config_builder)) -> *mut a2a_transport {
    let cfg = machine_config(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::ConnectTimeoutMs as u32, 2000),
            a2a_result::A2A_OK
        );
        f(b);
    });
    let mut t = null_mut();
    assert_eq!(a2a_transport_new(cfg, &mut t), a2a_result::A2A_OK);
    a2a_machine_config_free(cfg);
    t
}

/// A 0.3 JSON-RPC state for `url` with `options` (`a2a_client_option`, value) set.
fn state(url: &str, options: &[(a2a_client_option, u64)]) -> *mut a2a_client_state {
    let cfg = machine_config(|b| {
        for (o, v) in options {
            assert_eq!(
                a2a_client_config_builder_set(b, *o as u32, *v),
                a2a_result::A2A_OK
            );
        }
    });
    let mut st = null_mut();
    assert_eq!(
        a2a_client_state_new(cfg, url.as_ptr().cast(), url.len(), 1, 1, 42, &mut st),
        a2a_result::A2A_OK
    );
    a2a_machine_config_free(cfg);
    st
}

fn text_call(st: *mut a2a_client_state, streaming: bool, text: &str) -> *mut a2a_call {
    let mut call = null_mut();
    assert_eq!(
        a2a_call_new_text(
            st,
            streaming,
            text.as_ptr().cast(),
            text.len(),
            null(),
            5_000,
            &mut call
        ),
        a2a_result::A2A_OK
    );
    call
}

/// An event copied out of the call (its views die at the next poll).
#[derive(Debug, Clone, Default)]
struct Ev {
    kind: u32,
    attempt: u32,
    channel: String,
    error: Option<String>,
    state: Option<String>,
    error_id: Option<String>,
    message: Option<String>,
    http_status: Option<u16>,
    request_sent: Option<String>,
    text: Option<String>,
    exit_code: i32,
    resubscribes: u32,
    attempts: u32,
    card_json: Option<String>,
    interface_url: Option<String>,
    has_response: bool,
}

fn vocab(v: u32, n: u32) -> Option<String> {
    view_string(a2a_vocab_name(v, n))
}

fn outcome_fields(o: *const a2a_outcome, ev: &mut Ev) {
    if o.is_null() {
        return;
    }
    let mut i = std::mem::MaybeUninit::<a2a_outcome_info>::uninit();
    assert_eq!(a2a_outcome_get_info(o, i.as_mut_ptr()), a2a_result::A2A_OK);
    let i = unsafe { i.assume_init() };
    ev.channel = vocab(1, i.channel as u32).unwrap();
    ev.error = i.has_error_name.then(|| vocab(5, i.error_name).unwrap());
    ev.state = i.has_state.then(|| vocab(2, i.state).unwrap());
    ev.request_sent = i
        .has_request_sent
        .then(|| vocab(4, i.request_sent).unwrap());
    ev.http_status = i.has_http_status.then_some(i.http_status);
    ev.error_id = view_string(i.error_id);
    ev.message = view_string(i.message);
}

/// Every event queued now.
fn drain(call: *mut a2a_call) -> Vec<Ev> {
    let mut out = Vec::new();
    loop {
        let mut e = std::mem::MaybeUninit::<a2a_event>::uninit();
        match a2a_call_poll_event(call, e.as_mut_ptr()) {
            a2a_result::A2A_NONE => return out,
            a2a_result::A2A_OK => {}
            other => panic!("poll_event: {other:?}"),
        }
        let e = unsafe { e.assume_init() };
        let mut ev = Ev {
            kind: e.kind as u32,
            attempt: e.attempt,
            text: view_string(e.answer_text),
            exit_code: e.exit_code,
            resubscribes: e.resubscribes,
            attempts: e.correlation.attempts,
            card_json: view_string(e.card_json),
            interface_url: view_string(e.interface_url),
            has_response: e.has_response,
            ..Ev::default()
        };
        outcome_fields(e.outcome, &mut ev);
        out.push(ev);
    }
}

/// Runs `call` to its end: the events of each run, the FINISHED one last.
fn run_to_end(
    call: *mut a2a_call,
    t: *const a2a_transport,
    abort: *const a2a_abort,
) -> Vec<Vec<Ev>> {
    let mut runs = Vec::new();
    let mut now = 5_000;
    for _ in 0..200 {
        let mut reached = 0;
        assert_eq!(
            a2a_call_run(call, t, abort, now, &mut reached),
            a2a_result::A2A_OK
        );
        assert!(reached >= now, "the clock never goes back");
        now = reached;
        let evs = drain(call);
        assert!(!evs.is_empty(), "a run returns with an event queued");
        assert!(
            evs.iter().all(|e| e.kind != a2a_event_kind::Abort as u32),
            "ABORT events are the loop's own"
        );
        let done = evs
            .iter()
            .any(|e| e.kind == a2a_event_kind::Finished as u32);
        runs.push(evs);
        if done {
            assert_eq!(
                a2a_call_run(call, t, abort, now, null_mut()),
                a2a_result::A2A_CALL_FINISHED
            );
            return runs;
        }
    }
    panic!("no FINISHED within 200 runs");
}

fn finished(runs: &[Vec<Ev>]) -> Ev {
    let last = runs.last().unwrap().last().unwrap().clone();
    assert_eq!(last.kind, a2a_event_kind::Finished as u32);
    last
}

fn kinds(runs: &[Vec<Ev>], kind: a2a_event_kind) -> Vec<Ev> {
    runs.iter()
        .flatten()
        .filter(|e| e.kind == kind as u32)
        .cloned()
        .collect()
}

/// The Rust driver for the same interface.
fn driver(url: &str, f: impl FnOnce(&mut ClientConfig)) -> Client {
    let mut cfg = ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        ..ClientConfig::default()
    };
    f(&mut cfg);
    Client::with_target(
        Target::new(url, ProtocolVersion::V0_3, Binding::JsonRpc),
        cfg,
    )
}

/// Asserts the run's outcome and the Rust driver's agree.
fn same_as_driver(ev: &Ev, o: &a2a::outcome::Outcome, exit_code: i32) {
    assert_eq!(ev.channel, o.channel.as_str());
    assert_eq!(ev.error.as_deref(), o.error.map(|e| e.as_str()));
    assert_eq!(ev.exit_code, exit_code);
    assert_eq!(ev.http_status, o.http_status);
}

#[test]
fn a_send_answers_the_agents_text_as_the_driver_does() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(&fs.a2a("ok"), &[]);
    let call = text_call(st, false, "hello pump");
    let runs = run_to_end(call, t, null());
    assert_eq!(runs.len(), 1, "a send is one run");
    let end = finished(&runs);
    assert_eq!(end.channel, "task");
    assert_eq!(end.state.as_deref(), Some("completed"));
    assert!(
        end.text.as_deref().unwrap().contains("hello pump"),
        "{end:?}"
    );
    assert_eq!(end.exit_code, 0);
    let r = driver(&fs.a2a("ok"), |_| {}).send_text("hello pump", &CallOptions::default());
    same_as_driver(&end, &r.outcome, r.outcome.exit_code());
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn a_stream_hands_out_its_items_across_several_runs() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(&fs.a2a("flow-100-500"), &[]);
    let call = text_call(st, true, "go");
    let runs = run_to_end(call, t, null());
    let items = kinds(&runs, a2a_event_kind::Item);
    let with_items = runs
        .iter()
        .filter(|r| r.iter().any(|e| e.kind == a2a_event_kind::Item as u32))
        .count();
    assert!(
        with_items >= 3,
        "items arrive as they come, not all at the end: {with_items} runs"
    );
    let end = finished(&runs);
    assert_eq!(end.state.as_deref(), Some("completed"));
    let mut d_items = 0;
    let mut d_end = None;
    for e in driver(&fs.a2a("flow-100-500"), |_| {}).stream_text("go", &CallOptions::default()) {
        match e {
            StreamEvent::Item(_) => d_items += 1,
            StreamEvent::End(f) => d_end = Some(f),
            StreamEvent::Resubscribing { .. } => panic!("no resubscribe"),
        }
    }
    let d_end = d_end.unwrap();
    assert_eq!(items.len(), d_items, "the same items as the driver");
    same_as_driver(&end, &d_end.outcome, d_end.exit_code());
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn a_failed_task_carries_its_error_id() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(&fs.a2a("ok"), &[]);
    let call = text_call(st, false, "fail please");
    let end = finished(&run_to_end(call, t, null()));
    assert_eq!(end.channel, "task");
    assert_eq!(end.state.as_deref(), Some("failed"));
    assert_eq!(end.error_id.as_deref(), Some("0f1e2d3c4b5a"));
    let r = driver(&fs.a2a("ok"), |_| {}).send_text("fail please", &CallOptions::default());
    assert_eq!(r.outcome.error_id.as_deref(), end.error_id.as_deref());
    same_as_driver(&end, &r.outcome, r.outcome.exit_code());
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn a_503_is_retried_as_the_send_retries_option_says() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(
        &fs.a2a("status-503"),
        &[(a2a_client_option::SendRetries, 1)],
    );
    let call = text_call(st, false, "again");
    let runs = run_to_end(call, t, null());
    let retrying = kinds(&runs, a2a_event_kind::Retrying);
    assert_eq!(retrying.len(), 1, "{runs:?}");
    assert_eq!(retrying[0].attempt, 2);
    assert_eq!(retrying[0].http_status, Some(503));
    let end = finished(&runs);
    assert_eq!(end.channel, "http");
    assert_eq!(end.http_status, Some(503));
    assert_eq!(end.attempts, 2);
    assert_eq!(fs.counters("status-503")["messages"], 2);
    let r = driver(&fs.a2a("status-503"), |c| c.send_retries = 1)
        .send_text("again", &CallOptions::default());
    assert_eq!(r.correlation.attempts, end.attempts);
    same_as_driver(&end, &r.outcome, r.outcome.exit_code());
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn a_cut_stream_is_resubscribed_never_resent() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(
        &fs.a2a("stream-drop"),
        &[(a2a_client_option::StreamResubscribes, 2)],
    );
    let call = text_call(st, true, "go");
    let runs = run_to_end(call, t, null());
    let resub = kinds(&runs, a2a_event_kind::Resubscribing);
    assert_eq!(resub.len(), 1);
    assert_eq!(resub[0].attempt, 1);
    let end = finished(&runs);
    assert_eq!(end.state.as_deref(), Some("completed"));
    assert_eq!(end.resubscribes, 1);
    let k = fs.counters("stream-drop");
    assert_eq!(k["messages"], 1, "the message was sent exactly once");
    assert_eq!(k["resubscribes"], 1);
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn an_idle_stream_ends_at_the_idle_timeout_as_the_driver_says() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(
        &fs.a2a("stall"),
        &[(a2a_client_option::StreamIdleTimeoutMs, 300)],
    );
    let call = text_call(st, true, "go");
    let end = finished(&run_to_end(call, t, null()));
    assert_eq!(end.channel, "transport");
    assert_eq!(end.error.as_deref(), Some("Timeout"));
    let mut d_end = None;
    let c = driver(&fs.a2a("stall"), |c| {
        c.stream_idle_timeout = Duration::from_millis(300)
    });
    for e in c.stream_text("go", &CallOptions::default()) {
        if let StreamEvent::End(f) = e {
            d_end = Some(f);
        }
    }
    let d_end = d_end.unwrap();
    same_as_driver(&end, &d_end.outcome, d_end.exit_code());
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn a_hung_call_ends_at_the_total_deadline() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(&fs.a2a("hang"), &[(a2a_client_option::MaxTimeMs, 400)]);
    let call = text_call(st, false, "hello");
    let end = finished(&run_to_end(call, t, null()));
    assert_eq!(end.channel, "transport");
    assert_eq!(end.error.as_deref(), Some("Timeout"));
    assert_eq!(end.request_sent.as_deref(), Some("unknown"));
    let r = driver(&fs.a2a("hang"), |c| {
        c.max_time = Some(Duration::from_millis(400))
    })
    .send_text("hello", &CallOptions::default());
    same_as_driver(&end, &r.outcome, r.outcome.exit_code());
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn an_abort_from_another_thread_cancels_a_blocked_run() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(&fs.a2a("hang"), &[]);
    let call = text_call(st, false, "hello");
    let mut abort = null_mut();
    assert_eq!(a2a_abort_new(&mut abort), a2a_result::A2A_OK);
    let (call_addr, t_addr, abort_addr) = (call as usize, t as usize, abort as usize);
    let runner = std::thread::spawn(move || {
        let mut now = 0;
        let r = a2a_call_run(
            call_addr as *mut a2a_call,
            t_addr as *const a2a_transport,
            abort_addr as *const a2a_abort,
            5_000,
            &mut now,
        );
        (r, now)
    });
    // The run is blocked on the hung agent; a second function on the call meanwhile is
    // refused (probe with a harmless one until the run holds the call, at most 10 s).
    let start = Instant::now();
    while a2a_call_handle_timeout(call, 0) != a2a_result::A2A_IN_USE {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the run holds the call"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut at = 0;
    assert_eq!(
        a2a_call_run(call, t, null(), 5_000, &mut at),
        a2a_result::A2A_IN_USE
    );
    std::thread::sleep(Duration::from_millis(200));
    a2a_abort_trigger(abort);
    let (r, now) = runner.join().unwrap();
    assert_eq!(r, a2a_result::A2A_OK);
    assert!(now >= 5_000);
    let evs = drain(call);
    let end = evs.last().unwrap();
    assert_eq!(end.kind, a2a_event_kind::Finished as u32);
    assert_eq!(
        end.channel, "transport",
        "the cancel outcome, never a success"
    );
    assert_eq!(end.error.as_deref(), Some("Reset"));
    assert_ne!(end.exit_code, 0);
    a2a_abort_free(abort);
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn a_triggered_abort_cancels_before_sending() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(&fs.a2a("ok"), &[]);
    let call = text_call(st, false, "never sent");
    let mut abort = null_mut();
    assert_eq!(a2a_abort_new(&mut abort), a2a_result::A2A_OK);
    a2a_abort_trigger(abort);
    let end = finished(&run_to_end(call, t, abort));
    assert_eq!(end.channel, "transport");
    assert_eq!(end.request_sent.as_deref(), Some("no"));
    assert_eq!(fs.counters("ok")["messages"], 0);
    a2a_abort_free(abort);
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn a_card_fetch_runs_too() {
    let fs = FaultServer::start();
    let t = transport();
    let cfg = machine_config(|_| {});
    let url = format!("{}/ok", fs.base);
    let mut call = null_mut();
    assert_eq!(
        a2a_call_new_card_fetch(cfg, url.as_ptr().cast(), url.len(), &mut call),
        a2a_result::A2A_OK
    );
    let end = finished(&run_to_end(call, t, null()));
    assert!(end.card_json.unwrap().contains("\"name\""));
    assert_eq!(end.interface_url.as_deref(), Some(fs.a2a("ok").as_str()));
    a2a_call_free(call);
    a2a_machine_config_free(cfg);
    a2a_transport_free(t);
}

#[test]
fn null_and_misuse_are_refused() {
    let t = transport();
    let st = state("http://127.0.0.1:9/a2a", &[]);
    let call = text_call(st, false, "x");
    let mut now = 7;
    assert_eq!(
        a2a_call_run(null_mut(), t, null(), 0, &mut now),
        a2a_result::A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_call_run(call, null(), null(), 0, &mut now),
        a2a_result::A2A_NULL_PARAMETER
    );
    assert_eq!(now, 7, "untouched on a refusal");
    // Canceled by the caller between runs: the run hands out the FINISHED it queued.
    assert_eq!(a2a_call_cancel(call, 5_000), a2a_result::A2A_OK);
    let end = finished(&run_to_end(call, t, null()));
    assert_eq!(end.channel, "transport");
    assert_eq!(
        a2a_call_run(call, t, null(), 6_000, &mut now),
        a2a_result::A2A_CALL_FINISHED
    );
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn the_machines_deadlines_rule_not_the_transports_call_timeout() {
    let fs = FaultServer::start();
    // The transport alone would give up on a head after 200 ms; the resubscribe's head
    // comes after 600 ms, well inside the machine's call timeout (45 s by default).
    let t = transport_with(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::CallTimeoutMs as u32, 200),
            a2a_result::A2A_OK
        );
    });
    let st = state(
        &fs.a2a("late-resub-600"),
        &[
            (a2a_client_option::StreamIdleTimeoutMs, 300),
            (a2a_client_option::StreamResubscribes, 1),
        ],
    );
    let call = text_call(st, true, "go");
    let runs = run_to_end(call, t, null());
    assert_eq!(kinds(&runs, a2a_event_kind::Resubscribing).len(), 1);
    let end = finished(&runs);
    assert_eq!(end.state.as_deref(), Some("completed"), "{end:?}");
    assert_eq!(end.resubscribes, 1);
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn a_task_finished_meanwhile_is_read_once_with_get_as_the_driver_does() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(
        &fs.a2a("stream-finished"),
        &[(a2a_client_option::StreamResubscribes, 3)],
    );
    let call = text_call(st, true, "go");
    let end = finished(&run_to_end(call, t, null()));
    assert_eq!(end.state.as_deref(), Some("completed"), "{end:?}");
    assert!(end.has_response, "the get-task fallback's body");
    let k = fs.counters("stream-finished");
    assert_eq!(k["messages"], 1);
    assert_eq!(k["gets"], 1);
    let c = driver(&fs.a2a("stream-finished"), |c| {
        c.stream_resubscribe_attempts = 3
    });
    let mut d_end = None;
    for e in c.stream_text("go", &CallOptions::default()) {
        if let StreamEvent::End(f) = e {
            d_end = Some(f);
        }
    }
    let d_end = d_end.unwrap();
    assert!(d_end.fetched_by_get);
    assert_eq!(end.resubscribes, d_end.resubscribes);
    same_as_driver(&end, &d_end.outcome, d_end.exit_code());
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

#[test]
fn a_burst_in_one_write_hands_out_every_item() {
    let fs = FaultServer::start();
    let t = transport();
    let st = state(&fs.a2a("burst-5"), &[]);
    let call = text_call(st, true, "go");
    let runs = run_to_end(call, t, null());
    assert_eq!(
        kinds(&runs, a2a_event_kind::Item).len(),
        7,
        "submitted, 5 chunks, completed"
    );
    assert_eq!(finished(&runs).state.as_deref(), Some("completed"));
    a2a_call_free(call);
    a2a_client_state_free(st);
    a2a_transport_free(t);
}

/// A loopback stand-in for a card host reached through a proxy: it answers every request
/// (a proxy's CONNECT with `200`, then the request inside the tunnel; an absolute-form or
/// origin-form GET directly) with `card`, and counts the requests it answered.
struct CardProxy {
    port: u16,
    served: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl CardProxy {
    fn start(card: String) -> CardProxy {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let served = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = std::sync::Arc::clone(&served);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut s) = conn else { continue };
                let card = card.clone();
                let count = std::sync::Arc::clone(&count);
                std::thread::spawn(move || {
                    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
                    let mut head = read_head(&mut s);
                    if head.starts_with("CONNECT ") {
                        let _ = s.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
                        head = read_head(&mut s);
                    }
                    if head.starts_with("GET ") {
                        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let _ = write!(
                            s,
                            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                             cache-control: max-age=600\r\ncontent-length: {}\r\n\
                             connection: close\r\n\r\n{card}",
                            card.len()
                        );
                    }
                });
            }
        });
        CardProxy { port, served }
    }

    fn served(&self) -> usize {
        self.served.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A request head read byte by byte (bounded), empty when the peer closed first.
fn read_head(s: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") && buf.len() < 65_536 {
        match s.read(&mut byte) {
            Ok(1) => buf.push(byte[0]),
            _ => return String::new(),
        }
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// The fault server's card for `scenario`, read with a plain socket.
fn fault_card(fs: &FaultServer, scenario: &str) -> serde_json::Value {
    let addr = fs.base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET /{scenario}/.well-known/agent-card.json HTTP/1.1\r\nHost: {addr}\r\n\
         Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap()
}

/// Sets a text option on a config builder.
fn set_text(b: *mut a2a_client_config_builder, option: a2a_client_text_option, text: &str) {
    assert_eq!(
        a2a_client_config_builder_set_text(b, option as u32, text.as_ptr().cast(), text.len()),
        a2a_result::A2A_OK,
        "{option:?} {text}"
    );
}

/// Resolves the card at `card_base` with a card fetch made from `cfg` and run on `t`, then
/// sends one text to the interface it names on the same transport: the card's resolution
/// and the send's end.
fn resolve_then_send(
    t: *const a2a_transport,
    cfg: *const a2a_machine_config,
    card_base: &str,
) -> (Ev, Ev) {
    let mut fetch = null_mut();
    assert_eq!(
        a2a_call_new_card_fetch(cfg, card_base.as_ptr().cast(), card_base.len(), &mut fetch),
        a2a_result::A2A_OK
    );
    let card = finished(&run_to_end(fetch, t, null()));
    a2a_call_free(fetch);
    let Some(iface) = card.interface_url.clone() else {
        panic!("the card did not resolve: {card:?}")
    };
    let st = state(&iface, &[]);
    let call = text_call(st, false, "hello rebinding");
    let sent = finished(&run_to_end(call, t, null()));
    a2a_call_free(call);
    a2a_client_state_free(st);
    (card, sent)
}

#[test]
fn a_public_cards_interface_host_resolving_internal_is_refused_on_the_transport() {
    // The card comes from `cards.test` through a proxy (no local answer for that name:
    // a public card as written) and names `agent.test`, which the transport resolves to
    // loopback (--resolve) and reaches without the proxy. The transport that ran the card
    // fetch refuses that answer before connecting, as the Rust driver's own card
    // resolution does (`core/tests/driver_networks.rs`).
    //
    // A true rebinding (one name answering public for the card, loopback for the call)
    // needs a resolver whose answers change, which the C ABI does not take (--resolve
    // answers are fixed). So the card names another host, which the card fetch's own
    // policy allows as an origin (ALLOW_HOST on its config) while the transport's caller
    // does not vouch for it: the same check, armed and completed by `a2a_call_run`.
    let fs = FaultServer::start();
    let port = fs.base.rsplit(':').next().unwrap().to_owned();
    let mut card = fault_card(&fs, "ok");
    let origin = format!("http://agent.test:{port}");
    let iface = format!("{origin}/ok/a2a");
    card["url"] = serde_json::Value::String(iface.clone());
    if let Some(list) = card["additionalInterfaces"].as_array_mut() {
        for i in list {
            i["url"] = serde_json::Value::String(iface.clone());
        }
    }
    let proxy = CardProxy::start(card.to_string());
    let proxy_url = format!("http://127.0.0.1:{}", proxy.port);
    let resolve = format!("agent.test:{port}:127.0.0.1");
    let card_base = "http://cards.test";
    let rebinding = |allow: Option<&str>| {
        transport_with(|b| {
            set_text(b, a2a_client_text_option::Proxy, &proxy_url);
            set_text(b, a2a_client_text_option::NoProxy, "agent.test");
            set_text(b, a2a_client_text_option::Resolve, &resolve);
            if let Some(host) = allow {
                set_text(b, a2a_client_text_option::AllowHost, host);
            }
        })
    };

    // The card fetches' config: the interface's origin allowed, cards cached and shared
    // by every transport (as the Go and Java bindings share one cache per process).
    let cfg = machine_config(|b| {
        set_text(b, a2a_client_text_option::AllowHost, &origin);
        assert_eq!(
            a2a_client_config_builder_set_card_cache(b, 8, null()),
            a2a_result::A2A_OK
        );
    });

    let t = rebinding(None);
    let (resolved, sent) = resolve_then_send(t, cfg, card_base);
    assert_eq!(resolved.interface_url.as_deref(), Some(iface.as_str()));
    assert_eq!(sent.error.as_deref(), Some("AddressRefused"), "{sent:?}");
    assert_eq!(sent.request_sent.as_deref(), Some("no"), "{sent:?}");
    assert_eq!(
        fs.counters("ok")["messages"],
        serde_json::json!(0),
        "the agent on loopback is never contacted"
    );
    a2a_transport_free(t);

    // Another client's transport gets the card fresh from the cache, with no request: the
    // finding of the first fetch (a public card) still arms the check.
    let t = rebinding(None);
    let (_, sent) = resolve_then_send(t, cfg, card_base);
    assert_eq!(sent.error.as_deref(), Some("AddressRefused"), "{sent:?}");
    assert_eq!(proxy.served(), 1, "the card came from the cache");
    a2a_transport_free(t);

    // The caller vouches for the interface host: the send goes through.
    let t = rebinding(Some("agent.test"));
    let (_, sent) = resolve_then_send(t, cfg, card_base);
    assert_eq!(sent.state.as_deref(), Some("completed"), "{sent:?}");
    a2a_transport_free(t);

    // An intranet card (its host resolves to loopback only, no proxy) keeps its interface
    // unchecked, fetched or, on another transport, fresh from the cache.
    let intranet = || {
        transport_with(|b| {
            set_text(b, a2a_client_text_option::Resolve, &resolve);
            set_text(
                b,
                a2a_client_text_option::Resolve,
                &format!("cards.test:{}:127.0.0.1", proxy.port),
            );
        })
    };
    let intranet_base = format!("http://cards.test:{}", proxy.port);
    for _ in 0..2 {
        let t = intranet();
        let (_, sent) = resolve_then_send(t, cfg, &intranet_base);
        assert_eq!(sent.state.as_deref(), Some("completed"), "{sent:?}");
        a2a_transport_free(t);
    }
    assert_eq!(proxy.served(), 2, "each card fetched once");
    a2a_machine_config_free(cfg);
}
