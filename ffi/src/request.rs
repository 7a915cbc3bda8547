//! The A2A methods as a C enum: the client machine's calls and the server's requests name
//! them (their JSON-RPC names: `a2a_vocab_name` with `A2A_VOCAB_METHOD_JSONRPC_*`). The
//! bring-your-own request builder `a2a_request_*` is gone: the client machine builds every
//! request; see `CHANGELOG.md`.

use a2a::envelope::Method;

/// An A2A method, the same for both protocol versions.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_method {
    /// 0.3 `message/send`, 1.0 `SendMessage`.
    SendMessage = 1,
    /// 0.3 `message/stream`, 1.0 `SendStreamingMessage`.
    SendStreamingMessage = 2,
    /// 0.3 `tasks/get`, 1.0 `GetTask`.
    GetTask = 3,
    /// 1.0 `ListTasks` (no 0.3 equivalent).
    ListTasks = 4,
    /// 0.3 `tasks/cancel`, 1.0 `CancelTask`.
    CancelTask = 5,
    /// 0.3 `tasks/resubscribe`, 1.0 `SubscribeToTask`.
    SubscribeToTask = 6,
    /// 0.3 `tasks/pushNotificationConfig/set`, 1.0 `CreateTaskPushNotificationConfig`.
    CreatePushConfig = 7,
    /// 0.3 `tasks/pushNotificationConfig/get`, 1.0 `GetTaskPushNotificationConfig`.
    GetPushConfig = 8,
    /// 0.3 `tasks/pushNotificationConfig/list`, 1.0 `ListTaskPushNotificationConfigs`.
    ListPushConfigs = 9,
    /// 0.3 `tasks/pushNotificationConfig/delete`, 1.0 `DeleteTaskPushNotificationConfig`.
    DeletePushConfig = 10,
    /// 0.3 `agent/getAuthenticatedExtendedCard`, 1.0 `GetExtendedAgentCard`.
    GetExtendedAgentCard = 11,
}

impl a2a_method {
    pub(crate) fn from_core(m: Method) -> a2a_method {
        match m {
            Method::SendMessage => a2a_method::SendMessage,
            Method::SendStreamingMessage => a2a_method::SendStreamingMessage,
            Method::GetTask => a2a_method::GetTask,
            Method::ListTasks => a2a_method::ListTasks,
            Method::CancelTask => a2a_method::CancelTask,
            Method::SubscribeToTask => a2a_method::SubscribeToTask,
            Method::CreatePushConfig => a2a_method::CreatePushConfig,
            Method::GetPushConfig => a2a_method::GetPushConfig,
            Method::ListPushConfigs => a2a_method::ListPushConfigs,
            Method::DeletePushConfig => a2a_method::DeletePushConfig,
            Method::GetExtendedAgentCard => a2a_method::GetExtendedAgentCard,
        }
    }

    pub(crate) fn core_from_u32(n: u32) -> Option<Method> {
        Method::ALL
            .into_iter()
            .find(|m| a2a_method::from_core(*m) as u32 == n)
    }
}
