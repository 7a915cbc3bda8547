//! The crate's reserved-header rule ([`crate::envelope::reserved_header`]) applied to raw
//! exchanges. Requests the machine builds pass the rule there (`client::request`: the
//! headers hooks add, and the edits interceptors make, checked before anything is sent);
//! streams, still prepared by the driver, use that same check (`crate::client`'s `Before`).

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
