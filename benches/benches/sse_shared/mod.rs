//! The SSE scenarios and contenders shared by `sse.rs` (criterion) and `sse_rounds.rs`
//! (rotated rounds). Every contender returns the counts it decoded, so each benchmark can
//! assert the answer it measures.

use std::convert::Infallible;
use std::hint::black_box;

use a2a_core::sse::{Config, Decoder, Item};
use a2a_protocol_client::streaming::SseParser;
use futures::StreamExt;
use sse_core::{SseDecoder, SseEvent};

/// One input shape and the answer every decoder must give on it.
pub struct Scenario {
    /// Name in the tables (`large`, `small-crlf`, `a2a-crlf`...).
    pub name: &'static str,
    /// The whole stream.
    pub input: Vec<u8>,
    /// Events it dispatches.
    pub events: usize,
    /// Comment lines it holds.
    pub comments: usize,
    /// Events eventsource-stream dispatches (it may differ, see `small-cr`).
    pub es_events: usize,
}

/// The scenarios shaped like sse-core's and sse-stream's published benchmarks (with CRLF and CR-only variants of small events
/// and a 256 KiB line) and an A2A 1.0 artifact stream as the Python SDK's server writes it.
pub fn scenarios() -> Vec<Scenario> {
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
    let (a2a, a2a_events, a2a_comments) = a2a_crlf_stream();
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
        // The same keep-alives with CRLF and bare-CR line ends (issue 28: sse-starlette and
        // other servers end lines with CRLF; a bare CR is the spec's third line end).
        Scenario {
            name: "keepalives-crlf",
            input: b": keepalive\r\n\r\n".repeat(200_000),
            events: 0,
            comments: 200_000,
            es_events: 0,
        },
        Scenario {
            name: "keepalives-cr",
            input: b": keepalive\r\r".repeat(200_000),
            events: 0,
            comments: 200_000,
            es_events: 0,
        },
        // As in sse-core's benchmarks: CRLF and CR-only variants of small events.
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
        Scenario {
            name: "a2a-crlf",
            input: a2a,
            events: a2a_events,
            comments: a2a_comments,
            es_events: a2a_events,
        },
    ]
}

/// An A2A 1.0 JSON-RPC `SendStreamingMessage` response as the Python a2a-sdk's server
/// (sse-starlette) frames it: CRLF line ends, a `: ping - <timestamp>` comment every 50
/// events. A task, a WORKING status update, 2 000 artifact updates of LLM output (48–308 B
/// of text, every fourth with non-ASCII characters) and the COMPLETED status update.
/// Returns (bytes, events, comments).
pub fn a2a_crlf_stream() -> (Vec<u8>, usize, usize) {
    const TASK: &str = "3f6c2a9e-8b1d-4e7f-a2c3-5d6e7f8a9b0c";
    const CTX: &str = "c9a3bd97-1f2e-4d3c-8b4a-5f6e7d8c9b0a";
    let mut s = Vec::new();
    let (mut events, mut comments) = (0, 0);
    let mut event = |s: &mut Vec<u8>, result: String| {
        s.extend_from_slice(b"data: {\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"result\":");
        s.extend_from_slice(result.as_bytes());
        s.extend_from_slice(b"}\r\n\r\n");
        events += 1;
    };
    event(
        &mut s,
        format!(
            "{{\"task\":{{\"id\":\"{TASK}\",\"contextId\":\"{CTX}\",\"status\":{{\"state\":\"TASK_STATE_SUBMITTED\"}}}}}}"
        ),
    );
    let status = |state: &str| {
        format!(
            "{{\"statusUpdate\":{{\"taskId\":\"{TASK}\",\"contextId\":\"{CTX}\",\"status\":{{\"state\":\"{state}\",\"timestamp\":\"2026-12-01T17:00:00.000000Z\"}}}}}}"
        )
    };
    event(&mut s, status("TASK_STATE_WORKING"));
    for i in 0..2_000 {
        if i % 50 == 0 {
            s.extend_from_slice(
                format!(
                    ": ping - 2026-12-01 17:00:{:02}.000000+00:00\r\n\r\n",
                    i / 50
                )
                .as_bytes(),
            );
            comments += 1;
        }
        let mut text = "token ".repeat(8 + i % 42);
        if i % 4 == 0 {
            text.push_str("café — naïve ü ");
        }
        event(
            &mut s,
            format!(
                "{{\"artifactUpdate\":{{\"taskId\":\"{TASK}\",\"contextId\":\"{CTX}\",\"artifact\":{{\"artifactId\":\"art-1\",\"parts\":[{{\"text\":\"{text}\"}}]}},\"append\":true,\"lastChunk\":false}}}}"
            ),
        );
    }
    event(&mut s, status("TASK_STATE_COMPLETED"));
    (s, events, comments)
}

/// a2a-core with the default `Config`: events and comments counted, data touched.
pub fn a2a_core(chunks: &[&[u8]], check_utf8: bool) -> (usize, usize) {
    a2a_core_with(Config::new(), chunks, check_utf8)
}

/// a2a-core with `config`; `check_utf8` validates each event's data (`Event::data_str`).
pub fn a2a_core_with(config: Config, chunks: &[&[u8]], check_utf8: bool) -> (usize, usize) {
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

/// sse-core 0.2.3: an owned `String` per event (it validates UTF-8); it skips comments.
pub fn sse_core(chunks: &[&[u8]]) -> usize {
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

/// a2a-protocol-client 0.15.0's `SseParser` (what `a2a_protocol_sdk::client` re-exports): every
/// chunk fed, then `next_frame` until `None`; an owned `String` per event (it validates UTF-8
/// per line) and it skips comments. Its ready queue drops the oldest frame past 4 096 by
/// default, which a whole-input feed of 100 000 events would hit: the bound is lifted so every
/// frame is counted.
pub fn a2a_protocol_client(chunks: &[&[u8]]) -> usize {
    let mut dec = SseParser::new().with_max_queued_frames(usize::MAX);
    let mut events = 0;
    for chunk in chunks {
        dec.feed(chunk);
        while let Some(frame) = dec.next_frame() {
            black_box(&frame.expect("within limits").data);
            events += 1;
        }
    }
    events
}

/// eventsource-stream 0.2.3 over `futures::stream::iter`, no runtime.
pub fn eventsource_stream(chunks: &[&[u8]]) -> usize {
    let stream = futures::stream::iter(chunks.iter().map(|c| Ok::<&[u8], Infallible>(c)));
    let events = eventsource_stream::EventStream::new(stream);
    futures::executor::block_on(events.fold(0usize, |n, ev| {
        black_box(&ev.expect("valid stream").data);
        async move { n + 1 }
    }))
}

/// The line-splitting floor: every CR and LF found, nothing else.
pub fn floor(input: &[u8]) -> usize {
    memchr::memchr2_iter(b'\r', b'\n', input).count()
}
