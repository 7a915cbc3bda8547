//! Incremental, zero-copy reading of an HTTP/1.1 request: the server side's counterpart of
//! [`super::ResponseParser`], driven the same way.
//!
//! ```text
//!  ──> [Head] ──request line + headers──> Host, framing, Expect checked ─┬─ refused ──> [Failed]
//!                                                                       ├─ no body ───> [Done]
//!                                                                       └─ [Body] ────> [Done]
//!                                               (Content-Length bytes, or chunks then trailers)
//! ```
//!
//! As in the response parser, each state has its own reader (`read_head`, with
//! `skip_empty_lines` before the request line; `read_body`, which also enforces the body
//! limit), and `feed` runs them in turn until one has an event to report.
//!
//! The body framing follows RFC 9112 §6.3 for requests, refusing what a front-end and this
//! server could read differently (the ways to smuggle a second request): `Transfer-Encoding`
//! together with `Content-Length`; a `Transfer-Encoding` that does not end in a single
//! `chunked`; `Transfer-Encoding` in HTTP/1.0; a `Content-Length` that is not 1*DIGIT, or
//! several that differ. A request with neither field has an empty body. Several equal
//! `Content-Length` values (`5, 5`) are read as one, as RFC 9110 §8.6 allows and h11 does: every
//! reader of them agrees on the length.

use super::body::{BodyDecoder, BodyLimits, content_length, transfer_codings};
use super::error::{HeadSyntax, RequestReadError};
use super::head::{BodyFraming, Headers, trim_ows};
use super::request::valid_host;
use super::section::{SectionScan, scan_section, with_header_slots};
use super::step::{Event, Progress, Step};

/// Limits that keep memory and work bounded whatever a client sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestLimits {
    /// Largest request line plus header block, in bytes (default 64 KiB); empty lines before
    /// the request line count against it too. The caller's buffer must be able to hold this
    /// much, because the head is parsed in one piece.
    pub max_head_bytes: usize,
    /// Most header fields in the head, and most fields in the trailer section (default 100).
    pub max_headers: usize,
    /// Longest chunk-size line including extensions and CRLF (default 4 KiB).
    pub max_chunk_line: usize,
    /// Largest trailer section, in bytes (default 16 KiB).
    pub max_trailer_bytes: usize,
    /// Largest body, in bytes (default 8 MiB): a larger `Content-Length` is refused before
    /// any body byte is read, a chunked body as soon as a chunk announces more.
    pub max_body_bytes: u64,
}

impl Default for RequestLimits {
    fn default() -> RequestLimits {
        RequestLimits {
            max_head_bytes: 64 * 1024,
            max_headers: 100,
            max_chunk_line: 4 * 1024,
            max_trailer_bytes: 16 * 1024,
            max_body_bytes: 8 * 1024 * 1024,
        }
    }
}

impl RequestLimits {
    fn body(&self) -> BodyLimits {
        BodyLimits {
            max_chunk_line: self.max_chunk_line,
            max_trailer_bytes: self.max_trailer_bytes,
            max_trailers: self.max_headers,
        }
    }
}

/// The request line and headers of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead {
    /// The method as sent (a token; methods are case-sensitive).
    pub method: String,
    /// The request target as sent (origin-form `/path?query`, or absolute-form, `*`, ...).
    pub target: String,
    /// `0` for HTTP/1.0, `1` for HTTP/1.1.
    pub minor_version: u8,
    /// Header fields in the order received.
    pub headers: Headers,
    /// How the body is delimited: [`BodyFraming::Empty`] when the request has neither
    /// `Content-Length` nor `Transfer-Encoding`, else `Length` or `Chunked` (never
    /// `UntilClose`: a request body cannot run until the close).
    pub framing: BodyFraming,
}

impl RequestHead {
    /// The `Host` value as sent, if present and UTF-8 (it was checked to be visible ASCII).
    pub fn host(&self) -> Option<&str> {
        self.headers.get_str("host")
    }

    /// The declared `Content-Length` when the body is framed by it.
    pub fn content_length(&self) -> Option<u64> {
        match self.framing {
            BodyFraming::Length(n) => Some(n),
            _ => None,
        }
    }

    /// True when an HTTP/1.1 client sent `Expect: 100-continue` and waits for an interim
    /// `100 Continue` before sending the body (RFC 9110 §10.1.1; an HTTP/1.0 request's is
    /// ignored, as the RFC says). Any other expectation was refused with 417.
    pub fn expects_continue(&self) -> bool {
        self.minor_version >= 1 && self.headers.has_token("expect", "100-continue")
    }

