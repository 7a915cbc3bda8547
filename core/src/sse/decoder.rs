//! The incremental decoder: line splitting, field processing, dispatch, end of stream.

use std::mem;

use memchr::memchr2;

use super::line::{
    Field, KeepAliveShape, SHORT, find_eol, find_eol_comment, find_eol_long, find_eol_tiny,
    id_is_valid, parse_retry, split,
};
use super::{AtEof, Config, Discarded, Event, Finish, Item, LimitError};

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const MESSAGE: &[u8] = b"message";
/// Length of a held line from which its buffer grows by 8 rather than 2 (`grow_line_slow`).
const LONG_LINE: usize = 1024;

/// The least capacity the line buffer grows to (see `grow_line_slow`).
const MIN_LINE: usize = 64;

/// What is kept of a line that began in an earlier chunk (meaningful while
/// `Decoder::partial_len > 0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Its bytes, in `Decoder::line`.
    Line,
    /// A comment with its text (`Config::comment_text` on): its bytes, colon first, in
    /// `Decoder::line`. Next to `Line`, so that `hold_more` tells the two kinds that keep
    /// bytes from the others with one comparison.
    CommentText,
    /// Nothing: it is a comment and its text is not wanted (`Config::comment_text` off).
    Comment,
    /// Nothing: it went over `max_line`, or its block is being skipped; drop it to its end.
    Skip,
}

/// Where a pending value of the block in progress lives.
///
/// INVARIANT: `Chunk` only exists while a [`Feed`] is alive; it indexes that feed's chunk.
/// [`Feed`]'s `Drop` turns every `Chunk` into `Owned`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Not set in this block.
    Unset,
    /// `chunk[start..end]` of the live feed.
    Chunk(usize, usize),
    /// In the decoder's buffer for this value (`data_buf[data_off..]` for data).
    Owned,
}

/// An incremental, zero-copy decoder for a `text/event-stream` body (WHATWG HTML
/// §9.2.5–9.2.6, "event stream interpretation").
///
/// Bytes in, [`Item`]s out; no I/O. Values are bytes: a field whose line lies whole inside
/// the chunk being fed is handed out as a slice of that chunk; only a line that spans chunks,
/// or `data` made of several lines, is copied into the decoder's buffers (reused, so a
/// long-lived decoder stops allocating once they have grown).
///
/// # Call order
/// 1. [`Decoder::new`] or [`Decoder::with_config`] (once per connection, or reuse one).
/// 2. For every chunk of the body as it arrives (any size, split anywhere, empty allowed):
///    [`Decoder::feed`], then call [`Feed::next_item`] until it returns `Ok(None)`.
///    "Need more bytes" is `Ok(None)`, never an error. An `Err` is a [`LimitError`] that is
///    not fatal: keep calling `next_item`. Each item borrows the chunk and the decoder until
///    the next call on the feed; copy what you keep.
///    If you stop early (drop the feed before `Ok(None)`), the bytes after
///    [`Feed::consumed`] were not read: feed them again before any new bytes.
/// 3. At the end of the body: [`Decoder::finish`] (the WHATWG rule drops an unterminated
///    block and reports it; [`AtEof::Dispatch`] dispatches it instead). The decoder is then
///    ready for a new stream.
/// 4. Between connections (reconnect with `Last-Event-ID`): [`Decoder::last_event_id`], and
///    [`Decoder::reset_for_reconnect`] if the old stream was not finished.
///
/// ```
/// use a2a_core::sse::{Decoder, Item};
/// let mut decoder = Decoder::new();
/// let mut seen = Vec::new();
/// for chunk in [&b"id: 7\ndata: hel"[..], b"lo\r", b"\n\n: ping\n"] {
///     let mut feed = decoder.feed(chunk);
///     while let Some(item) = feed.next_item().expect("within limits") {
///         match item {
///             Item::Event(e) => seen.push((e.data_lossy().into_owned(), e.id.to_vec())),
///             Item::Comment(_) => { /* liveness signal */ }
///             Item::Retry(_) => {}
///         }
///     }
/// }
/// assert_eq!(seen, [("hello".to_string(), b"7".to_vec())]);
/// assert!(decoder.finish().discarded.is_none());
/// ```
#[derive(Debug, Clone)]
pub struct Decoder {
    config: Config,
    /// No byte of this stream has been decided yet: a leading BOM may still come.
    at_start: bool,
    /// Bytes of a leading BOM matched so far (only while `at_start`).
    bom_matched: u8,
    /// The last chunk ended with CR: drop one LF at the start of the next non-empty chunk.
    skip_lf: bool,
    /// The unterminated line carried over from earlier chunks when `held` is `Line` (its
    /// contents mean nothing while `partial_len` is 0: a completed comment handed out from it
    /// stays there until the next line needs the buffer, which clears it first).
    pub(crate) line: Vec<u8>,
    /// Length of the current unterminated line (held, marked or skipped); 0 between lines.
    /// While it is not 0 the line-start states (`at_start`, `skip_lf`) are false.
    partial_len: usize,
    /// What is kept of the unterminated line (only while `partial_len > 0`).
    held: Held,
    /// A limit error happened in this block: ignore lines until a blank line.
    skip_block: bool,
    /// The `data` of the block in progress.
    data: Slot,
    /// Owned data lives at `data_buf[data_off..]`.
    data_buf: Vec<u8>,
    data_off: usize,
    /// Length of the data joined so far (for `max_event`).
    data_len: usize,
    /// The `event` type of the block in progress.
    event_type: Slot,
    type_buf: Vec<u8>,
    /// An `id` set in the block in progress, committed at its end.
    pending_id: Slot,
    pid_buf: Vec<u8>,
    /// The last event ID string (committed).
    last_id: Vec<u8>,
    /// (data, type) of the event being handed out by `next_item`.
    dispatched: (Slot, Slot),
    /// The last valid `retry` value.
    retry: Option<u64>,
    /// `finish` handed out borrows: reset the stream state on the next call.
    needs_reset: bool,
    /// A value slot may be `Slot::Chunk` (set with every such slot, cleared when the feed
    /// ends): the end of a feed tests this one flag, not the three slots. Still set when a
    /// feed starts, it means the last feed was leaked (`mem::forget`) with borrowed values.
    borrowing: bool,
    /// The last keep-alive the short path found: the next line start that repeats its bytes
    /// is decided without a search.
    keep_alive: KeepAliveShape,
    /// Bytes examined by the terminator search (test-only proof of linear scanning).
    #[cfg(test)]
    pub(crate) scanned: usize,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::new()
    }
}

