//! Encoder/decoder round trip: any event the encoder accepts decodes back to itself (data
//! line breaks normalized to LF), whatever the chunking.
#![no_main]

use a2a_core::sse::Config;
use a2a_core::sse::encoder::{OutEvent, write_comment};
use libfuzzer_sys::fuzz_target;

mod common;
use common::Got;

fuzz_target!(|input: (Vec<u8>, Option<Vec<u8>>, Option<Vec<u8>>, Option<u64>, Vec<u8>, Vec<u8>)| {
    let (data, event_type, id, retry, comment, sizes) = input;
    let event = OutEvent { event_type: event_type.as_deref(), data: &data, id: id.as_deref(), retry };
    let mut wire = Vec::new();
    write_comment(&mut wire, &comment);
    if event.write_to(&mut wire).is_err() {
        // Refused values are exactly the ones that cannot be written.
        let bad = |v: &Option<Vec<u8>>, nul: bool| {
            v.as_deref().is_some_and(|v| v.iter().any(|&b| b == b'\r' || b == b'\n' || (nul && b == 0)))
        };
        assert!(bad(&event_type, false) || bad(&id, true));
        return;
    }
    let config = Config::new().with_max_line(usize::MAX).with_max_event(usize::MAX);
    let (items, _, last_id) = common::decode(&wire, &sizes, config);
    let mut normalized = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'\r' {
            normalized.push(b'\n');
            if data.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
        } else {
            normalized.push(data[i]);
        }
        i += 1;
    }
    let comments = items.iter().filter(|g| matches!(g, Got::Comment(_))).count();
    let lines = 1 + comment.iter().enumerate().filter(|&(j, &b)| b == b'\n' && (j == 0 || comment[j - 1] != b'\r') || b == b'\r').count();
    assert_eq!(comments, lines);
    let rest: Vec<&Got> = items.iter().filter(|g| !matches!(g, Got::Comment(_))).collect();
    let mut expected = Vec::new();
    if let Some(ms) = retry {
        expected.push(Got::Retry(ms));
    }
    let t = match &event_type {
        Some(t) if !t.is_empty() => t.clone(),
        _ => b"message".to_vec(),
    };
    let id = id.unwrap_or_default();
    expected.push(Got::Ev(t, normalized, id.clone()));
    assert_eq!(rest, expected.iter().collect::<Vec<_>>());
    assert_eq!(last_id, id);
});
