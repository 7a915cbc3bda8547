//! The server side, for A2A servers embedded in other HTTP stacks: request parsing (both
//! versions, both bindings), result and error responses written in the request's version
//! and binding, SSE frames, and the ADK-style FAILED status with its `error_id`.
//!
//! JSON documents cross the boundary in one canonical form, A2A 1.0 ProtoJSON: the request's
//! params come out in it (`a2a_server_request_params`) and replies, events go in in it (the
//! library rewrites them in the request's own version and binding).

use std::ffi::c_char;

use a2a::time::Millis;

use a2a::envelope::{self, CallOptions, Interface, Method, RpcId};
use a2a::model::{
    self, ListPushConfigsResponse, ListTasksResponse, SendResponse, StreamEvent, Task,
    TaskPushNotificationConfig, WireForm,
};
use a2a::server::{
    self, A2aError, ErrorId, HostPolicy, IncomingRequest, RefusedRequest, Reply, Response,
    ServerOptions,
};
use a2a::version::{Binding, ProtocolVersion};

use crate::buffer::a2a_buffer;
use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::header::{a2a_header, headers_from};
use crate::panic::ffi_panic_boundary;
use crate::request::a2a_method;
use crate::result::a2a_result;
use crate::view::{a2a_bytes, a2a_str, input_str, try_bytes, try_input, try_str};
use crate::vocab::{a2a_binding, a2a_channel, a2a_error_name, a2a_protocol_version};

/// Which protocol versions the server speaks and which `Host` it answers for; read during
/// the call only (the request handle keeps a copy). NULL means both versions and no `Host`
/// check. Zero-initialize it (`a2a_server_options o = {0};`) so that every field you do not
/// set is off.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_server_options {
    /// Serve 0.3 (`message/send`..., REST under `/v1`).
    pub v0_3: bool,
    /// Serve 1.0 (`SendMessage`..., `A2A-Version: 1.0`).
    pub v1_0: bool,
    /// The address the listener is bound to, UTF-8 (`127.0.0.1:8080`, `[::1]:8080`: the
    /// address it was given, never port 0); `(NULL, 0)`: no `Host` check. A loopback address
    /// turns the DNS-rebinding defence on: a `Host` other than a loopback address or
    /// `localhost` on this port, or one of `host_names`, is refused (421; 400 when missing
    /// or malformed).
    pub bound_addr: *const c_char,
    /// Length of `bound_addr` in bytes.
    pub bound_addr_len: usize,
    /// Extra names the server answers for (`agent.example.com`: any port;
    /// `agent.example.com:8443`: that port), an array of UTF-8 views; listing one turns the
    /// check on for any bound address. Needs `bound_addr`.
    pub host_names: *const a2a_str,
    /// Number of `host_names`.
    pub host_names_len: usize,
}

/// What a successfully parsed request asks. Views point into the request handle: valid
/// until the next mutating call on it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_server_request_info {
    /// The version it is spoken in (answers are written in the same).
    pub version: a2a_protocol_version,
    /// The binding it arrived on.
    pub binding: a2a_binding,
    /// The A2A method.
    pub method: a2a_method,
    /// Whether the method answers with an event stream (write frames, not a response).
    pub streaming: bool,
    /// The JSON-RPC id as text (absent for HTTP+JSON).
    pub rpc_id: a2a_str,
    /// The 1.0 tenant, when set.
    pub tenant: a2a_str,
    /// Extension URIs the client asked for (`a2a_server_request_extension`).
    pub extension_count: usize,
}

/// What a response or frame answered, for the tally (`a2a_tally_add`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_served {
    /// The channel a client classifying the response will see.
    pub channel: a2a_channel,
    /// The tally code label (error name, task state, or `message`).
    pub code: a2a_str,
    /// The method's 1.0 name, or `unknown`; static text.
    pub method: a2a_str,
}

/// A response read in one call (`a2a_server_response_get_info`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_server_response_info {
    /// The HTTP status.
    pub status: u16,
    /// Number of headers (read each with `a2a_server_response_header`).
    pub header_count: usize,
    /// The body bytes.
    pub body: a2a_bytes,
    /// What the response answered (channel, tally code, method), for `a2a_tally_add`.
    pub served: a2a_served,
}

enum Source {
    JsonRpc,
    Rest { verb: String, target: String },
}

/// One incoming request: parse it with `a2a_server_parse_jsonrpc` or
/// `a2a_server_parse_rest`, read it, then answer it.
///
/// Methods: `a2a_server_request_new`, `a2a_server_request_free`,
/// `a2a_server_parse_jsonrpc`, `a2a_server_parse_rest`, `a2a_server_request_get_info`,
/// `a2a_server_request_params`, `a2a_server_request_extension`,
/// `a2a_server_request_traceparent`, `a2a_server_request_idempotency_key`,
/// `a2a_server_request_last_error`, `a2a_server_refusal_response`,
/// `a2a_server_result_response`, `a2a_server_error_response`, `a2a_server_event_frame`,
/// `a2a_server_error_frame`, `a2a_server_failed_frame`.
///
/// The handle copies the request's bytes; nothing points into caller memory.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_server_request {
    source: Source,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// The versions served (its `host` is always `None`: the policy is `host`).
    versions: ServerOptions<'static>,
    host: Option<HostPolicy>,
    parsed: bool,
    version: ProtocolVersion,
    binding: Binding,
    method: Method,
    rpc_id: Option<String>,
    tenant: Option<String>,
    extensions: Vec<String>,
    params: Vec<u8>,
    traceparent: Option<String>,
    idempotency_key: Option<String>,
    refusal: Option<Box<RefusedRequest>>,
    last_error: String,
}

