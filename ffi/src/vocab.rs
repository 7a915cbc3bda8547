//! The shared vocabulary as C enums with stable numbers: channel, task state, retry advice,
//! error name, request-sent, protocol version, binding.
//!
//! Numbers are part of the ABI and never change. Enums that some function returns *by
//! value* have an `INVALID = 0` member, returned only for a NULL handle or after a caught
//! panic. Functions that take one of these enums as an argument take a plain `uint32_t`
//! (any number is safe to pass; unknown numbers are refused with `A2A_INVALID_ARGUMENT` or
//! yield an absent view), because a C caller can put any value in an enum variable.

use a2a::outcome::{Channel, ErrorName, RequestSent, RetryAdvice, TaskState};
use a2a::version::{Binding, ProtocolVersion, VersionError};

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
    a2a_task_state_class => a2a_task_state_class::NotAState,
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

/// Where a task state leaves the caller's turn: the answer of `a2a_task_state_classify`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_task_state_class {
    /// The number is not an `a2a_task_state` member.
    NotAState = 0,
    /// The task is still running or its state is not known yet (submitted, working,
    /// unknown): keep waiting, polling or reading the stream.
    Active = 1,
    /// Interrupted (input-required, auth-required): the turn ends and the task waits for
    /// the caller.
    Interrupted = 2,
    /// Terminal (completed, canceled, failed, rejected): the task will not change again.
    Terminal = 3,
}

/// The class of task state `state` (an `a2a_task_state` number) is: active, interrupted or
/// terminal; `A2A_TASK_STATE_CLASS_NOT_A_STATE` for a number that is not a member. Never
/// fails.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_task_state_classify(state: u32) -> a2a_task_state_class {
    ffi_panic_boundary! {
        match a2a_task_state::core_from_u32(state) {
            None => a2a_task_state_class::NotAState,
            Some(s) if s.is_terminal() => a2a_task_state_class::Terminal,
            Some(s) if s.is_interrupted() => a2a_task_state_class::Interrupted,
            Some(_) => a2a_task_state_class::Active,
        }
    }
}

/// A vocabulary of the shared names: one value per C enum whose members have a wire name,
/// for `a2a_vocab_name` and `a2a_vocab_parse`. The numbers are part of the ABI and never
/// change. Both functions take the vocabulary as a plain `uint32_t`: any number is safe to
/// pass, and a number that is not a member is refused (see each function).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_vocab {
    /// `a2a_channel`: lowercase names as in JSON output (`"transport"`, `"task"`, ...).
    /// Parse: exact (case-sensitive); anything else is `A2A_INVALID_ARGUMENT`.
    Channel = 1,
    /// `a2a_task_state`: kebab-case names (`"input-required"`, `"canceled"`, ...). Parse:
    /// every spelling deployed peers use (0.3 kebab-case, ProtoJSON `TASK_STATE_CANCELED` /
    /// `TASK_STATE_CANCELLED`, enum numbers as text such as `"4"`; ASCII case and
    /// surrounding whitespace ignored); an unknown spelling is `A2A_TASK_STATE_UNKNOWN`
    /// with `A2A_OK` (not an error).
    TaskState = 2,
    /// `a2a_retry`: snake_case words (`"backoff"`, `"unknown_outcome"`, ...). Parse: exact;
    /// anything else is `A2A_INVALID_ARGUMENT`.
    Retry = 3,
    /// `a2a_request_sent`: `"no"` or `"unknown"`. Parse: exact; anything else is
    /// `A2A_INVALID_ARGUMENT`.
    RequestSent = 4,
    /// `a2a_error_name`: names as in JSON output (`"TaskNotFound"`, `"BadGateway"`,
    /// `"Timeout"`, ...). Parse: exact; anything else is `A2A_INVALID_ARGUMENT`.
    ErrorName = 5,
    /// `a2a_protocol_version`: canonical `MAJOR.MINOR` text, `"0.3"` or `"1.0"`. Parse:
    /// `MAJOR.MINOR[.PATCH]` (`"0.3.0"`, `"1.2"`; surrounding ASCII whitespace ignored) into
    /// the shape it is spoken in; `A2A_VERSION_MALFORMED` (not such a text, including the
    /// empty text) or `A2A_VERSION_UNSUPPORTED` (well-formed but neither 0.3 nor 1.x).
    ProtocolVersion = 6,
    /// `a2a_binding`: card transport names, `"JSONRPC"` or `"HTTP+JSON"`. Parse: ASCII
    /// case-insensitive, surrounding whitespace ignored, also `json-rpc` and `rest`;
    /// anything else (e.g. `GRPC`) is `A2A_BINDING_UNKNOWN`.
    Binding = 7,
    // 8 named the retry policy's give-up reasons; that policy left the C ABI with its
    // enum (the client machine retries). The number is not reused.
    /// `a2a_method`: JSON-RPC method names of protocol 0.3 (`"message/send"`,
    /// `"tasks/get"`, ...); no name for `A2A_METHOD_LIST_TASKS` (not in 0.3). Parse: exact;
    /// a text that is not a 0.3 method name is `A2A_NONE`.
    MethodJsonrpcV0_3 = 9,
    /// `a2a_method`: JSON-RPC method names of protocol 1.0 (`"SendMessage"`, `"GetTask"`,
    /// ...). Parse: exact; a text that is not a 1.0 method name is `A2A_NONE`.
    MethodJsonrpcV1_0 = 10,
    /// `a2a_protocol_version` as the `A2A-Version` HTTP header carries it: the name is the
    /// value a client sends, `"1.0"` for 1.x, and absent `(NULL, 0)` for 0.3 (which sends
    /// no header). Parse: the version a server should assume from a received value; an
    /// absent header (`(NULL, 0)`) or an empty one means 0.3, otherwise as
    /// `A2A_VOCAB_PROTOCOL_VERSION` (`A2A_VERSION_MALFORMED`, `A2A_VERSION_UNSUPPORTED`).
    VersionHeader = 11,
}

