//! One pass per body (issue 22, issue 28 item 2): `a2a_core::answer::classify_and_read`, the
//! classification and the borrowed answer of a response read from one tape of its bytes,
//! against the two passes it replaced (`classify::classify`, then `answer::read_result`),
//! a single `serde_json::from_slice::<serde_json::Value>` of the same bytes and a single
//! `sonic_rs::from_slice::<sonic_rs::Value>`. Goal (issue 28): at least 1.5x faster than the
//! serde_json `Value` parse on a 2 KB task, and ahead of sonic-rs.
//!
//! Every benchmark asserts the answer it measures on every timed call (the outcome's channel
//! and the answer's shape; the top-level object the trees built).
//!
//! For instruction counts: `--only core|serde|sonic [--parts] [--iters N]` runs one contender
//! N times (default 1,000) on one body inside `profile_only` and prints nothing else; run it
//! under `valgrind --tool=callgrind --toggle-collect='*profile_only*'` and divide by N.

use std::hint::black_box;
use std::time::Duration;

use a2a_core::answer::{classify_and_read, read_result, to_json_string};
use a2a_core::classify::{Asked, ResponseInfo, classify};
use a2a_core::model::SendResponse;
use a2a_core::outcome::Channel;
use a2a_core::version::{Binding, ProtocolVersion};
use criterion::{Criterion, Throughput, criterion_group};

/// The classifier bench's 2 KB 1.0 task (`benches/classify.rs`): a completed task with one
/// text artifact and six history messages, as the Python a2a-sdk 1.3.0 server writes it.
fn task_2k() -> String {
    let mut history = Vec::new();
    for i in 0..6 {
        history.push(format!(
            "{{\"messageId\":\"{i:08}-7c1d-4b1e-9f00-3a5b6c7d8e9f\",\"contextId\":\"c9a3bd97-1f2e-4d3c-8b4a-5f6e7d8c9b0a\",\"taskId\":\"a39cebee-2b3c-4d5e-8f9a-0b1c2d3e4f5a\",\"role\":\"{}\",\"parts\":[{{\"text\":\"turn {i}: please summarise the quarterly figures for the northern region\"}}]}}",
            if i % 2 == 0 { "ROLE_USER" } else { "ROLE_AGENT" }
        ));
    }
    format!(
        "{{\"result\":{{\"task\":{{\"id\":\"a39cebee-2b3c-4d5e-8f9a-0b1c2d3e4f5a\",\"contextId\":\"c9a3bd97-1f2e-4d3c-8b4a-5f6e7d8c9b0a\",\"status\":{{\"state\":\"TASK_STATE_COMPLETED\",\"timestamp\":\"2026-11-30T00:12:10.823699Z\"}},\"artifacts\":[{{\"artifactId\":\"f75824c3-0d1e-4f2a-9b3c-4d5e6f7a8b9c\",\"name\":\"summary\",\"parts\":[{{\"text\":\"Revenue in the northern region rose 4.2% quarter on quarter, driven by services; hardware was flat.\"}}]}}],\"history\":[{}]}}}},\"id\":3,\"jsonrpc\":\"2.0\"}}",
        history.join(",")
    )
}

/// A 2 KB 1.0 task whose artifacts carry every part kind: text, a data part and metadata
/// (raw JSON, written verbatim), a file with base64 bytes (checked, never decoded) and a URL.
fn task_2k_parts() -> String {
    let mut artifacts = Vec::new();
    for i in 0..3 {
        artifacts.push(format!(
            "{{\"artifactId\":\"art-{i}-0d1e-4f2a-9b3c-4d5e6f7a8b9c\",\"name\":\"report {i}\",\"parts\":[{{\"text\":\"Section {i}: revenue rose 4.2% quarter on quarter, driven by services.\"}},{{\"data\":{{\"quarter\":\"Q{i}\",\"region\":\"north\",\"rows\":[1,2,3,4],\"total\":1234}},\"mediaType\":\"application/json\"}},{{\"raw\":\"UmV2ZW51ZSByb3NlIDQuMiUgcXVhcnRlciBvbiBxdWFydGVy\",\"filename\":\"r{i}.txt\",\"mediaType\":\"text/plain\"}},{{\"url\":\"https://files.example/r{i}.pdf\",\"mediaType\":\"application/pdf\"}}],\"metadata\":{{\"source\":\"ledger\",\"version\":{i}}}}}"
        ));
    }
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{{\"task\":{{\"id\":\"a39cebee-2b3c-4d5e-8f9a-0b1c2d3e4f5a\",\"contextId\":\"c9a3bd97-1f2e-4d3c-8b4a-5f6e7d8c9b0a\",\"status\":{{\"state\":\"TASK_STATE_COMPLETED\",\"message\":{{\"messageId\":\"m-status\",\"role\":\"ROLE_AGENT\",\"parts\":[{{\"text\":\"done\"}}]}},\"timestamp\":\"2026-11-30T00:12:10.823699Z\"}},\"artifacts\":[{}],\"metadata\":{{\"requestId\":\"req-77\",\"trace\":{{\"sampled\":true}}}}}}}}}}",
        artifacts.join(",")
    )
}

/// What the client asked: a 1.0 JSON-RPC `SendMessage` with id 3.
const ASKED: Asked<'static> = Asked {
    version: Some(ProtocolVersion::V1_0),
    binding: Some(Binding::JsonRpc),
    method: Some("SendMessage"),
    request_id: Some("3"),
};