impl Handle for a2a_server_request {}

impl a2a_server_request {
    fn clear(&mut self) {
        self.parsed = false;
        self.refusal = None;
        self.rpc_id = None;
        self.tenant = None;
        self.extensions.clear();
        self.params.clear();
        self.traceparent = None;
        self.idempotency_key = None;
        self.last_error.clear();
    }

    /// The options of the stored request.
    fn options(&self) -> ServerOptions<'_> {
        ServerOptions {
            host: self.host.as_ref(),
            ..self.versions
        }
    }

    /// Takes the caller's options (NULL: both versions, no `Host` check); on bad options,
    /// the code to return, with the reason in `last_error`.
    fn set_options(&mut self, o: *const a2a_server_options) -> Result<(), a2a_result> {
        // SAFETY: forwarded contract (NULL or a readable a2a_server_options).
        match unsafe { options_from(o) } {
            Ok((versions, host)) => {
                self.versions = versions;
                self.host = host;
                Ok(())
            }
            Err((code, why)) => {
                self.last_error = why;
                Err(code)
            }
        }
    }

    /// Parses the stored request again (the parsed form borrows the stored bytes).
    fn reparse(&self) -> Option<IncomingRequest<'_>> {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let opts = self.options();
        let r = match &self.source {
            Source::JsonRpc => server::parse_jsonrpc(&headers, &self.body, &opts),
            Source::Rest { verb, target } => {
                server::parse_rest(verb, target, &headers, &self.body, &opts)
            }
        };
        r.ok()
    }

    fn take(
        &mut self,
        result: Result<IncomingRequest<'_>, Box<RefusedRequest>>,
    ) -> Result<Summary, Box<RefusedRequest>> {
        result.map(|req| summarize(&req))
    }

    fn store(&mut self, s: Result<Summary, Box<RefusedRequest>>) -> a2a_result {
        match s {
            Ok(s) => {
                self.parsed = true;
                self.version = s.version;
                self.binding = s.binding;
                self.method = s.method;
                self.rpc_id = s.rpc_id;
                self.tenant = s.tenant;
                self.extensions = s.extensions;
                self.params = s.params;
                self.traceparent = s.traceparent;
                self.idempotency_key = s.idempotency_key;
                a2a_result::A2A_OK
            }
            Err(e) => {
                self.last_error = e.error.message.clone();
                self.refusal = Some(e);
                a2a_result::A2A_SERVER_REFUSED
            }
        }
    }
}

struct Summary {
    version: ProtocolVersion,
    binding: Binding,
    method: Method,
    rpc_id: Option<String>,
    tenant: Option<String>,
    extensions: Vec<String>,
    params: Vec<u8>,
    traceparent: Option<String>,
    idempotency_key: Option<String>,
}

#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    params: Option<&'a serde_json::value::RawValue>,
}

/// The call's params in A2A 1.0 ProtoJSON (JSON-RPC `params`), written by the request
/// builder so both versions come out the same.
fn canonical_params(req: &IncomingRequest<'_>) -> Vec<u8> {
    let mut iface = Interface::new(ProtocolVersion::V1_0, Binding::JsonRpc);
    iface.tenant = req.tenant.as_deref().map(str::to_owned);
    let built = envelope::build(&iface, &req.call, &CallOptions::with_id(RpcId::Number(0)));
    let Ok(built) = built else {
        return b"{}".to_vec();
    };
    match serde_json::from_slice::<Envelope<'_>>(&built.body) {
        Ok(Envelope { params: Some(p) }) => p.get().as_bytes().to_vec(),
        _ => b"{}".to_vec(),
    }
}

fn summarize(req: &IncomingRequest<'_>) -> Summary {
    Summary {
        version: req.version,
        binding: req.binding,
        method: req.method,
        rpc_id: req.id.as_ref().map(|i| i.to_string()),
        tenant: req.tenant.as_deref().map(str::to_owned),
        extensions: req.extensions.clone(),
        params: canonical_params(req),
        traceparent: req.traceparent.clone(),
        idempotency_key: req.idempotency_key.clone(),
    }
}

