//! Client request builders: every A2A method, both protocol versions, both bindings.
//!
//! The call's parameters come in as JSON (any version's keys are read tolerantly, so a
//! binding can keep one canonical form, e.g. A2A 1.0 ProtoJSON) and the request comes out
//! as plain values: HTTP method, path relative to the interface URL, headers and body.
//! `a2a_http1_join_target` and `a2a_http1_write_request` serialize it for an HTTP/1.1
//! connection.

use std::ffi::c_char;

use a2a::envelope::{self, CallOptions, Interface, Method, Request, RpcId};
use a2a::model::{self, WireForm};

use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::http1::{a2a_header, headers_from};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_bytes, a2a_str, input_str, try_bytes, try_input, try_str};
use crate::vocab::{a2a_binding, a2a_protocol_version};

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

/// Which JSON-RPC id a request carries.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_rpc_id_kind {
    /// No id (HTTP+JSON requests; a JSON-RPC request without one is refused).
    None = 0,
    /// A number (`id_number`).
    Number = 1,
    /// A string (`id_string`).
    String = 2,
}

/// The interface a request goes to; read during the call only.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_interface {
    /// An `a2a_protocol_version`.
    pub version: u32,
    /// An `a2a_binding`.
    pub binding: u32,
    /// The 1.0 tenant, copied from the card's interface; `(NULL, 0)` or empty when unset.
    pub tenant: *const c_char,
    /// Length of `tenant` in bytes.
    pub tenant_len: usize,
}

/// Per-call options; read during the call only. NULL options mean no id, no extensions,
/// no extra headers.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_call_options {
    /// An `a2a_rpc_id_kind`: which of `id_number` / `id_string` is the JSON-RPC id.
    pub id_kind: u32,
    /// The numeric id when `id_kind` is `A2A_RPC_ID_KIND_NUMBER`.
    pub id_number: i64,
    /// The string id (UTF-8) when `id_kind` is `A2A_RPC_ID_KIND_STRING`.
    pub id_string: *const c_char,
    /// Length of `id_string` in bytes.
    pub id_string_len: usize,
    /// Extension URIs to activate (`A2A-Extensions` / `X-A2A-Extensions`), UTF-8 views.
    pub extensions: *const a2a_str,
    /// Number of `extensions`.
    pub extensions_len: usize,
    /// Caller headers appended as given (credentials, `traceparent`, `Idempotency-Key`).
    pub headers: *const a2a_header,
    /// Number of `headers`.
    pub headers_len: usize,
}

fn build_code(e: &envelope::BuildError) -> a2a_result {
    use envelope::BuildError as E;
    match e {
        E::NotInVersion { .. } => a2a_result::A2A_REQUEST_NOT_IN_VERSION,
        E::MissingId => a2a_result::A2A_REQUEST_MISSING_ID,
        E::NotRepresentable(_) => a2a_result::A2A_REQUEST_NOT_REPRESENTABLE,
        E::BadHeader(_) => a2a_result::A2A_REQUEST_BAD_HEADER,
        E::ReservedHeader(_) => a2a_result::A2A_REQUEST_RESERVED_HEADER,
        E::BadExtension(_) => a2a_result::A2A_REQUEST_BAD_EXTENSION,
        E::Model(_) => a2a_result::A2A_REQUEST_BODY,
        // A refusal added to the core later: the params could not be built into a request.
        _ => a2a_result::A2A_REQUEST_PARAMS,
    }
}

/// # Safety
/// `i` must be readable with valid `(ptr, len)` inputs.
pub(crate) unsafe fn interface_from(i: &a2a_interface) -> Result<Interface, a2a_result> {
    let version =
        a2a_protocol_version::core_from_u32(i.version).ok_or(a2a_result::A2A_INVALID_ARGUMENT)?;
    let binding = a2a_binding::core_from_u32(i.binding).ok_or(a2a_result::A2A_INVALID_ARGUMENT)?;
    // SAFETY: forwarded contract.
    let tenant = unsafe { input_str(i.tenant, i.tenant_len) }?;
    Ok(Interface {
        version,
        binding,
        tenant: (!tenant.is_empty()).then(|| tenant.to_owned()),
    })
}

/// Owned pieces of `a2a_call_options`, borrowed by `CallOptions`.
struct Opts<'a> {
    id: Option<RpcId>,
    extensions: Vec<&'a str>,
    headers: Vec<(&'a str, &'a str)>,
}

