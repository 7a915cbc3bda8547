//! Server-side reading and answering: every built request golden reads back as the same
//! call; every refusal answers with the code and shape the spec (or the reference peers)
//! give; result, error and stream bodies match the examples of docs/wire.md §8.

// Case tables are tuples of borrowed headers and bodies; naming each tuple type would not help.
#![allow(clippy::type_complexity)]

use a2a_core::envelope::{CallOptions, Interface, Method, RpcId, build};
use a2a_core::model::{
    Message, SendResponse, StreamEvent, Task, TaskState, TaskStatus, TaskStatusUpdateEvent,
    WireForm, from_slice, parse_params,
};
use a2a_core::outcome::{Channel, ErrorName};
use a2a_core::server::{
    self, A2aError, CancelOrigin, ErrorId, HostPolicy, IncomingRequest, KeepAlive, Reply,
    ServerOptions,
};
use a2a_core::time::Millis;
use a2a_core::version::{Binding, ProtocolVersion};
use serde_json::{Value, json};

const ALL: ServerOptions<'static> = ServerOptions {
    v0_3: true,
    v1_0: true,
    host: None,
};

/// `headers` with `Content-Type: application/json` added when they name none (the tests
/// of other refusals send what every A2A client sends).
fn with_json<'h>(headers: &[(&'h str, &'h str)]) -> Vec<(&'h str, &'h str)> {
    let mut out = headers.to_vec();
    if !out
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
    {
        out.push(("Content-Type", "application/json"));
    }
    out
}

/// `parse_jsonrpc` under [`ALL`], with a JSON Content-Type added when none is given.
fn jsonrpc<'a>(
    headers: &[(&str, &str)],
    body: &'a [u8],
    opts: &ServerOptions<'_>,
) -> Result<IncomingRequest<'a>, Box<server::RefusedRequest>> {
    server::parse_jsonrpc(&with_json(headers), body, opts)
}

fn read(
    req: &a2a_core::envelope::Request,
    binding: Binding,
) -> Result<IncomingRequest<'_>, Box<server::RefusedRequest>> {
    let headers: Vec<(&str, &str)> = req
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    match binding {
        Binding::JsonRpc => server::parse_jsonrpc(&headers, &req.body, &ALL),
        Binding::HttpJson => {
            let target = if req.path.is_empty() {
                "/"
            } else {
                req.path.as_str()
            };
            server::parse_rest(req.method.as_str(), target, &headers, &req.body, &ALL)
        }
    }
}

#[test]
fn every_built_request_reads_back_as_the_same_call() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bindings/fixtures/requests.json"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in doc["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let version =
            ProtocolVersion::parse(case["interface"]["version"].as_str().unwrap()).unwrap();
        let binding = Binding::parse(case["interface"]["binding"].as_str().unwrap()).unwrap();
        let tenant = case["interface"]["tenant"].as_str().map(str::to_owned);
        let (method, _) =
            Method::from_jsonrpc_name(case["call"]["method"].as_str().unwrap()).unwrap();
        let params = case["call"].get("params").map(|p| p.to_string());
        let call = parse_params(
            method,
            params.as_deref().map(str::as_bytes),
            WireForm::new(version, binding),
        )
        .unwrap()
        .call;
        let iface = Interface {
            version,
            binding,
            tenant: tenant.clone(),
        };
        let req = build(
            &iface,
            &call,
            &CallOptions::with_id(RpcId::String("x-1".into())),
        )
        .unwrap();
        if binding == Binding::HttpJson
            && path_ids(&call, tenant.as_deref()).any(|i| i.contains('/'))
        {
            // Issue 21: the client encodes `/` as %2F (as it must); the server refuses an id
            // that decodes to one before a handler sees it.
            let e = read(&req, binding).map(|r| r.method).expect_err(name);
            assert_eq!(e.error.name, ErrorName::InvalidParams, "{name}");
            assert_eq!(e.response().status, 400, "{name}");
            continue;
        }
        let got = read(&req, binding).unwrap_or_else(|e| panic!("{name}: refused: {:?}", e.error));
        assert_eq!(got.version, version, "{name}");
        assert_eq!(got.binding, binding, "{name}");
        assert_eq!(got.method, method, "{name}");
        assert_eq!(got.tenant.as_deref(), tenant.as_deref(), "{name}: tenant");
        assert_eq!(got.call, call, "{name}: call");
        if binding == Binding::JsonRpc {
            assert_eq!(got.id, Some(RpcId::String("x-1".into())), "{name}");
        }
    }
}

/// The ids of a call that travel as REST path segments, and the tenant.
fn path_ids<'c>(
    call: &'c a2a_core::model::params::Call<'_>,
    tenant: Option<&'c str>,
) -> impl Iterator<Item = &'c str> {
    use a2a_core::model::params::Call;
    let ids: Vec<&str> = match call {
        Call::GetTask(p) => vec![&p.id],
        Call::CancelTask(p) | Call::SubscribeToTask(p) => vec![&p.id],
        Call::CreatePushConfig(c) => vec![&c.task_id],
        Call::GetPushConfig(r) | Call::DeletePushConfig(r) => {
            vec![&r.task_id, r.config_id.as_deref().unwrap_or("")]
        }
        Call::ListPushConfigs(p) => vec![&p.task_id],
        _ => vec![],
    };
    ids.into_iter().chain(tenant)
}

fn rpc(headers: &[(&str, &str)], body: &str) -> (Value, Option<ErrorName>) {
    match jsonrpc(headers, body.as_bytes(), &ALL) {
        Ok(_) => (Value::Null, None),
        Err(e) => {
            let r = e.response();
            assert_eq!(r.status, 200, "JSON-RPC errors are HTTP 200");
            assert_eq!(r.served.channel, Channel::Protocol);
            (serde_json::from_slice(&r.body).unwrap(), Some(e.error.name))
        }
    }
}

const V1: &[(&str, &str)] = &[("A2A-Version", "1.0")];

/// Issue 12: the request carries the caller's traceparent (valid ones only) and its
/// Idempotency-Key, on both bindings.
#[test]
fn incoming_requests_expose_traceparent_and_idempotency_key() {
    let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let body = r#"{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"book"}]}}}"#;
    let headers = [
        ("A2A-Version", "1.0"),
        ("Traceparent", tp),
        ("Idempotency-Key", " conv-9:book:12A "),
    ];
    let r = jsonrpc(&headers, body.as_bytes(), &ALL).unwrap();
    assert_eq!(r.traceparent.as_deref(), Some(tp));
    assert_eq!(r.idempotency_key.as_deref(), Some("conv-9:book:12A"));
    // An invalid traceparent is dropped (W3C: start a new trace); an empty key is no key.
    let bad = [
        ("A2A-Version", "1.0"),
        ("traceparent", "00-zzzz-00f067aa0ba902b7-01"),
        ("idempotency-key", "  "),
    ];
    let r = jsonrpc(&bad, body.as_bytes(), &ALL).unwrap();
    assert_eq!((r.traceparent, r.idempotency_key), (None, None));
    let rest_body =
        r#"{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"book"}]}}"#;
    let r = server::parse_rest(
        "POST",
        "/message:send",
        &with_json(&headers),
        rest_body.as_bytes(),
        &ALL,
    )
    .unwrap();
    assert_eq!(r.traceparent.as_deref(), Some(tp));
    assert_eq!(r.idempotency_key.as_deref(), Some("conv-9:book:12A"));
}

