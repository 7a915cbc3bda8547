//! Decoder configuration: limits and the end-of-stream rule, and the limit error.

/// Default [`Config::max_line`]: 16 MiB.
///
/// A2A carries a file part base64-encoded inside one `data:` line of one event, so the line
/// limit bounds the largest file part a stream can carry (about 12 MiB of file once encoded).
pub const DEFAULT_MAX_LINE: usize = 16 * 1024 * 1024;

/// Default [`Config::max_event`]: 16 MiB, the same as the line limit, so that one file part
/// sent as a single `data:` line fits in one event.
pub const DEFAULT_MAX_EVENT: usize = 16 * 1024 * 1024;

/// What [`Decoder::finish`](super::Decoder::finish) does with a block that was not ended
/// by a blank line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AtEof {
    /// The WHATWG rule: drop the unterminated block (and an unterminated last line) and
    /// report what was dropped in [`Finish::discarded`](super::Finish::discarded).
    #[default]
    Discard,
    /// Process an unterminated last line as if it ended, then dispatch the block as if a
    /// blank line followed (what the Java, JavaScript and Go A2A SDKs do).
    Dispatch,
}

/// Limits and options of a [`Decoder`](super::Decoder).
///
/// Memory held by a decoder is bounded by about `max_line + max_event` bytes, whatever the
/// input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// Longest line, in bytes, without its terminator (after a leading BOM is removed).
    /// Every line counts, whatever its field. Default [`DEFAULT_MAX_LINE`].
    pub max_line: usize,
    /// Largest event, in bytes of its data: the `data` values of one block joined with LF,
    /// as the event would be dispatched. Default [`DEFAULT_MAX_EVENT`].
    pub max_event: usize,
    /// End-of-stream rule. Default [`AtEof::Discard`] (WHATWG).
    pub at_eof: AtEof,
    /// Hand out the text of comment lines in [`Item::Comment`](super::Item::Comment).
    /// Default `false`: A2A servers send comments only as keep-alives, so every comment is
    /// still reported (as a liveness signal) but with empty text, and a comment line that
    /// spans chunks is never copied or held in memory (it still counts for `max_line`).
    /// Set it for a general-purpose client that shows or logs comments.
    pub comment_text: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config::new()
    }
}

impl Config {
    /// The defaults: 16 MiB lines, 16 MiB events, WHATWG end of stream, no comment text.
    pub const fn new() -> Config {
        Config {
            max_line: DEFAULT_MAX_LINE,
            max_event: DEFAULT_MAX_EVENT,
            at_eof: AtEof::Discard,
            comment_text: false,
        }
    }

    /// Sets [`Config::max_line`].
    pub const fn with_max_line(mut self, bytes: usize) -> Config {
        self.max_line = bytes;
        self
    }

    /// Sets [`Config::max_event`].
    pub const fn with_max_event(mut self, bytes: usize) -> Config {
        self.max_event = bytes;
        self
    }

    /// Sets [`Config::at_eof`].
    pub const fn with_at_eof(mut self, at_eof: AtEof) -> Config {
        self.at_eof = at_eof;
        self
    }

    /// Sets [`Config::comment_text`].
    pub const fn with_comment_text(mut self, on: bool) -> Config {
        self.comment_text = on;
        self
    }
}

/// Input went over a limit of [`Config`].
///
/// Not fatal: the decoder has already dropped what it held of the event in progress, skips
/// the rest of that event (through its blank line) and decodes the next one. Keep calling
/// [`Feed::next_item`](super::Feed::next_item).
///
/// Lines of that event before the error keep their effect (a `retry` was applied, an `id` is
/// committed when the event's blank line arrives, as for any block that dispatches nothing);
/// lines after it, up to the blank line, are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitError {
    /// A line was longer than [`Config::max_line`].
    #[error("SSE line longer than max_line ({limit} bytes); the event was discarded")]
    LineTooLong {
        /// The limit in force, in bytes.
        limit: usize,
    },
    /// An event's data grew larger than [`Config::max_event`].
    #[error("SSE event data larger than max_event ({limit} bytes); the event was discarded")]
    EventTooLarge {
        /// The limit in force, in bytes.
        limit: usize,
    },
}

impl LimitError {
    /// The name of the limit: `"max_line"` or `"max_event"` (as in fixtures and the CLI).
    pub fn limit_name(&self) -> &'static str {
        match self {
            LimitError::LineTooLong { .. } => "max_line",
            LimitError::EventTooLarge { .. } => "max_event",
        }
    }

    /// The limit in force, in bytes.
    pub fn limit(&self) -> usize {
        match *self {
            LimitError::LineTooLong { limit } | LimitError::EventTooLarge { limit } => limit,
        }
    }
}
