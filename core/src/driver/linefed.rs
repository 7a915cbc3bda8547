//! A transport layer that hands ureq the received bytes one CRLF-terminated line at a time,
//! so that a chunk-framing error never takes the chunks before it down with it.
//!
//! ureq (3.5, through ureq-proto 0.7) decodes `Transfer-Encoding: chunked` by looping over
//! every chunk in its input buffer within one read; when a chunk-size line in that buffer is
//! bad, the read fails and the data of the chunks already decoded in the same read is
//! discarded (ureq-proto's `stop_on_chunk_boundary` would avoid it, but ureq does not expose
//! it). A stream event followed, in the same TCP segment, by a bad chunk size was lost.
//!
//! Why the stream machine does not make this layer unnecessary: the machine
//! ([`crate::client::StreamCall`]) takes body bytes in any split, but only the bytes it is
//! given, and the loss happens inside ureq's chunked decoder, before any byte reaches the
//! driver. ureq 3.5 hands out only the de-chunked body (no way to read the raw chunked
//! bytes and de-chunk them here, nor to set `stop_on_chunk_boundary` on its client side),
//! so the only place to keep those bytes is under ureq, in its transport. The day ureq
//! exposes either, this input side can go; the output side below is independent of it.
//! Having one loop over the machines ([`super::run()`]) changes none of this: the loop
//! reads what ureq hands out like the driver's loops did.
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
//! The output side is the inner transport's own output buffer, with one change: a request
//! head goes out together with what follows it. ureq writes a request in two steps, the head
//! (`send_request`) and then the body (`send_body`), each with its own `transmit_output`;
//! passed straight on, that is two socket writes (two TLS records, and two TCP segments
//! since ureq sets `TCP_NODELAY`) for every small POST. So the first write after a read (or
//! on a new connection) is held, if it is small ([`HOLD_MAX`]): it stays at the front of the
//! inner transport's output, ureq's next output is placed right after it, and the next write
//! sends both at once (head and body, or head and the first part of a large body), and a
//! read sends whatever is held before it waits (a `GET`, whose head is all there is; a
//! CONNECT request; an `Expect: 100-continue` wait). At most one write is ever held, only
//! until ureq's next transport operation; a request head (the first write) always gets the
//! whole output buffer, a body written after a held head the rest of it (ureq writes a body
//! in as many pieces as it needs). The driver's request bodies are in memory when the call
//! starts, so holding the head never waits on a body source.

use ureq::unversioned::transport::{Buffers, NextTimeout, Transport};

/// The scratch space ureq reads a chunked request body into (the driver's bodies have a
/// length, so ureq never uses it; ureq only reads its length). It is this layer's free input
/// space when there is that much, else a small array of its own: never an allocation, nor a
/// buffer zeroed for a request that does not use it (that was about 8,000 instructions of a
/// 118,000-instruction send, bench-driver under callgrind; issue 28).
const MIN_TMP: usize = 256;

/// The most input this layer holds: a response head up to ureq's limit (64 KiB) fits. The
/// buffer starts at the configured input size and grows only when a head needs it.
const INPUT_MAX: usize = 128 * 1024;

/// The largest first write held back to go out with the next one (a request head with its
/// headers; anything larger goes out at once).
const HOLD_MAX: usize = 8 * 1024;

/// The transport under ureq, showing its input a line at a time (see the module docs).
///
/// It has no output buffer of its own: ureq writes into the inner transport's, after the
/// bytes held there (a copy per write and a buffer per connection fewer: an open idle
/// stream held 16 KiB of output here, grown to 32 KiB by the held head, plus the scratch
/// space, 10 KiB; issue 28).
#[derive(Debug)]
pub(crate) struct LineFed<T> {
    inner: T,
    bufs: Fed,
}

