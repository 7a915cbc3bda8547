//! W3C Trace Context `traceparent` (version 00): parse, build from caller randomness, child
//! spans, format. Values are plain structs; nothing is allocated.

use std::ffi::c_char;

use a2a::traceparent::{TraceParent, TraceParentError};

use crate::handle::{try_out, try_ref};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::try_str;

/// Length of a formatted version-00 `traceparent` value.
pub const A2A_TRACEPARENT_LEN: usize = 55;

/// A `traceparent` value. Ids are never all zero in values the library writes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_traceparent {
    /// The 16-byte trace id.
    pub trace_id: [u8; 16],
    /// The 8-byte parent (span) id.
    pub parent_id: [u8; 8],
    /// Trace flags; bit 0 is "sampled".
    pub flags: u8,
}

fn c(t: TraceParent) -> a2a_traceparent {
    a2a_traceparent {
        trace_id: t.trace_id,
        parent_id: t.parent_id,
        flags: t.flags,
    }
}

fn code(e: TraceParentError) -> a2a_result {
    match e {
        TraceParentError::Length => a2a_result::A2A_TRACEPARENT_LENGTH,
        TraceParentError::Separator => a2a_result::A2A_TRACEPARENT_SEPARATOR,
        TraceParentError::Hex => a2a_result::A2A_TRACEPARENT_HEX,
        TraceParentError::Version => a2a_result::A2A_TRACEPARENT_VERSION,
        TraceParentError::ZeroTraceId => a2a_result::A2A_TRACEPARENT_ZERO_TRACE_ID,
        TraceParentError::ZeroParentId => a2a_result::A2A_TRACEPARENT_ZERO_PARENT_ID,
        // A refusal added to the core later: the value is not a traceparent.
        _ => a2a_result::A2A_INVALID_ARGUMENT,
    }
}

/// Parses a `traceparent` header value (UTF-8, read during the call only; surrounding
/// spaces and tabs ignored; a future version is read by its first 55 characters).
/// `out`: written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_TRACEPARENT_*`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_traceparent_parse(
    text: *const c_char,
    text_len: usize,
    out: *mut a2a_traceparent,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let text = try_str!(text, text_len);
        match TraceParent::parse(text) {
            Ok(t) => { out.set(c(t)); a2a_result::A2A_OK }
            Err(e) => code(e),
        }
    }
}

/// A new trace from 24 caller-supplied random bytes (`random`: 16 for the trace id, 8 for
/// the parent id; the library has no random source). Returns `A2A_OK`, or `A2A_NONE` in
/// the negligible case that an id came out all zero (draw again).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_traceparent_from_random(
    random: *const u8,
    sampled: bool,
    out: *mut a2a_traceparent,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        if random.is_null() {
            return a2a_result::A2A_NULL_PARAMETER;
        }
        let mut bytes = [0u8; 24];
        // SAFETY: non-NULL; the header requires 24 readable bytes.
        bytes.copy_from_slice(unsafe { std::slice::from_raw_parts(random, 24) });
        match TraceParent::from_random(bytes, sampled) {
            Some(t) => { out.set(c(t)); a2a_result::A2A_OK }
            None => a2a_result::A2A_NONE,
        }
    }
}

/// A child in the same trace: same trace id and flags, the caller's new span id
/// (`parent_id`: 8 readable bytes). Returns `A2A_OK`, or `A2A_NONE` when `parent_id` is all
/// zero.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_TRACEPARENT_ZERO_TRACE_ID` (`*parent` has an all-zero
/// trace id).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_traceparent_child(
    parent: *const a2a_traceparent,
    parent_id: *const u8,
    out: *mut a2a_traceparent,
) -> a2a_result {
    ffi_panic_boundary! {
        let p = try_ref!(parent);
        let out = try_out!(out);
        if parent_id.is_null() {
            return a2a_result::A2A_NULL_PARAMETER;
        }
        if p.trace_id == [0; 16] {
            return a2a_result::A2A_TRACEPARENT_ZERO_TRACE_ID;
        }
        let mut id = [0u8; 8];
        // SAFETY: non-NULL; the header requires 8 readable bytes.
        id.copy_from_slice(unsafe { std::slice::from_raw_parts(parent_id, 8) });
        match TraceParent::new(p.trace_id, id, p.flags) {
            Some(t) => { out.set(c(t)); a2a_result::A2A_OK }
            None => a2a_result::A2A_NONE,
        }
    }
}

/// Formats `*tp` as the 55-character header value (`00-<trace>-<parent>-<flags>`) into
/// `out` (55 writable bytes, not NUL-terminated), on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_TRACEPARENT_ZERO_TRACE_ID`,
/// `A2A_TRACEPARENT_ZERO_PARENT_ID`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_traceparent_format(tp: *const a2a_traceparent, out: *mut u8) -> a2a_result {
    ffi_panic_boundary! {
        let t = try_ref!(tp);
        if out.is_null() {
            return a2a_result::A2A_NULL_PARAMETER;
        }
        let Some(v) = TraceParent::new(t.trace_id, t.parent_id, t.flags) else {
            return if t.trace_id == [0; 16] {
                a2a_result::A2A_TRACEPARENT_ZERO_TRACE_ID
            } else {
                a2a_result::A2A_TRACEPARENT_ZERO_PARENT_ID
            };
        };
        let text = v.to_string();
        debug_assert_eq!(text.len(), A2A_TRACEPARENT_LEN);
        // SAFETY: non-NULL; the header requires 55 writable bytes; the text is 55 bytes.
        unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), out, text.len().min(A2A_TRACEPARENT_LEN)) };
        a2a_result::A2A_OK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let v = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let mut t = std::mem::MaybeUninit::<a2a_traceparent>::uninit();
        assert_eq!(
            a2a_traceparent_parse(v.as_ptr().cast(), v.len(), t.as_mut_ptr()),
            a2a_result::A2A_OK
        );
        // SAFETY: written on A2A_OK.
        let t = unsafe { t.assume_init() };
        assert_eq!(t.flags, 1);
        let mut out = [0u8; 55];
        assert_eq!(
            a2a_traceparent_format(&t, out.as_mut_ptr()),
            a2a_result::A2A_OK
        );
        assert_eq!(&out[..], v.as_bytes());
    }
}
