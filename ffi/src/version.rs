//! Protocol version and binding parsing.

use std::ffi::c_char;

use a2a::version::{ProtocolVersion, VersionNumber};

use crate::handle::try_out;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_str, try_str};
use crate::vocab::{a2a_protocol_version, version_error};

/// Parses `MAJOR.MINOR[.PATCH]` into its numbers without deciding whether this core speaks
/// that version (the patch, when present, is checked and dropped).
///
/// `text`/`text_len`: UTF-8, borrowed for the call only. `major`, `minor`: both written on
/// success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_VERSION_MALFORMED`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_version_number_parse(
    text: *const c_char,
    text_len: usize,
    major: *mut u32,
    minor: *mut u32,
) -> a2a_result {
    ffi_panic_boundary! {
        let major = try_out!(major);
        let minor = try_out!(minor);
        let text = try_str!(text, text_len);
        match VersionNumber::parse(text) {
            Ok(n) => {
                major.set(n.major);
                minor.set(n.minor);
                a2a_result::A2A_OK
            }
            Err(e) => version_error(&e),
        }
    }
}

/// The protocol version a server should assume from an `A2A-Version` header value: an
/// absent or empty header means 0.3.
///
/// `value`/`value_len`: the header value, UTF-8, borrowed for the call only; pass
/// `(NULL, 0)` when the header is absent. `out`: written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_VERSION_MALFORMED`,
/// `A2A_VERSION_UNSUPPORTED`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_protocol_version_from_header(
    value: *const c_char,
    value_len: usize,
    out: *mut a2a_protocol_version,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let value = try_str!(value, value_len);
        match ProtocolVersion::from_header(Some(value)) {
            Ok(v) => {
                out.set(a2a_protocol_version::from_core(v));
                a2a_result::A2A_OK
            }
            Err(e) => version_error(&e),
        }
    }
}

/// Static `A2A-Version` header value a client sends for `version`: `"1.0"` for 1.x; an
/// absent view `(NULL, 0)` for 0.3 (which sends no header) and for unknown numbers.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_protocol_version_header_value(version: u32) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(
            a2a_protocol_version::core_from_u32(version).and_then(ProtocolVersion::header_value),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::vocab::{a2a_binding, a2a_vocab, a2a_vocab_name, a2a_vocab_parse};

    fn parse_in(vocab: a2a_vocab, t: &str) -> Result<u32, a2a_result> {
        let mut out = 0;
        match a2a_vocab_parse(vocab as u32, t.as_ptr().cast(), t.len(), &mut out) {
            a2a_result::A2A_OK => Ok(out),
            e => Err(e),
        }
    }

    fn parse(t: &str) -> Result<u32, a2a_result> {
        parse_in(a2a_vocab::ProtocolVersion, t)
    }

    #[test]
    fn versions() {
        assert_eq!(parse("1.2"), Ok(a2a_protocol_version::V1_0 as u32));
        assert_eq!(parse("0.3.0"), Ok(a2a_protocol_version::V0_3 as u32));
        assert_eq!(parse("2.0"), Err(a2a_result::A2A_VERSION_UNSUPPORTED));
        assert_eq!(parse("v1"), Err(a2a_result::A2A_VERSION_MALFORMED));
        assert_eq!(parse(""), Err(a2a_result::A2A_VERSION_MALFORMED));
        let (mut maj, mut min) = (7, 7);
        assert_eq!(
            a2a_version_number_parse(b"3.14".as_ptr().cast(), 4, &mut maj, &mut min),
            a2a_result::A2A_OK
        );
        assert_eq!((maj, min), (3, 14));
        assert_eq!(
            a2a_version_number_parse(b"3.x".as_ptr().cast(), 3, &mut maj, &mut min),
            a2a_result::A2A_VERSION_MALFORMED
        );
        assert_eq!((maj, min), (3, 14), "outputs untouched on failure");
        let mut v = a2a_protocol_version::V1_0;
        assert_eq!(
            a2a_protocol_version_from_header(std::ptr::null(), 0, &mut v),
            a2a_result::A2A_OK
        );
        assert_eq!(v, a2a_protocol_version::V0_3);
        let h = a2a_protocol_version_header_value(a2a_protocol_version::V1_0 as u32);
        assert_eq!(unsafe { h.as_str() }, Some("1.0"));
        assert!(
            a2a_protocol_version_header_value(a2a_protocol_version::V0_3 as u32)
                .ptr
                .is_null()
        );
    }

    #[test]
    fn bindings() {
        let binding = |t| parse_in(a2a_vocab::Binding, t);
        assert_eq!(binding("rest"), Ok(a2a_binding::HttpJson as u32));
        assert_eq!(binding("GRPC"), Err(a2a_result::A2A_BINDING_UNKNOWN));
        let name = a2a_vocab_name(a2a_vocab::Binding as u32, a2a_binding::HttpJson as u32);
        assert_eq!(unsafe { name.as_str() }, Some("HTTP+JSON"));
        assert!(a2a_vocab_name(a2a_vocab::Binding as u32, 0).ptr.is_null());
    }
}
