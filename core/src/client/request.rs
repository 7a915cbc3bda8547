//! What the machine hands the host to perform ([`Transmit`]), what the host reports when the
//! transport fails ([`TransportFailure`]), and the header hooks with the one rule every
//! added header passes.

use crate::card::{Credential, CredentialPlan};
use crate::envelope::HttpMethod;
use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};
use crate::time::Millis;

use super::Target;

/// Names one HTTP request a machine handed out (attempts count from 1). Inputs carry it so
/// that a late input about an abandoned request is told apart from the current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub(crate) u32);

impl RequestId {
    /// The attempt this request is (1 for the first).
    pub fn attempt(self) -> u32 {
        self.0
    }
}

/// One HTTP request as the host must send it: an owned, plain value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// `GET`, `POST` or `DELETE`.
    pub method: HttpMethod,
    /// The absolute URL (the interface URL joined with the envelope's path).
    pub url: String,
    /// Headers in order; send each one (names compare case-insensitively).
    pub headers: Vec<(String, String)>,
    /// The body (empty for `GET` and `DELETE`).
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// The first value of `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A request to perform, with its deadlines on the host's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Which request this is; pass it back with every input about it.
    pub id: RequestId,
    /// The request.
    pub request: HttpRequest,
    /// The connection must be up by then (the host enforces it and reports a connect
    /// timeout as a failure with `written = false`).
    pub connect_by: Millis,
    /// The whole exchange, body included, must be over by then (the machine enforces it
    /// through [`super::UnaryCall::handle_timeout`]).
    pub deadline: Millis,
}

/// A transport failure the host reports ([`super::UnaryCall::handle_failure`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TransportFailure {
    pub(crate) outcome: Outcome,
}

impl TransportFailure {
    /// A failure of kind `error` (`Dns`, `ConnectFailed`, `Tls`, `Reset`, `Timeout`, ...);
    /// `written` says whether any request byte may have reached the server (when in doubt,
    /// `true`: a request that may have arrived is never resent without an idempotency key).
    pub fn new(error: ErrorName, written: bool, message: impl Into<String>) -> TransportFailure {
        let sent = if written {
            RequestSent::Unknown
        } else {
            RequestSent::No
        };
        TransportFailure {
            outcome: Outcome::transport(error, sent, message),
        }
    }

    /// A failure the host has already described as a `transport` outcome (with the reason
    /// and hint its stack can give, such as which certificate check failed). An outcome of
    /// another channel is turned into a `transport`/`Reset` with `request_sent = unknown`.
    /// A `malformed` outcome is kept as well: the host's word for a body it could not
    /// decode (a `Content-Encoding` it does not speak).
    pub fn from_outcome(outcome: Outcome) -> TransportFailure {
        if matches!(
            outcome.channel,
            crate::outcome::Channel::Transport | crate::outcome::Channel::Malformed
        ) {
            return TransportFailure { outcome };
        }
        TransportFailure::new(
            ErrorName::Reset,
            true,
            outcome
                .message
                .unwrap_or_else(|| "transport failure".to_owned()),
        )
    }
}

/// What a header hook sees about the request being made.
#[derive(Debug)]
pub struct RequestContext<'a> {
    /// The A2A method (`SendMessage`, `GetTask`, ...).
    pub method: &'static str,
    /// The interface the request goes to (the only host credentials may be sent to).
    pub target: &'a Target,
    /// Which attempt this request is (1 for the first).
    pub attempt: u32,
}

