//! The shared vocabulary as C enums with stable numbers: channel, task state, retry advice,
//! error name, request-sent, protocol version, binding.
//!
//! Numbers are part of the ABI and never change. Enums that some function returns *by
//! value* have an `INVALID = 0` member, returned only for a NULL handle or after a caught
//! panic. Functions that take one of these enums as an argument take a plain `uint32_t`
//! (any number is safe to pass; unknown numbers are refused with `A2A_INVALID_ARGUMENT` or
//! yield an absent view), because a C caller can put any value in an enum variable.

use a2a::outcome::{Channel, ErrorName, RequestSent, RetryAdvice, TaskState};
use a2a::version::{Binding, ProtocolVersion};

use crate::handle::try_out;
use crate::panic::{defaults, ffi_panic_boundary};
use crate::result::a2a_result;
use crate::view::{a2a_str, try_str};

/// The channel of an outcome: exactly one per outcome.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_channel {
    /// Not a channel: returned only for a NULL handle or after a caught panic.
    Invalid = 0,
    /// No HTTP response: connect failure, timeout, reset, circuit open, card resolution.
    Transport = 1,
    /// A non-2xx HTTP status whose body carries no protocol error.
    Http = 2,
    /// A JSON-RPC error object or an HTTP+JSON error body.
    Protocol = 3,
    /// A task (or a status update) came back.
    Task = 4,
    /// A direct message reply.
    Message = 5,
    /// A 2xx body that fits neither protocol version's shapes.
    Malformed = 6,
}

/// Task state, normalized across protocol versions. The numbers are those of the A2A 1.0
/// `TaskState` enum (`UNKNOWN` is its `TASK_STATE_UNSPECIFIED`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_task_state {
    /// Unknown or unspecified state.
    Unknown = 0,
    /// Accepted, not yet running.
    Submitted = 1,
    /// Running.
    Working = 2,
    /// Terminal: finished successfully.
    Completed = 3,
    /// Terminal: the agent ran and failed.
    Failed = 4,
    /// Terminal: canceled.
    Canceled = 5,
    /// Interrupted: the agent needs input from the caller.
    InputRequired = 6,
    /// Terminal: the agent refused the task.
    Rejected = 7,
    /// Interrupted: the agent needs credentials.
    AuthRequired = 8,
}

/// What the caller should do about an outcome.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_retry {
    /// Not an advice: returned only for a NULL handle or after a caught panic.
    Invalid = 0,
    /// Success: nothing to do.
    None = 1,
    /// The request itself is wrong; retrying cannot help.
    Never = 2,
    /// The task is terminal; a retry means a new task (safe only with an idempotency key).
    NewTask = 3,
    /// A stream ended before a terminal state: resubscribe or poll, never resend.
    Resubscribe = 4,
    /// Poll the task with get-task.
    Poll = 5,
    /// Retry later with backoff, honouring `Retry-After` when given.
    Backoff = 6,
    /// The request may or may not have been received: retry only with the same messageId
    /// and idempotency key.
    UnknownOutcome = 7,
    /// Credentials are missing or refused.
    Reauthenticate = 8,
    /// Client and server speak different protocol versions.
    FixVersion = 9,
}

/// For a transport outcome: whether the request may have reached the server.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_request_sent {
    /// Provably never left the process (connect refused, DNS failure, breaker open).
    No = 1,
    /// May have been received (timeout or reset after bytes were written).
    Unknown = 2,
}

