//! The crate's reserved-header rule ([`crate::envelope::reserved_header`]) applied to what
//! the driver sends: after the interceptors ran (Rust interceptors and the C ABI's header
//! hooks alike), and on raw exchanges.
//!
//! Interceptors get the whole request (`&mut HttpRequest`), so the rule is checked on the
//! result rather than inside a setter: whatever way a hook wrote a header (`set_header`,
//! pushing onto `headers`), a reserved one it added or changed refuses the call before a
//! byte is sent. Removing a protocol header the builder wrote is allowed: the request stays
//! well framed and the server sees the call without it (`a2a --no-version-header` drops
//! `A2A-Version` this way to reproduce clients that omit it).

use super::exchange::HttpRequest;
use crate::envelope::{HeaderOwner, ReservedName, reserved_header};
use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};

/// The reserved headers a request carried before the interceptors ran (as built by the
/// envelope), to tell their own values from ones a hook added or changed.
pub(crate) struct Before(Vec<(String, String)>);

impl Before {
    /// Records the reserved headers of `request`.
    pub(crate) fn of(request: &HttpRequest) -> Before {
        Before(
            request
                .headers
                .iter()
                .filter(|(n, _)| reserved_header(n).is_some())
                .cloned()
                .collect(),
        )
    }

    /// Checks `request` after the interceptors: each reserved header in it must be one the
    /// builder wrote, unchanged (each builder header accounts for one copy).
    ///
    /// # Errors
    /// The `transport`/`InvalidRequest` outcome naming the first header a hook added or
    /// changed (`request_sent = no`, retry `never`).
    pub(crate) fn check(&self, request: &HttpRequest) -> Result<(), Outcome> {
        let mut unused: Vec<&(String, String)> = self.0.iter().collect();
        for (name, value) in &request.headers {
            let Some(r) = reserved_header(name) else {
                continue;
            };
            let own = unused
                .iter()
                .position(|(n, v)| n.eq_ignore_ascii_case(name) && v == value);
            match own {
                Some(i) => {
                    unused.swap_remove(i);
                }
                None => return Err(refused(name, r, "an interceptor (header hook) set it")),
            }
        }
        Ok(())
    }
}

/// Checks a raw request ([`super::Client::exchange`], [`super::Client::open_stream`]): no
/// framing or transport header (the driver's HTTP stack writes and manages those; the raw
/// caller writes the protocol ones itself).
///
/// # Errors
/// The `transport`/`InvalidRequest` outcome naming the first such header.
pub(crate) fn check_raw(request: &HttpRequest) -> Result<(), Outcome> {
    for (name, _) in &request.headers {
        if let Some(r) = reserved_header(name)
            && r.owner != HeaderOwner::Protocol
        {
            return Err(refused(name, r, "the request carries it"));
        }
    }
    Ok(())
}

/// The outcome of a refused header: nothing was sent, and the same request would be
/// refused again.
fn refused(name: &str, r: &ReservedName, how: &str) -> Outcome {
    let mut o = Outcome::transport(
        ErrorName::InvalidRequest,
        RequestSent::No,
        format!("request not sent: header {name:?} is reserved and {how}: {r}"),
    );
    o.retry = RetryAdvice::Never;
    o.hint = Some(format!(
        "the client writes {} itself; hooks and per-call headers may set credentials, tracing, routing keys and extensions, not framing, connection or protocol headers",
        r.name
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(headers: &[(&str, &str)]) -> HttpRequest {
        HttpRequest {
            method: "POST".into(),
            url: "http://127.0.0.1:1/".into(),
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            body: b"{}".to_vec(),
        }
    }

    const BUILT: [(&str, &str); 3] = [
        ("Content-Type", "application/json"),
        ("A2A-Version", "1.0"),
        (
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        ),
    ];

    #[test]
    fn added_or_changed_reserved_headers_are_refused_by_name() {
        let before = Before::of(&request(&BUILT));
        for (name, value) in [
            ("Content-Length", "0"),
            ("host", "evil.example"),
            ("A2A-Version", "0.3"),
            ("Transfer-Encoding", "chunked"),
            ("Connection", "close"),
            ("Accept", "text/html"),
        ] {
            let mut r = request(&BUILT);
            r.set_header(name, value);
            let o = before.check(&r).expect_err(name);
            assert_eq!(o.error, Some(ErrorName::InvalidRequest));
            assert_eq!(o.request_sent, Some(RequestSent::No));
            assert_eq!(o.retry, RetryAdvice::Never);
            let m = o.message.unwrap();
            assert!(m.contains(&format!("{name:?}")), "{m}");
        }
        // A second copy of a builder header, even with the same value, is an addition.
        let mut r = request(&BUILT);
        r.headers
            .push(("content-type".into(), "application/json".into()));
        assert!(before.check(&r).is_err());
    }

    #[test]
    fn caller_headers_unchanged_and_removed_protocol_headers_pass() {
        let before = Before::of(&request(&BUILT));
        let mut r = request(&BUILT);
        r.set_header("Authorization", "Bearer t");
        r.set_header(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
        );
        r.set_header("A2A-Extensions", "https://ext.example/v1");
        r.set_header("content-type", "application/json"); // same value: not an override
        assert!(before.check(&r).is_ok());
        r.remove_header("A2A-Version");
        assert!(before.check(&r).is_ok());
    }

    #[test]
    fn raw_requests_may_carry_protocol_headers_but_not_framing_or_transport() {
        let ok = request(&[("Accept", "text/event-stream"), ("A2A-Version", "1.0")]);
        assert!(check_raw(&ok).is_ok());
        for name in [
            "Content-Length",
            "Transfer-Encoding",
            "Host",
            "Upgrade",
            "Expect",
        ] {
            assert!(check_raw(&request(&[(name, "x")])).is_err(), "{name}");
        }
    }
}
