//! SSE decoding: a2a-core against sse-core, eventsource-stream and the memchr2 floor, on
//! scenarios shaped like sse-core's and sse-stream's published benchmarks (with the CRLF and
//! CR-only variants of small events and a 256 KiB line), each whole, in 1460-byte chunks and
//! in 4-byte chunks.
//!
//! Every benchmark asserts the number of events it decoded. Run:
//! `cargo bench -p a2a-benches --bench sse -- --warm-up-time 1 --measurement-time 2`

use std::convert::Infallible;
use std::hint::black_box;

use a2a_core::sse::{Config, Decoder, Item};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use sse_core::{SseDecoder, SseEvent};

struct Scenario {
    name: &'static str,
    input: Vec<u8>,
    events: usize,
    comments: usize,
    /// Events eventsource-stream dispatches (it may differ, see `small-cr`).
    es_events: usize,
}

fn scenarios() -> Vec<Scenario> {
    let big = |n: usize, size: usize| {
        let payload = "word".repeat(size / 4);
        let mut s = Vec::new();
        for i in 0..n {
            s.extend_from_slice(
                format!("retry:3000\nid: {i}\nevent: message\ndata: payload data: {payload}\n\n")
                    .as_bytes(),
            );
        }
        s
    };
    let mut structured = Vec::new();
    for i in 0..50_000 {
        structured.extend_from_slice(
            format!("id: {i}\nevent: message\ndata: {{\"t\":\"a\"}}\n\n").as_bytes(),
        );
    }
    vec![
        Scenario {
            name: "large",
            input: big(64, 40_000),
            events: 64,
            comments: 0,
            es_events: 64,
        },
        Scenario {
            name: "medium",
            input: big(256, 4_096),
            events: 256,
            comments: 0,
            es_events: 256,
        },
        Scenario {
            name: "small",
            input: b"data: {\"t\":\"a\"}\n\n".repeat(100_000),
            events: 100_000,
            comments: 0,
            es_events: 100_000,
        },
        Scenario {
            name: "structured",
            input: structured,
            events: 50_000,
            comments: 0,
            es_events: 50_000,
        },
        Scenario {
            name: "multiline",
            input: b"data: first\ndata: second\ndata: third\n\n".repeat(50_000),
            events: 50_000,
            comments: 0,
            es_events: 50_000,
        },
        Scenario {
            name: "keepalives",
            input: b": keepalive\n\n".repeat(200_000),
            events: 0,
            comments: 200_000,
            es_events: 0,
        },
        // CRLF and CR-only variants of small events (line endings: docs/sse.md §1.3).
        Scenario {
            name: "small-crlf",
            input: b"data: {\"t\":\"a\"}\r\n\r\n".repeat(100_000),
            events: 100_000,
            comments: 0,
            es_events: 100_000,
        },
        Scenario {
            name: "small-cr",
            input: b"data: {\"t\":\"a\"}\r\r".repeat(100_000),
            events: 100_000,
            comments: 0,
            // eventsource-stream holds back a CR that ends its input (an LF might follow)
            // and never dispatches the last event: docs/sse.md §1.3.
            es_events: 99_999,
        },
        // eventsource-parser's huge-line-drip: one 256 KiB data line (here also whole and in
        // 1460-byte chunks); in 4-byte chunks a parser that rescans goes quadratic.
        Scenario {
            name: "hugeline",
            input: {
                let mut s = b"data: ".to_vec();
                s.extend_from_slice(&b"word".repeat(64 * 1024));
                s.extend_from_slice(b"\n\n");
                s
            },
            events: 1,
            comments: 0,
            es_events: 1,
        },
    ]
}

/// a2a-core: events and comments counted, data touched.
fn a2a_core(chunks: &[&[u8]], check_utf8: bool) -> (usize, usize) {
    a2a_core_with(Config::new(), chunks, check_utf8)
}

fn a2a_core_with(config: Config, chunks: &[&[u8]], check_utf8: bool) -> (usize, usize) {
    let mut dec = Decoder::with_config(config);
    let (mut events, mut comments) = (0, 0);
    for chunk in chunks {
        let mut feed = dec.feed(chunk);
        while let Some(item) = feed.next_item().expect("within limits") {
            match item {
                Item::Event(e) => {
                    if check_utf8 {
                        assert!(e.data_str().is_ok());
                    }
                    black_box(e.data);
                    events += 1;
                }
                Item::Comment(c) => {
                    black_box(c);
                    comments += 1;
                }
                Item::Retry(_) => {}
            }
        }
    }
    (events, comments)
}

fn sse_core(chunks: &[&[u8]]) -> usize {
    let mut dec = SseDecoder::new();
    let mut events = 0;
    for chunk in chunks {
        let mut buf: &[u8] = chunk;
        while let Some(ev) = dec.next(&mut buf) {
            if let SseEvent::Message(m) = ev.expect("within limits") {
                black_box(&m.data);
                events += 1;
            }
        }
    }
    events
}

fn eventsource_stream(chunks: &[&[u8]]) -> usize {
    let stream = futures::stream::iter(chunks.iter().map(|c| Ok::<&[u8], Infallible>(c)));
    let events = eventsource_stream::EventStream::new(stream);
    futures::executor::block_on(events.fold(0usize, |n, ev| {
        black_box(&ev.expect("valid stream").data);
        async move { n + 1 }
    }))
}

fn floor(input: &[u8]) -> usize {
    memchr::memchr2_iter(b'\r', b'\n', input).count()
}

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
            // eventsource-stream keeps its input in one String and re-slices it per event and
            // per chunk (its issue #11): a whole 1.7 MB input of small events takes seconds per
            // pass and a 40 KB line in 4-byte chunks takes minutes. It runs on realistic
            // network chunks (1460 bytes) everywhere, and whole for the large shapes.
            let es_runs = label == "1460"
                || (label == "whole"
                    && (s.name == "large" || s.name == "medium" || s.name == "hugeline"));
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
