//! `a2a_result`: the one result type of the C ABI.
//!
//! `A2A_OK` is 0 so every binding can test success the same way. Codes are grouped by
//! module in ranges of one hundred; a number, once published, is never reused or
//! renumbered (retired codes stay below as comments). C compilers before C23 see the type
//! as `uint32_t`, so bindings treat it as an unsigned 32-bit integer.
//!
//! | range | group |
//! |-------|-------|
//! | 0–99 | success and non-error statuses |
//! | 100–199 | arguments and call order |
//! | 200–299 | shared vocabulary: versions, bindings, outcomes |
//! | 300–399 | SSE decoder and encoder |
//! | 400–499 | request builders (envelope) and model text |
//! | 500–599 | HTTP/1.1 serialization and response reader |
//! | 600–699 | classify, error_id, stream tracker, tally |
//! | 700–799 | agent cards |
//! | 800–899 | server side |
//! | 900–998 | resilience |
//! | 999 | panic |

use crate::panic::ffi_panic_boundary;
use crate::view::a2a_str;

/// The result of a fallible call. `A2A_OK` (0) is success; everything else says what went
/// wrong (or, below 100, a non-error status such as "need more input").
///
/// cbindgen:prefix-with-name=false
#[repr(u32)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum a2a_result {
    /// Success.
    A2A_OK = 0,
    /// Not an error: nothing (more) to hand out until more input is fed.
    A2A_NEED_MORE = 1,
    /// Not an error: the value looked for is absent (not found, not yet due).
    A2A_NONE = 2,

    // --- 100–199: arguments and call order ---
    /// A required pointer argument was NULL (or a `(NULL, len > 0)` input pair).
    A2A_NULL_PARAMETER = 100,
    /// A text argument was not valid UTF-8.
    A2A_INVALID_UTF8 = 101,
    /// An argument is out of range: an unknown enum number, a length above `SIZE_MAX / 2`,
    /// a limit of zero.
    A2A_INVALID_ARGUMENT = 102,

    // --- 200–299: shared vocabulary ---
    /// A protocol version string is not `MAJOR.MINOR[.PATCH]` in ASCII digits.
    A2A_VERSION_MALFORMED = 200,
    /// A protocol version is well-formed but not one this core speaks (0.3 and 1.x).
    A2A_VERSION_UNSUPPORTED = 201,
    /// A binding name is neither JSON-RPC nor HTTP+JSON (e.g. `GRPC`).
    A2A_BINDING_UNKNOWN = 202,

    // --- 300–399: SSE ---
    /// An SSE line was longer than the decoder's `max_line`; the event was discarded.
    A2A_SSE_LINE_TOO_LONG = 300,
    /// An SSE event's data grew larger than the decoder's `max_event`; it was discarded.
    A2A_SSE_EVENT_TOO_LARGE = 301,
    /// An SSE id contains NUL (a decoder would ignore the whole `id` field).
    A2A_SSE_ID_NUL = 302,
    /// An SSE event type to write contains CR or LF.
    A2A_SSE_EVENT_TYPE_LINE_BREAK = 303,
    /// An SSE id to write contains CR or LF.
    A2A_SSE_ID_LINE_BREAK = 304,
    /// An SSE limit error of a kind newer than this header (see the last error message).
    A2A_SSE_LIMIT = 305,
    /// An SSE value that cannot be written, of a kind newer than this header.
    A2A_SSE_ENCODE = 306,

    // --- 999: panic ---
    /// A bug inside the library panicked; the panic was caught at the C boundary. The handle
    /// the call was made on (if any) may only be freed afterwards.
    A2A_PANIC = 999,
}

impl a2a_result {
    /// Every code, for tests and for `a2a_result_describe`.
    pub(crate) const ALL: &'static [a2a_result] = &[
        a2a_result::A2A_OK,
        a2a_result::A2A_NEED_MORE,
        a2a_result::A2A_NONE,
        a2a_result::A2A_NULL_PARAMETER,
        a2a_result::A2A_INVALID_UTF8,
        a2a_result::A2A_INVALID_ARGUMENT,
        a2a_result::A2A_VERSION_MALFORMED,
        a2a_result::A2A_VERSION_UNSUPPORTED,
        a2a_result::A2A_BINDING_UNKNOWN,
        a2a_result::A2A_SSE_LINE_TOO_LONG,
        a2a_result::A2A_SSE_EVENT_TOO_LARGE,
        a2a_result::A2A_SSE_ID_NUL,
        a2a_result::A2A_SSE_EVENT_TYPE_LINE_BREAK,
        a2a_result::A2A_SSE_ID_LINE_BREAK,
        a2a_result::A2A_SSE_LIMIT,
        a2a_result::A2A_SSE_ENCODE,
        a2a_result::A2A_PANIC,
    ];

    /// Static description of the code.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            a2a_result::A2A_OK => "ok",
            a2a_result::A2A_NEED_MORE => "nothing more until more input is fed",
            a2a_result::A2A_NONE => "no value: not found or not yet due",
            a2a_result::A2A_NULL_PARAMETER => "a required pointer argument was NULL",
            a2a_result::A2A_INVALID_UTF8 => "a text argument was not valid UTF-8",
            a2a_result::A2A_INVALID_ARGUMENT => "an argument was out of range",
            a2a_result::A2A_VERSION_MALFORMED => {
                "malformed protocol version: expected MAJOR.MINOR such as \"1.0\" or \"0.3\""
            }
            a2a_result::A2A_VERSION_UNSUPPORTED => {
                "unsupported protocol version: this core speaks 0.3 and 1.x"
            }
            a2a_result::A2A_BINDING_UNKNOWN => "unknown binding: expected JSONRPC or HTTP+JSON",
            a2a_result::A2A_SSE_LINE_TOO_LONG => {
                "SSE line longer than the decoder's max_line; the event was discarded"
            }
            a2a_result::A2A_SSE_EVENT_TOO_LARGE => {
                "SSE event data larger than the decoder's max_event; the event was discarded"
            }
            a2a_result::A2A_SSE_ID_NUL => "SSE id contains NUL",
            a2a_result::A2A_SSE_EVENT_TYPE_LINE_BREAK => "SSE event type contains a line break",
            a2a_result::A2A_SSE_ID_LINE_BREAK => "SSE id contains a line break",
            a2a_result::A2A_SSE_LIMIT => "SSE input went over a decoder limit",
            a2a_result::A2A_SSE_ENCODE => "SSE value cannot be written as it is",
            a2a_result::A2A_PANIC => "internal error: a panic was caught at the C boundary",
        }
    }
}

/// Converts an error code into a function's return type: itself for `a2a_result`, the
/// NULL default for everything else.
pub(crate) trait FromResult {
    /// The value to return for `code`.
    fn from_result(code: a2a_result) -> Self;
}

impl FromResult for a2a_result {
    fn from_result(code: a2a_result) -> Self {
        code
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
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_and_described() {
        let mut seen = HashSet::new();
        for r in a2a_result::ALL {
            assert!(seen.insert(*r as u32), "duplicate code {}", *r as u32);
            let d = unsafe { a2a_result_describe(*r as u32).as_str() }.unwrap();
            assert!(!d.is_empty());
            assert_ne!(d, "unknown result code");
        }
        assert_eq!(a2a_result::A2A_OK as u32, 0);
        assert_eq!(a2a_result::A2A_PANIC as u32, 999);
    }

    #[test]
    fn unknown_code_has_a_description() {
        let d = unsafe { a2a_result_describe(12345).as_str() }.unwrap();
        assert_eq!(d, "unknown result code");
    }
}
