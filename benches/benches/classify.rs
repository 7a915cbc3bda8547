//! Classifier speed: `a2a_core::classify::classify` on typical response bodies against
//! `serde_json::from_slice::<serde_json::Value>` of the same bytes (the tree a hand-written
//! client builds before it looks at anything), in the same run. Goal (issue 4): at least 3x
//! faster on a typical 2 KB task response.
//!
//! Every benchmark asserts the answer it measures on every timed call (the channel the
//! classifier reports; the top-level object serde_json built).

use std::hint::black_box;
use std::time::Duration;

use a2a_core::classify::{Asked, ResponseInfo, classify};
use a2a_core::outcome::{Channel, TaskState};
use a2a_core::version::{Binding, ProtocolVersion};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// A 1.0 SendMessage result as the Python a2a-sdk 1.3.0 server writes it (result first, id
/// last after the result): a completed task with an artifact and a short history, ~2 KB.
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

/// A 0.3 FAILED task with an ADK error_id (the transcript shape, with kind discriminators).
const FAILED_03: &str = r#"{"id":51,"jsonrpc":"2.0","result":{"artifacts":[],"contextId":"0ce52127-1c52-4d8e-9f11-3a1f7c0d2b10","history":[{"contextId":"0ce52127-1c52-4d8e-9f11-3a1f7c0d2b10","kind":"message","messageId":"m-1","parts":[{"kind":"text","text":"fail"}],"role":"user","taskId":"5f2a9c1e-7b3d-4e8f-a012-6c4d8e9f0a1b"}],"id":"5f2a9c1e-7b3d-4e8f-a012-6c4d8e9f0a1b","kind":"task","status":{"message":{"contextId":"0ce52127-1c52-4d8e-9f11-3a1f7c0d2b10","kind":"message","messageId":"m-2","parts":[{"kind":"text","text":"Agent execution failed. (error_id: 9198d9e2da1d)"}],"role":"agent","taskId":"5f2a9c1e-7b3d-4e8f-a012-6c4d8e9f0a1b"},"state":"failed","timestamp":"2026-11-30T00:06:55.000000Z"}}}"#;

/// A 1.0 JSON-RPC error with ErrorInfo (Python transcript).
const ERROR_10: &str = r#"{"error":{"code":-32001,"message":"Task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{}}]},"id":11,"jsonrpc":"2.0"}"#;

fn bench(c: &mut Criterion) {
    let task = task_2k();
    let cases: [(&str, &[u8], Asked<'static>, Channel); 3] = [
        (
            "task_2k_v1",
            task.as_bytes(),
            Asked {
                version: Some(ProtocolVersion::V1_0),
                binding: Some(Binding::JsonRpc),
                method: Some("SendMessage"),
                request_id: Some("3"),
            },
            Channel::Task,
        ),
        (
            "failed_task_v03",
            FAILED_03.as_bytes(),
            Asked {
                version: Some(ProtocolVersion::V0_3),
                binding: Some(Binding::JsonRpc),
                method: Some("message/send"),
                request_id: Some("51"),
            },
            Channel::Task,
        ),
        (
            "error_v1",
            ERROR_10.as_bytes(),
            Asked {
                version: Some(ProtocolVersion::V1_0),
                binding: Some(Binding::JsonRpc),
                method: Some("GetTask"),
                request_id: Some("11"),
            },
            Channel::Protocol,
        ),
    ];
    assert!(
        (1800..2600).contains(&task.len()),
        "task body is {} bytes",
        task.len()
    );

    let mut g = c.benchmark_group("classify");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    g.sample_size(30);
    for (name, body, asked, channel) in cases {
        let info = ResponseInfo::new(200, body)
            .header("Content-Type", "application/json")
            .asked(asked);
        let o = classify(&info);
        assert_eq!(o.channel, channel, "{name}");
        if channel == Channel::Task {
            assert!(matches!(
                o.state,
                Some(TaskState::Completed | TaskState::Failed)
            ));
        }
        assert!(serde_json::from_slice::<serde_json::Value>(body).is_ok());
        g.throughput(Throughput::Bytes(body.len() as u64));
        g.bench_function(format!("{name}/a2a_core_classify"), |b| {
            b.iter(|| {
                let o = classify(black_box(&info));
                assert_eq!(o.channel, channel);
                o
            })
        });
        g.bench_function(format!("{name}/serde_json_value"), |b| {
            b.iter(|| {
                let v = serde_json::from_slice::<serde_json::Value>(black_box(body)).unwrap();
                assert_eq!(v["jsonrpc"], "2.0");
                v
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
