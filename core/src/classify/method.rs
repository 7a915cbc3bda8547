//! What was asked: the method's kind, version and binding, read from its wire name.
//!
//! Accepts both versions' JSON-RPC names (`message/send`, `SendMessage`) and REST paths,
//! optionally preceded by the HTTP verb and followed by a query (`POST /v1/message:send`,
//! `GET /tasks/t-1?historyLength=2`, tenant form `/acme/message:send`). The classifier uses
//! the kind to tell side-effecting calls from reads (retry advice) and the version to
//! recognise a version mismatch.

use crate::version::{Binding, ProtocolVersion};

/// The operation a method name or REST path stands for, in either version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MethodKind {
    /// `message/send`, `SendMessage`, `POST …/message:send`.
    Send,
    /// `message/stream`, `SendStreamingMessage`, `POST …/message:stream`.
    Stream,
    /// `tasks/get`, `GetTask`, `GET …/tasks/{id}`.
    GetTask,
    /// `ListTasks`, `GET …/tasks` (0.3 has no JSON-RPC `tasks/list`).
    ListTasks,
    /// `tasks/cancel`, `CancelTask`, `POST …/tasks/{id}:cancel`.
    CancelTask,
    /// `tasks/resubscribe`, `SubscribeToTask`, `…/tasks/{id}:subscribe`.
    Subscribe,
    /// Push config create/set.
    PushConfigCreate,
    /// Push config get.
    PushConfigGet,
    /// Push config list.
    PushConfigList,
    /// Push config delete.
    PushConfigDelete,
    /// The (authenticated) extended agent card.
    ExtendedCard,
}

impl MethodKind {
    /// Whether a repeat of this call may do the work twice (a new task, a new config).
    /// Cancel and delete are idempotent by the spec; reads are safe.
    pub fn is_side_effecting(self) -> bool {
        matches!(
            self,
            MethodKind::Send | MethodKind::Stream | MethodKind::PushConfigCreate
        )
    }

    /// Whether the response is an SSE stream.
    pub fn is_streaming(self) -> bool {
        matches!(self, MethodKind::Stream | MethodKind::Subscribe)
    }

    /// The JSON-RPC method name of this operation in `version`, when it exists there.
    pub fn jsonrpc_name(self, version: ProtocolVersion) -> Option<&'static str> {
        let (v03, v10) = match self {
            MethodKind::Send => ("message/send", "SendMessage"),
            MethodKind::Stream => ("message/stream", "SendStreamingMessage"),
            MethodKind::GetTask => ("tasks/get", "GetTask"),
            MethodKind::ListTasks => ("", "ListTasks"),
            MethodKind::CancelTask => ("tasks/cancel", "CancelTask"),
            MethodKind::Subscribe => ("tasks/resubscribe", "SubscribeToTask"),
            MethodKind::PushConfigCreate => (
                "tasks/pushNotificationConfig/set",
                "CreateTaskPushNotificationConfig",
            ),
            MethodKind::PushConfigGet => (
                "tasks/pushNotificationConfig/get",
                "GetTaskPushNotificationConfig",
            ),
            MethodKind::PushConfigList => (
                "tasks/pushNotificationConfig/list",
                "ListTaskPushNotificationConfigs",
            ),
            MethodKind::PushConfigDelete => (
                "tasks/pushNotificationConfig/delete",
                "DeleteTaskPushNotificationConfig",
            ),
            MethodKind::ExtendedCard => {
                ("agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard")
            }
        };
        let name = match version {
            ProtocolVersion::V0_3 => v03,
            ProtocolVersion::V1_0 => v10,
        };
        (!name.is_empty()).then_some(name)
    }
}

/// A method name or REST path, understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MethodInfo {
    /// The operation.
    pub kind: MethodKind,
    /// The version the name belongs to (REST paths without a `/v1/` prefix read as 1.0).
    pub version: ProtocolVersion,
    /// JSON-RPC for a method name, HTTP+JSON for a path.
    pub binding: Binding,
}

