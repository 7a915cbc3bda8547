//! Property tests: model -> wire -> model round trips in each form, request build -> server
//! read round trips for every method, version and binding, and no panic on any input.

use std::borrow::Cow;

use a2a_core::envelope::{
    CallOptions, Interface, Method, RpcId, build, percent_decode, percent_encode,
};
use a2a_core::model::params::*;
use a2a_core::model::*;
use a2a_core::server::{self, ServerOptions};
use a2a_core::traceparent::TraceParent;
use a2a_core::version::{Binding, ProtocolVersion};
use proptest::prelude::*;
use serde_json::Value;

fn text() -> impl Strategy<Value = Cow<'static, str>> {
    prop_oneof![
        "[a-zA-Z0-9 _.-]{0,12}",
        ".{0,8}",
        Just("quote\" back\\slash / nl\n tab\t".to_owned()),
        Just("é ü 😀 \u{0001}".to_owned()),
    ]
    .prop_map(Cow::Owned)
}

fn id() -> impl Strategy<Value = Cow<'static, str>> {
    // Dot segments are given their own weight: a random string is almost never `.` or `..`.
    prop_oneof![
        8 => "[a-zA-Z0-9-]{1,12}",
        8 => "[^\u{0}]{1,10}",
        1 => prop_oneof![Just(".".to_owned()), Just("..".to_owned())],
    ]
    .prop_filter("ids are not the resource collection name", |s: &String| {
        !s.contains("/pushNotificationConfigs")
    })
    .prop_map(Cow::Owned)
}

fn json_value(object: bool) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z\"\\\\ ]{0,6}".prop_map(Value::String),
    ];
    let tree = leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    if object {
        prop::collection::btree_map("[a-z_]{1,5}", tree, 0..4)
            .prop_map(|m| Value::Object(m.into_iter().collect()))
            .boxed()
    } else {
        tree.boxed()
    }
}

fn json(object: bool) -> impl Strategy<Value = Json<'static>> {
    json_value(object).prop_map(|v| Json::from_value(&v).unwrap())
}

fn meta() -> impl Strategy<Value = Option<Json<'static>>> {
    prop::option::of(json(true))
}

fn part(form: WireForm) -> BoxedStrategy<Part<'static>> {
    let v10 = form == WireForm::V1_0;
    let content = prop_oneof![
        text().prop_map(PartContent::Text),
        "[A-Za-z0-9+/]{0,8}={0,2}".prop_map(|s| PartContent::Bytes(Cow::Owned(s))),
        "https://[a-z]{1,6}\\.example/[a-z]{0,5}".prop_map(|s| PartContent::Url(Cow::Owned(s))),
        json(!v10).prop_map(PartContent::Data),
    ];
    (
        content,
        prop::option::of(text()),
        prop::option::of(text()),
        meta(),
    )
        .prop_map(move |(content, media_type, filename, metadata)| {
            let file = matches!(content, PartContent::Bytes(_) | PartContent::Url(_));
            Part {
                media_type: if v10 || file { media_type } else { None },
                filename: if v10 || file { filename } else { None },
                content,
                metadata,
            }
        })
        .boxed()
}

fn role(form: WireForm) -> BoxedStrategy<Role> {
    if form == WireForm::JsonRpcV0_3 {
        prop_oneof![Just(Role::User), Just(Role::Agent)].boxed()
    } else {
        prop_oneof![Just(Role::User), Just(Role::Agent), Just(Role::Unspecified)].boxed()
    }
}

fn message(form: WireForm) -> BoxedStrategy<Message<'static>> {
    (
        id(),
        role(form),
        prop::collection::vec(part(form), 0..3),
        prop::option::of(id()),
        prop::option::of(id()),
        prop::collection::vec(id(), 0..2),
        prop::collection::vec(text(), 0..2),
        meta(),
    )
        .prop_map(
            move |(message_id, role, parts, context_id, task_id, refs, extensions, metadata)| {
                Message {
                    message_id,
                    role,
                    parts,
                    context_id,
                    task_id,
                    reference_task_ids: if form == WireForm::RestV0_3 {
                        vec![]
                    } else {
                        refs
                    },
                    extensions,
                    metadata,
                }
            },
        )
        .boxed()
}

