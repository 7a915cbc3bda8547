//! A transport layer that hands ureq the received bytes one CRLF-terminated line at a time,
//! so that a chunk-framing error never takes the chunks before it down with it.
//!
//! ureq (3.5, through ureq-proto 0.7) decodes `Transfer-Encoding: chunked` by looping over
//! every chunk in its input buffer within one read; when a chunk-size line in that buffer is
//! bad, the read fails and the data of the chunks already decoded in the same read is
//! discarded (ureq-proto's `stop_on_chunk_boundary` would avoid it, but ureq does not expose
//! it). A stream event followed, in the same TCP segment, by a bad chunk size was lost.
//!
//! Every chunk's data ends with a CRLF, and a single ureq-proto decode step stops after that
//! CRLF. So if the input ureq sees never reaches past the next CRLF, one read can finish a
//! chunk but never also meet the size line after it: the chunk's data is returned, and the
//! framing error surfaces on the next read. This layer keeps its own input buffer and shows
//! ureq only the part up to (and including) the next CRLF, showing more each time ureq asks
//! for input, before it reads the socket again. Nothing is parsed or changed here: the
//! bytes and their order are ureq's, only the size of each view is smaller. Response heads
//! (parsed once whole) and identity or gzip bodies read exactly as before.
//!
//! The output side is a plain buffer copied to the inner transport's.

use ureq::unversioned::transport::{Buffers, NextTimeout, Transport};

/// The scratch space ureq reads a request body into before writing it out (ureq's own
/// buffers keep at least this much).
const MIN_TMP: usize = 10 * 1024;

/// The transport under ureq, showing its input a line at a time (see the module docs).
#[derive(Debug)]
pub(crate) struct LineFed<T> {
    inner: T,
    bufs: Fed,
}

/// Input moved from the inner transport (`input[start..filled]`, of which ureq sees
/// `input[start..shown]`) and the output ureq writes to.
#[derive(Debug)]
struct Fed {
    input: Vec<u8>,
    start: usize,
    shown: usize,
    filled: usize,
    /// Whether the last consume took any bytes (ureq's `can_use_input` contract).
    progress: bool,
    input_size: usize,
    output: Vec<u8>,
    output_size: usize,
    tmp: Vec<u8>,
}

impl<T> LineFed<T> {
    /// Wraps `inner`, with buffers of ureq's configured sizes (allocated on first use).
    pub(crate) fn new(inner: T, input_size: usize, output_size: usize) -> LineFed<T> {
        LineFed {
            inner,
            bufs: Fed {
                input: Vec::new(),
                start: 0,
                shown: 0,
                filled: 0,
                progress: false,
                input_size: input_size.max(1),
                output: Vec::new(),
                output_size: output_size.max(1),
                tmp: Vec::new(),
            },
        }
    }
}

impl Fed {
    /// Shows the hidden bytes up to and including the next CRLF (all of them when none has
    /// arrived yet). A CRLF split between the shown and the hidden part counts.
    fn reveal(&mut self) {
        let from = self.shown.saturating_sub(1).max(self.start);
        let end = self.input[from..self.filled]
            .windows(2)
            .position(|w| w == b"\r\n")
            .map(|i| from + i + 2)
            .filter(|&e| e > self.shown);
        self.shown = end.unwrap_or(self.filled);
    }

    fn hidden(&self) -> bool {
        self.shown < self.filled
    }

    /// Moves consumed space to the front.
    fn compact(&mut self) {
        if self.start > 0 {
            self.input.copy_within(self.start..self.filled, 0);
            self.shown -= self.start;
            self.filled -= self.start;
            self.start = 0;
        }
        if self.input.len() < self.input_size {
            self.input.resize(self.input_size, 0);
        }
    }

    /// Moves what the inner transport holds into this buffer, as much as fits; how much.
    fn take_from(&mut self, inner: &mut dyn Buffers) -> usize {
        self.compact();
        let src = inner.input();
        let n = src.len().min(self.input.len() - self.filled);
        self.input[self.filled..self.filled + n].copy_from_slice(&src[..n]);
        inner.input_consume(n);
        self.filled += n;
        n
    }
}

