//! Loopback HTTP/1.1 plumbing of the `a2a demo` agent, of `a2a-testkit fault-server` and of
//! the benchmark server (the last two include this file): read one request at a time, write
//! responses and event streams, and accept connections ([`accept`]). Deliberately small and
//! std-only; it only has to be correct and robust for loopback tests, not fast.
//!
//! Requests are read with the core's own [`RequestReader`] (one request parser in the
//! project): the framing of RFC 9112 §6, so a request whose length is ambiguous (both
//! `Transfer-Encoding` and `Content-Length`, two lengths, `+5`) is answered with its status
//! (400, 413, 417, 431 or 501) and `connection: close`, and nothing after it on that
//! connection is served: no second request can be smuggled in its body. Deadlines
//! ([`ConnLimits`]) bound how long a client may take: `idle` for the first byte of a request,
//! `head_timeout` for the whole head once it started (a client dribbling a byte a second is
//! cut when it passes, with `408`), `body_timeout` for the body.

#[path = "loopback_accept.rs"]
pub mod accept;

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use a2a_core::http1::{BodyFraming, Event, RequestLimits, RequestReadError, RequestReader};

/// How long the reading of a request may take, and how large it may be.
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    /// Longest wait for the first byte of a request (after the connection is accepted, or
    /// after the previous response): the keep-alive idle timeout. The connection is then
    /// closed without an answer, as uvicorn and express do.
    pub idle: Duration,
    /// Longest time from the first byte of a request to the end of its head (`408` after it).
    pub head_timeout: Duration,
    /// Longest time from the end of the head to the end of the body (`408` after it).
    pub body_timeout: Duration,
    /// Longest a single write may block on a client that stopped reading.
    pub write_timeout: Duration,
    /// Size limits of the head and body.
    pub request: RequestLimits,
}

impl Default for ConnLimits {
    fn default() -> ConnLimits {
        ConnLimits {
            idle: Duration::from_secs(5),
            head_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(60),
            request: RequestLimits::default(),
        }
    }
}

/// Sets up an accepted connection: no Nagle delay, and `limits.write_timeout` on writes.
pub fn prepare(stream: &TcpStream, limits: &ConnLimits) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(limits.write_timeout));
}

/// One parsed request.
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target as sent (path and query).
    pub path: String,
    /// Header names lower-cased, values as sent.
    pub headers: Vec<(String, String)>,
    /// The body (Content-Length or chunked framing removed).
    pub body: Vec<u8>,
    /// Whether the client lets the connection carry another request (HTTP/1.1 without
    /// `Connection: close`, HTTP/1.0 with `Connection: keep-alive`).
    pub keep_alive: bool,
}

impl Request {
    /// The first value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the next request from `stream`, keeping the bytes of a pipelined next request in
/// `buf`.
///
/// `None` when the connection must end: the peer closed or stayed idle before a request, a
/// deadline passed (answered `408`), or the request was refused (answered with its status);
/// every answer says `connection: close` and the connection is then shut down.
#[allow(
    clippy::too_many_lines,
    reason = "reads one HTTP/1.1 request with its deadlines, one block per framing step"
)]
pub fn read_request(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    limits: &ConnLimits,
) -> Option<Request> {
    let mut reader = RequestReader::with_limits(limits.request);
    let mut body = Vec::new();
    // The deadline in force: idle until the request starts, then the head's, then the body's.
    let mut deadline = Instant::now() + limits.idle;
    let mut phase = Phase::Idle;
    let mut chunk = [0u8; 8192];
    loop {
        // Every event the buffered bytes give, then read more.
        loop {
            let step = match reader.feed(buf) {
                Ok(step) => step,
                Err(e) => {
                    refuse(stream, e);
                    return None;
                }
            };
            let consumed = step.consumed;
            match step.event {
                Event::NeedMore => {
                    buf.drain(..consumed);
                    break;
                }
                Event::Head => {
                    phase = Phase::Body;
                    deadline = Instant::now() + limits.body_timeout;
                    let head = reader.head()?;
                    if head.expects_continue() && head.framing != BodyFraming::Empty {
                        // RFC 9110 §10.1.1: the client waits for this before sending the body.
                        if stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").is_err() {
                            return None;
                        }
                    }
                }
                Event::Body(bytes) => body.extend_from_slice(bytes),
                Event::End => {
                    buf.drain(..consumed);
                    let head = reader.head()?;
                    return Some(Request {
                        method: head.method.clone(),
                        path: head.target.clone(),
                        headers: head
                            .headers
                            .iter()
                            .map(|f| {
                                (
                                    f.name.to_ascii_lowercase(),
                                    String::from_utf8_lossy(f.value).into_owned(),
                                )
                            })
                            .collect(),
                        body,
                        keep_alive: head.keep_alive(),
                    });
                }
            }
            buf.drain(..consumed);
        }
        if phase == Phase::Idle && reader.has_started() {
            phase = Phase::Head;
            deadline = Instant::now() + limits.head_timeout;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            if phase != Phase::Idle {
                let what = if phase == Phase::Head { "head" } else { "body" };
                let limit = if phase == Phase::Head {
                    limits.head_timeout
                } else {
                    limits.body_timeout
                };
                let msg = format!(
                    "request {what} not received within {} ms\n",
                    limit.as_millis()
                );
                let _ = respond(stream, 408, "text/plain", &[], msg.as_bytes(), false);
                close_after_refusal(stream);
            }
            return None;
        }
        // Each read waits at most until the deadline: a byte now and then does not extend it.
        let _ = stream.set_read_timeout(Some(left));
        match stream.read(&mut chunk) {
            Ok(0) => {
                // The client went away, between requests or in the middle of one: nobody to answer.
                let _ = reader.finish();
                return None;
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => return None,
        }
    }
}