    /// Whether the client lets the connection carry another request after this one: HTTP/1.1
    /// unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    pub fn keep_alive(&self) -> bool {
        if self.headers.has_token("connection", "close") {
            return false;
        }
        self.minor_version >= 1 || self.headers.has_token("connection", "keep-alive")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// INVARIANT: `scanned` bytes of the unconsumed input hold no end of the head yet.
    Head {
        scanned: usize,
    },
    /// The head is read; `RequestReader::body` reads the body.
    Body,
    Done,
    Failed(RequestReadError),
}

/// A sans-IO reader for one HTTP/1.1 request (then, after [`RequestReader::reset`], the next
/// one on the same connection).
///
/// It owns no input buffer: the caller reads from its socket into its own buffer and feeds
/// the unconsumed part. Body bytes come back as slices of that buffer.
///
/// # Call order
/// - A. [`RequestReader::new`] (or [`with_limits`](RequestReader::with_limits)) when a
///   connection is accepted.
/// - B. Append bytes read from the connection to your buffer and call
///   [`feed`](RequestReader::feed) with every unconsumed byte.
/// - C. Handle the returned [`Step::event`]; only then drop [`Step::consumed`] bytes from
///   the front of your buffer.
///   - [`Event::NeedMore`]: go to B after reading more (keep the unconsumed bytes: an
///     incomplete head is not rescanned).
///   - [`Event::Head`]: the head is in [`head`](RequestReader::head); if it
///     [`expects_continue`](RequestHead::expects_continue), write `100 Continue` before
///     waiting for the body; feed the rest.
///   - [`Event::Body`]: use the bytes; feed the rest (even if it is empty).
///   - [`Event::End`]: the request is complete; answer it. Bytes after `consumed` are the
///     next request: [`reset`](RequestReader::reset) and feed them (if
///     [`RequestHead::keep_alive`] allows another request).
/// - D. When the connection reaches end of file, call [`finish`](RequestReader::finish):
///   `Ok` if it closed between requests, a typed error for a request cut short.
///
/// An error leaves the reader spent: answer with [`RequestReadError::status`] and
/// `Connection: close`, then close the connection without reading further (the rest of the
/// bytes may be a smuggled request).
///
/// ```
/// use a2a_core::http1::{Event, RequestReader};
/// let wire = b"POST /a2a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\nGET";
/// let mut reader = RequestReader::new();
/// let (mut start, mut body) = (0, Vec::new());
/// loop {
///     let step = reader.feed(&wire[start..]).unwrap();
///     if let Event::Body(bytes) = step.event {
///         body.extend_from_slice(bytes);
///     }
///     start += step.consumed;
///     match step.event {
///         Event::End => break,
///         Event::NeedMore => unreachable!("the whole request was fed"),
///         _ => {}
///     }
/// }
/// assert_eq!(reader.head().unwrap().target, "/a2a");
/// assert_eq!(body, b"{}");
/// assert_eq!(&wire[start..], b"GET", "the next request's first bytes");
///
/// let mut reader = RequestReader::new();
/// let smuggle = b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n";
/// assert_eq!(reader.feed(smuggle).unwrap_err().status(), 400);
/// ```
#[derive(Debug, Clone)]
pub struct RequestReader {
    limits: RequestLimits,
    state: State,
    head: Option<RequestHead>,
    body: BodyDecoder,
    /// Bytes of empty lines skipped before this request's request line.
    skipped: usize,
    /// True once a byte of this request's head (other than a skipped empty line) arrived.
    seen_any: bool,
}

impl Default for RequestReader {
    fn default() -> RequestReader {
        RequestReader::new()
    }
}

impl RequestReader {
    /// A reader with default [`RequestLimits`].
    pub fn new() -> RequestReader {
        RequestReader::with_limits(RequestLimits::default())
    }

    /// A reader with the given limits.
    pub fn with_limits(limits: RequestLimits) -> RequestReader {
        RequestReader {
            limits,
            state: State::Head { scanned: 0 },
            head: None,
            body: BodyDecoder::new(BodyFraming::Empty, limits.body()),
            skipped: 0,
            seen_any: false,
        }
    }

    /// Prepares for the next request on the same connection (after [`Event::End`]), keeping
    /// the limits.
    pub fn reset(&mut self) {
        *self = RequestReader::with_limits(self.limits);
    }

    /// The limits in force.
    pub fn limits(&self) -> &RequestLimits {
        &self.limits
    }

    /// The request line and headers, once [`Event::Head`] was returned.
    pub fn head(&self) -> Option<&RequestHead> {
        self.head.as_ref()
    }

    /// Trailer fields of a chunked body (empty until [`Event::End`], and for other framings).
    pub fn trailers(&self) -> &Headers {
        self.body.trailers()
    }

    /// Body bytes handed out so far.
    pub fn body_received(&self) -> u64 {
        self.body.received()
    }

