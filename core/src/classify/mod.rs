//! Classify one response into exactly one [`Outcome`] channel, without I/O.
//!
//! ```text
//! ResponseInfo ──► 3xx? ─────────────────────────────► http (Redirect)
//!      │
//!      ├─ text/event-stream (2xx) ──► sse::Decoder ──► stream tracker ──► end-of-stream outcome
//!      │
//!      └─ body ──► scan (one borrowed pass) ──┬─► error object / REST error body ─► protocol
//!                                             ├─► non-2xx without one ───────────► http
//!                                             ├─► Task / status update ──────────► task
//!                                             ├─► Message ───────────────────────► message
//!                                             └─► anything else (2xx) ───────────► malformed
//! ```
//!
//! The rules (retry advice, names, hints) follow `bindings/fixtures/outcomes.json`, the one
//! table every layer tests against. The body is read once with borrowed serde structs that
//! skip what the outcome does not need (history, artifacts, metadata): no JSON tree is built.

mod advice;
mod hint;
mod http;
mod method;
mod payload;
mod protocol;
pub(crate) mod scan;
pub(crate) mod stream;
#[cfg(test)]
mod tape_tests;

pub use crate::method::Method;
pub use hint::parse_remote_hint;
pub use http::{EXCERPT_MAX, excerpt};
pub use method::{MethodInfo, MethodKind, method_info};
pub use protocol::{name_of_code, name_of_reason};

pub(crate) use http::malformed_unreadable as http_malformed;
pub(crate) use payload::{Payload, PayloadKind, read as read_payload, with_status_text};
pub(crate) use protocol::protocol_error as protocol_error_of;

use crate::outcome::{Channel, Outcome};
use crate::version::{Binding, ProtocolVersion};

/// What the caller asked: each part optional. Unknown parts are detected from the body where
/// possible (version, binding); an unknown method is treated as side-effecting when retry
/// advice depends on it (the conservative choice).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Asked<'a> {
    /// The protocol version the request was sent in.
    pub version: Option<ProtocolVersion>,
    /// The binding the request was sent over.
    pub binding: Option<Binding>,
    /// The JSON-RPC method name or REST path (`message/send`, `SendMessage`,
    /// `POST /v1/message:send`, `GET /tasks/t-1`); see [`method_info`].
    pub method: Option<&'a str>,
    /// The JSON-RPC request id as text: a string id's contents or a number's digits
    /// (`"1"` matches both `"id":1` and `"id":"1"`).
    pub request_id: Option<&'a str>,
}

/// One HTTP response to classify: status, the headers that matter, the body, what was asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResponseInfo<'a> {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` header value, when present.
    pub content_type: Option<&'a str>,
    /// The `Retry-After` header value, when present: delta-seconds, or an HTTP-date in any
    /// of the three forms of RFC 9110 §5.6.7, which is turned into seconds only when
    /// [`ResponseInfo::now_unix_seconds`] is known (see [`crate::time::RetryAfter`]).
    pub retry_after: Option<&'a str>,
    /// The complete body.
    pub body: &'a [u8],
    /// What was asked.
    pub asked: Asked<'a>,
    /// The caller's wall-clock time in seconds since the Unix epoch, when it has one: needed
    /// only to turn a `Retry-After` HTTP-date into seconds to wait (the core reads no clock).
    pub now_unix_seconds: Option<u64>,
}

impl<'a> ResponseInfo<'a> {
    /// A response with `status` and `body`, nothing else known.
    pub fn new(status: u16, body: &'a [u8]) -> ResponseInfo<'a> {
        ResponseInfo {
            status,
            body,
            ..ResponseInfo::default()
        }
    }

    /// Records one response header; keeps those the classifier reads (`Content-Type`,
    /// `Retry-After`, case-insensitive) and ignores the rest.
    pub fn header(mut self, name: &str, value: &'a str) -> ResponseInfo<'a> {
        if name.eq_ignore_ascii_case("content-type") {
            self.content_type = Some(value);
        } else if name.eq_ignore_ascii_case("retry-after") {
            self.retry_after = Some(value);
        }
        self
    }

    /// Sets what was asked.
    pub fn asked(mut self, asked: Asked<'a>) -> ResponseInfo<'a> {
        self.asked = asked;
        self
    }

    /// Sets the caller's wall-clock time (Unix seconds), for a `Retry-After` HTTP-date.
    pub fn now_unix_seconds(mut self, now: u64) -> ResponseInfo<'a> {
        self.now_unix_seconds = Some(now);
        self
    }
}

/// Whether a `Content-Type` value is `text/event-stream` (parameters and case ignored).
pub fn is_event_stream(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|e| e.trim().eq_ignore_ascii_case("text/event-stream"))
    })
}

/// Whether a `Content-Type` value is `application/problem+json`.
pub(crate) fn is_problem_json(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/problem+json"))
    })
}

/// What the classifier knows about the call while it reads the body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallContext<'a> {
    pub status: u16,
    pub asked: Asked<'a>,
    pub method: Option<MethodInfo>,
    pub content_type: Option<&'a str>,
    /// The response carried a valid `Retry-After` (delta-seconds or an HTTP-date, with or
    /// without the caller's clock): the server stated when to come back.
    pub retry_after: bool,
}

