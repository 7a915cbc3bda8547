//! The tape (`crate::tape`) against serde_json: what it refuses, the spans it hands out, and
//! (property test) the classifier's union object and any tree read from it.

use proptest::prelude::*;
use serde_json::Value;

use super::scan::{BodyShape, scan};
use crate::tape::{MAX_DEPTH, Tape};

#[test]
fn tokens_carry_spans_and_raw_values_borrow_the_body() {
    let body = br#" {"id": 12, "data": {"a": [1, "x\n"]}, "s": "plain"} "#;
    let t = Tape::parse(body).expect("valid JSON");
    assert!(t.is_object());
    assert!(!t.raw_values_need_check());
    #[derive(serde::Deserialize)]
    struct W<'a> {
        #[serde(borrow)]
        data: &'a serde_json::value::RawValue,
        s: &'a str,
        id: u64,
    }
    let w: W<'_> = t.read().expect("reads");
    assert_eq!(w.data.get(), r#"{"a": [1, "x\n"]}"#);
    assert_eq!((w.s, w.id), ("plain", 12));
}

#[test]
fn the_tape_refuses_what_serde_json_refuses_and_more_only_at_the_limits() {
    for bad in [
        &b""[..],
        b"{",
        b"{\"a\":1,}",
        b"[1 2]",
        b"\"\x01\"",
        b"01",
        b"1.",
        b"-",
        b"{\"a\":1} x",
        b"\"\\x\"",
        b"\xff",
    ] {
        assert!(Tape::parse(bad).is_none(), "{bad:?}");
        assert!(serde_json::from_slice::<Value>(bad).is_err(), "{bad:?}");
    }
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    assert!(
        Tape::parse(deep.as_bytes()).is_none(),
        "deeper than a tree reads"
    );
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(Tape::parse(ok.as_bytes()).is_some());
    assert!(serde_json::from_str::<Value>(&ok).is_ok());
    assert!(Tape::parse(b"[1e5]").unwrap().raw_values_need_check());
    assert!(
        Tape::parse(b"[\"\\u0041\"]")
            .unwrap()
            .raw_values_need_check()
    );
    assert!(!Tape::parse(b"[21.5, -3]").unwrap().raw_values_need_check());
}

/// JSON text built from a tree, with random whitespace, escapes and number forms.
fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        Just("-0".to_owned()),
        Just("1e400".to_owned()),
        Just("12345678901234567890123".to_owned()),
        (-1e6f64..1e6).prop_map(|f| f.to_string()),
        "[a-z\u{e9}\u{1F600} ]{0,6}".prop_map(|s| format!("{s:?}")),
        Just(r#""t\"\\\/\b\f\n\r\t\u0041\ud83d\ude00""#.to_owned()),
        Just(r#""\ud800""#.to_owned()),
    ];
    let keys = prop_oneof![
        Just("kind"),
        Just("id"),
        Just("result"),
        Just("status"),
        Just("state"),
        Just("message"),
        Just("parts"),
        Just("text"),
        Just("metadata"),
        Just("code"),
        Just("error"),
        Just("final"),
        Just("k\\u0069nd"),
        Just("jsonrpc"),
        Just("task"),
        Just("status_update"),
        Just("history"),
        Just("type"),
        Just("taskId"),
        Just("task_id"),
        Just("lastChunk"),
    ];
    leaf.prop_recursive(4, 32, 6, move |inner| {
        let keys = keys.clone();
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((keys, inner, " {0,2}"), 0..6).prop_map(|kv| {
                let items: Vec<String> = kv
                    .into_iter()
                    .map(|(k, v, ws)| format!("\"{k}\"{ws}:{ws}{v}"))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// Whatever the tape accepts, serde_json accepts, and the classifier's union object
    /// and any tree read from the tape are the ones serde_json reads.
    #[test]
    fn the_tape_reads_what_serde_json_reads(text in json_text()) {
        let body = text.as_bytes();
        if let Some(t) = Tape::parse(body) {
            let tree: Result<Value, _> = serde_json::from_slice(body);
            if !t.raw_values_need_check() {
                prop_assert!(tree.is_ok(), "{text}");
            }
            if let Ok(tree) = tree {
                prop_assert_eq!(t.read::<Value>().ok(), Some(tree));
            }
            if t.is_object() {
                // The direct reader of the union object (built with the model) reads what
                // serde reads from the tape.
                #[cfg(feature = "model")]
                match (crate::classify::scan::body_shape_from_tape(&t, 0), t.read::<BodyShape<'_>>()) {
                    (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
                    (a, b) => prop_assert!(a.is_err() && b.is_err(), "{text}: {a:?} {b:?}"),
                }
                match (t.read::<BodyShape<'_>>(), scan(body)) {
                    (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
                    (Ok(a), Err(e)) => prop_assert!(false, "{text}: tape {a:?}, scan {e:?}"),
                    // The caller falls back to the scan for a failed read.
                    (Err(_), _) => {}
                }
            }
        } else if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok() {
            prop_assert!(false, "{text}: serde_json reads what the tape refused");
        }
    }
}

/// The direct reader of the union object (it exists with the model).
#[cfg(feature = "model")]
mod direct {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

        /// The direct reader of the union object reads what serde reads from the tape, on the
        /// model reader's generated objects (every shape, keys both ways, twice, escaped, null,
        /// mistyped), bare and as a JSON-RPC result.
        #[test]
        fn the_union_object_is_read_directly_as_serde_reads_it(
            choices in prop::collection::vec(any::<u8>(), 0..400)
        ) {
            let doc = crate::model::generated_object(&choices);
            let rpc = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{doc}}}"#);
            for doc in [&doc, &rpc] {
                let t = Tape::parse(doc.as_bytes()).expect("generated JSON tokenizes");
                let direct = crate::classify::scan::body_shape_from_tape(&t, 0).ok();
                prop_assert_eq!(direct, t.read::<BodyShape<'_>>().ok(), "{}", doc);
            }
        }
    }
}
