//! The TCP transport at the bottom of the driver's connector chain: a blocking socket whose
//! two buffers are given back to the allocator while the connection does not need them.
//!
//! ureq's own TCP transport allocates an input and an output buffer (8 KiB each here, see
//! `INPUT_BUFFER` and `OUTPUT_BUFFER` in `exchange`) on first use and keeps both for the
//! connection's life. An open stream spends its life waiting for the next event, and a
//! pooled connection waiting for the next call: both held 16 KiB they were not using (of the
//! 26.4 KiB per open idle stream the Rust driver kept; issue 28). This transport keeps:
//!
//! - its **output** buffer only while something is being written: it is released when the
//!   connection starts to read. Every layer above sends what it wrote before it reads (the
//!   driver's [`super::linefed::LineFed`] sends a held request head first; ureq's TLS
//!   adapter writes each record out at once), so the buffer holds nothing by then. A plain
//!   call allocates it once per request, which costs a few hundred instructions of the
//!   ~100k a send takes.
//! - its **input** buffer only while bytes are arriving: it is released once every byte read
//!   was taken by the layer above and the last read did not fill half of it (bytes are not
//!   streaming in). A busy stream, whose reads fill the buffer, keeps it (the rule
//!   `LineFed` uses for its own input, measured there).
//!
//! The rest is what a blocking TCP transport under ureq does: connect to the resolved
//! addresses in turn within the connect timeout, `TCP_NODELAY` when configured, a socket
//! read or write timeout from ureq's timeout for the operation (kept while it fits the next
//! operations, see `settle_timeout`), a read or write the socket ends early or a signal
//! interrupts retried while time is left, and a non-blocking one-byte peek to tell whether a
//! pooled connection is still open.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, Either, NextTimeout, ShutdownHandle, Transport,
};

/// The shortest time an address is tried for when more addresses are left to try.
const MIN_PER_ADDRESS: Duration = Duration::from_millis(10);

/// The least scratch space handed out with the output ([`Buffers::tmp_and_output`]: ureq
/// reads a request body of unknown length into it; the driver's bodies have a length).
const MIN_TMP: usize = 1024;

/// The connector making [`Tcp`] transports; a transport already made by an earlier
/// connector in the chain is passed on untouched.
#[derive(Debug, Default)]
pub(crate) struct TcpConnect;

impl<In: Transport> Connector<In> for TcpConnect {
    type Out = Either<In, Tcp>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        if let Some(earlier) = chained {
            return Ok(Some(Either::A(earlier)));
        }
        let stream = connect(details)?;
        if details.config.no_delay() {
            stream.set_nodelay(true)?;
        }
        let tcp = Tcp::new(
            stream,
            details.config.input_buffer_size(),
            details.config.output_buffer_size(),
        );
        (details.register_shutdown)(tcp.shutdown_handle())?;
        Ok(Some(Either::B(tcp)))
    }
}

/// Connects to the first of `details.addrs` that answers. Each address but the last gets
/// half of the time left (at least [`MIN_PER_ADDRESS`]), so one that never answers leaves
/// time for the others; the last gets all of it.
fn connect(details: &ConnectionDetails) -> Result<TcpStream, ureq::Error> {
    connect_to(&details.addrs, details.timeout)
}

/// [`connect`] to `addrs` within `timeout` (also the plain fast path's, `super::plain`).
pub(crate) fn connect_to(
    addrs: &[std::net::SocketAddr],
    timeout: NextTimeout,
) -> Result<TcpStream, ureq::Error> {
    let started = Instant::now();
    let total = timeout.not_zero().map(|d| *d);
    let timed_out = || ureq::Error::Timeout(timeout.reason);
    let mut last: Option<std::io::Error> = None;
    let count = addrs.len();
    for (i, addr) in addrs.iter().enumerate() {
        let left = total.map(|t| t.saturating_sub(started.elapsed()));
        if left.is_some_and(|l| l.is_zero()) {
            return Err(timed_out());
        }
        let budget = left.map(|l| {
            if i + 1 < count {
                (l / 2).max(MIN_PER_ADDRESS).min(l)
            } else {
                l
            }
        });
        let attempt = match budget {
            Some(b) => TcpStream::connect_timeout(addr, b),
            None => TcpStream::connect(addr),
        };
        match attempt {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some(e),
        }
    }
    match last {
        Some(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
            Err(timed_out())
        }
        Some(e) => Err(e.into()),
        None => Err(ureq::Error::Io(std::io::Error::new(
            ErrorKind::ConnectionRefused,
            "no address to connect to",
        ))),
    }
}

