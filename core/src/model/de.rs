//! Tolerant readers: every spelling deployed peers send, one pass, borrowing strings.
//!
//! Each public type reads through a private `*In` mirror whose fields are all optional and
//! carry every accepted key (camelCase, snake_case, the other form's name); the mirror is
//! then checked and turned into the public type without copying.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Error as _, Visitor};
use serde_json::value::RawValue;

use super::types::*;
use super::{FromWire, WireForm};

pub(crate) mod direct;

/// A string borrowed from the input when it has no escapes.
pub(crate) struct Str<'a>(pub(crate) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

pub(crate) fn cow(s: Option<Str<'_>>) -> Option<Cow<'_, str>> {
    s.map(|s| s.0)
}

pub(crate) fn cows(v: Option<Vec<Str<'_>>>) -> Vec<Cow<'_, str>> {
    v.map(|v| v.into_iter().map(|s| s.0).collect())
        .unwrap_or_default()
}

pub(crate) fn required<'a, E: de::Error>(
    s: Option<Str<'a>>,
    name: &'static str,
) -> Result<Cow<'a, str>, E> {
    s.map(|s| s.0).ok_or_else(|| E::missing_field(name))
}

impl<'de: 'a, 'a> Deserialize<'de> for Json<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(d).map(|r| Json(Cow::Borrowed(r)))
    }
}

/// An enum read from its name or its number, parsed by `F` where the name lies: no copy of
/// it is made (a copy per `role` and `state` was 7 of the 22 allocations of reading a 2 KB
/// task, `benches/once.rs`). `F` gives `None` for a name it does not know, and the visitor
/// then hands the text back (`Err`) for the caller's error, raised where it always was.
struct EnumText<F>(F);

impl<'de, T, F: FnOnce(&str) -> Option<T>> Visitor<'de> for EnumText<F> {
    type Value = Result<T, String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an enum name or number")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        if v.len() > 64 {
            return Err(E::custom("enum value longer than 64 bytes"));
        }
        Ok((self.0)(v).ok_or_else(|| v.to_owned()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        let v = v.to_string();
        Ok((self.0)(&v).ok_or(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        let v = v.to_string();
        Ok((self.0)(&v).ok_or(v))
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EnumText(Role::parse))?
            .map_err(|t| D::Error::custom(format!("unknown role {t:?}")))
    }
}

/// Reads a task state from any spelling; unknown spellings are `TaskState::Unknown`.
pub(crate) struct StateIn(pub(crate) TaskState);

impl<'de> Deserialize<'de> for StateIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = d.deserialize_any(EnumText(|s: &str| Some(TaskState::parse(s))))?;
        Ok(StateIn(t.unwrap_or(TaskState::Unknown)))
    }
}

/// An int32 as a JSON number or (ProtoJSON) a numeric string.
pub(crate) struct Int(pub(crate) i32);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Int;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a 32-bit integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                i32::try_from(v)
                    .map(Int)
                    .map_err(|_| E::custom("integer out of int32 range"))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                i32::try_from(v)
                    .map(Int)
                    .map_err(|_| E::custom("integer out of int32 range"))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Int, E> {
                if v.fract() == 0.0 && v >= i32::MIN as f64 && v <= i32::MAX as f64 {
                    Ok(Int(v as i32))
                } else {
                    Err(E::custom("expected an integer"))
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Int, E> {
                v.parse()
                    .map(Int)
                    .map_err(|_| E::custom(format!("not an integer: {v:?}")))
            }
        }
        d.deserialize_any(V)
    }
}

pub(crate) fn int(v: Option<Int>) -> Option<i32> {
    v.map(|i| i.0)
}

// ---------------------------------------------------------------------------------- Part

#[derive(serde::Deserialize)]
struct FileIn<'a> {
    #[serde(borrow)]
    uri: Option<Str<'a>>,
    #[serde(borrow)]
    bytes: Option<Str<'a>>,
    #[serde(borrow, rename = "fileWithUri", alias = "file_with_uri")]
    file_with_uri: Option<Str<'a>>,
    #[serde(borrow, rename = "fileWithBytes", alias = "file_with_bytes")]
    file_with_bytes: Option<Str<'a>>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow, rename = "mimeType", alias = "mime_type")]
    mime_type: Option<Str<'a>>,
}

