//! `a2a_buffer`: a growable byte buffer owned by the library, which writers (HTTP/1.1
//! serialization, joins) append to. One copy out when the caller sends the bytes; no size
//! negotiation.

use crate::handle::{self, Handle, try_out, try_ref};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_bytes, a2a_str};

/// A growable byte buffer. Writers append to it; read it with `a2a_buffer_bytes`.
///
/// Methods: `a2a_buffer_new`, `a2a_buffer_free`, `a2a_buffer_bytes`,
/// `a2a_buffer_last_error`. (To start over, free it and take a new one.)
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_buffer {
    pub(crate) bytes: Vec<u8>,
    pub(crate) last_error: String,
}

impl Handle for a2a_buffer {}

impl a2a_buffer {
    /// Records the error of the current call (or clears it with `None`).
    pub(crate) fn set_error(&mut self, e: Option<String>) {
        self.last_error.clear();
        if let Some(e) = e {
            self.last_error = e;
        }
    }
}

/// A new empty buffer. `out`: a new handle the caller owns (free with `a2a_buffer_free`);
/// written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_buffer_new(out: *mut *mut a2a_buffer) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_buffer { bytes: Vec::new(), last_error: String::new() }));
        a2a_result::A2A_OK
    }
}

/// Frees a buffer. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_buffer_free(buffer: *mut a2a_buffer) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(buffer) }
    }
}

/// Everything appended since the buffer was created. The view points into the
/// buffer: valid until the next mutating call on it. Absent `(NULL, 0)` only when `buffer`
/// is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_buffer_bytes(buffer: *const a2a_buffer) -> a2a_bytes {
    ffi_panic_boundary! {
        a2a_bytes::from_slice(&try_ref!(buffer).bytes)
    }
}

/// A human-readable message for the error of the most recent writer call on this buffer
/// (e.g. which header was refused); absent `(NULL, 0)` when it had none or `buffer` is
/// NULL. Valid until the next mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_buffer_last_error(buffer: *const a2a_buffer) -> a2a_str {
    ffi_panic_boundary! {
        let b = try_ref!(buffer);
        if b.last_error.is_empty() { a2a_str::NONE } else { a2a_str::from_str(&b.last_error) }
    }
}
