//! What one `feed` call of an incremental reader reports: the event and how many bytes of the
//! input it used up. Shared by the response parser and the request reader, which are driven
//! the same way.

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
