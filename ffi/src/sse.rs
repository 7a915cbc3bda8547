//! The SSE decoder and encoder (`text/event-stream`).
//!
//! # Decoder
//! One call decodes a whole chunk: `a2a_sse_decoder_feed_packed` returns every item the
//! chunk completed as an array of `a2a_sse_item` structs, so a binding makes one foreign
//! call per chunk, not one per event or field.
//!
//! It copies every value into memory the decoder owns (the chunk may be freed or moved as
//! soon as the call returns: JNA, cgo and ctypes do that) and lays the events out for
//! bindings that copy a whole batch at once: every event's type, data and id, each ended by
//! a CR, back to back in one buffer the decoder owns, with an array of start offsets. The
//! layout is part of the ABI. (A zero-copy feed that kept views into the caller's chunk
//! was removed: no binding could use it, and one feed is one set of rules; see
//! `ffi/README.md`.)
//!
//! Limit errors are not fatal: they come back as `A2A_SSE_ITEM_LIMIT_ERROR` items, the
//! decoder skips the rest of that event and goes on.

use a2a::sse::encoder::{self, EncodeError, OutEvent};
use a2a::sse::{AtEof, Config, Decoder, Item, LimitError};

use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_bytes, a2a_str, try_bytes};

/// What an `a2a_sse_item` is.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_sse_item_kind {
    /// A dispatched event: `event_type`, `data` and `id` are set.
    Event = 1,
    /// A comment line (a liveness signal, e.g. a keep-alive): `data` holds the bytes after
    /// the colon, exactly as sent (a leading space is kept).
    Comment = 2,
    /// A valid `retry` field: `retry_ms` holds the server's new reconnection time.
    Retry = 3,
    /// Input went over a limit: `error` is `A2A_SSE_LINE_TOO_LONG` or
    /// `A2A_SSE_EVENT_TOO_LARGE` and `limit` the limit in bytes. Not fatal: the rest of that
    /// event is skipped and decoding goes on.
    LimitError = 4,
}

/// What `a2a_sse_decoder_finish` does with a block not ended by a blank line.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_sse_at_eof {
    /// The WHATWG rule (default): drop it and report what was dropped.
    Discard = 1,
    /// Process the unterminated last line and dispatch the block (what the Java,
    /// JavaScript and Go A2A SDKs do).
    Dispatch = 2,
}

/// One item decoded from an event stream. Fields that do not apply to `kind` are absent
/// views `(NULL, 0)` or 0. Views are raw bytes (not necessarily UTF-8), never
/// NUL-terminated; their lifetime is stated by the call that produced the item.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_sse_item {
    /// What this item is.
    pub kind: a2a_sse_item_kind,
    /// Event: the type (`message` when none was given).
    pub event_type: a2a_bytes,
    /// Event: the data lines joined with LF (may be empty). Comment: the comment text.
    pub data: a2a_bytes,
    /// Event: the last event ID in effect (empty when none was ever set).
    pub id: a2a_bytes,
    /// Retry: the reconnection time in milliseconds.
    pub retry_ms: u64,
    /// Limit error: `A2A_SSE_LINE_TOO_LONG` or `A2A_SSE_EVENT_TOO_LARGE`; else `A2A_OK`.
    pub error: a2a_result,
    /// Limit error: the limit in force, in bytes.
    pub limit: usize,
}

/// The end-of-stream report of `a2a_sse_decoder_finish`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_sse_finish {
    /// With `A2A_SSE_AT_EOF_DISPATCH`: whether the unterminated block was dispatched as
    /// `event`.
    pub has_event: bool,
    /// The dispatched event when `has_event` (kind `A2A_SSE_ITEM_KIND_EVENT`).
    pub event: a2a_sse_item,
    /// With `A2A_SSE_AT_EOF_DISCARD`: whether the WHATWG rule dropped anything (false when
    /// the stream ended cleanly at a block boundary).
    pub discarded: bool,
    /// Bytes after the last line terminator that were dropped.
    pub discarded_partial_line: usize,
    /// A blank line at that point would have dispatched an event.
    pub discarded_event: bool,
    /// The dropped block set an event ID that was therefore not committed.
    pub discarded_id: bool,
    /// With dispatch: `A2A_SSE_EVENT_TOO_LARGE` when the last line went over the limit
    /// (nothing was dispatched); else `A2A_OK`.
    pub error: a2a_result,
    /// The limit in force when `error` is set.
    pub limit: usize,
}

/// The result of `a2a_sse_decoder_feed_packed`: every event one chunk completed, in one
/// buffer, plus every item of the feed. Everything points into the decoder and is valid
/// until the next mutating call on it or its free.
///
/// Layout (GUARANTEED): `bytes` holds, for event 0, 1, ..., `event_count - 1` in stream
/// order, its type, its data and its id, EACH FOLLOWED BY ONE CR byte (`'\r'`, 0x0D), back
/// to back, and nothing else. A CR never occurs inside a decoded value (the decoder ends
/// every line at CR), so it is an unambiguous terminator. Value `k` is the type (`k = 3i`),
/// data (`3i + 1`) or id (`3i + 2`, empty when no id was ever set) of event `i`.
/// `offsets` holds `3 * event_count + 1` byte offsets: value `k` is
/// `[offsets[k], offsets[k + 1] - 1)` (its CR is at `offsets[k + 1] - 1`), `offsets[0] == 0`
/// and `offsets[3 * event_count] == bytes.len`.
///
/// So a binding copies `bytes` once and slices it by `offsets`, or decodes it as a whole
/// and splits the text at CR: `3 * event_count` values and one final empty piece. Splitting
/// decoded text is exact even for invalid UTF-8: CR is ASCII, never part of a multi-byte
/// sequence, and a decoder that replaces invalid sequences (WHATWG / Unicode "maximal
/// subpart" practice, as Python, Java and Go do) never swallows an ASCII byte, so each
/// piece equals that value decoded alone.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_sse_packed {
    /// The values of all events, each ended by CR, back to back (non-NULL, possibly empty).
    pub bytes: a2a_bytes,
    /// `3 * event_count + 1` byte offsets into `bytes`: where each value starts, then the
    /// end (never NULL; `{0}` when there are no events).
    pub offsets: *const u64,
    /// Number of events.
    pub event_count: usize,
    /// Number of comment lines (keep-alives) among the items.
    pub comment_count: usize,
    /// Number of limit errors among the items (`a2a_sse_decoder_last_error` describes the
    /// last one).
    pub limit_error_count: usize,
    /// Every item of the feed in stream order (events, comments, retry values, limit
    /// errors); event views point into `bytes`, other views into the decoder. NULL when
    /// `item_count` is 0.
    pub items: *const a2a_sse_item,
    /// Number of items.
    pub item_count: usize,
}

