//! HTTP/1.1: request serialization into an `a2a_buffer`, and the incremental response
//! reader whose body bytes are views of the caller's input (ready for the SSE decoder).

use std::ffi::c_char;

use a2a::http1::{
    self, BodyFraming, Event, Headers, Limits, RequestError, ResponseError, ResponseParser,
};

use crate::buffer::a2a_buffer;
use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_bytes, a2a_str, input_str, try_bytes, try_input, try_str};

/// One request header for the serializer: UTF-8 name and value, read during the call only.
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

pub(crate) fn request_code(e: &RequestError) -> a2a_result {
    match e {
        RequestError::Method => a2a_result::A2A_HTTP1_METHOD,
        RequestError::Target => a2a_result::A2A_HTTP1_TARGET,
        RequestError::Host => a2a_result::A2A_HTTP1_HOST,
        RequestError::HeaderName { .. } => a2a_result::A2A_HTTP1_HEADER_NAME,
        RequestError::HeaderValue { .. } => a2a_result::A2A_HTTP1_HEADER_VALUE,
        RequestError::ReservedHeader { .. } => a2a_result::A2A_HTTP1_RESERVED_HEADER,
        _ => a2a_result::A2A_HTTP1_REQUEST_INVALID,
    }
}

fn response_code(e: &ResponseError) -> a2a_result {
    use ResponseError as E;
    match e {
        E::Malformed(_) => a2a_result::A2A_HTTP1_MALFORMED,
        E::HeadTooLarge { .. } => a2a_result::A2A_HTTP1_HEAD_TOO_LARGE,
        E::TooManyHeaders { .. } => a2a_result::A2A_HTTP1_TOO_MANY_HEADERS,
        E::TooManyInformational { .. } => a2a_result::A2A_HTTP1_TOO_MANY_INFORMATIONAL,
        E::UnexpectedUpgrade => a2a_result::A2A_HTTP1_UNEXPECTED_UPGRADE,
        E::InvalidContentLength => a2a_result::A2A_HTTP1_INVALID_CONTENT_LENGTH,
        E::ConflictingContentLength => a2a_result::A2A_HTTP1_CONFLICTING_CONTENT_LENGTH,
        E::ContentLengthWithTransferEncoding => {
            a2a_result::A2A_HTTP1_CONTENT_LENGTH_WITH_TRANSFER_ENCODING
        }
        E::UnsupportedTransferCoding => a2a_result::A2A_HTTP1_UNSUPPORTED_TRANSFER_CODING,
        E::InvalidChunkSize => a2a_result::A2A_HTTP1_INVALID_CHUNK_SIZE,
        E::ChunkLineTooLong { .. } => a2a_result::A2A_HTTP1_CHUNK_LINE_TOO_LONG,
        E::MissingChunkTerminator => a2a_result::A2A_HTTP1_MISSING_CHUNK_TERMINATOR,
        E::MalformedTrailers(_) => a2a_result::A2A_HTTP1_MALFORMED_TRAILERS,
        E::TrailersTooLarge { .. } => a2a_result::A2A_HTTP1_TRAILERS_TOO_LARGE,
        E::TooManyTrailers { .. } => a2a_result::A2A_HTTP1_TOO_MANY_TRAILERS,
        E::ClosedBeforeResponse => a2a_result::A2A_HTTP1_CLOSED_BEFORE_RESPONSE,
        E::TruncatedHead => a2a_result::A2A_HTTP1_TRUNCATED_HEAD,
        E::TruncatedBody { .. } => a2a_result::A2A_HTTP1_TRUNCATED_BODY,
        _ => a2a_result::A2A_HTTP1_RESPONSE_INVALID,
    }
}

