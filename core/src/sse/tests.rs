//! Unit tests of the SSE layer, one per rule of WHATWG §9.2.5–9.2.6 and per pitfall of
//! `docs/sse.md` §5 (the issue numbers are named on each test).

use super::encoder::{EncodeError, OutEvent, write_comment, write_keep_alive};
use super::*;

/// Where `inner` starts inside `outer` by address, if it lies wholly inside it: proves a
/// value borrows the fed chunk (the C ABI's zero-copy feed relies on this; it has its own copy
/// of this helper in ffi/src/sse.rs).
fn offset_within(outer: &[u8], inner: &[u8]) -> Option<usize> {
    let start = outer.as_ptr() as usize;
    let at = inner.as_ptr() as usize;
    (at >= start && at + inner.len() <= start + outer.len() && !outer.is_empty())
        .then(|| at - start)
}

/// What a test sees: events as (type, data, id), comments, retries and errors, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Got {
    Ev(String, String, String),
    Comment(String),
    Retry(u64),
    Err(&'static str),
}

fn ev(t: &str, d: &str, id: &str) -> Got {
    Got::Ev(t.into(), d.into(), id.into())
}

fn drain(feed: &mut Feed<'_, '_>, out: &mut Vec<Got>) {
    loop {
        match feed.next_item() {
            Ok(None) => break,
            Ok(Some(Item::Event(e))) => out.push(Got::Ev(
                e.event_type_lossy().into(),
                e.data_lossy().into(),
                e.id_lossy().into(),
            )),
            Ok(Some(Item::Comment(c))) => out.push(Got::Comment(String::from_utf8_lossy(c).into())),
            Ok(Some(Item::Retry(ms))) => out.push(Got::Retry(ms)),
            Err(e) => out.push(Got::Err(e.limit_name())),
        }
    }
}

/// Decodes `input` fed in pieces cut at `cuts`, then finishes.
fn run_cuts(
    config: Config,
    input: &[u8],
    cuts: &[usize],
) -> (Vec<Got>, Option<Discarded>, Option<Got>) {
    let mut dec = Decoder::with_config(config);
    let mut out = Vec::new();
    let mut prev = 0;
    for &c in cuts.iter().chain(std::iter::once(&input.len())) {
        let mut feed = dec.feed(&input[prev..c]);
        drain(&mut feed, &mut out);
        drop(feed);
        prev = c;
    }
    let fin = dec.finish();
    let last = fin
        .event
        .map(|e| ev(&e.event_type_lossy(), &e.data_lossy(), &e.id_lossy()));
    (out, fin.discarded, last)
}

/// Decodes `input` whole, split at every byte into two pieces, and in 1-byte chunks;
/// asserts all agree and returns the items of the whole run.
fn run(input: &[u8]) -> Vec<Got> {
    run_with(Config::new(), input).0
}

/// Decodes with comment text on (returned), and checks every chunking of the default
/// (comment text off) gives the same items with every comment's text empty.
fn run_with(config: Config, input: &[u8]) -> (Vec<Got>, Option<Discarded>, Option<Got>) {
    let whole = run_chunkings(config.with_comment_text(true), input);
    let (mut items, discarded, last) = whole.clone();
    for item in &mut items {
        if let Got::Comment(text) = item {
            text.clear();
        }
    }
    assert_eq!(
        run_chunkings(config.with_comment_text(false), input),
        (items, discarded, last),
        "without comment text: {input:?}"
    );
    whole
}

fn run_chunkings(config: Config, input: &[u8]) -> (Vec<Got>, Option<Discarded>, Option<Got>) {
    let whole = run_cuts(config, input, &[]);
    for i in 0..=input.len() {
        assert_eq!(
            run_cuts(config, input, &[i]),
            whole,
            "split at {i} of {input:?}"
        );
    }
    let ones: Vec<usize> = (1..input.len()).collect();
    assert_eq!(
        run_cuts(config, input, &ones),
        whole,
        "1-byte chunks of {input:?}"
    );
    whole
}

#[test]
fn smoke() {
    assert_eq!(run(b"data: hello\n\n"), [ev("message", "hello", "")]);
}

fn message(d: &str) -> Got {
    ev("message", d, "")
}

// ---- §9.2.5 line terminators ----

#[test]
fn lf_crlf_and_lone_cr_all_end_lines() {
    assert_eq!(run(b"data: a\n\n"), [message("a")]);
    assert_eq!(run(b"data: a\r\n\r\n"), [message("a")]);
    assert_eq!(run(b"data: a\r\r"), [message("a")]);
    // whatwg/html#4411: `data: 1\rdata: 2\r\n` is two fields then CRLF.
    assert_eq!(run(b"data: 1\rdata: 2\r\n\r\n"), [message("1\n2")]);
}

#[test]
fn every_pair_of_terminators_contains_a_blank_line() {
    for blank in [
        &b"\n\n"[..],
        b"\r\r",
        b"\r\n\r\n",
        b"\n\r\n",
        b"\r\n\n",
        b"\r\r\n",
        b"\n\r",
    ] {
        let mut input = b"data: x".to_vec();
        input.extend_from_slice(blank);
        input.extend_from_slice(b"data: y\n\n");
        assert_eq!(run(&input), [message("x"), message("y")], "{blank:?}");
    }
}

