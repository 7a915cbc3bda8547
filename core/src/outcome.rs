//! The outcome of one A2A call: exactly one channel, the details that channel carries, and
//! what the caller should do next.
//!
//! These types are shared by the classifier, the stream tracker, the resilience layer, the
//! driver, the C ABI and every binding. What each outcome *means* (retry advice, exit code,
//! model-facing prefix, breaker effect) is decided in one table, `bindings/fixtures/outcomes.json`,
//! and the code in [`crate::classify`] follows it.

use crate::version::{Binding, ProtocolVersion};

/// The failure (or success) channel an outcome belongs to. Exactly one per outcome.
///
/// Exhaustive on purpose: the six channels are the outcome table's partition
/// (`bindings/fixtures/outcomes.json`), and every caller must handle each one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Channel {
    /// The call did not produce an HTTP response: connect failure, timeout, reset, circuit
    /// open, card resolution. Produced by the caller or driver, never by [`crate::classify`].
    Transport,
    /// A non-2xx HTTP status whose body carries no protocol error.
    Http,
    /// A JSON-RPC error object or an HTTP+JSON error body.
    Protocol,
    /// A task (or a status update) came back; see [`Outcome::state`].
    Task,
    /// A direct Message reply.
    Message,
    /// A 2xx body that fits neither version's shapes.
    Malformed,
}

impl Channel {
    /// The lowercase name used in JSON output and the outcome table.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Transport => "transport",
            Channel::Http => "http",
            Channel::Protocol => "protocol",
            Channel::Task => "task",
            Channel::Message => "message",
            Channel::Malformed => "malformed",
        }
    }
}

/// Task state, normalized across protocol versions.
///
/// Exhaustive on purpose: the protocol's closed set of states (any other spelling reads as
/// [`TaskState::Unknown`]); callers decide terminal or interrupted for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaskState {
    /// Accepted, not yet running.
    Submitted,
    /// Running.
    Working,
    /// Interrupted: the agent needs input from the caller.
    InputRequired,
    /// Interrupted: the agent needs credentials.
    AuthRequired,
    /// Terminal: finished successfully.
    Completed,
    /// Terminal: canceled.
    Canceled,
    /// Terminal: the agent ran and failed.
    Failed,
    /// Terminal: the agent refused the task.
    Rejected,
    /// Unknown or unspecified state.
    Unknown,
}

impl TaskState {
    /// The normalized kebab-case name (`input-required`, `canceled`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::InputRequired => "input-required",
            TaskState::AuthRequired => "auth-required",
            TaskState::Completed => "completed",
            TaskState::Canceled => "canceled",
            TaskState::Failed => "failed",
            TaskState::Rejected => "rejected",
            TaskState::Unknown => "unknown",
        }
    }

    /// Parses every spelling deployed peers use: 0.3 kebab-case (`input-required`,
    /// `canceled`), ProtoJSON names (`TASK_STATE_CANCELED`, 0.3's `TASK_STATE_CANCELLED`),
    /// and the enum numbers as strings (`"4"`). Unknown spellings are `Unknown`.
    pub fn parse(text: &str) -> TaskState {
        // The spellings peers send (1.0 ProtoJSON names, 0.3 kebab-case) are matched as they
        // are, without the normalising copy below: this ran twice per task response, 150
        // instructions each (`benches/once.rs` under callgrind).
        match text {
            "TASK_STATE_COMPLETED" | "completed" => TaskState::Completed,
            "TASK_STATE_WORKING" | "working" => TaskState::Working,
            "TASK_STATE_SUBMITTED" | "submitted" => TaskState::Submitted,
            "TASK_STATE_INPUT_REQUIRED" | "input-required" => TaskState::InputRequired,
            "TASK_STATE_FAILED" | "failed" => TaskState::Failed,
            "TASK_STATE_CANCELED" | "canceled" => TaskState::Canceled,
            "TASK_STATE_REJECTED" | "rejected" => TaskState::Rejected,
            "TASK_STATE_AUTH_REQUIRED" | "auth-required" => TaskState::AuthRequired,
            _ => Self::parse_normalised(text),
        }
    }

    /// [`TaskState::parse`] of any spelling: trimmed, without the `TASK_STATE_` prefix,
    /// lower-cased with `-` for `_`.
    fn parse_normalised(text: &str) -> TaskState {
        let t = text.trim();
        let t = t.strip_prefix("TASK_STATE_").unwrap_or(t);
        let mut key = [0u8; 24];
        if t.len() > key.len() {
            return TaskState::Unknown;
        }
        for (k, b) in key.iter_mut().zip(t.bytes()) {
            *k = match b {
                b'_' => b'-',
                b => b.to_ascii_lowercase(),
            };
        }
        match &key[..t.len()] {
            b"submitted" | b"1" => TaskState::Submitted,
            b"working" | b"2" => TaskState::Working,
            b"completed" | b"3" => TaskState::Completed,
            b"failed" | b"4" => TaskState::Failed,
            b"canceled" | b"cancelled" | b"5" => TaskState::Canceled,
            b"input-required" | b"6" => TaskState::InputRequired,
            b"rejected" | b"7" => TaskState::Rejected,
            b"auth-required" | b"8" => TaskState::AuthRequired,
            _ => TaskState::Unknown,
        }
    }

    /// Completed, canceled, failed or rejected: the task accepts no more messages.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Canceled | TaskState::Failed | TaskState::Rejected
        )
    }

    /// Input-required or auth-required: the turn ends, the task waits for the caller.
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }

    /// The advice for a task in this state (the task rows of the outcome table; a status
    /// text's `[retryable=false]` can still turn it into `never`).
    pub fn advice(self) -> RetryAdvice {
        match self {
            TaskState::Completed | TaskState::InputRequired => RetryAdvice::None,
            TaskState::Failed | TaskState::Canceled | TaskState::Rejected => RetryAdvice::NewTask,
            TaskState::AuthRequired => RetryAdvice::Reauthenticate,
            TaskState::Submitted | TaskState::Working | TaskState::Unknown => RetryAdvice::Poll,
        }
    }
}