    /// True once some byte of this request's head arrived (empty lines before the request
    /// line do not count): from then on a deadline for the head applies, not an idle one.
    pub fn has_started(&self) -> bool {
        self.seen_any
    }

    /// True once the request is complete.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Reads as far as `input` allows and reports one event; see the call order on the type.
    ///
    /// # Errors
    /// A [`RequestReadError`] for a malformed, ambiguous or over-limit request; the reader
    /// is then spent.
    pub fn feed<'a>(&mut self, input: &'a [u8]) -> Result<Step<'a>, RequestReadError> {
        let result = self.read(input);
        if let Err(e) = result {
            self.state = State::Failed(e);
        }
        result
    }

    /// Runs the reader of each state in turn, from the start of `input`, until one has an
    /// event to report.
    fn read<'a>(&mut self, input: &'a [u8]) -> Result<Step<'a>, RequestReadError> {
        let mut pos = 0;
        loop {
            let rest = &input[pos..];
            let progress = match self.state {
                State::Head { scanned } => self.read_head(rest, scanned)?,
                State::Body => self.read_body(rest)?,
                State::Done => Progress::report(0, Event::End),
                State::Failed(e) => return Err(e),
            };
            match progress {
                Progress::Skipped(n) => pos += n,
                Progress::Report(step) => return Ok(step.after(pos)),
            }
        }
    }

    /// The request line and headers (after any empty lines before them), checked; then the
    /// body starts.
    fn read_head<'a>(
        &mut self,
        rest: &'a [u8],
        scanned: usize,
    ) -> Result<Progress<'a>, RequestReadError> {
        if !self.seen_any {
            let lead = leading_empty_lines(rest);
            if lead > 0 {
                return self.skip_empty_lines(lead);
            }
            // A lone CR may still become an empty line.
            self.seen_any = !rest.is_empty() && rest != b"\r";
        }
        let limit = self.limits.max_head_bytes;
        let end = match scan_section(rest, scanned, false, limit) {
            SectionScan::Complete(end) => end,
            SectionScan::Incomplete { scanned } => {
                self.state = State::Head { scanned };
                return Ok(Progress::report(0, Event::NeedMore));
            }
            SectionScan::TooLarge => return Err(RequestReadError::HeadTooLarge { limit }),
        };
        let head = self.parse_head(&rest[..end])?;
        self.start_body(head);
        Ok(Progress::report(end, Event::Head))
    }

    /// RFC 9112 §2.2: empty lines before the request line are ignored (some clients send a
    /// CRLF after a body); they still count against the head limit.
    fn skip_empty_lines<'a>(&mut self, lead: usize) -> Result<Progress<'a>, RequestReadError> {
        self.skipped += lead;
        let limit = self.limits.max_head_bytes;
        if self.skipped > limit {
            return Err(RequestReadError::HeadTooLarge { limit });
        }
        self.state = State::Head { scanned: 0 };
        Ok(Progress::Skipped(lead))
    }

    /// Keeps the head and sets up the reader for its body.
    fn start_body(&mut self, head: RequestHead) {
        self.state = if head.framing == BodyFraming::Empty {
            State::Done
        } else {
            State::Body
        };
        self.body = BodyDecoder::new(head.framing, self.limits.body());
        self.head = Some(head);
    }

    /// Body bytes, through the decoder for the head's framing, within the body limit.
    fn read_body<'a>(&mut self, rest: &'a [u8]) -> Result<Progress<'a>, RequestReadError> {
        let step = self.body.feed(rest)?;
        // Checked before the bytes are handed out: a chunk that announces more than the
        // limit is refused at its size line.
        let limit = self.limits.max_body_bytes;
        if self.body.announced() > limit {
            return Err(RequestReadError::BodyTooLarge { limit });
        }
        if step.event == Event::End {
            self.state = State::Done;
        }
        Ok(Progress::Report(step))
    }

    /// Tells the reader that the connection reached end of file.
    ///
    /// # Errors
    /// - [`RequestReadError::TruncatedHead`] / [`RequestReadError::TruncatedBody`]: the
    ///   request was cut short (`Ok` when the connection closed between requests).
    /// - The earlier error, if the reader is spent.
    pub fn finish(&mut self) -> Result<(), RequestReadError> {
        let err = match self.state {
            State::Done => return Ok(()),
            State::Head { .. } if !self.seen_any => return Ok(()),
            State::Body if self.body.may_end_at_eof() => {
                self.state = State::Done;
                return Ok(());
            }
            State::Failed(e) => e,
            State::Head { .. } => RequestReadError::TruncatedHead,
            State::Body => RequestReadError::TruncatedBody {
                expected: self.head.as_ref().and_then(RequestHead::content_length),
                received: self.body.received(),
            },
        };
        self.state = State::Failed(err);
        Err(err)
    }

    fn parse_head(&self, buf: &[u8]) -> Result<RequestHead, RequestReadError> {
        let limit = self.limits.max_headers;
        let (method, target, minor_version, headers) =
            with_header_slots(limit, buf.len(), |storage| {
                let mut req = httparse::Request::new(storage);
                // httparse's defaults are a server's: obs-fold, whitespace before a colon and
                // several spaces between the request line's parts are refused (RFC 9112 §3, §5).
                match req.parse(buf) {
                    Ok(httparse::Status::Complete(n)) if n == buf.len() => {}
                    Ok(_) => return Err(RequestReadError::Malformed(HeadSyntax::NewLine)),
                    Err(httparse::Error::TooManyHeaders) => {
                        return Err(RequestReadError::TooManyHeaders { limit });
                    }
                    Err(e) => {
                        return Err(RequestReadError::Malformed(HeadSyntax::from_httparse(e)));
                    }
                }
                Ok((
                    req.method.unwrap_or("").to_owned(),
                    req.path.unwrap_or("").to_owned(),
                    req.version.unwrap_or(1),
                    Headers::from_httparse(req.headers),
                ))
            })?;
        check_host(minor_version, &headers)?;
        let framing = request_framing(minor_version, &headers, &self.limits)?;
        check_expectation(minor_version, &headers)?;
        Ok(RequestHead {
            method,
            target,
            minor_version,
            headers,
            framing,
        })
    }
}

