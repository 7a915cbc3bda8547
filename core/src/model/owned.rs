//! `into_owned`: the same values, no longer borrowing the input buffer.

use std::borrow::Cow;

use super::params;
use super::types::*;

fn owned_str(c: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(c.into_owned())
}

fn owned_opt_str(c: Option<Cow<'_, str>>) -> Option<Cow<'static, str>> {
    c.map(owned_str)
}

fn owned_strs(v: Vec<Cow<'_, str>>) -> Vec<Cow<'static, str>> {
    v.into_iter().map(owned_str).collect()
}

fn owned_json(j: Option<Json<'_>>) -> Option<Json<'static>> {
    j.map(Json::into_owned)
}

impl Part<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> Part<'static> {
        Part {
            content: match self.content {
                PartContent::Text(t) => PartContent::Text(owned_str(t)),
                PartContent::Bytes(b) => PartContent::Bytes(owned_str(b)),
                PartContent::Url(u) => PartContent::Url(owned_str(u)),
                PartContent::Data(d) => PartContent::Data(d.into_owned()),
            },
            media_type: owned_opt_str(self.media_type),
            filename: owned_opt_str(self.filename),
            metadata: owned_json(self.metadata),
        }
    }
}

impl Message<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> Message<'static> {
        Message {
            message_id: owned_str(self.message_id),
            role: self.role,
            parts: self.parts.into_iter().map(Part::into_owned).collect(),
            context_id: owned_opt_str(self.context_id),
            task_id: owned_opt_str(self.task_id),
            reference_task_ids: owned_strs(self.reference_task_ids),
            extensions: owned_strs(self.extensions),
            metadata: owned_json(self.metadata),
        }
    }
}

impl TaskStatus<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> TaskStatus<'static> {
        TaskStatus {
            state: self.state,
            message: self.message.map(|m| Box::new(m.into_owned())),
            timestamp: owned_opt_str(self.timestamp),
        }
    }
}

impl Artifact<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> Artifact<'static> {
        Artifact {
            artifact_id: owned_str(self.artifact_id),
            name: owned_opt_str(self.name),
            description: owned_opt_str(self.description),
            parts: self.parts.into_iter().map(Part::into_owned).collect(),
            metadata: owned_json(self.metadata),
            extensions: owned_strs(self.extensions),
        }
    }
}

impl Task<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> Task<'static> {
        Task {
            id: owned_str(self.id),
            context_id: owned_str(self.context_id),
            status: self.status.into_owned(),
            artifacts: self
                .artifacts
                .into_iter()
                .map(Artifact::into_owned)
                .collect(),
            history: self.history.into_iter().map(Message::into_owned).collect(),
            metadata: owned_json(self.metadata),
        }
    }
}

impl TaskStatusUpdateEvent<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> TaskStatusUpdateEvent<'static> {
        TaskStatusUpdateEvent {
            task_id: owned_str(self.task_id),
            context_id: owned_str(self.context_id),
            status: self.status.into_owned(),
            is_final: self.is_final,
            metadata: owned_json(self.metadata),
        }
    }
}

impl TaskArtifactUpdateEvent<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> TaskArtifactUpdateEvent<'static> {
        TaskArtifactUpdateEvent {
            task_id: owned_str(self.task_id),
            context_id: owned_str(self.context_id),
            artifact: self.artifact.into_owned(),
            append: self.append,
            last_chunk: self.last_chunk,
            metadata: owned_json(self.metadata),
        }
    }
}

impl StreamEvent<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> StreamEvent<'static> {
        match self {
            StreamEvent::Task(t) => StreamEvent::Task(t.into_owned()),
            StreamEvent::Message(m) => StreamEvent::Message(m.into_owned()),
            StreamEvent::StatusUpdate(u) => StreamEvent::StatusUpdate(u.into_owned()),
            StreamEvent::ArtifactUpdate(a) => StreamEvent::ArtifactUpdate(a.into_owned()),
        }
    }
}

impl SendResponse<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> SendResponse<'static> {
        match self {
            SendResponse::Task(t) => SendResponse::Task(t.into_owned()),
            SendResponse::Message(m) => SendResponse::Message(m.into_owned()),
        }
    }
}

