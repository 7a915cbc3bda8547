//! Writers: each model type in each [`WireForm`], exactly.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::{Error as _, SerializeMap, Serializer};

use super::WireForm;
use super::types::*;

/// A model value that can be written in each wire form.
pub trait ToWire {
    /// Serializes `self` as `form` requires.
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error>;
}

/// `value` paired with the form to write it in; implements `Serialize`.
pub struct InForm<'v, T: ?Sized>(pub &'v T, pub WireForm);

impl<T: ToWire + ?Sized> Serialize for InForm<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.write_form(self.1, s)
    }
}

/// A slice written element by element in a form.
struct Seq<'v, T>(&'v [T], WireForm);

impl<T: ToWire> Serialize for Seq<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|v| InForm(v, self.1)))
    }
}

impl<T: ToWire> ToWire for [T] {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        Seq(self, form).serialize(s)
    }
}

impl<T: ToWire> ToWire for Vec<T> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        Seq(self, form).serialize(s)
    }
}

impl<T: ToWire + ?Sized> ToWire for &T {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        (**self).write_form(form, s)
    }
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

pub(crate) fn opt<M: SerializeMap, T: Serialize + ?Sized>(
    m: &mut M,
    key: &'static str,
    v: Option<&T>,
) -> Result<(), M::Error> {
    match v {
        Some(v) => m.serialize_entry(key, v),
        None => Ok(()),
    }
}

pub(crate) fn nonempty<M: SerializeMap, T: Serialize>(
    m: &mut M,
    key: &'static str,
    v: &[T],
) -> Result<(), M::Error> {
    if v.is_empty() {
        Ok(())
    } else {
        m.serialize_entry(key, v)
    }
}

/// The wire name of a task state in a form.
pub fn state_name(state: TaskState, form: WireForm) -> &'static str {
    match form {
        WireForm::JsonRpcV0_3 => state.as_str(),
        WireForm::RestV0_3 | WireForm::V1_0 => match state {
            TaskState::Submitted => "TASK_STATE_SUBMITTED",
            TaskState::Working => "TASK_STATE_WORKING",
            TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
            TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
            TaskState::Completed => "TASK_STATE_COMPLETED",
            TaskState::Canceled if form == WireForm::RestV0_3 => "TASK_STATE_CANCELLED",
            TaskState::Canceled => "TASK_STATE_CANCELED",
            TaskState::Failed => "TASK_STATE_FAILED",
            TaskState::Rejected => "TASK_STATE_REJECTED",
            TaskState::Unknown => "TASK_STATE_UNSPECIFIED",
        },
    }
}

fn role_name<E: serde::ser::Error>(role: Role, form: WireForm) -> Result<&'static str, E> {
    Ok(match (form, role) {
        (WireForm::JsonRpcV0_3, Role::User) => "user",
        (WireForm::JsonRpcV0_3, Role::Agent) => "agent",
        (WireForm::JsonRpcV0_3, Role::Unspecified) => {
            return Err(E::custom("0.3 JSON-RPC has no unspecified role"));
        }
        (_, Role::User) => "ROLE_USER",
        (_, Role::Agent) => "ROLE_AGENT",
        (_, Role::Unspecified) => "ROLE_UNSPECIFIED",
    })
}

/// `{"data": X}`: the 0.3 REST DataPart message.
struct DataWrap<'v, 'a>(&'v Json<'a>);

impl Serialize for DataWrap<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry("data", self.0)?;
        m.end()
    }
}

/// The 0.3 `file` object in either 0.3 form.
struct File03<'v, 'a>(&'v Part<'a>, WireForm);

impl Serialize for File03<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Part {
            content,
            media_type,
            filename,
            ..
        } = self.0;
        let rest = self.1 == WireForm::RestV0_3;
        let mut m = s.serialize_map(None)?;
        match content {
            PartContent::Url(u) => {
                m.serialize_entry(if rest { "fileWithUri" } else { "uri" }, u)?
            }
            PartContent::Bytes(b) => {
                m.serialize_entry(if rest { "fileWithBytes" } else { "bytes" }, b)?
            }
            _ => unreachable!("File03 is only built for file parts"),
        }
        opt(&mut m, "mimeType", media_type.as_ref())?;
        opt(&mut m, "name", filename.as_ref())?;
        m.end()
    }
}

