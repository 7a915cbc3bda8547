//! The panic boundary: no panic ever unwinds into C.
//!
//! Every `extern "C"` body is wrapped in `ffi_panic_boundary!`. A panic inside becomes
//! `A2A_PANIC` for functions returning [`a2a_result`], or a typed default (NULL, `false`, 0,
//! an empty view, the `NONE` value of an enum) for functions that return something else.
//! Since Rust 1.81 an unwind out of an `extern "C"` function aborts the process, so without
//! this boundary a bug would kill the host program.
//!
//! # Assumption: `panic = "unwind"`
//! The boundary relies on `catch_unwind`, which only works when the library is built with
//! `panic = "unwind"` (Cargo's default, and what this workspace's profiles use). A build with
//! `panic = "abort"` turns every panic into an abort: the ABI stays sound but a bug then
//! ends the process instead of returning `A2A_PANIC`. So the crate refuses to compile with
//! `panic = "abort"` (a `compile_error!` in `lib.rs`) rather than silently weaken the contract.
//!
//! After `A2A_PANIC` from a call on a handle, the handle's state is unspecified: the only
//! call the header allows on it afterwards is its `_free` function.

use crate::result::a2a_result;
use crate::view::{a2a_bytes, a2a_str};

/// The value an `extern "C"` function returns when its body panicked.
pub(crate) trait PanicOrDefault {
    /// The value to return.
    fn value() -> Self;
}

/// The value an `extern "C"` function returns when a required pointer argument is NULL.
pub(crate) trait NullOrDefault {
    /// The value to return.
    fn value() -> Self;
}

impl PanicOrDefault for a2a_result {
    fn value() -> Self {
        a2a_result::A2A_PANIC
    }
}

impl NullOrDefault for a2a_result {
    fn value() -> Self {
        a2a_result::A2A_NULL_PARAMETER
    }
}

/// Implements [`PanicOrDefault`], [`NullOrDefault`] and `FromResult` for types whose panic
/// value and NULL value are the same plain default.
macro_rules! defaults {
    ($($t:ty => $v:expr),* $(,)?) => {
        $(
            impl $crate::panic::PanicOrDefault for $t {
                fn value() -> Self { $v }
            }
            impl $crate::panic::NullOrDefault for $t {
                fn value() -> Self { $v }
            }
            impl $crate::result::FromResult for $t {
                fn from_result(_: $crate::result::a2a_result) -> Self { $v }
            }
        )*
    };
}

pub(crate) use defaults;

defaults! {
    () => (),
    bool => false,
    u8 => 0,
    u16 => 0,
    u32 => 0,
    u64 => 0,
    // -1: no valid value of an i32 return is negative (an exit status).
    i32 => -1,
    i64 => 0,
    usize => 0,
    a2a_str => a2a_str::NONE,
    a2a_bytes => a2a_bytes::NONE,
}

impl<T> PanicOrDefault for *mut T {
    fn value() -> Self {
        std::ptr::null_mut()
    }
}

impl<T> NullOrDefault for *mut T {
    fn value() -> Self {
        std::ptr::null_mut()
    }
}

impl<T> crate::result::FromResult for *mut T {
    fn from_result(_: a2a_result) -> Self {
        std::ptr::null_mut()
    }
}

impl<T> crate::result::FromResult for *const T {
    fn from_result(_: a2a_result) -> Self {
        std::ptr::null()
    }
}

impl<T> PanicOrDefault for *const T {
    fn value() -> Self {
        std::ptr::null()
    }
}

impl<T> NullOrDefault for *const T {
    fn value() -> Self {
        std::ptr::null()
    }
}

/// Runs the body inside `catch_unwind`; a panic returns `PanicOrDefault::value()`.
///
/// The body is a closure: an early `return` inside it (as the `try_*!` macros do) returns
/// that value from the `extern "C"` function. Keep the function signature literal in the
/// source so cbindgen sees it.
macro_rules! ffi_panic_boundary {
    ( $($tt:tt)* ) => {
        // AssertUnwindSafe: after a panic the handle is documented as unusable except for
        // `_free`, so observing a half-updated handle is excluded by contract.
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| { $($tt)* })) {
            Ok(ret) => ret,
            Err(_) => return $crate::panic::PanicOrDefault::value(),
        }
    };
}

pub(crate) use ffi_panic_boundary;

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::c_void;

    // Deliberately panicking internal paths, one per kind of return type.
    extern "C" fn panics_result() -> a2a_result {
        ffi_panic_boundary! {
            let v: Vec<u8> = Vec::new();
            if v.is_empty() { panic!("deliberate panic for the boundary test") }
            a2a_result::A2A_OK
        }
    }

    extern "C" fn panics_ptr() -> *mut c_void {
        ffi_panic_boundary! {
            if std::hint::black_box(true) { panic!("deliberate") }
            std::ptr::NonNull::dangling().as_ptr()
        }
    }

    extern "C" fn panics_str() -> a2a_str {
        ffi_panic_boundary! {
            if std::hint::black_box(true) { panic!("deliberate") }
            a2a_str::from_static("x")
        }
    }

    extern "C" fn panics_bool() -> bool {
        ffi_panic_boundary! {
            if std::hint::black_box(true) { panic!("deliberate") }
            true
        }
    }

    extern "C" fn early_return() -> a2a_result {
        ffi_panic_boundary! {
            if std::hint::black_box(true) { return a2a_result::A2A_INVALID_ARGUMENT; }
            a2a_result::A2A_OK
        }
    }

    #[test]
    fn panic_becomes_a_result_or_a_typed_default() {
        assert_eq!(panics_result(), a2a_result::A2A_PANIC);
        assert!(panics_ptr().is_null());
        let s = panics_str();
        assert!(s.ptr.is_null());
        assert_eq!(s.len, 0);
        assert!(!panics_bool());
    }

    #[test]
    fn early_return_inside_the_boundary_returns_from_the_function() {
        assert_eq!(early_return(), a2a_result::A2A_INVALID_ARGUMENT);
    }
}
