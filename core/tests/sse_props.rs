//! Property tests of the SSE decoder and encoder against an independent oracle.
//!
//! The oracle below is a deliberately naive, line-by-line transcription of WHATWG HTML
//! §9.2.5–9.2.6 working on the whole input at once. It shares no code with the decoder: it
//! splits lines byte by byte, keeps the data buffer exactly as the spec words it (each value
//! followed by LF, one LF removed at dispatch), and applies this crate's documented limit
//! rules on whole lines.

use a2a_core::sse::encoder::OutEvent;
use a2a_core::sse::{AtEof, Config, Decoder, Item};
use proptest::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Got {
    Ev(Vec<u8>, Vec<u8>, Vec<u8>),
    Comment(Vec<u8>),
    Retry(u64),
    Err(&'static str),
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct End {
    event: Option<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    discarded: Option<(usize, bool, bool)>,
    error: Option<&'static str>,
    last_id: Vec<u8>,
}

// ---------------------------------------------------------------------------------------
// The oracle.

fn oracle(
    input: &[u8],
    max_line: usize,
    max_event: usize,
    dispatch_at_eof: bool,
) -> (Vec<Got>, End) {
    let mut s = input;
    if s.starts_with(b"\xEF\xBB\xBF") {
        s = &s[3..];
    }
    // Split into lines: CRLF, LF or CR end a line.
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\n' {
            lines.push(&s[start..i]);
            i += 1;
            start = i;
        } else if s[i] == b'\r' {
            lines.push(&s[start..i]);
            i += 1;
            if i < s.len() && s[i] == b'\n' {
                i += 1;
            }
            start = i;
        } else {
            i += 1;
        }
    }
    let partial: &[u8] = &s[start..];
    // (A partial BOM that never completed is part of this unterminated first line.)
    let partial_len = partial.len();

    let mut st = State::default();
    let mut out = Vec::new();
    for line in lines {
        st.line(line, max_line, max_event, &mut out);
    }
    let mut end = End::default();
    // A stream that ends inside what may still be a leading BOM (a proper prefix of it, and
    // nothing else): the decoder cannot tell those bytes are content before the end, so no
    // line-limit error item is due; the end report covers them (discarded or dispatched).
    let bom_prefix_only = start == 0
        && s.len() == input.len()
        && !partial.is_empty()
        && b"\xEF\xBB\xBF".starts_with(partial);
    if !partial.is_empty() && !st.skipping && !bom_prefix_only && partial.len() > max_line {
        out.push(Got::Err("max_line"));
        st.skipping = true;
    }
    if dispatch_at_eof {
        if !st.skipping {
            if !partial.is_empty() {
                let mut ignored = Vec::new();
                st.line(partial, max_line, max_event, &mut ignored);
                if let Some(Got::Err(e)) = ignored.last() {
                    end.error = Some(e);
                }
            }
            if end.error.is_none() {
                st.id_string = st.id_buffer.clone();
                if !st.data.is_empty() {
                    let mut d = st.data.clone();
                    d.pop();
                    let t = if st.event_type.is_empty() {
                        b"message".to_vec()
                    } else {
                        st.event_type.clone()
                    };
                    end.event = Some((t, d, st.id_string.clone()));
                }
            }
        }
    } else {
        let (mut ev, mut id) = (false, false);
        if !st.skipping {
            ev = !st.data.is_empty();
            id = st.id_set;
            if !partial.is_empty() && partial[0] != b':' {
                let (name, value) = name_value(partial);
                if name == b"data" {
                    ev = true;
                }
                if name == b"id" && !value.contains(&0) {
                    id = true;
                }
            }
        }
        if partial_len > 0 || ev || id {
            end.discarded = Some((partial_len, ev, id));
        }
    }
    end.last_id = st.id_string.clone();
    (out, end)
}

#[derive(Default)]
struct State {
    data: Vec<u8>,
    event_type: Vec<u8>,
    id_buffer: Vec<u8>,
    id_string: Vec<u8>,
    id_set: bool,
    skipping: bool,
}

fn name_value(line: &[u8]) -> (&[u8], &[u8]) {
    match line.iter().position(|&b| b == b':') {
        Some(c) => {
            let mut v = &line[c + 1..];
            if v.first() == Some(&b' ') {
                v = &v[1..];
            }
            (&line[..c], v)
        }
        None => (line, &[]),
    }
}

