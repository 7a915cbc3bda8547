//! Message bodies (RFC 9112 §6–7), shared by the response parser and the request reader:
//! the `Content-Length` and `Transfer-Encoding` values read the same way on both sides, and
//! one incremental decoder for a body delimited by length, by the chunked coding (size
//! lines with bounded extensions, then bounded trailers) or by the connection closing.
//!
//! Which framing a message has is decided by the side that knows the rules for it
//! (responses: [`super::response`], requests: [`super::request_reader`]); this module only
//! reads the fields and the body.

use super::error::{BodyError, ContentLengthError, HeadSyntax};
use super::head::{BodyFraming, Headers, trim_ows};
use super::section::{find_section_end, with_header_slots};
use super::step::{Event, Step};

/// The declared body length: every `Content-Length` field and every element of a
/// comma-separated value must be 1*DIGIT (no sign, no spaces inside, at most 20 digits and
/// within 64 bits) and all must be the same number (RFC 9110 §8.6, RFC 9112 §6.3 rule 5).
/// `Ok(None)` when there is no `Content-Length` field.
pub(crate) fn content_length(headers: &Headers) -> Result<Option<u64>, ContentLengthError> {
    let mut length: Option<u64> = None;
    for item in headers
        .get_all("content-length")
        .flat_map(|v| v.split(|&b| b == b','))
    {
        let item = trim_ows(item);
        if item.is_empty() || item.len() > 20 || !item.iter().all(u8::is_ascii_digit) {
            return Err(ContentLengthError::Invalid);
        }
        let n = item
            .iter()
            .try_fold(0u64, |acc, &d| {
                acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
            })
            .ok_or(ContentLengthError::Invalid)?;
        match length {
            Some(prev) if prev != n => return Err(ContentLengthError::Conflicting),
            _ => length = Some(n),
        }
    }
    Ok(length)
}

/// The transfer codings of every `Transfer-Encoding` field, in order, trimmed, with empty
/// list elements skipped (RFC 9110 §5.6.1).
pub(crate) fn transfer_codings(headers: &Headers) -> impl Iterator<Item = &[u8]> {
    headers
        .get_all("transfer-encoding")
        .flat_map(|v| v.split(|&b| b == b','))
        .map(trim_ows)
        .filter(|c| !c.is_empty())
}

/// Limits of the chunked coding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodyLimits {
    /// Longest chunk-size line including extensions and CRLF.
    pub max_chunk_line: usize,
    /// Largest trailer section, in bytes.
    pub max_trailer_bytes: usize,
    /// Most trailer fields.
    pub max_trailers: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
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
}

/// An incremental body decoder, driven like the readers that own it: feed every unconsumed
/// byte, handle the event, then drop `consumed` bytes. Errors are not sticky here: the owner
/// records them and stops feeding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BodyDecoder {
    limits: BodyLimits,
    state: State,
    received: u64,
    trailers: Headers,
}

impl BodyDecoder {
    /// A decoder for a body with `framing`.
    pub(crate) fn new(framing: BodyFraming, limits: BodyLimits) -> BodyDecoder {
        BodyDecoder {
            limits,
            state: match framing {
                BodyFraming::Empty => State::Done,
                BodyFraming::Length(n) => State::Length { remaining: n },
                BodyFraming::Chunked => State::ChunkSize { scanned: 0 },
                BodyFraming::UntilClose => State::UntilClose,
            },
            received: 0,
            trailers: Headers::default(),
        }
    }

    /// Body bytes handed out so far.
    pub(crate) fn received(&self) -> u64 {
        self.received
    }

    /// Body bytes handed out so far plus those the framing has announced and not yet handed
    /// out (the rest of the `Content-Length`, or of the current chunk): what the body will
    /// have grown to at least, for a limit checked before the bytes are buffered.
    pub(crate) fn announced(&self) -> u64 {
        match self.state {
            State::Length { remaining } | State::ChunkData { remaining } => {
                self.received.saturating_add(remaining)
            }
            _ => self.received,
        }
    }

    /// Trailer fields of a chunked body (empty until its end, and for other framings).
    pub(crate) fn trailers(&self) -> &Headers {
        &self.trailers
    }