/// Where a value recorded during a feed lives: a range of the arena or of the packed
/// buffer.
#[derive(Debug, Clone, Copy)]
enum Span {
    Arena(usize, usize),
    Packed(usize, usize),
}

/// An item recorded by position, turned into views once the arena stops growing.
#[derive(Debug, Clone, Copy)]
struct Rec {
    kind: a2a_sse_item_kind,
    event_type: Option<Span>,
    data: Option<Span>,
    id: Option<Span>,
    retry_ms: u64,
    error: a2a_result,
    limit: usize,
}

impl Rec {
    fn new(kind: a2a_sse_item_kind) -> Rec {
        Rec {
            kind,
            event_type: None,
            data: None,
            id: None,
            retry_ms: 0,
            error: a2a_result::A2A_OK,
            limit: 0,
        }
    }
}

/// An incremental SSE decoder (WHATWG event stream interpretation), bounded by its limits.
///
/// Methods: `a2a_sse_decoder_new_with`, `a2a_sse_decoder_free`,
/// `a2a_sse_decoder_feed_packed`,
/// `a2a_sse_decoder_finish`, `a2a_sse_decoder_last_event_id`,
/// `a2a_sse_decoder_set_last_event_id`, `a2a_sse_decoder_retry`,
/// `a2a_sse_decoder_reset_for_reconnect`, `a2a_sse_decoder_last_error`.
///
/// Threading: `Send`, not thread-safe: a mutating call (feed, finish, set, reset) while
/// another runs on the same decoder returns `A2A_IN_USE` and changes nothing; the free
/// waits for a call in progress.
pub struct a2a_sse_decoder {
    decoder: Decoder,
    /// Copies of the values that are not event fields (comments).
    arena: Vec<u8>,
    /// Packed feed: the event values, each ended by CR (see `a2a_sse_packed`).
    packed: Vec<u8>,
    /// Packed feed: the `3n + 1` start offsets of the values in `packed`, then its end.
    offsets: Vec<u64>,
    recs: Vec<Rec>,
    /// INVARIANT: built from `recs` after the last feed/finish; its pointers point into
    /// `arena` or `packed` (neither modified since).
    items: Vec<a2a_sse_item>,
    last_error: String,
}

// SAFETY: the raw pointers in `items` point into `arena` or `packed` (owned by the handle),
// which does not tie the handle to a thread. Concurrent use is excluded by the use gate.
unsafe impl Send for a2a_sse_decoder {}

impl Handle for a2a_sse_decoder {}

fn limit_code(e: &LimitError) -> a2a_result {
    match e {
        LimitError::LineTooLong { .. } => a2a_result::A2A_SSE_LINE_TOO_LONG,
        LimitError::EventTooLarge { .. } => a2a_result::A2A_SSE_EVENT_TOO_LARGE,
        _ => a2a_result::A2A_SSE_LIMIT,
    }
}

/// Copies `v` into the arena.
fn copy(arena: &mut Vec<u8>, v: &[u8]) -> Span {
    let start = arena.len();
    arena.extend_from_slice(v);
    Span::Arena(start, v.len())
}

/// Appends `v` and its CR terminator to the packed buffer, and the next start offset.
fn pack(packed: &mut Vec<u8>, offsets: &mut Vec<u64>, v: &[u8]) -> Span {
    // The decoder ends lines at CR, so no value holds one: the terminator is unambiguous.
    debug_assert!(!v.contains(&b'\r'));
    let start = packed.len();
    packed.extend_from_slice(v);
    packed.push(b'\r');
    offsets.push(packed.len() as u64);
    Span::Packed(start, v.len())
}

fn view(arena: &[u8], packed: &[u8], s: Option<Span>) -> a2a_bytes {
    match s {
        None => a2a_bytes::NONE,
        Some(Span::Arena(off, len)) => a2a_bytes::from_slice(&arena[off..off + len]),
        Some(Span::Packed(off, len)) => a2a_bytes::from_slice(&packed[off..off + len]),
    }
}

impl a2a_sse_decoder {
    fn from_config(config: Config) -> a2a_sse_decoder {
        a2a_sse_decoder {
            decoder: Decoder::with_config(config),
            arena: Vec::new(),
            packed: Vec::new(),
            offsets: Vec::new(),
            recs: Vec::new(),
            items: Vec::new(),
            last_error: String::new(),
        }
    }

    /// Forgets the items of the last call (start of every mutating call).
    fn begin(&mut self) {
        self.arena.clear();
        self.packed.clear();
        self.offsets.clear();
        self.recs.clear();
        self.items.clear();
        self.last_error.clear();
    }

    /// Decodes all of `chunk`, recording every item: event values packed, comments copied
    /// into the arena.
    fn drain(&mut self, chunk: &[u8]) {
        self.begin();
        let a2a_sse_decoder {
            decoder,
            arena,
            packed,
            offsets,
            recs,
            last_error,
            ..
        } = self;
        offsets.push(0);
        let mut feed = decoder.feed(chunk);
        loop {
            match feed.next_item() {
                Ok(None) => break,
                Ok(Some(Item::Event(e))) => {
                    let mut r = Rec::new(a2a_sse_item_kind::Event);
                    r.event_type = Some(pack(packed, offsets, e.event_type));
                    r.data = Some(pack(packed, offsets, e.data));
                    r.id = Some(pack(packed, offsets, e.id));
                    recs.push(r);
                }
                Ok(Some(Item::Comment(c))) => {
                    let mut r = Rec::new(a2a_sse_item_kind::Comment);
                    r.data = Some(copy(arena, c));
                    recs.push(r);
                }
                Ok(Some(Item::Retry(ms))) => {
                    let mut r = Rec::new(a2a_sse_item_kind::Retry);
                    r.retry_ms = ms;
                    recs.push(r);
                }
                Err(e) => {
                    let mut r = Rec::new(a2a_sse_item_kind::LimitError);
                    r.error = limit_code(&e);
                    r.limit = e.limit();
                    recs.push(r);
                    *last_error = e.to_string();
                }
            }
        }
        drop(feed);
        self.items = self
            .recs
            .iter()
            .map(|r| a2a_sse_item {
                kind: r.kind,
                event_type: view(&self.arena, &self.packed, r.event_type),
                data: view(&self.arena, &self.packed, r.data),
                id: view(&self.arena, &self.packed, r.id),
                retry_ms: r.retry_ms,
                error: r.error,
                limit: r.limit,
            })
            .collect();
    }
}

