//! The plain-HTTP fast path: an `http://` request with no proxy chosen for it is written
//! here (the head ureq would write, byte for byte) and its response read by the core's own
//! reader
//! ([`crate::http1::ResponseParser`]) over the driver's own pooled TCP connections, instead
//! of going through ureq's request builder, `http::Request`/`HeaderMap`, timeout table and
//! body reader layers.
//!
//! It does what ureq does for such a request, byte for byte on the wire and outcome for
//! outcome: the same request head (ureq's added headers first: `accept-encoding: gzip` on
//! calls, `content-length`, `user-agent`, `accept: */*`, `host`; then the caller's headers
//! with lower-cased names, grouped by name in first-seen order as a `HeaderMap` keeps them),
//! the same timeouts with the same reasons (each phase's budget counted from the end of the
//! phase before it, the whole call's from its start, the earlier of the two firing, a tie
//! going to the phase), the same errors as `ureq::Error` values (so
//! [`super::exchange::transport_outcome`] maps them), gzip decoded and the response's
//! `content-encoding` and `content-length` dropped as ureq does, the same pool rules
//! (idle age `pool_idle_timeout`, 4 idle connections per host and 10 in all, a
//! non-blocking peek before reuse, never a connection whose response said `close`, was
//! HTTP/1.0 without keep-alive, read to close, or left bytes behind) and the same
//! [`CallIo`] hooks (written bytes, abort, the stream's idle deadline).
//!
//! Anything unusual (a URL with user info, an IPv6 literal or characters `http::Uri` might
//! treat differently, a caller's `host`, `content-length`, `transfer-encoding` or
//! `connection` header, an invalid header name or value, a method other than `GET`, `POST`
//! and `DELETE`, a body on `GET` or `DELETE`) is left to ureq: [`Plain::target`] says no.
//! Nothing is ever sent twice: a pooled connection found closed by the peek is dropped
//! before any byte is written, and a failure after the first byte is the call's.

use std::io::{ErrorKind, Read};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use ureq::Timeout;
use ureq::unversioned::transport::time::Duration as UreqDuration;
use ureq::unversioned::transport::{NextTimeout, ShutdownHandle};

use super::io::CallIo;
use super::lock::Locked;
use crate::http1::{Event, HeadSyntax, Limits, ResponseError, ResponseParser};

/// Idle connections kept per host (ureq's `max_idle_connections_per_host` as configured).
const IDLE_PER_HOST: usize = 4;
/// Idle connections kept in all (ureq's default `max_idle_connections`).
const IDLE_TOTAL: usize = 10;
/// The largest request buffer a connection keeps for its next request.
const KEEP_OUT: usize = 4096;

/// The fast path's state in a client: the resolver (the same rules and kept answers as
/// ureq's), the pool and what the request head needs.
pub(crate) struct Plain {
    resolver: super::dns::Guarded,
    answers: Arc<super::dns::Answers>,
    user_agent: String,
    idle_age: Duration,
    /// A connection's input buffer (the driver's `INPUT_BUFFER`).
    input_size: usize,
    pool: Mutex<Vec<Idle>>,
}

impl std::fmt::Debug for Plain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plain")
            .field("idle", &self.pool.locked().len())
            .finish()
    }
}

/// A pooled connection and since when it waits.
struct Idle {
    since: Instant,
    conn: Conn,
}

/// A request as the fast path sends it (the driver's `HttpRequest`, borrowed).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Req<'a> {
    /// `GET`, `POST`, `DELETE`.
    pub(crate) method: &'a str,
    /// The absolute URL.
    pub(crate) url: &'a str,
    /// Headers in order.
    pub(crate) headers: &'a [(String, String)],
    /// The body.
    pub(crate) body: &'a [u8],
}

/// Where a request goes: the parts of its URL the fast path uses.
#[derive(Debug)]
pub(crate) struct Target<'a> {
    host: &'a str,
    port: u16,
    /// `Host` header value: the host, and `:port` when not 80.
    authority: &'a str,
    /// The request target (origin form).
    path: &'a str,
    /// A `/` goes before `path` (a URL whose path is empty or starts with `?`).
    slash: bool,
}

/// A header name as `http::HeaderName` accepts it (tchar).
fn token(name: &str) -> bool {
    crate::envelope::is_header_name(name)
}

/// A header value as `http::HeaderValue::from_str` accepts it.
fn value_ok(v: &str) -> bool {
    crate::envelope::is_header_value(v)
}

/// Characters of a path and query that `http::Uri` keeps as they are.
static PATH: [bool; 256] = crate::envelope::byte_class(b"-._~!$&'()*+,;=:@/?%");

/// Whether every character of a path and query is one `http::Uri` keeps as it is.
fn path_ok(p: &str) -> bool {
    p.bytes().all(|b| PATH[usize::from(b)])
}

/// Headers ureq treats specially when the caller sets them: such requests stay on ureq.
const SPECIAL: [&str; 4] = ["host", "content-length", "transfer-encoding", "connection"];

impl Plain {
    /// The fast path of a client whose resolver is `resolver` (answers shared with ureq's).
    pub(crate) fn new(
        resolver: super::dns::Guarded,
        answers: Arc<super::dns::Answers>,
        user_agent: &str,
        idle_age: Duration,
        input_size: usize,
    ) -> Plain {
        Plain {
            resolver,
            answers,
            user_agent: user_agent.to_owned(),
            idle_age,
            input_size: input_size.max(1),
            pool: Mutex::new(Vec::new()),
        }
    }

    /// Where `req` goes when the fast path can send it exactly as ureq would; `None` leaves
    /// it to ureq. (The proxy choice is the caller's.)
    pub(crate) fn target<'r>(req: &Req<'r>) -> Option<Target<'r>> {
        let rest = req.url.strip_prefix("http://")?;
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(end);
        if path.contains('#') || !path_ok(path) {
            return None;
        }
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => {
                if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                (h, p.parse::<u16>().ok().filter(|&p| p != 0)?)
            }
            None => (authority, 80),
        };
        let host_ok = !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_');
        if !host_ok {
            return None;
        }
        let body_ok = match req.method {
            "POST" => true,
            "GET" | "DELETE" => req.body.is_empty(),
            _ => false,
        };
        if !body_ok {
            return None;
        }
        for (n, v) in req.headers {
            if !token(n) || !value_ok(v) || SPECIAL.iter().any(|s| n.eq_ignore_ascii_case(s)) {
                return None;
            }
        }
        Some(Target {
            host,
            port,
            authority: if port == 80 { host } else { authority },
            path,
            slash: path.is_empty() || path.starts_with('?'),
        })
    }

    /// Takes an idle connection to `host:port` that is still open (older ones and ones the
    /// peer closed are dropped).
    fn take(&self, host: &str, port: u16) -> Option<Conn> {
        let now = Instant::now();
        let mut pool = self.pool.locked();
        pool.retain(|i| now.duration_since(i.since) < self.idle_age);
        while let Some(at) = pool
            .iter()
            .rposition(|i| i.conn.port == port && i.conn.host.eq_ignore_ascii_case(host))
        {
            let idle = pool.remove(at);
            if idle.conn.is_open() {
                return Some(idle.conn);
            }
        }
        None
    }

    /// Puts a connection whose response ended cleanly back into the pool.
    fn put(&self, conn: Conn) {
        let (host, port) = (conn.host.as_str(), conn.port);
        if self.idle_age.is_zero() {
            return;
        }
        let mut pool = self.pool.locked();
        let same = pool
            .iter()
            .filter(|i| i.conn.port == port && i.conn.host.eq_ignore_ascii_case(host))
            .count();
        if same >= IDLE_PER_HOST {
            if let Some(at) = pool
                .iter()
                .position(|i| i.conn.port == port && i.conn.host.eq_ignore_ascii_case(host))
            {
                pool.remove(at);
            }
        } else if pool.len() >= IDLE_TOTAL {
            pool.remove(0);
        }
        pool.push(Idle {
            since: Instant::now(),
            conn,
        });
    }
}