/// Input moved from the inner transport (`input[start..filled]`, of which ureq sees
/// `input[start..shown]`) and the state of the output ureq writes to the inner transport.
#[derive(Debug)]
struct Fed {
    input: Vec<u8>,
    start: usize,
    shown: usize,
    filled: usize,
    /// Whether the last consume took any bytes (ureq's `can_use_input` contract).
    progress: bool,
    /// The configured input size: the most `input` holds until a response head needs more.
    input_size: usize,
    /// The most `input` holds now: `input_size`, or more once a head filled it.
    /// `input.len()` is only how much of it is initialized: bytes taken from the inner
    /// transport are appended, never written over zeros first.
    limit: usize,
    /// ureq's scratch space when `input` has less than [`MIN_TMP`] free.
    tmp: [u8; MIN_TMP],
    /// How many bytes the last move from the inner transport took.
    last_take: usize,
    /// How many bytes at the front of the inner transport's output wait to go out with the
    /// next write; ureq writes after them.
    held: usize,
    /// Whether the next write is the first since the last read (a request head).
    first_write: bool,
    /// Whether a response head is awaited: set by a write, cleared when ureq consumes
    /// input (it consumes a head only whole).
    head: bool,
    /// Whether the connection was used since ureq last asked whether it is open (see
    /// `LineFed::is_open`).
    used: bool,
}

impl<T> LineFed<T> {
    /// Wraps `inner`, with an input buffer of `input_size` bytes (allocated on first use).
    pub(crate) fn new(inner: T, input_size: usize) -> LineFed<T> {
        LineFed {
            inner,
            bufs: Fed {
                input: Vec::new(),
                start: 0,
                shown: 0,
                filled: 0,
                progress: false,
                input_size: input_size.max(1),
                limit: input_size.max(1),
                tmp: [0; MIN_TMP],
                last_take: 0,
                held: 0,
                first_write: true,
                head: false,
                used: false,
            },
        }
    }
}

/// Where the first `mark` in `seen` ends (the index after it). Both marks end with LF, so
/// the first mark is the first LF that ends one: memmem's `find` built a searcher on every
/// call, about 460 instructions per send.
fn end_of_first(seen: &[u8], mark: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\n', seen)
        .map(|i| i + 1)
        .find(|&end| end >= mark.len() && seen[end - mark.len()..end] == *mark)
}

impl Fed {
    /// Shows the hidden bytes up to and including the next CRLF (all of them when none has
    /// arrived yet). A CRLF split between the shown and the hidden part counts.
    ///
    /// While a response head is awaited (after a request was written, until ureq consumes
    /// the head), the view ends at the end of the head (the empty line) instead: ureq
    /// parses a head only once it is whole, so a view per header line made it parse the
    /// head again for every line. Chunk framing only starts after the head.
    fn reveal(&mut self) {
        let (mark, back): (&[u8], usize) = if self.head {
            (b"\r\n\r\n", 3)
        } else {
            (b"\r\n", 1)
        };
        let from = self.shown.saturating_sub(back).max(self.start);
        let end = end_of_first(&self.input[from..self.filled], mark)
            .map(|e| from + e)
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
        if self.filled >= self.limit && self.limit < INPUT_MAX {
            // Full of bytes ureq has not consumed (a response head larger than the buffer):
            // grow, up to what ureq's own default buffer held.
            self.limit = (self.limit * 2).min(INPUT_MAX);
        }
    }

    /// Moves what the inner transport holds into this buffer, as much as fits; how much.
    fn take_from(&mut self, inner: &mut dyn Buffers) -> usize {
        if self.filled == 0 && inner.input().is_empty() {
            // Nothing to move nor to compact: a released buffer stays released.
            return 0;
        }
        self.compact();
        let src = inner.input();
        let n = src.len().min(self.limit - self.filled);
        // Appended after the bytes held (the capacity is kept; nothing is zeroed first).
        self.input.truncate(self.filled);
        self.input.extend_from_slice(&src[..n]);
        inner.input_consume(n);
        self.filled += n;
        self.last_take = n;
        n
    }

    /// ureq's scratch space, at least [`MIN_TMP`] bytes: the free input space when there is
    /// that much, else `tmp`.
    fn scratch(&mut self) -> &mut [u8] {
        if self.input.len() - self.filled >= MIN_TMP {
            &mut self.input[self.filled..]
        } else {
            &mut self.tmp
        }
    }

    /// The bytes ureq may parse.
    fn input(&self) -> &[u8] {
        &self.input[self.start..self.shown]
    }

    /// Where the inner transport's next bytes go (ureq calls this only on the innermost
    /// transport; this layer fills its buffer itself in [`Fed::take_from`]).
    fn input_append_buf(&mut self) -> &mut [u8] {
        self.compact();
        if self.input.len() < self.limit {
            self.input.resize(self.limit, 0);
        }
        &mut self.input[self.filled..]
    }

    fn input_appended(&mut self, amount: usize) {
        self.filled = (self.filled + amount).min(self.input.len());
        self.reveal();
    }

