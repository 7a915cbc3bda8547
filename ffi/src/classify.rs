//! Classification of a whole response into one `a2a_outcome`, the remote's `error_id`,
//! leaked exception detail, `Retry-After` and content-type helpers.

use std::ffi::c_char;

use a2a::classify::{self, Asked, ResponseInfo};
use a2a::error_id;

use crate::handle::{try_out, try_ref};
use crate::outcome::a2a_outcome;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_str, input_bytes, input_str, try_input, try_str};
use crate::vocab::{a2a_binding, a2a_error_name, a2a_protocol_version};

/// What the caller asked, each part optional. Read during the call only (nothing retained).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_asked {
    /// An `a2a_protocol_version`, or 0 when unknown (detected from the body).
    pub version: u32,
    /// An `a2a_binding`, or 0 when unknown (detected from the body).
    pub binding: u32,
    /// The JSON-RPC method or REST path (`message/send`, `POST /v1/message:send`), UTF-8;
    /// `(NULL, 0)` or empty when unknown (retry advice then assumes a side effect).
    pub method: *const c_char,
    /// Length of `method` in bytes.
    pub method_len: usize,
    /// The JSON-RPC request id as text (a string id's contents or a number's digits), UTF-8;
    /// `(NULL, 0)` or empty when unknown.
    pub request_id: *const c_char,
    /// Length of `request_id` in bytes.
    pub request_id_len: usize,
}

/// One complete HTTP response to classify. Read during the call only (nothing retained).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_response {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` header value, UTF-8; `(NULL, 0)` or empty when absent.
    pub content_type: *const c_char,
    /// Length of `content_type` in bytes.
    pub content_type_len: usize,
    /// The `Retry-After` header value, UTF-8; `(NULL, 0)` or empty when absent.
    pub retry_after: *const c_char,
    /// Length of `retry_after` in bytes.
    pub retry_after_len: usize,
    /// The complete body (any bytes); `(NULL, 0)` when empty.
    pub body: *const u8,
    /// Length of `body` in bytes.
    pub body_len: usize,
    /// What was asked.
    pub asked: a2a_asked,
    /// The caller's wall-clock time in seconds since the Unix epoch, or 0 when unknown.
    /// Needed only to turn a `Retry-After` HTTP-date into seconds to wait (any of the three
    /// RFC 9110 forms); delta-seconds are read without it. Appended last (ABI growth rule).
    pub now_unix_seconds: u64,
}

/// An optional UTF-8 input: `None` when empty.
///
/// # Safety
/// As for [`input_str`].
unsafe fn opt_str<'a>(ptr: *const c_char, len: usize) -> Result<Option<&'a str>, a2a_result> {
    // SAFETY: forwarded contract.
    let s = unsafe { input_str(ptr, len) }?;
    Ok((!s.is_empty()).then_some(s))
}

/// Converts a C `a2a_asked` (borrowing its strings).
///
/// # Safety
/// The pointers in `a` must satisfy [`input_str`]'s contract for `'a`.
pub(crate) unsafe fn asked_from<'a>(a: &a2a_asked) -> Result<Asked<'a>, a2a_result> {
    let version = match a.version {
        0 => None,
        n => Some(a2a_protocol_version::core_from_u32(n).ok_or(a2a_result::A2A_INVALID_ARGUMENT)?),
    };
    let binding = match a.binding {
        0 => None,
        n => Some(a2a_binding::core_from_u32(n).ok_or(a2a_result::A2A_INVALID_ARGUMENT)?),
    };
    Ok(Asked {
        version,
        binding,
        // SAFETY: forwarded contract.
        method: unsafe { opt_str(a.method, a.method_len) }?,
        // SAFETY: forwarded contract.
        request_id: unsafe { opt_str(a.request_id, a.request_id_len) }?,
    })
}

/// Converts a C `a2a_response` (borrowing its strings and body).
///
/// # Safety
/// The pointers in `r` must satisfy [`input_bytes`]'s contract for `'a`.
pub(crate) unsafe fn response_from<'a>(r: &a2a_response) -> Result<ResponseInfo<'a>, a2a_result> {
    // SAFETY: forwarded contract (each pair below).
    unsafe {
        Ok(ResponseInfo {
            status: r.status,
            content_type: opt_str(r.content_type, r.content_type_len)?,
            retry_after: opt_str(r.retry_after, r.retry_after_len)?,
            body: input_bytes(r.body, r.body_len)?,
            asked: asked_from(&r.asked)?,
            now_unix_seconds: (r.now_unix_seconds != 0).then_some(r.now_unix_seconds),
        })
    }
}