/// The typed name of an error outcome. Protocol names 1–99, http names 101–199, transport
/// names 201–299.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_error_name {
    /// Not a name: returned only after a caught panic.
    Invalid = 0,
    /// -32700: the body was not valid JSON.
    ParseError = 1,
    /// -32600: not a valid JSON-RPC request.
    InvalidRequest = 2,
    /// -32601: unknown method (often a version mismatch).
    MethodNotFound = 3,
    /// -32602: invalid parameters.
    InvalidParams = 4,
    /// -32603: internal error.
    Internal = 5,
    /// -32001: task not found.
    TaskNotFound = 6,
    /// -32002: task cannot be canceled.
    TaskNotCancelable = 7,
    /// -32003: push notifications not supported.
    PushNotificationNotSupported = 8,
    /// -32004: operation not supported.
    UnsupportedOperation = 9,
    /// -32005: content type not supported.
    ContentTypeNotSupported = 10,
    /// -32006: the agent produced an invalid response.
    InvalidAgentResponse = 11,
    /// -32007: extended agent card not configured.
    ExtendedAgentCardNotConfigured = 12,
    /// -32008: a required extension is not supported by the client.
    ExtensionSupportRequired = 13,
    /// -32009: protocol version not supported.
    VersionNotSupported = 14,
    /// Any other protocol error code.
    Other = 15,
    /// HTTP 401.
    Unauthenticated = 101,
    /// HTTP 403.
    Forbidden = 102,
    /// HTTP 404 without a protocol body (wrong URL).
    NotFound = 103,
    /// HTTP 413.
    PayloadTooLarge = 104,
    /// HTTP 429.
    RateLimited = 105,
    /// HTTP 3xx: a redirect, never followed.
    Redirect = 106,
    /// HTTP 502.
    BadGateway = 107,
    /// HTTP 503.
    Unavailable = 108,
    /// HTTP 504.
    GatewayTimeout = 109,
    /// Any other non-2xx status.
    Http = 110,
    /// The TCP (or TLS) connection could not be established.
    ConnectFailed = 201,
    /// The host name did not resolve.
    Dns = 202,
    /// A connect, call or stream-idle deadline expired.
    Timeout = 203,
    /// The connection was reset or closed before a complete response.
    Reset = 204,
    /// The local circuit breaker refused the call.
    CircuitOpen = 205,
    /// The agent card could not be fetched, parsed or validated.
    CardResolution = 206,
    /// The response exceeded the configured size limit.
    ResponseTooLarge = 207,
    /// TLS failed (certificate, handshake); the outcome's reason names the cause.
    Tls = 208,
    /// The proxy refused the tunnel (CONNECT answered 407 or another non-2xx).
    Proxy = 209,
    /// The host resolved only to addresses refused for this agent (DNS rebinding).
    AddressRefused = 210,
    /// The agent card does not declare the capability the call needs; nothing was sent.
    CapabilityNotDeclared = 211,
}

/// The two protocol shapes deployed today.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_protocol_version {
    /// Protocol 0.3 (`message/send`, `kind` discriminators). The old name
    /// `A2A_PROTOCOL_VERSION_V03` remains as a deprecated alias.
    V0_3 = 1,
    /// Protocol 1.x (`SendMessage`, ProtoJSON, `A2A-Version: 1.0`). The old name
    /// `A2A_PROTOCOL_VERSION_V10` remains as a deprecated alias.
    V1_0 = 2,
}

/// The HTTP binding a call travels over.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_binding {
    /// JSON-RPC 2.0 over HTTP POST.
    JsonRpc = 1,
    /// HTTP+JSON ("REST").
    HttpJson = 2,
}

defaults! {
    a2a_channel => a2a_channel::Invalid,
    a2a_retry => a2a_retry::Invalid,
    a2a_error_name => a2a_error_name::Invalid,
}

/// One table per enum: C value <-> core value, so both directions come from one list. A core
/// enum marked `#[non_exhaustive]` names the C value a variant this table lacks maps to
/// (`else`); the tests check that every core variant has a row of its own.
macro_rules! mapping {
    ($c:ident, $core:ty, else $fallback:ident, [$($cv:ident <=> $corev:path),* $(,)?]) => {
        mapping!(@impl $c, $core, [$($cv <=> $corev),*], _ => $c::$fallback);
    };
    ($c:ident, $core:ty, [$($cv:ident <=> $corev:path),* $(,)?]) => {
        mapping!(@impl $c, $core, [$($cv <=> $corev),*]);
    };
    (@impl $c:ident, $core:ty, [$($cv:ident <=> $corev:path),*] $(, _ => $fb:expr)?) => {
        impl $c {
            /// The C value for a core value.
            pub(crate) fn from_core(v: $core) -> $c {
                match v { $($corev => $c::$cv,)* $(_ => $fb,)? }
            }
            /// The core value for a C number, `None` when the number is not a member.
            pub(crate) fn core_from_u32(n: u32) -> Option<$core> {
                $(if n == $c::$cv as u32 { return Some($corev); })*
                None
            }
            /// Every member, for tests.
            #[cfg(test)]
            #[allow(dead_code)]
            pub(crate) const ALL: &'static [$c] = &[$($c::$cv),*];
        }
    };
}

