//! Typed non-streaming calls through the driver against the fault server: card resolution,
//! classification through the driver, correlation records, interceptors, credentials,
//! opt-in send retries with the same messageId and idempotency key, and the tally.
#![cfg(feature = "driver")]

mod common;

use std::time::{Duration, Instant};

use a2a_core::driver::{
    CallOptions, CardResolutionError, Client, ClientConfig, StreamEvent, Target,
};
use a2a_core::model::{PushNotificationConfig, TaskPushNotificationConfig};
use a2a_core::outcome::{CancelOrigin, Channel, ErrorName, RequestSent, RetryAdvice, TaskState};
use a2a_core::resilience::model_text;
use a2a_core::version::{Binding, ProtocolVersion};
use common::{FaultServer, assert_between, timing_lock};

fn config() -> ClientConfig {
    ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(10),
        ..ClientConfig::default()
    }
}

fn client(fs: &FaultServer, scenario: &str) -> Client {
    Client::new(&fs.agent(scenario), config()).expect("card resolves")
}

#[test]
fn card_resolution_picks_the_cards_interface() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let t = c.target().unwrap();
    assert_eq!(t.url, fs.a2a("ok"));
    assert_eq!(t.version, ProtocolVersion::V0_3);
    assert_eq!(t.binding, Binding::JsonRpc);
    assert_eq!(t.agent_name, "fault ok");
    assert_eq!(fs.counters("ok")["cards"], 1);
}

#[test]
fn a_completed_send_with_its_correlation_record() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let r = c.send_text("hello there", &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Task);
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert!(r.outcome.is_success());
    let seen = &fs.counters("ok")["seen"][0];
    let k = &r.correlation;
    assert_eq!(k.agent, "fault ok");
    assert_eq!(k.method, "SendMessage");
    assert_eq!(Some(seen["id"].as_str().unwrap()), k.jsonrpc_id.as_deref());
    assert_eq!(
        Some(seen["message_id"].as_str().unwrap()),
        k.message_id.as_deref()
    );
    assert_eq!(seen["traceparent"].as_str().unwrap(), k.traceparent);
    assert!(k.traceparent.starts_with("00-") && k.traceparent.len() == 55);
    assert!(k.task_id.as_deref().unwrap().starts_with("task-"));
    assert!(k.context_id.as_deref().unwrap().starts_with("ctx-"));
    assert_eq!(k.attempts, 1);
    assert!(k.elapsed > Duration::ZERO);
    let body = String::from_utf8(r.response.unwrap().body).unwrap();
    assert!(body.contains("hello there"));
}

#[test]
fn caller_ids_are_sent_as_given() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let opts = CallOptions {
        message_id: Some("msg-fixed-1".into()),
        traceparent: Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into()),
        idempotency_key: Some("key-1".into()),
        ..CallOptions::default()
    };
    let r = c.send_text("x", &opts);
    let seen = &fs.counters("ok")["seen"][0];
    assert_eq!(seen["message_id"], "msg-fixed-1");
    assert_eq!(seen["idempotency_key"], "key-1");
    assert_eq!(seen["traceparent"], opts.traceparent.clone().unwrap());
    assert_eq!(r.correlation.message_id.as_deref(), Some("msg-fixed-1"));
    assert_eq!(r.correlation.idempotency_key.as_deref(), Some("key-1"));
}

#[test]
fn a_failed_task_carries_its_error_id() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let r = c.send_text("fail please", &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Task);
    assert_eq!(r.outcome.state, Some(TaskState::Failed));
    assert_eq!(r.outcome.error_id.as_deref(), Some("0f1e2d3c4b5a"));
    assert_eq!(r.correlation.error_id.as_deref(), Some("0f1e2d3c4b5a"));
    let line = model_text("fault ok", &r.outcome).unwrap();
    assert!(line.starts_with("REMOTE_FAILED fault ok"), "{line}");
}

#[test]
fn get_and_cancel() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let r = c.get_task("task-77", &CallOptions::default());
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert_eq!(r.outcome.task_id.as_deref(), Some("task-77"));
    assert_eq!(r.correlation.method, "GetTask");
    let r = c.cancel_task("task-77", &CallOptions::default());
    assert_eq!(r.outcome.state, Some(TaskState::Canceled));
    assert!(r.outcome.terminal);
    let k = fs.counters("ok");
    assert_eq!(k["gets"], 1);
    assert_eq!(k["cancels"], 1);
}