impl Decoder {
    /// A decoder with the default [`Config`].
    pub fn new() -> Decoder {
        Decoder::with_config(Config::new())
    }

    /// A decoder with the given limits and end-of-stream rule.
    pub fn with_config(config: Config) -> Decoder {
        Decoder {
            config,
            at_start: true,
            bom_matched: 0,
            skip_lf: false,
            line: Vec::new(),
            partial_len: 0,
            held: Held::Line,
            skip_block: false,
            data: Slot::Unset,
            data_buf: Vec::new(),
            data_off: 0,
            data_len: 0,
            event_type: Slot::Unset,
            type_buf: Vec::new(),
            pending_id: Slot::Unset,
            pid_buf: Vec::new(),
            last_id: Vec::new(),
            dispatched: (Slot::Unset, Slot::Unset),
            retry: None,
            needs_reset: false,
            borrowing: false,
            keep_alive: KeepAliveShape::NONE,
            #[cfg(test)]
            scanned: 0,
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Starts feeding one chunk; drain it with [`Feed::next_item`].
    #[inline]
    pub fn feed<'d, 'c>(&'d mut self, chunk: &'c [u8]) -> Feed<'d, 'c> {
        // One test for the two rare states: a stream to reset after `finish`, values that a
        // leaked feed left borrowing its (gone) chunk.
        if self.needs_reset | self.borrowing {
            self.prepare_slow();
        }
        Feed {
            dec: self,
            chunk,
            pos: 0,
        }
    }

    /// The last event ID string: the id committed by the last block that ended (an `id`
    /// persists until another `id` field changes it). Send it as `Last-Event-ID` when
    /// reconnecting (it never contains NUL, CR or LF).
    pub fn last_event_id(&self) -> &[u8] {
        &self.last_id
    }

    /// Sets the last event ID (for example one persisted from an earlier process).
    /// An id containing NUL is refused and returns `false`, as the spec ignores such ids.
    pub fn set_last_event_id(&mut self, id: &[u8]) -> bool {
        if !id_is_valid(id) || memchr2(b'\r', b'\n', id).is_some() {
            return false;
        }
        self.last_id.clear();
        self.last_id.extend_from_slice(id);
        true
    }

    /// The last valid `retry` value (reconnection time in milliseconds) seen on any stream of
    /// this decoder, if any.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Forgets the stream in progress (without reporting it) and prepares for a new
    /// connection: a new BOM check, empty line, data and type buffers. Keeps the last event
    /// ID and the retry value, which belong to the event source, not to one connection.
    pub fn reset_for_reconnect(&mut self) {
        self.reset_stream();
    }

    /// Ends the stream (end of the response body).
    ///
    /// With [`AtEof::Discard`] (the default, WHATWG) an unterminated last line and an
    /// unterminated block are dropped, an `id` in that block is not committed, and
    /// [`Finish::discarded`] says what was dropped. With [`AtEof::Dispatch`] the last line is
    /// processed as if terminated and the block dispatched as if a blank line followed.
    /// Either way the decoder is then ready for a new stream (as after
    /// [`Decoder::reset_for_reconnect`]).
    #[allow(
        clippy::too_many_lines,
        reason = "end of stream for every state the decoder can be in, per the WHATWG rules, one arm each"
    )]
    pub fn finish(&mut self) -> Finish<'_> {
        self.prepare_slow();
        self.needs_reset = true;
        let bom_bytes = if self.at_start {
            usize::from(self.bom_matched)
        } else {
            0
        };
        let held = self.partial_len > 0;
        if !held {
            // The buffer may still hold a comment handed out earlier.
            self.line.clear();
        }
        if self.at_start && self.bom_matched > 0 {
            // A partial BOM at the very end is content of the (unterminated) first line.
            self.line
                .extend_from_slice(&BOM[..usize::from(self.bom_matched)]);
        }
        let partial_line = self.partial_len + bom_bytes;
        let skipping = (held && self.held == Held::Skip) || self.skip_block;
        // A comment held without its text: nothing in `line`, and no effect at the end.
        let text_less_comment = held && self.held == Held::Comment;
        match self.config.at_eof {
            AtEof::Discard => {
                let (mut event, mut id) = (false, false);
                if !skipping {
                    event = self.data != Slot::Unset;
                    id = self.pending_id != Slot::Unset;
                    if !text_less_comment && !self.line.is_empty() && self.line[0] != b':' {
                        let (field, at) = split(&self.line);
                        match field {
                            Field::Data => event = true,
                            Field::Id => id = id || id_is_valid(&self.line[at..]),
                            _ => {}
                        }
                    }
                }
                let discarded = (partial_line > 0 || event || id).then_some(Discarded {
                    partial_line,
                    event,
                    id,
                });
                Finish {
                    event: None,
                    discarded,
                    error: None,
                }
            }
            AtEof::Dispatch => {
                if skipping {
                    return Finish::default();
                }
                if bom_bytes > 0 && partial_line > self.config.max_line {
                    // Held as a possible BOM until now, these bytes turned out to be a line
                    // over the limit: the same error a feed gives for any such line.
                    return Finish {
                        event: None,
                        discarded: None,
                        error: Some(LimitError::LineTooLong {
                            limit: self.config.max_line,
                        }),
                    };
                }
                let mut error = None;
                if partial_line > 0 && !text_less_comment {
                    let line = mem::take(&mut self.line);
                    match self.process_line(&line, Origin::Line) {
                        Ok(Step::Adopt(off)) => self.adopt_data(line, off),
                        Ok(_) => self.line = line,
                        Err(e) => {
                            self.line = line;
                            error = Some(e);
                        }
                    }
                }
                if error.is_some() || !self.commit_block() {
                    return Finish {
                        event: None,
                        discarded: None,
                        error,
                    };
                }
                let (data, ty) = (self.data, self.event_type);
                self.data = Slot::Unset;
                self.event_type = Slot::Unset;
                let event = Event {
                    event_type: self.owned_type(ty),
                    data: self.owned_data(data),
                    id: &self.last_id,
                };
                Finish {
                    event: Some(event),
                    discarded: None,
                    error: None,
                }
            }
        }
    }

    /// The rare work before a feed or `finish`: a [`Feed`] that was leaked (`mem::forget`)
    /// never moved its borrowed values into the decoder (they index a chunk that is gone:
    /// drop them rather than read the wrong bytes), and a reset deferred by `finish` while
    /// its result borrowed the buffers.
    #[cold]
    fn prepare_slow(&mut self) {
        if self.borrowing {
            self.borrowing = false;
            for slot in [&mut self.data, &mut self.event_type, &mut self.pending_id] {
                if matches!(slot, Slot::Chunk(..)) {
                    *slot = Slot::Unset;
                }
            }
        }
        if self.needs_reset {
            self.reset_stream();
        }
    }

    #[cold]
    fn reset_stream(&mut self) {
        self.needs_reset = false;
        self.at_start = true;
        self.bom_matched = 0;
        self.skip_lf = false;
        self.line.clear();
        self.partial_len = 0;
        self.held = Held::Line;
        self.skip_block = false;
        self.borrowing = false;
        self.data = Slot::Unset;
        self.data_len = 0;
        self.event_type = Slot::Unset;
        self.pending_id = Slot::Unset;
    }

    /// Dispatch steps 1–2: commits the pending id; returns whether the block has data to
    /// dispatch (if not, the data and type buffers are cleared).
    #[inline]
    fn commit_block_with(&mut self, chunk: &[u8]) -> bool {
        match self.pending_id {
            Slot::Unset => {}
            Slot::Chunk(s, e) => {
                self.last_id.clear();
                self.last_id.extend_from_slice(&chunk[s..e]);
            }
            Slot::Owned => mem::swap(&mut self.last_id, &mut self.pid_buf),
        }
        self.pending_id = Slot::Unset;
        if matches!(self.data, Slot::Unset) {
            self.event_type = Slot::Unset;
            return false;
        }
        self.data_len = 0;
        true
    }

    /// [`Decoder::commit_block_with`] when no feed is alive (no `Chunk` slots).
    fn commit_block(&mut self) -> bool {
        self.commit_block_with(&[])
    }

    fn owned_data(&self, slot: Slot) -> &[u8] {
        match slot {
            Slot::Owned => &self.data_buf[self.data_off..],
            _ => &[],
        }
    }

    fn owned_type(&self, slot: Slot) -> &[u8] {
        match slot {
            Slot::Owned if !self.type_buf.is_empty() => &self.type_buf,
            _ => MESSAGE,
        }
    }

    /// Takes a completed line held in `line` as the owned data value starting at `off`.
    fn adopt_data(&mut self, mut line: Vec<u8>, off: usize) {
        mem::swap(&mut line, &mut self.data_buf);
        self.data_off = off;
        self.data = Slot::Owned;
        line.clear();
        self.line = line;
    }

    /// Processes one complete, non-skipped line (WHATWG "process the line").
    ///
    /// `line` is either `chunk[base..]` (origin `Chunk(base)`) or the decoder's own line
    /// buffer (origin `Line`).
    #[inline]
    fn process_line(&mut self, line: &[u8], origin: Origin) -> Result<Step, LimitError> {
        if self.skip_block {
            if line.is_empty() {
                self.skip_block = false;
                return Ok(Step::EndBlock);
            }
            return Ok(Step::Nothing);
        }
        if line.is_empty() {
            return Ok(Step::EndBlock);
        }
        if line[0] == b':' {
            return Ok(Step::Comment(1));
        }
        let (field, at) = split(line);
        let value = &line[at..];
        match field {
            Field::Data => {
                let new_len = match self.data {
                    Slot::Unset => value.len(),
                    _ => self.data_len + 1 + value.len(),
                };
                if new_len > self.config.max_event {
                    return Err(self.limit_hit(LimitError::EventTooLarge {
                        limit: self.config.max_event,
                    }));
                }
                self.data_len = new_len;
                match (self.data, origin) {
                    (Slot::Unset, Origin::Chunk(base)) => {
                        self.data = Slot::Chunk(base + at, base + line.len());
                        self.borrowing = true;
                    }
                    (Slot::Unset, Origin::Line) => return Ok(Step::Adopt(at)),
                    (Slot::Chunk(s, e), _) => {
                        // Only reachable inside a feed: `Feed::advance` joins with its chunk.
                        return Ok(Step::Join(s, e, at));
                    }
                    (Slot::Owned, _) => {
                        self.data_buf.push(b'\n');
                        self.data_buf.extend_from_slice(value);
                    }
                }
            }
            Field::Event => match origin {
                Origin::Chunk(base) => {
                    self.event_type = Slot::Chunk(base + at, base + line.len());
                    self.borrowing = true;
                }
                Origin::Line => {
                    self.type_buf.clear();
                    self.type_buf.extend_from_slice(value);
                    self.event_type = Slot::Owned;
                }
            },
            Field::Id => {
                if id_is_valid(value) {
                    match origin {
                        Origin::Chunk(base) => {
                            self.pending_id = Slot::Chunk(base + at, base + line.len());
                            self.borrowing = true;
                        }
                        Origin::Line => {
                            self.pid_buf.clear();
                            self.pid_buf.extend_from_slice(value);
                            self.pending_id = Slot::Owned;
                        }
                    }
                }
            }
            Field::Retry => {
                if let Some(ms) = parse_retry(value) {
                    self.retry = Some(ms);
                    return Ok(Step::Retry(ms));
                }
            }
            Field::Other => {}
        }
        Ok(Step::Nothing)
    }

    /// A limit was hit in the block in progress: drop what it holds, skip to its end.
    #[cold]
    fn limit_hit(&mut self, err: LimitError) -> LimitError {
        self.skip_block = true;
        self.data = Slot::Unset;
        self.data_len = 0;
        self.event_type = Slot::Unset;
        err
    }

    /// Moves values that borrow the chunk into the decoder's buffers (end of a feed).
    #[inline]
    fn stash(&mut self, chunk: &[u8]) {
        if self.borrowing {
            self.stash_slow(chunk);
        }
    }

    #[cold]
    fn stash_slow(&mut self, chunk: &[u8]) {
        self.borrowing = false;
        if let Slot::Chunk(s, e) = self.data {
            self.data_buf.clear();
            self.data_buf.extend_from_slice(&chunk[s..e]);
            self.data_off = 0;
            self.data = Slot::Owned;
        }
        if let Slot::Chunk(s, e) = self.event_type {
            self.type_buf.clear();
            self.type_buf.extend_from_slice(&chunk[s..e]);
            self.event_type = Slot::Owned;
        }
        if let Slot::Chunk(s, e) = self.pending_id {
            self.pid_buf.clear();
            self.pid_buf.extend_from_slice(&chunk[s..e]);
            self.pending_id = Slot::Owned;
        }
    }

    /// The chunk ends inside a line that starts at `bytes[0]` (`bytes` not empty): holds
    /// what the line will need (nothing when its block is skipped, only its kind for a
    /// comment without text, else the bytes).
    #[inline]
    fn hold_new(&mut self, bytes: &[u8]) -> Result<(), LimitError> {
        self.partial_len = bytes.len();
        if self.skip_block {
            // In a skipped block a non-empty line cannot end it: drop the line.
            self.held = Held::Skip;
            return Ok(());
        }
        self.held = Held::Line;
        if bytes[0] == b':' {
            if !self.config.comment_text {
                self.held = Held::Comment;
                if bytes.len() > self.config.max_line {
                    return Err(self.partial_line_too_long());
                }
                return Ok(());
            }
            self.held = Held::CommentText;
        }
        // The buffer may still hold a comment handed out earlier.
        self.line.clear();
        self.grow_line(bytes)
    }

    /// The chunk ends inside a line held from earlier chunks: `bytes` is its part in this
    /// chunk. Kept as the line's kind says; `partial_len` enforces `max_line` for a comment
    /// without text, the buffer's length for a held line.
    #[inline]
    fn hold_more(&mut self, bytes: &[u8]) -> Result<(), LimitError> {
        self.partial_len += bytes.len();
        match self.held {
            Held::Line | Held::CommentText => self.grow_line(bytes),
            Held::Comment if self.partial_len > self.config.max_line => {
                Err(self.partial_line_too_long())
            }
            Held::Comment | Held::Skip => Ok(()),
        }
    }

    /// The unterminated line went over `max_line`: drop it, skip it to its end.
    #[cold]
    fn partial_line_too_long(&mut self) -> LimitError {
        self.line.clear();
        self.held = Held::Skip;
        self.limit_hit(LimitError::LineTooLong {
            limit: self.config.max_line,
        })
    }

    /// Appends bytes of an unterminated line, enforcing `max_line` without ever holding more.
    #[inline]
    fn grow_line(&mut self, bytes: &[u8]) -> Result<(), LimitError> {
        let needed = self.line.len() + bytes.len();
        if needed <= self.config.max_line && append_small(&mut self.line, bytes) {
            return Ok(());
        }
        if needed <= self.line.capacity() && needed <= self.config.max_line {
            self.line.extend_from_slice(bytes);
            return Ok(());
        }
        self.grow_line_slow(bytes)
    }

    #[cold]
    fn grow_line_slow(&mut self, bytes: &[u8]) -> Result<(), LimitError> {
        let needed = self.line.len() + bytes.len();
        if needed > self.config.max_line {
            return Err(self.partial_line_too_long());
        }
        if needed > self.line.capacity() {
            // Grow geometrically, but never past the limit: by 2 while the line is short
            // (a held line of a few hundred bytes keeps little spare), by 8 once it needs
            // 1 KiB. A line that spans many chunks (a 40 KB value in 1 460-byte segments, a
            // 256 KiB line) is copied again on every reallocation: by 2 that is about once
            // more in all, by 8 a seventh (benches/README.md, issue 28 item 1).
            let cap = self.line.capacity();
            let factor = if needed >= LONG_LINE { 8 } else { 2 };
            // At least `MIN_LINE` at once: a short line dripped in small chunks (a comment
            // with its text, a data line whose buffer the event took) keeps the 8 spare bytes
            // `append_small` needs instead of growing 4 -> 8 -> 16 -> 32 and leaving it for
            // `extend_from_slice`'s `memcpy` call whenever fewer than 8 are spare.
            let target = needed
                .max(cap * factor)
                .max(MIN_LINE)
                .min(self.config.max_line);
            self.line.reserve_exact(target - self.line.len());
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }
}

