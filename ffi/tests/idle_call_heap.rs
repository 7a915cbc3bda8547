//! The heap an idle stream's call holds (issue 28 item 4): a streaming text call driven as a
//! host HTTP stack drives it (transmit, the response head, the first event's chunk, the
//! event polled) and then left open, counted by a global allocator of this test binary.
//! Prints the bytes per stage (`--nocapture`) and bounds what the open call holds.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};

use common::{headers, machine_config};

use a2a_core::machine::*;
use a2a_core::machine_config::a2a_machine_config_free;
use a2a_core::result::a2a_result;

/// Counts the bytes and blocks in use, and glibc's chunks for them (16-byte steps with an
/// 8-byte header, 32 at least), of the thread that set `ON` (the test's own).
struct Counting;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

fn on() -> bool {
    ON.try_with(Cell::get).unwrap_or(false)
}
static BYTES: AtomicIsize = AtomicIsize::new(0);
static BLOCKS: AtomicIsize = AtomicIsize::new(0);
static CHUNKS: AtomicIsize = AtomicIsize::new(0);

fn chunk(size: usize) -> isize {
    ((size + 8 + 15) & !15).max(32) as isize
}

fn count(size: usize, sign: isize) {
    BYTES.fetch_add(sign * size as isize, Relaxed);
    BLOCKS.fetch_add(sign, Relaxed);
    CHUNKS.fetch_add(sign * chunk(size), Relaxed);
}

// SAFETY: every request goes to `System` unchanged; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if on() {
            count(l.size(), 1);
        }
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if on() {
            count(l.size(), -1);
        }
        // SAFETY: `p` came from `System` with `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if on() {
            count(l.size(), -1);
            count(new, 1);
        }
        // SAFETY: as above.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// (bytes, blocks, glibc chunk bytes) in use.
fn in_use() -> [isize; 3] {
    [
        BYTES.load(Relaxed),
        BLOCKS.load(Relaxed),
        CHUNKS.load(Relaxed),
    ]
}

/// The first event of the bench server's held stream (`stream hold`): the SUBMITTED task
/// snapshot with the user message as history, with its `id:` line.
fn first_event(rpc_id: &serde_json::Value, text: &str) -> Vec<u8> {
    let ev = serde_json::json!({"jsonrpc": "2.0", "id": rpc_id, "result": {
        "kind": "task", "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
        "contextId": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
        "status": {"state": "submitted", "timestamp": "2026-12-01T00:00:00.000000Z"},
        "history": [{"kind": "message", "messageId": "5a1c4b2e-3f4d-4e5f-8a9b-0c1d2e3f4a5b",
            "role": "user", "parts": [{"kind": "text", "text": text}]}]}});
    format!("id: 0\ndata: {ev}\n\n").into_bytes()
}