#[test]
fn unsupported_methods_are_protocol_errors_or_not_sent() {
    let fs = FaultServer::start();
    // The card declares neither push notifications nor an extended card: refused unsent,
    // naming the method and the capability.
    let c = client(&fs, "ok");
    let before = fs.counters("ok")["requests"].as_u64().unwrap();
    let calls = [
        (
            c.create_push_config(
                &TaskPushNotificationConfig {
                    task_id: "task-1".into(),
                    config: PushNotificationConfig::new("https://hooks.example/a2a"),
                    tenant: None,
                },
                &CallOptions::default(),
            ),
            "tasks/pushNotificationConfig/set",
            "capabilities.pushNotifications",
        ),
        (
            c.list_push_configs("task-1", &CallOptions::default()),
            "tasks/pushNotificationConfig/list",
            "capabilities.pushNotifications",
        ),
        (
            c.get_push_config("task-1", Some("cfg-1"), &CallOptions::default()),
            "tasks/pushNotificationConfig/get",
            "capabilities.pushNotifications",
        ),
        (
            c.delete_push_config("task-1", "cfg-1", &CallOptions::default()),
            "tasks/pushNotificationConfig/delete",
            "capabilities.pushNotifications",
        ),
        (
            c.extended_card(&CallOptions::default()),
            "agent/getAuthenticatedExtendedCard",
            "supportsAuthenticatedExtendedCard",
        ),
    ];
    for (r, method, capability) in calls {
        let o = &r.outcome;
        assert_eq!(o.channel, Channel::Transport, "{o:?}");
        assert_eq!(o.error, Some(ErrorName::CapabilityNotDeclared));
        assert_eq!(o.request_sent, Some(RequestSent::No));
        assert_eq!(o.retry, RetryAdvice::Never);
        let text = o.message.as_deref().unwrap();
        assert!(text.contains(method) && text.contains(capability), "{text}");
        assert_eq!(o.exit_code(), 3);
    }
    assert_eq!(
        fs.counters("ok")["requests"].as_u64().unwrap(),
        before,
        "nothing sent"
    );
    // With the check off the calls go out, and the agent says what it does not serve.
    let c = Client::new(
        &fs.agent("ok"),
        ClientConfig {
            ignore_capabilities: true,
            ..config()
        },
    )
    .expect("card resolves");
    let r = c.list_push_configs("task-1", &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Protocol);
    assert_eq!(
        r.outcome.error,
        Some(ErrorName::PushNotificationNotSupported)
    );
    let r = c.get_push_config("task-1", Some("cfg-1"), &CallOptions::default());
    assert_eq!(
        r.outcome.error,
        Some(ErrorName::PushNotificationNotSupported)
    );
    let r = c.delete_push_config("task-1", "cfg-1", &CallOptions::default());
    assert_eq!(
        r.outcome.error,
        Some(ErrorName::PushNotificationNotSupported)
    );
    let r = c.extended_card(&CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Protocol);
    assert_eq!(
        r.outcome.error,
        Some(ErrorName::ExtendedAgentCardNotConfigured)
    );
    // ListTasks does not exist in 0.3: refused before anything is sent.
    let before = fs.counters("ok")["requests"].as_u64().unwrap();
    let r = c.list_tasks(&Default::default(), &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Transport);
    assert_eq!(r.outcome.request_sent, Some(RequestSent::No));
    assert_eq!(r.outcome.retry, RetryAdvice::Never);
    assert_eq!(fs.counters("ok")["requests"].as_u64().unwrap(), before);
}

#[test]
fn http_statuses_reach_the_classifier() {
    let fs = FaultServer::start();
    let cases: [(&str, Channel, Option<ErrorName>, RetryAdvice); 8] = [
        (
            "status-401",
            Channel::Http,
            Some(ErrorName::Unauthenticated),
            RetryAdvice::Reauthenticate,
        ),
        (
            "status-403",
            Channel::Http,
            Some(ErrorName::Forbidden),
            RetryAdvice::Reauthenticate,
        ),
        (
            "status-413",
            Channel::Http,
            Some(ErrorName::PayloadTooLarge),
            RetryAdvice::Never,
        ),
        (
            "status-502",
            Channel::Http,
            Some(ErrorName::BadGateway),
            RetryAdvice::UnknownOutcome,
        ),
        (
            "status-503",
            Channel::Http,
            Some(ErrorName::Unavailable),
            RetryAdvice::Backoff,
        ),
        (
            "html502",
            Channel::Http,
            Some(ErrorName::BadGateway),
            RetryAdvice::UnknownOutcome,
        ),
        (
            "redirect",
            Channel::Http,
            Some(ErrorName::Redirect),
            RetryAdvice::Never,
        ),
        (
            "status-503-rpc",
            Channel::Protocol,
            Some(ErrorName::Internal),
            RetryAdvice::UnknownOutcome,
        ),
    ];
    for (scenario, channel, error, retry) in cases {
        let c = client(&fs, scenario);
        let r = c.send_text("x", &CallOptions::default());
        assert_eq!(r.outcome.channel, channel, "{scenario}: {:?}", r.outcome);
        assert_eq!(r.outcome.error, error, "{scenario}");
        assert_eq!(r.outcome.retry, retry, "{scenario}");
        assert!(r.outcome.http_status.is_some(), "{scenario}");
    }
    let r = client(&fs, "html502").send_text("x", &CallOptions::default());
    assert!(
        r.outcome
            .body_excerpt
            .unwrap_or_default()
            .contains("502 Bad Gateway")
    );
    let r = client(&fs, "status-503").send_text("x", &CallOptions::default());
    assert_eq!(r.outcome.retry_after_secs, Some(1));
    assert_eq!(fs.counters("redirect-target")["requests"], 0);
}

