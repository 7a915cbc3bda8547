//! The one list of header names a caller may not set, and why.
//!
//! A request's framing, its connection management and its protocol headers are written by
//! this crate (or by the HTTP stack driving it) from the body, the URL and the chosen
//! interface. A caller's copy of one of them can only disagree with what is written (or
//! duplicate it), and a disagreement is never harmless: `Content-Length: 0` silently drops
//! the body, a second `Host` routes credentials to another virtual host than the one the
//! card was validated for, `Transfer-Encoding` is the classic request-smuggling ambiguity
//! (RFC 9112 §6.3, §11.2), and a different `A2A-Version` makes the server read the body in
//! another version's schema.
//!
//! Every way a caller adds headers is checked against this one list: per-call headers
//! ([`super::check_header`], which [`super::build`] and the `a2a` CLI's `--header` use), the
//! driver's interceptors and the C ABI's header hooks (every binding's hooks run through
//! them), and the driver's raw exchanges (framing and transport names only: the raw caller
//! builds the rest itself). The sans-IO serializer (`http1::write_request`) refuses the
//! [`HeaderOwner::Framing`] names, the ones it writes; the connection is its caller's.
//!
//! The list follows RFC 9110 and RFC 9112 and what the stricter HTTP libraries enforce:
//! h11 refuses any body that disagrees with the framing headers, and RFC 9110 §7.6.1 names
//! the connection-specific fields (`Connection`, `Proxy-Connection`, `Keep-Alive`, `TE`,
//! `Transfer-Encoding`, `Upgrade`) that belong to one hop, i.e. to the code managing the
//! connection. curl lets `-H` replace its own headers, warning that this breaks requests
//! unless one knows exactly what one does; a library that decides resends from what it
//! wrote cannot afford that, so here they are refused with a typed error instead.
//!
//! Not reserved: `Authorization`, `traceparent`, `Idempotency-Key`, routing keys, and
//! `A2A-Extensions` / `X-A2A-Extensions` (the caller's choice of extensions; the builder
//! refuses them only next to its own `extensions` option, which writes the same header).

use std::fmt;

/// Who writes a reserved header, which decides who refuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderOwner {
    /// Message framing, written by the serializer from the URL and the body: `Host`,
    /// `Content-Length`, `Transfer-Encoding`. Refused everywhere, the sans-IO serializer
    /// included.
    Framing,
    /// Connection management and message controls, owned by whoever holds the connection
    /// (the driver's pool): `Connection`, `Keep-Alive`, `Proxy-Connection`, `TE`, `Trailer`,
    /// `Upgrade`, `Expect`. Refused on every request the driver sends and by the envelope.
    Transport,
    /// A2A protocol headers the envelope writes for the interface's version and binding:
    /// `A2A-Version`, `Content-Type`, `Accept`. Refused in per-call headers and hooks; a
    /// raw exchange builds its own.
    Protocol,
}

impl HeaderOwner {
    /// A short name for messages: `framing`, `transport` or `protocol`.
    pub fn as_str(self) -> &'static str {
        match self {
            HeaderOwner::Framing => "framing",
            HeaderOwner::Transport => "transport",
            HeaderOwner::Protocol => "protocol",
        }
    }
}

/// One reserved header: its canonical name, its owner and why a caller may not set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReservedName {
    /// The canonical spelling (`Content-Length`); names compare case-insensitively.
    pub name: &'static str,
    /// Who writes it.
    pub owner: HeaderOwner,
    /// Why a caller's value would break the request (one clause, for messages).
    pub why: &'static str,
}

impl fmt::Display for ReservedName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is a {} header: {}",
            self.name,
            self.owner.as_str(),
            self.why
        )
    }
}

const fn entry(name: &'static str, owner: HeaderOwner, why: &'static str) -> ReservedName {
    ReservedName { name, owner, why }
}