/// A2A service parameters are case-insensitive keys (spec 1.0 §3.2.6): whatever the case of
/// `A2A-Version` and `A2A-Extensions` (and 0.3's `X-A2A-Extensions`), they are read the same,
/// on both bindings.
#[test]
fn service_parameters_are_read_whatever_their_case() {
    let body = r#"{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"x"}]}}}"#;
    let rest_body = r#"{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"x"}]}}"#;
    for (version, extensions) in [
        ("A2A-Version", "A2A-Extensions"),
        ("a2a-version", "a2a-extensions"),
        ("A2A-VERSION", "A2A-EXTENSIONS"),
        ("a2A-vErSiOn", "x-A2A-extensions"),
    ] {
        let headers = [(version, "1.0"), (extensions, "urn:a, urn:b")];
        let r = jsonrpc(&headers, body.as_bytes(), &ALL).unwrap();
        assert_eq!(r.version, ProtocolVersion::V1_0, "{version}");
        assert_eq!(r.extensions, ["urn:a", "urn:b"], "{extensions}");
        let r = server::parse_rest(
            "POST",
            "/message:send",
            &with_json(&headers),
            rest_body.as_bytes(),
            &ALL,
        )
        .unwrap();
        assert_eq!(r.version, ProtocolVersion::V1_0, "{version}");
        assert_eq!(r.extensions, ["urn:a", "urn:b"], "{extensions}");
    }
}

