//! The C ABI's feeding functions (liba2a_core, `ffi/`), called as C calls them: the SSE
//! decoder's (packed) feed, its finish, the HTTP/1.1 response reader, the
//! stream tracker and the classifier, with arbitrary bytes and chunkings. Checks: no panic
//! (the panic hook aborts before the boundary could hide it), every view in bounds (read
//! whole; chunks are separate allocations freed after their feed, so a view kept into an old
//! chunk is a use-after-free AddressSanitizer reports), the packed layout as documented, the
//! same items, end report and last event ID for the whole input, the fuzzer's chunking and
//! 1-byte chunks, the reader's steps within what they were given, and every call leaving
//! its handle usable (a hold on the handle's gate that was not released would make the next
//! call return `A2A_IN_USE`).
#![no_main]

use std::mem::MaybeUninit;
use std::ptr::{null, null_mut};

use a2a_ffi::classify::{a2a_asked, a2a_classify, a2a_response};
use a2a_ffi::http1::*;
use a2a_ffi::outcome::{a2a_outcome, a2a_outcome_free, a2a_outcome_get_info, a2a_outcome_info};
use a2a_ffi::result::a2a_result;
use a2a_ffi::sse::*;
use a2a_ffi::stream::*;
use a2a_ffi::view::a2a_bytes;
use libfuzzer_sys::fuzz_target;

/// An item, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Got {
    Ev(Vec<u8>, Vec<u8>, Vec<u8>),
    Comment(Vec<u8>),
    Retry(u64),
    Limit(u32, usize),
}

/// The bytes of a view (empty for the absent view), read whole.
fn bytes(v: a2a_bytes) -> Vec<u8> {
    if v.ptr.is_null() {
        assert_eq!(v.len, 0, "absent view with a length");
        return Vec::new();
    }
    // SAFETY: the library hands out views of `len` readable bytes (the property checked).
    unsafe { std::slice::from_raw_parts(v.ptr, v.len) }.to_vec()
}

/// Copies one item, checking what its kind promises.
fn got(it: &a2a_sse_item, max_line: usize, max_event: usize) -> Got {
    match it.kind {
        a2a_sse_item_kind::Event => {
            assert!(!it.event_type.ptr.is_null() && !it.data.ptr.is_null() && !it.id.ptr.is_null());
            Got::Ev(bytes(it.event_type), bytes(it.data), bytes(it.id))
        }
        a2a_sse_item_kind::Comment => {
            assert!(!it.data.ptr.is_null());
            Got::Comment(bytes(it.data))
        }
        a2a_sse_item_kind::Retry => Got::Retry(it.retry_ms),
        a2a_sse_item_kind::LimitError => {
            assert!(matches!(
                it.error,
                a2a_result::A2A_SSE_LINE_TOO_LONG | a2a_result::A2A_SSE_EVENT_TOO_LARGE
            ));
            assert!(it.limit == max_line || it.limit == max_event, "limit {}", it.limit);
            Got::Limit(it.error as u32, it.limit)
        }
    }
}

/// Cuts `input` into separately allocated chunks whose sizes cycle through `sizes`.
fn chunks(input: &[u8], sizes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = input;
    let mut i = 0;
    while !rest.is_empty() {
        let n = if sizes.is_empty() { rest.len() } else { usize::from(sizes[i % sizes.len()]).max(1) };
        i += 1;
        let (c, tail) = rest.split_at(n.min(rest.len()));
        out.push(c.to_vec());
        rest = tail;
    }
    out
}

struct Decoded {
    items: Vec<Got>,
    finish: Vec<u8>,
    last_event_id: Vec<u8>,
    retry: Option<u64>,
}

fn new_decoder(max_line: usize, max_event: usize, at_eof: a2a_sse_at_eof) -> *mut a2a_sse_decoder {
    let mut d = null_mut();
    assert_eq!(a2a_sse_decoder_new_with(max_line, max_event, at_eof as u32, &mut d), a2a_result::A2A_OK);
    d
}

