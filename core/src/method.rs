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

    /// The REST route this core sends in `version` (0.3 paths carry the `/v1` prefix), from
    /// [`REST_ROUTES`].
    ///
    /// Where the spec and the proto disagree on the verb (subscribe), this is POST, the
    /// spec's choice; servers built with [`crate::server`] accept GET as well.
    pub fn rest_route(self, version: ProtocolVersion) -> Option<RestRoute> {
        let entry = REST_ROUTES.iter().find(|e| e.method == self)?;
        Some(RestRoute {
            verb: entry.verb,
            template: entry.template(version)?,
        })
    }

    /// Whether the method is available in `version` over `binding`.
    pub fn available(self, version: ProtocolVersion, _binding: Binding) -> bool {
        self.exists_in(version)
    }

    /// Whether the answer is an SSE stream.
    pub fn is_streaming(self) -> bool {
        matches!(self, Method::SendStreamingMessage | Method::SubscribeToTask)
    }

    /// Whether the call changes state on the server: sends, cancels and push-config
    /// creates and deletes. Not the same as [`Method::is_unsafe_to_repeat`]: a cancel or a
    /// delete changes state, but doing it twice leaves the same state.
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

    /// Whether a blind repeat of the call may do the work twice: a second task from a send,
    /// a second config from a create. Cancel and delete are idempotent by the spec (a
    /// repeat leaves the same state); reads are safe. This is what retry advice and the
    /// classifier's "unknown outcome" rule go by.
    pub fn is_unsafe_to_repeat(self) -> bool {
        matches!(
            self,
            Method::SendMessage | Method::SendStreamingMessage | Method::CreatePushConfig
        )
    }

    /// Whether the call sends a message (its retry key is the message's `messageId`).
    pub fn sends_message(self) -> bool {
        matches!(self, Method::SendMessage | Method::SendStreamingMessage)
    }
}

/// One row of [`REST_ROUTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestRouteEntry {
    /// The operation.
    pub method: Method,
    /// The verb a client sends.
    pub verb: HttpMethod,
    /// Another verb a server accepts on the same path (subscribe: the proto says GET).
    pub also_accepted: Option<HttpMethod>,
    /// The 1.0 path template.
    pub v1_0: &'static str,
    /// The 0.3 path template (under `/v1`); `None` where 0.3 has no such route.
    pub v0_3: Option<&'static str>,
}

impl RestRouteEntry {
    /// The path template in `version`, if the route exists there.
    pub fn template(&self, version: ProtocolVersion) -> Option<&'static str> {
        match version {
            ProtocolVersion::V1_0 => Some(self.v1_0),
            ProtocolVersion::V0_3 => self.v0_3,
        }
    }
}

