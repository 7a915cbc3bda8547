//! Protocol version and binding parsing.

use std::ffi::c_char;

use a2a::version::VersionNumber;

use crate::handle::try_out;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::try_str;
use crate::vocab::version_error;

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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::vocab::{
        a2a_binding, a2a_protocol_version, a2a_vocab, a2a_vocab_name, a2a_vocab_parse,
    };

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
        let header = |t| parse_in(a2a_vocab::VersionHeader, t);
        let mut v = a2a_protocol_version::V1_0 as u32;
        assert_eq!(
            a2a_vocab_parse(a2a_vocab::VersionHeader as u32, std::ptr::null(), 0, &mut v),
            a2a_result::A2A_OK,
            "an absent header"
        );
        assert_eq!(v, a2a_protocol_version::V0_3 as u32);
        assert_eq!(header(""), Ok(a2a_protocol_version::V0_3 as u32));
        assert_eq!(header(" 1.0 "), Ok(a2a_protocol_version::V1_0 as u32));
        assert_eq!(header("0.3"), Ok(a2a_protocol_version::V0_3 as u32));
        assert_eq!(header("2.0"), Err(a2a_result::A2A_VERSION_UNSUPPORTED));
        assert_eq!(header("one"), Err(a2a_result::A2A_VERSION_MALFORMED));
        let value =
            |v: a2a_protocol_version| a2a_vocab_name(a2a_vocab::VersionHeader as u32, v as u32);
        assert_eq!(
            unsafe { value(a2a_protocol_version::V1_0).as_str() },
            Some("1.0")
        );
        assert!(
            value(a2a_protocol_version::V0_3).ptr.is_null(),
            "0.3 sends no header"
        );
        assert!(
            a2a_vocab_name(a2a_vocab::VersionHeader as u32, 0)
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
