//! Reading an incoming request: JSON-RPC envelope or HTTP+JSON route, version detection,
//! typed params, and the error to answer when any of it is wrong.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::error::A2aError;
use super::host::{HostPolicy, HostRefusal};
use super::media;
use crate::envelope::{HttpMethod, Method, RpcId, percent_decode};
use crate::method::{RestPath, match_rest_path};
use crate::model::params::{
    Call, GetTaskParams, ListPushConfigsParams, ListTasksParams, PushConfigRef, TaskIdParams,
};
use crate::model::{Json, PartContent, Role, TaskState, WireForm, parse_params};
use crate::outcome::ErrorName;
use crate::version::{Binding, ProtocolVersion};

/// Which protocol versions the server speaks, and which `Host` it answers for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerOptions<'p> {
    /// Serve 0.3 (method names `message/send`..., REST under `/v1`).
    pub v0_3: bool,
    /// Serve 1.0 (`SendMessage`..., `A2A-Version: 1.0`).
    pub v1_0: bool,
    /// The `Host` check run before anything else is read (the DNS-rebinding defence; see
    /// [`HostPolicy`]). `None`: no check, for servers that check `Host` themselves. A server
    /// listening on loopback should always set it.
    pub host: Option<&'p HostPolicy>,
}

impl Default for ServerOptions<'_> {
    fn default() -> Self {
        ServerOptions {
            v0_3: true,
            v1_0: true,
            host: None,
        }
    }
}

/// The refusal of a `Host` not served: InvalidRequest, answered 421 (or 400 for a
/// missing, repeated or malformed `Host`) on both bindings.
fn host_refused(r: &HostRefusal) -> A2aError {
    A2aError::with_message(ErrorName::InvalidRequest, r.to_string()).with_http_status(r.status())
}

/// The refusal of a body not declared JSON: ContentTypeNotSupported (-32005, as the JS
/// SDK's JSON-RPC server answers it), HTTP 415 on both bindings.
fn media_refused(message: String) -> A2aError {
    A2aError::with_message(ErrorName::ContentTypeNotSupported, message).with_http_status(415)
}

/// A request read successfully.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingRequest<'a> {
    /// The protocol version it is spoken in (answer in the same).
    pub version: ProtocolVersion,
    /// The binding it arrived on.
    pub binding: Binding,
    /// The A2A method.
    pub method: Method,
    /// The JSON-RPC id to echo (JSON-RPC only).
    pub id: Option<RpcId>,
    /// The typed call.
    pub call: Call<'a>,
    /// 1.0 tenant (from params or the REST path), when set.
    pub tenant: Option<Cow<'a, str>>,
    /// Extension URIs the client asked for (`A2A-Extensions` / `X-A2A-Extensions`).
    pub extensions: Vec<String>,
    /// The caller's W3C `traceparent`, when it sent a valid one (an invalid one is dropped,
    /// as the W3C rule says: the server then starts a new trace). Log it beside the task.
    pub traceparent: Option<String>,
    /// The caller's `Idempotency-Key` (trimmed; absent when empty): the same key means the
    /// same operation, so a server that stores it can answer a repeat with the first result
    /// instead of doing the work twice.
    pub idempotency_key: Option<String>,
}

impl IncomingRequest<'_> {
    /// The JSON form to answer in.
    pub fn form(&self) -> WireForm {
        WireForm::new(self.version, self.binding)
    }
}

/// A request that must be answered with an error.
#[derive(Debug, Clone, PartialEq)]
pub struct RefusedRequest {
    /// The version whose error shape to answer in (1.0 errors carry ErrorInfo).
    pub version: ProtocolVersion,
    /// The binding to answer on.
    pub binding: Binding,
    /// The JSON-RPC id to echo (`null` when it could not be read).
    pub id: Option<RpcId>,
    /// The method, when it was recognised.
    pub method: Option<Method>,
    /// The error.
    pub error: A2aError,
}

impl std::fmt::Display for RefusedRequest {
    /// `<error name> (<code>): <message>`, as the answer will say it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.error.name.as_str(),
            self.error.code,
            self.error.message
        )
    }
}

impl std::error::Error for RefusedRequest {}

fn header<'h>(headers: &[(&str, &'h str)], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}

/// The `traceparent` header when it is a valid W3C trace context.
fn traceparent(headers: &[(&str, &str)]) -> Option<String> {
    let v = header(headers, "traceparent")?.trim();
    crate::traceparent::TraceParent::parse(v)
        .ok()
        .map(|_| v.to_owned())
}

