//! Borrowed views (`a2a_bytes`, `a2a_str`) and the helpers that turn C `(ptr, len)` inputs
//! into Rust slices.
//!
//! A view never owns memory. Each function that returns one says how long it stays valid:
//! static text lives forever, text inside a handle lives until the next mutating call on
//! that handle (a call taking `a2a_x *` rather than `const a2a_x *`) or its `_free`.
//!
//! Inputs are `(ptr, len)` pairs. `(NULL, 0)` is a valid empty input (Go and Python pass it
//! for empty slices); `(NULL, n > 0)` is `A2A_NULL_PARAMETER`.

use std::ffi::c_char;

use crate::result::a2a_result;

/// A borrowed byte view: `len` bytes at `ptr`. Not NUL-terminated.
///
/// `ptr` is NULL only when `len` is 0. Functions that return an *optional* view use
/// `ptr == NULL` to mean "absent" and a non-NULL `ptr` with `len == 0` to mean "present and
/// empty". The view's lifetime is stated by the function that returned it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_bytes {
    /// First byte, or NULL when absent.
    pub ptr: *const u8,
    /// Number of bytes.
    pub len: usize,
}

/// A borrowed UTF-8 text view: `len` bytes at `ptr`, always valid UTF-8, never
/// NUL-terminated (copy it before using it as a C string).
///
/// `ptr` is NULL only when `len` is 0. Functions that return an *optional* text use
/// `ptr == NULL` to mean "absent" and a non-NULL `ptr` with `len == 0` to mean "present and
/// empty". The view's lifetime is stated by the function that returned it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_str {
    /// First byte of UTF-8 text, or NULL when absent.
    pub ptr: *const c_char,
    /// Number of bytes (not characters).
    pub len: usize,
}

impl a2a_bytes {
    /// The absent view `(NULL, 0)`.
    pub(crate) const NONE: a2a_bytes = a2a_bytes {
        ptr: std::ptr::null(),
        len: 0,
    };

    /// A view of `b`; valid as long as `b` is. Never NULL, even for an empty slice.
    pub(crate) fn from_slice(b: &[u8]) -> a2a_bytes {
        a2a_bytes {
            ptr: b.as_ptr(),
            len: b.len(),
        }
    }

    /// The bytes as a Rust slice (tests and internal use).
    ///
    /// # Safety
    /// The view must be valid (as stated by the function that returned it).
    #[cfg(test)]
    pub(crate) unsafe fn as_slice<'a>(&self) -> Option<&'a [u8]> {
        if self.ptr.is_null() {
            None
        } else {
            // SAFETY: the caller guarantees the view is live; ptr is non-NULL.
            Some(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
        }
    }
}

impl a2a_str {
    /// The absent view `(NULL, 0)`.
    pub(crate) const NONE: a2a_str = a2a_str {
        ptr: std::ptr::null(),
        len: 0,
    };

    /// A view of static text; valid forever.
    pub(crate) fn from_static(s: &'static str) -> a2a_str {
        a2a_str::from_str(s)
    }

    /// A view of `s`; valid as long as `s` is. Never NULL, even for empty text.
    pub(crate) fn from_str(s: &str) -> a2a_str {
        a2a_str {
            ptr: s.as_ptr().cast(),
            len: s.len(),
        }
    }

    /// A view of an optional text: NULL when absent.
    pub(crate) fn from_opt(s: Option<&str>) -> a2a_str {
        s.map_or(a2a_str::NONE, a2a_str::from_str)
    }

    /// The text as a Rust `&str` (tests and internal use).
    ///
    /// # Safety
    /// The view must be valid (as stated by the function that returned it).
    #[cfg(test)]
    pub(crate) unsafe fn as_str<'a>(&self) -> Option<&'a str> {
        if self.ptr.is_null() {
            None
        } else {
            // SAFETY: the caller guarantees the view is live; views are built from &str.
            Some(unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                    self.ptr.cast::<u8>(),
                    self.len,
                ))
            })
        }
    }
}

/// Turns a C `(ptr, len)` input into a slice: `(NULL, 0)` and `(p, 0)` are empty,
/// `(NULL, n > 0)` is `A2A_NULL_PARAMETER`, `len > isize::MAX` is `A2A_INVALID_ARGUMENT`.
///
/// # Safety
/// When `ptr` is non-NULL and `len > 0`, `ptr` must point to `len` readable bytes that stay
/// valid and unmodified for `'a`.
pub(crate) unsafe fn input_bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], a2a_result> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(a2a_result::A2A_NULL_PARAMETER);
    }
    if len > isize::MAX as usize {
        return Err(a2a_result::A2A_INVALID_ARGUMENT);
    }
    // SAFETY: non-NULL, len within isize::MAX, readability guaranteed by the caller.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Like [`input_bytes`] for text: additionally `A2A_INVALID_UTF8` when not UTF-8.
///
/// # Safety
/// As for [`input_bytes`].
pub(crate) unsafe fn input_str<'a>(ptr: *const c_char, len: usize) -> Result<&'a str, a2a_result> {
    // SAFETY: forwarded contract.
    let b = unsafe { input_bytes(ptr.cast(), len) }?;
    std::str::from_utf8(b).map_err(|_| a2a_result::A2A_INVALID_UTF8)
}

/// Unwraps `Result<T, a2a_result>` or returns the error converted to the function's return
/// type; use inside `ffi_panic_boundary!`.
macro_rules! try_input {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(code) => return $crate::result::FromResult::from_result(code),
        }
    };
}

/// `try_input!(input_bytes(ptr, len))` for a `(const uint8_t *, size_t)` argument pair.
macro_rules! try_bytes {
    ($ptr:expr, $len:expr) => {
        // SAFETY: the header documents that (ptr, len) must describe readable memory.
        $crate::view::try_input!(unsafe { $crate::view::input_bytes($ptr, $len) })
    };
}

/// `try_input!(input_str(ptr, len))` for a `(const char *, size_t)` UTF-8 argument pair.
macro_rules! try_str {
    ($ptr:expr, $len:expr) => {
        // SAFETY: the header documents that (ptr, len) must describe readable memory.
        $crate::view::try_input!(unsafe { $crate::view::input_str($ptr, $len) })
    };
}

pub(crate) use {try_bytes, try_input, try_str};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_zero_is_empty_and_null_nonzero_is_refused() {
        unsafe {
            assert_eq!(input_bytes(std::ptr::null(), 0), Ok(&[][..]));
            assert_eq!(
                input_bytes(std::ptr::null(), 3),
                Err(a2a_result::A2A_NULL_PARAMETER)
            );
            let b = b"abc";
            assert_eq!(input_bytes(b.as_ptr(), 3), Ok(&b"abc"[..]));
            assert_eq!(
                input_bytes(b.as_ptr(), usize::MAX),
                Err(a2a_result::A2A_INVALID_ARGUMENT)
            );
            assert_eq!(
                input_str(b"\xff".as_ptr().cast(), 1),
                Err(a2a_result::A2A_INVALID_UTF8)
            );
            assert_eq!(input_str(std::ptr::null(), 0), Ok(""));
        }
    }

    #[test]
    fn optional_views_distinguish_absent_from_empty() {
        assert!(a2a_str::from_opt(None).ptr.is_null());
        let e = a2a_str::from_opt(Some(""));
        assert!(!e.ptr.is_null());
        assert_eq!(e.len, 0);
        assert!(!a2a_bytes::from_slice(&[]).ptr.is_null());
    }
}
