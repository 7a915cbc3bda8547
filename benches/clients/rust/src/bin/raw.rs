//! `bench-raw`: the floor of the client-overhead harness. A hand-written keep-alive loop on
//! one std `TcpStream`: a fixed 0.3 `message/send` request written in one `write`, the
//! response head parsed with httparse, the body read by its Content-Length and checked by
//! substring (COMPLETED, the echoed text); a `message/stream` body de-chunked by hand with
//! events counted at their blank lines. No JSON parsing, no SSE decoder, no classification:
//! what any client must at least pay for HTTP/1.1 over loopback. Run by
//! `scripts/bench/clients.py` (contract in the crate documentation).
#![forbid(unsafe_code)]

use std::io::{Read, Write};
use std::net::TcpStream;

use a2a_bench_clients::{Params, Report, Section, check, rss_kib};
use memchr::memmem;

struct Conn {
    stream: TcpStream,
    host: String,
    buf: Vec<u8>,
}

impl Conn {
    fn open(url: &str) -> Conn {
        let host = url
            .strip_prefix("http://")
            .expect("http URL")
            .trim_end_matches('/');
        let stream = TcpStream::connect(host).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        Conn {
            stream,
            host: host.to_owned(),
            buf: Vec::with_capacity(64 * 1024),
        }
    }

    fn post(&mut self, id: u64, method: &str, text: &str) {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"message":{{"kind":"message","messageId":"m-{id}","role":"user","parts":[{{"kind":"text","text":"{text}"}}]}}}}}}"#
        );
        let req = format!(
            "POST / HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: {}\r\nContent-Length: {}\r\n\r\n{body}",
            self.host,
            if method == "message/stream" {
                "text/event-stream"
            } else {
                "application/json"
            },
            body.len()
        );
        self.stream.write_all(req.as_bytes()).expect("write");
    }

    fn fill(&mut self) {
        let mut chunk = [0u8; 64 * 1024];
        let n = self.stream.read(&mut chunk).expect("read");
        check(n > 0, || "the server closed the connection".into());
        self.buf.extend_from_slice(&chunk[..n]);
    }

    /// Reads a response head; returns (status, content-length or None for chunked).
    fn head(&mut self) -> (u16, Option<usize>) {
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut resp = httparse::Response::new(&mut headers);
            if let httparse::Status::Complete(n) = resp.parse(&self.buf).expect("response head") {
                let status = resp.code.unwrap_or(0);
                let len = resp
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                    .and_then(|h| std::str::from_utf8(h.value).ok()?.trim().parse().ok());
                self.buf.drain(..n);
                return (status, len);
            }
            self.fill();
        }
    }

    /// One send; asserts the answer.
    fn send(&mut self, id: u64) {
        self.post(id, "message/send", "ping");
        let (status, len) = self.head();
        let len = len.expect("content-length");
        while self.buf.len() < len {
            self.fill();
        }
        let body = &self.buf[..len];
        check(status == 200, || format!("status {status}"));
        check(
            memmem::find(body, br#""state":"completed""#).is_some()
                && memmem::find(body, br#""text":"ping""#).is_some(),
            || String::from_utf8_lossy(body).into_owned(),
        );
        self.buf.drain(..len);
    }

    /// One stream of `n` events, de-chunked by hand; asserts the count and the end.
    fn stream(&mut self, id: u64, n: u64) {
        self.post(id, "message/stream", &format!("stream {n}"));
        let (status, _) = self.head();
        check(status == 200, || format!("status {status}"));
        let mut events = 0u64;
        let mut last = 0u8;
        let mut tail: Vec<u8> = Vec::with_capacity(4096);
        loop {
            // Chunk-size line.
            let line_end = loop {
                if let Some(i) = memmem::find(&self.buf, b"\r\n") {
                    break i;
                }
                self.fill();
            };
            let size_text = std::str::from_utf8(&self.buf[..line_end]).expect("chunk size");
            let size = usize::from_str_radix(size_text.trim(), 16).expect("chunk size");
            self.buf.drain(..line_end + 2);
            while self.buf.len() < size + 2 {
                self.fill();
            }
            if size == 0 {
                self.buf.drain(..2);
                break;
            }
            let data = &self.buf[..size];
            if last == b'\n' && data[0] == b'\n' {
                events += 1;
            }
            events += memmem::find_iter(data, b"\n\n").count() as u64;
            last = data[size - 1];
            if tail.len() > 2048 {
                tail.drain(..tail.len() - 2048);
            }
            tail.extend_from_slice(data);
            self.buf.drain(..size + 2);
        }
        check(events == n, || format!("{events} events, wanted {n}"));
        let final_event = &tail[memmem::rfind(&tail[..tail.len() - 2], b"\n\n").unwrap_or(0)..];
        check(
            memmem::find(final_event, br#""state":"completed""#).is_some()
                && memmem::find(&tail, format!(r#""text":"chunk {}""#, n - 4).as_bytes()).is_some(),
            || String::from_utf8_lossy(&tail).into_owned(),
        );
    }

    /// Opens a `hold` stream and reads until its first event arrived.
    fn hold(&mut self, id: u64) {
        self.post(id, "message/stream", "hold");
        let (status, _) = self.head();
        check(status == 200, || format!("status {status}"));
        while memmem::find(&self.buf, b"\n\n").is_none() {
            self.fill();
        }
    }
}

fn main() {
    let p = Params::from_env();
    let mut conn = Conn::open(&p.url);
    let mut id = 0u64;
    for _ in 0..p.warmup {
        id += 1;
        conn.send(id);
    }
    id += 1;
    conn.stream(id, p.warmup_events.max(3));

    let mut r = Report {
        client: "raw".into(),
        sends: p.sends,
        events: p.events,
        idle: p.idle,
        ..Report::default()
    };
    let s = Section::start();
    for _ in 0..p.sends {
        id += 1;
        conn.send(id);
    }
    (r.send_wall_s, r.send_cpu_ns) = s.stop();

    let s = Section::start();
    id += 1;
    conn.stream(id, p.events);
    (r.stream_wall_s, r.stream_cpu_ns) = s.stop();

    if p.idle > 0 {
        r.rss_before_kib = rss_kib();
        let mut open = Vec::new();
        for _ in 0..p.idle {
            id += 1;
            let mut c = Conn::open(&p.url);
            c.hold(id);
            open.push(c);
        }
        r.rss_after_kib = rss_kib();
        drop(open);
    }
    r.print();
}