const JSONRPC: [(&str, MethodKind, ProtocolVersion); 21] = [
    ("message/send", MethodKind::Send, ProtocolVersion::V0_3),
    ("message/stream", MethodKind::Stream, ProtocolVersion::V0_3),
    ("tasks/get", MethodKind::GetTask, ProtocolVersion::V0_3),
    (
        "tasks/cancel",
        MethodKind::CancelTask,
        ProtocolVersion::V0_3,
    ),
    (
        "tasks/resubscribe",
        MethodKind::Subscribe,
        ProtocolVersion::V0_3,
    ),
    (
        "tasks/pushNotificationConfig/set",
        MethodKind::PushConfigCreate,
        ProtocolVersion::V0_3,
    ),
    (
        "tasks/pushNotificationConfig/get",
        MethodKind::PushConfigGet,
        ProtocolVersion::V0_3,
    ),
    (
        "tasks/pushNotificationConfig/list",
        MethodKind::PushConfigList,
        ProtocolVersion::V0_3,
    ),
    (
        "tasks/pushNotificationConfig/delete",
        MethodKind::PushConfigDelete,
        ProtocolVersion::V0_3,
    ),
    (
        "agent/getAuthenticatedExtendedCard",
        MethodKind::ExtendedCard,
        ProtocolVersion::V0_3,
    ),
    ("SendMessage", MethodKind::Send, ProtocolVersion::V1_0),
    (
        "SendStreamingMessage",
        MethodKind::Stream,
        ProtocolVersion::V1_0,
    ),
    ("GetTask", MethodKind::GetTask, ProtocolVersion::V1_0),
    ("ListTasks", MethodKind::ListTasks, ProtocolVersion::V1_0),
    ("CancelTask", MethodKind::CancelTask, ProtocolVersion::V1_0),
    (
        "SubscribeToTask",
        MethodKind::Subscribe,
        ProtocolVersion::V1_0,
    ),
    (
        "CreateTaskPushNotificationConfig",
        MethodKind::PushConfigCreate,
        ProtocolVersion::V1_0,
    ),
    (
        "GetTaskPushNotificationConfig",
        MethodKind::PushConfigGet,
        ProtocolVersion::V1_0,
    ),
    (
        "ListTaskPushNotificationConfigs",
        MethodKind::PushConfigList,
        ProtocolVersion::V1_0,
    ),
    (
        "DeleteTaskPushNotificationConfig",
        MethodKind::PushConfigDelete,
        ProtocolVersion::V1_0,
    ),
    (
        "GetExtendedAgentCard",
        MethodKind::ExtendedCard,
        ProtocolVersion::V1_0,
    ),
];