/// Appends a whole HTTP/1.1 request to `out`: `METHOD target HTTP/1.1`, `Host`, the
/// caller's headers in order, `Content-Length` (when the body is non-empty or the method is
/// POST, PUT or PATCH), the empty line, then `body`. Anything that could inject a header or
/// a second request is refused.
///
/// Every input is read during the call only (copied into `out`). `method`, `target`,
/// `host` and the headers are UTF-8; `body` any bytes. `written`: receives the number of
/// bytes appended; written on success only.
///
/// Errors (nothing is appended; `a2a_buffer_last_error(out)` names the offending part, e.g.
/// the header index): `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_HTTP1_METHOD`,
/// `A2A_HTTP1_TARGET`, `A2A_HTTP1_HOST`, `A2A_HTTP1_HEADER_NAME`, `A2A_HTTP1_HEADER_VALUE`,
/// `A2A_HTTP1_RESERVED_HEADER` (Host, Content-Length, Transfer-Encoding are written by the
/// serializer).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_http1_write_request(
    out: *mut a2a_buffer,
    method: *const c_char,
    method_len: usize,
    target: *const c_char,
    target_len: usize,
    host: *const c_char,
    host_len: usize,
    headers: *const a2a_header,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    written: *mut usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let buf = try_mut!(out);
        let written = try_out!(written);
        let method = try_str!(method, method_len);
        let target = try_str!(target, target_len);
        let host = try_str!(host, host_len);
        // SAFETY: the header requires `headers` to hold `headers_len` valid entries.
        let hs = try_input!(unsafe { headers_from(headers, headers_len) });
        let body = try_bytes!(body, body_len);
        match http1::write_request(&mut buf.bytes, method, target, host, &hs, body) {
            Ok(n) => {
                buf.set_error(None);
                written.set(n);
                a2a_result::A2A_OK
            }
            Err(e) => {
                buf.set_error(Some(e.to_string()));
                request_code(&e)
            }
        }
    }
}

/// Like `a2a_http1_write_request` but appends only the request line and headers, for a
/// body of `body_len` bytes the caller sends itself right after (e.g. a vectored write).
///
/// Errors: as for `a2a_http1_write_request`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_http1_write_request_head(
    out: *mut a2a_buffer,
    method: *const c_char,
    method_len: usize,
    target: *const c_char,
    target_len: usize,
    host: *const c_char,
    host_len: usize,
    headers: *const a2a_header,
    headers_len: usize,
    body_len: usize,
    written: *mut usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let buf = try_mut!(out);
        let written = try_out!(written);
        let method = try_str!(method, method_len);
        let target = try_str!(target, target_len);
        let host = try_str!(host, host_len);
        // SAFETY: the header requires `headers` to hold `headers_len` valid entries.
        let hs = try_input!(unsafe { headers_from(headers, headers_len) });
        match http1::write_request_head(&mut buf.bytes, method, target, host, &hs, body_len) {
            Ok(n) => {
                buf.set_error(None);
                written.set(n);
                a2a_result::A2A_OK
            }
            Err(e) => {
                buf.set_error(Some(e.to_string()));
                request_code(&e)
            }
        }
    }
}

/// Appends to `out` the origin-form request target joining an interface URL's path
/// (`/a2a/v1` or `/a2a/v1/`) and a path relative to it (`message:send`,
/// `/tasks/t1?historyLength=2`, `?q=1`, or empty), with exactly one `/` between them.
/// Inputs are UTF-8, read during the call only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_join_target(
    out: *mut a2a_buffer,
    base_path: *const c_char,
    base_path_len: usize,
    relative: *const c_char,
    relative_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let buf = try_mut!(out);
        let base = try_str!(base_path, base_path_len);
        let rel = try_str!(relative, relative_len);
        buf.set_error(None);
        buf.bytes.extend_from_slice(http1::join_target(base, rel).as_bytes());
        a2a_result::A2A_OK
    }
}

/// Limits of the response reader (bytes and counts).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_http1_limits {
    /// Largest status line plus header block.
    pub max_head_bytes: usize,
    /// Most header (and trailer) fields.
    pub max_headers: usize,
    /// Most 1xx informational responses before the final one.
    pub max_informational: usize,
    /// Longest chunk-size line (with extensions).
    pub max_chunk_line: usize,
    /// Largest trailer section.
    pub max_trailer_bytes: usize,
}