#[test]
fn a_redirected_card_is_not_followed() {
    let fs = FaultServer::start();
    let err = Client::new(&fs.agent("card-302"), config()).unwrap_err();
    match &err {
        CardResolutionError::Status {
            status,
            location,
            outcome,
            ..
        } => {
            assert_eq!(*status, 302);
            assert!(location.as_deref().unwrap().contains("/redirect-target/"));
            assert_eq!(outcome.error, Some(ErrorName::Redirect));
        }
        other => panic!("expected a status error, got {other:?}"),
    }
    assert_eq!(err.kind(), "redirect");
    let o = err.to_outcome();
    assert_eq!(o.channel, Channel::Transport);
    assert_eq!(o.error, Some(ErrorName::CardResolution));
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert_eq!(fs.counters("redirect-target")["requests"], 0);
}

#[test]
fn cards_naming_another_host_are_refused() {
    let fs = FaultServer::start();
    for (scenario, kinds) in [
        ("card-otherhost", &["host_mismatch"][..]),
        ("card-localhost", &["host_mismatch", "card_url_drift"][..]),
        ("card-private", &["host_mismatch", "card_url_drift"][..]),
    ] {
        let err = Client::new(&fs.agent(scenario), config()).unwrap_err();
        assert!(
            matches!(err, CardResolutionError::Card { .. }),
            "{scenario}: {err:?}"
        );
        assert!(kinds.contains(&err.kind()), "{scenario}: {}", err.kind());
        assert_eq!(fs.counters(scenario)["messages"], 0);
    }
}

#[test]
fn an_allow_listed_host_is_accepted() {
    let fs = FaultServer::start();
    let port = fs.base.rsplit(':').next().unwrap();
    let c = Client::new(
        &fs.agent("card-localhost"),
        ClientConfig {
            allow_hosts: vec![format!("http://localhost:{port}")],
            ..config()
        },
    )
    .expect("allow-listed origin");
    assert!(c.target().unwrap().url.starts_with("http://localhost:"));
}

#[test]
fn deferred_card_resolution_fails_on_the_first_call() {
    let fs = FaultServer::start();
    let c = Client::new(
        &fs.agent("card-otherhost"),
        ClientConfig {
            defer_card_resolution: true,
            ..config()
        },
    )
    .expect("construction does not fetch");
    assert_eq!(fs.counters("card-otherhost")["cards"], 0);
    let r = c.send_text("x", &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Transport);
    assert_eq!(r.outcome.error, Some(ErrorName::CardResolution));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::No));
    assert!(
        model_text("planner", &r.outcome)
            .unwrap()
            .starts_with("REMOTE_UNAVAILABLE")
    );
}

#[test]
fn credentials_come_from_interceptors_and_a_missing_one_is_not_sent() {
    let fs = FaultServer::start();
    let c = client(&fs, "secured");
    let r = c.send_text("x", &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Transport);
    assert_eq!(r.outcome.error, Some(ErrorName::Unauthenticated));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::No));
    assert_eq!(r.outcome.retry, RetryAdvice::Reauthenticate);
    assert_eq!(fs.counters("secured")["messages"], 0);

    let c = client(&fs, "secured");
    let seen_methods = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen_methods.clone();
    c.add_interceptor(
        move |ctx: &a2a_core::driver::RequestContext<'_>,
              req: &mut a2a_core::driver::HttpRequest| {
            log.lock()
                .unwrap()
                .push((ctx.method.to_owned(), ctx.target.agent_name.clone()));
            req.set_header("Authorization", "Bearer t0ken");
        },
    );
    // A second interceptor runs after the first and can replace what it set.
    c.add_interceptor(
        |_: &a2a_core::driver::RequestContext<'_>, req: &mut a2a_core::driver::HttpRequest| {
            req.set_header("X-Route", "blue");
        },
    );
    let r = c.send_text("x", &CallOptions::default());
    assert_eq!(
        r.outcome.state,
        Some(TaskState::Completed),
        "{:?}",
        r.outcome
    );
    assert_eq!(fs.counters("secured")["seen"][0]["authorization"], true);
    assert_eq!(
        seen_methods.lock().unwrap().as_slice(),
        &[("SendMessage".to_owned(), "fault secured".to_owned())]
    );
}

