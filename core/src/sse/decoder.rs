//! The incremental decoder: line splitting, field processing, dispatch, end of stream.

use std::mem;

use memchr::memchr2;

use super::line::{Field, find_eol, id_is_valid, parse_retry, split};
use super::{AtEof, Config, Discarded, Event, Finish, Item, LimitError};

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const MESSAGE: &[u8] = b"message";

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
    /// The unterminated line carried over from earlier chunks (or a completed line handed
    /// out as a comment, cleared on the next call when `line_done`).
    pub(crate) line: Vec<u8>,
    /// `line` holds a completed line that an item may still borrow.
    line_done: bool,
    /// Length of the current unterminated line, buffered or skipped.
    partial_len: usize,
    /// The current line went over `max_line`: drop its bytes until its terminator.
    skip_line: bool,
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
    /// A [`Feed`] was created and not dropped (it is alive, or it was leaked).
    feeding: bool,
    /// A value slot may be `Slot::Chunk` (set with every such slot, cleared when the feed
    /// ends): the end of a feed tests this one flag, not the three slots.
    borrowing: bool,
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
            line_done: false,
            partial_len: 0,
            skip_line: false,
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
            feeding: false,
            borrowing: false,
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
        self.settle();
        self.forget_leaked_slots();
        self.feeding = true;
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
        self.needs_reset = true;
        self.settle();
    }

    /// Ends the stream (end of the response body).
    ///
    /// With [`AtEof::Discard`] (the default, WHATWG) an unterminated last line and an
    /// unterminated block are dropped, an `id` in that block is not committed, and
    /// [`Finish::discarded`] says what was dropped. With [`AtEof::Dispatch`] the last line is
    /// processed as if terminated and the block dispatched as if a blank line followed.
    /// Either way the decoder is then ready for a new stream (as after
    /// [`Decoder::reset_for_reconnect`]).
    pub fn finish(&mut self) -> Finish<'_> {
        self.settle();
        self.forget_leaked_slots();
        self.needs_reset = true;
        let bom_bytes = if self.at_start {
            usize::from(self.bom_matched)
        } else {
            0
        };
        if self.at_start && self.bom_matched > 0 {
            // A partial BOM at the very end is content of the (unterminated) first line.
            self.line
                .extend_from_slice(&BOM[..usize::from(self.bom_matched)]);
        }
        let partial_line = self.partial_len + bom_bytes;
        let skipping = self.skip_line || self.skip_block;
        match self.config.at_eof {
            AtEof::Discard => {
                let (mut event, mut id) = (false, false);
                if !skipping {
                    event = self.data != Slot::Unset;
                    id = self.pending_id != Slot::Unset;
                    if !self.line.is_empty() && self.line[0] != b':' {
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
                if partial_line > 0 {
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

    /// A comment starting here can take the keep-alive path: its text is not wanted, no
    /// line is held (so it starts here) and no block is being skipped.
    #[inline(always)]
    fn quick_comment(&self) -> bool {
        !self.config.comment_text && self.partial_len == 0 && !self.skip_block
    }

    /// A [`Feed`] that was leaked (`mem::forget`) never moved its borrowed values into the
    /// decoder: they index a chunk that is gone. Drop them rather than read the wrong bytes.
    #[inline(always)]
    fn forget_leaked_slots(&mut self) {
        if self.feeding {
            self.forget_leaked_slots_slow();
        }
    }

    #[cold]
    fn forget_leaked_slots_slow(&mut self) {
        self.feeding = false;
        self.borrowing = false;
        for slot in [&mut self.data, &mut self.event_type, &mut self.pending_id] {
            if matches!(slot, Slot::Chunk(..)) {
                *slot = Slot::Unset;
            }
        }
    }

    /// Performs clean-ups deferred while items could borrow the buffers.
    #[inline(always)]
    fn settle(&mut self) {
        if self.line_done {
            self.line.clear();
            self.line_done = false;
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
        self.skip_line = false;
        self.skip_block = false;
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

    /// The chunk ended inside a line: `bytes` (not empty) is the part of it in this chunk.
    /// Holds what the line will need (nothing when skipped, a marker for a comment without
    /// text, else the bytes).
    #[inline]
    fn hold_partial(&mut self, bytes: &[u8]) -> Result<(), LimitError> {
        self.partial_len += bytes.len();
        if self.skip_line | self.skip_block {
            // In a skipped block a non-empty line cannot end it: drop the line.
            self.skip_line = true;
            return Ok(());
        }
        if !self.config.comment_text && self.comment_in_progress(bytes) {
            return self.hold_comment();
        }
        self.grow_line(bytes)
    }

    /// The unterminated line (its start held in `line`, `bytes` the rest of the chunk) is a
    /// comment: it began with a colon in an earlier chunk, or begins with one here.
    #[inline]
    fn comment_in_progress(&self, bytes: &[u8]) -> bool {
        match self.line.first() {
            Some(&b) => b == b':',
            None => bytes.first() == Some(&b':'),
        }
    }

    /// Holds an unterminated comment line without its text: its colon marks it as a comment
    /// in `line`, and `partial_len` (already counting `bytes`) enforces `max_line`.
    #[inline]
    fn hold_comment(&mut self) -> Result<(), LimitError> {
        if self.partial_len > self.config.max_line {
            return Err(self.partial_line_too_long());
        }
        if self.line.is_empty() {
            self.line.push(b':');
        }
        Ok(())
    }

    /// The unterminated line went over `max_line`: drop it, skip it to its end.
    #[cold]
    fn partial_line_too_long(&mut self) -> LimitError {
        self.line.clear();
        self.skip_line = true;
        self.limit_hit(LimitError::LineTooLong {
            limit: self.config.max_line,
        })
    }

    /// Appends bytes of an unterminated line, enforcing `max_line` without ever holding more.
    #[inline]
    fn grow_line(&mut self, bytes: &[u8]) -> Result<(), LimitError> {
        let needed = self.line.len() + bytes.len();
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
            // Grow geometrically, but never past the limit.
            let target = needed
                .max(self.line.capacity() * 2)
                .min(self.config.max_line);
            self.line.reserve_exact(target - self.line.len());
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }
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
        match self.advance()? {
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

    /// Runs the state machine to the next output.
    #[inline]
    fn advance(&mut self) -> Result<Option<Out>, LimitError> {
        let chunk = self.chunk;
        let len = chunk.len();
        // `needs_reset` is never set while a feed is alive: only the line may need clearing.
        if self.dec.line_done {
            self.dec.line.clear();
            self.dec.line_done = false;
        }
        loop {
            if self.pos >= len {
                return Ok(None);
            }
            // One test for the two rare states of a line start.
            if self.dec.at_start | self.dec.skip_lf {
                if self.dec.at_start {
                    if !self.bom() {
                        return Ok(None);
                    }
                    continue;
                }
                self.dec.skip_lf = false;
                #[cfg(test)]
                {
                    self.dec.scanned += 1;
                }
                if chunk[self.pos] == b'\n' {
                    self.pos += 1;
                    continue;
                }
            }
            let start = self.pos;
            let rest = &chunk[start..];
            // A blank line is the most common line after a data line: test it before memchr.
            let found = match rest[0] {
                b'\n' | b'\r' => Some(0),
                b':' if self.dec.quick_comment() => {
                    // A keep-alive (a comment without its text, nothing held, no skipping):
                    // its own short path, the most frequent line of an idle stream.
                    let found = find_eol(&rest[1..]).map(|i| i + 1);
                    if let Some(i) = found
                        && i <= self.dec.config.max_line
                    {
                        #[cfg(test)]
                        {
                            self.dec.scanned += i + 1;
                        }
                        let end = start + i;
                        self.pos = self.line_end(end);
                        self.eat_idle_blank_line();
                        return Ok(Some(Out::CommentInChunk(end, end)));
                    }
                    found
                }
                _ => find_eol(rest),
            };
            match found {
                None => {
                    #[cfg(test)]
                    {
                        self.dec.scanned += rest.len();
                    }
                    // The chunk ends inside a line (every chunk but the last of a long line).
                    self.pos = len;
                    self.dec.hold_partial(rest)?;
                    return Ok(None);
                }
                Some(i) => {
                    #[cfg(test)]
                    {
                        self.dec.scanned += i + 1;
                    }
                    let end = start + i;
                    self.pos = self.line_end(end);
                    // Only the first line of a feed can continue a held line (and a skipped
                    // line is always a held one): one test for both on every other line.
                    let held = self.dec.partial_len;
                    let step = if held > 0 {
                        self.dec.partial_len = 0;
                        if self.dec.skip_line {
                            self.dec.skip_line = false;
                            continue;
                        }
                        if self.dec.line.first() == Some(&b':')
                            && !self.dec.config.comment_text
                            && !self.dec.skip_block
                            && held + i <= self.dec.config.max_line
                        {
                            // A comment that spanned chunks, without its text (only its
                            // colon was held): the keep-alive path, kept inline.
                            self.dec.line.clear();
                            self.eat_idle_blank_line();
                            return Ok(Some(Out::CommentInChunk(end, end)));
                        }
                        if let Some(out) = self.spanning_line(held, start, end)? {
                            return Ok(Some(out));
                        }
                        continue;
                    } else {
                        if i > self.dec.config.max_line && !self.dec.skip_block {
                            return Err(self.dec.limit_hit(LimitError::LineTooLong {
                                limit: self.dec.config.max_line,
                            }));
                        }
                        self.dec
                            .process_line(&chunk[start..end], Origin::Chunk(start))?
                    };
                    match step {
                        Step::Nothing => {}
                        Step::Comment(off) => {
                            self.eat_idle_blank_line();
                            let from = if self.dec.config.comment_text {
                                start + off
                            } else {
                                end
                            };
                            return Ok(Some(Out::CommentInChunk(from, end)));
                        }
                        Step::Retry(ms) => return Ok(Some(Out::Retry(ms))),
                        Step::EndBlock => {
                            if let Some(out) = self.end_block() {
                                return Ok(Some(out));
                            }
                        }
                        Step::Join(s, e, at) => self.join(s, e, &chunk[start + at..end]),
                        // Only lines from the line buffer are adopted (`spanning_line`).
                        Step::Adopt(_) => {}
                    }
                }
            }
        }
    }

    /// The line ends with the terminator at `chunk[end]`: the position after it (a CRLF is
    /// one terminator; a CR that ends the chunk swallows an LF that starts the next one).
    #[inline(always)]
    fn line_end(&mut self, end: usize) -> usize {
        let chunk = self.chunk;
        let mut next = end + 1;
        if chunk[end] == b'\r' {
            if next < chunk.len() {
                if chunk[next] == b'\n' {
                    next += 1;
                }
            } else {
                self.dec.skip_lf = true;
            }
        }
        next
    }

    /// A line that began in an earlier chunk (`held` bytes of it) ends at `chunk[start..end]`.
    fn spanning_line(
        &mut self,
        held: usize,
        start: usize,
        end: usize,
    ) -> Result<Option<Out>, LimitError> {
        let chunk = self.chunk;
        let dec = &mut *self.dec;
        if dec.skip_block {
            // Only a blank line matters, and a spanning line is never blank.
            dec.line.clear();
            return Ok(None);
        }
        if held + (end - start) > dec.config.max_line {
            dec.line.clear();
            return Err(dec.limit_hit(LimitError::LineTooLong {
                limit: dec.config.max_line,
            }));
        }
        dec.line.extend_from_slice(&chunk[start..end]);
        let mut line = mem::take(&mut dec.line);
        let step = dec.process_line(&line, Origin::Line);
        let out = match step {
            Ok(Step::Comment(off)) => {
                // The comment borrows the line buffer: clear it on the next call.
                dec.line = line;
                dec.line_done = true;
                self.eat_idle_blank_line();
                return Ok(Some(Out::CommentInLine(off)));
            }
            Ok(Step::Adopt(off)) => {
                dec.adopt_data(line, off);
                return Ok(None);
            }
            Ok(Step::Join(s, e, at)) => {
                self.join(s, e, &line[at..]);
                Ok(None)
            }
            Ok(Step::Retry(ms)) => Ok(Some(Out::Retry(ms))),
            Ok(Step::Nothing | Step::EndBlock) => Ok(None),
            Err(e) => Err(e),
        };
        line.clear();
        self.dec.line = line;
        out
    }

    /// Second data line of a block whose first value is `chunk[s..e]`: copy both.
    fn join(&mut self, s: usize, e: usize, value: &[u8]) {
        let dec = &mut *self.dec;
        dec.data_buf.clear();
        dec.data_buf.extend_from_slice(&self.chunk[s..e]);
        dec.data_buf.push(b'\n');
        dec.data_buf.extend_from_slice(value);
        dec.data_off = 0;
        dec.data = Slot::Owned;
    }

    /// After a comment (a keep-alive is almost always `:...` and a blank line): when the
    /// block holds nothing, a blank line that follows at once in this chunk can have no
    /// effect but clearing the type, so consume it now and save a round trip.
    #[inline]
    fn eat_idle_blank_line(&mut self) {
        let dec = &mut *self.dec;
        // Tag tests only (the derived `PartialEq` would compare the positions too).
        if !matches!(dec.data, Slot::Unset)
            || !matches!(dec.pending_id, Slot::Unset)
            || dec.skip_block
        {
            return;
        }
        let chunk = self.chunk;
        match chunk.get(self.pos) {
            Some(b'\n') => self.pos += 1,
            Some(b'\r') => {
                self.pos += 1;
                match chunk.get(self.pos) {
                    Some(b'\n') => self.pos += 1,
                    Some(_) => {}
                    None => dec.skip_lf = true,
                }
            }
            _ => return,
        }
        #[cfg(test)]
        {
            dec.scanned += 1;
        }
        dec.event_type = Slot::Unset;
    }

    /// A blank line: dispatch (WHATWG "dispatch the event").
    #[inline]
    fn end_block(&mut self) -> Option<Out> {
        if !self.dec.commit_block_with(self.chunk) {
            return None;
        }
        self.dec.dispatched = (self.dec.data, self.dec.event_type);
        self.dec.data = Slot::Unset;
        self.dec.event_type = Slot::Unset;
        Some(Out::Event)
    }

    /// At stream start: matches a leading BOM (possibly split across chunks). Returns
    /// `false` when the chunk ended inside a possible BOM.
    #[cold]
    fn bom(&mut self) -> bool {
        let dec = &mut *self.dec;
        while self.pos < self.chunk.len() {
            let b = self.chunk[self.pos];
            if b == BOM[usize::from(dec.bom_matched)] {
                self.pos += 1;
                dec.bom_matched += 1;
                if usize::from(dec.bom_matched) == BOM.len() {
                    dec.at_start = false;
                    dec.bom_matched = 0;
                    return true;
                }
            } else {
                // Not a BOM: the bytes matched so far are the start of the first line.
                let held = usize::from(dec.bom_matched);
                dec.at_start = false;
                dec.bom_matched = 0;
                if held > 0 {
                    dec.line.extend_from_slice(&BOM[..held]);
                    dec.partial_len = held;
                }
                return true;
            }
        }
        false
    }
}

impl Drop for Feed<'_, '_> {
    #[inline]
    fn drop(&mut self) {
        self.dec.feeding = false;
        self.dec.stash(self.chunk);
    }
}