/// An RFC 3339 timestamp (UTC or with an offset, with or without a fraction).
fn timestamp() -> impl Strategy<Value = String> {
    (
        (1970..2100u32, 1..=12u32, 1..=28u32),
        (0..24u32, 0..60u32, 0..60u32),
        prop::option::of(0..1000u32),
        prop_oneof![
            Just("Z".to_owned()),
            (0..14u32, 0..60u32).prop_map(|(h, m)| format!("+{h:02}:{m:02}"))
        ],
    )
        .prop_map(|((y, mo, d), (h, mi, s), frac, zone)| {
            let frac = frac.map(|f| format!(".{f:03}")).unwrap_or_default();
            format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{frac}{zone}")
        })
}

fn state() -> impl Strategy<Value = TaskState> {
    prop_oneof![
        Just(TaskState::Submitted),
        Just(TaskState::Working),
        Just(TaskState::InputRequired),
        Just(TaskState::AuthRequired),
        Just(TaskState::Completed),
        Just(TaskState::Canceled),
        Just(TaskState::Failed),
        Just(TaskState::Rejected),
        Just(TaskState::Unknown),
    ]
}

fn status(form: WireForm) -> BoxedStrategy<TaskStatus<'static>> {
    (
        state(),
        prop::option::of(message(form)),
        prop::option::of(text()),
    )
        .prop_map(|(state, message, timestamp)| TaskStatus {
            state,
            message: message.map(Box::new),
            timestamp,
        })
        .boxed()
}

fn artifact(form: WireForm) -> BoxedStrategy<Artifact<'static>> {
    (
        id(),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::collection::vec(part(form), 0..3),
        meta(),
        prop::collection::vec(text(), 0..2),
    )
        .prop_map(
            |(artifact_id, name, description, parts, metadata, extensions)| Artifact {
                artifact_id,
                name,
                description,
                parts,
                metadata,
                extensions,
            },
        )
        .boxed()
}

fn task(form: WireForm) -> BoxedStrategy<Task<'static>> {
    (
        id(),
        text(),
        status(form),
        prop::collection::vec(artifact(form), 0..2),
        prop::collection::vec(message(form), 0..2),
        meta(),
    )
        .prop_map(
            |(id, context_id, status, artifacts, history, metadata)| Task {
                id,
                context_id,
                status,
                artifacts,
                history,
                metadata,
            },
        )
        .boxed()
}

fn event(form: WireForm) -> BoxedStrategy<StreamEvent<'static>> {
    prop_oneof![
        task(form).prop_map(StreamEvent::Task),
        message(form).prop_map(StreamEvent::Message),
        (id(), text(), status(form), any::<bool>(), meta()).prop_map(
            move |(task_id, context_id, status, f, metadata)| {
                StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
                    task_id,
                    context_id,
                    status,
                    is_final: f && form != WireForm::V1_0,
                    metadata,
                })
            }
        ),
        (
            id(),
            text(),
            artifact(form),
            any::<bool>(),
            any::<bool>(),
            meta()
        )
            .prop_map(
                |(task_id, context_id, artifact, append, last_chunk, metadata)| {
                    StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
                        task_id,
                        context_id,
                        artifact,
                        append,
                        last_chunk,
                        metadata,
                    })
                }
            ),
    ]
    .boxed()
}

