//! A response body read chunk by chunk with a per-read deadline: the layer under typed
//! streams, and the escape hatch for callers that decode events themselves.

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::exchange::{aborted_outcome, read_error_outcome};
use super::io::CallIo;
use crate::outcome::Outcome;

/// Aborts a call from any thread: shuts the call's TCP connection down, so a read or
/// write blocked on it returns promptly and the call fails with a `transport` `Reset`
/// outcome ("aborted by the caller"; `request_sent = unknown` once request bytes were
/// written, `no` before). Cheap to clone; aborting twice, or after the call returned,
/// does nothing: a call forgets its connection before it returns (also when the
/// connection went back to the pool). An abort racing with the very end of a call may
/// still shut down the connection it was returning to the pool; the pool then finds it
/// closed and drops it (a call that took it from the pool in that same instant fails
/// with a reset).
///
/// An abort during the TCP connect itself takes effect when the connect returns (at the
/// latest at the connect timeout): the operating system's blocking connect cannot be
/// interrupted, and the socket does not exist before it.
#[derive(Clone)]
pub struct AbortHandle {
    io: Arc<CallIo>,
}

impl std::fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AbortHandle")
            .field("aborted", &self.io.aborted())
            .finish()
    }
}

impl Default for AbortHandle {
    fn default() -> Self {
        AbortHandle::new()
    }
}

impl AbortHandle {
    /// A handle for a call not started yet: pass it to [`super::Client::exchange_abortable`]
    /// or [`super::Client::open_stream_abortable`]. One handle per call.
    pub fn new() -> AbortHandle {
        AbortHandle { io: CallIo::new() }
    }

    /// Aborts the call (see the type's documentation). Safe from any thread, any time.
    pub fn abort(&self) {
        self.io.abort();
    }

    /// Whether [`AbortHandle::abort`] was called.
    pub fn is_aborted(&self) -> bool {
        self.io.aborted()
    }

    /// Makes aborting `self` abort `other` too (at once when `self` was aborted already):
    /// one caller's switch over the fresh handle each request of a call gets (a handle
    /// records whether its own request wrote bytes, so it is not reused across requests).
    /// Keeps no strong reference to `other`. Safe from any thread.
    pub fn link(&self, other: &AbortHandle) {
        self.io.link(&other.io);
    }

    /// Sleeps until `deadline` unless [`AbortHandle::abort`] is called first (from another
    /// thread): then it returns at once. Whether the handle was aborted.
    pub fn sleep_until(&self, deadline: Instant) -> bool {
        self.io.sleep_until(deadline)
    }

    pub(crate) fn io(&self) -> &Arc<CallIo> {
        &self.io
    }
}

/// The read buffer of a new stream. An open stream keeps its buffer while it waits, and most
/// streams wait far more than they read (issue 28: a 16 KiB buffer from the start was 16 KiB
/// per open idle stream, a 4 KiB one 4 KiB). 1 KiB holds an A2A stream's typical event (a
/// status or a token's artifact update, a few hundred bytes); a read that fills it doubles it,
/// so a busy stream's reads reach [`READ_MAX`] within a few reads (20,000 small events read
/// at 3.2 µs each with either size, `scripts/bench/clients.py --only driver`).
const READ_FIRST: usize = 1024;

/// The largest read buffer: a read takes at most what the transport's input buffer holds
/// (see `exchange::INPUT_BUFFER`), so a larger one never fills.
const READ_MAX: usize = super::exchange::INPUT_BUFFER;

/// An open event-stream body.
///
/// Call order: [`RawStream::read_chunk`] until it returns `Ok(None)` (the server ended the
/// body) or an error outcome; each call may be given the deadline by which some byte
/// must arrive (a stream machine's `poll_timeout()`, or a stream tracker's
/// `next_deadline()`).
pub struct RawStream {
    io: Arc<CallIo>,
    reader: super::exchange::BodyReader,
    /// What each read fills: [`READ_FIRST`] bytes, grown up to [`READ_MAX`] once a read
    /// fills it.
    buf: Box<[u8]>,
    /// Whether the last read filled `buf`.
    filled_last: bool,
    /// HTTP status of the response.
    pub status: u16,
    /// Response headers (names lower-cased).
    pub headers: Vec<(String, String)>,
    done: bool,
}

impl std::fmt::Debug for RawStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawStream")
            .field("status", &self.status)
            .field("done", &self.done)
            .finish()
    }
}

/// How a body ended without a complete read.
///
/// Exhaustive on purpose: a reader handles every way a read ends.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadEnd {
    /// The deadline passed with no byte: the idle timeout.
    Idle,
    /// The connection failed (reset, cut mid-chunk, TLS error): the outcome says how.
    Failed(Outcome),
}