/// A new decoder with explicit limits and end-of-stream rule (the core's defaults: 16 MiB
/// lines, 16 MiB events, `A2A_SSE_AT_EOF_DISCARD`, the WHATWG rule).
///
/// `max_line`: longest line in bytes (every field counts). `max_event`: largest event data
/// in bytes. Memory held by the decoder is bounded by about `max_line + max_event` plus the
/// items of one chunk. `at_eof`: an `a2a_sse_at_eof`. `out`: receives a new handle the
/// caller owns; written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (a limit of 0, or `at_eof` not a
/// member).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_decoder_new_with(
    max_line: usize,
    max_event: usize,
    at_eof: u32,
    out: *mut *mut a2a_sse_decoder,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let at_eof = match at_eof {
            x if x == a2a_sse_at_eof::Discard as u32 => AtEof::Discard,
            x if x == a2a_sse_at_eof::Dispatch as u32 => AtEof::Dispatch,
            _ => return a2a_result::A2A_INVALID_ARGUMENT,
        };
        if max_line == 0 || max_event == 0 {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        let config = Config::new()
            .with_comment_text(true)
            .with_max_line(max_line)
            .with_max_event(max_event)
            .with_at_eof(at_eof);
        out.set(handle::into_raw(a2a_sse_decoder::from_config(config)));
        a2a_result::A2A_OK
    }
}

/// Frees a decoder. NULL is a no-op; must not be called twice. Every view obtained from the
/// decoder becomes invalid.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_decoder_free(decoder: *mut a2a_sse_decoder) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(decoder) }
    }
}

/// Decodes a whole chunk of the body (any size, split anywhere; `(NULL, 0)` is an empty
/// chunk) and returns every item it completed. Every value is COPIED into memory the
/// decoder owns (the chunk is borrowed for the call only and may be freed or moved as soon
/// as it returns), and every event the chunk completed is laid out in ONE buffer the
/// decoder owns, so that a binding copies the whole batch once and slices it (or decodes it
/// once and splits it at CR): see `a2a_sse_packed` for the guaranteed layout.
///
/// `out`: written on success only; everything in it points into the decoder and is valid
/// until the next mutating call on it or its free.
///
/// Limit errors are reported as `A2A_SSE_ITEM_KIND_LIMIT_ERROR` items (`limit_error_count`;
/// the call still returns `A2A_OK`); `a2a_sse_decoder_last_error` then describes the last
/// one.
///
/// Errors: `A2A_NULL_PARAMETER` (decoder or out NULL, or `(NULL, len > 0)`), `A2A_IN_USE`
/// (another thread is inside a mutating call on this decoder; nothing was decoded, the
/// chunk must be fed again), `A2A_CLOSED` (the decoder is being freed).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_decoder_feed_packed(
    decoder: *mut a2a_sse_decoder,
    chunk: *const u8,
    chunk_len: usize,
    out: *mut a2a_sse_packed,
) -> a2a_result {
    ffi_panic_boundary! {
        let d = try_mut!(decoder);
        let out = try_out!(out);
        let chunk = try_bytes!(chunk, chunk_len);
        d.drain(chunk);
        let count = |k| d.items.iter().filter(|i| i.kind == k).count();
        out.set(a2a_sse_packed {
            bytes: a2a_bytes::from_slice(&d.packed),
            offsets: d.offsets.as_ptr(),
            event_count: (d.offsets.len() - 1) / 3,
            comment_count: count(a2a_sse_item_kind::Comment),
            limit_error_count: count(a2a_sse_item_kind::LimitError),
            items: if d.items.is_empty() { std::ptr::null() } else { d.items.as_ptr() },
            item_count: d.items.len(),
        });
        a2a_result::A2A_OK
    }
}

/// Ends the stream (end of the response body) and reports what the end-of-stream rule did.
/// The decoder is then ready for a new stream (feeding again starts one; the last event ID
/// and retry value are kept). Calling it twice is harmless: the second call reports a clean
/// end.
///
/// `out`: written on success only; its event views point into the decoder and are valid
/// until the next mutating call on it. Items of the last feed become invalid.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_decoder_finish(
    decoder: *mut a2a_sse_decoder,
    out: *mut a2a_sse_finish,
) -> a2a_result {
    ffi_panic_boundary! {
        let d = try_mut!(decoder);
        let out = try_out!(out);
        d.begin();
        let f = d.decoder.finish();
        let mut event_rec = None;
        if let Some(e) = f.event {
            let mut r = Rec::new(a2a_sse_item_kind::Event);
            r.event_type = Some(copy(&mut d.arena, e.event_type));
            r.data = Some(copy(&mut d.arena, e.data));
            r.id = Some(copy(&mut d.arena, e.id));
            event_rec = Some(r);
        }
        let discarded = f.discarded.unwrap_or_default();
        let (error, limit) = match &f.error {
            Some(e) => {
                d.last_error = e.to_string();
                (limit_code(e), e.limit())
            }
            None => (a2a_result::A2A_OK, 0),
        };
        let mut report = a2a_sse_finish {
            has_event: event_rec.is_some(),
            event: empty_item(),
            discarded: f.discarded.is_some(),
            discarded_partial_line: discarded.partial_line,
            discarded_event: discarded.event,
            discarded_id: discarded.id,
            error,
            limit,
        };
        if let Some(r) = event_rec {
            report.event = a2a_sse_item {
                kind: r.kind,
                event_type: view(&d.arena, &[], r.event_type),
                data: view(&d.arena, &[], r.data),
                id: view(&d.arena, &[], r.id),
                retry_ms: 0,
                error: a2a_result::A2A_OK,
                limit: 0,
            };
        }
        out.set(report);
        a2a_result::A2A_OK
    }
}