fn push(form: WireForm) -> BoxedStrategy<PushNotificationConfig<'static>> {
    let schemes = if form == WireForm::V1_0 {
        prop::collection::vec(text(), 1..=1).boxed()
    } else {
        prop::collection::vec(text(), 0..3).boxed()
    };
    (
        prop::option::of(id()),
        id(),
        prop::option::of(text()),
        prop::option::of((schemes, prop::option::of(text()))),
    )
        .prop_map(|(id, url, token, auth)| PushNotificationConfig {
            id,
            url,
            token,
            authentication: auth.map(|(schemes, credentials)| PushAuthentication {
                schemes,
                credentials,
            }),
        })
        .boxed()
}

fn task_push(form: WireForm) -> BoxedStrategy<TaskPushNotificationConfig<'static>> {
    (id(), push(form), prop::option::of(id()))
        .prop_map(
            move |(task_id, config, tenant)| TaskPushNotificationConfig {
                task_id,
                config,
                tenant: if form == WireForm::V1_0 { tenant } else { None },
            },
        )
        .boxed()
}

fn form() -> impl Strategy<Value = WireForm> {
    prop_oneof![
        Just(WireForm::JsonRpcV0_3),
        Just(WireForm::RestV0_3),
        Just(WireForm::V1_0)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn events_round_trip((form, ev) in form().prop_flat_map(|f| (Just(f), event(f)))) {
        let back: StreamEvent<'static> = {
            let bytes = to_vec(&ev, form).unwrap();
            let read: StreamEvent = from_slice(&bytes, form).unwrap();
            // Re-writing the read value gives the same bytes: nothing lost, nothing added.
            prop_assert_eq!(&to_vec(&read, form).unwrap(), &bytes);
            read.into_owned()
        };
        prop_assert_eq!(back, ev);
    }

    #[test]
    fn tasks_and_messages_round_trip((form, t, m) in form().prop_flat_map(|f| (Just(f), task(f), message(f)))) {
        let bytes = to_vec(&t, form).unwrap();
        let read: Task = from_slice(&bytes, form).unwrap();
        prop_assert_eq!(&read, &t);
        let bytes = to_vec(&m, form).unwrap();
        let read: Message = from_slice(&bytes, form).unwrap();
        prop_assert_eq!(&read, &m);
    }

    #[test]
    fn push_configs_round_trip((form, c) in form().prop_flat_map(|f| (Just(f), task_push(f)))) {
        let bytes = to_vec(&c, form).unwrap();
        let read: TaskPushNotificationConfig = from_slice(&bytes, form).unwrap();
        prop_assert_eq!(&read, &c);
    }

    #[test]
    fn every_call_builds_and_reads_back((version, binding, call, tenant) in call_strategy()) {
        let iface = Interface { version, binding, tenant: tenant.clone() };
        let built = build(&iface, &call, &CallOptions::with_id(RpcId::Number(7)));
        if binding == Binding::HttpJson && path_ids(&call, tenant.as_deref()).iter().any(|s| *s == "." || *s == "..") {
            // A dot segment would name another resource: the builder refuses it before any
            // byte is sent, so the server never sees it.
            let e = built.expect_err("a dot-segment path id");
            prop_assert!(matches!(e, a2a_core::envelope::BuildError::NotRepresentable(_)), "{:?}", e);
            return Ok(());
        }
        let req = built.unwrap();
        let headers: Vec<(&str, &str)> = req.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let opts = ServerOptions::default();
        let got = match binding {
            Binding::JsonRpc => server::parse_jsonrpc(&headers, &req.body, &opts),
            Binding::HttpJson => server::parse_rest(req.method.as_str(), &req.path, &headers, &req.body, &opts),
        };
        if binding == Binding::HttpJson && unservable_path_id(&call, tenant.as_deref()) {
            // Issue 21: an id that decodes to `/` or a control character is refused.
            let e = got.map(|r| r.method).expect_err("an unservable path id");
            prop_assert_eq!(e.error.name, a2a_core::outcome::ErrorName::InvalidParams);
            return Ok(());
        }
        let got = got.unwrap_or_else(|e| panic!("refused {:?}: {:?}\n{}\n{}", call.method(), e.error, req.path, String::from_utf8_lossy(&req.body)));
        prop_assert_eq!(got.version, version);
        prop_assert_eq!(got.tenant.as_deref(), tenant.as_deref());
        prop_assert_eq!(got.call, call);
    }

    #[test]
    fn server_never_panics(body in prop::collection::vec(any::<u8>(), 0..200), path in ".{0,40}", v in prop::option::of("[0-9.]{0,4}")) {
        let headers: Vec<(&str, &str)> = v.as_deref().map(|v| vec![("A2A-Version", v)]).unwrap_or_default();
        let opts = ServerOptions::default();
        if let Err(e) = server::parse_jsonrpc(&headers, &body, &opts) {
            let r = e.response();
            prop_assert!(serde_json::from_slice::<Value>(&r.body).is_ok());
        }
        for verb in ["GET", "POST", "DELETE", "PUT"] {
            if let Err(e) = server::parse_rest(verb, &path, &headers, &body, &opts) {
                prop_assert!(serde_json::from_slice::<Value>(&e.response().body).is_ok());
            }
        }
    }

    #[test]
    fn structured_json_never_panics(v in json_value(false), f in form()) {
        let s = v.to_string();
        let _ = from_slice::<StreamEvent>(s.as_bytes(), f);
        let _ = from_slice::<Task>(s.as_bytes(), f);
        let _ = from_slice::<ListPushConfigsResponse>(s.as_bytes(), f);
        let _ = parse_params(Method::SendMessage, Some(s.as_bytes()), f);
    }

    #[test]
    fn percent_encoding_round_trips(s in ".{0,20}") {
        let e = percent_encode(&s);
        prop_assert!(e.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b)));
        let d = percent_decode(&e).unwrap();
        prop_assert_eq!(d.as_ref(), s.as_str());
    }

    #[test]
    fn traceparent_round_trips(r in prop::array::uniform24(any::<u8>()), sampled in any::<bool>()) {
        if let Some(tp) = TraceParent::from_random(r, sampled) {
            let s = tp.to_string();
            prop_assert_eq!(s.len(), 55);
            prop_assert_eq!(TraceParent::parse(&s), Ok(tp));
        }
    }

    #[test]
    fn traceparent_parse_never_panics(s in ".{0,70}") {
        let _ = TraceParent::parse(&s);
    }
}