#[test]
fn jsonrpc_refusals() {
    // (headers, body, expected code, expected id)
    let send10 = r#"{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}"#;
    let cases: Vec<(&[(&str, &str)], &str, i64, Value)> = vec![
        (&[], "{not json", -32700, Value::Null),
        (&[], "", -32700, Value::Null),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}"#,
            -32700,
            Value::Null,
        ),
        (
            &[],
            r#"[{"jsonrpc":"2.0","id":1,"method":"tasks/get"}]"#,
            -32600,
            Value::Null,
        ),
        (&[], r#""just a string""#, -32600, Value::Null),
        (
            &[],
            r#"{"jsonrpc":"1.0","id":3,"method":"tasks/get","params":{"id":"t"}}"#,
            -32600,
            json!(3),
        ),
        (
            &[],
            r#"{"jsonrpc":"2.0","id":true,"method":"tasks/get","params":{"id":"t"}}"#,
            -32600,
            Value::Null,
        ),
        (
            &[],
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tasks/get","params":{"id":"t"}}"#,
            -32600,
            Value::Null,
        ),
        (
            &[],
            r#"{"jsonrpc":"2.0","method":"tasks/get","params":{"id":"t"}}"#,
            -32600,
            Value::Null,
        ),
        (
            &[],
            r#"{"jsonrpc":"2.0","id":4,"method":5}"#,
            -32600,
            json!(4),
        ),
        (
            &[],
            r#"{"jsonrpc":"2.0","id":4,"method":"foo/bar","params":{}}"#,
            -32601,
            json!(4),
        ),
        (
            &[],
            r#"{"jsonrpc":"2.0","id":4,"method":"tasks/list","params":{}}"#,
            -32601,
            json!(4),
        ),
        // 1.0 method without A2A-Version: absent means 0.3 -> -32009 (Python SDK behaviour).
        (&[], send10, -32009, json!(7)),
        // Unknown version header -> -32009.
        (&[("a2a-version", "2.0")], send10, -32009, json!(7)),
        (&[("A2A-Version", "banana")], send10, -32009, json!(7)),
        // 0.3 name under A2A-Version 1.0: not a 1.0 method.
        (
            V1,
            r#"{"jsonrpc":"2.0","id":"a","method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}}"#,
            -32601,
            json!("a"),
        ),
        // invalid params
        (
            &[],
            r#"{"jsonrpc":"2.0","id":12,"method":"message/send","params":{"message":"hi"}}"#,
            -32602,
            json!(12),
        ),
        // A part naming a kind no version defines (with the pre-0.3 `type` key): refused,
        // not read as its text.
        (
            &[],
            r#"{"jsonrpc":"2.0","id":13,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"type":"unsupported_type","text":"x"}]}}}"#,
            -32602,
            json!(13),
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":14,"method":"SendMessage","params":{}}"#,
            -32602,
            json!(14),
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":14,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[]}}}"#,
            -32602,
            json!(14),
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":14,"method":"SendMessage","params":{"message":{"messageId":"m","parts":[{"text":"x"}]}}}"#,
            -32602,
            json!(14),
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":27,"method":"GetTask","params":{"id":"t","historyLength":"abc"}}"#,
            -32602,
            json!(27),
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":27,"method":"GetTask","params":[1]}"#,
            -32602,
            json!(27),
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":27,"method":"GetTask"}"#,
            -32602,
            json!(27),
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":2,"method":"GetTaskPushNotificationConfig","params":{"taskId":"t"}}"#,
            -32602,
            json!(2),
        ),
        (
            &[],
            r#"{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"data","data":[1]}]}}}"#,
            -32602,
            json!(2),
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":2,"method":"ListTasks","params":{"pageSize":500}}"#,
            -32602,
            json!(2),
        ),
    ];
    for (headers, body, code, id) in cases {
        let (resp, name) = rpc(headers, body);
        assert!(name.is_some(), "accepted {body}");
        assert_eq!(resp["jsonrpc"], "2.0", "{body}");
        assert_eq!(resp["error"]["code"], json!(code), "{body}: {resp}");
        assert_eq!(resp["id"], id, "{body}");
        assert!(
            resp["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        let v10 = headers
            .iter()
            .any(|(n, v)| n.eq_ignore_ascii_case("a2a-version") && v.starts_with('1'))
            || code == -32009;
        if v10 {
            assert_eq!(
                resp["error"]["data"][0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo",
                "{body}"
            );
            assert_eq!(resp["error"]["data"][0]["domain"], "a2a-protocol.org");
        } else {
            assert!(
                resp["error"].get("data").is_none(),
                "0.3 errors carry no ErrorInfo: {body}"
            );
        }
    }
}

#[test]
fn a_refused_request_is_an_error_saying_what_the_answer_says() {
    let err = jsonrpc(
        &[],
        br#"{"jsonrpc":"2.0","id":1,"method":"nope","params":{}}"#,
        &ALL,
    )
    .unwrap_err();
    let as_error: &dyn std::error::Error = &*err;
    assert_eq!(
        as_error.to_string(),
        format!("MethodNotFound (-32601): {}", err.error.message)
    );
    assert!(err.error.message.contains("nope"), "{}", err.error.message);
}

#[test]
fn invalid_params_carry_a_bad_request_detail() {
    // As the Python SDK answers (peer transcripts §1.3): ErrorInfo INVALID_PARAMS, then
    // google.rpc.BadRequest with the field.
    let (resp, _) = rpc(
        V1,
        r#"{"jsonrpc":"2.0","id":14,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[]}}}"#,
    );
    let data = &resp["error"]["data"];
    assert_eq!(data[0]["reason"], "INVALID_PARAMS");
    assert_eq!(
        data[1]["@type"],
        "type.googleapis.com/google.rpc.BadRequest"
    );
    assert_eq!(data[1]["fieldViolations"][0]["field"], "message.parts");
    let (s, b, _) = rest(
        "POST",
        "/message:send",
        V1,
        r#"{"message":{"messageId":"m","parts":[{"text":"x"}]}}"#,
    )
    .unwrap_err();
    assert_eq!(s, 400);
    assert_eq!(
        b["error"]["details"][1]["fieldViolations"][0]["field"],
        "message.role"
    );
    // 0.3 JSON-RPC errors carry no data at all.
    let (resp, _) = rpc(
        &[],
        r#"{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[]}}}"#,
    );
    assert!(resp["error"].get("data").is_none());
    // The spec's §8.3(c) example carries BadRequest alone; ours leads with ErrorInfo.
    let e = A2aError::new(ErrorName::InvalidParams)
        .violation("message.parts", "At least one part is required");
    let b = server::jsonrpc_error_body(ProtocolVersion::V1_0, Some(&RpcId::Number(4)), &e);
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(
        v["error"]["data"][1],
        json!({"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"message.parts","description":"At least one part is required"}]})
    );
}

#[test]
fn jsonrpc_accepts_what_peers_send() {
    // 0.3 without kind on the message, numeric and string ids, A2A-Version 1.2, snake_case.
    let ok: &[(&[(&str, &str)], &str, Method, ProtocolVersion)] = &[
        (
            &[],
            r#"{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}}"#,
            Method::SendMessage,
            ProtocolVersion::V0_3,
        ),
        // The pre-0.3 `type` key naming a kind that matches the content.
        (
            &[],
            r#"{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[{"type":"text","text":"hi"},{"type":"data","data":{}}]}}}"#,
            Method::SendMessage,
            ProtocolVersion::V0_3,
        ),
        (
            &[("A2A-Version", "")],
            r#"{"id":"x","jsonrpc":"2.0","params":{"id":"t"},"method":"tasks/resubscribe"}"#,
            Method::SubscribeToTask,
            ProtocolVersion::V0_3,
        ),
        (
            &[("a2a-version", "1.2")],
            r#"{"jsonrpc":"2.0","id":9,"method":"GetTask","params":{"id":"t","history_length":3}}"#,
            Method::GetTask,
            ProtocolVersion::V1_0,
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":9,"method":"GetExtendedAgentCard","params":null}"#,
            Method::GetExtendedAgentCard,
            ProtocolVersion::V1_0,
        ),
        (
            V1,
            r#"{"jsonrpc":"2.0","id":9,"method":"SendMessage","params":{"message":{"message_id":"m","role":1,"content":[{"text":"x"}]},"unknown":{"a":[]}}}"#,
            Method::SendMessage,
            ProtocolVersion::V1_0,
        ),
    ];
    for (headers, body, method, version) in ok {
        let r = jsonrpc(headers, body.as_bytes(), &ALL)
            .unwrap_or_else(|e| panic!("{body}: {:?}", e.error));
        assert_eq!((r.method, r.version), (*method, *version), "{body}");
    }
    let r = jsonrpc(
        &[
            ("A2A-Version", "1.0"),
            ("A2A-Extensions", "https://a/x, https://b/y,https://a/x"),
        ],
        br#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#,
        &ALL,
    )
    .unwrap();
    assert_eq!(r.extensions, ["https://a/x", "https://b/y"]);
}

#[test]
fn jsonrpc_version_switches() {
    let only03 = ServerOptions { v1_0: false, ..ALL };
    let e = jsonrpc(
        V1,
        br#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#,
        &only03,
    )
    .unwrap_err();
    assert_eq!(e.error.name, ErrorName::VersionNotSupported);
    let only10 = ServerOptions { v0_3: false, ..ALL };
    let e = jsonrpc(
        &[],
        br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}"#,
        &only10,
    )
    .unwrap_err();
    assert_eq!(e.error.name, ErrorName::VersionNotSupported);
}

/// What an HTTP+JSON request reads as: `(method, version)`, or the refusal's status, body
/// and headers. A body is sent as JSON unless `headers` name a Content-Type.
fn rest(
    verb: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<(Method, ProtocolVersion), (u16, Value, Vec<(String, String)>)> {
    if body.is_empty() {
        rest_raw(verb, target, headers, body)
    } else {
        rest_raw(verb, target, &with_json(headers), body)
    }
}

/// [`rest`] with exactly the headers given.
fn rest_raw(
    verb: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<(Method, ProtocolVersion), (u16, Value, Vec<(String, String)>)> {
    match server::parse_rest(verb, target, headers, body.as_bytes(), &ALL) {
        Ok(r) => Ok((r.method, r.version)),
        Err(e) => {
            let r = e.response();
            Err((
                r.status,
                serde_json::from_slice(&r.body).unwrap(),
                r.headers,
            ))
        }
    }
}

#[test]
fn rest_routes_and_refusals() {
    assert_eq!(
        rest("GET", "/tasks/t-1:subscribe", V1, ""),
        Ok((Method::SubscribeToTask, ProtocolVersion::V1_0))
    );
    assert_eq!(
        rest("POST", "/tasks/t-1:subscribe", V1, ""),
        Ok((Method::SubscribeToTask, ProtocolVersion::V1_0))
    );
    assert_eq!(
        rest("GET", "/v1/tasks/t-1:subscribe", &[], ""),
        Ok((Method::SubscribeToTask, ProtocolVersion::V0_3))
    );
    assert_eq!(
        rest("GET", "/tasks?A2A-Version=1.0", &[], ""),
        Ok((Method::ListTasks, ProtocolVersion::V1_0))
    );
    assert_eq!(
        rest("GET", "/acme/extendedAgentCard/", V1, ""),
        Ok((Method::GetExtendedAgentCard, ProtocolVersion::V1_0))
    );
    assert_eq!(
        rest("GET", "/v1/card", &[], ""),
        Ok((Method::GetExtendedAgentCard, ProtocolVersion::V0_3))
    );
    // A tenant named v1 under 1.0.
    assert_eq!(
        rest("GET", "/v1/tasks/t", V1, ""),
        Ok((Method::GetTask, ProtocolVersion::V1_0))
    );
    let refusals: &[(&str, &str, &[(&str, &str)], &str, u16, &str, &str)] = &[
        (
            "POST",
            "/message:send",
            &[],
            r#"{"message":{}}"#,
            400,
            "FAILED_PRECONDITION",
            "VERSION_NOT_SUPPORTED",
        ),
        (
            "POST",
            "/message:send",
            &[("A2A-Version", "0.5")],
            "{}",
            400,
            "FAILED_PRECONDITION",
            "VERSION_NOT_SUPPORTED",
        ),
        (
            "GET",
            "/tasks/nope/extra/deep",
            V1,
            "",
            404,
            "NOT_FOUND",
            "METHOD_NOT_FOUND",
        ),
        (
            "GET",
            "/v1/tasks",
            &[],
            "",
            404,
            "NOT_FOUND",
            "METHOD_NOT_FOUND",
        ),
        (
            "POST",
            "/message:send",
            V1,
            "{\"message\":",
            400,
            "INVALID_ARGUMENT",
            "JSON_PARSE",
        ),
        (
            "POST",
            "/message:send",
            V1,
            "",
            400,
            "INVALID_ARGUMENT",
            "INVALID_PARAMS",
        ),
        (
            "POST",
            "/message:send",
            V1,
            "[]",
            400,
            "INVALID_ARGUMENT",
            "INVALID_PARAMS",
        ),
        (
            "POST",
            "/message:send",
            V1,
            r#"{"message":{"messageId":"m","role":"ROLE_USER"}}"#,
            400,
            "INVALID_ARGUMENT",
            "INVALID_PARAMS",
        ),
        (
            "GET",
            "/tasks/t?historyLength=x",
            V1,
            "",
            400,
            "INVALID_ARGUMENT",
            "INVALID_PARAMS",
        ),
        (
            "GET",
            "/tasks?includeArtifacts=yes",
            V1,
            "",
            400,
            "INVALID_ARGUMENT",
            "INVALID_PARAMS",
        ),
        (
            "GET",
            "/tasks/t%ZZ",
            V1,
            "",
            400,
            "INVALID_ARGUMENT",
            "INVALID_REQUEST",
        ),
        (
            "DELETE",
            "/message:send",
            V1,
            "",
            405,
            "UNIMPLEMENTED",
            "METHOD_NOT_FOUND",
        ),
    ];
    for (verb, target, headers, body, status, grpc, reason) in refusals {
        let (s, b, h) = rest(verb, target, headers, body).expect_err(target);
        assert_eq!(s, *status, "{verb} {target}: {b}");
        assert_eq!(b["error"]["code"], json!(status), "{verb} {target}");
        assert_eq!(b["error"]["status"], *grpc, "{verb} {target}");
        assert_eq!(
            b["error"]["details"][0]["reason"], *reason,
            "{verb} {target}"
        );
        if *status == 405 {
            assert!(h.iter().any(|(n, v)| n == "Allow" && v == "POST"));
        }
    }
}

#[test]
fn rest_reads_paths_queries_and_tenants() {
    let r = server::parse_rest(
        "GET",
        "/t%20n/tasks/a%2Eb%3Ac?historyLength=4&x=1",
        V1,
        b"",
        &ALL,
    )
    .unwrap();
    assert_eq!(r.tenant.as_deref(), Some("t n"));
    match r.call {
        a2a_core::model::params::Call::GetTask(p) => {
            assert_eq!(p.id, "a.b:c");
            assert_eq!(p.history_length, Some(4));
        }
        other => panic!("{other:?}"),
    }
    let r = server::parse_rest(
        "POST",
        "/tasks/t-1:cancel",
        &with_json(V1),
        br#"{"metadata":{"why":"user"}}"#,
        &ALL,
    )
    .unwrap();
    match r.call {
        a2a_core::model::params::Call::CancelTask(p) => {
            assert_eq!(p.metadata.unwrap().get(), r#"{"why":"user"}"#)
        }
        other => panic!("{other:?}"),
    }
}

// ----------------------------------------------------------------------- answering

fn incoming(
    version: ProtocolVersion,
    binding: Binding,
    method: Method,
    id: Option<RpcId>,
) -> IncomingRequest<'static> {
    IncomingRequest {
        version,
        binding,
        method,
        id,
        call: a2a_core::model::params::Call::GetExtendedAgentCard,
        tenant: None,
        extensions: vec![],
        traceparent: None,
        idempotency_key: None,
    }
}

#[test]
fn error_bodies_match_the_reference_examples() {
    // §8.1(c), 0.3 JSON-RPC.
    let b = server::jsonrpc_error_body(
        ProtocolVersion::V0_3,
        Some(&RpcId::Number(3)),
        &A2aError::new(ErrorName::TaskNotFound),
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&b).unwrap(),
        json!({"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"Task not found"}})
    );
    let b = server::jsonrpc_error_body(
        ProtocolVersion::V0_3,
        None,
        &A2aError::new(ErrorName::ParseError),
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&b).unwrap(),
        json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Invalid JSON payload"}})
    );
    let b = server::jsonrpc_error_body(
        ProtocolVersion::V0_3,
        Some(&RpcId::Number(4)),
        &A2aError::new(ErrorName::MethodNotFound),
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&b).unwrap(),
        json!({"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}})
    );
    // §8.3(c), 1.0 JSON-RPC.
    let b = server::jsonrpc_error_body(
        ProtocolVersion::V1_0,
        Some(&RpcId::Number(3)),
        &A2aError::task_not_found("nonexistent-task-id"),
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&b).unwrap(),
        json!({"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"Task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"nonexistent-task-id"}}]}})
    );
    let b = server::jsonrpc_error_body(
        ProtocolVersion::V1_0,
        Some(&RpcId::Number(5)),
        &A2aError::new(ErrorName::VersionNotSupported),
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&b).unwrap(),
        json!({"jsonrpc":"2.0","id":5,"error":{"code":-32009,"message":"Version not supported","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org"}]}})
    );
    // §8.4(c), 1.0 HTTP+JSON.
    let e = A2aError::with_message(
        ErrorName::TaskNotFound,
        "The specified task ID does not exist or is not accessible",
    )
    .meta("taskId", "task-123")
    .meta("timestamp", "2025-11-09T10:30:00.000Z");
    let r = server::error_response(
        ProtocolVersion::V1_0,
        Binding::HttpJson,
        None,
        Some(Method::GetTask),
        &e,
    );
    assert_eq!(r.status, 404);
    assert_eq!(
        serde_json::from_slice::<Value>(&r.body).unwrap(),
        json!({"error":{"code":404,"status":"NOT_FOUND","message":"The specified task ID does not exist or is not accessible","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"task-123","timestamp":"2025-11-09T10:30:00.000Z"}}]}})
    );
    assert_eq!(
        (r.served.channel, r.served.code.as_str(), r.served.method),
        (Channel::Protocol, "TaskNotFound", Some(Method::GetTask))
    );
    let e = A2aError::with_message(
        ErrorName::VersionNotSupported,
        "A2A version '0.5' is not supported",
    );
    let r = server::error_response(ProtocolVersion::V1_0, Binding::HttpJson, None, None, &e);
    assert_eq!(r.status, 400);
    assert_eq!(
        serde_json::from_slice::<Value>(&r.body).unwrap(),
        json!({"error":{"code":400,"status":"FAILED_PRECONDITION","message":"A2A version '0.5' is not supported","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org"}]}})
    );
}

