//! Golden tests of the object model: every case in `bindings/fixtures/wire_objects.json`
//! (the payloads of docs/wire.md §8) reads, meets its expectations and writes back as the
//! same JSON value; every case in `wire_tolerance.json` reads and writes the canonical form.

use a2a_core::model::{
    ListPushConfigsResponse, ListTasksResponse, Message, SendResponse, StreamEvent, Task,
    TaskPushNotificationConfig, WireForm, from_slice, to_vec,
};
use serde_json::Value;

fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/../bindings/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON");
    doc["cases"].as_array().expect("cases").clone()
}

fn form(name: &str) -> WireForm {
    match name {
        "jsonrpc-0.3" => WireForm::JsonRpcV0_3,
        "rest-0.3" => WireForm::RestV0_3,
        "1.0" => WireForm::V1_0,
        other => panic!("unknown form {other}"),
    }
}

/// Reads `json` as `typ`, checks `expect`, returns the re-written JSON.
fn read_check_write(name: &str, typ: &str, json: &[u8], form: WireForm, expect: &Value) -> Value {
    let check = |key: &str, got: Option<String>| {
        if let Some(want) = expect.get(key) {
            let want = match want {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(got.as_deref(), Some(want.as_str()), "{name}: {key}");
        }
    };
    let out = match typ {
        "send_result" => {
            let v: SendResponse = from_slice(json, form).unwrap_or_else(|e| panic!("{name}: {e}"));
            match &v {
                SendResponse::Task(t) => {
                    check("kind", Some("task".into()));
                    check("state", Some(t.status.state.as_str().into()));
                    check("id", Some(t.id.to_string()));
                }
                SendResponse::Message(m) => {
                    check("kind", Some("message".into()));
                    check("text", m.text());
                }
            }
            to_vec(&v, form)
        }
        "stream_event" => {
            let v: StreamEvent = from_slice(json, form).unwrap_or_else(|e| panic!("{name}: {e}"));
            check("kind", Some(v.kind().into()));
            check("state", v.state().map(|s| s.as_str().into()));
            match &v {
                StreamEvent::StatusUpdate(u) => {
                    check("final", Some(u.is_final.to_string()));
                    check("text", u.status.message.as_ref().and_then(|m| m.text()));
                }
                StreamEvent::Message(m) => check("text", m.text()),
                _ => {}
            }
            to_vec(&v, form)
        }
        "task" => {
            let v: Task = from_slice(json, form).unwrap_or_else(|e| panic!("{name}: {e}"));
            check("kind", Some("task".into()));
            check("state", Some(v.status.state.as_str().into()));
            check("text", v.status.message.as_ref().and_then(|m| m.text()));
            to_vec(&v, form)
        }
        "message" => {
            let v: Message = from_slice(json, form).unwrap_or_else(|e| panic!("{name}: {e}"));
            check("text", v.text());
            to_vec(&v, form)
        }
        "list_tasks" => {
            let v: ListTasksResponse =
                from_slice(json, form).unwrap_or_else(|e| panic!("{name}: {e}"));
            check("count", Some(v.tasks.len().to_string()));
            to_vec(&v, form)
        }
        "list_push_configs" => {
            let v: ListPushConfigsResponse =
                from_slice(json, form).unwrap_or_else(|e| panic!("{name}: {e}"));
            check("count", Some(v.configs.len().to_string()));
            to_vec(&v, form)
        }
        "push_config" => {
            let v: TaskPushNotificationConfig =
                from_slice(json, form).unwrap_or_else(|e| panic!("{name}: {e}"));
            check("task_id", Some(v.task_id.to_string()));
            check("config_id", v.config.id.as_ref().map(|c| c.to_string()));
            to_vec(&v, form)
        }
        other => panic!("{name}: unknown type {other}"),
    };
    let out = out.unwrap_or_else(|e| panic!("{name}: write: {e}"));
    serde_json::from_slice(&out).expect("writers write JSON")
}

#[test]
fn every_wire_object_reads_and_writes_back_identically() {
    let cases = load("wire_objects.json");
    assert!(cases.len() >= 30);
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        assert!(c["source"].as_str().is_some_and(|s| !s.is_empty()));
        let json = c["json"].to_string();
        let got = read_check_write(
            name,
            c["type"].as_str().unwrap(),
            json.as_bytes(),
            form(c["form"].as_str().unwrap()),
            &c["expect"],
        );
        assert_eq!(got, c["json"], "{name}: written form differs");
    }
}

#[test]
fn tolerant_reads_write_the_canonical_form() {
    let cases = load("wire_tolerance.json");
    assert!(cases.len() >= 8);
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let json = c["json"].to_string();
        let got = read_check_write(
            name,
            c["type"].as_str().unwrap(),
            json.as_bytes(),
            form(c["form"].as_str().unwrap()),
            &c["expect"],
        );
        assert_eq!(got, c["canonical"], "{name}: canonical form differs");
    }
}