impl a2a_vocab {
    /// Every vocabulary, in number order.
    pub(crate) const ALL: [a2a_vocab; 10] = [
        a2a_vocab::Channel,
        a2a_vocab::TaskState,
        a2a_vocab::Retry,
        a2a_vocab::RequestSent,
        a2a_vocab::ErrorName,
        a2a_vocab::ProtocolVersion,
        a2a_vocab::Binding,
        a2a_vocab::MethodJsonrpcV0_3,
        a2a_vocab::MethodJsonrpcV1_0,
        a2a_vocab::VersionHeader,
    ];

    /// The vocabulary numbered `n`, `None` when `n` is not a member.
    fn from_u32(n: u32) -> Option<a2a_vocab> {
        a2a_vocab::ALL.into_iter().find(|v| *v as u32 == n)
    }

    /// The static name of member `value`, `None` when `value` is not a member or has none.
    fn name(self, value: u32) -> Option<&'static str> {
        match self {
            a2a_vocab::Channel => a2a_channel::core_from_u32(value).map(Channel::as_str),
            a2a_vocab::TaskState => a2a_task_state::core_from_u32(value).map(TaskState::as_str),
            a2a_vocab::Retry => a2a_retry::core_from_u32(value).map(RetryAdvice::as_str),
            a2a_vocab::RequestSent => {
                a2a_request_sent::core_from_u32(value).map(RequestSent::as_str)
            }
            a2a_vocab::ErrorName => a2a_error_name::core_from_u32(value).map(ErrorName::as_str),
            a2a_vocab::ProtocolVersion => {
                a2a_protocol_version::core_from_u32(value).map(ProtocolVersion::as_str)
            }
            a2a_vocab::Binding => a2a_binding::core_from_u32(value).map(Binding::as_str),
            a2a_vocab::MethodJsonrpcV0_3 => method_name(value, ProtocolVersion::V0_3),
            a2a_vocab::MethodJsonrpcV1_0 => method_name(value, ProtocolVersion::V1_0),
            a2a_vocab::VersionHeader => {
                a2a_protocol_version::core_from_u32(value).and_then(ProtocolVersion::header_value)
            }
        }
    }

    /// The member `text` names, or the result code the vocabulary refuses it with.
    fn parse(self, text: &str) -> Result<u32, a2a_result> {
        use a2a_result::{A2A_BINDING_UNKNOWN, A2A_INVALID_ARGUMENT, A2A_NONE};
        match self {
            a2a_vocab::TaskState => Ok(a2a_task_state::from_core(TaskState::parse(text)) as u32),
            a2a_vocab::ProtocolVersion => ProtocolVersion::parse(text)
                .map(|v| a2a_protocol_version::from_core(v) as u32)
                .map_err(|e| version_error(&e)),
            a2a_vocab::VersionHeader => ProtocolVersion::from_header(Some(text))
                .map(|v| a2a_protocol_version::from_core(v) as u32)
                .map_err(|e| version_error(&e)),
            a2a_vocab::Binding => Binding::parse(text)
                .map(|b| a2a_binding::from_core(b) as u32)
                .ok_or(A2A_BINDING_UNKNOWN),
            a2a_vocab::MethodJsonrpcV0_3 | a2a_vocab::MethodJsonrpcV1_0 => {
                self.exact(text).ok_or(A2A_NONE)
            }
            a2a_vocab::Channel
            | a2a_vocab::Retry
            | a2a_vocab::RequestSent
            | a2a_vocab::ErrorName => self.exact(text).ok_or(A2A_INVALID_ARGUMENT),
        }
    }

    /// The member whose name is exactly `text`. Every member number of every vocabulary
    /// is below `NAME_SCAN_END` (a test checks it), so the scan sees them all.
    fn exact(self, text: &str) -> Option<u32> {
        (0..NAME_SCAN_END).find(|n| self.name(*n) == Some(text))
    }
}

