//! The protocol channel: JSON-RPC error objects and HTTP+JSON error bodies, typed by code
//! or by ErrorInfo `reason`, with version hints.

use crate::outcome::{ErrorName, Outcome};
use crate::version::{Binding, ProtocolVersion};

use super::advice::{self, ProtocolFacts};
use super::hint;
use super::scan::{self, BodyShape, ErrField, MsgField, StatusField, id_text};
use super::{CallContext, is_problem_json, malformed};

/// The error name of a JSON-RPC code (both versions; -32008/-32009 exist in 1.0 only).
pub fn name_of_code(code: i64) -> ErrorName {
    match code {
        -32700 => ErrorName::ParseError,
        -32600 => ErrorName::InvalidRequest,
        -32601 => ErrorName::MethodNotFound,
        -32602 => ErrorName::InvalidParams,
        -32603 => ErrorName::Internal,
        -32001 => ErrorName::TaskNotFound,
        -32002 => ErrorName::TaskNotCancelable,
        -32003 => ErrorName::PushNotificationNotSupported,
        -32004 => ErrorName::UnsupportedOperation,
        -32005 => ErrorName::ContentTypeNotSupported,
        -32006 => ErrorName::InvalidAgentResponse,
        -32007 => ErrorName::ExtendedAgentCardNotConfigured,
        -32008 => ErrorName::ExtensionSupportRequired,
        -32009 => ErrorName::VersionNotSupported,
        _ => ErrorName::Other,
    }
}

/// The error name of an ErrorInfo `reason` (A2A reasons, and the standard reasons the Python
/// and Java SDKs use), or `None` for a reason this core does not know.
pub fn name_of_reason(reason: &str) -> Option<ErrorName> {
    Some(match reason {
        "TASK_NOT_FOUND" => ErrorName::TaskNotFound,
        "TASK_NOT_CANCELABLE" => ErrorName::TaskNotCancelable,
        "PUSH_NOTIFICATION_NOT_SUPPORTED" => ErrorName::PushNotificationNotSupported,
        "UNSUPPORTED_OPERATION" => ErrorName::UnsupportedOperation,
        "CONTENT_TYPE_NOT_SUPPORTED" => ErrorName::ContentTypeNotSupported,
        "INVALID_AGENT_RESPONSE" => ErrorName::InvalidAgentResponse,
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED" | "AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED" => {
            ErrorName::ExtendedAgentCardNotConfigured
        }
        "EXTENSION_SUPPORT_REQUIRED" => ErrorName::ExtensionSupportRequired,
        "VERSION_NOT_SUPPORTED" => ErrorName::VersionNotSupported,
        "INVALID_PARAMS" => ErrorName::InvalidParams,
        "INVALID_REQUEST" => ErrorName::InvalidRequest,
        "METHOD_NOT_FOUND" => ErrorName::MethodNotFound,
        "INTERNAL_ERROR" | "INTERNAL" => ErrorName::Internal,
        "JSON_PARSE" | "PARSE_ERROR" | "JSON_PARSE_ERROR" => ErrorName::ParseError,
        _ => return None,
    })
}

/// google.rpc.Status names that identify an A2A error without a reason.
fn name_of_status(status: &str) -> Option<ErrorName> {
    Some(match status {
        "INVALID_ARGUMENT" => ErrorName::InvalidParams,
        "NOT_FOUND" => ErrorName::TaskNotFound,
        "UNIMPLEMENTED" => ErrorName::UnsupportedOperation,
        "INTERNAL" => ErrorName::Internal,
        _ => return None,
    })
}

/// The A2A REST statuses a body without code or reason is read by (Python 0.3 REST table);
/// infrastructure statuses (401, 403, 408, 413, 429, 502, 503, 504) are not among them.
fn name_of_rest_status(status: u16) -> Option<ErrorName> {
    Some(match status {
        400 => ErrorName::InvalidRequest,
        404 => ErrorName::TaskNotFound,
        409 => ErrorName::TaskNotCancelable,
        415 => ErrorName::ContentTypeNotSupported,
        422 => ErrorName::InvalidParams,
        500 => ErrorName::Internal,
        501 => ErrorName::UnsupportedOperation,
        _ => return None,
    })
}

/// A protocol error read from a body, before advice and hints.
struct Found {
    code: Option<i64>,
    name: ErrorName,
    reason: Option<String>,
    message: Option<String>,
    data: Option<String>,
    binding: Binding,
    /// 1.0 if the error carried 1.0-only markers (data array, -32008/-32009).
    version: Option<ProtocolVersion>,
}