/// An ordered request hook: adds headers (credentials, routing keys) to every request the
/// machines of a [`super::ClientState`] hand out. A header it adds replaces an earlier one
/// of the same name, and each passes the reserved-header rule.
pub trait HeaderHook: Send {
    /// Pushes the headers to add onto `add`.
    fn headers(&mut self, ctx: &RequestContext<'_>, add: &mut Vec<(String, String)>);

    /// Edits the built request's headers, after every hook's [`HeaderHook::headers`] and
    /// before the credential check (the reference driver's interceptors run here). The
    /// default does nothing. A reserved header (see [`crate::envelope::reserved_header`])
    /// the edit adds or changes refuses the request, unsent; removing one the envelope
    /// wrote is allowed (a client that omits `A2A-Version`, for compatibility tests).
    fn edit(&mut self, ctx: &RequestContext<'_>, request: &mut HttpRequest) {
        let _ = (ctx, request);
    }

    /// Whether [`HeaderHook::edit`] may change the next request. When no hook says so the
    /// machine calls no edit and skips the reserved-header bookkeeping around them (a copy
    /// of the reserved headers per request). The default says yes; a hook whose `edit` does
    /// nothing at the moment (the driver's, with no interceptor) says no.
    fn edits(&self) -> bool {
        true
    }
}

impl<F> HeaderHook for F
where
    F: FnMut(&RequestContext<'_>, &mut Vec<(String, String)>) + Send,
{
    fn headers(&mut self, ctx: &RequestContext<'_>, add: &mut Vec<(String, String)>) {
        self(ctx, add)
    }
}

/// Sets `name` to `value` in `headers`, replacing every earlier header of that name.
pub(crate) fn set_header(headers: &mut Vec<(String, String)>, name: String, value: String) {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
    headers.push((name, value));
}

/// THE RESERVED-HEADER RULE: the single place where every header added to a request (the
/// call's own, `traceparent`, `Idempotency-Key`, and every hook's) is checked before the
/// request is built, with the envelope's [`crate::envelope::check_header`]: tokens only, no
/// CR/LF/NUL, and none of the one list of reserved names
/// ([`crate::envelope::reserved_header`]: framing, transport and protocol headers), the
/// same rule the driver's interceptors and the C ABI's hooks follow.
///
/// # Errors
/// The `transport`/`InvalidRequest` outcome (`request_sent = no`, retry `never`) naming the
/// refused header.
#[allow(clippy::result_large_err)] // the refusal is the call's outcome (see `build`)
pub(crate) fn admit_headers(added: &[(String, String)]) -> Result<(), Outcome> {
    for (name, value) in added {
        if let Err(e) = crate::envelope::check_header(name, value) {
            return Err(invalid(format!("request not sent: {e}")));
        }
    }
    Ok(())
}

/// The reserved headers a request carried before the [`HeaderHook::edit`]s ran (as the
/// envelope built it), to tell its own values from ones an edit added or changed.
pub(crate) struct Before(Vec<(String, String)>);

impl Before {
    /// Records the reserved headers of `headers`.
    pub(crate) fn of(headers: &[(String, String)]) -> Before {
        Before(
            headers
                .iter()
                .filter(|(n, _)| crate::envelope::reserved_header(n).is_some())
                .cloned()
                .collect(),
        )
    }

    /// Checks `headers` after the edits: each reserved header in them must be one the
    /// envelope wrote, unchanged (each accounts for one copy); removals pass.
    ///
    /// # Errors
    /// The `transport`/`InvalidRequest` outcome naming the first header an edit added or
    /// changed (`request_sent = no`, retry `never`).
    #[allow(clippy::result_large_err)] // the refusal is the call's outcome (see `build`)
    pub(crate) fn check(&self, headers: &[(String, String)]) -> Result<(), Outcome> {
        let mut unused: Vec<&(String, String)> = self.0.iter().collect();
        for (name, value) in headers {
            let Some(r) = crate::envelope::reserved_header(name) else {
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

/// The outcome of a refused reserved header: nothing was sent, and the same request would
/// be refused again.
pub(crate) fn refused(name: &str, r: &crate::envelope::ReservedName, how: &str) -> Outcome {
    invalid(format!(
        "request not sent: header {name:?} is reserved and {how}: {r}"
    ))
    .with_hint(format!(
        "the client writes {} itself; hooks and per-call headers may set credentials, tracing, routing keys and extensions, not framing, connection or protocol headers",
        r.name
    ))
}

/// A request that cannot be sent: `transport`/`InvalidRequest`, never retried.
pub(crate) fn invalid(message: String) -> Outcome {
    Outcome::transport(ErrorName::InvalidRequest, RequestSent::No, message)
        .with_retry(RetryAdvice::Never)
}

/// When the card asks for credentials and the request carries none of them: the outcome to
/// hand back instead of sending an unauthenticated call (`transport`/`Unauthenticated`,
/// `request_sent = no`, advice `reauthenticate`). A `mutualTLS` scheme is satisfied by the
/// host's client certificate; query and cookie credentials are not visible here and are
/// trusted to the host. (The one copy: the driver's streams use it too.)
pub(crate) fn missing_credential(
    plan: &CredentialPlan,
    headers: &[(String, String)],
    has_client_cert: bool,
) -> Option<Outcome> {
    if plan.alternatives.is_empty() || !plan.stated {
        return None;
    }
    let satisfied = plan.alternatives.iter().any(|alt| {
        alt.iter().all(|need| match need.credential.header_name() {
            Some(h) => headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(h)),
            None if need.credential == Credential::ClientCertificate => has_client_cert,
            None => true,
        })
    });
    if satisfied {
        return None;
    }
    let wanted: Vec<String> = plan
        .alternatives
        .iter()
        .map(|alt| {
            alt.iter()
                .map(|n| {
                    format!(
                        "{} ({})",
                        n.scheme,
                        n.credential.header_name().unwrap_or("credential")
                    )
                })
                .collect::<Vec<_>>()
                .join(" + ")
        })
        .collect();
    Some(
        Outcome::transport(
            ErrorName::Unauthenticated,
            RequestSent::No,
            format!(
                "not sent: the agent card requires credentials ({}) and the request carries none; add a header or an interceptor (a client certificate: --cert FILE --key FILE)",
                wanted.join(" or ")
            ),
        )
        .with_retry(RetryAdvice::Reauthenticate),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    const BUILT: [(&str, &str); 3] = [
        ("Content-Type", "application/json"),
        ("A2A-Version", "1.0"),
        (
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        ),
    ];

    fn without(mut h: Vec<(String, String)>, name: &str) -> Vec<(String, String)> {
        h.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        h
    }

    #[test]
    fn added_or_changed_reserved_headers_are_refused_by_name() {
        let before = Before::of(&headers(&BUILT));
        for (name, value) in [
            ("Content-Length", "0"),
            ("host", "evil.example"),
            ("A2A-Version", "0.3"),
            ("Transfer-Encoding", "chunked"),
            ("Connection", "close"),
            ("Accept", "text/html"),
        ] {
            let mut h = headers(&BUILT);
            set_header(&mut h, name.to_owned(), value.to_owned());
            let o = before.check(&h).expect_err(name);
            assert_eq!(o.error, Some(ErrorName::InvalidRequest));
            assert_eq!(o.request_sent, Some(RequestSent::No));
            assert_eq!(o.retry, RetryAdvice::Never);
            let m = o.message.unwrap();
            assert!(m.contains(&format!("{name:?}")), "{m}");
        }
        // A second copy of a builder header, even with the same value, is an addition.
        let mut h = headers(&BUILT);
        h.push(("content-type".into(), "application/json".into()));
        assert!(before.check(&h).is_err());
    }

    #[test]
    fn caller_headers_unchanged_and_removed_protocol_headers_pass() {
        let before = Before::of(&headers(&BUILT));
        let mut h = headers(&BUILT);
        for (n, v) in [
            ("Authorization", "Bearer t"),
            (
                "traceparent",
                "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
            ),
            ("A2A-Extensions", "https://ext.example/v1"),
            ("content-type", "application/json"), // same value: not an override
        ] {
            set_header(&mut h, n.to_owned(), v.to_owned());
        }
        assert!(before.check(&h).is_ok());
        assert!(before.check(&without(h, "A2A-Version")).is_ok());
    }
}