impl State {
    fn line(&mut self, line: &[u8], max_line: usize, max_event: usize, out: &mut Vec<Got>) {
        if self.skipping {
            if line.is_empty() {
                self.skipping = false;
                self.dispatch(out);
            }
            return;
        }
        if line.len() > max_line {
            out.push(Got::Err("max_line"));
            self.error();
            return;
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            out.push(Got::Comment(line[1..].to_vec()));
            return;
        }
        let (name, value) = name_value(line);
        match name {
            b"event" => self.event_type = value.to_vec(),
            b"data" => {
                if self.data.len() + value.len() > max_event {
                    out.push(Got::Err("max_event"));
                    self.error();
                    return;
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"id" if !value.contains(&0) => {
                self.id_buffer = value.to_vec();
                self.id_set = true;
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Base 10; values that do not fit a u64 are ignored (this crate's documented rule).
                if let Ok(n) = std::str::from_utf8(value).expect("digits").parse::<u64>() {
                    out.push(Got::Retry(n));
                }
            }
            _ => {}
        }
    }

    fn error(&mut self) {
        self.skipping = true;
        self.data.clear();
        self.event_type.clear();
    }

    fn dispatch(&mut self, out: &mut Vec<Got>) {
        self.id_string = self.id_buffer.clone();
        self.id_set = false;
        if self.data.is_empty() {
            self.event_type.clear();
            return;
        }
        let mut d = std::mem::take(&mut self.data);
        d.pop();
        let t = if self.event_type.is_empty() {
            b"message".to_vec()
        } else {
            std::mem::take(&mut self.event_type)
        };
        out.push(Got::Ev(t, d, self.id_string.clone()));
    }
}

// ---------------------------------------------------------------------------------------
// The decoder under test.

fn decode(input: &[u8], cuts: &[usize], config: Config) -> (Vec<Got>, End) {
    let mut dec = Decoder::with_config(config);
    let mut out = Vec::new();
    let mut prev = 0;
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(input.len())).collect();
    cuts.sort_unstable();
    for c in cuts.into_iter().chain(std::iter::once(input.len())) {
        let mut feed = dec.feed(&input[prev..c]);
        loop {
            match feed.next_item() {
                Ok(None) => break,
                Ok(Some(Item::Event(e))) => out.push(Got::Ev(
                    e.event_type.to_vec(),
                    e.data.to_vec(),
                    e.id.to_vec(),
                )),
                Ok(Some(Item::Comment(c))) => out.push(Got::Comment(c.to_vec())),
                Ok(Some(Item::Retry(ms))) => out.push(Got::Retry(ms)),
                Err(e) => out.push(Got::Err(e.limit_name())),
            }
        }
        prev = c;
    }
    let fin = dec.finish();
    let mut end = End {
        event: fin
            .event
            .map(|e| (e.event_type.to_vec(), e.data.to_vec(), e.id.to_vec())),
        discarded: fin.discarded.map(|d| (d.partial_line, d.event, d.id)),
        error: fin.error.map(|e| e.limit_name()),
        last_id: Vec::new(),
    };
    end.last_id = dec.last_event_id().to_vec();
    (out, end)
}

// ---------------------------------------------------------------------------------------
// Generators.

/// Bytes for values: ASCII, colon and space, NUL, valid and truncated multi-byte UTF-8,
/// invalid bytes, BOM bytes.
fn value() -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        4 => Just(b"a".to_vec()),
        2 => Just(b" ".to_vec()),
        2 => Just(b":".to_vec()),
        1 => Just(b"\0".to_vec()),
        1 => Just("é".as_bytes().to_vec()),
        1 => Just("😀".as_bytes().to_vec()),
        1 => Just(b"\xE2\x82".to_vec()),
        1 => Just(b"\xFF".to_vec()),
        1 => Just(b"\xEF\xBB\xBF".to_vec()),
        1 => Just(b"0123".to_vec()),
    ];
    prop::collection::vec(atom, 0..6).prop_map(|v| v.concat())
}

fn terminator() -> impl Strategy<Value = &'static [u8]> {
    prop_oneof![Just(&b"\n"[..]), Just(&b"\r"[..]), Just(&b"\r\n"[..])]
}