fn bench(c: &mut Criterion) {
    let asked = ASKED;
    let (v, b) = (ProtocolVersion::V1_0, Binding::JsonRpc);
    let bodies = [
        ("task_2k_v1", task_2k()),
        ("task_2k_parts_v1", task_2k_parts()),
    ];
    let mut g = c.benchmark_group("once");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    for (name, body) in &bodies {
        let body = body.as_bytes();
        assert!(
            (1800..2600).contains(&body.len()),
            "{name} is {} bytes",
            body.len()
        );
        let info = ResponseInfo::new(200, body)
            .header("Content-Type", "application/json")
            .asked(asked);
        // Both ways give the same outcome, answer and canonical JSON.
        let (o1, a1) = classify_and_read(&info, v, b);
        let a1 = a1.expect("an answer").expect("readable");
        assert_eq!(o1, classify(&info));
        assert_eq!(a1, read_result(body, v, b).expect("readable"));
        let parts = match &a1 {
            SendResponse::Task(t) => t.artifacts.iter().map(|a| a.parts.len()).sum::<usize>(),
            SendResponse::Message(_) => 0,
        };
        g.throughput(Throughput::Bytes(body.len() as u64));
        g.bench_function(format!("{name}/a2a-core classify+answer, one pass"), |bn| {
            bn.iter(|| {
                let (o, a) = classify_and_read(black_box(&info), v, b);
                assert_eq!(o.channel, Channel::Task);
                let a = a.expect("an answer").expect("readable");
                assert!(matches!(&a, SendResponse::Task(t) if t.artifacts.iter().map(|x| x.parts.len()).sum::<usize>() == parts));
                a
            })
        });
        g.bench_function(format!("{name}/a2a-core classify+answer, two passes (before)"), |bn| {
            bn.iter(|| {
                let o = classify(black_box(&info));
                assert_eq!(o.channel, Channel::Task);
                let a = read_result(black_box(body), v, b).expect("readable");
                assert!(matches!(&a, SendResponse::Task(t) if t.artifacts.iter().map(|x| x.parts.len()).sum::<usize>() == parts));
                (o, a)
            })
        });
        g.bench_function(
            format!("{name}/a2a-core classify+answer+canonical JSON"),
            |bn| {
                bn.iter(|| {
                    let (o, a) = classify_and_read(black_box(&info), v, b);
                    assert_eq!(o.channel, Channel::Task);
                    let s = to_json_string(&a.expect("an answer").expect("readable"));
                    assert!(s.starts_with("{\"artifacts\":["));
                    s
                })
            },
        );
        g.bench_function(format!("{name}/serde_json Value"), |bn| {
            bn.iter(|| {
                let t: serde_json::Value = serde_json::from_slice(black_box(body)).expect("JSON");
                assert!(t.is_object());
                t
            })
        });
        g.bench_function(format!("{name}/sonic-rs Value"), |bn| {
            use sonic_rs::JsonValueTrait as _;
            bn.iter(|| {
                let t: sonic_rs::Value = sonic_rs::from_slice(black_box(body)).expect("JSON");
                assert!(t.is_object());
                t
            })
        });
    }
    g.finish();
}

/// One contender `iters` times on one body, for callgrind (see the module docs); asserts the
/// same answers as the timed calls.
#[inline(never)]
fn profile_only(who: &str, body: &[u8], iters: usize) {
    use sonic_rs::JsonValueTrait as _;
    let info = ResponseInfo::new(200, body)
        .header("Content-Type", "application/json")
        .asked(ASKED);
    for _ in 0..iters {
        match who {
            "core" => {
                let (o, a) =
                    classify_and_read(black_box(&info), ProtocolVersion::V1_0, Binding::JsonRpc);
                assert_eq!(o.channel, Channel::Task);
                assert!(matches!(a, Some(Ok(SendResponse::Task(_)))));
            }
            "serde" => {
                let t: serde_json::Value = serde_json::from_slice(black_box(body)).expect("JSON");
                assert!(t.is_object());
            }
            "sonic" => {
                let t: sonic_rs::Value = sonic_rs::from_slice(black_box(body)).expect("JSON");
                assert!(t.is_object());
            }
            _ => panic!("--only core|serde|sonic"),
        }
    }
}

criterion_group!(benches, bench);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--only") {
        let who = args.get(at + 1).expect("--only core|serde|sonic");
        let body = if args.iter().any(|a| a == "--parts") {
            task_2k_parts()
        } else {
            task_2k()
        };
        let iters = args
            .iter()
            .position(|a| a == "--iters")
            .map_or(1000, |i| args[i + 1].parse().expect("--iters N"));
        profile_only(who, body.as_bytes(), iters);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