/// The `Idempotency-Key` header, trimmed, when not empty.
fn idempotency_key(headers: &[(&str, &str)]) -> Option<String> {
    let v = header(headers, "idempotency-key")?.trim();
    (!v.is_empty()).then(|| v.to_owned())
}

fn extensions(headers: &[(&str, &str)]) -> Vec<String> {
    headers
        .iter()
        .filter(|(n, _)| {
            n.eq_ignore_ascii_case("a2a-extensions") || n.eq_ignore_ascii_case("x-a2a-extensions")
        })
        .flat_map(|(_, v)| v.split(','))
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .fold(Vec::new(), |mut acc, e| {
            if !acc.contains(&e) {
                acc.push(e);
            }
            acc
        })
}

/// The version the client asked for: `Ok(version)` or the raw value it sent that this core
/// does not speak.
fn requested(value: Option<&str>) -> Result<ProtocolVersion, String> {
    ProtocolVersion::from_header(value).map_err(|_| value.unwrap_or("").to_owned())
}

fn unsupported(value: &str) -> A2aError {
    A2aError::with_message(
        ErrorName::VersionNotSupported,
        format!("A2A version {value:?} is not supported; supported versions: 0.3, 1.0"),
    )
}

/// A field that is missing or wrong: `(field path, description)`.
type Violation = (&'static str, &'static str);

/// Checks what a typed call must carry beyond its JSON shape.
fn validate(call: &Call<'_>, version: ProtocolVersion) -> Result<(), Violation> {
    let nonempty = |s: &str, field: &'static str| {
        if s.is_empty() {
            Err((field, "must not be empty"))
        } else {
            Ok(())
        }
    };
    match call {
        Call::SendMessage(p) | Call::SendStreamingMessage(p) => {
            let m = &p.message;
            nonempty(&m.message_id, "message.messageId")?;
            if m.role == Role::Unspecified {
                return Err(("message.role", "is required (user or agent)"));
            }
            if m.parts.is_empty() {
                return Err(("message.parts", "must contain at least one part"));
            }
            if let Some(n) = p.configuration.as_ref().and_then(|c| c.history_length) {
                non_negative(n, "configuration.historyLength")?;
            }
            if version == ProtocolVersion::V0_3
                && m.parts
                    .iter()
                    .any(|p| matches!(&p.content, PartContent::Data(d) if !d.is_object()))
            {
                return Err(("message.parts", "a 0.3 data part must be a JSON object"));
            }
            Ok(())
        }
        Call::GetTask(p) => {
            nonempty(&p.id, "id")?;
            p.history_length
                .map_or(Ok(()), |n| non_negative(n, "historyLength"))
        }
        Call::CancelTask(p) | Call::SubscribeToTask(p) => nonempty(&p.id, "id"),
        Call::CreatePushConfig(c) => {
            nonempty(&c.task_id, "taskId")?;
            nonempty(&c.config.url, "url")
        }
        Call::GetPushConfig(p) => {
            nonempty(&p.task_id, "taskId")?;
            if version == ProtocolVersion::V1_0 && p.config_id.as_deref().is_none_or(str::is_empty)
            {
                return Err(("id", "the push config id is required"));
            }
            Ok(())
        }
        Call::DeletePushConfig(p) => {
            nonempty(&p.task_id, "taskId")?;
            if p.config_id.as_deref().is_none_or(str::is_empty) {
                return Err(("id", "the push config id is required"));
            }
            Ok(())
        }
        Call::ListPushConfigs(p) => {
            nonempty(&p.task_id, "taskId")?;
            p.page_size.map_or(Ok(()), page_size)
        }
        Call::ListTasks(p) => {
            p.page_size.map_or(Ok(()), page_size)?;
            p.history_length
                .map_or(Ok(()), |n| non_negative(n, "historyLength"))?;
            if p.status == Some(TaskState::Unknown) {
                return Err((
                    "status",
                    "is not a task state (submitted, working, input-required, auth-required, completed, canceled, failed, rejected)",
                ));
            }
            match p.status_timestamp_after.as_deref() {
                Some(t) if parse_timestamp(t).is_none() => Err((
                    "statusTimestampAfter",
                    "must be an RFC 3339 timestamp such as 2025-10-27T10:00:00Z",
                )),
                _ => Ok(()),
            }
        }
        Call::GetExtendedAgentCard => Ok(()),
    }
}

