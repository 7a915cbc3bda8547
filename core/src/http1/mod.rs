//! Sans-IO HTTP/1.1 framing: requests out as bytes, responses in as bytes, and (for servers)
//! requests in as bytes.
//!
//! This module does no I/O. [`write_request`] turns a built request (method, target, host,
//! headers, body) into the exact bytes to write, refusing anything that could inject a
//! header or a second request. [`ResponseParser`] reads a response incrementally from
//! whatever bytes the caller has read so far, in the style of httparse ("need more bytes" is
//! not an error) and rustls' unbuffered API (the caller owns the buffer and drops the bytes
//! reported as consumed): status line and headers (bounded by [`Limits`]), then the body by
//! `Content-Length`, chunked transfer coding (extensions ignored, trailers read and bounded)
//! or until the connection closes, with 1xx informational responses skipped and no body for
//! `HEAD`, 204 and 304. Body bytes are handed out as slices of the caller's buffer, so they
//! can go straight into the SSE decoder.
//!
//! [`RequestReader`] is the server side's counterpart, driven the same way: request line and
//! headers (bounded by [`RequestLimits`]), then the body framed as RFC 9112 §6 says, with
//! every ambiguity that could smuggle a second request refused with a typed
//! [`RequestReadError`] that names the status to answer (400, 413, 417, 431 or 501).
//!
//! Content codings (`Content-Encoding: gzip`) are not undone here: the head reports them and
//! the caller decides (streams should be requested with `Accept-Encoding: identity`).

mod body;
mod error;
mod head;
mod request;
mod request_reader;
mod response;
mod section;
mod step;

pub use crate::time::RetryAfter;
pub use error::{HeadSyntax, RequestError, RequestReadError, ResponseError};
pub use head::{BodyFraming, HeaderField, Headers, ResponseHead};
pub use request::{
    interface_target, join_target, write_envelope_request, write_request, write_request_head,
};
pub use request_reader::{RequestHead, RequestLimits, RequestReader};
pub use response::{Limits, ResponseParser};
pub use step::{Event, Step};

#[cfg(test)]
mod request_tests;
#[cfg(test)]
mod tests;
