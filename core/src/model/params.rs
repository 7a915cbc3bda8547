//! Request parameters of every A2A method, shared by the client builders
//! ([`crate::envelope`]) and the server-side parser ([`crate::server`]).

use std::borrow::Cow;

use super::types::{Json, Message, PushNotificationConfig, TaskPushNotificationConfig, TaskState};

/// Options of a send (0.3 `MessageSendConfiguration`, 1.0 `SendMessageConfiguration`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SendConfiguration<'a> {
    /// Output media types the client accepts.
    pub accepted_output_modes: Vec<Cow<'a, str>>,
    /// How many history messages the returned task should carry.
    pub history_length: Option<i32>,
    /// Push config to register for the task this send creates.
    pub push_notification_config: Option<PushNotificationConfig<'a>>,
    /// Wait for a terminal or interrupted state. 0.3 writes `blocking`; 1.0 writes
    /// `returnImmediately` = `!blocking`. `None` sends nothing (the server's default, which
    /// is blocking in both versions).
    pub blocking: Option<bool>,
}

/// `message/send`, `message/stream`, `SendMessage`, `SendStreamingMessage`.
#[derive(Debug, Clone, PartialEq)]
pub struct SendMessageParams<'a> {
    /// The message (its `message_id` is the caller's retry key).
    pub message: Message<'a>,
    /// Options.
    pub configuration: Option<SendConfiguration<'a>>,
    /// Free-form request metadata object.
    pub metadata: Option<Json<'a>>,
}

impl<'a> SendMessageParams<'a> {
    /// Params with only a message.
    pub fn new(message: Message<'a>) -> SendMessageParams<'a> {
        SendMessageParams {
            message,
            configuration: None,
            metadata: None,
        }
    }
}

/// `tasks/get`, `GetTask`.
#[derive(Debug, Clone, PartialEq)]
pub struct GetTaskParams<'a> {
    /// Task id.
    pub id: Cow<'a, str>,
    /// Most recent history messages to include.
    pub history_length: Option<i32>,
    /// Free-form metadata object (0.3 only).
    pub metadata: Option<Json<'a>>,
}

/// `tasks/cancel`, `tasks/resubscribe`, `CancelTask`, `SubscribeToTask`.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskIdParams<'a> {
    /// Task id.
    pub id: Cow<'a, str>,
    /// Free-form metadata object (not carried by `SubscribeToTask`).
    pub metadata: Option<Json<'a>>,
}

impl<'a> TaskIdParams<'a> {
    /// Params with only a task id.
    pub fn new(id: impl Into<Cow<'a, str>>) -> TaskIdParams<'a> {
        TaskIdParams {
            id: id.into(),
            metadata: None,
        }
    }
}

/// `ListTasks` (1.0 only).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListTasksParams<'a> {
    /// Only tasks of this context.
    pub context_id: Option<Cow<'a, str>>,
    /// Only tasks in this state.
    pub status: Option<TaskState>,
    /// Page size (1..100, server default 50).
    pub page_size: Option<i32>,
    /// Cursor from the previous page.
    pub page_token: Option<Cow<'a, str>>,
    /// History messages per task.
    pub history_length: Option<i32>,
    /// Only tasks whose status changed after this ISO 8601 time.
    pub status_timestamp_after: Option<Cow<'a, str>>,
    /// Include artifacts.
    pub include_artifacts: Option<bool>,
}

/// Get or delete one push config (`tasks/pushNotificationConfig/get|delete`,
/// `Get|DeleteTaskPushNotificationConfig`).
#[derive(Debug, Clone, PartialEq)]
pub struct PushConfigRef<'a> {
    /// Task id.
    pub task_id: Cow<'a, str>,
    /// Config id. Required for delete and for 1.0; a 0.3 get may omit it (the task's only
    /// config).
    pub config_id: Option<Cow<'a, str>>,
    /// Free-form metadata object (0.3 only).
    pub metadata: Option<Json<'a>>,
}

/// List a task's push configs.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPushConfigsParams<'a> {
    /// Task id.
    pub task_id: Cow<'a, str>,
    /// Page size (1.0 only).
    pub page_size: Option<i32>,
    /// Cursor (1.0 only).
    pub page_token: Option<Cow<'a, str>>,
    /// Free-form metadata object (0.3 only).
    pub metadata: Option<Json<'a>>,
}

/// One A2A call with its typed parameters, the same for both versions and bindings.
#[derive(Debug, Clone, PartialEq)]
pub enum Call<'a> {
    /// Send a message, answer in one response.
    SendMessage(SendMessageParams<'a>),
    /// Send a message, answer as an event stream.
    SendStreamingMessage(SendMessageParams<'a>),
    /// Read a task.
    GetTask(GetTaskParams<'a>),
    /// List tasks (1.0 only).
    ListTasks(ListTasksParams<'a>),
    /// Cancel a task.
    CancelTask(TaskIdParams<'a>),
    /// Stream a task's events again (0.3 `tasks/resubscribe`).
    SubscribeToTask(TaskIdParams<'a>),
    /// Create (0.3: set) a push config.
    CreatePushConfig(TaskPushNotificationConfig<'a>),
    /// Read a push config.
    GetPushConfig(PushConfigRef<'a>),
    /// List a task's push configs.
    ListPushConfigs(ListPushConfigsParams<'a>),
    /// Delete a push config.
    DeletePushConfig(PushConfigRef<'a>),
    /// Fetch the extended (authenticated) agent card.
    GetExtendedAgentCard,
}

impl Call<'_> {
    /// The method this call invokes.
    pub fn method(&self) -> crate::method::Method {
        use crate::method::Method as M;
        match self {
            Call::SendMessage(_) => M::SendMessage,
            Call::SendStreamingMessage(_) => M::SendStreamingMessage,
            Call::GetTask(_) => M::GetTask,
            Call::ListTasks(_) => M::ListTasks,
            Call::CancelTask(_) => M::CancelTask,
            Call::SubscribeToTask(_) => M::SubscribeToTask,
            Call::CreatePushConfig(_) => M::CreatePushConfig,
            Call::GetPushConfig(_) => M::GetPushConfig,
            Call::ListPushConfigs(_) => M::ListPushConfigs,
            Call::DeletePushConfig(_) => M::DeletePushConfig,
            Call::GetExtendedAgentCard => M::GetExtendedAgentCard,
        }
    }
}