impl PushNotificationConfig<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> PushNotificationConfig<'static> {
        PushNotificationConfig {
            id: owned_opt_str(self.id),
            url: owned_str(self.url),
            token: owned_opt_str(self.token),
            authentication: self.authentication.map(|a| PushAuthentication {
                schemes: owned_strs(a.schemes),
                credentials: owned_opt_str(a.credentials),
            }),
        }
    }
}

impl TaskPushNotificationConfig<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> TaskPushNotificationConfig<'static> {
        TaskPushNotificationConfig {
            task_id: owned_str(self.task_id),
            config: self.config.into_owned(),
            tenant: owned_opt_str(self.tenant),
        }
    }
}

impl params::SendConfiguration<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> params::SendConfiguration<'static> {
        params::SendConfiguration {
            accepted_output_modes: owned_strs(self.accepted_output_modes),
            history_length: self.history_length,
            push_notification_config: self
                .push_notification_config
                .map(PushNotificationConfig::into_owned),
            blocking: self.blocking,
        }
    }
}

impl params::SendMessageParams<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> params::SendMessageParams<'static> {
        params::SendMessageParams {
            message: self.message.into_owned(),
            configuration: self
                .configuration
                .map(params::SendConfiguration::into_owned),
            metadata: owned_json(self.metadata),
        }
    }
}

impl params::PushConfigRef<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> params::PushConfigRef<'static> {
        params::PushConfigRef {
            task_id: owned_str(self.task_id),
            config_id: owned_opt_str(self.config_id),
            metadata: owned_json(self.metadata),
        }
    }
}

impl params::TaskIdParams<'_> {
    /// A copy that no longer borrows the input.
    pub fn into_owned(self) -> params::TaskIdParams<'static> {
        params::TaskIdParams {
            id: owned_str(self.id),
            metadata: owned_json(self.metadata),
        }
    }
}

impl params::Call<'_> {
    /// A copy that no longer borrows the input (a machine keeps its call across retries).
    pub fn into_owned(self) -> params::Call<'static> {
        use params::Call as C;
        match self {
            C::SendMessage(p) => C::SendMessage(p.into_owned()),
            C::SendStreamingMessage(p) => C::SendStreamingMessage(p.into_owned()),
            C::GetTask(p) => C::GetTask(params::GetTaskParams {
                id: owned_str(p.id),
                history_length: p.history_length,
                metadata: owned_json(p.metadata),
            }),
            C::ListTasks(p) => C::ListTasks(params::ListTasksParams {
                context_id: owned_opt_str(p.context_id),
                status: p.status,
                page_size: p.page_size,
                page_token: owned_opt_str(p.page_token),
                history_length: p.history_length,
                status_timestamp_after: owned_opt_str(p.status_timestamp_after),
                include_artifacts: p.include_artifacts,
            }),
            C::CancelTask(p) => C::CancelTask(p.into_owned()),
            C::SubscribeToTask(p) => C::SubscribeToTask(p.into_owned()),
            C::CreatePushConfig(p) => C::CreatePushConfig(p.into_owned()),
            C::GetPushConfig(p) => C::GetPushConfig(p.into_owned()),
            C::ListPushConfigs(p) => C::ListPushConfigs(params::ListPushConfigsParams {
                task_id: owned_str(p.task_id),
                page_size: p.page_size,
                page_token: owned_opt_str(p.page_token),
                metadata: owned_json(p.metadata),
            }),
            C::DeletePushConfig(p) => C::DeletePushConfig(p.into_owned()),
            C::GetExtendedAgentCard => C::GetExtendedAgentCard,
        }
    }
}

// `to_static`: `clone().into_owned()` of a borrowed value without the intermediate copy
// (the answer assembler copies every artifact and status of a stream this way: the clone
// allocated each vector and boxed message twice; callgrind, `bench-driver`).

fn copy_str(c: &str) -> Cow<'static, str> {
    Cow::Owned(c.to_owned())
}

