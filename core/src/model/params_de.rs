//! Tolerant readers of request params (JSON-RPC `params` and HTTP+JSON bodies).

use serde::de::{Deserialize, Deserializer, Error as _};

use super::de::{Int, StateIn, Str, cow, cows, int, required, split_push_name};
use super::params::*;
use super::types::*;
use super::{FromWire, ModelError, WireForm};
use crate::method::Method;

#[derive(serde::Deserialize)]
struct ConfigIn<'a> {
    #[serde(
        borrow,
        rename = "acceptedOutputModes",
        alias = "accepted_output_modes"
    )]
    accepted_output_modes: Option<Vec<Str<'a>>>,
    #[serde(rename = "historyLength", alias = "history_length")]
    history_length: Option<Int>,
    #[serde(
        borrow,
        rename = "pushNotificationConfig",
        alias = "push_notification_config",
        alias = "pushNotification",
        alias = "push_notification",
        alias = "taskPushNotificationConfig",
        alias = "task_push_notification_config"
    )]
    push: Option<PushNotificationConfig<'a>>,
    blocking: Option<bool>,
    #[serde(rename = "returnImmediately", alias = "return_immediately")]
    return_immediately: Option<bool>,
}

impl<'de: 'a, 'a> Deserialize<'de> for SendConfiguration<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let c = ConfigIn::deserialize(d)?;
        Ok(SendConfiguration {
            accepted_output_modes: cows(c.accepted_output_modes),
            history_length: int(c.history_length),
            push_notification_config: c.push,
            blocking: c.blocking.or(c.return_immediately.map(|r| !r)),
        })
    }
}

/// The union of every key any request's params can carry.
#[derive(serde::Deserialize)]
struct ParamsIn<'a> {
    #[serde(borrow)]
    message: Option<Message<'a>>,
    #[serde(borrow, alias = "request")]
    request: Option<Message<'a>>,
    #[serde(borrow)]
    configuration: Option<SendConfiguration<'a>>,
    #[serde(borrow)]
    metadata: Option<Json<'a>>,
    #[serde(borrow)]
    tenant: Option<Str<'a>>,
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(rename = "historyLength", alias = "history_length")]
    history_length: Option<Int>,
    #[serde(borrow, rename = "contextId", alias = "context_id")]
    context_id: Option<Str<'a>>,
    status: Option<StateIn>,
    #[serde(rename = "pageSize", alias = "page_size")]
    page_size: Option<Int>,
    #[serde(borrow, rename = "pageToken", alias = "page_token")]
    page_token: Option<Str<'a>>,
    #[serde(
        borrow,
        rename = "statusTimestampAfter",
        alias = "status_timestamp_after"
    )]
    status_timestamp_after: Option<Str<'a>>,
    #[serde(rename = "includeArtifacts", alias = "include_artifacts")]
    include_artifacts: Option<bool>,
    #[serde(borrow, rename = "taskId", alias = "task_id")]
    task_id: Option<Str<'a>>,
    #[serde(
        borrow,
        rename = "pushNotificationConfigId",
        alias = "push_notification_config_id"
    )]
    push_notification_config_id: Option<Str<'a>>,
    #[serde(
        borrow,
        rename = "pushNotificationConfig",
        alias = "push_notification_config"
    )]
    push_notification_config: Option<PushNotificationConfig<'a>>,
    #[serde(borrow)]
    url: Option<Str<'a>>,
    #[serde(borrow)]
    token: Option<Str<'a>>,
    #[serde(borrow)]
    authentication: Option<PushAuthentication<'a>>,
    // 0.3 REST CreateTaskPushNotificationConfigRequest
    #[serde(borrow)]
    parent: Option<Str<'a>>,
    #[serde(borrow, rename = "configId", alias = "config_id")]
    config_id: Option<Str<'a>>,
    #[serde(borrow)]
    config: Option<TaskPushNotificationConfig<'a>>,
}

/// Params read for a method, plus the 1.0 tenant they carried.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedParams<'a> {
    /// The typed call.
    pub call: Call<'a>,
    /// The `tenant` field, when present and non-empty.
    pub tenant: Option<std::borrow::Cow<'a, str>>,
}

fn task_from_name<'a>(name: Option<Str<'a>>) -> Option<std::borrow::Cow<'a, str>> {
    let name = name?;
    let (task, _) = split_push_name(&name.0)?;
    Some(std::borrow::Cow::Owned(task.to_owned()))
}