/// The HTTP+JSON routes of both versions: the one table the client's envelope sends on
/// ([`Method::rest_route`]) and the server's parser matches requests against
/// ([`match_rest_path`]). In a template `{id}` is the task id, `{configId}` the push config
/// id, and `{id}:cancel` a task id followed by a custom verb (AIP-136).
pub const REST_ROUTES: [RestRouteEntry; 11] = {
    use HttpMethod::{Delete, Get, Post};
    const fn route(
        method: Method,
        verb: HttpMethod,
        v1_0: &'static str,
        v0_3: Option<&'static str>,
    ) -> RestRouteEntry {
        RestRouteEntry {
            method,
            verb,
            also_accepted: None,
            v1_0,
            v0_3,
        }
    }
    const PUSH_CONFIGS: &str = "/tasks/{id}/pushNotificationConfigs";
    const PUSH_CONFIGS_03: &str = "/v1/tasks/{id}/pushNotificationConfigs";
    const PUSH_CONFIG: &str = "/tasks/{id}/pushNotificationConfigs/{configId}";
    const PUSH_CONFIG_03: &str = "/v1/tasks/{id}/pushNotificationConfigs/{configId}";
    [
        route(
            Method::SendMessage,
            Post,
            "/message:send",
            Some("/v1/message:send"),
        ),
        route(
            Method::SendStreamingMessage,
            Post,
            "/message:stream",
            Some("/v1/message:stream"),
        ),
        route(Method::GetTask, Get, "/tasks/{id}", Some("/v1/tasks/{id}")),
        route(Method::ListTasks, Get, "/tasks", None),
        route(
            Method::CancelTask,
            Post,
            "/tasks/{id}:cancel",
            Some("/v1/tasks/{id}:cancel"),
        ),
        RestRouteEntry {
            also_accepted: Some(Get),
            ..route(
                Method::SubscribeToTask,
                Post,
                "/tasks/{id}:subscribe",
                Some("/v1/tasks/{id}:subscribe"),
            )
        },
        route(
            Method::CreatePushConfig,
            Post,
            PUSH_CONFIGS,
            Some(PUSH_CONFIGS_03),
        ),
        route(
            Method::GetPushConfig,
            Get,
            PUSH_CONFIG,
            Some(PUSH_CONFIG_03),
        ),
        route(
            Method::ListPushConfigs,
            Get,
            PUSH_CONFIGS,
            Some(PUSH_CONFIGS_03),
        ),
        route(
            Method::DeletePushConfig,
            Delete,
            PUSH_CONFIG,
            Some(PUSH_CONFIG_03),
        ),
        route(
            Method::GetExtendedAgentCard,
            Get,
            "/extendedAgentCard",
            Some("/v1/card"),
        ),
    ]
};

/// A request path matched against one version's routes ([`match_rest_path`]): the
/// resource, before the verb picks the method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestPath<'p> {
    template: &'static str,
    version: ProtocolVersion,
    /// The `{id}` segment as sent (still percent-encoded); empty when the route has none.
    pub task_id: &'p str,
    /// The `{configId}` segment as sent (still percent-encoded); empty when the route has
    /// none.
    pub config_id: &'p str,
}

impl RestPath<'_> {
    /// The method `verb` invokes on this path, or else the `Allow` header value listing the
    /// verbs the path accepts (for a 405 answer).
    pub fn method(&self, verb: Option<HttpMethod>) -> Result<Method, &'static str> {
        let on_path = || {
            REST_ROUTES
                .iter()
                .filter(|e| e.template(self.version) == Some(self.template))
        };
        let accepts = |e: &RestRouteEntry, v: HttpMethod| e.verb == v || e.also_accepted == Some(v);
        if let Some(e) = verb.and_then(|v| on_path().find(|e| accepts(e, v))) {
            return Ok(e.method);
        }
        let allowed = |v| on_path().any(|e| accepts(e, v));
        Err(
            match (
                allowed(HttpMethod::Get),
                allowed(HttpMethod::Post),
                allowed(HttpMethod::Delete),
            ) {
                (true, true, true) => "GET, POST, DELETE",
                (true, true, false) => "GET, POST",
                (true, false, true) => "GET, DELETE",
                (false, true, true) => "POST, DELETE",
                (true, false, false) => "GET",
                (false, true, false) => "POST",
                (false, false, true) => "DELETE",
                // Every route has a verb: a matched path allows at least one.
                (false, false, false) => "",
            },
        )
    }
}

/// Matches a request path's segments (after any tenant; 0.3 paths start with `v1`) against
/// `version`'s [`REST_ROUTES`]. Where two templates match, the more specific one (more
/// literal text) wins, so `tasks/t-1:cancel` is a cancel and `tasks/a:b` the task `a:b`.
pub fn match_rest_path<'p>(segments: &[&'p str], version: ProtocolVersion) -> Option<RestPath<'p>> {
    let mut best: Option<(usize, RestPath<'p>)> = None;
    for template in REST_ROUTES.iter().filter_map(|e| e.template(version)) {
        let Some((literal, task_id, config_id)) = match_template(template, segments) else {
            continue;
        };
        if best.as_ref().is_none_or(|(l, _)| literal > *l) {
            let path = RestPath {
                template,
                version,
                task_id,
                config_id,
            };
            best = Some((literal, path));
        }
    }
    best.map(|(_, path)| path)
}