#[derive(serde::Deserialize, Default)]
struct PartIn<'a> {
    #[serde(borrow)]
    kind: Option<Str<'a>>,
    /// The pre-0.3 name of `kind`; read as it when `kind` is absent, so a part naming a
    /// kind this reader does not know is refused rather than read as its text.
    #[serde(borrow, rename = "type")]
    legacy_kind: Option<Str<'a>>,
    #[serde(borrow)]
    text: Option<Str<'a>>,
    #[serde(borrow)]
    raw: Option<Str<'a>>,
    #[serde(borrow)]
    url: Option<Str<'a>>,
    /// Kept even when `null`: a 1.0 data part may hold a JSON null.
    #[serde(borrow, default, deserialize_with = "some_json")]
    data: Option<Json<'a>>,
    /// Boxed: only 0.3 file parts carry it, and inline it made every part's reader move
    /// 144 more bytes (`benches/once.rs` under callgrind).
    #[serde(borrow)]
    file: Option<Box<FileIn<'a>>>,
    #[serde(borrow)]
    metadata: Option<Json<'a>>,
    #[serde(borrow, alias = "file_name")]
    filename: Option<Str<'a>>,
    #[serde(borrow, rename = "mediaType", alias = "media_type")]
    media_type: Option<Str<'a>>,
}

fn some_json<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Json<'a>>, D::Error> {
    Json::deserialize(d).map(Some)
}

impl<'de: 'a, 'a> Deserialize<'de> for Part<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PartIn::deserialize(d)?.into_model()
    }
}

impl<'a> PartIn<'a> {
    fn into_model<E: de::Error>(self) -> Result<Part<'a>, E> {
        let p = self;
        let present = [
            p.text.is_some(),
            p.raw.is_some(),
            p.url.is_some(),
            p.data.is_some(),
            p.file.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count();
        if present != 1 {
            return Err(E::custom(
                "a part must carry exactly one of text, raw, url, data, file",
            ));
        }
        let mut media_type = cow(p.media_type);
        let mut filename = cow(p.filename);
        let content = if let Some(t) = p.text {
            PartContent::Text(t.0)
        } else if let Some(r) = p.raw {
            PartContent::Bytes(r.0)
        } else if let Some(u) = p.url {
            PartContent::Url(u.0)
        } else if let Some(data) = p.data {
            PartContent::Data(data)
        } else if let Some(f) = p.file {
            let n = [&f.uri, &f.bytes, &f.file_with_uri, &f.file_with_bytes]
                .iter()
                .filter(|x| x.is_some())
                .count();
            if n != 1 {
                return Err(E::custom(
                    "a file part must carry exactly one of uri, bytes, fileWithUri, fileWithBytes",
                ));
            }
            if f.mime_type.is_some() {
                media_type = cow(f.mime_type);
            }
            if f.name.is_some() {
                filename = cow(f.name);
            }
            match (f.uri.or(f.file_with_uri), f.bytes.or(f.file_with_bytes)) {
                (Some(u), _) => PartContent::Url(u.0),
                (_, Some(b)) => PartContent::Bytes(b.0),
                (None, None) => unreachable!("counted above"),
            }
        } else {
            unreachable!("counted above")
        };
        if let Some(kind) = p.kind.or(p.legacy_kind) {
            let ok = match &*kind.0 {
                "text" => matches!(content, PartContent::Text(_)),
                "file" => matches!(content, PartContent::Bytes(_) | PartContent::Url(_)),
                "data" => matches!(content, PartContent::Data(_)),
                _ => false,
            };
            if !ok {
                return Err(E::custom(format!(
                    "part kind {:?} does not match its content",
                    kind.0
                )));
            }
        }
        Ok(Part {
            content,
            media_type,
            filename,
            metadata: p.metadata,
        })
    }
}

// ------------------------------------------------------------------------------- Message

