//! Arbitrary bytes, arbitrary chunking, small limits: the decoder never panics, and any
//! chunking gives the same items and end-of-stream report as the whole input.
#![no_main]

use a2a_core::sse::{AtEof, Config};
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    // Header: max_line, max_event (small, so limits are hit), flags (bit 0: dispatch at EOF,
    // bit 1: comment text), number of chunk sizes.
    let config = Config::new()
        .with_max_line(usize::from(data[0] % 48))
        .with_max_event(usize::from(data[1] % 48))
        .with_at_eof(if data[2] & 1 == 1 { AtEof::Dispatch } else { AtEof::Discard })
        .with_comment_text(data[2] & 2 == 2);
    let n_sizes = usize::from(data[3] % 8).min(data.len() - 4);
    let sizes = &data[4..4 + n_sizes];
    let input = &data[4 + n_sizes..];
    let whole = common::decode(input, &[], config);
    let chunked = common::decode(input, sizes, config);
    assert_eq!(whole, chunked, "chunk sizes {sizes:?}");
    let ones = common::decode(input, &[1], config);
    assert_eq!(whole, ones, "1-byte chunks");
});
