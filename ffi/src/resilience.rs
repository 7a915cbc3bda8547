//! Resilience: the circuit breaker's configuration (the client machine keeps the breaker
//! and the retry policy; their standalone handles are gone, see `CHANGELOG.md`), idempotency
//! key and message id derivation, and the model-facing text of an outcome.
//!
//! Nothing here reads a clock or a random source.

use std::ffi::c_char;

#[cfg(test)]
use a2a::resilience::CircuitBreaker;
use a2a::resilience::{
    BreakerConfig, ConfigError, KeyError, MODEL_INSTRUCTION, counts_toward_breaker,
    derive_idempotency_key, derive_message_id, model_prefix, model_text,
};
use a2a::time::Millis;

use crate::handle::{try_out, try_ref};
use crate::outcome::a2a_outcome;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_bytes, a2a_str, input_bytes, try_input, try_str};

/// The configuration of a circuit breaker. Get the defaults with
/// `a2a_breaker_config_default`, then change fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_breaker_config {
    /// Open at this many counted failures in the window; 0 disables the count rule.
    pub failure_threshold: u32,
    /// Open at this percentage (1..=100) of counted failures; 0 disables the rate rule.
    pub failure_rate_percent: u8,
    /// The rate rule applies once the window holds this many calls.
    pub min_calls: u32,
    /// The length of the sliding window.
    pub window_ms: u64,
    /// Buckets the window is divided into (1..=1000).
    pub buckets: u16,
    /// How long the breaker stays open before trial calls.
    pub cool_down_ms: u64,
    /// Trial calls in the half-open state; that many successes close it.
    pub half_open_trials: u32,
}

#[cfg_attr(
    not(feature = "client"),
    allow(
        dead_code,
        reason = "only the client machine's and driver's configs check a breaker"
    )
)]
pub(crate) fn config_code(e: &ConfigError) -> a2a_result {
    match e {
        ConfigError::ZeroMaxAttempts => a2a_result::A2A_CONFIG_ZERO_MAX_ATTEMPTS,
        ConfigError::BaseDelayAboveCap => a2a_result::A2A_CONFIG_BASE_DELAY_ABOVE_CAP,
        ConfigError::NoOpeningRule => a2a_result::A2A_CONFIG_NO_OPENING_RULE,
        ConfigError::RateOutOfRange(_) => a2a_result::A2A_CONFIG_RATE_OUT_OF_RANGE,
        ConfigError::ZeroWindow => a2a_result::A2A_CONFIG_ZERO_WINDOW,
        ConfigError::BucketsOutOfRange(_) => a2a_result::A2A_CONFIG_BUCKETS_OUT_OF_RANGE,
        ConfigError::ZeroHalfOpenTrials => a2a_result::A2A_CONFIG_ZERO_HALF_OPEN_TRIALS,
        _ => a2a_result::A2A_CONFIG_INVALID,
    }
}

pub(crate) fn breaker_config_c(c: &BreakerConfig) -> a2a_breaker_config {
    a2a_breaker_config {
        failure_threshold: c.failure_threshold,
        failure_rate_percent: c.failure_rate_percent,
        min_calls: c.min_calls,
        window_ms: c.window.0,
        buckets: c.buckets,
        cool_down_ms: c.cool_down.0,
        half_open_trials: c.half_open_trials,
    }
}

#[cfg_attr(
    not(feature = "client"),
    allow(
        dead_code,
        reason = "only the client machine's and driver's configs take a breaker"
    )
)]
pub(crate) fn breaker_config_core(c: &a2a_breaker_config) -> BreakerConfig {
    BreakerConfig {
        failure_threshold: c.failure_threshold,
        failure_rate_percent: c.failure_rate_percent,
        min_calls: c.min_calls,
        window: Millis(c.window_ms),
        buckets: c.buckets,
        cool_down: Millis(c.cool_down_ms),
        half_open_trials: c.half_open_trials,
    }
}

