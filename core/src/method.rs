//! Every A2A method of both versions, with its wire names.

use crate::version::{Binding, ProtocolVersion};

/// An HTTP request method used by A2A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HttpMethod {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `DELETE`.
    Delete,
}

impl HttpMethod {
    /// The method token: `GET`, `POST` or `DELETE`.
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Delete => "DELETE",
        }
    }

    /// Parses a method token (case-sensitive, as HTTP requires).
    pub fn parse(token: &str) -> Option<HttpMethod> {
        match token {
            "GET" => Some(HttpMethod::Get),
            "POST" => Some(HttpMethod::Post),
            "DELETE" => Some(HttpMethod::Delete),
            _ => None,
        }
    }
}

/// One A2A operation. The same operation has different wire names per version; see
/// [`Method::jsonrpc_name`] and [`Method::rest_route`]. `ListTasks` exists only in 1.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// 0.3 `message/send`, 1.0 `SendMessage`.
    SendMessage,
    /// 0.3 `message/stream`, 1.0 `SendStreamingMessage`.
    SendStreamingMessage,
    /// 0.3 `tasks/get`, 1.0 `GetTask`.
    GetTask,
    /// 1.0 `ListTasks` (no 0.3 equivalent).
    ListTasks,
    /// 0.3 `tasks/cancel`, 1.0 `CancelTask`.
    CancelTask,
    /// 0.3 `tasks/resubscribe`, 1.0 `SubscribeToTask`.
    SubscribeToTask,
    /// 0.3 `tasks/pushNotificationConfig/set`, 1.0 `CreateTaskPushNotificationConfig`.
    CreatePushConfig,
    /// 0.3 `tasks/pushNotificationConfig/get`, 1.0 `GetTaskPushNotificationConfig`.
    GetPushConfig,
    /// 0.3 `tasks/pushNotificationConfig/list`, 1.0 `ListTaskPushNotificationConfigs`.
    ListPushConfigs,
    /// 0.3 `tasks/pushNotificationConfig/delete`, 1.0 `DeleteTaskPushNotificationConfig`.
    DeletePushConfig,
    /// 0.3 `agent/getAuthenticatedExtendedCard`, 1.0 `GetExtendedAgentCard`.
    GetExtendedAgentCard,
}

/// A REST route: verb and path template relative to the interface URL (before the tenant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestRoute {
    /// HTTP method.
    pub verb: HttpMethod,
    /// Path template; `{id}` is the task id, `{configId}` the push config id.
    pub template: &'static str,
}

impl Method {
    /// Every method, in declaration order.
    pub const ALL: [Method; 11] = [
        Method::SendMessage,
        Method::SendStreamingMessage,
        Method::GetTask,
        Method::ListTasks,
        Method::CancelTask,
        Method::SubscribeToTask,
        Method::CreatePushConfig,
        Method::GetPushConfig,
        Method::ListPushConfigs,
        Method::DeletePushConfig,
        Method::GetExtendedAgentCard,
    ];

