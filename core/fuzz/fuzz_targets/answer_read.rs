//! Fuzz reading the agent's answer: arbitrary bytes as a result body and as a whole event
//! stream, in every version and binding, must never panic; whatever is read renders as the
//! canonical JSON and its parts (with object metadata, as sent) read back the same; whatever
//! fails says where. The canonical JSON written directly is the tree's text byte for byte.
#![no_main]

use a2a_core::answer::{
    part_from_json, part_to_json, read_event_stream, read_result, to_json, to_json_string,
};
use a2a_core::model::SendResponse;
use a2a_core::version::{Binding, ProtocolVersion};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for v in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
        for b in [Binding::JsonRpc, Binding::HttpJson] {
            match read_result(data, v, b) {
                Ok(r) => {
                    let j = to_json(&r);
                    assert_eq!(to_json_string(&r), j.to_string());
                    assert!(j["kind"] == "task" || j["kind"] == "message");
                    let parts = match &r {
                        SendResponse::Message(m) => m.parts.clone(),
                        SendResponse::Task(t) => t.artifacts.iter().flat_map(|a| a.parts.clone()).collect(),
                    };
                    // Sent metadata must be an object; a peer's answer may carry anything.
                    for p in parts.into_iter().filter(|p| p.metadata.as_ref().is_none_or(|m| m.is_object())) {
                        let back = part_from_json(&part_to_json(&p), "p").expect("a read part writes back");
                        assert_eq!(back, p);
                    }
                }
                Err(e) => assert!(!e.at.is_empty()),
            }
            match read_event_stream(data, v, b) {
                Ok(Some(r)) => {
                    assert_eq!(to_json_string(&r), to_json(&r).to_string());
                }
                Ok(None) => {}
                Err(e) => assert!(e.at.starts_with("event ")),
            }
        }
    }
});