#[test]
fn cr_at_chunk_end_swallows_lf_of_next_non_empty_chunk() {
    // docs/sse.md §1.3 and eventsource-parser#17: CRLF split across chunks must not add a blank line.
    let (got, ..) = run_cuts(Config::new(), b"data: a\r\ndata: b\r\n\r\n", &[8, 8, 8, 17]);
    assert_eq!(got, [message("a\nb")]);
    // Empty chunks between the CR and the LF do not consume the swallow.
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    for chunk in [
        &b"data: a\r"[..],
        b"",
        b"",
        b"\ndata: b\r",
        b"\n",
        b"\r",
        b"\n",
    ] {
        drain(&mut dec.feed(chunk), &mut out);
    }
    assert_eq!(out, [message("a\nb")]);
}

#[test]
fn cr_ends_its_line_at_once_so_the_event_is_not_delayed() {
    // A CR-only stream: the event is dispatched on its final CR, not on the next bytes.
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    drain(&mut dec.feed(b"data: a\r\r"), &mut out);
    assert_eq!(out, [message("a")]);
    // The next chunk starting with a non-LF byte is an ordinary line.
    drain(&mut dec.feed(b"data: b\r\r"), &mut out);
    assert_eq!(out, [message("a"), message("b")]);
}

#[test]
fn cr_only_stream_a2a_js_714() {
    // a2aproject/a2a-js#714: CR-only endings silently dropped events.
    assert_eq!(
        run(b"event: status\rdata: {\"a\":1}\r\rdata: 2\r\r"),
        [ev("status", "{\"a\":1}", ""), message("2")]
    );
}

#[test]
fn crlf_stream_byte_by_byte_eliza_27212() {
    // elizaOS/eliza PR #27212: fed byte by byte this gave two events.
    let input = b"data: a\r\ndata: b\r\n\r\n";
    let cuts: Vec<usize> = (1..input.len()).collect();
    assert_eq!(run_cuts(Config::new(), input, &cuts).0, [message("a\nb")]);
}

#[test]
fn crlf_server_stream_hey_api_3054() {
    // hey-api/hey-api#3054: sse-starlette's CRLF default never parsed by `\n\n` splitters.
    assert_eq!(
        run(b"event: ping\r\ndata: 1\r\n\r\n: ping - 2024\r\n\r\ndata: 2\r\n\r\n"),
        [
            ev("ping", "1", ""),
            Got::Comment(" ping - 2024".into()),
            message("2")
        ]
    );
}

// ---- BOM ----