/// The finish report and the decoder's state after the stream, as comparable bytes.
fn end(d: *mut a2a_sse_decoder, max_line: usize, max_event: usize) -> (Vec<u8>, Vec<u8>, Option<u64>) {
    let mut f = MaybeUninit::<a2a_sse_finish>::uninit();
    assert_eq!(a2a_sse_decoder_finish(d, f.as_mut_ptr()), a2a_result::A2A_OK);
    // SAFETY: written on A2A_OK.
    let f = unsafe { f.assume_init() };
    let event = f.has_event.then(|| got(&f.event, max_line, max_event));
    let report = format!(
        "{event:?} {} {} {} {} {:?} {}",
        f.discarded, f.discarded_partial_line, f.discarded_event, f.discarded_id, f.error, f.limit
    );
    let id = bytes(a2a_sse_decoder_last_event_id(d));
    let mut retry = 0u64;
    let retry = a2a_sse_decoder_retry(d, &mut retry).then_some(retry);
    (report.into_bytes(), id, retry)
}

/// Packed feeds, checking the documented layout of every result.
fn decode_packed(input: &[u8], sizes: &[u8], max_line: usize, max_event: usize, at_eof: a2a_sse_at_eof) -> Decoded {
    let d = new_decoder(max_line, max_event, at_eof);
    let mut items = Vec::new();
    for chunk in chunks(input, sizes) {
        let mut p = MaybeUninit::<a2a_sse_packed>::uninit();
        assert_eq!(a2a_sse_decoder_feed_packed(d, chunk.as_ptr(), chunk.len(), p.as_mut_ptr()), a2a_result::A2A_OK);
        drop(chunk); // the packed result never points into the chunk
        // SAFETY: written on A2A_OK.
        let p = unsafe { p.assume_init() };
        assert!(!p.bytes.ptr.is_null() && !p.offsets.is_null());
        let buf = bytes(p.bytes);
        // SAFETY: `3 * event_count + 1` offsets, as documented.
        let offsets = unsafe { std::slice::from_raw_parts(p.offsets, 3 * p.event_count + 1) };
        assert_eq!(offsets[0], 0);
        assert_eq!(offsets[3 * p.event_count], buf.len() as u64);
        for k in 0..3 * p.event_count {
            let (a, b) = (offsets[k] as usize, offsets[k + 1] as usize);
            assert!(a < b && b <= buf.len(), "offsets {a} {b} of {}", buf.len());
            assert_eq!(buf[b - 1], b'\r');
            assert!(!buf[a..b - 1].contains(&b'\r'));
        }
        assert_eq!(p.items.is_null(), p.item_count == 0);
        let all: &[a2a_sse_item] = if p.item_count == 0 {
            &[]
        } else {
            // SAFETY: the library returned an array of `item_count` items.
            unsafe { std::slice::from_raw_parts(p.items, p.item_count) }
        };
        let mut events = 0;
        let (mut comments, mut limits) = (0, 0);
        for it in all {
            let g = got(it, max_line, max_event);
            match &g {
                Got::Ev(t, data, id) => {
                    // event views point into `bytes`, at their values' offsets
                    let base = p.bytes.ptr as usize;
                    for (k, (v, want)) in [(it.event_type, t), (it.data, data), (it.id, id)].into_iter().enumerate() {
                        let at = v.ptr as usize - base;
                        assert_eq!(at as u64, offsets[3 * events + k]);
                        assert_eq!(&buf[at..at + v.len], want.as_slice());
                    }
                    events += 1;
                }
                Got::Comment(_) => comments += 1,
                Got::Limit(..) => limits += 1,
                Got::Retry(_) => {}
            }
            items.push(g);
        }
        assert_eq!((events, comments, limits), (p.event_count, p.comment_count, p.limit_error_count));
    }
    let (finish, last_event_id, retry) = end(d, max_line, max_event);
    a2a_sse_decoder_free(d);
    Decoded { items, finish, last_event_id, retry }
}