/// How long each phase may take (ureq's timeout table as the driver configures it).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Budget {
    /// A call: every phase within `timeout` of the start; the connection within `connect`
    /// of the end of resolution.
    Call {
        /// The whole call.
        timeout: Duration,
        /// Connecting.
        connect: Duration,
    },
    /// A stream: connecting within `connect`, then sending and the response head each within
    /// `head` of the end of the phase before; the body with no limit but the idle deadline.
    Stream {
        /// Connecting.
        connect: Duration,
        /// Each phase after it.
        head: Duration,
    },
}

/// The deadlines of one call.
struct Clock {
    budget: Budget,
    started: Instant,
    /// When the last phase ended.
    phase_start: Instant,
}

impl Clock {
    fn new(budget: Budget) -> Clock {
        let now = Instant::now();
        Clock {
            budget,
            started: now,
            phase_start: now,
        }
    }

    /// The last phase ended now.
    fn next_phase(&mut self) {
        self.phase_start = Instant::now();
    }

    /// The deadline of `phase` (`None`: no limit) and the reason it reports, as ureq's
    /// `next_timeout`: the earlier of the phase's and the whole call's, a tie the phase's.
    fn deadline(&self, phase: Timeout) -> Option<(Instant, Timeout)> {
        let own = match (self.budget, phase) {
            (Budget::Call { connect, .. }, Timeout::Connect)
            | (Budget::Stream { connect, .. }, Timeout::Connect) => Some(connect),
            (
                Budget::Stream { head, .. },
                Timeout::SendRequest | Timeout::SendBody | Timeout::RecvResponse,
            ) => Some(head),
            _ => None,
        }
        .map(|d| (self.phase_start + d, phase));
        let global = match self.budget {
            Budget::Call { timeout, .. } => Some((self.started + timeout, Timeout::Global)),
            Budget::Stream { .. } => None,
        };
        match (own, global) {
            (Some(o), Some(g)) => Some(if g.0 < o.0 { g } else { o }),
            (o, g) => o.or(g),
        }
    }

    fn next_timeout(&self, phase: Timeout) -> NextTimeout {
        let (after, reason) = match self.deadline(phase) {
            Some((at, r)) => (
                UreqDuration::Exact(at.saturating_duration_since(Instant::now())),
                r,
            ),
            None => (UreqDuration::NotHappening, Timeout::Global),
        };
        NextTimeout {
            after,
            reason,
            per_read: None,
            per_write: None,
        }
    }
}

/// A connected socket, its input buffer (given back while empty, as the TCP transport's)
/// and its timeouts as last set.
pub(crate) struct Conn {
    /// Where it goes (copied once per connection, not per request that uses it).
    host: String,
    port: u16,
    stream: Arc<TcpStream>,
    socket: Weak<dyn ShutdownHandle>,
    /// `buf[start..end]` is read and not consumed; `buf.len()` is its initialized size (0
    /// while released).
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The input buffer's size when taken.
    size: usize,
    /// The last request's bytes, kept (cleared) for the next one on this connection.
    out: Vec<u8>,
    last_read: usize,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        super::tcp::give_buffer(std::mem::take(&mut self.buf));
    }
}

/// The error an operation of an aborted call fails with (as the transport wrapper's).
fn aborted_error() -> ureq::Error {
    ureq::Error::Io(std::io::Error::new(
        ErrorKind::ConnectionAborted,
        "aborted by the caller",
    ))
}

impl Conn {
    fn new(stream: TcpStream, size: usize, host: &str, port: u16) -> Conn {
        let stream = Arc::new(stream);
        let weak: Weak<TcpStream> = Arc::downgrade(&stream);
        Conn {
            host: host.to_owned(),
            port,
            stream,
            socket: weak,
            buf: Vec::new(),
            start: 0,
            end: 0,
            size,
            out: Vec::new(),
            last_read: 0,
            read_timeout: None,
            write_timeout: None,
        }
    }

    fn is_open(&self) -> bool {
        self.start == self.end && super::tcp::peek_finds_nothing(&self.stream).unwrap_or(false)
    }