/// Writes the default breaker configuration (5 counted failures, or 50% of at least 10
/// calls, within 30 s in 10 buckets open it for 15 s; then 1 trial call decides) to `*out`.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_breaker_config_default(out: *mut a2a_breaker_config) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(breaker_config_c(&BreakerConfig::default()));
        a2a_result::A2A_OK
    }
}

/// Whether an outcome counts as a failure toward opening a breaker (false when `outcome`
/// is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_counts_toward_breaker(outcome: *const a2a_outcome) -> bool {
    ffi_panic_boundary! {
        counts_toward_breaker(&try_ref!(outcome).inner)
    }
}

/// Reads `n` input parts: an array of `a2a_bytes` (NULL when `n` is 0), each following the
/// `(ptr, len)` input rules.
///
/// # Safety
/// `parts` must point to `n` readable `a2a_bytes` whose views are readable for `'a`.
unsafe fn parts_from<'a>(parts: *const a2a_bytes, n: usize) -> Result<Vec<&'a [u8]>, a2a_result> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if parts.is_null() {
        return Err(a2a_result::A2A_NULL_PARAMETER);
    }
    if n > isize::MAX as usize / std::mem::size_of::<a2a_bytes>() {
        return Err(a2a_result::A2A_INVALID_ARGUMENT);
    }
    // SAFETY: non-NULL, size checked, readability guaranteed by the caller.
    let views = unsafe { std::slice::from_raw_parts(parts, n) };
    views
        .iter()
        // SAFETY: forwarded contract.
        .map(|v| unsafe { input_bytes(v.ptr, v.len) })
        .collect()
}

/// Copies `text` into the caller's buffer. On `A2A_INSUFFICIENT_SIZE`, `*written` is set
/// to the size needed (the one output written on an error, so the caller can retry).
fn copy_out(
    text: &str,
    buf: *mut c_char,
    buf_len: usize,
    written: crate::handle::Out<usize>,
) -> a2a_result {
    if text.len() > buf_len {
        written.set(text.len());
        return a2a_result::A2A_INSUFFICIENT_SIZE;
    }
    if buf.is_null() && !text.is_empty() {
        return a2a_result::A2A_NULL_PARAMETER;
    }
    if !text.is_empty() {
        // SAFETY: buf is non-NULL and holds buf_len >= text.len() writable bytes (header
        // contract); the regions cannot overlap (text is the library's own allocation).
        unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len()) };
    }
    written.set(text.len());
    a2a_result::A2A_OK
}

fn key_code(e: &KeyError) -> a2a_result {
    match e {
        KeyError::EmptyInput => a2a_result::A2A_KEY_EMPTY_INPUT,
        _ => a2a_result::A2A_KEY_INVALID,
    }
}

/// The version 1 idempotency key of the caller's stable inputs (`a2a-ik1-` + 32 lowercase
/// hex digits, 40 bytes): the same parts always give the same key.
///
/// `parts`/`parts_len`: an array of `a2a_bytes` views (read during the call only).
/// `buf`/`buf_len`: the caller's buffer (40 bytes suffice); the key is copied there, not
/// NUL-terminated, and `*written` set to its length. On `A2A_INSUFFICIENT_SIZE` nothing is
/// copied and `*written` is set to the size needed.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_KEY_EMPTY_INPUT` (no part, or all parts empty: every
/// call would share one key), `A2A_INSUFFICIENT_SIZE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_derive_idempotency_key(
    parts: *const a2a_bytes,
    parts_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    written: *mut usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let written = try_out!(written);
        // SAFETY: the header requires `parts` to hold `parts_len` valid views.
        let parts = try_input!(unsafe { parts_from(parts, parts_len) });
        match derive_idempotency_key(&parts) {
            Ok(key) => copy_out(&key, buf, buf_len, written),
            Err(e) => key_code(&e),
        }
    }
}

