//! The card builder and the hook texts through the C ABI: what a binding gets back is the
//! card the core's own reader takes in either version, and refusals are typed.

use std::ptr::{null, null_mut};

use a2a_core::buffer::{
    a2a_buffer, a2a_buffer_bytes, a2a_buffer_free, a2a_buffer_last_error, a2a_buffer_new,
};
use a2a_core::card_builder::*;
use a2a_core::header::a2a_header;
use a2a_core::result::a2a_result;
use a2a_core::server_hooks::{a2a_server_admission_status, a2a_server_hint_text};
use a2a_core::view::a2a_str;
use a2a_core::vocab::{a2a_binding, a2a_protocol_version};

fn s(t: &str) -> a2a_str {
    a2a_str {
        ptr: t.as_ptr().cast(),
        len: t.len(),
    }
}

fn buffer() -> *mut a2a_buffer {
    let mut b = null_mut();
    assert_eq!(a2a_buffer_new(&mut b), a2a_result::A2A_OK);
    b
}

fn text(b: *const a2a_buffer) -> String {
    let v = a2a_buffer_bytes(b);
    // SAFETY: a live buffer's view, read before the next call on it.
    String::from_utf8(unsafe { std::slice::from_raw_parts(v.ptr, v.len) }.to_vec()).unwrap()
}

fn last_error(b: *const a2a_buffer) -> String {
    let v = a2a_buffer_last_error(b);
    if v.ptr.is_null() {
        return String::new();
    }
    // SAFETY: a live buffer's view.
    String::from_utf8(unsafe { std::slice::from_raw_parts(v.ptr.cast::<u8>(), v.len) }.to_vec())
        .unwrap()
}

fn new_builder(name: &str) -> *mut a2a_card_builder {
    let (d, v) = ("Echoes text", "1.2.0");
    let mut b = null_mut();
    assert_eq!(
        a2a_card_builder_new(
            name.as_ptr().cast(),
            name.len(),
            d.as_ptr().cast(),
            d.len(),
            v.as_ptr().cast(),
            v.len(),
            &mut b
        ),
        a2a_result::A2A_OK
    );
    b
}

fn add(b: *mut a2a_card_builder, url: &str, v: u32, binding: u32) -> a2a_result {
    a2a_card_builder_add_interface(b, url.as_ptr().cast(), url.len(), v, binding)
}

#[test]
fn a_card_for_both_versions_and_bindings() {
    let b = new_builder("echo");
    let (v1, v03) = (
        a2a_protocol_version::V1_0 as u32,
        a2a_protocol_version::V0_3 as u32,
    );
    let (rpc, rest) = (a2a_binding::JsonRpc as u32, a2a_binding::HttpJson as u32);
    assert_eq!(
        add(b, "http://127.0.0.1:8080/", v1, rpc),
        a2a_result::A2A_OK
    );
    assert_eq!(
        add(b, "http://127.0.0.1:8080/rest", v1, rest),
        a2a_result::A2A_OK
    );
    assert_eq!(
        add(b, "http://127.0.0.1:8080/", v03, rpc),
        a2a_result::A2A_OK
    );
    assert_eq!(
        add(b, "http://127.0.0.1:8080/rest", v03, rest),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_card_builder_set_capabilities(b, true, false),
        a2a_result::A2A_OK
    );
    let modes = [s("text/plain"), s("application/json")];
    assert_eq!(
        a2a_card_builder_set_modes(b, modes.as_ptr(), 2, modes.as_ptr(), 1),
        a2a_result::A2A_OK
    );
    let tags = [s("echo"), s("demo")];
    let examples = [s("hello")];
    let skill = a2a_card_skill {
        id: s("echo"),
        name: s("Echo"),
        description: s("Says it back"),
        tags: tags.as_ptr(),
        tags_len: 2,
        examples: examples.as_ptr(),
        examples_len: 1,
    };
    assert_eq!(a2a_card_builder_add_skill(b, &skill), a2a_result::A2A_OK);
    let out = buffer();
    assert_eq!(a2a_card_builder_build(b, out), a2a_result::A2A_OK);
    let card: serde_json::Value = serde_json::from_str(&text(out)).unwrap();
    assert_eq!(card["name"], "echo");
    assert_eq!(card["version"], "1.2.0");
    let ifaces = card["supportedInterfaces"].as_array().unwrap();
    assert_eq!(ifaces.len(), 4);
    assert_eq!(ifaces[1]["protocolBinding"], "HTTP+JSON");
    assert_eq!(ifaces[1]["protocolVersion"], "1.0");
    assert_eq!(card["url"], "http://127.0.0.1:8080/");
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(card["additionalInterfaces"][1]["transport"], "HTTP+JSON");
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], false);
    assert_eq!(
        card["defaultInputModes"],
        serde_json::json!(["text/plain", "application/json"])
    );
    assert_eq!(
        card["defaultOutputModes"],
        serde_json::json!(["text/plain"])
    );
    assert_eq!(
        card["skills"][0]["tags"],
        serde_json::json!(["echo", "demo"])
    );
    assert_eq!(card["skills"][0]["examples"], serde_json::json!(["hello"]));
    // The core's own card reader takes it.
    let parsed = a2a::card::AgentCard::parse(text(out).as_bytes()).unwrap();
    assert_eq!(parsed.interfaces.len(), 4);
    // Building again gives the same card (the builder is not consumed).
    let again = buffer();
    assert_eq!(a2a_card_builder_build(b, again), a2a_result::A2A_OK);
    assert_eq!(text(again), text(out));
    a2a_buffer_free(again);
    a2a_buffer_free(out);
    a2a_card_builder_free(b);
    a2a_card_builder_free(null_mut());
}