#[derive(serde::Deserialize, Default)]
struct MessageIn<'a> {
    #[serde(borrow, rename = "messageId", alias = "message_id")]
    message_id: Option<Str<'a>>,
    role: Option<Role>,
    #[serde(borrow)]
    parts: Option<Vec<Part<'a>>>,
    #[serde(borrow)]
    content: Option<Vec<Part<'a>>>,
    #[serde(borrow, rename = "contextId", alias = "context_id")]
    context_id: Option<Str<'a>>,
    #[serde(borrow, rename = "taskId", alias = "task_id")]
    task_id: Option<Str<'a>>,
    #[serde(borrow, rename = "referenceTaskIds", alias = "reference_task_ids")]
    reference_task_ids: Option<Vec<Str<'a>>>,
    #[serde(borrow)]
    extensions: Option<Vec<Str<'a>>>,
    #[serde(borrow)]
    metadata: Option<Json<'a>>,
    #[serde(borrow)]
    kind: Option<Str<'a>>,
}

impl<'a> MessageIn<'a> {
    fn into_model<E: de::Error>(self) -> Result<Message<'a>, E> {
        if let Some(k) = self.kind.as_ref().filter(|k| k.0 != "message") {
            return Err(E::custom(format!(
                "expected kind \"message\", got {:?}",
                k.0
            )));
        }
        let parts = match (self.parts, self.content) {
            (Some(p), Some(c)) if p.is_empty() => c,
            (Some(p), _) => p,
            (None, Some(c)) => c,
            (None, None) => Vec::new(),
        };
        Ok(Message {
            message_id: required(self.message_id, "messageId")?,
            role: self.role.unwrap_or(Role::Unspecified),
            parts,
            context_id: cow(self.context_id),
            task_id: cow(self.task_id),
            reference_task_ids: cows(self.reference_task_ids),
            extensions: cows(self.extensions),
            metadata: self.metadata,
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Message<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        MessageIn::deserialize(d)?.into_model()
    }
}

// ------------------------------------------------------------------ status, artifact, task

#[derive(serde::Deserialize, Default)]
struct StatusIn<'a> {
    state: Option<StateIn>,
    #[serde(borrow, alias = "update")]
    message: Option<Message<'a>>,
    #[serde(borrow)]
    timestamp: Option<Str<'a>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for TaskStatus<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(StatusIn::deserialize(d)?.into_model())
    }
}

impl<'a> StatusIn<'a> {
    fn into_model(self) -> TaskStatus<'a> {
        TaskStatus {
            state: self.state.map(|s| s.0).unwrap_or(TaskState::Unknown),
            message: self.message.map(Box::new),
            timestamp: cow(self.timestamp),
        }
    }
}

#[derive(serde::Deserialize, Default)]
struct ArtifactIn<'a> {
    #[serde(borrow, rename = "artifactId", alias = "artifact_id")]
    artifact_id: Option<Str<'a>>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    description: Option<Str<'a>>,
    #[serde(borrow)]
    parts: Option<Vec<Part<'a>>>,
    #[serde(borrow)]
    metadata: Option<Json<'a>>,
    #[serde(borrow)]
    extensions: Option<Vec<Str<'a>>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Artifact<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ArtifactIn::deserialize(d)?.into_model()
    }
}

impl<'a> ArtifactIn<'a> {
    fn into_model<E: de::Error>(self) -> Result<Artifact<'a>, E> {
        let a = self;
        Ok(Artifact {
            artifact_id: required(a.artifact_id, "artifactId")?,
            name: cow(a.name),
            description: cow(a.description),
            parts: a.parts.unwrap_or_default(),
            metadata: a.metadata,
            extensions: cows(a.extensions),
        })
    }
}

