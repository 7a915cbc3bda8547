//! The UTF-8 check behind `Event::data_str` and the other validating accessors: simdutf8
//! (what a2a-core uses) against `std::str::from_utf8`, on the value sizes of the SSE
//! scenarios: a 9-byte token event, a ~300-byte A2A artifact update with non-ASCII text, a
//! 4 KB and a 40 KB event. Every benchmark asserts the result it measures.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let artifact = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"result\":{{\"artifactUpdate\":{{\"taskId\":\"3f6c2a9e-8b1d-4e7f-a2c3-5d6e7f8a9b0c\",\"artifact\":{{\"parts\":[{{\"text\":\"{}café — naïve ü\"}}]}}}}}}}}",
        "token ".repeat(20)
    );
    let values: [(&str, Vec<u8>); 4] = [
        ("9B", br#"{"t":"a"}"#.to_vec()),
        ("artifact-300B", artifact.into_bytes()),
        ("4KB", "word".repeat(1024).into_bytes()),
        (
            "40KB",
            format!("payload data: {}", "word".repeat(10_000)).into_bytes(),
        ),
    ];
    for (name, v) in &values {
        let mut g = c.benchmark_group(format!("utf8/{name}"));
        g.throughput(Throughput::Bytes(v.len() as u64));
        g.bench_function("simdutf8", |b| {
            b.iter(|| {
                let s = simdutf8::basic::from_utf8(black_box(v)).expect("valid");
                assert_eq!(s.len(), v.len());
                s.len()
            })
        });
        g.bench_function("std", |b| {
            b.iter(|| {
                let s = std::str::from_utf8(black_box(v)).expect("valid");
                assert_eq!(s.len(), v.len());
                s.len()
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