#[test]
fn http_status_table_follows_spec_v1_0_1() {
    // (name, JSON-RPC code, HTTP status, reason) from docs/wire.md §5.4.
    let table = [
        (ErrorName::TaskNotFound, -32001, 404, "TASK_NOT_FOUND"),
        (
            ErrorName::TaskNotCancelable,
            -32002,
            400,
            "TASK_NOT_CANCELABLE",
        ),
        (
            ErrorName::PushNotificationNotSupported,
            -32003,
            400,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
        ),
        (
            ErrorName::UnsupportedOperation,
            -32004,
            400,
            "UNSUPPORTED_OPERATION",
        ),
        (
            ErrorName::ContentTypeNotSupported,
            -32005,
            400,
            "CONTENT_TYPE_NOT_SUPPORTED",
        ),
        (
            ErrorName::InvalidAgentResponse,
            -32006,
            500,
            "INVALID_AGENT_RESPONSE",
        ),
        (
            ErrorName::ExtendedAgentCardNotConfigured,
            -32007,
            400,
            "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
        ),
        (
            ErrorName::ExtensionSupportRequired,
            -32008,
            400,
            "EXTENSION_SUPPORT_REQUIRED",
        ),
        (
            ErrorName::VersionNotSupported,
            -32009,
            400,
            "VERSION_NOT_SUPPORTED",
        ),
        (ErrorName::InvalidParams, -32602, 400, "INVALID_PARAMS"),
        (ErrorName::MethodNotFound, -32601, 404, "METHOD_NOT_FOUND"),
        (ErrorName::Internal, -32603, 500, "INTERNAL"),
    ];
    for (name, code, status, reason) in table {
        let e = A2aError::new(name);
        assert_eq!(
            (e.code, e.http_status(), e.reason()),
            (code, status, reason),
            "{name:?}"
        );
    }
    let e = A2aError::other(-32050, "quota");
    let r = server::error_response(
        ProtocolVersion::V1_0,
        Binding::JsonRpc,
        Some(&RpcId::Number(1)),
        None,
        &e,
    );
    assert_eq!(r.served.code, "-32050");
}