/// # Safety
/// `o`, when non-NULL, must point to readable options with valid inputs.
unsafe fn opts_from<'a>(o: *const a2a_call_options) -> Result<Opts<'a>, a2a_result> {
    if o.is_null() {
        return Ok(Opts {
            id: None,
            extensions: Vec::new(),
            headers: Vec::new(),
        });
    }
    // SAFETY: non-NULL, readable by contract.
    let o = unsafe { &*o };
    let id = match o.id_kind {
        0 => None,
        1 => Some(RpcId::Number(o.id_number)),
        // SAFETY: forwarded contract.
        2 => Some(RpcId::String(
            unsafe { input_str(o.id_string, o.id_string_len) }?.to_owned(),
        )),
        _ => return Err(a2a_result::A2A_INVALID_ARGUMENT),
    };
    let mut extensions = Vec::new();
    if o.extensions_len > 0 {
        if o.extensions.is_null() {
            return Err(a2a_result::A2A_NULL_PARAMETER);
        }
        if o.extensions_len > isize::MAX as usize / std::mem::size_of::<a2a_str>() {
            return Err(a2a_result::A2A_INVALID_ARGUMENT);
        }
        // SAFETY: non-NULL, size checked, readable by contract.
        for v in unsafe { std::slice::from_raw_parts(o.extensions, o.extensions_len) } {
            // SAFETY: forwarded contract.
            extensions.push(unsafe { input_str(v.ptr, v.len) }?);
        }
    }
    // SAFETY: forwarded contract.
    let headers = unsafe { headers_from(o.headers, o.headers_len) }?;
    Ok(Opts {
        id,
        extensions,
        headers,
    })
}

/// A built request: send `http_method` to the interface URL joined with `path`, with the
/// headers and the body.
///
/// Methods: `a2a_request_new`, `a2a_request_free`, `a2a_request_build`,
/// `a2a_request_build_text`, `a2a_request_http_method`, `a2a_request_path`,
/// `a2a_request_header_count`, `a2a_request_header`, `a2a_request_body`,
/// `a2a_request_a2a_method`, `a2a_request_rpc_id`, `a2a_request_last_error`.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_request {
    req: Option<Request>,
    rpc_id_text: String,
    last_error: String,
}

impl Handle for a2a_request {}

impl a2a_request {
    fn finish(&mut self, built: Result<Request, envelope::BuildError>) -> a2a_result {
        match built {
            Ok(r) => {
                self.rpc_id_text = r.rpc_id.as_ref().map(|i| i.to_string()).unwrap_or_default();
                self.req = Some(r);
                a2a_result::A2A_OK
            }
            Err(e) => {
                self.last_error = e.to_string();
                build_code(&e)
            }
        }
    }
}

/// A new, empty request handle (fill it with `a2a_request_build`; reuse it for the next
/// call). `out`: a new handle the caller owns (free with `a2a_request_free`); written on
/// success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_new(out: *mut *mut a2a_request) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_request {
            req: None,
            rpc_id_text: String::new(),
            last_error: String::new(),
        }));
        a2a_result::A2A_OK
    }
}

/// Frees a request handle. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_free(request: *mut a2a_request) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(request) }
    }
}