/// What the caller should do about an outcome. Exactly one per outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RetryAdvice {
    /// Success: nothing to do.
    None,
    /// The request itself is wrong; retrying cannot help.
    Never,
    /// The task is terminal; a retry means a new task (safe only with an idempotency key).
    NewTask,
    /// A stream ended before a terminal state and the task id is known: resubscribe or poll,
    /// never resend the message.
    Resubscribe,
    /// Poll the task with get-task.
    Poll,
    /// Retry later with backoff, honouring `Retry-After` when given.
    Backoff,
    /// The request may or may not have been received: retry only reusing the same messageId
    /// and idempotency key.
    UnknownOutcome,
    /// Credentials are missing or refused.
    Reauthenticate,
    /// Client and server speak different protocol versions.
    FixVersion,
}

impl RetryAdvice {
    /// Every advice, in declaration order.
    pub const ALL: [RetryAdvice; 9] = [
        RetryAdvice::None,
        RetryAdvice::Never,
        RetryAdvice::NewTask,
        RetryAdvice::Resubscribe,
        RetryAdvice::Poll,
        RetryAdvice::Backoff,
        RetryAdvice::UnknownOutcome,
        RetryAdvice::Reauthenticate,
        RetryAdvice::FixVersion,
    ];

    /// The snake_case word used in JSON output and the outcome table.
    pub fn as_str(self) -> &'static str {
        match self {
            RetryAdvice::None => "none",
            RetryAdvice::Never => "never",
            RetryAdvice::NewTask => "new_task",
            RetryAdvice::Resubscribe => "resubscribe",
            RetryAdvice::Poll => "poll",
            RetryAdvice::Backoff => "backoff",
            RetryAdvice::UnknownOutcome => "unknown_outcome",
            RetryAdvice::Reauthenticate => "reauthenticate",
            RetryAdvice::FixVersion => "fix_version",
        }
    }

    /// Parses the word written by [`RetryAdvice::as_str`].
    pub fn parse(text: &str) -> Option<RetryAdvice> {
        Some(match text {
            "none" => RetryAdvice::None,
            "never" => RetryAdvice::Never,
            "new_task" => RetryAdvice::NewTask,
            "resubscribe" => RetryAdvice::Resubscribe,
            "poll" => RetryAdvice::Poll,
            "backoff" => RetryAdvice::Backoff,
            "unknown_outcome" => RetryAdvice::UnknownOutcome,
            "reauthenticate" => RetryAdvice::Reauthenticate,
            "fix_version" => RetryAdvice::FixVersion,
            _ => return None,
        })
    }
}

/// For a transport outcome: whether the request may have reached the server.
///
/// Exhaustive on purpose: "provably not" or "maybe" is the whole question (a response that
/// arrived is no transport failure).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestSent {
    /// Provably never left the process (connect refused, DNS failure, breaker open).
    No,
    /// May have been received (timeout or reset after bytes were written).
    Unknown,
}

impl RequestSent {
    /// `"no"` or `"unknown"`.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestSent::No => "no",
            RequestSent::Unknown => "unknown",
        }
    }
}

/// The typed name of an error outcome (protocol, http or transport channel).
///
/// Protocol names are the spec's error names without the `Error` suffix; http names describe
/// the status class; transport names describe what the driver saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorName {
    // --- protocol channel ---
    /// -32700: the body was not valid JSON.
    ParseError,
    /// -32600: not a valid JSON-RPC request.
    InvalidRequest,
    /// -32601: unknown method (often a version mismatch).
    MethodNotFound,
    /// -32602: invalid parameters.
    InvalidParams,
    /// -32603: internal error.
    Internal,
    /// -32001: task not found.
    TaskNotFound,
    /// -32002: task cannot be canceled.
    TaskNotCancelable,
    /// -32003: push notifications not supported.
    PushNotificationNotSupported,
    /// -32004: operation not supported.
    UnsupportedOperation,
    /// -32005: content type not supported.
    ContentTypeNotSupported,
    /// -32006: the agent produced an invalid response.
    InvalidAgentResponse,
    /// -32007: extended agent card not configured (0.3: authenticated extended card).
    ExtendedAgentCardNotConfigured,
    /// -32008: a required extension is not supported by the client.
    ExtensionSupportRequired,
    /// -32009: protocol version not supported.
    VersionNotSupported,
    /// Any other protocol error code.
    Other,
    // --- http channel ---
    /// 401.
    Unauthenticated,
    /// 403.
    Forbidden,
    /// 404 without a protocol body (wrong URL).
    NotFound,
    /// 413.
    PayloadTooLarge,
    /// 429.
    RateLimited,
    /// 3xx: a redirect, a configuration bug here, never followed.
    Redirect,
    /// 502.
    BadGateway,
    /// 503.
    Unavailable,
    /// 504.
    GatewayTimeout,
    /// Any other non-2xx status (408, 500, ...).
    Http,
    // --- transport channel ---
    /// The TCP (or TLS) connection could not be established.
    ConnectFailed,
    /// The host name did not resolve.
    Dns,
    /// A connect, call or stream-idle deadline expired.
    Timeout,
    /// The connection was reset or closed before a complete response.
    Reset,
    /// The local circuit breaker refused the call.
    CircuitOpen,
    /// The agent card could not be fetched, parsed or validated.
    CardResolution,
    /// The response exceeded the configured size limit.
    ResponseTooLarge,
    /// TLS failed (certificate, handshake); `reason` names the cause.
    Tls,
    /// The proxy refused the tunnel (CONNECT answered 407 or another non-2xx); `reason`
    /// is `auth_required` or `connect_refused`.
    Proxy,
    /// Every address the host resolved to is one the card rules refuse for this card
    /// (DNS rebinding to loopback, link-local or private addresses).
    AddressRefused,
    /// The agent card does not declare the capability the call needs (`streaming`,
    /// `pushNotifications`, the extended card); refused before anything was sent.
    CapabilityNotDeclared,
}

