//! Serializing a request as HTTP/1.1 bytes.
//!
//! The request comes in as plain values (method, target, host, headers, body), the shape the
//! envelope builders produce. Every byte that could change the framing is checked before
//! anything is written: header names must be tokens, values must not hold CR, LF, NUL or other
//! controls (header injection), and the framing headers (`Host`, `Content-Length`,
//! `Transfer-Encoding`) are written by the serializer only.

use super::error::RequestError;
use crate::envelope::{HeaderOwner, Request, reserved_header};
use crate::url::Url;

/// `tchar` of RFC 9110 §5.6.2: the characters allowed in a token (method, header name).
pub(crate) fn is_tchar(b: u8) -> bool {
    matches!(b,
        b'!' | b'#' | b'$' | b'%' | b'&' | b'\'' | b'*' | b'+' | b'-' | b'.' | b'^' | b'_' | b'`'
        | b'|' | b'~' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z')
}

/// True when `s` is a non-empty RFC 9110 token.
pub(crate) fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_tchar)
}

/// A field value after trimming: `VCHAR / obs-text / SP / HTAB` only (RFC 9110 §5.5).
fn valid_field_value(v: &str) -> bool {
    v.bytes().all(|b| b == b'\t' || (b >= 0x20 && b != 0x7f))
}

fn valid_target(t: &str) -> bool {
    let visible = !t.is_empty() && t.bytes().all(|b| (0x21..=0x7e).contains(&b) && b != b'#');
    visible
        && (t.starts_with('/') || t == "*" || t.starts_with("http://") || t.starts_with("https://"))
}

pub(crate) fn valid_host(h: &str) -> bool {
    !h.is_empty()
        && h.bytes()
            .all(|b| (0x21..=0x7e).contains(&b) && !matches!(b, b'/' | b'?' | b'#' | b'@' | b'\\'))
}

/// Methods whose requests are expected to carry a body: they always get a
/// `Content-Length` (RFC 9110 §8.6), even `0`.
fn expects_body(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "PATCH")
}

