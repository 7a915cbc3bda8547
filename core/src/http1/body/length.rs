//! The reader for a run of body bytes whose length is known in advance: a body delimited by
//! `Content-Length`, and the data of one chunk of a chunked body.

use crate::http1::step::{Event, Step};

/// Hands out exactly `remaining` more body bytes, as slices of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LengthReader {
    remaining: u64,
}

impl LengthReader {
    /// A reader for `length` bytes.
    pub(crate) fn new(length: u64) -> LengthReader {
        LengthReader { remaining: length }
    }

    /// Bytes announced and not yet handed out.
    pub(crate) fn remaining(&self) -> u64 {
        self.remaining
    }

    /// True once every announced byte was handed out.
    pub(crate) fn is_complete(&self) -> bool {
        self.remaining == 0
    }

    /// [`Event::End`] when nothing is owed, else the owed bytes at the front of `input`
    /// ([`Event::Body`], never empty) or [`Event::NeedMore`] when `input` is empty.
    pub(crate) fn feed<'a>(&mut self, input: &'a [u8]) -> Step<'a> {
        if self.is_complete() {
            return Step::new(0, Event::End);
        }
        if input.is_empty() {
            return Step::new(0, Event::NeedMore);
        }
        let n = usize::try_from(self.remaining).map_or(input.len(), |r| r.min(input.len()));
        self.remaining -= n as u64;
        Step::new(n, Event::Body(&input[..n]))
    }
}