impl ErrorName {
    /// The name as printed in JSON output (`TaskNotFound`, `BadGateway`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorName::ParseError => "ParseError",
            ErrorName::InvalidRequest => "InvalidRequest",
            ErrorName::MethodNotFound => "MethodNotFound",
            ErrorName::InvalidParams => "InvalidParams",
            ErrorName::Internal => "Internal",
            ErrorName::TaskNotFound => "TaskNotFound",
            ErrorName::TaskNotCancelable => "TaskNotCancelable",
            ErrorName::PushNotificationNotSupported => "PushNotificationNotSupported",
            ErrorName::UnsupportedOperation => "UnsupportedOperation",
            ErrorName::ContentTypeNotSupported => "ContentTypeNotSupported",
            ErrorName::InvalidAgentResponse => "InvalidAgentResponse",
            ErrorName::ExtendedAgentCardNotConfigured => "ExtendedAgentCardNotConfigured",
            ErrorName::ExtensionSupportRequired => "ExtensionSupportRequired",
            ErrorName::VersionNotSupported => "VersionNotSupported",
            ErrorName::Other => "Other",
            ErrorName::Unauthenticated => "Unauthenticated",
            ErrorName::Forbidden => "Forbidden",
            ErrorName::NotFound => "NotFound",
            ErrorName::PayloadTooLarge => "PayloadTooLarge",
            ErrorName::RateLimited => "RateLimited",
            ErrorName::Redirect => "Redirect",
            ErrorName::BadGateway => "BadGateway",
            ErrorName::Unavailable => "Unavailable",
            ErrorName::GatewayTimeout => "GatewayTimeout",
            ErrorName::Http => "Http",
            ErrorName::ConnectFailed => "ConnectFailed",
            ErrorName::Dns => "Dns",
            ErrorName::Timeout => "Timeout",
            ErrorName::Reset => "Reset",
            ErrorName::CircuitOpen => "CircuitOpen",
            ErrorName::CardResolution => "CardResolution",
            ErrorName::ResponseTooLarge => "ResponseTooLarge",
            ErrorName::Tls => "Tls",
            ErrorName::Proxy => "Proxy",
            ErrorName::AddressRefused => "AddressRefused",
            ErrorName::CapabilityNotDeclared => "CapabilityNotDeclared",
        }
    }

    /// Every name, in declaration order (for tables and bindings).
    pub const ALL: [ErrorName; 36] = [
        ErrorName::ParseError,
        ErrorName::InvalidRequest,
        ErrorName::MethodNotFound,
        ErrorName::InvalidParams,
        ErrorName::Internal,
        ErrorName::TaskNotFound,
        ErrorName::TaskNotCancelable,
        ErrorName::PushNotificationNotSupported,
        ErrorName::UnsupportedOperation,
        ErrorName::ContentTypeNotSupported,
        ErrorName::InvalidAgentResponse,
        ErrorName::ExtendedAgentCardNotConfigured,
        ErrorName::ExtensionSupportRequired,
        ErrorName::VersionNotSupported,
        ErrorName::Other,
        ErrorName::Unauthenticated,
        ErrorName::Forbidden,
        ErrorName::NotFound,
        ErrorName::PayloadTooLarge,
        ErrorName::RateLimited,
        ErrorName::Redirect,
        ErrorName::BadGateway,
        ErrorName::Unavailable,
        ErrorName::GatewayTimeout,
        ErrorName::Http,
        ErrorName::ConnectFailed,
        ErrorName::Dns,
        ErrorName::Timeout,
        ErrorName::Reset,
        ErrorName::CircuitOpen,
        ErrorName::CardResolution,
        ErrorName::ResponseTooLarge,
        ErrorName::Tls,
        ErrorName::Proxy,
        ErrorName::AddressRefused,
        ErrorName::CapabilityNotDeclared,
    ];

    /// Parses a name written by [`ErrorName::as_str`].
    pub fn parse(text: &str) -> Option<ErrorName> {
        ErrorName::ALL.into_iter().find(|n| n.as_str() == text)
    }
}

/// A stable hint the remote appended to its message, e.g. `[retryable=false; reason=quota]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RemoteHint {
    /// `retryable=true|false` when present.
    pub retryable: Option<bool>,
    /// Every `key=value` pair in order, including `retryable`.
    pub pairs: Vec<(String, String)>,
}

/// Where a CANCELED task's cancel came from, as the client sees it.
///
/// The seeds: callers of an ADK agent see no error marker on an admission cancel (a
/// before-execute check that cancels the task), so a client tells cancels apart by what it
/// did itself: [`CancelOrigin::Requested`] when this client sent `CancelTask` for the task,
/// else [`CancelOrigin::Remote`]. A server built with this crate marks its cancels
/// ([`CANCEL_ORIGIN_KEY`] metadata, [`ADMISSION_PREFIX`] / [`REQUESTED_TEXT`] text), which
/// refines `Remote` into [`CancelOrigin::Admission`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CancelOrigin {
    /// Refused before it ran (admission control: queue full, quota, shutdown).
    Admission,
    /// Canceled because a client asked (`CancelTask`).
    Requested,
    /// Canceled by the remote side, for a reason it did not mark.
    Remote,
}

impl CancelOrigin {
    /// `"admission"`, `"requested"` or `"remote"`.
    pub fn as_str(self) -> &'static str {
        match self {
            CancelOrigin::Admission => "admission",
            CancelOrigin::Requested => "requested",
            CancelOrigin::Remote => "remote",
        }
    }

    /// Reads the marker a server built with this crate writes into a CANCELED status text.
    pub fn from_status_text(text: &str) -> Option<CancelOrigin> {
        if text.starts_with(ADMISSION_PREFIX) {
            Some(CancelOrigin::Admission)
        } else if text == REQUESTED_TEXT {
            Some(CancelOrigin::Requested)
        } else {
            None
        }
    }
}

/// Status-message metadata key naming the origin of a CANCELED status.
pub const CANCEL_ORIGIN_KEY: &str = "a2aCoreCancelOrigin";
/// Text prefix of an admission refusal.
pub const ADMISSION_PREFIX: &str = "Refused before running:";
/// Text of a requested cancel.
pub const REQUESTED_TEXT: &str = "Canceled by request.";