/// Builds the request for `method` with its parameters `params_json` (a JSON object, read
/// tolerantly: any version's keys; `(NULL, 0)` means no params, e.g. for
/// `GetExtendedAgentCard`) on `*iface`, with `*opts` (NULL: none). Everything is read
/// during the call only; the request is held by the handle (replacing the previous one).
///
/// Errors (the handle then holds no request; `a2a_request_last_error` says why):
/// `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (version, binding,
/// method or id kind not a member), `A2A_REQUEST_PARAMS` (params not JSON or of the wrong
/// shape), `A2A_REQUEST_NOT_IN_VERSION` (e.g. ListTasks on 0.3), `A2A_REQUEST_MISSING_ID`
/// (JSON-RPC without an id), `A2A_REQUEST_NOT_REPRESENTABLE`, `A2A_REQUEST_BAD_HEADER`,
/// `A2A_REQUEST_RESERVED_HEADER`, `A2A_REQUEST_BAD_EXTENSION`, `A2A_REQUEST_BODY`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_build(
    request: *mut a2a_request,
    iface: *const a2a_interface,
    method: u32,
    params_json: *const u8,
    params_json_len: usize,
    opts: *const a2a_call_options,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_mut!(request);
        let iface = try_ref!(iface);
        let params = try_bytes!(params_json, params_json_len);
        r.req = None;
        r.last_error.clear();
        // SAFETY: the header requires valid inputs in `iface` and `opts`.
        let iface = try_input!(unsafe { interface_from(iface) });
        // SAFETY: as above.
        let o = try_input!(unsafe { opts_from(opts) });
        let Some(method) = a2a_method::core_from_u32(method) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let json = (!params.is_empty()).then_some(params);
        let parsed = match model::parse_params(method, json, WireForm::new(iface.version, iface.binding)) {
            Ok(p) => p,
            Err(e) => {
                r.last_error = format!("invalid params for {}: {e}", method.name());
                return a2a_result::A2A_REQUEST_PARAMS;
            }
        };
        let mut iface = iface;
        if iface.tenant.is_none() {
            iface.tenant = parsed.tenant.as_deref().map(str::to_owned);
        }
        let call_opts = CallOptions { id: o.id, extensions: &o.extensions, headers: &o.headers };
        let built = envelope::build(&iface, &parsed.call, &call_opts);
        r.finish(built)
    }
}

/// Builds a `SendMessage` request with one user text part: `message_id` (reuse it when
/// retrying the same message) and `text`, both UTF-8. Otherwise as `a2a_request_build`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_build_text(
    request: *mut a2a_request,
    iface: *const a2a_interface,
    message_id: *const c_char,
    message_id_len: usize,
    text: *const c_char,
    text_len: usize,
    opts: *const a2a_call_options,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_mut!(request);
        let iface = try_ref!(iface);
        let message_id = try_str!(message_id, message_id_len);
        let text = try_str!(text, text_len);
        r.req = None;
        r.last_error.clear();
        // SAFETY: the header requires valid inputs in `iface` and `opts`.
        let iface = try_input!(unsafe { interface_from(iface) });
        // SAFETY: as above.
        let o = try_input!(unsafe { opts_from(opts) });
        let call = envelope::text_message(message_id, text);
        let call_opts = CallOptions { id: o.id, extensions: &o.extensions, headers: &o.headers };
        let built = envelope::build(&iface, &call, &call_opts);
        r.finish(built)
    }
}

/// The HTTP method (`POST`, `GET`, `DELETE`), static text; absent `(NULL, 0)` when the
/// handle holds no request.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_http_method(request: *const a2a_request) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(try_ref!(request).req.as_ref().map(|r| r.method.as_str()))
    }
}

/// The path relative to the interface URL: empty for JSON-RPC (post to the URL itself),
/// `/...` for HTTP+JSON (append it to the URL's path, e.g. with `a2a_http1_join_target`).
/// Absent when the handle holds no request. Valid until the next mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_path(request: *const a2a_request) -> a2a_str {
    ffi_panic_boundary! {
        a2a_str::from_opt(try_ref!(request).req.as_ref().map(|r| r.path.as_str()))
    }
}

/// Number of headers (0 when the handle holds no request).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_header_count(request: *const a2a_request) -> usize {
    ffi_panic_boundary! {
        try_ref!(request).req.as_ref().map_or(0, |r| r.headers.len())
    }
}

/// The `index`-th header, in order. Views valid until the next mutating call; both written
/// on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (`index` out of range or no
/// request).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_header(
    request: *const a2a_request,
    index: usize,
    name: *mut a2a_str,
    value: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        let name = try_out!(name);
        let value = try_out!(value);
        match r.req.as_ref().and_then(|q| q.headers.get(index)) {
            Some((n, v)) => {
                name.set(a2a_str::from_str(n));
                value.set(a2a_str::from_str(v));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_INVALID_ARGUMENT,
        }
    }
}

/// The body bytes (empty for GET and DELETE). Absent when the handle holds no request.
/// Valid until the next mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_body(request: *const a2a_request) -> a2a_bytes {
    ffi_panic_boundary! {
        try_ref!(request).req.as_ref().map_or(a2a_bytes::NONE, |r| a2a_bytes::from_slice(&r.body))
    }
}

/// The A2A method of the built request. Returns true and writes `*out`, or false when the
/// handle holds no request or an argument is NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_a2a_method(
    request: *const a2a_request,
    out: *mut a2a_method,
) -> bool {
    ffi_panic_boundary! {
        let out = try_out!(out);
        match try_ref!(request).req.as_ref() {
            Some(r) => { out.set(a2a_method::from_core(r.a2a_method)); true }
            None => false,
        }
    }
}

