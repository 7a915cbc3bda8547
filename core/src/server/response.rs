//! Result and error responses for both versions and bindings, each with the classification
//! the tally counts ([`Served`]).

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::value::RawValue;

use super::error::{A2aError, DOMAIN};
use super::request::{IncomingRequest, RefusedRequest};
use crate::envelope::{Method, RpcId};
use crate::model::{
    InForm, ListPushConfigsResponse, ListTasksResponse, ModelError, SendResponse, StreamEvent,
    Task, TaskPushNotificationConfig, ToWire, WireForm,
};
use crate::outcome::{Channel, ErrorName, TaskState};
use crate::version::{Binding, ProtocolVersion};

/// What a response answered, for [`crate::tally`]: feed `(method.name(), channel, code)`
/// to `Tally::add`. `code` follows the tally's label rules: the error name (numeric code for
/// application errors) on the protocol channel, the task state on the task channel,
/// `message` on the message channel (which also covers every non-task success: list
/// results, push configs, cards, deletes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// The method answered, when the request was recognised.
    pub method: Option<Method>,
    /// The channel a client classifying this response will see.
    pub channel: Channel,
    /// The tally code label.
    pub code: String,
    /// The JSON-RPC error code, for protocol errors.
    pub rpc_code: Option<i64>,
    /// The task state, for task results.
    pub state: Option<TaskState>,
}

impl Served {
    fn error(method: Option<Method>, e: &A2aError) -> Served {
        Served {
            method,
            channel: Channel::Protocol,
            code: match e.name {
                ErrorName::Other => e.code.to_string(),
                n => n.as_str().to_owned(),
            },
            rpc_code: Some(e.code),
            state: None,
        }
    }

    fn state(method: Option<Method>, state: TaskState) -> Served {
        Served {
            method,
            channel: Channel::Task,
            code: state.as_str().to_owned(),
            rpc_code: None,
            state: Some(state),
        }
    }

    fn message(method: Option<Method>) -> Served {
        Served {
            method,
            channel: Channel::Message,
            code: "message".to_owned(),
            rpc_code: None,
            state: None,
        }
    }

    /// The classification of one stream event.
    pub fn of_event(method: Option<Method>, event: &StreamEvent<'_>) -> Served {
        match event.state() {
            Some(s) => Served::state(method, s),
            None => Served::message(method),
        }
    }

    /// The `method` label to tally under (the 1.0 name, or `unknown`).
    pub fn method_label(&self) -> &'static str {
        self.method.map_or("unknown", Method::name)
    }
}

/// A complete (non-streaming) response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// HTTP status.
    pub status: u16,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
    /// What it answered, for the tally.
    pub served: Served,
}

/// The result of a method, typed.
#[derive(Debug, Clone, Copy)]
pub enum Reply<'r, 'a> {
    /// `SendMessage`: a task or a direct message.
    Send(&'r SendResponse<'a>),
    /// `GetTask`, `CancelTask`: the task.
    Task(&'r Task<'a>),
    /// `ListTasks`.
    Tasks(&'r ListTasksResponse<'a>),
    /// Create or get a push config.
    PushConfig(&'r TaskPushNotificationConfig<'a>),
    /// List push configs.
    PushConfigs(&'r ListPushConfigsResponse<'a>),
    /// Delete a push config (JSON-RPC `null`, HTTP+JSON `{}`).
    Deleted,
    /// The extended agent card, as JSON (written verbatim).
    Card(&'r RawValue),
}

struct ReplyIn<'r, 'a>(Reply<'r, 'a>, WireForm, Binding);

impl Serialize for ReplyIn<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let form = self.1;
        match self.0 {
            Reply::Send(r) => r.write_form(form, s),
            Reply::Task(t) => t.write_form(form, s),
            Reply::Tasks(t) => t.write_form(form, s),
            Reply::PushConfig(c) => c.write_form(form, s),
            Reply::PushConfigs(c) => c.write_form(form, s),
            Reply::Deleted if self.2 == Binding::JsonRpc => s.serialize_unit(),
            Reply::Deleted => s.serialize_map(Some(0))?.end(),
            Reply::Card(c) => c.serialize(s),
        }
    }
}

fn served_of(method: Method, reply: Reply<'_, '_>) -> Served {
    match reply {
        Reply::Send(SendResponse::Task(t)) | Reply::Task(t) => {
            Served::state(Some(method), t.status.state)
        }
        _ => Served::message(Some(method)),
    }
}

/// The content type of a success body.
fn content_type(version: ProtocolVersion, binding: Binding) -> &'static str {
    match (version, binding) {
        (ProtocolVersion::V1_0, Binding::HttpJson) => "application/a2a+json",
        _ => "application/json",
    }
}

/// `{"jsonrpc":"2.0","id":..,"result":..}` or the bare HTTP+JSON body, HTTP 200.
pub fn result_response(
    req: &IncomingRequest<'_>,
    reply: Reply<'_, '_>,
) -> Result<Response, ModelError> {
    let form = req.form();
    let body = match req.binding {
        Binding::JsonRpc => {
            struct Env<'r, 'a, 'i>(&'i Option<RpcId>, ReplyIn<'r, 'a>);
            impl Serialize for Env<'_, '_, '_> {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    let mut m = s.serialize_map(Some(3))?;
                    m.serialize_entry("jsonrpc", "2.0")?;
                    m.serialize_entry("id", self.0)?;
                    m.serialize_entry("result", &self.1)?;
                    m.end()
                }
            }
            serde_json::to_vec(&Env(&req.id, ReplyIn(reply, form, req.binding)))?
        }
        Binding::HttpJson => serde_json::to_vec(&ReplyIn(reply, form, req.binding))?,
    };
    Ok(Response {
        status: 200,
        headers: vec![(
            "Content-Type".to_owned(),
            content_type(req.version, req.binding).to_owned(),
        )],
        body,
        served: served_of(req.method, reply),
    })
}

