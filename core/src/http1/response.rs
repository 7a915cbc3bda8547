//! Incremental, zero-copy reading of an HTTP/1.1 response.
//!
//! ```text
//!            ┌──────── 1xx (skipped) ───────┐
//!            v                              │
//!  ──> [Head] ──status line + headers──> framing?
//!                                           ├─ Empty (HEAD, 204, 304) ──────────────> [Done]
//!                                           ├─ Length(n) ── n body bytes ───────────> [Done]
//!                                           ├─ Chunked ── size line ─┬─ data, CRLF ─┐
//!                                           │            ^           │              │
//!                                           │            └───────────┼──────────────┘
//!                                           │                        └─ 0: trailers ─> [Done]
//!                                           └─ UntilClose ── body until finish() ───> [Done]
//! ```
//!
//! Each state has its own reader: `read_head` for `Head` (a 1xx head goes through
//! `skip_informational`, a final one through `start_body`), `read_body` for the body (the
//! decoder in `body/` picks the reader for the framing), and `Done` reports the end. `feed`
//! runs them in turn until one has an event to report, and records an error as sticky.

use super::body::{BodyDecoder, BodyLimits, content_length, transfer_codings};
use super::error::{HeadSyntax, ResponseError};
use super::head::{BodyFraming, Headers, ResponseHead};
use super::section::{SectionScan, scan_section, with_header_slots};
use super::step::{Event, Progress, Step};

/// Limits that keep memory and work bounded whatever the server sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest status line plus header block, in bytes (default 64 KiB). The caller's buffer
    /// must be able to hold this much, because the head is parsed in one piece.
    pub max_head_bytes: usize,
    /// Most header fields in the head, and most fields in the trailer section (default 100).
    pub max_headers: usize,
    /// Most 1xx informational responses skipped before the final one (default 16).
    pub max_informational: usize,
    /// Longest chunk-size line including extensions and CRLF (default 4 KiB).
    pub max_chunk_line: usize,
    /// Largest trailer section, in bytes (default 16 KiB).
    pub max_trailer_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_head_bytes: 64 * 1024,
            max_headers: 100,
            max_informational: 16,
            max_chunk_line: 4 * 1024,
            max_trailer_bytes: 16 * 1024,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// INVARIANT: `scanned` bytes of the unconsumed input hold no end of the head yet.
    Head {
        scanned: usize,
    },
    /// The head is read; `ResponseParser::body` reads the body.
    Body,
    Done,
    Failed(ResponseError),
}

/// A sans-IO reader for one HTTP/1.1 response (then, after [`ResponseParser::reset`], the
/// next one on the same connection).
///
/// It owns no input buffer: the caller reads from its socket into its own buffer and feeds
/// the unconsumed part. Body bytes come back as slices of that buffer (zero-copy), ready to
/// be pushed into the SSE decoder or a JSON parser.
///
/// # Call order
/// - A. [`ResponseParser::new`] with the request's method once the request is sent (a
///   response to `HEAD` has no body).
/// - B. Append bytes read from the connection to your buffer and call
///   [`feed`](ResponseParser::feed) with every unconsumed byte (from the first byte not yet
///   consumed up to the end of what you have).
/// - C. Handle the returned [`Step::event`]; only then drop [`Step::consumed`] bytes from
///   the front of your buffer.
///   - [`Event::NeedMore`]: go to B after reading more. While the head (or a chunk-size
///     line, or the trailers) is incomplete, `consumed` stays short of the end: keep those
///     bytes and feed them again with the new ones. They are not rescanned.
///   - [`Event::Head`]: the head is in [`head`](ResponseParser::head); feed the rest.
///   - [`Event::Body`]: use the bytes; feed the rest (even if it is empty).
///   - [`Event::End`]: done. [`reusable`](ResponseParser::reusable) tells whether the
///     connection may carry another request.
/// - D. When the connection reaches end of file, call [`finish`](ResponseParser::finish):
///   `Ok` for a clean end (a close-delimited body ends this way), a typed error for a
///   response cut short.
///
/// An error leaves the parser spent: every later call returns the same error.
///
/// ```
/// use a2a_core::http1::{Event, ResponseParser};
/// let wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\n\r\n";
/// let mut parser = ResponseParser::new("POST");
/// let (mut start, mut body) = (0, Vec::new());
/// loop {
///     let step = parser.feed(&wire[start..]).unwrap();
///     if let Event::Body(bytes) = step.event {
///         body.extend_from_slice(bytes);
///     }
///     start += step.consumed;
///     match step.event {
///         Event::End => break,
///         Event::NeedMore => unreachable!("the whole response was fed"),
///         _ => {}
///     }
/// }
/// assert_eq!(parser.head().unwrap().status, 200);
/// assert_eq!(body, b"hello");
/// ```
#[derive(Debug, Clone)]
pub struct ResponseParser {
    limits: Limits,
    head_request: bool,
    state: State,
    head: Option<ResponseHead>,
    body: BodyDecoder,
    informational: usize,
    seen_any: bool,
    /// Frame bodies as ureq does ([`ResponseParser::ureq_framing`]).
    ureq_framing: bool,
}