/// The JSON-RPC id the response must echo, as text (a string id's contents or a number's
/// digits: pass it as `a2a_asked.request_id` to the classifier). Absent for HTTP+JSON or
/// when the handle holds no request. Valid until the next mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_rpc_id(request: *const a2a_request) -> a2a_str {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        match r.req.as_ref().and_then(|q| q.rpc_id.as_ref()) {
            Some(_) => a2a_str::from_str(&r.rpc_id_text),
            None => a2a_str::NONE,
        }
    }
}

/// A human-readable message for the error of the most recent build on this handle;
/// absent `(NULL, 0)` when it had none or `request` is NULL. Valid until the next mutating
/// call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_request_last_error(request: *const a2a_request) -> a2a_str {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        if r.last_error.is_empty() { a2a_str::NONE } else { a2a_str::from_str(&r.last_error) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::{null, null_mut};

    fn iface(version: a2a_protocol_version, binding: a2a_binding) -> a2a_interface {
        a2a_interface {
            version: version as u32,
            binding: binding as u32,
            tenant: null(),
            tenant_len: 0,
        }
    }

    use crate::outcome::tests::view_text;

    #[test]
    fn get_task_in_every_form() {
        let mut r = null_mut();
        assert_eq!(a2a_request_new(&mut r), a2a_result::A2A_OK);
        let opts = a2a_call_options {
            id_kind: a2a_rpc_id_kind::Number as u32,
            id_number: 7,
            id_string: null(),
            id_string_len: 0,
            extensions: null(),
            extensions_len: 0,
            headers: null(),
            headers_len: 0,
        };
        let params = br#"{"id":"t-1"}"#;
        let i = iface(a2a_protocol_version::V0_3, a2a_binding::JsonRpc);
        assert_eq!(
            a2a_request_build(
                r,
                &i,
                a2a_method::GetTask as u32,
                params.as_ptr(),
                params.len(),
                &opts
            ),
            a2a_result::A2A_OK
        );
        assert_eq!(view_text(a2a_request_http_method(r)), Some("POST"));
        assert_eq!(view_text(a2a_request_path(r)), Some(""));
        let body = unsafe { a2a_request_body(r).as_slice() }.unwrap();
        let v: serde_json::Value = serde_json::from_slice(body).unwrap();
        assert_eq!(v["method"], "tasks/get");
        assert_eq!(v["id"], 7);
        assert_eq!(v["params"]["id"], "t-1");
        assert_eq!(view_text(a2a_request_rpc_id(r)), Some("7"));
        let i = iface(a2a_protocol_version::V1_0, a2a_binding::HttpJson);
        assert_eq!(
            a2a_request_build(
                r,
                &i,
                a2a_method::GetTask as u32,
                params.as_ptr(),
                params.len(),
                null()
            ),
            a2a_result::A2A_OK
        );
        assert_eq!(view_text(a2a_request_http_method(r)), Some("GET"));
        assert_eq!(view_text(a2a_request_path(r)), Some("/tasks/t-1"));
        assert!(view_text(a2a_request_rpc_id(r)).is_none());
        // JSON-RPC without id; ListTasks on 0.3.
        let i = iface(a2a_protocol_version::V1_0, a2a_binding::JsonRpc);
        assert_eq!(
            a2a_request_build(
                r,
                &i,
                a2a_method::GetTask as u32,
                params.as_ptr(),
                params.len(),
                null()
            ),
            a2a_result::A2A_REQUEST_MISSING_ID
        );
        assert!(view_text(a2a_request_last_error(r)).unwrap().contains("id"));
        assert!(
            view_text(a2a_request_path(r)).is_none(),
            "no request after a failure"
        );
        let i = iface(a2a_protocol_version::V0_3, a2a_binding::HttpJson);
        assert_eq!(
            a2a_request_build(r, &i, a2a_method::ListTasks as u32, null(), 0, null()),
            a2a_result::A2A_REQUEST_NOT_IN_VERSION
        );
        assert_eq!(
            a2a_request_build(r, &i, a2a_method::GetTask as u32, b"[".as_ptr(), 1, null()),
            a2a_result::A2A_REQUEST_PARAMS
        );
        a2a_request_free(r);
    }
}