fn copy_opt_str(c: &Option<Cow<'_, str>>) -> Option<Cow<'static, str>> {
    c.as_deref().map(copy_str)
}

fn copy_strs(v: &[Cow<'_, str>]) -> Vec<Cow<'static, str>> {
    v.iter().map(|s| copy_str(s)).collect()
}

fn copy_json(j: &Option<Json<'_>>) -> Option<Json<'static>> {
    j.as_ref().map(|j| j.clone().into_owned())
}

impl Part<'_> {
    /// `self.clone().into_owned()`, copying each string once.
    pub(crate) fn to_static(&self) -> Part<'static> {
        Part {
            content: match &self.content {
                PartContent::Text(t) => PartContent::Text(copy_str(t)),
                PartContent::Bytes(b) => PartContent::Bytes(copy_str(b)),
                PartContent::Url(u) => PartContent::Url(copy_str(u)),
                PartContent::Data(d) => PartContent::Data(d.clone().into_owned()),
            },
            media_type: copy_opt_str(&self.media_type),
            filename: copy_opt_str(&self.filename),
            metadata: copy_json(&self.metadata),
        }
    }
}

impl Message<'_> {
    /// `self.clone().into_owned()`, copying each string once.
    pub(crate) fn to_static(&self) -> Message<'static> {
        Message {
            message_id: copy_str(&self.message_id),
            role: self.role,
            parts: self.parts.iter().map(Part::to_static).collect(),
            context_id: copy_opt_str(&self.context_id),
            task_id: copy_opt_str(&self.task_id),
            reference_task_ids: copy_strs(&self.reference_task_ids),
            extensions: copy_strs(&self.extensions),
            metadata: copy_json(&self.metadata),
        }
    }
}

impl TaskStatus<'_> {
    /// `self.clone().into_owned()`, copying each string once.
    pub(crate) fn to_static(&self) -> TaskStatus<'static> {
        TaskStatus {
            state: self.state,
            message: self.message.as_ref().map(|m| Box::new(m.to_static())),
            timestamp: copy_opt_str(&self.timestamp),
        }
    }
}

impl Artifact<'_> {
    /// `self.clone().into_owned()`, copying each string once.
    pub(crate) fn to_static(&self) -> Artifact<'static> {
        Artifact {
            artifact_id: copy_str(&self.artifact_id),
            name: copy_opt_str(&self.name),
            description: copy_opt_str(&self.description),
            parts: self.parts.iter().map(Part::to_static).collect(),
            metadata: copy_json(&self.metadata),
            extensions: copy_strs(&self.extensions),
        }
    }
}

#[cfg(feature = "driver")]
impl params::SendMessageParams<'_> {
    /// `self.clone().into_owned()`, copying the message's strings once.
    pub(crate) fn to_static(&self) -> params::SendMessageParams<'static> {
        params::SendMessageParams {
            message: self.message.to_static(),
            configuration: self
                .configuration
                .clone()
                .map(params::SendConfiguration::into_owned),
            metadata: copy_json(&self.metadata),
        }
    }
}

#[cfg(feature = "driver")]
impl params::Call<'_> {
    /// `self.clone().into_owned()`, a message copied once (every driver call keeps one).
    pub(crate) fn to_static(&self) -> params::Call<'static> {
        use params::Call as C;
        match self {
            C::SendMessage(p) => C::SendMessage(p.to_static()),
            C::SendStreamingMessage(p) => C::SendStreamingMessage(p.to_static()),
            other => other.clone().into_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "driver")]
    #[test]
    fn call_to_static_is_clone_into_owned() {
        let text = String::from("hello");
        let mut p = params::SendMessageParams::new(Message::user_text("m-1", text.as_str()));
        p.message.context_id = Some(Cow::Owned("c-1".to_owned()));
        p.configuration = Some(params::SendConfiguration {
            accepted_output_modes: vec![Cow::Borrowed("text/plain")],
            ..Default::default()
        });
        for call in [
            params::Call::SendMessage(p.clone()),
            params::Call::SendStreamingMessage(p),
            params::Call::GetExtendedAgentCard,
        ] {
            assert_eq!(call.to_static(), call.clone().into_owned());
        }
    }
}
