//! Fuzz the HTTP/1.1 request reader (the server side): arbitrary bytes must never panic,
//! every step must consume no more than it was given, buffered bytes stay within the limits,
//! and feeding the input in pieces of any size must give the same requests (heads, bodies,
//! trailers) and the same error as feeding it whole. A refused request has a 4xx/5xx status,
//! and nothing after it is read.
#![no_main]

use a2a_core::http1::{
    BodyFraming, Event, Headers, RequestHead, RequestLimits, RequestReadError, RequestReader,
};
use libfuzzer_sys::fuzz_target;

type Outcome = (Vec<(RequestHead, Vec<u8>, Headers)>, Result<(), RequestReadError>);

fn run(limits: RequestLimits, wire: &[u8], piece: usize) -> Outcome {
    let mut r = RequestReader::with_limits(limits);
    let mut buf = Vec::new();
    let mut body = Vec::new();
    let mut requests = Vec::new();
    let mut fed = 0;
    let result = 'outer: loop {
        loop {
            let step = match r.feed(&buf) {
                Ok(s) => s,
                Err(e) => break 'outer Err(e),
            };
            assert!(step.consumed <= buf.len());
            let more = step.event == Event::NeedMore;
            match step.event {
                Event::Body(b) => {
                    assert!(!b.is_empty());
                    body.extend_from_slice(b);
                    assert!(body.len() as u64 <= limits.max_body_bytes);
                }
                Event::End => {
                    let head = r.head().cloned().expect("a head before the end");
                    assert_ne!(head.framing, BodyFraming::UntilClose);
                    requests.push((head, std::mem::take(&mut body), r.trailers().clone()));
                    // The next request on the connection.
                    r.reset();
                }
                Event::Head | Event::NeedMore => {}
            }
            let n = step.consumed;
            buf.drain(..n);
            if more {
                break;
            }
        }
        if fed == wire.len() {
            break r.finish();
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
    if let Err(e) = result {
        assert!([400, 413, 417, 431, 501].contains(&e.status()));
        // Spent: nothing after a refusal is read.
        assert_eq!(r.feed(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"), Err(e));
    }
    (requests, result)
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, wire)) = data.split_first() else {
        return;
    };
    let piece = usize::from(control & 0x1f) + 1;
    let limits = RequestLimits {
        max_head_bytes: 512,
        max_headers: 8,
        max_chunk_line: 64,
        max_trailer_bytes: 128,
        max_body_bytes: if control & 0x80 != 0 { 16 } else { 4096 },
    };
    let whole = run(limits, wire, wire.len().max(1));
    let pieces = run(limits, wire, piece);
    assert_eq!(whole, pieces);
});