/// An [`Outcome`] by its channel ([`Outcome::view`]): each variant carries the fields that
/// mean something on that channel, so a task state on a transport failure cannot be read.
/// Every outcome also has its [`Outcome::retry`] advice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutcomeView<'a> {
    /// No HTTP response: connect failure, timeout, reset, circuit open, card resolution.
    Transport {
        /// What went wrong.
        error: Option<ErrorName>,
        /// Whether the request may have been received.
        request_sent: Option<RequestSent>,
        /// The driver's description.
        message: Option<&'a str>,
    },
    /// A non-2xx status whose body carries no protocol error.
    Http {
        /// The HTTP status.
        status: Option<u16>,
        /// The status class as an error name.
        error: Option<ErrorName>,
        /// `Retry-After`, seconds.
        retry_after_secs: Option<u64>,
        /// A bounded excerpt of the body (e.g. a proxy's page).
        body_excerpt: Option<&'a str>,
    },
    /// A JSON-RPC error object or an HTTP+JSON error body.
    Protocol {
        /// The A2A (or JSON-RPC) error.
        error: Option<ErrorName>,
        /// The numeric code.
        code: Option<i64>,
        /// The `google.rpc.ErrorInfo` reason.
        reason: Option<&'a str>,
        /// The error message.
        message: Option<&'a str>,
        /// `error.data` or REST `details`, raw JSON.
        data: Option<&'a str>,
    },
    /// A task (or a status update).
    Task {
        /// The normalized state.
        state: Option<TaskState>,
        /// Whether the state is terminal.
        terminal: bool,
        /// The task id.
        task_id: Option<&'a str>,
        /// The context id.
        context_id: Option<&'a str>,
        /// The status message's text.
        text: Option<&'a str>,
        /// The remote's 12-hex `error_id` in that text.
        error_id: Option<&'a str>,
        /// Who canceled a CANCELED task.
        cancel_origin: Option<CancelOrigin>,
    },
    /// A direct Message reply.
    Message {
        /// Its text.
        text: Option<&'a str>,
        /// The task it belongs to, if any.
        task_id: Option<&'a str>,
        /// Its context.
        context_id: Option<&'a str>,
    },
    /// A 2xx body that fits neither version's shapes.
    Malformed {
        /// What did not fit.
        message: Option<&'a str>,
        /// A bounded excerpt of the body.
        body_excerpt: Option<&'a str>,
    },
}

/// The outcome of one response, stream or failed call. Exactly one [`Channel`].
///
/// Field names follow the keys of `a2a classify` JSON output. The fields are public for
/// reading (the flat view the C ABI and JSON share; [`Outcome::view`] is the per-channel
/// one); outside this crate an outcome is built with the channel constructors and `with_*`
/// setters, never a struct literal, so new fields can be added.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Outcome {
    /// The channel.
    pub channel: Channel,
    /// The HTTP status, when a response arrived.
    pub http_status: Option<u16>,
    /// The protocol error code (JSON-RPC code, or REST `error.code`), when there is one.
    pub code: Option<i64>,
    /// The typed error name, for error channels.
    pub error: Option<ErrorName>,
    /// The `google.rpc.ErrorInfo` reason, when present.
    pub reason: Option<String>,
    /// The error message (protocol or transport), when present.
    pub message: Option<String>,
    /// The JSON-RPC `error.data` or REST `details`, as raw JSON text.
    pub data: Option<String>,
    /// The normalized task state, for the task channel.
    pub state: Option<TaskState>,
    /// Whether the task state is terminal.
    pub terminal: bool,
    /// The task id, when known.
    pub task_id: Option<String>,
    /// The context id, when known.
    pub context_id: Option<String>,
    /// The text of the status message (task) or of the message (message channel).
    pub text: Option<String>,
    /// The remote's 12-hex `error_id`, when the text carries one.
    pub error_id: Option<String>,
    /// What to do next.
    pub retry: RetryAdvice,
    /// `Retry-After` in seconds, when the response gave one.
    pub retry_after_secs: Option<u64>,
    /// A version-mismatch or other hint for the caller, or `None`.
    pub hint: Option<String>,
    /// The remote's own stable hint (`[retryable=...]`), when present.
    pub remote_hint: Option<RemoteHint>,
    /// For the transport channel: whether the request may have been received.
    pub request_sent: Option<RequestSent>,
    /// The protocol version the response was read as, when known.
    pub version: Option<ProtocolVersion>,
    /// The binding the response was read as, when known.
    pub binding: Option<Binding>,
    /// A bounded excerpt of a non-JSON or unexpected body (e.g. a proxy's HTML page).
    pub body_excerpt: Option<String>,
    /// A FAILED status text carries exception detail beyond its error id (ADK's debug
    /// errors: `(error_id: …): ExceptionClass: message`); [`crate::resilience::model_text()`]
    /// then leaves the text out and keeps only the error id.
    pub leaked_detail: bool,
    /// For a CANCELED task: who canceled it (the server's marker when present; the driver
    /// sets `requested` or `remote` from what it sent).
    pub cancel_origin: Option<CancelOrigin>,
}

/// Building an outcome: one constructor per channel (or success shape) takes what that
/// channel must carry and derives what follows from it (a task's `terminal` from its state,
/// a transport failure's advice from `request_sent`); the `with_*` setters add the optional
/// details. The error name, the protocol `code` and `terminal` have no setter (only their
/// channel's constructor sets them: a transport failure cannot carry a JSON-RPC code), and
/// the setters of fields that belong to one or two channels (`reason`, `data`, `error_id`,
/// `remote_hint`, `request_sent`, `cancel_origin`, `leaked_detail`, a non-task's last state)
/// check the channel in debug builds. [`Outcome::empty`] is the escape hatch for tables and
/// tests.
impl Outcome {
    /// An outcome in `channel` with every other field empty and advice `none`: for tables
    /// and tests that need an arbitrary combination; product code uses the channel
    /// constructors ([`Outcome::transport`], [`Outcome::http`], [`Outcome::protocol`],
    /// [`Outcome::task`], [`Outcome::artifact_update`], [`Outcome::message`],
    /// [`Outcome::malformed`]).
    pub fn empty(channel: Channel) -> Outcome {
        Outcome {
            channel,
            http_status: None,
            code: None,
            error: None,
            reason: None,
            message: None,
            data: None,
            state: None,
            terminal: false,
            task_id: None,
            context_id: None,
            text: None,
            error_id: None,
            retry: RetryAdvice::None,
            retry_after_secs: None,
            hint: None,
            remote_hint: None,
            request_sent: None,
            version: None,
            binding: None,
            body_excerpt: None,
            leaked_detail: false,
            cancel_origin: None,
        }
    }