/// The union of every key a task, message, status update, artifact update or one-key
/// wrapper can carry: one pass reads any of them, whatever order the keys come in.
#[derive(serde::Deserialize, Default)]
struct AnyIn<'a> {
    #[serde(borrow)]
    kind: Option<Str<'a>>,
    // wrappers
    #[serde(borrow)]
    task: Option<Box<Task<'a>>>,
    #[serde(borrow, alias = "msg")]
    message: Option<Box<Message<'a>>>,
    #[serde(borrow, rename = "statusUpdate", alias = "status_update")]
    status_update: Option<Box<TaskStatusUpdateEvent<'a>>>,
    #[serde(borrow, rename = "artifactUpdate", alias = "artifact_update")]
    artifact_update: Option<Box<TaskArtifactUpdateEvent<'a>>>,
    // task
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow, rename = "contextId", alias = "context_id")]
    context_id: Option<Str<'a>>,
    #[serde(borrow)]
    status: Option<TaskStatus<'a>>,
    #[serde(borrow)]
    artifacts: Option<Vec<Artifact<'a>>>,
    #[serde(borrow)]
    history: Option<Vec<Message<'a>>>,
    #[serde(borrow)]
    metadata: Option<Json<'a>>,
    // message
    #[serde(borrow, rename = "messageId", alias = "message_id")]
    message_id: Option<Str<'a>>,
    role: Option<Role>,
    #[serde(borrow)]
    parts: Option<Vec<Part<'a>>>,
    #[serde(borrow)]
    content: Option<Vec<Part<'a>>>,
    #[serde(borrow, rename = "taskId", alias = "task_id")]
    task_id: Option<Str<'a>>,
    #[serde(borrow, rename = "referenceTaskIds", alias = "reference_task_ids")]
    reference_task_ids: Option<Vec<Str<'a>>>,
    #[serde(borrow)]
    extensions: Option<Vec<Str<'a>>>,
    // updates
    #[serde(rename = "final")]
    is_final: Option<bool>,
    #[serde(borrow)]
    artifact: Option<Box<Artifact<'a>>>,
    append: Option<bool>,
    #[serde(rename = "lastChunk", alias = "last_chunk")]
    last_chunk: Option<bool>,
}

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Task,
    Message,
    Status,
    Artifact,
}

impl<'a> AnyIn<'a> {
    /// Which object this is: a one-key wrapper, else `kind`, else inferred from its keys.
    fn into_event<E: de::Error>(self) -> Result<StreamEvent<'a>, E> {
        let wrapped = self.task.is_some() as u8
            + self.message.is_some() as u8
            + self.status_update.is_some() as u8
            + self.artifact_update.is_some() as u8;
        if wrapped > 1 {
            return Err(E::custom(
                "more than one of task, message, statusUpdate, artifactUpdate",
            ));
        }
        if let Some(t) = self.task {
            return Ok(StreamEvent::Task(*t));
        }
        if let Some(m) = self.message {
            return Ok(StreamEvent::Message(*m));
        }
        if let Some(s) = self.status_update {
            return Ok(StreamEvent::StatusUpdate(*s));
        }
        if let Some(a) = self.artifact_update {
            return Ok(StreamEvent::ArtifactUpdate(*a));
        }
        let shape = match self.kind.as_ref().map(|k| &*k.0) {
            Some("task") => Shape::Task,
            Some("message") => Shape::Message,
            Some("status-update") => Shape::Status,
            Some("artifact-update") => Shape::Artifact,
            Some(other) => return Err(E::custom(format!("unknown kind {other:?}"))),
            None if self.message_id.is_some() => Shape::Message,
            None if self.artifact.is_some() => Shape::Artifact,
            None if self.task_id.is_some() && self.status.is_some() => Shape::Status,
            None if self.id.is_some() && self.status.is_some() => Shape::Task,
            None => {
                return Err(E::custom(
                    "not a task, message, status update or artifact update",
                ));
            }
        };
        Ok(match shape {
            Shape::Task => StreamEvent::Task(Task {
                id: required(self.id, "id")?,
                context_id: cow(self.context_id).unwrap_or_default(),
                status: self.status.ok_or_else(|| E::missing_field("status"))?,
                artifacts: self.artifacts.unwrap_or_default(),
                history: self.history.unwrap_or_default(),
                metadata: self.metadata,
            }),
            Shape::Message => StreamEvent::Message(
                MessageIn {
                    message_id: self.message_id,
                    role: self.role,
                    parts: self.parts,
                    content: self.content,
                    context_id: self.context_id,
                    task_id: self.task_id,
                    reference_task_ids: self.reference_task_ids,
                    extensions: self.extensions,
                    metadata: self.metadata,
                    kind: None,
                }
                .into_model()?,
            ),
            Shape::Status => StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
                task_id: required(self.task_id, "taskId")?,
                context_id: cow(self.context_id).unwrap_or_default(),
                status: self.status.ok_or_else(|| E::missing_field("status"))?,
                is_final: self.is_final.unwrap_or(false),
                metadata: self.metadata,
            }),
            Shape::Artifact => StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: required(self.task_id, "taskId")?,
                context_id: cow(self.context_id).unwrap_or_default(),
                artifact: *self.artifact.ok_or_else(|| E::missing_field("artifact"))?,
                append: self.append.unwrap_or(false),
                last_chunk: self.last_chunk.unwrap_or(false),
                metadata: self.metadata,
            }),
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for StreamEvent<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        AnyIn::deserialize(d)?.into_event()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for SendResponse<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        send_response(AnyIn::deserialize(d)?.into_event()?)
    }
}

