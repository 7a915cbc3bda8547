//! Stable idempotency keys and messageIds derived from the caller's stable inputs.
//!
//! A retry (after a timeout, after a restart of the caller, or from a caller written in another
//! language) must carry the same `Idempotency-Key` header and the same A2A `messageId` as the
//! first attempt, so that the server can recognise it as the same operation. Random ids cannot
//! do that after a restart; `std::hash::DefaultHasher` cannot do it across Rust releases or
//! languages. The derivation here is a fixed function of the bytes the caller passes in.
//!
//! # The derivation, exactly (version 1)
//!
//! The caller passes an ordered list of *parts* (byte strings), typically
//! `[conversation id, operation name, canonical arguments]`. Let `u64be(n)` be `n` as 8 bytes,
//! big-endian. The encoded input is
//!
//! ```text
//! encode(tag, parts) = tag || 0x00 || u64be(len(parts)) || for each part: u64be(len(part)) || part
//! ```
//!
//! (length-prefixed, so `["a|b", "c"]` and `["a", "b|c"]` never collide), and
//!
//! - **idempotency key** = `"a2a-ik1-"` followed by the first 16 bytes of
//!   `SHA-256(encode("a2a/idempotency-key/v1", parts))` in lowercase hex (40 characters in all);
//! - **messageId** = the first 16 bytes of `SHA-256(encode("a2a/message-id/v1", parts))`, with
//!   the version nibble (high nibble of byte 6) set to `8` and the variant bits (top two bits of
//!   byte 8) set to `10`, formatted as a lowercase UUID `xxxxxxxx-xxxx-8xxx-Vxxx-xxxxxxxxxxxx`.
//!   This is an RFC 9562 version 8 ("custom") UUID: name-based like version 5, but over
//!   SHA-256 instead of SHA-1.
//!
//! The two use different tags, so the key and the messageId of one operation are unrelated
//! strings. Golden vectors, computed independently with Python's `hashlib`, are in
//! `bindings/fixtures/idempotency.json`; every binding checks them.
//!
//! # What to put in the parts
//! Everything that makes the operation *this* operation and nothing that changes between
//! attempts: a conversation (or job) id, the operation name, its arguments in a canonical form
//! (the caller's job: sort JSON keys, fix number formats). Never a timestamp, an attempt
//! counter or a JSON-RPC id. When the caller deliberately starts a *new* operation for the same
//! request (for example after a FAILED task, see
//! [`RetryAction::StartNewTask`](super::policy::RetryAction::StartNewTask)), it appends the
//! generation number as one more part, so the new task gets a new key and messageId.
//!
//! # What the protocol says
//! A2A 1.0 (§3.3.1): get operations are idempotent; Send Message *may* be: "Agents may utilize
//! the messageId to detect duplicate messages". The `Idempotency-Key` header is not part of
//! either protocol version (it is a proposal, a2aproject/A2A#1893), so a client sends both: the
//! stable messageId for agents that deduplicate on it, the header for servers and gateways that
//! honour it. Either protects a retry only when the server deduplicates; a caller that marks a
//! call [`CallKind::WithIdempotencyKey`](super::policy::CallKind::WithIdempotencyKey) asserts
//! that its remote does.
//!
//! # The contract for servers
//! The same `Idempotency-Key` means the same operation: a server that has seen a key must not
//! perform the operation again, and should answer with the result (or the task) of the first
//! one; a key reused with a different request body is a client bug the server may reject. The
//! same messageId within a context identifies the same message (A2A). Keys derived here carry
//! no secret and reveal nothing but a hash of the parts; do not put secrets in the parts unless
//! a hash of them may be logged by the remote.

use super::sha256::{Sha256, to_hex};

/// The domain tag of version 1 idempotency keys.
pub const IDEMPOTENCY_KEY_TAG: &str = "a2a/idempotency-key/v1";
/// The domain tag of version 1 messageIds.
pub const MESSAGE_ID_TAG: &str = "a2a/message-id/v1";
/// The prefix of every version 1 idempotency key.
pub const IDEMPOTENCY_KEY_PREFIX: &str = "a2a-ik1-";

