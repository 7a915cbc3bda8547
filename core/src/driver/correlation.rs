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

/// A fresh id for messageIds and JSON-RPC ids: 32 lowercase hex digits in UUID layout,
/// written in place into one buffer (a hex string of its own copied piece by piece cost a
/// second allocation and about 100 instructions more per id).
pub fn new_id() -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // Where each of the 32 digits goes in the 8-4-4-4-12 layout.
    const AT: [u8; 32] = [
        0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22, 24, 25, 26, 27, 28,
        29, 30, 31, 32, 33, 34, 35,
    ];
    loop {
        let words = [random_u64(), random_u64()];
        if words == [0, 0] {
            continue;
        }
        let mut id = [b'-'; 36];
        for (half, word) in words.into_iter().enumerate() {
            for i in 0..16 {
                id[usize::from(AT[16 * half + i])] = HEX[((word >> (60 - 4 * i)) & 0xf) as usize];
            }
        }
        id[14] = b'4'; // the version digit (over the 13th drawn one)
        return String::from_utf8(id.to_vec()).expect("hex digits are ASCII");
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