mapping!(a2a_channel, Channel, [
    Transport <=> Channel::Transport,
    Http <=> Channel::Http,
    Protocol <=> Channel::Protocol,
    Task <=> Channel::Task,
    Message <=> Channel::Message,
    Malformed <=> Channel::Malformed,
]);

mapping!(a2a_task_state, TaskState, [
    Unknown <=> TaskState::Unknown,
    Submitted <=> TaskState::Submitted,
    Working <=> TaskState::Working,
    Completed <=> TaskState::Completed,
    Failed <=> TaskState::Failed,
    Canceled <=> TaskState::Canceled,
    InputRequired <=> TaskState::InputRequired,
    Rejected <=> TaskState::Rejected,
    AuthRequired <=> TaskState::AuthRequired,
]);

mapping!(a2a_retry, RetryAdvice, else Invalid, [
    None <=> RetryAdvice::None,
    Never <=> RetryAdvice::Never,
    NewTask <=> RetryAdvice::NewTask,
    Resubscribe <=> RetryAdvice::Resubscribe,
    Poll <=> RetryAdvice::Poll,
    Backoff <=> RetryAdvice::Backoff,
    UnknownOutcome <=> RetryAdvice::UnknownOutcome,
    Reauthenticate <=> RetryAdvice::Reauthenticate,
    FixVersion <=> RetryAdvice::FixVersion,
]);

mapping!(a2a_request_sent, RequestSent, [
    No <=> RequestSent::No,
    Unknown <=> RequestSent::Unknown,
]);

mapping!(a2a_error_name, ErrorName, else Invalid, [
    ParseError <=> ErrorName::ParseError,
    InvalidRequest <=> ErrorName::InvalidRequest,
    MethodNotFound <=> ErrorName::MethodNotFound,
    InvalidParams <=> ErrorName::InvalidParams,
    Internal <=> ErrorName::Internal,
    TaskNotFound <=> ErrorName::TaskNotFound,
    TaskNotCancelable <=> ErrorName::TaskNotCancelable,
    PushNotificationNotSupported <=> ErrorName::PushNotificationNotSupported,
    UnsupportedOperation <=> ErrorName::UnsupportedOperation,
    ContentTypeNotSupported <=> ErrorName::ContentTypeNotSupported,
    InvalidAgentResponse <=> ErrorName::InvalidAgentResponse,
    ExtendedAgentCardNotConfigured <=> ErrorName::ExtendedAgentCardNotConfigured,
    ExtensionSupportRequired <=> ErrorName::ExtensionSupportRequired,
    VersionNotSupported <=> ErrorName::VersionNotSupported,
    Other <=> ErrorName::Other,
    Unauthenticated <=> ErrorName::Unauthenticated,
    Forbidden <=> ErrorName::Forbidden,
    NotFound <=> ErrorName::NotFound,
    PayloadTooLarge <=> ErrorName::PayloadTooLarge,
    RateLimited <=> ErrorName::RateLimited,
    Redirect <=> ErrorName::Redirect,
    BadGateway <=> ErrorName::BadGateway,
    Unavailable <=> ErrorName::Unavailable,
    GatewayTimeout <=> ErrorName::GatewayTimeout,
    Http <=> ErrorName::Http,
    ConnectFailed <=> ErrorName::ConnectFailed,
    Dns <=> ErrorName::Dns,
    Timeout <=> ErrorName::Timeout,
    Reset <=> ErrorName::Reset,
    CircuitOpen <=> ErrorName::CircuitOpen,
    CardResolution <=> ErrorName::CardResolution,
    ResponseTooLarge <=> ErrorName::ResponseTooLarge,
    Tls <=> ErrorName::Tls,
    Proxy <=> ErrorName::Proxy,
    AddressRefused <=> ErrorName::AddressRefused,
    CapabilityNotDeclared <=> ErrorName::CapabilityNotDeclared,
]);

mapping!(a2a_protocol_version, ProtocolVersion, [
    V0_3 <=> ProtocolVersion::V0_3,
    V1_0 <=> ProtocolVersion::V1_0,
]);

