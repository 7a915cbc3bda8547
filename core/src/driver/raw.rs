//! A response body read chunk by chunk with a per-read deadline: the layer under typed
//! streams, and the escape hatch for callers that decode events themselves.

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::exchange::read_error_outcome;
use super::io::CallIo;
use crate::outcome::Outcome;

/// An open event-stream body.
///
/// Call order: [`RawStream::read_chunk`] until it returns `Ok(None)` (the server ended the
/// body) or an error outcome; each call may be given the deadline by which some byte
/// must arrive (the stream tracker's `next_deadline()`).
pub struct RawStream {
    io: Arc<CallIo>,
    reader: ureq::BodyReader<'static>,
    buf: Box<[u8]>,
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
        reader: ureq::BodyReader<'static>,
        status: u16,
        headers: Vec<(String, String)>,
    ) -> RawStream {
        RawStream {
            io,
            reader,
            buf: vec![0u8; 16 * 1024].into_boxed_slice(),
            status,
            headers,
            done: false,
        }
    }

    /// Reads the next bytes of the body, waiting at most until `deadline`.
    ///
    /// `Ok(Some(bytes))` with at least one byte; `Ok(None)` once the body ended cleanly
    /// (and on every later call); `Err(ReadEnd::Idle)` when the deadline passed first;
    /// `Err(ReadEnd::Failed)` when the connection broke, including a chunked body cut
    /// before its last chunk.
    pub fn read_chunk(&mut self, deadline: Option<Instant>) -> Result<Option<&[u8]>, ReadEnd> {
        if self.done {
            return Ok(None);
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
        match r {
            Ok(0) => {
                self.done = true;
                Ok(None)
            }
            Ok(n) => Ok(Some(&self.buf[..n])),
            Err(e) => {
                self.done = true;
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
}