/// The send result an event is, or the error when it is an update.
fn send_response<E: de::Error>(ev: StreamEvent<'_>) -> Result<SendResponse<'_>, E> {
    match ev {
        StreamEvent::Task(t) => Ok(SendResponse::Task(t)),
        StreamEvent::Message(m) => Ok(SendResponse::Message(m)),
        other => Err(E::custom(format!(
            "a send result is a task or a message, not a {}",
            other.kind()
        ))),
    }
}

fn expect_shape<'a, E: de::Error>(
    ev: StreamEvent<'a>,
    want: &'static str,
) -> Result<StreamEvent<'a>, E> {
    if ev.kind() == want {
        Ok(ev)
    } else {
        Err(E::custom(format!("expected a {want}, got a {}", ev.kind())))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Task<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        AnyIn::deserialize(d)?.into_task()
    }
}

impl<'a> AnyIn<'a> {
    /// The task this union object is (as [`Task`]'s reader takes it).
    fn into_task<E: de::Error>(mut self) -> Result<Task<'a>, E> {
        // A bare task never has a wrapper key; a nested `task` key would be a wrapper.
        if self.kind.is_none() && self.task.is_none() && self.id.is_some() {
            self.kind = Some(Str(Cow::Borrowed("task")));
        }
        match expect_shape(self.into_event()?, "task")? {
            StreamEvent::Task(t) => Ok(t),
            _ => unreachable!("shape checked"),
        }
    }

    /// The status update this union object is.
    fn into_status_update<E: de::Error>(mut self) -> Result<TaskStatusUpdateEvent<'a>, E> {
        if self.kind.is_none() && self.status_update.is_none() {
            self.kind = Some(Str(Cow::Borrowed("status-update")));
        }
        match expect_shape(self.into_event()?, "status-update")? {
            StreamEvent::StatusUpdate(s) => Ok(s),
            _ => unreachable!("shape checked"),
        }
    }

    /// The artifact update this union object is.
    fn into_artifact_update<E: de::Error>(mut self) -> Result<TaskArtifactUpdateEvent<'a>, E> {
        if self.kind.is_none() && self.artifact_update.is_none() {
            self.kind = Some(Str(Cow::Borrowed("artifact-update")));
        }
        match expect_shape(self.into_event()?, "artifact-update")? {
            StreamEvent::ArtifactUpdate(a) => Ok(a),
            _ => unreachable!("shape checked"),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for TaskStatusUpdateEvent<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        AnyIn::deserialize(d)?.into_status_update()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for TaskArtifactUpdateEvent<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        AnyIn::deserialize(d)?.into_artifact_update()
    }
}

// ---------------------------------------------------------------------------- push config

#[derive(serde::Deserialize)]
struct AuthIn<'a> {
    #[serde(borrow)]
    schemes: Option<Vec<Str<'a>>>,
    #[serde(borrow)]
    scheme: Option<Str<'a>>,
    #[serde(borrow)]
    credentials: Option<Str<'a>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for PushAuthentication<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let a = AuthIn::deserialize(d)?;
        let mut schemes = cows(a.schemes);
        if let Some(s) = a.scheme {
            schemes.insert(0, s.0);
        }
        Ok(PushAuthentication {
            schemes,
            credentials: cow(a.credentials),
        })
    }
}

#[derive(serde::Deserialize)]
struct PushConfigIn<'a> {
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    url: Option<Str<'a>>,
    #[serde(borrow)]
    token: Option<Str<'a>>,
    #[serde(borrow)]
    authentication: Option<PushAuthentication<'a>>,
}