/// How many released buffers a thread keeps for the next connection that needs one.
const SPARE_BUFFERS: usize = 4;

thread_local! {
    /// Buffers released by this thread's connections, still initialized: the next one
    /// taken needs no zeroing. A fresh buffer is zeroed (safe Rust hands out no
    /// uninitialized bytes), and a plain call took and gave back two of them (16 KiB of
    /// `memset`, about 16k of the 117k instructions callgrind counted per send of
    /// bench-driver, issue 28). Bounded: an open idle stream's buffers are not kept here.
    static SPARE: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A buffer of `size` initialized bytes (their values are whatever they were: every byte
/// handed out is written before it is read): a spare one of that size, else a new one.
pub(crate) fn take_buffer(size: usize) -> Vec<u8> {
    let spare = SPARE
        .try_with(|s| {
            let mut s = s.borrow_mut();
            let at = s.iter().position(|b| b.len() == size)?;
            Some(s.swap_remove(at))
        })
        .ok()
        .flatten();
    spare.unwrap_or_else(|| vec![0; size])
}

/// Gives `buf` back as a spare (the oldest spare is freed when there are enough).
pub(crate) fn give_buffer(buf: Vec<u8>) {
    if buf.is_empty() {
        return;
    }
    let _ = SPARE.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            if s.len() == SPARE_BUFFERS {
                s.remove(0); // the oldest (one of a size nobody asks for goes in time)
            }
            s.push(buf);
        }
    });
}

/// A connected TCP socket with buffers that are given back while unused (module docs).
pub(crate) struct Tcp {
    stream: Arc<TcpStream>,
    /// `input[start..filled]` is read and not yet consumed; `input.len()` is how much of the
    /// allocation is initialized (0 while released).
    input: Vec<u8>,
    start: usize,
    filled: usize,
    /// The input buffer's size when allocated.
    input_size: usize,
    /// How many bytes the last socket read took.
    last_read: usize,
    /// Whether the last consume took any bytes (ureq's `can_use_input` contract).
    progress: bool,
    /// The output buffer: `output_size` bytes while writing, empty while released.
    output: Vec<u8>,
    output_size: usize,
    /// The socket's read and write timeouts as last set (a system call each to change).
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
}

impl std::fmt::Debug for Tcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tcp")
            .field("peer", &self.stream.peer_addr().ok())
            .field("input", &self.input.len())
            .field("output", &self.output.len())
            .finish()
    }
}

impl Tcp {
    /// Wraps a connected socket; no buffer is allocated until used.
    pub(crate) fn new(stream: TcpStream, input_size: usize, output_size: usize) -> Tcp {
        Tcp {
            stream: Arc::new(stream),
            input: Vec::new(),
            start: 0,
            filled: 0,
            input_size: input_size.max(1),
            last_read: 0,
            progress: false,
            output: Vec::new(),
            output_size: output_size.max(1),
            read_timeout: None,
            write_timeout: None,
        }
    }

    /// The handle another thread shuts the socket down with (weak: dropping the transport
    /// still closes the socket).
    fn shutdown_handle(&self) -> Weak<dyn ShutdownHandle> {
        let weak: Weak<TcpStream> = Arc::downgrade(&self.stream);
        weak
    }

    /// Room after the unconsumed input, at least `at_least` bytes (consumed bytes are moved
    /// out of the way first; the buffer is allocated or grown as needed).
    fn free_input(&mut self, at_least: usize) -> &mut [u8] {
        if self.start > 0 {
            self.input.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            self.start = 0;
        }
        let want = self.input_size.max(self.filled + at_least);
        if self.input.is_empty() && want == self.input_size {
            self.input = take_buffer(want);
        } else if self.input.len() < want {
            self.input.resize(want, 0);
        }
        &mut self.input[self.filled..]
    }
}

impl Drop for Tcp {
    fn drop(&mut self) {
        give_buffer(std::mem::take(&mut self.input));
        give_buffer(std::mem::take(&mut self.output));
    }
}

/// Operations allowed up to this long get exactly their time as the socket's timeout; longer
/// ones get [`slack`]'s.
const EXACT_UP_TO: Duration = Duration::from_millis(16);