/// Which deadline [`read_request`] is under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    Head,
    Body,
}

/// Answers a refused request with its status and `connection: close`, then closes.
fn refuse(stream: &mut TcpStream, e: RequestReadError) {
    if e.is_truncation() {
        return;
    }
    let msg = format!("{e}\n");
    let _ = respond(stream, e.status(), "text/plain", &[], msg.as_bytes(), false);
    close_after_refusal(stream);
}

/// How long, and how much, [`close_after_refusal`] reads before it closes.
const LINGER: Duration = Duration::from_secs(1);
const LINGER_BYTES: usize = 256 * 1024;

/// Ends a connection whose client may still be sending (the rest of a refused request): stop
/// writing, then read and discard until the client closes (at most [`LINGER`] and
/// [`LINGER_BYTES`]). Closing with unread bytes would send a reset, which can destroy the
/// answer before the client reads it (RFC 9112 §9.6); what is discarded is never parsed.
pub fn close_after_refusal(stream: &mut TcpStream) {
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Write);
    drain_until(stream, Instant::now() + LINGER, LINGER_BYTES);
}

/// Reads and discards until end of file, `deadline` or `max` bytes.
fn drain_until(stream: &mut TcpStream, deadline: Instant, max: usize) {
    let mut sink = [0u8; 4096];
    let mut read = 0usize;
    while read < max {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => return,
            Ok(n) => read += n,
        }
    }
}

/// The standard reason phrase for the statuses the server produces.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        417 => "Expectation Failed",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// Writes a complete Content-Length framed response.
pub fn respond(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    extra: &[(&str, String)],
    body: &[u8],
    keep_alive: bool,
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n",
        reason(status),
        body.len()
    );
    for (n, v) in extra {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(if keep_alive {
        "connection: keep-alive\r\n\r\n"
    } else {
        "connection: close\r\n\r\n"
    });
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    stream.write_all(&out)?;
    stream.flush()
}

/// A chunked `text/event-stream` response in progress.
pub struct Sse<'a> {
    stream: &'a mut TcpStream,
}

impl<'a> Sse<'a> {
    /// Writes the head of a chunked event stream (the proxy-safe headers real servers send).
    pub fn start(stream: &'a mut TcpStream) -> io::Result<Sse<'a>> {
        stream.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-store\r\n\
              x-accel-buffering: no\r\nconnection: keep-alive\r\ntransfer-encoding: chunked\r\n\r\n",
        )?;
        stream.flush()?;
        Ok(Sse { stream })
    }

    /// Writes raw bytes as one chunk (one TCP write).
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.unframed(&Self::chunk(bytes))
    }

    /// Continues a chunked body whose head the caller wrote.
    pub fn resume(stream: &'a mut TcpStream) -> Sse<'a> {
        Sse { stream }
    }

    /// Encodes `bytes` as one chunk without writing it (for several chunks in one write).
    pub fn chunk(bytes: &[u8]) -> Vec<u8> {
        let mut out = format!("{:x}\r\n", bytes.len()).into_bytes();
        out.extend_from_slice(bytes);
        out.extend_from_slice(b"\r\n");
        out
    }

    /// Writes `bytes` as they are, outside any chunk framing (one TCP write).
    pub fn unframed(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)?;
        self.stream.flush()
    }

    /// Writes one `data:` event.
    pub fn event(&mut self, json: &str) -> io::Result<()> {
        self.raw(format!("data: {json}\n\n").as_bytes())
    }

    /// Writes one comment line (a keep-alive).
    pub fn comment(&mut self, text: &str) -> io::Result<()> {
        self.raw(format!(": {text}\n\n").as_bytes())
    }

    /// Ends the chunked body cleanly.
    pub fn finish(self) -> io::Result<()> {
        self.stream.write_all(b"0\r\n\r\n")?;
        self.stream.flush()
    }

    /// Cuts the connection without the terminating chunk: what a dropped connection or a
    /// proxy cutting the stream looks like to the client.
    pub fn drop_connection(self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }

    /// Holds the stream open and silent until the peer closes or `limit` passes.
    pub fn stall(self, limit: Duration) {
        hold_until_peer_closes(self.stream, limit);
    }
}

/// Waits (reading and discarding) until the peer closes the connection or `limit` passes.
pub fn hold_until_peer_closes(stream: &mut TcpStream, limit: Duration) {
    let end = Instant::now() + limit;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
    let mut sink = [0u8; 1024];
    while Instant::now() < end {
        match stream.read(&mut sink) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}
