//! What every call returns beside its outcome: the ids both sides can log, so a failure
//! can be found in the remote's logs (`traceparent`, JSON-RPC id, messageId, error_id).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The correlation record of one call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Correlation {
    /// The remote agent's name (card name or host).
    pub agent: String,
    /// The protocol method called (`message/send`, `SendMessage`, ...).
    pub method: String,
    /// The JSON-RPC id sent (JSON-RPC binding only).
    pub jsonrpc_id: Option<String>,
    /// The messageId sent (send and stream calls).
    pub message_id: Option<String>,
    /// The task id, from the request or the response.
    pub task_id: Option<String>,
    /// The context id, from the request or the response.
    pub context_id: Option<String>,
    /// The remote's error_id (FAILED tasks), when present.
    pub error_id: Option<String>,
    /// The `traceparent` header sent.
    pub traceparent: String,
    /// The `Idempotency-Key` header sent, if any.
    pub idempotency_key: Option<String>,
    /// Wall time from the first byte attempted to the outcome.
    pub elapsed: Duration,
    /// Attempts made (more than 1 only with opt-in retries or resubscribes).
    pub attempts: u32,
}

/// 64 random bits. The core takes no randomness; the driver draws it from std's
/// per-process random hash keys, mixed with a counter and the clock so two calls never
/// share a value: once per thread, as the seed of that thread's generator
/// ([`random_u64`]).
fn seed() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.write_u128(nanos);
    h.finish()
}

/// 64 random bits from this thread's SplitMix64 generator (seeded once per thread by
/// [`seed`]): a call draws several (ids, traceparent), and hashing the clock for each cost
/// more than the rest of building the request. SplitMix64's output is a bijection of its
/// state, so one thread never repeats a value within 2^64 draws; the values are not meant
/// to be secret, only unique and spread (trace ids, message ids).
pub(crate) fn random_u64() -> u64 {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new(seed());
    }
    STATE.with(|s| {
        let x = s.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
        s.set(x);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

/// The lowercase hex digit of each nibble of `v`, most significant first.
fn hex16(v: u64) -> [u8; 16] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 16];
    for (i, d) in out.iter_mut().enumerate() {
        *d = HEX[((v >> (60 - 4 * i)) & 0xf) as usize];
    }
    out
}

/// A fresh W3C `traceparent` (version 00, sampled): `00-<32 hex>-<16 hex>-01`, built by
/// the core's [`crate::traceparent::TraceParent`] from random bytes drawn here.
pub fn new_traceparent() -> String {
    loop {
        let mut random = [0u8; 24];
        for chunk in random.chunks_mut(8) {
            chunk.copy_from_slice(&random_u64().to_le_bytes());
        }
        if let Some(t) = crate::traceparent::TraceParent::from_random(random, true) {
            return t.to_string();
        }
    }
}

/// A fresh id for messageIds and JSON-RPC ids: 32 lowercase hex digits in UUID layout.
/// Written into its one `String` at once (drawing the hex into a string of its own and
/// copying its pieces cost a second allocation per id).
pub fn new_id() -> String {
    loop {
        let (a, b) = (hex16(random_u64()), hex16(random_u64()));
        if a.iter().chain(&b).all(|&d| d == b'0') {
            continue;
        }
        let mut id = Vec::with_capacity(36);
        id.extend_from_slice(&a[0..8]);
        id.push(b'-');
        id.extend_from_slice(&a[8..12]);
        id.extend_from_slice(b"-4");
        id.extend_from_slice(&a[13..16]);
        id.push(b'-');
        id.extend_from_slice(&b[0..4]);
        id.push(b'-');
        id.extend_from_slice(&b[4..16]);
        return String::from_utf8(id).expect("hex digits are ASCII");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_shape_and_uniqueness() {
        let a = new_traceparent();
        let b = new_traceparent();
        assert_ne!(a, b);
        let parts: Vec<&str> = a.split('-').collect();
        assert_eq!(parts.len(), 4);
        assert_eq!(parts[0], "00");
        assert_eq!(parts[1].len(), 32);
        assert_eq!(parts[2].len(), 16);
        assert_eq!(parts[3], "01");
        assert!(
            a.bytes()
                .all(|c| c == b'-' || c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
        );
    }

    #[test]
    fn draws_differ_within_a_thread_and_across_threads() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            assert!(seen.insert(random_u64()));
        }
        let other: Vec<u64> = std::thread::spawn(|| (0..1000).map(|_| random_u64()).collect())
            .join()
            .unwrap();
        for v in other {
            assert!(seen.insert(v), "another thread drew {v} too");
        }
    }

    #[test]
    fn hex_digits_are_the_nibbles_in_order() {
        assert_eq!(&hex16(0x0123_4567_89ab_cdef), b"0123456789abcdef");
        assert_eq!(&hex16(0), b"0000000000000000");
    }

    #[test]
    fn ids_are_uuid_shaped() {
        let id = new_id();
        assert_eq!(id.len(), 36);
        assert_eq!(id.as_bytes()[14], b'4');
        for at in [8, 13, 18, 23] {
            assert_eq!(id.as_bytes()[at], b'-', "{id}");
        }
        assert!(
            id.bytes().all(|c| c == b'-' || c.is_ascii_hexdigit()),
            "{id}"
        );
        assert_ne!(id, new_id());
    }
}
