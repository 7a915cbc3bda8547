//! Runs the shared conformance cases in `bindings/fixtures/sse.json`: each case whole, split
//! into two chunks at every byte offset, and in 1-byte chunks.

use a2a_core::sse::{AtEof, Config, Decoder, Item};
use serde_json::{Value, json};

fn base64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET
            .iter()
            .position(|&a| a == c)
            .expect("base64 character") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

fn event_json(t: &[u8], d: &[u8], id: &[u8]) -> Value {
    json!({
        "type": String::from_utf8_lossy(t),
        "data": String::from_utf8_lossy(d),
        "id": String::from_utf8_lossy(id),
    })
}

/// Runs one case with the given chunk boundaries; returns the observed result in the
/// fixture's shape.
fn run(input: &[u8], config: Config, cuts: &[usize]) -> Value {
    let mut dec = Decoder::with_config(config);
    let (mut events, mut comments, mut retries, mut errors) = (vec![], 0, vec![], vec![]);
    let mut prev = 0;
    for &c in cuts.iter().chain(std::iter::once(&input.len())) {
        let mut feed = dec.feed(&input[prev..c]);
        loop {
            match feed.next_item() {
                Ok(None) => break,
                Ok(Some(Item::Event(e))) => events.push(event_json(e.event_type, e.data, e.id)),
                Ok(Some(Item::Comment(_))) => comments += 1,
                Ok(Some(Item::Retry(ms))) => retries.push(json!(ms)),
                Err(e) => errors.push(json!(e.limit_name())),
            }
        }
        prev = c;
    }
    let fin = dec.finish();
    let finish = json!({
        "discarded": fin.discarded.map(|d| json!({"partial_line": d.partial_line, "event": d.event, "id": d.id})),
        "event": fin.event.map(|e| event_json(e.event_type, e.data, e.id)),
        "error": fin.error.map(|e| e.limit_name()),
    });
    json!({
        "events": events,
        "comments": comments,
        "retries": retries,
        "errors": errors,
        "finish": finish,
        "last_event_id": String::from_utf8_lossy(dec.last_event_id()),
    })
}

#[test]
fn shared_sse_fixtures_pass_whole_and_split_at_every_byte() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../bindings/fixtures/sse.json");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture file")).expect("JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 50, "the fixture file lost cases");
    for case in cases {
        let name = case["name"].as_str().expect("name");
        assert!(
            case["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: no source"
        );
        let input = match (case.get("input"), case.get("input_base64")) {
            (Some(Value::String(s)), None) => s.as_bytes().to_vec(),
            (None, Some(Value::String(b))) => base64(b),
            _ => panic!("{name}: exactly one of input, input_base64"),
        };
        let opts = &case["options"];
        let mut config = Config::new();
        if opts["dispatch_at_eof"].as_bool() == Some(true) {
            config = config.with_at_eof(AtEof::Dispatch);
        }
        if let Some(n) = opts["max_line"].as_u64() {
            config = config.with_max_line(n as usize);
        }
        if let Some(n) = opts["max_event"].as_u64() {
            config = config.with_max_event(n as usize);
        }
        let expected = json!({
            "events": case["events"],
            "comments": case["comments"],
            "retries": case["retries"],
            "errors": case["errors"],
            "finish": case["finish"],
        });
        let compare = |got: Value, how: &str| {
            let mut got = got;
            if let Some(id) = case.get("last_event_id") {
                assert_eq!(&got["last_event_id"], id, "{name} ({how}): last_event_id");
            }
            got.as_object_mut().expect("object").remove("last_event_id");
            assert_eq!(got, expected, "{name} ({how})");
        };
        compare(run(&input, config, &[]), "whole");
        for i in 0..=input.len() {
            compare(run(&input, config, &[i]), &format!("split at {i}"));
        }
        let ones: Vec<usize> = (1..input.len()).collect();
        compare(run(&input, config, &ones), "1-byte chunks");
    }
}
