//! A2A errors as a server sends them: JSON-RPC codes, ErrorInfo reasons, HTTP statuses.

use crate::outcome::ErrorName;

/// `google.rpc.ErrorInfo` domain of A2A errors.
pub const DOMAIN: &str = "a2a-protocol.org";

/// An error a server answers with.
#[derive(Debug, Clone, PartialEq)]
pub struct A2aError {
    /// The error (a protocol-channel [`ErrorName`]; `Other` uses `code`).
    pub name: ErrorName,
    /// The JSON-RPC code (set from `name` by the constructors).
    pub code: i64,
    /// Human-readable message.
    pub message: String,
    /// ErrorInfo metadata (string map), e.g. `taskId`.
    pub metadata: Vec<(String, String)>,
    /// `google.rpc.BadRequest` field violations `(field, description)`, sent as a second
    /// detail after the ErrorInfo (as the Python SDK does for invalid params).
    pub violations: Vec<(String, String)>,
    /// For `MethodNotFound` over HTTP+JSON when the path exists with another verb: the
    /// verbs allowed (answered as 405 with `Allow`).
    pub allow: Option<&'static str>,
    /// An HTTP status answered instead of the mapped one, on both bindings (JSON-RPC errors
    /// are otherwise HTTP 200): the server side sets it for refusals of the HTTP request
    /// itself, 415 for a body not declared JSON and 421 (or 400) for a `Host` it does not
    /// answer for.
    pub http_status_override: Option<u16>,
}

impl A2aError {
    /// An error of a protocol-channel name with its standard message.
    ///
    /// # Panics
    /// Never; a non-protocol name (http/transport channel) becomes `Internal`.
    pub fn new(name: ErrorName) -> A2aError {
        let name = if code_of(name).is_some() {
            name
        } else {
            ErrorName::Internal
        };
        A2aError {
            name,
            code: code_of(name).expect("protocol names have codes"),
            message: default_message(name).to_owned(),
            metadata: Vec::new(),
            violations: Vec::new(),
            allow: None,
            http_status_override: None,
        }
    }

    /// An error with a custom message.
    pub fn with_message(name: ErrorName, message: impl Into<String>) -> A2aError {
        A2aError {
            message: message.into(),
            ..A2aError::new(name)
        }
    }

    /// An application-defined error code (`ErrorName::Other`).
    pub fn other(code: i64, message: impl Into<String>) -> A2aError {
        A2aError {
            name: ErrorName::Other,
            code,
            message: message.into(),
            metadata: Vec::new(),
            violations: Vec::new(),
            allow: None,
            http_status_override: None,
        }
    }

    /// Adds one ErrorInfo metadata entry.
    pub fn meta(mut self, key: impl Into<String>, value: impl Into<String>) -> A2aError {
        self.metadata.push((key.into(), value.into()));
        self
    }

    /// Adds one BadRequest field violation (`message.parts`, "must not be empty").
    pub fn violation(
        mut self,
        field: impl Into<String>,
        description: impl Into<String>,
    ) -> A2aError {
        self.violations.push((field.into(), description.into()));
        self
    }

    /// The same error answered with HTTP `status` on both bindings.
    pub fn with_http_status(mut self, status: u16) -> A2aError {
        self.http_status_override = Some(status);
        self
    }

    /// `TaskNotFound` for `task_id` (with `taskId` metadata).
    pub fn task_not_found(task_id: &str) -> A2aError {
        A2aError::new(ErrorName::TaskNotFound).meta("taskId", task_id)
    }

    /// The ErrorInfo `reason`: the error's name in UPPER_SNAKE_CASE (spec rule).
    pub fn reason(&self) -> &'static str {
        reason_of(self.name)
    }

    /// HTTP status of this error over HTTP+JSON (spec v1.0.1 table; the standard JSON-RPC
    /// errors as the Python SDK maps them).
    pub fn http_status(&self) -> u16 {
        if let Some(status) = self.http_status_override {
            return status;
        }
        if self.allow.is_some() {
            return 405;
        }
        http_of(self.name).0
    }

    /// The `google.rpc.Code` name of this error (`status` in REST bodies).
    pub fn grpc_status(&self) -> &'static str {
        if self.allow.is_some() {
            return "UNIMPLEMENTED";
        }
        http_of(self.name).1
    }
}

