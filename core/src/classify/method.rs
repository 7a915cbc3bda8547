//! What was asked: the method's kind, version and binding, read from its wire name.
//!
//! Accepts both versions' JSON-RPC names (`message/send`, `SendMessage`) and REST paths,
//! optionally preceded by the HTTP verb and followed by a query (`POST /v1/message:send`,
//! `GET /tasks/t-1?historyLength=2`, tenant form `/acme/message:send`). The classifier uses
//! the kind to tell side-effecting calls from reads (retry advice) and the version to
//! recognise a version mismatch.

use crate::method::{HttpMethod, Method, match_rest_path};
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
    /// Whether a repeat of this call may do the work twice (a new task, a new config):
    /// [`Method::is_unsafe_to_repeat`] of its method. Cancel and delete are idempotent by
    /// the spec; reads are safe.
    pub fn is_unsafe_to_repeat(self) -> bool {
        self.method().is_unsafe_to_repeat()
    }

    /// The old name of [`MethodKind::is_unsafe_to_repeat`]; it disagreed in name with
    /// [`Method::is_side_effecting`], which also counts cancels and deletes.
    #[deprecated(since = "0.2.0", note = "use `is_unsafe_to_repeat`")]
    pub fn is_side_effecting(self) -> bool {
        self.is_unsafe_to_repeat()
    }

    /// Whether the response is an SSE stream.
    pub fn is_streaming(self) -> bool {
        matches!(self, MethodKind::Stream | MethodKind::Subscribe)
    }

    /// The JSON-RPC method name of this operation in `version`, when it exists there.
    pub fn jsonrpc_name(self, version: ProtocolVersion) -> Option<&'static str> {
        self.method().jsonrpc_name(version)
    }

    /// The protocol method this kind stands for.
    pub fn method(self) -> Method {
        match self {
            MethodKind::Send => Method::SendMessage,
            MethodKind::Stream => Method::SendStreamingMessage,
            MethodKind::GetTask => Method::GetTask,
            MethodKind::ListTasks => Method::ListTasks,
            MethodKind::CancelTask => Method::CancelTask,
            MethodKind::Subscribe => Method::SubscribeToTask,
            MethodKind::PushConfigCreate => Method::CreatePushConfig,
            MethodKind::PushConfigGet => Method::GetPushConfig,
            MethodKind::PushConfigList => Method::ListPushConfigs,
            MethodKind::PushConfigDelete => Method::DeletePushConfig,
            MethodKind::ExtendedCard => Method::GetExtendedAgentCard,
        }
    }
}

impl From<Method> for MethodKind {
    fn from(method: Method) -> MethodKind {
        match method {
            Method::SendMessage => MethodKind::Send,
            Method::SendStreamingMessage => MethodKind::Stream,
            Method::GetTask => MethodKind::GetTask,
            Method::ListTasks => MethodKind::ListTasks,
            Method::CancelTask => MethodKind::CancelTask,
            Method::SubscribeToTask => MethodKind::Subscribe,
            Method::CreatePushConfig => MethodKind::PushConfigCreate,
            Method::GetPushConfig => MethodKind::PushConfigGet,
            Method::ListPushConfigs => MethodKind::PushConfigList,
            Method::DeletePushConfig => MethodKind::PushConfigDelete,
            Method::GetExtendedAgentCard => MethodKind::ExtendedCard,
        }
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

/// Reads a JSON-RPC method name or a REST path (optionally `VERB /path?query`).
/// Returns `None` for names this core does not know (`tasks/list`, `foo/bar`).
///
/// Names and routes come from the protocol's one table ([`Method::from_jsonrpc_name`],
/// [`crate::method::REST_ROUTES`] through [`match_rest_path`]), the same the envelope sends
/// and the server parses.
pub fn method_info(wire: &str) -> Option<MethodInfo> {
    let wire = wire.trim();
    if let Some((method, version)) = Method::from_jsonrpc_name(wire) {
        return Some(MethodInfo {
            kind: method.into(),
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
    let version = if path.starts_with("/v1/") {
        ProtocolVersion::V0_3
    } else {
        ProtocolVersion::V1_0
    };
    let method = rest_method(verb, version, path)?;
    Some(MethodInfo {
        kind: method.into(),
        version,
        binding: Binding::HttpJson,
    })
}

/// The method a REST `path` names, read leniently: the version's own routes first, then
/// the 1.0 routes after any leading segments (a tenant, or `v1` for 0.3's routes that have
/// the 1.0 shape). The verb picks among the methods of one path; a missing or unknown verb
/// reads as the path's first method in GET, POST, DELETE order (a push config collection
/// is a list, a push config a get).
fn rest_method(verb: Option<&str>, version: ProtocolVersion, path: &str) -> Option<Method> {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let found = match_rest_path(&segs, version).or_else(|| {
        (0..segs.len()).find_map(|skip| match_rest_path(&segs[skip..], ProtocolVersion::V1_0))
    })?;
    let verb = verb.and_then(|v| HttpMethod::parse(&v.to_ascii_uppercase()));
    verb.and_then(|v| found.method(Some(v)).ok()).or_else(|| {
        [HttpMethod::Get, HttpMethod::Post, HttpMethod::Delete]
            .into_iter()
            .find_map(|v| found.method(Some(v)).ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(w: &str) -> Option<(MethodKind, ProtocolVersion, Binding)> {
        method_info(w).map(|m| (m.kind, m.version, m.binding))
    }

    #[test]
    fn jsonrpc_names_of_both_versions() {
        let mut names = 0;
        for v in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
            for m in Method::ALL {
                let kind = MethodKind::from(m);
                assert_eq!(kind.method(), m);
                if let Some(name) = kind.jsonrpc_name(v) {
                    assert_eq!(k(name), Some((kind, v, Binding::JsonRpc)));
                    names += 1;
                }
            }
        }
        assert_eq!(names, 21);
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
        assert_eq!(k("GET /v1/tasks"), Some((ListTasks, V0_3, h)));
        assert_eq!(k("get /acme/tasks/t-1"), Some((GetTask, V1_0, h)));
        assert_eq!(k("DELETE /tasks/t-1"), Some((GetTask, V1_0, h)));
        assert_eq!(k("/tasks/a:b"), Some((GetTask, V1_0, h)));
        assert_eq!(k("/tasks/t/pushNotificationConfigs/c/x"), None);
        assert_eq!(k("/nothing/here"), None);
        assert_eq!(k(""), None);
    }

    #[test]
    fn side_effects() {
        assert!(MethodKind::Send.is_unsafe_to_repeat());
        assert!(MethodKind::PushConfigCreate.is_unsafe_to_repeat());
        assert!(!MethodKind::CancelTask.is_unsafe_to_repeat());
        assert!(!MethodKind::GetTask.is_unsafe_to_repeat());
    }
}