impl ToWire for Part<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match form {
            WireForm::JsonRpcV0_3 => match &self.content {
                PartContent::Text(t) => {
                    m.serialize_entry("kind", "text")?;
                    m.serialize_entry("text", t)?;
                }
                PartContent::Bytes(_) | PartContent::Url(_) => {
                    m.serialize_entry("kind", "file")?;
                    m.serialize_entry("file", &File03(self, form))?;
                }
                PartContent::Data(d) => {
                    if !d.is_object() {
                        return Err(S::Error::custom("a 0.3 data part must be a JSON object"));
                    }
                    m.serialize_entry("kind", "data")?;
                    m.serialize_entry("data", d)?;
                }
            },
            WireForm::RestV0_3 => match &self.content {
                PartContent::Text(t) => m.serialize_entry("text", t)?,
                PartContent::Bytes(_) | PartContent::Url(_) => {
                    m.serialize_entry("file", &File03(self, form))?
                }
                PartContent::Data(d) => {
                    if !d.is_object() {
                        return Err(S::Error::custom("a 0.3 data part must be a JSON object"));
                    }
                    m.serialize_entry("data", &DataWrap(d))?;
                }
            },
            WireForm::V1_0 => {
                match &self.content {
                    PartContent::Text(t) => m.serialize_entry("text", t)?,
                    PartContent::Bytes(b) => m.serialize_entry("raw", b)?,
                    PartContent::Url(u) => m.serialize_entry("url", u)?,
                    PartContent::Data(d) => m.serialize_entry("data", d)?,
                }
                opt(&mut m, "mediaType", self.media_type.as_ref())?;
                opt(&mut m, "filename", self.filename.as_ref())?;
            }
        }
        opt(&mut m, "metadata", self.metadata.as_ref())?;
        m.end()
    }
}

impl ToWire for Message<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if form == WireForm::JsonRpcV0_3 {
            m.serialize_entry("kind", "message")?;
        }
        m.serialize_entry("messageId", &self.message_id)?;
        m.serialize_entry("role", role_name::<S::Error>(self.role, form)?)?;
        let parts_key = if form == WireForm::RestV0_3 {
            "content"
        } else {
            "parts"
        };
        m.serialize_entry(parts_key, &Seq(&self.parts, form))?;
        opt(&mut m, "contextId", self.context_id.as_ref())?;
        opt(&mut m, "taskId", self.task_id.as_ref())?;
        if form != WireForm::RestV0_3 {
            nonempty(&mut m, "referenceTaskIds", &self.reference_task_ids)?;
        }
        nonempty(&mut m, "extensions", &self.extensions)?;
        opt(&mut m, "metadata", self.metadata.as_ref())?;
        m.end()
    }
}

impl ToWire for TaskStatus<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("state", state_name(self.state, form))?;
        if let Some(msg) = &self.message {
            m.serialize_entry("message", &InForm(&**msg, form))?;
        }
        opt(&mut m, "timestamp", self.timestamp.as_ref())?;
        m.end()
    }
}

impl ToWire for Artifact<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("artifactId", &self.artifact_id)?;
        opt(&mut m, "name", self.name.as_ref())?;
        opt(&mut m, "description", self.description.as_ref())?;
        m.serialize_entry("parts", &Seq(&self.parts, form))?;
        opt(&mut m, "metadata", self.metadata.as_ref())?;
        nonempty(&mut m, "extensions", &self.extensions)?;
        m.end()
    }
}

impl ToWire for Task<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if form == WireForm::JsonRpcV0_3 {
            m.serialize_entry("kind", "task")?;
        }
        m.serialize_entry("id", &self.id)?;
        if form == WireForm::JsonRpcV0_3 || !self.context_id.is_empty() {
            m.serialize_entry("contextId", &self.context_id)?;
        }
        m.serialize_entry("status", &InForm(&self.status, form))?;
        if !self.artifacts.is_empty() {
            m.serialize_entry("artifacts", &Seq(&self.artifacts, form))?;
        }
        if !self.history.is_empty() {
            m.serialize_entry("history", &Seq(&self.history, form))?;
        }
        opt(&mut m, "metadata", self.metadata.as_ref())?;
        m.end()
    }
}

impl ToWire for TaskStatusUpdateEvent<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if form == WireForm::JsonRpcV0_3 {
            m.serialize_entry("kind", "status-update")?;
        }
        m.serialize_entry("taskId", &self.task_id)?;
        m.serialize_entry("contextId", &self.context_id)?;
        m.serialize_entry("status", &InForm(&self.status, form))?;
        match form {
            WireForm::JsonRpcV0_3 => m.serialize_entry("final", &self.is_final)?,
            WireForm::RestV0_3 if self.is_final => m.serialize_entry("final", &true)?,
            _ => {}
        }
        opt(&mut m, "metadata", self.metadata.as_ref())?;
        m.end()
    }
}

impl ToWire for TaskArtifactUpdateEvent<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if form == WireForm::JsonRpcV0_3 {
            m.serialize_entry("kind", "artifact-update")?;
        }
        m.serialize_entry("taskId", &self.task_id)?;
        m.serialize_entry("contextId", &self.context_id)?;
        m.serialize_entry("artifact", &InForm(&self.artifact, form))?;
        // 0.3 JSON-RPC peers write both flags always; ProtoJSON omits false.
        if form == WireForm::JsonRpcV0_3 || self.append {
            m.serialize_entry("append", &self.append)?;
        }
        if form == WireForm::JsonRpcV0_3 || self.last_chunk {
            m.serialize_entry("lastChunk", &self.last_chunk)?;
        }
        opt(&mut m, "metadata", self.metadata.as_ref())?;
        m.end()
    }
}