/// Appends 0 to 8 bytes to `buf` without a `memcpy` call when its spare capacity holds 8
/// (a line dripped in small chunks appends a few bytes per chunk, and the call would cost
/// more than the copy): 8 zero bytes are appended, the bytes copied over them with
/// fixed-size copies (two overlapping halves for 4 to 8 bytes, three single bytes for 1 to
/// 3), and the length cut back. Returns `false`, appending nothing, when the bytes are more
/// than 8 or the capacity is short. (Assembling the 8 bytes in a local word first would make
/// the 8-byte read of that word wait for its two narrower writes: a store-forwarding stall
/// that costs more than the call.)
#[inline(always)]
fn append_small(buf: &mut Vec<u8>, bytes: &[u8]) -> bool {
    let (len, n) = (buf.len(), bytes.len());
    if n > 8 || buf.capacity() - len < 8 {
        return false;
    }
    // Within capacity: no reallocation; the bytes past `n` are cut off again.
    buf.extend_from_slice(&[0u8; 8]);
    let dst = &mut buf[len..len + 8];
    if n >= 4 {
        dst[..4].copy_from_slice(&bytes[..4]);
        dst[n - 4..n].copy_from_slice(&bytes[n - 4..]);
    } else if n > 0 {
        dst[0] = bytes[0];
        dst[n / 2] = bytes[n / 2];
        dst[n - 1] = bytes[n - 1];
    }
    buf.truncate(len + n);
    true
}

