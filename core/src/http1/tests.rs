//! Response-parser tests: framing rules, limits, malformed input, and the properties that any
//! split of the input gives the same result as feeding it whole, and that a generated valid
//! response reads back as written.

use super::*;
use proptest::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Parsed {
    head: Option<ResponseHead>,
    body: Vec<u8>,
    trailers: Headers,
    /// Bytes left over after the response ended (the next response on the connection).
    leftover: Vec<u8>,
    reusable: bool,
}

/// Plays the caller: reads `wire` in pieces of the given sizes (cycled; the rest in one
/// piece when `sizes` is empty) into its own buffer, feeds the unconsumed part, drops
/// consumed bytes after handling each event, and calls `finish` at end of input.
fn drive(
    method: &str,
    limits: Limits,
    wire: &[u8],
    sizes: &[usize],
) -> Result<Parsed, ResponseError> {
    let mut p = ResponseParser::with_limits(method, limits);
    let mut buf: Vec<u8> = Vec::new();
    let mut body = Vec::new();
    let mut fed = 0;
    let mut piece = 0;
    let mut heads = 0;
    loop {
        let mut ended = false;
        // Bounded: each iteration either consumes bytes or stops.
        for _ in 0..=wire.len() * 4 + 8 {
            let step = p.feed(&buf)?;
            assert!(step.consumed <= buf.len());
            let need_more = step.event == Event::NeedMore;
            match step.event {
                Event::Body(b) => {
                    // Zero-copy: the slice points into the fed buffer.
                    let range = buf.as_ptr_range();
                    assert!(
                        b.is_empty() || (range.contains(&b.as_ptr())),
                        "body borrows the input"
                    );
                    assert!(!b.is_empty(), "no empty body events");
                    body.extend_from_slice(b);
                }
                Event::Head => heads += 1,
                Event::End => ended = true,
                Event::NeedMore => {}
            }
            let consumed = step.consumed;
            buf.drain(..consumed);
            if need_more || ended {
                break;
            }
        }
        if ended {
            break;
        }
        if fed == wire.len() {
            p.finish()?;
            break;
        }
        let size = if sizes.is_empty() {
            wire.len()
        } else {
            sizes[piece % sizes.len()].max(1)
        };
        piece += 1;
        let n = size.min(wire.len() - fed);
        buf.extend_from_slice(&wire[fed..fed + n]);
        fed += n;
    }
    assert!(heads <= 1);
    assert_eq!(p.body_received(), body.len() as u64);
    let mut leftover = buf;
    leftover.extend_from_slice(&wire[fed..]);
    Ok(Parsed {
        head: p.head().cloned(),
        body,
        trailers: p.trailers().clone(),
        leftover,
        reusable: p.reusable(),
    })
}

fn whole(wire: &[u8]) -> Result<Parsed, ResponseError> {
    drive("POST", Limits::default(), wire, &[])
}

const CHUNKED_EXT_TRAILERS: &[u8] = b"HTTP/1.1 200 OK\r\n\
Content-Type: text/event-stream\r\n\
Transfer-Encoding: chunked\r\n\r\n\
7;name=value;quoted=\"a;b\"\r\ndata: h\r\n\
0000A ; ext\r\ni\n\ndata: t\r\n\
3\r\nwo\n\r\n\
0;last\r\nX-Checksum: abc\r\nX-Other:  d \r\n\r\n";

fn samples() -> Vec<&'static [u8]> {
    vec![
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: application/json\r\n\r\nhello",
        CHUNKED_EXT_TRAILERS,
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1",
        b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end",
        b"HTTP/1.1 204 No Content\r\nContent-Length: 99\r\n\r\nHTTP/1.1 200 OK\r\n",
        b"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 10\r\n\r\n<html>",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n-1\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX",
        b"HTTP/1.1 20 OK\r\n\r\n",
    ]
}

#[test]
fn content_length_body() {
    let r = whole(samples()[0]).unwrap();
    let head = r.head.unwrap();
    assert_eq!(head.status, 200);
    assert_eq!(head.reason, "OK");
    assert_eq!(head.framing, BodyFraming::Length(5));
    assert_eq!(head.content_type(), Some("application/json"));
    assert_eq!(r.body, b"hello");
    assert!(r.reusable);
    assert!(r.leftover.is_empty());
}