    /// A transport outcome (produced by a driver, never by the classifier).
    pub fn transport(
        error: ErrorName,
        request_sent: RequestSent,
        message: impl Into<String>,
    ) -> Outcome {
        Outcome {
            error: Some(error),
            message: Some(message.into()),
            request_sent: Some(request_sent),
            retry: match (error, request_sent) {
                // A refused address stays refused until the caller allows the host; an
                // undeclared capability stays undeclared until the card changes.
                (ErrorName::AddressRefused | ErrorName::CapabilityNotDeclared, _) => {
                    RetryAdvice::Never
                }
                (_, RequestSent::No) => RetryAdvice::Backoff,
                (_, RequestSent::Unknown) => RetryAdvice::UnknownOutcome,
            },
            ..Outcome::empty(Channel::Transport)
        }
    }

    /// An http-channel outcome: a non-2xx `status` whose body carries no protocol error,
    /// named by its status class.
    pub fn http(status: u16, error: ErrorName, retry: RetryAdvice) -> Outcome {
        Outcome {
            http_status: Some(status),
            error: Some(error),
            retry,
            ..Outcome::empty(Channel::Http)
        }
    }

    /// A protocol-channel outcome: a JSON-RPC error object or an HTTP+JSON error body, with
    /// its numeric code when it had one.
    pub fn protocol(error: ErrorName, code: Option<i64>, retry: RetryAdvice) -> Outcome {
        Outcome {
            code,
            error: Some(error),
            retry,
            ..Outcome::empty(Channel::Protocol)
        }
    }

    /// A task (or status update) in `state`: `terminal` and the advice follow from the state
    /// ([`TaskState::advice`]).
    pub fn task(state: TaskState) -> Outcome {
        Outcome {
            state: Some(state),
            terminal: state.is_terminal(),
            retry: state.advice(),
            ..Outcome::empty(Channel::Task)
        }
    }

    /// An artifact update: the task channel without a state (the update carries none);
    /// advice `poll` (the task holds the state).
    pub fn artifact_update() -> Outcome {
        Outcome {
            retry: RetryAdvice::Poll,
            ..Outcome::empty(Channel::Task)
        }
    }

    /// A direct Message reply (or a success without a Task or Message, such as a REST
    /// delete): advice `none`.
    pub fn message() -> Outcome {
        Outcome::empty(Channel::Message)
    }

    /// A malformed outcome: a 2xx body (or stream event) that could not be read, and why.
    pub fn malformed(message: impl Into<String>, retry: RetryAdvice) -> Outcome {
        Outcome {
            message: Some(message.into()),
            retry,
            ..Outcome::empty(Channel::Malformed)
        }
    }

    /// Sets the HTTP status of the response this outcome was read from.
    #[must_use]
    pub fn with_http_status(mut self, status: u16) -> Outcome {
        self.http_status = Some(status);
        self
    }

    /// Sets (or, with `None`, clears) the error (protocol, transport) or body (http,
    /// malformed) message.
    #[must_use]
    pub fn with_message(mut self, message: impl Into<Option<String>>) -> Outcome {
        self.message = message.into();
        self
    }