#[test]
fn a_hung_send_times_out_with_an_unknown_outcome() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = Client::new(
        &fs.agent("hang"),
        ClientConfig {
            call_timeout: Duration::from_secs(1),
            ..config()
        },
    )
    .unwrap();
    let t = Instant::now();
    let r = c.send_text("x", &CallOptions::default());
    assert_between(
        t.elapsed(),
        Duration::from_millis(900),
        Duration::from_secs(4),
        "send",
    );
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::Unknown));
    assert!(
        model_text("fault hang", &r.outcome)
            .unwrap()
            .starts_with("REMOTE_UNKNOWN")
    );
    assert_eq!(fs.counters("hang")["sends"], 1);
}

#[test]
fn connect_refused_is_remote_unavailable() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let c = Client::with_target(
        Target::new(
            &format!("http://127.0.0.1:{port}/a2a"),
            ProtocolVersion::V0_3,
            Binding::JsonRpc,
        ),
        config(),
    );
    let r = c.send_text("x", &CallOptions::default());
    assert_eq!(r.outcome.error, Some(ErrorName::ConnectFailed));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::No));
    let line = model_text("billing", &r.outcome).unwrap();
    assert!(line.starts_with("REMOTE_UNAVAILABLE billing"), "{line}");
}

#[test]
fn a_send_dropped_after_processing_is_retried_with_the_same_key_and_message_id() {
    let fs = FaultServer::start();
    let c = Client::new(
        &fs.agent("idem-drop"),
        ClientConfig {
            send_retries: 2,
            ..config()
        },
    )
    .unwrap();
    let opts = CallOptions {
        idempotency_key: Some("conv-7:book:flight-42".into()),
        ..CallOptions::default()
    };
    let r = c.send_text("book it", &opts);
    assert_eq!(
        r.outcome.state,
        Some(TaskState::Completed),
        "{:?}",
        r.outcome
    );
    assert_eq!(r.correlation.attempts, 2);
    let seen = fs.counters("idem-drop")["seen"].as_array().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0]["idempotency_key"], "conv-7:book:flight-42");
    assert_eq!(seen[1]["idempotency_key"], "conv-7:book:flight-42");
    assert_eq!(seen[0]["message_id"], seen[1]["message_id"]);
    assert_ne!(seen[0]["id"], seen[1]["id"]);
    assert_eq!(seen[1]["id"].as_str(), r.correlation.jsonrpc_id.as_deref());
    // The first attempt alone: outcome unknown.
    let first = Client::new(&fs.agent("idem-drop"), config())
        .unwrap()
        .send_text(
            "book another",
            &CallOptions {
                idempotency_key: Some("conv-7:book:flight-43".into()),
                ..CallOptions::default()
            },
        );
    assert_eq!(first.outcome.request_sent, Some(RequestSent::Unknown));
    assert!(
        model_text("travel", &first.outcome)
            .unwrap()
            .starts_with("REMOTE_UNKNOWN")
    );
}

#[test]
fn without_an_idempotency_key_an_unknown_outcome_is_not_retried() {
    let fs = FaultServer::start();
    let c = Client::new(
        &fs.agent("idem-drop"),
        ClientConfig {
            send_retries: 3,
            ..config()
        },
    )
    .unwrap();
    let r = c.send_text("book it", &CallOptions::default());
    assert_eq!(r.outcome.retry, RetryAdvice::UnknownOutcome);
    assert_eq!(r.correlation.attempts, 1);
    assert_eq!(fs.counters("idem-drop")["sends"], 1);
}

/// Issue 12: a gateway's 502/504 (or a 503 without `Retry-After`) may come after the upstream
/// did the work: a send is resent only with an idempotency key, always with the same messageId
/// and key; a status that proves non-receipt (429, 503 with `Retry-After`) is resent as is.
#[test]
fn gateway_errors_on_a_send_are_resent_only_with_a_key() {
    let fs = FaultServer::start();
    let retrying = |scenario: &str| {
        Client::new(
            &fs.agent(scenario),
            ClientConfig {
                send_retries: 2,
                ..config()
            },
        )
        .unwrap()
    };
    for scenario in ["status-502", "html502", "status-504", "status-503-bare"] {
        let r = retrying(scenario).send_text("book seat 12A", &CallOptions::default());
        assert_eq!(r.outcome.retry, RetryAdvice::UnknownOutcome, "{scenario}");
        assert_eq!(r.correlation.attempts, 1, "{scenario}");
        assert_eq!(
            fs.counters(scenario)["sends"],
            1,
            "{scenario}: resent without a key"
        );
        let line = model_text("booking", &r.outcome).unwrap();
        assert!(line.starts_with("REMOTE_UNKNOWN booking: HTTP "), "{line}");
        assert!(line.ends_with("the outcome is unknown"), "{line}");
    }
    for scenario in ["status-502", "status-504"] {
        let opts = CallOptions {
            idempotency_key: Some(format!("conv-9:book:{scenario}")),
            ..CallOptions::default()
        };
        let r = retrying(scenario).send_text("book seat 12A", &opts);
        assert_eq!(r.correlation.attempts, 3, "{scenario}");
        let seen = fs.counters(scenario)["seen"].as_array().unwrap().clone();
        let keyed: Vec<_> = seen
            .iter()
            .filter(|s| s["idempotency_key"] == format!("conv-9:book:{scenario}").as_str())
            .collect();
        assert_eq!(keyed.len(), 3, "{scenario}");
        assert!(
            keyed
                .iter()
                .all(|s| s["message_id"] == keyed[0]["message_id"])
        );
        assert_ne!(keyed[0]["id"], keyed[1]["id"]);
        assert_ne!(keyed[1]["id"], keyed[2]["id"]);
    }
    // 429 and 503 with Retry-After prove the request was not processed: resent without a key.
    for scenario in ["status-429", "status-503"] {
        let r = retrying(scenario).send_text("book seat 12A", &CallOptions::default());
        assert_eq!(r.outcome.retry, RetryAdvice::Backoff, "{scenario}");
        assert_eq!(r.correlation.attempts, 3, "{scenario}");
        let seen = fs.counters(scenario)["seen"].as_array().unwrap().clone();
        assert_eq!(seen.len(), 3, "{scenario}");
        assert!(
            seen.iter()
                .all(|s| s["message_id"] == seen[0]["message_id"])
        );
    }
}