    fn input_consume(&mut self, amount: usize) {
        let amount = amount.min(self.shown - self.start);
        self.progress = amount > 0;
        if amount > 0 {
            self.head = false;
        }
        self.start += amount;
        if self.start == self.filled {
            self.start = 0;
            self.shown = 0;
            self.filled = 0;
            if !self.head && self.last_take * 2 < self.limit {
                // Everything read, no response head awaited, and the last read did not
                // fill half the buffer (bytes are not streaming in): the buffer goes back
                // to the allocator until the next bytes arrive. An open stream spends most
                // of its life here, holding nothing (issue 28: this buffer was 16 KiB of
                // the 75 KiB per open idle stream). A busy stream, whose reads fill the
                // buffer, keeps it: freeing it at every emptying read cost about 3% more
                // CPU per small event (bench-driver, 30,000 events).
                self.input = Vec::new();
                self.limit = self.input_size;
            }
        }
    }

    fn can_use_input(&self) -> bool {
        // Held output must go out before ureq waits for an answer: through `await_input`.
        self.held == 0 && self.shown > self.start && self.progress
    }
}

impl<T: Transport> Buffers for LineFed<T> {
    fn output(&mut self) -> &mut [u8] {
        let held = self.bufs.held;
        &mut self.inner.buffers().output()[held..]
    }

    fn input(&self) -> &[u8] {
        self.bufs.input()
    }

    fn input_append_buf(&mut self) -> &mut [u8] {
        self.bufs.input_append_buf()
    }

    fn input_appended(&mut self, amount: usize) {
        self.bufs.input_appended(amount);
    }

    fn input_consume(&mut self, amount: usize) {
        self.bufs.input_consume(amount);
    }

    fn tmp_and_output(&mut self) -> (&mut [u8], &mut [u8]) {
        let held = self.bufs.held;
        let tmp = self.bufs.scratch();
        (tmp, &mut self.inner.buffers().output()[held..])
    }

    fn can_use_input(&self) -> bool {
        self.bufs.can_use_input()
    }
}

impl<T: Transport> LineFed<T> {
    /// Whether a first write of `amount` bytes is held: a whole request head (it ends with
    /// the empty line; ureq writes a head too long for the buffer in several writes, each
    /// needing the whole buffer for its longest line) of at most [`HOLD_MAX`] bytes that
    /// leaves at least half the output buffer for what follows.
    fn holds(&mut self, amount: usize) -> bool {
        let out = self.inner.buffers().output();
        amount > 0
            && amount <= HOLD_MAX
            && amount * 2 <= out.len()
            && out[..amount].ends_with(b"\r\n\r\n")
    }
}