/// What one `a2a_http1_response_feed` produced.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_http1_event {
    /// Nothing more from these bytes: read more, append them after the unconsumed bytes,
    /// feed again. Not an error.
    NeedMore = 1,
    /// The final status line and headers are complete (`a2a_http1_response_head`).
    Head = 2,
    /// Body bytes in `a2a_http1_step.body` (transfer framing removed); feed the rest.
    Body = 3,
    /// The response is complete; input after `consumed` belongs to the next response.
    End = 4,
}

/// How a response body is delimited.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_http1_framing {
    /// No body (HEAD, 204, 304).
    Empty = 1,
    /// `Content-Length` bytes (`content_length`).
    Length = 2,
    /// Chunked transfer coding.
    Chunked = 3,
    /// Until the server closes the connection.
    UntilClose = 4,
}

/// The result of one feed: drop `consumed` bytes from the front of your buffer AFTER
/// handling `event` (the body view points into those bytes), before the next feed.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_http1_step {
    /// Bytes of the fed input used up.
    pub consumed: usize,
    /// What happened.
    pub event: a2a_http1_event,
    /// `A2A_HTTP1_EVENT_BODY`: the body bytes, a view INTO the fed input (valid while the
    /// caller keeps that input); absent otherwise.
    pub body: a2a_bytes,
}

/// The status line and header summary of a response.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_http1_head {
    /// Status code.
    pub status: u16,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub minor_version: u8,
    /// Reason phrase as sent (may be empty); points into the reader.
    pub reason: a2a_str,
    /// How the body is delimited.
    pub framing: a2a_http1_framing,
    /// The declared length when `framing` is `A2A_HTTP1_FRAMING_LENGTH`, else 0.
    pub content_length: u64,
    /// Number of header fields (`a2a_http1_response_header`).
    pub header_count: usize,
    /// Whether the connection may be reused after this response.
    pub keep_alive: bool,
}

/// An incremental HTTP/1.1 response reader (httparse style: "need more" is not an error;
/// rustls-unbuffered style: the caller owns the buffer and drops `consumed` bytes).
///
/// Methods: `a2a_http1_response_new_with`, `a2a_http1_response_free`, `a2a_http1_response_reset`, `a2a_http1_response_feed`,
/// `a2a_http1_response_finish`, `a2a_http1_response_head`, `a2a_http1_response_header`,
/// `a2a_http1_response_header_get`, `a2a_http1_response_trailer_count`,
/// `a2a_http1_response_trailer`, `a2a_http1_response_body_received`,
/// `a2a_http1_response_informational_skipped`, `a2a_http1_response_is_done`,
/// `a2a_http1_response_reusable`, `a2a_http1_response_last_error`.
///
/// After an error the reader is spent: every later feed returns the same error.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_http1_response {
    inner: ResponseParser,
    last_error: String,
}

impl Handle for a2a_http1_response {}

fn limits_c(l: &Limits) -> a2a_http1_limits {
    a2a_http1_limits {
        max_head_bytes: l.max_head_bytes,
        max_headers: l.max_headers,
        max_informational: l.max_informational,
        max_chunk_line: l.max_chunk_line,
        max_trailer_bytes: l.max_trailer_bytes,
    }
}

/// Writes the default reader limits to `*out`.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_limits_default(out: *mut a2a_http1_limits) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(limits_c(&Limits::default()));
        a2a_result::A2A_OK
    }
}

