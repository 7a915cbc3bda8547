//! `a2a-testkit build-matrix` and `a2a-testkit model-read`. build-matrix: every method of both versions over both bindings, in three
//! variants (plain ids, a tenant, ids and query values that need percent-encoding), built
//! with the envelope builders and written as one JSON object per line. The interop tests
//! (`tests/interop/test_wire_matrix.py`) validate each line with the Python `a2a-sdk`'s own
//! types.

use std::borrow::Cow;
use std::io::Write;

use a2a_core::envelope::{CallOptions, Interface, Method, RpcId, build};
use a2a_core::model::params::*;
use a2a_core::model::*;
use a2a_core::version::{Binding, ProtocolVersion};
use serde_json::{Value, json};

use crate::args::{Args, EXIT_USAGE};

/// Ids of one variant: task id, config id, tenant, free-text query value.
struct Variant {
    name: &'static str,
    task: &'static str,
    config: &'static str,
    tenant: Option<&'static str>,
    text: &'static str,
}

const VARIANTS: [Variant; 3] = [
    Variant {
        name: "plain",
        task: "t-1",
        config: "cfg-1",
        tenant: None,
        text: "c-1",
    },
    Variant {
        name: "tenant",
        task: "t-1",
        config: "cfg-1",
        tenant: Some("acme"),
        text: "c-1",
    },
    Variant {
        name: "encoded",
        task: "t/1 ü?#%",
        config: "c:1&x=y",
        tenant: Some("t n/1"),
        text: "c 1&x=y/+é",
    },
];

fn rich_message(v: &Variant, version: ProtocolVersion) -> Message<'static> {
    let meta = Json::from_value(&json!({"trace": "abc", "n": 1})).expect("static JSON");
    let mut file_bytes = Part::from_content(PartContent::Bytes(Cow::Borrowed("aGVsbG8=")));
    file_bytes.media_type = Some(Cow::Borrowed("text/plain"));
    file_bytes.filename = Some(Cow::Borrowed("hello.txt"));
    let mut file_url = Part::from_content(PartContent::Url(Cow::Borrowed(
        "https://files.example.com/report.pdf",
    )));
    file_url.media_type = Some(Cow::Borrowed("application/pdf"));
    let data = Part::from_content(PartContent::Data(
        Json::from_value(&json!({"city": "Zürich", "days": [1, 2]})).expect("static JSON"),
    ));
    let mut text = Part::text("tell me a \"joke\"\nplease");
    text.metadata = Some(meta.clone());
    let mut m = Message::new(
        "msg-0001",
        Role::User,
        vec![text, file_bytes, file_url, data],
    );
    m.context_id = Some(Cow::Owned(v.text.to_owned()));
    m.task_id = Some(Cow::Owned(v.task.to_owned()));
    m.extensions = vec![Cow::Borrowed("https://example.com/ext/geo/v1")];
    m.metadata = Some(meta);
    if version == ProtocolVersion::V1_0 {
        m.reference_task_ids = vec![Cow::Borrowed("t-0")];
    }
    m
}

fn push(v: &Variant, version: ProtocolVersion) -> PushNotificationConfig<'static> {
    PushNotificationConfig {
        id: Some(Cow::Owned(v.config.to_owned())),
        url: Cow::Borrowed("https://client.example.com/hook"),
        token: Some(Cow::Borrowed("tok")),
        authentication: Some(PushAuthentication {
            schemes: match version {
                ProtocolVersion::V0_3 => vec![Cow::Borrowed("Bearer"), Cow::Borrowed("Basic")],
                ProtocolVersion::V1_0 => vec![Cow::Borrowed("Bearer")],
            },
            credentials: Some(Cow::Borrowed("secret")),
        }),
    }
}

