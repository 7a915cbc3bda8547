//! `bench-driver`: the Rust reference driver (`a2a_core::driver::Client`) in the
//! client-overhead harness: the card resolved once, then `send_text` and `stream_text` as
//! an application calls them (protocol 0.3, JSON-RPC, the bench server's first interface),
//! every answer asserted from the driver's own results (outcome state, the answer's text,
//! the stream's items and end). Run by `scripts/bench/clients.py` (contract in the crate
//! documentation).
#![forbid(unsafe_code)]

use a2a_bench_clients::{Params, Report, Section, check, rss_kib};
use a2a_core::answer;
use a2a_core::driver::{CallOptions, Client, ClientConfig, StreamEvent};
use a2a_core::model::{self, SendResponse};
use a2a_core::outcome::TaskState;
use a2a_core::stream::StreamItemKind;
use a2a_core::version::ProtocolVersion;

fn send(client: &Client, opts: &CallOptions) {
    let r = client.send_text("ping", opts);
    check(r.outcome.state == Some(TaskState::Completed), || {
        r.outcome.to_json()
    });
    let text = match &r.answer {
        Some(a @ SendResponse::Task(_)) => answer::text(a),
        _ => None,
    };
    check(text.as_deref() == Some("ping"), || {
        format!("answer text {text:?}")
    });
}

fn stream(client: &Client, opts: &CallOptions, n: u64) {
    let mut items = 0u64;
    let mut last_artifact = String::new();
    for ev in client.stream_text(&format!("stream {n}"), opts) {
        match ev {
            StreamEvent::Item(item) => {
                items += 1;
                if item.kind == StreamItemKind::ArtifactUpdate
                    && let Some(model::StreamEvent::ArtifactUpdate(a)) = item.event.as_deref()
                {
                    last_artifact = a.artifact.parts[0].as_text().unwrap_or("").to_owned();
                }
            }
            StreamEvent::Resubscribing { .. } => check(false, || "resubscribed".into()),
            StreamEvent::End(end) => {
                check(end.outcome.state == Some(TaskState::Completed), || {
                    end.outcome.to_json()
                });
                check(!end.lost_content(), || "content lost".into());
            }
        }
    }
    check(items == n, || format!("{items} items, wanted {n}"));
    check(last_artifact == format!("chunk {}", n - 4), || {
        format!("last artifact {last_artifact:?}")
    });
}

fn main() {
    let p = Params::from_env();
    let config = ClientConfig {
        allow_http: true,
        protocol: Some(ProtocolVersion::V0_3),
        ..ClientConfig::default()
    };
    let client = Client::new(&p.url, config).expect("card resolution");
    let opts = CallOptions::default();
    for _ in 0..p.warmup {
        send(&client, &opts);
    }
    stream(&client, &opts, p.warmup_events.max(4));

    let mut r = Report {
        client: "driver".into(),
        sends: p.sends,
        events: p.events,
        idle: p.idle,
        ..Report::default()
    };
    let s = Section::start();
    for _ in 0..p.sends {
        send(&client, &opts);
    }
    (r.send_wall_s, r.send_cpu_ns) = s.stop();

    let s = Section::start();
    stream(&client, &opts, p.events);
    (r.stream_wall_s, r.stream_cpu_ns) = s.stop();

    if p.idle > 0 {
        r.rss_before_kib = rss_kib();
        let mut open = Vec::new();
        for _ in 0..p.idle {
            let mut call = client.stream_text("hold", &opts);
            match call.next() {
                Some(StreamEvent::Item(item)) => {
                    check(item.outcome.state == Some(TaskState::Submitted), || {
                        item.outcome.to_json()
                    })
                }
                other => check(false, || format!("first event {other:?}")),
            }
            open.push(call);
        }
        r.rss_after_kib = rss_kib();
        drop(open);
    }
    r.print();
}