/// The versions and the `Host` policy of `*o` (NULL: both versions, no policy); an error
/// code with its reason for a bound address or name that is not one.
///
/// # Safety
/// `o` is NULL or points to a readable `a2a_server_options` whose views are readable.
unsafe fn options_from(
    o: *const a2a_server_options,
) -> Result<(ServerOptions<'static>, Option<HostPolicy>), (a2a_result, String)> {
    if o.is_null() {
        return Ok((ServerOptions::default(), None));
    }
    // SAFETY: non-NULL; the header requires a readable a2a_server_options.
    let o = unsafe { &*o };
    let versions = ServerOptions {
        v0_3: o.v0_3,
        v1_0: o.v1_0,
        host: None,
    };
    let plain = |code: a2a_result| (code, String::new());
    // SAFETY: forwarded contract: (ptr, len) describes readable memory.
    let bound = unsafe { input_str(o.bound_addr, o.bound_addr_len) }.map_err(plain)?;
    if bound.is_empty() {
        if o.host_names_len > 0 {
            let why = "host_names need bound_addr (the address the listener is bound to)";
            return Err((a2a_result::A2A_INVALID_ARGUMENT, why.to_owned()));
        }
        return Ok((versions, None));
    }
    let invalid = |why: String| (a2a_result::A2A_INVALID_ARGUMENT, why);
    let addr = bound
        .parse()
        .map_err(|_| invalid(format!("bound_addr {bound:?} is not an ip:port address")))?;
    let mut policy = HostPolicy::new(addr).map_err(|e| invalid(e.to_string()))?;
    if o.host_names_len > 0 {
        if o.host_names.is_null() {
            return Err(plain(a2a_result::A2A_NULL_PARAMETER));
        }
        if o.host_names_len > isize::MAX as usize / std::mem::size_of::<a2a_str>() {
            return Err(plain(a2a_result::A2A_INVALID_ARGUMENT));
        }
        // SAFETY: non-NULL, size checked, readable by contract.
        let views = unsafe { std::slice::from_raw_parts(o.host_names, o.host_names_len) };
        for v in views {
            // SAFETY: forwarded contract: each view describes readable memory.
            let name = unsafe { input_str(v.ptr, v.len) }.map_err(plain)?;
            policy = policy.name(name).map_err(|e| invalid(e.to_string()))?;
        }
    }
    Ok((versions, Some(policy)))
}

/// A new, empty request handle (reuse it for every request on a connection). `out`: a new
/// handle the caller owns (free with `a2a_server_request_free`); written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_request_new(out: *mut *mut a2a_server_request) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_server_request {
            source: Source::JsonRpc,
            headers: Vec::new(),
            body: Vec::new(),
            versions: ServerOptions::default(),
            host: None,
            parsed: false,
            version: ProtocolVersion::V1_0,
            binding: Binding::JsonRpc,
            method: Method::SendMessage,
            rpc_id: None,
            tenant: None,
            extensions: Vec::new(),
            traceparent: None,
            idempotency_key: None,
            params: Vec::new(),
            refusal: None,
            last_error: String::new(),
        }));
        a2a_result::A2A_OK
    }
}

/// Frees a request handle. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_request_free(request: *mut a2a_server_request) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(request) }
    }
}

/// Reads a JSON-RPC request (a POST body on the JSON-RPC interface) with its headers
/// (UTF-8 names and values; pass `Host` too when `opts` sets `bound_addr`) under `*opts`
/// (NULL: both versions, no `Host` check). Everything is copied.
///
/// Returns `A2A_OK` (read it with `a2a_server_request_get_info` and answer it), or
/// `A2A_SERVER_REFUSED`: the request must be answered with an error, which
/// `a2a_server_refusal_response` writes (a `Host` not served: 421; a body not declared
/// `application/json` or `application/a2a+json`: 415; a batch; wrong version, unknown
/// method, bad params, ...; `a2a_server_request_last_error` has the message). Errors:
/// `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (`bound_addr` or a
/// host name that is not one; the reason in `a2a_server_request_last_error`).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_parse_jsonrpc(
    request: *mut a2a_server_request,
    headers: *const a2a_header,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    opts: *const a2a_server_options,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_mut!(request);
        // SAFETY: the header requires `headers` to hold `headers_len` valid entries.
        let hs = try_input!(unsafe { headers_from(headers, headers_len) });
        let body = try_bytes!(body, body_len);
        r.clear();
        r.source = Source::JsonRpc;
        r.headers = hs.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect();
        r.body = body.to_vec();
        try_input!(r.set_options(opts));
        let view: Vec<(&str, &str)> = hs;
        let s = {
            let parsed = server::parse_jsonrpc(&view, body, &r.options());
            r.take(parsed)
        };
        r.store(s)
    }
}

/// Reads an HTTP+JSON request: `verb` (`GET`, `POST`, ...), `target` (path and query
/// relative to the interface URL, e.g. `/acme/tasks/t-1?historyLength=5`), headers and
/// body, under `*opts` (NULL: both versions, no `Host` check). Everything is copied. Results
/// as for `a2a_server_parse_jsonrpc` (a known path with the wrong verb is refused with 405;
/// a task id, config id or tenant that decodes to one with `/` or a control character, or
/// to `.` or `..`, with 400).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_server_parse_rest(
    request: *mut a2a_server_request,
    verb: *const c_char,
    verb_len: usize,
    target: *const c_char,
    target_len: usize,
    headers: *const a2a_header,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    opts: *const a2a_server_options,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_mut!(request);
        let verb = try_str!(verb, verb_len);
        let target = try_str!(target, target_len);
        // SAFETY: the header requires `headers` to hold `headers_len` valid entries.
        let hs = try_input!(unsafe { headers_from(headers, headers_len) });
        let body = try_bytes!(body, body_len);
        r.clear();
        r.source = Source::Rest { verb: verb.to_owned(), target: target.to_owned() };
        r.headers = hs.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect();
        r.body = body.to_vec();
        try_input!(r.set_options(opts));
        let s = {
            let parsed = server::parse_rest(verb, target, &hs, body, &r.options());
            r.take(parsed)
        };
        r.store(s)
    }
}

