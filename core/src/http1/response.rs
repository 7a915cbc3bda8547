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

use super::error::ResponseError;
use super::head::{BodyFraming, Headers, ResponseHead, trim_ows};

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

/// What the parser produced from one [`ResponseParser::feed`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// Nothing more can be read from these bytes: read more, append them after the
    /// unconsumed bytes, and feed again. Not an error.
    NeedMore,
    /// The final status line and headers are complete: see [`ResponseParser::head`].
    Head,
    /// Body bytes, borrowed from the fed input (transfer framing removed). Feed the rest of
    /// the input (even if empty) to continue.
    Body(&'a [u8]),
    /// The response is complete. Input after `consumed` belongs to the next response.
    End,
}

/// The result of one [`ResponseParser::feed`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "the caller must drop `consumed` bytes from the front of its buffer"]
pub struct Step<'a> {
    /// Bytes of the fed input that are used up. Drop them from the front of your buffer
    /// *after* handling `event` (which may borrow them), and before the next `feed`.
    pub consumed: usize,
    /// What happened.
    pub event: Event<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// INVARIANT: `scanned` bytes of the unconsumed input hold no end of the head yet.
    Head {
        scanned: usize,
    },
    Length {
        remaining: u64,
    },
    UntilClose,
    /// INVARIANT: `scanned` bytes of the unconsumed input hold no LF yet.
    ChunkSize {
        scanned: usize,
    },
    ChunkData {
        remaining: u64,
    },
    ChunkCr,
    ChunkLf,
    /// INVARIANT: `scanned` bytes of the unconsumed input hold no end of the trailers yet.
    Trailers {
        scanned: usize,
    },
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
    trailers: Headers,
    informational: usize,
    seen_any: bool,
    body_received: u64,
}