fn empty_item() -> a2a_sse_item {
    a2a_sse_item {
        kind: a2a_sse_item_kind::Event,
        event_type: a2a_bytes::NONE,
        data: a2a_bytes::NONE,
        id: a2a_bytes::NONE,
        retry_ms: 0,
        error: a2a_result::A2A_OK,
        limit: 0,
    }
}

/// The last event ID (send it as `Last-Event-ID` when reconnecting; never contains NUL, CR
/// or LF); empty (non-NULL, length 0) when none was set. Absent `(NULL, 0)` only when
/// `decoder` is NULL. The view points into the decoder: valid until the next mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_decoder_last_event_id(decoder: *const a2a_sse_decoder) -> a2a_bytes {
    ffi_panic_boundary! {
        a2a_bytes::from_slice(try_ref!(decoder).decoder.last_event_id())
    }
}

/// Sets the last event ID (for example one persisted by an earlier process). `id`/`id_len`
/// is copied; `(NULL, 0)` clears it.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_SSE_ID_NUL` (the id contains NUL, which the spec
/// ignores; the id is unchanged).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_decoder_set_last_event_id(
    decoder: *mut a2a_sse_decoder,
    id: *const u8,
    id_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let d = try_mut!(decoder);
        let id = try_bytes!(id, id_len);
        d.begin();
        if d.decoder.set_last_event_id(id) {
            a2a_result::A2A_OK
        } else {
            d.last_error = "SSE id contains NUL; ignored as the spec requires".to_owned();
            a2a_result::A2A_SSE_ID_NUL
        }
    }
}

/// The last valid `retry` value (reconnection time in milliseconds) seen on any stream of
/// this decoder. Returns true and writes `*out` when there is one; false (leaving `*out`
/// untouched) otherwise or when an argument is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_decoder_retry(decoder: *const a2a_sse_decoder, out: *mut u64) -> bool {
    ffi_panic_boundary! {
        let out = try_out!(out);
        match try_ref!(decoder).decoder.retry() {
            Some(ms) => { out.set(ms); true }
            None => false,
        }
    }
}

/// Forgets the stream in progress without reporting it, for a new connection; keeps the
/// last event ID and the retry value. Items of the last feed become invalid.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_decoder_reset_for_reconnect(decoder: *mut a2a_sse_decoder) -> a2a_result {
    ffi_panic_boundary! {
        let d = try_mut!(decoder);
        d.begin();
        d.decoder.reset_for_reconnect();
        a2a_result::A2A_OK
    }
}

/// A human-readable message for the last error of the most recent mutating call on the
/// decoder (e.g. which limit a line went over); absent `(NULL, 0)` when that call had none
/// or `decoder` is NULL. The view points into the decoder: valid until the next mutating
/// call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_decoder_last_error(decoder: *const a2a_sse_decoder) -> a2a_str {
    ffi_panic_boundary! {
        let d = try_ref!(decoder);
        if d.last_error.is_empty() {
            a2a_str::NONE
        } else {
            a2a_str::from_str(&d.last_error)
        }
    }
}

/// An SSE writer: appends events, comments and keep-alives to a buffer it owns.
///
/// Methods: `a2a_sse_encoder_new`, `a2a_sse_encoder_free`, `a2a_sse_encoder_event`,
/// `a2a_sse_encoder_comment`, `a2a_sse_encoder_keep_alive`, `a2a_sse_encoder_output`,
/// `a2a_sse_encoder_clear`, `a2a_sse_encoder_last_error`.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_sse_encoder {
    out: Vec<u8>,
    last_error: String,
}

impl Handle for a2a_sse_encoder {}

fn encode_code(e: &EncodeError) -> a2a_result {
    match e {
        EncodeError::EventTypeLineBreak => a2a_result::A2A_SSE_EVENT_TYPE_LINE_BREAK,
        EncodeError::IdLineBreak => a2a_result::A2A_SSE_ID_LINE_BREAK,
        EncodeError::IdNul => a2a_result::A2A_SSE_ID_NUL,
        _ => a2a_result::A2A_SSE_ENCODE,
    }
}

/// A new encoder with an empty buffer.
///
/// `out`: receives a new handle the caller owns (free with `a2a_sse_encoder_free`);
/// written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_encoder_new(out: *mut *mut a2a_sse_encoder) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_sse_encoder { out: Vec::new(), last_error: String::new() }));
        a2a_result::A2A_OK
    }
}

/// Frees an encoder. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_encoder_free(encoder: *mut a2a_sse_encoder) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(encoder) }
    }
}

/// Appends one event: a `retry:` line when `has_retry`, an `id:` line when `has_id` (an
/// empty id resets the client's last event ID), an `event:` line when `event_type` is not
/// empty, then the data (line breaks in it become separate `data:` lines) and a blank line.
///
/// Every input pair is copied (borrowed for the call only); `(NULL, 0)` is empty.
///
/// Errors (nothing is appended): `A2A_NULL_PARAMETER`, `A2A_SSE_EVENT_TYPE_LINE_BREAK`,
/// `A2A_SSE_ID_LINE_BREAK`, `A2A_SSE_ID_NUL`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_sse_encoder_event(
    encoder: *mut a2a_sse_encoder,
    data: *const u8,
    data_len: usize,
    event_type: *const u8,
    event_type_len: usize,
    has_id: bool,
    id: *const u8,
    id_len: usize,
    has_retry: bool,
    retry_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let enc = try_mut!(encoder);
        let data = try_bytes!(data, data_len);
        let event_type = try_bytes!(event_type, event_type_len);
        let id = try_bytes!(id, id_len);
        enc.last_error.clear();
        let mut ev = OutEvent::new(data);
        if !event_type.is_empty() {
            ev = ev.event_type(event_type);
        }
        if has_id {
            ev = ev.id(id);
        }
        if has_retry {
            ev = ev.retry(retry_ms);
        }
        match ev.write_to(&mut enc.out) {
            Ok(()) => a2a_result::A2A_OK,
            Err(e) => {
                enc.last_error = e.to_string();
                encode_code(&e)
            }
        }
    }
}