    fn input(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            if self.last_read * 2 < self.size {
                super::tcp::give_buffer(std::mem::take(&mut self.buf));
            }
        }
    }

    /// Attaches the socket to the call; an error when the call was aborted.
    fn check_in(&self, io: &CallIo) -> Result<(), ureq::Error> {
        io.attach(&self.socket);
        if io.aborted() {
            return Err(aborted_error());
        }
        Ok(())
    }

    /// Writes at least `at_least` bytes of `bytes` (each write offering all that is left)
    /// within `timeout`; how many were written.
    fn write_at_least(
        &mut self,
        bytes: &[u8],
        at_least: usize,
        timeout: NextTimeout,
        io: &CallIo,
    ) -> Result<usize, ureq::Error> {
        self.check_in(io)?;
        io.mark_wrote();
        super::tcp::write_within(
            &self.stream,
            &mut self.write_timeout,
            bytes,
            at_least,
            &timeout,
        )
    }

    /// Reads more bytes after the unconsumed ones: `Ok(0)` at the end of the stream. Bounded
    /// by `deadline` (ureq's budget) and the call's read deadline (the stream's idle one), as
    /// the transport wrapper bounds a read ([`super::io::Watched`]).
    fn read_more(
        &mut self,
        deadline: Option<(Instant, Timeout)>,
        io: &CallIo,
    ) -> Result<usize, ureq::Error> {
        self.check_in(io)?;
        let idle = io.deadline();
        let (until, reason) = match (deadline, idle) {
            (Some(b), Some(d)) if d >= b.0 => (Some(b.0), b.1),
            (_, Some(d)) => (Some(d), Timeout::PerRead),
            (Some(b), None) => (Some(b.0), b.1),
            (None, None) => (None, Timeout::Global),
        };
        let fire = || {
            io.fire_idle();
            ureq::Error::Timeout(Timeout::PerRead)
        };
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.is_empty() {
            self.buf = super::tcp::take_buffer(self.size);
        } else if self.end == self.buf.len() {
            let grown = self.buf.len() * 2;
            self.buf.resize(grown, 0);
        }
        loop {
            let now = Instant::now();
            // The idle deadline passed before this read began: the caller was away, and the
            // bytes that came meanwhile are taken with one short wait (as `Watched` does).
            let late = idle.is_some_and(|d| now >= d);
            let left = if late {
                Some(super::io::LATE_READ)
            } else {
                until.map(|u| u.saturating_duration_since(now))
            };
            if left.is_some_and(|l| l.is_zero()) {
                return Err(ureq::Error::Timeout(reason));
            }
            super::tcp::settle_timeout(
                &self.stream,
                &mut self.read_timeout,
                left.map(super::io::steady),
                TcpStream::set_read_timeout,
            )?;
            match (&*self.stream).read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.last_read = n;
                    self.end += n;
                    return Ok(n);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::Interrupted | ErrorKind::WouldBlock | ErrorKind::TimedOut
                    ) =>
                {
                    let now = Instant::now();
                    if idle.is_some_and(|d| now >= d) {
                        return Err(fire());
                    }
                    match until {
                        Some(u) if now < u => {}
                        Some(_) => return Err(ureq::Error::Timeout(reason)),
                        // No limit: only a signal ends a read (as the transport: passed on).
                        None => return Err(ureq::Error::Io(e)),
                    }
                }
                Err(e) => return Err(ureq::Error::Io(e)),
            }
        }
    }
}

/// Resolves and connects to `t` within the connect phase; the socket is attached to the call
/// at once (an abort during the connect is seen right after it).
fn connect(
    plain: &Plain,
    t: &Target<'_>,
    clock: &Clock,
    config: &ureq::config::Config,
    io: &CallIo,
) -> Result<Conn, ureq::Error> {
    let addrs: Vec<SocketAddr> = plain
        .resolver
        .resolve_host(t.host, t.port, config, clock.next_timeout(Timeout::Resolve))?
        .to_vec();
    let stream = super::tcp::connect_to(&addrs, clock.next_timeout(Timeout::Connect));
    let stream = match stream {
        Ok(s) => s,
        Err(e) => {
            plain.answers.forget_host(t.host);
            return Err(e);
        }
    };
    if config.no_delay() {
        stream.set_nodelay(true)?;
    }
    let conn = Conn::new(stream, plain.input_size, t.host, t.port);
    conn.check_in(io)?;
    Ok(conn)
}