/// Issue 12: the seeds' `[retryable=false; contact=...]` on a FAILED status means never; ADK's
/// debug detail is flagged, counted, and kept out of the model text (only the error id).
#[test]
fn remote_hints_and_leaked_detail_on_failed_tasks() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let r = c.send_text("fail-leak-hint", &CallOptions::default());
    let o = &r.outcome;
    assert_eq!(o.state, Some(TaskState::Failed));
    assert_eq!(o.retry, RetryAdvice::Never, "{o:?}");
    let hint = o.remote_hint.as_ref().expect("remote hint");
    assert_eq!(hint.retryable, Some(false));
    assert!(
        hint.pairs
            .contains(&("contact".into(), "payments-oncall".into()))
    );
    assert!(o.leaked_detail);
    assert_eq!(o.error_id.as_deref(), Some("0f1e2d3c4b5a"));
    let line = model_text("payments", o).unwrap();
    assert_eq!(
        line,
        "REMOTE_FAILED payments: the task failed (error_id: 0f1e2d3c4b5a); the remote asks not to retry"
    );
    let json: serde_json::Value = serde_json::from_str(&o.to_json()).unwrap();
    assert_eq!(json["leaked_detail"], true);
    assert_eq!(json["remote_hint"]["contact"], "payments-oncall");
    assert_eq!(c.tally().leaked("fault ok"), 1);
    assert!(
        c.tally()
            .render_prometheus()
            .contains("a2a_leaked_detail_total{agent=\"fault ok\"} 1")
    );
    // The hint alone: never, text kept; no leak.
    let r = c.send_text("fail-hint", &CallOptions::default());
    assert_eq!(r.outcome.retry, RetryAdvice::Never);
    assert!(!r.outcome.leaked_detail);
    assert!(
        model_text("payments", &r.outcome)
            .unwrap()
            .contains("[retryable=false; contact=payments-oncall]")
    );
    // The same through a stream.
    let end = c
        .stream_text("fail-leak", &CallOptions::default())
        .take(100)
        .find_map(|e| match e {
            StreamEvent::End(f) => Some(f),
            _ => None,
        })
        .expect("an End event");
    assert!(end.outcome.leaked_detail, "{:?}", end.outcome);
    assert!(
        !model_text("payments", &end.outcome)
            .unwrap()
            .contains("IllegalState")
    );
    assert_eq!(c.tally().leaked("fault ok"), 2);
}

/// Issue 12: an ADK admission cancel carries no marker; the client tells a cancel it asked
/// for (`requested`) from one it did not (`remote`); this project's server marker refines it.
#[test]
fn cancel_origin_requested_remote_or_admission() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let r = c.send_text("cancel-remote", &CallOptions::default());
    assert_eq!(r.outcome.state, Some(TaskState::Canceled));
    assert_eq!(r.outcome.cancel_origin, Some(CancelOrigin::Remote));
    let r = c.send_text("cancel-admission", &CallOptions::default());
    assert_eq!(r.outcome.cancel_origin, Some(CancelOrigin::Admission));
    let r = c.cancel_task("task-77", &CallOptions::default());
    assert_eq!(r.outcome.cancel_origin, Some(CancelOrigin::Requested));
    // Reading the task this client canceled later still says requested.
    let json: serde_json::Value = serde_json::from_str(&r.outcome.to_json()).unwrap();
    assert_eq!(json["cancel_origin"], "requested");
    // Another client did not ask: remote.
    let other = client(&fs, "ok");
    let r = other.send_text("cancel-remote", &CallOptions::default());
    assert_eq!(r.outcome.cancel_origin, Some(CancelOrigin::Remote));
}

