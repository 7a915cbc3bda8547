//! Allocation behaviour of the stream tracker, measured with a counting global allocator:
//! per event the tracker allocates no more than classifying that event's data alone does
//! (the event's own parsing and its item), and the count is the same for every event (its
//! state is updated in place).
//!
//! Its own test binary with a single test function; counting is limited to the measuring
//! thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use a2a_core::classify::{Asked, ResponseInfo, classify};
use a2a_core::stream::StreamTracker;
use a2a_core::time::Millis;
use a2a_core::version::{Binding, ProtocolVersion};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if MEASURING.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counter is atomic.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller upholds GlobalAlloc::alloc's contract, which System shares.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from System through this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as for dealloc; the caller upholds realloc's size contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn measure<T>(f: impl FnOnce() -> T) -> (usize, T) {
    ALLOCATIONS.store(0, Relaxed);
    MEASURING.with(|m| m.set(true));
    let out = f();
    MEASURING.with(|m| m.set(false));
    (ALLOCATIONS.load(Relaxed), out)
}

const ASK: Asked<'static> = Asked {
    version: Some(ProtocolVersion::V1_0),
    binding: Some(Binding::JsonRpc),
    method: Some("SendStreamingMessage"),
    request_id: Some("41"),
};

const SNAPSHOT: &[u8] = br#"{"jsonrpc":"2.0","id":41,"result":{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_SUBMITTED"}}}}"#;
const WORKING: &[u8] = br#"{"jsonrpc":"2.0","id":41,"result":{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"step"}]}}}}}"#;
const CHUNK: &[u8] = br#"{"jsonrpc":"2.0","id":41,"result":{"artifactUpdate":{"taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a","parts":[{"text":"chunk"}]},"append":true}}}"#;

#[test]
fn tracker_allocates_nothing_beyond_each_events_own_parsing() {
    let mut t = StreamTracker::new(ASK, Some(Millis(1000)), Millis(0));
    // Warm up: the first events set the tracker's task id, context id and text.
    t.on_event(Millis(0), b"message", SNAPSHOT, None).unwrap();
    t.on_event(Millis(0), b"message", WORKING, None).unwrap();

    for data in [WORKING, CHUNK] {
        let (alone, o) = measure(|| classify(&ResponseInfo::new(200, data).asked(ASK)));
        drop(o);
        let (tracked, item) = measure(|| t.on_event(Millis(1), b"message", data, None));
        let item = item.unwrap();
        assert!(
            tracked <= alone,
            "on_event allocated {tracked} times, classifying the same data alone {alone}"
        );
        drop(item);
        // The same count for every later event: nothing accumulates.
        let (many, ()) = measure(|| {
            for i in 0..1000 {
                drop(t.on_event(Millis(2 + i), b"message", data, None));
            }
        });
        assert_eq!(
            many,
            1000 * tracked,
            "allocations per event changed over 1000 events"
        );
    }
    // Liveness signals and deadlines never allocate.
    let (n, ()) = measure(|| {
        for i in 0..1000 {
            t.on_comment(Millis(5000 + i));
            t.on_bytes(Millis(5000 + i));
            let _ = t.next_deadline();
            let _ = t.on_timeout(Millis(5000 + i));
        }
    });
    assert_eq!(n, 0);
}