/// A reader for the response to a request sent with `method` (UTF-8, e.g. `POST`; a
/// response to `HEAD` has no body), with `*limits` (read during the call only; start from
/// `a2a_http1_limits_default`). `out`: a new handle the caller owns (free with
/// `a2a_http1_response_free`); written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (a limit of 0).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_new_with(
    method: *const c_char,
    method_len: usize,
    limits: *const a2a_http1_limits,
    out: *mut *mut a2a_http1_response,
) -> a2a_result {
    ffi_panic_boundary! {
        let l = try_ref!(limits);
        let out = try_out!(out);
        let method = try_str!(method, method_len);
        if l.max_head_bytes == 0 || l.max_headers == 0 || l.max_chunk_line == 0 {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        let limits = Limits {
            max_head_bytes: l.max_head_bytes,
            max_headers: l.max_headers,
            max_informational: l.max_informational,
            max_chunk_line: l.max_chunk_line,
            max_trailer_bytes: l.max_trailer_bytes,
        };
        out.set(handle::into_raw(a2a_http1_response {
            inner: ResponseParser::with_limits(method, limits),
            last_error: String::new(),
        }));
        a2a_result::A2A_OK
    }
}

/// Frees a reader. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_free(response: *mut a2a_http1_response) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(response) }
    }
}

/// Prepares the reader for the next response on the same connection, to a request sent
/// with `method`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_reset(
    response: *mut a2a_http1_response,
    method: *const c_char,
    method_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_mut!(response);
        let method = try_str!(method, method_len);
        r.last_error.clear();
        r.inner.reset(method);
        a2a_result::A2A_OK
    }
}

/// Feeds every unconsumed byte read so far (`(NULL, 0)` is an empty input) and writes one
/// step to `*out`: how many bytes are consumed and what happened. Call again with the rest
/// after `HEAD` and `BODY` (even if the rest is empty); read more after `NEED_MORE`.
///
/// The body view in the step points INTO `input`; the reader keeps no pointer to it.
///
/// Errors (the reader is then spent; `a2a_http1_response_last_error` says what was wrong):
/// `A2A_NULL_PARAMETER`, `A2A_HTTP1_*` response codes (520–538).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_feed(
    response: *mut a2a_http1_response,
    input: *const u8,
    input_len: usize,
    out: *mut a2a_http1_step,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_mut!(response);
        let out = try_out!(out);
        let input = try_bytes!(input, input_len);
        r.last_error.clear();
        match r.inner.feed(input) {
            Ok(step) => {
                let (event, body) = match step.event {
                    Event::NeedMore => (a2a_http1_event::NeedMore, a2a_bytes::NONE),
                    Event::Head => (a2a_http1_event::Head, a2a_bytes::NONE),
                    Event::Body(b) => (a2a_http1_event::Body, a2a_bytes::from_slice(b)),
                    Event::End => (a2a_http1_event::End, a2a_bytes::NONE),
                };
                out.set(a2a_http1_step { consumed: step.consumed, event, body });
                a2a_result::A2A_OK
            }
            Err(e) => {
                r.last_error = e.to_string();
                response_code(&e)
            }
        }
    }
}

/// Tells the reader the connection reached end of file: `A2A_OK` for a clean end (a
/// close-delimited body ends this way), or `A2A_HTTP1_CLOSED_BEFORE_RESPONSE` (not a byte
/// arrived: a stale pooled connection), `A2A_HTTP1_TRUNCATED_HEAD`,
/// `A2A_HTTP1_TRUNCATED_BODY`, or the earlier error of a spent reader.
///
/// Errors: also `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_finish(response: *mut a2a_http1_response) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_mut!(response);
        r.last_error.clear();
        match r.inner.finish() {
            Ok(()) => a2a_result::A2A_OK,
            Err(e) => {
                r.last_error = e.to_string();
                response_code(&e)
            }
        }
    }
}