/// `historyLength` and its kin: unset means the server's default, 0 means none, a negative
/// number means nothing (spec §3.2.4), so it is refused rather than read as "all".
fn non_negative(n: i32, field: &'static str) -> Result<(), Violation> {
    if n < 0 {
        Err((field, "must be a non-negative integer"))
    } else {
        Ok(())
    }
}

/// `pageSize`: 1 to 100 inclusive (the proto's ListTasksRequest; unset means the server's
/// default, 50 in the spec).
fn page_size(n: i32) -> Result<(), Violation> {
    if (1..=100).contains(&n) {
        Ok(())
    } else {
        Err(("pageSize", "must be between 1 and 100 inclusive"))
    }
}

/// Reads an RFC 3339 timestamp (`2025-10-27T10:00:00Z`, `2025-10-27T12:00:00.5+02:00`): the
/// JSON form of a protobuf `Timestamp`, which is what 1.0's `statusTimestampAfter` is.
/// Returns milliseconds since the Unix epoch (negative before 1970), `None` when the text is
/// not one. Parsed by the `time` crate (a well-kept RFC 3339 reader; leap seconds and
/// offsets are its business, not ours).
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let t =
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

/// The InvalidParams error of a violation.
fn invalid_params(v: Violation) -> A2aError {
    A2aError::with_message(
        ErrorName::InvalidParams,
        format!("Invalid params: {} {}", v.0, v.1),
    )
    .violation(v.0, v.1)
}

// ------------------------------------------------------------------------------ JSON-RPC

#[derive(Deserialize)]
struct EnvelopeIn<'a> {
    #[serde(borrow, default, deserialize_with = "some_raw")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "some_raw")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "some_raw")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "some_raw")]
    params: Option<&'a RawValue>,
}

fn some_raw<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Reads a JSON-RPC id: a string or an integer; anything else is refused.
fn read_id(raw: &RawValue) -> Option<RpcId> {
    let text = raw.get();
    if text.starts_with('"') {
        serde_json::from_str::<String>(text).ok().map(RpcId::String)
    } else {
        text.parse::<i64>().ok().map(RpcId::Number)
    }
}

/// Reads a JSON-RPC request (`POST` body on a JSON-RPC interface) with its headers.
///
/// First the HTTP request itself: a `Host` the options' [`HostPolicy`] does not answer
/// for is refused (421, or 400 when missing or malformed), then a body not declared
/// `application/json` (or `application/a2a+json`) is refused with 415
/// (ContentTypeNotSupported), so that no web page can send one with a CORS "simple"
/// request. A batch (a JSON array) is InvalidRequest: A2A sends one call per request.
///
/// The version is settled by the method name and the `A2A-Version` header together:
/// a 1.0 name needs `A2A-Version: 1.x` (absent or empty means 0.3, answered with
/// VersionNotSupported -32009, as the Python SDK does); a 0.3 name under `A2A-Version: 1.0`
/// is MethodNotFound in 1.0 (with a message naming the 1.0 method); an unknown header
/// version is VersionNotSupported.
pub fn parse_jsonrpc<'a>(
    headers: &[(&str, &str)],
    body: &'a [u8],
    opts: &ServerOptions<'_>,
) -> Result<IncomingRequest<'a>, Box<RefusedRequest>> {
    let asked = requested(header(headers, "a2a-version"));
    let err_version = *asked.as_ref().unwrap_or(&ProtocolVersion::V1_0);
    let fail = |version, id: Option<RpcId>, method, error| {
        Box::new(RefusedRequest {
            version,
            binding: Binding::JsonRpc,
            id,
            method,
            error,
        })
    };
    if let Some(r) = opts.host.and_then(|policy| policy.check(headers).err()) {
        return Err(fail(err_version, None, None, host_refused(&r)));
    }
    if let Some(m) = media::refusal(headers, media::Rule::Required) {
        return Err(fail(err_version, None, None, media_refused(m)));
    }
    let env = read_envelope(body).map_err(|e| fail(err_version, None, None, e))?;
    // The envelope is read in JSON-RPC 2.0's order: version, method, params, then id
    // ([`jsonrpc_id`]); a malformed id (an object, a float) is refused first.
    let id = jsonrpc_id(env.id).map_err(|e| fail(err_version, None, None, e))?;
    let known_id = id.as_ref().ok().cloned();
    let (name, method, named_version) =
        jsonrpc_method(&env).map_err(|e| fail(err_version, known_id.clone(), None, e))?;
    let version = jsonrpc_version(&name, method, named_version, asked, opts)
        .map_err(|(v, e)| fail(v, known_id.clone(), Some(method), e))?;
    let params = jsonrpc_params(method, env.params)
        .map_err(|e| fail(version, known_id.clone(), Some(method), e))?;
    let form = WireForm::new(version, Binding::JsonRpc);
    let parsed = match parse_params(method, params, form) {
        Ok(p) => p,
        Err(e) => {
            return Err(fail(
                version,
                known_id.clone(),
                Some(method),
                A2aError::with_message(ErrorName::InvalidParams, format!("Invalid params: {e}")),
            ));
        }
    };
    if let Err(v) = validate(&parsed.call, version) {
        return Err(fail(version, known_id, Some(method), invalid_params(v)));
    }
    let id = match id {
        Ok(id) => id,
        Err(e) => return Err(fail(version, None, Some(method), e)),
    };
    Ok(IncomingRequest {
        version,
        binding: Binding::JsonRpc,
        method,
        id: Some(id),
        call: parsed.call,
        tenant: parsed.tenant,
        extensions: extensions(headers),
        traceparent: traceparent(headers),
        idempotency_key: idempotency_key(headers),
    })
}