/// The result code of a version refusal.
pub(crate) fn version_error(e: &VersionError) -> a2a_result {
    match e {
        VersionError::Malformed(_) => a2a_result::A2A_VERSION_MALFORMED,
        VersionError::Unsupported { .. } => a2a_result::A2A_VERSION_UNSUPPORTED,
        // A refusal added to the core later: not a version this library reads.
        _ => a2a_result::A2A_VERSION_MALFORMED,
    }
}

/// One past the largest member number of any vocabulary (`a2a_error_name`'s are below 300).
const NAME_SCAN_END: u32 = 300;

/// The JSON-RPC name of a C `a2a_method` number in `version`.
fn method_name(value: u32, version: ProtocolVersion) -> Option<&'static str> {
    crate::request::a2a_method::core_from_u32(value).and_then(|m| m.jsonrpc_name(version))
}

/// The static name of `value` in vocabulary `vocab` (an `a2a_vocab` number): the wire name
/// of that member of the C enum the vocabulary covers (see each `a2a_vocab` value).
///
/// Returns an absent view `(NULL, 0)` when `value` is not a member of that enum, when the
/// member has no name (`A2A_CHANNEL_INVALID`, `A2A_RETRY_INVALID`, `A2A_ERROR_NAME_INVALID`,
/// `A2A_METHOD_LIST_TASKS` in 0.3), and when `vocab`
/// is not an `a2a_vocab` member. The text is static memory inside the library: valid
/// forever, never free it.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_vocab_name(vocab: u32, value: u32) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(a2a_vocab::from_u32(vocab).and_then(|v| v.name(value)))
    }
}