#[test]
fn the_tally_counts_per_method_and_outcome() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    c.send_text("a", &CallOptions::default());
    c.send_text("fail", &CallOptions::default());
    c.send_text("b", &CallOptions::default());
    c.get_task("task-1", &CallOptions::default());
    let t = c.tally();
    assert_eq!(
        t.count("fault ok", "SendMessage", Channel::Task, "completed"),
        2
    );
    assert_eq!(
        t.count("fault ok", "SendMessage", Channel::Task, "failed"),
        1
    );
    assert_eq!(
        t.count("fault ok", "GetTask", Channel::Task, "completed"),
        1
    );
    assert_eq!(t.total(), 4);
    assert!(t.render_prometheus().contains("a2a_outcomes_total{"));
}

#[test]
fn an_open_breaker_fails_fast_without_sending() {
    let _g = timing_lock();
    let fs = FaultServer::start();
    let c = Client::new(
        &fs.agent("hang"),
        ClientConfig {
            call_timeout: Duration::from_millis(300),
            breaker: Some(a2a_core::resilience::BreakerConfig {
                failure_threshold: 2,
                cool_down: a2a_core::time::Millis(60_000),
                ..Default::default()
            }),
            ..config()
        },
    )
    .unwrap();
    for _ in 0..2 {
        let r = c.send_text("x", &CallOptions::default());
        assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    }
    let t = Instant::now();
    let r = c.send_text("x", &CallOptions::default());
    assert!(t.elapsed() < Duration::from_millis(100));
    assert_eq!(r.outcome.error, Some(ErrorName::CircuitOpen));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::No));
    assert!(
        model_text("fault hang", &r.outcome)
            .unwrap()
            .starts_with("REMOTE_UNAVAILABLE")
    );
    assert_eq!(fs.counters("hang")["sends"], 2, "the third call never left");
    assert_eq!(
        c.breaker_state(),
        Some(a2a_core::resilience::BreakerState::Open)
    );
    assert_eq!(
        c.tally().count(
            "fault hang",
            "SendMessage",
            Channel::Transport,
            "CircuitOpen"
        ),
        1
    );
}

#[test]
fn an_invalid_caller_traceparent_is_refused_before_sending() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let r = c.send_text(
        "x",
        &CallOptions {
            traceparent: Some("00-not-a-trace-01".into()),
            ..CallOptions::default()
        },
    );
    assert_eq!(r.outcome.channel, Channel::Transport);
    assert_eq!(r.outcome.error, Some(ErrorName::InvalidRequest));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::No));
    assert_eq!(fs.counters("ok")["messages"], 0);
}

#[test]
fn a_request_lost_on_a_reused_connection_is_reported_not_replayed() {
    let fs = FaultServer::start();
    // The card fetch is the first request on the pooled connection; the send reuses it and
    // the server closes it after reading the request.
    let c = client(&fs, "drop-second");
    let r = c.send_text("x", &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Transport, "{:?}", r.outcome);
    assert_eq!(r.outcome.request_sent, Some(RequestSent::Unknown));
    assert_eq!(r.outcome.retry, RetryAdvice::UnknownOutcome);
    let k = fs.counters("drop-second");
    assert_eq!(
        k["sends"], 1,
        "the POST was not replayed on a new connection"
    );
    assert_eq!(k["connections"], 1);
    // The next call opens a fresh connection and succeeds.
    let r = c.send_text("y", &CallOptions::default());
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert_eq!(fs.counters("drop-second")["sends"], 2);
}

#[test]
fn json_rpc_bodies_in_error_statuses_are_protocol_outcomes() {
    // Issue 5: 401/403/413/502/503 with a JSON-RPC body: the body wins (protocol channel),
    // the HTTP status is kept beside it. (Without a body: http_statuses_reach_the_classifier.)
    let fs = FaultServer::start();
    for code in [401u16, 403, 413, 502, 503] {
        let scenario = format!("status-{code}-rpc");
        let r = client(&fs, &scenario).send_text("x", &CallOptions::default());
        assert_eq!(
            r.outcome.channel,
            Channel::Protocol,
            "{scenario}: {:?}",
            r.outcome
        );
        assert_eq!(r.outcome.code, Some(-32603), "{scenario}");
        assert_eq!(r.outcome.error, Some(ErrorName::Internal), "{scenario}");
        assert_eq!(r.outcome.http_status, Some(code), "{scenario}");
        assert_eq!(
            r.outcome.message.as_deref(),
            Some(format!("fault server answered {code}").as_str())
        );
    }
}

