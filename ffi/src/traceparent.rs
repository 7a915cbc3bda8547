//! W3C Trace Context `traceparent` (version 00): parse, build from caller randomness, child
//! spans, format. Values are plain structs; nothing is allocated.

use std::ffi::c_char;

use a2a::traceparent::{TraceParent, TraceParentError};

use crate::handle::{try_out, try_ref};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{try_bytes, try_str};

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

/// Starts or continues a trace from caller-supplied random bytes (the library has no
/// random source).
///
/// - `parent` NULL: a new trace. `random`/`random_len`: exactly 24 bytes (16 for the trace
///   id, 8 for the parent id); `sampled` sets flag bit 0.
/// - `parent` non-NULL: a child span in the same trace (same trace id and flags; `sampled`
///   is not used). `random`/`random_len`: exactly 8 bytes, the new span's id.
///
/// `random` is read during the call only. `out`: written on success only. Returns
/// `A2A_OK`, or `A2A_NONE` when an id came out all zero (draw again; negligible for real
/// randomness).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (`random_len` is not 24 without a
/// parent, or not 8 with one), `A2A_TRACEPARENT_ZERO_TRACE_ID` (`*parent` has an all-zero
/// trace id).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_traceparent_new(
    parent: *const a2a_traceparent,
    random: *const u8,
    random_len: usize,
    sampled: bool,
    out: *mut a2a_traceparent,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let random = try_bytes!(random, random_len);
        // SAFETY: NULL or a pointer to a readable `a2a_traceparent` (the header's contract).
        let made = match unsafe { parent.as_ref() } {
            None => match <[u8; 24]>::try_from(random) {
                Ok(bytes) => TraceParent::from_random(bytes, sampled),
                Err(_) => return a2a_result::A2A_INVALID_ARGUMENT,
            },
            Some(p) => {
                let Ok(id) = <[u8; 8]>::try_from(random) else {
                    return a2a_result::A2A_INVALID_ARGUMENT;
                };
                if p.trace_id == [0; 16] {
                    return a2a_result::A2A_TRACEPARENT_ZERO_TRACE_ID;
                }
                TraceParent::new(p.trace_id, id, p.flags)
            }
        };
        match made {
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

    fn made(
        parent: Option<&a2a_traceparent>,
        random: &[u8],
        sampled: bool,
    ) -> Result<a2a_traceparent, a2a_result> {
        let mut t = std::mem::MaybeUninit::<a2a_traceparent>::uninit();
        let parent = parent.map_or(std::ptr::null(), std::ptr::from_ref);
        match a2a_traceparent_new(
            parent,
            random.as_ptr(),
            random.len(),
            sampled,
            t.as_mut_ptr(),
        ) {
            // SAFETY: written on A2A_OK.
            a2a_result::A2A_OK => Ok(unsafe { t.assume_init() }),
            e => Err(e),
        }
    }

    #[test]
    fn new_starts_a_trace_or_continues_one() {
        let random: Vec<u8> = (1..=24).collect();
        let root = made(None, &random, true).unwrap();
        assert_eq!(root.trace_id[..], random[..16]);
        assert_eq!(root.parent_id[..], random[16..]);
        assert_eq!(root.flags, 1);
        assert_eq!(made(None, &random, false).unwrap().flags, 0);

        let child = made(Some(&root), &[9; 8], false).unwrap();
        assert_eq!(child.trace_id, root.trace_id);
        assert_eq!(child.parent_id, [9; 8]);
        assert_eq!(
            child.flags, 1,
            "a child keeps its parent's flags, not `sampled`"
        );
    }

    #[test]
    fn new_refuses_wrong_lengths_zero_ids_and_nulls() {
        let random = [7u8; 24];
        let root = made(None, &random, true).unwrap();
        assert_eq!(
            made(None, &random[..8], true).err(),
            Some(a2a_result::A2A_INVALID_ARGUMENT)
        );
        assert_eq!(
            made(Some(&root), &random, true).err(),
            Some(a2a_result::A2A_INVALID_ARGUMENT)
        );
        assert_eq!(made(None, &[0; 24], true).err(), Some(a2a_result::A2A_NONE));
        assert_eq!(
            made(Some(&root), &[0; 8], true).err(),
            Some(a2a_result::A2A_NONE)
        );
        let zero_trace = a2a_traceparent {
            trace_id: [0; 16],
            ..root
        };
        assert_eq!(
            made(Some(&zero_trace), &[1; 8], true).err(),
            Some(a2a_result::A2A_TRACEPARENT_ZERO_TRACE_ID)
        );
        let mut out = std::mem::MaybeUninit::<a2a_traceparent>::uninit();
        assert_eq!(
            a2a_traceparent_new(
                std::ptr::null(),
                std::ptr::null(),
                24,
                true,
                out.as_mut_ptr()
            ),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_traceparent_new(
                std::ptr::null(),
                random.as_ptr(),
                24,
                true,
                std::ptr::null_mut()
            ),
            a2a_result::A2A_NULL_PARAMETER
        );
    }
}