/// Where the line being processed lives.
#[derive(Debug, Clone, Copy)]
enum Origin {
    /// In the chunk, starting at this offset.
    Chunk(usize),
    /// In the decoder's line buffer.
    Line,
}

/// What processing one line produced.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Nothing for the caller.
    Nothing,
    /// A blank line: dispatch.
    EndBlock,
    /// A comment whose text starts at this offset of the line.
    Comment(usize),
    /// A valid retry value.
    Retry(u64),
    /// First data value of the block, in the line buffer at this offset: adopt the buffer.
    Adopt(usize),
    /// Second data value while the first is `chunk[s..e]`: join them; the new value starts
    /// at this offset of the line.
    Join(usize, usize, usize),
}

/// What `next_item` hands out, as positions (resolved to slices on return).
#[derive(Debug, Clone, Copy)]
/// Kept small (it is returned on every call); a dispatched event's slots wait in
/// `Decoder::dispatched`.
enum Out {
    /// The event described by `Decoder::dispatched`.
    Event,
    /// A comment at `chunk[s..e]`.
    CommentInChunk(usize, usize),
    /// A comment at `line[s..]`.
    CommentInLine(usize),
    /// A retry value.
    Retry(u64),
}

/// One chunk being decoded; created by [`Decoder::feed`].
///
/// Call [`Feed::next_item`] until `Ok(None)`. Dropping the feed moves whatever the block in
/// progress borrows from the chunk into the decoder, so the chunk may be freed afterwards
/// (leaking the feed with `mem::forget` loses those values instead).
#[derive(Debug)]
pub struct Feed<'d, 'c> {
    dec: &'d mut Decoder,
    chunk: &'c [u8],
    /// INVARIANT: `pos <= chunk.len()`; bytes before `pos` have been consumed.
    pos: usize,
}

