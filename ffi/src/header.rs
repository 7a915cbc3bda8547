//! `a2a_header`: how a caller passes HTTP headers in. (The HTTP/1.1 serializer and response
//! reader `a2a_http1_*` are gone from the C ABI: the client machine hands out each request
//! and takes the response in pieces from whatever HTTP stack the caller runs; see
//! `CHANGELOG.md`. The core's `http1` module still has both.)

use std::ffi::c_char;

use crate::result::a2a_result;
use crate::view::input_str;

/// One HTTP header a caller passes in (the machine's header hooks, server replies, trust
/// fetches): UTF-8 name and value, read during the call only.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_header {
    /// The field name.
    pub name: *const c_char,
    /// Length of `name` in bytes.
    pub name_len: usize,
    /// The field value.
    pub value: *const c_char,
    /// Length of `value` in bytes.
    pub value_len: usize,
}

/// Reads `n` C headers as (name, value) pairs.
///
/// # Safety
/// `headers` must point to `n` readable `a2a_header`s whose pointers are valid inputs.
#[cfg_attr(
    not(any(feature = "client", feature = "server", feature = "trust")),
    allow(dead_code, reason = "the core tier takes no headers")
)]
pub(crate) unsafe fn headers_from<'a>(
    headers: *const a2a_header,
    n: usize,
) -> Result<Vec<(&'a str, &'a str)>, a2a_result> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if headers.is_null() {
        return Err(a2a_result::A2A_NULL_PARAMETER);
    }
    if n > isize::MAX as usize / std::mem::size_of::<a2a_header>() {
        return Err(a2a_result::A2A_INVALID_ARGUMENT);
    }
    // SAFETY: non-NULL, size checked, readability guaranteed by the caller.
    let hs = unsafe { std::slice::from_raw_parts(headers, n) };
    hs.iter()
        // SAFETY: forwarded contract.
        .map(|h| unsafe {
            Ok((
                input_str(h.name, h.name_len)?,
                input_str(h.value, h.value_len)?,
            ))
        })
        .collect()
}