/// The JSON-RPC envelope of a request body. A batch is refused before serde sees it: a
/// derived struct also reads from a JSON array, positionally (`["2.0",1,"tasks/get",{...}]`
/// would be served). JSON-RPC 2.0 answers an unusable batch with one error object, id null;
/// A2A has no batches (the Python SDK refuses them the same way).
fn read_envelope(body: &[u8]) -> Result<EnvelopeIn<'_>, A2aError> {
    if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return Err(A2aError::with_message(
            ErrorName::InvalidRequest,
            "Invalid request: batch requests (JSON arrays) are not supported; A2A sends one JSON-RPC request object per HTTP request",
        ));
    }
    serde_json::from_slice(body).map_err(|e| {
        if e.is_syntax() || e.is_eof() {
            A2aError::with_message(ErrorName::ParseError, format!("Invalid JSON payload: {e}"))
        } else {
            A2aError::with_message(
                ErrorName::InvalidRequest,
                format!("Invalid JSON-RPC request: {e}"),
            )
        }
    })
}

/// A JSON-RPC request's id. The outer error refuses the request at once (an id that is
/// neither a string nor an integer is not a request at all); the inner one waits. A request
/// without an id is a notification in JSON-RPC 2.0, which gets no response object; A2A has
/// no notifications (every method answers with a result) and an HTTP request must be
/// answered, so a missing or null id is InvalidRequest with id null, but only once the method
/// and its params were read: an unknown method is MethodNotFound and bad params InvalidParams
/// whatever else is wrong, as the official SDKs answer them (docs/serving.md, "Requests
/// without an id"). Such a request is never run.
fn jsonrpc_id(raw: Option<&RawValue>) -> Result<Result<RpcId, A2aError>, A2aError> {
    let invalid = |m: &str| A2aError::with_message(ErrorName::InvalidRequest, m);
    Ok(match raw {
        None => Err(invalid(
            "Invalid request: A2A methods are requests, not notifications: an id is required",
        )),
        Some(raw) if raw.get() == "null" => Err(invalid("Invalid request: id must not be null")),
        Some(raw) => Ok(read_id(raw)
            .ok_or_else(|| invalid("Invalid request: id must be a string or an integer"))?),
    })
}

/// The envelope's `jsonrpc` (exactly `"2.0"`) and `method`: its name and what it names.
fn jsonrpc_method<'a>(
    env: &EnvelopeIn<'a>,
) -> Result<(Cow<'a, str>, Method, ProtocolVersion), A2aError> {
    let invalid = |m: &str| A2aError::with_message(ErrorName::InvalidRequest, m);
    if env.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return Err(invalid(
            "Invalid request: 'jsonrpc' must be exactly \"2.0\"",
        ));
    }
    let Some(Ok(name)) = env
        .method
        .map(|m| serde_json::from_str::<Cow<'a, str>>(m.get()))
    else {
        return Err(invalid("Invalid request: method must be a string"));
    };
    let Some((method, version)) = Method::from_jsonrpc_name(&name) else {
        return Err(A2aError::with_message(
            ErrorName::MethodNotFound,
            format!("Method not found: {name}"),
        ));
    };
    Ok((name, method, version))
}