/// Reads a protocol error from `obj`, or `None` when the body carries none. An id mismatch
/// on a JSON-RPC error is reported as malformed (the answer belongs to another request).
pub(crate) fn protocol_error(ctx: &CallContext<'_>, obj: &BodyShape<'_>) -> Option<Outcome> {
    let found = match &obj.error {
        ErrField::BodyShape(e) => {
            let rpc = obj.jsonrpc.0.is_some() || (obj.id.0.is_some() && e.status.get().is_none());
            if rpc {
                if let Some(bad) = id_problem(ctx, obj, true) {
                    return Some(malformed(ctx, bad, &[]));
                }
                let code = e.code.0?;
                let info = e.data.0.map(scan::error_info).unwrap_or_default();
                let reason = info.reason.map(|r| r.into_owned());
                let mut name = name_of_code(code);
                if name == ErrorName::Other
                    && let Some(n) = reason.as_deref().and_then(name_of_reason)
                {
                    name = n;
                }
                let data_is_array = e.data.0.is_some_and(|d| d.get().starts_with('['));
                Found {
                    code: Some(code),
                    name,
                    reason,
                    message: e.message.get().map(str::to_owned),
                    data: e.data.0.map(|d| d.get().to_owned()),
                    binding: Binding::JsonRpc,
                    version: (data_is_array || matches!(code, -32008 | -32009))
                        .then_some(ProtocolVersion::V1_0),
                }
            } else {
                // google.rpc.Status: {"error":{code,status,message,details}}.
                let info = e.details.0.map(scan::error_info).unwrap_or_default();
                let reason = info.reason.map(|r| r.into_owned());
                let by_reason = reason.as_deref().and_then(name_of_reason);
                let by_code = e
                    .code
                    .0
                    .filter(|c| (-32768..=-32000).contains(c))
                    .map(name_of_code);
                let by_status = e.status.get().and_then(name_of_status);
                let name = by_reason
                    .or(by_code)
                    .or(by_status)
                    .or_else(|| name_of_rest_status(ctx.status))?;
                Found {
                    code: e.code.0,
                    name,
                    reason,
                    message: e.message.get().map(str::to_owned),
                    data: e.details.0.map(|d| d.get().to_owned()),
                    binding: Binding::HttpJson,
                    version: None,
                }
            }
        }
        ErrField::Text(_) | ErrField::Other | ErrField::None => rest_bare(ctx, obj)?,
    };
    Some(finish(ctx, found))
}

/// The bare REST forms: `{"code":-32001,"message":…}` (@a2a-js/sdk 0.3), problem+json, and
/// `{"message":"…"}` (a2a-sdk 0.3) on an A2A REST status.
fn rest_bare(ctx: &CallContext<'_>, obj: &BodyShape<'_>) -> Option<Found> {
    if obj.jsonrpc.0.is_some() || obj.result.is_present() {
        return None;
    }
    let text = match &obj.message {
        MsgField::Text(t) => Some(t.as_ref()),
        _ => None,
    };
    if let Some(code) = obj.code.0.filter(|c| (-32768..=-32000).contains(c)) {
        return Some(Found {
            code: Some(code),
            name: name_of_code(code),
            reason: None,
            message: text.map(str::to_owned),
            data: None,
            binding: Binding::HttpJson,
            version: Some(ProtocolVersion::V0_3),
        });
    }
    let problem = is_problem_json(ctx.content_type)
        || (matches!(obj.status, StatusField::Number(_))
            && (obj.title.0.is_some() || obj.detail.0.is_some() || obj.type_.0.is_some()));
    if problem {
        let status = match obj.status {
            StatusField::Number(n) => u16::try_from(n).unwrap_or(ctx.status),
            _ => ctx.status,
        };
        let version_refusal = obj.supported_versions.0
            || [obj.type_.get(), obj.title.get(), obj.detail.get()]
                .into_iter()
                .flatten()
                .any(|t| hint::version_refusal(t).is_some());
        let name = if version_refusal {
            ErrorName::VersionNotSupported
        } else {
            name_of_rest_status(status)?
        };
        return Some(Found {
            code: Some(i64::from(status)),
            name,
            reason: None,
            message: obj.detail.get().or(obj.title.get()).map(str::to_owned),
            data: None,
            binding: Binding::HttpJson,
            version: None,
        });
    }
    let text = text?;
    if ctx.is_2xx() {
        return None;
    }
    Some(Found {
        code: None,
        name: name_of_rest_status(ctx.status)?,
        reason: None,
        message: Some(text.to_owned()),
        data: None,
        binding: Binding::HttpJson,
        version: Some(ProtocolVersion::V0_3),
    })
}