/// The final response head. Returns `A2A_OK` and writes `*out` (its `reason` points into
/// the reader: valid until the next mutating call), or `A2A_NONE` before the head is
/// complete.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_head(
    response: *const a2a_http1_response,
    out: *mut a2a_http1_head,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(response);
        let out = try_out!(out);
        let Some(h) = r.inner.head() else {
            return a2a_result::A2A_NONE;
        };
        let (framing, len) = match h.framing {
            BodyFraming::Empty => (a2a_http1_framing::Empty, 0),
            BodyFraming::Length(n) => (a2a_http1_framing::Length, n),
            BodyFraming::Chunked => (a2a_http1_framing::Chunked, 0),
            BodyFraming::UntilClose => (a2a_http1_framing::UntilClose, 0),
        };
        out.set(a2a_http1_head {
            status: h.status,
            minor_version: h.minor_version,
            reason: a2a_str::from_str(&h.reason),
            framing,
            content_length: len,
            header_count: h.headers.len(),
            keep_alive: h.keep_alive(),
        });
        a2a_result::A2A_OK
    }
}

fn field_at(
    headers: &Headers,
    index: usize,
    name: crate::handle::Out<a2a_str>,
    value: crate::handle::Out<a2a_bytes>,
) -> a2a_result {
    match headers.iter().nth(index) {
        Some(f) => {
            name.set(a2a_str::from_str(f.name));
            value.set(a2a_bytes::from_slice(f.value));
            a2a_result::A2A_OK
        }
        None => a2a_result::A2A_INVALID_ARGUMENT,
    }
}

/// The `index`-th header field of the final head, in the order received: the name as sent
/// and the raw value bytes (obs-text possible). Views point into the reader: valid until
/// the next mutating call. Both outputs written on success only.
///
/// Returns `A2A_OK`, `A2A_NONE` (no head yet), or `A2A_INVALID_ARGUMENT` (`index` >= the
/// header count). Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_header(
    response: *const a2a_http1_response,
    index: usize,
    name: *mut a2a_str,
    value: *mut a2a_bytes,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(response);
        let name = try_out!(name);
        let value = try_out!(value);
        match r.inner.head() {
            Some(h) => field_at(&h.headers, index, name, value),
            None => a2a_result::A2A_NONE,
        }
    }
}

/// The value of the first header called `name` (case-insensitive, UTF-8). Returns `A2A_OK`
/// and writes `*value` (a view into the reader, valid until the next mutating call), or
/// `A2A_NONE` when there is no such header or no head yet.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_header_get(
    response: *const a2a_http1_response,
    name: *const c_char,
    name_len: usize,
    value: *mut a2a_bytes,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(response);
        let value = try_out!(value);
        let name = try_str!(name, name_len);
        match r.inner.head().and_then(|h| h.headers.get(name)) {
            Some(v) => {
                value.set(a2a_bytes::from_slice(v));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_NONE,
        }
    }
}

/// Number of trailer fields read after a chunked body (0 when none or `response` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_trailer_count(response: *const a2a_http1_response) -> usize {
    ffi_panic_boundary! {
        try_ref!(response).inner.trailers().len()
    }
}

/// The `index`-th trailer field; as `a2a_http1_response_header`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (`index` out of range).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_trailer(
    response: *const a2a_http1_response,
    index: usize,
    name: *mut a2a_str,
    value: *mut a2a_bytes,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(response);
        let name = try_out!(name);
        let value = try_out!(value);
        field_at(r.inner.trailers(), index, name, value)
    }
}

/// Body bytes handed out so far (0 when `response` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_body_received(response: *const a2a_http1_response) -> u64 {
    ffi_panic_boundary! {
        try_ref!(response).inner.body_received()
    }
}

/// 1xx informational responses skipped (0 when `response` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_informational_skipped(
    response: *const a2a_http1_response,
) -> usize {
    ffi_panic_boundary! {
        try_ref!(response).inner.informational_skipped()
    }
}

/// Whether the response is complete (false when `response` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_is_done(response: *const a2a_http1_response) -> bool {
    ffi_panic_boundary! {
        try_ref!(response).inner.is_done()
    }
}

/// Whether the connection may carry another request after this complete response (false
/// when `response` is NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_reusable(response: *const a2a_http1_response) -> bool {
    ffi_panic_boundary! {
        try_ref!(response).inner.reusable()
    }
}