/// Opens a streaming call on `st` and drives it to its first event, as the Python httpx
/// host does; returns the call and the in-use figures after each stage.
fn open(st: *mut a2a_client_state) -> (*mut a2a_call, Vec<(&'static str, [isize; 3])>) {
    let mut stages = Vec::with_capacity(8);
    let text = "hold";
    let mut call = null_mut();
    let base = in_use();
    let at = |stages: &mut Vec<_>, name| {
        let now = in_use();
        stages.push((name, [now[0] - base[0], now[1] - base[1], now[2] - base[2]]));
    };
    assert_eq!(
        a2a_call_new_text(
            st,
            true,
            text.as_ptr().cast(),
            text.len(),
            std::ptr::null(),
            1000,
            &mut call
        ),
        a2a_result::A2A_OK
    );
    at(&mut stages, "made (a2a_call_new_text)");
    let mut t = std::mem::MaybeUninit::<a2a_transmit>::uninit();
    assert_eq!(
        a2a_call_poll_transmit(call, 1000, t.as_mut_ptr()),
        a2a_result::A2A_OK
    );
    let t = unsafe { t.assume_init() };
    let body = unsafe { std::slice::from_raw_parts(t.body.ptr, t.body.len) };
    let body: serde_json::Value = serde_json::from_slice(body).unwrap();
    at(&mut stages, "request handed out (poll_transmit)");
    let h = headers(&[
        ("content-type", "text/event-stream"),
        ("cache-control", "no-store"),
        ("x-accel-buffering", "no"),
        ("transfer-encoding", "chunked"),
    ]);
    assert_eq!(
        a2a_call_handle_head(call, t.request_id, 200, h.as_ptr(), h.len(), 1001),
        a2a_result::A2A_OK
    );
    drop(h);
    at(&mut stages, "response head (handle_head)");
    let chunk = first_event(&body["id"], text);
    assert_eq!(
        a2a_call_handle_body(call, t.request_id, chunk.as_ptr(), chunk.len(), 1002),
        a2a_result::A2A_OK
    );
    drop((chunk, body));
    at(&mut stages, "first chunk (handle_body)");
    let mut items = 0;
    for _ in 0..10 {
        let mut e = std::mem::MaybeUninit::<a2a_event>::uninit();
        match a2a_call_poll_event(call, e.as_mut_ptr()) {
            a2a_result::A2A_NONE => break,
            a2a_result::A2A_OK => {
                let e = unsafe { e.assume_init() };
                assert_eq!(e.kind, a2a_event_kind::Item);
                items += 1;
            }
            other => panic!("poll_event: {other:?}"),
        }
    }
    assert_eq!(items, 1);
    at(&mut stages, "first item polled (poll_event)");
    let mut deadline = 0u64;
    let _ = a2a_call_poll_timeout(call, &mut deadline);
    at(&mut stages, "idle (poll_timeout)");
    (call, stages)
}

#[test]
fn an_idle_stream_call_holds_little_heap() {
    const N: isize = 50;
    let cfg = machine_config(|_| {});
    let url = "http://127.0.0.1:8000/";
    let mut st = null_mut();
    assert_eq!(
        a2a_client_state_new(cfg, url.as_ptr().cast(), url.len(), 1, 1, 7, &mut st),
        a2a_result::A2A_OK
    );
    // One call made and freed first: what the state sets up once is not counted per call.
    let (warm, _) = open(st);
    a2a_call_free(warm);
    ON.with(|o| o.set(true));
    let before = in_use();
    let mut calls = Vec::with_capacity(N as usize);
    let mut stages = Vec::new();
    for _ in 0..N {
        let (c, s) = open(st);
        calls.push(c);
        stages = s;
    }
    let after = in_use();
    ON.with(|o| o.set(false));
    println!("stage: requested bytes / blocks / glibc chunk bytes, cumulative per call");
    for (name, [b, n, c]) in &stages {
        println!("  {name:36} {b:6} {n:4} {c:6}");
    }
    let per = |i: usize| (after[i] - before[i]) / N;
    println!(
        "per idle call: {} bytes in {} blocks, {} bytes of glibc chunks",
        per(0),
        per(1),
        per(2)
    );
    // 4,418 bytes in 36 blocks before issue 28's cut (the handle's unused 680-byte driver
    // slot, a request body allocated twice its size, a second traceparent, a four-slot
    // event queue, a header list with a slot to spare, the request's JSON-RPC id kept
    // after the head); 3,263 in 34 after (glibc's chunks: 4,943 -> 3,759).
    assert!(
        per(0) <= 3584,
        "an idle stream's call holds {} bytes",
        per(0)
    );
    if std::env::var_os("A2A_HEAP_EXIT").is_some() {
        // For valgrind's dhat: the calls are still open at exit (its t-end figures).
        std::process::exit(0);
    }
    for c in calls {
        a2a_call_free(c);
    }
    a2a_client_state_free(st);
    a2a_machine_config_free(cfg);
}