#[test]
fn results_match_the_reference_examples_and_are_classified() {
    // §8.1(a) and §8.3(a) send results, rebuilt from the parsed model.
    let body03 = br#"{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"completed"}}"#;
    let task: Task = from_slice(body03, WireForm::JsonRpcV0_3).unwrap();
    let sr = SendResponse::Task(task);
    let req = incoming(
        ProtocolVersion::V0_3,
        Binding::JsonRpc,
        Method::SendMessage,
        Some(RpcId::Number(1)),
    );
    let r = server::result_response(&req, Reply::Send(&sr)).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&r.body).unwrap(),
        json!({"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"completed"}}})
    );
    assert_eq!(
        (r.served.channel, r.served.state),
        (Channel::Task, Some(TaskState::Completed))
    );
    let req = incoming(
        ProtocolVersion::V1_0,
        Binding::JsonRpc,
        Method::SendMessage,
        Some(RpcId::Number(1)),
    );
    let r = server::result_response(&req, Reply::Send(&sr)).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&r.body).unwrap(),
        json!({"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}})
    );
    let req = incoming(
        ProtocolVersion::V1_0,
        Binding::HttpJson,
        Method::SendMessage,
        None,
    );
    let r = server::result_response(&req, Reply::Send(&sr)).unwrap();
    assert_eq!(
        r.headers,
        [("Content-Type".to_owned(), "application/a2a+json".to_owned())]
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&r.body).unwrap(),
        json!({"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}})
    );
    // Delete: JSON-RPC null, REST {} (docs/wire.md §5.1).
    let req = incoming(
        ProtocolVersion::V0_3,
        Binding::JsonRpc,
        Method::DeletePushConfig,
        Some(RpcId::Number(11)),
    );
    let r = server::result_response(&req, Reply::Deleted).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&r.body).unwrap(),
        json!({"jsonrpc":"2.0","id":11,"result":null})
    );
    assert_eq!(r.served.channel, Channel::Message);
    let req = incoming(
        ProtocolVersion::V1_0,
        Binding::HttpJson,
        Method::DeletePushConfig,
        None,
    );
    assert_eq!(
        server::result_response(&req, Reply::Deleted).unwrap().body,
        b"{}"
    );
    // A direct message.
    let m = SendResponse::Message(Message::new(
        "m-2",
        a2a_core::model::Role::Agent,
        vec![a2a_core::model::Part::text("Hi!")],
    ));
    let req = incoming(
        ProtocolVersion::V1_0,
        Binding::JsonRpc,
        Method::SendMessage,
        Some(RpcId::Number(1)),
    );
    let r = server::result_response(&req, Reply::Send(&m)).unwrap();
    assert_eq!(r.served.channel, Channel::Message);
    assert_eq!(
        serde_json::from_slice::<Value>(&r.body).unwrap(),
        json!({"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"m-2","role":"ROLE_AGENT","parts":[{"text":"Hi!"}]}}})
    );
}

#[test]
fn stream_frames_match_the_reference_examples() {
    // §8.1(b) last event and §8.3(b) second event, as SSE frames.
    let ev03: StreamEvent = from_slice(br#"{"kind":"status-update","taskId":"t-1","contextId":"c-1","status":{"state":"completed","timestamp":"2025-04-02T16:59:35.331Z"},"final":true}"#, WireForm::JsonRpcV0_3).unwrap();
    let req = incoming(
        ProtocolVersion::V0_3,
        Binding::JsonRpc,
        Method::SendStreamingMessage,
        Some(RpcId::Number(2)),
    );
    let f = server::event_frame(&req, &ev03).unwrap();
    let text = std::str::from_utf8(&f.bytes).unwrap();
    assert!(
        text.starts_with("data: ") && text.ends_with("\n\n") && text.matches('\n').count() == 2,
        "{text:?}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text[6..text.len() - 2]).unwrap(),
        json!({"jsonrpc":"2.0","id":2,"result":{"kind":"status-update","taskId":"t-1","contextId":"c-1","status":{"state":"completed","timestamp":"2025-04-02T16:59:35.331Z"},"final":true}})
    );
    assert_eq!(
        (f.served.channel, f.served.state),
        (Channel::Task, Some(TaskState::Completed))
    );
    let req = incoming(
        ProtocolVersion::V1_0,
        Binding::HttpJson,
        Method::SubscribeToTask,
        None,
    );
    let f = server::event_frame(&req, &ev03).unwrap();
    let text = std::str::from_utf8(&f.bytes).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&text[6..text.len() - 2]).unwrap(),
        json!({"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2025-04-02T16:59:35.331Z"}}})
    );
    // Errors after the stream started: 1.0 `event: error`, 0.3 plain data (peer transcripts §1.5).
    let e = A2aError::with_message(ErrorName::Internal, "boom");
    let req = incoming(
        ProtocolVersion::V1_0,
        Binding::JsonRpc,
        Method::SendStreamingMessage,
        Some(RpcId::Number(26)),
    );
    let f = server::error_frame(&req, &e);
    assert!(f.bytes.starts_with(b"event: error\ndata: {"));
    let req = incoming(
        ProtocolVersion::V0_3,
        Binding::JsonRpc,
        Method::SendStreamingMessage,
        Some(RpcId::Number(80)),
    );
    let f = server::error_frame(&req, &e);
    assert!(
        f.bytes
            .starts_with(b"data: {\"jsonrpc\":\"2.0\",\"id\":80,\"error\":{\"code\":-32603")
    );
    assert_eq!(f.served.code, "Internal");
    // Headers.
    let h = server::stream_headers();
    assert!(h.contains(&("Content-Type".into(), "text/event-stream".into())));
    assert!(h.contains(&("Cache-Control".into(), "no-store".into())));
    assert!(h.contains(&("X-Accel-Buffering".into(), "no".into())));
    assert!(
        !h.iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("content-encoding"))
    );
}

#[test]
fn sse_frames_decode_back_with_the_sse_decoder() {
    let mut out = Vec::new();
    server::write_event(&mut out, Some("error"), b"a\r\nb\rc\nd");
    assert_eq!(out, b"event: error\ndata: a\ndata: b\ndata: c\ndata: d\n\n");
    server::write_event(&mut out, Some("bad\r\ntype"), b"");
    out.extend_from_slice(KeepAlive::COMMENT);
    let req = incoming(
        ProtocolVersion::V1_0,
        Binding::JsonRpc,
        Method::SendStreamingMessage,
        Some(RpcId::String("s-1".into())),
    );
    let ev: StreamEvent = from_slice(br#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#, WireForm::V1_0).unwrap();
    out.extend_from_slice(&server::event_frame(&req, &ev).unwrap().bytes);
    let mut dec = a2a_core::sse::Decoder::new();
    let mut feed = dec.feed(&out);
    let mut events = Vec::new();
    let mut comments = 0;
    while let Some(item) = feed.next_item().unwrap() {
        match item {
            a2a_core::sse::Item::Event(e) => events.push((
                e.event_type_lossy().into_owned(),
                e.data_lossy().into_owned(),
            )),
            a2a_core::sse::Item::Comment(_) => comments += 1,
            _ => {}
        }
    }
    assert_eq!(comments, 1);
    assert_eq!(events.len(), 3);
    assert_eq!(events[0], ("error".to_owned(), "a\nb\nc\nd".to_owned()));
    assert_eq!(events[1], ("badtype".to_owned(), String::new()));
    assert_eq!(events[2].0, "message");
    let v: Value = serde_json::from_str(&events[2].1).unwrap();
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","id":"s-1","result":{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}})
    );
}