/// How many bytes of empty lines (`CRLF` or `LF`) `buf` starts with.
fn leading_empty_lines(buf: &[u8]) -> usize {
    let mut n = 0;
    loop {
        match &buf[n..] {
            [b'\r', b'\n', ..] => n += 2,
            [b'\n', ..] => n += 1,
            _ => return n,
        }
    }
}

/// RFC 9112 §3.2: an HTTP/1.1 request has exactly one `Host`; no request has two; the value
/// is a `host[:port]` (or empty, for a target without an authority).
fn check_host(minor_version: u8, headers: &Headers) -> Result<(), RequestReadError> {
    let mut hosts = headers.get_all("host");
    match (hosts.next(), hosts.next()) {
        (_, Some(_)) => Err(RequestReadError::DuplicateHost),
        (None, _) if minor_version >= 1 => Err(RequestReadError::MissingHost),
        (None, _) => Ok(()),
        (Some([]), None) => Ok(()),
        (Some(v), None) => match std::str::from_utf8(v) {
            Ok(s) if valid_host(s) => Ok(()),
            _ => Err(RequestReadError::InvalidHost),
        },
    }
}

/// RFC 9112 §6.1 and §6.3 for a request: chunked wins only as the single, final coding, and
/// everything ambiguous is refused (see the module documentation).
fn request_framing(
    minor_version: u8,
    headers: &Headers,
    limits: &RequestLimits,
) -> Result<BodyFraming, RequestReadError> {
    if headers.get("transfer-encoding").is_some() {
        if minor_version == 0 {
            return Err(RequestReadError::TransferEncodingInHttp10);
        }
        if headers.get("content-length").is_some() {
            return Err(RequestReadError::ContentLengthWithTransferEncoding);
        }
        let (mut chunked, mut others, mut last_is_chunked) = (0usize, 0usize, false);
        for coding in transfer_codings(headers) {
            last_is_chunked = coding.eq_ignore_ascii_case(b"chunked");
            if last_is_chunked {
                chunked += 1;
            } else {
                others += 1;
            }
        }
        if !last_is_chunked || chunked != 1 {
            return Err(RequestReadError::ChunkedNotFinal);
        }
        if others > 0 {
            return Err(RequestReadError::UnsupportedTransferCoding);
        }
        return Ok(BodyFraming::Chunked);
    }
    match content_length(headers)? {
        None => Ok(BodyFraming::Empty),
        Some(n) if n > limits.max_body_bytes => Err(RequestReadError::BodyTooLarge {
            limit: limits.max_body_bytes,
        }),
        Some(n) => Ok(BodyFraming::Length(n)),
    }
}

/// RFC 9110 §10.1.1: `100-continue` is the only expectation; any other is refused with 417.
/// HTTP/1.0 requests' expectations are ignored.
fn check_expectation(minor_version: u8, headers: &Headers) -> Result<(), RequestReadError> {
    if minor_version == 0 {
        return Ok(());
    }
    let unknown = headers
        .get_all("expect")
        .flat_map(|v| v.split(|&b| b == b','))
        .map(trim_ows)
        .any(|e| !e.is_empty() && !e.eq_ignore_ascii_case(b"100-continue"));
    if unknown {
        return Err(RequestReadError::UnsupportedExpectation);
    }
    Ok(())
}
