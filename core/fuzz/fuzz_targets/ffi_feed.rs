//! The C ABI's feeding functions (liba2a_core, `ffi/`), called as C calls them: the SSE
//! decoder's (packed) feed, its finish, the client machine's response feed
//! (`a2a_call_handle_head` / `_body` / `_end` of a streaming call) and the classifier, with
//! arbitrary bytes and chunkings. Checks: no panic (the panic hook aborts before the
//! boundary could hide it), every view in bounds (read whole; chunks are separate
//! allocations freed after their feed, so a view kept into an old chunk is a use-after-free
//! AddressSanitizer reports), the packed layout as documented, the same items, end report and
//! last event ID for the whole input, the fuzzer's chunking and 1-byte chunks, the same
//! machine events (items, their outcomes and texts, the final outcome and answer) for the
//! body fed whole, in the fuzzer's chunks and byte by byte, and every call leaving its
//! handle usable (a hold on the handle's gate that was not released would make the next
//! call return `A2A_IN_USE`).
#![no_main]

use std::mem::MaybeUninit;
use std::ptr::{null, null_mut};

use a2a_ffi::classify::{a2a_asked, a2a_classify, a2a_response};
use a2a_ffi::header::a2a_header;
use a2a_ffi::machine::*;
use a2a_ffi::machine_config::*;
use a2a_ffi::outcome::{a2a_outcome, a2a_outcome_free, a2a_outcome_get_info, a2a_outcome_info};
use a2a_ffi::result::a2a_result;
use a2a_ffi::sse::*;
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

/// Every field of an outcome the machine lends, as comparable text (NULL: none).
fn outcome_text(o: *const a2a_outcome) -> String {
    if o.is_null() {
        return "none".to_owned();
    }
    let mut i = MaybeUninit::<a2a_outcome_info>::uninit();
    assert_eq!(a2a_outcome_get_info(o, i.as_mut_ptr()), a2a_result::A2A_OK);
    // SAFETY: written on A2A_OK.
    let i = unsafe { i.assume_init() };
    format!(
        "{} {} {} {} {:?} {:?} {:?} {:?}",
        i.channel as u32,
        i.has_state as u8 * (1 + i.state as u8),
        i.exit_code,
        i.is_success,
        text(i.task_id),
        text(i.text),
        text(i.error_id),
        text(i.result_json)
    )
}

/// The bytes of a text view, read whole.
fn text(v: a2a_ffi::view::a2a_str) -> Vec<u8> {
    bytes(a2a_bytes { ptr: v.ptr.cast(), len: v.len })
}

/// Drains the call's events into `log`; true once the call finished.
fn drain(call: *mut a2a_call, log: &mut Vec<String>) -> bool {
    for _ in 0..1024 {
        let mut ev = MaybeUninit::<a2a_event>::uninit();
        match a2a_call_poll_event(call, ev.as_mut_ptr()) {
            a2a_result::A2A_NONE => return false,
            a2a_result::A2A_OK => {}
            rc => panic!("a2a_call_poll_event: {rc:?}"),
        }
        // SAFETY: written on A2A_OK.
        let ev = unsafe { ev.assume_init() };
        let mut line = format!("{} {}", ev.kind as u32, outcome_text(ev.outcome));
        if ev.kind == a2a_event_kind::Item {
            line += &format!(" item {} {:?}", ev.item.kind as u32, text(ev.answer_text));
        }
        if ev.kind == a2a_event_kind::Finished {
            line += &format!(
                " end {} {} {} {} {:?} {:?}",
                ev.exit_code,
                ev.has_end_kind,
                ev.end_kind as u32,
                ev.dropped_events + 1000 * ev.unreadable_events,
                text(ev.answer_json),
                text(ev.answer_text)
            );
            log.push(line);
            return true;
        }
        log.push(line);
    }
    panic!("a call handed out more than 1024 events at once");
}