    /// Sets the hint for the caller (version mismatch, configuration).
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<Option<String>>) -> Outcome {
        self.hint = hint.into();
        self
    }

    /// Replaces the advice the constructor chose.
    #[must_use]
    pub fn with_retry(mut self, retry: RetryAdvice) -> Outcome {
        self.retry = retry;
        self
    }

    /// Sets `Retry-After`, in seconds.
    #[must_use]
    pub fn with_retry_after_secs(mut self, secs: impl Into<Option<u64>>) -> Outcome {
        self.retry_after_secs = secs.into();
        self
    }

    /// Sets the bounded excerpt of a body that was not read as a result.
    #[must_use]
    pub fn with_body_excerpt(mut self, excerpt: impl Into<Option<String>>) -> Outcome {
        self.body_excerpt = excerpt.into();
        self
    }

    /// Sets the task id this outcome belongs to, when known.
    #[must_use]
    pub fn with_task_id(mut self, task_id: impl Into<Option<String>>) -> Outcome {
        self.task_id = task_id.into();
        self
    }

    /// Sets the context id this outcome belongs to, when known.
    #[must_use]
    pub fn with_context_id(mut self, context_id: impl Into<Option<String>>) -> Outcome {
        self.context_id = context_id.into();
        self
    }

    /// Sets the text of a message, an artifact update or a task's status message (the
    /// classifier also reads a status text's error id and hints: [`Outcome::with_error_id`],
    /// [`Outcome::with_remote_hint`], [`Outcome::with_cancel_origin`]).
    #[must_use]
    pub fn with_text(mut self, text: impl Into<Option<String>>) -> Outcome {
        self.text = text.into();
        self
    }

    /// Sets the protocol version the response was read as.
    #[must_use]
    pub fn with_version(mut self, version: impl Into<Option<ProtocolVersion>>) -> Outcome {
        self.version = version.into();
        self
    }

    /// Sets the binding the response was read as.
    #[must_use]
    pub fn with_binding(mut self, binding: impl Into<Option<Binding>>) -> Outcome {
        self.binding = binding.into();
        self
    }

    /// Sets the last task state seen before a non-task outcome (a stream cut, an unreadable
    /// event, a wait that ran out); a task outcome has its state from [`Outcome::task`].
    #[must_use]
    pub fn with_last_state(mut self, state: impl Into<Option<TaskState>>) -> Outcome {
        debug_assert!(
            self.channel != Channel::Task,
            "a task's state comes from Outcome::task"
        );
        self.state = state.into();
        self
    }

    /// Sets whether a FAILED task's status text leaks exception detail beyond its error id.
    #[must_use]
    pub fn with_leaked_detail(mut self, leaked: bool) -> Outcome {
        debug_assert!(
            self.channel == Channel::Task,
            "a status text belongs to a task"
        );
        self.leaked_detail = leaked;
        self
    }

    /// Sets who canceled a CANCELED task.
    #[must_use]
    pub fn with_cancel_origin(mut self, origin: impl Into<Option<CancelOrigin>>) -> Outcome {
        debug_assert!(self.channel == Channel::Task, "only a task is canceled");
        self.cancel_origin = origin.into();
        self
    }

    /// Sets the `google.rpc.ErrorInfo` reason (protocol) or the named cause (transport:
    /// TLS, proxy, refused address).
    #[must_use]
    pub fn with_reason(mut self, reason: impl Into<Option<String>>) -> Outcome {
        debug_assert!(
            matches!(self.channel, Channel::Protocol | Channel::Transport),
            "a reason belongs to a protocol or transport error"
        );
        self.reason = reason.into();
        self
    }

    /// Sets a protocol error's `error.data` (REST `details`), raw JSON.
    #[must_use]
    pub fn with_data(mut self, data: impl Into<Option<String>>) -> Outcome {
        debug_assert!(
            self.channel == Channel::Protocol,
            "data belongs to a protocol error"
        );
        self.data = data.into();
        self
    }

    /// Sets the remote's 12-hex `error_id` found in a protocol error's message or a task's
    /// status text.
    #[must_use]
    pub fn with_error_id(mut self, error_id: impl Into<Option<String>>) -> Outcome {
        debug_assert!(
            matches!(self.channel, Channel::Protocol | Channel::Task),
            "an error id comes from an error message or a status text"
        );
        self.error_id = error_id.into();
        self
    }

    /// Sets the remote's stable hint found in a protocol error's message or a task's status
    /// text.
    #[must_use]
    pub fn with_remote_hint(mut self, hint: impl Into<Option<RemoteHint>>) -> Outcome {
        debug_assert!(
            matches!(self.channel, Channel::Protocol | Channel::Task),
            "a remote hint comes from an error message or a status text"
        );
        self.remote_hint = hint.into();
        self
    }

    /// Sets whether a transport failure's request may have been received (`None`: a
    /// response arrived after all, e.g. a refused extended card).
    #[must_use]
    pub fn with_request_sent(mut self, sent: impl Into<Option<RequestSent>>) -> Outcome {
        debug_assert!(
            self.channel == Channel::Transport,
            "only a transport failure has it"
        );
        self.request_sent = sent.into();
        self
    }

    /// The outcome read by its channel: only the fields that mean something there,
    /// borrowed. Match on it instead of checking `channel` and then reading fields that may
    /// not apply; the flat fields stay for the C ABI and JSON.
    pub fn view(&self) -> OutcomeView<'_> {
        match self.channel {
            Channel::Transport => OutcomeView::Transport {
                error: self.error,
                request_sent: self.request_sent,
                message: self.message.as_deref(),
            },
            Channel::Http => OutcomeView::Http {
                status: self.http_status,
                error: self.error,
                retry_after_secs: self.retry_after_secs,
                body_excerpt: self.body_excerpt.as_deref(),
            },
            Channel::Protocol => OutcomeView::Protocol {
                error: self.error,
                code: self.code,
                reason: self.reason.as_deref(),
                message: self.message.as_deref(),
                data: self.data.as_deref(),
            },
            Channel::Task => OutcomeView::Task {
                state: self.state,
                terminal: self.terminal,
                task_id: self.task_id.as_deref(),
                context_id: self.context_id.as_deref(),
                text: self.text.as_deref(),
                error_id: self.error_id.as_deref(),
                cancel_origin: self.cancel_origin,
            },
            Channel::Message => OutcomeView::Message {
                text: self.text.as_deref(),
                task_id: self.task_id.as_deref(),
                context_id: self.context_id.as_deref(),
            },
            Channel::Malformed => OutcomeView::Malformed {
                message: self.message.as_deref(),
                body_excerpt: self.body_excerpt.as_deref(),
            },
        }
    }

    /// The `a2a` command's exit status for this outcome: 0 completed task or direct
    /// message; 3 transport, http, malformed (and truncated streams, which are transport
    /// outcomes); 4 protocol error; 5 failed task; 6 canceled, rejected, input-required or
    /// auth-required; 7 submitted, working or unknown state.
    pub fn exit_code(&self) -> i32 {
        match self.channel {
            Channel::Transport | Channel::Http | Channel::Malformed => 3,
            Channel::Protocol => 4,
            Channel::Message => 0,
            Channel::Task => match self.state {
                Some(TaskState::Completed) => 0,
                Some(TaskState::Failed) => 5,
                Some(
                    TaskState::Canceled
                    | TaskState::Rejected
                    | TaskState::InputRequired
                    | TaskState::AuthRequired,
                ) => 6,
                Some(TaskState::Submitted | TaskState::Working | TaskState::Unknown) | None => 7,
            },
        }
    }

    /// The outcome as one JSON object with exactly the keys of `a2a classify`, in this order:
    /// `channel`, `http_status`, `code`, `error`, `reason`, `message`, `state`, `terminal`,
    /// `task_id`, `context_id`, `text`, `error_id`, `retry`, `hint`, `remote_hint` (the
    /// remote's `[key=value]` pairs as an object, the first of a repeated key kept, or null),
    /// `leaked_detail`, `cancel_origin`.
    pub fn to_json(&self) -> String {
        let mut s = String::with_capacity(256);
        self.write_json_fields(&mut s);
        s.push('}');
        s
    }

    /// Writes `{` and the `a2a classify` keys without the closing `}` (so a caller can add
    /// keys of its own, as `a2a classify --stream` does for stream items).
    pub fn write_json_fields(&self, s: &mut String) {
        fn opt_str(s: &mut String, key: &str, v: Option<&str>) {
            s.push_str(key);
            match v {
                Some(v) => json_string(s, v),
                None => s.push_str("null"),
            }
        }
        s.push_str("{\"channel\":");
        json_string(s, self.channel.as_str());
        s.push_str(",\"http_status\":");
        match self.http_status {
            Some(h) => s.push_str(&h.to_string()),
            None => s.push_str("null"),
        }
        s.push_str(",\"code\":");
        match self.code {
            Some(c) => s.push_str(&c.to_string()),
            None => s.push_str("null"),
        }
        opt_str(s, ",\"error\":", self.error.map(ErrorName::as_str));
        opt_str(s, ",\"reason\":", self.reason.as_deref());
        opt_str(s, ",\"message\":", self.message.as_deref());
        opt_str(s, ",\"state\":", self.state.map(TaskState::as_str));
        s.push_str(",\"terminal\":");
        s.push_str(if self.terminal { "true" } else { "false" });
        opt_str(s, ",\"task_id\":", self.task_id.as_deref());
        opt_str(s, ",\"context_id\":", self.context_id.as_deref());
        opt_str(s, ",\"text\":", self.text.as_deref());
        opt_str(s, ",\"error_id\":", self.error_id.as_deref());
        opt_str(s, ",\"retry\":", Some(self.retry.as_str()));
        opt_str(s, ",\"hint\":", self.hint.as_deref());
        s.push_str(",\"remote_hint\":");
        match &self.remote_hint {
            None => s.push_str("null"),
            Some(h) => {
                s.push('{');
                let mut written: Vec<&str> = Vec::with_capacity(h.pairs.len());
                for (k, v) in &h.pairs {
                    if written.contains(&k.as_str()) {
                        continue;
                    }
                    if !written.is_empty() {
                        s.push(',');
                    }
                    written.push(k);
                    json_string(s, k);
                    s.push(':');
                    json_string(s, v);
                }
                s.push('}');
            }
        }
        s.push_str(",\"leaked_detail\":");
        s.push_str(if self.leaked_detail { "true" } else { "false" });
        opt_str(
            s,
            ",\"cancel_origin\":",
            self.cancel_origin.map(CancelOrigin::as_str),
        );
    }

    /// Whether this outcome is a success (completed task or direct message).
    pub fn is_success(&self) -> bool {
        match self.channel {
            Channel::Message => true,
            Channel::Task => self.state == Some(TaskState::Completed),
            _ => false,
        }
    }
}

