//! Opaque handles: how C gets, uses and frees library-owned objects.
//!
//! A handle type is a Rust struct without `#[repr(C)]`, so cbindgen declares it as an
//! opaque `typedef struct a2a_x a2a_x;`. C only ever holds a pointer obtained from the
//! library (`a2a_x_new` or another constructor) and returns it to `a2a_x_free`, which
//! accepts NULL and must not be called twice.
//!
//! Threading: handles are `Send` (a handle may move to another thread between calls) but
//! not thread-safe: two threads must not use the same handle at the same time, and the
//! library has no global mutable state, so distinct handles are independent.

/// Marker for types handed to C as `a2a_x *`: only they may go through [`into_raw`] and
/// [`free`], which keeps `Box::from_raw` paired with the right type.
pub(crate) trait Handle: Sized + Send + 'static {}

/// Moves a handle to the heap and gives up ownership to C.
pub(crate) fn into_raw<T: Handle>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Frees a handle obtained from [`into_raw`]; NULL is a no-op.
///
/// # Safety
/// `ptr` is NULL or came from `into_raw::<T>` and was not freed before.
pub(crate) unsafe fn free<T: Handle>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: by contract the pointer came from Box::into_raw and is freed once.
        drop(unsafe { Box::from_raw(ptr) });
    }
}

/// `&T` from a `const a2a_x *` argument, or returns the NULL default of the function's
/// return type (`A2A_NULL_PARAMETER`, NULL, false, 0, an empty view).
macro_rules! try_ref {
    ($ptr:expr) => {{
        let p = $ptr;
        if p.is_null() {
            return $crate::panic::NullOrDefault::value();
        }
        // SAFETY: non-NULL; the header requires a live handle from this library.
        unsafe { &*p }
    }};
}

/// `&mut T` from an `a2a_x *` argument, or returns the NULL default of the return type.
macro_rules! try_mut {
    ($ptr:expr) => {{
        let p = $ptr;
        if p.is_null() {
            return $crate::panic::NullOrDefault::value();
        }
        // SAFETY: non-NULL; the header requires a live handle not used concurrently.
        unsafe { &mut *p }
    }};
}

/// Checks an out-parameter for NULL up front (before any work), returning the NULL default
/// of the return type; yields an [`Out`] to write once the call has succeeded.
macro_rules! try_out {
    ($ptr:expr) => {{
        let p = $ptr;
        if p.is_null() {
            return $crate::panic::NullOrDefault::value();
        }
        $crate::handle::Out(p)
    }};
}

pub(crate) use {try_mut, try_out, try_ref};

/// A checked, non-NULL out-parameter. Writing is the last step of a successful call, so
/// outputs are written only on success.
pub(crate) struct Out<T>(pub(crate) *mut T);

impl<T> Out<T> {
    /// Writes the output.
    pub(crate) fn set(self, value: T) {
        // SAFETY: checked non-NULL by try_out!; the header requires it to be writable and
        // aligned. `write` does not drop the (possibly uninitialised) previous value.
        unsafe { self.0.write(value) }
    }
}