#[test]
fn keep_alive_schedule() {
    let k = KeepAlive {
        interval: Millis(15_000),
    };
    assert_eq!(k.next_due(Millis(1_000)), Millis(16_000));
    assert!(!k.is_due(Millis(15_999), Millis(1_000)));
    assert!(k.is_due(Millis(16_000), Millis(1_000)));
    assert_eq!(k.wait(Millis(10_000), Millis(1_000)), Millis(6_000));
    assert_eq!(k.wait(Millis(20_000), Millis(1_000)), Millis(0));
    assert_eq!(k.next_due(Millis(u64::MAX)), Millis(u64::MAX));
    assert_eq!(KeepAlive::COMMENT, b": keep-alive\n\n");
    assert_eq!(KeepAlive::default().interval, Millis(15_000));
}

#[test]
fn failed_status_the_adk_way() {
    let id = ErrorId::from_random([0x7d, 0xac, 0x02, 0xa7, 0x50, 0xa9]);
    assert_eq!(id.as_str(), "7dac02a750a9");
    assert_eq!(ErrorId::parse("7dac02a750a9"), Some(id));
    assert_eq!(ErrorId::parse("7DAC02A750A9"), None);
    assert_eq!(ErrorId::parse("7dac02a750a"), None);
    let (ev, used) = server::failed_update("t-1", "c-1", "m-9", id, None, None);
    assert_eq!(used, id);
    assert!(ev.is_final);
    assert_eq!(ev.status.state, TaskState::Failed);
    // The exact text the peers' `fail` command produces (docs/peers.md §1.4).
    assert_eq!(
        ev.status.message.as_ref().unwrap().text().unwrap(),
        "Agent execution failed. (error_id: 7dac02a750a9)"
    );
    let hint = a2a_core::outcome::RemoteHint {
        retryable: Some(false),
        pairs: vec![("reason".into(), "quo;ta".into())],
    };
    let text = server::failure_text(id, Some("KeyError: 'x'"), Some(&hint));
    assert_eq!(
        text,
        "Agent execution failed. (error_id: 7dac02a750a9): KeyError: 'x' [retryable=false; reason=quo_ta]"
    );
    let text = server::failure_text(
        id,
        None,
        Some(&a2a_core::outcome::RemoteHint {
            retryable: Some(true),
            pairs: vec![],
        }),
    );
    assert_eq!(
        text,
        "Agent execution failed. (error_id: 7dac02a750a9) [retryable=true]"
    );
    // Written in 1.0 it is what the 1.0 `fail` transcript shows.
    let req = incoming(
        ProtocolVersion::V1_0,
        Binding::JsonRpc,
        Method::SendStreamingMessage,
        Some(RpcId::Number(52)),
    );
    let f = server::event_frame(&req, &StreamEvent::StatusUpdate(ev)).unwrap();
    assert_eq!(f.served.state, Some(TaskState::Failed));
    let text = std::str::from_utf8(&f.bytes).unwrap();
    let v: Value = serde_json::from_str(&text[6..text.len() - 2]).unwrap();
    assert_eq!(
        v["result"]["statusUpdate"]["status"]["message"]["role"],
        "ROLE_AGENT"
    );
    assert_eq!(
        v["result"]["statusUpdate"]["status"]["message"]["parts"][0]["text"],
        "Agent execution failed. (error_id: 7dac02a750a9)"
    );
}

#[test]
fn admission_and_requested_cancels_are_told_apart() {
    let a = server::admission_canceled("t", "c", "m", "queue full");
    let r = server::requested_cancel("t", "c", "m");
    assert_eq!(a.state, TaskState::Canceled);
    assert_eq!(r.state, TaskState::Canceled);
    assert_eq!(server::cancel_origin(&a), Some(CancelOrigin::Admission));
    assert_eq!(server::cancel_origin(&r), Some(CancelOrigin::Requested));
    assert_eq!(
        a.message.as_ref().unwrap().text().unwrap(),
        "Refused before running: queue full"
    );
    // Survives every wire form (0.3 JSON-RPC carries message metadata too).
    for form in WireForm::ALL {
        let ev = TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            status: a.clone(),
            is_final: true,
            metadata: None,
        };
        let bytes = a2a_core::model::to_vec(&ev, form).unwrap();
        let back: TaskStatusUpdateEvent = from_slice(&bytes, form).unwrap();
        assert_eq!(
            server::cancel_origin(&back.status),
            Some(CancelOrigin::Admission),
            "{form:?}"
        );
    }
    // A peer that drops metadata: the text still tells.
    let mut stripped = a.clone();
    stripped.message.as_mut().unwrap().metadata = None;
    assert_eq!(
        server::cancel_origin(&stripped),
        Some(CancelOrigin::Admission)
    );
    assert_eq!(
        server::cancel_origin(&TaskStatus::new(TaskState::Canceled)),
        None
    );
    assert_eq!(
        server::cancel_origin(&TaskStatus::new(TaskState::Failed)),
        None
    );
}

// ------------------------------------------------------------------- issue 21 (hardening)

const JSON: (&str, &str) = ("Content-Type", "application/json");

/// Issue 21: a JSON-RPC batch (an array) is refused with one error object, id null, even
/// when its elements would read positionally as the envelope's fields.
#[test]
fn issue21_array_bodies_are_refused_as_batches() {
    for body in [
        r#"["2.0",1,"tasks/get",{"id":"t"}]"#,
        r#"  [{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}]"#,
        "[]",
    ] {
        let e = server::parse_jsonrpc(&[JSON], body.as_bytes(), &ALL)
            .map(|r| r.method)
            .expect_err(body);
        assert_eq!(e.error.name, ErrorName::InvalidRequest, "{body}");
        assert!(
            e.error.message.contains("atch"),
            "{body}: {}",
            e.error.message
        );
        let r = e.response();
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        assert!(v.is_object(), "one error object, not an array: {v}");
        assert_eq!(v["id"], Value::Null);
        assert_eq!(v["error"]["code"], -32600);
    }
}