/// Writes the request line and header block of an HTTP/1.1 request into `out`, for a body
/// of `body_len` bytes that the caller sends right after (e.g. with a vectored write).
///
/// Written, in order: `METHOD target HTTP/1.1`, `Host`, the caller's headers in the caller's
/// order (values trimmed of surrounding spaces and tabs), `Content-Length` (when the body is
/// non-empty or the method is POST, PUT or PATCH), and the empty line.
///
/// Returns the number of bytes appended.
///
/// # Errors
/// A [`RequestError`] naming the first offending part; `out` is left exactly as it was.
pub fn write_request_head<N: AsRef<str>, V: AsRef<str>>(
    out: &mut Vec<u8>,
    method: &str,
    target: &str,
    host: &str,
    headers: &[(N, V)],
    body_len: usize,
) -> Result<usize, RequestError> {
    if !is_token(method) {
        return Err(RequestError::Method);
    }
    if !valid_target(target) {
        return Err(RequestError::Target);
    }
    if !valid_host(host) {
        return Err(RequestError::Host);
    }
    for (index, (name, value)) in headers.iter().enumerate() {
        let name = name.as_ref();
        if !is_token(name) {
            return Err(RequestError::HeaderName { index });
        }
        // The framing names of the crate's one reserved-header list; the transport ones
        // (`Connection`, ...) belong to this serializer's caller, who owns the connection.
        if reserved_header(name).is_some_and(|r| r.owner == HeaderOwner::Framing) {
            return Err(RequestError::ReservedHeader { index });
        }
        if !valid_field_value(value.as_ref()) {
            return Err(RequestError::HeaderValue { index });
        }
    }
    let start = out.len();
    out.extend_from_slice(method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(target.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\nHost: ");
    out.extend_from_slice(host.as_bytes());
    out.extend_from_slice(b"\r\n");
    for (name, value) in headers {
        out.extend_from_slice(name.as_ref().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_ref().trim_matches([' ', '\t']).as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    if body_len > 0 || expects_body(method) {
        out.extend_from_slice(b"Content-Length: ");
        out.extend_from_slice(body_len.to_string().as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    Ok(out.len() - start)
}

/// Writes a whole HTTP/1.1 request (head as in [`write_request_head`], then `body`) into
/// `out` and returns the number of bytes appended.
///
/// # Errors
/// A [`RequestError`] naming the first offending part; `out` is left exactly as it was.
pub fn write_request<N: AsRef<str>, V: AsRef<str>>(
    out: &mut Vec<u8>,
    method: &str,
    target: &str,
    host: &str,
    headers: &[(N, V)],
    body: &[u8],
) -> Result<usize, RequestError> {
    let head = write_request_head(out, method, target, host, headers, body.len())?;
    out.extend_from_slice(body);
    Ok(head + body.len())
}

/// The origin-form request target for `relative` (an envelope path: empty for JSON-RPC,
/// `/…` for HTTP+JSON) under the interface URL `url`: the URL's path joined as in
/// [`join_target`], and the URL's own query (rare) kept, joined with `&` to a query in
/// `relative`.
pub fn interface_target(url: &Url, relative: &str) -> String {
    let (rel_path, rel_query) = match relative.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (relative, None),
    };
    let mut target = join_target(url.path(), rel_path);
    match (url.query().filter(|q| !q.is_empty()), rel_query) {
        (Some(a), Some(b)) => {
            target.push('?');
            target.push_str(a);
            target.push('&');
            target.push_str(b);
        }
        (Some(q), None) | (None, Some(q)) => {
            target.push('?');
            target.push_str(q);
        }
        (None, None) => {}
    }
    target
}

/// Serializes a request built by [`crate::envelope::build`] for the interface at `url`
/// (the validated URL from [`crate::card::AgentCard::resolve`]): target from
/// [`interface_target`], `Host` from [`Url::authority`], then as [`write_request`].
///
/// # Errors
/// As [`write_request`]; `out` is left exactly as it was.
pub fn write_envelope_request(
    out: &mut Vec<u8>,
    request: &Request,
    url: &Url,
) -> Result<usize, RequestError> {
    write_request(
        out,
        request.method.as_str(),
        &interface_target(url, &request.path),
        &url.authority(),
        &request.headers,
        &request.body,
    )
}

/// Joins the path of an interface URL (`base_path`, e.g. `/a2a/v1` or `/a2a/v1/`) and a path
/// relative to it (`relative`, e.g. `message:send`, `/tasks/t1?historyLength=2`, or empty)
/// into an origin-form request target, keeping the base path and using exactly one `/`
/// between the two. A relative part starting with `?` is appended as a query.
pub fn join_target(base_path: &str, relative: &str) -> String {
    let base = base_path.trim_end_matches('/');
    let mut out = String::with_capacity(base.len() + relative.len() + 2);
    if !base.starts_with('/') {
        out.push('/');
    }
    out.push_str(base);
    // `out` now starts with '/' and has no trailing '/' unless it is exactly "/".
    let had_slash = base_path.ends_with('/');
    if relative.is_empty() || relative.starts_with('?') {
        if had_slash && !out.ends_with('/') {
            out.push('/');
        }
        out.push_str(relative);
        return out;
    }
    if !out.ends_with('/') {
        out.push('/');
    }
    out.push_str(relative.trim_start_matches('/'));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(
        method: &str,
        target: &str,
        host: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Vec<u8>, RequestError> {
        let mut out = b"keep".to_vec();
        let r = write_request(&mut out, method, target, host, headers, body);
        match r {
            Ok(n) => {
                assert_eq!(n, out.len() - 4);
                assert_eq!(&out[..4], b"keep");
                Ok(out[4..].to_vec())
            }
            Err(e) => {
                assert_eq!(out, b"keep", "nothing written on error");
                Err(e)
            }
        }
    }

    #[test]
    fn post_with_body() {
        let out = write(
            "POST",
            "/a2a/v1",
            "agent.example.com",
            &[
                ("Content-Type", "application/json"),
                ("A2A-Version", " 1.0\t"),
            ],
            b"{}",
        )
        .unwrap();
        assert_eq!(
            out,
            b"POST /a2a/v1 HTTP/1.1\r\nHost: agent.example.com\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: 2\r\n\r\n{}"
        );
    }

    #[test]
    fn get_without_body_has_no_content_length_but_post_has_zero() {
        let out = write("GET", "/tasks/t1?historyLength=2", "h:8080", &[], b"").unwrap();
        assert_eq!(
            out,
            b"GET /tasks/t1?historyLength=2 HTTP/1.1\r\nHost: h:8080\r\n\r\n"
        );
        let out = write("POST", "/", "h", &[], b"").unwrap();
        assert!(out.ends_with(b"Content-Length: 0\r\n\r\n"));
    }

    #[test]
    fn header_injection_is_refused() {
        for bad in ["a\r\nX-Evil: 1", "a\nb", "a\rb", "a\0b", "a\x7fb", "a\x01b"] {
            assert_eq!(
                write("POST", "/", "h", &[("Ok", "x"), ("X", bad)], b""),
                Err(RequestError::HeaderValue { index: 1 }),
                "{bad:?}"
            );
        }
        for bad in ["", "X Y", "X:Y", "X\r\nY", "Ä", "X\"", "(x)"] {
            assert_eq!(
                write("POST", "/", "h", &[(bad, "v")], b""),
                Err(RequestError::HeaderName { index: 0 }),
                "{bad:?}"
            );
        }
        // obs-text and tabs inside a value are legal.
        assert!(write("GET", "/", "h", &[("X", "caf\u{e9}\tok")], b"").is_ok());
    }

    #[test]
    fn framing_headers_belong_to_the_serializer() {
        for name in ["Host", "content-length", "Transfer-Encoding"] {
            assert_eq!(
                write("POST", "/", "h", &[(name, "1")], b""),
                Err(RequestError::ReservedHeader { index: 0 })
            );
        }
    }

    #[test]
    fn method_target_and_host_are_checked() {
        assert_eq!(write("", "/", "h", &[], b""), Err(RequestError::Method));
        assert_eq!(write("GE T", "/", "h", &[], b""), Err(RequestError::Method));
        assert_eq!(
            write("GET\r\n", "/", "h", &[], b""),
            Err(RequestError::Method)
        );
        for t in [
            "",
            "a",
            "/a b",
            "/a\r\nX: y",
            "/#frag",
            "/\u{e9}",
            "ftp://x/",
        ] {
            assert_eq!(
                write("GET", t, "h", &[], b""),
                Err(RequestError::Target),
                "{t:?}"
            );
        }
        assert!(write("GET", "https://h/x", "h", &[], b"").is_ok());
        for h in ["", "a b", "h/x", "u@h", "h\r\n", "a\\b"] {
            assert_eq!(
                write("GET", "/", h, &[], b""),
                Err(RequestError::Host),
                "{h:?}"
            );
        }
        assert!(write("GET", "/", "[::1]:8080", &[], b"").is_ok());
    }

    #[test]
    fn envelope_requests_are_written_under_the_interface_url() {
        use crate::envelope::{CallOptions, Interface, RpcId, build};
        use crate::model::params::{Call, TaskIdParams};
        use crate::version::{Binding, ProtocolVersion};
        let url = Url::parse("https://Agent.Example.com:8443/a2a/rest/").unwrap();
        let mut iface = Interface::new(ProtocolVersion::V1_0, Binding::HttpJson);
        iface.tenant = Some("acme".into());
        let call = Call::CancelTask(TaskIdParams::new("t/1"));
        let opts = CallOptions {
            headers: &[("Authorization", "Bearer x")],
            ..CallOptions::with_id(RpcId::Number(1))
        };
        let req = build(&iface, &call, &opts).unwrap();
        let mut out = Vec::new();
        let n = write_envelope_request(&mut out, &req, &url).unwrap();
        assert_eq!(n, out.len());
        let text = String::from_utf8(out).unwrap();
        let head = text.split("\r\n\r\n").next().unwrap();
        assert!(
            head.starts_with("POST /a2a/rest/acme/tasks/t%2F1:cancel HTTP/1.1\r\nHost: agent.example.com:8443\r\n"),
            "{head}"
        );
        assert!(head.contains("\r\nA2A-Version: 1.0\r\n"), "{head}");
        assert!(head.contains("\r\nAuthorization: Bearer x\r\n"), "{head}");
        assert!(text.ends_with(std::str::from_utf8(&req.body).unwrap()));

        // JSON-RPC posts to the interface URL itself.
        let rpc = Interface::new(ProtocolVersion::V0_3, Binding::JsonRpc);
        let req = build(&rpc, &call, &CallOptions::with_id(RpcId::Number(7))).unwrap();
        let mut out = Vec::new();
        write_envelope_request(
            &mut out,
            &req,
            &Url::parse("http://127.0.0.1:18901/").unwrap(),
        )
        .unwrap();
        assert!(out.starts_with(b"POST / HTTP/1.1\r\nHost: 127.0.0.1:18901\r\n"));
    }

    #[test]
    fn interface_target_merges_queries() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert_eq!(
            interface_target(&u("https://h/rest"), "/tasks?a=1"),
            "/rest/tasks?a=1"
        );
        assert_eq!(
            interface_target(&u("https://h/rest?k=v"), "/tasks?a=1"),
            "/rest/tasks?k=v&a=1"
        );
        assert_eq!(interface_target(&u("https://h/rpc?k=v"), ""), "/rpc?k=v");
        assert_eq!(interface_target(&u("https://h"), ""), "/");
    }

    #[test]
    fn join_target_keeps_the_base_path() {
        assert_eq!(
            join_target("/a2a/v1", "message:send"),
            "/a2a/v1/message:send"
        );
        assert_eq!(
            join_target("/a2a/v1/", "/message:send"),
            "/a2a/v1/message:send"
        );
        assert_eq!(join_target("", "tasks/t1"), "/tasks/t1");
        assert_eq!(join_target("/", "tasks/t1"), "/tasks/t1");
        assert_eq!(join_target("/rpc", ""), "/rpc");
        assert_eq!(join_target("/rpc/", ""), "/rpc/");
        assert_eq!(join_target("", ""), "/");
        assert_eq!(join_target("/rest", "?a=1"), "/rest?a=1");
        assert_eq!(join_target("", "?a=1"), "/?a=1");
        assert_eq!(join_target("/rest/", "?a=1"), "/rest/?a=1");
    }
}