/// The request head ureq would write for `req` to `t` (see the module docs), and the body
/// after it.
fn request_bytes(out: &mut Vec<u8>, plain: &Plain, req: &Req<'_>, t: &Target<'_>, stream: bool) {
    out.clear();
    out.reserve(256 + req.body.len() + req.headers.len() * 32);
    out.extend_from_slice(req.method.as_bytes());
    out.push(b' ');
    if t.slash {
        out.push(b'/');
    }
    out.extend_from_slice(t.path.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\n");
    let has = |name: &str| {
        req.headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    let mut line = |n: &[u8], v: &[u8]| {
        out.extend_from_slice(n);
        out.extend_from_slice(b": ");
        out.extend_from_slice(v);
        out.extend_from_slice(b"\r\n");
    };
    // ureq's added headers, in its order (`add_headers`, then the request's analysis).
    if !stream && !has("accept-encoding") {
        line(b"accept-encoding", b"gzip");
    }
    // The length's digits, written without a `String`.
    let (mut digits, mut at, mut n) = ([0u8; 20], 20, req.body.len());
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    line(b"content-length", &digits[at..]);
    if !has("user-agent") {
        line(b"user-agent", plain.user_agent.as_bytes());
    }
    if !has("accept") {
        line(b"accept", b"*/*");
    }
    line(b"host", t.authority.as_bytes());
    // The caller's, lower-cased and grouped by name in first-seen order (a `HeaderMap`).
    for (i, (n, _)) in req.headers.iter().enumerate() {
        if req.headers[..i]
            .iter()
            .any(|(m, _)| m.eq_ignore_ascii_case(n))
        {
            continue;
        }
        for (_, v) in req.headers[i..]
            .iter()
            .filter(|(m, _)| m.eq_ignore_ascii_case(n))
        {
            // The name lower-cased as it is written (no copy of it).
            out.extend(n.bytes().map(|b| b.to_ascii_lowercase()));
            out.extend_from_slice(b": ");
            out.extend_from_slice(v.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
    }
    if stream && !has("accept-encoding") {
        out.extend_from_slice(b"accept-encoding: identity\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(req.body);
}

/// A response head as the driver hands it on, and how its body is read.
pub(crate) struct Head {
    /// Status code.
    pub(crate) status: u16,
    /// Headers: names lower-cased, grouped by name in first-seen order (as ureq's
    /// `HeaderMap`), `content-encoding` and `content-length` dropped when the body is gzip.
    pub(crate) headers: Vec<(String, String)>,
    /// The body is gzip, decoded by the reader.
    pub(crate) gzip: bool,
}

/// A pooled connection to `t` that is still open, else a new one (resolved and connected
/// within their phases). The pool is checked before a byte is written: a connection found
/// closed is dropped, never written to.
fn pooled_or_new(
    plain: &Plain,
    t: &Target<'_>,
    clock: &mut Clock,
    config: &ureq::config::Config,
    io: &CallIo,
) -> Result<Conn, Failure> {
    if let Some(c) = plain.take(t.host, t.port) {
        clock.next_phase();
        return Ok(c);
    }
    let timeout = clock.next_timeout(Timeout::Resolve);
    if timeout.after.is_zero() {
        return Err(Failure::Ureq(ureq::Error::Timeout(timeout.reason)));
    }
    clock.next_phase();
    let c = connect(plain, t, clock, config, io)?;
    clock.next_phase();
    Ok(c)
}

/// Sends `req` to `t` and reads the response head. `Ok` with the head and the body's
/// reader; `Err` with ureq's error for what went wrong, or an outcome for a malformed
/// response.
pub(crate) fn exchange(
    plain: &Arc<Plain>,
    req: &Req<'_>,
    t: &Target<'_>,
    budget: Budget,
    config: &ureq::config::Config,
    io: &CallIo,
) -> Result<(Head, PlainBody), Failure> {
    let stream = matches!(budget, Budget::Stream { .. });
    let mut clock = Clock::new(budget);
    let mut conn = pooled_or_new(plain, t, &mut clock, config, io)?;
    // Written into the connection's own buffer, kept from its last request (no allocation
    // per pooled send).
    let mut bytes = std::mem::take(&mut conn.out);
    request_bytes(&mut bytes, plain, req, t, stream);
    // ureq's two phases: the head within the send-request budget, then what is left of the
    // body within the send-body one (a request the socket takes at once ends both).
    let head_len = bytes.len() - req.body.len();
    let sent = conn.write_at_least(
        &bytes,
        head_len,
        clock.next_timeout(Timeout::SendRequest),
        io,
    )?;
    clock.next_phase();
    if sent < bytes.len() {
        let rest = &bytes[sent..];
        conn.write_at_least(rest, rest.len(), clock.next_timeout(Timeout::SendBody), io)?;
        clock.next_phase();
    }
    // Kept for the connection's next request when it may be pooled again and is small (a
    // stream's connection is not: it would hold the buffer for the stream's life).
    if !stream && bytes.capacity() <= KEEP_OUT {
        conn.out = bytes;
    }
    let recv = clock.deadline(Timeout::RecvResponse);
    // ureq-proto's bounds: 128 header fields, any number of 1xx heads (the phase's
    // timeout ends a server that sends nothing else).
    let limits = Limits {
        max_headers: 128,
        max_informational: usize::MAX,
        ..Limits::default()
    };
    let mut parser = ResponseParser::with_limits(req.method, limits).ureq_framing();
    loop {
        let seen = conn.end - conn.start;
        let skipped = parser.informational_skipped();
        let step = match parser.feed(conn.input()) {
            Ok(step) => step,
            // ureq hands a 101 on as the response (with no body, never pooled).
            Err(ResponseError::UnexpectedUpgrade) => {
                let head = switching(conn.input())
                    .ok_or_else(|| head_failure(ResponseError::UnexpectedUpgrade, seen))?;
                return Ok((head, PlainBody::new(plain, None, parser, None)));
            }
            Err(e) => return Err(head_failure(e, seen)),
        };
        if parser.informational_skipped() > skipped && continue_with_fields(conn.input()) {
            return Err(Failure::Response(Malformed::HeadersWith100));
        }
        match step.event {
            Event::NeedMore => {
                conn.consume(step.consumed);
                if conn.read_more(recv, io)? == 0 {
                    let e = parser
                        .finish()
                        .err()
                        .unwrap_or(ResponseError::ClosedBeforeResponse);
                    return Err(head_failure(e, seen));
                }
            }
            Event::Head => {
                conn.consume(step.consumed);
                break;
            }
            // A final head comes before any body byte or end.
            Event::Body(_) | Event::End => {
                return Err(head_failure(ResponseError::TruncatedHead, seen));
            }
        }
    }
    let head = parser
        .head()
        .ok_or_else(|| head_failure(ResponseError::TruncatedHead, 0))?;
    let gzip = head.headers.get("content-encoding") == Some(b"gzip");
    let headers = collect(&head.headers, gzip);
    let status = head.status;
    let body_deadline = clock.deadline(Timeout::RecvBody);
    let body = PlainBody::new(plain, Some(conn), parser, body_deadline);
    Ok((
        Head {
            status,
            headers,
            gzip,
        },
        body,
    ))
}

/// Whether one of the informational heads `input` starts with is a `100 Continue` with
/// header fields (ureq refuses it).
fn continue_with_fields(mut input: &[u8]) -> bool {
    loop {
        let mut slots = [httparse::EMPTY_HEADER; 128];
        let mut r = httparse::Response::new(&mut slots);
        let Ok(httparse::Status::Complete(n)) = r.parse(input) else {
            return false;
        };
        match r.code {
            Some(100) if !r.headers.is_empty() => return true,
            Some(100..=199) => input = &input[n..],
            _ => return false,
        }
    }
}

/// The `101 Switching Protocols` head at the end of the informational heads `input` starts
/// with, as ureq hands it on.
fn switching(mut input: &[u8]) -> Option<Head> {
    loop {
        let mut slots = [httparse::EMPTY_HEADER; 128];
        let mut r = httparse::Response::new(&mut slots);
        let httparse::Status::Complete(n) = r.parse(input).ok()? else {
            return None;
        };
        if r.code? == 101 {
            let pairs: Vec<(&str, &[u8])> = r.headers.iter().map(|h| (h.name, h.value)).collect();
            let headers = collect(&crate::http1::Headers::from_pairs(&pairs), false);
            return Some(Head {
                status: 101,
                headers,
                gzip: false,
            });
        }
        input = &input[n..];
    }
}

/// What went wrong: ureq's error for the same failure, or a response the reader refused.
#[derive(Debug)]
pub(crate) enum Failure {
    /// As ureq reports it.
    Ureq(ureq::Error),
    /// A malformed response.
    Response(Malformed),
}

impl From<ureq::Error> for Failure {
    fn from(e: ureq::Error) -> Failure {
        Failure::Ureq(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::Ureq(ureq::Error::Io(e))
    }
}

/// The head's fields as ureq's `HeaderMap` hands them on (see [`Head::headers`]).
fn collect(h: &crate::http1::Headers, gzip: bool) -> Vec<(String, String)> {
    // One pass: a field whose name came before joins the end of that name's group (most
    // heads have no repeated name, so nothing moves); the name lower-cased in its own copy.
    let mut out: Vec<(String, String)> = Vec::with_capacity(h.len());
    for f in h.iter() {
        if gzip
            && (f.name.eq_ignore_ascii_case("content-encoding")
                || f.name.eq_ignore_ascii_case("content-length"))
        {
            continue;
        }
        let value = match std::str::from_utf8(f.value) {
            Ok(text) => text.to_owned(),
            Err(_) => String::from_utf8_lossy(f.value).into_owned(),
        };
        let mut name = f.name.to_owned();
        name.make_ascii_lowercase();
        match out.iter().rposition(|(n, _)| *n == name) {
            Some(last) => out.insert(last + 1, (name, value)),
            None => out.push((name, value)),
        }
    }
    out
}

/// A response body read from a fast-path connection, framing removed (not decoded: see
/// [`Head::gzip`]). Its connection goes back to the pool when the body ends cleanly on a
/// connection that may carry another request; any error closes it. Read errors are
/// `ureq::Error`s inside `std::io::Error`, as ureq's body reader's.
pub(crate) struct PlainBody {
    plain: Arc<Plain>,
    conn: Option<Conn>,
    parser: ResponseParser,
    deadline: Option<(Instant, Timeout)>,
    /// Body bytes handed out but not yet read: `buf[pending.0..pending.0 + pending.1]`.
    pending: (usize, usize),
    /// Where the input resumes once `pending` is read (relative to the buffer's start).
    after: usize,
}

impl std::fmt::Debug for PlainBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlainBody")
            .field("open", &self.conn.is_some())
            .finish()
    }
}

/// A response the reader refused, as ureq reports it ("malformed HTTP response: ..." with
/// ureq's wording, see [`Malformed`]).
#[derive(Debug)]
pub(crate) enum Malformed {
    /// Refused by the core's reader.
    Reader(ResponseError),
    /// A `100 Continue` with header fields (ureq-proto refuses it; the core's reader skips
    /// it as any 1xx).
    HeadersWith100,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = match self {
            Malformed::Reader(e) => *e,
            Malformed::HeadersWith100 => {
                return f.write_str("received headers with 100-continue response");
            }
        };
        // ureq-proto's messages for the same failures (httparse's words for a head).
        match e {
            ResponseError::Malformed(h) => {
                let said = match h {
                    HeadSyntax::Version => "invalid HTTP version",
                    HeadSyntax::Status => "invalid response status",
                    HeadSyntax::HeaderName => "invalid header name",
                    HeadSyntax::HeaderValue => "invalid header value",
                    HeadSyntax::NewLine => "invalid new line",
                    HeadSyntax::Token => "invalid token",
                };
                write!(f, "http parse fail: {said}")
            }
            ResponseError::InvalidChunkSize => {
                f.write_str("chunk length cannot be read as a number")
            }
            ResponseError::MissingChunkTerminator => {
                f.write_str("chunk expected crlf as next character")
            }
            ResponseError::ConflictingContentLength => {
                f.write_str("conflicting content-length headers")
            }
            ResponseError::InvalidContentLength => {
                f.write_str("content-length header not a number")
            }
            ResponseError::TooManyHeaders { .. } => {
                f.write_str("http parse resulted in too many headers")
            }
            e => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Malformed {}

/// The connection ended before the response did: ureq's error for it.
fn disconnected() -> std::io::Error {
    std::io::Error::new(ErrorKind::UnexpectedEof, "Peer disconnected")
}

/// A response the reader refused, as the I/O error a body read fails with.
fn response_io(e: ResponseError) -> std::io::Error {
    if e.is_truncation() {
        disconnected()
    } else {
        std::io::Error::other(Malformed::Reader(e))
    }
}

/// A response the reader refused while reading the head, as ureq's failure.
fn head_failure(e: ResponseError, seen: usize) -> Failure {
    match e {
        _ if e.is_truncation() => Failure::Ureq(ureq::Error::Io(disconnected())),
        ResponseError::HeadTooLarge { limit } => {
            Failure::Ureq(ureq::Error::LargeResponseHeader(seen, limit))
        }
        e => Failure::Response(Malformed::Reader(e)),
    }
}

impl PlainBody {
    fn new(
        plain: &Arc<Plain>,
        conn: Option<Conn>,
        parser: ResponseParser,
        deadline: Option<(Instant, Timeout)>,
    ) -> PlainBody {
        PlainBody {
            plain: Arc::clone(plain),
            conn,
            parser,
            deadline,
            pending: (0, 0),
            after: 0,
        }
    }

    fn fail(&mut self, e: std::io::Error) -> std::io::Error {
        self.conn = None;
        e
    }

    /// Feeds the input left over to the parser without reading: framing bytes are consumed
    /// and body bytes become pending; an error or the end is left for the next read.
    fn settle(&mut self) {
        let Some(conn) = self.conn.as_mut() else {
            return;
        };
        if conn.start == conn.end {
            return;
        }
        let input_at = conn.start;
        // An error stays in the parser (it is sticky): the next read reports it.
        let Ok(step) = self.parser.feed(conn.input()) else {
            return;
        };
        match step.event {
            Event::Body(b) if !b.is_empty() => {
                let offset = b.as_ptr() as usize - conn.input().as_ptr() as usize;
                self.pending = (input_at + offset, b.len());
                self.after = input_at + step.consumed;
            }
            Event::End => {
                conn.consume(step.consumed);
                self.end();
            }
            Event::NeedMore | Event::Head | Event::Body(_) => conn.consume(step.consumed),
        }
    }

    /// The body ended: the connection goes back to the pool when it may carry another
    /// request and holds no byte past the response.
    fn end(&mut self) {
        // ureq never pools an HTTP/1.0 connection, even one that said keep-alive.
        let reusable =
            self.parser.reusable() && self.parser.head().is_some_and(|h| h.minor_version >= 1);
        if let Some(conn) = self.conn.take()
            && reusable
            && conn.start == conn.end
        {
            self.plain.put(conn);
        }
    }
}

impl Read for PlainBody {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let io = super::io::current();
        loop {
            let Some(conn) = self.conn.as_mut() else {
                return Ok(0);
            };
            if self.pending.1 > 0 {
                let (at, len) = self.pending;
                let n = len.min(out.len());
                out[..n].copy_from_slice(&conn.buf[at..at + n]);
                self.pending = (at + n, len - n);
                if self.pending.1 == 0 {
                    let after = self.after;
                    conn.consume(after - conn.start);
                    // Framing after the bytes (a chunk's CRLF) is taken now, so that a
                    // stream waiting for its next event holds no input buffer.
                    self.settle();
                }
                return Ok(n);
            }
            let input_at = conn.start;
            let step = match self.parser.feed(conn.input()) {
                Ok(s) => s,
                Err(e) => return Err(self.fail(response_io(e))),
            };
            match step.event {
                Event::Body(b) => {
                    let offset = b.as_ptr() as usize - conn.input().as_ptr() as usize;
                    self.pending = (input_at + offset, b.len());
                    self.after = input_at + step.consumed;
                    if b.is_empty() {
                        conn.consume(step.consumed);
                    }
                }
                Event::End => {
                    conn.consume(step.consumed);
                    self.end();
                    return Ok(0);
                }
                Event::Head => conn.consume(step.consumed),
                Event::NeedMore => {
                    conn.consume(step.consumed);
                    let read = match &io {
                        Some(io) => conn.read_more(self.deadline, io),
                        None => conn.read_more(self.deadline, &CallIo::default()),
                    };
                    match read {
                        Ok(0) => {
                            return match self.parser.finish() {
                                Ok(()) => {
                                    self.conn = None;
                                    Ok(0)
                                }
                                Err(e) => Err(self.fail(response_io(e))),
                            };
                        }
                        Ok(_) => {}
                        Err(e) => return Err(self.fail(e.into_io())),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::config::ClientConfig;
    use crate::driver::exchange::{self, Net, Opened};
    use std::io::BufRead;
    use std::io::Write;
    use std::net::TcpListener;
    use std::sync::mpsc;

    /// A loopback server answering each request on a connection with `answer`; every
    /// request's bytes (head and body) go to the channel, with the connection's number.
    fn server(answer: &'static [u8]) -> (String, mpsc::Receiver<(usize, Vec<u8>)>) {
        server_with(answer, false)
    }

    /// [`server`], closing each connection after its first answer when `close` is set.
    fn server_with(
        answer: &'static [u8],
        close: bool,
    ) -> (String, mpsc::Receiver<(usize, Vec<u8>)>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for (n, conn) in listener.incoming().enumerate() {
                let Ok(conn) = conn else { return };
                let tx = tx.clone();
                std::thread::spawn(move || {
                    conn.set_read_timeout(Some(Duration::from_secs(10))).ok();
                    let mut w = conn.try_clone().expect("clone");
                    let mut r = std::io::BufReader::new(conn);
                    loop {
                        let Some(got) = read_request(&mut r) else {
                            return;
                        };
                        let _ = tx.send((n, got));
                        if w.write_all(answer).is_err() || close {
                            return;
                        }
                    }
                });
            }
        });
        (url, rx)
    }

    /// Reads one request (head lines, then a `content-length` body) as its raw bytes;
    /// `None` at the end of the connection or a cut body.
    pub(super) fn read_request(r: &mut std::io::BufReader<TcpStream>) -> Option<Vec<u8>> {
        let mut got = Vec::new();
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                return None;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
            got.extend_from_slice(line.as_bytes());
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        r.read_exact(&mut body).ok()?;
        got.extend_from_slice(&body);
        Some(got)
    }

    fn config() -> ClientConfig {
        ClientConfig {
            allow_http: true,
            ..ClientConfig::default()
        }
    }

    fn request(method: &str, url: &str, body: &[u8]) -> crate::driver::HttpRequest {
        crate::driver::HttpRequest {
            method: method.to_owned(),
            url: url.to_owned(),
            headers: vec![
                ("Content-Type".to_owned(), "application/json".to_owned()),
                ("A2A-Version".to_owned(), "1.0".to_owned()),
                ("X-Two".to_owned(), "a".to_owned()),
                ("accept".to_owned(), "application/json".to_owned()),
                ("x-two".to_owned(), "b".to_owned()),
            ],
            body: body.to_vec(),
        }
    }

    const OK: &[u8] =
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";

    /// What ureq and the fast path write for the same requests, byte for byte.
    #[test]
    fn the_fast_path_writes_what_ureq_writes() {
        let (url, rx) = server(OK);
        let (agent, plain) =
            exchange::build_agent(&config(), crate::driver::dns::Guard::default()).expect("agent");
        let plain = plain.expect("plain http allowed");
        let proxies = crate::driver::proxy::Proxies::default();
        let ureq_net = Net {
            agent: &agent,
            proxies: &proxies,
            plain: None,
        };
        let fast_net = Net {
            agent: &agent,
            proxies: &proxies,
            plain: Some(&plain),
        };
        let cases = [
            request("POST", &format!("{url}/rpc?x=1"), b"{\"a\":1}"),
            request("POST", &url, b""),
            request("GET", &format!("{url}/tasks/1"), b""),
            request("DELETE", &format!("{url}?q"), b""),
        ];
        let t = Duration::from_secs(5);
        for req in &cases {
            let mut seen = Vec::new();
            for net in [ureq_net, fast_net] {
                let io = CallIo::new();
                let r = exchange::unary(net, req, t, t, 1 << 20, &io).expect("answer");
                assert_eq!((r.status, r.body.as_slice()), (200, &b"{}"[..]));
                assert_eq!(
                    r.headers,
                    vec![
                        ("content-type".to_owned(), "application/json".to_owned()),
                        ("content-length".to_owned(), "2".to_owned())
                    ]
                );
                seen.push(rx.recv_timeout(t).expect("request").1);
            }
            assert_eq!(
                plain.pool.locked().len(),
                1,
                "the fast path's connection, pooled"
            );
            assert_eq!(
                String::from_utf8_lossy(&seen[1]),
                String::from_utf8_lossy(&seen[0]),
                "{} {}",
                req.method,
                req.url
            );
            let mut seen = Vec::new();
            for net in [ureq_net, fast_net] {
                let io = CallIo::new();
                match exchange::open_stream(net, req, t, t, 1 << 20, &io).expect("answer") {
                    Opened::Whole(r) => assert_eq!(r.body, b"{}"),
                    Opened::Events { .. } => panic!("not an event stream"),
                }
                seen.push(rx.recv_timeout(t).expect("request").1);
            }
            assert_eq!(
                String::from_utf8_lossy(&seen[1]),
                String::from_utf8_lossy(&seen[0]),
                "stream {} {}",
                req.method,
                req.url
            );
        }
    }
}

#[cfg(test)]
mod edge_tests {
    use super::*;
    use crate::driver::config::ClientConfig;
    use crate::driver::exchange::{self, Net};
    use crate::outcome::Outcome;
    use std::io::Write;
    use std::net::TcpListener;
    use std::sync::mpsc;

    const T: Duration = Duration::from_secs(5);

    /// A loopback server: each connection answers its requests with `answers` in turn
    /// (closing after the last when `close` is set); each request's connection number goes
    /// to the channel.
    fn server(answers: Vec<Vec<u8>>, close: bool) -> (String, mpsc::Receiver<usize>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/rpc", listener.local_addr().expect("addr"));
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for (n, conn) in listener.incoming().enumerate() {
                let Ok(conn) = conn else { return };
                let (tx, answers) = (tx.clone(), answers.clone());
                std::thread::spawn(move || {
                    conn.set_read_timeout(Some(T)).ok();
                    let mut w = conn.try_clone().expect("clone");
                    let mut r = std::io::BufReader::new(conn);
                    for answer in &answers {
                        if super::tests::read_request(&mut r).is_none() {
                            return;
                        }
                        let _ = tx.send(n);
                        if w.write_all(answer).is_err() {
                            return;
                        }
                    }
                    if close {
                        return;
                    }
                    // Held open until the client closes it.
                    let mut rest = Vec::new();
                    let _ = r.read_to_end(&mut rest);
                });
            }
        });
        (url, rx)
    }

    struct Nets {
        agent: ureq::Agent,
        plain: Arc<Plain>,
        proxies: crate::driver::proxy::Proxies,
    }

    fn nets(limit_idle: Duration) -> Nets {
        let cfg = ClientConfig {
            allow_http: true,
            pool_idle_timeout: limit_idle,
            ..ClientConfig::default()
        };
        let (agent, plain) =
            exchange::build_agent(&cfg, crate::driver::dns::Guard::default()).expect("agent");
        Nets {
            agent,
            plain: plain.expect("plain"),
            proxies: crate::driver::proxy::Proxies::default(),
        }
    }

    impl Nets {
        fn ureq(&self) -> Net<'_> {
            Net {
                agent: &self.agent,
                proxies: &self.proxies,
                plain: None,
            }
        }
        fn fast(&self) -> Net<'_> {
            Net {
                agent: &self.agent,
                proxies: &self.proxies,
                plain: Some(&self.plain),
            }
        }
    }

    fn post(url: &str) -> crate::driver::HttpRequest {
        crate::driver::HttpRequest {
            method: "POST".to_owned(),
            url: url.to_owned(),
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            body: b"{}".to_vec(),
        }
    }

    fn send(net: Net<'_>, url: &str, limit: u64) -> Result<exchange::HttpResponse, Outcome> {
        exchange::unary(net, &post(url), T, T, limit, &CallIo::new())
    }

    /// The same answer through ureq and through the fast path: the same result.
    fn same(answer: &[u8], close: bool, limit: u64) -> Result<exchange::HttpResponse, Outcome> {
        let n = nets(Duration::from_secs(30));
        let (url, _rx) = server(vec![answer.to_vec()], close);
        let by_ureq = send(n.ureq(), &url, limit);
        let fast = send(n.fast(), &url, limit);
        assert_eq!(
            fast,
            by_ureq,
            "{}",
            String::from_utf8_lossy(&answer[..answer.len().min(200)])
        );
        fast
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).expect("gzip");
        e.finish().expect("gzip")
    }

    #[test]
    fn answers_read_as_ureq_reads_them() {
        let ok = same(
            b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
            false,
            1 << 20,
        );
        assert_eq!(ok.expect("answer").body, b"{}");
        let chunked = same(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\nx-a: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            false,
            1 << 20,
        );
        assert_eq!(chunked.expect("answer").body, b"{}");
        let until_close = same(b"HTTP/1.1 200 OK\r\n\r\nuntil close", true, 1 << 20);
        assert_eq!(until_close.expect("answer").body, b"until close");
        let http10 = same(
            b"HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n{}",
            true,
            1 << 20,
        );
        assert_eq!(http10.expect("answer").status, 200);
        let early = same(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n",
            false,
            1 << 20,
        );
        assert_eq!(early.expect("answer").status, 201);
        let switching = same(
            b"HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\n\r\n",
            true,
            1 << 20,
        );
        assert_eq!(switching.expect("answer").status, 101);
        // Framings RFC 9112 refuses and ureq reads.
        for odd in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 99\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"[..],
            &b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"[..],
            &b"HTTP/1.1 200 OK\r\ntransfer-encoding: identity\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.0 200 OK\r\ntransfer-encoding: chunked\r\ncontent-length: 2\r\n\r\n{}"[..],
        ] {
            let odd: &'static [u8] = odd.to_vec().leak();
            same(odd, true, 1 << 20).expect("read as ureq reads it");
        }
        // Heads ureq refuses or reads in its own way.
        for probe in [
            &b"HTTP/1.1 100 Continue\r\nx: y\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 103 Early\r\nlink: a\r\n\r\nHTTP/1.1 100 Continue\r\nx: y\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 200 OK\r\nbad name: 1\r\ncontent-length: 2\r\n\r\n{}"[..],
            &[&b"HTTP/1.1 102 Processing\r\n\r\n"[..]; 20]
                .concat()
                .into_iter()
                .chain(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}".iter().copied())
                .collect::<Vec<u8>>()
                .leak()[..],
            &b"HTTP/2 200 OK\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 2x0 OK\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 200 OK\r\nx-fold: a\r\n b\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}"[..],
            &b"HTTP/1.1 200 OK\r\ncontent-length: 2, 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 200 OK\r\nx-bin: \xff\xfe\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 200\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 204 No Content\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 200 OK\ncontent-length: 2\n\n{}"[..],
            &b"HTTP/1.1 999 Odd\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2;ext=1\r\n{}\r\n0\r\nx-trailer: 1\r\n\r\n"[..],
        ] {
            // Refused or read alike, with the same outcome or response.
            let _ = same(probe.to_vec().leak(), true, 1 << 20);
        }
        let error = same(
            b"HTTP/1.1 503 Busy\r\ncontent-length: 4\r\n\r\nbusy",
            false,
            1 << 20,
        );
        assert_eq!(error.expect("answer").status, 503);
    }

    #[test]
    fn gzip_is_decoded_and_other_encodings_refused_as_ureq_does() {
        let body = gzip(b"{\"a\":1}");
        let mut answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        answer.extend_from_slice(&body);
        let leaked: &'static [u8] = answer.leak();
        let r = same(leaked, false, 1 << 20).expect("answer");
        assert_eq!(r.body, b"{\"a\":1}");
        assert!(r.headers.is_empty(), "{:?}", r.headers);
        let over = same(leaked, false, 3).expect_err("over the limit after decoding");
        assert_eq!(
            over.error,
            Some(crate::outcome::ErrorName::ResponseTooLarge)
        );
        let br = same(
            b"HTTP/1.1 200 OK\r\ncontent-encoding: br\r\ncontent-length: 2\r\n\r\n{}",
            false,
            1 << 20,
        );
        assert!(br.is_err());
    }

    #[test]
    fn failures_map_to_the_outcomes_ureq_gives() {
        let over = same(
            b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n0123456789",
            false,
            4,
        );
        assert_eq!(
            over.expect_err("too large").error,
            Some(crate::outcome::ErrorName::ResponseTooLarge)
        );
        let mut big = b"HTTP/1.1 200 OK\r\nx-big: ".to_vec();
        big.extend(std::iter::repeat_n(b'h', 70 * 1024));
        big.extend_from_slice(b"\r\ncontent-length: 0\r\n\r\n");
        let big: &'static [u8] = big.leak();
        let head = same(big, true, 1 << 20).expect_err("head over 64 KiB");
        assert_eq!(
            head.request_sent,
            Some(crate::outcome::RequestSent::Unknown)
        );
        let cut = same(
            b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n01234",
            true,
            1 << 20,
        );
        assert!(cut.is_err());
        let bad = same(
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
            true,
            1 << 20,
        );
        assert!(bad.is_err());
        let nothing = same(b"", true, 1 << 20);
        assert!(nothing.is_err());
        // Nobody listening: not sent.
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("bind")
            .local_addr()
            .expect("addr")
            .port();
        let url = format!("http://127.0.0.1:{port}/");
        let n = nets(Duration::from_secs(30));
        let (a, b) = (send(n.ureq(), &url, 10), send(n.fast(), &url, 10));
        assert_eq!(a, b);
        assert_eq!(
            b.expect_err("refused").request_sent,
            Some(crate::outcome::RequestSent::No)
        );
    }

    const KEEP: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}";

    #[test]
    fn a_kept_alive_connection_is_reused() {
        let n = nets(Duration::from_secs(30));
        let (url, rx) = server(vec![KEEP.to_vec(); 3], false);
        for _ in 0..3 {
            send(n.fast(), &url, 100).expect("answer");
        }
        let conns: Vec<usize> = (0..3)
            .map(|_| rx.recv_timeout(T).expect("request"))
            .collect();
        assert_eq!(conns, [0, 0, 0]);
    }

    #[test]
    fn close_http10_and_idle_age_are_never_reused() {
        for answer in [
            &b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}"[..],
            &b"HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 2\r\n\r\n{}"[..],
        ] {
            let n = nets(Duration::from_secs(30));
            let (url, rx) = server(vec![answer.to_vec(); 2], false);
            send(n.fast(), &url, 100).expect("answer");
            send(n.fast(), &url, 100).expect("answer");
            let conns: Vec<usize> = (0..2)
                .map(|_| rx.recv_timeout(T).expect("request"))
                .collect();
            assert_eq!(conns, [0, 1], "{}", String::from_utf8_lossy(answer));
        }
        let n = nets(Duration::from_millis(50));
        let (url, rx) = server(vec![KEEP.to_vec(); 2], false);
        send(n.fast(), &url, 100).expect("answer");
        std::thread::sleep(Duration::from_millis(120));
        send(n.fast(), &url, 100).expect("answer");
        let conns: Vec<usize> = (0..2)
            .map(|_| rx.recv_timeout(T).expect("request"))
            .collect();
        assert_eq!(conns, [0, 1], "older than the idle age");
    }

    #[test]
    fn a_pooled_connection_the_server_closed_is_dropped_before_anything_is_written() {
        let n = nets(Duration::from_secs(30));
        let (url, rx) = server(vec![KEEP.to_vec()], true);
        send(n.fast(), &url, 100).expect("answer");
        assert_eq!(rx.recv_timeout(T).expect("request"), 0);
        // Closed by the server; the peek sees it (loopback: at once, given a moment).
        std::thread::sleep(Duration::from_millis(50));
        send(n.fast(), &url, 100).expect("answer on a new connection");
        assert_eq!(rx.recv_timeout(T).expect("request"), 1);
        assert!(
            rx.recv_timeout(Duration::from_millis(100)).is_err(),
            "nothing replayed"
        );
    }

    #[test]
    fn the_pool_keeps_four_per_host() {
        let n = nets(Duration::from_secs(30));
        let (url, _rx) = server(vec![KEEP.to_vec()], false);
        let target = Plain::target(&Req {
            method: "POST",
            url: &url,
            headers: &[],
            body: b"",
        })
        .expect("fast path");
        for _ in 0..6 {
            let s = TcpStream::connect((target.host, target.port)).expect("connect");
            n.plain.put(Conn::new(s, 64, target.host, target.port));
        }
        assert_eq!(n.plain.pool.locked().len(), IDLE_PER_HOST);
    }

    #[test]
    fn unusual_requests_stay_on_ureq() {
        let req = |url: &str, headers: &[(String, String)]| Req {
            method: "POST",
            url: Box::leak(url.to_owned().into_boxed_str()),
            headers: Box::leak(headers.to_vec().into_boxed_slice()),
            body: b"",
        };
        let h = |n: &str, v: &str| vec![(n.to_owned(), v.to_owned())];
        for (url, headers) in [
            ("https://a.example/", vec![]),
            ("http://user:pw@a.example/", vec![]),
            ("http://[::1]:8080/", vec![]),
            ("http://a.example/x#frag", vec![]),
            ("http://a.example/ sp", vec![]),
            ("http://a.example/", h("Host", "b")),
            ("http://a.example/", h("Connection", "close")),
            ("http://a.example/", h("bad name", "v")),
            ("http://a.example/", h("x", "a\nb")),
        ] {
            assert!(
                Plain::target(&req(url, &headers)).is_none(),
                "{url} {headers:?}"
            );
        }
        let t = Plain::target(&req("http://a.example:80?q=1", &[])).expect("fast path");
        assert_eq!(
            (t.host, t.port, t.authority, t.slash),
            ("a.example", 80, "a.example", true)
        );
        let t = Plain::target(&req("http://a.example:8080/rpc", &[])).expect("fast path");
        assert_eq!(
            (t.port, t.authority, t.path),
            (8080, "a.example:8080", "/rpc")
        );
    }
    /// A stream read whose idle deadline passed before it began (the caller was away) takes
    /// the bytes that came meanwhile, on ureq's path and on the fast path alike; with none
    /// waiting, the passed deadline cuts it as idle.
    #[test]
    fn a_read_after_a_passed_idle_deadline_takes_what_came_meanwhile() {
        let n = nets(Duration::from_secs(30));
        for fast in [false, true] {
            let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
            let url = format!("http://{}/rpc", listener.local_addr().expect("addr"));
            std::thread::spawn(move || {
                let Ok((conn, _)) = listener.accept() else {
                    return;
                };
                conn.set_read_timeout(Some(T)).ok();
                let mut w = conn.try_clone().expect("clone");
                let mut r = std::io::BufReader::new(conn);
                if super::tests::read_request(&mut r).is_none() {
                    return;
                }
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                            transfer-encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n";
                let _ = w.write_all(head.as_bytes());
                std::thread::sleep(Duration::from_millis(100));
                let _ = w.write_all(b"9\r\ndata: 2\n\n\r\n");
                // Held open (silent) until the client closes it.
                let mut rest = Vec::new();
                let _ = std::io::Read::read_to_end(&mut r, &mut rest);
            });
            let net = if fast { n.fast() } else { n.ureq() };
            let io = CallIo::new();
            let opened =
                exchange::open_stream(net, &post(&url), T, T, 1 << 20, &io).expect("answer");
            let exchange::Opened::Events { mut reader, .. } = opened else {
                panic!("not an event stream")
            };
            let _entered = io.enter();
            let mut buf = [0u8; 64];
            let mut got = Vec::new();
            while !got.ends_with(b"data: 1\n\n") {
                let k = reader.read(&mut buf).expect("the first event");
                assert!(k > 0, "ended early (fast: {fast})");
                got.extend_from_slice(&buf[..k]);
            }
            // Away past the deadline while the second event arrives.
            std::thread::sleep(Duration::from_millis(400));
            io.set_deadline(Some(Instant::now() - Duration::from_millis(200)));
            let k = reader.read(&mut buf).expect("what came meanwhile is read");
            assert_eq!(&buf[..k], b"data: 2\n\n", "fast: {fast}");
            assert!(!io.idle_fired(), "fast: {fast}");
            // Nothing more waits: the passed deadline cuts the stream as idle.
            io.set_deadline(Some(Instant::now() - Duration::from_millis(200)));
            assert!(reader.read(&mut buf).is_err(), "fast: {fast}");
            assert!(io.idle_fired(), "fast: {fast}");
        }
    }
}