/// Why a JSON-RPC response's id does not answer the request, if it does not.
/// `error_ok_null`: an error may carry `id: null` (the server could not read the id).
pub(crate) fn id_problem(
    ctx: &CallContext<'_>,
    obj: &BodyShape<'_>,
    error_ok_null: bool,
) -> Option<String> {
    let asked = ctx.asked.request_id?;
    let Some(raw) = obj.id.0 else {
        return Some(format!("response has no id (request id {asked})"));
    };
    match id_text(raw) {
        None if error_ok_null => None,
        None => Some(format!("result with id null (request id {asked})")),
        Some(Ok(got)) if got == asked => None,
        Some(Ok(got)) => Some(format!(
            "id mismatch: request id {asked}, response id {got}"
        )),
        Some(Err(())) => Some(format!(
            "response id {} is neither string, number nor null",
            raw.get()
        )),
    }
}

/// Adds hints and advice.
fn finish(ctx: &CallContext<'_>, f: Found) -> Outcome {
    let asked_version = ctx.asked_version();
    let message = f.message.as_deref();
    let mut hint_text = None;
    match f.name {
        ErrorName::VersionNotSupported => {
            hint_text = Some(hint::version_not_supported(message, asked_version));
        }
        ErrorName::Internal if message.is_some_and(|m| hint::version_refusal(m).is_some()) => {
            // Python a2a-sdk: a 0.3 method sent with A2A-Version: 1.0 gets -32603.
            hint_text = Some(hint::version_not_supported(
                message,
                asked_version.or(Some(ProtocolVersion::V0_3)),
            ));
        }
        ErrorName::MethodNotFound => {
            if let (Some(m), Some(info)) = (ctx.asked.method, ctx.method) {
                if info.binding == Binding::JsonRpc {
                    hint_text = Some(hint::method_not_found(m, &info));
                }
            } else if let Some(m) = ctx.asked.method {
                hint_text = hint::unknown_03_method(m);
            }
        }
        _ => {}
    }
    let version_hint = hint_text
        .as_deref()
        .is_some_and(|h| h.starts_with("version mismatch"));
    let remote_hint = message.and_then(hint::parse_remote_hint);
    let retry = advice::protocol(
        ctx,
        &ProtocolFacts {
            name: f.name,
            message,
            version_hint,
            remote_hint: remote_hint.as_ref(),
        },
    );
    let error_id = message
        .and_then(crate::error_id::extract_error_id)
        .map(str::to_owned);
    Outcome::protocol(f.name, f.code, retry)
        .with_reason(f.reason)
        .with_message(f.message.clone())
        .with_data(f.data)
        .with_hint(hint_text)
        .with_remote_hint(remote_hint)
        .with_error_id(error_id)
        .with_binding(f.binding)
        .with_version(f.version.or(asked_version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_name() {
        let codes = [
            (-32700, ErrorName::ParseError),
            (-32600, ErrorName::InvalidRequest),
            (-32601, ErrorName::MethodNotFound),
            (-32602, ErrorName::InvalidParams),
            (-32603, ErrorName::Internal),
            (-32001, ErrorName::TaskNotFound),
            (-32002, ErrorName::TaskNotCancelable),
            (-32003, ErrorName::PushNotificationNotSupported),
            (-32004, ErrorName::UnsupportedOperation),
            (-32005, ErrorName::ContentTypeNotSupported),
            (-32006, ErrorName::InvalidAgentResponse),
            (-32007, ErrorName::ExtendedAgentCardNotConfigured),
            (-32008, ErrorName::ExtensionSupportRequired),
            (-32009, ErrorName::VersionNotSupported),
            (-32050, ErrorName::Other),
            (1, ErrorName::Other),
        ];
        for (c, n) in codes {
            assert_eq!(name_of_code(c), n, "{c}");
        }
        assert_eq!(
            name_of_reason("TASK_NOT_FOUND"),
            Some(ErrorName::TaskNotFound)
        );
        assert_eq!(name_of_reason("nope"), None);
    }
}
