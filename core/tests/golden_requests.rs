//! Golden tests: every case in `bindings/fixtures/requests.json` (transcribed from the A2A
//! examples of docs/wire.md §8, plus hand-derived rule cases) is built and compared as JSON.

use a2a_core::envelope::{CallOptions, Interface, Method, RpcId, build};
use a2a_core::model::{WireForm, parse_params};
use a2a_core::version::{Binding, ProtocolVersion};
use serde_json::Value;

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bindings/fixtures/requests.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture present"))
        .expect("fixture is JSON")
}

#[test]
fn every_request_golden_builds_exactly() {
    let doc = fixture();
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 40, "fixture lost cases: {}", cases.len());
    for case in cases {
        let name = case["name"].as_str().expect("name");
        assert!(
            case["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: no source"
        );
        let iface = &case["interface"];
        let version = ProtocolVersion::parse(iface["version"].as_str().unwrap()).unwrap();
        let binding = Binding::parse(iface["binding"].as_str().unwrap()).unwrap();
        let interface = Interface {
            version,
            binding,
            tenant: iface["tenant"].as_str().map(str::to_owned),
        };
        let (method, _) = Method::from_jsonrpc_name(case["call"]["method"].as_str().unwrap())
            .unwrap_or_else(|| panic!("{name}: unknown method"));
        let params_text = case["call"].get("params").map(|p| p.to_string());
        let parsed = parse_params(
            method,
            params_text.as_deref().map(str::as_bytes),
            WireForm::new(version, binding),
        )
        .unwrap_or_else(|e| panic!("{name}: params: {e}"));
        let id = match &case["id"] {
            Value::Number(n) => Some(RpcId::Number(n.as_i64().unwrap())),
            Value::String(s) => Some(RpcId::String(s.clone())),
            _ => None,
        };
        let extensions: Vec<String> = case["extensions"]
            .as_array()
            .map(|a| a.iter().map(|e| e.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default();
        let ext_refs: Vec<&str> = extensions.iter().map(String::as_str).collect();
        let headers: Vec<(String, String)> = case["headers"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|h| {
                        (
                            h[0].as_str().unwrap().to_owned(),
                            h[1].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let header_refs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let opts = CallOptions {
            id,
            extensions: &ext_refs,
            headers: &header_refs,
        };
        let req = build(&interface, &parsed.call, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expect = &case["expect"];
        assert_eq!(
            req.method.as_str(),
            expect["method"].as_str().unwrap(),
            "{name}: method"
        );
        assert_eq!(req.path, expect["path"].as_str().unwrap(), "{name}: path");
        let mut got: Vec<(String, String)> = req
            .headers
            .iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), v.clone()))
            .collect();
        let mut want: Vec<(String, String)> = expect["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h[0].as_str().unwrap().to_ascii_lowercase(),
                    h[1].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{name}: headers");
        match &expect["body"] {
            Value::Null => assert!(req.body.is_empty(), "{name}: body should be empty"),
            body => {
                let got: Value = serde_json::from_slice(&req.body)
                    .unwrap_or_else(|e| panic!("{name}: body is not JSON: {e}"));
                assert_eq!(&got, body, "{name}: body");
            }
        }
    }
}
