//! Byte-for-byte output of every JSON writer of the core, for strings holding every control
//! character, quotes, backslashes, non-ASCII, U+2028/U+2029 and lone structural characters:
//! the hand-written writers (`outcome`, `answer`'s renderer, `trust`'s RFC 8785 writer) and
//! serde_json itself. They all write strings alike (the hand-written ones through the crate's
//! one escaper, `core/src/json.rs`, which writes what serde_json writes); these expectations
//! pin the bytes, so a change in any writer shows here. Each output also parses back
//! (serde_json) to its input. Until issue 29 `outcome` wrote U+0008 and U+000C as `\u0008`
//! and `\u000c`; it now writes serde_json's `\b` and `\f` like the others.

use a2a_core::outcome::{Channel, Outcome, json_string};

/// Every control character, then `"`, `\`, `/`, DEL, non-ASCII (2, 3 and 4 UTF-8 bytes),
/// U+2028 and U+2029, and the structural characters alone.
const INPUT: &str = "\u{0}\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}\u{7}\u{8}\u{9}\u{a}\u{b}\u{c}\u{d}\u{e}\u{f}\
\u{10}\u{11}\u{12}\u{13}\u{14}\u{15}\u{16}\u{17}\u{18}\u{19}\u{1a}\u{1b}\u{1c}\u{1d}\u{1e}\u{1f}\
\"\\/\u{7f}é€😀\u{2028}\u{2029}{}[]:,";

/// `INPUT` as a JSON string literal, escaped as serde_json escapes it.
const ESCAPED: &str = r#""\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f\"\\/"#;

/// The rest of `ESCAPED` (everything from DEL on is written as itself).
const ESCAPED_TAIL: &str = "\u{7f}é€😀\u{2028}\u{2029}{}[]:,\"";

fn escaped() -> String {
    format!("{ESCAPED}{ESCAPED_TAIL}")
}

/// Small strings on their own: empty, a lone quote, a lone backslash, lone structures.
const LONE: &[(&str, &str)] = &[
    ("", r#""""#),
    ("\"", r#""\"""#),
    ("\\", r#""\\""#),
    ("{", r#""{""#),
    ("}", r#""}""#),
    ("[", r#""[""#),
    ("]", r#""]""#),
    ("\u{8}", r#""\b""#),
    ("\u{c}", r#""\f""#),
    ("\u{1f}", r#""\u001f""#),
    ("\u{2028}", "\"\u{2028}\""),
];

#[test]
fn serde_json_itself_writes_the_expected_form() {
    assert_eq!(serde_json::to_string(INPUT).unwrap(), escaped());
    for (input, want) in LONE {
        assert_eq!(&serde_json::to_string(input).unwrap(), want, "{input:?}");
    }
}

#[test]
fn outcome_json_string_bytes() {
    let mut s = String::new();
    json_string(&mut s, INPUT);
    assert_eq!(s, escaped());
    assert_eq!(serde_json::from_str::<String>(&s).unwrap(), INPUT);
    for (input, want) in LONE {
        let mut s = String::new();
        json_string(&mut s, input);
        assert_eq!(&s, want, "{input:?}");
    }
}

#[test]
fn outcome_to_json_bytes() {
    let mut o = Outcome::empty(Channel::Task);
    o.text = Some(INPUT.to_owned());
    o.message = Some("\u{8}\u{c}".to_owned());
    let want = format!(
        "{{\"channel\":\"task\",\"http_status\":null,\"code\":null,\"error\":null,\
         \"reason\":null,\"message\":\"\\b\\f\",\"state\":null,\"terminal\":false,\
         \"task_id\":null,\"context_id\":null,\"text\":{},\"error_id\":null,\
         \"retry\":\"none\",\"hint\":null,\"remote_hint\":null,\"leaked_detail\":false,\
         \"cancel_origin\":null}}",
        escaped()
    );
    let got = o.to_json();
    assert_eq!(got, want);
    let v: serde_json::Value = serde_json::from_str(&got).unwrap();
    assert_eq!(v["text"], INPUT);
}

#[cfg(feature = "model")]
mod answer {
    use a2a_core::answer::{to_json, to_json_string};
    use a2a_core::version::{Binding, ProtocolVersion};

    use super::{INPUT, escaped};

    #[test]
    fn answer_render_bytes() {
        let body = serde_json::json!({
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "kind": "message",
                "role": "agent",
                "messageId": INPUT,
                "parts": [
                    {"kind": "text", "text": INPUT},
                    {"kind": "data", "data": {"s": INPUT, "k": ["\u{8}"]}},
                ],
            },
        })
        .to_string();
        let r =
            a2a_core::answer::read_result(body.as_bytes(), ProtocolVersion::V0_3, Binding::JsonRpc)
                .unwrap();
        let e = escaped();
        let want = format!(
            "{{\"context_id\":null,\"kind\":\"message\",\"message_id\":{e},\"metadata\":null,\
             \"parts\":[{{\"kind\":\"text\",\"media_type\":null,\"metadata\":null,\"name\":null,\
             \"text\":{e}}},{{\"data\":{{\"k\":[\"\\b\"],\"s\":{e}}},\"kind\":\"data\",\
             \"media_type\":null,\"metadata\":null,\"name\":null}}],\"role\":\"agent\",\
             \"task_id\":null,\"text\":{e}}}"
        );
        let got = to_json_string(&r);
        assert_eq!(got, want);
        assert_eq!(got, to_json(&r).to_string());
    }
}

#[cfg(feature = "trust")]
mod trust {
    use a2a_core::trust::canonical::{Json, canonicalize};

    use super::{INPUT, LONE, escaped};

    #[test]
    fn canonical_bytes() {
        let doc = serde_json::json!({ "b": INPUT, INPUT: [INPUT] }).to_string();
        let e = escaped();
        // Member names sorted by UTF-16 code units: INPUT starts with U+0000, before `b`.
        let want = format!("{{{e}:[{e}],\"b\":{e}}}");
        assert_eq!(
            String::from_utf8(canonicalize(doc.as_bytes()).unwrap()).unwrap(),
            want
        );
        let compact = Json::parse(doc.as_bytes()).unwrap().to_compact();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&compact).unwrap(),
            serde_json::from_str::<serde_json::Value>(&doc).unwrap()
        );
        for (input, want) in LONE {
            let doc = serde_json::to_string(input).unwrap();
            assert_eq!(
                &String::from_utf8(canonicalize(doc.as_bytes()).unwrap()).unwrap(),
                want
            );
        }
    }
}