impl Buffers for Fed {
    fn output(&mut self) -> &mut [u8] {
        if self.output.len() < self.output_size {
            self.output.resize(self.output_size, 0);
        }
        &mut self.output
    }

    fn input(&self) -> &[u8] {
        &self.input[self.start..self.shown]
    }

    fn input_append_buf(&mut self) -> &mut [u8] {
        self.compact();
        &mut self.input[self.filled..]
    }

    fn input_appended(&mut self, amount: usize) {
        self.filled = (self.filled + amount).min(self.input.len());
        self.reveal();
    }

    fn input_consume(&mut self, amount: usize) {
        let amount = amount.min(self.shown - self.start);
        self.progress = amount > 0;
        self.start += amount;
        if self.start == self.filled {
            self.start = 0;
            self.shown = 0;
            self.filled = 0;
        }
    }

    fn tmp_and_output(&mut self) -> (&mut [u8], &mut [u8]) {
        if self.tmp.len() < MIN_TMP {
            self.tmp.resize(MIN_TMP, 0);
        }
        if self.output.len() < self.output_size {
            self.output.resize(self.output_size, 0);
        }
        (&mut self.tmp, &mut self.output)
    }

    fn can_use_input(&self) -> bool {
        self.shown > self.start && self.progress
    }
}

impl<T: Transport> Transport for LineFed<T> {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.bufs
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let mut sent = 0;
        while sent < amount {
            let out = self.inner.buffers().output();
            let n = out.len().min(amount - sent);
            if n == 0 {
                return Err(ureq::Error::Io(std::io::Error::other(
                    "transport output buffer is empty",
                )));
            }
            out[..n].copy_from_slice(&self.bufs.output[sent..sent + n]);
            self.inner.transmit_output(n, timeout)?;
            sent += n;
        }
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        // Bytes already here: show the next line without touching the socket.
        if self.bufs.hidden() {
            self.bufs.reveal();
            return Ok(true);
        }
        let mut moved = self.bufs.take_from(self.inner.buffers());
        if moved == 0 && self.bufs.filled < self.bufs.input.len() {
            let progress = self.inner.await_input(timeout)?;
            moved = self.bufs.take_from(self.inner.buffers());
            if moved == 0 {
                return Ok(progress);
            }
        }
        self.bufs.reveal();
        Ok(moved > 0)
    }

    fn is_open(&mut self) -> bool {
        // Bytes ureq never saw (after the end of a body) make the connection unusable.
        self.bufs.filled == self.bufs.start
            && self.inner.buffers().input().is_empty()
            && self.inner.is_open()
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(bytes: &[u8]) -> Fed {
        let mut f = LineFed::new((), 64, 64).bufs;
        f.input_append_buf()[..bytes.len()].copy_from_slice(bytes);
        f.input_appended(bytes.len());
        f
    }

    #[test]
    fn shows_one_line_at_a_time_and_more_on_demand() {
        let mut f = fed(b"5\r\nhello\r\nzz\r\n");
        assert_eq!(f.input(), b"5\r\n");
        f.input_consume(3);
        assert!(!f.can_use_input(), "nothing shown until ureq asks");
        f.reveal();
        assert_eq!(f.input(), b"hello\r\n");
        f.input_consume(7);
        f.reveal();
        assert_eq!(f.input(), b"zz\r\n");
        f.input_consume(4);
        assert!(!f.hidden() && f.input().is_empty());
    }

    #[test]
    fn a_crlf_split_across_the_shown_edge_ends_the_next_view() {
        let mut f = fed(b"ab\r");
        assert_eq!(f.input(), b"ab\r", "no CRLF yet: everything is shown");
        f.input_consume(2);
        let n = f.input_append_buf();
        n[..5].copy_from_slice(b"\nzz\r\n");
        f.input_appended(5);
        assert_eq!(f.input(), b"\r\n");
    }

    #[test]
    fn unconsumed_input_is_kept_across_compaction() {
        let mut f = fed(b"x\r\nyy");
        f.input_consume(1);
        assert_eq!(f.input(), b"\r\n");
        f.compact();
        assert_eq!(f.input(), b"\r\n");
        f.input_consume(2);
        f.reveal();
        assert_eq!(f.input(), b"yy");
    }
}