/// The list. Kept short on purpose: only what the client writes or must control.
const RESERVED: [ReservedName; 13] = [
    entry(
        "Host",
        HeaderOwner::Framing,
        "written from the URL the request goes to (RFC 9110 §7.2); another value would reach a different virtual host than the validated one",
    ),
    entry(
        "Content-Length",
        HeaderOwner::Framing,
        "written from the body (RFC 9112 §6.2); another value cuts the body (0 drops it) or runs into the next request",
    ),
    entry(
        "Transfer-Encoding",
        HeaderOwner::Framing,
        "bodies are sent with a Content-Length; a transfer coding next to it makes the framing ambiguous (RFC 9112 §6.1, §6.3: request smuggling)",
    ),
    entry(
        "Connection",
        HeaderOwner::Transport,
        "connection options belong to the connection's owner (RFC 9110 §7.6.1); it can also name other headers for proxies to drop",
    ),
    entry(
        "Keep-Alive",
        HeaderOwner::Transport,
        "a connection-specific field (RFC 9110 §7.6.1); the client's pool decides reuse",
    ),
    entry(
        "Proxy-Connection",
        HeaderOwner::Transport,
        "a connection-specific field (RFC 9110 §7.6.1, RFC 9112 appendix C.2.2); the client's pool decides reuse",
    ),
    entry(
        "TE",
        HeaderOwner::Transport,
        "asks for transfer codings or trailers in the response (RFC 9110 §10.1.4) that the client does not ask for",
    ),
    entry(
        "Trailer",
        HeaderOwner::Transport,
        "announces fields after a chunked body (RFC 9110 §6.6.2); request bodies here have none",
    ),
    entry(
        "Upgrade",
        HeaderOwner::Transport,
        "asks the server to switch protocols (RFC 9110 §7.8); the client never upgrades and refuses a 101",
    ),
    entry(
        "Expect",
        HeaderOwner::Transport,
        "changes when the body is sent (RFC 9110 §10.1.1: 100-continue), which is the transport's decision",
    ),
    entry(
        "A2A-Version",
        HeaderOwner::Protocol,
        "written for the interface's protocol version; the body was built for that version (docs/wire.md)",
    ),
    entry(
        "Content-Type",
        HeaderOwner::Protocol,
        "the media type of the body the envelope wrote (RFC 9110 §8.3)",
    ),
    entry(
        "Accept",
        HeaderOwner::Protocol,
        "written for the answer the call expects (text/event-stream on streams)",
    ),
];

/// The reserved entry for header `name` (case-insensitive), or `None` when a caller may
/// set it.
pub fn reserved_header(name: &str) -> Option<&'static ReservedName> {
    RESERVED.iter().find(|r| r.name.eq_ignore_ascii_case(name))
}

/// Every reserved header, in the order of [`HeaderOwner`].
pub fn reserved_headers() -> &'static [ReservedName] {
    &RESERVED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_case_insensitively_with_their_owner() {
        let owner = |n: &str| reserved_header(n).map(|r| r.owner);
        assert_eq!(owner("content-length"), Some(HeaderOwner::Framing));
        assert_eq!(owner("HOST"), Some(HeaderOwner::Framing));
        assert_eq!(owner("Transfer-Encoding"), Some(HeaderOwner::Framing));
        for n in [
            "connection",
            "Keep-Alive",
            "proxy-connection",
            "te",
            "Trailer",
            "upgrade",
            "Expect",
        ] {
            assert_eq!(owner(n), Some(HeaderOwner::Transport), "{n}");
        }
        for n in ["a2a-version", "Content-Type", "accept"] {
            assert_eq!(owner(n), Some(HeaderOwner::Protocol), "{n}");
        }
    }

    #[test]
    fn the_callers_headers_stay_settable() {
        for n in [
            "Authorization",
            "traceparent",
            "tracestate",
            "Idempotency-Key",
            "A2A-Extensions",
            "X-A2A-Extensions",
            "X-Route",
            "Accept-Encoding",
            "User-Agent",
            "Content-Lengths",
            "Hosts",
        ] {
            assert_eq!(reserved_header(n), None, "{n}");
        }
    }

    #[test]
    fn the_message_names_the_header_and_why() {
        let r = reserved_header("content-length").unwrap();
        let text = r.to_string();
        assert!(
            text.starts_with("Content-Length is a framing header: "),
            "{text}"
        );
        assert!(text.contains("0 drops it"), "{text}");
        assert!(
            reserved_headers()
                .windows(2)
                .all(|w| (w[0].owner as u8) <= (w[1].owner as u8))
        );
    }
}