#[test]
fn refusals_are_typed_and_append_nothing() {
    let out = buffer();
    let b = new_builder("echo");
    assert_eq!(
        a2a_card_builder_build(b, out),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert!(
        last_error(out).contains("no interface"),
        "{}",
        last_error(out)
    );
    assert_eq!(text(out), "");
    let rpc = a2a_binding::JsonRpc as u32;
    assert_eq!(
        add(b, "http://x.example/", 77, rpc),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert_eq!(
        add(
            b,
            "http://x.example/",
            a2a_protocol_version::V1_0 as u32,
            77
        ),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert_eq!(
        add(b, "/relative", a2a_protocol_version::V1_0 as u32, rpc),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_card_builder_build(b, out),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert!(last_error(out).contains("/relative"), "{}", last_error(out));
    assert_eq!(text(out), "");
    a2a_card_builder_free(b);

    let blank = new_builder(" ");
    assert_eq!(
        add(
            blank,
            "https://a.example/",
            a2a_protocol_version::V1_0 as u32,
            rpc
        ),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_card_builder_build(blank, out),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert!(last_error(out).contains("name"), "{}", last_error(out));
    let empty_skill = a2a_card_skill {
        id: s(""),
        name: s("n"),
        description: s("d"),
        tags: null(),
        tags_len: 0,
        examples: null(),
        examples_len: 0,
    };
    assert_eq!(
        a2a_card_builder_add_skill(blank, &empty_skill),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    let bad_tags = a2a_card_skill {
        id: s("i"),
        tags_len: 3,
        ..empty_skill
    };
    assert_eq!(
        a2a_card_builder_add_skill(blank, &bad_tags),
        a2a_result::A2A_NULL_PARAMETER
    );
    let bad = [0xffu8];
    let not_utf8 = [a2a_str {
        ptr: bad.as_ptr().cast(),
        len: 1,
    }];
    assert_eq!(
        a2a_card_builder_set_modes(blank, not_utf8.as_ptr(), 1, null(), 0),
        a2a_result::A2A_INVALID_UTF8
    );
    assert_eq!(
        a2a_card_builder_add_skill(blank, null()),
        a2a_result::A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_card_builder_set_capabilities(null_mut(), true, true),
        a2a_result::A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_card_builder_build(null(), out),
        a2a_result::A2A_NULL_PARAMETER
    );
    let mut none = null_mut();
    assert_eq!(
        a2a_card_builder_new(bad.as_ptr().cast(), 1, null(), 0, null(), 0, &mut none),
        a2a_result::A2A_INVALID_UTF8
    );
    assert!(none.is_null());
    a2a_card_builder_free(blank);
    a2a_buffer_free(out);
}

#[test]
fn hint_text_is_the_stable_grammar() {
    let out = buffer();
    let (k1, v1, k2, v2) = ("reason", "quota; daily", "", "dropped");
    let pairs = [
        a2a_header {
            name: k1.as_ptr().cast(),
            name_len: k1.len(),
            value: v1.as_ptr().cast(),
            value_len: v1.len(),
        },
        a2a_header {
            name: k2.as_ptr().cast(),
            name_len: 0,
            value: v2.as_ptr().cast(),
            value_len: v2.len(),
        },
    ];
    let no = false;
    assert_eq!(
        a2a_server_hint_text(&no, pairs.as_ptr(), 2, out),
        a2a_result::A2A_OK
    );
    assert_eq!(text(out), "[retryable=false; reason=quota_ daily]");
    // The core's own classifier reads it back.
    let hint = a2a::outcome::RemoteHint::parse(&format!("failed {}", text(out))).unwrap();
    assert_eq!(hint.retryable, Some(false));
    let only = buffer();
    assert_eq!(
        a2a_server_hint_text(null(), null(), 0, only),
        a2a_result::A2A_OK
    );
    assert_eq!(text(only), "[]");
    assert_eq!(
        a2a_server_hint_text(null(), null(), 1, only),
        a2a_result::A2A_NULL_PARAMETER
    );
    a2a_buffer_free(only);
    a2a_buffer_free(out);
}

#[test]
fn the_admission_status_is_a_marked_cancel() {
    let out = buffer();
    let (t, c, m, r) = ("task-1", "ctx-1", "msg-1", "queue full");
    assert_eq!(
        a2a_server_admission_status(
            t.as_ptr().cast(),
            t.len(),
            c.as_ptr().cast(),
            c.len(),
            m.as_ptr().cast(),
            m.len(),
            r.as_ptr().cast(),
            r.len(),
            out
        ),
        a2a_result::A2A_OK
    );
    let v: serde_json::Value = serde_json::from_str(&text(out)).unwrap();
    assert_eq!(v["state"], "TASK_STATE_CANCELED");
    assert_eq!(v["message"]["taskId"], "task-1");
    assert_eq!(v["message"]["contextId"], "ctx-1");
    let said = v["message"]["parts"][0]["text"].as_str().unwrap();
    assert!(
        said.starts_with(a2a::server::ADMISSION_PREFIX) && said.ends_with("queue full"),
        "{said}"
    );
    assert_eq!(
        v["message"]["metadata"][a2a::server::CANCEL_ORIGIN_KEY],
        "admission"
    );
    assert_eq!(
        a2a_server_admission_status(null(), 1, null(), 0, null(), 0, null(), 0, out),
        a2a_result::A2A_NULL_PARAMETER
    );
    a2a_buffer_free(out);
}