/// The 1.0 `data`/`details` array: a `google.rpc.ErrorInfo`, then a `google.rpc.BadRequest`
/// when there are field violations.
struct Details<'e>(&'e A2aError);

impl Serialize for Details<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Info<'e>(&'e A2aError);
        impl Serialize for Info<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                struct Meta<'e>(&'e [(String, String)]);
                impl Serialize for Meta<'_> {
                    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
                    }
                }
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("@type", "type.googleapis.com/google.rpc.ErrorInfo")?;
                m.serialize_entry("reason", self.0.reason())?;
                m.serialize_entry("domain", DOMAIN)?;
                if !self.0.metadata.is_empty() {
                    m.serialize_entry("metadata", &Meta(&self.0.metadata))?;
                }
                m.end()
            }
        }
        struct BadRequest<'e>(&'e [(String, String)]);
        impl Serialize for BadRequest<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                struct Violation<'e>(&'e (String, String));
                impl Serialize for Violation<'_> {
                    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                        let mut m = s.serialize_map(Some(2))?;
                        m.serialize_entry("field", &self.0.0)?;
                        m.serialize_entry("description", &self.0.1)?;
                        m.end()
                    }
                }
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("@type", "type.googleapis.com/google.rpc.BadRequest")?;
                m.serialize_entry(
                    "fieldViolations",
                    &self.0.iter().map(Violation).collect::<Vec<_>>(),
                )?;
                m.end()
            }
        }
        let n = if self.0.violations.is_empty() { 1 } else { 2 };
        let mut seq = s.serialize_seq(Some(n))?;
        seq.serialize_element(&Info(self.0))?;
        if n == 2 {
            seq.serialize_element(&BadRequest(&self.0.violations))?;
        }
        seq.end()
    }
}

/// Writes a JSON-RPC error object body. 1.0 errors carry `data` = `[ErrorInfo]`; 0.3
/// errors carry no `data` (0.3 `data` is free-form and none is needed).
pub fn jsonrpc_error_body(
    version: ProtocolVersion,
    id: Option<&RpcId>,
    error: &A2aError,
) -> Vec<u8> {
    struct ErrorObject<'e>(&'e A2aError, ProtocolVersion);
    impl Serialize for ErrorObject<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            m.serialize_entry("code", &self.0.code)?;
            m.serialize_entry("message", &self.0.message)?;
            if self.1 == ProtocolVersion::V1_0 {
                m.serialize_entry("data", &Details(self.0))?;
            }
            m.end()
        }
    }
    struct Env<'e>(Option<&'e RpcId>, ErrorObject<'e>);
    impl Serialize for Env<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(3))?;
            m.serialize_entry("jsonrpc", "2.0")?;
            m.serialize_entry("id", &self.0)?;
            m.serialize_entry("error", &self.1)?;
            m.end()
        }
    }
    serde_json::to_vec(&Env(id, ErrorObject(error, version))).expect("error bodies are plain JSON")
}

/// Writes a REST error body `{"error":{code,status,message,details}}` (google.rpc.Status,
/// used by 1.0 and, as the Python SDK does, by 0.3 REST).
pub fn rest_error_body(error: &A2aError) -> Vec<u8> {
    struct Status<'e>(&'e A2aError);
    impl Serialize for Status<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(4))?;
            m.serialize_entry("code", &self.0.http_status())?;
            m.serialize_entry("status", self.0.grpc_status())?;
            m.serialize_entry("message", &self.0.message)?;
            m.serialize_entry("details", &Details(self.0))?;
            m.end()
        }
    }
    struct Env<'e>(Status<'e>);
    impl Serialize for Env<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry("error", &self.0)?;
            m.end()
        }
    }
    serde_json::to_vec(&Env(Status(error))).expect("error bodies are plain JSON")
}

/// The complete error response: JSON-RPC errors are HTTP 200 (what every SDK does);
/// HTTP+JSON errors carry the status the spec maps the error to (405 with `Allow` for a
/// known path with the wrong verb). An [`A2aError::http_status_override`] is answered on
/// both bindings (415 for a body not declared JSON, 421 for a `Host` not served).
pub fn error_response(
    version: ProtocolVersion,
    binding: Binding,
    id: Option<&RpcId>,
    method: Option<Method>,
    error: &A2aError,
) -> Response {
    let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
    let (status, body) = match binding {
        Binding::JsonRpc => (
            error.http_status_override.unwrap_or(200),
            jsonrpc_error_body(version, id, error),
        ),
        Binding::HttpJson => {
            if let Some(allow) = error.allow {
                headers.push(("Allow".to_owned(), allow.to_owned()));
            }
            (error.http_status(), rest_error_body(error))
        }
    };
    Response {
        status,
        headers,
        body,
        served: Served::error(method, error),
    }
}

impl RefusedRequest {
    /// The response that answers this refused request.
    pub fn response(&self) -> Response {
        error_response(
            self.version,
            self.binding,
            self.id.as_ref(),
            self.method,
            &self.error,
        )
    }
}

/// The error response to a request that was read fine but failed in the handler.
pub fn handler_error(req: &IncomingRequest<'_>, error: &A2aError) -> Response {
    error_response(
        req.version,
        req.binding,
        req.id.as_ref(),
        Some(req.method),
        error,
    )
}

/// Writes `value` in the request's form (helper for handlers composing their own bodies).
pub fn write_in_form<T: ToWire + ?Sized>(
    req: &IncomingRequest<'_>,
    value: &T,
) -> Result<Vec<u8>, ModelError> {
    Ok(serde_json::to_vec(&InForm(value, req.form()))?)
}
