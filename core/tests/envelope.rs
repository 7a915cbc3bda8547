//! Request builder behaviour beyond the goldens: ids, retries, refusals, header safety.

use a2a_core::envelope::{
    BuildError, CallOptions, IdGenerator, Interface, Method, RpcId, build, text_message,
};
use a2a_core::model::params::*;
use a2a_core::model::{
    Json, PushAuthentication, PushNotificationConfig, TaskPushNotificationConfig,
};
use a2a_core::version::{Binding, ProtocolVersion};
use serde_json::{Value, json};

const V03: ProtocolVersion = ProtocolVersion::V0_3;
const V10: ProtocolVersion = ProtocolVersion::V1_0;

fn body(r: &a2a_core::envelope::Request) -> Value {
    serde_json::from_slice(&r.body).unwrap()
}

#[test]
fn generated_ids_are_strings_from_the_seed_and_a_counter() {
    let mut g = IdGenerator::new(0xdead_beef);
    assert_eq!(g.next_id(), RpcId::String("00000000deadbeef-1".into()));
    assert_eq!(g.next_id(), RpcId::String("00000000deadbeef-2".into()));
    let mut other = IdGenerator::new(1);
    assert_ne!(other.next_id(), IdGenerator::new(0xdead_beef).next_id());
}

#[test]
fn a_retry_reuses_the_message_id_with_a_new_rpc_id() {
    let call = text_message("msg-42", "hello");
    let iface = Interface::new(V10, Binding::JsonRpc);
    let mut ids = IdGenerator::new(7);
    let first = build(&iface, &call, &CallOptions::with_id(ids.next_id())).unwrap();
    let retry = build(&iface, &call, &CallOptions::with_id(ids.next_id())).unwrap();
    assert_ne!(body(&first)["id"], body(&retry)["id"]);
    assert_eq!(body(&first)["params"]["message"]["messageId"], "msg-42");
    assert_eq!(
        body(&retry)["params"]["message"],
        body(&first)["params"]["message"]
    );
    assert_eq!(
        retry.rpc_id,
        Some(RpcId::String("0000000000000007-2".into()))
    );
    assert_eq!(retry.a2a_method, Method::SendMessage);
    // The convenience message is a user text message in every form.
    let r = build(
        &Interface::new(V03, Binding::JsonRpc),
        &call,
        &CallOptions::with_id(RpcId::Number(1)),
    )
    .unwrap();
    assert_eq!(
        body(&r)["params"]["message"],
        json!({"kind":"message","messageId":"msg-42","role":"user","parts":[{"kind":"text","text":"hello"}]})
    );
    let r = build(
        &Interface::new(V03, Binding::HttpJson),
        &call,
        &CallOptions::default(),
    )
    .unwrap();
    assert_eq!(
        body(&r)["message"],
        json!({"messageId":"msg-42","role":"ROLE_USER","content":[{"text":"hello"}]})
    );
}

