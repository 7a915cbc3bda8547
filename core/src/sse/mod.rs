//! Server-Sent Events (`text/event-stream`): an incremental zero-copy [`Decoder`] and an
//! [`encoder`] for servers.
//!
//! The decoder implements the WHATWG HTML "event stream interpretation" (§9.2.5 parsing,
//! §9.2.6 interpretation) on bytes:
//! - lines end at CRLF, LF or a lone CR; a CR that ends one chunk ends its line at once and an
//!   LF starting the next non-empty chunk is swallowed; one leading UTF-8 BOM is removed,
//!   even when split across chunks;
//! - `data` values are joined with LF; `event` sets the type (default `message`); `id` sets
//!   the last event ID unless it contains NUL, the ID persists across events and is
//!   committed at every block end, even one that dispatches nothing; `retry` takes ASCII
//!   digits only (values that overflow a `u64` are ignored); unknown fields are ignored; a
//!   line without a colon is a field with an empty value; one space after the colon is
//!   removed; a block without `data` dispatches nothing, while `data:` alone dispatches an
//!   event with empty data;
//! - comments are reported as [`Item::Comment`] (liveness signals), never as events; their
//!   text only with [`Config::comment_text`];
//! - at the end of the stream an unterminated block is discarded and reported, or
//!   dispatched with [`AtEof::Dispatch`];
//! - lines and events are bounded by [`Config`]; input over a limit yields a
//!   [`LimitError`] naming it, the rest of that event is skipped, and decoding goes on.
//!
//! Values are bytes. Because every delimiter is ASCII and never occurs inside a multi-byte
//! UTF-8 sequence, splitting bytes first and decoding each value afterwards (the
//! `*_lossy` accessors, which replace invalid sequences with U+FFFD like the Encoding
//! standard) gives the same text as decoding the stream first, and a character split across
//! chunks is never corrupted.
//!
//! Throughput and the zero-copy and no-rescan properties are described on [`Decoder`].

mod config;
mod decoder;
pub mod encoder;
mod item;
mod line;
#[cfg(test)]
mod tests;

pub use config::{AtEof, Config, DEFAULT_MAX_EVENT, DEFAULT_MAX_LINE, LimitError};
pub use decoder::{Decoder, Feed};
pub use item::{Discarded, Event, Finish, Item};
