//! Loopback HTTP/1.1 plumbing of the `a2a demo` agent and of `a2a-testkit fault-server`
//! (which includes this file): read one request (httparse), write responses and
//! event streams. Deliberately small and std-only; it only has to be correct for loopback
//! tests, not fast.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Largest request head accepted.
const MAX_HEAD: usize = 64 * 1024;
/// Largest request body accepted (the driver's tests send small bodies).
const MAX_BODY: usize = 8 * 1024 * 1024;

/// One parsed request.
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target as sent (path and query).
    pub path: String,
    /// Header names lower-cased, values as sent.
    pub headers: Vec<(String, String)>,
    /// The body (Content-Length framed).
    pub body: Vec<u8>,
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

/// Reads one request from `stream`, keeping pipelined bytes in `buf`.
///
/// `Ok(None)` when the peer closed or went idle before sending a request.
pub fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<Option<Request>> {
    loop {
        if !buf.is_empty() {
            let mut headers = [httparse::EMPTY_HEADER; 64];
            let mut req = httparse::Request::new(&mut headers);
            match req.parse(buf) {
                Ok(httparse::Status::Complete(head_len)) => {
                    let method = req.method.unwrap_or("GET").to_owned();
                    let path = req.path.unwrap_or("/").to_owned();
                    let headers: Vec<(String, String)> = req
                        .headers
                        .iter()
                        .map(|h| {
                            (
                                h.name.to_ascii_lowercase(),
                                String::from_utf8_lossy(h.value).into_owned(),
                            )
                        })
                        .collect();
                    let len = headers
                        .iter()
                        .find(|(n, _)| n == "content-length")
                        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if len > MAX_BODY {
                        return Err(io::Error::new(io::ErrorKind::InvalidData, "body too large"));
                    }
                    while buf.len() < head_len + len {
                        if !fill(stream, buf)? {
                            return Ok(None);
                        }
                    }
                    let body = buf[head_len..head_len + len].to_vec();
                    buf.drain(..head_len + len);
                    return Ok(Some(Request {
                        method,
                        path,
                        headers,
                        body,
                    }));
                }
                Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => {}
                Ok(httparse::Status::Partial) => {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, "head too large"));
                }
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e.to_string())),
            }
        }
        if !fill(stream, buf)? {
            return Ok(None);
        }
    }
}

/// Reads more bytes; `false` on EOF or idle timeout.
fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<bool> {
    let mut chunk = [0u8; 8192];
    match stream.read(&mut chunk) {
        Ok(0) => Ok(false),
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            Ok(true)
        }
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Ok(false)
        }
        Err(e) => Err(e),
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
        413 => "Content Too Large",
        500 => "Internal Server Error",
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