fn line() -> impl Strategy<Value = Vec<u8>> {
    let name = prop_oneof![
        6 => Just(&b"data"[..]),
        2 => Just(&b"event"[..]),
        2 => Just(&b"id"[..]),
        2 => Just(&b"retry"[..]),
        1 => Just(&b"foo"[..]),
        1 => Just(&b"Data"[..]),
        1 => Just(&b" data"[..]),
        2 => Just(&b""[..]), // comment (":" first) or blank line
    ];
    let sep = prop_oneof![
        Just(&b": "[..]),
        Just(&b":"[..]),
        Just(&b""[..]),
        Just(&b":  "[..])
    ];
    let retry = prop_oneof![
        Just(b"3000".to_vec()),
        Just(b"99999999999999999999".to_vec()),
        Just(b"12x".to_vec())
    ];
    (name, sep, value(), retry, any::<bool>()).prop_map(|(name, sep, value, retry, blank)| {
        let mut l = name.to_vec();
        if name.is_empty() {
            if blank {
                return l;
            }
            l.push(b':');
            l.extend_from_slice(&value);
            return l;
        }
        l.extend_from_slice(sep);
        if name == b"retry" {
            l.extend_from_slice(&retry);
        } else if !sep.is_empty() {
            l.extend_from_slice(&value);
        }
        l
    })
}

/// A stream: an optional BOM (sometimes two), lines with mixed terminators, blank lines,
/// and sometimes an unterminated tail.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    let bom = prop_oneof![4 => Just(0usize), 2 => Just(1), 1 => Just(2)];
    let body = prop::collection::vec((line(), terminator(), prop::bool::weighted(0.3)), 0..24);
    (bom, body, any::<bool>(), value()).prop_map(|(boms, body, tail, tail_value)| {
        let mut s = b"\xEF\xBB\xBF".repeat(boms);
        for (l, t, blank) in body {
            s.extend_from_slice(&l);
            s.extend_from_slice(t);
            if blank {
                s.extend_from_slice(t);
            }
        }
        if tail {
            s.extend_from_slice(b"data: ");
            s.extend_from_slice(&tail_value);
        }
        s
    })
}

/// Arbitrary bytes over an alphabet rich in delimiters.
fn noise() -> impl Strategy<Value = Vec<u8>> {
    let b = prop_oneof![
        Just(b'\n'),
        Just(b'\r'),
        Just(b':'),
        Just(b' '),
        Just(b'd'),
        Just(b'a'),
        Just(b't'),
        Just(0u8),
        Just(0xEF),
        Just(0xBB),
        Just(0xBF),
        any::<u8>()
    ];
    prop::collection::vec(b, 0..200)
}

/// A stream of keep-alives drawn from a few shapes, so most lines repeat the one before
/// (the decoder remembers the last keep-alive's bytes and decides a repeat without a search):
/// comments of 7 to 17 bytes with every pair of line ends, near misses (a CR pair followed by
/// an LF, a comment one byte longer), and lines that make the block hold data or an id.
fn keep_alives() -> impl Strategy<Value = Vec<u8>> {
    let text = prop_oneof![
        Just(&b"keepalive"[..]),
        Just(&b" keepalive"[..]),
        Just(&b"ping"[..]),
        Just(&b"1234567"[..]),
        Just(&b"123456"[..]),
        Just(&b"12345678901234"[..]),
        Just(&b"12345678901235"[..]),
    ];
    let ends = prop_oneof![
        4 => Just(&b"\n\n"[..]),
        2 => Just(&b"\r\r"[..]),
        2 => Just(&b"\r\n\r\n"[..]),
        1 => Just(&b"\r\r\n"[..]),
        1 => Just(&b"\n\r\n"[..]),
        1 => Just(&b"\r\n\n"[..]),
        1 => Just(&b"\n"[..]),
    ];
    let other = prop_oneof![
        Just(&b"data: x\n"[..]),
        Just(&b"id: 7\n"[..]),
        Just(&b"event: e\n"[..]),
        Just(&b"\n"[..]),
        Just(&b"data: y\n\n"[..]),
    ];
    let record = (text, ends, prop::option::weighted(0.15, other), 1usize..4);
    prop::collection::vec(record, 0..40).prop_map(|records| {
        let mut s = Vec::new();
        for (text, ends, other, times) in records {
            for _ in 0..times {
                s.push(b':');
                s.extend_from_slice(text);
                s.extend_from_slice(ends);
            }
            if let Some(o) = other {
                s.extend_from_slice(o);
            }
        }
        s
    })
}