/// Issue 21: a JSON-RPC body that is not declared JSON is refused with 415, so that a web
/// page cannot drive the agent with a CORS "simple" request (no preflight).
#[test]
fn issue21_jsonrpc_needs_a_json_content_type() {
    let get = r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}"#;
    let refused: &[&[(&str, &str)]] = &[
        &[],
        &[("Content-Type", "text/plain")],
        &[("content-type", "text/plain;charset=UTF-8")],
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &[("Content-Type", "multipart/form-data; boundary=x")],
        &[("Content-Type", "application/jsonx")],
        &[("Content-Type", "")],
        &[JSON, JSON],
    ];
    for headers in refused {
        let e = server::parse_jsonrpc(headers, get.as_bytes(), &ALL)
            .map(|r| r.method)
            .expect_err(&format!("{headers:?}"));
        assert_eq!(
            e.error.name,
            ErrorName::ContentTypeNotSupported,
            "{headers:?}"
        );
        let r = e.response();
        assert_eq!(r.status, 415, "{headers:?}");
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["error"]["code"], -32005, "{headers:?}: {v}");
        assert_eq!(v["id"], Value::Null);
        assert!(
            v["error"].get("data").is_none(),
            "a 0.3 request: no ErrorInfo"
        );
    }
    // In 1.0 the refusal carries its ErrorInfo reason.
    let e = server::parse_jsonrpc(
        &[("A2A-Version", "1.0"), ("Content-Type", "text/plain")],
        br#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#,
        &ALL,
    )
    .map(|r| r.method)
    .unwrap_err();
    let v: Value = serde_json::from_slice(&e.response().body).unwrap();
    assert_eq!(
        v["error"]["data"][0]["reason"],
        "CONTENT_TYPE_NOT_SUPPORTED"
    );
    let accepted: &[&[(&str, &str)]] = &[
        &[JSON],
        &[("content-type", "Application/JSON; charset=utf-8")],
        &[("Content-Type", " application/json ;charset=\"utf-8\"")],
        &[("Content-Type", "application/a2a+json")],
    ];
    for headers in accepted {
        server::parse_jsonrpc(headers, get.as_bytes(), &ALL)
            .unwrap_or_else(|e| panic!("{headers:?}: {:?}", e.error));
    }
}

/// Issue 21: an HTTP+JSON body must be declared JSON too; a bodyless request needs no
/// Content-Type, but a bodyless POST naming another type (an HTML form) is refused.
#[test]
fn issue21_rest_bodies_need_a_json_content_type() {
    let send = r#"{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}"#;
    let ct = |v: &'static str| [("A2A-Version", "1.0"), ("Content-Type", v)];
    for (verb, target, headers, body) in [
        ("POST", "/message:send", V1, send),
        ("POST", "/message:send", &ct("text/plain")[..], send),
        ("POST", "/tasks/t-1:cancel", &ct("text/plain")[..], "{}"),
        (
            "POST",
            "/tasks/t-1:cancel",
            &ct("application/x-www-form-urlencoded")[..],
            "",
        ),
        (
            "POST",
            "/v1/message:send",
            &[("Content-Type", "text/plain")][..],
            send,
        ),
    ] {
        let (status, b, _) = rest_raw(verb, target, headers, body).expect_err(target);
        assert_eq!(status, 415, "{verb} {target} {headers:?}: {b}");
        assert_eq!(b["error"]["code"], 415);
        assert_eq!(
            b["error"]["details"][0]["reason"], "CONTENT_TYPE_NOT_SUPPORTED",
            "{b}"
        );
    }
    for (verb, target, headers, body) in [
        (
            "POST",
            "/message:send",
            &ct("application/a2a+json")[..],
            send,
        ),
        (
            "POST",
            "/message:send",
            &ct("application/json; charset=utf-8")[..],
            send,
        ),
        ("POST", "/tasks/t-1:subscribe", V1, ""),
        ("POST", "/tasks/t-1:cancel", V1, ""),
        ("GET", "/tasks/t-1", V1, ""),
        ("GET", "/tasks/t-1", &ct("text/plain")[..], ""),
    ] {
        rest_raw(verb, target, headers, body).unwrap_or_else(|e| panic!("{verb} {target}: {e:?}"));
    }
}

/// Issue 21: a REST id that decodes to `/`, a control character, `.` or `..` is refused
/// before a handler sees it (it could walk a path or split a header line there).
#[test]
fn issue21_rest_ids_that_decode_to_separators_or_controls_are_refused() {
    for target in [
        "/tasks/a%2Fb",
        "/tasks/a%2fb:subscribe",
        "/tasks/a%00b",
        "/tasks/a%0D%0Ab",
        "/tasks/a%09b",
        "/tasks/a%7Fb",
        "/tasks/a%C2%85b",
        "/tasks/%2E%2E",
        "/tasks/..",
        "/tasks/%2e",
        "/tasks/t-1/pushNotificationConfigs/c%2F1",
        "/tasks/t%0A1/pushNotificationConfigs",
        "/acme%2Fx/tasks/t-1",
        "/%2E%2E/tasks/t-1",
    ] {
        let (status, b, _) = rest("GET", target, V1, "").expect_err(target);
        assert_eq!(status, 400, "{target}: {b}");
        assert_eq!(
            b["error"]["details"][0]["reason"], "INVALID_PARAMS",
            "{target}"
        );
    }
    let e = server::parse_rest("GET", "/v1/tasks/a%2Fb", &[], b"", &ALL)
        .map(|r| r.method)
        .unwrap_err();
    assert_eq!(e.error.name, ErrorName::InvalidParams);
    // Dots inside an id, spaces, colons and non-ASCII letters are fine.
    for (target, id) in [
        ("/tasks/a.b", "a.b"),
        ("/tasks/...", "..."),
        ("/tasks/a%20b%3Ac", "a b:c"),
        ("/tasks/%C3%A9t%C3%A9", "été"),
    ] {
        let r = server::parse_rest("GET", target, V1, b"", &ALL).unwrap();
        match r.call {
            a2a_core::model::params::Call::GetTask(p) => assert_eq!(p.id, id),
            other => panic!("{other:?}"),
        }
    }
}

/// Issue 21: with a Host policy, a loopback server answers only for its own address and
/// the names it lists (DNS rebinding: the browser sends the attacker's name as Host), on
/// both bindings, before the body is read; without one nothing changes.
#[test]
fn issue21_a_loopback_server_refuses_a_foreign_host() {
    let policy = HostPolicy::new("127.0.0.1:8080".parse().unwrap())
        .unwrap()
        .name("agent.example.com")
        .unwrap();
    let opts = ServerOptions {
        host: Some(&policy),
        ..ALL
    };
    let get = br#"{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"id":"t"}}"#;
    let host = |h: &'static str| [JSON, ("Host", h)];
    for ok in [
        "127.0.0.1:8080",
        "localhost:8080",
        "[::1]:8080",
        "agent.example.com",
    ] {
        server::parse_jsonrpc(&host(ok), get, &opts)
            .unwrap_or_else(|e| panic!("{ok}: {:?}", e.error));
        server::parse_rest("GET", "/v1/tasks/t", &[("Host", ok)], b"", &opts)
            .unwrap_or_else(|e| panic!("{ok}: {:?}", e.error));
    }
    for (bad, status) in [
        ("attacker.example:8080", 421),
        ("attacker.example", 421),
        ("127.0.0.1:9999", 421),
        ("127.0.0.1:8080/x", 400),
    ] {
        // Refused before the body: even garbage gets the Host answer.
        let e = server::parse_jsonrpc(&host(bad), b"{garbage", &opts)
            .map(|r| r.method)
            .expect_err(bad);
        assert_eq!(e.error.name, ErrorName::InvalidRequest, "{bad}");
        let r = e.response();
        assert_eq!(r.status, status, "{bad}");
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["error"]["code"], -32600, "{bad}: {v}");
        assert_eq!(v["id"], Value::Null);
        let e = server::parse_rest(
            "GET",
            "/tasks/t",
            &[("A2A-Version", "1.0"), ("Host", bad)],
            b"",
            &opts,
        )
        .map(|r| r.method)
        .expect_err(bad);
        let r = e.response();
        assert_eq!(r.status, status, "{bad}");
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["error"]["code"], status, "{bad}: {v}");
        assert_eq!(v["error"]["details"][0]["reason"], "INVALID_REQUEST");
    }
    // A missing Host is 400 (RFC 9112 §3.2) when the check is on, ignored when it is off.
    let e = server::parse_jsonrpc(&[JSON], get, &opts)
        .map(|r| r.method)
        .unwrap_err();
    assert_eq!(e.response().status, 400);
    assert!(server::parse_jsonrpc(&host("attacker.example"), get, &ALL).is_ok());
}