/// Reads the params of `method` (a JSON object, or absent) tolerantly: every version's keys
/// are accepted, whatever `form` says; `form` settles only 0.3 REST data parts.
#[allow(
    clippy::too_many_lines,
    reason = "one arm per method, each reading that method's params"
)]
pub fn parse_params<'a>(
    method: Method,
    json: Option<&'a [u8]>,
    form: WireForm,
) -> Result<ParsedParams<'a>, ModelError> {
    let p: ParamsIn<'a> = match json {
        Some(j) => serde_json::from_slice(j)?,
        None => serde_json::from_str("{}")?,
    };
    type E = serde_json::Error;
    let tenant = cow(p.tenant).filter(|t| !t.is_empty());
    let call = match method {
        Method::SendMessage | Method::SendStreamingMessage => {
            let mut message = p
                .message
                .or(p.request)
                .ok_or_else(|| E::missing_field("message"))?;
            message.settle(form);
            let params = SendMessageParams {
                message,
                configuration: p.configuration,
                metadata: p.metadata,
            };
            if method == Method::SendMessage {
                Call::SendMessage(params)
            } else {
                Call::SendStreamingMessage(params)
            }
        }
        Method::GetTask => Call::GetTask(GetTaskParams {
            id: match p.id {
                Some(id) => id.0,
                None => task_from_name(p.name).ok_or_else(|| E::missing_field("id"))?,
            },
            history_length: int(p.history_length),
            metadata: p.metadata,
        }),
        Method::ListTasks => Call::ListTasks(ListTasksParams {
            context_id: cow(p.context_id),
            status: p.status.map(|s| s.0),
            page_size: int(p.page_size),
            page_token: cow(p.page_token),
            history_length: int(p.history_length),
            status_timestamp_after: cow(p.status_timestamp_after),
            include_artifacts: p.include_artifacts,
        }),
        Method::CancelTask | Method::SubscribeToTask => {
            let params = TaskIdParams {
                id: match p.id {
                    Some(id) => id.0,
                    None => task_from_name(p.name).ok_or_else(|| E::missing_field("id"))?,
                },
                metadata: p.metadata,
            };
            if method == Method::CancelTask {
                Call::CancelTask(params)
            } else {
                Call::SubscribeToTask(params)
            }
        }
        Method::CreatePushConfig => {
            let cfg = if let Some(mut c) = p.config {
                // 0.3 REST {"parent","configId","config":{..}}
                if c.config.id.is_none() {
                    c.config.id = cow(p.config_id);
                }
                if let Some(parent) = task_from_name(p.parent) {
                    c.task_id = parent;
                }
                c
            } else if let Some(config) = p.push_notification_config {
                let task_id = match p.task_id {
                    Some(t) => t.0,
                    None => task_from_name(p.name).ok_or_else(|| E::missing_field("taskId"))?,
                };
                TaskPushNotificationConfig {
                    task_id,
                    config,
                    tenant: None,
                }
            } else {
                TaskPushNotificationConfig {
                    task_id: p.task_id.map(|t| t.0).unwrap_or_default(),
                    config: PushNotificationConfig {
                        id: cow(p.id),
                        url: required::<E>(p.url, "url")?,
                        token: cow(p.token),
                        authentication: p.authentication,
                    },
                    tenant: None,
                }
            };
            Call::CreatePushConfig(cfg)
        }
        Method::GetPushConfig | Method::DeletePushConfig => {
            // 1.0: {taskId, id}; 0.3: {id: task, pushNotificationConfigId}.
            let (task_id, config_id) = match p.task_id {
                Some(t) => (t.0, cow(p.id)),
                None => (
                    required::<E>(p.id, "id")?,
                    cow(p.push_notification_config_id),
                ),
            };
            let r = PushConfigRef {
                task_id,
                config_id,
                metadata: p.metadata,
            };
            if method == Method::GetPushConfig {
                Call::GetPushConfig(r)
            } else {
                Call::DeletePushConfig(r)
            }
        }
        Method::ListPushConfigs => Call::ListPushConfigs(ListPushConfigsParams {
            task_id: match p.task_id {
                Some(t) => t.0,
                None => required::<E>(p.id, "taskId")?,
            },
            page_size: int(p.page_size),
            page_token: cow(p.page_token),
            metadata: p.metadata,
        }),
        Method::GetExtendedAgentCard => Call::GetExtendedAgentCard,
    };
    Ok(ParsedParams { call, tenant })
}