/// Appends `v` as a JSON string literal, escaped as serde_json escapes it (the crate's one
/// escaper: `\b` and `\f` for U+0008 and U+000C, other controls as `\u00xx`).
pub fn json_string(s: &mut String, v: &str) {
    crate::json::write_str(s, v);
}

impl RemoteHint {
    /// Parses a stable hint a remote appends to its message: `[retryable=false; reason=quota]`.
    /// The bracket group must start with a `key=value` pair; pairs are separated by `;` (or `,`),
    /// keys and values are trimmed. `retryable` is read as a boolean. The last such group wins.
    pub fn parse(message: &str) -> Option<RemoteHint> {
        let mut found = None;
        let mut rest = message;
        while let Some(open) = rest.find('[') {
            let after = &rest[open + 1..];
            let Some(close) = after.find(']') else { break };
            let inner = &after[..close];
            if let Some(h) = parse_remote_hint_group(inner) {
                found = Some(h);
            }
            rest = &after[close + 1..];
        }
        found
    }
}

/// One `[key=value; ...]` group of a remote hint; `None` unless it names `retryable`.
fn parse_remote_hint_group(inner: &str) -> Option<RemoteHint> {
    let mut hint = RemoteHint::default();
    for pair in inner.split([';', ',']) {
        let pair = pair.trim();
        if pair.is_empty() {
            continue;
        }
        let (k, v) = pair.split_once('=')?;
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty()
            || !k
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        {
            return None;
        }
        if k == "retryable" {
            hint.retryable = match v {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            };
        }
        hint.pairs.push((k.to_owned(), v.to_owned()));
    }
    (!hint.pairs.is_empty() && hint.pairs.iter().any(|(k, _)| k == "retryable")).then_some(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact-spelling fast path of `TaskState::parse` agrees with the normalising reader
    /// for every spelling it matches, and leaves every other spelling to it.
    #[test]
    fn task_state_fast_path_agrees_with_the_normalising_reader() {
        for s in [
            "TASK_STATE_COMPLETED",
            "completed",
            "TASK_STATE_WORKING",
            "working",
            "TASK_STATE_SUBMITTED",
            "submitted",
            "TASK_STATE_INPUT_REQUIRED",
            "input-required",
            "TASK_STATE_FAILED",
            "failed",
            "TASK_STATE_CANCELED",
            "canceled",
            "TASK_STATE_REJECTED",
            "rejected",
            "TASK_STATE_AUTH_REQUIRED",
            "auth-required",
            " completed",
            "COMPLETED",
            "TASK_STATE_CANCELLED",
            "input_required",
            "4",
            "",
            "bogus",
        ] {
            assert_eq!(TaskState::parse(s), TaskState::parse_normalised(s), "{s:?}");
        }
        assert_eq!(
            TaskState::parse("TASK_STATE_COMPLETED"),
            TaskState::Completed
        );
        assert_eq!(TaskState::parse("bogus"), TaskState::Unknown);
    }

    #[test]
    fn the_view_carries_only_the_fields_of_its_channel() {
        let t = Outcome::transport(ErrorName::Timeout, RequestSent::Unknown, "call timed out");
        assert_eq!(
            t.view(),
            OutcomeView::Transport {
                error: Some(ErrorName::Timeout),
                request_sent: Some(RequestSent::Unknown),
                message: Some("call timed out"),
            }
        );
        let mut task = Outcome::empty(Channel::Task);
        task.state = Some(TaskState::Failed);
        task.terminal = true;
        task.task_id = Some("t-1".into());
        task.error_id = Some("3f9c0a7b12de".into());
        // A field of another channel set by mistake does not show through the view.
        task.request_sent = Some(RequestSent::No);
        let OutcomeView::Task {
            state,
            terminal,
            task_id,
            error_id,
            ..
        } = task.view()
        else {
            panic!("{:?}", task.view())
        };
        assert_eq!(
            (state, terminal, task_id, error_id),
            (
                Some(TaskState::Failed),
                true,
                Some("t-1"),
                Some("3f9c0a7b12de")
            )
        );
        for channel in [
            Channel::Http,
            Channel::Protocol,
            Channel::Message,
            Channel::Malformed,
        ] {
            let o = Outcome::empty(channel);
            let v = o.view();
            let matches = matches!(
                (channel, v),
                (Channel::Http, OutcomeView::Http { .. })
                    | (Channel::Protocol, OutcomeView::Protocol { .. })
                    | (Channel::Message, OutcomeView::Message { .. })
                    | (Channel::Malformed, OutcomeView::Malformed { .. })
            );
            assert!(matches, "{channel:?} -> {v:?}");
        }
    }

    #[test]
    fn json_has_exactly_the_cli_keys_and_escapes() {
        let mut o = Outcome::empty(Channel::Task);
        o.text = Some("a\"b\\c\n\u{1}é".to_owned());
        o.state = Some(TaskState::Failed);
        let j = o.to_json();
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = vec![
            "channel",
            "http_status",
            "code",
            "error",
            "reason",
            "message",
            "state",
            "terminal",
            "task_id",
            "context_id",
            "text",
            "error_id",
            "retry",
            "hint",
            "remote_hint",
            "leaked_detail",
            "cancel_origin",
        ];
        let mut got = keys.clone();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(v["text"], "a\"b\\c\n\u{1}é");
        assert_eq!(v["state"], "failed");
        assert_eq!(o.exit_code(), 5);
    }

    #[test]
    fn task_state_spellings() {
        assert_eq!(TaskState::parse("completed"), TaskState::Completed);
        assert_eq!(TaskState::parse("input-required"), TaskState::InputRequired);
        assert_eq!(
            TaskState::parse("TASK_STATE_INPUT_REQUIRED"),
            TaskState::InputRequired
        );
        assert_eq!(
            TaskState::parse("TASK_STATE_CANCELLED"),
            TaskState::Canceled
        );
        assert_eq!(TaskState::parse("TASK_STATE_CANCELED"), TaskState::Canceled);
        assert_eq!(TaskState::parse("auth-required"), TaskState::AuthRequired);
        assert_eq!(
            TaskState::parse("TASK_STATE_UNSPECIFIED"),
            TaskState::Unknown
        );
        assert_eq!(TaskState::parse("4"), TaskState::Failed);
        assert_eq!(
            TaskState::parse("a-very-long-state-name-that-overflows"),
            TaskState::Unknown
        );
        assert!(TaskState::Rejected.is_terminal());
        assert!(!TaskState::InputRequired.is_terminal());
        assert!(TaskState::AuthRequired.is_interrupted());
    }

    #[test]
    fn names_round_trip() {
        for n in ErrorName::ALL {
            assert_eq!(ErrorName::parse(n.as_str()), Some(n));
        }
        for a in [
            RetryAdvice::None,
            RetryAdvice::FixVersion,
            RetryAdvice::UnknownOutcome,
        ] {
            assert_eq!(RetryAdvice::parse(a.as_str()), Some(a));
        }
    }

    #[test]
    fn each_constructor_fills_its_channel_and_derives_the_rest() {
        let h = Outcome::http(503, ErrorName::Unavailable, RetryAdvice::Backoff);
        assert_eq!(
            (h.channel, h.http_status, h.error, h.retry),
            (
                Channel::Http,
                Some(503),
                Some(ErrorName::Unavailable),
                RetryAdvice::Backoff
            )
        );
        assert_eq!((h.code, h.request_sent, h.state), (None, None, None));
        let p = Outcome::protocol(ErrorName::TaskNotFound, Some(-32001), RetryAdvice::Never);
        assert_eq!(
            (p.channel, p.code, p.error, p.http_status),
            (
                Channel::Protocol,
                Some(-32001),
                Some(ErrorName::TaskNotFound),
                None
            )
        );
        for state in [
            TaskState::Submitted,
            TaskState::Working,
            TaskState::InputRequired,
            TaskState::AuthRequired,
            TaskState::Completed,
            TaskState::Canceled,
            TaskState::Failed,
            TaskState::Rejected,
            TaskState::Unknown,
        ] {
            let t = Outcome::task(state);
            assert_eq!(t.channel, Channel::Task);
            assert_eq!(t.state, Some(state));
            assert_eq!(t.terminal, state.is_terminal(), "{state:?}");
            assert_eq!(t.retry, state.advice(), "{state:?}");
            assert_eq!(t.error, None);
        }
        assert_eq!(Outcome::task(TaskState::Failed).retry, RetryAdvice::NewTask);
        assert_eq!(Outcome::task(TaskState::Working).retry, RetryAdvice::Poll);
        let a = Outcome::artifact_update();
        assert_eq!(
            (a.channel, a.state, a.terminal, a.retry),
            (Channel::Task, None, false, RetryAdvice::Poll)
        );
        let m = Outcome::message().with_text("hi".to_owned());
        assert_eq!(
            (m.channel, m.retry, m.text.as_deref()),
            (Channel::Message, RetryAdvice::None, Some("hi"))
        );
        let bad = Outcome::malformed("no result", RetryAdvice::Never).with_http_status(200);
        assert_eq!(
            (bad.channel, bad.message.as_deref(), bad.http_status),
            (Channel::Malformed, Some("no result"), Some(200))
        );
    }

    #[test]
    fn constructors_give_the_json_the_flat_fields_gave() {
        // The constructor and the field-by-field build it replaced print the same JSON.
        let mut by_fields = Outcome::empty(Channel::Task);
        by_fields.state = Some(TaskState::InputRequired);
        by_fields.task_id = Some("t-1".to_owned());
        by_fields.context_id = Some("c-1".to_owned());
        by_fields.text = Some("which date?".to_owned());
        by_fields.http_status = Some(200);
        by_fields.version = Some(ProtocolVersion::V1_0);
        by_fields.binding = Some(Binding::JsonRpc);
        let built = Outcome::task(TaskState::InputRequired)
            .with_task_id("t-1".to_owned())
            .with_context_id("c-1".to_owned())
            .with_text("which date?".to_owned())
            .with_http_status(200)
            .with_version(ProtocolVersion::V1_0)
            .with_binding(Binding::JsonRpc);
        assert_eq!(built, by_fields);
        assert_eq!(built.to_json(), by_fields.to_json());
        // Setters replace and clear.
        let o = Outcome::transport(ErrorName::Tls, RequestSent::No, "TLS: bad cert")
            .with_reason("unknown_issuer".to_owned())
            .with_hint("trust the CA".to_owned())
            .with_hint(None)
            .with_request_sent(None);
        assert_eq!(
            (o.reason.as_deref(), o.hint, o.request_sent),
            (Some("unknown_issuer"), None, None)
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a task's state comes from Outcome::task")]
    fn a_task_state_is_not_set_on_the_side() {
        let _ = Outcome::task(TaskState::Working).with_last_state(TaskState::Completed);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "only a transport failure has it")]
    fn request_sent_belongs_to_transport() {
        let _ = Outcome::http(502, ErrorName::BadGateway, RetryAdvice::Backoff)
            .with_request_sent(RequestSent::No);
    }

    #[test]
    fn transport_advice_depends_on_request_sent() {
        let o = Outcome::transport(ErrorName::ConnectFailed, RequestSent::No, "refused");
        assert_eq!(o.channel, Channel::Transport);
        assert_eq!(o.retry, RetryAdvice::Backoff);
        let o = Outcome::transport(ErrorName::Timeout, RequestSent::Unknown, "call timeout");
        assert_eq!(o.retry, RetryAdvice::UnknownOutcome);
    }
}