fn wrapped<S: Serializer, T: ToWire>(
    s: S,
    key: &'static str,
    v: &T,
    form: WireForm,
) -> Result<S::Ok, S::Error> {
    if form == WireForm::JsonRpcV0_3 {
        return v.write_form(form, s);
    }
    let mut m = s.serialize_map(Some(1))?;
    m.serialize_entry(key, &InForm(v, form))?;
    m.end()
}

impl ToWire for StreamEvent<'_> {
    /// 0.3 JSON-RPC: the object itself, with `kind`; otherwise a one-key wrapper.
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StreamEvent::Task(t) => wrapped(s, "task", t, form),
            StreamEvent::Message(m) => wrapped(s, "message", m, form),
            StreamEvent::StatusUpdate(u) => wrapped(s, "statusUpdate", u, form),
            StreamEvent::ArtifactUpdate(a) => wrapped(s, "artifactUpdate", a, form),
        }
    }
}

impl ToWire for SendResponse<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SendResponse::Task(t) => wrapped(s, "task", t, form),
            SendResponse::Message(m) => wrapped(s, "message", m, form),
        }
    }
}

struct Auth<'v, 'a>(&'v PushAuthentication<'a>, WireForm);

impl Serialize for Auth<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if self.1 == WireForm::V1_0 {
            match self.0.schemes.as_slice() {
                [one] => m.serialize_entry("scheme", one)?,
                _ => {
                    return Err(S::Error::custom(
                        "1.0 push authentication carries exactly one scheme",
                    ));
                }
            }
        } else {
            m.serialize_entry("schemes", &self.0.schemes)?;
        }
        opt(&mut m, "credentials", self.0.credentials.as_ref())?;
        m.end()
    }
}

/// Writes the fields of a push config (without the enclosing braces) in `form`.
pub(crate) fn push_fields<M: SerializeMap>(
    m: &mut M,
    c: &PushNotificationConfig<'_>,
    form: WireForm,
) -> Result<(), M::Error> {
    opt(m, "id", c.id.as_ref())?;
    m.serialize_entry("url", &c.url)?;
    opt(m, "token", c.token.as_ref())?;
    if let Some(a) = &c.authentication {
        m.serialize_entry("authentication", &Auth(a, form))?;
    }
    Ok(())
}

impl ToWire for PushNotificationConfig<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        push_fields(&mut m, self, form)?;
        m.end()
    }
}

/// The 0.3 REST resource name of a push config.
pub(crate) fn push_name(task_id: &str, config_id: Option<&str>) -> String {
    match config_id {
        Some(c) => format!("tasks/{task_id}/pushNotificationConfigs/{c}"),
        None => format!("tasks/{task_id}/pushNotificationConfigs"),
    }
}

impl ToWire for TaskPushNotificationConfig<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match form {
            WireForm::JsonRpcV0_3 => {
                m.serialize_entry("taskId", &self.task_id)?;
                m.serialize_entry("pushNotificationConfig", &InForm(&self.config, form))?;
            }
            WireForm::RestV0_3 => {
                let name = push_name(&self.task_id, self.config.id.as_deref());
                m.serialize_entry("name", &name)?;
                m.serialize_entry("pushNotificationConfig", &InForm(&self.config, form))?;
            }
            WireForm::V1_0 => {
                opt(&mut m, "tenant", self.tenant.as_ref())?;
                m.serialize_entry("taskId", &self.task_id)?;
                push_fields(&mut m, &self.config, form)?;
            }
        }
        m.end()
    }
}

impl ToWire for ListTasksResponse<'_> {
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("tasks", &Seq(&self.tasks, form))?;
        // Always present, even on the last page (spec: MUST).
        m.serialize_entry("nextPageToken", &self.next_page_token)?;
        m.serialize_entry("pageSize", &self.page_size)?;
        m.serialize_entry("totalSize", &self.total_size)?;
        m.end()
    }
}

impl ToWire for ListPushConfigsResponse<'_> {
    /// 0.3 JSON-RPC: a bare array; otherwise `{"configs":[..],"nextPageToken"?}`.
    fn write_form<S: Serializer>(&self, form: WireForm, s: S) -> Result<S::Ok, S::Error> {
        if form == WireForm::JsonRpcV0_3 {
            return Seq(&self.configs, form).serialize(s);
        }
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("configs", &Seq(&self.configs, form))?;
        opt(&mut m, "nextPageToken", self.next_page_token.as_ref())?;
        m.end()
    }
}

impl ToWire for Cow<'_, str> {
    fn write_form<S: Serializer>(&self, _: WireForm, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}