/// What the parsed request asks. Returns `A2A_OK`, or `A2A_NONE` when no request was
/// parsed successfully. Views valid until the next mutating call.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_request_get_info(
    request: *const a2a_server_request,
    out: *mut a2a_server_request_info,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        let out = try_out!(out);
        if !r.parsed {
            return a2a_result::A2A_NONE;
        }
        out.set(a2a_server_request_info {
            version: a2a_protocol_version::from_core(r.version),
            binding: a2a_binding::from_core(r.binding),
            method: a2a_method::from_core(r.method),
            streaming: r.method.is_streaming(),
            rpc_id: a2a_str::from_opt(r.rpc_id.as_deref()),
            tenant: a2a_str::from_opt(r.tenant.as_deref()),
            extension_count: r.extensions.len(),
        });
        a2a_result::A2A_OK
    }
}

/// The call's params as one JSON object in A2A 1.0 ProtoJSON (the same whatever version
/// the request was spoken in; `{}` for methods without params). Absent when no request was
/// parsed. Valid until the next mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_request_params(request: *const a2a_server_request) -> a2a_bytes {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        if r.parsed { a2a_bytes::from_slice(&r.params) } else { a2a_bytes::NONE }
    }
}

/// The `index`-th extension URI the client asked for. Valid until the next mutating call.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (`index` out of range).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_request_extension(
    request: *const a2a_server_request,
    index: usize,
    out: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        let out = try_out!(out);
        match r.extensions.get(index) {
            Some(e) => { out.set(a2a_str::from_str(e)); a2a_result::A2A_OK }
            None => a2a_result::A2A_INVALID_ARGUMENT,
        }
    }
}

/// The caller's W3C `traceparent` when it sent a valid one; absent otherwise or when no
/// request was parsed. Valid until the next mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_request_traceparent(request: *const a2a_server_request) -> a2a_str {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        a2a_str::from_opt(r.traceparent.as_deref().filter(|_| r.parsed))
    }
}

/// The caller's `Idempotency-Key` (trimmed) when it sent a non-empty one: the same key means
/// the same operation. Absent otherwise or when no request was parsed. Valid until the next
/// mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_request_idempotency_key(
    request: *const a2a_server_request,
) -> a2a_str {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        a2a_str::from_opt(r.idempotency_key.as_deref().filter(|_| r.parsed))
    }
}

/// A human-readable message for the error of the most recent mutating call (the refusal
/// message, or why a reply could not be written); absent when none. Valid until the next
/// mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_request_last_error(request: *const a2a_server_request) -> a2a_str {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        if r.last_error.is_empty() { a2a_str::NONE } else { a2a_str::from_str(&r.last_error) }
    }
}

/// A complete response to write: status, headers, body, and what it answered.
///
/// Methods: `a2a_server_response_new`, `a2a_server_response_free`,
/// `a2a_server_response_get_info` (status, header count, body, what it served),
/// `a2a_server_response_header`.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_server_response {
    resp: Option<Response>,
}

impl Handle for a2a_server_response {}

impl a2a_server_response {
    fn set(&mut self, r: Response) -> a2a_result {
        self.resp = Some(r);
        a2a_result::A2A_OK
    }
}

/// A new, empty response handle. `out`: a new handle the caller owns (free with
/// `a2a_server_response_free`); written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_response_new(out: *mut *mut a2a_server_response) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_server_response { resp: None }));
        a2a_result::A2A_OK
    }
}

/// Frees a response handle. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_response_free(response: *mut a2a_server_response) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(response) }
    }
}

/// The `index`-th header. Views valid until the next mutating call; written on success.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (`index` out of range).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_response_header(
    response: *const a2a_server_response,
    index: usize,
    name: *mut a2a_str,
    value: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(response);
        let name = try_out!(name);
        let value = try_out!(value);
        match r.resp.as_ref().and_then(|x| x.headers.get(index)) {
            Some((n, v)) => {
                name.set(a2a_str::from_str(n));
                value.set(a2a_str::from_str(v));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_INVALID_ARGUMENT,
        }
    }
}

