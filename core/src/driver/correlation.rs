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
/// share a value.
pub(crate) fn random_u64() -> u64 {
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

/// `n` random bytes as lowercase hex, never all zeros (W3C forbids all-zero ids).
pub(crate) fn random_hex(bytes: usize) -> String {
    loop {
        let mut s = String::with_capacity(bytes * 2);
        while s.len() < bytes * 2 {
            s.push_str(&format!("{:016x}", random_u64()));
        }
        s.truncate(bytes * 2);
        if s.bytes().any(|b| b != b'0') {
            return s;
        }
    }
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
pub fn new_id() -> String {
    let h = random_hex(16);
    format!(
        "{}-{}-4{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[13..16],
        &h[16..20],
        &h[20..32]
    )
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
    fn ids_are_uuid_shaped() {
        let id = new_id();
        assert_eq!(id.len(), 36);
        assert_eq!(id.as_bytes()[14], b'4');
        assert_ne!(id, new_id());
    }
}