/// The call of `method` in variant `v`, using every field the version and binding carry.
fn call(method: Method, v: &Variant, version: ProtocolVersion, binding: Binding) -> Call<'static> {
    let rpc03 = version == ProtocolVersion::V0_3 && binding == Binding::JsonRpc;
    let v10 = version == ProtocolVersion::V1_0;
    let meta = || Some(Json::from_value(&json!({"k": "v"})).expect("static JSON"));
    let task = || Cow::Owned(v.task.to_owned());
    let send = || SendMessageParams {
        message: rich_message(v, version),
        configuration: Some(SendConfiguration {
            accepted_output_modes: vec![
                Cow::Borrowed("text/plain"),
                Cow::Borrowed("application/json"),
            ],
            history_length: Some(5),
            push_notification_config: Some(push(v, version)),
            blocking: Some(false),
        }),
        metadata: meta(),
    };
    match method {
        Method::SendMessage => Call::SendMessage(send()),
        Method::SendStreamingMessage => Call::SendStreamingMessage(send()),
        Method::GetTask => Call::GetTask(GetTaskParams {
            id: task(),
            history_length: Some(10),
            metadata: if rpc03 { meta() } else { None },
        }),
        Method::ListTasks => Call::ListTasks(ListTasksParams {
            context_id: Some(Cow::Owned(v.text.to_owned())),
            status: Some(TaskState::Working),
            page_size: Some(50),
            page_token: Some(Cow::Owned(format!("{}-page", v.text))),
            history_length: Some(0),
            status_timestamp_after: Some(Cow::Borrowed("2025-10-28T10:30:00.000Z")),
            include_artifacts: Some(true),
        }),
        Method::CancelTask => Call::CancelTask(TaskIdParams {
            id: task(),
            metadata: if version == ProtocolVersion::V0_3 && binding == Binding::HttpJson {
                None
            } else {
                meta()
            },
        }),
        Method::SubscribeToTask => Call::SubscribeToTask(TaskIdParams {
            id: task(),
            metadata: if rpc03 { meta() } else { None },
        }),
        Method::CreatePushConfig => Call::CreatePushConfig(TaskPushNotificationConfig {
            task_id: task(),
            config: push(v, version),
            tenant: None,
        }),
        Method::GetPushConfig | Method::DeletePushConfig => {
            let r = PushConfigRef {
                task_id: task(),
                config_id: Some(Cow::Owned(v.config.to_owned())),
                metadata: if rpc03 { meta() } else { None },
            };
            if method == Method::GetPushConfig {
                Call::GetPushConfig(r)
            } else {
                Call::DeletePushConfig(r)
            }
        }
        Method::ListPushConfigs => Call::ListPushConfigs(ListPushConfigsParams {
            task_id: task(),
            page_size: if v10 { Some(20) } else { None },
            page_token: if v10 {
                Some(Cow::Owned(v.text.to_owned()))
            } else {
                None
            },
            metadata: if rpc03 { meta() } else { None },
        }),
        Method::GetExtendedAgentCard => Call::GetExtendedAgentCard,
    }
}

/// Runs `a2a-testkit build-matrix`: writes the matrix to standard output.
pub fn run(args: Args) -> i32 {
    if let Err(e) = args.finish() {
        eprintln!("a2a-testkit build-matrix: {e}");
        return EXIT_USAGE;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut n: i64 = 0;
    for version in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
        for binding in [Binding::JsonRpc, Binding::HttpJson] {
            for v in &VARIANTS {
                // 0.3 has no tenants: skip the tenant variant, drop the encoded one's tenant.
                if v.name == "tenant" && version == ProtocolVersion::V0_3 {
                    continue;
                }
                let tenant = v.tenant.filter(|_| version == ProtocolVersion::V1_0);
                for method in Method::ALL {
                    if !method.exists_in(version) {
                        continue;
                    }
                    n += 1;
                    let iface = Interface {
                        version,
                        binding,
                        tenant: tenant.map(str::to_owned),
                    };
                    let c = call(method, v, version, binding);
                    let req = match build(&iface, &c, &CallOptions::with_id(RpcId::Number(n))) {
                        Ok(r) => r,
                        Err(e) => {
                            eprintln!(
                                "a2a-testkit build-matrix: {} {version} {binding} {}: {e}",
                                method.name(),
                                v.name
                            );
                            return 1;
                        }
                    };
                    let body: Value = if req.body.is_empty() {
                        Value::Null
                    } else {
                        serde_json::from_slice(&req.body).expect("builders write JSON")
                    };
                    let line = json!({
                        "version": version.as_str(),
                        "binding": binding.as_str(),
                        "method": method.name(),
                        "jsonrpc_method": method.jsonrpc_name(version),
                        "variant": v.name,
                        "streaming": method.is_streaming(),
                        "http_method": req.method.as_str(),
                        "path": req.path,
                        "headers": req.headers,
                        "body": body,
                        "expect": {
                            "task_id": v.task,
                            "config_id": v.config,
                            "tenant": tenant,
                            "text": v.text,
                        },
                    });
                    if writeln!(out, "{line}").is_err() {
                        return 1;
                    }
                }
            }
        }
    }
    0
}

