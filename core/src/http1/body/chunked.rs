//! The reader for a body in the chunked transfer coding (RFC 9112 §7.1): chunk-size lines
//! (extensions ignored, length bounded), chunk data, the CRLF after it, and after the last
//! (zero-size) chunk the trailer section (bounded, parsed and kept).
//!
//! ```text
//!  ──> [SizeLine] ── size n > 0 ──> [Data] ── n bytes ──> [DataCr] ──> [DataLf] ──┐
//!         │  ^                                                                  │
//!         │  └──────────────────────────────────────────────────────────────────┘
//!         └── size 0 ──> [Trailers] ── empty line ──> End
//! ```
//!
//! Each part has its own reader below; [`ChunkedReader::feed`] runs them in turn until one
//! has an event to report, so that framing bytes never surface as an event of their own.

use super::BodyLimits;
use super::length::LengthReader;
use crate::http1::error::{BodyError, HeadSyntax};
use crate::http1::head::Headers;
use crate::http1::section::{SectionScan, scan_section, with_header_slots};
use crate::http1::step::{Event, Progress, Step};

/// The part of the chunked coding read next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// A chunk-size line: hex size, extensions, line end.
    /// INVARIANT: `scanned` bytes of the unconsumed input hold no LF yet.
    SizeLine { scanned: usize },
    /// The data of a chunk (never empty: a size of zero starts the trailers).
    Data(LengthReader),
    /// The CR that ends a chunk's data.
    DataCr,
    /// The LF that ends a chunk's data.
    DataLf,
    /// The trailer section after the last chunk, up to and with its empty line.
    /// INVARIANT: `scanned` bytes of the unconsumed input hold no end of the trailers yet.
    Trailers { scanned: usize },
}

/// Reads a chunked body: hands out chunk data, skips the framing, and keeps the trailers.
/// Its owner stops feeding it after [`Event::End`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChunkedReader {
    limits: BodyLimits,
    part: Part,
    trailers: Headers,
}

impl ChunkedReader {
    /// A reader at the first chunk-size line.
    pub(crate) fn new(limits: BodyLimits) -> ChunkedReader {
        ChunkedReader {
            limits,
            part: Part::SizeLine { scanned: 0 },
            trailers: Headers::default(),
        }
    }

    /// Data bytes the current chunk announced and has not yet handed out.
    pub(crate) fn chunk_remaining(&self) -> u64 {
        match self.part {
            Part::Data(data) => data.remaining(),
            _ => 0,
        }
    }

    /// The trailer fields (empty before [`Event::End`]).
    pub(crate) fn into_trailers(self) -> Headers {
        self.trailers
    }

    /// Reads parts until one has an event for the owner: [`Event::NeedMore`],
    /// [`Event::Body`] (chunk data, never empty) or [`Event::End`] (after the trailers).
    pub(crate) fn feed<'a>(&mut self, input: &'a [u8]) -> Result<Step<'a>, BodyError> {
        let mut pos = 0;
        loop {
            let rest = &input[pos..];
            let progress = match self.part {
                Part::SizeLine { scanned } => self.read_size_line(rest, scanned)?,
                Part::Data(data) => self.read_data(rest, data),
                Part::DataCr => self.read_byte(rest, b'\r', Part::DataLf)?,
                Part::DataLf => self.read_byte(rest, b'\n', Part::SizeLine { scanned: 0 })?,
                Part::Trailers { scanned } => self.read_trailers(rest, scanned)?,
            };
            match progress {
                Progress::Skipped(n) => pos += n,
                Progress::Report(step) => return Ok(step.after(pos)),
            }
        }
    }

    /// A chunk-size line: skipped once complete, moving to the chunk's data or, for size
    /// zero, to the trailers.
    fn read_size_line<'a>(
        &mut self,
        rest: &'a [u8],
        scanned: usize,
    ) -> Result<Progress<'a>, BodyError> {
        let limit = self.limits.max_chunk_line;
        let from = scanned.min(rest.len());
        let Some(lf) = memchr::memchr(b'\n', &rest[from..]).map(|i| i + from) else {
            if rest.len() > limit {
                return Err(BodyError::ChunkLineTooLong { limit });
            }
            self.part = Part::SizeLine {
                scanned: rest.len(),
            };
            return Ok(Progress::report(0, Event::NeedMore));
        };
        let line = &rest[..=lf];
        if line.len() > limit {
            return Err(BodyError::ChunkLineTooLong { limit });
        }
        self.part = match chunk_size(line)? {
            0 => Part::Trailers { scanned: 0 },
            size => Part::Data(LengthReader::new(size)),
        };
        Ok(Progress::Skipped(line.len()))
    }

    /// Chunk data: the bytes at hand, up to the end of the chunk.
    fn read_data<'a>(&mut self, rest: &'a [u8], mut data: LengthReader) -> Progress<'a> {
        let step = data.feed(rest);
        self.part = if data.is_complete() {
            Part::DataCr
        } else {
            Part::Data(data)
        };
        Progress::Report(step)
    }

    /// One byte of the line end after chunk data, which must be `want`; then `next`.
    fn read_byte<'a>(
        &mut self,
        rest: &'a [u8],
        want: u8,
        next: Part,
    ) -> Result<Progress<'a>, BodyError> {
        match rest.first() {
            None => Ok(Progress::report(0, Event::NeedMore)),
            Some(&b) if b == want => {
                self.part = next;
                Ok(Progress::Skipped(1))
            }
            Some(_) => Err(BodyError::MissingChunkTerminator),
        }
    }

    /// The trailer section: kept once complete, which ends the body.
    fn read_trailers<'a>(
        &mut self,
        rest: &'a [u8],
        scanned: usize,
    ) -> Result<Progress<'a>, BodyError> {
        let limit = self.limits.max_trailer_bytes;
        match scan_section(rest, scanned, true, limit) {
            SectionScan::TooLarge => Err(BodyError::TrailersTooLarge { limit }),
            SectionScan::Incomplete { scanned } => {
                self.part = Part::Trailers { scanned };
                Ok(Progress::report(0, Event::NeedMore))
            }
            SectionScan::Complete(end) => {
                self.trailers = parse_trailers(&rest[..end], self.limits.max_trailers)?;
                Ok(Progress::report(end, Event::End))
            }
        }
    }
}

/// The size of a complete chunk-size `line` (extensions ignored).
fn chunk_size(line: &[u8]) -> Result<u64, BodyError> {
    // httparse accepts an empty size (a bare CRLF) as 0, which would end the body early: a
    // chunk size must start with a hex digit.
    if !line[0].is_ascii_hexdigit() {
        return Err(BodyError::InvalidChunkSize);
    }
    match httparse::parse_chunk_size(line) {
        Ok(httparse::Status::Complete((n, size))) if n == line.len() => Ok(size),
        _ => Err(BodyError::InvalidChunkSize),
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