/// The version 1 messageId of the caller's stable inputs: a lowercase RFC 9562 version 8
/// UUID (36 bytes). Arguments and errors as for `a2a_derive_idempotency_key`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_derive_message_id(
    parts: *const a2a_bytes,
    parts_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    written: *mut usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let written = try_out!(written);
        // SAFETY: the header requires `parts` to hold `parts_len` valid views.
        let parts = try_input!(unsafe { parts_from(parts, parts_len) });
        match derive_message_id(&parts) {
            Ok(id) => copy_out(&id, buf, buf_len, written),
            Err(e) => key_code(&e),
        }
    }
}

/// The one deterministic line the orchestrating model should read for a non-success
/// outcome of a call to `agent` (e.g. `REMOTE_UNKNOWN booking: the request may or may not
/// have been received ...`). `agent` is UTF-8, read during the call only.
///
/// `buf`/`buf_len`/`written`: as for `a2a_derive_idempotency_key` (the line is UTF-8, not
/// NUL-terminated; its length is bounded by the library's part limits).
///
/// Returns `A2A_OK`, or `A2A_NONE` for a success outcome (no line). Errors:
/// `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INSUFFICIENT_SIZE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_model_text(
    agent: *const c_char,
    agent_len: usize,
    outcome: *const a2a_outcome,
    buf: *mut c_char,
    buf_len: usize,
    written: *mut usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let o = try_ref!(outcome);
        let written = try_out!(written);
        let agent = try_str!(agent, agent_len);
        match model_text(agent, &o.inner) {
            Some(line) => copy_out(&line, buf, buf_len, written),
            None => a2a_result::A2A_NONE,
        }
    }
}

/// The static prefix word of the model text for an outcome (`REMOTE_UNKNOWN`, ...); absent
/// `(NULL, 0)` for a success outcome or a NULL `outcome`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_model_prefix(outcome: *const a2a_outcome) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(model_prefix(&try_ref!(outcome).inner))
    }
}

/// The recommended instruction sentence for the orchestrating model (how to read the
/// `REMOTE_` lines of `a2a_model_text`). Static text: valid forever.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_model_instruction() -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_static(MODEL_INSTRUCTION)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::null;

    #[test]
    fn breaker_config_errors_have_codes() {
        let mut bc = unsafe { std::mem::zeroed::<a2a_breaker_config>() };
        assert_eq!(a2a_breaker_config_default(&mut bc), a2a_result::A2A_OK);
        assert!(CircuitBreaker::new("a", breaker_config_core(&bc)).is_ok());
        bc.buckets = 0;
        let e = CircuitBreaker::new("a", breaker_config_core(&bc)).unwrap_err();
        assert_eq!(config_code(&e), a2a_result::A2A_CONFIG_BUCKETS_OUT_OF_RANGE);
    }

    #[test]
    fn keys_are_stable_and_buffers_checked() {
        let parts = [
            a2a_bytes::from_slice(b"conversation-42"),
            a2a_bytes::from_slice(b"book"),
        ];
        let mut buf = [0u8; 64];
        let mut n = 0;
        assert_eq!(
            a2a_derive_idempotency_key(parts.as_ptr(), 2, buf.as_mut_ptr().cast(), 64, &mut n),
            a2a_result::A2A_OK
        );
        assert_eq!(n, 40);
        let first = buf[..n].to_vec();
        assert!(first.starts_with(b"a2a-ik1-"));
        assert_eq!(
            a2a_derive_idempotency_key(parts.as_ptr(), 2, buf.as_mut_ptr().cast(), 64, &mut n),
            a2a_result::A2A_OK
        );
        assert_eq!(&buf[..n], &first[..], "same parts, same key");
        let mut small = [0u8; 10];
        let mut need = 0;
        assert_eq!(
            a2a_derive_message_id(parts.as_ptr(), 2, small.as_mut_ptr().cast(), 10, &mut need),
            a2a_result::A2A_INSUFFICIENT_SIZE
        );
        assert_eq!(need, 36);
        assert_eq!(
            a2a_derive_idempotency_key(null(), 0, buf.as_mut_ptr().cast(), 64, &mut n),
            a2a_result::A2A_KEY_EMPTY_INPUT
        );
    }
}