/// A human-readable message for the error of the most recent mutating call on the reader;
/// absent `(NULL, 0)` when it had none or `response` is NULL. Valid until the next
/// mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_http1_response_last_error(response: *const a2a_http1_response) -> a2a_str {
    ffi_panic_boundary! {
        let r = try_ref!(response);
        if r.last_error.is_empty() { a2a_str::NONE } else { a2a_str::from_str(&r.last_error) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::*;
    use std::ptr::{null, null_mut};

    #[test]
    fn request_round_trips_through_the_reader_shape() {
        let mut b = null_mut();
        assert_eq!(a2a_buffer_new(&mut b), a2a_result::A2A_OK);
        let hs = [a2a_header {
            name: b"Content-Type".as_ptr().cast(),
            name_len: 12,
            value: b"application/json".as_ptr().cast(),
            value_len: 16,
        }];
        let mut n = 0;
        assert_eq!(
            a2a_http1_write_request(
                b,
                b"POST".as_ptr().cast(),
                4,
                b"/a2a".as_ptr().cast(),
                4,
                b"h:1".as_ptr().cast(),
                3,
                hs.as_ptr(),
                1,
                b"{}".as_ptr(),
                2,
                &mut n
            ),
            a2a_result::A2A_OK
        );
        let bytes = unsafe { a2a_buffer_bytes(b).as_slice() }.unwrap();
        assert_eq!(n, bytes.len());
        assert_eq!(
            bytes,
            &b"POST /a2a HTTP/1.1\r\nHost: h:1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"[..]
        );
        let bad = [a2a_header {
            name: b"X".as_ptr().cast(),
            name_len: 1,
            value: b"a\r\nb".as_ptr().cast(),
            value_len: 4,
        }];
        assert_eq!(
            a2a_http1_write_request(
                b,
                b"GET".as_ptr().cast(),
                3,
                b"/".as_ptr().cast(),
                1,
                b"h".as_ptr().cast(),
                1,
                bad.as_ptr(),
                1,
                null(),
                0,
                &mut n
            ),
            a2a_result::A2A_HTTP1_HEADER_VALUE
        );
        assert!(
            unsafe { a2a_buffer_last_error(b).as_str() }
                .unwrap()
                .contains("#0")
        );
        a2a_buffer_free(b);
    }

    #[test]
    fn chunked_response_body_views_point_into_input() {
        let wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
        let mut limits = unsafe { std::mem::zeroed::<a2a_http1_limits>() };
        assert_eq!(a2a_http1_limits_default(&mut limits), a2a_result::A2A_OK);
        let mut r = null_mut();
        assert_eq!(
            a2a_http1_response_new_with(b"POST".as_ptr().cast(), 4, &limits, &mut r),
            a2a_result::A2A_OK
        );
        let mut start = 0;
        let mut body = Vec::new();
        let mut step = a2a_http1_step {
            consumed: 0,
            event: a2a_http1_event::NeedMore,
            body: a2a_bytes::NONE,
        };
        for _ in 0..10 {
            assert_eq!(
                a2a_http1_response_feed(r, wire[start..].as_ptr(), wire.len() - start, &mut step),
                a2a_result::A2A_OK
            );
            if step.event == a2a_http1_event::Body {
                body.extend_from_slice(unsafe { step.body.as_slice() }.unwrap());
            }
            start += step.consumed;
            if step.event == a2a_http1_event::End {
                break;
            }
        }
        assert_eq!(step.event, a2a_http1_event::End);
        assert_eq!(body, b"hello");
        let mut v = a2a_bytes::NONE;
        assert_eq!(
            a2a_http1_response_header_get(r, b"content-type".as_ptr().cast(), 12, &mut v),
            a2a_result::A2A_OK
        );
        assert_eq!(unsafe { v.as_slice() }, Some(&b"text/event-stream"[..]));
        assert!(a2a_http1_response_is_done(r));
        a2a_http1_response_free(r);
    }
}