/// Issue 25: every range and format the spec names for request parameters is checked on
/// both bindings and both versions, answered InvalidParams (-32602, HTTP 400) with a
/// BadRequest field violation naming the field.
#[test]
fn parameter_ranges_and_formats_are_validated() {
    let field_of = |v: &Value| {
        v.pointer("/error/data/1/fieldViolations/0/field")
            .or_else(|| v.pointer("/error/details/1/fieldViolations/0/field"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    // JSON-RPC, 1.0 and 0.3.
    let cases: Vec<(&[(&str, &str)], &str, Option<&str>)> = vec![
        (
            V1,
            r#"{"id":"t","historyLength":-1}"#,
            Some("historyLength"),
        ),
        (V1, r#"{"id":"t","historyLength":0}"#, None),
        (V1, r#"{"id":"t","historyLength":5}"#, None),
    ];
    for (headers, params, want) in cases {
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{params}}}"#);
        let (v, err) = rpc(headers, &body);
        assert_eq!(err.is_some(), want.is_some(), "{params}: {v}");
        if let Some(field) = want {
            assert_eq!(v["error"]["code"], -32602, "{v}");
            assert_eq!(field_of(&v).as_deref(), Some(field), "{v}");
        }
    }
    let (v, _) = rpc(
        &[],
        r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t","historyLength":-3}}"#,
    );
    assert_eq!(v["error"]["code"], -32602, "0.3 too: {v}");
    let send = |config: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{{"message":{{"messageId":"m","role":"ROLE_USER","parts":[{{"text":"hi"}}]}},"configuration":{config}}}}}"#
        )
    };
    let (v, err) = rpc(V1, &send(r#"{"historyLength":-1}"#));
    assert_eq!(err, Some(ErrorName::InvalidParams), "{v}");
    assert_eq!(field_of(&v).as_deref(), Some("configuration.historyLength"));
    assert_eq!(rpc(V1, &send(r#"{"historyLength":2}"#)).1, None);
    let list = |params: &str| {
        rpc(
            V1,
            &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{params}}}"#),
        )
    };
    for (params, field) in [
        (r#"{"pageSize":0}"#, "pageSize"),
        (r#"{"pageSize":101}"#, "pageSize"),
        (r#"{"historyLength":-1}"#, "historyLength"),
        (
            r#"{"statusTimestampAfter":"yesterday"}"#,
            "statusTimestampAfter",
        ),
        (
            r#"{"statusTimestampAfter":"2025-13-01T00:00:00Z"}"#,
            "statusTimestampAfter",
        ),
        (
            r#"{"statusTimestampAfter":"2025-10-27 10:00:00"}"#,
            "statusTimestampAfter",
        ),
        (r#"{"status":"TASK_STATE_RUNNING"}"#, "status"),
    ] {
        let (v, err) = list(params);
        assert_eq!(err, Some(ErrorName::InvalidParams), "{params}: {v}");
        assert_eq!(field_of(&v).as_deref(), Some(field), "{params}: {v}");
    }
    for params in [
        r#"{"pageSize":1,"historyLength":0}"#,
        r#"{"pageSize":100}"#,
        r#"{"statusTimestampAfter":"2025-10-27T10:00:00Z"}"#,
        r#"{"statusTimestampAfter":"2025-10-27T12:00:00.123+02:00"}"#,
        r#"{"status":"TASK_STATE_WORKING","includeArtifacts":true}"#,
    ] {
        assert_eq!(list(params).1, None, "{params}");
    }
    // HTTP+JSON, from the query.
    for target in [
        "/tasks/t-1?historyLength=-1",
        "/tasks?historyLength=-2",
        "/tasks?pageSize=0",
        "/tasks?statusTimestampAfter=not-a-time",
        "/tasks?status=running",
        "/tasks/t-1/pushNotificationConfigs?pageSize=500",
    ] {
        let (status, body, _) = rest("GET", target, V1, "").expect_err(target);
        assert_eq!(status, 400, "{target}: {body}");
        assert!(field_of(&body).is_some(), "{target}: {body}");
    }
    assert!(rest("GET", "/v1/tasks/t-1?historyLength=-1", &[], "").is_err());
    assert!(
        rest(
            "GET",
            "/tasks?statusTimestampAfter=2025-10-27T10:00:00Z&pageSize=5",
            V1,
            ""
        )
        .is_ok()
    );
}

/// Issue 25: `parse_timestamp` reads RFC 3339 (any offset) to Unix milliseconds.
#[test]
fn timestamps_read_as_rfc_3339() {
    assert_eq!(server::parse_timestamp("1970-01-01T00:00:01Z"), Some(1000));
    assert_eq!(
        server::parse_timestamp("1970-01-01T02:00:01.5+02:00"),
        Some(1500)
    );
    assert_eq!(server::parse_timestamp("1969-12-31T23:59:59Z"), Some(-1000));
    for bad in [
        "",
        "1970-01-01",
        "01/02/2025",
        "1970-01-01T00:00:00",
        "yesterday",
    ] {
        assert_eq!(server::parse_timestamp(bad), None, "{bad}");
    }
}

/// Issue 25: the envelope is read in JSON-RPC 2.0's order. A request without an id is a
/// notification in JSON-RPC 2.0, which A2A does not have: a known method with valid params
/// and no id is InvalidRequest (id null), an unknown one MethodNotFound, bad params
/// InvalidParams, and a malformed envelope InvalidRequest whatever the id.
#[test]
fn a_request_without_an_id_is_answered_after_the_method_is_known() {
    let (v, err) = rpc(
        V1,
        r#"{"jsonrpc":"2.0","method":"GetTask","params":{"id":"t"}}"#,
    );
    assert_eq!(err, Some(ErrorName::InvalidRequest), "{v}");
    assert_eq!(v["id"], Value::Null);
    let (v, err) = rpc(V1, r#"{"jsonrpc":"2.0","method":"NoSuchMethod"}"#);
    assert_eq!(err, Some(ErrorName::MethodNotFound), "{v}");
    let (v, err) = rpc(
        &[],
        r#"{"jsonrpc":"2.0","method":"message/send","params":{"":"not a message"}}"#,
    );
    assert_eq!(err, Some(ErrorName::InvalidParams), "{v}");
    assert_eq!(v["id"], Value::Null);
    let (_, err) = rpc(V1, r#"{"jsonrpc":"2.0","params":{}}"#);
    assert_eq!(err, Some(ErrorName::InvalidRequest));
    let (v, err) = rpc(V1, r#"{"jsonrpc":"2.0","id":4,"method":"NoSuchMethod"}"#);
    assert_eq!(err, Some(ErrorName::MethodNotFound));
    assert_eq!(v["id"], 4, "a readable id is echoed");
    let (v, err) = rpc(
        V1,
        r#"{"jsonrpc":"2.0","id":{"x":1},"method":"NoSuchMethod"}"#,
    );
    assert_eq!(
        err,
        Some(ErrorName::InvalidRequest),
        "a malformed id first: {v}"
    );
}
