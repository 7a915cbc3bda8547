//! The shared answer fixtures (`bindings/fixtures/answers.json`) through the core: every
//! result body, in every version and binding, reads to the same canonical answer; every
//! unreadable body fails naming where; every stream assembles to its final task; every
//! message to send is written in each form as the fixture says, and bad ones are refused.

use a2a_core::answer::{
    Assembler, event_to_json, event_to_json_string, message_from_json, read_event, read_result,
    to_json, to_json_string,
};
use a2a_core::model::{Message, Role, WireForm, to_vec};
use a2a_core::version::{Binding, ProtocolVersion};
use serde_json::Value;

fn doc() -> Value {
    let path = format!(
        "{}/../bindings/fixtures/answers.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON")
}

fn vb(case: &Value) -> (ProtocolVersion, Binding) {
    let v = match case["version"].as_str().unwrap() {
        "0.3" => ProtocolVersion::V0_3,
        _ => ProtocolVersion::V1_0,
    };
    let b = match case["binding"].as_str().unwrap() {
        "jsonrpc" => Binding::JsonRpc,
        _ => Binding::HttpJson,
    };
    (v, b)
}

fn cases<'a>(d: &'a Value, key: &str) -> &'a Vec<Value> {
    d[key].as_array().expect(key)
}

#[test]
fn every_result_reads_to_the_canonical_answer() {
    let d = doc();
    let results = cases(&d, "results");
    assert!(results.len() >= 9);
    for c in results {
        let name = c["name"].as_str().unwrap();
        let (v, b) = vb(c);
        let body = serde_json::to_vec(&c["body"]).unwrap();
        let r = read_result(&body, v, b).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(to_json(&r), c["expect"], "{name}");
        // The text the C ABI hands out, written without the tree: the same bytes.
        assert_eq!(to_json_string(&r), to_json(&r).to_string(), "{name}");
    }
}

#[test]
fn unreadable_results_fail_and_say_where() {
    use base64::Engine as _;
    let d = doc();
    for c in cases(&d, "unreadable") {
        let name = c["name"].as_str().unwrap();
        let (v, b) = vb(c);
        let body = match (c["body_text"].as_str(), c["body_b64"].as_str()) {
            (Some(t), _) => t.as_bytes().to_vec(),
            (_, Some(b64)) => base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap(),
            _ => panic!("{name}: no body"),
        };
        let e = read_result(&body, v, b).expect_err(name);
        assert!(!e.what.is_empty(), "{name}");
        if let Some(at) = c["at"].as_str() {
            assert_eq!(e.at, at, "{name}");
        } else {
            let p = c["at_prefix"].as_str().unwrap();
            assert!(
                e.at.starts_with(p),
                "{name}: {:?} does not start with {p:?}",
                e.at
            );
        }
    }
}

#[test]
fn every_stream_assembles_to_its_final_task() {
    let d = doc();
    for c in cases(&d, "streams") {
        let name = c["name"].as_str().unwrap();
        let (v, b) = vb(c);
        let mut asm = Assembler::new();
        for (i, data) in c["events"].as_array().unwrap().iter().enumerate() {
            let data = data.as_str().unwrap();
            let ev =
                read_event(data.as_bytes(), v, b).unwrap_or_else(|e| panic!("{name} #{i}: {e}"));
            // Each item as it arrived renders too (its kind is the wire discriminator).
            assert_eq!(event_to_json(&ev)["kind"], ev.kind(), "{name} #{i}");
            assert_eq!(
                event_to_json_string(&ev),
                event_to_json(&ev).to_string(),
                "{name} #{i}"
            );
            asm.push(&ev);
        }
        assert_eq!(asm.events(), 7, "{name}");
        let answer = asm.finish().expect(name);
        assert_eq!(to_json(&answer), c["expect"], "{name}");
        assert_eq!(
            to_json_string(&answer),
            to_json(&answer).to_string(),
            "{name}"
        );
    }
}

#[test]
fn messages_to_send_are_written_in_every_form() {
    let d = doc();
    for c in cases(&d, "send") {
        let name = c["name"].as_str().unwrap();
        let (parts, metadata) =
            message_from_json(&c["message"].to_string()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut m = Message::new("m-1", Role::User, parts);
        m.metadata = metadata;
        for (form_name, form) in [
            ("jsonrpc-0.3", WireForm::JsonRpcV0_3),
            ("1.0", WireForm::V1_0),
        ] {
            let want = &c["wire"][form_name];
            match to_vec(&m, form) {
                Err(e) => assert!(want.is_null(), "{name} {form_name}: refused: {e}"),
                Ok(bytes) => {
                    assert!(
                        !want.is_null(),
                        "{name} {form_name}: written but the fixture says it cannot be"
                    );
                    let got: Value = serde_json::from_slice(&bytes).unwrap();
                    assert_eq!(got["parts"], want["parts"], "{name} {form_name}");
                    assert_eq!(
                        got.get("metadata"),
                        want.get("metadata"),
                        "{name} {form_name}"
                    );
                }
            }
        }
    }
    for c in cases(&d, "send_invalid") {
        let name = c["name"].as_str().unwrap();
        assert!(
            message_from_json(&c["message"].to_string()).is_err(),
            "{name}"
        );
    }
}
