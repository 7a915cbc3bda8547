//! The A2A objects, one Rust model for both protocol versions.
//!
//! Strings are `Cow<'a, str>`: a value parsed from a buffer borrows from it when the JSON
//! string has no escapes, and owns a copy only when it must. JSON values the protocol leaves
//! open (`metadata`, data parts) are kept as raw JSON text ([`Json`]), never re-parsed into a
//! tree. Every type has a `'static` form for values built in code.

use std::borrow::Cow;

use serde_json::value::RawValue;

pub use crate::outcome::TaskState;

/// A JSON value kept as its raw text, borrowed from the input when parsed.
///
/// Equality compares the parsed values (so `{"a":1}` equals `{ "a" : 1 }`); it is meant for
/// tests and is not cheap.
#[derive(Debug, Clone)]
pub struct Json<'a>(pub Cow<'a, RawValue>);

impl<'a> Json<'a> {
    /// Raw JSON text of the value.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Checks `text` is one JSON value and keeps it (copied).
    pub fn parse(text: &str) -> Result<Json<'static>, serde_json::Error> {
        let raw: &RawValue = serde_json::from_str(text)?;
        Ok(Json(Cow::Owned(raw.to_owned())))
    }

    /// Serializes a `serde_json::Value` (or anything serializable) into a JSON value.
    pub fn from_value<T: serde::Serialize + ?Sized>(
        value: &T,
    ) -> Result<Json<'static>, serde_json::Error> {
        Ok(Json(Cow::Owned(serde_json::value::to_raw_value(value)?)))
    }

    /// Parses the value into a `serde_json::Value` tree.
    pub fn to_value(&self) -> serde_json::Value {
        // A RawValue always holds valid JSON; the fallback is unreachable in practice.
        serde_json::from_str(self.get()).unwrap_or(serde_json::Value::Null)
    }

    /// Whether the value is a JSON object.
    pub fn is_object(&self) -> bool {
        self.get().trim_start().starts_with('{')
    }

    /// A copy that no longer borrows the input buffer.
    pub fn into_owned(self) -> Json<'static> {
        Json(Cow::Owned(self.0.into_owned()))
    }
}

impl PartialEq for Json<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get() || self.to_value() == other.to_value()
    }
}

/// Who sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The client (`user`, `ROLE_USER`, 1).
    User,
    /// The remote agent (`agent`, `ROLE_AGENT`, 2).
    Agent,
    /// `ROLE_UNSPECIFIED`, 0, or absent: refused by servers as invalid params.
    Unspecified,
}

impl Role {
    /// Parses `user`/`agent`, `ROLE_USER`/`ROLE_AGENT`/`ROLE_UNSPECIFIED` and the numbers as
    /// strings; anything else is `None`.
    pub fn parse(text: &str) -> Option<Role> {
        match text {
            "user" | "ROLE_USER" | "1" => Some(Role::User),
            "agent" | "ROLE_AGENT" | "2" => Some(Role::Agent),
            "ROLE_UNSPECIFIED" | "0" | "" => Some(Role::Unspecified),
            _ => None,
        }
    }
}