    /// True when the body may end here if the connection closes: it is complete, runs until
    /// the close, or had a length of zero left.
    pub(crate) fn may_end_at_eof(&self) -> bool {
        matches!(
            self.state,
            State::Done | State::UntilClose | State::Length { remaining: 0 }
        )
    }

    /// Reads as far as `input` allows and reports one event: [`Event::NeedMore`],
    /// [`Event::Body`] (never empty) or [`Event::End`] (never [`Event::Head`]).
    #[allow(
        clippy::too_many_lines,
        reason = "the body reader's hot loop over framing states (length, chunk size, data, trailers); one loop keeps the position local, measured in benches/"
    )]
    pub(crate) fn feed<'a>(&mut self, input: &'a [u8]) -> Result<Step<'a>, BodyError> {
        let mut pos = 0usize;
        loop {
            let rest = &input[pos..];
            let step = |consumed: usize, event: Event<'a>| Ok(Step { consumed, event });
            match self.state {
                State::Done => return step(pos, Event::End),
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
                    self.received += n as u64;
                    return step(pos + n, Event::Body(&rest[..n]));
                }
                State::UntilClose => {
                    if rest.is_empty() {
                        return step(pos, Event::NeedMore);
                    }
                    self.received += rest.len() as u64;
                    return step(input.len(), Event::Body(rest));
                }
                State::ChunkSize { scanned } => {
                    let limit = self.limits.max_chunk_line;
                    let from = scanned.min(rest.len());
                    let Some(lf) = memchr::memchr(b'\n', &rest[from..]).map(|i| i + from) else {
                        if rest.len() > limit {
                            return Err(BodyError::ChunkLineTooLong { limit });
                        }
                        self.state = State::ChunkSize {
                            scanned: rest.len(),
                        };
                        return step(pos, Event::NeedMore);
                    };
                    let line = &rest[..=lf];
                    if line.len() > limit {
                        return Err(BodyError::ChunkLineTooLong { limit });
                    }
                    // httparse accepts an empty size (a bare CRLF) as 0, which would end the
                    // body early: a chunk size must start with a hex digit.
                    if !line[0].is_ascii_hexdigit() {
                        return Err(BodyError::InvalidChunkSize);
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
                        _ => return Err(BodyError::InvalidChunkSize),
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
                    self.received += n as u64;
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
                        Some(_) => return Err(BodyError::MissingChunkTerminator),
                    }
                }
                State::Trailers { scanned } => {
                    let limit = self.limits.max_trailer_bytes;
                    let Some(end) = find_section_end(rest, scanned, true) else {
                        if rest.len() > limit {
                            return Err(BodyError::TrailersTooLarge { limit });
                        }
                        self.state = State::Trailers {
                            scanned: rest.len(),
                        };
                        return step(pos, Event::NeedMore);
                    };
                    if end > limit {
                        return Err(BodyError::TrailersTooLarge { limit });
                    }
                    self.trailers = parse_trailers(&rest[..end], self.limits.max_trailers)?;
                    self.state = State::Done;
                    return step(pos + end, Event::End);
                }
            }
        }
    }
}

/// Parses a complete trailer section (`buf` ends with its empty line).
fn parse_trailers(buf: &[u8], limit: usize) -> Result<Headers, BodyError> {
    with_header_slots(limit, buf.len(), |storage| {
        match httparse::parse_headers(buf, storage) {
            Ok(httparse::Status::Complete((n, fields))) if n == buf.len() => {
                Ok(Headers::from_httparse(fields))
            }
            Ok(_) => Err(BodyError::MalformedTrailers(HeadSyntax::NewLine)),
            Err(httparse::Error::TooManyHeaders) => Err(BodyError::TooManyTrailers { limit }),
            Err(e) => Err(BodyError::MalformedTrailers(HeadSyntax::from_httparse(e))),
        }
    })
}

/// `min(remaining, available)` as a `usize` without lossy casts.
fn take(remaining: u64, available: usize) -> usize {
    usize::try_from(remaining).map_or(available, |r| r.min(available))
}