/// Appends a comment (`: text`; a line break starts another comment line). `text` is
/// copied; `(NULL, 0)` writes an empty comment line `:`.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_encoder_comment(
    encoder: *mut a2a_sse_encoder,
    text: *const u8,
    text_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let enc = try_mut!(encoder);
        let text = try_bytes!(text, text_len);
        enc.last_error.clear();
        encoder::write_comment(&mut enc.out, text);
        a2a_result::A2A_OK
    }
}

/// Appends the keep-alive `: keep-alive` and a blank line (send one when nothing was
/// written for a while, so proxies keep a quiet stream open).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_encoder_keep_alive(encoder: *mut a2a_sse_encoder) -> a2a_result {
    ffi_panic_boundary! {
        let enc = try_mut!(encoder);
        enc.last_error.clear();
        encoder::write_keep_alive(&mut enc.out);
        a2a_result::A2A_OK
    }
}

/// Everything written since the encoder was created or last cleared. The view points into
/// the encoder: valid until the next mutating call. Absent `(NULL, 0)` only when `encoder`
/// is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_encoder_output(encoder: *const a2a_sse_encoder) -> a2a_bytes {
    ffi_panic_boundary! {
        a2a_bytes::from_slice(&try_ref!(encoder).out)
    }
}

/// Empties the buffer (keeping its capacity), e.g. after the bytes were sent.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_encoder_clear(encoder: *mut a2a_sse_encoder) -> a2a_result {
    ffi_panic_boundary! {
        let enc = try_mut!(encoder);
        enc.last_error.clear();
        enc.out.clear();
        a2a_result::A2A_OK
    }
}