/// RFC 9112 §6.3: how the body of a final response is delimited.
fn body_framing(
    status: u16,
    head_request: bool,
    headers: &Headers,
) -> Result<BodyFraming, ResponseError> {
    if head_request || ResponseHead::status_forbids_body(status) {
        return Ok(BodyFraming::Empty);
    }
    if headers.get("transfer-encoding").is_some() {
        if headers.get("content-length").is_some() {
            return Err(ResponseError::ContentLengthWithTransferEncoding);
        }
        let mut codings = transfer_codings(headers);
        return match (codings.next(), codings.next()) {
            (Some(c), None) if c.eq_ignore_ascii_case(b"chunked") => Ok(BodyFraming::Chunked),
            _ => Err(ResponseError::UnsupportedTransferCoding),
        };
    }
    Ok(content_length(headers)?.map_or(BodyFraming::UntilClose, BodyFraming::Length))
}

/// ureq-proto 0.7's framing ([`ResponseParser::ureq_framing`]).
fn ureq_body_framing(
    status: u16,
    head_request: bool,
    minor_version: u8,
    headers: &Headers,
) -> Result<BodyFraming, ResponseError> {
    if head_request || ResponseHead::status_forbids_body(status) {
        return Ok(BodyFraming::Empty);
    }
    let length = content_length(headers)?;
    let chunked = headers
        .get_all("transfer-encoding")
        .flat_map(|v| v.split(|&b| b == b','))
        .any(|c| c.trim_ascii().eq_ignore_ascii_case(b"chunked"));
    if chunked && minor_version != 0 {
        return Ok(BodyFraming::Chunked);
    }
    Ok(length.map_or(BodyFraming::UntilClose, BodyFraming::Length))
}

impl Limits {
    fn body(&self) -> BodyLimits {
        BodyLimits {
            max_chunk_line: self.max_chunk_line,
            max_trailer_bytes: self.max_trailer_bytes,
            max_trailers: self.max_headers,
        }
    }
}

impl ResponseParser {
    /// A parser for the response to a request sent with `method`, with default [`Limits`].
    pub fn new(method: &str) -> ResponseParser {
        ResponseParser::with_limits(method, Limits::default())
    }

    /// A parser for the response to a request sent with `method`, with the given limits.
    pub fn with_limits(method: &str, limits: Limits) -> ResponseParser {
        ResponseParser {
            limits,
            head_request: method.eq_ignore_ascii_case("HEAD"),
            state: State::Head { scanned: 0 },
            head: None,
            body: BodyDecoder::new(BodyFraming::Empty, limits.body()),
            informational: 0,
            seen_any: false,
            ureq_framing: false,
        }
    }

    /// Reads the head and frames the body as ureq 3.5 (ureq-proto 0.7) does, for the driver's
    /// plain-HTTP fast path, which must read every answer as the ureq path reads it: no
    /// obs-fold in header lines, and a `Transfer-Encoding`
    /// naming `chunked` anywhere means chunked (a `Content-Length` beside it ignored, other
    /// codings not refused) except on HTTP/1.0, where it is ignored; else `Content-Length`,
    /// else until close. RFC 9112 §6.3 (this reader's own rules) refuses those answers.
    #[cfg(feature = "driver")]
    pub(crate) fn ureq_framing(mut self) -> ResponseParser {
        self.ureq_framing = true;
        self
    }

    /// Prepares for the next response on the same connection (after [`Event::End`] with
    /// [`reusable`](ResponseParser::reusable) true), keeping the limits.
    pub fn reset(&mut self, method: &str) {
        *self = ResponseParser::with_limits(method, self.limits);
    }

    /// The final response's status line and headers, once [`Event::Head`] was returned.
    pub fn head(&self) -> Option<&ResponseHead> {
        self.head.as_ref()
    }

    /// Trailer fields of a chunked response (empty until [`Event::End`], and for other framings).
    pub fn trailers(&self) -> &Headers {
        self.body.trailers()
    }

    /// Body bytes handed out so far.
    pub fn body_received(&self) -> u64 {
        self.body.received()
    }

    /// How many 1xx informational responses were skipped.
    pub fn informational_skipped(&self) -> usize {
        self.informational
    }

    /// True once the response is complete.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// True when the response is complete and the connection may carry another request.
    pub fn reusable(&self) -> bool {
        self.state == State::Done && self.head.as_ref().is_some_and(ResponseHead::keep_alive)
    }

