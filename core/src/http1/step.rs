//! What one `feed` call of an incremental reader reports: the event and how many bytes of the
//! input it used up. Shared by the response parser and the request reader, which are driven
//! the same way, and by the per-state readers inside them ([`Progress`]).

/// What the reader produced from one `feed` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// Nothing more can be read from these bytes: read more, append them after the
    /// unconsumed bytes, and feed again. Not an error.
    NeedMore,
    /// The head is complete (a response's final status line and headers, or a request's
    /// request line and headers): see the reader's `head()`.
    Head,
    /// Body bytes, borrowed from the fed input (transfer framing removed). Feed the rest of
    /// the input (even if empty) to continue.
    Body(&'a [u8]),
    /// The message is complete. Input after `consumed` belongs to the next message.
    End,
}

/// The result of one `feed` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "the caller must drop `consumed` bytes from the front of its buffer"]
pub struct Step<'a> {
    /// Bytes of the fed input that are used up. Drop them from the front of your buffer
    /// *after* handling `event` (which may borrow them), and before the next `feed`.
    pub consumed: usize,
    /// What happened.
    pub event: Event<'a>,
}

impl<'a> Step<'a> {
    /// A step that used `consumed` bytes and reports `event`.
    pub(crate) fn new(consumed: usize, event: Event<'a>) -> Step<'a> {
        Step { consumed, event }
    }

    /// The same step counted from `offset` bytes earlier in the input, for a reader that
    /// used `offset` bytes of framing before it.
    pub(crate) fn after(self, offset: usize) -> Step<'a> {
        Step {
            consumed: offset + self.consumed,
            event: self.event,
        }
    }
}

/// What the reader of one state did with the bytes in front of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progress<'a> {
    /// It used this many bytes that carry no event (a skipped 1xx head or empty line, a
    /// chunk-size line, a CR or LF) and moved to the next state: read on after them.
    Skipped(usize),
    /// Stop and report this step, counted from the first byte the state's reader saw.
    Report(Step<'a>),
}

impl<'a> Progress<'a> {
    /// Stop and report `event` after `consumed` bytes.
    pub(crate) fn report(consumed: usize, event: Event<'a>) -> Progress<'a> {
        Progress::Report(Step::new(consumed, event))
    }
}