impl<'d, 'c> Feed<'d, 'c> {
    /// The next item completed by this chunk, `Ok(None)` when the chunk is used up (need
    /// more bytes), or a [`LimitError`] (not fatal: call again to go on).
    ///
    /// The item borrows the chunk and the decoder until the next call.
    #[inline]
    pub fn next_item(&mut self) -> Result<Option<Item<'_>>, LimitError> {
        // The position goes to the state machine by value and comes back with its result, so
        // the feed itself never has to live in memory (a chunk of a few bytes costs little
        // more than the call).
        let (pos, step) = self.dec.advance(self.chunk, self.pos);
        self.pos = pos;
        // A comment in the chunk (the keep-alive) is handed out before the general match:
        // merged into it, the constant variant went through a jump table on every comment
        // (5 instructions of ~95 per keep-alive under thin LTO).
        if let Ok(Some(Out::CommentInChunk(s, e))) = step {
            return Ok(Some(Item::Comment(&self.chunk[s..e])));
        }
        match step? {
            None => Ok(None),
            Some(out) => Ok(Some(self.resolve(out))),
        }
    }

    /// Bytes of the chunk consumed so far (all of it once `next_item` returned `Ok(None)`).
    pub fn consumed(&self) -> usize {
        self.pos
    }

    /// The chunk this feed reads.
    pub fn chunk(&self) -> &'c [u8] {
        self.chunk
    }

    #[inline(always)]
    fn resolve(&self, out: Out) -> Item<'_> {
        let chunk = self.chunk;
        let dec = &*self.dec;
        match out {
            Out::Retry(ms) => Item::Retry(ms),
            Out::CommentInChunk(s, e) => Item::Comment(&chunk[s..e]),
            Out::CommentInLine(s) => Item::Comment(&dec.line[s..]),
            Out::Event => Item::Event(Event {
                data: match dec.dispatched.0 {
                    Slot::Chunk(s, e) => &chunk[s..e],
                    other => dec.owned_data(other),
                },
                event_type: match dec.dispatched.1 {
                    Slot::Chunk(s, e) if s < e => &chunk[s..e],
                    other => dec.owned_type(other),
                },
                id: &dec.last_id,
            }),
        }
    }
}