/// Streams of long data lines (15 to 22 KB, so that one spans many chunks): UTF-8 with
/// characters of 1 to 4 bytes, now and then a byte that is not UTF-8 (anywhere) or a
/// sequence cut short at the line's end, a second data line, every line end.
fn long_lines() -> impl Strategy<Value = Vec<u8>> {
    let block = (15_000usize..22_000, 0u8..6, terminator(), any::<bool>());
    (any::<u64>(), prop::collection::vec(block, 1..4)).prop_map(|(seed, blocks)| {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut out = Vec::new();
        for (len, flaw, term, second) in blocks {
            out.extend_from_slice(b"data:");
            if next() % 2 == 0 {
                out.push(b' ');
            }
            let start = out.len();
            while out.len() - start < len {
                out.extend_from_slice(match next() % 8 {
                    0 => "é".as_bytes(),
                    1 => "😀".as_bytes(),
                    2 => "€".as_bytes(),
                    _ => b"abcdefg",
                });
            }
            match flaw {
                0 => {
                    let at = start + usize::try_from(next() % len as u64).unwrap_or(0);
                    out.insert(at, 0xFF);
                }
                1 => out.extend_from_slice(b"\xE2\x82"),
                _ => {}
            }
            out.extend_from_slice(term);
            if second {
                out.extend_from_slice(b"data: more");
                out.extend_from_slice(term);
            }
            out.extend_from_slice(term);
        }
        out
    })
}

fn configs() -> impl Strategy<Value = (usize, usize, bool)> {
    (
        prop_oneof![Just(usize::MAX), Just(16 * 1024 * 1024), 0usize..24],
        prop_oneof![Just(usize::MAX), 0usize..24],
        any::<bool>(),
    )
}