/// The socket timeout set for an operation allowed `want`: a sixteenth under it, so that the
/// next operations, allowed about as long (every call of a client gets the same timeouts,
/// less the few microseconds since its start), find it set already: changing it is a system
/// call, and with `want` itself the next call's slightly shorter time changed it on every
/// send. An operation the socket ends early is retried with the time left ([`left_after`]).
fn slack(want: Duration) -> Duration {
    if want <= EXACT_UP_TO {
        want
    } else {
        want - want / 16
    }
}

/// Makes the socket's timeout fit an operation allowed `want` (`None`: no limit), keeping the
/// one set last when it fits: not above `want` (the socket never waits past the operation's
/// time) and at most an eighth under it (an early end costs a retry with the time left).
pub(crate) fn settle_timeout(
    stream: &TcpStream,
    last: &mut Option<Duration>,
    want: Option<Duration>,
    set: fn(&TcpStream, Option<Duration>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let fits = match (*last, want) {
        (None, None) => true,
        (Some(set_last), Some(want)) => set_last <= want && set_last >= want - want / 8,
        _ => false,
    };
    if !fits {
        let timeout = want.map(slack);
        set(stream, timeout)?;
        *last = timeout;
    }
    Ok(())
}

/// After a socket operation ended by `e`, the time it still has to try again: `Some` when the
/// operation had a limit (`limit`, counted from `started`), `e` is a timeout or a signal's
/// interruption, and time is left. A timeout with no time left, and an interruption with no
/// limit (a signal meant to stop a wait without end), go to the caller.
pub(crate) fn left_after(
    e: &std::io::Error,
    limit: Option<Duration>,
    started: Instant,
) -> Option<Duration> {
    let retried = matches!(
        e.kind(),
        ErrorKind::Interrupted | ErrorKind::WouldBlock | ErrorKind::TimedOut
    );
    let left = limit?.saturating_sub(started.elapsed());
    (retried && !left.is_zero()).then_some(left)
}

/// A socket error as ureq's: a timed-out read or write (`EAGAIN` on Linux when a socket
/// timeout runs out) is the operation's timeout.
/// Writes at least `at_least` bytes of `bytes` (each write offering all that is left) within
/// `timeout`, keeping the socket's write timeout in `kept` ([`settle_timeout`]); how many
/// were written. A write the socket ends early goes on with the time left.
pub(crate) fn write_within(
    stream: &TcpStream,
    kept: &mut Option<Duration>,
    bytes: &[u8],
    at_least: usize,
    timeout: &NextTimeout,
) -> Result<usize, ureq::Error> {
    if timeout.after.is_zero() {
        return Err(ureq::Error::Timeout(timeout.reason));
    }
    let limit = timeout.not_zero().map(|d| *d);
    settle_timeout(stream, kept, limit, TcpStream::set_write_timeout)?;
    let started = Instant::now();
    let mut rest = bytes;
    while bytes.len() - rest.len() < at_least {
        match (&*stream).write(rest) {
            Ok(0) => return Err(socket_error(ErrorKind::WriteZero.into(), timeout)),
            Ok(n) => rest = &rest[n..],
            Err(e) => match left_after(&e, limit, started) {
                Some(left) => {
                    settle_timeout(stream, kept, Some(left), TcpStream::set_write_timeout)?
                }
                None => return Err(socket_error(e, timeout)),
            },
        }
    }
    Ok(bytes.len() - rest.len())
}

pub(crate) fn socket_error(e: std::io::Error, timeout: &NextTimeout) -> ureq::Error {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => ureq::Error::Timeout(timeout.reason),
        _ => e.into(),
    }
}

impl Buffers for Tcp {
    fn output(&mut self) -> &mut [u8] {
        if self.output.len() < self.output_size {
            give_buffer(std::mem::take(&mut self.output));
            self.output = take_buffer(self.output_size);
        }
        &mut self.output
    }

    fn input(&self) -> &[u8] {
        &self.input[self.start..self.filled]
    }

    fn input_append_buf(&mut self) -> &mut [u8] {
        self.free_input(1)
    }

    fn input_appended(&mut self, amount: usize) {
        self.filled = (self.filled + amount).min(self.input.len());
    }

    fn input_consume(&mut self, amount: usize) {
        let amount = amount.min(self.filled - self.start);
        self.progress = amount > 0;
        self.start += amount;
        if self.start == self.filled {
            self.start = 0;
            self.filled = 0;
            if self.last_read * 2 < self.input_size {
                give_buffer(std::mem::take(&mut self.input));
            }
        }
    }