#[test]
fn leading_bom_is_stripped_once() {
    assert_eq!(run(b"\xEF\xBB\xBFdata: a\n\n"), [message("a")]);
    // A second BOM is content: `\u{FEFF}data` is an unknown field name (WPT format-bom-2).
    assert_eq!(
        run(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\ndata: b\n\n"),
        [message("b")]
    );
    // A BOM later in the stream is kept.
    assert_eq!(run(b"data: \xEF\xBB\xBFa\n\n"), [message("\u{feff}a")]);
}

#[test]
fn bom_split_across_chunks_and_after_empty_first_chunk() {
    // eventsource-parser PR #41: an empty first chunk must not consume "at stream start".
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    for chunk in [&b""[..], b"\xEF", b"", b"\xBB", b"\xBFdata: a\n\n"] {
        drain(&mut dec.feed(chunk), &mut out);
    }
    assert_eq!(out, [message("a")]);
}

#[test]
fn partial_bom_then_other_bytes_is_content() {
    // EF 41: not a BOM; the bytes start the first line (an unknown field here).
    assert_eq!(run(b"\xEFdata: a\n\ndata: b\n\n"), [message("b")]);
    // A line that starts with a partial BOM and then ends keeps the bytes.
    assert_eq!(run(b"\xEF\xBB\n:x\n"), [Got::Comment("x".into())]);
}

#[test]
fn bom_does_not_panic_eventsource_stream_pr10() {
    // jpopesculian/eventsource-stream PR #10 panicked slicing into the BOM.
    assert_eq!(
        run(b"\xEF\xBB\xBF:hi\ndata\n\n"),
        [Got::Comment("hi".into()), message("")]
    );
}

#[test]
fn bom_check_restarts_with_each_stream() {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    drain(&mut dec.feed(b"\xEF\xBB\xBFdata: a\n\n"), &mut out);
    dec.finish();
    drain(&mut dec.feed(b"\xEF\xBB\xBFdata: b\n\n"), &mut out);
    dec.reset_for_reconnect();
    drain(&mut dec.feed(b"\xEF\xBB\xBFdata: c\n\n"), &mut out);
    assert_eq!(out, [message("a"), message("b"), message("c")]);
}

// ---- §9.2.6 fields ----

#[test]
fn data_lines_join_with_lf_and_one_trailing_lf_is_removed() {
    assert_eq!(run(b"data: a\ndata: b\ndata: c\n\n"), [message("a\nb\nc")]);
    assert_eq!(run(b"data\ndata\n\n"), [message("\n")]);
    assert_eq!(run(b"data: a\ndata:\n\n"), [message("a\n")]);
}

#[test]
fn empty_data_dispatches_but_no_data_dispatches_nothing() {
    assert_eq!(run(b"data:\n\n"), [message("")]);
    assert_eq!(run(b"data\n\n"), [message("")]);
    assert_eq!(run(b"event: x\n\n"), []);
    assert_eq!(run(b"\n\n\n"), []);
    assert_eq!(
        run(b"retry: 5\nid: 3\n: c\n\n"),
        [Got::Retry(5), Got::Comment(" c".into())]
    );
}

#[test]
fn event_type_defaults_to_message_and_resets_after_each_block() {
    assert_eq!(
        run(b"event: a\ndata: 1\n\nevent:\ndata: 2\n\ndata: 3\n\nevent: x\n\ndata: 4\n\n"),
        [ev("a", "1", ""), message("2"), message("3"), message("4")]
    );
    // The last `event` of a block wins.
    assert_eq!(run(b"event: a\nevent: b\ndata\n\n"), [ev("b", "", "")]);
}

#[test]
fn id_persists_resets_and_ignores_nul() {
    assert_eq!(
        run(b"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\ndata: d\n\nid: x\0y\ndata: e\n\n"),
        [
            ev("message", "a", "1"),
            ev("message", "b", "1"),
            message("c"),
            ev("message", "d", "2"),
            ev("message", "e", "2")
        ]
    );
}

#[test]
fn nul_in_id_keeps_the_previous_id_eventsource_parser_pr34() {
    // rexxars/eventsource-parser PR #34, whatwg/html PR #2849, WPT PR #14095.
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    drain(&mut dec.feed(b"id: 7\n\nid: \0\ndata: a\n\n"), &mut out);
    assert_eq!(out, [ev("message", "a", "7")]);
    assert_eq!(dec.last_event_id(), b"7");
    // NUL elsewhere is legal content.
    assert_eq!(run(b"data: a\0b\n\n"), [message("a\0b")]);
}

#[test]
fn id_only_block_updates_last_event_id() {
    // EventSource/eventsource PR #358, launchdarkly/ruby-eventsource PR #26.
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    drain(&mut dec.feed(b"id: 5\n\n"), &mut out);
    assert!(out.is_empty());
    assert_eq!(dec.last_event_id(), b"5");
    drain(&mut dec.feed(b"data: x\n\n"), &mut out);
    assert_eq!(out, [ev("message", "x", "5")]);
}

#[test]
fn id_is_committed_at_block_end_not_at_the_field() {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    drain(&mut dec.feed(b"id: 1\n\nid: 2\ndata: x\n"), &mut out);
    assert_eq!(dec.last_event_id(), b"1");
    let fin = dec.finish();
    assert_eq!(
        fin.discarded,
        Some(Discarded {
            partial_line: 0,
            event: true,
            id: true
        })
    );
    // WPT format-data-before-final-empty-line: the id of the dropped block is not committed.
    assert_eq!(dec.last_event_id(), b"1");
}

#[test]
fn retry_takes_ascii_digits_only() {
    assert_eq!(run(b"retry: 3000\n"), [Got::Retry(3000)]);
    assert_eq!(run(b"retry:03000\n"), [Got::Retry(3000)]);
    assert_eq!(
        run(b"retry: 18446744073709551615\n"),
        [Got::Retry(u64::MAX)]
    );
    for bad in [
        &b"retry\n"[..],
        b"retry:\n",
        b"retry: \n",
        b"retry: 30 00\n",
        b"retry: 3000ms\n",
        b"retry: +5\n",
        b"retry: -5\n",
        b"retry:  5\n",
        b"retry: 5.0\n",
        b"retry: \xD9\xA3\n",             // ARABIC-INDIC DIGIT THREE
        b"retry: 18446744073709551616\n", // overflow: ignored (documented choice)
        b"retry: 99999999999999999999999\n",
    ] {
        assert_eq!(run(bad), [], "{bad:?}");
    }
    let mut dec = Decoder::new();
    drain(&mut dec.feed(b"retry: 10\nretry: x\n"), &mut Vec::new());
    assert_eq!(dec.retry(), Some(10));
}

#[test]
fn retry_in_a_discarded_block_was_already_applied() {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    drain(&mut dec.feed(b"data: x\nretry: 7\n"), &mut out);
    assert_eq!(out, [Got::Retry(7)]);
    assert!(dec.finish().discarded.is_some());
    assert_eq!(dec.retry(), Some(7));
}

#[test]
fn unknown_and_misspelled_fields_are_ignored() {
    assert_eq!(
        run(b"foo: bar\nData: x\n data: x\ndata : x\ndata\0: x\nDATA: x\ndata: ok\n\n"),
        [message("ok")]
    );
    assert_eq!(run(b"foo: bar\n\n"), []);
}

#[test]
fn field_without_colon_has_empty_value() {
    assert_eq!(run(b"data\n\n"), [message("")]);
    assert_eq!(run(b"id: 1\n\nid\ndata: x\n\n"), [message("x")]);
    assert_eq!(run(b"event\ndata: x\n\n"), [message("x")]);
}

#[test]
fn exactly_one_leading_space_is_removed() {
    assert_eq!(run(b"data:x\n\n"), [message("x")]);
    assert_eq!(run(b"data: x\n\n"), [message("x")]);
    assert_eq!(run(b"data:  x\n\n"), [message(" x")]);
    assert_eq!(run(b"data:\tx\n\n"), [message("\tx")]);
    assert_eq!(run(b"data: x \n\n"), [message("x ")]);
    assert_eq!(run(b"data: a:b: c\n\n"), [message("a:b: c")]);
    assert_eq!(run(b"event:  x\ndata\n\n"), [ev(" x", "", "")]);
    assert_eq!(run(b"id:  1\ndata\n\n"), [ev("message", "", " 1")]);
}

#[test]
fn comments_are_reported_and_never_events() {
    assert_eq!(
        run(b":ping\n: keep-alive\n:\n:data: x\n\n"),
        [
            Got::Comment("ping".into()),
            Got::Comment(" keep-alive".into()),
            Got::Comment("".into()),
            Got::Comment("data: x".into())
        ]
    );
    // A comment inside a block does not end it.
    assert_eq!(
        run(b"data: a\n: c\ndata: b\n\n"),
        [Got::Comment(" c".into()), message("a\nb")]
    );
}

// ---- UTF-8 ----

#[test]
fn utf8_split_across_chunks_is_intact() {
    // api7/aisix#111 and others: per-chunk decoding corrupted CJK text.
    let input = "data: 日本語 — ✓ 😀\n\n".as_bytes();
    assert_eq!(run(input), [message("日本語 — ✓ 😀")]);
}

#[test]
fn invalid_utf8_is_kept_as_bytes_with_checked_and_lossy_accessors() {
    let mut dec = Decoder::new();
    let mut feed = dec.feed(b"event: \xFFx\nid: \xC3\ndata: a\xE2\x82b\n\n");
    let Ok(Some(Item::Event(e))) = feed.next_item() else {
        panic!("one event")
    };
    assert_eq!(e.data, b"a\xE2\x82b");
    assert!(e.data_str().is_err());
    assert_eq!(e.data_lossy(), "a\u{FFFD}b");
    assert_eq!(e.event_type_lossy(), "\u{FFFD}x");
    assert_eq!(e.id_lossy(), "\u{FFFD}");
    assert!(e.id_str().is_err() && e.event_type_str().is_err());
}

// ---- end of stream ----

#[test]
fn finish_discards_and_reports_by_default() {
    let (got, discarded, last) = run_with(Config::new(), b"data: a\n\ndata: b\nid: 3\ndata: c");
    assert_eq!(got, [message("a")]);
    assert_eq!(last, None);
    assert_eq!(
        discarded,
        Some(Discarded {
            partial_line: 7,
            event: true,
            id: true
        })
    );
    let (_, discarded, _) = run_with(Config::new(), b"data: a\n\n");
    assert_eq!(discarded, None);
    let (_, discarded, _) = run_with(Config::new(), b"data: a\n\n: trailing comment\n");
    assert_eq!(discarded, None);
    let (_, discarded, _) = run_with(Config::new(), b"data: a\n\nevent: x\n");
    assert_eq!(discarded, None, "a type alone loses nothing observable");
    let (_, discarded, _) = run_with(Config::new(), b"id: 9");
    assert_eq!(
        discarded,
        Some(Discarded {
            partial_line: 5,
            event: false,
            id: true
        })
    );
    let (_, discarded, _) = run_with(Config::new(), b"id: 9\0");
    assert_eq!(
        discarded,
        Some(Discarded {
            partial_line: 6,
            event: false,
            id: false
        })
    );
    let (_, discarded, _) = run_with(Config::new(), b"\xEF\xBB");
    assert_eq!(
        discarded,
        Some(Discarded {
            partial_line: 2,
            event: false,
            id: false
        })
    );
}

#[test]
fn finish_can_dispatch_the_unterminated_block() {
    let dispatch = Config::new().with_at_eof(AtEof::Dispatch);
    let (got, discarded, last) =
        run_with(dispatch, b"data: a\n\nid: 4\nevent: t\ndata: b\ndata: c");
    assert_eq!(got, [message("a")]);
    assert_eq!(discarded, None);
    assert_eq!(last, Some(ev("t", "b\nc", "4")));
    let (_, _, last) = run_with(dispatch, b"data: a\n");
    assert_eq!(last, Some(message("a")));
    let (_, _, last) = run_with(dispatch, b"event: a\n");
    assert_eq!(last, None);
    // The id of the unterminated block is committed by the dispatch.
    let mut dec = Decoder::with_config(dispatch);
    drain(&mut dec.feed(b"id: 8"), &mut Vec::new());
    assert_eq!(dec.finish().event, None);
    assert_eq!(dec.last_event_id(), b"8");
}

#[test]
fn finish_dispatch_reports_a_limit_hit_by_the_last_line() {
    let config = Config::new().with_at_eof(AtEof::Dispatch).with_max_event(3);
    let mut dec = Decoder::with_config(config);
    drain(&mut dec.feed(b"data: ab\ndata: cd"), &mut Vec::new());
    let fin = dec.finish();
    assert_eq!(fin.event, None);
    assert_eq!(fin.error, Some(LimitError::EventTooLarge { limit: 3 }));
}

#[test]
fn finish_starts_a_new_stream_and_keeps_the_last_id() {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    drain(&mut dec.feed(b"id: 1\ndata: a\n\ndata: partial"), &mut out);
    assert!(dec.finish().discarded.is_some());
    drain(&mut dec.feed(b"data: b\n\n"), &mut out);
    assert_eq!(out, [ev("message", "a", "1"), ev("message", "b", "1")]);
}

#[test]
fn reset_for_reconnect_keeps_last_event_id_and_retry_only() {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    drain(
        &mut dec.feed(b"retry: 9\nid: 1\ndata: a\n\nid: 2\nevent: t\ndata: half"),
        &mut out,
    );
    dec.reset_for_reconnect();
    assert_eq!(dec.last_event_id(), b"1");
    assert_eq!(dec.retry(), Some(9));
    drain(&mut dec.feed(b"\ndata: b\n\n"), &mut out);
    assert_eq!(
        out,
        [
            Got::Retry(9),
            ev("message", "a", "1"),
            ev("message", "b", "1")
        ]
    );
    assert!(dec.set_last_event_id(b"42"));
    assert!(!dec.set_last_event_id(b"4\x002"));
    assert!(!dec.set_last_event_id(b"4\n2"));
    assert_eq!(dec.last_event_id(), b"42");
}

// ---- limits ----

#[test]
fn line_over_the_limit_discards_that_event_and_goes_on() {
    let config = Config::new().with_max_line(10);
    let (got, discarded, _) = run_with(
        config,
        b"data: 1\n\ndata: ok\ndata: 0123456789\ndata: more\nid: 5\n\ndata: 2\n\n",
    );
    assert_eq!(got, [message("1"), Got::Err("max_line"), message("2")]);
    assert_eq!(discarded, None);
    // A line of exactly the limit is fine.
    let (got, ..) = run_with(config, b"data: 1234\n\n");
    assert_eq!(got, [message("1234")]);
    // Comments and unknown fields count too.
    let (got, ..) = run_with(config, b":01234567890\n\ndata: 2\n\n");
    assert_eq!(got, [Got::Err("max_line"), message("2")]);
}

#[test]
fn event_over_the_limit_discards_that_event_and_goes_on() {
    let config = Config::new().with_max_event(5);
    let (got, ..) = run_with(
        config,
        b"data: 12345\n\ndata: 12\ndata: 34\n\ndata: 12\ndata: 345\n\ndata: x\n\n",
    );
    // `12\n34` is 5 bytes (fits); `12\n345` is 6.
    assert_eq!(
        got,
        [
            message("12345"),
            message("12\n34"),
            Got::Err("max_event"),
            message("x")
        ]
    );
    let (got, ..) = run_with(config, b"data: 123456\n\ndata: 1\n\n");
    assert_eq!(got, [Got::Err("max_event"), message("1")]);
}

#[test]
fn limit_error_names_the_limit() {
    let e = LimitError::LineTooLong { limit: 7 };
    assert_eq!(e.limit_name(), "max_line");
    assert_eq!(e.limit(), 7);
    assert!(e.to_string().contains("max_line (7 bytes)"));
    let e = LimitError::EventTooLarge { limit: 9 };
    assert!(e.to_string().contains("max_event (9 bytes)"));
}

#[test]
fn newline_free_garbage_is_one_error_and_memory_stays_bounded() {
    // Unbounded buffers: a2a-js PR #582, KarpelesLab/teamclaude#341, ag-ui PR #2501.
    let mut dec = Decoder::with_config(Config::new().with_max_line(64 * 1024));
    let mut out = Vec::new();
    let garbage = [b'x'; 4096];
    for _ in 0..1024 {
        drain(&mut dec.feed(&garbage), &mut out);
    }
    drain(&mut dec.feed(b"\n\ndata: after\n\n"), &mut out);
    assert_eq!(out, [Got::Err("max_line"), message("after")]);
    assert!(dec.line.capacity() <= 64 * 1024);
}

// ---- zero-copy and linear scanning ----

#[test]
fn single_line_fields_borrow_the_chunk() {
    let chunk = b"event: t\nid: 1\ndata: payload\n\ndata: a\ndata: b\n\n".to_vec();
    let mut dec = Decoder::new();
    let mut feed = dec.feed(&chunk);
    let Ok(Some(Item::Event(e))) = feed.next_item() else {
        panic!("event")
    };
    assert_eq!(offset_within(&chunk, e.data), Some(21));
    assert_eq!(offset_within(&chunk, e.event_type), Some(7));
    assert_eq!(e.data, b"payload");
    // Multi-line data is joined in the decoder's buffer.
    let Ok(Some(Item::Event(e))) = feed.next_item() else {
        panic!("event")
    };
    assert_eq!(e.data, b"a\nb");
    assert_eq!(offset_within(&chunk, e.data), None);
}

#[test]
fn comments_borrow_the_chunk_too() {
    let chunk = b": keep-alive\n".to_vec();
    let mut dec = Decoder::with_config(Config::new().with_comment_text(true));
    let mut feed = dec.feed(&chunk);
    let Ok(Some(Item::Comment(c))) = feed.next_item() else {
        panic!("comment")
    };
    assert_eq!(offset_within(&chunk, c), Some(1));
}

#[test]
fn comment_text_is_off_by_default_and_a_spanning_comment_is_not_held() {
    // A2A comments are keep-alives: reported, but without text, and never buffered.
    assert!(!Config::new().comment_text);
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    drain(&mut dec.feed(b": keep"), &mut out);
    assert!(dec.line.len() <= 1, "held {:?}", dec.line);
    drain(&mut dec.feed(b"-alive, a long one"), &mut out);
    assert!(dec.line.len() <= 1, "held {:?}", dec.line);
    drain(&mut dec.feed(b"\n\n:x\ndata: y\n\n"), &mut out);
    assert_eq!(
        out,
        [
            Got::Comment("".into()),
            Got::Comment("".into()),
            message("y")
        ]
    );
    assert!(dec.finish().discarded.is_none());
}

#[test]
fn a_comment_without_text_still_counts_for_max_line() {
    // The same limit error at the same point as with text, for any chunking (`run_with`).
    let config = Config::new().with_max_line(8);
    let (got, ..) = run_with(config, b": 123456789\ndata: a\n\n:1234567\ndata: b\n\n");
    assert_eq!(
        got,
        [
            Got::Err("max_line"),
            Got::Comment("1234567".into()),
            message("b")
        ]
    );
    // Unterminated at the end: the partial comment is reported as discarded bytes.
    let (_, discarded, _) = run_with(Config::new(), b"data: a\n\n: tail");
    assert_eq!(
        discarded.map(|d| (d.partial_line, d.event, d.id)),
        Some((6, false, false))
    );
}

#[test]
fn a_line_spanning_chunks_is_copied_and_survives_the_chunk() {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    {
        let first = b"event: big\ndata: hel".to_vec();
        drain(&mut dec.feed(&first), &mut out);
        drop(first); // the decoder holds no borrow of a finished chunk
    }
    let second = b"lo\n\n".to_vec();
    let mut feed = dec.feed(&second);
    let Ok(Some(Item::Event(e))) = feed.next_item() else {
        panic!("event")
    };
    assert_eq!((e.event_type, e.data), (&b"big"[..], &b"hello"[..]));
    assert_eq!(offset_within(&second, e.data), None);
}

#[test]
fn long_line_dripped_in_4_byte_chunks_is_scanned_once() {
    // eventsource-stream#11, deno PR #35881, eventsource-parser#19: quadratic rescans.
    let mut input = b"data: ".to_vec();
    input.extend(std::iter::repeat_n(b'a', 256 * 1024));
    input.extend_from_slice(b"\n\n");
    let mut dec = Decoder::new();
    let mut events = 0;
    for chunk in input.chunks(4) {
        let mut feed = dec.feed(chunk);
        while let Some(item) = feed.next_item().expect("within limits") {
            if let Item::Event(e) = item {
                assert_eq!(e.data.len(), 256 * 1024);
                events += 1;
            }
        }
    }
    assert_eq!(events, 1);
    assert!(
        dec.scanned <= input.len(),
        "scanned {} of {}",
        dec.scanned,
        input.len()
    );
    assert!(dec.scanned >= input.len() - 1);
}

#[test]
fn a_burst_of_events_in_one_chunk_is_scanned_once() {
    // seanmonstar/reqwest#2638: buffering proxies deliver many events at once.
    let input = b"data: {\"t\":\"a\"}\n\n".repeat(1000);
    let mut dec = Decoder::new();
    let mut feed = dec.feed(&input);
    let mut n = 0;
    while let Some(item) = feed.next_item().expect("within limits") {
        assert!(matches!(item, Item::Event(e) if e.data == b"{\"t\":\"a\"}"));
        n += 1;
    }
    drop(feed);
    assert_eq!(n, 1000);
    assert!(dec.scanned <= input.len());
}

#[test]
fn stopping_early_and_refeeding_the_rest_loses_nothing() {
    let input = b"event: a\ndata: 1\n\nid: 2\ndata: x\ndata: y\n\ndata: 3\n\n".to_vec();
    let expected = run(&input);
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    let mut rest: &[u8] = &input;
    while !rest.is_empty() {
        let mut feed = dec.feed(rest);
        match feed.next_item() {
            Ok(Some(Item::Event(e))) => {
                out.push(ev(&e.event_type_lossy(), &e.data_lossy(), &e.id_lossy()))
            }
            Ok(Some(_)) | Err(_) => {}
            Ok(None) => {}
        }
        let used = feed.consumed();
        drop(feed); // stop after one item
        rest = &rest[used..];
    }
    assert_eq!(out, expected);
}

// ---- encoder ----

fn decode_all(bytes: &[u8]) -> Vec<Got> {
    let mut dec = Decoder::with_config(Config::new().with_comment_text(true));
    let mut out = Vec::new();
    drain(&mut dec.feed(bytes), &mut out);
    out
}

#[test]
fn encoder_writes_every_field_and_splits_data_lines() {
    let mut out = Vec::new();
    OutEvent::new(b"a\r\nb\rc\nd")
        .event_type(b"t")
        .id(b"7")
        .retry(1500)
        .write_to(&mut out)
        .expect("valid");
    assert_eq!(
        out,
        b"retry:1500\nid: 7\nevent: t\ndata: a\ndata: b\ndata: c\ndata: d\n\n"
    );
    assert_eq!(
        decode_all(&out),
        [Got::Retry(1500), ev("t", "a\nb\nc\nd", "7")]
    );
    out.clear();
    OutEvent::new(b"").write_to(&mut out).expect("valid");
    assert_eq!(out, b"data:\n\n");
    out.clear();
    OutEvent::new(b" lead\n")
        .id(b"")
        .write_to(&mut out)
        .expect("valid");
    assert_eq!(out, b"id:\ndata:  lead\ndata:\n\n");
    assert_eq!(decode_all(&out), [message(" lead\n")]);
}

#[test]
fn encoder_refuses_values_it_cannot_write() {
    let mut out = Vec::new();
    assert_eq!(
        OutEvent::new(b"x").event_type(b"a\nb").write_to(&mut out),
        Err(EncodeError::EventTypeLineBreak)
    );
    assert_eq!(
        OutEvent::new(b"x").id(b"a\rb").write_to(&mut out),
        Err(EncodeError::IdLineBreak)
    );
    assert_eq!(
        OutEvent::new(b"x").id(b"a\0b").write_to(&mut out),
        Err(EncodeError::IdNul)
    );
    assert!(out.is_empty());
}

#[test]
fn encoder_comments_and_keep_alives() {
    let mut out = Vec::new();
    write_comment(&mut out, b"two\r\nlines");
    write_keep_alive(&mut out);
    write_comment(&mut out, b"");
    assert_eq!(out, b": two\n: lines\n: keep-alive\n\n:\n");
    assert_eq!(
        decode_all(&out),
        [
            Got::Comment(" two".into()),
            Got::Comment(" lines".into()),
            Got::Comment(" keep-alive".into()),
            Got::Comment("".into())
        ]
    );
}

#[test]
fn a_comment_and_the_line_ends_after_it_decode_alike_in_every_chunking() {
    // The keep-alive path reads the comment's terminator and the blank line after it from
    // one word of the first 16 bytes: every terminator position in that word, every pair of
    // line ends (and what follows them), in an idle block and in one holding data or an id,
    // must give what the byte-by-byte and split runs give.
    for text_len in 0..20 {
        for ends in [
            &b"\n\n"[..],
            b"\r\r",
            b"\r\n\r\n",
            b"\r\r\n",
            b"\n\r\n",
            b"\r\n\n",
            b"\n\r",
            b"\r\n\r",
            b"\r\nx\n",
            b"\nx\n",
        ] {
            for prefix in [&b""[..], b"data: a\n", b"id: 1\n", b"event: t\n"] {
                for tail in [&b""[..], b"data: x\n\n", b"\ndata: y\n\n", b": z\n"] {
                    let mut input = prefix.to_vec();
                    input.push(b':');
                    input.extend(std::iter::repeat_n(b'k', text_len));
                    input.extend_from_slice(ends);
                    input.extend_from_slice(tail);
                    let items = run(&input);
                    assert!(
                        items.contains(&Got::Comment("k".repeat(text_len))),
                        "{input:?}: {items:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_keep_alive_that_differs_in_one_byte_from_the_last_is_not_taken_for_it() {
    // The decoder decides a keep-alive that repeats the last one's bytes without a search:
    // a line start that differs in any byte the search decided on (the comment, its line
    // ends, the byte after a CR pair) must decode as it would without that shortcut. `run`
    // compares the whole input (shortcut taken) with 1-byte chunks (never taken).
    for base in [
        &b": keepalive\n\n"[..],
        b":ping1234\r\r",
        b": keepalive\r\n\r\n",
        b":1234567\n\n",
        b":12345678901234\r\r",
    ] {
        for at in 0..base.len() + 2 {
            for b in [b'\n', b'\r', b':', b'x', b' '] {
                let mut second = base.to_vec();
                second.extend_from_slice(b"data: z\n\n");
                if second[at] == b {
                    continue;
                }
                second[at] = b;
                let mut input = base.repeat(2);
                input.extend_from_slice(&second);
                input.extend_from_slice(base);
                input.extend_from_slice(b"data: end\n\n");
                let items = run(&input);
                assert!(
                    items.ends_with(&[ev("message", "end", "")]),
                    "{input:?}: {items:?}"
                );
            }
        }
    }
}

#[test]
fn find_eol_agrees_with_a_plain_search() {
    // The word-at-a-time searches must find the first CR or LF at every offset and length.
    for len in 0..80 {
        for at in 0..=len {
            for (t, other) in [
                (b'\n', None),
                (b'\r', None),
                (b'\n', Some(b'\r')),
                (b'\r', Some(b'\n')),
            ] {
                let mut hay = vec![b'a'; len];
                // Bytes that are near CR/LF in value must not match.
                for (i, b) in hay.iter_mut().enumerate() {
                    *b = [b'a', 0x0B, 0x0C, 0x09, 0x8A, 0x8D, 0x00, 0xFF][i % 8];
                }
                if at < len {
                    hay[at] = t;
                    if let Some(o) = other
                        && at + 1 < len
                    {
                        hay[at + 1] = o;
                    }
                }
                let plain = hay.iter().position(|&b| b == b'\n' || b == b'\r');
                assert_eq!(super::line::find_eol(&hay), plain, "len {len} at {at}");
                // The comment path's inline two-word search gives the same answer.
                assert_eq!(
                    super::line::find_eol_comment(&hay).0,
                    plain,
                    "short: len {len} at {at}"
                );
                // So does the inline search of a piece of at most 8 bytes.
                if len <= 8 {
                    assert_eq!(
                        super::line::find_eol_tiny(&hay),
                        plain,
                        "tiny: len {len} at {at}"
                    );
                }
            }
        }
    }
}

#[test]
fn tiny_search_agrees_with_a_byte_scan_on_every_short_input() {
    // Every 1- and 2-byte input, and 3-byte inputs over bytes near CR and LF: the loop-free
    // test of at most 3 bytes (a zero-padded word) finds exactly the first CR or LF.
    let plain = |h: &[u8]| h.iter().position(|&b| b == b'\n' || b == b'\r');
    for a in 0..=255u8 {
        assert_eq!(super::line::find_eol_tiny(&[a]), plain(&[a]));
        assert_eq!(super::line::find_eol_comment(&[a]).0, plain(&[a]));
        for b in 0..=255u8 {
            let h = [a, b];
            assert_eq!(super::line::find_eol_tiny(&h), plain(&h), "{h:?}");
            assert_eq!(super::line::find_eol_comment(&h).0, plain(&h), "{h:?}");
        }
    }
    let near = [
        0x00, 0x09, b'\n', 0x0B, 0x0C, b'\r', 0x0E, b':', 0x8A, 0x8D, 0xFF,
    ];
    for &a in &near {
        for &b in &near {
            for &c in &near {
                let h = [a, b, c];
                assert_eq!(super::line::find_eol_tiny(&h), plain(&h), "{h:?}");
                assert_eq!(super::line::find_eol_comment(&h).0, plain(&h), "{h:?}");
            }
        }
    }
}

#[test]
fn a_leaked_feed_loses_its_borrowed_values_but_never_panics() {
    let mut dec = Decoder::new();
    let chunk = b"id: 12345\nevent: long-type-name\ndata: borrowed\n".to_vec();
    let mut feed = dec.feed(&chunk);
    assert_eq!(feed.next_item(), Ok(None));
    std::mem::forget(feed);
    let mut out = Vec::new();
    drain(&mut dec.feed(b"data: x\n\n"), &mut out);
    assert_eq!(out, [message("x")]);
    assert!(dec.finish().discarded.is_none());
}

#[test]
fn field_names_are_matched_whole_whatever_their_length() {
    // The colon is searched for in the first 6 bytes only: every longer name is another
    // field, and a name without a colon is the whole line.
    let input = b"datax: no\ndataxy: no\nretryy: 5\neventful: no\nids: no\nidentifier: no\n\
event\ndata\n\nretry\nid\ndata: y\n\nevent: t\nid: 9\ndata:z\n\nverylongfieldname\ndata: w\n\n";
    assert_eq!(
        run(input),
        [
            message(""),
            message("y"),
            ev("t", "z", "9"),
            ev("message", "w", "9"),
        ]
    );
}

#[test]
fn utf8_accessors_match_the_standard_library() {
    // simdutf8 validates; the standard library supplies the error position and the lossy text.
    let long_ok = "añb€c𝄞d".repeat(40);
    let mut long_bad = long_ok.clone().into_bytes();
    long_bad[150] = 0xFF;
    for data in [
        b"".as_slice(),
        b"plain",
        "caf\u{e9}".as_bytes(),
        b"bad \xC3 byte",
        long_ok.as_bytes(),
        &long_bad,
        &b"\xE2\x82"[..],
    ] {
        let e = Event {
            event_type: data,
            data,
            id: data,
        };
        assert_eq!(e.data_str(), std::str::from_utf8(data));
        assert_eq!(e.event_type_str(), std::str::from_utf8(data));
        assert_eq!(e.id_str(), std::str::from_utf8(data));
        assert_eq!(e.data_lossy(), String::from_utf8_lossy(data));
        assert_eq!(e.event_type_lossy(), String::from_utf8_lossy(data));
        assert_eq!(e.id_lossy(), String::from_utf8_lossy(data));
    }
}

// ---- long lines held across chunks (the long-piece path of `Decoder::advance`) ----

/// Cuts every `size` bytes.
fn every(size: usize, len: usize) -> Vec<usize> {
    (size..len).step_by(size).collect()
}

#[test]
fn long_lines_in_chunks_of_every_size_decode_as_whole() {
    // A line longer than `SHORT` (64) held across chunks whose pieces are longer than 64
    // bytes takes the long-piece path: searched by `find_eol_long` and appended at once.
    // Every chunk size from 1 to past the line, and a cut at every byte, must give what the
    // whole input gives (where no line is held): values with multi-byte UTF-8 cut anywhere,
    // each line end (a CR ending a chunk with its LF in the next), comment text, limits hit
    // in the middle of a held line, and an event after every error.
    let value = "é😀abc,".repeat(30); // 300 bytes, code points of 1, 2 and 4 bytes
    let line_len = "data: ".len() + value.len();
    for term in ["\n", "\r", "\r\n"] {
        let input = format!(
            "id: 1{term}data: {value}{term}data: {value}{term}{term}\
             : {value}{term}event: {value}{term}data: x{term}{term}\
             id: {value}{term}data: {value}{term}{term}data: end{term}{term}"
        );
        let input = input.as_bytes();
        for (max_line, max_event) in [
            (usize::MAX, usize::MAX),
            (line_len, usize::MAX),
            (line_len - 1, usize::MAX),
            (100, usize::MAX),
            (usize::MAX, value.len()),
        ] {
            for text in [false, true] {
                let config = Config::new()
                    .with_max_line(max_line)
                    .with_max_event(max_event)
                    .with_comment_text(text);
                let whole = run_cuts(config, input, &[]);
                let joined = format!("{value}\n{value}");
                let want_first = if max_line < line_len {
                    Got::Err("max_line")
                } else if max_event < joined.len() {
                    Got::Err("max_event")
                } else {
                    ev("message", &joined, "1")
                };
                assert_eq!(whole.0[0], want_first, "{term:?} {max_line} {max_event}");
                let last_id = if max_line < "id: ".len() + value.len() {
                    "1" // the long id line went over the limit: its block was dropped
                } else {
                    &value
                };
                assert_eq!(whole.0.last(), Some(&ev("message", "end", last_id)));
                for size in 1..=2 * line_len + 10 {
                    assert_eq!(
                        run_cuts(config, input, &every(size, input.len())),
                        whole,
                        "chunks of {size}, {term:?}, max_line {max_line}, max_event {max_event}"
                    );
                }
                for i in 0..=input.len() {
                    assert_eq!(run_cuts(config, input, &[i]), whole, "split at {i}");
                }
            }
        }
    }
}

#[test]
fn a_long_line_is_scanned_once_and_never_held_past_max_line() {
    // The long-piece path keeps the linear-scan proof and the memory bound, also in a line
    // buffer that grew past `max_line` as the data buffer of an earlier event (the two are
    // swapped when a held line becomes an event's data).
    let max_line = 4000;
    let value = "x".repeat(3000);
    let mut input = format!("data: {value}\ndata: {value}\n\n")
        .repeat(3)
        .into_bytes();
    input.extend_from_slice(b"data: ");
    input.extend(std::iter::repeat_n(b'y', 6000));
    input.extend_from_slice(b"\n\ndata: after\n\n");
    let mut dec = Decoder::with_config(Config::new().with_max_line(max_line));
    let mut out = Vec::new();
    let mut grew_past = false;
    for chunk in input.chunks(100) {
        drain(&mut dec.feed(chunk), &mut out);
        grew_past |= dec.line.capacity() > max_line;
        assert!(dec.line.len() <= max_line, "held {}", dec.line.len());
    }
    assert!(
        grew_past,
        "the test must reach a line buffer larger than max_line"
    );
    let joined = message(&format!("{value}\n{value}"));
    assert_eq!(
        out,
        [
            joined.clone(),
            joined.clone(),
            joined,
            Got::Err("max_line"),
            message("after")
        ]
    );
    assert!(
        dec.scanned <= input.len(),
        "scanned {} of {}",
        dec.scanned,
        input.len()
    );
}