/// The version a JSON-RPC call is served in, settled by its method name and the
/// `A2A-Version` header together; else the version to answer in and the refusal.
fn jsonrpc_version(
    name: &str,
    method: Method,
    named_version: ProtocolVersion,
    asked: Result<ProtocolVersion, String>,
    opts: &ServerOptions<'_>,
) -> Result<ProtocolVersion, (ProtocolVersion, A2aError)> {
    match (named_version, asked) {
        (_, Err(v)) => Err((ProtocolVersion::V1_0, unsupported(&v))),
        (ProtocolVersion::V1_0, Ok(ProtocolVersion::V1_0)) if opts.v1_0 => {
            Ok(ProtocolVersion::V1_0)
        }
        (ProtocolVersion::V1_0, Ok(ProtocolVersion::V0_3)) if opts.v1_0 => Err((
            ProtocolVersion::V1_0,
            A2aError::with_message(
                ErrorName::VersionNotSupported,
                format!(
                    "{name} is a 1.0 method but the request carries no A2A-Version header, which means 0.3; send A2A-Version: 1.0"
                ),
            ),
        )),
        (ProtocolVersion::V0_3, Ok(ProtocolVersion::V0_3)) if opts.v0_3 => {
            Ok(ProtocolVersion::V0_3)
        }
        (ProtocolVersion::V0_3, Ok(ProtocolVersion::V1_0)) if opts.v1_0 => Err((
            ProtocolVersion::V1_0,
            A2aError::with_message(
                ErrorName::MethodNotFound,
                format!(
                    "Method not found: {name} is a 0.3 method; with A2A-Version 1.0 call {}",
                    method.name()
                ),
            ),
        )),
        (_, Ok(v))
            if (v == ProtocolVersion::V0_3 && !opts.v0_3)
                || (v == ProtocolVersion::V1_0 && !opts.v1_0) =>
        {
            Err((v, unsupported(v.as_str())))
        }
        (_, Ok(v)) => Err((
            v,
            A2aError::with_message(
                ErrorName::MethodNotFound,
                format!("Method not found: {name}"),
            ),
        )),
    }
}

/// A JSON-RPC call's `params`: a JSON object, or nothing for the extended card (absent or
/// null).
fn jsonrpc_params(method: Method, params: Option<&RawValue>) -> Result<Option<&[u8]>, A2aError> {
    match params {
        Some(p) if p.get().starts_with('{') => Ok(Some(p.get().as_bytes())),
        Some(p) if p.get() == "null" && method == Method::GetExtendedAgentCard => Ok(None),
        None if method == Method::GetExtendedAgentCard => Ok(None),
        None => Err(A2aError::with_message(
            ErrorName::InvalidParams,
            "params are required",
        )),
        Some(_) => Err(A2aError::with_message(
            ErrorName::InvalidParams,
            "params must be a JSON object",
        )),
    }
}

// ------------------------------------------------------------------------------ HTTP+JSON

/// What is wrong with a percent-decoded path segment (a task id, config id or tenant), if
/// anything. `%2F` would make one segment two for a handler that puts the id in a path or
/// URL, a control character (NUL, CR, LF, ...) could cut or split a log line or a header,
/// and `.` or `..` (also sent as `%2E%2E`) walk up a path: RFC 3986 §5.2.4 removes them, so
/// a proxy and a handler could disagree on which resource is meant.
fn path_segment_violation(decoded: &str) -> Option<&'static str> {
    if decoded.contains('/') {
        Some("must not contain '/' (%2F)")
    } else if decoded.chars().any(char::is_control) {
        Some("must not contain control characters")
    } else if decoded == "." || decoded == ".." {
        Some("must not be '.' or '..'")
    } else {
        None
    }
}

/// Query pairs, values percent-decoded (`+` is kept literally, as RFC 3986 says).
fn query_pairs(query: &str) -> Result<Vec<(&str, Cow<'_, str>)>, String> {
    let mut out = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = percent_decode(v)
            .ok_or_else(|| format!("bad percent-encoding in query value of {k:?}"))?;
        out.push((k, v));
    }
    Ok(out)
}

fn query_value<'q>(pairs: &'q [(&str, Cow<'q, str>)], names: &[&str]) -> Option<&'q str> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| names.contains(k))
        .map(|(_, v)| v.as_ref())
}