/// What a reader made of a response: head, body, how it ended.
#[derive(Debug, PartialEq, Eq)]
struct Read {
    head: Option<(u16, u8, usize, u32, u64)>,
    body: Vec<u8>,
    end: u32,
}

/// Reads `input` as an HTTP/1.1 response, `piece` more bytes becoming available per read
/// (0: all at once), then end of file.
fn read_http1(input: &[u8], head_method: bool, piece: usize) -> Read {
    let limits = a2a_http1_limits {
        max_head_bytes: 512,
        max_headers: 8,
        max_informational: 4,
        max_chunk_line: 64,
        max_trailer_bytes: 512,
    };
    let method: &[u8] = if head_method { b"HEAD" } else { b"POST" };
    let mut r = null_mut();
    assert_eq!(a2a_http1_response_new_with(method.as_ptr().cast(), method.len(), &limits, &mut r), a2a_result::A2A_OK);
    let mut out = Read { head: None, body: Vec::new(), end: 0 };
    let (mut pos, mut avail) = (0usize, if piece == 0 { input.len() } else { piece.min(input.len()) });
    let mut eof = false;
    for _ in 0..4 * input.len() + 64 {
        // A fresh allocation per read: the body view must point into this one.
        let window = input[pos..avail].to_vec();
        let mut step = MaybeUninit::<a2a_http1_step>::uninit();
        let rc = a2a_http1_response_feed(r, window.as_ptr(), window.len(), step.as_mut_ptr());
        if rc != a2a_result::A2A_OK {
            out.end = rc as u32;
            break;
        }
        // SAFETY: written on A2A_OK.
        let step = unsafe { step.assume_init() };
        assert!(step.consumed <= window.len(), "consumed {} of {}", step.consumed, window.len());
        if step.event == a2a_http1_event::Body {
            let (b, start) = (step.body.ptr as usize, window.as_ptr() as usize);
            assert!(b >= start && b + step.body.len <= start + window.len(), "body view outside the input");
            out.body.extend(bytes(step.body));
        }
        if step.event == a2a_http1_event::Head && out.head.is_none() {
            let mut h = MaybeUninit::<a2a_http1_head>::uninit();
            assert_eq!(a2a_http1_response_head(r, h.as_mut_ptr()), a2a_result::A2A_OK);
            // SAFETY: written on A2A_OK.
            let h = unsafe { h.assume_init() };
            out.head = Some((h.status, h.minor_version, h.header_count, h.framing as u32, h.content_length));
            if !h.reason.ptr.is_null() {
                // SAFETY: a view of `len` readable bytes (the property checked).
                let reason = unsafe { std::slice::from_raw_parts(h.reason.ptr.cast::<u8>(), h.reason.len) };
                assert!(!reason.contains(&b'\n'));
            }
        }
        pos += step.consumed;
        match step.event {
            a2a_http1_event::End => {
                out.end = 1;
                break;
            }
            a2a_http1_event::NeedMore if avail < input.len() => {
                avail = (avail + piece.max(1)).min(input.len());
            }
            a2a_http1_event::NeedMore => {
                eof = true;
                break;
            }
            _ => {}
        }
    }
    if eof {
        out.end = 1000 + a2a_http1_response_finish(r) as u32;
    }
    assert_ne!(out.end, 0, "the reader neither ended nor failed within its step budget");
    a2a_http1_response_free(r);
    out
}

