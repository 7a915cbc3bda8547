//! The HTTP/1.1 layer over a real loopback socket: a request serialized by
//! `write_request` is read by a tiny server, which answers with a chunked event stream and
//! sends the second event only after the client has reported the first one, proving that
//! an event reaches the caller before the response ends. Every wait is bounded.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

use a2a_core::http1::{Event, ResponseParser, write_request};

const LIMIT: Duration = Duration::from_secs(10);

fn read_request(s: &mut TcpStream) -> Vec<u8> {
    let mut req = Vec::new();
    let mut buf = [0u8; 1024];
    // The request has a Content-Length body of 2 bytes after the head.
    while !(req.windows(4).any(|w| w == b"\r\n\r\n") && req.ends_with(b"{}")) {
        let n = s.read(&mut buf).expect("server read");
        assert!(n > 0, "client closed early");
        req.extend_from_slice(&buf[..n]);
        assert!(req.len() < 64 * 1024);
    }
    req
}

#[test]
fn sse_event_arrives_before_the_chunked_response_ends() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().unwrap();
    let (first_seen_tx, first_seen_rx) = mpsc::channel::<()>();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().expect("accept");
        s.set_read_timeout(Some(LIMIT)).unwrap();
        let req = read_request(&mut s);
        s.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n\
              f\r\ndata: first\r\n\r\n\r\n",
        )
        .unwrap();
        s.flush().unwrap();
        first_seen_rx
            .recv_timeout(LIMIT)
            .expect("client saw the first event");
        s.write_all(b"10\r\ndata: second\r\n\r\n\r\n0\r\n\r\n")
            .unwrap();
        req
    });

    let mut conn = TcpStream::connect(addr).expect("connect");
    conn.set_read_timeout(Some(LIMIT)).unwrap();
    let host = format!("127.0.0.1:{}", addr.port());
    let mut out = Vec::new();
    write_request(
        &mut out,
        "POST",
        "/a2a/v1",
        &host,
        &[
            ("Content-Type", "application/json"),
            ("Accept", "text/event-stream"),
        ],
        b"{}",
    )
    .unwrap();
    conn.write_all(&out).unwrap();

    let mut parser = ResponseParser::new("POST");
    let mut buf = vec![0u8; 4096];
    let (mut start, mut end) = (0usize, 0usize);
    let mut body = Vec::new();
    let mut events = Vec::new();
    let mut reads = 0;
    'read: loop {
        loop {
            let step = parser.feed(&buf[start..end]).expect("valid response");
            if let Event::Body(b) = step.event {
                body.extend_from_slice(b);
            }
            start += step.consumed;
            match step.event {
                Event::End => break 'read,
                Event::NeedMore => break,
                _ => {}
            }
        }
        // A blank line ends an event: report each complete one.
        while let Some(i) = body.windows(4).position(|w| w == b"\r\n\r\n") {
            events.push(String::from_utf8_lossy(&body[..i]).into_owned());
            body.drain(..i + 4);
            if events.len() == 1 {
                assert!(!parser.is_done(), "the response is still open");
                first_seen_tx.send(()).unwrap();
            }
        }
        buf.copy_within(start..end, 0);
        end -= start;
        start = 0;
        let n = conn.read(&mut buf[end..]).expect("client read");
        if n == 0 {
            parser.finish().expect("clean end");
            break;
        }
        end += n;
        reads += 1;
        assert!(reads < 1000);
    }
    while let Some(i) = body.windows(4).position(|w| w == b"\r\n\r\n") {
        events.push(String::from_utf8_lossy(&body[..i]).into_owned());
        body.drain(..i + 4);
    }
    assert_eq!(events, vec!["data: first", "data: second"]);
    assert!(parser.reusable());
    let req = server.join().expect("server thread");
    assert_eq!(
        req,
        format!(
            "POST /a2a/v1 HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: 2\r\n\r\n{{}}"
        )
        .as_bytes()
    );
}