fn query_int(pairs: &[(&str, Cow<'_, str>)], names: &[&str]) -> Result<Option<i32>, String> {
    query_value(pairs, names)
        .map(|v| {
            v.parse::<i32>()
                .map_err(|_| format!("{} must be an integer, got {v:?}", names[0]))
        })
        .transpose()
}

fn query_bool(pairs: &[(&str, Cow<'_, str>)], names: &[&str]) -> Result<Option<bool>, String> {
    query_value(pairs, names)
        .map(|v| match v {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(format!("{} must be true or false, got {v:?}", names[0])),
        })
        .transpose()
}

/// Reads an HTTP+JSON request: `verb` (`GET`...), `target` (path and query relative to
/// the interface URL, e.g. `/acme/tasks/t-1?historyLength=5`), headers and body.
///
/// 0.3 routes live under `/v1`; 1.0 routes have no prefix and an optional `/{tenant}`.
/// The `Host` is checked first (as for [`parse_jsonrpc`]); a request with a body must
/// declare it `application/json` or `application/a2a+json` (else 415; a bodyless request
/// needs no `Content-Type`, but one naming another type is refused). A task id, config id or
/// tenant that decodes to one containing `/` or a control character, or to `.` or `..`, is
/// InvalidParams (400) before any handler sees it: a path segment must stay one segment.
/// The version is the `A2A-Version` header (or query parameter); absent or empty means
/// 0.3, so a 1.0 route without it is VersionNotSupported (as the Python SDK answers).
/// Subscribe accepts GET and POST. A known path with the wrong verb is answered 405.
pub fn parse_rest<'a>(
    verb: &str,
    target: &'a str,
    headers: &[(&str, &str)],
    body: &'a [u8],
    opts: &ServerOptions<'_>,
) -> Result<IncomingRequest<'a>, Box<RefusedRequest>> {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if let Some(r) = opts.host.and_then(|policy| policy.check(headers).err()) {
        let version = requested(header(headers, "a2a-version")).unwrap_or(ProtocolVersion::V1_0);
        return Err(rest_refusal(version, None, host_refused(&r)));
    }
    let pairs = match query_pairs(query) {
        Ok(p) => p,
        Err(m) => {
            return Err(rest_refusal(
                ProtocolVersion::V1_0,
                None,
                A2aError::with_message(ErrorName::InvalidRequest, m),
            ));
        }
    };
    // The version is the header's, or the query parameter's when the header is absent or
    // empty.
    let header_version = header(headers, "a2a-version").filter(|v| !v.trim().is_empty());
    let version =
        match requested(header_version.or(query_value(&pairs, &["A2A-Version", "a2a-version"]))) {
            Ok(v) => v,
            Err(v) => return Err(rest_refusal(ProtocolVersion::V1_0, None, unsupported(&v))),
        };
    let trimmed = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    let segs: Vec<&str> = trimmed
        .strip_prefix('/')
        .unwrap_or(trimmed)
        .split('/')
        .collect();
    let matched = match route_for(&segs, version, opts) {
        Ok(m) => m,
        Err(e) => return Err(rest_refusal(ProtocolVersion::V1_0, None, e)),
    };
    let Some((route, raw_tenant)) = matched else {
        let e = A2aError::with_message(
            ErrorName::MethodNotFound,
            format!("no A2A route {verb} {path}"),
        );
        return Err(rest_refusal(version, None, e));
    };
    if (version == ProtocolVersion::V0_3 && !opts.v0_3)
        || (version == ProtocolVersion::V1_0 && !opts.v1_0)
    {
        return Err(rest_refusal(version, None, unsupported(version.as_str())));
    }
    let method = match route.method(HttpMethod::parse(verb)) {
        Ok(m) => m,
        Err(allow) => {
            let mut e = A2aError::with_message(
                ErrorName::MethodNotFound,
                format!("{verb} is not allowed on {path}"),
            );
            e.allow = Some(allow);
            return Err(rest_refusal(version, None, e));
        }
    };
    if let Some(m) = rest_media_refusal(verb, headers, body) {
        return Err(rest_refusal(version, Some(method), media_refused(m)));
    }
    let ids =
        path_ids(method, route, raw_tenant).map_err(|e| rest_refusal(version, Some(method), e))?;
    let form = WireForm::new(version, Binding::HttpJson);
    let call = rest_call(method, &pairs, ids.task_id, ids.config_id, body, form)
        .map_err(|e| rest_refusal(version, Some(method), e))?;
    if let Err(v) = validate(&call, version) {
        return Err(rest_refusal(version, Some(method), invalid_params(v)));
    }
    Ok(IncomingRequest {
        version,
        binding: Binding::HttpJson,
        method,
        id: None,
        call,
        tenant: ids.tenant.filter(|t| !t.is_empty()),
        extensions: extensions(headers),
        traceparent: traceparent(headers),
        idempotency_key: idempotency_key(headers),
    })
}

/// The ids a matched HTTP+JSON path carries, percent-decoded.
struct PathIds<'a> {
    task_id: Cow<'a, str>,
    config_id: Cow<'a, str>,
    tenant: Option<Cow<'a, str>>,
}