/// Fills `*out` with the response in one call: status, header count, body and what it
/// served (see `a2a_server_response_info`). Returns `A2A_OK`, or `A2A_NONE` when the
/// handle holds no response yet (`*out` untouched). `out`: written on success only; its
/// views point into the handle, valid until the next mutating call.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_response_get_info(
    response: *const a2a_server_response,
    out: *mut a2a_server_response_info,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(response);
        let out = try_out!(out);
        let Some(resp) = r.resp.as_ref() else {
            return a2a_result::A2A_NONE;
        };
        out.set(a2a_server_response_info {
            status: resp.status,
            header_count: resp.headers.len(),
            body: a2a_bytes::from_slice(&resp.body),
            served: a2a_served {
                channel: a2a_channel::from_core(resp.served.channel),
                code: a2a_str::from_str(&resp.served.code),
                method: a2a_str::from_static(resp.served.method_label()),
            },
        });
        a2a_result::A2A_OK
    }
}

/// Writes the error response answering a refused request into `*response` (JSON-RPC
/// errors are HTTP 200; HTTP+JSON errors carry the mapped status). Returns `A2A_OK`, or
/// `A2A_NONE` when the last parse was not refused.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_refusal_response(
    request: *const a2a_server_request,
    response: *mut a2a_server_response,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        let resp = try_mut!(response);
        match r.refusal.as_ref() {
            Some(e) => resp.set(e.response()),
            None => a2a_result::A2A_NONE,
        }
    }
}

/// Parses `json` as `T` in the canonical form.
fn canonical<'a, T: model::FromWire<'a>>(json: &'a [u8]) -> Result<T, model::ModelError> {
    model::from_slice(json, WireForm::new(ProtocolVersion::V1_0, Binding::JsonRpc))
}

/// The success response to the parsed request: `reply_json` is the method's result in A2A
/// 1.0 ProtoJSON (SendMessage: `{"task":...}` or `{"message":...}`; GetTask/CancelTask: a
/// Task; ListTasks: the list response; push config methods: the config or the list;
/// GetExtendedAgentCard: the card JSON; DeletePushConfig: ignored, `(NULL, 0)` is fine),
/// read during the call only and rewritten in the request's version and binding.
///
/// Returns `A2A_OK` (the response is in `*response`), `A2A_NONE` (no request parsed).
/// Errors: `A2A_NULL_PARAMETER`, `A2A_SERVER_STREAMING` (a streaming method: write frames),
/// `A2A_SERVER_REPLY` (the JSON is not the method's result shape or cannot be written in
/// the request's form; message in `a2a_server_request_last_error`).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_result_response(
    request: *mut a2a_server_request,
    reply_json: *const u8,
    reply_json_len: usize,
    response: *mut a2a_server_response,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_mut!(request);
        let resp = try_mut!(response);
        let json = try_bytes!(reply_json, reply_json_len);
        r.last_error.clear();
        if !r.parsed {
            return a2a_result::A2A_NONE;
        }
        if r.method.is_streaming() {
            r.last_error = format!("{} answers with an event stream: write frames", r.method.name());
            return a2a_result::A2A_SERVER_STREAMING;
        }
        let result = {
            let Some(req) = r.reparse() else {
                return a2a_result::A2A_NONE;
            };
            reply(&req, json)
        };
        match result {
            Ok(x) => resp.set(x),
            Err(msg) => {
                r.last_error = msg;
                a2a_result::A2A_SERVER_REPLY
            }
        }
    }
}