impl<T: Transport> Transport for LineFed<T> {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let amount = amount.min(self.output().len());
        self.bufs.head = true;
        self.bufs.used = true;
        let first = std::mem::replace(&mut self.bufs.first_write, false);
        if first && self.bufs.held == 0 && self.holds(amount) {
            // A request head: it stays in the inner transport's output and goes out with
            // the next write or before the next read.
            self.bufs.held = amount;
            return Ok(());
        }
        let total = self.bufs.held + amount;
        self.bufs.held = 0;
        self.inner.transmit_output(total, timeout)
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.bufs.first_write = true;
        self.bufs.used = true;
        if self.bufs.held > 0 {
            let held = std::mem::take(&mut self.bufs.held);
            self.inner.transmit_output(held, timeout)?;
        }
        // Bytes already here: show the next line without touching the socket.
        if self.bufs.hidden() {
            self.bufs.reveal();
            return Ok(true);
        }
        let mut moved = self.bufs.take_from(self.inner.buffers());
        if moved == 0 && (self.bufs.filled == 0 || self.bufs.filled < self.bufs.limit) {
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
        let clean = self.bufs.filled == self.bufs.start
            && self.bufs.held == 0
            && self.inner.buffers().input().is_empty();
        // ureq asks twice between two uses of a connection: when it returns it to the pool
        // right after a response (the first question since the connection was used) and
        // when the pool hands it out again. The socket probe under this (TCP's: a
        // non-blocking read between two `ioctl`s, three system calls) is what decides, and
        // it matters only at the second: the first is answered from the buffers alone,
        // which saves three of the ten system calls of a plain call (issue 28).
        if std::mem::take(&mut self.bufs.used) {
            return clean;
        }
        clean && self.inner.is_open()
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(bytes: &[u8]) -> Fed {
        let mut f = LineFed::new((), 64).bufs;
        f.input_append_buf()[..bytes.len()].copy_from_slice(bytes);
        f.input_appended(bytes.len());
        f
    }

    #[test]
    fn the_first_mark_ends_where_memmem_finds_it_every_string_up_to_eight_bytes() {
        for len in 0..=8u32 {
            for n in 0..3usize.pow(len) {
                let seen: Vec<u8> = (0..len).map(|k| b"\r\na"[n / 3usize.pow(k) % 3]).collect();
                for mark in [&b"\r\n"[..], b"\r\n\r\n"] {
                    let want = memchr::memmem::find(&seen, mark).map(|i| i + mark.len());
                    assert_eq!(end_of_first(&seen, mark), want, "{seen:?} {mark:?}");
                }
            }
        }
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

    /// A transport that records each write and answers reads with `reply`.
    #[derive(Debug, Default)]
    struct Recorder {
        out: Vec<u8>,
        writes: Vec<Vec<u8>>,
        input: Vec<u8>,
        reply: Vec<u8>,
        /// How often the socket was probed (`is_open`).
        probes: usize,
    }

    impl Recorder {
        /// A recorder whose output buffer holds `size` bytes.
        fn sized(size: usize) -> Recorder {
            Recorder {
                out: vec![0; size],
                ..Recorder::default()
            }
        }
    }

    impl Buffers for Recorder {
        fn output(&mut self) -> &mut [u8] {
            &mut self.out
        }
        fn input(&self) -> &[u8] {
            &self.input
        }
        fn input_append_buf(&mut self) -> &mut [u8] {
            &mut []
        }
        fn input_appended(&mut self, _: usize) {}
        fn input_consume(&mut self, amount: usize) {
            self.input.drain(..amount);
        }
        fn tmp_and_output(&mut self) -> (&mut [u8], &mut [u8]) {
            (&mut [], &mut self.out)
        }
        fn can_use_input(&self) -> bool {
            !self.input.is_empty()
        }
    }

    impl Transport for Recorder {
        fn buffers(&mut self) -> &mut dyn Buffers {
            self
        }
        fn transmit_output(&mut self, amount: usize, _: NextTimeout) -> Result<(), ureq::Error> {
            self.writes.push(self.out[..amount].to_vec());
            Ok(())
        }
        fn await_input(&mut self, _: NextTimeout) -> Result<bool, ureq::Error> {
            self.input = std::mem::take(&mut self.reply);
            Ok(!self.input.is_empty())
        }
        fn is_open(&mut self) -> bool {
            self.probes += 1;
            true
        }
    }

    /// Writes `data` as ureq does: into the output area, then transmit.
    fn write(t: &mut LineFed<Recorder>, data: &[u8]) {
        let held = t.bufs.held;
        let out = t.buffers().output();
        assert_eq!(
            out.len(),
            64 - held,
            "ureq gets the inner output after the held bytes"
        );
        out[..data.len()].copy_from_slice(data);
        t.transmit_output(data.len(), NextTimeout::default())
            .unwrap();
    }

    /// What reached the socket, its writes joined.
    fn sent(t: &LineFed<Recorder>) -> Vec<u8> {
        t.inner.writes.concat()
    }

    #[test]
    fn a_request_head_goes_out_with_its_body() {
        let mut t = LineFed::new(Recorder::sized(64), 64);
        write(&mut t, b"POST / HTTP/1.1\r\n\r\n");
        assert!(t.inner.writes.is_empty(), "the head waits for the body");
        assert!(!t.is_open(), "a connection holding output is not reusable");
        write(&mut t, b"{}");
        assert_eq!(t.inner.writes.len(), 1, "head and body in one write");
        assert_eq!(sent(&t), b"POST / HTTP/1.1\r\n\r\n{}");
        // A second body write is not held.
        write(&mut t, b"more");
        assert_eq!(sent(&t), b"POST / HTTP/1.1\r\n\r\n{}more");
        // The answer; then the next request's head is held again.
        t.inner.reply = b"HTTP/1.1 200 OK\r\n".to_vec();
        assert!(t.await_input(NextTimeout::default()).unwrap());
        let n = t.inner.writes.len();
        write(&mut t, b"GET / HTTP/1.1\r\n\r\n");
        assert_eq!(t.inner.writes.len(), n);
    }

    #[test]
    fn a_head_alone_goes_out_before_the_answer_is_awaited() {
        let mut t = LineFed::new(Recorder::sized(64), 64);
        write(&mut t, b"GET / HTTP/1.1\r\n\r\n");
        assert!(t.inner.writes.is_empty());
        assert!(!t.buffers().can_use_input(), "ureq must call await_input");
        t.inner.reply = b"HTTP/1.1 200 OK\r\n".to_vec();
        assert!(t.await_input(NextTimeout::default()).unwrap());
        assert_eq!(sent(&t), b"GET / HTTP/1.1\r\n\r\n");
        assert_eq!(t.buffers().input(), b"HTTP/1.1 200 OK\r\n");
    }

    #[test]
    fn a_response_head_is_shown_whole_and_its_body_a_line_at_a_time() {
        let mut t = LineFed::new(Recorder::sized(64), 128);
        write(&mut t, b"POST / HTTP/1.1\r\n\r\n{}");
        t.inner.reply =
            b"HTTP/1.1 200 OK\r\nA: b\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\nzz\r\n"
                .to_vec();
        assert!(t.await_input(NextTimeout::default()).unwrap());
        let head = b"HTTP/1.1 200 OK\r\nA: b\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert_eq!(t.buffers().input(), head);
        t.buffers().input_consume(head.len());
        // The body: one line per view again.
        assert!(t.await_input(NextTimeout::default()).unwrap());
        assert_eq!(t.buffers().input(), b"2\r\n");
        t.buffers().input_consume(3);
        assert!(t.await_input(NextTimeout::default()).unwrap());
        assert_eq!(t.buffers().input(), b"hi\r\n");
    }

    #[test]
    fn a_head_split_across_reads_is_shown_when_whole() {
        let mut f = LineFed::new((), 64).bufs;
        f.head = true;
        f.input_append_buf()[..12].copy_from_slice(b"HTTP/1.1 200");
        f.input_appended(12);
        assert_eq!(f.input(), b"HTTP/1.1 200", "no end yet: all of it");
        let n = b" OK\r\nA: b\r\n\r";
        f.input_append_buf()[..n.len()].copy_from_slice(n);
        f.input_appended(n.len());
        let n = b"\nbody\r\n";
        f.input_append_buf()[..n.len()].copy_from_slice(n);
        f.input_appended(n.len());
        assert_eq!(f.input(), b"HTTP/1.1 200 OK\r\nA: b\r\n\r\n");
    }

    #[test]
    fn a_head_larger_than_the_buffer_grows_it() {
        let mut t = LineFed::new(Recorder::sized(64), 16);
        write(&mut t, b"GET / HTTP/1.1\r\n\r\n");
        let head = format!("HTTP/1.1 200 OK\r\nA: {}\r\n\r\n", "x".repeat(100));
        t.inner.reply = head.clone().into_bytes();
        // ureq asks again while the head is incomplete (it consumes nothing).
        for _ in 0..8 {
            if t.buffers().input().len() == head.len() {
                break;
            }
            assert!(t.await_input(NextTimeout::default()).unwrap());
            let rest = std::mem::take(&mut t.inner.input);
            t.inner.reply = rest;
        }
        assert_eq!(t.buffers().input(), head.as_bytes());
        assert!(t.bufs.input.len() < 1024, "grown only as needed");
    }

    #[test]
    fn a_large_first_write_is_not_held() {
        let mut t = LineFed::new(Recorder::sized(HOLD_MAX + 64), 64);
        let big = vec![b'x'; HOLD_MAX + 1];
        let out = t.buffers().output();
        out[..big.len()].copy_from_slice(&big);
        t.transmit_output(big.len(), NextTimeout::default())
            .unwrap();
        assert_eq!(sent(&t), big);
    }

    #[test]
    fn a_partial_head_goes_out_at_once_and_its_next_line_gets_the_whole_buffer() {
        let mut t = LineFed::new(Recorder::sized(64), 64);
        // ureq wrote the lines that fit; the next header line needs the whole buffer.
        write(&mut t, b"GET / HTTP/1.1\r\nA: b\r\n");
        assert_eq!(t.inner.writes.len(), 1, "a partial head is not held");
        write(&mut t, &[b'x'; 64]);
        assert_eq!(t.inner.writes.len(), 2);
    }

    #[test]
    fn a_head_filling_over_half_the_buffer_is_not_held() {
        let mut t = LineFed::new(Recorder::sized(64), 64);
        let head = format!("GET / HTTP/1.1\r\nA: {}\r\n\r\n", "x".repeat(20));
        assert!(head.len() > 32);
        write(&mut t, head.as_bytes());
        assert_eq!(sent(&t), head.as_bytes(), "the body gets the whole buffer");
    }

    #[test]
    fn the_input_buffer_is_given_back_once_read_out_after_the_head() {
        let mut t = LineFed::new(Recorder::sized(64), 64);
        write(&mut t, b"GET / HTTP/1.1\r\n\r\n");
        let head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        t.inner.reply = head.to_vec();
        assert!(t.await_input(NextTimeout::default()).unwrap());
        assert!(t.bufs.input.capacity() >= head.len());
        // Waiting for the head keeps the buffer (nothing consumed yet, nothing arrives).
        assert!(!t.await_input(NextTimeout::default()).unwrap());
        assert_eq!(t.buffers().input(), head, "kept while the head is awaited");
        t.buffers().input_consume(head.len());
        // The body: nothing buffered, so the buffer is given back...
        assert_eq!(t.bufs.input.capacity(), 0, "released while idle");
        assert!(!t.await_input(NextTimeout::default()).unwrap());
        assert_eq!(
            t.bufs.input.capacity(),
            0,
            "a wait for nothing allocates nothing"
        );
        // ...and the next bytes get a new one.
        t.inner.reply = b"2\r\nhi\r\n".to_vec();
        assert!(t.await_input(NextTimeout::default()).unwrap());
        assert_eq!(t.buffers().input(), b"2\r\n");
    }

    #[test]
    fn the_socket_is_probed_when_the_pool_hands_the_connection_out_not_when_it_takes_it() {
        let mut t = LineFed::new(Recorder::sized(64), 64);
        write(&mut t, b"GET / HTTP/1.1\r\n\r\n");
        t.inner.reply = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec();
        assert!(t.await_input(NextTimeout::default()).unwrap());
        let n = t.buffers().input().len();
        t.buffers().input_consume(n);
        assert!(t.is_open(), "returned to the pool");
        assert_eq!(t.inner.probes, 0, "answered from the buffers");
        assert!(t.is_open(), "handed out again");
        assert_eq!(t.inner.probes, 1, "the socket is probed before reuse");
        // Unread bytes make it unusable at either question.
        write(&mut t, b"GET / HTTP/1.1\r\n\r\n");
        t.inner.reply = b"HTTP/1.1 200 OK\r\n\r\nextra\r\n".to_vec();
        assert!(t.await_input(NextTimeout::default()).unwrap());
        let n = t.buffers().input().len();
        t.buffers().input_consume(n);
        assert!(!t.is_open());
    }

    #[test]
    fn the_scratch_space_allocates_nothing() {
        let mut t = LineFed::new(Recorder::sized(64), 4096);
        let (tmp, out) = t.tmp_and_output();
        assert!(tmp.len() >= MIN_TMP && out.len() == 64);
        assert_eq!(t.bufs.input.capacity(), 0, "no input buffer for a request");
        // With free input space it is that space.
        t.inner.reply = vec![b'x'; 1000];
        write(&mut t, b"GET / HTTP/1.1\r\n\r\n");
        assert!(t.await_input(NextTimeout::default()).unwrap());
        t.bufs.input.resize(2000, 0);
        let (tmp, _) = t.tmp_and_output();
        assert_eq!(tmp.len(), 1000);
    }

    #[test]
    fn a_busy_stream_keeps_its_input_buffer() {
        let mut t = LineFed::new(Recorder::sized(64), 64);
        write(&mut t, b"GET / HTTP/1.1\r\n\r\n");
        let head = b"HTTP/1.1 200 OK\r\n\r\n";
        t.inner.reply = head.to_vec();
        assert!(t.await_input(NextTimeout::default()).unwrap());
        t.buffers().input_consume(head.len());
        assert_eq!(t.bufs.input.capacity(), 0, "a small read is given back");
        // A read that fills the buffer, consumed line by line to its end.
        t.inner.reply = b"4\r\nabcd\r\n".repeat(8);
        let mut taken = 0;
        while taken < 64 {
            assert!(t.await_input(NextTimeout::default()).unwrap());
            let n = t.buffers().input().len();
            t.buffers().input_consume(n);
            taken += n;
        }
        assert_eq!(taken, 64);
        assert!(t.bufs.input.capacity() >= 64, "kept while bytes stream in");
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