impl Decoder {
    /// Runs the state machine on `chunk` from `pos` to the next output; returns the new
    /// position with it.
    #[inline]
    #[allow(
        clippy::too_many_lines,
        reason = "the decoder's hot state machine: one loop with the state in locals is what makes it fast (benches/README.md)"
    )]
    fn advance(
        &mut self,
        chunk: &[u8],
        mut pos: usize,
    ) -> (usize, Result<Option<Out>, LimitError>) {
        let len = chunk.len();
        loop {
            if pos >= len {
                return (pos, Ok(None));
            }
            if self.partial_len != 0 {
                // The line held from earlier chunks goes on here (at the start of a feed, or
                // after the held bytes of a broken BOM); the line-start states are false.
                let rest = &chunk[pos..];
                // A line already longer than `SHORT` goes on long: a piece longer than that
                // goes to `memchr2` at once (the word-by-word start of `find_eol` would only
                // delay it); a short piece (a line dripped in small chunks) is scanned word
                // by word as usual, and a piece of at most 8 bytes (a line dripped in tiny
                // chunks) inline, without the call.
                let found = if rest.len() <= 8 {
                    find_eol_tiny(rest)
                } else if rest.len() > SHORT && self.partial_len >= SHORT {
                    let found = find_eol_long(rest);
                    if found.is_none() && self.held == Held::Line {
                        // A middle piece of a long line (a 40 KB value in 1 460-byte
                        // chunks): appended at once while it fits the buffer and the limit,
                        // without `hold_more`'s dispatch and `grow_line`'s small-piece test.
                        let needed = self.line.len() + rest.len();
                        if needed <= self.line.capacity() && needed <= self.config.max_line {
                            #[cfg(test)]
                            {
                                self.scanned += rest.len();
                            }
                            self.partial_len += rest.len();
                            self.line.extend_from_slice(rest);
                            return (len, Ok(None));
                        }
                    }
                    found
                } else {
                    find_eol(rest)
                };
                let Some(i) = found else {
                    // Every chunk of a long line but its last, every chunk of a dripped one.
                    #[cfg(test)]
                    {
                        self.scanned += rest.len();
                    }
                    return (len, self.hold_more(rest).map(|()| None));
                };
                #[cfg(test)]
                {
                    self.scanned += i + 1;
                }
                let (start, end) = (pos, pos + i);
                pos = self.line_end(chunk, end);
                let held = self.partial_len;
                self.partial_len = 0;
                match self.held {
                    Held::Skip => continue,
                    Held::Comment => {
                        // A comment without its text (the keep-alive path, kept inline).
                        if held + i > self.config.max_line {
                            return (pos, Err(self.line_too_long()));
                        }
                        pos = self.eat_idle_blank_line(chunk, pos);
                        return (pos, Ok(Some(Out::CommentInChunk(end, end))));
                    }
                    Held::CommentText => {
                        // A comment with its text: no field to parse, hand out the buffer.
                        if held + i > self.config.max_line {
                            self.line.clear();
                            return (pos, Err(self.line_too_long()));
                        }
                        let last = &chunk[start..end];
                        if !append_small(&mut self.line, last) {
                            self.line.extend_from_slice(last);
                        }
                        pos = self.eat_idle_blank_line(chunk, pos);
                        return (pos, Ok(Some(Out::CommentInLine(1))));
                    }
                    Held::Line => match self.spanning_line(chunk, held, start, end) {
                        Ok(None) => continue,
                        Ok(Some(out @ Out::CommentInLine(_))) => {
                            pos = self.eat_idle_blank_line(chunk, pos);
                            return (pos, Ok(Some(out)));
                        }
                        other => return (pos, other),
                    },
                }
            }
            // One test for the two rare states of a line start.
            if self.at_start | self.skip_lf {
                if self.at_start {
                    match self.bom(chunk, pos) {
                        Some(p) => pos = p,
                        None => return (len, Ok(None)),
                    }
                    continue;
                }
                self.skip_lf = false;
                #[cfg(test)]
                {
                    self.scanned += 1;
                }
                if chunk[pos] == b'\n' {
                    pos += 1;
                    continue;
                }
            }
            let start = pos;
            let rest = &chunk[start..];
            let found = match rest[0] {
                b'\n' | b'\r' => {
                    // A blank line, the most common line after a data line: no search, no
                    // line processing (it ends a skipped block too).
                    #[cfg(test)]
                    {
                        self.scanned += 1;
                    }
                    pos = self.line_end(chunk, start);
                    self.skip_block = false;
                    if let Some(out) = self.end_block(chunk) {
                        return (pos, Ok(Some(out)));
                    }
                    continue;
                }
                b':' if !self.skip_block => {
                    // A comment (a keep-alive, the most frequent line of an idle stream):
                    // its own short path when it ends in this chunk. The colon is never a
                    // terminator, so the search starts at it; a keep-alive ends inside the
                    // first 16 bytes, tested inline.
                    let idle =
                        matches!(self.data, Slot::Unset) && matches!(self.pending_id, Slot::Unset);
                    if let Some(head) = rest.first_chunk::<16>()
                        && idle
                        && self.keep_alive.matches(head)
                    {
                        // The keep-alive seen last, again: its positions are known, so this
                        // line's end does not wait for a search (`KeepAliveShape`).
                        let shape = self.keep_alive;
                        let (pos, out) = self.keep_alive_at(
                            start,
                            usize::from(shape.line_len),
                            usize::from(shape.total),
                        );
                        return (pos, Ok(Some(out)));
                    }
                    let (found, ends) = find_eol_comment(rest);
                    if ends != 0
                        && let Some(i) = found
                        && i <= self.config.max_line
                        && idle
                    {
                        // A keep-alive and the blank line after it, in an idle block: what
                        // `eat_idle_blank_line` would do, from the word already loaded.
                        if let Some(head) = rest.first_chunk::<16>() {
                            self.keep_alive = KeepAliveShape::learn(head, i, ends);
                        }
                        let (pos, out) = self.keep_alive_at(start, i, i + ends);
                        return (pos, Ok(Some(out)));
                    }
                    if let Some(i) = found
                        && i <= self.config.max_line
                    {
                        #[cfg(test)]
                        {
                            self.scanned += i + 1;
                        }
                        let end = start + i;
                        pos = self.line_end(chunk, end);
                        pos = self.eat_idle_blank_line(chunk, pos);
                        let from = if self.config.comment_text {
                            start + 1
                        } else {
                            end
                        };
                        return (pos, Ok(Some(Out::CommentInChunk(from, end))));
                    }
                    found
                }
                _ => find_eol(rest),
            };
            let Some(i) = found else {
                // The chunk ends inside this line.
                #[cfg(test)]
                {
                    self.scanned += rest.len();
                }
                return (len, self.hold_new(rest).map(|()| None));
            };
            #[cfg(test)]
            {
                self.scanned += i + 1;
            }
            let end = start + i;
            pos = self.line_end(chunk, end);
            if i > self.config.max_line && !self.skip_block {
                return (pos, Err(self.line_too_long()));
            }
            match self.process_line(&chunk[start..end], Origin::Chunk(start)) {
                Ok(Step::Nothing) => {}
                Ok(Step::Comment(off)) => {
                    pos = self.eat_idle_blank_line(chunk, pos);
                    let from = if self.config.comment_text {
                        start + off
                    } else {
                        end
                    };
                    return (pos, Ok(Some(Out::CommentInChunk(from, end))));
                }
                Ok(Step::Retry(ms)) => return (pos, Ok(Some(Out::Retry(ms)))),
                Ok(Step::EndBlock) => {
                    if let Some(out) = self.end_block(chunk) {
                        return (pos, Ok(Some(out)));
                    }
                }
                Ok(Step::Join(s, e, at)) => self.join(&chunk[s..e], &chunk[start + at..end]),
                // Only lines from the line buffer are adopted (`spanning_line`).
                Ok(Step::Adopt(_)) => {}
                Err(e) => return (pos, Err(e)),
            }
        }
    }

    /// A keep-alive at `chunk[start..]`: its terminator `line_len` bytes on, `total` bytes
    /// with the blank line after it (in an idle block, which that line leaves as it was but
    /// for the type). Returns the position after it and the comment.
    #[inline(always)]
    fn keep_alive_at(&mut self, start: usize, line_len: usize, total: usize) -> (usize, Out) {
        #[cfg(test)]
        {
            self.scanned += line_len + 2;
        }
        self.event_type = Slot::Unset;
        let end = start + line_len;
        let from = if self.config.comment_text {
            start + 1
        } else {
            end
        };
        (start + total, Out::CommentInChunk(from, end))
    }

    /// A complete line went over `max_line`.
    #[cold]
    fn line_too_long(&mut self) -> LimitError {
        self.limit_hit(LimitError::LineTooLong {
            limit: self.config.max_line,
        })
    }

    /// The line ends with the terminator at `chunk[end]`: the position after it (a CRLF is
    /// one terminator; a CR that ends the chunk swallows an LF that starts the next one).
    #[inline(always)]
    fn line_end(&mut self, chunk: &[u8], end: usize) -> usize {
        let mut next = end + 1;
        if chunk[end] == b'\r' {
            if next < chunk.len() {
                if chunk[next] == b'\n' {
                    next += 1;
                }
            } else {
                self.skip_lf = true;
            }
        }
        next
    }

    /// A line held from earlier chunks (`held` bytes of it, in `line`) ends at
    /// `chunk[start..end]`.
    fn spanning_line(
        &mut self,
        chunk: &[u8],
        held: usize,
        start: usize,
        end: usize,
    ) -> Result<Option<Out>, LimitError> {
        if self.skip_block {
            // Only a blank line matters, and a spanning line is never blank.
            return Ok(None);
        }
        if held + (end - start) > self.config.max_line {
            self.line.clear();
            return Err(self.line_too_long());
        }
        let last = &chunk[start..end];
        if !append_small(&mut self.line, last) {
            self.line.extend_from_slice(last);
        }
        let mut line = mem::take(&mut self.line);
        let out = match self.process_line(&line, Origin::Line) {
            Ok(Step::Comment(off)) => {
                // The comment borrows the line buffer until the next call; the next line
                // that needs the buffer clears it first.
                self.line = line;
                return Ok(Some(Out::CommentInLine(off)));
            }
            Ok(Step::Adopt(off)) => {
                self.adopt_data(line, off);
                return Ok(None);
            }
            Ok(Step::Join(s, e, at)) => {
                self.join(&chunk[s..e], &line[at..]);
                Ok(None)
            }
            Ok(Step::Retry(ms)) => Ok(Some(Out::Retry(ms))),
            Ok(Step::Nothing | Step::EndBlock) => Ok(None),
            Err(e) => Err(e),
        };
        line.clear();
        self.line = line;
        out
    }

    /// Second data line of a block whose first value, `first`, is in the chunk: copy both.
    fn join(&mut self, first: &[u8], value: &[u8]) {
        self.data_buf.clear();
        self.data_buf.extend_from_slice(first);
        self.data_buf.push(b'\n');
        self.data_buf.extend_from_slice(value);
        self.data_off = 0;
        self.data = Slot::Owned;
    }

    /// After a comment (a keep-alive is almost always `:...` and a blank line): when the
    /// block holds nothing, a blank line that follows at once in this chunk can have no
    /// effect but clearing the type, so consume it now and save a round trip. Returns the
    /// position after it (or `pos`).
    #[inline]
    fn eat_idle_blank_line(&mut self, chunk: &[u8], mut pos: usize) -> usize {
        // Tag tests only (the derived `PartialEq` would compare the positions too).
        if !matches!(self.data, Slot::Unset)
            || !matches!(self.pending_id, Slot::Unset)
            || self.skip_block
        {
            return pos;
        }
        match chunk.get(pos) {
            Some(b'\n') => pos += 1,
            Some(b'\r') => {
                pos += 1;
                match chunk.get(pos) {
                    Some(b'\n') => pos += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            _ => return pos,
        }
        #[cfg(test)]
        {
            self.scanned += 1;
        }
        self.event_type = Slot::Unset;
        pos
    }

    /// A blank line: dispatch (WHATWG "dispatch the event").
    #[inline]
    fn end_block(&mut self, chunk: &[u8]) -> Option<Out> {
        if !self.commit_block_with(chunk) {
            return None;
        }
        self.dispatched = (self.data, self.event_type);
        self.data = Slot::Unset;
        self.event_type = Slot::Unset;
        Some(Out::Event)
    }

    /// At stream start: matches a leading BOM (possibly split across chunks) from
    /// `chunk[pos]`. Returns the position after what it consumed, or `None` when the chunk
    /// ended inside a possible BOM.
    #[cold]
    fn bom(&mut self, chunk: &[u8], mut pos: usize) -> Option<usize> {
        while pos < chunk.len() {
            let b = chunk[pos];
            if b == BOM[usize::from(self.bom_matched)] {
                pos += 1;
                self.bom_matched += 1;
                if usize::from(self.bom_matched) == BOM.len() {
                    self.at_start = false;
                    self.bom_matched = 0;
                    return Some(pos);
                }
            } else {
                // Not a BOM: the bytes matched so far are the start of the first line.
                let held = usize::from(self.bom_matched);
                self.at_start = false;
                self.bom_matched = 0;
                if held > 0 {
                    self.line.clear();
                    self.line.extend_from_slice(&BOM[..held]);
                    self.partial_len = held;
                    self.held = Held::Line;
                }
                return Some(pos);
            }
        }
        None
    }
}

impl Drop for Feed<'_, '_> {
    #[inline]
    fn drop(&mut self) {
        self.dec.stash(self.chunk);
    }
}