/// What a part carries: exactly one of text, file bytes, file URL or structured data.
#[derive(Debug, Clone, PartialEq)]
pub enum PartContent<'a> {
    /// Plain text.
    Text(Cow<'a, str>),
    /// File content as standard base64 text (0.3 `file.bytes`, 1.0 `raw`), not decoded.
    Bytes(Cow<'a, str>),
    /// File by reference (0.3 `file.uri`, 1.0 `url`).
    Url(Cow<'a, str>),
    /// Structured data (0.3: a JSON object; 1.0: any JSON value).
    Data(Json<'a>),
}

/// One part of a message or artifact.
#[derive(Debug, Clone, PartialEq)]
pub struct Part<'a> {
    /// The content.
    pub content: PartContent<'a>,
    /// Media type (1.0 `mediaType`; 0.3 `file.mimeType`, files only).
    pub media_type: Option<Cow<'a, str>>,
    /// File name (1.0 `filename`; 0.3 `file.name`, files only).
    pub filename: Option<Cow<'a, str>>,
    /// Free-form metadata object.
    pub metadata: Option<Json<'a>>,
}

impl<'a> Part<'a> {
    /// A text part.
    pub fn text(text: impl Into<Cow<'a, str>>) -> Part<'a> {
        Part::from_content(PartContent::Text(text.into()))
    }

    /// A part with `content` and no media type, file name or metadata.
    pub fn from_content(content: PartContent<'a>) -> Part<'a> {
        Part {
            content,
            media_type: None,
            filename: None,
            metadata: None,
        }
    }

    /// The text, for a text part.
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            PartContent::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// A message between client and agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Message<'a> {
    /// Sender-chosen unique id; a retry of the same message reuses it.
    pub message_id: Cow<'a, str>,
    /// Who sent it.
    pub role: Role,
    /// The content (at least one part on the wire).
    pub parts: Vec<Part<'a>>,
    /// Conversation id.
    pub context_id: Option<Cow<'a, str>>,
    /// Task this message belongs to.
    pub task_id: Option<Cow<'a, str>>,
    /// Other tasks this message refers to.
    pub reference_task_ids: Vec<Cow<'a, str>>,
    /// Extension URIs that apply to this message.
    pub extensions: Vec<Cow<'a, str>>,
    /// Free-form metadata object.
    pub metadata: Option<Json<'a>>,
}

impl<'a> Message<'a> {
    /// A user message with one text part (the common case), with the caller's `message_id`.
    pub fn user_text(
        message_id: impl Into<Cow<'a, str>>,
        text: impl Into<Cow<'a, str>>,
    ) -> Message<'a> {
        Message::new(message_id, Role::User, vec![Part::text(text)])
    }

    /// A message with the given id, role and parts and nothing else.
    pub fn new(
        message_id: impl Into<Cow<'a, str>>,
        role: Role,
        parts: Vec<Part<'a>>,
    ) -> Message<'a> {
        Message {
            message_id: message_id.into(),
            role,
            parts,
            context_id: None,
            task_id: None,
            reference_task_ids: Vec::new(),
            extensions: Vec::new(),
            metadata: None,
        }
    }

    /// The text parts joined with newlines, or `None` when there is no text part.
    pub fn text(&self) -> Option<String> {
        let mut out: Option<String> = None;
        for t in self.parts.iter().filter_map(Part::as_text) {
            match &mut out {
                None => out = Some(t.to_owned()),
                Some(s) => {
                    s.push('\n');
                    s.push_str(t);
                }
            }
        }
        out
    }
}

/// A task's status.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatus<'a> {
    /// The state, normalized across versions.
    pub state: TaskState,
    /// The agent's status message (e.g. the question of an input-required task, the error
    /// text of a failed one).
    pub message: Option<Box<Message<'a>>>,
    /// ISO 8601 timestamp, as sent.
    pub timestamp: Option<Cow<'a, str>>,
}

impl<'a> TaskStatus<'a> {
    /// A status with just a state.
    pub fn new(state: TaskState) -> TaskStatus<'a> {
        TaskStatus {
            state,
            message: None,
            timestamp: None,
        }
    }
}

/// An output of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact<'a> {
    /// Unique within the task.
    pub artifact_id: Cow<'a, str>,
    /// Human-readable name.
    pub name: Option<Cow<'a, str>>,
    /// Human-readable description.
    pub description: Option<Cow<'a, str>>,
    /// The content.
    pub parts: Vec<Part<'a>>,
    /// Free-form metadata object.
    pub metadata: Option<Json<'a>>,
    /// Extension URIs.
    pub extensions: Vec<Cow<'a, str>>,
}

/// A unit of work on the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Task<'a> {
    /// Server-chosen id.
    pub id: Cow<'a, str>,
    /// Conversation id (required in 0.3, optional in 1.0; empty when absent).
    pub context_id: Cow<'a, str>,
    /// Current status.
    pub status: TaskStatus<'a>,
    /// Outputs so far.
    pub artifacts: Vec<Artifact<'a>>,
    /// Messages so far.
    pub history: Vec<Message<'a>>,
    /// Free-form metadata object.
    pub metadata: Option<Json<'a>>,
}

/// A status change, sent on streams and to push webhooks.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatusUpdateEvent<'a> {
    /// The task.
    pub task_id: Cow<'a, str>,
    /// Its context.
    pub context_id: Cow<'a, str>,
    /// The new status.
    pub status: TaskStatus<'a>,
    /// 0.3 `final`: the last event of this stream. 1.0 has no such field (the server closes
    /// the stream); 1.0 parsers leave it `false` and 1.0 writers drop it.
    pub is_final: bool,
    /// Free-form metadata object.
    pub metadata: Option<Json<'a>>,
}