/// Streams a message through the client machine whose response is `status` with `input`
/// as its body, handed in as separately allocated chunks whose sizes cycle through `sizes`
/// (empty: whole); every other request the call makes (a resubscribe, a get-task fallback)
/// is refused. Returns the events, as text.
fn stream_through_machine(status: u16, event_stream: bool, input: &[u8], sizes: &[u8]) -> Vec<String> {
    let builder = a2a_client_config_builder_new();
    assert!(!builder.is_null());
    let mut config = null_mut();
    assert_eq!(a2a_client_config_builder_build(builder, &mut config), a2a_result::A2A_OK);
    a2a_client_config_builder_free(builder);
    let url = b"https://agent.test/a2a";
    let mut state = null_mut();
    assert_eq!(a2a_client_state_new(config, url.as_ptr().cast(), url.len(), 1, 1, 7, &mut state), a2a_result::A2A_OK);
    let mut call = null_mut();
    assert_eq!(a2a_call_new_text(state, true, b"hi".as_ptr().cast(), 2, null(), 1, &mut call), a2a_result::A2A_OK);
    let (now, mut log, mut first) = (1u64, Vec::new(), true);
    for _ in 0..16 {
        let mut t = MaybeUninit::<a2a_transmit>::uninit();
        match a2a_call_poll_transmit(call, now, t.as_mut_ptr()) {
            a2a_result::A2A_OK => {
                // SAFETY: written on A2A_OK.
                let id = unsafe { t.assume_init() }.request_id;
                if !first {
                    log.push(format!("request {id}"));
                    let rc = a2a_call_handle_failure(call, id, 201, false, b"refused".as_ptr().cast(), 7, now);
                    assert_eq!(rc, a2a_result::A2A_OK);
                    continue;
                }
                first = false;
                let ct: &[u8] = if event_stream { b"text/event-stream" } else { b"application/json" };
                let name = b"content-type";
                let h = a2a_header { name: name.as_ptr().cast(), name_len: name.len(), value: ct.as_ptr().cast(), value_len: ct.len() };
                assert_eq!(a2a_call_handle_head(call, id, status, &h, 1, now), a2a_result::A2A_OK);
                // Once the call finished (an error event, a terminal state), it refuses more
                // input with A2A_CALL_FINISHED; until then it takes every chunk.
                let mut finished = drain(call, &mut log);
                for chunk in chunks(input, sizes) {
                    if finished {
                        break;
                    }
                    let rc = a2a_call_handle_body(call, id, chunk.as_ptr(), chunk.len(), now);
                    drop(chunk); // the machine never keeps a pointer into a chunk
                    assert_eq!(rc, a2a_result::A2A_OK, "handle_body");
                    finished = drain(call, &mut log);
                }
                if finished {
                    break;
                }
                assert_eq!(a2a_call_handle_end(call, id, now), a2a_result::A2A_OK, "handle_end");
            }
            a2a_result::A2A_NONE => {}
            rc => panic!("a2a_call_poll_transmit: {rc:?}"),
        }
        if drain(call, &mut log) {
            break;
        }
    }
    assert!(log.last().is_some_and(|l| l.contains(" end ")), "the call did not finish: {log:?}");
    a2a_call_free(call);
    a2a_client_state_free(state);
    a2a_machine_config_free(config);
    log
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
    // bit 2: event-stream content type, bits 5-7: status), number of chunk sizes; then the
    // sizes, then the bytes.
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

    let status = [200, 200, 400, 401, 404, 429, 500, 503][usize::from(flags >> 5)];
    let event_stream = flags & 4 == 4;
    let whole = stream_through_machine(status, event_stream, input, &[]);
    for (name, other) in [
        ("the fuzzer's chunks", stream_through_machine(status, event_stream, input, sizes)),
        ("1-byte chunks", stream_through_machine(status, event_stream, input, &[1])),
    ] {
        assert_eq!(whole, other, "machine events, body in {name} (sizes {sizes:?})");
    }
    classify(status, event_stream, input);
});
