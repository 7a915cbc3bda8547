//! The A2A methods as a C enum (the client machine's calls and the server's requests name
//! them) and their JSON-RPC names. (The bring-your-own request builder `a2a_request_*` is
//! gone: the client machine builds every request; see `CHANGELOG.md`.)

use std::ffi::c_char;

use a2a::envelope::Method;

use crate::handle::try_out;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_str, try_str};
use crate::vocab::a2a_protocol_version;

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

/// Which JSON-RPC id a call carries (`a2a_call_settings_set_rpc_id`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_rpc_id_kind {
    /// No id (HTTP+JSON requests; a JSON-RPC request without one is refused).
    None = 0,
    /// A number.
    Number = 1,
    /// A string.
    String = 2,
}

/// The wire name of `method` in `version` (`message/send` in 0.3, `SendMessage` in 1.0),
/// static text; absent for ListTasks in 0.3 and for numbers that are not members.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_method_jsonrpc_name(method: u32, version: u32) -> a2a_str {
    ffi_panic_boundary! {
        let (Some(m), Some(v)) = (a2a_method::core_from_u32(method), a2a_protocol_version::core_from_u32(version)) else {
            return a2a_str::NONE;
        };
        a2a_str::from_opt(m.jsonrpc_name(v))
    }
}

/// Reads a JSON-RPC method name of either version (UTF-8). Returns `A2A_OK` and writes
/// `*method` and `*version`, or `A2A_NONE` for an unknown name.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_method_from_jsonrpc_name(
    name: *const c_char,
    name_len: usize,
    method: *mut a2a_method,
    version: *mut a2a_protocol_version,
) -> a2a_result {
    ffi_panic_boundary! {
        let method = try_out!(method);
        let version = try_out!(version);
        let name = try_str!(name, name_len);
        match Method::from_jsonrpc_name(name) {
            Some((m, v)) => {
                method.set(a2a_method::from_core(m));
                version.set(a2a_protocol_version::from_core(v));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_NONE,
        }
    }
}
