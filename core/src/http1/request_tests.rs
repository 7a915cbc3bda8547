//! Request-reader tests: the framing rules of RFC 9112 §6 (and each way to smuggle a second
//! request refused with its status), limits, malformed heads, pipelining, and the property
//! that any split of the input gives the same result as feeding it whole.

use super::*;
use proptest::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Read {
    head: RequestHead,
    body: Vec<u8>,
    trailers: Headers,
}

/// Plays a server: reads `wire` in pieces of the given sizes (cycled; all at once when
/// `sizes` is empty) into its own buffer, feeds the unconsumed part, drops consumed bytes
/// after handling each event, resets after each request and calls `finish` at the end.
/// Returns every request read and how the connection ended.
fn drive(
    limits: RequestLimits,
    wire: &[u8],
    sizes: &[usize],
) -> (Vec<Read>, Result<(), RequestReadError>) {
    let mut r = RequestReader::with_limits(limits);
    let mut buf: Vec<u8> = Vec::new();
    let mut body = Vec::new();
    let mut done = Vec::new();
    let (mut fed, mut piece) = (0, 0);
    // Bounded: every round either consumes bytes, or stops and reads more.
    for _ in 0..(wire.len() + 4) * 8 {
        let step = match r.feed(&buf) {
            Ok(s) => s,
            Err(e) => return (done, Err(e)),
        };
        assert!(step.consumed <= buf.len());
        let mut need_more = false;
        match step.event {
            Event::Body(b) => {
                assert!(!b.is_empty(), "no empty body events");
                assert!(
                    buf.as_ptr_range().contains(&b.as_ptr()),
                    "body borrows the input"
                );
                body.extend_from_slice(b);
            }
            Event::Head => assert!(r.head().is_some()),
            Event::End => {
                assert_eq!(r.body_received(), body.len() as u64);
                done.push(Read {
                    head: r.head().cloned().expect("a head before the end"),
                    body: std::mem::take(&mut body),
                    trailers: r.trailers().clone(),
                });
                r.reset();
            }
            Event::NeedMore => need_more = true,
        }
        let consumed = step.consumed;
        buf.drain(..consumed);
        if need_more {
            if fed == wire.len() {
                return (done, r.finish());
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
    }
    panic!("the reader made no progress on {wire:?}");
}

fn read_all(wire: &[u8]) -> (Vec<Read>, Result<(), RequestReadError>) {
    drive(RequestLimits::default(), wire, &[])
}

/// The one request `wire` holds.
fn one(wire: &[u8]) -> Read {
    let (mut reqs, end) = read_all(wire);
    assert_eq!(end, Ok(()), "{}", String::from_utf8_lossy(wire));
    assert_eq!(reqs.len(), 1, "{}", String::from_utf8_lossy(wire));
    reqs.remove(0)
}

/// The error reading the first request of `wire` gives (nothing may be read before it).
fn refused(wire: &[u8]) -> RequestReadError {
    let (reqs, end) = read_all(wire);
    assert!(
        reqs.is_empty(),
        "{}: read {reqs:?}",
        String::from_utf8_lossy(wire)
    );
    end.expect_err(&String::from_utf8_lossy(wire))
}

fn post(headers: &str, rest: &str) -> Vec<u8> {
    format!("POST /a2a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n{headers}\r\n{rest}").into_bytes()
}

#[test]
fn a_request_without_length_fields_has_an_empty_body() {
    let r = one(b"GET /.well-known/agent-card.json?x=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n");
    assert_eq!(r.head.method, "GET");
    assert_eq!(r.head.target, "/.well-known/agent-card.json?x=1");
    assert_eq!(r.head.minor_version, 1);
    assert_eq!(r.head.framing, BodyFraming::Empty);
    assert_eq!(r.head.host(), Some("h"));
    assert!(r.head.keep_alive());
    assert!(r.body.is_empty());
    // Even a POST: RFC 9112 §6.3 rule 7.
    assert_eq!(one(&post("", "")).head.framing, BodyFraming::Empty);
}

#[test]
fn content_length_body() {
    let r = one(&post(
        "Content-Type: application/json\r\nContent-Length: 2\r\n",
        "{}",
    ));
    assert_eq!(r.head.framing, BodyFraming::Length(2));
    assert_eq!(r.head.content_length(), Some(2));
    assert_eq!(r.body, b"{}");
    assert_eq!(
        r.head.headers.get_str("content-type"),
        Some("application/json")
    );
}

#[test]
fn chunked_body_with_extensions_and_trailers() {
    let r = one(&post(
        "Transfer-Encoding: chunked\r\n",
        "2;ext=1\r\n{\"\r\n0003\r\na\":\r\n2 ; name=\"q;x\"\r\n1}\r\n0\r\nX-Sum: 9\r\n\r\n",
    ));
    assert_eq!(r.head.framing, BodyFraming::Chunked);
    assert_eq!(r.body, b"{\"a\":1}");
    assert_eq!(r.trailers.get_str("x-sum"), Some("9"));
    // The coding name is case-insensitive, and empty list elements are ignored.
    let r = one(&post(
        "Transfer-Encoding: , Chunked\r\n",
        "1\r\nx\r\n0\r\n\r\n",
    ));
    assert_eq!(r.body, b"x");
}

/// The attack: a front-end that reads Content-Length sees one request; a server that
/// ignores Transfer-Encoding (as the loopback server did) sees a second one in the body.
/// RFC 9112 §6.3: refuse (400), and close.
#[test]
fn content_length_with_transfer_encoding_is_refused_with_400() {
    let smuggled = "POST /a2a HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}";
    for headers in [
        format!(
            "Content-Length: {}\r\nTransfer-Encoding: chunked\r\n",
            5 + smuggled.len()
        ),
        format!(
            "Transfer-Encoding: chunked\r\nContent-Length: {}\r\n",
            5 + smuggled.len()
        ),
        "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n".to_owned(),
    ] {
        let wire = post(&headers, &format!("0\r\n\r\n{smuggled}"));
        let e = refused(&wire);
        assert_eq!(
            e,
            RequestReadError::ContentLengthWithTransferEncoding,
            "{headers}"
        );
        assert_eq!(e.status(), 400);
    }
}

#[test]
fn conflicting_content_lengths_are_refused() {
    for headers in [
        "Content-Length: 5\r\nContent-Length: 6\r\n",
        "Content-Length: 5, 6\r\n",
        "Content-Length: 6\r\nContent-Length: 5, 5\r\n",
    ] {
        let e = refused(&post(headers, "hello!"));
        assert_eq!(e, RequestReadError::ConflictingContentLength, "{headers}");
        assert_eq!(e.status(), 400);
    }
    // The same value repeated is one length (RFC 9110 §8.6; h11 does the same).
    let r = one(&post(
        "Content-Length: 5\r\nContent-Length: 5, 05\r\n",
        "hello",
    ));
    assert_eq!(r.body, b"hello");
}

#[test]
fn a_content_length_must_be_digits_only() {
    for value in [
        "+5",
        "-5",
        "abc",
        "5 5",
        "0x5",
        "5.0",
        "5;",
        "",
        ",",
        "1e3",
        // One past u64::MAX, and 21 digits.
        "18446744073709551616",
        "000000000000000000005",
    ] {
        let e = refused(&post(&format!("Content-Length: {value}\r\n"), "hello"));
        assert_eq!(e, RequestReadError::InvalidContentLength, "{value:?}");
        assert_eq!(e.status(), 400);
    }
    // Whitespace around a field value is not part of it (RFC 9110 §5.5), so ` 5 ` is 5, as
    // curl, h11 and nginx read it.
    assert_eq!(
        one(&post("Content-Length:  5 \t\r\n", "hello")).body,
        b"hello"
    );
    // The largest length is read, then refused by the body limit.
    let e = refused(&post("Content-Length: 18446744073709551615\r\n", ""));
    assert_eq!(e.status(), 413);
}

#[test]
fn transfer_codings_other_than_a_final_chunked_are_refused() {
    for (te, want, status) in [
        (
            "gzip, chunked",
            RequestReadError::UnsupportedTransferCoding,
            501,
        ),
        (
            "gzip\r\nTransfer-Encoding: chunked",
            RequestReadError::UnsupportedTransferCoding,
            501,
        ),
        ("chunked, gzip", RequestReadError::ChunkedNotFinal, 400),
        ("identity", RequestReadError::ChunkedNotFinal, 400),
        ("chunked, chunked", RequestReadError::ChunkedNotFinal, 400),
        (
            "chunked\r\nTransfer-Encoding: chunked",
            RequestReadError::ChunkedNotFinal,
            400,
        ),
        ("", RequestReadError::ChunkedNotFinal, 400),
        ("chunked;q=1", RequestReadError::ChunkedNotFinal, 400),
        ("xchunked", RequestReadError::ChunkedNotFinal, 400),
    ] {
        let e = refused(&post(&format!("Transfer-Encoding: {te}\r\n"), "0\r\n\r\n"));
        assert_eq!((e, e.status()), (want, status), "{te:?}");
    }
    let e = refused(b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
    assert_eq!(e, RequestReadError::TransferEncodingInHttp10);
    assert_eq!(e.status(), 400);
}

#[test]
fn host_rules() {
    assert_eq!(
        refused(b"GET / HTTP/1.1\r\n\r\n"),
        RequestReadError::MissingHost
    );
    assert_eq!(
        refused(b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        RequestReadError::DuplicateHost
    );
    assert_eq!(
        refused(b"GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n"),
        RequestReadError::DuplicateHost
    );
    for bad in ["a b", "h/x", "u@h", "a\\b", "h?x"] {
        let wire = format!("GET / HTTP/1.1\r\nHost: {bad}\r\n\r\n");
        assert_eq!(
            refused(wire.as_bytes()),
            RequestReadError::InvalidHost,
            "{bad}"
        );
    }
    assert_eq!(
        refused(b"GET / HTTP/1.1\r\nHost: caf\xc3\xa9\r\n\r\n").status(),
        400
    );
    // HTTP/1.0 needs no Host; an empty Host is allowed (a target without an authority).
    let r = one(b"GET / HTTP/1.0\r\n\r\n");
    assert!(!r.head.keep_alive());
    one(b"OPTIONS * HTTP/1.1\r\nHost:\r\n\r\n");
    one(b"GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n");
}

#[test]
fn expect_100_continue_is_reported_and_other_expectations_get_417() {
    let r = one(&post("Expect: 100-Continue\r\nContent-Length: 2\r\n", "{}"));
    assert!(r.head.expects_continue());
    assert!(
        !one(&post("Content-Length: 2\r\n", "{}"))
            .head
            .expects_continue()
    );
    let e = refused(&post("Expect: teapot\r\nContent-Length: 2\r\n", "{}"));
    assert_eq!(
        (e, e.status()),
        (RequestReadError::UnsupportedExpectation, 417)
    );
    let e = refused(&post("Expect: 100-continue, x\r\n", ""));
    assert_eq!(e, RequestReadError::UnsupportedExpectation);
    // HTTP/1.0: expectations are ignored (RFC 9110 §10.1.1).
    let r = one(b"POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx");
    assert!(!r.head.expects_continue());
    assert_eq!(r.body, b"x");
}

#[test]
fn bodies_over_the_limit_get_413_before_they_are_buffered() {
    let limits = RequestLimits {
        max_body_bytes: 10,
        ..RequestLimits::default()
    };
    let exactly = post("Content-Length: 10\r\n", "0123456789");
    assert_eq!(drive(limits, &exactly, &[]).0[0].body, b"0123456789");
    // Refused at the head: no body byte needs to arrive.
    let (reqs, end) = drive(limits, &post("Content-Length: 11\r\n", ""), &[]);
    assert!(reqs.is_empty());
    let e = end.unwrap_err();
    assert_eq!(
        (e, e.status()),
        (RequestReadError::BodyTooLarge { limit: 10 }, 413)
    );
    // A chunk that announces more is refused at its size line, before its data arrives.
    let mut r = RequestReader::with_limits(limits);
    let head = post("Transfer-Encoding: chunked\r\n", "");
    assert_eq!(r.feed(&head).unwrap().event, Event::Head);
    assert_eq!(
        r.feed(b"ffffffffffffffff\r\n"),
        Err(RequestReadError::BodyTooLarge { limit: 10 })
    );
    // Chunks that add up to more are refused too, before the excess is handed out.
    let wire = post(
        "Transfer-Encoding: chunked\r\n",
        "6\r\n012345\r\n5\r\n6789a\r\n0\r\n\r\n",
    );
    let (reqs, end) = drive(limits, &wire, &[3]);
    assert!(reqs.is_empty());
    assert_eq!(end, Err(RequestReadError::BodyTooLarge { limit: 10 }));
}

#[test]
fn head_limits_give_431() {
    let limits = RequestLimits {
        max_head_bytes: 64,
        max_headers: 2,
        ..RequestLimits::default()
    };
    let long = format!("GET /{} HTTP/1.1\r\nHost: h\r\n\r\n", "a".repeat(64));
    let (_, end) = drive(limits, long.as_bytes(), &[7]);
    let e = end.unwrap_err();
    assert_eq!(
        (e, e.status()),
        (RequestReadError::HeadTooLarge { limit: 64 }, 431)
    );
    // Without an end in sight, too.
    let (_, end) = drive(limits, "GET / HTTP/1.1\r\nX: ".repeat(9).as_bytes(), &[5]);
    assert_eq!(end, Err(RequestReadError::HeadTooLarge { limit: 64 }));
    let (_, end) = drive(
        limits,
        b"GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n",
        &[],
    );
    let e = end.unwrap_err();
    assert_eq!(
        (e, e.status()),
        (RequestReadError::TooManyHeaders { limit: 2 }, 431)
    );
    // Endless empty lines before a request line count against the head limit.
    let (_, end) = drive(limits, "\r\n".repeat(40).as_bytes(), &[3]);
    assert_eq!(end, Err(RequestReadError::HeadTooLarge { limit: 64 }));
}

#[test]
fn chunk_line_and_trailer_limits() {
    let limits = RequestLimits {
        max_chunk_line: 16,
        max_trailer_bytes: 16,
        ..RequestLimits::default()
    };
    let ext = post(
        "Transfer-Encoding: chunked\r\n",
        &format!("1;{}\r\nx\r\n0\r\n\r\n", "e".repeat(20)),
    );
    assert_eq!(
        drive(limits, &ext, &[4]).1,
        Err(RequestReadError::ChunkLineTooLong { limit: 16 })
    );
    let trailers = post(
        "Transfer-Encoding: chunked\r\n",
        "0\r\nX-Long: aaaaaaaaaaaaaa\r\n\r\n",
    );
    let e = drive(limits, &trailers, &[4]).1.unwrap_err();
    assert_eq!(
        (e, e.status()),
        (RequestReadError::TrailersTooLarge { limit: 16 }, 431)
    );
    for bad in ["x\r\n", "-1\r\n", "\r\n", "1\nx\r\n0\r\n\r\n"] {
        let wire = post("Transfer-Encoding: chunked\r\n", bad);
        assert_eq!(
            read_all(&wire).1,
            Err(RequestReadError::InvalidChunkSize),
            "{bad:?}"
        );
    }
    let wire = post("Transfer-Encoding: chunked\r\n", "1\r\nxy\r\n");
    assert_eq!(
        read_all(&wire).1,
        Err(RequestReadError::MissingChunkTerminator)
    );
}

#[test]
fn malformed_heads_are_refused_with_400() {
    for wire in [
        &b"GET  / HTTP/1.1\r\nHost: h\r\n\r\n"[..],
        b"GET / HTTP/1.1\r\nHost : h\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n",
        b"GET / HTTP/2.0\r\nHost: h\r\n\r\n",
        b"GET /a b HTTP/1.1\r\nHost: h\r\n\r\n",
        b"G\x01T / HTTP/1.1\r\nHost: h\r\n\r\n",
        b"GET / HTTP/1.1\rHost: h\r\n\r\n",
        b"GET / HTTP/1.1\r\nX\x00: 1\r\nHost: h\r\n\r\n",
        b"GET\r\n\r\n",
    ] {
        let e = refused(wire);
        assert!(
            matches!(e, RequestReadError::Malformed(_)),
            "{wire:?}: {e:?}"
        );
        assert_eq!(e.status(), 400);
    }
}

#[test]
fn pipelined_requests_are_read_one_by_one() {
    let wire = b"\r\nPOST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx\r\n\
GET /b HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
    let (reqs, end) = read_all(wire);
    assert_eq!(end, Ok(()));
    let targets: Vec<&str> = reqs.iter().map(|r| r.head.target.as_str()).collect();
    assert_eq!(targets, ["/a", "/b"]);
    assert_eq!(reqs[0].body, b"x");
    assert!(reqs[0].head.keep_alive());
    assert!(!reqs[1].head.keep_alive());
}

/// Nothing after a refused request is read: the reader is spent and says so again.
#[test]
fn errors_are_sticky_so_nothing_is_smuggled() {
    let mut r = RequestReader::new();
    let wire = post(
        "Content-Length: 4\r\nContent-Length: 44\r\n",
        "abcdPOST /smuggled HTTP/1.1\r\nHost: h\r\n\r\n",
    );
    let e = r.feed(&wire).unwrap_err();
    assert_eq!(e, RequestReadError::ConflictingContentLength);
    assert_eq!(r.feed(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"), Err(e));
    assert_eq!(r.finish(), Err(e));
    assert!(r.head().is_none());
}

#[test]
fn truncation_is_told_apart_from_a_clean_close() {
    assert_eq!(read_all(b"").1, Ok(()));
    assert_eq!(read_all(b"\r\n").1, Ok(()));
    assert_eq!(
        read_all(b"GET / HT").1,
        Err(RequestReadError::TruncatedHead)
    );
    assert_eq!(
        read_all(&post("Content-Length: 5\r\n", "hel")).1,
        Err(RequestReadError::TruncatedBody {
            expected: Some(5),
            received: 3
        })
    );
    let e = read_all(&post("Transfer-Encoding: chunked\r\n", "5\r\nhello\r\n"))
        .1
        .unwrap_err();
    assert_eq!(
        e,
        RequestReadError::TruncatedBody {
            expected: None,
            received: 5
        }
    );
    assert!(e.is_truncation());
}

#[test]
fn error_kinds_and_statuses() {
    let all = [
        RequestReadError::Malformed(HeadSyntax::Token),
        RequestReadError::HeadTooLarge { limit: 1 },
        RequestReadError::TooManyHeaders { limit: 1 },
        RequestReadError::MissingHost,
        RequestReadError::DuplicateHost,
        RequestReadError::InvalidHost,
        RequestReadError::InvalidContentLength,
        RequestReadError::ConflictingContentLength,
        RequestReadError::ContentLengthWithTransferEncoding,
        RequestReadError::ChunkedNotFinal,
        RequestReadError::UnsupportedTransferCoding,
        RequestReadError::TransferEncodingInHttp10,
        RequestReadError::BodyTooLarge { limit: 1 },
        RequestReadError::UnsupportedExpectation,
        RequestReadError::InvalidChunkSize,
        RequestReadError::ChunkLineTooLong { limit: 1 },
        RequestReadError::MissingChunkTerminator,
        RequestReadError::MalformedTrailers(HeadSyntax::NewLine),
        RequestReadError::TrailersTooLarge { limit: 1 },
        RequestReadError::TooManyTrailers { limit: 1 },
        RequestReadError::TruncatedHead,
        RequestReadError::TruncatedBody {
            expected: None,
            received: 0,
        },
    ];
    let mut kinds: Vec<&str> = all.iter().map(RequestReadError::kind).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert_eq!(kinds.len(), all.len());
    assert_eq!(all.iter().filter(|e| e.is_truncation()).count(), 2);
    for e in all {
        assert!(!e.to_string().is_empty());
        assert!([400, 413, 417, 431, 501].contains(&e.status()), "{e:?}");
    }
}

/// Encodes `body` as chunks of the given sizes (cycled), with or without extensions and a
/// trailer.
fn encode_chunked(body: &[u8], sizes: &[usize], ext: bool, trailer: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut at, mut i) = (0, 0);
    while at < body.len() {
        let n = sizes[i % sizes.len()].max(1).min(body.len() - at);
        i += 1;
        out.extend_from_slice(format!("{n:x}").as_bytes());
        if ext {
            out.extend_from_slice(b";e=\"v\"");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&body[at..at + n]);
        out.extend_from_slice(b"\r\n");
        at += n;
    }
    out.extend_from_slice(b"0\r\n");
    if trailer {
        out.extend_from_slice(b"X-T: 1\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

fn samples() -> Vec<Vec<u8>> {
    vec![
        post(
            "Content-Length: 5\r\n",
            "helloGET / HTTP/1.1\r\nHost: h\r\n\r\n",
        ),
        post(
            "Transfer-Encoding: chunked\r\n",
            "3;x\r\nabc\r\n0\r\nT: 1\r\n\r\n\r\nPOST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nz",
        ),
        post(
            "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
            "0\r\n\r\n",
        ),
        b"GET / HTTP/1.1\nHost: h\n\nGET /2 HTTP/1.1\nHost: h\n\n".to_vec(),
        post("Content-Length: 9\r\n", "short"),
        post("Transfer-Encoding: chunked\r\n", "5\r\nhelloXX"),
    ]
}

#[test]
fn split_at_every_byte_gives_the_same_result() {
    for wire in samples() {
        let whole = read_all(&wire);
        for size in 1..wire.len() {
            assert_eq!(
                drive(RequestLimits::default(), &wire, &[size]),
                whole,
                "{size}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random chunkings of a random body, read in random pieces, give the same request as
    /// one whole feed of one chunk.
    #[test]
    fn any_chunking_of_a_request_body_yields_the_same_request(
        body in proptest::collection::vec(any::<u8>(), 0..600),
        chunk_sizes in proptest::collection::vec(1usize..80, 1..6),
        read_sizes in proptest::collection::vec(1usize..40, 0..6),
        ext in any::<bool>(),
    ) {
        let chunked = encode_chunked(&body, &chunk_sizes, ext, false);
        let mut wire = post("Transfer-Encoding: chunked\r\n", "");
        wire.extend_from_slice(&chunked);
        let (reqs, end) = drive(RequestLimits::default(), &wire, &read_sizes);
        prop_assert_eq!(end, Ok(()));
        prop_assert_eq!(reqs.len(), 1);
        prop_assert_eq!(&reqs[0].body, &body);
        let mut whole = post("Transfer-Encoding: chunked\r\n", "");
        whole.extend_from_slice(&encode_chunked(&body, &[body.len().max(1)], false, false));
        let (one_chunk, _) = drive(RequestLimits::default(), &whole, &[]);
        prop_assert_eq!(&one_chunk[0].body, &reqs[0].body);
    }

    #[test]
    fn any_split_of_the_samples_matches_feeding_whole(
        which in 0usize..6,
        read_sizes in proptest::collection::vec(1usize..16, 1..5),
    ) {
        let wire = &samples()[which];
        prop_assert_eq!(drive(RequestLimits::default(), wire, &read_sizes), read_all(wire));
    }

    /// Arbitrary bytes after a plausible start never panic, and how they are split never
    /// changes what is read.
    #[test]
    fn arbitrary_bytes_never_panic_and_splitting_does_not_matter(
        start in 0usize..6,
        tail in proptest::collection::vec(prop_oneof![
            Just(b'\r'), Just(b'\n'), Just(b':'), Just(b' '), Just(b'0'), Just(b';'),
            any::<u8>(),
        ], 0..200),
        read_sizes in proptest::collection::vec(1usize..9, 1..4),
    ) {
        let mut wire = samples()[start].clone();
        wire.truncate(wire.len() / 2);
        wire.extend_from_slice(&tail);
        let limits = RequestLimits {
            max_head_bytes: 128,
            max_headers: 4,
            max_chunk_line: 16,
            max_trailer_bytes: 32,
            max_body_bytes: 64,
        };
        prop_assert_eq!(drive(limits, &wire, &read_sizes), drive(limits, &wire, &[]));
    }
}