impl<'a> PushConfigIn<'a> {
    fn into_model<E: de::Error>(self) -> Result<PushNotificationConfig<'a>, E> {
        Ok(PushNotificationConfig {
            id: cow(self.id),
            url: required(self.url, "url")?,
            token: cow(self.token),
            authentication: self.authentication,
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for PushNotificationConfig<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PushConfigIn::deserialize(d)?.into_model()
    }
}

#[derive(serde::Deserialize)]
struct TaskPushIn<'a> {
    #[serde(borrow, rename = "taskId", alias = "task_id")]
    task_id: Option<Str<'a>>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(
        borrow,
        rename = "pushNotificationConfig",
        alias = "push_notification_config"
    )]
    push_notification_config: Option<PushNotificationConfig<'a>>,
    #[serde(borrow)]
    tenant: Option<Str<'a>>,
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    url: Option<Str<'a>>,
    #[serde(borrow)]
    token: Option<Str<'a>>,
    #[serde(borrow)]
    authentication: Option<PushAuthentication<'a>>,
}

/// Splits a 0.3 REST resource name `tasks/{task}/pushNotificationConfigs/{config}` (the
/// config part optional) into its ids.
pub(crate) fn split_push_name(name: &str) -> Option<(&str, Option<&str>)> {
    const COLL: &str = "/pushNotificationConfigs";
    let rest = name.strip_prefix("tasks/")?;
    let (task, cfg) = match rest.rfind(COLL) {
        None => (rest, None),
        Some(i) => {
            let tail = &rest[i + COLL.len()..];
            let cfg = match tail {
                "" | "/" => None,
                t => Some(t.strip_prefix('/')?),
            };
            (&rest[..i], cfg)
        }
    };
    (!task.is_empty()).then_some((task, cfg))
}

fn sub<'a>(whole: &Cow<'a, str>, part: &str) -> Cow<'a, str> {
    match whole {
        Cow::Borrowed(w) => {
            // `part` is a subslice of `w`: re-borrow it with the input's lifetime.
            let start = part.as_ptr() as usize - w.as_ptr() as usize;
            Cow::Borrowed(&w[start..start + part.len()])
        }
        Cow::Owned(_) => Cow::Owned(part.to_owned()),
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for TaskPushNotificationConfig<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = TaskPushIn::deserialize(d)?;
        let mut task_id = cow(t.task_id);
        let mut name_config_id = None;
        if let Some(name) = t.name {
            let (task, cfg) = split_push_name(&name.0).ok_or_else(|| {
                D::Error::custom(format!("malformed push config name {:?}", name.0))
            })?;
            let (task, cfg) = (sub(&name.0, task), cfg.map(|c| sub(&name.0, c)));
            if task_id.is_none() {
                task_id = Some(task);
            }
            name_config_id = cfg;
        }
        let mut config = match t.push_notification_config {
            Some(c) => c,
            None => PushConfigIn {
                id: t.id,
                url: t.url,
                token: t.token,
                authentication: t.authentication,
            }
            .into_model()?,
        };
        if config.id.is_none() {
            config.id = name_config_id;
        }
        Ok(TaskPushNotificationConfig {
            // Tolerated when absent (REST binds it from the path); servers validate it.
            task_id: task_id.unwrap_or_default(),
            config,
            tenant: cow(t.tenant),
        })
    }
}

#[derive(serde::Deserialize)]
struct ListTasksIn<'a> {
    #[serde(borrow)]
    tasks: Option<Vec<Task<'a>>>,
    #[serde(borrow, rename = "nextPageToken", alias = "next_page_token")]
    next_page_token: Option<Str<'a>>,
    #[serde(rename = "pageSize", alias = "page_size")]
    page_size: Option<Int>,
    #[serde(rename = "totalSize", alias = "total_size")]
    total_size: Option<Int>,
}

impl<'de: 'a, 'a> Deserialize<'de> for ListTasksResponse<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let l = ListTasksIn::deserialize(d)?;
        Ok(ListTasksResponse {
            tasks: l.tasks.unwrap_or_default(),
            next_page_token: cow(l.next_page_token).unwrap_or_default(),
            page_size: int(l.page_size).unwrap_or(0),
            total_size: int(l.total_size).unwrap_or(0),
        })
    }
}