/// Runs `a2a-testkit model-read --form jsonrpc-0.3|rest-0.3|1.0 --type send|event|task`:
/// reads one JSON value from standard input with the model's readers and writes
/// `{"kind","state","text","rewritten"}` (the value written back in the same form), for the
/// interop tests that feed it what the real servers answer.
pub fn run_model_read(mut args: Args) -> i32 {
    let usage = |e: String| {
        eprintln!("a2a-testkit model-read: {e}");
        EXIT_USAGE
    };
    let form = match args.value("--form") {
        Ok(Some(f)) => match f.as_str() {
            "jsonrpc-0.3" => WireForm::JsonRpcV0_3,
            "rest-0.3" => WireForm::RestV0_3,
            "1.0" => WireForm::V1_0,
            other => return usage(format!("unknown form {other:?}")),
        },
        Ok(None) => return usage("--form is required".into()),
        Err(e) => return usage(e),
    };
    let typ = match args.value("--type") {
        Ok(Some(t)) => t,
        Ok(None) => return usage("--type is required".into()),
        Err(e) => return usage(e),
    };
    if let Err(e) = args.finish() {
        return usage(e);
    }
    let mut input = Vec::new();
    if std::io::Read::read_to_end(&mut std::io::stdin(), &mut input).is_err() {
        return 1;
    }
    let summary = |kind: &str,
                   state: Option<TaskState>,
                   text: Option<String>,
                   rewritten: Result<Vec<u8>, ModelError>| {
        let rewritten: Value = match rewritten {
            Ok(b) => serde_json::from_slice(&b).expect("writers write JSON"),
            Err(e) => return Err(e.to_string()),
        };
        Ok(
            json!({"kind": kind, "state": state.map(TaskState::as_str), "text": text, "rewritten": rewritten}),
        )
    };
    let status_text = |s: &TaskStatus<'_>| s.message.as_ref().and_then(|m| m.text());
    let result = match typ.as_str() {
        "send" => match from_slice::<SendResponse>(&input, form) {
            Ok(SendResponse::Task(t)) => summary(
                "task",
                Some(t.status.state),
                status_text(&t.status),
                to_vec(&SendResponse::Task(t.clone()), form),
            ),
            Ok(SendResponse::Message(m)) => summary("message", None, m.text(), to_vec(&m, form)),
            Err(e) => Err(e.to_string()),
        },
        "event" => match from_slice::<StreamEvent>(&input, form) {
            Ok(ev) => {
                let text = match &ev {
                    StreamEvent::Task(t) => status_text(&t.status),
                    StreamEvent::Message(m) => m.text(),
                    StreamEvent::StatusUpdate(u) => status_text(&u.status),
                    StreamEvent::ArtifactUpdate(a) => a
                        .artifact
                        .parts
                        .iter()
                        .find_map(|p| p.as_text().map(str::to_owned)),
                };
                summary(ev.kind(), ev.state(), text, to_vec(&ev, form))
            }
            Err(e) => Err(e.to_string()),
        },
        "task" => match from_slice::<Task>(&input, form) {
            Ok(t) => summary(
                "task",
                Some(t.status.state),
                status_text(&t.status),
                to_vec(&t, form),
            ),
            Err(e) => Err(e.to_string()),
        },
        other => return usage(format!("unknown type {other:?}")),
    };
    match result {
        Ok(v) => {
            println!("{v}");
            0
        }
        Err(e) => {
            eprintln!("a2a-testkit model-read: {e}");
            1
        }
    }
}