mapping!(a2a_binding, Binding, [
    JsonRpc <=> Binding::JsonRpc,
    HttpJson <=> Binding::HttpJson,
]);

/// Static lowercase name of a channel (`"transport"`, `"task"`, ...), as in JSON output.
///
/// Returns an absent view `(NULL, 0)` for a number that is not an `a2a_channel` member
/// (including `A2A_CHANNEL_INVALID`). The text is static: valid forever, never free it.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_channel_to_str(channel: u32) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(a2a_channel::core_from_u32(channel).map(Channel::as_str))
    }
}

/// Static kebab-case name of a task state (`"input-required"`, `"canceled"`, ...).
///
/// Returns an absent view `(NULL, 0)` for a number that is not an `a2a_task_state` member.
/// The text is static: valid forever.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_task_state_to_str(state: u32) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(a2a_task_state::core_from_u32(state).map(TaskState::as_str))
    }
}

/// Parses every task-state spelling deployed peers use: 0.3 kebab-case (`input-required`),
/// ProtoJSON names (`TASK_STATE_CANCELED`, `TASK_STATE_CANCELLED`) and enum numbers as text
/// (`"4"`). Unknown spellings yield `A2A_TASK_STATE_UNKNOWN` (this is not an error).
///
/// `text`/`text_len`: UTF-8, borrowed for the call only; `(NULL, 0)` is the empty string.
/// `out`: written on success only.
///
/// Errors: `A2A_NULL_PARAMETER` (`out` NULL, or `text` NULL with `text_len > 0`),
/// `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_task_state_parse(
    text: *const std::ffi::c_char,
    text_len: usize,
    out: *mut a2a_task_state,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let text = try_str!(text, text_len);
        out.set(a2a_task_state::from_core(TaskState::parse(text)));
        a2a_result::A2A_OK
    }
}

/// Whether `state` is terminal (completed, canceled, failed, rejected). False for numbers
/// that are not `a2a_task_state` members.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_task_state_is_terminal(state: u32) -> bool {
    ffi_panic_boundary! {
        a2a_task_state::core_from_u32(state).is_some_and(TaskState::is_terminal)
    }
}

/// Whether `state` is interrupted (input-required, auth-required): the turn ends and the
/// task waits for the caller. False for numbers that are not `a2a_task_state` members.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_task_state_is_interrupted(state: u32) -> bool {
    ffi_panic_boundary! {
        a2a_task_state::core_from_u32(state).is_some_and(TaskState::is_interrupted)
    }
}

/// Static snake_case word of a retry advice (`"backoff"`, `"unknown_outcome"`, ...).
///
/// Returns an absent view `(NULL, 0)` for a number that is not an `a2a_retry` member
/// (including `A2A_RETRY_INVALID`). The text is static: valid forever.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_retry_to_str(retry: u32) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(a2a_retry::core_from_u32(retry).map(RetryAdvice::as_str))
    }
}

/// Static word for a request-sent value: `"no"` or `"unknown"`.
///
/// Returns an absent view `(NULL, 0)` for a number that is not an `a2a_request_sent`
/// member. The text is static: valid forever.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_sent_to_str(sent: u32) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(a2a_request_sent::core_from_u32(sent).map(RequestSent::as_str))
    }
}

/// Static name of an error (`"TaskNotFound"`, `"BadGateway"`, `"Timeout"`, ...), as in JSON
/// output.
///
/// Returns an absent view `(NULL, 0)` for a number that is not an `a2a_error_name` member.
/// The text is static: valid forever.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_error_name_to_str(name: u32) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(a2a_error_name::core_from_u32(name).map(ErrorName::as_str))
    }
}

