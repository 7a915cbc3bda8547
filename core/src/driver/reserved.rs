//! The crate's reserved-header rule ([`crate::envelope::reserved_header`]) applied to raw
//! exchanges. Requests the machine builds pass the rule there (`client::request`: the
//! headers hooks add, and the edits interceptors make, checked before anything is sent);
//! streams, still prepared by the driver, use that same check ([`crate::client::Before`]).

use super::exchange::HttpRequest;
use crate::client::refused;
use crate::envelope::{HeaderOwner, reserved_header};
use crate::outcome::Outcome;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Before;
    use crate::outcome::{ErrorName, RequestSent, RetryAdvice};

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
        let before = Before::of(&request(&BUILT).headers);
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
            let o = before.check(&r.headers).expect_err(name);
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
        assert!(before.check(&r.headers).is_err());
    }

    #[test]
    fn caller_headers_unchanged_and_removed_protocol_headers_pass() {
        let before = Before::of(&request(&BUILT).headers);
        let mut r = request(&BUILT);
        r.set_header("Authorization", "Bearer t");
        r.set_header(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
        );
        r.set_header("A2A-Extensions", "https://ext.example/v1");
        r.set_header("content-type", "application/json"); // same value: not an override
        assert!(before.check(&r.headers).is_ok());
        r.remove_header("A2A-Version");
        assert!(before.check(&r.headers).is_ok());
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
