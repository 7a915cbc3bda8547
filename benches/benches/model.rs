//! The wire model and envelopes: reading a large task response (borrowed, zero-copy where
//! the JSON allows) next to the floor of parsing the same bytes into a `serde_json::Value`
//! tree, building a request, reading it on the server side, and writing a result.

use a2a_core::envelope::{CallOptions, Interface, RpcId, build, text_message};
use a2a_core::model::{SendResponse, StreamEvent, WireForm, from_slice, to_vec};
use a2a_core::server::{self, ServerOptions};
use a2a_core::version::{Binding, ProtocolVersion};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

/// A 1.0 send result: one task with `n` artifacts of one ~4 KiB text part each.
fn big_task(n: usize) -> Vec<u8> {
    let text = "All work and no play makes Jack a dull boy. ".repeat(100);
    let artifacts: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"artifactId":"a-{i}","name":"chunk {i}","parts":[{{"text":"{text}"}}],"metadata":{{"i":{i}}}}}"#))
        .collect();
    format!(
        r#"{{"task":{{"id":"363422be-b0f9-4692-a24d-278670e7c7f1","contextId":"c295ea44","status":{{"state":"TASK_STATE_COMPLETED","timestamp":"2025-10-28T10:30:00.000Z"}},"artifacts":[{}]}}}}"#,
        artifacts.join(",")
    )
    .into_bytes()
}

fn read(c: &mut Criterion) {
    let body = big_task(256);
    let mut g = c.benchmark_group("read 1.0 task, 256 artifacts");
    g.throughput(Throughput::Bytes(body.len() as u64));
    g.bench_function("a2a_core::model (borrowed)", |b| {
        b.iter(|| {
            let r: SendResponse = from_slice(black_box(&body), WireForm::V1_0).unwrap();
            let SendResponse::Task(t) = r else {
                panic!("a task")
            };
            assert_eq!(t.artifacts.len(), 256);
            t.artifacts.len()
        })
    });
    g.bench_function(
        "serde_json::Value (floor: a tree, every string copied)",
        |b| {
            b.iter(|| {
                let v: serde_json::Value = serde_json::from_slice(black_box(&body)).unwrap();
                assert_eq!(v["task"]["artifacts"].as_array().unwrap().len(), 256);
                v
            })
        },
    );
    g.finish();
    // §8.1(b): the `result` of a 0.3 stream event.
    let result: &[u8] = br#"{"kind":"status-update","taskId":"t-1","contextId":"c-1","status":{"state":"working"},"final":false}"#;
    c.bench_function("read 0.3 status-update event (small)", |b| {
        b.iter(|| {
            let e: StreamEvent = from_slice(black_box(result), WireForm::JsonRpcV0_3).unwrap();
            assert!(e.state().is_some());
            e.kind()
        })
    });
}

fn write_and_build(c: &mut Criterion) {
    let body = big_task(64);
    let r: SendResponse = from_slice(&body, WireForm::V1_0).unwrap();
    c.bench_function("write 1.0 task, 64 artifacts, as 0.3 JSON-RPC", |b| {
        b.iter(|| {
            let out = to_vec(black_box(&r), WireForm::JsonRpcV0_3).unwrap();
            assert!(out.len() > 64 * 4000);
            out
        })
    });
    let iface = Interface::new(ProtocolVersion::V1_0, Binding::JsonRpc);
    let call = text_message("9229e770-767c-417b-a0b0-f0741243c589", "tell me a joke");
    c.bench_function("build SendMessage (1.0 JSON-RPC)", |b| {
        b.iter(|| {
            let req = build(
                &iface,
                black_box(&call),
                &CallOptions::with_id(RpcId::Number(1)),
            )
            .unwrap();
            assert_eq!(req.headers.len(), 2);
            req
        })
    });
    let req = build(&iface, &call, &CallOptions::with_id(RpcId::Number(1))).unwrap();
    let headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
    let opts = ServerOptions::default();
    c.bench_function("server: read SendMessage (1.0 JSON-RPC)", |b| {
        b.iter(|| {
            let r = server::parse_jsonrpc(&headers, black_box(&req.body), &opts).unwrap();
            assert_eq!(r.version, ProtocolVersion::V1_0);
            r.method
        })
    });
}

criterion_group!(benches, read, write_and_build);
criterion_main!(benches);
