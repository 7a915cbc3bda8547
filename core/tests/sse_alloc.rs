//! Allocation behaviour of the SSE decoder, measured with a counting global allocator.
//!
//! Its own test binary with a single test function, so nothing else allocates while it
//! measures; counting is also limited to the measuring thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use a2a_core::sse::{Config, Decoder, Item};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn measuring() -> bool {
    MEASURING.try_with(Cell::get).unwrap_or(false)
}

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Relaxed) + size;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if measuring() {
            ALLOCATIONS.fetch_add(1, Relaxed);
            grew(layout.size());
        }
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if measuring() {
            LIVE.fetch_sub(layout.size().min(LIVE.load(Relaxed)), Relaxed);
        }
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if measuring() {
            ALLOCATIONS.fetch_add(1, Relaxed);
            LIVE.fetch_sub(layout.size().min(LIVE.load(Relaxed)), Relaxed);
            grew(new_size);
        }
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn start() {
    ALLOCATIONS.store(0, Relaxed);
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    MEASURING.with(|m| m.set(true));
}

fn stop() -> (usize, usize) {
    MEASURING.with(|m| m.set(false));
    (ALLOCATIONS.load(Relaxed), PEAK.load(Relaxed))
}

/// Feeds `chunk`, returning (events, data bytes, limit errors) without allocating.
fn feed(dec: &mut Decoder, chunk: &[u8]) -> (usize, usize, usize) {
    let mut feed = dec.feed(chunk);
    let (mut events, mut bytes, mut errors) = (0, 0, 0);
    loop {
        match feed.next_item() {
            Ok(None) => break,
            Ok(Some(Item::Event(e))) => {
                events += 1;
                bytes += e.data.len();
            }
            Ok(Some(_)) => {}
            Err(_) => errors += 1,
        }
    }
    (events, bytes, errors)
}

#[test]
fn decoding_allocates_nothing_per_event_and_memory_stays_bounded() {
    // --- Zero allocations per event after warm-up: single-line data events fed whole.
    let shapes: [&[u8]; 5] = [
        b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"status-update\"}}\n\n",
        b"id: 41\nevent: update\ndata: {\"t\":\"a\"}\n\n",
        b"data: x\r\n\r\n",
        b": keep-alive\n\n",
        b"id: 12345678901234567890\ndata: y\n\ndata: z\n\n",
    ];
    let mut dec = Decoder::new();
    for shape in shapes {
        feed(&mut dec, shape); // warm-up: the id buffer gets its capacity
    }
    start();
    let mut events = 0;
    for _ in 0..10_000 {
        for shape in shapes {
            events += feed(&mut dec, shape).0;
        }
    }
    let (allocations, _) = stop();
    assert_eq!(events, 10_000 * 5);
    assert_eq!(allocations, 0, "allocations while decoding {events} events");

    // --- Bounded memory: 100 MiB of newline-free garbage, then one valid event.
    let config = Config::new();
    let mut dec = Decoder::with_config(config);
    let mut chunk = vec![0u8; 64 * 1024];
    start();
    let mut errors = 0;
    let mut fed = 0usize;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    while fed < 100 * 1024 * 1024 {
        // Generated, not stored: pseudo-random bytes without CR or LF.
        for b in chunk.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let v = (seed >> 56) as u8;
            *b = if v == b'\n' || v == b'\r' { b'x' } else { v };
        }
        if fed == 0 {
            chunk[..6].copy_from_slice(b"data: ");
        }
        errors += feed(&mut dec, &chunk).2;
        fed += chunk.len();
    }
    let (events, bytes, e) = feed(&mut dec, b"\n\ndata: valid\n\n");
    errors += e;
    let (_, peak) = stop();
    assert_eq!(errors, 1, "one LineTooLong for the garbage");
    assert_eq!(
        (events, bytes),
        (1, 5),
        "the valid event after the garbage arrives"
    );
    assert!(
        peak <= config.max_line + 64 * 1024,
        "peak allocation {peak} over the limit {}",
        config.max_line
    );
}