fn reply(req: &IncomingRequest<'_>, json: &[u8]) -> Result<Response, String> {
    let e = |e: model::ModelError| format!("reply to {}: {e}", req.method.name());
    let written = match req.method {
        Method::SendMessage => server::result_response(
            req,
            Reply::Send(&canonical::<SendResponse<'_>>(json).map_err(e)?),
        ),
        Method::GetTask | Method::CancelTask => {
            server::result_response(req, Reply::Task(&canonical::<Task<'_>>(json).map_err(e)?))
        }
        Method::ListTasks => server::result_response(
            req,
            Reply::Tasks(&canonical::<ListTasksResponse<'_>>(json).map_err(e)?),
        ),
        Method::CreatePushConfig | Method::GetPushConfig => server::result_response(
            req,
            Reply::PushConfig(&canonical::<TaskPushNotificationConfig<'_>>(json).map_err(e)?),
        ),
        Method::ListPushConfigs => server::result_response(
            req,
            Reply::PushConfigs(&canonical::<ListPushConfigsResponse<'_>>(json).map_err(e)?),
        ),
        Method::DeletePushConfig => server::result_response(req, Reply::Deleted),
        Method::GetExtendedAgentCard => {
            let raw: &serde_json::value::RawValue = serde_json::from_slice(json)
                .map_err(|x| format!("reply to GetExtendedAgentCard: {x}"))?;
            server::result_response(req, Reply::Card(raw))
        }
        Method::SendStreamingMessage | Method::SubscribeToTask => {
            return Err("a streaming method answers with frames".to_owned());
        }
    };
    written.map_err(e)
}

/// An `A2aError` from a C error name (protocol names only; others become Internal, as the
/// core does) and a message (empty: the standard message).
fn a2a_error(name: u32, message: &str) -> Result<A2aError, a2a_result> {
    let name = a2a_error_name::core_from_u32(name).ok_or(a2a_result::A2A_INVALID_ARGUMENT)?;
    Ok(if message.is_empty() {
        A2aError::new(name)
    } else {
        A2aError::with_message(name, message)
    })
}

/// The error response to a request that was read fine but failed in the handler:
/// `error_name` is a protocol-channel `a2a_error_name` (others become Internal), `message`
/// UTF-8 (empty: the standard message). Written in the request's version and binding.
///
/// Returns `A2A_OK`, `A2A_NONE` (no request parsed). Errors: `A2A_NULL_PARAMETER`,
/// `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (`error_name`).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_error_response(
    request: *const a2a_server_request,
    error_name: u32,
    message: *const c_char,
    message_len: usize,
    response: *mut a2a_server_response,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        let resp = try_mut!(response);
        let message = try_str!(message, message_len);
        let err = try_input!(a2a_error(error_name, message));
        let Some(req) = r.reparse() else {
            return a2a_result::A2A_NONE;
        };
        resp.set(server::handler_error(&req, &err))
    }
}

/// Appends to `out` the SSE frame of one stream event for the parsed (streaming) request:
/// `event_json` is a StreamResponse in A2A 1.0 ProtoJSON (`{"task":...}`,
/// `{"statusUpdate":...}`, `{"artifactUpdate":...}` or `{"message":...}`), read during the
/// call only and written in the request's version and binding.
///
/// Returns `A2A_OK`, `A2A_NONE` (no request parsed). Errors: `A2A_NULL_PARAMETER`,
/// `A2A_SERVER_REPLY` (not an event, or cannot be written; message in
/// `a2a_buffer_last_error(out)`).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_event_frame(
    request: *const a2a_server_request,
    event_json: *const u8,
    event_json_len: usize,
    out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        let buf = try_mut!(out);
        let json = try_bytes!(event_json, event_json_len);
        let Some(req) = r.reparse() else {
            return a2a_result::A2A_NONE;
        };
        let frame = canonical::<StreamEvent<'_>>(json).and_then(|ev| server::event_frame(&req, &ev));
        match frame {
            Ok(f) => {
                buf.set_error(None);
                buf.bytes.extend_from_slice(&f.bytes);
                a2a_result::A2A_OK
            }
            Err(e) => {
                buf.set_error(Some(format!("stream event: {e}")));
                a2a_result::A2A_SERVER_REPLY
            }
        }
    }
}

/// Appends to `out` the frame of an error after the stream started (`error_name`,
/// `message` as for `a2a_server_error_response`).
///
/// Returns `A2A_OK`, `A2A_NONE` (no request parsed). Errors: `A2A_NULL_PARAMETER`,
/// `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_error_frame(
    request: *const a2a_server_request,
    error_name: u32,
    message: *const c_char,
    message_len: usize,
    out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        let buf = try_mut!(out);
        let message = try_str!(message, message_len);
        let err = try_input!(a2a_error(error_name, message));
        let Some(req) = r.reparse() else {
            return a2a_result::A2A_NONE;
        };
        buf.set_error(None);
        buf.bytes.extend_from_slice(&server::error_frame(&req, &err).bytes);
        a2a_result::A2A_OK
    }
}

fn error_id_from(text: &str) -> Result<ErrorId, a2a_result> {
    ErrorId::parse(text).ok_or(a2a_result::A2A_SERVER_ERROR_ID)
}

/// Appends to `out` the frame of the final FAILED status update of a task, with the
/// ADK-style text `Agent execution failed. (error_id: <id>)` (then `: <debug_detail>` when
/// given: only in debug deployments, it may leak internals). `error_id`: exactly 12
/// lower-case hex digits (make one from 6 random bytes; log it beside the real cause).
/// Strings are UTF-8, read during the call only; `(NULL, 0)` detail means none.
///
/// Returns `A2A_OK`, `A2A_NONE` (no request parsed). Errors: `A2A_NULL_PARAMETER`,
/// `A2A_INVALID_UTF8`, `A2A_SERVER_ERROR_ID`, `A2A_SERVER_REPLY`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_server_failed_frame(
    request: *const a2a_server_request,
    task_id: *const c_char,
    task_id_len: usize,
    context_id: *const c_char,
    context_id_len: usize,
    message_id: *const c_char,
    message_id_len: usize,
    error_id: *const c_char,
    error_id_len: usize,
    debug_detail: *const c_char,
    debug_detail_len: usize,
    out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(request);
        let buf = try_mut!(out);
        let task_id = try_str!(task_id, task_id_len);
        let context_id = try_str!(context_id, context_id_len);
        let message_id = try_str!(message_id, message_id_len);
        let error_id = try_str!(error_id, error_id_len);
        let detail = try_str!(debug_detail, debug_detail_len);
        let id = try_input!(error_id_from(error_id));
        let Some(req) = r.reparse() else {
            return a2a_result::A2A_NONE;
        };
        let (update, _) = server::failed_update(
            task_id,
            context_id,
            message_id,
            id,
            (!detail.is_empty()).then_some(detail),
            None,
        );
        match server::event_frame(&req, &StreamEvent::StatusUpdate(update)) {
            Ok(f) => {
                buf.set_error(None);
                buf.bytes.extend_from_slice(&f.bytes);
                a2a_result::A2A_OK
            }
            Err(e) => {
                buf.set_error(Some(e.to_string()));
                a2a_result::A2A_SERVER_REPLY
            }
        }
    }
}