/// Classifies one complete response into exactly one outcome (channel, details, advice).
///
/// `response`: read during the call only; every pointer in it follows the `(ptr, len)`
/// input rules. `out`: receives a new outcome the caller owns (free with
/// `a2a_outcome_free`); written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8` (a header value or the method/request
/// id), `A2A_INVALID_ARGUMENT` (`asked.version` or `asked.binding` not 0 or a member).
/// The body may be any bytes: invalid JSON or UTF-8 in it is a classification
/// (`A2A_CHANNEL_MALFORMED` or `A2A_CHANNEL_HTTP`), not an error.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_classify(
    response: *const a2a_response,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(response);
        let out = try_out!(out);
        // SAFETY: the header requires the pointers in `response` to be valid inputs.
        let info = try_input!(unsafe { response_from(r) });
        out.set(a2a_outcome::into_raw(classify::classify(&info)));
        a2a_result::A2A_OK
    }
}

/// Finds the first ADK error id (twelve lowercase hex digits after `error_id`) in `text`.
///
/// `out`: on `A2A_OK`, a view INTO `text` (valid as long as the caller keeps `text`);
/// written on success only.
///
/// Returns `A2A_OK` when found, `A2A_NONE` when `text` has none. Errors:
/// `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_extract_error_id(
    text: *const c_char,
    text_len: usize,
    out: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let text = try_str!(text, text_len);
        match error_id::extract_error_id(text) {
            Some(id) => {
                out.set(a2a_str::from_str(id));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_NONE,
        }
    }
}

/// Detects leaked exception detail (`...: java.lang.IllegalStateException: boom`) in a
/// failure text.
///
/// `class`, `message`: on `A2A_OK`, views INTO `text` (valid as long as the caller keeps
/// `text`); both written on success only.
///
/// Returns `A2A_OK` when found, `A2A_NONE` otherwise. Errors: `A2A_NULL_PARAMETER`,
/// `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_leaked_exception(
    text: *const c_char,
    text_len: usize,
    class: *mut a2a_str,
    message: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let class = try_out!(class);
        let message = try_out!(message);
        let text = try_str!(text, text_len);
        match error_id::leaked_exception(text) {
            Some(e) => {
                class.set(a2a_str::from_str(e.class));
                message.set(a2a_str::from_str(e.message));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_NONE,
        }
    }
}

/// Whether a `Content-Type` value is `text/event-stream` (parameters and case ignored).
/// False for NULL with a length, invalid UTF-8 or `(NULL, 0)`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_is_event_stream(
    content_type: *const c_char,
    content_type_len: usize,
) -> bool {
    ffi_panic_boundary! {
        let ct = try_str!(content_type, content_type_len);
        classify::is_event_stream(Some(ct))
    }
}

