//! SSE decoding: a2a-core against sse-core, eventsource-stream and the memchr2 floor, on the
//! scenarios shaped like sse-core's and sse-stream's published benchmarks (with the CRLF and CR-only variants of small events,
//! a 256 KiB line and an A2A 1.0 CRLF artifact stream with pings), each whole, in 1460-byte
//! chunks and in 4-byte chunks.
//!
//! Every benchmark asserts the number of events (and comments) it decoded. Run under both
//! profiles (benches/README.md):
//! `cargo bench -p a2a-benches --bench sse -- --warm-up-time 1 --measurement-time 2`
//! `cargo bench --profile bench-lto -p a2a-benches --bench sse -- ...`

mod sse_shared;

use std::hint::black_box;

use a2a_core::sse::Config;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sse_shared::{
    a2a_core, a2a_core_with, a2a_protocol_client, eventsource_stream, floor, scenarios, sse_core,
};

fn bench(c: &mut Criterion) {
    for s in scenarios() {
        let terminators = floor(&s.input);
        for (label, size) in [("whole", s.input.len()), ("1460", 1460), ("4", 4)] {
            let chunks: Vec<&[u8]> = s.input.chunks(size.max(1)).collect();
            let mut g = c.benchmark_group(format!("sse/{}/{label}", s.name));
            g.throughput(Throughput::Bytes(s.input.len() as u64));
            g.sample_size(10);
            g.bench_function(BenchmarkId::from_parameter("a2a-core"), |b| {
                b.iter(|| assert_eq!(a2a_core(black_box(&chunks), false), (s.events, s.comments)))
            });
            g.bench_function(BenchmarkId::from_parameter("a2a-core+utf8"), |b| {
                b.iter(|| assert_eq!(a2a_core(black_box(&chunks), true), (s.events, s.comments)))
            });
            if s.comments > 0 {
                // The comment text handed out too (Config::comment_text, off by default).
                let text = Config::new().with_comment_text(true);
                g.bench_function(BenchmarkId::from_parameter("a2a-core+comment-text"), |b| {
                    b.iter(|| {
                        assert_eq!(
                            a2a_core_with(text, black_box(&chunks), false),
                            (s.events, s.comments)
                        )
                    })
                });
            }
            g.bench_function(BenchmarkId::from_parameter("sse-core"), |b| {
                b.iter(|| assert_eq!(sse_core(black_box(&chunks)), s.events))
            });
            g.bench_function(BenchmarkId::from_parameter("a2a-protocol-client"), |b| {
                b.iter(|| assert_eq!(a2a_protocol_client(black_box(&chunks)), s.events))
            });
            // eventsource-stream keeps its input in one String and re-slices it per event and
            // per chunk (its issue #11): a whole 1.7 MB input of small events takes seconds per
            // pass and a 40 KB line in 4-byte chunks takes minutes. It runs on realistic
            // network chunks (1460 bytes) everywhere, and whole for the large shapes.
            // `A2A_BENCH_NO_ES=1` leaves it out (a run of both profiles in a short quiet slot).
            let es_runs = std::env::var_os("A2A_BENCH_NO_ES").is_none()
                && (label == "1460"
                    || (label == "whole"
                        && (s.name == "large" || s.name == "medium" || s.name == "hugeline")));
            if es_runs {
                g.bench_function(BenchmarkId::from_parameter("eventsource-stream"), |b| {
                    b.iter(|| assert_eq!(eventsource_stream(black_box(&chunks)), s.es_events))
                });
            }
            g.bench_function(BenchmarkId::from_parameter("memchr2-floor"), |b| {
                b.iter(|| assert_eq!(floor(black_box(&s.input)), terminators))
            });
            g.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