/// Appends to `out` the ADK-style FAILED text `Agent execution failed. (error_id: <id>)`
/// (then `: <debug_detail>` when given), for servers writing their own task JSON.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_SERVER_ERROR_ID`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_failure_text(
    error_id: *const c_char,
    error_id_len: usize,
    debug_detail: *const c_char,
    debug_detail_len: usize,
    out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let buf = try_mut!(out);
        let error_id = try_str!(error_id, error_id_len);
        let detail = try_str!(debug_detail, debug_detail_len);
        let id = try_input!(error_id_from(error_id));
        buf.set_error(None);
        let text = server::failure_text(id, (!detail.is_empty()).then_some(detail), None);
        buf.bytes.extend_from_slice(text.as_bytes());
        a2a_result::A2A_OK
    }
}

/// Writes the 12-hex error id of 6 caller-supplied random bytes (`random`: 6 readable
/// bytes; the library has no random source) to `out` (12 writable bytes, not
/// NUL-terminated), on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_error_id_from_random(random: *const u8, out: *mut u8) -> a2a_result {
    ffi_panic_boundary! {
        if random.is_null() || out.is_null() {
            return a2a_result::A2A_NULL_PARAMETER;
        }
        let mut bytes = [0u8; 6];
        // SAFETY: non-NULL; the header requires 6 readable bytes.
        bytes.copy_from_slice(unsafe { std::slice::from_raw_parts(random, 6) });
        let id = ErrorId::from_random(bytes);
        // SAFETY: non-NULL; the header requires 12 writable bytes, distinct from `random`'s
        // copy (taken above).
        unsafe { std::ptr::copy_nonoverlapping(id.as_str().as_ptr(), out, 12) };
        a2a_result::A2A_OK
    }
}

/// The `index`-th header a streaming response starts with (`Content-Type:
/// text/event-stream`, no caching, no proxy buffering), static text. Returns `A2A_OK`, or
/// `A2A_NONE` past the last one.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_stream_header(
    index: usize,
    name: *mut a2a_str,
    value: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let name = try_out!(name);
        let value = try_out!(value);
        match server::STREAM_HEADERS.get(index) {
            Some((n, v)) => {
                name.set(a2a_str::from_static(n));
                value.set(a2a_str::from_static(v));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_NONE,
        }
    }
}