/// Feeds the decoded items to a stream tracker; every item outcome it lends is readable.
fn track(items: &[Got]) {
    let mut t = null_mut();
    assert_eq!(a2a_stream_tracker_new(null(), 30_000, 0, &mut t), a2a_result::A2A_OK);
    let mut fed = 0u64;
    for (now, g) in (1u64..).zip(items) {
        match g {
            Got::Ev(ty, data, _) => {
                let mut item = MaybeUninit::<a2a_stream_item>::uninit();
                let rc = a2a_stream_tracker_on_event(t, now, ty.as_ptr(), ty.len(), data.as_ptr(), data.len(), item.as_mut_ptr());
                if rc == a2a_result::A2A_NONE {
                    assert!(data.iter().all(u8::is_ascii_whitespace));
                    continue;
                }
                assert_eq!(rc, a2a_result::A2A_OK);
                fed += 1;
                // SAFETY: written on A2A_OK.
                let item = unsafe { item.assume_init() };
                info(item.outcome);
                if item.ends_stream {
                    break;
                }
            }
            Got::Comment(_) => assert_eq!(a2a_stream_tracker_on_comment(t, now), a2a_result::A2A_OK),
            _ => assert_eq!(a2a_stream_tracker_on_bytes(t, now), a2a_result::A2A_OK),
        }
    }
    assert_eq!(a2a_stream_tracker_events(t), fed);
    let mut kind = MaybeUninit::uninit();
    let mut o = null_mut();
    assert_eq!(a2a_stream_tracker_finish(t, kind.as_mut_ptr(), &mut o), a2a_result::A2A_OK);
    info(o);
    a2a_outcome_free(o);
    a2a_stream_tracker_free(t);
}

/// Reads every field of an outcome once.
fn info(o: *const a2a_outcome) {
    assert!(!o.is_null());
    let mut i = MaybeUninit::<a2a_outcome_info>::uninit();
    assert_eq!(a2a_outcome_get_info(o, i.as_mut_ptr()), a2a_result::A2A_OK);
}

fn classify(status: u16, stream: bool, body: &[u8]) {
    let ct: &[u8] = if stream { b"text/event-stream" } else { b"application/json" };
    let r = a2a_response {
        status,
        content_type: ct.as_ptr().cast(),
        content_type_len: ct.len(),
        retry_after: null(),
        retry_after_len: 0,
        body: body.as_ptr(),
        body_len: body.len(),
        asked: a2a_asked { version: 0, binding: 0, method: null(), method_len: 0, request_id: null(), request_id_len: 0 },
        now_unix_seconds: 0,
    };
    let mut o = null_mut();
    assert_eq!(a2a_classify(&r, &mut o), a2a_result::A2A_OK);
    info(o);
    a2a_outcome_free(o);
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    // Header: max_line, max_event (1..=48: limits are hit), flags (bit 0: dispatch at EOF,
    // bit 1: HEAD request, bit 2: event-stream content type, bits 3-7: HTTP piece size and
    // status), number of chunk sizes; then the sizes, then the bytes.
    let max_line = usize::from(data[0] % 48) + 1;
    let max_event = usize::from(data[1] % 48) + 1;
    let flags = data[2];
    let at_eof = if flags & 1 == 1 { a2a_sse_at_eof::Dispatch } else { a2a_sse_at_eof::Discard };
    let n_sizes = usize::from(data[3] % 8).min(data.len() - 4);
    let sizes = &data[4..4 + n_sizes];
    let input = &data[4 + n_sizes..];

    let whole = decode_packed(input, &[], max_line, max_event, at_eof);
    for (name, other) in [
        ("packed, the fuzzer's chunks", decode_packed(input, sizes, max_line, max_event, at_eof)),
        ("packed, 1-byte chunks", decode_packed(input, &[1], max_line, max_event, at_eof)),
    ] {
        assert_eq!(whole.items, other.items, "{name}: items (sizes {sizes:?})");
        assert_eq!(whole.finish, other.finish, "{name}: finish report");
        assert_eq!(whole.last_event_id, other.last_event_id, "{name}: last event id");
        assert_eq!(whole.retry, other.retry, "{name}: retry");
    }

    let head_method = flags & 2 == 2;
    let all_at_once = read_http1(input, head_method, 0);
    let in_pieces = read_http1(input, head_method, usize::from(flags >> 3) + 1);
    assert_eq!(all_at_once, in_pieces, "HTTP/1.1 read whole and in pieces of {}", (flags >> 3) + 1);

    track(&whole.items);
    let status = [200, 200, 400, 401, 404, 429, 500, 503][usize::from(flags >> 5)];
    classify(status, flags & 4 == 4, input);
});