/// The tenant and the ids an HTTP+JSON call puts in its path.
fn path_ids<'a>(call: &'a Call<'_>, tenant: Option<&'a str>) -> Vec<&'a str> {
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
    ids.into_iter().chain(tenant).collect()
}

/// Whether a path id decodes to something the server must refuse (`/` or a control character).
fn unservable_path_id(call: &Call<'_>, tenant: Option<&str>) -> bool {
    path_ids(call, tenant)
        .iter()
        .any(|s| s.contains('/') || s.chars().any(char::is_control))
}

fn call_strategy()
-> impl Strategy<Value = (ProtocolVersion, Binding, Call<'static>, Option<String>)> {
    (
        prop_oneof![Just(ProtocolVersion::V0_3), Just(ProtocolVersion::V1_0)],
        prop_oneof![Just(Binding::JsonRpc), Just(Binding::HttpJson)],
    )
        .prop_flat_map(|(version, binding)| {
            let form = WireForm::new(version, binding);
            let v10 = version == ProtocolVersion::V1_0;
            let rpc03 = form == WireForm::JsonRpcV0_3;
            let rest = binding == Binding::HttpJson;
            let sendable = message(form).prop_filter("servers need parts and a role", |m| {
                !m.parts.is_empty() && m.role != Role::Unspecified && !m.message_id.is_empty()
            });
            let config = prop::option::of((
                prop::collection::vec(text(), 0..2),
                prop::option::of(0..50i32),
                prop::option::of(push(form)),
                prop::option::of(any::<bool>()),
            ))
            .prop_map(|c| {
                c.map(
                    |(
                        accepted_output_modes,
                        history_length,
                        push_notification_config,
                        blocking,
                    )| SendConfiguration {
                        accepted_output_modes,
                        history_length,
                        push_notification_config,
                        blocking,
                    },
                )
            });
            let send = (sendable, config, meta(), any::<bool>()).prop_map(
                |(message, configuration, metadata, stream)| {
                    let p = SendMessageParams {
                        message,
                        configuration,
                        metadata,
                    };
                    if stream {
                        Call::SendStreamingMessage(p)
                    } else {
                        Call::SendMessage(p)
                    }
                },
            );
            let meta_if = move |ok: bool| {
                if ok {
                    meta().boxed()
                } else {
                    Just(None).boxed()
                }
            };
            let get = (id(), prop::option::of(0..100i32), meta_if(rpc03)).prop_map(
                |(id, history_length, metadata)| {
                    Call::GetTask(GetTaskParams {
                        id,
                        history_length,
                        metadata,
                    })
                },
            );
            let cancel = (id(), meta_if(form != WireForm::RestV0_3), any::<bool>()).prop_map(
                move |(id, metadata, sub)| {
                    if sub {
                        Call::SubscribeToTask(TaskIdParams {
                            id,
                            metadata: if rpc03 { metadata } else { None },
                        })
                    } else {
                        Call::CancelTask(TaskIdParams { id, metadata })
                    }
                },
            );
            let create = task_push(form).prop_map(|mut c| {
                c.tenant = None;
                Call::CreatePushConfig(c)
            });
            let refs = (id(), id(), meta_if(rpc03), any::<bool>()).prop_map(
                |(task_id, cfg, metadata, del)| {
                    let r = PushConfigRef {
                        task_id,
                        config_id: Some(cfg),
                        metadata,
                    };
                    if del {
                        Call::DeletePushConfig(r)
                    } else {
                        Call::GetPushConfig(r)
                    }
                },
            );
            let list_push = (
                id(),
                prop::option::of(1..100i32),
                prop::option::of(id()),
                meta_if(rpc03),
            )
                .prop_map(move |(task_id, ps, pt, metadata)| {
                    Call::ListPushConfigs(ListPushConfigsParams {
                        task_id,
                        page_size: if v10 { ps } else { None },
                        page_token: if v10 { pt } else { None },
                        metadata,
                    })
                });
            // Only what a server accepts (core/src/server/request.rs): a real state and an
            // RFC 3339 timestamp; the refusals have their own tests in core/tests/server.rs.
            let list_tasks = (
                prop::option::of(id()),
                prop::option::of(state().prop_filter("a real state", |s| *s != TaskState::Unknown)),
                prop::option::of(1..=100i32),
                prop::option::of(id()),
                prop::option::of(0..10i32),
                prop::option::of(timestamp()),
                prop::option::of(any::<bool>()),
            )
                .prop_map(
                    |(
                        context_id,
                        status,
                        page_size,
                        page_token,
                        history_length,
                        status_timestamp_after,
                        include_artifacts,
                    )| {
                        Call::ListTasks(ListTasksParams {
                            context_id,
                            status,
                            page_size,
                            page_token,
                            history_length,
                            status_timestamp_after: status_timestamp_after.map(Cow::Owned),
                            include_artifacts,
                        })
                    },
                );
            let calls = if v10 {
                prop_oneof![
                    send,
                    get,
                    cancel,
                    create,
                    refs,
                    list_push,
                    list_tasks,
                    Just(Call::GetExtendedAgentCard)
                ]
                .boxed()
            } else {
                prop_oneof![
                    send,
                    get,
                    cancel,
                    create,
                    refs,
                    list_push,
                    Just(Call::GetExtendedAgentCard)
                ]
                .boxed()
            };
            let tenant = if v10 {
                prop::option::of("[a-zA-Z0-9 /:%-]{1,8}").boxed()
            } else {
                Just(None).boxed()
            };
            let _ = rest;
            (Just(version), Just(binding), calls, tenant)
        })
}
