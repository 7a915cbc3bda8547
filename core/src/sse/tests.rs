//! Unit tests of the SSE layer, one per rule of WHATWG §9.2.5–9.2.6 and per pitfall of
//! `reference/sse.md` §5 (the issue numbers are named on each test).

use super::encoder::{EncodeError, OutEvent, write_comment, write_keep_alive};
use super::*;

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

fn run_with(config: Config, input: &[u8]) -> (Vec<Got>, Option<Discarded>, Option<Got>) {
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
