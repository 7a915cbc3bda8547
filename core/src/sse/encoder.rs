//! Writing an event stream (for servers embedded in other stacks, and test servers).
//!
//! Every function appends to a caller-owned `Vec<u8>` and never allocates anything else.
//! A value containing CR or LF is written as several lines (`data`, comments), so that
//! decoding what was written gives back the value with every CRLF, CR or LF turned into LF
//! (the only line break an event stream can carry). Values that cannot be written without
//! changing their meaning (a line break in `event` or `id`, NUL in `id`) are refused.

use memchr::{memchr, memchr2};

/// A value that cannot be written as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The event type contains CR or LF.
    #[error("SSE event type contains a line break")]
    EventTypeLineBreak,
    /// The id contains CR or LF.
    #[error("SSE id contains a line break")]
    IdLineBreak,
    /// The id contains NUL (a decoder would ignore the whole `id` field).
    #[error("SSE id contains NUL")]
    IdNul,
}

/// An event to write. Build with [`OutEvent::new`] and the setters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutEvent<'a> {
    /// The event type (`event:` line); `None` or empty means the default `message`.
    pub event_type: Option<&'a [u8]>,
    /// The data; line breaks in it become separate `data:` lines.
    pub data: &'a [u8],
    /// The id (`id:` line); `Some(b"")` resets the client's last event ID.
    pub id: Option<&'a [u8]>,
    /// A reconnection time in milliseconds (`retry:` line).
    pub retry: Option<u64>,
}

impl<'a> OutEvent<'a> {
    /// An event with this data and nothing else.
    pub fn new(data: &'a [u8]) -> OutEvent<'a> {
        OutEvent {
            data,
            ..OutEvent::default()
        }
    }

    /// Sets the event type.
    pub fn event_type(mut self, event_type: &'a [u8]) -> OutEvent<'a> {
        self.event_type = Some(event_type);
        self
    }

    /// Sets the id.
    pub fn id(mut self, id: &'a [u8]) -> OutEvent<'a> {
        self.id = Some(id);
        self
    }

    /// Sets the retry value.
    pub fn retry(mut self, ms: u64) -> OutEvent<'a> {
        self.retry = Some(ms);
        self
    }

    /// Appends the event (`retry`, `id`, `event`, then `data` lines and a blank line) to
    /// `out`. On error nothing is written.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if let Some(t) = self.event_type
            && memchr2(b'\r', b'\n', t).is_some()
        {
            return Err(EncodeError::EventTypeLineBreak);
        }
        if let Some(id) = self.id {
            if memchr2(b'\r', b'\n', id).is_some() {
                return Err(EncodeError::IdLineBreak);
            }
            if memchr(0, id).is_some() {
                return Err(EncodeError::IdNul);
            }
        }
        out.reserve(self.data.len() + 32);
        if let Some(ms) = self.retry {
            out.extend_from_slice(b"retry:");
            write_u64(out, ms);
            out.push(b'\n');
        }
        if let Some(id) = self.id {
            field(out, b"id", id);
        }
        if let Some(t) = self.event_type
            && !t.is_empty()
        {
            field(out, b"event", t);
        }
        for line in Lines::new(self.data) {
            field(out, b"data", line);
        }
        out.push(b'\n');
        Ok(())
    }
}

/// Appends a comment (`:` lines; a line break in `text` starts another comment line).
/// Decoders report it as a comment, browsers ignore it.
pub fn write_comment(out: &mut Vec<u8>, text: &[u8]) {
    for line in Lines::new(text) {
        out.push(b':');
        if !line.is_empty() {
            out.push(b' ');
            out.extend_from_slice(line);
        }
        out.push(b'\n');
    }
}

/// The keep-alive this crate sends: `: keep-alive` and a blank line. Send one when nothing
/// was written for a while, so that proxies and load balancers keep a quiet stream open.
pub const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// Appends [`KEEP_ALIVE`].
pub fn write_keep_alive(out: &mut Vec<u8>) {
    out.extend_from_slice(KEEP_ALIVE);
}

/// Appends `name: value\n` (`name:\n` for an empty value; the space keeps a value that
/// starts with a space intact).
fn field(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.extend_from_slice(name);
    out.push(b':');
    if !value.is_empty() {
        out.push(b' ');
        out.extend_from_slice(value);
    }
    out.push(b'\n');
}

fn write_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// The lines of a value split at CRLF, CR or LF; an empty value is one empty line.
struct Lines<'a> {
    rest: Option<&'a [u8]>,
}

impl<'a> Lines<'a> {
    fn new(value: &'a [u8]) -> Lines<'a> {
        Lines { rest: Some(value) }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest?;
        match memchr2(b'\r', b'\n', rest) {
            None => {
                self.rest = None;
                Some(rest)
            }
            Some(i) => {
                let skip = if rest[i] == b'\r' && rest.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                self.rest = Some(&rest[i + skip..]);
                Some(&rest[..i])
            }
        }
    }
}