#[test]
fn strings_without_escapes_are_borrowed_from_the_input() {
    use std::borrow::Cow;
    let body = br#"{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"text":"plain text"},{"text":"esc\"aped"},{"data":{"big":[1,2,3]}}]}],"metadata":{"k":"v"}}}"#;
    let r: SendResponse = from_slice(body, WireForm::V1_0).unwrap();
    let SendResponse::Task(t) = r else {
        panic!("a task")
    };
    let inside = |s: &str| {
        let (p, b) = (s.as_ptr() as usize, body.as_ptr() as usize);
        p >= b && p + s.len() <= b + body.len()
    };
    assert!(matches!(t.id, Cow::Borrowed(_)) && inside(&t.id));
    let parts = &t.artifacts[0].parts;
    match &parts[0].content {
        a2a_core::model::PartContent::Text(Cow::Borrowed(s)) => assert!(inside(s)),
        other => panic!("borrowed text expected, got {other:?}"),
    }
    // An escaped string cannot be borrowed; it is the only copy.
    assert!(
        matches!(&parts[1].content, a2a_core::model::PartContent::Text(Cow::Owned(s)) if s == "esc\"aped")
    );
    match &parts[2].content {
        a2a_core::model::PartContent::Data(j) => {
            assert!(matches!(j.0, Cow::Borrowed(_)) && inside(j.get()));
            assert_eq!(j.get(), r#"{"big":[1,2,3]}"#);
        }
        other => panic!("data expected, got {other:?}"),
    }
    assert!(inside(t.metadata.as_ref().unwrap().get()));
}

#[test]
fn refuses_shapes_no_peer_sends() {
    let bad: &[(&str, WireForm)] = &[
        (r#"{"kind":"widget","id":"x"}"#, WireForm::JsonRpcV0_3),
        (
            r#"{"task":{"id":"t","status":{"state":"working"}},"message":{"messageId":"m","role":"user","parts":[]}}"#,
            WireForm::V1_0,
        ),
        (
            r#"{"messageId":"m","role":"user","parts":[{"text":"a","data":{}}]}"#,
            WireForm::V1_0,
        ),
        (
            r#"{"messageId":"m","role":"user","parts":[{"kind":"data","text":"a"}]}"#,
            WireForm::JsonRpcV0_3,
        ),
        (
            r#"{"messageId":"m","role":"robot","parts":[]}"#,
            WireForm::JsonRpcV0_3,
        ),
        (
            r#"{"statusUpdate":{"taskId":"t","contextId":"c"}}"#,
            WireForm::V1_0,
        ),
        (r#"[1,2]"#, WireForm::V1_0),
        (r#"{"task":"#, WireForm::V1_0),
    ];
    for (json, form) in bad {
        assert!(
            from_slice::<StreamEvent>(json.as_bytes(), *form).is_err(),
            "accepted {json}"
        );
    }
    assert!(
        from_slice::<Message>(br#"{"role":"user","parts":[]}"#, WireForm::V1_0).is_err(),
        "messageId is required"
    );
}

#[test]
fn forms_refuse_values_they_cannot_carry() {
    let mut m = Message::user_text("m", "x");
    m.parts.push(a2a_core::model::Part::from_content(
        a2a_core::model::PartContent::Data(a2a_core::model::Json::parse("[1]").unwrap()),
    ));
    assert!(to_vec(&m, WireForm::JsonRpcV0_3).is_err());
    assert!(to_vec(&m, WireForm::RestV0_3).is_err());
    assert!(to_vec(&m, WireForm::V1_0).is_ok());
    let m = Message::new("m", a2a_core::model::Role::Unspecified, vec![]);
    assert!(to_vec(&m, WireForm::JsonRpcV0_3).is_err());
}

/// The form names before the `V<major>_<minor>` scheme still compile, as values and as
/// patterns, and mean the same forms.
#[test]
#[allow(deprecated)]
fn deprecated_form_names_are_aliases() {
    use a2a_core::version::{Binding, ProtocolVersion};
    assert_eq!(WireForm::JsonRpcV0_3, WireForm::JsonRpcV0_3);
    assert_eq!(WireForm::RestV0_3, WireForm::RestV0_3);
    assert_eq!(WireForm::V1_0, WireForm::V1_0);
    let form = WireForm::new(ProtocolVersion::V1_0, Binding::HttpJson);
    assert!(matches!(form, WireForm::V1_0));
    assert!(!matches!(
        WireForm::new(ProtocolVersion::V0_3, Binding::HttpJson),
        WireForm::JsonRpcV0_3
    ));
}