#[test]
fn a_response_over_the_body_limit_is_refused_through_the_driver() {
    let fs = FaultServer::start();
    let c = Client::new(
        &fs.agent("big-100000"),
        ClientConfig {
            max_response_bytes: 16 * 1024,
            ..config()
        },
    )
    .expect("the card fits the limit");
    let r = c.send_text("x", &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Transport, "{:?}", r.outcome);
    assert_eq!(r.outcome.error, Some(ErrorName::ResponseTooLarge));
    assert_eq!(r.outcome.request_sent, Some(RequestSent::Unknown));
    assert!(r.outcome.message.as_deref().unwrap().contains("16384"));
    assert_eq!(
        fs.counters("big-100000")["sends"],
        1,
        "sent once, not retried"
    );
}

#[test]
fn two_sends_six_seconds_apart_on_one_client_both_succeed_without_replay() {
    // Issue 5, literally: the server closes idle connections after 5 s (like uvicorn and
    // Node); the default pool retires them after 3 s. The second send, 6 s later, goes on a
    // fresh connection; each send reaches the server exactly once. (The case where the pool
    // still holds a connection the server has already closed is
    // driver_transport::a_connection_the_server_closed_is_not_reused_and_nothing_is_replayed,
    // with a 1 s server keep-alive; a request lost on a reused connection is
    // a_request_lost_on_a_reused_connection_is_reported_not_replayed.)
    let _g = timing_lock();
    let fs = FaultServer::start();
    assert_eq!(
        config().pool_idle_timeout,
        Duration::from_secs(3),
        "the default"
    );
    let c = client(&fs, "ok");
    let first = c.send_text("one", &CallOptions::default());
    assert_eq!(first.outcome.state, Some(TaskState::Completed));
    std::thread::sleep(Duration::from_secs(6));
    let second = c.send_text("two", &CallOptions::default());
    assert_eq!(
        second.outcome.state,
        Some(TaskState::Completed),
        "{:?}",
        second.outcome
    );
    assert_eq!(second.correlation.attempts, 1);
    let k = fs.counters("ok");
    assert_eq!(k["sends"], 2, "no replay");
    // The card and the first send shared one connection; the second send opened another.
    assert_eq!(k["connections"], 2);
    let ids: Vec<&str> = k["seen"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["message_id"].as_str())
        .collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn send_parts_returns_the_answer_with_every_part_kind() {
    use a2a_core::model::{Json, Part, PartContent, SendResponse};
    let fs = FaultServer::start();
    let c = client(&fs, "mirror");
    let parts = vec![
        Part::text("hi"),
        Part::from_content(PartContent::Data(Json::parse(r#"{"a":[1,2]}"#).unwrap())),
        Part {
            filename: Some("f.bin".into()),
            media_type: Some("application/octet-stream".into()),
            ..Part::from_content(PartContent::Bytes("AAEC/w==".into()))
        },
        Part::from_content(PartContent::Url("https://files.example/x".into())),
    ];
    let meta = Json::parse(r#"{"k":"v"}"#).unwrap();
    let r = c.send_parts(parts.clone(), Some(meta.clone()), &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Task);
    let Some(SendResponse::Task(t)) = &r.answer else {
        panic!("a task answer: {:?}", r.outcome)
    };
    assert_eq!(t.artifacts[0].parts, parts);
    assert_eq!(t.artifacts[0].metadata, Some(meta));
    let bytes = a2a_core::answer::file_bytes(&t.artifacts[0].parts[2])
        .unwrap()
        .unwrap();
    assert_eq!(bytes, [0, 1, 2, 255]);
    // Get and cancel carry the answer too; other calls do not.
    let g = client(&fs, "ok").get_task("task-1", &CallOptions::default());
    assert!(matches!(g.answer, Some(SendResponse::Task(_))));
}

#[test]
fn an_unreadable_answer_is_a_malformed_outcome_not_an_empty_success() {
    let fs = FaultServer::start();
    let r = client(&fs, "badbytes").send_text("x", &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Malformed);
    assert_eq!(r.outcome.exit_code(), 3);
    assert_eq!(r.outcome.retry, RetryAdvice::Poll);
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert!(r.answer.is_none());
    assert!(
        r.outcome
            .message
            .as_deref()
            .unwrap()
            .ends_with("at artifacts[0].parts[1].bytes")
    );
}

#[test]
fn an_unusable_breaker_configuration_fails_every_call_unsent_and_counts_it() {
    let target = Target::new(
        "http://127.0.0.1:1/a2a",
        ProtocolVersion::V1_0,
        Binding::JsonRpc,
    );
    let c = Client::with_target(
        target,
        ClientConfig {
            breaker: Some(a2a_core::resilience::BreakerConfig {
                buckets: 0,
                ..Default::default()
            }),
            ..config()
        },
    );
    for _ in 0..2 {
        let o = c.send_text("x", &CallOptions::default()).outcome;
        assert_eq!(o.error, Some(ErrorName::InvalidRequest), "{o:?}");
        assert_eq!(o.request_sent, Some(RequestSent::No));
        assert_eq!(o.retry, RetryAdvice::Never);
        let m = o.message.unwrap_or_default();
        assert!(m.contains("invalid breaker configuration"), "{m}");
    }
    assert_eq!(c.breaker_state(), None);
    assert_eq!(c.tally().total(), 2);
}

#[test]
fn wait_task_returns_a_settled_task_after_one_poll() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let r = c.wait_task(
        "t-1",
        a2a_core::client::WaitConfig::default(),
        &CallOptions::default(),
    );
    assert_eq!(r.outcome.state, Some(TaskState::Completed));
    assert_eq!(fs.counters("ok")["gets"], 1);
}

#[test]
fn wait_task_polls_a_working_task_until_its_deadline_then_names_its_state() {
    let _t = timing_lock();
    let fs = FaultServer::start();
    let c = client(&fs, "working");
    let wait = a2a_core::client::WaitConfig {
        first_interval: a2a_core::time::Millis(50),
        max_interval: a2a_core::time::Millis(100),
        max_time: a2a_core::time::Millis(1_000),
    };
    let started = Instant::now();
    let r = c.wait_task("t-9", wait, &CallOptions::default());
    let took = started.elapsed();
    assert_eq!(r.outcome.channel, Channel::Transport);
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    assert_eq!(r.outcome.state, Some(TaskState::Working));
    assert_eq!(r.outcome.retry, RetryAdvice::Poll);
    assert!(
        r.outcome
            .message
            .as_deref()
            .unwrap()
            .contains("still working"),
        "{:?}",
        r.outcome.message
    );
    // The whole second is used (a last poll just before it), and no poll starts after it.
    assert_between(
        took,
        Duration::from_millis(700),
        Duration::from_millis(3_000),
        "wait",
    );
    let gets = fs.counters("working")["gets"].as_u64().unwrap();
    assert!((5..=20).contains(&gets), "{gets} polls");
    // The answer of the last poll is kept beside the timeout.
    assert!(r.answer.is_some());

    // --max-time (an absolute deadline) shortens the wait.
    let started = Instant::now();
    let opts = CallOptions {
        deadline: Some(started + Duration::from_millis(400)),
        ..CallOptions::default()
    };
    let r = c.wait_task("t-9", wait, &opts);
    assert_eq!(r.outcome.error, Some(ErrorName::Timeout));
    assert_between(
        started.elapsed(),
        Duration::from_millis(150),
        Duration::from_millis(2_000),
        "wait within --max-time",
    );
}

#[test]
fn a_send_that_returns_immediately_asks_for_it_on_the_wire() {
    let fs = FaultServer::start();
    let c = client(&fs, "ok");
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = std::sync::Arc::clone(&seen);
    c.add_interceptor(
        move |_: &a2a_core::driver::RequestContext<'_>, req: &mut a2a_core::driver::HttpRequest| {
            keep.lock().unwrap().extend_from_slice(&req.body);
        },
    );
    let r = c.send_text(
        "hello",
        &CallOptions {
            return_immediately: true,
            ..CallOptions::default()
        },
    );
    assert!(r.outcome.is_success());
    let body: serde_json::Value = serde_json::from_slice(&seen.lock().unwrap()).unwrap();
    assert_eq!(body["params"]["configuration"]["blocking"], false, "{body}");
}

/// The reference agent sends `Cache-Control: max-age` and an `ETag` with its card: a
/// second client of the same process takes the card from the shared cache without a
/// request (shown by resolving it after the agent is gone), and the agent answers a
/// revalidation with `304`.
#[test]
fn a_fresh_card_is_taken_from_the_process_cache_and_a_stale_one_revalidated() {
    use std::io::{Read, Write};
    let mut demo = common::Demo::start(&[]);
    let url = demo.url.clone();
    // The card's caching headers, and a 304 for its own ETag.
    let addr = url.trim_start_matches("http://").to_owned();
    let get = |extra: &str| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        write!(
            s,
            "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let first = get("");
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    assert!(
        first
            .to_ascii_lowercase()
            .contains("cache-control: public, max-age=300")
    );
    let etag = first
        .lines()
        .find_map(|l| l.strip_prefix("etag: "))
        .expect("an ETag")
        .trim()
        .to_owned();
    let again = get(&format!("If-None-Match: {etag}\r\n"));
    assert!(again.starts_with("HTTP/1.1 304"), "{again}");

    let c1 = Client::new(&url, config()).expect("the card resolves");
    assert!(
        c1.send_text("echo one", &CallOptions::default())
            .outcome
            .is_success()
    );
    demo.stop();
    // The agent is gone: the card still resolves, from the cache, with no request.
    let c2 = Client::new(&url, config()).expect("a fresh card comes from the cache");
    assert_eq!(c2.target().unwrap().url, c1.target().unwrap().url);
    // A call then fails in transport, as it must: only the card was cached.
    let o = c2.send_text("echo two", &CallOptions::default()).outcome;
    assert_eq!(o.channel, Channel::Transport);
}