    /// Reads as far as `input` allows and reports one event; see the call order on the type.
    ///
    /// # Errors
    /// A [`ResponseError`] for malformed or over-limit input; the parser is then spent.
    pub fn feed<'a>(&mut self, input: &'a [u8]) -> Result<Step<'a>, ResponseError> {
        let result = self.read(input);
        if let Err(e) = result {
            self.state = State::Failed(e);
        }
        result
    }

    /// Runs the reader of each state in turn, from the start of `input`, until one has an
    /// event to report.
    fn read<'a>(&mut self, input: &'a [u8]) -> Result<Step<'a>, ResponseError> {
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

    /// The status line and headers: a 1xx head is skipped, a final one starts the body.
    fn read_head<'a>(
        &mut self,
        rest: &'a [u8],
        scanned: usize,
    ) -> Result<Progress<'a>, ResponseError> {
        if !rest.is_empty() {
            self.seen_any = true;
        }
        let limit = self.limits.max_head_bytes;
        let end = match scan_section(rest, scanned, false, limit) {
            SectionScan::Complete(end) => end,
            SectionScan::Incomplete { scanned } => {
                self.state = State::Head { scanned };
                return Ok(Progress::report(0, Event::NeedMore));
            }
            SectionScan::TooLarge => return Err(ResponseError::HeadTooLarge { limit }),
        };
        let head = self.parse_head(&rest[..end])?;
        if (100..200).contains(&head.status) {
            self.skip_informational(head.status)?;
            return Ok(Progress::Skipped(end));
        }
        self.start_body(head);
        Ok(Progress::report(end, Event::Head))
    }

    /// Counts a 1xx response and waits for the next head (101 is refused: no upgrade was
    /// asked for).
    fn skip_informational(&mut self, status: u16) -> Result<(), ResponseError> {
        if status == 101 {
            return Err(ResponseError::UnexpectedUpgrade);
        }
        self.informational += 1;
        let limit = self.limits.max_informational;
        if self.informational > limit {
            return Err(ResponseError::TooManyInformational { limit });
        }
        self.state = State::Head { scanned: 0 };
        Ok(())
    }

    /// Keeps the final head and sets up the reader for its body.
    fn start_body(&mut self, head: ResponseHead) {
        self.state = if head.framing == BodyFraming::Empty {
            State::Done
        } else {
            State::Body
        };
        self.body = BodyDecoder::new(head.framing, self.limits.body());
        self.head = Some(head);
    }

    /// Body bytes, through the decoder for the head's framing.
    fn read_body<'a>(&mut self, rest: &'a [u8]) -> Result<Progress<'a>, ResponseError> {
        let step = self.body.feed(rest)?;
        if step.event == Event::End {
            self.state = State::Done;
        }
        Ok(Progress::Report(step))
    }

    /// Tells the parser that the connection reached end of file.
    ///
    /// # Errors
    /// - [`ResponseError::ClosedBeforeResponse`]: not a single byte arrived (a stale pooled
    ///   connection; the request may not have been processed).
    /// - [`ResponseError::TruncatedHead`] / [`ResponseError::TruncatedBody`]: the response was
    ///   cut short.
    /// - The earlier error, if the parser is spent.
    pub fn finish(&mut self) -> Result<(), ResponseError> {
        let err = match self.state {
            State::Done => return Ok(()),
            State::Body if self.body.may_end_at_eof() => {
                self.state = State::Done;
                return Ok(());
            }
            State::Failed(e) => e,
            State::Head { .. } if !self.seen_any => ResponseError::ClosedBeforeResponse,
            State::Head { .. } => ResponseError::TruncatedHead,
            State::Body => ResponseError::TruncatedBody {
                expected: self.head.as_ref().and_then(ResponseHead::content_length),
                received: self.body.received(),
            },
        };
        self.state = State::Failed(err);
        Err(err)
    }

    fn parse_head(&self, buf: &[u8]) -> Result<ResponseHead, ResponseError> {
        let limit = self.limits.max_headers;
        let (status, reason, minor_version, headers) =
            with_header_slots(limit, buf.len(), |storage| {
                let mut resp = httparse::Response::new(storage);
                // RFC 9112 §5.2: a user agent must accept obs-fold in a response (and replace
                // it with spaces, which `Headers::from_httparse` does); ureq refuses it.
                let parsed = httparse::ParserConfig::default()
                    .allow_obsolete_multiline_headers_in_responses(!self.ureq_framing)
                    .parse_response(&mut resp, buf);
                match parsed {
                    Ok(httparse::Status::Complete(n)) if n == buf.len() => {}
                    Ok(_) => return Err(ResponseError::Malformed(HeadSyntax::NewLine)),
                    Err(httparse::Error::TooManyHeaders) => {
                        return Err(ResponseError::TooManyHeaders { limit });
                    }
                    Err(e) => return Err(ResponseError::Malformed(HeadSyntax::from_httparse(e))),
                }
                let status = resp
                    .code
                    .ok_or(ResponseError::Malformed(HeadSyntax::Status))?;
                Ok((
                    status,
                    resp.reason.unwrap_or("").to_owned(),
                    resp.version.unwrap_or(1),
                    Headers::from_httparse(resp.headers),
                ))
            })?;
        let framing = if (100..200).contains(&status) {
            BodyFraming::Empty
        } else if self.ureq_framing {
            ureq_body_framing(status, self.head_request, minor_version, &headers)?
        } else {
            body_framing(status, self.head_request, &headers)?
        };
        Ok(ResponseHead {
            status,
            reason,
            minor_version,
            headers,
            framing,
        })
    }
}