impl RawStream {
    pub(crate) fn new(
        io: Arc<CallIo>,
        reader: super::exchange::BodyReader,
        status: u16,
        headers: Vec<(String, String)>,
    ) -> RawStream {
        RawStream {
            io,
            reader,
            buf: vec![0u8; READ_FIRST].into_boxed_slice(),
            filled_last: false,
            status,
            headers,
            done: false,
        }
    }

    /// A handle that aborts this stream from another thread: a [`RawStream::read_chunk`]
    /// blocked in one thread returns `Err(ReadEnd::Failed(..))` with the aborted outcome.
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle {
            io: Arc::clone(&self.io),
        }
    }

    /// Reads the next bytes of the body, waiting at most until `deadline`.
    ///
    /// `Ok(Some(bytes))` with at least one byte; `Ok(None)` once the body ended cleanly
    /// (and on every later call); `Err(ReadEnd::Idle)` when the deadline passed first;
    /// `Err(ReadEnd::Failed)` when the connection broke, including a chunked body cut
    /// before its last chunk, and when the stream was aborted ([`RawStream::abort_handle`]).
    pub fn read_chunk(&mut self, deadline: Option<Instant>) -> Result<Option<&[u8]>, ReadEnd> {
        if self.done {
            return Ok(None);
        }
        if self.io.aborted() {
            return Err(self.end_aborted());
        }
        if self.buf.len() < READ_MAX && self.filled_last {
            // The last read filled the buffer: bytes come faster than it holds. Its bytes
            // were handed out, so a larger one replaces it.
            self.buf = vec![0u8; (self.buf.len() * 2).min(READ_MAX)].into_boxed_slice();
        }
        let _entered = self.io.enter();
        self.io.set_deadline(deadline);
        let r = loop {
            match self.reader.read(&mut self.buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        self.io.clear_deadline();
        self.filled_last = matches!(r, Ok(n) if n == self.buf.len());
        // A shut-down socket may read as a clean end (or as a short read): once aborted,
        // the stream ends with the aborted outcome whatever the read returned.
        if self.io.aborted() {
            return Err(self.end_aborted());
        }
        match r {
            Ok(0) => {
                self.done = true;
                self.io.detach();
                Ok(None)
            }
            Ok(n) => Ok(Some(&self.buf[..n])),
            Err(e) => {
                self.done = true;
                self.io.detach();
                if self.io.idle_fired() {
                    Err(ReadEnd::Idle)
                } else {
                    Err(ReadEnd::Failed(read_error_outcome(
                        &e,
                        &self.io,
                        Duration::ZERO,
                    )))
                }
            }
        }
    }

    fn end_aborted(&mut self) -> ReadEnd {
        self.done = true;
        self.io.detach();
        ReadEnd::Failed(aborted_outcome(&self.io))
    }
}

impl Drop for RawStream {
    fn drop(&mut self) {
        // The connection is closed or pooled from here on: a late abort must not reach it.
        self.io.detach();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_abort_reaches_linked_handles_also_those_linked_after_it() {
        let caller = AbortHandle::new();
        let (first, second) = (AbortHandle::new(), AbortHandle::new());
        caller.link(&first);
        caller.link(&first);
        assert_eq!(caller.io.linked_count(), 1, "linked once");
        assert!(!first.is_aborted());
        caller.abort();
        assert!(first.is_aborted());
        assert!(!second.is_aborted());
        caller.link(&second);
        assert!(
            second.is_aborted(),
            "an aborted switch aborts what it is linked to"
        );
        // Only the caller's own switch: a linked handle's abort does not travel back.
        let other = AbortHandle::new();
        let third = AbortHandle::new();
        other.link(&third);
        third.abort();
        assert!(!other.is_aborted());
    }

    #[test]
    fn a_link_keeps_no_handle_alive() {
        let caller = AbortHandle::new();
        let gone = AbortHandle::new();
        caller.link(&gone);
        let weak = std::sync::Arc::downgrade(gone.io());
        drop(gone);
        assert!(weak.upgrade().is_none());
        caller.abort();
    }

    #[test]
    fn a_sleep_ends_at_its_deadline_or_at_an_abort_from_another_thread() {
        let a = AbortHandle::new();
        assert!(!a.sleep_until(Instant::now() + Duration::from_millis(20)));
        let b = a.clone();
        let sleeper = std::thread::spawn(move || {
            let started = Instant::now();
            let cut = b.sleep_until(started + Duration::from_secs(60));
            (cut, started.elapsed())
        });
        std::thread::sleep(Duration::from_millis(100));
        a.abort();
        let (cut, slept) = sleeper.join().unwrap();
        assert!(cut);
        assert!(
            slept < Duration::from_secs(30),
            "woken by the abort, not the deadline"
        );
        assert!(
            a.sleep_until(Instant::now() + Duration::from_secs(60)),
            "stays aborted"
        );
    }
}