/// The error name of a JSON-RPC / A2A error code (`-32001` is TaskNotFound; unknown codes
/// are `A2A_ERROR_NAME_OTHER`). Never fails.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_error_name_of_code(code: i64) -> a2a_error_name {
    ffi_panic_boundary! {
        a2a_error_name::from_core(classify::name_of_code(code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::*;
    use crate::vocab::{a2a_channel, a2a_retry, a2a_task_state};
    use std::ptr::{null, null_mut};

    fn asked(method: &'static str) -> a2a_asked {
        a2a_asked {
            version: a2a_protocol_version::V0_3 as u32,
            binding: a2a_binding::JsonRpc as u32,
            method: method.as_ptr().cast(),
            method_len: method.len(),
            request_id: b"1".as_ptr().cast(),
            request_id_len: 1,
        }
    }

    fn response(status: u16, ct: &'static str, body: &'static [u8]) -> a2a_response {
        a2a_response {
            status,
            content_type: ct.as_ptr().cast(),
            content_type_len: ct.len(),
            retry_after: null(),
            retry_after_len: 0,
            body: body.as_ptr(),
            body_len: body.len(),
            asked: asked("message/send"),
            now_unix_seconds: 0,
        }
    }

    #[test]
    fn failed_task_with_error_id() {
        // A 0.3 JSON-RPC FAILED task as ADK writes it (docs/wire.md §8 shape, hand-written).
        let body = br#"{"jsonrpc":"2.0","id":"1","result":{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"failed","message":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"Agent execution failed. (error_id: 3f9c0a7b12de)"}]}}}}"#;
        let r = response(200, "application/json", body);
        let mut o = null_mut();
        assert_eq!(a2a_classify(&r, &mut o), a2a_result::A2A_OK);
        let i = crate::outcome::tests::info(o);
        assert_eq!(i.channel, a2a_channel::Task);
        assert!(i.has_state);
        assert_eq!(i.state, a2a_task_state::Failed as u32);
        assert!(i.terminal);
        assert_eq!(unsafe { i.error_id.as_str() }, Some("3f9c0a7b12de"));
        assert_eq!(unsafe { i.task_id.as_str() }, Some("t-1"));
        a2a_outcome_free(o);
    }

    #[test]
    fn json_rpc_error_and_bad_gateway() {
        let body =
            br#"{"jsonrpc":"2.0","id":"1","error":{"code":-32001,"message":"Task not found"}}"#;
        let r = response(200, "application/json", body);
        let mut o = null_mut();
        assert_eq!(a2a_classify(&r, &mut o), a2a_result::A2A_OK);
        let i = crate::outcome::tests::info(o);
        assert_eq!(i.channel, a2a_channel::Protocol);
        assert!(i.has_code);
        assert_eq!(i.code, -32001);
        assert_eq!(i.retry, a2a_retry::Never);
        a2a_outcome_free(o);

        let mut r = response(502, "text/html", b"<html>Bad Gateway</html>");
        r.retry_after = b"7".as_ptr().cast();
        r.retry_after_len = 1;
        let mut o = null_mut();
        assert_eq!(a2a_classify(&r, &mut o), a2a_result::A2A_OK);
        assert_eq!(crate::outcome::tests::info(o).channel, a2a_channel::Http);
        assert_eq!(
            crate::outcome::tests::error_name(o),
            Some(a2a_error_name::BadGateway)
        );
        a2a_outcome_free(o);
    }

    #[test]
    fn argument_errors() {
        let mut r = response(200, "application/json", b"{}");
        let mut o = null_mut();
        r.asked.version = 9;
        assert_eq!(a2a_classify(&r, &mut o), a2a_result::A2A_INVALID_ARGUMENT);
        r.asked.version = 0;
        r.content_type = b"\xff".as_ptr().cast();
        r.content_type_len = 1;
        assert_eq!(a2a_classify(&r, &mut o), a2a_result::A2A_INVALID_UTF8);
        r.content_type = null();
        r.content_type_len = 3;
        assert_eq!(a2a_classify(&r, &mut o), a2a_result::A2A_NULL_PARAMETER);
        assert!(o.is_null());
        assert_eq!(a2a_classify(null(), &mut o), a2a_result::A2A_NULL_PARAMETER);
    }

    #[test]
    fn error_id_and_helpers() {
        let t = "Agent execution failed. (error_id: 3f9c0a7b12de)";
        let mut v = a2a_str::NONE;
        assert_eq!(
            a2a_extract_error_id(t.as_ptr().cast(), t.len(), &mut v),
            a2a_result::A2A_OK
        );
        assert_eq!(unsafe { v.as_str() }, Some("3f9c0a7b12de"));
        assert!(
            t.as_bytes().as_ptr_range().contains(&v.ptr.cast()),
            "a view into text"
        );
        assert_eq!(
            a2a_extract_error_id(b"none".as_ptr().cast(), 4, &mut v),
            a2a_result::A2A_NONE
        );
        assert!(a2a_is_event_stream(
            b"Text/Event-Stream; charset=utf-8".as_ptr().cast(),
            32
        ));
        assert_eq!(a2a_error_name_of_code(-32001), a2a_error_name::TaskNotFound);
        assert_eq!(a2a_error_name_of_code(-1), a2a_error_name::Other);
    }
}