/// The task id, config id and tenant of a matched path, percent-decoded; each must stay one
/// path segment ([`path_segment_violation`]).
fn path_ids<'a>(
    method: Method,
    route: RestPath<'a>,
    tenant: Option<&'a str>,
) -> Result<PathIds<'a>, A2aError> {
    let segment = |s: &'a str, field: &'static str, what: &str| {
        let decoded = percent_decode(s).ok_or_else(|| {
            A2aError::with_message(
                ErrorName::InvalidRequest,
                format!("bad percent-encoding in {what}"),
            )
        })?;
        match path_segment_violation(&decoded) {
            None => Ok(decoded),
            Some(why) => Err(A2aError::with_message(
                ErrorName::InvalidParams,
                format!("Invalid params: {what} {decoded:?} {why}"),
            )
            .violation(field, why)),
        }
    };
    let task_field = match method {
        Method::CreatePushConfig
        | Method::GetPushConfig
        | Method::ListPushConfigs
        | Method::DeletePushConfig => "taskId",
        _ => "id",
    };
    Ok(PathIds {
        task_id: segment(route.task_id, task_field, "the task id")?,
        config_id: segment(route.config_id, "id", "the config id")?,
        tenant: tenant
            .map(|t| segment(t, "tenant", "the tenant"))
            .transpose()?,
    })
}

/// A body must be declared JSON; a bodyless POST may omit Content-Type (subscribe, a cancel
/// without metadata) but not name another type (an HTML form's empty POST).
fn rest_media_refusal(verb: &str, headers: &[(&str, &str)], body: &[u8]) -> Option<String> {
    let rule = if !body.is_empty() {
        media::Rule::Required
    } else if HttpMethod::parse(verb) == Some(HttpMethod::Post) {
        media::Rule::IfPresent
    } else {
        return None;
    };
    media::refusal(headers, rule)
}

/// An HTTP+JSON request refused (no JSON-RPC id on this binding).
fn rest_refusal(
    version: ProtocolVersion,
    method: Option<Method>,
    error: A2aError,
) -> Box<RefusedRequest> {
    Box::new(RefusedRequest {
        version,
        binding: Binding::HttpJson,
        id: None,
        method,
        error,
    })
}

/// The route and tenant `segs` name in `version`: 0.3 templates start with `v1`; 1.0 ones
/// may follow a tenant segment. A 1.0 path sent without `A2A-Version` (so read as 0.3) is
/// VersionNotSupported, with a message saying which header to send.
fn route_for<'p>(
    segs: &[&'p str],
    version: ProtocolVersion,
    opts: &ServerOptions<'_>,
) -> Result<Option<(RestPath<'p>, Option<&'p str>)>, A2aError> {
    let with_tenant = |version| {
        match_rest_path(segs, version)
            .map(|p| (p, None))
            .or_else(|| {
                let (tenant, rest) = segs.split_first()?;
                match_rest_path(rest, version).map(|p| (p, Some(*tenant)))
            })
    };
    match version {
        ProtocolVersion::V1_0 => Ok(with_tenant(version)),
        ProtocolVersion::V0_3 => {
            let found = match_rest_path(segs, version);
            if found.is_none()
                && segs.first() != Some(&"v1")
                && opts.v1_0
                && with_tenant(ProtocolVersion::V1_0).is_some()
            {
                return Err(A2aError::with_message(
                    ErrorName::VersionNotSupported,
                    "this is a 1.0 route but the request carries no A2A-Version header, which means 0.3; send A2A-Version: 1.0",
                ));
            }
            Ok(found.map(|p| (p, None)))
        }
    }
}

