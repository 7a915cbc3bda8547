//! The C ABI of a2a-core: `liba2a_core` (shared and static), declared by the generated,
//! committed header `include/a2a_core.h`.
//!
//! # Conventions (rustls-ffi's, see `ffi/README.md`)
//! - Every symbol, type and constant starts with `a2a_` / `A2A_`.
//! - Opaque handles (`a2a_x *`) come from a constructor and go back to `a2a_x_free`, which
//!   accepts NULL and must not be called twice. A call whose first argument is `a2a_x *`
//!   mutates the handle; `const a2a_x *` does not.
//! - Fallible calls return [`result::a2a_result`]: `A2A_OK` (0) or a documented code;
//!   outputs go through out-parameters written only on success.
//! - Every pointer is checked for NULL; `(NULL, 0)` is a valid empty input.
//! - Views ([`view::a2a_bytes`], [`view::a2a_str`]) borrow memory; each function says how
//!   long. Views into a handle are valid until the next mutating call on it.
//! - Every body runs inside a panic boundary ([`mod@panic`]): a panic becomes `A2A_PANIC` or a
//!   typed default, never an abort or an unwind into C.
//! - No global mutable state. Handles are `Send` but not thread-safe; concurrent misuse is
//!   refused (`A2A_IN_USE`, `A2A_CLOSED`) and `_free` waits for the calls inside: see
//!   [`handle`].
//!
//! # Safety
//! Rust callers of these functions (the tests) must uphold the same contracts as C callers:
//! the pointer arguments are documented per function.
#![deny(missing_docs, clippy::undocumented_unsafe_blocks)]
#![allow(non_camel_case_types)]
// Unit tests read views the library just returned; each such read is the test's subject.
#![cfg_attr(test, allow(clippy::undocumented_unsafe_blocks))]
// The C functions take raw pointers and check them; marking each `unsafe extern "C"` would
// make no difference to C callers and obscure the checks.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

#[cfg(not(panic = "unwind"))]
compile_error!(
    "a2a-core-ffi needs panic = \"unwind\": its panic boundary turns panics into A2A_PANIC \
     with catch_unwind, which does nothing under panic = \"abort\""
);

pub mod answer;
pub mod buffer;
pub mod card;
#[cfg(feature = "server")]
pub mod card_builder;
#[cfg(feature = "driver")]
pub mod driver;
#[cfg(feature = "driver")]
pub mod driver_raw;

pub mod classify;
pub mod handle;
pub mod header;
#[cfg(feature = "client")]
pub mod hook;
#[cfg(feature = "client")]
pub mod machine;
#[cfg(feature = "client")]
pub mod machine_config;
#[cfg(feature = "driver")]
mod machine_run;
pub mod outcome;
pub mod panic;
pub mod request;
pub mod resilience;
pub mod result;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod server_hooks;
pub mod sse;
#[cfg(feature = "client")]
pub mod stream;
pub mod tally;
#[cfg(feature = "client")]
pub mod task_wait;
pub mod traceparent;
#[cfg(feature = "trust")]
pub mod trust;
pub mod version;
pub mod view;
pub mod vocab;

use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::a2a_str;

/// The library version, `MAJOR.MINOR.PATCH` (for example `"0.1.0"`), equal to the
/// `A2A_VERSION_MAJOR`/`_MINOR`/`_PATCH` macros of the header the program was compiled
/// against when header and library match.
///
/// Ownership: static text, valid forever; never free it.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_version() -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_static(env!("CARGO_PKG_VERSION"))
    }
}

/// Static English text for a result code (`"ok"` for `A2A_OK`).
///
/// Takes the code as a plain `uint32_t` so any number is safe to pass: an unknown code
/// yields `"unknown result code"`.
///
/// Ownership: the returned text is static; valid forever, never free it.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_result_describe(code: u32) -> a2a_str {
    ffi_panic_boundary! {
        match a2a_result::ALL.iter().find(|r| **r as u32 == code) {
            Some(r) => a2a_str::from_static(r.describe()),
            None => a2a_str::from_static("unknown result code"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_is_the_cargo_version() {
        assert_eq!(
            unsafe { a2a_version().as_str() },
            Some(env!("CARGO_PKG_VERSION"))
        );
    }
}