/// Why no id could be derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// No part, or only empty parts: every call would get the same key and be deduplicated
    /// into one by the server.
    #[error("no stable input: every part is empty, so every call would share one key")]
    EmptyInput,
}

/// SHA-256 of `encode(tag, parts)` as documented in the module docs.
fn hash_parts<P: AsRef<[u8]>>(tag: &str, parts: &[P]) -> Result<[u8; 32], KeyError> {
    if parts.iter().all(|p| p.as_ref().is_empty()) {
        return Err(KeyError::EmptyInput);
    }
    let mut h = Sha256::new();
    h.update(tag.as_bytes());
    h.update(&[0]);
    h.update(&(parts.len() as u64).to_be_bytes());
    for part in parts {
        let part = part.as_ref();
        h.update(&(part.len() as u64).to_be_bytes());
        h.update(part);
    }
    Ok(h.finish())
}

/// The version 1 idempotency key of `parts` (`a2a-ik1-` + 32 lowercase hex digits).
///
/// # Errors
/// [`KeyError::EmptyInput`] when there is no part or every part is empty.
pub fn derive_idempotency_key<P: AsRef<[u8]>>(parts: &[P]) -> Result<String, KeyError> {
    let digest = hash_parts(IDEMPOTENCY_KEY_TAG, parts)?;
    let mut key = String::with_capacity(IDEMPOTENCY_KEY_PREFIX.len() + 32);
    key.push_str(IDEMPOTENCY_KEY_PREFIX);
    key.push_str(&to_hex(&digest[..16]));
    Ok(key)
}

/// The version 1 messageId of `parts`: a lowercase RFC 9562 version 8 UUID.
///
/// # Errors
/// [`KeyError::EmptyInput`] when there is no part or every part is empty.
pub fn derive_message_id<P: AsRef<[u8]>>(parts: &[P]) -> Result<String, KeyError> {
    let digest = hash_parts(MESSAGE_ID_TAG, parts)?;
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex = to_hex(&b);
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_length_prefixed() {
        let a = derive_idempotency_key(&["a|b", "c"]).unwrap();
        let b = derive_idempotency_key(&["a", "b|c"]).unwrap();
        let c = derive_idempotency_key(&["a|bc"]).unwrap();
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_ne!(b, c);
        // An empty part is still a part.
        assert_ne!(
            derive_idempotency_key(&["a", ""]).unwrap(),
            derive_idempotency_key(&["a"]).unwrap()
        );
    }

    #[test]
    fn shape_of_key_and_message_id() {
        let key = derive_idempotency_key(&["conv-1", "book", "{}"]).unwrap();
        assert_eq!(key.len(), 40);
        assert!(key.starts_with(IDEMPOTENCY_KEY_PREFIX));
        assert!(
            key[8..]
                .bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        let id = derive_message_id(&["conv-1", "book", "{}"]).unwrap();
        assert_eq!(id.len(), 36);
        let groups: Vec<&str> = id.split('-').collect();
        assert_eq!(
            groups.iter().map(|g| g.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(groups[2].starts_with('8'));
        assert!(matches!(groups[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'));
        // Key and messageId use different tags: unrelated hex.
        assert_ne!(&key[8..16], &id[0..8]);
    }

    #[test]
    fn empty_input_is_refused() {
        let none: [&str; 0] = [];
        assert_eq!(derive_idempotency_key(&none), Err(KeyError::EmptyInput));
        assert_eq!(derive_message_id(&["", ""]), Err(KeyError::EmptyInput));
        assert!(derive_message_id(&["", "x"]).is_ok());
    }

    #[test]
    fn bytes_and_strings_agree() {
        let s = derive_idempotency_key(&["héllo", "wörld"]).unwrap();
        let b = derive_idempotency_key(&["héllo".as_bytes(), "wörld".as_bytes()]).unwrap();
        assert_eq!(s, b);
    }
}