/// The literal length, task id and config id of `segments` read against `template`, or
/// `None` when they do not fit it.
fn match_template<'p>(template: &str, segments: &[&'p str]) -> Option<(usize, &'p str, &'p str)> {
    let parts = template.strip_prefix('/').unwrap_or(template).split('/');
    if parts.clone().count() != segments.len() {
        return None;
    }
    let (mut literal, mut task_id, mut config_id) = (0, "", "");
    for (part, &segment) in parts.zip(segments) {
        if let Some(suffix) = part.strip_prefix("{id}") {
            task_id = match suffix.strip_prefix(':') {
                None => segment,
                Some(action) => match segment.rsplit_once(':') {
                    Some((id, a)) if a == action => id,
                    _ => return None,
                },
            };
            literal += suffix.len();
        } else if part == "{configId}" {
            config_id = segment;
        } else if part == segment {
            literal += part.len();
        } else {
            return None;
        }
    }
    Some((literal, task_id, config_id))
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
        // One table decides both: what is unsafe to repeat changes state, and the two
        // differ exactly on the idempotent writes.
        for m in Method::ALL {
            assert!(!m.is_unsafe_to_repeat() || m.is_side_effecting(), "{m:?}");
            let idempotent_write = matches!(m, Method::CancelTask | Method::DeletePushConfig);
            assert_eq!(
                m.is_side_effecting() && !m.is_unsafe_to_repeat(),
                idempotent_write,
                "{m:?}"
            );
        }
        assert!(
            Method::ListTasks
                .rest_route(ProtocolVersion::V0_3)
                .is_none()
        );
    }

    #[test]
    fn rest_paths_match_the_routes_the_client_sends() {
        use ProtocolVersion::{V0_3, V1_0};
        fn m(
            path: &str,
            version: ProtocolVersion,
            verb: &str,
        ) -> Option<(Result<Method, &'static str>, String, String)> {
            let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
            let p = match_rest_path(&segs, version)?;
            let method = p.method(HttpMethod::parse(verb));
            Some((method, p.task_id.to_owned(), p.config_id.to_owned()))
        }
        for version in [V0_3, V1_0] {
            for method in Method::ALL {
                let Some(r) = method.rest_route(version) else {
                    continue;
                };
                let path = r
                    .template
                    .replace("{id}", "t-1")
                    .replace("{configId}", "c-1");
                let (found, task, config) = m(&path, version, r.verb.as_str()).unwrap();
                assert_eq!(found, Ok(method), "{path}");
                assert_eq!(
                    task,
                    if r.template.contains("{id}") {
                        "t-1"
                    } else {
                        ""
                    }
                );
                assert_eq!(
                    config,
                    if r.template.contains("{configId}") {
                        "c-1"
                    } else {
                        ""
                    }
                );
            }
        }
        assert_eq!(
            m("/tasks/a:b", V1_0, "GET"),
            Some((Ok(Method::GetTask), "a:b".into(), "".into()))
        );
        assert_eq!(
            m("/tasks/a:subscribe", V1_0, "GET"),
            Some((Ok(Method::SubscribeToTask), "a".into(), "".into()))
        );
        assert_eq!(
            m("/tasks/a:cancel", V1_0, "GET"),
            Some((Err("POST"), "a".into(), "".into()))
        );
        assert_eq!(
            m("/tasks/a/pushNotificationConfigs", V1_0, "PUT")
                .unwrap()
                .0,
            Err("GET, POST")
        );
        assert_eq!(
            m("/tasks/a/pushNotificationConfigs/c", V1_0, "POST")
                .unwrap()
                .0,
            Err("GET, DELETE")
        );
        assert_eq!(
            m("/tasks/a:subscribe", V1_0, "DELETE").unwrap().0,
            Err("GET, POST")
        );
        assert_eq!(m("/v1/tasks", V0_3, "GET"), None);
        assert_eq!(m("/card", V1_0, "GET"), None);
        assert_eq!(m("/extendedAgentCard", V0_3, "GET"), None);
    }
}