    /// A stable version-independent name (the 1.0 JSON-RPC name), for tallies and logs.
    pub fn name(self) -> &'static str {
        match self {
            Method::SendMessage => "SendMessage",
            Method::SendStreamingMessage => "SendStreamingMessage",
            Method::GetTask => "GetTask",
            Method::ListTasks => "ListTasks",
            Method::CancelTask => "CancelTask",
            Method::SubscribeToTask => "SubscribeToTask",
            Method::CreatePushConfig => "CreateTaskPushNotificationConfig",
            Method::GetPushConfig => "GetTaskPushNotificationConfig",
            Method::ListPushConfigs => "ListTaskPushNotificationConfigs",
            Method::DeletePushConfig => "DeleteTaskPushNotificationConfig",
            Method::GetExtendedAgentCard => "GetExtendedAgentCard",
        }
    }

    /// Whether `version` has this method.
    pub fn exists_in(self, version: ProtocolVersion) -> bool {
        !(self == Method::ListTasks && version == ProtocolVersion::V0_3)
    }

    /// The JSON-RPC `method` string in `version`, or `None` if that version lacks it.
    pub fn jsonrpc_name(self, version: ProtocolVersion) -> Option<&'static str> {
        match version {
            ProtocolVersion::V1_0 => Some(self.name()),
            ProtocolVersion::V0_3 => Some(match self {
                Method::SendMessage => "message/send",
                Method::SendStreamingMessage => "message/stream",
                Method::GetTask => "tasks/get",
                Method::ListTasks => return None,
                Method::CancelTask => "tasks/cancel",
                Method::SubscribeToTask => "tasks/resubscribe",
                Method::CreatePushConfig => "tasks/pushNotificationConfig/set",
                Method::GetPushConfig => "tasks/pushNotificationConfig/get",
                Method::ListPushConfigs => "tasks/pushNotificationConfig/list",
                Method::DeletePushConfig => "tasks/pushNotificationConfig/delete",
                Method::GetExtendedAgentCard => "agent/getAuthenticatedExtendedCard",
            }),
        }
    }

    /// Finds the method and version of a JSON-RPC `method` string (exact, case-sensitive).
    pub fn from_jsonrpc_name(name: &str) -> Option<(Method, ProtocolVersion)> {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            for m in Method::ALL {
                if m.jsonrpc_name(version) == Some(name) {
                    return Some((m, version));
                }
            }
        }
        None
    }

    /// The REST route this core sends in `version` (0.3 paths carry the `/v1` prefix).
    ///
    /// Where the spec and the proto disagree on the verb (subscribe), this is POST, the
    /// spec's choice; servers built with [`crate::server`] accept GET as well.
    pub fn rest_route(self, version: ProtocolVersion) -> Option<RestRoute> {
        use HttpMethod::{Delete, Get, Post};
        let (verb, v10, v03) = match self {
            Method::SendMessage => (Post, "/message:send", "/v1/message:send"),
            Method::SendStreamingMessage => (Post, "/message:stream", "/v1/message:stream"),
            Method::GetTask => (Get, "/tasks/{id}", "/v1/tasks/{id}"),
            Method::ListTasks => (Get, "/tasks", ""),
            Method::CancelTask => (Post, "/tasks/{id}:cancel", "/v1/tasks/{id}:cancel"),
            Method::SubscribeToTask => (Post, "/tasks/{id}:subscribe", "/v1/tasks/{id}:subscribe"),
            Method::CreatePushConfig => (
                Post,
                "/tasks/{id}/pushNotificationConfigs",
                "/v1/tasks/{id}/pushNotificationConfigs",
            ),
            Method::GetPushConfig => (
                Get,
                "/tasks/{id}/pushNotificationConfigs/{configId}",
                "/v1/tasks/{id}/pushNotificationConfigs/{configId}",
            ),
            Method::ListPushConfigs => (
                Get,
                "/tasks/{id}/pushNotificationConfigs",
                "/v1/tasks/{id}/pushNotificationConfigs",
            ),
            Method::DeletePushConfig => (
                Delete,
                "/tasks/{id}/pushNotificationConfigs/{configId}",
                "/v1/tasks/{id}/pushNotificationConfigs/{configId}",
            ),
            Method::GetExtendedAgentCard => (Get, "/extendedAgentCard", "/v1/card"),
        };
        let template = match version {
            ProtocolVersion::V1_0 => v10,
            ProtocolVersion::V0_3 if v03.is_empty() => return None,
            ProtocolVersion::V0_3 => v03,
        };
        Some(RestRoute { verb, template })
    }

    /// Whether the method is available in `version` over `binding`.
    pub fn available(self, version: ProtocolVersion, _binding: Binding) -> bool {
        self.exists_in(version)
    }

    /// Whether the answer is an SSE stream.
    pub fn is_streaming(self) -> bool {
        matches!(self, Method::SendStreamingMessage | Method::SubscribeToTask)
    }

    /// Whether the call changes state on the server (a blind resend may act twice).
    pub fn is_side_effecting(self) -> bool {
        matches!(
            self,
            Method::SendMessage
                | Method::SendStreamingMessage
                | Method::CancelTask
                | Method::CreatePushConfig
                | Method::DeletePushConfig
        )
    }

    /// Whether the call sends a message (its retry key is the message's `messageId`).
    pub fn sends_message(self) -> bool {
        matches!(self, Method::SendMessage | Method::SendStreamingMessage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_jsonrpc_name_maps_back() {
        let mut n = 0;
        for v in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
            for m in Method::ALL {
                if let Some(name) = m.jsonrpc_name(v) {
                    assert_eq!(Method::from_jsonrpc_name(name), Some((m, v)));
                    n += 1;
                }
            }
        }
        // 10 methods in 0.3, 11 in 1.0.
        assert_eq!(n, 21);
        assert_eq!(Method::from_jsonrpc_name("tasks/list"), None);
        assert_eq!(Method::from_jsonrpc_name("sendmessage"), None);
    }

    #[test]
    fn streaming_and_side_effects() {
        let streaming: Vec<_> = Method::ALL
            .into_iter()
            .filter(|m| m.is_streaming())
            .collect();
        assert_eq!(
            streaming,
            [Method::SendStreamingMessage, Method::SubscribeToTask]
        );
        assert!(!Method::GetTask.is_side_effecting());
        assert!(Method::CancelTask.is_side_effecting());
        assert!(
            Method::ListTasks
                .rest_route(ProtocolVersion::V0_3)
                .is_none()
        );
    }
}