/// A new or extended artifact, sent on streams.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskArtifactUpdateEvent<'a> {
    /// The task.
    pub task_id: Cow<'a, str>,
    /// Its context.
    pub context_id: Cow<'a, str>,
    /// The artifact (or the chunk of it).
    pub artifact: Artifact<'a>,
    /// Append these parts to the artifact of the same id.
    pub append: bool,
    /// The last chunk of this artifact.
    pub last_chunk: bool,
    /// Free-form metadata object.
    pub metadata: Option<Json<'a>>,
}

/// One item of a stream (and of a 1.0 push notification): the four shapes A2A sends.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent<'a> {
    /// A task snapshot.
    Task(Task<'a>),
    /// A direct message.
    Message(Message<'a>),
    /// A status change.
    StatusUpdate(TaskStatusUpdateEvent<'a>),
    /// An artifact change.
    ArtifactUpdate(TaskArtifactUpdateEvent<'a>),
}

impl<'a> StreamEvent<'a> {
    /// The task state this event reports, if it reports one.
    pub fn state(&self) -> Option<TaskState> {
        match self {
            StreamEvent::Task(t) => Some(t.status.state),
            StreamEvent::StatusUpdate(u) => Some(u.status.state),
            _ => None,
        }
    }

    /// The wire discriminator: `task`, `message`, `status-update` or `artifact-update`.
    pub fn kind(&self) -> &'static str {
        match self {
            StreamEvent::Task(_) => "task",
            StreamEvent::Message(_) => "message",
            StreamEvent::StatusUpdate(_) => "status-update",
            StreamEvent::ArtifactUpdate(_) => "artifact-update",
        }
    }
}

/// The result of a (non-streaming) send: a task or a direct message.
#[derive(Debug, Clone, PartialEq)]
pub enum SendResponse<'a> {
    /// The agent created or continued a task.
    Task(Task<'a>),
    /// The agent answered directly.
    Message(Message<'a>),
}

/// How the agent authenticates to a push webhook.
#[derive(Debug, Clone, PartialEq)]
pub struct PushAuthentication<'a> {
    /// Scheme names, e.g. `Bearer`. 0.3 carries a list; 1.0 exactly one (`scheme`).
    pub schemes: Vec<Cow<'a, str>>,
    /// The credentials to present.
    pub credentials: Option<Cow<'a, str>>,
}

/// Where and how the agent delivers push notifications.
#[derive(Debug, Clone, PartialEq)]
pub struct PushNotificationConfig<'a> {
    /// Config id (server- or client-chosen).
    pub id: Option<Cow<'a, str>>,
    /// Webhook URL.
    pub url: Cow<'a, str>,
    /// Token the agent echoes so the webhook can check the sender.
    pub token: Option<Cow<'a, str>>,
    /// Authentication the agent uses on the webhook.
    pub authentication: Option<PushAuthentication<'a>>,
}

impl<'a> PushNotificationConfig<'a> {
    /// A config with only a webhook URL.
    pub fn new(url: impl Into<Cow<'a, str>>) -> PushNotificationConfig<'a> {
        PushNotificationConfig {
            id: None,
            url: url.into(),
            token: None,
            authentication: None,
        }
    }
}

/// A push config bound to a task (the create/get/list result, and the create request).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPushNotificationConfig<'a> {
    /// The task (0.3 REST carries it inside `name`).
    pub task_id: Cow<'a, str>,
    /// The config.
    pub config: PushNotificationConfig<'a>,
    /// 1.0 tenant, when the server reports one.
    pub tenant: Option<Cow<'a, str>>,
}

/// A page of tasks (1.0 `ListTasks` result).
#[derive(Debug, Clone, PartialEq)]
pub struct ListTasksResponse<'a> {
    /// The tasks, newest status first.
    pub tasks: Vec<Task<'a>>,
    /// Cursor of the next page; empty on the last page.
    pub next_page_token: Cow<'a, str>,
    /// Page size the server applied.
    pub page_size: i32,
    /// Total number of tasks matching.
    pub total_size: i32,
}

/// A page of push configs (1.0 `ListTaskPushNotificationConfigs`; 0.3 returns a bare array).
#[derive(Debug, Clone, PartialEq)]
pub struct ListPushConfigsResponse<'a> {
    /// The configs.
    pub configs: Vec<TaskPushNotificationConfig<'a>>,
    /// Cursor of the next page, if any.
    pub next_page_token: Option<Cow<'a, str>>,
}