/// The oracle reports comment text, so the decoder is asked for it.
fn config_of((max_line, max_event, dispatch): (usize, usize, bool)) -> Config {
    Config::new()
        .with_comment_text(true)
        .with_max_line(max_line)
        .with_max_event(max_event)
        .with_at_eof(if dispatch {
            AtEof::Dispatch
        } else {
            AtEof::Discard
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn decoder_matches_the_oracle_on_streams(input in stream(), cfg in configs(), cuts in prop::collection::vec(0usize..400, 0..12)) {
        let expected = oracle(&input, cfg.0, cfg.1, cfg.2);
        prop_assert_eq!(&decode(&input, &[], config_of(cfg)), &expected, "whole");
        prop_assert_eq!(&decode(&input, &cuts, config_of(cfg)), &expected, "cuts {:?}", cuts);
    }

    #[test]
    fn decoder_matches_the_oracle_on_noise(input in noise(), cfg in configs(), cuts in prop::collection::vec(0usize..200, 0..12)) {
        let expected = oracle(&input, cfg.0, cfg.1, cfg.2);
        prop_assert_eq!(&decode(&input, &[], config_of(cfg)), &expected, "whole");
        prop_assert_eq!(&decode(&input, &cuts, config_of(cfg)), &expected, "cuts {:?}", cuts);
    }

    #[test]
    fn without_comment_text_only_the_comment_text_differs(input in stream(), noise in noise(), cfg in configs(), cuts in prop::collection::vec(0usize..400, 0..12)) {
        for input in [&input, &noise] {
            let (mut items, end) = decode(input, &[], config_of(cfg));
            for item in &mut items {
                if let Got::Comment(text) = item {
                    text.clear();
                }
            }
            let expected = (items, end);
            let off = config_of(cfg).with_comment_text(false);
            prop_assert_eq!(&decode(input, &cuts, off), &expected, "cuts {:?}", cuts);
            let ones: Vec<usize> = (1..input.len()).collect();
            prop_assert_eq!(&decode(input, &ones, off), &expected, "1-byte chunks");
        }
    }

    #[test]
    fn repeated_keep_alives_match_the_oracle(input in keep_alives(), cfg in configs(), text in any::<bool>(), cuts in prop::collection::vec(0usize..600, 0..8)) {
        let (mut items, end) = oracle(&input, cfg.0, cfg.1, cfg.2);
        if !text {
            for item in &mut items {
                if let Got::Comment(t) = item {
                    t.clear();
                }
            }
        }
        let expected = (items, end);
        let cfg = config_of(cfg).with_comment_text(text);
        prop_assert_eq!(&decode(&input, &[], cfg), &expected, "whole");
        prop_assert_eq!(&decode(&input, &cuts, cfg), &expected, "cuts {:?}", cuts);
    }

    /// Long data lines in chunks of 200 to 3 000 bytes (the decoder's long-piece path) and
    /// cut anywhere, limits near their length, the stream cut short: what the oracle says.
    #[test]
    fn long_lines_in_network_sized_chunks_match_the_oracle(
        input in long_lines(),
        max_line in prop_oneof![Just(usize::MAX), 16_000usize..23_000],
        max_event in prop_oneof![Just(usize::MAX), 15_000usize..23_000],
        dispatch in any::<bool>(),
        short_by in prop_oneof![Just(0usize), 0usize..3_000],
        size in 200usize..3_000,
        cuts in prop::collection::vec(0usize..70_000, 0..6),
    ) {
        let mut input = input;
        input.truncate(input.len().saturating_sub(short_by));
        let expected = oracle(&input, max_line, max_event, dispatch);
        let cfg = config_of((max_line, max_event, dispatch));
        let chunks: Vec<usize> = (size..input.len()).step_by(size).collect();
        prop_assert_eq!(&decode(&input, &chunks, cfg), &expected, "{}-byte chunks", size);
        prop_assert_eq!(&decode(&input, &cuts, cfg), &expected, "cuts {:?}", cuts);
    }

    #[test]
    fn one_byte_chunks_give_the_same_items(input in stream(), cfg in configs()) {
        let ones: Vec<usize> = (1..input.len()).collect();
        prop_assert_eq!(decode(&input, &ones, config_of(cfg)), decode(&input, &[], config_of(cfg)));
    }

    /// Chunks of 2 to 9 bytes: a held line grows by a few bytes per chunk (the decoder's
    /// short copies), with and without comment text.
    #[test]
    fn small_fixed_chunks_give_the_same_items(input in stream(), cfg in configs(), size in 2usize..10, text in any::<bool>()) {
        let cuts: Vec<usize> = (size..input.len()).step_by(size).collect();
        let cfg = config_of(cfg).with_comment_text(text);
        prop_assert_eq!(decode(&input, &cuts, cfg), decode(&input, &[], cfg), "{}-byte chunks", size);
    }

    #[test]
    fn encode_then_decode_gives_the_event_back(
        data in value(),
        breaks in prop::collection::vec((0usize..8, terminator()), 0..4),
        event_type in prop::option::of(prop::collection::vec(prop::num::u8::ANY.prop_filter("no line break", |b| *b != b'\r' && *b != b'\n'), 0..6)),
        id in prop::option::of(prop::collection::vec(prop::num::u8::ANY.prop_filter("no CR, LF or NUL", |b| *b != b'\r' && *b != b'\n' && *b != 0), 0..6)),
        retry in prop::option::of(any::<u64>()),
        cuts in prop::collection::vec(0usize..64, 0..6),
    ) {
        // Put line breaks of every kind into the data.
        let mut data = data;
        let mut normalized = data.clone();
        for (at, t) in breaks {
            let at = at.min(data.len());
            // Keep CRLF pairs apart from a following LF/CR so the expected value is exact.
            data.splice(at..at, t.iter().copied());
            normalized = Vec::new();
            let mut i = 0;
            while i < data.len() {
                if data[i] == b'\r' {
                    normalized.push(b'\n');
                    if data.get(i + 1) == Some(&b'\n') { i += 1; }
                } else {
                    normalized.push(data[i]);
                }
                i += 1;
            }
        }
        let mut e = OutEvent::new(&data);
        e.event_type = event_type.as_deref();
        e.id = id.as_deref();
        e.retry = retry;
        let mut wire = Vec::new();
        e.write_to(&mut wire).expect("valid event");
        let (items, end) = decode(&wire, &cuts, Config::new().with_max_line(usize::MAX).with_max_event(usize::MAX));
        let mut expected = Vec::new();
        if let Some(ms) = retry { expected.push(Got::Retry(ms)); }
        let t = match &event_type { Some(t) if !t.is_empty() => t.clone(), _ => b"message".to_vec() };
        expected.push(Got::Ev(t, normalized, id.clone().unwrap_or_default()));
        prop_assert_eq!(items, expected);
        prop_assert_eq!(end.discarded, None);
    }
}

/// A stream that is nothing but the start of a BOM (found by proptest: `[0xEF]` with
/// `max_line` 0): the decoder and the oracle agree, whatever the limits and end rule.
#[test]
fn a_stream_of_a_partial_bom_only_matches_the_oracle() {
    for input in [&b"\xEF"[..], b"\xEF\xBB"] {
        for max_line in [0usize, 1, 2, 64] {
            for dispatch in [false, true] {
                let cfg = (max_line, 64, dispatch);
                let cuts: Vec<usize> = (1..input.len()).collect();
                let expected = oracle(input, cfg.0, cfg.1, cfg.2);
                assert_eq!(
                    decode(input, &[], config_of(cfg)),
                    expected,
                    "{input:?} {cfg:?}"
                );
                assert_eq!(
                    decode(input, &cuts, config_of(cfg)),
                    expected,
                    "{input:?} {cfg:?} split"
                );
            }
        }
    }
}
