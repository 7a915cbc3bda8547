//! HTTP/1.1 response parsing: a typical JSON-RPC response framed by Content-Length, and a
//! chunked SSE stream read in TCP-segment-sized pieces, next to httparse parsing the same
//! head alone (the floor for the head). Every benchmark asserts what it parsed.

use a2a_core::http1::{Event, ResponseParser};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn json_response() -> Vec<u8> {
    let body = format!(
        "{{\"id\":3,\"jsonrpc\":\"2.0\",\"result\":{{\"task\":{{\"id\":\"t\",\"status\":{{\"state\":\"TASK_STATE_COMPLETED\"}},\"artifacts\":[{{\"parts\":[{{\"text\":\"{}\"}}]}}]}}}}}}",
        "x".repeat(1900)
    );
    let mut w = format!(
        "HTTP/1.1 200 OK\r\ndate: Mon, 30 Nov 2026 01:00:00 GMT\r\nserver: uvicorn\r\ncontent-length: {}\r\ncontent-type: application/json\r\n\r\n",
        body.len()
    )
    .into_bytes();
    w.extend_from_slice(body.as_bytes());
    w
}

fn chunked_sse(events: usize) -> (Vec<u8>, usize) {
    let mut w = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-store\r\ntransfer-encoding: chunked\r\n\r\n".to_vec();
    let mut body_len = 0;
    for i in 0..events {
        let ev = format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"statusUpdate\":{{\"taskId\":\"t\",\"status\":{{\"state\":\"TASK_STATE_WORKING\"}},\"n\":{i}}}}}}}\r\n\r\n"
        );
        w.extend_from_slice(format!("{:x}\r\n", ev.len()).as_bytes());
        w.extend_from_slice(ev.as_bytes());
        w.extend_from_slice(b"\r\n");
        body_len += ev.len();
    }
    w.extend_from_slice(b"0\r\n\r\n");
    (w, body_len)
}

/// Feeds `wire` as if it arrived in `piece`-byte reads into one buffer (the wire itself):
/// the caller advances a start offset by `consumed` instead of moving bytes. Returns the
/// body bytes seen.
fn parse(wire: &[u8], piece: usize) -> usize {
    let mut p = ResponseParser::new("POST");
    let (mut start, mut end, mut body) = (0, 0, 0);
    loop {
        let step = p.feed(&wire[start..end]).expect("valid response");
        if let Event::Body(b) = step.event {
            body += black_box(b).len();
        }
        start += step.consumed;
        match step.event {
            Event::End => return body,
            Event::NeedMore => {
                assert!(end < wire.len(), "response ended early");
                end = (end + piece).min(wire.len());
            }
            _ => {}
        }
    }
}

fn bench(c: &mut Criterion) {
    let json = json_response();
    let json_body = json.len() - json.windows(4).position(|w| w == b"\r\n\r\n").unwrap() - 4;
    let (sse, sse_body) = chunked_sse(400);

    let mut g = c.benchmark_group("http1");
    g.throughput(Throughput::Bytes(json.len() as u64));
    g.bench_function("json_2k/whole", |b| {
        b.iter(|| assert_eq!(parse(black_box(&json), json.len()), json_body))
    });
    g.bench_function("json_2k/httparse_head_only", |b| {
        b.iter(|| {
            let mut headers = [httparse::EMPTY_HEADER; 16];
            let mut resp = httparse::Response::new(&mut headers);
            let n = resp.parse(black_box(&json)).unwrap().unwrap();
            assert_eq!(json.len() - n, json_body);
        })
    });
    g.throughput(Throughput::Bytes(sse.len() as u64));
    g.bench_function("chunked_sse_400/whole", |b| {
        b.iter(|| assert_eq!(parse(black_box(&sse), sse.len()), sse_body))
    });
    g.bench_function("chunked_sse_400/1460", |b| {
        b.iter(|| assert_eq!(parse(black_box(&sse), 1460), sse_body))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
