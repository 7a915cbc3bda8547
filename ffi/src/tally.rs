//! The outcome tally and its Prometheus rendering.

use std::ffi::c_char;

use a2a::tally::Tally;

use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::outcome::a2a_outcome;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_str, try_str};
use crate::vocab::a2a_channel;

/// One counter of a tally. Views point into the tally: valid until the next mutating call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_tally_entry {
    /// The remote agent.
    pub agent: a2a_str,
    /// The method as recorded.
    pub method: a2a_str,
    /// The outcome's channel.
    pub channel: a2a_channel,
    /// The error name, HTTP status or task state.
    pub code: a2a_str,
    /// How many outcomes were counted.
    pub count: u64,
}

/// Outcome counts per (agent, method, channel, code-or-state), rendered in the Prometheus
/// text format as `a2a_outcomes_total`.
///
/// Methods: `a2a_tally_new`, `a2a_tally_free`, `a2a_tally_record`, `a2a_tally_add`,
/// `a2a_tally_count`, `a2a_tally_total`, `a2a_tally_entry_count`, `a2a_tally_get_entry`,
/// `a2a_tally_render_prometheus`.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_tally {
    inner: Tally,
    rendered: String,
}

impl Handle for a2a_tally {}

/// A new empty tally. `out`: a new handle the caller owns (free with `a2a_tally_free`);
/// written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_tally_new(out: *mut *mut a2a_tally) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_tally { inner: Tally::new(), rendered: String::new() }));
        a2a_result::A2A_OK
    }
}

/// Frees a tally. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_tally_free(tally: *mut a2a_tally) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(tally) }
    }
}

/// Counts one outcome of `method` on `agent` (UTF-8 names, copied).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_tally_record(
    tally: *mut a2a_tally,
    agent: *const c_char,
    agent_len: usize,
    method: *const c_char,
    method_len: usize,
    outcome: *const a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_mut!(tally);
        let o = try_ref!(outcome);
        let agent = try_str!(agent, agent_len);
        let method = try_str!(method, method_len);
        t.inner.record(agent, method, &o.inner);
        a2a_result::A2A_OK
    }
}

/// Adds `n` to one counter directly (e.g. to merge tallies). Names and `code` are UTF-8,
/// copied; `channel` is an `a2a_channel`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (`channel`).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_tally_add(
    tally: *mut a2a_tally,
    agent: *const c_char,
    agent_len: usize,
    method: *const c_char,
    method_len: usize,
    channel: u32,
    code: *const c_char,
    code_len: usize,
    n: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_mut!(tally);
        let agent = try_str!(agent, agent_len);
        let method = try_str!(method, method_len);
        let code = try_str!(code, code_len);
        let Some(channel) = a2a_channel::core_from_u32(channel) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        t.inner.add(agent, method, channel, code, n);
        a2a_result::A2A_OK
    }
}

/// The count of one counter (0 when never recorded), written to `*out` on success.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (`channel`).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_tally_count(
    tally: *const a2a_tally,
    agent: *const c_char,
    agent_len: usize,
    method: *const c_char,
    method_len: usize,
    channel: u32,
    code: *const c_char,
    code_len: usize,
    out: *mut u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_ref!(tally);
        let out = try_out!(out);
        let agent = try_str!(agent, agent_len);
        let method = try_str!(method, method_len);
        let code = try_str!(code, code_len);
        let Some(channel) = a2a_channel::core_from_u32(channel) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        out.set(t.inner.count(agent, method, channel, code));
        a2a_result::A2A_OK
    }
}

/// The total of every counter (0 when `tally` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_tally_total(tally: *const a2a_tally) -> u64 {
    ffi_panic_boundary! {
        try_ref!(tally).inner.total()
    }
}

/// Number of counters (0 when `tally` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_tally_entry_count(tally: *const a2a_tally) -> usize {
    ffi_panic_boundary! {
        try_ref!(tally).inner.entries().count()
    }
}

/// The `index`-th counter, sorted by agent, method, channel, code (reading them all is
/// quadratic in the number of counters, which stays small: agents x methods x codes).
/// Views point into the tally: valid until the next mutating call; written on success.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (`index` out of range).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_tally_get_entry(
    tally: *const a2a_tally,
    index: usize,
    out: *mut a2a_tally_entry,
) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_ref!(tally);
        let out = try_out!(out);
        match t.inner.entries().nth(index) {
            Some(e) => {
                out.set(a2a_tally_entry {
                    agent: a2a_str::from_str(e.agent),
                    method: a2a_str::from_str(e.method),
                    channel: a2a_channel::from_core(e.channel),
                    code: a2a_str::from_str(e.code),
                    count: e.count,
                });
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_INVALID_ARGUMENT,
        }
    }
}

/// Renders the tally in the Prometheus text exposition format (0.0.4). `out`: a view of
/// text held by the tally, valid until the next mutating call on it; written on success.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_tally_render_prometheus(
    tally: *mut a2a_tally,
    out: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_mut!(tally);
        let out = try_out!(out);
        t.rendered = t.inner.render_prometheus();
        out.set(a2a_str::from_str(&t.rendered));
        a2a_result::A2A_OK
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::*;
    use crate::vocab::{a2a_error_name, a2a_request_sent};
    use std::ptr::{null, null_mut};

    #[test]
    fn record_count_render() {
        let mut t = null_mut();
        assert_eq!(a2a_tally_new(&mut t), a2a_result::A2A_OK);
        let mut o = null_mut();
        a2a_outcome_transport(
            a2a_error_name::Timeout as u32,
            a2a_request_sent::Unknown as u32,
            null(),
            0,
            &mut o,
        );
        for _ in 0..2 {
            assert_eq!(
                a2a_tally_record(
                    t,
                    b"pl\"an".as_ptr().cast(),
                    5,
                    b"message/send".as_ptr().cast(),
                    12,
                    o
                ),
                a2a_result::A2A_OK
            );
        }
        let mut n = 0;
        assert_eq!(
            a2a_tally_count(
                t,
                b"pl\"an".as_ptr().cast(),
                5,
                b"message/send".as_ptr().cast(),
                12,
                a2a_channel::Transport as u32,
                b"Timeout".as_ptr().cast(),
                7,
                &mut n
            ),
            a2a_result::A2A_OK
        );
        assert_eq!(n, 2);
        assert_eq!(
            a2a_tally_add(t, null(), 0, null(), 0, 99, null(), 0, 1),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        assert_eq!(a2a_tally_total(t), 2);
        let mut text = a2a_str::NONE;
        assert_eq!(
            a2a_tally_render_prometheus(t, &mut text),
            a2a_result::A2A_OK
        );
        let text = unsafe { text.as_str() }.unwrap();
        assert!(text.contains("a2a_outcomes_total{agent=\"pl\\\"an\",method=\"message/send\",channel=\"transport\",code=\"Timeout\"} 2\n"), "{text}");
        a2a_outcome_free(o);
        a2a_tally_free(t);
    }
}