/// Finds the end of a header section (the byte after its empty line) in `buf`, looking only
/// at line feeds from `from` on. `at_line_start` says that `buf` starts a line, so that an
/// empty section (`\r\n` or `\n` at once) ends immediately, as trailers may.
fn find_section_end(buf: &[u8], from: usize, at_line_start: bool) -> Option<usize> {
    let from = from.min(buf.len());
    for off in memchr::memchr_iter(b'\n', &buf[from..]) {
        let i = from + off;
        let empty_line = match i {
            0 => at_line_start,
            1 => buf[0] == b'\n' || (at_line_start && buf[0] == b'\r'),
            _ => buf[i - 1] == b'\n' || (buf[i - 1] == b'\r' && buf[i - 2] == b'\n'),
        };
        if empty_line {
            return Some(i + 1);
        }
    }
    None
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
    let has_te = headers.get("transfer-encoding").is_some();
    let has_cl = headers.get("content-length").is_some();
    if has_te {
        if has_cl {
            return Err(ResponseError::ContentLengthWithTransferEncoding);
        }
        let mut codings = headers
            .get_all("transfer-encoding")
            .flat_map(|v| v.split(|&b| b == b','))
            .map(trim_ows)
            .filter(|c| !c.is_empty());
        return match (codings.next(), codings.next()) {
            (Some(c), None) if c.eq_ignore_ascii_case(b"chunked") => Ok(BodyFraming::Chunked),
            _ => Err(ResponseError::UnsupportedTransferCoding),
        };
    }
    if has_cl {
        let mut length: Option<u64> = None;
        for item in headers
            .get_all("content-length")
            .flat_map(|v| v.split(|&b| b == b','))
        {
            let item = trim_ows(item);
            if item.is_empty() || item.len() > 20 || !item.iter().all(u8::is_ascii_digit) {
                return Err(ResponseError::InvalidContentLength);
            }
            let n = item
                .iter()
                .try_fold(0u64, |acc, &d| {
                    acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
                })
                .ok_or(ResponseError::InvalidContentLength)?;
            match length {
                Some(prev) if prev != n => return Err(ResponseError::ConflictingContentLength),
                _ => length = Some(n),
            }
        }
        return Ok(BodyFraming::Length(length.unwrap_or(0)));
    }
    Ok(BodyFraming::UntilClose)
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
            trailers: Headers::default(),
            informational: 0,
            seen_any: false,
            body_received: 0,
        }
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
        &self.trailers
    }

    /// Body bytes handed out so far.
    pub fn body_received(&self) -> u64 {
        self.body_received
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

    fn fail(&mut self, e: ResponseError) -> Result<Step<'static>, ResponseError> {
        self.state = State::Failed(e);
        Err(e)
    }

    /// Reads as far as `input` allows and reports one event; see the call order on the type.
    ///
    /// # Errors
    /// A [`ResponseError`] for malformed or over-limit input; the parser is then spent.
    pub fn feed<'a>(&mut self, input: &'a [u8]) -> Result<Step<'a>, ResponseError> {
        let mut pos = 0usize;
        loop {
            let rest = &input[pos..];
            let step = |consumed: usize, event: Event<'a>| Ok(Step { consumed, event });
            match self.state {
                State::Failed(e) => return Err(e),
                State::Done => return step(pos, Event::End),
                State::Head { scanned } => {
                    if !rest.is_empty() {
                        self.seen_any = true;
                    }
                    let limit = self.limits.max_head_bytes;
                    let Some(end) = find_section_end(rest, scanned, false) else {
                        if rest.len() > limit {
                            return self.fail(ResponseError::HeadTooLarge { limit });
                        }
                        self.state = State::Head {
                            scanned: rest.len(),
                        };
                        return step(pos, Event::NeedMore);
                    };
                    if end > limit {
                        return self.fail(ResponseError::HeadTooLarge { limit });
                    }
                    let head = match self.parse_head(&rest[..end]) {
                        Ok(h) => h,
                        Err(e) => return self.fail(e),
                    };
                    pos += end;
                    if (100..200).contains(&head.status) {
                        if head.status == 101 {
                            return self.fail(ResponseError::UnexpectedUpgrade);
                        }
                        self.informational += 1;
                        if self.informational > self.limits.max_informational {
                            let limit = self.limits.max_informational;
                            return self.fail(ResponseError::TooManyInformational { limit });
                        }
                        self.state = State::Head { scanned: 0 };
                        continue;
                    }
                    self.state = match head.framing {
                        BodyFraming::Empty => State::Done,
                        BodyFraming::Length(n) => State::Length { remaining: n },
                        BodyFraming::Chunked => State::ChunkSize { scanned: 0 },
                        BodyFraming::UntilClose => State::UntilClose,
                    };
                    self.head = Some(head);
                    return step(pos, Event::Head);
                }
                State::Length { remaining } => {
                    if remaining == 0 {
                        self.state = State::Done;
                        continue;
                    }
                    if rest.is_empty() {
                        return step(pos, Event::NeedMore);
                    }
                    let n = take(remaining, rest.len());
                    self.state = State::Length {
                        remaining: remaining - n as u64,
                    };
                    self.body_received += n as u64;
                    return step(pos + n, Event::Body(&rest[..n]));
                }
                State::UntilClose => {
                    if rest.is_empty() {
                        return step(pos, Event::NeedMore);
                    }
                    self.body_received += rest.len() as u64;
                    return step(input.len(), Event::Body(rest));
                }
                State::ChunkSize { scanned } => {
                    let limit = self.limits.max_chunk_line;
                    let from = scanned.min(rest.len());
                    let Some(lf) = memchr::memchr(b'\n', &rest[from..]).map(|i| i + from) else {
                        if rest.len() > limit {
                            return self.fail(ResponseError::ChunkLineTooLong { limit });
                        }
                        self.state = State::ChunkSize {
                            scanned: rest.len(),
                        };
                        return step(pos, Event::NeedMore);
                    };
                    let line = &rest[..=lf];
                    if line.len() > limit {
                        return self.fail(ResponseError::ChunkLineTooLong { limit });
                    }
                    // httparse accepts an empty size (a bare CRLF) as 0, which would end the
                    // body early: a chunk size must start with a hex digit.
                    if !line[0].is_ascii_hexdigit() {
                        return self.fail(ResponseError::InvalidChunkSize);
                    }
                    match httparse::parse_chunk_size(line) {
                        Ok(httparse::Status::Complete((n, size))) if n == line.len() => {
                            pos += n;
                            self.state = if size == 0 {
                                State::Trailers { scanned: 0 }
                            } else {
                                State::ChunkData { remaining: size }
                            };
                        }
                        _ => return self.fail(ResponseError::InvalidChunkSize),
                    }
                }
                State::ChunkData { remaining } => {
                    if rest.is_empty() {
                        return step(pos, Event::NeedMore);
                    }
                    let n = take(remaining, rest.len());
                    let left = remaining - n as u64;
                    self.state = if left == 0 {
                        State::ChunkCr
                    } else {
                        State::ChunkData { remaining: left }
                    };
                    self.body_received += n as u64;
                    return step(pos + n, Event::Body(&rest[..n]));
                }
                State::ChunkCr | State::ChunkLf => {
                    let (want, next) = if self.state == State::ChunkCr {
                        (b'\r', State::ChunkLf)
                    } else {
                        (b'\n', State::ChunkSize { scanned: 0 })
                    };
                    match rest.first() {
                        None => return step(pos, Event::NeedMore),
                        Some(&b) if b == want => {
                            pos += 1;
                            self.state = next;
                        }
                        Some(_) => return self.fail(ResponseError::MissingChunkTerminator),
                    }
                }
                State::Trailers { scanned } => {
                    let limit = self.limits.max_trailer_bytes;
                    let Some(end) = find_section_end(rest, scanned, true) else {
                        if rest.len() > limit {
                            return self.fail(ResponseError::TrailersTooLarge { limit });
                        }
                        self.state = State::Trailers {
                            scanned: rest.len(),
                        };
                        return step(pos, Event::NeedMore);
                    };
                    if end > limit {
                        return self.fail(ResponseError::TrailersTooLarge { limit });
                    }
                    match self.parse_trailers(&rest[..end]) {
                        Ok(t) => self.trailers = t,
                        Err(e) => return self.fail(e),
                    }
                    self.state = State::Done;
                    return step(pos + end, Event::End);
                }
            }
        }
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
            State::UntilClose | State::Length { remaining: 0 } => {
                self.state = State::Done;
                return Ok(());
            }
            State::Failed(e) => e,
            State::Head { .. } if !self.seen_any => ResponseError::ClosedBeforeResponse,
            State::Head { .. } => ResponseError::TruncatedHead,
            State::Length { .. } => ResponseError::TruncatedBody {
                expected: self.head.as_ref().and_then(ResponseHead::content_length),
                received: self.body_received,
            },
            State::ChunkSize { .. }
            | State::ChunkData { .. }
            | State::ChunkCr
            | State::ChunkLf
            | State::Trailers { .. } => ResponseError::TruncatedBody {
                expected: None,
                received: self.body_received,
            },
        };
        self.state = State::Failed(err);
        Err(err)
    }

    fn parse_head(&self, buf: &[u8]) -> Result<ResponseHead, ResponseError> {
        let limit = self.limits.max_headers;
        let slots = header_slots(limit, buf.len());
        let mut stack = [httparse::EMPTY_HEADER; STACK_SLOTS];
        let mut heap = Vec::new();
        let storage = if slots <= STACK_SLOTS {
            &mut stack[..slots]
        } else {
            heap.resize(slots, httparse::EMPTY_HEADER);
            &mut heap[..]
        };
        let mut resp = httparse::Response::new(storage);
        // RFC 9112 §5.2: a user agent must accept obs-fold in a response (and replace it
        // with spaces, which `Headers::from_httparse` does).
        let parsed = httparse::ParserConfig::default()
            .allow_obsolete_multiline_headers_in_responses(true)
            .parse_response(&mut resp, buf);
        match parsed {
            Ok(httparse::Status::Complete(n)) if n == buf.len() => {}
            Ok(_) => return Err(ResponseError::Malformed(super::HeadSyntax::NewLine)),
            Err(httparse::Error::TooManyHeaders) => {
                return Err(ResponseError::TooManyHeaders { limit });
            }
            Err(e) => return Err(ResponseError::Malformed(ResponseError::from_httparse(e))),
        }
        let status = resp
            .code
            .ok_or(ResponseError::Malformed(super::HeadSyntax::Status))?;
        let headers = Headers::from_httparse(resp.headers);
        let framing = if (100..200).contains(&status) {
            BodyFraming::Empty
        } else {
            body_framing(status, self.head_request, &headers)?
        };
        Ok(ResponseHead {
            status,
            reason: resp.reason.unwrap_or("").to_owned(),
            minor_version: resp.version.unwrap_or(1),
            headers,
            framing,
        })
    }

    fn parse_trailers(&self, buf: &[u8]) -> Result<Headers, ResponseError> {
        let limit = self.limits.max_headers;
        let slots = header_slots(limit, buf.len());
        let mut stack = [httparse::EMPTY_HEADER; STACK_SLOTS];
        let mut heap = Vec::new();
        let storage = if slots <= STACK_SLOTS {
            &mut stack[..slots]
        } else {
            heap.resize(slots, httparse::EMPTY_HEADER);
            &mut heap[..]
        };
        match httparse::parse_headers(buf, storage) {
            Ok(httparse::Status::Complete((n, fields))) if n == buf.len() => {
                Ok(Headers::from_httparse(fields))
            }
            Ok(_) => Err(ResponseError::MalformedTrailers(super::HeadSyntax::NewLine)),
            Err(httparse::Error::TooManyHeaders) => Err(ResponseError::TooManyTrailers { limit }),
            Err(e) => Err(ResponseError::MalformedTrailers(
                ResponseError::from_httparse(e),
            )),
        }
    }
}

/// Header slots kept on the stack; larger sections use the heap.
const STACK_SLOTS: usize = 48;

/// Header storage for a section of `len` bytes: a field takes at least 3 bytes (`a:` and
/// LF), so more slots than `len / 3 + 1` can never be filled. This keeps the allocation
/// proportional to the input even when the configured limit is huge.
fn header_slots(limit: usize, len: usize) -> usize {
    limit.min(len / 3 + 1)
}

/// `min(remaining, available)` as a `usize` without lossy casts.
fn take(remaining: u64, available: usize) -> usize {
    usize::try_from(remaining).map_or(available, |r| r.min(available))
}