/// Parses an error name as written by `a2a_error_name_to_str` (exact, case-sensitive).
///
/// `text`/`text_len`: UTF-8, borrowed for the call only. `out`: written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (not a name).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_error_name_parse(
    text: *const std::ffi::c_char,
    text_len: usize,
    out: *mut a2a_error_name,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let text = try_str!(text, text_len);
        match ErrorName::parse(text) {
            Some(n) => {
                out.set(a2a_error_name::from_core(n));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_INVALID_ARGUMENT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::outcome::tests::view_text;

    #[test]
    fn every_member_round_trips_through_its_number() {
        for c in a2a_channel::ALL {
            let core = a2a_channel::core_from_u32(*c as u32).unwrap();
            assert_eq!(a2a_channel::from_core(core), *c);
            assert_eq!(
                view_text(a2a_channel_to_str(*c as u32)),
                Some(core.as_str())
            );
        }
        for c in a2a_task_state::ALL {
            let core = a2a_task_state::core_from_u32(*c as u32).unwrap();
            assert_eq!(a2a_task_state::from_core(core), *c);
            // The number as text parses back to the same state (proto numbering).
            if *c != a2a_task_state::Unknown {
                let mut out = a2a_task_state::Unknown;
                let text = (*c as u32).to_string();
                assert_eq!(
                    a2a_task_state_parse(text.as_ptr().cast(), text.len(), &mut out),
                    a2a_result::A2A_OK
                );
                assert_eq!(out, *c);
            }
        }
        for c in a2a_retry::ALL {
            let core = a2a_retry::core_from_u32(*c as u32).unwrap();
            assert_eq!(a2a_retry::from_core(core), *c);
        }
        for c in a2a_error_name::ALL {
            let core = a2a_error_name::core_from_u32(*c as u32).unwrap();
            assert_eq!(a2a_error_name::from_core(core), *c);
            let name = view_text(a2a_error_name_to_str(*c as u32)).unwrap();
            let mut out = a2a_error_name::Other;
            assert_eq!(
                a2a_error_name_parse(name.as_ptr().cast(), name.len(), &mut out),
                a2a_result::A2A_OK
            );
            assert_eq!(out, *c);
        }
        assert_eq!(a2a_error_name::ALL.len(), ErrorName::ALL.len());
    }

    #[test]
    fn every_core_variant_has_a_row_of_its_own() {
        // The core enums are `#[non_exhaustive]`, so `from_core` has a fallback arm; a
        // variant added in the core without a row here would silently take it.
        for e in ErrorName::ALL {
            let c = a2a_error_name::from_core(e);
            assert_ne!(c, a2a_error_name::Invalid, "{e:?}");
            assert_eq!(a2a_error_name::core_from_u32(c as u32), Some(e));
        }
        for r in RetryAdvice::ALL {
            let c = a2a_retry::from_core(r);
            assert_ne!(c, a2a_retry::Invalid, "{r:?}");
            assert_eq!(a2a_retry::core_from_u32(c as u32), Some(r));
        }
    }

    #[test]
    fn unknown_numbers_are_absent_or_refused() {
        assert!(a2a_channel_to_str(0).ptr.is_null());
        assert!(a2a_channel_to_str(7).ptr.is_null());
        assert!(a2a_retry_to_str(0).ptr.is_null());
        assert!(a2a_error_name_to_str(16).ptr.is_null());
        assert!(a2a_task_state_to_str(9).ptr.is_null());
        assert!(a2a_request_sent_to_str(0).ptr.is_null());
        assert!(!a2a_task_state_is_terminal(99));
        let mut out = a2a_error_name::Other;
        assert_eq!(
            a2a_error_name_parse(b"Nope".as_ptr().cast(), 4, &mut out),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        assert_eq!(out, a2a_error_name::Other, "not written on failure");
        assert_eq!(
            a2a_error_name_parse(b"Nope".as_ptr().cast(), 4, std::ptr::null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
    }

    #[test]
    fn state_predicates() {
        assert!(a2a_task_state_is_terminal(a2a_task_state::Rejected as u32));
        assert!(!a2a_task_state_is_terminal(a2a_task_state::Working as u32));
        assert!(a2a_task_state_is_interrupted(
            a2a_task_state::AuthRequired as u32
        ));
        let mut out = a2a_task_state::Working;
        assert_eq!(
            a2a_task_state_parse(b"\xff".as_ptr().cast(), 1, &mut out),
            a2a_result::A2A_INVALID_UTF8
        );
        assert_eq!(out, a2a_task_state::Working);
        assert_eq!(
            a2a_task_state_parse(std::ptr::null(), 0, &mut out),
            a2a_result::A2A_OK
        );
        assert_eq!(out, a2a_task_state::Unknown);
    }
}