    fn tmp_and_output(&mut self) -> (&mut [u8], &mut [u8]) {
        if self.output.len() < self.output_size {
            give_buffer(std::mem::take(&mut self.output));
            self.output = take_buffer(self.output_size);
        }
        self.free_input(MIN_TMP);
        (&mut self.input[self.filled..], &mut self.output)
    }

    fn can_use_input(&self) -> bool {
        self.filled > self.start && self.progress
    }
}

impl Transport for Tcp {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let amount = amount.min(self.output.len());
        write_within(
            &self.stream,
            &mut self.write_timeout,
            &self.output[..amount],
            amount,
            &timeout.for_write(),
        )?;
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        // Whatever was written has gone out (module docs): the output is not needed while
        // the connection reads.
        give_buffer(std::mem::take(&mut self.output));
        let timeout = timeout.for_read();
        if timeout.after.is_zero() {
            return Err(ureq::Error::Timeout(timeout.reason));
        }
        let limit = timeout.not_zero().map(|d| *d);
        settle_timeout(
            &self.stream,
            &mut self.read_timeout,
            limit,
            TcpStream::set_read_timeout,
        )?;
        let started = Instant::now();
        let stream = Arc::clone(&self.stream);
        let read = loop {
            match (&*stream).read(self.free_input(1)) {
                // Linux does not restart a socket read with a timeout after a signal, and the
                // socket's timeout may be a little under the read's (`slack`): read again with
                // the time left.
                Err(e) => match left_after(&e, limit, started) {
                    Some(left) => settle_timeout(
                        &stream,
                        &mut self.read_timeout,
                        Some(left),
                        TcpStream::set_read_timeout,
                    )?,
                    None => break Err(e),
                },
                other => break other,
            }
        };
        let n = read.map_err(|e| socket_error(e, &timeout))?;
        self.last_read = n;
        self.input_appended(n);
        Ok(n > 0)
    }

    fn is_open(&mut self) -> bool {
        // A pooled connection is open when a non-blocking read finds nothing to read: bytes
        // (an answer nobody asked for) or the end of the stream (the peer closed) mean it
        // cannot carry another request.
        peek_finds_nothing(&self.stream).unwrap_or(false)
    }
}

/// Whether a non-blocking look at the socket finds nothing to read (`Ok(false)`: bytes or
/// the end of the stream wait). One `recv(MSG_PEEK | MSG_DONTWAIT)`: switching the socket to
/// non-blocking and back around a read took three system calls on every pooled request
/// (measured with `strace -c` on bench-driver: 6 system calls per send before, 3 after, with
/// [`settle_timeout`]).
#[cfg(unix)]
pub(crate) fn peek_finds_nothing(stream: &TcpStream) -> std::io::Result<bool> {
    let mut one = [std::mem::MaybeUninit::<u8>::uninit()];
    match socket2::SockRef::from(stream)
        .recv_with_flags(&mut one, libc::MSG_PEEK | libc::MSG_DONTWAIT)
    {
        Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(true),
        Err(e) => Err(e),
        Ok(_) => Ok(false),
    }
}