/// The JSON-RPC code of a protocol error name.
pub fn code_of(name: ErrorName) -> Option<i64> {
    Some(match name {
        ErrorName::ParseError => -32700,
        ErrorName::InvalidRequest => -32600,
        ErrorName::MethodNotFound => -32601,
        ErrorName::InvalidParams => -32602,
        ErrorName::Internal => -32603,
        ErrorName::TaskNotFound => -32001,
        ErrorName::TaskNotCancelable => -32002,
        ErrorName::PushNotificationNotSupported => -32003,
        ErrorName::UnsupportedOperation => -32004,
        ErrorName::ContentTypeNotSupported => -32005,
        ErrorName::InvalidAgentResponse => -32006,
        ErrorName::ExtendedAgentCardNotConfigured => -32007,
        ErrorName::ExtensionSupportRequired => -32008,
        ErrorName::VersionNotSupported => -32009,
        ErrorName::Other => -32000,
        _ => return None,
    })
}

/// The spec's default message for each error (the 1.0 "standard message" strings).
pub fn default_message(name: ErrorName) -> &'static str {
    match name {
        ErrorName::ParseError => "Invalid JSON payload",
        ErrorName::InvalidRequest => "Request payload validation error",
        ErrorName::MethodNotFound => "Method not found",
        ErrorName::InvalidParams => "Invalid parameters",
        ErrorName::Internal => "Internal error",
        ErrorName::TaskNotFound => "Task not found",
        ErrorName::TaskNotCancelable => "Task cannot be canceled",
        ErrorName::PushNotificationNotSupported => "Push Notification is not supported",
        ErrorName::UnsupportedOperation => "This operation is not supported",
        ErrorName::ContentTypeNotSupported => "Incompatible content types",
        ErrorName::InvalidAgentResponse => "Invalid agent response",
        ErrorName::ExtendedAgentCardNotConfigured => "Extended agent card is not configured",
        ErrorName::ExtensionSupportRequired => "Extension support required",
        ErrorName::VersionNotSupported => "Version not supported",
        _ => "Error",
    }
}

fn reason_of(name: ErrorName) -> &'static str {
    match name {
        ErrorName::ParseError => "JSON_PARSE",
        ErrorName::InvalidRequest => "INVALID_REQUEST",
        ErrorName::MethodNotFound => "METHOD_NOT_FOUND",
        ErrorName::InvalidParams => "INVALID_PARAMS",
        ErrorName::Internal => "INTERNAL",
        ErrorName::TaskNotFound => "TASK_NOT_FOUND",
        ErrorName::TaskNotCancelable => "TASK_NOT_CANCELABLE",
        ErrorName::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
        ErrorName::UnsupportedOperation => "UNSUPPORTED_OPERATION",
        ErrorName::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
        ErrorName::InvalidAgentResponse => "INVALID_AGENT_RESPONSE",
        ErrorName::ExtendedAgentCardNotConfigured => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
        ErrorName::ExtensionSupportRequired => "EXTENSION_SUPPORT_REQUIRED",
        ErrorName::VersionNotSupported => "VERSION_NOT_SUPPORTED",
        _ => "UNKNOWN",
    }
}

/// HTTP status and google.rpc code name (spec v1.0.1 §5.4 for A2A errors; Python SDK's
/// mapping for the standard JSON-RPC errors).
fn http_of(name: ErrorName) -> (u16, &'static str) {
    match name {
        ErrorName::ParseError | ErrorName::InvalidRequest | ErrorName::InvalidParams => {
            (400, "INVALID_ARGUMENT")
        }
        ErrorName::MethodNotFound | ErrorName::TaskNotFound => (404, "NOT_FOUND"),
        ErrorName::ContentTypeNotSupported => (400, "INVALID_ARGUMENT"),
        ErrorName::TaskNotCancelable
        | ErrorName::PushNotificationNotSupported
        | ErrorName::UnsupportedOperation
        | ErrorName::ExtendedAgentCardNotConfigured
        | ErrorName::ExtensionSupportRequired
        | ErrorName::VersionNotSupported => (400, "FAILED_PRECONDITION"),
        ErrorName::Internal | ErrorName::InvalidAgentResponse => (500, "INTERNAL"),
        _ => (500, "UNKNOWN"),
    }
}

/// Every protocol error name with a fixed code (for tables and tests).
pub const PROTOCOL_ERRORS: [ErrorName; 14] = [
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
];