#[test]
fn chunked_with_extensions_and_trailers() {
    let r = whole(CHUNKED_EXT_TRAILERS).unwrap();
    assert_eq!(r.head.unwrap().framing, BodyFraming::Chunked);
    assert_eq!(r.body, b"data: hi\n\ndata: two\n");
    let t: Vec<_> = r.trailers.iter().map(|f| (f.name, f.value)).collect();
    assert_eq!(t, vec![("X-Checksum", &b"abc"[..]), ("X-Other", &b"d"[..])]);
    assert!(r.reusable);
}

#[test]
fn informational_responses_are_skipped() {
    let mut p = ResponseParser::new("POST");
    let r = whole(samples()[2]).unwrap();
    assert_eq!(r.head.unwrap().status, 200);
    assert_eq!(r.body, b"ok");
    assert_eq!(
        r.leftover, b"HTTP/1.1",
        "bytes after the end belong to the next response"
    );
    let step = p.feed(samples()[2]).unwrap();
    assert_eq!(step.event, Event::Head);
    assert_eq!(p.informational_skipped(), 2);
    let wire = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n";
    assert_eq!(whole(wire), Err(ResponseError::UnexpectedUpgrade));
    let many = b"HTTP/1.1 100 Continue\r\n\r\n".repeat(17);
    assert_eq!(
        whole(&many),
        Err(ResponseError::TooManyInformational { limit: 16 })
    );
}

#[test]
fn close_delimited_body_ends_at_finish() {
    let r = whole(samples()[3]).unwrap();
    let head = r.head.unwrap();
    assert_eq!(head.framing, BodyFraming::UntilClose);
    assert_eq!(head.minor_version, 0);
    assert!(!head.keep_alive());
    assert_eq!(r.body, b"until the end");
    assert!(!r.reusable);
}

#[test]
fn no_body_for_head_204_304() {
    let r = whole(samples()[4]).unwrap();
    assert_eq!(r.head.as_ref().unwrap().framing, BodyFraming::Empty);
    assert!(r.body.is_empty());
    assert_eq!(r.leftover, b"HTTP/1.1 200 OK\r\n");
    let wire = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n";
    let r = drive("HEAD", Limits::default(), wire, &[]).unwrap();
    assert_eq!(r.head.unwrap().framing, BodyFraming::Empty);
    assert!(r.reusable);
    let wire = b"HTTP/1.1 304 Not Modified\r\nETag: W/\"x\"\r\n\r\n";
    let r = whole(wire).unwrap();
    assert_eq!(r.head.unwrap().status, 304);
    assert!(r.body.is_empty());
}

#[test]
fn two_responses_on_one_connection() {
    let wire = b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nb";
    let mut p = ResponseParser::new("GET");
    let mut at = 0;
    let mut bodies = Vec::new();
    for round in 0..2 {
        loop {
            let step = p.feed(&wire[at..]).unwrap();
            if let Event::Body(b) = step.event {
                bodies.push((round, b.to_vec()));
            }
            at += step.consumed;
            if step.event == Event::End {
                break;
            }
        }
        assert!(p.reusable());
        if round == 0 {
            assert_eq!(p.head().unwrap().status, 200);
            p.reset("GET");
            assert!(p.head().is_none());
        }
    }
    assert_eq!(p.head().unwrap().status, 404);
    assert_eq!(bodies, vec![(0, b"a".to_vec()), (1, b"b".to_vec())]);
    assert_eq!(at, wire.len());
}

#[test]
fn truncation_is_told_apart_from_a_clean_end() {
    assert_eq!(whole(b""), Err(ResponseError::ClosedBeforeResponse));
    assert_eq!(
        whole(b"HTTP/1.1 200 OK\r\nContent-"),
        Err(ResponseError::TruncatedHead)
    );
    assert_eq!(
        whole(b"HTTP/1.1 100 Continue\r\n\r\n"),
        Err(ResponseError::TruncatedHead)
    );
    assert_eq!(
        whole(samples()[7]),
        Err(ResponseError::TruncatedBody {
            expected: Some(10),
            received: 6
        })
    );
    for cut in [
        &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"[..],
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX: y\r\n",
    ] {
        let received = if cut.ends_with(b"hel") { 3 } else { 5 };
        assert_eq!(
            whole(cut),
            Err(ResponseError::TruncatedBody {
                expected: None,
                received
            }),
            "{:?}",
            String::from_utf8_lossy(cut)
        );
    }
}