/// Whether a non-blocking read finds nothing to read (`Ok(false)`: bytes or the end of the
/// stream wait); the socket is switched to non-blocking for it and back.
#[cfg(not(unix))]
pub(crate) fn peek_finds_nothing(stream: &TcpStream) -> std::io::Result<bool> {
    stream.set_nonblocking(true)?;
    let open = match stream.peek(&mut [0u8; 1]) {
        Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(true),
        Err(e) => Err(e),
        Ok(_) => Ok(false),
    };
    stream.set_nonblocking(false)?;
    open
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;
    use ureq::unversioned::transport::time::Duration as UreqDuration;

    /// A transport connected to a loopback peer, and the peer's end.
    fn pair(input_size: usize) -> (Tcp, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let client = TcpStream::connect(listener.local_addr().expect("address")).expect("connect");
        let (peer, _) = listener.accept().expect("accept");
        peer.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("peer timeout");
        (Tcp::new(client, input_size, 64), peer)
    }

    fn within(secs: u64) -> NextTimeout {
        NextTimeout {
            after: UreqDuration::Exact(Duration::from_secs(secs)),
            reason: ureq::Timeout::RecvResponse,
            per_read: None,
            per_write: None,
        }
    }

    /// Reads until at least `n` bytes are held.
    fn read_at_least(t: &mut Tcp, n: usize) {
        for _ in 0..100 {
            if t.input().len() >= n {
                return;
            }
            assert!(t.await_input(within(5)).expect("read"), "peer closed early");
        }
        panic!("{n} bytes did not arrive");
    }

    #[test]
    fn the_output_goes_out_and_is_given_back_when_reading_starts() {
        let (mut t, mut peer) = pair(1024);
        t.output()[..5].copy_from_slice(b"hello");
        t.transmit_output(5, within(5)).expect("write");
        let mut got = [0u8; 5];
        peer.read_exact(&mut got).expect("peer read");
        assert_eq!(&got, b"hello");
        assert_eq!(t.output.capacity(), 64, "kept until the connection reads");
        peer.write_all(b"ok").expect("peer write");
        read_at_least(&mut t, 2);
        assert_eq!(t.output.capacity(), 0, "released once reading");
        assert_eq!(t.input(), b"ok");
        // The next request gets a whole buffer again.
        assert_eq!(t.output().len(), 64);
    }

    #[test]
    fn a_small_read_is_given_back_once_consumed_and_a_filling_one_is_kept() {
        let (mut t, mut peer) = pair(1024);
        peer.write_all(b"abc").expect("peer write");
        read_at_least(&mut t, 3);
        assert_eq!(t.input(), b"abc");
        t.input_consume(2);
        assert_eq!(t.input(), b"c", "the rest stays");
        assert!(t.input.capacity() >= 1024);
        t.input_consume(1);
        assert!(t.input().is_empty());
        assert_eq!(t.input.capacity(), 0, "a read-out small read is released");

        // A read that fills more than half the buffer: bytes are streaming in, keep it.
        peer.write_all(&[b'x'; 900]).expect("peer write");
        read_at_least(&mut t, 900);
        let held = t.input().len();
        assert_eq!(held, 900);
        t.input_consume(held);
        assert!(t.input.capacity() >= 1024, "kept while bytes stream in");
    }

    #[test]
    fn consumed_bytes_make_room_and_a_full_buffer_grows() {
        let (mut t, mut peer) = pair(8);
        peer.write_all(b"0123456789abcdef").expect("peer write");
        read_at_least(&mut t, 16);
        assert_eq!(
            t.input(),
            b"0123456789abcdef",
            "grew past its size, nothing lost"
        );
        t.input_consume(10);
        assert_eq!(t.input(), b"abcdef");
        assert!(!t.free_input(1).is_empty());
        assert_eq!(t.input(), b"abcdef", "moved to the front intact");
    }

    #[test]
    fn released_buffers_are_reused_and_the_spares_are_bounded() {
        SPARE.with(|s| s.borrow_mut().clear());
        let mut b = take_buffer(100);
        b[0] = 7;
        let at = b.as_ptr();
        give_buffer(b);
        let again = take_buffer(100);
        assert_eq!(
            (again.as_ptr(), again.len()),
            (at, 100),
            "the spare, not a new one"
        );
        assert_eq!(
            take_buffer(50).len(),
            50,
            "no spare of that size: a new one"
        );
        for _ in 0..10 {
            give_buffer(vec![0; 10]);
        }
        give_buffer(Vec::new());
        assert_eq!(SPARE.with(|s| s.borrow().len()), SPARE_BUFFERS);
        SPARE.with(|s| s.borrow_mut().clear());
    }

    #[test]
    fn a_read_past_its_timeout_is_the_operations_timeout() {
        let (mut t, _peer) = pair(64);
        let short = NextTimeout {
            after: UreqDuration::Exact(Duration::from_millis(50)),
            ..within(1)
        };
        match t.await_input(short) {
            Err(ureq::Error::Timeout(ureq::Timeout::RecvResponse)) => {}
            other => panic!("expected the read's timeout, got {other:?}"),
        }
    }

    #[test]
    fn calls_allowed_about_as_long_keep_the_timeout_set_by_the_first() {
        let (mut t, mut peer) = pair(64);
        let limit = |ms: u64| NextTimeout {
            after: UreqDuration::Exact(Duration::from_millis(ms)),
            ..within(1)
        };
        let mut read = |ms| {
            peer.write_all(b"x").expect("peer write");
            assert!(t.await_input(limit(ms)).expect("read"));
            let n = t.input().len();
            t.input_consume(n);
            t.read_timeout
        };
        // The first read's 30 s set the socket's timeout a sixteenth under it.
        assert_eq!(read(30_000), Some(Duration::from_millis(28_125)));
        for ms in [29_999, 30_000, 29_000] {
            assert_eq!(read(ms), Some(Duration::from_millis(28_125)));
        }
        // The next reads, allowed 29.999 s, 30 s and 29 s, found it fitting and left it (a
        // new one would have been a sixteenth under theirs).
        assert!(t.stream.read_timeout().expect("timeout").is_some());
        // A read allowed less than the timeout set sets its own; a short one exactly.
        peer.write_all(b"y").expect("peer write");
        t.await_input(limit(10)).expect("read");
        assert_eq!(t.read_timeout, Some(Duration::from_millis(10)));
    }

    #[test]
    fn a_read_the_socket_ends_early_waits_the_rest_of_its_time() {
        let (mut t, mut peer) = pair(64);
        // The socket's timeout (100 ms) is recorded as fitting a 3 s read, as a timeout set
        // a sixteenth under an earlier operation's would be.
        t.stream
            .set_read_timeout(Some(Duration::from_millis(100)))
            .expect("timeout");
        t.read_timeout = Some(Duration::from_millis(2_900));
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(400));
            peer.write_all(b"late").expect("peer write");
            peer
        });
        let three = NextTimeout {
            after: UreqDuration::Exact(Duration::from_secs(3)),
            ..within(1)
        };
        assert!(t.await_input(three).expect("read after the early end"));
        assert_eq!(t.input(), b"late");
        drop(writer.join().expect("writer"));
    }

    #[test]
    fn a_write_the_socket_ends_early_goes_on_with_the_time_left() {
        const SIZE: usize = 8 << 20;
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let client = TcpStream::connect(listener.local_addr().expect("address")).expect("connect");
        let (mut peer, _) = listener.accept().expect("accept");
        let mut t = Tcp::new(client, 64, SIZE);
        // More than the socket buffers hold, so the write waits for the peer, which starts
        // reading only after the socket's timeout (100 ms, recorded as fitting) ended it.
        t.stream
            .set_write_timeout(Some(Duration::from_millis(100)))
            .expect("timeout");
        t.write_timeout = Some(Duration::from_millis(2_900));
        for (i, b) in t.output().iter_mut().enumerate() {
            *b = i as u8;
        }
        let reader = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(400));
            peer.set_read_timeout(Some(Duration::from_secs(5)))
                .expect("peer timeout");
            let mut got = vec![0u8; SIZE];
            peer.read_exact(&mut got).expect("peer read");
            got
        });
        let three = NextTimeout {
            after: UreqDuration::Exact(Duration::from_secs(3)),
            ..within(1)
        };
        t.transmit_output(SIZE, three)
            .expect("write after the early end");
        let got = reader.join().expect("reader");
        assert!(
            got.iter().enumerate().all(|(i, &b)| b == i as u8),
            "every byte, in order"
        );
    }

    #[test]
    fn a_pooled_connection_is_open_until_the_peer_writes_or_closes() {
        let (mut t, mut peer) = pair(64);
        assert!(t.is_open(), "idle and nothing to read");
        assert!(t.is_open(), "asking again changes nothing");
        peer.write_all(b"x").expect("peer write");
        assert!(
            closes_within_a_second(&mut t),
            "unexpected bytes: not reusable"
        );

        let (mut t, peer) = pair(64);
        drop(peer);
        assert!(closes_within_a_second(&mut t), "closed by the peer");
    }

    /// Whether `t` reads as closed within a second (what the peer did reaches the socket on
    /// loopback at once; the kernel is given a moment).
    fn closes_within_a_second(t: &mut Tcp) -> bool {
        for _ in 0..200 {
            if !t.is_open() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    #[test]
    fn the_shutdown_handle_ends_a_blocked_read() {
        let (mut t, _peer) = pair(64);
        let handle = t.shutdown_handle();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            if let Some(h) = handle.upgrade() {
                h.shutdown();
            }
        });
        // Shut down: the read returns the end of the stream (or an error), not after 5 s.
        let started = Instant::now();
        let r = t.await_input(within(5));
        stopper.join().expect("stopper");
        assert!(matches!(r, Ok(false) | Err(_)), "{r:?}");
        assert!(started.elapsed() < Duration::from_secs(4));
    }
}