/// A human-readable message for the error of the most recent mutating call on the encoder;
/// absent `(NULL, 0)` when it had none or `encoder` is NULL. Valid until the next mutating
/// call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_sse_encoder_last_error(encoder: *const a2a_sse_encoder) -> a2a_str {
    ffi_panic_boundary! {
        let e = try_ref!(encoder);
        if e.last_error.is_empty() { a2a_str::NONE } else { a2a_str::from_str(&e.last_error) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::{null, null_mut};

    /// An item copied out: (kind, type, data, id, retry).
    type Owned = (
        a2a_sse_item_kind,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        u64,
    );

    fn new_decoder() -> *mut a2a_sse_decoder {
        let mut d = null_mut();
        assert_eq!(
            a2a_sse_decoder_new_with(16 << 20, 16 << 20, a2a_sse_at_eof::Discard as u32, &mut d),
            a2a_result::A2A_OK
        );
        d
    }

    /// The items of a packed feed (NULL exactly when there are none).
    fn items_of(p: &a2a_sse_packed) -> &'static [a2a_sse_item] {
        if p.item_count == 0 {
            assert!(p.items.is_null());
            &[][..]
        } else {
            unsafe { std::slice::from_raw_parts(p.items, p.item_count) }
        }
    }

    /// Feeds `chunk` (packed) and returns the items as owned tuples (kind, type, data, id).
    fn feed_all(d: *mut a2a_sse_decoder, chunk: &[u8]) -> Vec<Owned> {
        let p = feed_packed(d, chunk);
        items_of(&p.raw)
            .iter()
            .map(|i| unsafe {
                (
                    i.kind,
                    i.event_type.as_slice().map(<[u8]>::to_vec),
                    i.data.as_slice().map(<[u8]>::to_vec),
                    i.id.as_slice().map(<[u8]>::to_vec),
                    i.retry_ms,
                )
            })
            .collect()
    }

    #[test]
    fn events_split_across_chunks_come_out_whole() {
        let d = new_decoder();
        assert!(feed_all(d, b"id: 7\ndata: hel").is_empty());
        let items = feed_all(d, b"lo\r\n\n: ping\nretry: 1500\n");
        assert_eq!(items.len(), 3);
        assert_eq!(items[0].0, a2a_sse_item_kind::Event);
        assert_eq!(items[0].1.as_deref(), Some(&b"message"[..]));
        assert_eq!(items[0].2.as_deref(), Some(&b"hello"[..]));
        assert_eq!(items[0].3.as_deref(), Some(&b"7"[..]));
        assert_eq!(items[1].0, a2a_sse_item_kind::Comment);
        assert_eq!(items[1].2.as_deref(), Some(&b" ping"[..]));
        assert_eq!(items[2].0, a2a_sse_item_kind::Retry);
        assert_eq!(items[2].4, 1500);
        assert!(items[2].2.is_none());
        let mut r = 0;
        assert!(a2a_sse_decoder_retry(d, &mut r));
        assert_eq!(r, 1500);
        assert_eq!(
            unsafe { a2a_sse_decoder_last_event_id(d).as_slice() },
            Some(&b"7"[..])
        );
        a2a_sse_decoder_free(d);
    }

    #[test]
    fn limits_are_reported_as_items_and_decoding_goes_on() {
        let mut d = null_mut();
        assert_eq!(
            a2a_sse_decoder_new_with(8, 1024, a2a_sse_at_eof::Discard as u32, &mut d),
            a2a_result::A2A_OK
        );
        let items = feed_all(d, b"data: far too long\n\ndata: ok\n\n");
        assert_eq!(items[0].0, a2a_sse_item_kind::LimitError);
        let msg = unsafe { a2a_sse_decoder_last_error(d).as_str() }.unwrap();
        assert!(msg.contains("max_line"), "{msg}");
        assert_eq!(items.last().unwrap().2.as_deref(), Some(&b"ok"[..]));
        // The next mutating call clears the message.
        feed_all(d, b"");
        assert!(a2a_sse_decoder_last_error(d).ptr.is_null());
        a2a_sse_decoder_free(d);
        for (line, event, eof) in [(0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 1, 3)] {
            let mut d = null_mut();
            assert_eq!(
                a2a_sse_decoder_new_with(line, event, eof, &mut d),
                a2a_result::A2A_INVALID_ARGUMENT
            );
            assert!(d.is_null());
        }
    }

    #[test]
    fn limit_item_carries_code_and_limit() {
        let mut d = null_mut();
        assert_eq!(
            a2a_sse_decoder_new_with(1024, 4, a2a_sse_at_eof::Discard as u32, &mut d),
            a2a_result::A2A_OK
        );
        let p = feed_packed(d, b"data: 123\ndata: 456\n\n");
        assert_eq!(p.raw.limit_error_count, 1);
        let e = items_of(&p.raw)
            .iter()
            .find(|i| i.kind == a2a_sse_item_kind::LimitError)
            .unwrap();
        assert_eq!(e.error, a2a_result::A2A_SSE_EVENT_TOO_LARGE);
        assert_eq!(e.limit, 4);
        a2a_sse_decoder_free(d);
    }

    #[test]
    fn finish_reports_the_discarded_block_or_dispatches_it() {
        let d = new_decoder();
        feed_all(d, b"id: 9\ndata: partial");
        let mut f = a2a_sse_finish {
            has_event: true,
            event: empty_item(),
            discarded: false,
            discarded_partial_line: 0,
            discarded_event: false,
            discarded_id: false,
            error: a2a_result::A2A_PANIC,
            limit: 0,
        };
        assert_eq!(a2a_sse_decoder_finish(d, &mut f), a2a_result::A2A_OK);
        assert!(!f.has_event);
        assert!(f.discarded && f.discarded_event && f.discarded_id);
        assert_eq!(f.discarded_partial_line, "data: partial".len());
        // Second finish: clean end. Feeding afterwards starts a new stream.
        assert_eq!(a2a_sse_decoder_finish(d, &mut f), a2a_result::A2A_OK);
        assert!(!f.discarded);
        let items = feed_all(d, b"data: again\n\n");
        assert_eq!(items[0].2.as_deref(), Some(&b"again"[..]));
        a2a_sse_decoder_free(d);

        let mut d = null_mut();
        a2a_sse_decoder_new_with(64, 64, a2a_sse_at_eof::Dispatch as u32, &mut d);
        feed_all(d, b"event: x\ndata: tail");
        assert_eq!(a2a_sse_decoder_finish(d, &mut f), a2a_result::A2A_OK);
        assert!(f.has_event);
        assert_eq!(unsafe { f.event.data.as_slice() }, Some(&b"tail"[..]));
        assert_eq!(unsafe { f.event.event_type.as_slice() }, Some(&b"x"[..]));
        a2a_sse_decoder_free(d);
    }

    #[test]
    fn last_event_id_and_reconnect() {
        let d = new_decoder();
        assert_eq!(
            a2a_sse_decoder_set_last_event_id(d, b"a\0b".as_ptr(), 3),
            a2a_result::A2A_SSE_ID_NUL
        );
        assert!(!a2a_sse_decoder_last_error(d).ptr.is_null());
        assert_eq!(
            a2a_sse_decoder_set_last_event_id(d, b"42".as_ptr(), 2),
            a2a_result::A2A_OK
        );
        feed_all(d, b"data: x");
        assert_eq!(a2a_sse_decoder_reset_for_reconnect(d), a2a_result::A2A_OK);
        assert_eq!(
            unsafe { a2a_sse_decoder_last_event_id(d).as_slice() },
            Some(&b"42"[..])
        );
        let items = feed_all(d, b"\n\ndata: y\n\n");
        assert_eq!(items.len(), 1, "the partial block was forgotten");
        assert_eq!(items[0].2.as_deref(), Some(&b"y"[..]));
        a2a_sse_decoder_free(d);
    }

    #[test]
    fn null_arguments() {
        let mut out = std::mem::MaybeUninit::<a2a_sse_packed>::uninit();
        assert_eq!(
            a2a_sse_decoder_feed_packed(null_mut(), null(), 0, out.as_mut_ptr()),
            a2a_result::A2A_NULL_PARAMETER
        );
        let d = new_decoder();
        assert_eq!(
            a2a_sse_decoder_feed_packed(d, null(), 5, out.as_mut_ptr()),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_sse_decoder_feed_packed(d, null(), 0, null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_sse_decoder_feed_packed(d, null(), 0, out.as_mut_ptr()),
            a2a_result::A2A_OK
        );
        let p = unsafe { out.assume_init() };
        assert_eq!((p.item_count, p.event_count), (0, 0));
        assert!(p.items.is_null());
        assert_eq!(
            a2a_sse_decoder_new_with(1, 1, a2a_sse_at_eof::Discard as u32, null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert!(a2a_sse_decoder_last_event_id(null()).ptr.is_null());
        a2a_sse_decoder_free(d);
        a2a_sse_decoder_free(null_mut());
    }

    #[test]
    fn encoder_output_decodes_back() {
        let mut e = null_mut();
        assert_eq!(a2a_sse_encoder_new(&mut e), a2a_result::A2A_OK);
        let data = b"line1\r\nline2";
        assert_eq!(
            a2a_sse_encoder_event(
                e,
                data.as_ptr(),
                data.len(),
                b"t".as_ptr(),
                1,
                true,
                b"5".as_ptr(),
                1,
                true,
                300
            ),
            a2a_result::A2A_OK
        );
        assert_eq!(
            a2a_sse_encoder_comment(e, b"hi".as_ptr(), 2),
            a2a_result::A2A_OK
        );
        assert_eq!(a2a_sse_encoder_keep_alive(e), a2a_result::A2A_OK);
        assert_eq!(
            a2a_sse_encoder_event(e, null(), 0, null(), 0, true, b"a\nb".as_ptr(), 3, false, 0),
            a2a_result::A2A_SSE_ID_LINE_BREAK
        );
        assert!(!a2a_sse_encoder_last_error(e).ptr.is_null());
        assert_eq!(
            a2a_sse_encoder_event(e, null(), 0, b"x\r".as_ptr(), 2, false, null(), 0, false, 0),
            a2a_result::A2A_SSE_EVENT_TYPE_LINE_BREAK
        );
        let out = unsafe { a2a_sse_encoder_output(e).as_slice() }
            .unwrap()
            .to_vec();
        let d = new_decoder();
        let items = feed_all(d, &out);
        let kinds: Vec<_> = items.iter().map(|i| i.0).collect();
        assert_eq!(
            kinds,
            [
                a2a_sse_item_kind::Retry,
                a2a_sse_item_kind::Event,
                a2a_sse_item_kind::Comment,
                a2a_sse_item_kind::Comment
            ]
        );
        assert_eq!(items[1].2.as_deref(), Some(&b"line1\nline2"[..]));
        assert_eq!(items[1].1.as_deref(), Some(&b"t"[..]));
        assert_eq!(items[1].3.as_deref(), Some(&b"5"[..]));
        assert_eq!(a2a_sse_encoder_clear(e), a2a_result::A2A_OK);
        assert_eq!(
            unsafe { a2a_sse_encoder_output(e).as_slice() },
            Some(&b""[..])
        );
        a2a_sse_decoder_free(d);
        a2a_sse_encoder_free(e);
        a2a_sse_encoder_free(null_mut());
    }

    /// One packed feed copied out: the events read through the GUARANTEED layout (offsets,
    /// CR terminators) and the packed struct.
    struct Packed {
        events: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
        bytes: Vec<u8>,
        raw: a2a_sse_packed,
    }

    fn feed_packed(d: *mut a2a_sse_decoder, chunk: &[u8]) -> Packed {
        let mut out = std::mem::MaybeUninit::<a2a_sse_packed>::uninit();
        assert_eq!(
            a2a_sse_decoder_feed_packed(d, chunk.as_ptr(), chunk.len(), out.as_mut_ptr()),
            a2a_result::A2A_OK
        );
        let p = unsafe { out.assume_init() };
        let bytes = unsafe { p.bytes.as_slice() }.expect("bytes is never absent");
        let offsets = unsafe { std::slice::from_raw_parts(p.offsets, 3 * p.event_count + 1) };
        // The layout promise: starts at 0, ends at the buffer's end, every value ended by
        // a CR and containing none.
        assert_eq!(offsets[0], 0);
        assert_eq!(offsets[3 * p.event_count], bytes.len() as u64);
        assert_eq!(
            bytes.iter().filter(|&&b| b == b'\r').count(),
            3 * p.event_count
        );
        for w in offsets.windows(2) {
            assert!(w[0] < w[1]);
            assert_eq!(bytes[w[1] as usize - 1], b'\r');
        }
        let value = |k: usize| bytes[offsets[k] as usize..offsets[k + 1] as usize - 1].to_vec();
        let events = (0..p.event_count)
            .map(|i| (value(3 * i), value(3 * i + 1), value(3 * i + 2)))
            .collect();
        Packed {
            events,
            bytes: bytes.to_vec(),
            raw: p,
        }
    }

    /// A small deterministic generator (xorshift64*) for the stream tests.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A random stream: events with types, ids, multi-line and non-ASCII data, comments,
    /// retry fields, CR / LF / CRLF, invalid and truncated UTF-8, and over-long lines.
    fn random_stream(rng: &mut Rng) -> Vec<u8> {
        let pieces: [&[u8]; 14] = [
            b"data: hello",
            b"data: \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80",
            b"event: update",
            b"id: 42",
            b"id",
            b": keep-alive",
            b"retry: 1500",
            b"data",
            b"data: \xff\xfe bad",
            b"data: line2",
            b"event: \xe2\x82\xac",
            b"event: \xe2\x82",
            b"id: \xf0\x9f",
            b"unknown: x",
        ];
        let ends: [&[u8]; 3] = [b"\n", b"\r\n", b"\r"];
        let mut out = Vec::new();
        for _ in 0..rng.below(40) {
            for _ in 0..=rng.below(3) {
                out.extend_from_slice(pieces[rng.below(pieces.len())]);
                out.extend_from_slice(ends[rng.below(3)]);
            }
            if rng.below(20) == 0 {
                out.extend_from_slice(&[b'x'; 300]);
                out.extend_from_slice(b"\n");
            }
            out.extend_from_slice(ends[rng.below(3)]);
        }
        out
    }

    /// Feeds `chunk` to the core's own decoder and copies its items out, as `feed_all`
    /// does for the C call: the reference the packed feed is checked against.
    fn core_items(d: &mut Decoder, chunk: &[u8]) -> Vec<Owned> {
        let mut out = Vec::new();
        let mut feed = d.feed(chunk);
        loop {
            let owned = |v: &[u8]| Some(v.to_vec());
            match feed.next_item() {
                Ok(None) => break,
                Ok(Some(Item::Event(e))) => out.push((
                    a2a_sse_item_kind::Event,
                    owned(e.event_type),
                    owned(e.data),
                    owned(e.id),
                    0,
                )),
                Ok(Some(Item::Comment(c))) => {
                    out.push((a2a_sse_item_kind::Comment, None, owned(c), None, 0));
                }
                Ok(Some(Item::Retry(ms))) => {
                    out.push((a2a_sse_item_kind::Retry, None, None, None, ms));
                }
                Err(_) => out.push((a2a_sse_item_kind::LimitError, None, None, None, 0)),
            }
        }
        out
    }

    /// The packed call gives, chunk for chunk, exactly the items of the core's decoder, its
    /// events laid out as promised; decoding the whole buffer lossily and splitting it at
    /// CR gives each value decoded lossily on its own.
    #[test]
    fn packed_feed_equals_the_core_decoder_on_random_streams() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut non_utf8_batches = 0;
        for round in 0..300 {
            let stream = random_stream(&mut rng);
            // The same configuration as `a2a_sse_decoder_new_with(256, 4096, DISCARD)`.
            let mut a = Decoder::with_config(
                Config::new()
                    .with_comment_text(true)
                    .with_max_line(256)
                    .with_max_event(4096)
                    .with_at_eof(AtEof::Discard),
            );
            let mut b = null_mut();
            assert_eq!(
                a2a_sse_decoder_new_with(256, 4096, a2a_sse_at_eof::Discard as u32, &mut b),
                a2a_result::A2A_OK
            );
            let mut pos = 0;
            while pos < stream.len() {
                let n = 1 + rng.below(if round % 3 == 0 { 4 } else { 200 });
                let chunk = &stream[pos..(pos + n).min(stream.len())];
                pos += chunk.len();
                let want = core_items(&mut a, chunk);
                let got = feed_packed(b, chunk);
                // The items of the packed call equal those of the core's decoder.
                let items = items_of(&got.raw);
                assert_eq!(items.len(), want.len());
                for (i, w) in items.iter().zip(&want) {
                    assert_eq!(i.kind, w.0);
                    assert_eq!(unsafe { i.event_type.as_slice() }.map(<[u8]>::to_vec), w.1);
                    assert_eq!(unsafe { i.data.as_slice() }.map(<[u8]>::to_vec), w.2);
                    assert_eq!(unsafe { i.id.as_slice() }.map(<[u8]>::to_vec), w.3);
                    assert_eq!(i.retry_ms, w.4);
                }
                let events: Vec<_> = want
                    .iter()
                    .filter(|w| w.0 == a2a_sse_item_kind::Event)
                    .map(|w| {
                        (
                            w.1.clone().unwrap(),
                            w.2.clone().unwrap(),
                            w.3.clone().unwrap(),
                        )
                    })
                    .collect();
                assert_eq!(got.events, events, "round {round}");
                let kinds = |k| want.iter().filter(|w| w.0 == k).count();
                assert_eq!(got.raw.comment_count, kinds(a2a_sse_item_kind::Comment));
                assert_eq!(
                    got.raw.limit_error_count,
                    kinds(a2a_sse_item_kind::LimitError)
                );
                // Decode once, split at CR == decode each value alone.
                let whole = String::from_utf8_lossy(&got.bytes);
                let pieces: Vec<&str> = whole.split('\r').collect();
                assert_eq!(pieces.len(), 3 * events.len() + 1);
                assert_eq!(pieces.last(), Some(&""));
                let alone: Vec<String> = events
                    .iter()
                    .flat_map(|(t, d, i)| [t, d, i])
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .collect();
                assert_eq!(pieces[..pieces.len() - 1], alone[..]);
                if std::str::from_utf8(&got.bytes).is_err() {
                    non_utf8_batches += 1;
                }
            }
            a2a_sse_decoder_free(b);
        }
        assert!(non_utf8_batches > 20, "the generator reaches invalid UTF-8");
    }

    #[test]
    fn packed_layout_of_a_known_batch() {
        let d = new_decoder();
        let chunk = "event: é\ndata: a😀b\ndata: 2\nid: ü\n\ndata: x\n\n".as_bytes();
        let p = feed_packed(d, chunk);
        assert_eq!(p.raw.event_count, 2);
        assert_eq!(p.bytes, "é\ra😀b\n2\rü\rmessage\rx\rü\r".as_bytes());
        let offsets = unsafe { std::slice::from_raw_parts(p.raw.offsets, 7) };
        assert_eq!(offsets, [0, 3, 12, 15, 23, 25, 28]);
        // A value that is not UTF-8 on its own stays exact bytes.
        let p = feed_packed(d, b"event: \xe2\ndata: \x82\xac\n\n");
        assert_eq!(p.events[0].0, b"\xe2");
        assert_eq!(p.events[0].1, b"\x82\xac");
        assert_eq!(
            String::from_utf8_lossy(&p.bytes)
                .split('\r')
                .collect::<Vec<_>>(),
            ["\u{FFFD}", "\u{FFFD}\u{FFFD}", "ü", ""]
        );
        a2a_sse_decoder_free(d);
    }

    #[test]
    fn packed_feed_keeps_no_pointer_into_the_chunk_and_lists_its_items() {
        let d = new_decoder();
        let mut chunk = b"id: 1\ndata: first\n\n: ping\nretry: 10\ndata: sec".to_vec();
        let range = chunk.as_ptr_range();
        let p = feed_packed(d, &chunk);
        assert!(!range.contains(&p.raw.bytes.ptr));
        chunk.fill(b'#');
        drop(chunk);
        let bytes = unsafe { p.raw.bytes.as_slice() }.unwrap();
        assert_eq!(bytes, b"message\rfirst\r1\r");
        assert_eq!(
            (p.raw.event_count, p.raw.comment_count, p.raw.item_count),
            (1, 1, 3)
        );
        let items = unsafe { std::slice::from_raw_parts(p.raw.items, p.raw.item_count) };
        assert_eq!(
            items[0].data.ptr,
            unsafe { p.raw.bytes.ptr.add(8) },
            "event views point into bytes"
        );
        assert_eq!(items[0].data.len, 5);
        assert_eq!(items[1].kind, a2a_sse_item_kind::Comment);
        assert_eq!(items[2].retry_ms, 10);
        // The rest of a split event arrives in the next feed; empty feeds are empty batches.
        let p = feed_packed(d, b"ond\n\n");
        assert_eq!(
            p.events,
            [(b"message".to_vec(), b"second".to_vec(), b"1".to_vec())]
        );
        let p = feed_packed(d, b"");
        assert_eq!((p.raw.event_count, p.raw.item_count), (0, 0));
        assert!(p.raw.items.is_null() && !p.raw.bytes.ptr.is_null());
        assert_eq!(p.raw.bytes.len, 0);
        a2a_sse_decoder_free(d);
    }

    #[test]
    fn packed_feed_limits_and_arguments() {
        let mut d = null_mut();
        a2a_sse_decoder_new_with(8, 1024, a2a_sse_at_eof::Discard as u32, &mut d);
        let p = feed_packed(d, b"data: far too long\n\ndata: ok\n\n");
        assert_eq!(p.raw.limit_error_count, 1);
        assert_eq!(
            p.events,
            [(b"message".to_vec(), b"ok".to_vec(), Vec::new())]
        );
        assert!(!a2a_sse_decoder_last_error(d).ptr.is_null());
        let mut out = std::mem::MaybeUninit::<a2a_sse_packed>::uninit();
        assert_eq!(
            a2a_sse_decoder_feed_packed(d, null(), 3, out.as_mut_ptr()),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_sse_decoder_feed_packed(d, null(), 0, null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_sse_decoder_feed_packed(null_mut(), null(), 0, out.as_mut_ptr()),
            a2a_result::A2A_NULL_PARAMETER
        );
        a2a_sse_decoder_free(d);
    }
}