/// The keep-alive schedule of a quiet stream (sans-IO, like the core's `KeepAlive`): whether
/// a keep-alive comment is due at `now_ms`, given the time of the stream's last write (event
/// or comment) on the caller's clock. `interval_ms`: the silence allowed (0: the default,
/// 15 s, what the Python SDK's SSE layer uses; load balancers often cut streams after
/// 30–60 s of silence). `wait_ms`, when non-NULL, receives how long the caller may sleep
/// before the next comment is due (0 when one is due now). `comment`, when non-NULL,
/// receives the bytes to write when one is due (`: keep-alive`, an SSE comment line and a
/// blank line; static, valid for the life of the program) and the absent view `(NULL, 0)`
/// when none is. After writing a comment, pass `now_ms` as the last write.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_keepalive_due(
    interval_ms: u64,
    now_ms: u64,
    last_write_ms: u64,
    wait_ms: *mut u64,
    comment: *mut a2a_bytes,
) -> bool {
    ffi_panic_boundary! {
        let k = if interval_ms == 0 {
            server::KeepAlive::default()
        } else {
            server::KeepAlive { interval: Millis(interval_ms) }
        };
        let (now, last) = (Millis(now_ms), Millis(last_write_ms));
        if !wait_ms.is_null() {
            let out = try_out!(wait_ms);
            out.set(k.wait(now, last).0);
        }
        let due = k.is_due(now, last);
        if !comment.is_null() {
            let out = try_out!(comment);
            out.set(if due { a2a_bytes::from_slice(server::KeepAlive::COMMENT) } else { a2a_bytes::NONE });
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::*;
    use std::ptr::{null, null_mut};

    fn hdr(n: &'static str, v: &'static str) -> a2a_header {
        a2a_header {
            name: n.as_ptr().cast(),
            name_len: n.len(),
            value: v.as_ptr().cast(),
            value_len: v.len(),
        }
    }

    #[test]
    fn keepalive_hands_out_the_comment_only_when_due() {
        let (mut wait, mut comment) = (7, a2a_bytes::NONE);
        assert!(!a2a_server_keepalive_due(
            1000,
            1400,
            1000,
            &mut wait,
            &mut comment
        ));
        assert_eq!(wait, 600);
        assert!(comment.ptr.is_null(), "nothing to write yet");
        assert!(a2a_server_keepalive_due(
            1000,
            2000,
            1000,
            &mut wait,
            &mut comment
        ));
        assert_eq!(wait, 0);
        assert_eq!(
            unsafe { comment.as_slice() },
            Some(&b": keep-alive\n\n"[..])
        );
        assert!(
            a2a_server_keepalive_due(0, 15_000, 0, null_mut(), null_mut()),
            "default 15 s"
        );
        assert!(!a2a_server_keepalive_due(
            0,
            14_999,
            0,
            null_mut(),
            null_mut()
        ));
    }

    #[test]
    fn send_message_0_3_answered_in_0_3() {
        let body = br#"{"jsonrpc":"2.0","id":"r1","method":"message/send","params":{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}"#;
        let hs = [hdr("Content-Type", "application/json")];
        let mut r = null_mut();
        assert_eq!(a2a_server_request_new(&mut r), a2a_result::A2A_OK);
        assert_eq!(
            a2a_server_parse_jsonrpc(r, hs.as_ptr(), 1, body.as_ptr(), body.len(), null()),
            a2a_result::A2A_OK
        );
        let mut info = std::mem::MaybeUninit::<a2a_server_request_info>::uninit();
        assert_eq!(
            a2a_server_request_get_info(r, info.as_mut_ptr()),
            a2a_result::A2A_OK
        );
        // SAFETY: written on A2A_OK.
        let info = unsafe { info.assume_init() };
        assert_eq!(info.version, a2a_protocol_version::V0_3);
        assert_eq!(info.method, a2a_method::SendMessage);
        assert_eq!(unsafe { info.rpc_id.as_str() }, Some("r1"));
        let params: serde_json::Value =
            serde_json::from_slice(unsafe { a2a_server_request_params(r).as_slice() }.unwrap())
                .unwrap();
        assert_eq!(params["message"]["messageId"], "m-1");
        assert_eq!(
            params["message"]["role"], "ROLE_USER",
            "canonical 1.0 form: {params}"
        );
        let mut resp = null_mut();
        assert_eq!(a2a_server_response_new(&mut resp), a2a_result::A2A_OK);
        let mut info = std::mem::MaybeUninit::<a2a_server_response_info>::uninit();
        assert_eq!(
            a2a_server_response_get_info(resp, info.as_mut_ptr()),
            a2a_result::A2A_NONE,
            "no response yet"
        );
        let reply =
            br#"{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}"#;
        assert_eq!(
            a2a_server_result_response(r, reply.as_ptr(), reply.len(), resp),
            a2a_result::A2A_OK
        );
        assert_eq!(
            a2a_server_response_get_info(resp, info.as_mut_ptr()),
            a2a_result::A2A_OK
        );
        // SAFETY: written on A2A_OK.
        let info = unsafe { info.assume_init() };
        assert_eq!(info.status, 200);
        assert!(info.header_count >= 1);
        assert_eq!(unsafe { info.served.code.as_str() }, Some("completed"));
        assert_eq!(unsafe { info.served.method.as_str() }, Some("SendMessage"));
        let out: serde_json::Value =
            serde_json::from_slice(unsafe { info.body.as_slice() }.unwrap()).unwrap();
        assert_eq!(out["id"], "r1");
        assert_eq!(out["result"]["kind"], "task");
        assert_eq!(
            out["result"]["status"]["state"], "completed",
            "written in 0.3: {out}"
        );
        a2a_server_response_free(resp);
        a2a_server_request_free(r);
    }

    #[test]
    fn failed_frame_carries_error_id() {
        let body = br#"{"jsonrpc":"2.0","id":3,"method":"SendStreamingMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"go"}]}}}"#;
        let hs = [
            hdr("A2A-Version", "1.0"),
            hdr("Content-Type", "application/json"),
        ];
        let mut r = null_mut();
        a2a_server_request_new(&mut r);
        assert_eq!(
            a2a_server_parse_jsonrpc(r, hs.as_ptr(), 2, body.as_ptr(), body.len(), null()),
            a2a_result::A2A_OK
        );
        let mut b = null_mut();
        a2a_buffer_new(&mut b);
        let mut id = [0u8; 12];
        assert_eq!(
            a2a_server_error_id_from_random(
                [0x3f, 0x9c, 0x0a, 0x7b, 0x12, 0xde].as_ptr(),
                id.as_mut_ptr()
            ),
            a2a_result::A2A_OK
        );
        assert_eq!(&id, b"3f9c0a7b12de");
        assert_eq!(
            a2a_server_failed_frame(
                r,
                b"t".as_ptr().cast(),
                1,
                b"c".as_ptr().cast(),
                1,
                b"m".as_ptr().cast(),
                1,
                id.as_ptr().cast(),
                12,
                null(),
                0,
                b
            ),
            a2a_result::A2A_OK
        );
        let frame =
            String::from_utf8(unsafe { a2a_buffer_bytes(b).as_slice() }.unwrap().to_vec()).unwrap();
        assert!(frame.starts_with("data: "), "{frame}");
        assert!(
            frame.contains("Agent execution failed. (error_id: 3f9c0a7b12de)"),
            "{frame}"
        );
        assert!(frame.contains("TASK_STATE_FAILED"), "{frame}");
        a2a_buffer_free(b);
        a2a_server_request_free(r);
    }
}