/// Reads a JSON-RPC method name or a REST path (optionally `VERB /path?query`).
/// Returns `None` for names this core does not know (`tasks/list`, `foo/bar`).
pub fn method_info(wire: &str) -> Option<MethodInfo> {
    let wire = wire.trim();
    if let Some(&(_, kind, version)) = JSONRPC.iter().find(|(n, _, _)| *n == wire) {
        return Some(MethodInfo {
            kind,
            version,
            binding: Binding::JsonRpc,
        });
    }
    let (verb, path) = match wire.split_once(' ') {
        Some((v, p)) => (Some(v.trim()), p.trim()),
        None => (None, wire),
    };
    if !path.starts_with('/') {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let (version, rest) = match path.strip_prefix("/v1/") {
        Some(r) => (ProtocolVersion::V0_3, r),
        None => (ProtocolVersion::V1_0, &path[1..]),
    };
    let segs: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let kind = rest_kind(verb, version, &segs)?;
    Some(MethodInfo {
        kind,
        version,
        binding: Binding::HttpJson,
    })
}

fn rest_kind(verb: Option<&str>, version: ProtocolVersion, segs: &[&str]) -> Option<MethodKind> {
    let verb_is = |v: &str| verb.is_some_and(|x| x.eq_ignore_ascii_case(v));
    let last = *segs.last()?;
    if last == "message:send" {
        return Some(MethodKind::Send);
    }
    if last == "message:stream" {
        return Some(MethodKind::Stream);
    }
    let card = match version {
        ProtocolVersion::V0_3 => "card",
        ProtocolVersion::V1_0 => "extendedAgentCard",
    };
    if last == card {
        return Some(MethodKind::ExtendedCard);
    }
    // Find the `tasks` segment (a tenant may precede it).
    let t = segs.iter().position(|s| *s == "tasks")?;
    match &segs[t + 1..] {
        [] => Some(MethodKind::ListTasks),
        [id] if id.ends_with(":cancel") => Some(MethodKind::CancelTask),
        [id] if id.ends_with(":subscribe") => Some(MethodKind::Subscribe),
        [_] => Some(MethodKind::GetTask),
        [_, "pushNotificationConfigs"] => Some(if verb_is("POST") {
            MethodKind::PushConfigCreate
        } else {
            MethodKind::PushConfigList
        }),
        [_, "pushNotificationConfigs", _] => Some(if verb_is("DELETE") {
            MethodKind::PushConfigDelete
        } else {
            MethodKind::PushConfigGet
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(w: &str) -> Option<(MethodKind, ProtocolVersion, Binding)> {
        method_info(w).map(|m| (m.kind, m.version, m.binding))
    }

    #[test]
    fn jsonrpc_names_of_both_versions() {
        for (name, kind, v) in JSONRPC {
            assert_eq!(k(name), Some((kind, v, Binding::JsonRpc)));
            assert_eq!(kind.jsonrpc_name(v), Some(name));
        }
        assert_eq!(k("tasks/list"), None);
        assert_eq!(k("foo/bar"), None);
        assert_eq!(
            MethodKind::ListTasks.jsonrpc_name(ProtocolVersion::V0_3),
            None
        );
    }

    #[test]
    fn rest_paths() {
        use MethodKind::*;
        use ProtocolVersion::*;
        let h = Binding::HttpJson;
        assert_eq!(k("/message:send"), Some((Send, V1_0, h)));
        assert_eq!(k("POST /v1/message:stream"), Some((Stream, V0_3, h)));
        assert_eq!(
            k("GET /tasks/t-1?historyLength=2"),
            Some((GetTask, V1_0, h))
        );
        assert_eq!(k("/v1/tasks/t-1:cancel"), Some((CancelTask, V0_3, h)));
        assert_eq!(k("GET /v1/tasks/t-1:subscribe"), Some((Subscribe, V0_3, h)));
        assert_eq!(k("/acme/message:send"), Some((Send, V1_0, h)));
        assert_eq!(k("GET /tasks"), Some((ListTasks, V1_0, h)));
        assert_eq!(
            k("POST /tasks/t/pushNotificationConfigs"),
            Some((PushConfigCreate, V1_0, h))
        );
        assert_eq!(
            k("/tasks/t/pushNotificationConfigs"),
            Some((PushConfigList, V1_0, h))
        );
        assert_eq!(
            k("DELETE /tasks/t/pushNotificationConfigs/c"),
            Some((PushConfigDelete, V1_0, h))
        );
        assert_eq!(
            k("/tasks/t/pushNotificationConfigs/c"),
            Some((PushConfigGet, V1_0, h))
        );
        assert_eq!(k("GET /extendedAgentCard"), Some((ExtendedCard, V1_0, h)));
        assert_eq!(k("GET /v1/card"), Some((ExtendedCard, V0_3, h)));
        assert_eq!(k("/nothing/here"), None);
        assert_eq!(k(""), None);
    }

    #[test]
    fn side_effects() {
        assert!(MethodKind::Send.is_side_effecting());
        assert!(MethodKind::PushConfigCreate.is_side_effecting());
        assert!(!MethodKind::CancelTask.is_side_effecting());
        assert!(!MethodKind::GetTask.is_side_effecting());
    }
}