/// Parses `text` as a name in vocabulary `vocab` (an `a2a_vocab` number) and writes the
/// member's number of the C enum the vocabulary covers to `*out`. Which spellings each
/// vocabulary accepts, and what it returns for a text that is not a name, is documented
/// on each `a2a_vocab` value; every name `a2a_vocab_name` gives parses back to its value.
///
/// `text`/`text_len`: UTF-8, borrowed for the call only; `(NULL, 0)` is the empty string.
/// `out`: written on success only.
///
/// Errors, checked in this order: `A2A_INVALID_ARGUMENT` when `vocab` is not an
/// `a2a_vocab` member (nothing else is looked at); `A2A_NULL_PARAMETER` (`out` NULL, or
/// `text` NULL with `text_len > 0`); `A2A_INVALID_UTF8`; then the vocabulary's own refusal:
/// `A2A_INVALID_ARGUMENT`, `A2A_VERSION_MALFORMED`, `A2A_VERSION_UNSUPPORTED`,
/// `A2A_BINDING_UNKNOWN` or `A2A_NONE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_vocab_parse(
    vocab: u32,
    text: *const std::ffi::c_char,
    text_len: usize,
    out: *mut u32,
) -> a2a_result {
    ffi_panic_boundary! {
        let Some(vocab) = a2a_vocab::from_u32(vocab) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let out = try_out!(out);
        let text = try_str!(text, text_len);
        match vocab.parse(text) {
            Ok(n) => {
                out.set(n);
                a2a_result::A2A_OK
            }
            Err(r) => r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::outcome::tests::view_text;

    fn parse(vocab: a2a_vocab, text: &[u8]) -> Result<u32, a2a_result> {
        let mut out = 0;
        match a2a_vocab_parse(vocab as u32, text.as_ptr().cast(), text.len(), &mut out) {
            a2a_result::A2A_OK => Ok(out),
            e => Err(e),
        }
    }

    fn name(vocab: a2a_vocab, value: u32) -> a2a_str {
        a2a_vocab_name(vocab as u32, value)
    }

    #[test]
    fn every_member_number_is_below_the_name_scan_end() {
        for vocab in a2a_vocab::ALL {
            for n in NAME_SCAN_END..NAME_SCAN_END * 10 {
                assert!(name(vocab, n).ptr.is_null(), "{vocab:?} {n}");
            }
        }
        // The largest member numbers: error names (the others are below 100).
        assert!(
            a2a_error_name::ALL
                .iter()
                .all(|e| (*e as u32) < NAME_SCAN_END)
        );
    }

    #[test]
    fn every_member_round_trips_through_its_number() {
        for c in a2a_channel::ALL {
            let core = a2a_channel::core_from_u32(*c as u32).unwrap();
            assert_eq!(a2a_channel::from_core(core), *c);
            assert_eq!(
                view_text(a2a_vocab_name(a2a_vocab::Channel as u32, *c as u32)),
                Some(core.as_str())
            );
        }
        for c in a2a_task_state::ALL {
            let core = a2a_task_state::core_from_u32(*c as u32).unwrap();
            assert_eq!(a2a_task_state::from_core(core), *c);
            // The number as text parses back to the same state (proto numbering).
            if *c != a2a_task_state::Unknown {
                let text = (*c as u32).to_string();
                assert_eq!(parse(a2a_vocab::TaskState, text.as_bytes()), Ok(*c as u32));
            }
        }
        for c in a2a_retry::ALL {
            let core = a2a_retry::core_from_u32(*c as u32).unwrap();
            assert_eq!(a2a_retry::from_core(core), *c);
        }
        for c in a2a_error_name::ALL {
            let core = a2a_error_name::core_from_u32(*c as u32).unwrap();
            assert_eq!(a2a_error_name::from_core(core), *c);
            let name = view_text(a2a_vocab_name(a2a_vocab::ErrorName as u32, *c as u32)).unwrap();
            assert_eq!(parse(a2a_vocab::ErrorName, name.as_bytes()), Ok(*c as u32));
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
        assert!(name(a2a_vocab::Channel, 0).ptr.is_null());
        assert!(name(a2a_vocab::Channel, 7).ptr.is_null());
        assert!(name(a2a_vocab::Retry, 0).ptr.is_null());
        assert!(name(a2a_vocab::ErrorName, 16).ptr.is_null());
        assert!(name(a2a_vocab::TaskState, 9).ptr.is_null());
        assert!(name(a2a_vocab::RequestSent, 0).ptr.is_null());
        assert_eq!(a2a_task_state_classify(99), a2a_task_state_class::NotAState);
        assert_eq!(
            parse(a2a_vocab::ErrorName, b"Nope"),
            Err(a2a_result::A2A_INVALID_ARGUMENT)
        );
        let mut out = 15;
        assert_eq!(
            a2a_vocab_parse(
                a2a_vocab::ErrorName as u32,
                b"Nope".as_ptr().cast(),
                4,
                &mut out
            ),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        assert_eq!(out, 15, "not written on failure");
        assert_eq!(
            a2a_vocab_parse(
                a2a_vocab::ErrorName as u32,
                b"Nope".as_ptr().cast(),
                4,
                std::ptr::null_mut()
            ),
            a2a_result::A2A_NULL_PARAMETER
        );
    }

    #[test]
    fn state_predicates() {
        use a2a_task_state_class::{Active, Interrupted, Terminal};
        let kind = |s: a2a_task_state| a2a_task_state_classify(s as u32);
        assert_eq!(kind(a2a_task_state::Rejected), Terminal);
        assert_eq!(kind(a2a_task_state::Completed), Terminal);
        assert_eq!(kind(a2a_task_state::Working), Active);
        assert_eq!(kind(a2a_task_state::Unknown), Active);
        assert_eq!(kind(a2a_task_state::AuthRequired), Interrupted);
        assert_eq!(kind(a2a_task_state::InputRequired), Interrupted);
        let mut out = a2a_task_state::Working as u32;
        let v = a2a_vocab::TaskState as u32;
        assert_eq!(
            a2a_vocab_parse(v, b"\xff".as_ptr().cast(), 1, &mut out),
            a2a_result::A2A_INVALID_UTF8
        );
        assert_eq!(out, a2a_task_state::Working as u32);
        assert_eq!(
            a2a_vocab_parse(v, std::ptr::null(), 0, &mut out),
            a2a_result::A2A_OK
        );
        assert_eq!(out, a2a_task_state::Unknown as u32);
    }
}
