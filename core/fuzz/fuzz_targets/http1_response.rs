//! Fuzz the HTTP/1.1 response parser: arbitrary bytes must never panic, every step must
//! consume no more than it was given, and feeding the input in pieces of any size must
//! give the same head, body, trailers and error as feeding it whole.
#![no_main]

use a2a_core::http1::{Event, Headers, Limits, ResponseError, ResponseHead, ResponseParser};
use libfuzzer_sys::fuzz_target;

type Outcome = (
    Option<ResponseHead>,
    Vec<u8>,
    Headers,
    Result<(), ResponseError>,
);

fn run(method: &str, limits: Limits, wire: &[u8], piece: usize) -> Outcome {
    let mut p = ResponseParser::with_limits(method, limits);
    let mut buf = Vec::new();
    let mut body = Vec::new();
    let mut fed = 0;
    let result = 'outer: loop {
        loop {
            let step = match p.feed(&buf) {
                Ok(s) => s,
                Err(e) => break 'outer Err(e),
            };
            assert!(step.consumed <= buf.len());
            let (more, end) = (step.event == Event::NeedMore, step.event == Event::End);
            if let Event::Body(b) = step.event {
                assert!(!b.is_empty());
                body.extend_from_slice(b);
            }
            let n = step.consumed;
            buf.drain(..n);
            if end {
                break 'outer Ok(());
            }
            if more {
                break;
            }
        }
        if fed == wire.len() {
            break p.finish();
        }
        let n = piece.min(wire.len() - fed);
        buf.extend_from_slice(&wire[fed..fed + n]);
        fed += n;
    };
    assert!(
        buf.len()
            <= limits
                .max_head_bytes
                .max(limits.max_chunk_line)
                .max(limits.max_trailer_bytes)
                + piece
    );
    (p.head().cloned(), body, p.trailers().clone(), result)
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, wire)) = data.split_first() else {
        return;
    };
    let method = if control & 0x80 != 0 { "HEAD" } else { "GET" };
    let piece = usize::from(control & 0x1f) + 1;
    let limits = Limits {
        max_head_bytes: 512,
        max_headers: 8,
        max_informational: 3,
        max_chunk_line: 64,
        max_trailer_bytes: 128,
    };
    let whole = run(method, limits, wire, wire.len().max(1));
    let pieces = run(method, limits, wire, piece);
    assert_eq!(whole, pieces);
});