#[test]
fn refusals_say_what_is_wrong() {
    let j10 = Interface::new(V10, Binding::JsonRpc);
    let call = text_message("m", "x");
    let id = || CallOptions::with_id(RpcId::Number(1));
    assert!(matches!(
        build(&j10, &call, &CallOptions::default()),
        Err(BuildError::MissingId)
    ));
    let list = Call::ListTasks(ListTasksParams::default());
    for b in [Binding::JsonRpc, Binding::HttpJson] {
        assert!(matches!(
            build(&Interface::new(V03, b), &list, &id()),
            Err(BuildError::NotInVersion { .. })
        ));
    }
    let tenant03 = Interface {
        version: V03,
        binding: Binding::JsonRpc,
        tenant: Some("acme".into()),
    };
    assert!(matches!(
        build(&tenant03, &call, &id()),
        Err(BuildError::NotRepresentable(_))
    ));
    // An empty tenant means unset.
    let empty = Interface {
        version: V03,
        binding: Binding::JsonRpc,
        tenant: Some(String::new()),
    };
    assert!(build(&empty, &call, &id()).is_ok());
    let bad_headers: [(&str, &str); 4] = [
        ("X-Ok", "a\r\nInjected: 1"),
        ("Bad Name", "v"),
        ("", "v"),
        ("X", "nul\0"),
    ];
    for h in bad_headers {
        let opts = CallOptions {
            id: Some(RpcId::Number(1)),
            extensions: &[],
            headers: &[h],
        };
        assert!(
            matches!(build(&j10, &call, &opts), Err(BuildError::BadHeader(_))),
            "{h:?}"
        );
    }
    for name in [
        "content-type",
        "A2A-Version",
        "Host",
        "accept",
        "Content-Length",
        "Connection",
        "Upgrade",
    ] {
        let headers = [(name, "v")];
        let opts = CallOptions {
            id: Some(RpcId::Number(1)),
            extensions: &[],
            headers: &headers,
        };
        assert!(
            matches!(
                build(&j10, &call, &opts),
                Err(BuildError::ReservedHeader(_))
            ),
            "{name}"
        );
    }
    // The extensions header is the caller's unless the `extensions` option writes it too.
    let exts = ["urn:a"];
    for name in ["A2A-Extensions", "x-a2a-extensions"] {
        let headers = [(name, "urn:b")];
        let mut opts = CallOptions {
            id: Some(RpcId::Number(1)),
            extensions: &[],
            headers: &headers,
        };
        let built = build(&j10, &call, &opts).unwrap();
        assert_eq!(built.header(name), Some("urn:b"));
        opts.extensions = &exts;
        assert!(
            matches!(
                build(&j10, &call, &opts),
                Err(BuildError::ReservedHeader(_))
            ),
            "{name}"
        );
    }
    for ext in ["a,b", "", " padded", "x\ny"] {
        let exts = [ext];
        let opts = CallOptions {
            id: Some(RpcId::Number(1)),
            extensions: &exts,
            headers: &[],
        };
        assert!(
            matches!(build(&j10, &call, &opts), Err(BuildError::BadExtension(_))),
            "{ext:?}"
        );
    }
    // Fields a version or binding cannot carry.
    let meta = Some(Json::parse(r#"{"a":1}"#).unwrap());
    let get_meta = Call::GetTask(GetTaskParams {
        id: "t".into(),
        history_length: None,
        metadata: meta.clone(),
    });
    assert!(matches!(
        build(&j10, &get_meta, &id()),
        Err(BuildError::NotRepresentable(_))
    ));
    assert!(matches!(
        build(&Interface::new(V03, Binding::HttpJson), &get_meta, &id()),
        Err(BuildError::NotRepresentable(_))
    ));
    assert!(build(&Interface::new(V03, Binding::JsonRpc), &get_meta, &id()).is_ok());
    let del = Call::DeletePushConfig(PushConfigRef {
        task_id: "t".into(),
        config_id: None,
        metadata: None,
    });
    assert!(matches!(
        build(&j10, &del, &id()),
        Err(BuildError::NotRepresentable(_))
    ));
    let two_schemes = Call::CreatePushConfig(TaskPushNotificationConfig {
        task_id: "t".into(),
        config: PushNotificationConfig {
            authentication: Some(PushAuthentication {
                schemes: vec!["Bearer".into(), "Basic".into()],
                credentials: None,
            }),
            ..PushNotificationConfig::new("https://h.example/x")
        },
        tenant: None,
    });
    assert!(matches!(
        build(&j10, &two_schemes, &id()),
        Err(BuildError::Model(_))
    ));
    assert!(build(&Interface::new(V03, Binding::JsonRpc), &two_schemes, &id()).is_ok());
    let e = build(&j10, &two_schemes, &id()).unwrap_err().to_string();
    assert!(e.contains("exactly one scheme"), "{e}");
}

#[test]
fn blocking_maps_to_each_versions_flag() {
    let mut p = SendMessageParams::new(a2a_core::model::Message::user_text("m", "x"));
    for (blocking, v03, v10) in [
        (Some(true), json!(true), json!(false)),
        (Some(false), json!(false), json!(true)),
    ] {
        p.configuration = Some(SendConfiguration {
            blocking,
            ..SendConfiguration::default()
        });
        let call = Call::SendMessage(p.clone());
        let r = build(
            &Interface::new(V03, Binding::JsonRpc),
            &call,
            &CallOptions::with_id(RpcId::Number(1)),
        )
        .unwrap();
        assert_eq!(body(&r)["params"]["configuration"]["blocking"], v03);
        let r = build(
            &Interface::new(V10, Binding::HttpJson),
            &call,
            &CallOptions::default(),
        )
        .unwrap();
        assert_eq!(body(&r)["configuration"]["returnImmediately"], v10);
    }
    p.configuration = Some(SendConfiguration::default());
    let r = build(
        &Interface::new(V10, Binding::JsonRpc),
        &Call::SendMessage(p),
        &CallOptions::with_id(RpcId::Number(1)),
    )
    .unwrap();
    assert_eq!(body(&r)["params"]["configuration"], json!({}));
}

#[test]
fn method_table_is_complete() {
    for v in [V03, V10] {
        for m in Method::ALL {
            let route = m.rest_route(v);
            assert_eq!(route.is_some(), m.exists_in(v), "{m:?} {v}");
            assert_eq!(m.jsonrpc_name(v).is_some(), m.exists_in(v));
            if let Some(r) = route {
                assert!(r.template.starts_with(if v == V03 { "/v1/" } else { "/" }));
            }
        }
    }
    assert_eq!(
        Method::SubscribeToTask
            .rest_route(V10)
            .unwrap()
            .verb
            .as_str(),
        "POST"
    );
    assert_eq!(
        Method::GetExtendedAgentCard
            .rest_route(V03)
            .unwrap()
            .template,
        "/v1/card"
    );
    assert_eq!(
        Method::ListPushConfigs.jsonrpc_name(V10),
        Some("ListTaskPushNotificationConfigs")
    );
    assert_eq!(
        Method::CreatePushConfig.jsonrpc_name(V03),
        Some("tasks/pushNotificationConfig/set")
    );
    assert!(
        Method::SendStreamingMessage.sends_message()
            && Method::SendStreamingMessage.is_side_effecting()
    );
}

#[test]
fn a_dot_segment_id_or_tenant_is_refused_in_a_rest_path() {
    let opts = CallOptions::with_id(RpcId::Number(1));
    let task = |id: &str| TaskIdParams {
        id: id.to_owned().into(),
        metadata: None,
    };
    let calls = |id: &str| {
        vec![
            Call::GetTask(GetTaskParams {
                id: id.to_owned().into(),
                history_length: None,
                metadata: None,
            }),
            Call::CancelTask(task(id)),
            Call::SubscribeToTask(task(id)),
            Call::DeletePushConfig(PushConfigRef {
                task_id: "t-1".into(),
                config_id: Some(id.to_owned().into()),
                metadata: None,
            }),
        ]
    };
    for version in [V03, V10] {
        let rest = Interface::new(version, Binding::HttpJson);
        for id in [".", ".."] {
            for call in calls(id) {
                let e = build(&rest, &call, &opts).unwrap_err();
                assert!(
                    matches!(e, BuildError::NotRepresentable(_)),
                    "{version} {id:?}: {e}"
                );
                assert!(e.to_string().contains("dot segment"), "{e}");
                // JSON-RPC carries the id in the body: nothing to refuse.
                let rpc = Interface::new(version, Binding::JsonRpc);
                assert!(build(&rpc, &call, &opts).is_ok(), "{version} {id:?}");
            }
        }
        // Dots that are not a whole segment go out as they are (unreserved characters).
        let ok = build(&rest, &calls("...")[0], &opts).unwrap();
        assert!(ok.path.ends_with("/tasks/..."), "{}", ok.path);
        let ok = build(&rest, &calls(".hidden")[0], &opts).unwrap();
        assert!(ok.path.ends_with("/tasks/.hidden"), "{}", ok.path);
    }
    for tenant in [".", ".."] {
        let iface = Interface {
            version: V10,
            binding: Binding::HttpJson,
            tenant: Some(tenant.into()),
        };
        let e = build(&iface, &calls("t-1")[0], &opts).unwrap_err();
        assert!(matches!(e, BuildError::NotRepresentable(_)), "{tenant:?}");
    }
}
