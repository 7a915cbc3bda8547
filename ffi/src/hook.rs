//! Header hooks: a C callback that adds headers (credentials, routing keys) to every A2A
//! request a client makes, with the one reserved-header rule applied to what it sets. The
//! same callback type serves the client machine (`a2a_client_state_add_header_hook`) and
//! the reference driver (`a2a_client_add_header_hook`).

use std::ffi::{c_char, c_void};

use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::try_str;

/// A callback adding headers to every A2A request of a client (credentials,
/// `traceparent`, routing keys): `userdata` first (as given when the hook was added), then
/// the method name (`SendMessage`, `GetTask`, ...; borrowed for the call), then a setter
/// valid only during the callback. It runs on the thread that asks for the request
/// (`a2a_call_poll_transmit` on the machine, the calling thread on the driver); it is never
/// called for the card fetch or redirects, and must not call back into the library for the
/// same client.
pub type a2a_header_hook = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        method: *const c_char,
        method_len: usize,
        setter: *mut a2a_header_setter,
    ),
>;

/// Passed to an `a2a_header_hook`; valid only during the callback.
pub struct a2a_header_setter {
    /// The header list the hook adds to: the built request's (driver) or the list of added
    /// headers (machine). Lives exactly as long as the callback.
    headers: *mut Vec<(String, String)>,
}

/// Sets header `name` to `value` (UTF-8, copied), replacing any header of that name.
///
/// Reserved headers are the client's own: framing (`Host`, `Content-Length`,
/// `Transfer-Encoding`), connection management (`Connection`, `Keep-Alive`,
/// `Proxy-Connection`, `TE`, `Trailer`, `Upgrade`, `Expect`) and protocol headers
/// (`A2A-Version`, `Content-Type`, `Accept`). Setting one returns
/// `A2A_REQUEST_RESERVED_HEADER`, and the call this hook runs for is refused without being
/// sent: its outcome is `transport`/`InvalidRequest` (`request_sent = no`, retry `never`),
/// its message names the header. `Authorization`, `traceparent`, `Idempotency-Key`,
/// `A2A-Extensions` and routing keys may be set.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (a name that is
/// not a token, or a value with CR, LF or NUL: header injection refused),
/// `A2A_REQUEST_RESERVED_HEADER` (a reserved name, above).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_header_setter_set(
    setter: *mut a2a_header_setter,
    name: *const c_char,
    name_len: usize,
    value: *const c_char,
    value_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        if setter.is_null() {
            return a2a_result::A2A_NULL_PARAMETER;
        }
        let name = try_str!(name, name_len);
        let value = try_str!(value, value_len);
        let reserved = match a2a::envelope::check_header(name, value) {
            Ok(()) => false,
            Err(a2a::envelope::BuildError::ReservedHeader(_)) => true,
            Err(_) => return a2a_result::A2A_INVALID_ARGUMENT,
        };
        // SAFETY: the setter only exists during the hook, while its header list is
        // borrowed mutably by the library for exactly that call.
        let headers = unsafe { &mut *(*setter).headers };
        if reserved {
            // Kept as an added header (not replacing the client's own), so that the
            // reserved-header rule, checked after the hooks ran, refuses the call whatever
            // the value: a hook that ignores this result still sends nothing it did not mean.
            headers.push((name.to_owned(), value.to_owned()));
            return a2a_result::A2A_REQUEST_RESERVED_HEADER;
        }
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        headers.push((name.to_owned(), value.to_owned()));
        a2a_result::A2A_OK
    }
}

/// A hook and its userdata, shared with the threads that make calls.
pub(crate) struct Hook {
    f: unsafe extern "C" fn(*mut c_void, *const c_char, usize, *mut a2a_header_setter),
    userdata: *mut c_void,
}

// SAFETY: the header documents that the hook may run on any thread that makes a call on
// the client and that the caller keeps `userdata` valid and usable from those threads.
unsafe impl Send for Hook {}
// SAFETY: as above; the library never touches `userdata` itself.
unsafe impl Sync for Hook {}

impl Hook {
    /// The hook of a non-NULL callback.
    pub(crate) fn new(hook: a2a_header_hook, userdata: *mut c_void) -> Option<Hook> {
        hook.map(|f| Hook { f, userdata })
    }

    /// Runs the callback for `method`, letting it set headers in `headers`.
    pub(crate) fn run(&self, method: &str, headers: &mut Vec<(String, String)>) {
        let mut setter = a2a_header_setter {
            headers: headers as *mut Vec<(String, String)>,
        };
        // SAFETY: the callback contract is documented on a2a_header_hook; the method text
        // and the setter outlive the call.
        unsafe {
            (self.f)(
                self.userdata,
                method.as_ptr().cast(),
                method.len(),
                &mut setter,
            )
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn sets_two(
        _: *mut c_void,
        _: *const c_char,
        _: usize,
        s: *mut a2a_header_setter,
    ) {
        assert_eq!(
            a2a_header_setter_set(s, b"X-Key".as_ptr().cast(), 5, b"a".as_ptr().cast(), 1),
            a2a_result::A2A_OK
        );
        assert_eq!(
            a2a_header_setter_set(s, b"x-key".as_ptr().cast(), 5, b"b".as_ptr().cast(), 1),
            a2a_result::A2A_OK
        );
        assert_eq!(
            a2a_header_setter_set(s, b"Bad Name".as_ptr().cast(), 8, b"v".as_ptr().cast(), 1),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        assert_eq!(
            a2a_header_setter_set(s, b"Host".as_ptr().cast(), 4, b"evil".as_ptr().cast(), 4),
            a2a_result::A2A_REQUEST_RESERVED_HEADER
        );
    }

    #[test]
    fn a_setter_replaces_by_name_and_keeps_reserved_ones_for_the_rule() {
        let hook = Hook::new(Some(sets_two), std::ptr::null_mut()).expect("non-NULL");
        let mut headers = vec![("X-Other".to_owned(), "1".to_owned())];
        hook.run("SendMessage", &mut headers);
        assert_eq!(
            headers,
            [
                ("X-Other".to_owned(), "1".to_owned()),
                ("x-key".to_owned(), "b".to_owned()),
                ("Host".to_owned(), "evil".to_owned()),
            ]
        );
        assert_eq!(
            a2a_header_setter_set(
                std::ptr::null_mut(),
                std::ptr::null(),
                0,
                std::ptr::null(),
                0
            ),
            a2a_result::A2A_NULL_PARAMETER
        );
    }
}
