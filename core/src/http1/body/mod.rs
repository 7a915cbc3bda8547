//! Message bodies (RFC 9112 §6–7), shared by the response parser and the request reader:
//! the `Content-Length` and `Transfer-Encoding` values read the same way on both sides, and
//! one incremental decoder for a body delimited by length, by the chunked coding (size
//! lines with bounded extensions, then bounded trailers) or by the connection closing.
//!
//! The decoder hands each `feed` to the reader of the body's framing and keeps the tally:
//!
//! ```text
//!  BodyFraming::Empty ─────────────────────────────────────────────> [Done]
//!  BodyFraming::Length(n) ──── LengthReader (n bytes) ─────────────> [Done]
//!  BodyFraming::Chunked ────── ChunkedReader (chunked.rs) ─────────> [Done] + trailers
//!  BodyFraming::UntilClose ─── read_until_close (until `finish`) ──> [Done]
//! ```
//!
//! Which framing a message has is decided by the side that knows the rules for it
//! (responses: [`super::response`], requests: [`super::request_reader`]); this module only
//! reads the fields and the body.

mod chunked;
mod length;

use super::error::{BodyError, ContentLengthError};
use super::head::{BodyFraming, Headers, trim_ows};
use super::step::{Event, Step};
use chunked::ChunkedReader;
use length::LengthReader;

/// The declared body length: every `Content-Length` field and every element of a
/// comma-separated value must be 1*DIGIT (no sign, no spaces inside, at most 20 digits and
/// within 64 bits) and all must be the same number (RFC 9110 §8.6, RFC 9112 §6.3 rule 5).
/// `Ok(None)` when there is no `Content-Length` field.
pub(crate) fn content_length(headers: &Headers) -> Result<Option<u64>, ContentLengthError> {
    let mut length: Option<u64> = None;
    // Nested loops and one pass over each item's digits (a `flat_map` over the splits and a
    // check before the sum cost about twice as much per response).
    for value in headers.get_all("content-length") {
        for item in value.split(|&b| b == b',') {
            let item = trim_ows(item);
            if item.is_empty() || item.len() > 20 {
                return Err(ContentLengthError::Invalid);
            }
            let mut n: u64 = 0;
            for &d in item {
                if !d.is_ascii_digit() {
                    return Err(ContentLengthError::Invalid);
                }
                n = n
                    .checked_mul(10)
                    .and_then(|n| n.checked_add(u64::from(d - b'0')))
                    .ok_or(ContentLengthError::Invalid)?;
            }
            match length {
                Some(prev) if prev != n => return Err(ContentLengthError::Conflicting),
                _ => length = Some(n),
            }
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

/// The reader for the way the body is delimited, one per framing (as h11 has one per framing).
#[derive(Debug, Clone, PartialEq, Eq)]
enum BodyReader {
    /// `Content-Length`: so many bytes.
    Length(LengthReader),
    /// The chunked transfer coding.
    Chunked(ChunkedReader),
    /// Everything until the connection closes.
    UntilClose,
    /// The body is complete (or there is none).
    Done,
}

/// An incremental body decoder, driven like the readers that own it: feed every unconsumed
/// byte, handle the event, then drop `consumed` bytes. Errors are not sticky here: the owner
/// records them and stops feeding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BodyDecoder {
    reader: BodyReader,
    received: u64,
    trailers: Headers,
}

impl BodyDecoder {
    /// A decoder for a body with `framing`.
    pub(crate) fn new(framing: BodyFraming, limits: BodyLimits) -> BodyDecoder {
        BodyDecoder {
            reader: match framing {
                BodyFraming::Empty => BodyReader::Done,
                BodyFraming::Length(n) => BodyReader::Length(LengthReader::new(n)),
                BodyFraming::Chunked => BodyReader::Chunked(ChunkedReader::new(limits)),
                BodyFraming::UntilClose => BodyReader::UntilClose,
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
        let owed = match &self.reader {
            BodyReader::Length(length) => length.remaining(),
            BodyReader::Chunked(chunked) => chunked.chunk_remaining(),
            BodyReader::UntilClose | BodyReader::Done => 0,
        };
        self.received.saturating_add(owed)
    }

    /// Trailer fields of a chunked body (empty until its end, and for other framings).
    pub(crate) fn trailers(&self) -> &Headers {
        &self.trailers
    }

    /// True when the body may end here if the connection closes: it is complete, runs until
    /// the close, or had a length of zero left.
    pub(crate) fn may_end_at_eof(&self) -> bool {
        match &self.reader {
            BodyReader::Done | BodyReader::UntilClose => true,
            BodyReader::Length(length) => length.is_complete(),
            BodyReader::Chunked(_) => false,
        }
    }

    /// Reads as far as `input` allows and reports one event: [`Event::NeedMore`],
    /// [`Event::Body`] (never empty) or [`Event::End`] (never [`Event::Head`]).
    pub(crate) fn feed<'a>(&mut self, input: &'a [u8]) -> Result<Step<'a>, BodyError> {
        let step = match &mut self.reader {
            BodyReader::Length(length) => length.feed(input),
            BodyReader::Chunked(chunked) => chunked.feed(input)?,
            BodyReader::UntilClose => read_until_close(input),
            BodyReader::Done => Step::new(0, Event::End),
        };
        match step.event {
            Event::Body(bytes) => self.received += bytes.len() as u64,
            Event::End => self.end(),
            Event::NeedMore | Event::Head => {}
        }
        Ok(step)
    }

    /// The body is complete: drops its reader, keeping the trailers of a chunked one.
    fn end(&mut self) {
        let finished = std::mem::replace(&mut self.reader, BodyReader::Done);
        if let BodyReader::Chunked(chunked) = finished {
            self.trailers = chunked.into_trailers();
        }
    }
}

/// A body that runs until the connection closes: every byte fed is body, and only the
/// owner's `finish` ends it.
fn read_until_close(input: &[u8]) -> Step<'_> {
    if input.is_empty() {
        Step::new(0, Event::NeedMore)
    } else {
        Step::new(input.len(), Event::Body(input))
    }
}