/// ListTasks' parameters, all from the query (1.0 names, or their snake_case forms).
fn list_tasks_params<'a>(pairs: &[(&str, Cow<'a, str>)]) -> Result<ListTasksParams<'a>, A2aError> {
    let bad = |m: String| A2aError::with_message(ErrorName::InvalidParams, m);
    let owned = |names: &[&str]| query_value(pairs, names).map(|s| Cow::Owned(s.to_owned()));
    Ok(ListTasksParams {
        context_id: owned(&["contextId", "context_id"]),
        status: query_value(pairs, &["status"]).map(TaskState::parse),
        page_size: query_int(pairs, &["pageSize", "page_size"]).map_err(bad)?,
        page_token: owned(&["pageToken", "page_token"]),
        history_length: query_int(pairs, &["historyLength", "history_length"]).map_err(bad)?,
        status_timestamp_after: owned(&["statusTimestampAfter", "status_timestamp_after"]),
        include_artifacts: query_bool(pairs, &["includeArtifacts", "include_artifacts"])
            .map_err(bad)?,
    })
}

/// An HTTP+JSON request body: `None` when blank (refused when `required`), else it must be
/// one JSON object.
fn rest_body(body: &[u8], required: bool) -> Result<Option<&[u8]>, A2aError> {
    let bad = |m: &str| A2aError::with_message(ErrorName::InvalidParams, m);
    if body.iter().all(u8::is_ascii_whitespace) {
        return if required {
            Err(bad("a JSON body is required"))
        } else {
            Ok(None)
        };
    }
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(body) {
        return Err(A2aError::with_message(
            ErrorName::ParseError,
            format!("Invalid JSON payload: {e}"),
        ));
    }
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(bad("the body must be a JSON object"));
    }
    Ok(Some(body))
}

/// The call an HTTP+JSON request makes: its parameters from the path's ids, the query and
/// the body (required JSON for a send or a push config, optional for cancel and subscribe).
fn rest_call<'a>(
    method: Method,
    pairs: &[(&str, Cow<'a, str>)],
    task_id: Cow<'a, str>,
    config_id: Cow<'a, str>,
    body: &'a [u8],
    form: WireForm,
) -> Result<Call<'a>, A2aError> {
    let bad = |m: String| A2aError::with_message(ErrorName::InvalidParams, m);
    let body_json = |required| rest_body(body, required);
    let owned_query = |names: &[&str]| query_value(pairs, names).map(|s| Cow::Owned(s.to_owned()));
    Ok(match method {
        Method::SendMessage | Method::SendStreamingMessage | Method::CreatePushConfig => {
            let json = body_json(true)?;
            let mut call = parse_params(method, json, form)
                .map_err(|e| bad(format!("Invalid params: {e}")))?
                .call;
            if let Call::CreatePushConfig(c) = &mut call {
                c.task_id = task_id;
            }
            call
        }
        Method::GetTask => Call::GetTask(GetTaskParams {
            id: task_id,
            history_length: query_int(pairs, &["historyLength", "history_length"]).map_err(bad)?,
            metadata: None,
        }),
        Method::ListTasks => Call::ListTasks(list_tasks_params(pairs)?),
        Method::CancelTask | Method::SubscribeToTask => {
            #[derive(Deserialize)]
            struct Meta<'m> {
                #[serde(borrow)]
                metadata: Option<Json<'m>>,
            }
            let metadata = match body_json(false)? {
                Some(b) if method == Method::CancelTask => {
                    serde_json::from_slice::<Meta<'a>>(b)
                        .map_err(|e| bad(format!("Invalid params: {e}")))?
                        .metadata
                }
                _ => None,
            };
            let p = TaskIdParams {
                id: task_id,
                metadata,
            };
            if method == Method::CancelTask {
                Call::CancelTask(p)
            } else {
                Call::SubscribeToTask(p)
            }
        }
        Method::GetPushConfig | Method::DeletePushConfig => {
            let r = PushConfigRef {
                task_id,
                config_id: Some(config_id),
                metadata: None,
            };
            if method == Method::GetPushConfig {
                Call::GetPushConfig(r)
            } else {
                Call::DeletePushConfig(r)
            }
        }
        Method::ListPushConfigs => Call::ListPushConfigs(ListPushConfigsParams {
            task_id,
            page_size: query_int(pairs, &["pageSize", "page_size"]).map_err(bad)?,
            page_token: owned_query(&["pageToken", "page_token"]),
            metadata: None,
        }),
        Method::GetExtendedAgentCard => Call::GetExtendedAgentCard,
    })
}