impl<'a> CallContext<'a> {
    pub(crate) fn new(info: &ResponseInfo<'a>) -> CallContext<'a> {
        CallContext {
            status: info.status,
            asked: info.asked,
            method: info.asked.method.and_then(method_info),
            content_type: info.content_type,
            retry_after: info
                .retry_after
                .and_then(|v| crate::time::RetryAfter::parse(v.as_bytes()))
                .is_some(),
        }
    }

    /// Whether a repeat could do the work twice. Unknown methods count as side-effecting.
    pub(crate) fn side_effecting(&self) -> bool {
        self.method.is_none_or(|m| m.kind.is_unsafe_to_repeat())
    }

    /// The version the client spoke: as asked, else the method name's version.
    pub(crate) fn asked_version(&self) -> Option<ProtocolVersion> {
        self.asked.version.or_else(|| {
            self.method
                .filter(|m| m.binding == Binding::JsonRpc)
                .map(|m| m.version)
        })
    }

    /// The binding the client used: as asked, else the method name's binding.
    pub(crate) fn asked_binding(&self) -> Option<Binding> {
        self.asked.binding.or(self.method.map(|m| m.binding))
    }

    pub(crate) fn is_2xx(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Classifies one response. Never panics; always returns exactly one channel.
///
/// A single JSON body never yields [`Channel::Transport`] (drivers produce that through
/// [`Outcome::transport`]). A whole 2xx `text/event-stream` body is decoded by
/// [`crate::sse::Decoder`] (default limits), run through the stream tracker and yields its
/// end-of-stream outcome, which is a transport outcome when the stream was truncated (closed
/// before a terminal state), and `malformed` when the decoder dropped an event over a limit
/// (unless the stream ended with an error event).
pub fn classify(info: &ResponseInfo<'_>) -> Outcome {
    classify_scanned(info, || scan::scan(info.body))
}

/// [`classify`], reading the body from a tape made of it when there is one (one pass over
/// the body shared with the answer reader). A body the tape refused, or whose union object
/// the tape cannot give, is scanned by serde_json as [`classify`] does, for its exact error.
#[cfg(feature = "model")]
pub(crate) fn classify_tape(
    info: &ResponseInfo<'_>,
    tape: Option<&crate::tape::Tape<'_>>,
) -> Outcome {
    classify_scanned(info, || match tape {
        Some(t) if t.is_object() => {
            scan::body_shape_from_tape(t, 0).or_else(|_| scan::scan(info.body))
        }
        _ => scan::scan(info.body),
    })
}

fn classify_scanned<'b>(
    info: &ResponseInfo<'b>,
    scanned: impl FnOnce() -> Result<scan::BodyShape<'b>, scan::ScanError>,
) -> Outcome {
    let ctx = CallContext::new(info);
    let out = if (300..400).contains(&info.status) {
        http::http_outcome(&ctx, None, info.body)
    } else if ctx.is_2xx() && is_event_stream(info.content_type) {
        stream::classify_event_stream(info)
    } else {
        classify_body_scanned(&ctx, info.body, scanned())
    };
    let retry_after_secs = if matches!(out.channel, Channel::Http | Channel::Protocol) {
        info.retry_after
            .and_then(|v| crate::time::retry_after_secs(v.as_bytes(), info.now_unix_seconds))
    } else {
        out.retry_after_secs
    };
    let version = out.version.or_else(|| ctx.asked_version());
    let binding = out.binding.or_else(|| ctx.asked_binding());
    out.with_http_status(info.status)
        .with_retry_after_secs(retry_after_secs)
        .with_version(version)
        .with_binding(binding)
}

/// Classifies one JSON body (a whole response, or one SSE event's data) from its scan.
fn classify_body_scanned(
    ctx: &CallContext<'_>,
    body: &[u8],
    scanned: Result<scan::BodyShape<'_>, scan::ScanError>,
) -> Outcome {
    match scanned {
        Err(scan::ScanError::Empty)
            if ctx.is_2xx()
                && ctx
                    .method
                    .is_some_and(|m| m.kind == MethodKind::PushConfigDelete) =>
        {
            // REST delete may answer 200/204 with no body: a success without a result.
            Outcome::message().with_binding(Binding::HttpJson)
        }
        Err(e) if ctx.is_2xx() => http::malformed_unreadable(ctx, &e, body),
        Err(_) => http::http_outcome(ctx, None, body),
        Ok(obj) => {
            if let Some(o) = protocol::protocol_error(ctx, &obj) {
                return o;
            }
            if !ctx.is_2xx() {
                return http::http_outcome(ctx, Some(&obj), body);
            }
            payload::success(ctx, &obj, body)
        }
    }
}

/// `Retry-After` as seconds without a clock: delta-seconds (`"3"`, saturating at
/// `u64::MAX`); an HTTP-date or garbage gives `None`. The same reader as
/// [`classify`]'s; with the caller's wall clock use [`crate::time::retry_after_secs`],
/// which also reads HTTP-dates.
pub fn parse_retry_after(value: &str) -> Option<u64> {
    crate::time::retry_after_secs(value.as_bytes(), None)
}

/// A malformed outcome with a precise reason.
pub(crate) fn malformed(ctx: &CallContext<'_>, reason: impl Into<String>, body: &[u8]) -> Outcome {
    Outcome::malformed(reason, advice::malformed(ctx))
        .with_body_excerpt((!body.is_empty()).then(|| http::excerpt(body)))
}