#[derive(serde::Deserialize)]
struct ListPushIn<'a> {
    #[serde(borrow)]
    configs: Option<Vec<TaskPushNotificationConfig<'a>>>,
    #[serde(borrow, rename = "nextPageToken", alias = "next_page_token")]
    next_page_token: Option<Str<'a>>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum ListPushEither<'a> {
    #[serde(borrow)]
    Bare(Vec<TaskPushNotificationConfig<'a>>),
    #[serde(borrow)]
    Wrapped(ListPushIn<'a>),
}

impl<'de: 'a, 'a> Deserialize<'de> for ListPushConfigsResponse<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match ListPushEither::deserialize(d)? {
            ListPushEither::Bare(configs) => ListPushConfigsResponse {
                configs,
                next_page_token: None,
            },
            ListPushEither::Wrapped(l) => ListPushConfigsResponse {
                configs: l.configs.unwrap_or_default(),
                next_page_token: cow(l.next_page_token),
            },
        })
    }
}

// --------------------------------------------------------------------------- settling

/// Unwraps the 0.3 REST `DataPart` message: `{"data":{"data":X}}` reads as `X`.
fn settle_parts(parts: &mut [Part<'_>], form: WireForm) {
    if form != WireForm::RestV0_3 {
        return;
    }
    for part in parts {
        if let PartContent::Data(json) = &mut part.content {
            #[derive(serde::Deserialize)]
            struct Wrapped<'a> {
                #[serde(borrow)]
                data: Option<&'a RawValue>,
            }
            let inner = match &json.0 {
                Cow::Borrowed(raw) => serde_json::from_str::<Wrapped<'_>>(raw.get())
                    .ok()
                    .and_then(|w| w.data)
                    .map(|r| Json(Cow::Borrowed(r))),
                Cow::Owned(raw) => serde_json::from_str::<Wrapped<'_>>(raw.get())
                    .ok()
                    .and_then(|w| w.data)
                    .map(|r| Json(Cow::Owned(r.to_owned()))),
            };
            if let Some(inner) = inner {
                *json = inner;
            }
        }
    }
}

impl<'a> FromWire<'a> for Part<'a> {
    fn settle(&mut self, form: WireForm) {
        settle_parts(std::slice::from_mut(self), form);
    }
}

impl<'a> FromWire<'a> for Message<'a> {
    fn settle(&mut self, form: WireForm) {
        settle_parts(&mut self.parts, form);
    }
}

impl<'a> FromWire<'a> for TaskStatus<'a> {
    fn settle(&mut self, form: WireForm) {
        if let Some(m) = &mut self.message {
            m.settle(form);
        }
    }
}

impl<'a> FromWire<'a> for Artifact<'a> {
    fn settle(&mut self, form: WireForm) {
        settle_parts(&mut self.parts, form);
    }
}

impl<'a> FromWire<'a> for Task<'a> {
    fn settle(&mut self, form: WireForm) {
        self.status.settle(form);
        self.artifacts.iter_mut().for_each(|a| a.settle(form));
        self.history.iter_mut().for_each(|m| m.settle(form));
    }
}

impl<'a> FromWire<'a> for TaskStatusUpdateEvent<'a> {
    fn settle(&mut self, form: WireForm) {
        self.status.settle(form);
    }
}

impl<'a> FromWire<'a> for TaskArtifactUpdateEvent<'a> {
    fn settle(&mut self, form: WireForm) {
        self.artifact.settle(form);
    }
}

impl<'a> FromWire<'a> for StreamEvent<'a> {
    fn settle(&mut self, form: WireForm) {
        match self {
            StreamEvent::Task(t) => t.settle(form),
            StreamEvent::Message(m) => m.settle(form),
            StreamEvent::StatusUpdate(s) => s.settle(form),
            StreamEvent::ArtifactUpdate(a) => a.settle(form),
        }
    }
}

impl<'a> FromWire<'a> for SendResponse<'a> {
    fn settle(&mut self, form: WireForm) {
        match self {
            SendResponse::Task(t) => t.settle(form),
            SendResponse::Message(m) => m.settle(form),
        }
    }
}

impl<'a> FromWire<'a> for PushNotificationConfig<'a> {
    fn settle(&mut self, _: WireForm) {}
}

impl<'a> FromWire<'a> for TaskPushNotificationConfig<'a> {
    fn settle(&mut self, _: WireForm) {}
}

impl<'a> FromWire<'a> for ListTasksResponse<'a> {
    fn settle(&mut self, form: WireForm) {
        self.tasks.iter_mut().for_each(|t| t.settle(form));
    }
}

impl<'a> FromWire<'a> for ListPushConfigsResponse<'a> {
    fn settle(&mut self, _: WireForm) {}
}
