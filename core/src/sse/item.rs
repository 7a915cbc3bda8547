//! What the decoder hands out: events, comments, retry updates, and the end-of-stream report.

use std::borrow::Cow;
use std::str::Utf8Error;

/// UTF-8 validation of a value: simdutf8 (SIMD, chosen at run time: AVX2 or SSE 4.2 on x86,
/// NEON on aarch64; short values go to the standard library's check) says whether it is
/// valid; only invalid input is checked again by the standard library, for the position
/// its [`Utf8Error`] reports.
#[inline]
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(_) => std::str::from_utf8(bytes),
    }
}

/// [`String::from_utf8_lossy`], borrowed without a second pass when [`utf8`] finds the bytes
/// valid.
#[inline]
pub(crate) fn utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// One output of [`Feed::next_item`](super::Feed::next_item), borrowing the fed chunk or the
/// decoder's buffer until the next call on the feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item<'a> {
    /// A dispatched event (a block ended by a blank line, with at least one `data` field).
    Event(Event<'a>),
    /// A comment line (`:` first). Servers send these as keep-alives: treat one as a
    /// liveness signal. With [`Config::comment_text`](super::Config::comment_text) set, the
    /// bytes after the colon exactly as sent (a leading space is kept); otherwise (the
    /// default) always empty.
    Comment(&'a [u8]),
    /// A valid `retry` field: the server's new reconnection time in milliseconds. Applied
    /// when the line is read (not at dispatch), as the spec says; also kept in
    /// [`Decoder::retry`](super::Decoder::retry).
    Retry(u64),
}

/// A dispatched event. All values are raw bytes; UTF-8 accessors are provided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<'a> {
    /// The event type: the last `event` field of the block, or `message` when there was
    /// none or it was empty.
    pub event_type: &'a [u8],
    /// The `data` values of the block joined with LF (no trailing LF). May be empty.
    pub data: &'a [u8],
    /// The last event ID in effect (it persists across events until an `id` field changes
    /// it); empty when none was ever set.
    pub id: &'a [u8],
}

impl<'a> Event<'a> {
    /// The data as UTF-8, or the error of the first invalid byte.
    pub fn data_str(&self) -> Result<&'a str, Utf8Error> {
        utf8(self.data)
    }

    /// The data as UTF-8, invalid sequences replaced by U+FFFD (borrowed when valid).
    pub fn data_lossy(&self) -> Cow<'a, str> {
        utf8_lossy(self.data)
    }

    /// The event type as UTF-8.
    pub fn event_type_str(&self) -> Result<&'a str, Utf8Error> {
        utf8(self.event_type)
    }

    /// The event type as UTF-8 with U+FFFD replacements.
    pub fn event_type_lossy(&self) -> Cow<'a, str> {
        utf8_lossy(self.event_type)
    }

    /// The last event ID as UTF-8.
    pub fn id_str(&self) -> Result<&'a str, Utf8Error> {
        utf8(self.id)
    }

    /// The last event ID as UTF-8 with U+FFFD replacements.
    pub fn id_lossy(&self) -> Cow<'a, str> {
        utf8_lossy(self.id)
    }
}

/// The result of [`Decoder::finish`](super::Decoder::finish).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Finish<'a> {
    /// With [`AtEof::Dispatch`](super::AtEof::Dispatch): the event dispatched from the
    /// unterminated block, if it had data. Always `None` with the default rule.
    pub event: Option<Event<'a>>,
    /// With [`AtEof::Discard`](super::AtEof::Discard): what the WHATWG rule dropped, or
    /// `None` when the stream ended cleanly at a block boundary.
    pub discarded: Option<Discarded>,
    /// With [`AtEof::Dispatch`](super::AtEof::Dispatch): processing the unterminated last
    /// line went over [`Config::max_event`](super::Config::max_event); nothing was dispatched.
    pub error: Option<LimitError>,
}

use super::LimitError;

/// What the end-of-stream rule dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Discarded {
    /// Bytes after the last line terminator (an unterminated last line, or a partial BOM).
    pub partial_line: usize,
    /// A blank line at this point would have dispatched an event: the block in progress had
    /// a `data` field (the unterminated last line included, if it is one).
    pub event: bool,
    /// The block in progress set an event ID that was therefore not committed (the
    /// unterminated last line included, if it is a valid `id` field).
    pub id: bool,
}