#[test]
fn obsolete_line_folding_is_unfolded() {
    let wire = b"HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\nContent-Length: 0\r\n\r\n";
    let r = whole(wire).unwrap();
    let head = r.head.unwrap();
    assert_eq!(head.headers.get("x-folded"), Some(&b"a    b"[..]));
    assert_eq!(head.framing, BodyFraming::Length(0));
}

#[test]
fn huge_header_limit_does_not_allocate_by_the_limit() {
    let limits = Limits {
        max_headers: usize::MAX,
        ..Limits::default()
    };
    let wire = b"HTTP/1.1 200 OK\r\nA:\nB:\nC:\r\nContent-Length: 0\r\n\r\n";
    let r = drive("GET", limits, wire, &[]).unwrap();
    assert_eq!(r.head.unwrap().headers.len(), 4);
}

#[test]
fn error_kinds_are_distinct() {
    let all = [
        ResponseError::Malformed(HeadSyntax::Status),
        ResponseError::HeadTooLarge { limit: 1 },
        ResponseError::TooManyHeaders { limit: 1 },
        ResponseError::TooManyInformational { limit: 1 },
        ResponseError::UnexpectedUpgrade,
        ResponseError::InvalidContentLength,
        ResponseError::ConflictingContentLength,
        ResponseError::ContentLengthWithTransferEncoding,
        ResponseError::UnsupportedTransferCoding,
        ResponseError::InvalidChunkSize,
        ResponseError::ChunkLineTooLong { limit: 1 },
        ResponseError::MissingChunkTerminator,
        ResponseError::MalformedTrailers(HeadSyntax::NewLine),
        ResponseError::TrailersTooLarge { limit: 1 },
        ResponseError::TooManyTrailers { limit: 1 },
        ResponseError::ClosedBeforeResponse,
        ResponseError::TruncatedHead,
        ResponseError::TruncatedBody {
            expected: None,
            received: 0,
        },
    ];
    let mut kinds: Vec<&str> = all.iter().map(ResponseError::kind).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert_eq!(kinds.len(), all.len());
    assert_eq!(all.iter().filter(|e| e.is_truncation()).count(), 3);
    for e in all {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn errors_are_sticky() {
    let mut p = ResponseParser::new("GET");
    let e = p.feed(b"HTTP/9.9 200 OK\r\n\r\n").unwrap_err();
    assert_eq!(e, ResponseError::Malformed(HeadSyntax::Version));
    assert_eq!(p.feed(b"HTTP/1.1 200 OK\r\n\r\n"), Err(e));
    assert_eq!(p.finish(), Err(e));
}

#[test]
fn malformed_status_lines() {
    for (wire, want) in [
        (&b"HTTP/2 200 OK\r\n\r\n"[..], HeadSyntax::Version),
        (b"HTTP/1.2 200 OK\r\n\r\n", HeadSyntax::Version),
        (b"HTP/1.1 200 OK\r\n\r\n", HeadSyntax::Version),
        (b"<html>\r\n\r\n", HeadSyntax::Version),
        (b"HTTP/1.1 20 OK\r\n\r\n", HeadSyntax::Status),
        (b"HTTP/1.1 2000 OK\r\n\r\n", HeadSyntax::Status),
        (b"HTTP/1.1 abc OK\r\n\r\n", HeadSyntax::Status),
        (b"HTTP/1.1 200 OK\rX\r\n\r\n", HeadSyntax::Status),
        (
            b"HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
            HeadSyntax::HeaderName,
        ),
        (
            b"HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n",
            HeadSyntax::HeaderValue,
        ),
    ] {
        match whole(wire) {
            Err(ResponseError::Malformed(got)) => {
                assert_eq!(got, want, "{:?}", String::from_utf8_lossy(wire))
            }
            other => panic!("{:?} -> {other:?}", String::from_utf8_lossy(wire)),
        }
    }
}

#[test]
fn header_limits() {
    let limits = Limits {
        max_head_bytes: 64,
        max_headers: 2,
        ..Limits::default()
    };
    let ok = b"HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nContent-Length: 0\r\n\r\n";
    assert_eq!(
        drive(
            "GET",
            Limits {
                max_head_bytes: 64,
                ..Limits::default()
            },
            ok,
            &[]
        )
        .map(|r| r.head.unwrap().headers.len()),
        Ok(3)
    );
    assert_eq!(
        drive("GET", limits, ok, &[]),
        Err(ResponseError::TooManyHeaders { limit: 2 })
    );
    let long = format!("HTTP/1.1 200 OK\r\nX: {}\r\n\r\n", "a".repeat(100));
    for sizes in [&[][..], &[1], &[7]] {
        assert_eq!(
            drive("GET", limits, long.as_bytes(), sizes),
            Err(ResponseError::HeadTooLarge { limit: 64 })
        );
    }
    // Never-ending header garbage is refused as soon as it passes the limit.
    let mut p = ResponseParser::with_limits("GET", limits);
    assert_eq!(p.feed(&[b'a'; 64]).unwrap().event, Event::NeedMore);
    assert_eq!(
        p.feed(&[b'a'; 65]),
        Err(ResponseError::HeadTooLarge { limit: 64 })
    );
}

#[test]
fn content_length_conflicts_and_garbage() {
    let with = |cl: &str| whole(format!("HTTP/1.1 200 OK\r\n{cl}\r\n\r\nabcdefgh").as_bytes());
    assert_eq!(
        with("Content-Length: 3\r\nContent-Length: 3").unwrap().body,
        b"abc"
    );
    assert_eq!(with("Content-Length: 3, 3").unwrap().body, b"abc");
    for conflict in [
        "Content-Length: 3\r\nContent-Length: 4",
        "Content-Length: 3, 4",
        "content-length: 3\r\nCONTENT-LENGTH: 03, 2",
    ] {
        assert_eq!(
            with(conflict),
            Err(ResponseError::ConflictingContentLength),
            "{conflict}"
        );
    }
    for bad in [
        "Content-Length: -1",
        "Content-Length: +3",
        "Content-Length: 0x3",
        "Content-Length: ",
        "Content-Length: 3,",
        "Content-Length: 3 4",
        "Content-Length: 18446744073709551616",
        "Content-Length: 99999999999999999999999",
    ] {
        assert_eq!(with(bad), Err(ResponseError::InvalidContentLength), "{bad}");
    }
    let mut p = ResponseParser::new("GET");
    let step = p
        .feed(b"HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551615\r\n\r\n")
        .unwrap();
    assert_eq!(step.event, Event::Head);
    assert_eq!(p.head().unwrap().framing, BodyFraming::Length(u64::MAX));
    assert_eq!(
        with("Content-Length: 3\r\nTransfer-Encoding: chunked"),
        Err(ResponseError::ContentLengthWithTransferEncoding)
    );
    for te in [
        "gzip, chunked",
        "chunked, chunked",
        "chunked\r\nTransfer-Encoding: chunked",
        "identity",
        "gzip",
        "Transfer-Encoding: ",
    ] {
        let te = if te.starts_with("Transfer") {
            te.to_string()
        } else {
            format!("Transfer-Encoding: {te}")
        };
        assert_eq!(
            with(&te),
            Err(ResponseError::UnsupportedTransferCoding),
            "{te}"
        );
    }
    assert!(
        with("Transfer-Encoding: CHUNKED").is_err(),
        "abcdefgh is not a chunk size"
    );
}

#[test]
fn bad_chunk_sizes() {
    let chunk = |line: &str| {
        whole(
            format!(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{line}hello\r\n0\r\n\r\n"
            )
            .as_bytes(),
        )
    };
    assert_eq!(chunk("5\r\n").unwrap().body, b"hello");
    assert_eq!(chunk("5 \r\n").unwrap().body, b"hello");
    assert_eq!(chunk("5;a=\"\\\"\";b\r\n").unwrap().body, b"hello");
    for bad in [
        "-1\r\n",
        "-5\r\n",
        "\r\n",
        " 5\r\n",
        "0x5\r\n",
        "+5\r\n",
        "5\n",
        "5 5\r\n",
        "g\r\n",
        "5;ext\n",
        "5\r\r\n",
        "fffffffffffffffff\r\n",
        "10000000000000000\r\n",
    ] {
        assert_eq!(chunk(bad), Err(ResponseError::InvalidChunkSize), "{bad:?}");
    }
    // 16 hex digits is the most httparse reads; such a chunk is framed, not buffered.
    let mut p = ResponseParser::new("GET");
    let wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nabc";
    let s = p.feed(wire).unwrap();
    assert_eq!(s.event, Event::Head);
    let s2 = p.feed(&wire[s.consumed..]).unwrap();
    assert_eq!(s2.event, Event::Body(b"abc"));
    assert_eq!(
        p.finish(),
        Err(ResponseError::TruncatedBody {
            expected: None,
            received: 3
        })
    );
    // Data not followed by CRLF.
    assert_eq!(
        whole(samples()[10]),
        Err(ResponseError::MissingChunkTerminator)
    );
}

#[test]
fn chunk_line_and_trailer_limits() {
    let limits = Limits {
        max_chunk_line: 16,
        max_trailer_bytes: 32,
        max_headers: 2,
        ..Limits::default()
    };
    let wire = format!(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;{}\r\na\r\n0\r\n\r\n",
        "e".repeat(20)
    );
    for sizes in [&[][..], &[1]] {
        assert_eq!(
            drive("GET", limits, wire.as_bytes(), sizes),
            Err(ResponseError::ChunkLineTooLong { limit: 16 })
        );
    }
    let wire = format!(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: {}\r\n\r\n",
        "t".repeat(40)
    );
    assert_eq!(
        drive("GET", limits, wire.as_bytes(), &[]),
        Err(ResponseError::TrailersTooLarge { limit: 32 })
    );
    let wire =
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n";
    assert_eq!(
        drive("GET", limits, wire, &[]),
        Err(ResponseError::TooManyTrailers { limit: 2 })
    );
    let wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer: 1\r\n\r\n";
    assert_eq!(
        whole(wire),
        Err(ResponseError::MalformedTrailers(HeadSyntax::HeaderName))
    );
}

/// A tiny SSE line splitter: the `data:` values of every complete event in `body`.
fn complete_events(body: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(body).replace("\r\n", "\n");
    let mut events = Vec::new();
    let mut blocks: Vec<&str> = text.split("\n\n").collect();
    blocks.pop(); // the unterminated tail
    for block in blocks {
        let data: Vec<&str> = block
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        if !data.is_empty() {
            events.push(data.join("\n"));
        }
    }
    events
}

#[test]
fn sse_event_in_a_chunked_response_arrives_before_the_end() {
    // What the Python server sends for a stream: chunked, one event per chunk, CRLF.
    let first = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n\
30\r\ndata: {\"statusUpdate\": {\"state\": \"WORKING\"}}\r\n\r\n\r\n";
    let mut p = ResponseParser::new("POST");
    let mut buf = first.to_vec();
    let mut body = Vec::new();
    loop {
        let step = p.feed(&buf).unwrap();
        if let Event::Body(b) = step.event {
            body.extend_from_slice(b);
        }
        let more = step.event == Event::NeedMore;
        let consumed = step.consumed;
        buf.drain(..consumed);
        if more {
            break;
        }
    }
    assert!(p.head().unwrap().is_media_type("text/event-stream"));
    assert!(!p.is_done(), "the response is still open");
    assert_eq!(
        complete_events(&body),
        vec!["{\"statusUpdate\": {\"state\": \"WORKING\"}}".to_string()]
    );
    // The rest of the stream arrives later and ends the response.
    buf.extend_from_slice(b"b\r\ndata: x\r\n\r\n\r\n0\r\n\r\n");
    loop {
        let step = p.feed(&buf).unwrap();
        if let Event::Body(b) = step.event {
            body.extend_from_slice(b);
        }
        let end = step.event == Event::End;
        let consumed = step.consumed;
        buf.drain(..consumed);
        if end {
            break;
        }
    }
    assert_eq!(complete_events(&body).len(), 2);
}

#[test]
fn split_at_every_byte_gives_the_same_result() {
    for wire in samples() {
        let expected = whole(wire);
        for cut in 1..wire.len() {
            let got = drive("POST", Limits::default(), wire, &[cut, wire.len()]);
            assert_eq!(
                got,
                expected,
                "cut at {cut} of {:?}",
                String::from_utf8_lossy(wire)
            );
        }
        let dripped = drive("POST", Limits::default(), wire, &[1]);
        assert_eq!(
            dripped,
            expected,
            "1-byte pieces of {:?}",
            String::from_utf8_lossy(wire)
        );
    }
}

/// Encodes `body` as chunks of the given sizes, each with an optional extension, then a
/// last chunk and optional trailers: an oracle independent of the parser.
fn encode_chunked(body: &[u8], sizes: &[usize], ext: bool, trailers: bool) -> Vec<u8> {
    let mut w = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    w.extend_from_slice(&chunks(body, sizes, ext));
    w.extend_from_slice(b"0\r\n");
    if trailers {
        w.extend_from_slice(b"Trailer-One: 1\r\n");
    }
    w.extend_from_slice(b"\r\n");
    w
}

/// `body` as chunks of the given sizes (cycled; 1 byte each when `sizes` is empty), each
/// size line with an extension or not, without the last chunk.
fn chunks(body: &[u8], sizes: &[usize], ext: bool) -> Vec<u8> {
    let mut w = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < body.len() {
        let n = sizes
            .get(i % sizes.len().max(1))
            .copied()
            .unwrap_or(1)
            .max(1)
            .min(body.len() - at);
        i += 1;
        w.extend_from_slice(format!("{n:x}").as_bytes());
        if ext {
            w.extend_from_slice(b";i=\"x;y\"");
        }
        w.extend_from_slice(b"\r\n");
        w.extend_from_slice(&body[at..at + n]);
        w.extend_from_slice(b"\r\n");
        at += n;
    }
    w
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_chunking_of_a_chunked_body_yields_the_body(
        body in proptest::collection::vec(any::<u8>(), 0..600),
        chunk_sizes in proptest::collection::vec(1usize..80, 1..6),
        read_sizes in proptest::collection::vec(1usize..40, 0..6),
        ext in any::<bool>(),
        trailers in any::<bool>(),
    ) {
        let wire = encode_chunked(&body, &chunk_sizes, ext, trailers);
        let got = drive("POST", Limits::default(), &wire, &read_sizes).unwrap();
        prop_assert_eq!(&got.body, &body);
        prop_assert_eq!(got.trailers.len(), usize::from(trailers));
        prop_assert!(got.leftover.is_empty());
        prop_assert_eq!(got, whole(&wire).unwrap());
    }

    #[test]
    fn any_split_of_the_samples_matches_feeding_whole(
        which in 0usize..12,
        read_sizes in proptest::collection::vec(1usize..16, 1..5),
    ) {
        let wire = samples()[which];
        prop_assert_eq!(drive("POST", Limits::default(), wire, &read_sizes), whole(wire));
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_chunking_does_not_matter(
        prefix in prop_oneof![
            Just(&b""[..]),
            Just(&b"HTTP/1.1 200 OK\r\n"[..]),
            Just(&b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"[..]),
            Just(&b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n"[..]),
        ],
        tail in proptest::collection::vec(prop_oneof![
            Just(b'\r'), Just(b'\n'), Just(b'0'), Just(b'5'), Just(b'a'), Just(b';'), Just(b':'),
            Just(b' '), any::<u8>()
        ], 0..120),
        read_sizes in proptest::collection::vec(1usize..9, 1..4),
    ) {
        let mut wire = prefix.to_vec();
        wire.extend_from_slice(&tail);
        let small = Limits { max_head_bytes: 96, max_chunk_line: 24, max_trailer_bytes: 48, max_headers: 4, max_informational: 2 };
        let a = drive("GET", small, &wire, &[]);
        let b = drive("GET", small, &wire, &read_sizes);
        prop_assert_eq!(a, b);
    }
}

/// How a generated valid response delimits its body.
#[derive(Debug, Clone)]
enum ValidFraming {
    /// `Content-Length`.
    Length,
    /// Chunked, in chunks of these sizes (cycled), size lines with an extension or not, then
    /// these trailer fields.
    Chunked {
        sizes: Vec<usize>,
        ext: bool,
        trailers: Vec<(String, String)>,
    },
}

/// Header (or trailer) fields that cannot change the framing: `X-` names, visible ASCII
/// values with inner spaces (as the parser hands them out, nothing to trim).
fn extra_fields(max: usize) -> impl Strategy<Value = Vec<(String, String)>> {
    proptest::collection::vec(
        ("X-[A-Za-z0-9-]{1,12}", "[!-~]([ !-~]{0,16}[!-~])?"),
        0..max,
    )
}

fn valid_framing() -> impl Strategy<Value = ValidFraming> {
    prop_oneof![
        Just(ValidFraming::Length),
        (
            proptest::collection::vec(1usize..90, 1..6),
            any::<bool>(),
            extra_fields(4)
        )
            .prop_map(|(sizes, ext, trailers)| ValidFraming::Chunked {
                sizes,
                ext,
                trailers
            }),
    ]
}

fn push_fields(w: &mut Vec<u8>, fields: &[(String, String)]) {
    for (name, value) in fields {
        w.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
}

/// The bytes of a valid response, written from its parts without the parser: `informational`
/// 1xx heads, the final head with `fields`, then `body` framed as `framing` says.
fn encode_valid(
    informational: usize,
    status: u16,
    fields: &[(String, String)],
    body: &[u8],
    framing: &ValidFraming,
) -> Vec<u8> {
    let mut w = Vec::new();
    for _ in 0..informational {
        w.extend_from_slice(b"HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n");
    }
    w.extend_from_slice(format!("HTTP/1.1 {status} Whatever\r\n").as_bytes());
    push_fields(&mut w, fields);
    match framing {
        ValidFraming::Length => {
            w.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
            w.extend_from_slice(body);
        }
        ValidFraming::Chunked {
            sizes,
            ext,
            trailers,
        } => {
            w.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
            w.extend_from_slice(&chunks(body, sizes, *ext));
            w.extend_from_slice(b"0\r\n");
            push_fields(&mut w, trailers);
            w.extend_from_slice(b"\r\n");
        }
    }
    w
}

fn field_pairs(headers: &Headers) -> Vec<(String, Vec<u8>)> {
    headers
        .iter()
        .map(|f| (f.name.to_owned(), f.value.to_vec()))
        .collect()
}

fn owned_pairs(fields: &[(String, String)]) -> Vec<(String, Vec<u8>)> {
    fields
        .iter()
        .map(|(n, v)| (n.clone(), v.clone().into_bytes()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A valid response (1xx heads first or not, `Content-Length` or chunked with
    /// extensions and trailers, the next response's first bytes after it), read in random
    /// pieces, gives what feeding it whole gives, and that is what was written: status,
    /// fields, body and trailers.
    #[test]
    fn random_reads_of_a_valid_response_match_feeding_it_whole(
        informational in 0usize..3,
        status in prop_oneof![Just(200u16), Just(201), Just(404), Just(500), Just(599)],
        fields in extra_fields(6),
        body in proptest::collection::vec(any::<u8>(), 0..700),
        framing in valid_framing(),
        read_sizes in proptest::collection::vec(1usize..64, 1..8),
    ) {
        let mut wire = encode_valid(informational, status, &fields, &body, &framing);
        let next = b"HTTP/1.1 200 OK\r\n";
        wire.extend_from_slice(next);

        let whole = whole(&wire).unwrap();
        let pieces = drive("POST", Limits::default(), &wire, &read_sizes).unwrap();
        prop_assert_eq!(&pieces, &whole);

        let head = pieces.head.as_ref().unwrap();
        prop_assert_eq!(head.status, status);
        let mut expected_fields = owned_pairs(&fields);
        let (framing_field, trailers) = match &framing {
            ValidFraming::Length => (("Content-Length", body.len().to_string()), Vec::new()),
            ValidFraming::Chunked { trailers, .. } => {
                (("Transfer-Encoding", "chunked".to_owned()), trailers.clone())
            }
        };
        expected_fields.push((framing_field.0.to_owned(), framing_field.1.into_bytes()));
        prop_assert_eq!(field_pairs(&head.headers), expected_fields);
        prop_assert_eq!(&pieces.body, &body);
        prop_assert_eq!(field_pairs(&pieces.trailers), owned_pairs(&trailers));
        prop_assert_eq!(&pieces.leftover[..], &next[..]);
        prop_assert!(pieces.reusable);
    }
}

/// A Python-server-like stream (CRLF, a `: ping` comment), one SSE line group per chunk,
/// with a chunk boundary inside an event and one inside a CRLF.
const PY_STREAM: &[u8] = b"HTTP/1.1 200 OK\r\n\
content-type: text/event-stream; charset=utf-8\r\n\
cache-control: no-store\r\n\
transfer-encoding: chunked\r\n\r\n\
2a\r\ndata: {\"task\": {\"state\": \"SUBMITTED\"}}\r\n\r\n\r\n\
f\r\n: ping - 2026\r\n\r\n\
15\r\ndata: {\"statusUpdate\"\r\n\
1a\r\n: {\"state\": \"WORKING\"}}\r\n\r\r\n\
1\r\n\n\r\n\
0\r\n\r\n";

/// Events (data) and comments the stream carries, written out by hand.
fn py_stream_expected() -> Vec<String> {
    vec![
        "event {\"task\": {\"state\": \"SUBMITTED\"}}".to_string(),
        "comment  ping - 2026".to_string(),
        "event {\"statusUpdate\": {\"state\": \"WORKING\"}}".to_string(),
    ]
}

fn decode_items(decoder: &mut crate::sse::Decoder, body: &[u8], out: &mut Vec<String>) {
    let mut feed = decoder.feed(body);
    while let Some(item) = feed.next_item().expect("within SSE limits") {
        match item {
            crate::sse::Item::Event(e) => out.push(format!("event {}", e.data_lossy())),
            crate::sse::Item::Comment(c) => {
                out.push(format!("comment {}", String::from_utf8_lossy(c)))
            }
            crate::sse::Item::Retry(_) => {}
        }
    }
}

#[test]
fn chunked_sse_into_the_real_decoder_split_at_every_byte() {
    for cut in 0..=PY_STREAM.len() {
        let mut p = ResponseParser::new("POST");
        let mut decoder =
            crate::sse::Decoder::with_config(crate::sse::Config::new().with_comment_text(true));
        let mut items = Vec::new();
        let mut buf: Vec<u8> = Vec::new();
        let mut ended = false;
        for piece in [&PY_STREAM[..cut], &PY_STREAM[cut..]] {
            buf.extend_from_slice(piece);
            loop {
                let step = p.feed(&buf).unwrap();
                if let Event::Body(b) = step.event {
                    decode_items(&mut decoder, b, &mut items);
                }
                let (more, end) = (step.event == Event::NeedMore, step.event == Event::End);
                let n = step.consumed;
                buf.drain(..n);
                ended |= end;
                if more || end {
                    break;
                }
            }
        }
        assert!(ended, "cut {cut}");
        assert!(decoder.finish().discarded.is_none());
        assert_eq!(items, py_stream_expected(), "cut at {cut}");
    }
}

#[test]
fn first_event_is_decoded_before_the_response_ends_and_borrows_the_socket_buffer() {
    // Only the head and the first chunk have arrived.
    let end_of_first = PY_STREAM
        .windows(7)
        .position(|w| w == b"\r\n\r\n\r\nf")
        .unwrap()
        + 6;
    let arrived = &PY_STREAM[..end_of_first];
    let mut p = ResponseParser::new("POST");
    let head = p.feed(arrived).unwrap();
    assert_eq!(head.event, Event::Head);
    assert!(p.head().unwrap().is_media_type("text/event-stream"));
    let step = p.feed(&arrived[head.consumed..]).unwrap();
    let Event::Body(body) = step.event else {
        panic!("expected body, got {:?}", step.event)
    };
    let mut decoder = crate::sse::Decoder::new();
    let mut feed = decoder.feed(body);
    let Some(crate::sse::Item::Event(e)) = feed.next_item().unwrap() else {
        panic!("the first event is complete")
    };
    assert_eq!(e.data, b"{\"task\": {\"state\": \"SUBMITTED\"}}");
    // Zero-copy end to end: the event's data is a view of the bytes read from the socket.
    assert!(arrived.as_ptr_range().contains(&e.data.as_ptr()));
    drop(feed);
    assert!(!p.is_done(), "the response is still open");
    assert_eq!(p.feed(&[]).unwrap().event, Event::NeedMore);
}
